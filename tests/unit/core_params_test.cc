// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Tunables, F(r) and the decrease factor.
#include <gtest/gtest.h>

#include <cstring>

#include <cmath>
#include <cstdint>
#include <random>

#include "mltcp_core.h"

namespace
{

constexpr double kOne = MLTCP_ONE;

mltcp_params Defaults()
{
	mltcp_params p{};
	mltcp_params_default(&p);
	return p;
}

// The line with mean F exactly 1 over r (slope 1.6, intercept 0.2: 1638 / 2 +
// 205 == 1024 in fixed point), whose decrease factors are round numbers.
mltcp_params MeanOneLine()
{
	mltcp_params p = Defaults();
	p.slope = 1638;
	p.intercept = 205;
	return p;
}

// An iteration of `bytes` (operator-fixed) that began at bytes_acked 0.
mltcp_iter IterationOf(uint64_t bytes)
{
	mltcp_iter it{};
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, bytes);
	return it;
}

TEST(ParseFixed, AcceptsDecimalsAndRoundsToNearest)
{
	uint32_t v = 0;

	ASSERT_EQ(mltcp_parse_fixed("1.6", MLTCP_SLOPE_MAX, &v), 0);
	EXPECT_EQ(v, 1638u); // 1638.4
	ASSERT_EQ(mltcp_parse_fixed("0.2", MLTCP_SLOPE_MAX, &v), 0);
	EXPECT_EQ(v, 205u); // 204.8
	ASSERT_EQ(mltcp_parse_fixed("16", MLTCP_SLOPE_MAX, &v), 0);
	EXPECT_EQ(v, 16u * MLTCP_ONE);
	ASSERT_EQ(mltcp_parse_fixed("0", MLTCP_SLOPE_MAX, &v), 0);
	EXPECT_EQ(v, 0u);
	ASSERT_EQ(mltcp_parse_fixed("1.000000", MLTCP_SLOPE_MAX, &v), 0);
	EXPECT_EQ(v, MLTCP_ONE);
	ASSERT_EQ(mltcp_parse_fixed("0.5\n", MLTCP_SLOPE_MAX, &v), 0); // as written by echo
	EXPECT_EQ(v, MLTCP_ONE / 2);
}

TEST(ParseFixed, RejectsMalformedAndOutOfRangeWithoutWriting)
{
	const char *bad[] = { "",	   "abc", "-1",	     "+1", "1.",     ".5", "1.2.3",   "1e3",
			      "1.1234567", "0x1", "1.5\n\n", "1 ", "16.001", "17", "99999999" };
	for (const char *s : bad) {
		uint32_t v = 12345;

		EXPECT_NE(mltcp_parse_fixed(s, MLTCP_SLOPE_MAX, &v), 0) << '"' << s << '"';
		EXPECT_EQ(v, 12345u) << '"' << s << '"';
	}
}

TEST(ParseFixed, PrintsBackAsThousandths)
{
	EXPECT_EQ(mltcp_fixed_to_milli(MLTCP_DEFAULT_SLOPE), 1600u);
	EXPECT_EQ(mltcp_fixed_to_milli(MLTCP_DEFAULT_INTERCEPT), 700u);
	EXPECT_EQ(mltcp_fixed_to_milli(MLTCP_ONE), 1000u);
	EXPECT_EQ(mltcp_fixed_to_milli(MLTCP_SLOPE_MAX), 16000u);
}

TEST(Params, DefaultsAreValidAndRangesAreEnforced)
{
	mltcp_params p = Defaults();
	EXPECT_TRUE(mltcp_params_valid(&p));

	p.slope = MLTCP_SLOPE_MAX + 1;
	EXPECT_FALSE(mltcp_params_valid(&p));
	p = Defaults();
	p.idle_gap_us = MLTCP_IDLE_GAP_MIN_US - 1;
	EXPECT_FALSE(mltcp_params_valid(&p));
	p.idle_gap_us = MLTCP_IDLE_GAP_MAX_US + 1;
	EXPECT_FALSE(mltcp_params_valid(&p));
	p = Defaults();
	p.mode = 0;
	EXPECT_FALSE(mltcp_params_valid(&p));
	p.mode = MLTCP_MODE_ALL + 1;
	EXPECT_FALSE(mltcp_params_valid(&p));
	for (uint8_t mode = MLTCP_MODE_AI; mode <= MLTCP_MODE_ALL; mode++) {
		p.mode = mode;
		// The gate holds a restarted window: without RESTART it is no mode.
		bool gate_alone = (mode & MLTCP_MODE_GATE) && !(mode & MLTCP_MODE_RESTART);
		EXPECT_EQ(mltcp_params_valid(&p), !gate_alone) << int(mode);
	}
	p = Defaults();
	p.base = MLTCP_BASE_CUBIC + 1;
	EXPECT_FALSE(mltcp_params_valid(&p));
	p = Defaults();
	EXPECT_EQ(p.exempt, 0);
	p.exempt = 1;
	EXPECT_TRUE(mltcp_params_valid(&p));
	p.exempt = 2;
	EXPECT_FALSE(mltcp_params_valid(&p));
}

// Every field, whatever the memory held before (mltcpctl and the BPF twin
// fill stack and map values with it): the fuzzer found "marked" left over.
TEST(Params, DefaultsSetEveryField)
{
	mltcp_params p;

	std::memset(&p, 0xff, sizeof(p));
	mltcp_params_default(&p);
	EXPECT_TRUE(mltcp_params_valid(&p));
	EXPECT_EQ(p.exempt, 0);
	EXPECT_EQ(p.marked, 0);
}

TEST(F, ValuesAtZeroHalfAndOneAndClampedAboveOne)
{
	const mltcp_params p = Defaults();
	const uint64_t bytes = 10'000'000;
	mltcp_iter it = IterationOf(bytes);

	EXPECT_EQ(mltcp_f(&it, &p, 0), p.intercept);			   // F(0) = 0.7
	EXPECT_EQ(mltcp_f(&it, &p, bytes / 2), p.intercept + p.slope / 2); // F(0.5) = 1.5
	EXPECT_EQ(mltcp_f(&it, &p, bytes), p.intercept + p.slope);	   // F(1) = 2.3
	EXPECT_EQ(mltcp_ratio(&it, bytes), MLTCP_ONE);
	// Past the end r stays at 1 (up to the overrun margin of 1/8).
	EXPECT_EQ(mltcp_ratio(&it, bytes + bytes / 10), MLTCP_ONE);
	EXPECT_EQ(mltcp_f(&it, &p, bytes + bytes / 10), p.intercept + p.slope);
}

TEST(F, OverrunBeyondLearnedSizeIsNeutral)
{
	const mltcp_params p = Defaults();
	const uint64_t bytes = 1 << 20;
	mltcp_iter it = IterationOf(bytes);

	EXPECT_EQ(mltcp_f(&it, &p, bytes + bytes / 8), p.intercept + p.slope);
	EXPECT_EQ(mltcp_f(&it, &p, bytes + bytes / 8 + 1), MLTCP_ONE);
	EXPECT_EQ(mltcp_f(&it, &p, 100 * bytes), MLTCP_ONE);
}

TEST(F, NeutralWithoutIterationStructure)
{
	const mltcp_params p = Defaults();
	mltcp_iter it{};

	mltcp_iter_init(&it, 0, 0);
	for (uint64_t acked : { 0ull, 1ull, 1ull << 20, 1ull << 40 })
		EXPECT_EQ(mltcp_f(&it, &p, acked), MLTCP_ONE);

	// The all-zero state the kernel hands us before init is neutral too.
	mltcp_iter zero{};
	mltcp_params zero_params{};
	EXPECT_EQ(mltcp_f(&zero, &zero_params, 12345), MLTCP_ONE);
}

// Mean F over r in [0, 1] is slope / 2 + intercept: 1 for the mean-one
// line, on average no more aggressive than the base; 1.5 for the defaults.
TEST(F, MeanOverRatioIsHalfTheSlopePlusTheIntercept)
{
	const uint64_t bytes = 1 << 30;
	mltcp_iter it = IterationOf(bytes);
	const int steps = 1 << 16;

	EXPECT_EQ(MeanOneLine().slope / 2 + MeanOneLine().intercept, MLTCP_ONE); // exact
	EXPECT_EQ(Defaults().slope / 2 + Defaults().intercept, 1536u);		  // 1.5, exact
	for (const mltcp_params &p : { MeanOneLine(), Defaults() }) {
		double sum = 0;

		for (int i = 0; i < steps; i++)
			sum += mltcp_f(&it, &p, bytes * (2 * i + 1) / (2 * steps));
		// Each sample is within (1 + slope) / 1024 of the exact value (see below).
		EXPECT_NEAR(sum / steps / kOne, (p.slope / 2 + p.intercept) / kOne, 3.0 / kOne);
	}
}

// Error bound: F is within (1 + slope) / 1024 of slope * r + intercept (at
// most slope / 1024 above it), for iterations from 1 KiB to 1 TiB.
TEST(F, FixedPointErrorIsBounded)
{
	std::mt19937_64 rng(42);
	const mltcp_params p = Defaults();
	const double slope = p.slope / kOne, intercept = p.intercept / kOne;
	const double below = (1 + slope) / kOne, above = slope / kOne;

	for (int i = 0; i < 200000; i++) {
		uint64_t bytes = (1ull << 10) + rng() % ((1ull << 40) - (1ull << 10));
		uint64_t delivered = rng() % (bytes + 1);
		mltcp_iter it = IterationOf(bytes);
		double exact = slope * (double)delivered / (double)bytes + intercept;
		double got = mltcp_f(&it, &p, delivered) / kOne;

		ASSERT_LE(got, exact + above) << bytes << " " << delivered;
		ASSERT_GE(got, exact - below) << bytes << " " << delivered;
	}
}

TEST(F, MultiGigabyteIterationsKeepFullResolution)
{
	const mltcp_params p = MeanOneLine();
	const uint64_t bytes = 8ull << 30; // 8 GiB
	mltcp_iter it = IterationOf(bytes);

	EXPECT_NEAR(mltcp_ratio(&it, bytes / 4), MLTCP_ONE / 4, 1);
	EXPECT_NEAR(mltcp_ratio(&it, bytes / 2), MLTCP_ONE / 2, 1);
	EXPECT_EQ(mltcp_ratio(&it, bytes - 1), MLTCP_ONE - 1);
	EXPECT_NEAR(mltcp_f(&it, &p, bytes / 2), MLTCP_ONE, 1);
}

TEST(F, ModeSelectsWhereFActs)
{
	mltcp_params p = Defaults();
	const uint64_t bytes = 1 << 20;
	mltcp_iter it = IterationOf(bytes);
	const uint64_t at_end = bytes;

	p.mode = MLTCP_MODE_AI;
	EXPECT_EQ(mltcp_f_increase(&it, &p, at_end), p.intercept + p.slope);
	EXPECT_EQ(mltcp_f_decrease(&it, &p, at_end), MLTCP_ONE);
	p.mode = MLTCP_MODE_MD;
	EXPECT_EQ(mltcp_f_increase(&it, &p, at_end), MLTCP_ONE);
	EXPECT_EQ(mltcp_f_decrease(&it, &p, at_end), p.intercept + p.slope);
	p.mode = MLTCP_MODE_BOTH;
	EXPECT_EQ(mltcp_f_increase(&it, &p, at_end), p.intercept + p.slope);
	EXPECT_EQ(mltcp_f_decrease(&it, &p, at_end), p.intercept + p.slope);
}

TEST(DecreaseFactor, NeutralFGivesTheBaseBetaExactly)
{
	EXPECT_EQ(mltcp_md_beta(MLTCP_RENO_BETA, MLTCP_ONE), MLTCP_RENO_BETA);
	EXPECT_EQ(mltcp_md_beta(MLTCP_CUBIC_BETA, MLTCP_ONE), MLTCP_CUBIC_BETA);
}

TEST(DecreaseFactor, AtRatioZeroAndOne)
{
	const mltcp_params p = MeanOneLine();
	const uint32_t f0 = p.intercept, f1 = p.intercept + p.slope;

	// Reno: beta = 1 - 0.5 * (2 - F): F(0) = 0.2 -> 0.1, F(1) = 1.8 -> 0.9.
	EXPECT_NEAR(mltcp_md_beta(MLTCP_RENO_BETA, f0) / kOne, 0.1, 2 / kOne);
	EXPECT_NEAR(mltcp_md_beta(MLTCP_RENO_BETA, f1) / kOne, 0.9, 2 / kOne);
	// CUBIC: beta = 1 - 0.3 * (2 - F): 0.46 and 0.94.
	EXPECT_NEAR(mltcp_md_beta(MLTCP_CUBIC_BETA, f0) / kOne, 0.46, 2 / kOne);
	EXPECT_NEAR(mltcp_md_beta(MLTCP_CUBIC_BETA, f1) / kOne, 0.94, 2 / kOne);

	// The defaults: F(0) = 0.7, G = 1.3; F(1) = 2.3, G at its floor of 1/16.
	const mltcp_params d = Defaults();
	const uint32_t d0 = d.intercept, d1 = d.intercept + d.slope;
	EXPECT_NEAR(mltcp_md_beta(MLTCP_RENO_BETA, d0) / kOne, 0.35, 2 / kOne);
	EXPECT_NEAR(mltcp_md_beta(MLTCP_RENO_BETA, d1) / kOne, 1 - 0.5 / 16, 2 / kOne);
	EXPECT_NEAR(mltcp_md_beta(MLTCP_CUBIC_BETA, d0) / kOne, 0.61, 2 / kOne);
	EXPECT_NEAR(mltcp_md_beta(MLTCP_CUBIC_BETA, d1) / kOne, 1 - 0.3 / 16, 2 / kOne);
}

TEST(DecreaseFactor, MonotonicInRatioAndBounded)
{
	const uint64_t bytes = 1 << 24;
	mltcp_iter it = IterationOf(bytes);

	// The mean-one line stays above G's floor all the way; the defaults
	// reach it at r = 0.71 and must stay there.
	for (const mltcp_params &p : { MeanOneLine(), Defaults() }) {
		for (uint32_t base : { MLTCP_RENO_BETA, MLTCP_CUBIC_BETA }) {
			uint32_t prev = 0;

			for (uint64_t d = 0; d <= bytes; d += bytes / 512) {
				uint32_t beta = mltcp_md_beta(base, mltcp_f(&it, &p, d));

				EXPECT_GE(beta, prev) << "delivered " << d;
				EXPECT_LT(beta, MLTCP_ONE);
				prev = beta;
			}
		}
	}
	// Extreme F never makes beta exceed 1 - (1 - base) / 16 or wrap below 0.
	EXPECT_EQ(mltcp_md_beta(MLTCP_RENO_BETA, MLTCP_SLOPE_MAX + MLTCP_INTERCEPT_MAX),
		  MLTCP_ONE - (MLTCP_ONE - MLTCP_RENO_BETA) / 16);
	EXPECT_EQ(mltcp_md_beta(MLTCP_RENO_BETA, 0), 0u);
}

} // namespace
