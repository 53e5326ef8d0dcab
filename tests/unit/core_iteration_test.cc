// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Iteration detection and bytes-per-iteration learning, driven by synthetic
// sequences of the three events the datapath reports: data acked, the pipe
// draining, and sending resuming with nothing in flight (CA_EVENT_TX_START).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "mltcp_core.h"

namespace
{

constexpr uint32_t kMs = 1000;

// The socket as the core sees it: a clock, the acked-byte counter and the
// iteration state, with the kernel's event order.
class FlowEvents
{
public:
	explicit FlowEvents(uint64_t start_us = 0) : now_(start_us)
	{
		mltcp_params_default(&params_);
		mltcp_iter_init(&iter_, 0, static_cast<uint32_t>(now_));
	}

	// The application writes and the first segment leaves with nothing in flight.
	mltcp_tx_verdict Resume(bool in_recovery = false, bool outstanding = false)
	{
		mltcp_tx_verdict v = mltcp_on_tx_start(&iter_, &params_, acked_, now_, in_recovery,
						       outstanding, marks_);
		verdicts_.push_back(v);
		return v;
	}

	void Ack(uint64_t bytes, uint32_t after_us = 100)
	{
		now_ += after_us;
		acked_ += bytes;
	}

	// The ACK that leaves nothing outstanding; app_idle is false if unsent data was queued.
	void Drain(bool app_idle = true) { mltcp_on_ack_drain(&iter_, now_, app_idle); }

	void Wait(uint64_t us) { now_ += us; }

	// The job marks an iteration start (mltcpctl job mark).
	void Mark() { marks_++; }

	// A 1 MiB burst, 100 ms of compute, and the resume that starts iteration 2.
	mltcp_tx_verdict SecondIteration()
	{
		Burst(1 << 20);
		Wait(100 * kMs);
		return Resume();
	}

	// One whole burst: resume, `bytes` acked in `chunks` ACKs over `dur_us`, drain.
	mltcp_tx_verdict Burst(uint64_t bytes, uint32_t dur_us = 50 * kMs, int chunks = 50)
	{
		mltcp_tx_verdict v = Resume();

		for (int i = 0; i < chunks; i++)
			Ack(bytes / chunks + (i == chunks - 1 ? bytes % chunks : 0),
			    dur_us / chunks);
		Drain();
		return v;
	}

	uint32_t F() const { return mltcp_f(&iter_, &params_, acked_); }
	uint32_t R() const { return mltcp_ratio(&iter_, acked_); }
	const mltcp_iter &iter() const { return iter_; }
	mltcp_iter &iter_mut() { return iter_; }
	mltcp_params &params() { return params_; }
	uint64_t acked() const { return acked_; }
	uint64_t now() const { return now_; }
	const std::vector<mltcp_tx_verdict> &verdicts() const { return verdicts_; }

private:
	uint32_t marks_ = 0;
	mltcp_params params_{};
	mltcp_iter iter_{};
	uint64_t acked_ = 0;
	uint64_t now_; // the TCP clock, tcp_mstamp
	std::vector<mltcp_tx_verdict> verdicts_;
};

TEST(IterationDetection, GapJustBelowAndJustAboveTheThreshold)
{
	FlowEvents flow;
	const uint32_t gap = flow.params().idle_gap_us;

	flow.Burst(1 << 20);
	flow.Wait(gap - 1);
	EXPECT_EQ(flow.Resume(), MLTCP_TX_SHORT_GAP);
	EXPECT_EQ(flow.iter().count, 0u);

	flow.Ack(1 << 10);
	flow.Drain();
	flow.Wait(gap);
	EXPECT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(flow.iter().count, 1u);
}

TEST(IterationDetection, JitteredComputePhasesAreAllFound)
{
	std::mt19937 rng(7);
	std::uniform_int_distribution<uint32_t> compute(22 * kMs, 60 * kMs);
	std::uniform_int_distribution<uint32_t> comm(5 * kMs, 80 * kMs);
	FlowEvents flow;
	const uint64_t bytes = 4'000'000;

	for (int i = 0; i < 100; i++) {
		flow.Burst(bytes, comm(rng));
		flow.Wait(compute(rng));
	}
	EXPECT_EQ(flow.iter().count, 99u); // the first burst is iteration 0
	EXPECT_EQ(flow.iter().bytes, bytes);
}

TEST(IterationDetection, IterationSplitByShortGapsIsOneIteration)
{
	FlowEvents flow;
	const uint64_t chunk = 300'000;

	for (int i = 0; i < 5; i++) {
		for (int c = 0; c < 4; c++) {
			flow.Burst(chunk, 10 * kMs);
			flow.Wait(5 * kMs); // the app pauses between buckets
		}
		flow.Wait(100 * kMs); // compute
	}
	EXPECT_EQ(flow.iter().count, 4u);
	EXPECT_EQ(flow.iter().bytes, 4 * chunk);
	int short_gaps = 0;
	for (auto v : flow.verdicts())
		short_gaps += v == MLTCP_TX_SHORT_GAP;
	EXPECT_EQ(short_gaps, 5 * 3);
}

TEST(IterationDetection, PeerTrafficDuringComputeDoesNotShortenTheGap)
{
	FlowEvents flow;

	flow.Burst(1 << 20);
	// ACKs carried by the peer's own data keep arriving while we compute.
	for (int i = 0; i < 30; i++) {
		flow.Wait(1 * kMs);
		flow.Drain();
	}
	EXPECT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
}

// PyTorch DDP over gloo, as traced in the guest (tests/kernel/test_torch.py):
// each step's first bytes are gloo's 192-byte notice that receive buffers are
// ready; then the rank waits 30-50 ms for the slower rank's backward pass,
// then the gradients flow. One step is one iteration, from the notice on.
TEST(IterationDetection, ANoticeBeforeTheDataIsPartOfTheIteration)
{
	FlowEvents flow;
	const uint64_t notice = 192, grads = 1 << 20;
	std::vector<uint32_t> counts;

	for (int step = 0; step < 12; step++) {
		flow.Burst(notice, 1 * kMs, 1);
		flow.Wait(40 * kMs); // the slower rank's backward pass
		flow.Burst(grads);
		EXPECT_EQ(flow.R(), step >= 4 ? MLTCP_ONE : flow.R()) << "step " << step;
		flow.Wait(300 * kMs); // compute
		counts.push_back(flow.iter().count);
	}
	// Learning: the notice is learned first, the gradients confirmed when
	// seen twice; from then on, one iteration per step.
	EXPECT_NEAR(static_cast<double>(flow.iter().bytes), static_cast<double>(notice + grads),
		    (notice + grads) / 1000.0);
	for (size_t step = 4; step < counts.size(); step++)
		EXPECT_EQ(counts[step], counts[step - 1] + 1) << "step " << step;
	int fragments = 0;
	for (auto v : flow.verdicts())
		fragments += v == MLTCP_TX_FRAGMENT;
	EXPECT_GE(fragments, 12 - 4);
}

TEST(IterationDetection, AFragmentIsJudgedAgainstAFixedSizeFromTheStart)
{
	FlowEvents flow;

	mltcp_iter_set_fixed(&flow.iter_mut(), 1 << 20);
	for (int step = 0; step < 5; step++) {
		flow.Burst(192, 1 * kMs, 1);
		flow.Wait(40 * kMs);
		EXPECT_EQ(flow.Burst(1 << 20), MLTCP_TX_FRAGMENT);
		flow.Wait(300 * kMs);
	}
	EXPECT_EQ(flow.iter().count, 4u); // the first step is iteration 0
}

// A job whose iterations shrink to 1/16 of the learned size: at first they
// are fragments and pairs of them are merged, but the merged size is learned
// and then the true one, so the job is followed again within a few bursts.
TEST(IterationDetection, IterationsThatShrinkAreFollowed)
{
	FlowEvents flow;

	for (int i = 0; i < 5; i++) {
		flow.Burst(1 << 20);
		flow.Wait(100 * kMs);
	}
	ASSERT_EQ(flow.iter().bytes, 1u << 20);
	for (int i = 0; i < 12; i++) {
		flow.Burst(64 << 10);
		flow.Wait(100 * kMs);
	}
	EXPECT_EQ(flow.iter().bytes, 64u << 10);
	uint32_t before = flow.iter().count;
	for (int i = 0; i < 5; i++) {
		flow.Burst(64 << 10);
		flow.Wait(100 * kMs);
	}
	EXPECT_EQ(flow.iter().count, before + 5);
}

TEST(IterationDetection, NoFalseStartAfterRetransmissionTimeout)
{
	FlowEvents flow;

	ASSERT_EQ(flow.SecondIteration(), MLTCP_TX_NEW_ITERATION);
	flow.Ack(100'000);
	// The tail is lost; 300 ms later the RTO retransmits with nothing in flight.
	flow.Wait(300 * kMs);
	EXPECT_EQ(flow.Resume(/*in_recovery=*/true, /*outstanding=*/true), MLTCP_TX_IN_RECOVERY);
	// A retransmission seen outside recovery is still refused: data is outstanding.
	flow.Wait(300 * kMs);
	EXPECT_EQ(flow.Resume(false, true), MLTCP_TX_OUTSTANDING);
	EXPECT_EQ(flow.iter().count, 1u);
	EXPECT_EQ(flow.iter().start_acked, uint64_t{ 1 << 20 });
}

TEST(IterationDetection, StaleDrainIsNotReusedAfterAnRto)
{
	FlowEvents flow;

	ASSERT_EQ(flow.SecondIteration(), MLTCP_TX_NEW_ITERATION);
	// Recovery ends and the window is retransmitted with nothing outstanding
	// in the core's view: the drain from the previous compute phase was
	// consumed by the resume above and must not count again.
	flow.Wait(400 * kMs);
	EXPECT_EQ(flow.Resume(), MLTCP_TX_NOT_IDLE);
	EXPECT_EQ(flow.iter().count, 1u);
}

// A peer without SACK: the last window of an iteration lost a segment, and
// NewReno holds Recovery after the retransmission is acknowledged until an
// ACK above high_seq, which only the next iteration's data brings. Nothing
// is outstanding, so the send is new data: the iteration starts, and the
// two iterations are learned apart, not as one of twice the size.
TEST(IterationDetection, StartsInRecoveryHeldAcrossTheComputePhase)
{
	FlowEvents flow;

	ASSERT_EQ(flow.SecondIteration(), MLTCP_TX_NEW_ITERATION);
	for (int i = 0; i < 3; i++) {
		flow.Ack(1 << 20, 50 * kMs);
		flow.Drain(); // the retransmission is acked; the state stays Recovery
		flow.Wait(100 * kMs);
		EXPECT_EQ(flow.Resume(/*in_recovery=*/true, /*outstanding=*/false),
			  MLTCP_TX_NEW_ITERATION)
			<< i;
	}
	EXPECT_EQ(flow.iter().count, 4u);
	EXPECT_EQ(flow.iter().bytes, uint64_t{ 1 << 20 });
	EXPECT_EQ(flow.iter().candidate, 0u);
}

TEST(IterationDetection, NoFalseStartAfterZeroWindowStall)
{
	FlowEvents flow;

	ASSERT_EQ(flow.SecondIteration(), MLTCP_TX_NEW_ITERATION);
	flow.Ack(200'000);
	// The receiver stops reading: everything sent is acked, more is queued.
	flow.Drain(/*app_idle=*/false);
	flow.Wait(500 * kMs);
	EXPECT_EQ(flow.Resume(), MLTCP_TX_NOT_IDLE);
	EXPECT_EQ(flow.iter().count, 1u);
}

TEST(IterationDetection, NoFalseStartAfterMidTransferPauseShorterThanGap)
{
	FlowEvents flow;
	const uint32_t gap = flow.params().idle_gap_us;

	ASSERT_EQ(flow.SecondIteration(), MLTCP_TX_NEW_ITERATION);
	flow.Ack(500'000);
	flow.Drain();
	flow.Wait(gap / 2);
	EXPECT_EQ(flow.Resume(), MLTCP_TX_SHORT_GAP);
	EXPECT_EQ(flow.iter().count, 1u);
	EXPECT_EQ(flow.R(), 500'000u * MLTCP_ONE / (1 << 20));
}

// A sender that is not run for the idle gap inside a burst (a guest under
// TCG on a busy host is paused for hundreds of milliseconds with its pipe
// drained) leaves an idle the detector cannot tell
// from a compute phase. Before a size is known it is a start wherever it
// falls; once one is, only past the first 1/8 of an iteration. The
// integration tests count such starts as explained, not as errors
// (tests/kernel/netlab.py, explain_starts()).
TEST(IterationDetection, AnIdleOfTheGapInsideABurstIsAStartUnlessAFragment)
{
	const uint32_t gap = MLTCP_DEFAULT_IDLE_GAP_US;
	FlowEvents first;

	// The connection's first burst: 1000 bytes, a stall, the rest.
	first.Resume();
	first.Ack(1000);
	first.Drain();
	first.Wait(gap);
	EXPECT_EQ(first.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(first.iter().bytes, 1000u);

	FlowEvents known;
	ASSERT_EQ(known.SecondIteration(), MLTCP_TX_NEW_ITERATION); // 1 MiB learned
	known.Ack((1 << 20) / 8 - 1);
	known.Drain();
	known.Wait(gap);
	EXPECT_EQ(known.Resume(), MLTCP_TX_FRAGMENT);
	known.Ack(2);
	known.Drain();
	known.Wait(gap);
	EXPECT_EQ(known.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(known.iter().count, 2u);
}

TEST(IterationDetection, MicrosecondClockWrapIsHandled)
{
	FlowEvents flow(0xffffffffu - 5 * kMs);
	const uint32_t gap = flow.params().idle_gap_us;

	flow.Burst(1 << 20, 2 * kMs); // drains just before the clock's low 32 bits wrap
	flow.Wait(gap + 10);
	EXPECT_GT(flow.now(), 0xffffffffu); // the low 32 bits wrapped
	EXPECT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(flow.iter().last_duration_us, 2 * kMs + gap + 10);
}

// An idle as long as the 32-bit microsecond clock's period, or longer (a
// checkpoint, an evaluation pass), is an idle, not a short pause: the
// low 32 bits of such idles are 0 and 7 minutes, below or near the gap.
TEST(IterationDetection, IdleLongerThanTheThirtyTwoBitClockIsAnIdle)
{
	const uint64_t minute = 60'000'000;

	for (uint64_t idle : std::vector<uint64_t>{ 1ull << 32, (1ull << 32) + 5 * kMs, 72 * minute,
						    1000 * minute }) {
		FlowEvents flow(123'456);

		flow.Burst(1 << 20, 2 * kMs);
		flow.Wait(idle);
		EXPECT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION) << "idle " << idle << " us";
		EXPECT_EQ(flow.iter().count, 1u);
		EXPECT_EQ(flow.iter().bytes, 1u << 20);
		EXPECT_EQ(flow.iter().last_duration_us, 0xffffffffu) << "saturated";
	}
	// Just below the period, the duration is exact.
	FlowEvents flow(123'456);

	flow.Burst(1 << 20, 2 * kMs);
	flow.Wait(0xffffffffu - 2 * kMs - 1);
	EXPECT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(flow.iter().last_duration_us, 0xfffffffeu);
}

// The first completed iteration is learned, the next MLTCP_TRUST_ITERS that
// agree make the size trusted: F is neutral through them, and acts after.
TEST(Learning, FirstCompletedIterationIsLearnedAndActedOnOnceTwoAgree)
{
	FlowEvents flow;
	const uint64_t bytes = 5'000'000;

	for (int iteration = 0; iteration <= MLTCP_TRUST_ITERS; iteration++) {
		flow.Resume();
		for (int i = 0; i < 10; i++) {
			flow.Ack(bytes / 10);
			EXPECT_EQ(flow.F(), MLTCP_ONE) << "iteration " << iteration;
		}
		flow.Drain();
		flow.Wait(50 * kMs);
		EXPECT_EQ(flow.iter().bytes, iteration ? bytes : 0);
		EXPECT_EQ(mltcp_iter_trusted(&flow.iter(), &flow.params()), false);
	}
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(flow.iter().bytes, bytes);
	EXPECT_TRUE(mltcp_iter_trusted(&flow.iter(), &flow.params()));
	EXPECT_EQ(flow.F(), flow.params().intercept);
	flow.Ack(bytes / 2);
	EXPECT_EQ(flow.F(), flow.params().intercept + flow.params().slope / 2);
}

// Do no harm: a completed iteration that disagrees with the learned size
// (an idle inside a step, a step of another shape) puts the flow back on
// its base algorithm until an iteration agrees again; the size is kept.
TEST(Learning, DisagreeingIterationDistrustsTheSizeUntilOneAgrees)
{
	FlowEvents flow;
	const uint64_t bytes = 1 << 20;
	auto next = [&](uint64_t size) {
		flow.Burst(size);
		flow.Wait(100 * kMs);
		return flow.Resume();
	};

	flow.Burst(bytes);
	flow.Wait(100 * kMs);
	for (int i = 0; i < MLTCP_TRUST_ITERS; i++)
		ASSERT_EQ(next(bytes), MLTCP_TX_NEW_ITERATION); // Burst() resumes each
	ASSERT_TRUE(mltcp_iter_trusted(&flow.iter(), &flow.params()));

	// Half a step: it disagrees, the size stays but is not acted on.
	ASSERT_EQ(next(bytes / 2), MLTCP_TX_NEW_ITERATION);
	EXPECT_FALSE(mltcp_iter_trusted(&flow.iter(), &flow.params()));
	EXPECT_EQ(flow.iter().bytes, bytes);
	flow.Ack(bytes / 2, 25 * kMs);
	EXPECT_EQ(flow.F(), MLTCP_ONE);
	// The restart is not made for an untrusted size either.
	uint32_t cwnd = 100, ssthresh = 50;
	flow.params().mode = MLTCP_MODE_MD | MLTCP_MODE_RESTART;
	EXPECT_FALSE(mltcp_restart_window(&flow.iter_mut(), &flow.params(), MLTCP_CA_OPEN,
					  MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 100u);

	// Whole steps again (at the same period): trusted after two, and acted on.
	flow.Ack(bytes / 2, 25 * kMs);
	flow.Drain();
	flow.Wait(100 * kMs);
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_FALSE(mltcp_iter_trusted(&flow.iter(), &flow.params()));
	flow.Ack(bytes, 50 * kMs);
	flow.Drain();
	flow.Wait(100 * kMs);
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_TRUE(mltcp_iter_trusted(&flow.iter(), &flow.params()));
	EXPECT_EQ(flow.F(), flow.params().intercept);
	EXPECT_TRUE(mltcp_restart_window(&flow.iter_mut(), &flow.params(), MLTCP_CA_OPEN,
					 MLTCP_INIT_CWND, &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, MLTCP_INIT_CWND);
}

// Steps cut into pieces of two sizes, A B A B, are never trusted: such a
// flow runs as its base algorithm throughout (F is 1 at each piece's end).
TEST(Learning, AlternatingSizesAreNeverTrusted)
{
	FlowEvents flow;

	for (int i = 0; i < 40; i++) {
		ASSERT_NE(flow.Burst(i % 2 ? 3 << 20 : 1 << 20), MLTCP_TX_FRAGMENT);
		ASSERT_FALSE(mltcp_iter_trusted(&flow.iter(), &flow.params())) << i;
		ASSERT_EQ(flow.F(), MLTCP_ONE) << i;
		flow.Wait(100 * kMs);
	}
	EXPECT_EQ(flow.iter().count, 39u); // every piece but the first (no drain before it)
}

// Pieces of one size whose periods alternate (gloo's two halves of an
// all-reduce: a short wait for the peer between them, the compute phase
// after the second) are never trusted either; the size is learned.
TEST(Learning, EqualPiecesAtAlternatingPeriodsAreNeverTrusted)
{
	FlowEvents flow;

	for (int i = 0; i < 40; i++) {
		ASSERT_NE(flow.Burst(1 << 20), MLTCP_TX_FRAGMENT);
		ASSERT_FALSE(mltcp_iter_trusted(&flow.iter(), &flow.params())) << i;
		ASSERT_EQ(flow.F(), MLTCP_ONE) << i;
		flow.Wait(i % 2 ? 600 * kMs : 30 * kMs);
	}
	EXPECT_EQ(flow.iter().count, 39u);
	EXPECT_EQ(flow.iter().bytes, 1u << 20);
}

// Whole steps whose periods wander by less than a quarter are trusted as
// soon as steps of one period are (the first step's period, from the
// connection's setup and a compute phase first, is no reference); once
// trusted, a step whose period changes more (phases sliding apart) keeps
// the trust, and one of another size takes it away.
TEST(Learning, PeriodsWithinAQuarterAgreeAndAChangedPeriodKeepsTheTrust)
{
	FlowEvents flow;
	const uint32_t compute_ms[] = {100, 120, 96, 300, 100};

	flow.Wait(600 * kMs);
	flow.Burst(1 << 20);
	flow.Wait(100 * kMs);
	for (int i = 0; i < MLTCP_TRUST_ITERS; i++) {
		ASSERT_FALSE(mltcp_iter_trusted(&flow.iter(), &flow.params())) << i;
		flow.Burst(1 << 20);
		flow.Wait(compute_ms[i + 1] * kMs);
	}
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_TRUE(mltcp_iter_trusted(&flow.iter(), &flow.params()));
	flow.Ack(1 << 20);
	flow.Drain();
	flow.Wait(compute_ms[3] * kMs);
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_TRUE(mltcp_iter_trusted(&flow.iter(), &flow.params())) << "period tripled";
	flow.Ack(1 << 19);
	flow.Drain();
	flow.Wait(compute_ms[4] * kMs);
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_FALSE(mltcp_iter_trusted(&flow.iter(), &flow.params())) << "half a step";
}

// The operator's size and a marked job's are trusted once known.
TEST(Learning, FixedAndMarkedSizesAreTrustedAtOnce)
{
	FlowEvents fixed;
	mltcp_iter_set_fixed(&fixed.iter_mut(), 1 << 20);
	EXPECT_TRUE(mltcp_iter_trusted(&fixed.iter(), &fixed.params()));
	EXPECT_EQ(fixed.F(), fixed.params().intercept);

	FlowEvents marked;
	marked.params().marked = 1;
	EXPECT_FALSE(mltcp_iter_trusted(&marked.iter(), &marked.params()));
	marked.Mark();
	marked.Burst(1 << 20);
	marked.Wait(100 * kMs);
	marked.Mark();
	ASSERT_EQ(marked.Resume(), MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(marked.iter().bytes, 1u << 20);
	EXPECT_TRUE(mltcp_iter_trusted(&marked.iter(), &marked.params()));
	// The union's other reading: the mark count, untouched by learning.
	EXPECT_EQ(marked.iter().marks_seen, 2u);
}

TEST(Learning, AgreeingSizesAreSmoothed)
{
	mltcp_iter it{};

	mltcp_iter_init(&it, 0, 0);
	EXPECT_EQ(mltcp_iter_learn(&it, 1'000'000), MLTCP_LEARN_FIRST);
	EXPECT_EQ(mltcp_iter_learn(&it, 1'100'000), MLTCP_LEARN_AGREED);
	EXPECT_EQ(it.bytes, 1'025'000u); // gain 1/4
	EXPECT_EQ(mltcp_iter_learn(&it, 1'025'000), MLTCP_LEARN_AGREED);
	EXPECT_EQ(it.bytes, 1'025'000u);
}

TEST(Learning, NewSizeIsAdoptedOnlyWhenSeenTwice)
{
	mltcp_iter it{};

	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_learn(&it, 1'000'000);
	EXPECT_EQ(mltcp_iter_learn(&it, 3'000'000), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(it.bytes, 1'000'000u);
	EXPECT_EQ(mltcp_iter_learn(&it, 3'050'000), MLTCP_LEARN_CONFIRMED);
	EXPECT_EQ(it.bytes, 3'050'000u);
	// Alternating outliers never move the estimate.
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(mltcp_iter_learn(&it, i % 2 ? 10'000 : 9'000'000), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(it.bytes, 3'050'000u);
}

// The sizes one gloo connection completed in the guest before the fix
// (test_torch, 6.1): set-up messages, then the parameters' broadcast, then
// steps whose ready notices (48, 192 bytes) alternate with the gradients.
TEST(Learning, AWholeIsNotDisplacedByTheFragmentAfterIt)
{
	mltcp_iter it{};

	mltcp_iter_init(&it, 0, 0);
	EXPECT_EQ(mltcp_iter_learn(&it, 296), MLTCP_LEARN_FIRST);
	EXPECT_EQ(mltcp_iter_learn(&it, 1048908), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(mltcp_iter_learn(&it, 48), MLTCP_LEARN_OUTLIER); // the candidate stays
	EXPECT_EQ(mltcp_iter_learn(&it, 1049356), MLTCP_LEARN_CONFIRMED);
	EXPECT_EQ(it.bytes, 1049356u);

	// Only across one fragment: two in a row, and the whole must be seen twice anew.
	mltcp_iter_init(&it, 0, 0);
	EXPECT_EQ(mltcp_iter_learn(&it, 296), MLTCP_LEARN_FIRST);
	EXPECT_EQ(mltcp_iter_learn(&it, 1048908), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(mltcp_iter_learn(&it, 48), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(mltcp_iter_learn(&it, 48), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(mltcp_iter_learn(&it, 1049356), MLTCP_LEARN_OUTLIER);
	EXPECT_EQ(it.bytes, 296u);
}

TEST(Learning, FixedSizeIsNeverRelearned)
{
	mltcp_iter it{};

	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, 64u << 20);
	EXPECT_EQ(mltcp_iter_learn(&it, 1000), MLTCP_LEARN_FIXED);
	EXPECT_EQ(mltcp_iter_learn(&it, 1000), MLTCP_LEARN_FIXED);
	EXPECT_EQ(it.bytes, 64u << 20);
	mltcp_iter_set_fixed(&it, 0);
	EXPECT_EQ(mltcp_iter_learn(&it, 1000), MLTCP_LEARN_FIRST);
}

// The prototype's failure: a mid-iteration stall longer than the gap split an
// iteration into 4,982,568 + 17,432 bytes, the fragment became the learned
// size, and r sat at 1 (F at its maximum) for the whole next iteration.
TEST(Learning, FalseBoundaryMidTransferCannotPinFAtItsMaximum)
{
	FlowEvents flow;
	const uint64_t bytes = 5'000'000;
	const uint64_t head = 4'982'568;
	const mltcp_params &p = flow.params();

	for (int i = 0; i < 3; i++) {
		flow.Burst(bytes);
		flow.Wait(600 * kMs);
	}
	// The split iteration: a 308 ms stall with nothing queued near its end.
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	flow.Ack(head);
	flow.Drain();
	flow.Wait(308 * kMs);
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION); // indistinguishable from compute
	flow.Ack(bytes - head);
	flow.Drain();
	flow.Wait(600 * kMs);

	// Next real iteration. The 17,432-byte tail before it is a fragment of
	// the learned size, so the iteration begun at the false boundary goes on
	// (mltcp_on_tx_start()): F starts within the tail's share of F(0) and
	// rises with progress.
	ASSERT_EQ(flow.Resume(), MLTCP_TX_FRAGMENT);
	EXPECT_NEAR(static_cast<double>(flow.iter().bytes), static_cast<double>(bytes),
		    bytes / 100.0);
	const uint32_t tail = static_cast<uint32_t>((bytes - head) * p.slope / bytes) + 1;
	EXPECT_GE(flow.F(), p.intercept);
	EXPECT_LE(flow.F(), p.intercept + tail);
	flow.Ack(bytes / 4);
	EXPECT_LT(flow.F(), p.intercept + p.slope / 4 + tail + 2);
	flow.Ack(bytes / 4);
	EXPECT_NEAR(flow.F(), p.intercept + p.slope / 2, tail + 2);
}

TEST(Learning, BulkFlowThatPausedOnceIsNotBoosted)
{
	FlowEvents flow;
	const uint64_t burst = 2'000'000;

	flow.Burst(burst);
	flow.Wait(100 * kMs);
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	// One size, not yet trusted: it streams on as its base algorithm.
	for (int i = 0; i < 100; i++) {
		flow.Ack(1 << 20);
		ASSERT_EQ(flow.F(), MLTCP_ONE);
	}
}

TEST(Learning, BulkFlowOfATrustedSizeFallsBackToNeutral)
{
	FlowEvents flow;
	const uint64_t burst = 2'000'000;

	for (int i = 0; i <= MLTCP_TRUST_ITERS; i++) {
		flow.Burst(burst);
		flow.Wait(100 * kMs);
	}
	ASSERT_EQ(flow.Resume(), MLTCP_TX_NEW_ITERATION);
	// Then it streams forever: F rises to F(1), then falls back to neutral.
	flow.Ack(burst);
	EXPECT_EQ(flow.F(), flow.params().intercept + flow.params().slope);
	flow.Ack(burst / 8 + 1);
	EXPECT_EQ(flow.F(), MLTCP_ONE);
	for (int i = 0; i < 1000; i++) {
		flow.Ack(1 << 20);
		ASSERT_EQ(flow.F(), MLTCP_ONE);
	}
}

TEST(Learning, CcAttachedMidStreamStartsFromTheCurrentByteCount)
{
	mltcp_iter it{};
	mltcp_params p{};

	mltcp_params_default(&p);
	mltcp_iter_init(&it, 123'456'789, 0);
	mltcp_on_ack_drain(&it, 1000, true);
	EXPECT_EQ(mltcp_on_tx_start(&it, &p, 123'456'789 + 1'000'000, 1000 + p.idle_gap_us, false,
				    false, 0),
		  MLTCP_TX_NEW_ITERATION);
	EXPECT_EQ(it.bytes, 1'000'000u);
}

} // namespace

// A marked flow starts an iteration at the first resumption after each of
// its job's marks, and at no other: not at long idles inside a step (a ring
// all-reduce waiting for a slower peer), nor at a notice before the data.
TEST(MarkedIterations, StartAtMarksOnly)
{
	FlowEvents f;
	f.params().marked = 1;

	EXPECT_EQ(f.Burst(4096), MLTCP_TX_UNMARKED) << "no mark yet";
	f.Mark();
	for (int step = 0; step < 4; step++) {
		f.Wait(300 * kMs); // compute
		EXPECT_EQ(f.Burst(192), MLTCP_TX_NEW_ITERATION) << "the notice after the mark";
		f.Wait(50 * kMs); // the peer's backward pass
		EXPECT_EQ(f.Burst(512 << 10), MLTCP_TX_UNMARKED) << "first half";
		f.Wait(120 * kMs); // the peer's half arrives
		EXPECT_EQ(f.Burst(512 << 10), MLTCP_TX_UNMARKED) << "second half";
		f.Mark();
	}
	EXPECT_EQ(f.iter().count, 4u);
	// The first start folded the unmarked 4 KiB before it; the steps since agree.
	EXPECT_NEAR(static_cast<double>(f.iter().bytes), (1 << 20) + 192, 0.02 * (1 << 20));
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION) << "the last mark";
}

// Retransmissions stay what they are; a mark the flow carried nothing for
// starts an empty iteration and teaches nothing.
TEST(MarkedIterations, RetransmissionsAndEmptyIterations)
{
	FlowEvents f;
	f.params().marked = 1;

	f.Mark();
	EXPECT_EQ(f.Burst(1 << 20), MLTCP_TX_NEW_ITERATION);
	f.Mark();
	EXPECT_EQ(f.Resume(false, true), MLTCP_TX_OUTSTANDING);
	EXPECT_EQ(f.Resume(true, true), MLTCP_TX_IN_RECOVERY);
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION) << "the mark still holds";
	EXPECT_EQ(f.iter().bytes, 1u << 20);
	f.Mark();
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION) << "an empty iteration";
	EXPECT_EQ(f.iter().bytes, 1u << 20) << "nothing learned from it";
	EXPECT_EQ(f.iter().count, 3u);
}

// Only the count's low 8 bits are kept: 256 marks between two resumptions
// look like none (documented).
TEST(MarkedIterations, CountWrapsAt256)
{
	FlowEvents f;
	f.params().marked = 1;

	f.Mark();
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION);
	for (int i = 0; i < 256; i++)
		f.Mark();
	EXPECT_EQ(f.Resume(), MLTCP_TX_UNMARKED);
	f.Mark();
	EXPECT_EQ(f.Resume(), MLTCP_TX_NEW_ITERATION);
}
