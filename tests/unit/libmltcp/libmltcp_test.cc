// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "mltcp.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <thread>

namespace
{

TEST(Libmltcp, JobZeroIsRefusedWithMltcpctlsWords)
{
	mltcp_marker *m = reinterpret_cast<mltcp_marker *>(1);

	EXPECT_EQ(mltcp_marker_open(&m, 0, MLTCP_BACKEND_AUTO), -EINVAL);
	EXPECT_EQ(m, nullptr);
	EXPECT_STREQ(mltcp_error(), "job ID 0: out of range (allowed 1 to 4294967295)");
}

TEST(Libmltcp, UnknownBackendIsRefused)
{
	mltcp_marker *m = nullptr;

	EXPECT_EQ(mltcp_marker_open(&m, 7, static_cast<mltcp_backend>(3)), -EINVAL);
	EXPECT_EQ(m, nullptr);
	EXPECT_STREQ(mltcp_error(), "backend 3: not a backend (auto, kmod or bpf)");
}

TEST(Libmltcp, NullArgumentsAreRefused)
{
	EXPECT_EQ(mltcp_marker_open(nullptr, 7, MLTCP_BACKEND_AUTO), -EINVAL);
	EXPECT_EQ(mltcp_mark(nullptr, 1), -EINVAL);
	EXPECT_STREQ(mltcp_error(), "mltcp_mark: no marker");
	mltcp_marker_close(nullptr);
}

TEST(Libmltcp, TheMessageIsTheCallingThreads)
{
	mltcp_marker *m = nullptr;
	std::string other;

	ASSERT_EQ(mltcp_marker_open(&m, 0, MLTCP_BACKEND_KMOD), -EINVAL);
	std::thread([&] {
		EXPECT_STREQ(mltcp_error(), "");
		EXPECT_EQ(mltcp_mark(nullptr, 1), -EINVAL);
		other = mltcp_error();
	}).join();
	EXPECT_EQ(other, "mltcp_mark: no marker");
	EXPECT_STREQ(mltcp_error(), "job ID 0: out of range (allowed 1 to 4294967295)");
}

} // namespace
