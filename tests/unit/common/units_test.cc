// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include "units.h"

namespace
{

using mltcp::parse_decimal;
using mltcp::parse_duration_us;
using mltcp::parse_size;

TEST(Units, Sizes)
{
	EXPECT_EQ(parse_size("0"), 0u);
	EXPECT_EQ(parse_size("1500"), 1500u);
	EXPECT_EQ(parse_size("1500B"), 1500u);
	EXPECT_EQ(parse_size("64K"), 64u << 10);
	EXPECT_EQ(parse_size("64M"), 64u << 20);
	EXPECT_EQ(parse_size("64MiB"), 64u << 20);
	EXPECT_EQ(parse_size("64MB"), 64u << 20);
	EXPECT_EQ(parse_size("1.5G"), 3ull << 29);
	EXPECT_EQ(parse_size("2T"), 2ull << 40);
	for (const char *bad : { "", "M", "-1", "+1", "1 M", "1m", "1X", "1MX", "1.", ".5", "1e3",
				 "99999999999999999T", "1.1234567K" })
		EXPECT_FALSE(parse_size(bad)) << '"' << bad << '"';
}

TEST(Units, Durations)
{
	EXPECT_EQ(parse_duration_us("20ms"), 20000u);
	EXPECT_EQ(parse_duration_us("1.5s"), 1500000u);
	EXPECT_EQ(parse_duration_us("250us"), 250u);
	EXPECT_EQ(parse_duration_us("0ms"), 0u);
	for (const char *bad : { "", "20", "20 ms", "20m", "-1ms", "ms", "1.ms", "1h" })
		EXPECT_FALSE(parse_duration_us(bad)) << '"' << bad << '"';
}

TEST(Units, Decimals)
{
	EXPECT_DOUBLE_EQ(*parse_decimal("1.6"), 1.6);
	EXPECT_DOUBLE_EQ(*parse_decimal("0"), 0.0);
	for (const char *bad : { "", "-1", "1.", "1.6x", "1,6" })
		EXPECT_FALSE(parse_decimal(bad)) << '"' << bad << '"';
}

TEST(Units, FormatRoundTrips)
{
	for (uint64_t v : { 0ull, 1ull, 1000ull, 1024ull, 64ull << 20, 3ull << 29, 5ull << 40 })
		EXPECT_EQ(parse_size(mltcp::format_size(v)), v) << v;
	for (uint64_t v : { 0ull, 1ull, 999ull, 20000ull, 1500000ull, 2000000ull })
		EXPECT_EQ(parse_duration_us(mltcp::format_duration_us(v)), v) << v;
	EXPECT_EQ(mltcp::format_size(64ull << 20), "64M");
	EXPECT_EQ(mltcp::format_duration_us(20000), "20ms");
}

} // namespace
