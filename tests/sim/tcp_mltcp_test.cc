// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ns3::TcpMltcp driven through known event sequences, hook by hook as ns-3's
// TcpSocketBase calls it, against the core driven the way the module's hooks
// drive it (tests/unit): the same windows, iterations and thresholds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "ns3/boolean.h"
#include "ns3/core-module.h"
#include "ns3/ipv4-header.h"
#include "ns3/tcp-socket-state.h"

#include "tcp_mltcp.h"

using namespace ns3;

namespace
{

constexpr uint32_t kMss = 1448;

struct Socket {
	Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
	SequenceNumber32 una{ 1 }; // the first byte not acknowledged: data start after the SYN

	Socket()
	{
		tcb->m_segmentSize = kMss;
		tcb->m_initialCWnd = 10;
		tcb->m_cWnd = 10 * kMss;
		tcb->m_ssThresh = UINT32_MAX;
	}

	// The connection opens as ns-3 3.37 opens it: Init() before the SYN
	// (sequence number 0), then the handshake, which leaves m_lastAckedSeq
	// at 0 until the first ACK of data.
	void Open(TcpMltcp &cc)
	{
		tcb->m_lastAckedSeq = SequenceNumber32(0);
		tcb->m_highTxMark = SequenceNumber32(0);
		cc.Init(tcb);
		tcb->m_highTxMark = SequenceNumber32(1);
	}

	// A window's worth in flight, as SendPendingData leaves it.
	void Fill()
	{
		tcb->m_highTxMark = una + tcb->m_cWnd.Get();
		tcb->m_bytesInFlight = tcb->m_cWnd.Get();
	}

	// Only `segments` in flight, sent now: the last of a phase.
	void Send(uint32_t segments) { tcb->m_highTxMark = una + segments * kMss; }

	// A cumulative ACK of `segments`, as ProcessAck presents it in Open.
	void Ack(TcpMltcp &cc, uint32_t segments, Time rtt)
	{
		una = una + segments * kMss;
		tcb->m_lastAckedSeq = una;
		tcb->m_bytesInFlight = tcb->m_highTxMark.Get() - una;
		cc.PktsAcked(tcb, segments, rtt);
		cc.IncreaseWindow(tcb, segments);
	}
};

// Runs fn at simulated time t (us): the model reads Simulator::Now().
template <typename Fn> void At(uint64_t t_us, Fn fn)
{
	Simulator::Schedule(MicroSeconds(t_us) - Simulator::Now(), fn);
	Simulator::Run();
}

class TcpMltcpTest : public ::testing::Test
{
protected:
	void TearDown() override { Simulator::Destroy(); }
};

mltcp_params Defaults(uint8_t base, uint8_t mode)
{
	mltcp_params p;

	mltcp_params_default(&p);
	p.base = base;
	p.mode = mode;
	return p;
}

// Windowful ACK clocks with losses for both bases: every window the model
// leaves equals the core's, run through the kernel's helpers as the
// module's cong_avoid runs it. With iter_bytes 0 nothing is learned and F is
// 1; else F scales both the increase and the decrease as r moves.
void ExpectSameWindowsAsCore(uint8_t base, uint64_t iter_bytes)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;
	const mltcp_params params =
		Defaults(base, iter_bytes ? MLTCP_MODE_BOTH : MLTCP_MODE_MD | MLTCP_MODE_RESTART);
	std::mt19937 rng(7);
	uint64_t now = 1'000;

	ASSERT_TRUE(cc->SetParams(params));
	cc->SetAttribute("IterBytes", UintegerValue(iter_bytes));
	At(now, [&] { sock.Open(*cc); });

	mltcp_flow fl{};
	WindowModel win;
	uint64_t acked_bytes = 0;
	mltcp_flow_init(&fl, 0, static_cast<uint32_t>(now));
	mltcp_flow_latch(&fl, &params, nullptr, MLTCP_BASE_SELECTABLE, nullptr);
	if (iter_bytes)
		mltcp_iter_set_fixed(&fl.iter, iter_bytes);
	win.cwnd = 10;

	for (int i = 0; i < 20'000; i++) {
		const uint32_t segments = 1 + rng() % 2;
		const uint32_t rtt_us = 10'000 + rng() % 2'000;

		now += rtt_us * segments / win.cwnd + 1;
		if (i % 5'000 == 4'999) { // a loss: both take the decrease
			uint32_t f = mltcp_f_decrease(&fl.iter, &fl.params, acked_bytes);

			mltcp_prio_hold hold;

			win.ssthresh = mltcp_flow_ssthresh(&fl, f, win.cwnd, win.ssthresh, &hold);
			win.cwnd = win.ssthresh;
			win.cwnd_cnt = 0; // tcp_init_cwnd_reduction()
			// As EnterRecovery() and the ACK that ends it run the hooks.
			At(now, [&] {
				sock.tcb->m_ssThresh =
					cc->GetSsThresh(sock.tcb, sock.tcb->m_bytesInFlight);
				cc->CongestionStateSet(sock.tcb, TcpSocketState::CA_RECOVERY);
				sock.tcb->m_cWnd = sock.tcb->m_ssThresh.Get();
				cc->CongestionStateSet(sock.tcb, TcpSocketState::CA_OPEN);
			});
			ASSERT_EQ(sock.tcb->m_cWnd.Get(), win.cwnd * kMss) << "loss at ACK " << i;
			continue;
		}
		sock.Fill();
		At(now, [&] { sock.Ack(*cc, segments, MicroSeconds(rtt_us)); });

		acked_bytes += segments * kMss;
		uint32_t left = segments;
		if (mltcp_flow_may_grow(&fl, true, static_cast<uint32_t>(now))) {
			if (win.in_slow_start())
				left = win.slow_start(segments);
			if (left) {
				uint32_t f = mltcp_f_increase(&fl.iter, &fl.params, acked_bytes);
				uint32_t w = mltcp_flow_ai_w(&fl, f, win.cwnd, left,
							     static_cast<uint32_t>(now), rtt_us);
				win.additive_increase(w, left);
			}
		}
		ASSERT_EQ(sock.tcb->m_cWnd.Get(), win.cwnd * kMss) << "ACK " << i;
	}
	EXPECT_EQ(cc->BytesAcked(), acked_bytes);
	EXPECT_GT(win.cwnd, 20u);
}

// About 30000 segments are acked: a 40000-segment iteration keeps F moving.
constexpr uint64_t kMovingF = 40'000ull * kMss;

TEST_F(TcpMltcpTest, RenoWindowsAreTheCores)
{
	ExpectSameWindowsAsCore(MLTCP_BASE_RENO, 0);
	ExpectSameWindowsAsCore(MLTCP_BASE_RENO, kMovingF);
}

TEST_F(TcpMltcpTest, CubicWindowsAreTheCores)
{
	ExpectSameWindowsAsCore(MLTCP_BASE_CUBIC, 0);
	ExpectSameWindowsAsCore(MLTCP_BASE_CUBIC, kMovingF);
}

// Periodic sending: a drain, an idle longer than the gap, and sending again
// is an iteration; the size is learned, and in md-restart, once trusted
// (MLTCP_TRUST_ITERS more iterations agreed), the window restarts from the
// initial window with ssthresh at 3/4 of the old one.
TEST_F(TcpMltcpTest, IdlesSeparateIterationsAndRestartTheWindow)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;
	uint64_t now = 1'000;
	const uint32_t per_iteration = 200; // segments

	ASSERT_TRUE(cc->SetParams(Defaults(MLTCP_BASE_CUBIC, MLTCP_MODE_MD | MLTCP_MODE_RESTART)));
	At(now, [&] { sock.Open(*cc); });
	const int iterations = MLTCP_TRUST_ITERS + 3;

	for (int iteration = 0; iteration < iterations; iteration++) {
		At(now, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
		EXPECT_EQ(cc->Flow().iter.count, static_cast<uint32_t>(iteration)) << iteration;
		if (iteration > MLTCP_TRUST_ITERS) {
			// The size was learned and trusted: the restart took the window down to 10.
			EXPECT_EQ(sock.tcb->m_cWnd.Get(), 10 * kMss) << iteration;
		} else if (iteration > 0) {
			EXPECT_GT(sock.tcb->m_cWnd.Get(), 10 * kMss) << "not yet trusted " << iteration;
		}
		for (uint32_t done = 0; done < per_iteration; done += 2) {
			now += 500;
			sock.Fill();
			// The last ACK of the phase leaves nothing outstanding.
			if (done + 2 >= per_iteration)
				sock.Send(2);
			At(now, [&] { sock.Ack(*cc, 2, MicroSeconds(1'000)); });
		}
		now += 100'000; // compute: an idle far above the 20 ms gap
	}
	EXPECT_EQ(cc->Flow().iter.bytes, uint64_t{ per_iteration } * kMss);
	EXPECT_EQ(cc->BytesAcked(), uint64_t{ iterations } * per_iteration * kMss);
}

// Exempt, as a job's setting: the base algorithm alone. Iterations are
// still counted, but F is 1 and the window never restarts.
TEST_F(TcpMltcpTest, ExemptFlowsKeepTheirWindowAcrossIterations)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;
	uint64_t now = 1'000;

	cc->SetAttribute("Exempt", BooleanValue(true));
	At(now, [&] { sock.Open(*cc); });
	EXPECT_EQ(cc->Flow().params.exempt, 1);
	EXPECT_EQ(cc->Flow().params.slope, 0);
	EXPECT_EQ(cc->Flow().params.intercept, MLTCP_ONE);
	for (int iteration = 0; iteration < 3; iteration++) {
		At(now, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
		if (iteration > 0) {
			EXPECT_GT(sock.tcb->m_cWnd.Get(), 100 * kMss) << iteration;
		}
		for (uint32_t done = 0; done < 200; done += 2) {
			now += 500;
			sock.Fill();
			if (done + 2 >= 200)
				sock.Send(2);
			At(now, [&] { sock.Ack(*cc, 2, MicroSeconds(1'000)); });
		}
		now += 100'000;
	}
	EXPECT_EQ(cc->Flow().iter.count, 2u);
}

// After an idle longer than the RTO (srtt + 200 ms) Linux restarts any
// flow's window (tcp_cwnd_restart()), exempt or not; ns-3 does not, so the
// model does, unless told otherwise.
TEST_F(TcpMltcpTest, LongIdlesRestartTheWindowAsLinuxDoes)
{
	for (bool after_idle : { true, false }) {
		Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
		Socket sock;

		cc->SetAttribute("Exempt", BooleanValue(true));
		cc->SetAttribute("SlowStartAfterIdle", BooleanValue(after_idle));
		At(1'000, [&] { sock.Open(*cc); });
		sock.tcb->m_cWnd = 80 * kMss;
		sock.tcb->m_ssThresh = 40 * kMss;
		sock.Send(2);
		At(2'000, [&] { sock.Ack(*cc, 2, MicroSeconds(10'000)); }); // drained
		const uint32_t grown = sock.tcb->m_cWnd.Get();
		// 150 ms idle: below the RTO of 210 ms.
		At(152'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
		EXPECT_EQ(sock.tcb->m_cWnd.Get(), grown) << after_idle;
		sock.Send(2);
		At(153'000, [&] { sock.Ack(*cc, 2, MicroSeconds(10'000)); });
		// 600 ms idle (a compute phase): about three RTOs.
		At(753'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
		if (after_idle) {
			EXPECT_EQ(sock.tcb->m_cWnd.Get(), 20 * kMss);	  // 80 halved twice
			EXPECT_EQ(sock.tcb->m_ssThresh.Get(), 60 * kMss); // 3/4 of 80
		} else {
			EXPECT_EQ(sock.tcb->m_cWnd.Get(), 80 * kMss);
			EXPECT_EQ(sock.tcb->m_ssThresh.Get(), 40 * kMss);
		}
	}
}

// A route's rto_min lowers the RTO the idle is compared with: a 30 ms idle
// (from the last send, one srtt before the drain) restarts the window
// against a 2 ms floor (srtt 10 ms, RTO 12 ms: halved once per RTO, whole or
// part, after the first) and not against the 200 ms default.
TEST_F(TcpMltcpTest, TheIdlesRtoFloorIsTheRoutesWhenGiven)
{
	for (bool route_floor : { true, false }) {
		Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
		Socket sock;

		cc->SetAttribute("Exempt", BooleanValue(true));
		if (route_floor)
			cc->SetAttribute("IdleRtoMin", TimeValue(MilliSeconds(2)));
		At(1'000, [&] { sock.Open(*cc); });
		sock.tcb->m_cWnd = 80 * kMss;
		sock.tcb->m_ssThresh = 40 * kMss;
		sock.Send(2);
		At(12'000, [&] { sock.Ack(*cc, 2, MicroSeconds(10'000)); }); // drained
		At(32'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
		if (route_floor) {
			EXPECT_EQ(sock.tcb->m_cWnd.Get(), 20 * kMss);	  // 30 ms: 80 halved twice
			EXPECT_EQ(sock.tcb->m_ssThresh.Get(), 60 * kMss); // 3/4 of 80
		} else {
			EXPECT_EQ(sock.tcb->m_cWnd.Get(), 80 * kMss);
			EXPECT_EQ(sock.tcb->m_ssThresh.Get(), 40 * kMss);
		}
	}
}

// A marked flow's first transmission after the handshake, once its job has
// marked a step, starts an iteration: the SYN is not outstanding data (ns-3
// leaves m_lastAckedSeq at 0 until the first ACK of data).
TEST_F(TcpMltcpTest, MarkedFlowsStartAtTheirJobsMarksFromTheFirstSend)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;

	cc->SetAttribute("Marked", BooleanValue(true));
	At(1'000, [&] { sock.Open(*cc); });
	EXPECT_EQ(cc->Flow().params.marked, 1);
	At(2'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 0u) << "no mark yet";
	cc->Mark();
	At(3'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 1u);
	// Data in flight: a later transmission is not a start, mark or not.
	cc->Mark();
	sock.Send(3);
	At(4'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 1u);
	At(5'000, [&] { sock.Ack(*cc, 3, MicroSeconds(1'000)); });
	At(6'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 2u);
	EXPECT_EQ(cc->Flow().iter.bytes, 3u * kMss);
}

// The application's word decides whether a drain is an idle: one with
// more queued (a closed receive window) starts nothing.
TEST_F(TcpMltcpTest, ADrainWithDataQueuedIsNotAnIdle)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;
	bool queued = true;

	cc->SetAppIdle(MakeBoundCallback(
		+[](bool *q) { return !*q; }, &queued));
	At(1'000, [&] { sock.Open(*cc); });
	sock.Send(4);
	At(2'000, [&] { sock.Ack(*cc, 4, MicroSeconds(1'000)); });
	At(200'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 0u);
	queued = false;
	sock.Send(4);
	At(201'000, [&] { sock.Ack(*cc, 4, MicroSeconds(1'000)); });
	At(400'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 1u);
}

// A short pause is not an iteration; nor is sending with data outstanding.
TEST_F(TcpMltcpTest, ShortGapsAndOutstandingDataAreNotIterations)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;

	ASSERT_TRUE(cc->SetParams(Defaults(MLTCP_BASE_RENO, MLTCP_MODE_MD | MLTCP_MODE_RESTART)));
	At(1'000, [&] { sock.Open(*cc); });
	sock.Send(4);
	At(2'000, [&] { sock.Ack(*cc, 4, MicroSeconds(1'000)); }); // drained
	At(5'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 0u);
	sock.Send(4); // not drained
	At(200'000, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(cc->Flow().iter.count, 0u);
}

// F moves over a fixed-size iteration: the decrease at a loss is the core's
// mltcp_flow_ssthresh() for that F, in bytes.
TEST_F(TcpMltcpTest, SsthreshIsTheCoresForTheFlowsProgress)
{
	for (uint8_t base : { MLTCP_BASE_RENO, MLTCP_BASE_CUBIC }) {
		Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
		Socket sock;

		ASSERT_TRUE(cc->SetParams(Defaults(base, MLTCP_MODE_MD)));
		cc->SetAttribute("IterBytes", UintegerValue(1'000 * kMss));
		At(1'000, [&] { sock.Open(*cc); });
		EXPECT_EQ(cc->Flow().iter.bytes, 1'000u * kMss);
		sock.tcb->m_cWnd = 100 * kMss;
		sock.tcb->m_ssThresh = 50 * kMss;
		sock.Fill();
		At(2'000, [&] { sock.Ack(*cc, 2, MicroSeconds(1'000)); });
		for (int k = 0; k < 2; k++)
			At(3'000, [&] { sock.Ack(*cc, 2, MicroSeconds(1'000)); });

		mltcp_flow core = cc->Flow(); // the model's state, before its decrease
		uint32_t f = mltcp_f_decrease(&core.iter, &core.params, cc->BytesAcked());
		mltcp_prio_hold hold;
		uint32_t want = mltcp_flow_ssthresh(&core, f, sock.tcb->m_cWnd / kMss,
						    sock.tcb->m_ssThresh / kMss, &hold);
		uint32_t got = 0;
		At(4'000, [&] { got = cc->GetSsThresh(sock.tcb, sock.tcb->m_bytesInFlight); });
		EXPECT_EQ(got, want * kMss) << "base " << int(base);
		EXPECT_NE(f, MLTCP_ONE) << "F should differ from 1 six segments in";
	}
}

// The attributes speak the policy's words; a bad value is refused at once.
TEST_F(TcpMltcpTest, AttributesAreThePolicysParameters)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	StringValue text;

	cc->SetAttribute("Base", StringValue("reno"));
	cc->SetAttribute("Mode", StringValue("ai-restart"));
	cc->SetAttribute("Slope", StringValue("0.8"));
	cc->GetAttribute("Slope", text);
	EXPECT_EQ(text.Get(), "0.800");
	cc->GetAttribute("Mode", text);
	EXPECT_EQ(text.Get(), "ai-restart");

	Socket sock;
	At(1'000, [&] { sock.Open(*cc); });
	EXPECT_EQ(cc->Flow().params.base, MLTCP_BASE_RENO);
	EXPECT_EQ(cc->Flow().params.mode, MLTCP_MODE_AI | MLTCP_MODE_RESTART);
	EXPECT_EQ(cc->Flow().params.slope, 819u);
	EXPECT_DEATH(cc->SetAttribute("Mode", StringValue("fast")), "Mode|mode");
	EXPECT_DEATH(cc->SetAttribute("Slope", StringValue("99")), "slope");
}

// A fork (a socket accepting, or cloned for a connection) takes the
// parameters, never the flow.
TEST_F(TcpMltcpTest, ForkKeepsParametersNotState)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	Socket sock;

	cc->SetAttribute("Base", StringValue("reno"));
	At(1'000, [&] { sock.Open(*cc); });
	sock.Fill();
	At(2'000, [&] { sock.Ack(*cc, 2, MicroSeconds(1'000)); });
	cc->SetAttribute("SlowStartAfterIdle", BooleanValue(false));
	cc->SetAttribute("IdleRtoMin", TimeValue(MilliSeconds(2)));
	cc->SetAttribute("IterBytes", UintegerValue(12345));
	Ptr<TcpMltcp> child = DynamicCast<TcpMltcp>(cc->Fork());
	ASSERT_NE(child, nullptr);
	EXPECT_EQ(child->BytesAcked(), 0u);
	EXPECT_EQ(child->Flow().iter.count, 0u);
	StringValue base;
	child->GetAttribute("Base", base);
	EXPECT_EQ(base.Get(), "reno");
	BooleanValue after_idle;
	child->GetAttribute("SlowStartAfterIdle", after_idle);
	EXPECT_FALSE(after_idle.Get());
	TimeValue idle_rto_min;
	child->GetAttribute("IdleRtoMin", idle_rto_min);
	EXPECT_EQ(idle_rto_min.Get(), MilliSeconds(2));
	UintegerValue iter_bytes;
	child->GetAttribute("IterBytes", iter_bytes);
	EXPECT_EQ(iter_bytes.Get(), 12345u);
}

} // namespace

namespace
{

// --- progress priority ------------------------------------------------------

// The sending socket's TOS as the worker hands it over (Socket::GetIpTos(),
// SetIpTos()), counting writes.
struct FakeTos {
	uint8_t tos = 0;
	int writes = 0;
	uint8_t Get() const { return tos; }
	void Set(uint8_t value)
	{
		tos = value;
		writes++;
	}
};

// The iterations before the size is trusted (learned, then agreed with).
constexpr int kLearning = 1 + MLTCP_TRUST_ITERS;

// kLearning + 3 iterations of 200 segments, ACKed two at a time, with the
// DSCP the socket carries after each ACK (iteration, segments acked, DSCP),
// and the DSCP right after each TX_START, before any ACK of the iteration.
struct PrioRun {
	std::vector<std::tuple<int, uint32_t, uint8_t>> acks;
	std::vector<uint8_t> at_start;
	int writes = 0;
};

PrioRun RunPrio(Ptr<TcpMltcp> cc, uint8_t ecn_bits = 0)
{
	Socket sock;
	FakeTos fake;
	PrioRun run;
	uint64_t now = 1'000;

	fake.tos = ecn_bits;
	cc->SetTosAccess(MakeCallback(&FakeTos::Get, &fake), MakeCallback(&FakeTos::Set, &fake));
	At(now, [&] { sock.Open(*cc); });
	for (int iteration = 0; iteration < kLearning + 3; iteration++) {
		At(now, [&] { cc->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
		run.at_start.push_back(fake.tos >> 2);
		EXPECT_EQ(fake.tos & 3, ecn_bits) << "the ECN bits are the socket's";
		for (uint32_t done = 0; done < 200; done += 2) {
			now += 500;
			sock.Fill();
			if (done + 2 >= 200)
				sock.Send(2);
			At(now, [&] { sock.Ack(*cc, 2, MicroSeconds(1'000)); });
			run.acks.emplace_back(iteration, done + 2, fake.tos >> 2);
		}
		now += 100'000;
	}
	run.writes = fake.writes;
	return run;
}

Ptr<TcpMltcp> PrioCc(unsigned classes)
{
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	EXPECT_TRUE(cc->SetParams(Defaults(MLTCP_BASE_CUBIC, MLTCP_MODE_MD | MLTCP_MODE_RESTART)));
	cc->SetAttribute("PrioClasses", UintegerValue(classes));
	return cc;
}

// The DSCP at each start: none while learning, then class 0's.
std::vector<uint8_t> AtStart(uint8_t class0)
{
	std::vector<uint8_t> v(kLearning, 0);
	v.resize(kLearning + 3, class0);
	return v;
}

// K = 4: CS1 while r < 1/4, CS2 to 1/2, CS3 to 3/4, CS4 after; nothing
// while the size is unknown or not yet trusted; each iteration's first
// segment goes out in class 0 again. A move up waits for the window in
// flight to be acknowledged (mltcp_prio_move()): the class lags its
// threshold by up to a window, never runs ahead of it, never falls within
// an iteration, and the window is held meanwhile.
TEST_F(TcpMltcpTest, PrioSetsTheClassOfTheFlowsProgress)
{
	const PrioRun run = RunPrio(PrioCc(4));
	int last_iteration = -1;
	uint8_t last = 0;
	uint32_t lagging = 0;

	EXPECT_EQ(run.at_start, AtStart(8));
	for (const auto &[iteration, acked, dscp] : run.acks) {
		if (iteration < kLearning) {
			EXPECT_EQ(dscp, 0) << "no trusted size: no class, acked " << acked;
			continue;
		}
		const uint8_t due = static_cast<uint8_t>(8 * (1 + std::min(3u, acked / 50)));
		EXPECT_LE(dscp, due) << "iteration " << iteration << " acked " << acked;
		if (iteration == last_iteration) {
			EXPECT_GE(dscp, last) << "iteration " << iteration << " acked " << acked;
		}
		lagging += dscp < due && acked % 50 != 0; // not exactly on a threshold
		last_iteration = iteration;
		last = dscp;
	}
	EXPECT_EQ(last, 32) << "the top class by the iteration's end";
	EXPECT_GT(lagging, 0u) << "a move up made with data in flight";
	// Per known iteration: three moves up and one back down at its start.
	EXPECT_EQ(run.writes, 3 * 4);
}

TEST_F(TcpMltcpTest, PrioKeepsTheSocketsEcnBits)
{
	const PrioRun run = RunPrio(PrioCc(2), Ipv4Header::ECN_ECT0);
	EXPECT_EQ(run.at_start, AtStart(8));
	EXPECT_EQ(std::get<2>(run.acks.back()), 16);
}

// Off (K = 0), exempt, or without the socket's TOS: nothing is written.
TEST_F(TcpMltcpTest, PrioOffExemptOrUnwiredWritesNothing)
{
	EXPECT_EQ(RunPrio(PrioCc(0)).writes, 0);
	Ptr<TcpMltcp> exempt = PrioCc(4);
	exempt->SetAttribute("Exempt", BooleanValue(true));
	EXPECT_EQ(RunPrio(exempt).writes, 0);

	Ptr<TcpMltcp> unwired = PrioCc(4);
	Socket sock;
	At(1'000, [&] { sock.Open(*unwired); });
	At(2'000, [&] { unwired->CwndEvent(sock.tcb, TcpSocketState::CA_EVENT_TX_START); });
	EXPECT_EQ(unwired->DscpChanges(), 0u);
}

// The static control: job 3 of K = 4 sits in class 2 (CS3) whenever the
// core gives a class, whatever its progress.
TEST_F(TcpMltcpTest, PrioStaticGivesTheJobsFixedClass)
{
	Ptr<TcpMltcp> cc = PrioCc(4);
	cc->SetAttribute("PrioStatic", BooleanValue(true));
	cc->SetAttribute("PrioJob", UintegerValue(3));
	const PrioRun run = RunPrio(cc);
	EXPECT_EQ(run.at_start, AtStart(24));
	for (const auto &[iteration, acked, dscp] : run.acks)
		EXPECT_EQ(dscp, iteration >= kLearning ? 24 : 0) << iteration << " " << acked;
	EXPECT_EQ(run.writes, 1);
}

// The DSCP list and the none DSCP are checked as the core checks them.
TEST_F(TcpMltcpTest, PrioRefusesClashingDscps)
{
	Ptr<TcpMltcp> cc = PrioCc(2);
	cc->SetAttribute("PrioDscp", StringValue("10,12"));
	EXPECT_EQ(cc->PrioConfig().dscp[1], 12);
	EXPECT_EQ(cc->PrioConfig().dscp[2], 24); // the defaults stay beyond the list
	cc->SetAttribute("PrioNoneDscp", UintegerValue(12));
	Socket sock;
	EXPECT_DEATH(sock.Open(*cc), "must differ");
	EXPECT_DEATH(cc->SetAttribute("PrioDscp", StringValue("8,64")), "");
}

} // namespace
