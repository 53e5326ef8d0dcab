// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// A dump the kernel flags NLM_F_DUMP_INTR is read again, a bounded number
// of times, then refused in one line: no kernel involved.
#include <gtest/gtest.h>

#include "netlink.h"

using namespace mltcpctl;

TEST(ReadConsistent, ReadsAgainWhileInterrupted)
{
	int reads = 0;

	read_consistent([&] { return ++reads < kDumpAttempts; }, "jobs");
	EXPECT_EQ(reads, kDumpAttempts);
	reads = 0;
	read_consistent([&] { return ++reads < 0; }, "jobs");
	EXPECT_EQ(reads, 1);
}

TEST(ReadConsistent, GivesUpInOneLine)
{
	int reads = 0;

	try {
		read_consistent([&] { return ++reads > 0; }, "jobs");
		FAIL() << "no error after " << reads << " interrupted dumps";
	} catch (const Error &e) {
		EXPECT_STREQ(e.what(),
			     "the jobs kept changing while they were read (5 attempts); try again");
	}
	EXPECT_EQ(reads, kDumpAttempts);
}
