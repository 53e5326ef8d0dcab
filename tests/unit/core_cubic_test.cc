// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Our CUBIC against RFC 9438's equations, evaluated independently here in
// floating point: W_cubic(t) = C (t - K)^3 + W_max, K = cbrt(W_max (1 - beta) / C),
// and the Reno-friendly estimate W_est (alpha = 3 (1 - beta) / (1 + beta) all
// epoch, as the kernel's cubic keeps it; RFC 9438 would switch it to 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mltcp_core.h"
#include "linux_window.h"

namespace
{

constexpr double kC = 0.4;
constexpr double kBeta = 0.7;
constexpr double kAlpha = 3 * (1 - kBeta) / (1 + kBeta);

struct Sample {
	double t; // seconds since the reduction
	uint32_t cwnd;
	double w_est; // reference W_est at t
};

// Reduce from w_max, then run `rounds` RTTs of congestion avoidance with one
// ACK per segment spread evenly over each RTT, sampling cwnd at round ends.
std::vector<Sample> RunEpoch(uint32_t w_max, uint32_t rtt_us, int rounds, uint32_t f = MLTCP_ONE)
{
	mltcp_cubic c{};
	WindowModel win;
	std::vector<Sample> samples;
	const uint64_t start = 1'000'000;
	uint64_t now = start;
	double w_est = 0;

	mltcp_cubic_init(&c);
	win.cwnd = w_max;
	win.ssthresh = mltcp_cubic_ssthresh(&c, w_max, MLTCP_ONE);
	win.cwnd = win.ssthresh;
	w_est = win.cwnd;
	for (int r = 0; r < rounds; r++) {
		const uint32_t in_flight = win.cwnd;
		const uint64_t round_start = now;

		for (uint32_t a = 0; a < in_flight; a++) {
			now = round_start + uint64_t{ rtt_us } * (a + 1) / in_flight;
			uint32_t w = mltcp_cubic_ai_w(&c, win.cwnd, 1, static_cast<uint32_t>(now),
						      rtt_us, f);
			win.additive_increase(w, 1);
		}
		w_est += kAlpha * f / MLTCP_ONE;
		samples.push_back({ (now - start) / 1e6, win.cwnd, w_est });
	}
	return samples;
}

double CubicW(double w_max, double t)
{
	double k = std::cbrt(w_max * (1 - kBeta) / kC);

	return kC * std::pow(t - k, 3) + w_max;
}

struct CurveCase {
	uint32_t w_max;
	uint32_t rtt_us;
};

class CubicCurve : public ::testing::TestWithParam<CurveCase>
{
};

// Tolerance: cwnd chases W(t + RTT) during each RTT, so at time t it lies
// between W(t - RTT) and W(t + RTT), give or take 1% of W_max + 2 segments
// (integer windows and the 1/1024 s curve clock).
TEST_P(CubicCurve, WindowFollowsTheCubicFunction)
{
	const auto [w_max, rtt_us] = GetParam();
	const double rtt = rtt_us / 1e6;
	const double k = std::cbrt(w_max * (1 - kBeta) / kC);
	const int rounds = static_cast<int>(1.8 * k / rtt);
	const double slack = 0.01 * w_max + 2;

	for (const Sample &s : RunEpoch(w_max, rtt_us, rounds)) {
		ASSERT_LT(s.w_est, CubicW(w_max, s.t)) << "case must stay in the cubic region";
		double lo = CubicW(w_max, s.t - rtt) - slack;
		double hi = CubicW(w_max, s.t + rtt) + slack;

		ASSERT_GE(s.cwnd, lo) << "t=" << s.t;
		ASSERT_LE(s.cwnd, hi) << "t=" << s.t;
	}
}

INSTANTIATE_TEST_SUITE_P(RfcCurve, CubicCurve,
			 ::testing::Values(CurveCase{ 200, 100'000 }, CurveCase{ 1000, 100'000 },
					   CurveCase{ 3000, 50'000 }, CurveCase{ 500, 200'000 },
					   CurveCase{ 8000, 20'000 }),
			 [](const ::testing::TestParamInfo<CurveCase> &info) {
				 return "Wmax" + std::to_string(info.param.w_max) + "_Rtt" +
					std::to_string(info.param.rtt_us / 1000) + "ms";
			 });

// RFC 9438 4.3: where W_cubic(t) < W_est the window follows W_est, which grows
// by alpha per RTT.
TEST(CubicRenoFriendly, EngagesWhereTheEstimateIsAboveTheCurve)
{
	const uint32_t w_max = 400, rtt_us = 20'000;
	int friendly = 0, cubic = 0;

	for (const Sample &s : RunEpoch(w_max, rtt_us, 400)) {
		double w_cubic = CubicW(w_max, s.t);
		double expect = std::max(w_cubic, s.w_est);

		if (s.w_est > w_cubic + 3) {
			friendly++;
			ASSERT_NEAR(s.cwnd, s.w_est, 3) << "t=" << s.t;
		} else if (w_cubic > s.w_est + 3) {
			cubic++;
		}
		ASSERT_NEAR(s.cwnd, expect, 0.01 * w_max + 3) << "t=" << s.t;
	}
	// This case crosses over: the curve leads first, the estimate later.
	EXPECT_GT(cubic, 50);
	EXPECT_GT(friendly, 50);
}

TEST(CubicRenoFriendly, SmallWindowsGrowLikeRenoWithCubicAlpha)
{
	const auto samples = RunEpoch(100, 10'000, 60);
	// 0.529 segments per RTT while W_est is below the old window.
	double slope = (samples[49].cwnd - samples[9].cwnd) / 40.0;

	EXPECT_NEAR(slope, kAlpha, 0.06);
	EXPECT_GT(samples[49].cwnd, CubicW(100, samples[49].t) + 5);
}

// Past the window of the last reduction the estimate still grows by alpha per
// RTT, as the kernel's cubic (tcp_cwnd += 1 per 15/8 cwnd acked); RFC 9438
// 4.3's switch to 1 made us 15-20% faster than it under random loss.
TEST(CubicKernelFidelity, RenoFriendlyAlphaStaysAboveThePriorWindow)
{
	const auto samples = RunEpoch(100, 10'000, 160);

	ASSERT_GT(samples[100].cwnd, 100u + 10);		 // past W_max
	ASSERT_LT(CubicW(100, samples[150].t), samples[150].cwnd); // the friendly region
	double slope = (samples[150].cwnd - samples[100].cwnd) / 50.0;

	EXPECT_NEAR(slope, kAlpha, 0.06);
}

// Time to win back 97% of W_max: the curve is flat near W_max, so its top
// is reached ambiguously by integer windows.
// In the Reno-friendly region F scales the estimate's growth too.
TEST(CubicMltcp, FOfTwoDoublesRenoFriendlyGrowth)
{
	const auto samples = RunEpoch(100, 10'000, 40, 2 * MLTCP_ONE);
	double slope = (samples[24].cwnd - samples[4].cwnd) / 20.0;

	EXPECT_NEAR(slope, 2 * kAlpha, 0.12);
}

TEST(CubicMltcp, FOfTwoRunsTheCurveTwiceAsFast)
{
	const uint32_t w_max = 1000, rtt_us = 100'000;
	const double target = 0.97 * w_max;
	auto time_to_recover = [&](uint32_t f) {
		for (const Sample &s : RunEpoch(w_max, rtt_us, 400, f))
			if (s.cwnd >= target)
				return s.t;
		return 1e9;
	};
	const double k = std::cbrt(w_max * (1 - kBeta) / kC);
	const double expect = k - std::cbrt((w_max - target) / kC); // W(t) = target
	double base = time_to_recover(MLTCP_ONE);
	double fast = time_to_recover(2 * MLTCP_ONE);

	EXPECT_NEAR(base, expect, 0.2);
	EXPECT_NEAR(fast / base, 0.5, 0.05);
}

TEST(CubicMltcp, ReductionAndFastConvergence)
{
	mltcp_cubic c{};

	mltcp_cubic_init(&c);
	EXPECT_EQ(mltcp_cubic_ssthresh(&c, 1000, MLTCP_ONE), 700u);
	EXPECT_EQ(c.w_max, 1000u);
	// Lost again below the previous maximum: W_max = cwnd (1 + beta) / 2.
	EXPECT_EQ(mltcp_cubic_ssthresh(&c, 800, MLTCP_ONE), 560u);
	EXPECT_NEAR(c.w_max, 680, 1);
	EXPECT_EQ(mltcp_cubic_ssthresh(&c, 2, MLTCP_ONE), 2u);
}

TEST(CubicMltcp, IdleAndApplicationLimitedTimeDoesNotAdvanceTheCurve)
{
	mltcp_cubic c{};
	const uint32_t rtt = 10'000;

	mltcp_cubic_init(&c);
	mltcp_cubic_ssthresh(&c, 1000, MLTCP_ONE);
	mltcp_cubic_ai_w(&c, 700, 1, 1'000'000, rtt, MLTCP_ONE);
	mltcp_cubic_pause(&c, 6'000'000); // 5 s without being cwnd-limited
	mltcp_cubic_ai_w(&c, 700, 1, 6'001'000, rtt, MLTCP_ONE);
	EXPECT_EQ(c.elapsed_us, 1000u);
}

// RFC 9438 4.2 clamps the target to 1.5 cwnd; the kernel's cubic grows by at
// most one segment per two acked (cnt >= 2). A restarted window (cwnd back
// to 10 in the middle of an epoch) leaves the Reno-friendly estimate far
// above cwnd: one RTT of ACKs must still grow cwnd by at most half.
TEST(CubicKernelFidelity, RenoFriendlyTargetIsClampedToOneAndAHalfCwnd)
{
	mltcp_cubic c{};
	WindowModel win;
	const uint32_t rtt = 10'000;
	uint32_t now = 1'000'000;

	mltcp_cubic_init(&c);
	mltcp_cubic_ssthresh(&c, 1000, MLTCP_ONE);
	mltcp_cubic_ai_w(&c, 700, 1, now, rtt, MLTCP_ONE); // epoch starts at 700
	c.w_est = 900;					    // estimate above the curve
	win.cwnd = 10;					    // the window restarted
	win.ssthresh = 10;
	for (int round = 0; round < 5; round++) {
		const uint32_t before = win.cwnd;

		for (uint32_t a = 0; a < before; a++) {
			now += rtt / before;
			ASSERT_LT(mltcp_cubic_window(&c, c.elapsed_us), c.w_est) << "friendly region";
			win.additive_increase(mltcp_cubic_ai_w(&c, win.cwnd, 1, now, rtt, MLTCP_ONE), 1);
		}
		// Half of the round's ACKs, plus the credit carried from the last round.
		EXPECT_LE(win.cwnd, before + before / 2 + 1) << "round " << round;
		EXPECT_GT(win.cwnd, before) << "round " << round;
	}
}

// The divisor is never below 2, in either region, whatever F, cwnd and the
// estimate are: never more than one segment per two acked.
TEST(CubicKernelFidelity, DivisorIsNeverBelowTwo)
{
	std::mt19937 rng(10);
	int friendly = 0;

	for (int i = 0; i < 20000; i++) {
		mltcp_cubic c{};
		const uint32_t w_max = 2 + rng() % 5000;
		const uint32_t cwnd = 2 + rng() % (2 * w_max);
		const uint32_t f = 1 + rng() % (32 * MLTCP_ONE);
		const uint32_t start = rng();

		mltcp_cubic_init(&c);
		mltcp_cubic_ssthresh(&c, w_max, MLTCP_ONE);
		mltcp_cubic_ai_w(&c, cwnd, 1, start, 20'000, f);
		c.w_est += rng() % (4 * cwnd);
		friendly += mltcp_cubic_window(&c, c.elapsed_us) < c.w_est;
		uint32_t w = mltcp_cubic_ai_w(&c, cwnd, 1 + rng() % 4, start + rng() % 10'000'000,
					      1 + rng() % 500'000, f);
		ASSERT_GE(w, 2u) << "w_max " << w_max << " cwnd " << cwnd << " f " << f;
	}
	EXPECT_GT(friendly, 1000);
}

// An RTO forgets the window before it: the next epoch starts with K = 0 and
// W_max = cwnd at its start (RFC 9438 4.8), as the kernel's bictcp_reset()
// clears last_max_cwnd on entering TCP_CA_Loss.
TEST(CubicKernelFidelity, RtoForgetsWMax)
{
	mltcp_cubic c{};

	mltcp_cubic_init(&c);
	mltcp_cubic_ssthresh(&c, 1000, MLTCP_ONE); // the RTO's ssthresh: 700
	mltcp_cubic_reset(&c);			   // then TCP_CA_Loss
	EXPECT_EQ(c.w_max, 0u);
	// Slow start ends at ssthresh; the first congestion-avoidance ACK starts the epoch.
	mltcp_cubic_ai_w(&c, 700, 1, 1'000'000, 10'000, MLTCP_ONE);
	EXPECT_EQ(c.k_us, 0u);
	EXPECT_EQ(c.w_max, 700u);
	// From there the curve only rises: C t^3 above 700, not a climb back to 1000.
	EXPECT_EQ(mltcp_cubic_window(&c, 0), 700u);
	EXPECT_EQ(mltcp_cubic_window(&c, 1'000'000), 700u);	// 0.4 segment after 1 s
	EXPECT_EQ(mltcp_cubic_window(&c, 5'000'000), 750u);	// 0.4 * 125
}

// The kernel's bictcp_update() keeps its cnt while cwnd is unchanged for up
// to HZ/32; so do we (30 ticks of 2^10 us). A stale divisor is what makes
// the kernel's cubic wait before following its Reno-friendly estimate.
TEST(CubicKernelFidelity, DivisorIsReusedForAThirtySecondWhileCwndIsUnchanged)
{
	mltcp_cubic c{};
	const uint32_t rtt = 10'000;
	const uint32_t start = 1'000'000;

	mltcp_cubic_init(&c);
	mltcp_cubic_ssthresh(&c, 1000, MLTCP_ONE);
	const uint32_t first = mltcp_cubic_ai_w(&c, 700, 1, start, rtt, MLTCP_ONE);
	EXPECT_GT(first, 100u) << "concave region just after the reduction: slow";

	c.w_est = 900; // the estimate runs ahead: a fresh divisor would be 700 / 200
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 700, 1, start + 20'000, rtt, MLTCP_ONE), first)
		<< "same cwnd within 1/32 s: reused";
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 701, 1, start + 20'000, rtt, MLTCP_ONE), 701u / 199)
		<< "cwnd changed: recomputed";
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 701, 1, start + 40'000, rtt, MLTCP_ONE), 701u / 199);
	c.w_est = 1000;
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 701, 1, start + 45'000, rtt, MLTCP_ONE), 701u / 199)
		<< "25 ms after the last computation: still reused";
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 701, 1, start + 55'000, rtt, MLTCP_ONE), 701u / 299)
		<< "35 ms after: recomputed";

	c.w_est = 1040;
	mltcp_cubic_pause(&c, start + 56'000);
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 701, 1, start + 57'000, rtt, MLTCP_ONE), 701u / 339)
		<< "after a pause: recomputed";

	mltcp_cubic_ssthresh(&c, 701, MLTCP_ONE);
	EXPECT_EQ(c.ai_cwnd, 0u) << "a reduction ends the epoch";
	mltcp_cubic_ai_w(&c, 490, 1, start + 58'000, rtt, MLTCP_ONE);
	EXPECT_EQ(c.w_est, 490u) << "the next ACK starts a new one";
}

// The cache is 16 bits: larger divisors (windows of 64Ki segments and more)
// are recomputed per ACK rather than truncated.
TEST(CubicKernelFidelity, LargeDivisorsAreNotCached)
{
	mltcp_cubic c{};
	const uint32_t rtt = 10'000;
	const uint32_t start = 1'000'000;

	mltcp_cubic_init(&c); // no W_max: the curve starts at cwnd and rises slowly
	EXPECT_EQ(mltcp_cubic_ai_w(&c, 100'000, 1, start, rtt, MLTCP_ONE), MLTCP_W_NO_GROWTH);
	c.w_est = 100'002; // friendly region, one segment ahead of the next cwnd
	const uint32_t slow = mltcp_cubic_ai_w(&c, 100'001, 1, start + 1'000, rtt, MLTCP_ONE);
	c.w_est = 100'101;
	const uint32_t ahead = mltcp_cubic_ai_w(&c, 100'001, 1, start + 2'000, rtt, MLTCP_ONE);

	ASSERT_LT(mltcp_cubic_window(&c, c.elapsed_us), 100'002u) << "friendly region";
	EXPECT_EQ(slow, 100'001u);
	EXPECT_EQ(ahead, 1'000u);
}

TEST(CubeRoot, IsTheExactFloor)
{
	std::mt19937_64 rng(3);
	for (uint64_t x : { 0ull, 1ull, 7ull, 8ull, 26ull, 27ull, 1ull << 63, ~0ull }) {
		uint64_t r = mltcp_cbrt(x);

		EXPECT_LE(r * r * r, x) << x;
		if (r + 1 <= 2642245) {
			EXPECT_GT((r + 1) * (r + 1) * (r + 1), x) << x;
		}
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t x = rng() >> (rng() % 64);
		uint64_t r = mltcp_cbrt(x);

		ASSERT_LE(r * r * r, x) << x;
		if (r + 1 <= 2642245) {
			ASSERT_GT((r + 1) * (r + 1) * (r + 1), x) << x;
		}
	}
}

} // namespace
