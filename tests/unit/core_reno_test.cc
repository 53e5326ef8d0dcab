// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// MLTCP over Reno: F scales the additive increase and, in MD mode, softens
// the decrease; F == 1 must reproduce Reno exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "mltcp_core.h"
#include "linux_window.h"

namespace
{

// cwnd after `rtts` round trips of congestion avoidance, one ACK per segment.
uint32_t GrowForRtts(uint32_t cwnd, int rtts, uint32_t f)
{
	WindowModel win;

	win.cwnd = cwnd;
	win.ssthresh = 1;
	for (int r = 0; r < rtts; r++) {
		uint32_t in_flight = win.cwnd;

		for (uint32_t a = 0; a < in_flight; a++)
			win.additive_increase(mltcp_reno_ai_w(win.cwnd, f), 1);
	}
	return win.cwnd;
}

TEST(RenoIncrease, FOfTwoGrowsTwiceAsFastPerRtt)
{
	const uint32_t start = 100;
	const int rtts = 200;
	uint32_t reno = GrowForRtts(start, rtts, MLTCP_ONE) - start;
	uint32_t doubled = GrowForRtts(start, rtts, 2 * MLTCP_ONE) - start;

	EXPECT_NEAR(reno, rtts, rtts * 0.02); // Reno: one segment per RTT
	EXPECT_NEAR(static_cast<double>(doubled) / reno, 2.0, 0.04);
}

TEST(RenoIncrease, GrowthPerRttIsProportionalToF)
{
	const uint32_t start = 200;
	const int rtts = 100;
	const uint32_t reno = GrowForRtts(start, rtts, MLTCP_ONE) - start;

	for (double f : { 0.2, 0.5, 1.5, 3.0, 8.0 }) {
		uint32_t grown =
			GrowForRtts(start, rtts, static_cast<uint32_t>(f * MLTCP_ONE)) - start;

		EXPECT_NEAR(static_cast<double>(grown) / reno, f, f * 0.06) << "F = " << f;
	}
	EXPECT_EQ(GrowForRtts(start, rtts, 0), start); // F = 0 holds the window
}

// The divisor at F == 1 is cwnd itself, and the whole trajectory through
// slow start, growth and losses is Reno's to the segment.
TEST(RenoIncrease, FOfOneIsRenoExactly)
{
	std::mt19937 rng(1);
	std::uniform_int_distribution<uint32_t> acked_dist(1, 3);
	WindowModel reno, mltcp;

	for (int step = 0; step < 200000; step++) {
		uint32_t acked = acked_dist(rng);

		if (step % 5000 == 4999) { // a loss
			reno.ssthresh = std::max(reno.cwnd >> 1, 2u);
			mltcp.ssthresh = mltcp_reno_ssthresh(mltcp.cwnd, MLTCP_ONE);
			reno.cwnd = reno.ssthresh;
			mltcp.cwnd = mltcp.ssthresh;
		}
		uint32_t left_reno = acked, left_mltcp = acked;
		if (reno.in_slow_start())
			left_reno = reno.slow_start(acked);
		if (mltcp.in_slow_start())
			left_mltcp = mltcp.slow_start(acked);
		if (left_reno)
			reno.additive_increase(reno.cwnd, left_reno);
		if (left_mltcp)
			mltcp.additive_increase(mltcp_reno_ai_w(mltcp.cwnd, MLTCP_ONE), left_mltcp);
		ASSERT_EQ(mltcp.cwnd, reno.cwnd) << "step " << step;
		ASSERT_EQ(mltcp.cwnd_cnt, reno.cwnd_cnt) << "step " << step;
	}
}

TEST(RenoDecrease, NeutralFIsTcpRenoSsthresh)
{
	for (uint32_t cwnd = 1; cwnd < 200000; cwnd++)
		ASSERT_EQ(mltcp_reno_ssthresh(cwnd, MLTCP_ONE), std::max(cwnd >> 1, 2u)) << cwnd;
	for (uint32_t cwnd : { 0x7fffffffu, 0xfffffffeu, 0xffffffffu })
		EXPECT_EQ(mltcp_reno_ssthresh(cwnd, MLTCP_ONE), cwnd >> 1);
}

TEST(RenoDecrease, MdModeBacksOffLessNearTheEnd)
{
	mltcp_params p{};
	mltcp_iter it{};
	const uint64_t bytes = 1 << 24;

	mltcp_params_default(&p);
	p.mode = MLTCP_MODE_MD;
	p.slope = 1638;	   // 1.6
	p.intercept = 205; // 0.2: F(0.5) = 1
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, bytes);

	uint32_t at_start = mltcp_reno_ssthresh(1000, mltcp_f_decrease(&it, &p, 0));
	uint32_t at_half = mltcp_reno_ssthresh(1000, mltcp_f_decrease(&it, &p, bytes / 2));
	uint32_t at_end = mltcp_reno_ssthresh(1000, mltcp_f_decrease(&it, &p, bytes));

	EXPECT_NEAR(at_start, 100, 2);		  // beta 0.1
	EXPECT_NEAR(at_half, 500, 2);		  // beta 0.5, as Reno
	EXPECT_NEAR(at_end, 900, 2);		  // beta 0.9
	EXPECT_EQ(mltcp_reno_ssthresh(3, 0), 2u); // never below two segments
}

TEST(Restart, ResumesFromTheInitialWindowAndSlowStartsBack)
{
	mltcp_params p{};
	mltcp_iter it{};
	uint32_t cwnd = 200, ssthresh = 80;

	mltcp_params_default(&p);
	p.mode = MLTCP_MODE_MD | MLTCP_MODE_RESTART;
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, 1 << 20);

	EXPECT_TRUE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 10u);
	EXPECT_EQ(ssthresh, 150u); // 3/4 of the old window, as RFC 5681's restart keeps

	cwnd = 200;
	ssthresh = 500; // a flow still in slow start keeps its threshold
	EXPECT_TRUE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 10u);
	EXPECT_EQ(ssthresh, 500u);

	cwnd = 4; // a window below the initial one is not raised
	ssthresh = 2;
	EXPECT_TRUE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 4u);
	EXPECT_EQ(ssthresh, 3u);
}

// tcp_init_cwnd(): the route's initcwnd if set, else TCP_INIT_CWND, within the clamp.
TEST(Restart, InitialWindowIsTheRoutesWithinTheClamp)
{
	EXPECT_EQ(mltcp_init_cwnd(0, 10000), 10u);
	EXPECT_EQ(mltcp_init_cwnd(20, 10000), 20u);
	EXPECT_EQ(mltcp_init_cwnd(4, 10000), 4u);
	EXPECT_EQ(mltcp_init_cwnd(20, 12), 12u);
	EXPECT_EQ(mltcp_init_cwnd(0, 6), 6u);
}

// The restart resumes from the window it is given, as tcp_cwnd_restart()
// resumes from tcp_init_cwnd() (ip route ... initcwnd 20).
TEST(Restart, ResumesFromTheRoutesInitialWindow)
{
	mltcp_params p{};
	mltcp_iter it{};
	uint32_t cwnd = 200, ssthresh = 80;

	mltcp_params_default(&p);
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, 1 << 20);
	EXPECT_TRUE(mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, 20, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 20u);
	EXPECT_EQ(ssthresh, 150u);

	cwnd = 15; // still not raised
	EXPECT_TRUE(mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, 20, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 15u);
}

TEST(Restart, OnlyInRestartModesAndOnlyForPeriodicFlows)
{
	mltcp_params p{};
	mltcp_iter it{};
	uint32_t cwnd = 200, ssthresh = 80;

	mltcp_params_default(&p);
	mltcp_iter_init(&it, 0, 0);
	p.mode = MLTCP_MODE_RESTART;
	// No iteration size known yet: a bulk or request-response flow.
	EXPECT_FALSE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 200u);
	EXPECT_EQ(ssthresh, 80u);

	mltcp_iter_set_fixed(&it, 1 << 20);
	for (uint8_t mode : { MLTCP_MODE_AI, MLTCP_MODE_MD, MLTCP_MODE_BOTH }) {
		p.mode = mode;
		EXPECT_FALSE(mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd,
						  &ssthresh))
			<< int(mode);
		EXPECT_EQ(cwnd, 200u);
	}
	p.mode = MLTCP_MODE_RESTART;
	EXPECT_TRUE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
}

// tcp_cwnd_restart() raises ssthresh (tcp_current_ssthresh()) only outside a
// reduction: in CWR or Recovery the reduction's ssthresh is the congestion
// response. The restart keeps to the states where the kernel raises it.
TEST(Restart, OnlyInOpenOrDisorderWhereTheKernelRaisesSsthresh)
{
	mltcp_params p{};
	mltcp_iter it{};

	mltcp_params_default(&p); // md-restart
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, 1 << 20);
	for (uint32_t state = MLTCP_CA_OPEN; state <= MLTCP_CA_LOSS; state++) {
		uint32_t cwnd = 200, ssthresh = 70; // an ECN reduction: 0.7 * 100
		bool open = state == MLTCP_CA_OPEN || state == MLTCP_CA_DISORDER;

		EXPECT_EQ(mltcp_restart_window(&it, &p, state, MLTCP_INIT_CWND, &cwnd, &ssthresh),
			  open)
			<< state;
		EXPECT_EQ(cwnd, open ? 10u : 200u) << state;
		EXPECT_EQ(ssthresh, open ? 150u : 70u) << state;
	}
}

TEST(Restart, NeverForAnExemptFlow)
{
	mltcp_params p{};
	mltcp_iter it{};
	uint32_t cwnd = 200, ssthresh = 80;

	mltcp_params_default(&p);
	p.mode = MLTCP_MODE_ALL;
	p.exempt = 1;
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, 1 << 20);
	EXPECT_FALSE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 200u);
	EXPECT_EQ(ssthresh, 80u);
	p.exempt = 0;
	EXPECT_TRUE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
}

} // namespace
