// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The restart at the drain (item 4 of issue 37): the ACK that drains a whole
// iteration restarts the window before the next iteration's first skb is
// sized; a resumption that turns out not to start an iteration gets its
// window back; GATE mode keeps its restart at the start.
#include <gtest/gtest.h>

#include <cstdint>

#include "mltcp_policy.h"

namespace
{

constexpr uint64_t kBytes = 1 << 20;
constexpr uint32_t kInit = 10;
constexpr uint64_t kIdleUs = 100000;

struct Flow {
	mltcp_flow fl{};
	uint64_t acked = 0, now = 1000;
	uint32_t cwnd = 80, ssthresh = 40;

	explicit Flow(uint32_t mode = MLTCP_MODE_MD | MLTCP_MODE_RESTART)
	{
		mltcp_flow_init(&fl, 0, static_cast<uint32_t>(now));
		mltcp_params_default(&fl.params);
		fl.params.mode = static_cast<uint8_t>(mode);
		mltcp_iter_set_fixed(&fl.iter, kBytes);
	}

	// Everything of `bytes` acked, the last ACK leaving nothing in flight.
	bool Drain(uint64_t bytes, bool app_idle = true, uint32_t ca_state = MLTCP_CA_OPEN)
	{
		acked += bytes;
		now += 1000;
		mltcp_prio_hold hold;

		return mltcp_flow_drained(&fl, now, app_idle, acked, ca_state, kInit, &cwnd,
					  &ssthresh, &hold);
	}

	mltcp_tx_verdict Resume(uint64_t idle_us = kIdleUs)
	{
		now += idle_us;
		mltcp_tx_verdict v = mltcp_on_tx_start(&fl.iter, &fl.params, acked, now, false,
						       false, 0);
		mltcp_disarm(&fl.iter, &fl.params, v, &cwnd);
		if (v == MLTCP_TX_NEW_ITERATION)
			mltcp_restart_window(&fl.iter, &fl.params, MLTCP_CA_OPEN, kInit, &cwnd,
					     &ssthresh);
		return v;
	}
};

TEST(DrainRestart, AWholeIterationRestartsAtItsDrain)
{
	Flow f;

	ASSERT_TRUE(f.Drain(kBytes));
	EXPECT_EQ(f.cwnd, kInit);
	EXPECT_EQ(f.ssthresh, 60u); // raised to 3/4 of 80, as the kernel's restart
	EXPECT_TRUE(mltcp_armed(&f.fl.iter, &f.fl.params));
	// The draining ACK's own growth (cong_avoid runs after pkts_acked) is held.
	EXPECT_FALSE(mltcp_flow_may_grow(&f.fl, true, static_cast<uint32_t>(f.now)));
	// The next iteration starts from the restarted window, restarted once.
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(f.cwnd, kInit);
	EXPECT_EQ(f.ssthresh, 60u);
	EXPECT_FALSE(mltcp_armed(&f.fl.iter, &f.fl.params));
	EXPECT_TRUE(mltcp_flow_may_grow(&f.fl, true, static_cast<uint32_t>(f.now)));
}

TEST(DrainRestart, AResumptionThatStartsNothingGetsItsWindowBack)
{
	Flow f;

	ASSERT_TRUE(f.Drain(kBytes - kBytes / 8)); // 7/8: whole enough to restart
	EXPECT_EQ(f.cwnd, kInit);
	// The rest follows a pause shorter than the idle gap: no iteration start.
	EXPECT_EQ(f.Resume(f.fl.params.idle_gap_us / 2), MLTCP_TX_SHORT_GAP);
	EXPECT_EQ(f.cwnd, 80u);
	EXPECT_EQ(f.ssthresh, 60u); // below the window it has back: no slow start
	EXPECT_FALSE(mltcp_armed(&f.fl.iter, &f.fl.params));
}

TEST(DrainRestart, OnlyWholeIterationsOfKnownSizeInOpenOrDisorder)
{
	{
		Flow f;
		EXPECT_FALSE(f.Drain(kBytes - kBytes / 8 - 1)); // short of 7/8: a pause inside
		EXPECT_EQ(f.cwnd, 80u);
	}
	{
		Flow f;
		EXPECT_FALSE(f.Drain(kBytes + kBytes / 8 + 1)); // the overhang: bulk, not training
		EXPECT_EQ(f.cwnd, 80u);
	}
	{
		Flow f;
		EXPECT_FALSE(f.Drain(kBytes, false)); // unsent data queued: a stall, no drain
	}
	{
		Flow f;
		EXPECT_FALSE(f.Drain(kBytes, true, MLTCP_CA_CWR)); // a reduction under way
		EXPECT_EQ(f.ssthresh, 40u);
	}
	{
		Flow f;
		mltcp_iter_set_fixed(&f.fl.iter, 0); // learning: no size yet
		EXPECT_FALSE(f.Drain(kBytes));
	}
	{
		Flow f;
		f.fl.params.exempt = 1;
		EXPECT_FALSE(f.Drain(kBytes));
	}
	{
		Flow f;
		f.cwnd = kInit; // nothing to restart
		EXPECT_FALSE(f.Drain(kBytes));
		EXPECT_FALSE(mltcp_armed(&f.fl.iter, &f.fl.params));
	}
	{
		Flow f;
		f.cwnd = 0x10000; // beyond what armed_cwnd keeps: left to the start
		EXPECT_FALSE(f.Drain(kBytes));
	}
}

TEST(DrainRestart, NotInModesWithoutRestartNorWithTheGate)
{
	const uint32_t modes[] = { MLTCP_MODE_AI, MLTCP_MODE_MD, MLTCP_MODE_BOTH,
				   MLTCP_MODE_MD | MLTCP_MODE_RESTART | MLTCP_MODE_GATE };

	for (uint32_t mode : modes) {
		Flow f(mode);

		EXPECT_FALSE(f.Drain(kBytes)) << mode;
		EXPECT_EQ(f.cwnd, 80u) << mode;
		EXPECT_FALSE(mltcp_armed(&f.fl.iter, &f.fl.params)) << mode;
	}
}

// An iteration that ends in a reduction drains in its state; the
// end of the reduction, after it set the window to ssthresh, is the
// last chance before the next send.
TEST(DrainRestart, AReductionEndingWithTheDrainRestartsAtItsEnd)
{
	Flow f;

	EXPECT_FALSE(f.Drain(kBytes, true, MLTCP_CA_RECOVERY));
	f.cwnd = f.ssthresh = 40; // tcp_end_cwnd_reduction()
	ASSERT_TRUE(mltcp_flow_reopened(&f.fl, true, f.acked, kInit, &f.cwnd, &f.ssthresh));
	EXPECT_EQ(f.cwnd, kInit);
	EXPECT_EQ(f.ssthresh, 40u);
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(f.cwnd, kInit);
}

TEST(DrainRestart, TheReductionsEndRestartsOnlyADrainedWholeIteration)
{
	{
		Flow f; // data in flight or unsent: not the end of an iteration
		f.Drain(kBytes, true, MLTCP_CA_CWR);
		EXPECT_FALSE(mltcp_flow_reopened(&f.fl, false, f.acked, kInit, &f.cwnd, &f.ssthresh));
		EXPECT_EQ(f.cwnd, 80u);
	}
	{
		Flow f; // never drained (the connection opening, or a stall with data queued)
		EXPECT_FALSE(mltcp_flow_reopened(&f.fl, true, kBytes, kInit, &f.cwnd, &f.ssthresh));
	}
	{
		Flow f; // a drain a quarter through: a pause inside the iteration
		f.Drain(kBytes / 4, true, MLTCP_CA_CWR);
		EXPECT_FALSE(mltcp_flow_reopened(&f.fl, true, f.acked, kInit, &f.cwnd, &f.ssthresh));
	}
	{
		Flow f; // restarted at the drain already: once
		ASSERT_TRUE(f.Drain(kBytes));
		f.cwnd = 30;
		EXPECT_FALSE(mltcp_flow_reopened(&f.fl, true, f.acked, kInit, &f.cwnd, &f.ssthresh));
		EXPECT_EQ(f.cwnd, 30u);
	}
}

TEST(DrainRestart, ArmsOncePerDrain)
{
	Flow f;

	ASSERT_TRUE(f.Drain(kBytes));
	f.cwnd = 20; // whatever happened meanwhile, a second drain keeps the first saved window
	EXPECT_FALSE(f.Drain(0));
	EXPECT_EQ(f.Resume(f.fl.params.idle_gap_us / 2), MLTCP_TX_SHORT_GAP);
	EXPECT_EQ(f.cwnd, 80u);
}

} // namespace
