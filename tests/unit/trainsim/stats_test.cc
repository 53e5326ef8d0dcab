// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <numeric>

#include "stats.h"

namespace
{

using mltcp::trainsim::mean;
using mltcp::trainsim::nearest_rank_percentile;

TEST(TrainsimStats, Mean)
{
	EXPECT_FALSE(mean({}));
	EXPECT_DOUBLE_EQ(*mean({ 2.0 }), 2.0);
	EXPECT_DOUBLE_EQ(*mean({ 1.0, 2.0, 3.0, 10.0 }), 4.0);
}

TEST(TrainsimStats, NearestRankOnSmallSamples)
{
	// Unsorted input; the percentile is always one of the values.
	std::vector<double> five = { 5, 1, 4, 2, 3 };
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(five, 50), 3); // ceil(2.5) = 3rd
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(five, 99), 5); // ceil(4.95) = 5th
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(five, 100), 5);
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(five, 20), 1); // exactly the 1st
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(five, 21), 2);
	// Even size: p50 is the lower middle value, not an average.
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile({ 4, 1, 3, 2 }, 50), 2);
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile({ 7 }, 99), 7);
	EXPECT_FALSE(nearest_rank_percentile({}, 50));
	EXPECT_FALSE(nearest_rank_percentile({ 1 }, 0));
	EXPECT_FALSE(nearest_rank_percentile({ 1 }, 101));
}

TEST(TrainsimStats, NearestRankOnHundredAndThousand)
{
	std::vector<double> hundred(100);
	std::iota(hundred.begin(), hundred.end(), 1.0);		     // 1..100
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(hundred, 99), 99); // not 100: rank 99 exactly
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(hundred, 50), 50);
	std::vector<double> thousand(1000);
	std::iota(thousand.begin(), thousand.end(), 1.0);
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(thousand, 99), 990);
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(thousand, 50), 500);
	std::vector<double> hundred_and_one(101);
	std::iota(hundred_and_one.begin(), hundred_and_one.end(), 1.0);
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(hundred_and_one, 99), 100); // ceil(99.99)
	EXPECT_DOUBLE_EQ(*nearest_rank_percentile(hundred_and_one, 50), 51);
}

} // namespace
