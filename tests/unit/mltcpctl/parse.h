// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The parser's two outcomes, for the tests: a command, or one line of error.
#ifndef MLTCPCTL_TEST_PARSE_H
#define MLTCPCTL_TEST_PARSE_H

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mltcpctl.h"

namespace mltcpctl::test
{

inline Command ok(const std::vector<std::string> &args)
{
	ParseResult r = parse_args(args);
	EXPECT_TRUE(r.command.has_value()) << r.error;
	return r.command.value_or(Command{});
}

inline std::string bad(const std::vector<std::string> &args)
{
	ParseResult r = parse_args(args);
	EXPECT_FALSE(r.command.has_value());
	EXPECT_EQ(r.error.find('\n'), std::string::npos) << "errors are one line";
	return r.error;
}

} // namespace mltcpctl::test

#endif // MLTCPCTL_TEST_PARSE_H
