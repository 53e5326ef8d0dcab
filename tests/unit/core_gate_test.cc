// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The start gate (GATE mode): at an iteration start the restarted window is
// held while the flow's RTT samples show another job's queue, and opens at
// the first sample without one, or when the hold has lasted half a period.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "mltcp_core.h"
#include "mltcp_policy.h"

namespace
{

constexpr uint64_t kBytes = 1'000'000;	// per iteration
constexpr uint32_t kCommUs = 40'000;	// start to drain: 200 Mbit/s
constexpr uint32_t kPeriodUs = 100'000; // start to start
constexpr uint32_t kMinRttUs = 100;
constexpr uint32_t kGateMode = MLTCP_MODE_MD | MLTCP_MODE_RESTART | MLTCP_MODE_GATE;

// A flow that has run `iterations` iterations of kBytes, each kCommUs of
// sending then an idle, in the given mode; ready for its next start.
struct Flow {
	mltcp_params p{};
	mltcp_iter it{};
	uint64_t acked = 0;
	uint64_t now = 1'000'000;
	uint32_t cwnd = 100, ssthresh = 50;
	uint32_t init = MLTCP_INIT_CWND; // the route's initial window

	explicit Flow(uint32_t mode)
	{
		mltcp_params_default(&p);
		p.mode = static_cast<uint8_t>(mode);
		mltcp_iter_init(&it, acked, static_cast<uint32_t>(now));
	}

	// One iteration's sending and idle, then the next start in ca_state
	// with the window at cwnd_before; returns whether the window was
	// restarted (and so perhaps held).
	bool Iterate(uint64_t period_us = kPeriodUs, uint32_t ca_state = MLTCP_CA_OPEN,
		     uint32_t cwnd_before = 100)
	{
		const uint64_t start = now;

		acked += kBytes;
		now = start + kCommUs;
		mltcp_on_ack_drain(&it, now, true);
		now = start + period_us;
		cwnd = cwnd_before;
		ssthresh = 50;
		EXPECT_EQ(mltcp_on_tx_start(&it, &p, acked, now, false, false, 0),
			  MLTCP_TX_NEW_ITERATION);
		return mltcp_restart_window(&it, &p, ca_state, init, &cwnd, &ssthresh);
	}

	// The iterations that learn the size and make it trusted, up to the
	// start before the one that is acted on (mltcp_iter_trusted()).
	void Learn()
	{
		for (int i = 0; i < MLTCP_TRUST_ITERS; i++)
			Iterate();
	}

	mltcp_gate_verdict Ack(uint32_t after_start_us, uint32_t queue_us)
	{
		return mltcp_gate_on_ack(&it, kMinRttUs + queue_us, kMinRttUs,
					 static_cast<uint32_t>(now + after_start_us), init,
					 &cwnd);
	}
};

// 32 KiB at the rate of the last phase: 32768 * 40 ms / 1 MB = 1310 us.
constexpr uint32_t kThresholdUs = 1310;

TEST(Gate, ThresholdIsAQueueOfThirtyTwoKibAtTheFlowsOwnRate)
{
	Flow fl(kGateMode);

	fl.Learn();
	fl.Iterate();
	EXPECT_EQ(fl.it.gate_queue_us, kThresholdUs);
}

TEST(Gate, HoldsTheRestartedWindowOnceAnIterationIsKnown)
{
	Flow fl(kGateMode);

	// Nothing known: no restart, no gate.
	fl.cwnd = 100;
	EXPECT_FALSE(mltcp_restart_window(&fl.it, &fl.p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &fl.cwnd,
					  &fl.ssthresh));
	EXPECT_FALSE(mltcp_gated(&fl.it));
	// The end of the first iteration gives the size, the phase and the
	// period; the size is acted on once MLTCP_TRUST_ITERS more agree.
	for (int i = 0; i < MLTCP_TRUST_ITERS; i++) {
		EXPECT_FALSE(fl.Iterate());
		EXPECT_FALSE(mltcp_gated(&fl.it));
	}
	EXPECT_TRUE(fl.Iterate());
	EXPECT_TRUE(mltcp_gated(&fl.it));
	EXPECT_EQ(fl.cwnd, 2u);
	EXPECT_EQ(fl.ssthresh, 75u); // the restart's: 3/4 of the old window
}

TEST(Gate, NotInTheOtherModes)
{
	for (uint32_t mode : { kGateMode & ~MLTCP_MODE_GATE, uint32_t{ MLTCP_MODE_RESTART },
			       uint32_t{ MLTCP_MODE_MD } }) {
		Flow fl(mode);

		for (int i = 0; i < 4; i++)
			fl.Iterate();
		EXPECT_FALSE(mltcp_gated(&fl.it)) << mode;
		EXPECT_EQ(fl.it.gate_queue_us, 0u) << mode;
		EXPECT_EQ(fl.cwnd, mode & MLTCP_MODE_RESTART ? 10u : 100u) << mode;
	}
}

TEST(Gate, OpensAtTheFirstSampleWithoutAnotherJobsQueue)
{
	Flow fl(kGateMode);

	fl.Learn();
	fl.Iterate();
	ASSERT_TRUE(mltcp_gated(&fl.it));
	EXPECT_EQ(fl.Ack(5'000, 10'000), MLTCP_GATE_HOLD);	 // a full queue
	EXPECT_EQ(fl.Ack(6'000, kThresholdUs), MLTCP_GATE_HOLD); // at the threshold
	EXPECT_EQ(fl.Ack(7'000, 0), MLTCP_GATE_OPEN);		 // drained: opens
	EXPECT_FALSE(mltcp_gated(&fl.it));
	EXPECT_EQ(fl.cwnd, MLTCP_INIT_CWND);
}

TEST(Gate, AnAckWithoutASampleHolds)
{
	Flow fl(kGateMode);

	fl.Learn();
	fl.Iterate();
	EXPECT_EQ(mltcp_gate_on_ack(&fl.it, 0, kMinRttUs, static_cast<uint32_t>(fl.now + 1'000),
				    MLTCP_INIT_CWND, &fl.cwnd),
		  MLTCP_GATE_HOLD);
	EXPECT_EQ(fl.cwnd, 2u);
	// A sample below the minimum (a minimum not yet updated) is no queue.
	EXPECT_EQ(mltcp_gate_on_ack(&fl.it, kMinRttUs - 1, kMinRttUs,
				    static_cast<uint32_t>(fl.now + 2'000), MLTCP_INIT_CWND,
				    &fl.cwnd),
		  MLTCP_GATE_OPEN);
}

// A queue that never drains (a bulk flow): the hold ends at half the
// period, and the gate stays off for 15 iterations, then closes again.
TEST(Gate, AHoldRunsOutAtHalfAPeriodAndTheGateRestsFifteenIterations)
{
	Flow fl(kGateMode);

	fl.Learn();
	fl.Iterate();
	EXPECT_EQ(fl.Ack(kPeriodUs / 2 - 1, 10'000), MLTCP_GATE_HOLD);
	EXPECT_EQ(fl.Ack(kPeriodUs / 2, 10'000), MLTCP_GATE_RAN_OUT);
	EXPECT_FALSE(mltcp_gated(&fl.it));
	EXPECT_EQ(fl.cwnd, MLTCP_INIT_CWND);
	for (int i = 0; i < 15; i++) {
		EXPECT_TRUE(fl.Iterate());
		EXPECT_FALSE(mltcp_gated(&fl.it)) << i;
		EXPECT_EQ(fl.cwnd, MLTCP_INIT_CWND) << i; // restart mode's window
	}
	EXPECT_TRUE(fl.Iterate());
	EXPECT_TRUE(mltcp_gated(&fl.it));
}

// Held, a flow does not grow. A loss or ECN echo of its held segments opens
// the gate and rests it; ssthresh, which the kernel makes cwnd when the
// reduction ends, is at most the initial window, not the restart's 3/4 of
// the last window (a burst into the queue that dropped the segment).
TEST(Gate, HeldWindowsDoNotGrowAndALossOpensAndRestsTheGate)
{
	for (uint8_t base : { MLTCP_BASE_RENO, MLTCP_BASE_CUBIC }) {
		mltcp_flow fl{};
		mltcp_prio_hold hold;

		mltcp_params_default(&fl.params);
		fl.params.mode = kGateMode;
		fl.params.base = base;
		fl.iter.flags |= MLTCP_ITER_GATED;
		EXPECT_FALSE(mltcp_flow_may_grow(&fl, true, 0));
		EXPECT_EQ(mltcp_flow_ssthresh(&fl, MLTCP_ONE, 2, 75, &hold), MLTCP_INIT_CWND);
		// The gate's threshold shares the saved window's bits: never a hold.
		EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
		EXPECT_FALSE(mltcp_gated(&fl.iter));
		EXPECT_EQ(fl.iter.flags & MLTCP_ITER_GATE_OFF, 15u << MLTCP_ITER_GATE_OFF_SHIFT);
		EXPECT_TRUE(mltcp_flow_may_grow(&fl, true, 0));
		// The base's decrease again once open: Reno's half, CUBIC's 0.7.
		EXPECT_EQ(mltcp_flow_ssthresh(&fl, MLTCP_ONE, 100, 75, &hold),
			  base == MLTCP_BASE_RENO ? 50u : 70u);

		fl.iter.flags |= MLTCP_ITER_GATED; // a small ssthresh is not raised
		EXPECT_EQ(mltcp_flow_ssthresh(&fl, MLTCP_ONE, 2, 4, &hold), 4u);
	}
}

// After a pause (a checkpoint: the last period 10 s), the hold is still
// bounded by the communication phase: twice 40 ms, not half of 10 s.
TEST(Gate, AHoldIsBoundedByTheCommunicationPhaseToo)
{
	Flow fl(kGateMode);

	fl.Learn();
	ASSERT_TRUE(fl.Iterate()); // trusted: a change of period keeps it so
	ASSERT_TRUE(fl.Iterate(10'000'000));
	ASSERT_TRUE(mltcp_gated(&fl.it));
	// phase = 1310 us * 1 MB / 32 KiB = 39978 us; twice that.
	EXPECT_EQ(fl.Ack(79'955, 10'000), MLTCP_GATE_HOLD);
	EXPECT_EQ(fl.Ack(79'956, 10'000), MLTCP_GATE_RAN_OUT);
}

// Iterations below the threshold's 32 KiB are never held; above it, the
// threshold is at least 10 us however fast the path.
TEST(Gate, SmallIterationsAreNotHeldAndTheThresholdHasAFloor)
{
	mltcp_params p{};
	mltcp_iter it{};

	mltcp_params_default(&p);
	p.mode = kGateMode;
	mltcp_iter_init(&it, 0, 0);
	mltcp_on_ack_drain(&it, 1'000, true);
	ASSERT_EQ(mltcp_on_tx_start(&it, &p, 32767, 100'000, false, false, 0),
		  MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(it.gate_queue_us, 0u);
	it.agreed = MLTCP_TRUST_ITERS; // as after agreeing iterations
	uint32_t cwnd = 100, ssthresh = 50;
	EXPECT_TRUE(
		mltcp_restart_window(&it, &p, MLTCP_CA_OPEN, MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_FALSE(mltcp_gated(&it));
	EXPECT_EQ(cwnd, MLTCP_INIT_CWND);

	// 1 GB in 1 ms (8 Tbit/s): 32 KiB is 0.03 us; the floor is 10.
	mltcp_iter_init(&it, 0, 0);
	mltcp_on_ack_drain(&it, 1'000, true);
	ASSERT_EQ(mltcp_on_tx_start(&it, &p, 1'000'000'000, 100'000, false, false, 0),
		  MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(it.gate_queue_us, 10u);
	// And a slow phase saturates at 65535 us rather than wrapping.
	mltcp_iter_init(&it, 0, 0);
	mltcp_on_ack_drain(&it, 60'000'000, true);
	ASSERT_EQ(mltcp_on_tx_start(&it, &p, 1'000'000, 70'000'000, false, false, 0),
		  MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(it.gate_queue_us, 0xffffu);
}

// A new start clears a hold the last iteration never opened (it cannot
// have: a start needs nothing in flight), and a start in CWR or Recovery
// restarts nothing and holds nothing.
TEST(Gate, OnlyARestartedWindowIsHeld)
{
	Flow fl(kGateMode);

	fl.Learn();
	fl.Iterate();
	ASSERT_TRUE(mltcp_gated(&fl.it));
	EXPECT_FALSE(fl.Iterate(kPeriodUs, MLTCP_CA_CWR, 40));
	EXPECT_FALSE(mltcp_gated(&fl.it));
	EXPECT_EQ(fl.cwnd, 40u);
}

// The gate opens to the restart's window, min(old, init_cwnd): a flow whose
// window before the start was below the initial one opens to that, never
// above it, whether a sample or the end of the hold opens it.
TEST(Gate, OpensToTheRestartWindowNeverAboveTheOldOne)
{
	for (uint32_t old : { 1u, 2u, 3u, 6u, 9u, 10u, 100u }) {
		Flow fl(kGateMode);

		fl.Learn();
		ASSERT_TRUE(fl.Iterate(kPeriodUs, MLTCP_CA_OPEN, old)) << old;
		ASSERT_TRUE(mltcp_gated(&fl.it)) << old;
		EXPECT_EQ(fl.cwnd, std::min(old, 2u)) << old;
		EXPECT_EQ(fl.Ack(7'000, 0), MLTCP_GATE_OPEN) << old;
		EXPECT_EQ(fl.cwnd, std::min(old, MLTCP_INIT_CWND)) << old;

		ASSERT_TRUE(fl.Iterate(kPeriodUs, MLTCP_CA_OPEN, old)) << old;
		ASSERT_TRUE(mltcp_gated(&fl.it)) << old; // opening left no rest behind
		EXPECT_EQ(fl.Ack(kPeriodUs / 2, 10'000), MLTCP_GATE_RAN_OUT) << old;
		EXPECT_EQ(fl.cwnd, std::min(old, MLTCP_INIT_CWND)) << old;
	}
}

// A route's initial window above 15 segments: a restart window of 16 up to
// it opens at 15, below the old window, never above it; at the route's
// initial window (the old window at or above it) it opens to that exactly.
TEST(Gate, ALargeRoutesInitialWindow)
{
	for (uint32_t old : { 3u, 12u, 15u, 16u, 20u, 31u, 32u, 100u }) {
		Flow fl(kGateMode);

		fl.init = 32;
		fl.Learn();
		ASSERT_TRUE(fl.Iterate(kPeriodUs, MLTCP_CA_OPEN, old)) << old;
		ASSERT_TRUE(mltcp_gated(&fl.it)) << old;
		EXPECT_EQ(fl.Ack(7'000, 0), MLTCP_GATE_OPEN) << old;
		EXPECT_EQ(fl.cwnd, old >= fl.init ? fl.init : std::min(old, 15u)) << old;
	}
}

// A hold the iteration never opened leaves nothing behind for the next
// start, whether that start restarts the window or not.
TEST(Gate, AHoldNeverOpenedDoesNotRestTheGate)
{
	for (uint32_t ca_state : { MLTCP_CA_OPEN, MLTCP_CA_CWR }) {
		Flow fl(kGateMode);

		fl.Learn();
		ASSERT_TRUE(fl.Iterate(kPeriodUs, MLTCP_CA_OPEN, 6));
		ASSERT_TRUE(mltcp_gated(&fl.it));
		EXPECT_EQ(fl.Iterate(kPeriodUs, ca_state), ca_state == MLTCP_CA_OPEN);
		ASSERT_TRUE(fl.Iterate());
		EXPECT_TRUE(mltcp_gated(&fl.it)) << ca_state;
		EXPECT_EQ(fl.Ack(7'000, 0), MLTCP_GATE_OPEN);
		EXPECT_EQ(fl.cwnd, MLTCP_INIT_CWND);
	}
}

TEST(Gate, OnlyWithRestart)
{
	EXPECT_TRUE(mltcp_mode_valid(kGateMode));
	EXPECT_TRUE(mltcp_mode_valid(MLTCP_MODE_RESTART | MLTCP_MODE_GATE));
	EXPECT_FALSE(mltcp_mode_valid(MLTCP_MODE_GATE));
	EXPECT_FALSE(mltcp_mode_valid(MLTCP_MODE_MD | MLTCP_MODE_GATE));
	EXPECT_FALSE(mltcp_mode_valid(MLTCP_MODE_ALL + 1));
	EXPECT_FALSE(mltcp_mode_valid(0));
}

} // namespace
