// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// DCQCN's reaction point (sim/dcqcn.h) through known event sequences, and
// ns3::TcpDcqcn (sim/tcp_dcqcn.h) sending alone through a marking port.
#include <gtest/gtest.h>

#include <cmath>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "dcqcn.h"
#include "mltcp_core.h"
#include "port_queue_disc.h"
#include "tcp_dcqcn.h"

using mltcp::sim::Dcqcn;
using mltcp::sim::DcqcnParams;
using Stage = Dcqcn::Stage;

namespace
{

constexpr uint64_t kLine = 10'000'000'000; // 10 Gbit/s
constexpr uint32_t kOne = MLTCP_ONE;
constexpr uint32_t kMss = 1448;

// RC's step toward RT, as the reaction point rounds it.
uint64_t Halfway(uint64_t rt, uint64_t rc)
{
	return (rt + rc + 1) / 2;
}

// A flow cut twice from line rate at t = 0 and 1 us (alpha 1 both times):
// RT 5 Gbit/s, RC 2.5 Gbit/s, every count at 0, the timer due at 56 us.
Dcqcn CutTwice(const DcqcnParams &p = {}, uint32_t f = kOne)
{
	Dcqcn rp(p, kLine);
	rp.Cnp(0, f);
	rp.Cnp(1, f);
	return rp;
}

TEST(Dcqcn, StartsAtLineRateAndCountsNothingBeforeItsFirstCnp)
{
	Dcqcn rp(DcqcnParams{}, kLine);

	rp.Advance(1'000'000, kOne);
	rp.Sent(1'000'000'000, kOne);
	EXPECT_FALSE(rp.Active());
	EXPECT_EQ(rp.Rate(), kLine);
	EXPECT_EQ(rp.TargetRate(), kLine);
	EXPECT_EQ(rp.Alpha(), 1.0);
	EXPECT_EQ(rp.TimerEvents(), 0u);
	EXPECT_EQ(rp.ByteEvents(), 0u);
}

// Equation 1 with the initial alpha of 1: the first CNP halves the rate,
// the target keeps the old one, alpha stays 1; and again.
TEST(Dcqcn, ACnpFromLineRateHalvesItWithAlphaOne)
{
	Dcqcn rp(DcqcnParams{}, kLine);

	rp.Cnp(100, kOne);
	EXPECT_TRUE(rp.Active());
	EXPECT_EQ(rp.Rate(), kLine / 2);
	EXPECT_EQ(rp.TargetRate(), kLine);
	EXPECT_EQ(rp.Alpha(), 1.0);
	rp.Cnp(101, kOne);
	EXPECT_EQ(rp.Rate(), kLine / 4);
	EXPECT_EQ(rp.TargetRate(), kLine / 2);
	EXPECT_EQ(rp.Alpha(), 1.0);
}

// Equation 2: alpha decays by (1 - g) at each K without a CNP, and the next
// cut uses the decayed alpha before equation 1 raises it.
TEST(Dcqcn, AlphaDecaysEveryKWithoutACnpAndTheNextCutUsesIt)
{
	DcqcnParams p;
	const double g = p.g;
	Dcqcn rp(p, kLine);

	rp.Cnp(1'000, kOne); // alpha 1, K due at 1055
	rp.Advance(1'054, kOne);
	EXPECT_EQ(rp.Alpha(), 1.0);
	rp.Advance(1'055, kOne);
	EXPECT_DOUBLE_EQ(rp.Alpha(), 1 - g);
	rp.Advance(1'000 + 10 * 55 + 3, kOne);
	const double decayed = std::pow(1 - g, 10);
	EXPECT_DOUBLE_EQ(rp.Alpha(), decayed);

	const uint64_t before = rp.Rate();
	rp.Cnp(1'000 + 10 * 55 + 3, kOne);
	EXPECT_EQ(rp.TargetRate(), before);
	EXPECT_EQ(rp.Rate(), static_cast<uint64_t>(before * (1 - decayed / 2)));
	EXPECT_DOUBLE_EQ(rp.Alpha(), (1 - g) * decayed + g);
	// The CNP restarted K: nothing decays for 54 us.
	const double after = rp.Alpha();
	rp.Advance(1'000 + 11 * 55 + 2, kOne);
	EXPECT_EQ(rp.Alpha(), after);
}

// Timer events alone: F = 5 of fast recovery (RT kept, RC halfway to it),
// then additive increase (RT += RAI), RC halfway after each.
TEST(Dcqcn, TheTimerRunsFastRecoveryThenAdditiveIncrease)
{
	const DcqcnParams p;
	Dcqcn rp = CutTwice(p);
	uint64_t rt = kLine / 2, rc = kLine / 4;

	ASSERT_EQ(rp.Rate(), rc);
	ASSERT_EQ(rp.TargetRate(), rt);
	for (uint64_t k = 1; k <= 8; k++) {
		rp.Advance(1 + 55 * k - 1, kOne);
		EXPECT_EQ(rp.TimerEvents(), k - 1) << k;
		rp.Advance(1 + 55 * k, kOne);
		EXPECT_EQ(rp.TimerEvents(), k);
		if (k <= p.fast_recovery_steps) {
			EXPECT_EQ(rp.LastStage(), Stage::kFastRecovery) << k;
		} else {
			EXPECT_EQ(rp.LastStage(), Stage::kAdditive) << k;
			rt += p.rai_bps;
		}
		rc = Halfway(rt, rc);
		EXPECT_EQ(rp.TargetRate(), rt) << k;
		EXPECT_EQ(rp.Rate(), rc) << k;
	}
	EXPECT_EQ(rp.ByteEvents(), 0u);
}

// Missed timer events all run at the next Advance().
TEST(Dcqcn, AnAdvanceRunsEveryTimerEventDueByThen)
{
	Dcqcn rp = CutTwice();

	rp.Advance(1 + 55 * 7 + 54, kOne);
	EXPECT_EQ(rp.TimerEvents(), 7u);
	EXPECT_EQ(rp.LastStage(), Stage::kAdditive);
}

// The byte counter: an event every B bytes sent, the remainder kept.
TEST(Dcqcn, TheByteCounterCountsEveryBBytes)
{
	const DcqcnParams p;
	Dcqcn rp = CutTwice(p);

	rp.Sent(p.byte_counter - 1, kOne);
	EXPECT_EQ(rp.ByteEvents(), 0u);
	rp.Sent(1, kOne);
	EXPECT_EQ(rp.ByteEvents(), 1u);
	EXPECT_EQ(rp.LastStage(), Stage::kFastRecovery);
	rp.Sent(3 * p.byte_counter + 5, kOne);
	EXPECT_EQ(rp.ByteEvents(), 4u);
	EXPECT_EQ(rp.TimerEvents(), 0u);
	// A CNP resets both counts and the bytes counted toward the next.
	rp.Cnp(10, kOne);
	EXPECT_EQ(rp.ByteEvents(), 0u);
	EXPECT_EQ(rp.LastStage(), Stage::kNone);
	rp.Sent(p.byte_counter - 5, kOne);
	EXPECT_EQ(rp.ByteEvents(), 0u);
}

// Additive increase once one count passes F, hyper increase once both
// have: RT += i RHAI with i = min(counts) - F.
TEST(Dcqcn, HyperIncreaseStepsByIRhaiOnceBothCountsPassF)
{
	const DcqcnParams p;
	Dcqcn rp = CutTwice(p);
	const uint64_t B = p.byte_counter;
	uint64_t t = 1;

	for (int k = 0; k < 5; k++) {
		rp.Advance(t += 55, kOne);
		rp.Sent(B, kOne);
	}
	EXPECT_EQ(rp.TimerEvents(), 5u);
	EXPECT_EQ(rp.ByteEvents(), 5u);
	EXPECT_EQ(rp.LastStage(), Stage::kFastRecovery);
	uint64_t rt = rp.TargetRate();

	rp.Advance(t += 55, kOne); // timer 6, bytes 5
	EXPECT_EQ(rp.LastStage(), Stage::kAdditive);
	EXPECT_EQ(rp.TargetRate(), rt += p.rai_bps);
	rp.Sent(B, kOne); // 6, 6: i = 1
	EXPECT_EQ(rp.LastStage(), Stage::kHyper);
	EXPECT_EQ(rp.TargetRate(), rt += p.rhai_bps);
	rp.Advance(t += 55, kOne); // 7, 6: i = 1
	EXPECT_EQ(rp.TargetRate(), rt += p.rhai_bps);
	rp.Sent(B, kOne); // 7, 7: i = 2
	EXPECT_EQ(rp.TargetRate(), rt += 2 * p.rhai_bps);
	rp.Sent(2 * B, kOne); // 7, 8 (i = 2), 7, 9 (i = 2)
	EXPECT_EQ(rp.TargetRate(), rt += 4 * p.rhai_bps);
	rp.Advance(t += 55, kOne); // 8, 9: i = 3
	EXPECT_EQ(rp.TargetRate(), rt += 3 * p.rhai_bps);
	EXPECT_EQ(rp.LastStage(), Stage::kHyper);
}

// RC never above the line rate (nor RT), never below the minimum rate.
TEST(Dcqcn, TheRateStaysBetweenTheMinimumAndTheLine)
{
	DcqcnParams p;
	Dcqcn rp(p, kLine);
	uint64_t t = 0;

	for (int k = 0; k < 20; k++)
		rp.Cnp(t++, kOne);
	EXPECT_EQ(rp.Rate(), p.min_rate_bps);
	// Hyper increase with a huge step: RT stops at the line, RC reaches it.
	for (int k = 0; k < 40; k++) {
		rp.Advance(t += 55, 16 * kOne);
		rp.Sent(p.byte_counter, 16 * kOne);
		EXPECT_LE(rp.TargetRate(), kLine);
		EXPECT_LE(rp.Rate(), rp.TargetRate());
	}
	EXPECT_EQ(rp.TargetRate(), kLine);
	EXPECT_EQ(rp.Rate(), kLine);
}

// Back at line rate the rate limiter is released: nothing more is counted,
// alpha is the initial one again, and the next CNP is a first CNP.
TEST(Dcqcn, AtLineRateTheRateLimiterIsReleased)
{
	DcqcnParams p;
	Dcqcn rp(p, kLine);

	rp.Cnp(0, kOne); // RT line, RC half of it
	uint64_t t = 0;
	while (rp.Active()) {
		ASSERT_LT(t, 100'000u);
		rp.Advance(t += 55, kOne);
		if (rp.Active()) {
			EXPECT_LT(rp.Alpha(), 1.0) << t; // decaying meanwhile
		}
	}
	EXPECT_EQ(rp.Rate(), kLine);
	EXPECT_EQ(rp.Alpha(), p.initial_alpha);
	const uint64_t events = rp.TimerEvents();
	EXPECT_GT(events, p.fast_recovery_steps);
	rp.Advance(t + 55 * 1000, kOne);
	rp.Sent(100 * p.byte_counter, kOne);
	EXPECT_EQ(rp.TimerEvents(), events);
	EXPECT_EQ(rp.ByteEvents(), 0u);
	EXPECT_EQ(rp.Alpha(), p.initial_alpha);
	rp.Cnp(t + 55 * 1000, kOne);
	EXPECT_EQ(rp.Rate(), kLine / 2);
}

// MLTCP's F scales the increase steps, not fast recovery and not the cut:
// F = 2 doubles the additive step, F = 1 leaves it RAI.
TEST(Dcqcn, MltcpsFScalesTheIncreaseStepsOnly)
{
	const DcqcnParams p;
	EXPECT_EQ(Dcqcn::Scaled(p.rai_bps, kOne), p.rai_bps);
	EXPECT_EQ(Dcqcn::Scaled(p.rai_bps, 2 * kOne), 2 * p.rai_bps);
	EXPECT_EQ(Dcqcn::Scaled(p.rai_bps, kOne / 2), p.rai_bps / 2);

	Dcqcn one = CutTwice(p, kOne), two = CutTwice(p, 2 * kOne);
	EXPECT_EQ(one.Rate(), two.Rate()); // the cut is DCQCN's
	for (uint64_t k = 1; k <= 5; k++) {
		one.Advance(1 + 55 * k, kOne);
		two.Advance(1 + 55 * k, 2 * kOne);
	}
	EXPECT_EQ(one.Rate(), two.Rate()); // so is fast recovery
	EXPECT_EQ(one.TargetRate(), two.TargetRate());
	const uint64_t rt = one.TargetRate();
	one.Advance(1 + 55 * 6, kOne);
	two.Advance(1 + 55 * 6, 2 * kOne);
	EXPECT_EQ(one.TargetRate() - rt, p.rai_bps);
	EXPECT_EQ(two.TargetRate() - rt, 2 * p.rai_bps);
	EXPECT_GT(two.Rate(), one.Rate());
}

TEST(Dcqcn, ParametersOutOfRangeAreNamed)
{
	DcqcnParams p;
	EXPECT_EQ(p.Invalid(kLine), nullptr);
	EXPECT_NE(p.Invalid(p.min_rate_bps - 1), nullptr);
	p.g = 0;
	EXPECT_NE(p.Invalid(kLine), nullptr);
	p = DcqcnParams{};
	p.timer_us = 0;
	EXPECT_NE(p.Invalid(kLine), nullptr);
	p = DcqcnParams{};
	p.initial_alpha = 1.5;
	EXPECT_NE(p.Invalid(kLine), nullptr);
}

// A DCQCN flow alone on a marking bottleneck: its line rate a quarter above
// the bottleneck's, so that its queue builds until the port's ramp marks.
// The rate, not the window, then holds it: over 90% of the bottleneck
// delivered, CNPs taken, no timeouts and no drops.
class TcpDcqcnFlow : public ::testing::Test
{
protected:
	void TearDown() override { ns3::Simulator::Destroy(); }
};

TEST_F(TcpDcqcnFlow, ReachesTheBottlenecksRateAndCutsAtMarks)
{
	using namespace ns3;
	constexpr double kBottleneck = 1e9; // PPP frames
	constexpr double kPayload = kBottleneck * 1448 / 1502;

	Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
	Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16u << 20));
	Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16u << 20));
	Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(50)));
	Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(2)));
	Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
	Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));

	NodeContainer nodes;
	nodes.Create(3); // sender, switch, receiver
	InternetStackHelper stack;
	stack.Install(nodes);
	for (uint32_t n : { 0u, 2u })
		nodes.Get(n)->GetObject<TcpL4Protocol>()->SetAttribute(
			"SocketType", TypeIdValue(TcpDcqcn::GetTypeId()));
	PointToPointHelper access, bottleneck;
	access.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
	access.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
	bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(kBottleneck)));
	bottleneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(10)));
	bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
			    QueueSizeValue(QueueSize("1p")));
	NetDeviceContainer a = access.Install(nodes.Get(0), nodes.Get(1));
	NetDeviceContainer b = bottleneck.Install(nodes.Get(1), nodes.Get(2));
	Ipv4AddressHelper ip;
	ip.SetBase("10.0.0.0", "255.255.255.0");
	ip.Assign(a);
	ip.SetBase("10.0.1.0", "255.255.255.0");
	Ipv4Address receiver = ip.Assign(b).GetAddress(1);
	TrafficControlHelper tc;
	tc.Uninstall(a);
	tc.Uninstall(b);
	tc.SetRootQueueDisc(PortQueueDisc::GetTypeId().GetName(), "MaxSize",
			    QueueSizeValue(QueueSize("1000000B")), "RampMin", UintegerValue(5'000),
			    "RampMax", UintegerValue(200'000), "RampPmax", DoubleValue(0.01));
	Ptr<QueueDisc> port = tc.Install(b.Get(0)).Get(0);
	Ipv4GlobalRoutingHelper::PopulateRoutingTables();

	PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
				    InetSocketAddress(Ipv4Address::GetAny(), 9000));
	ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(2));
	Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));

	Ptr<TcpDcqcn> cc = CreateObject<TcpDcqcn>();
	cc->SetAttribute("Exempt", BooleanValue(true));
	cc->SetAttribute("LineRate", DataRateValue(DataRate(uint64_t(1.25 * kPayload))));
	cc->SetAttribute("WindowBytes", UintegerValue(2'000'000));
	Ptr<Socket> socket = Socket::CreateSocket(nodes.Get(0), TcpSocketFactory::GetTypeId());
	Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(socket);
	tcp->SetCongestionControlAlgorithm(cc);
	uint64_t timeouts = 0;
	tcp->TraceConnectWithoutContext("CongState",
					MakeBoundCallback(
						+[](uint64_t *n, TcpSocketState::TcpCongState_t,
						    TcpSocketState::TcpCongState_t now) {
							*n += now == TcpSocketState::CA_LOSS;
						},
						&timeouts));
	socket->Bind();
	socket->Connect(InetSocketAddress(receiver, 9000));
	auto fill = [](Ptr<Socket> s, uint32_t) {
		while (s->GetTxAvailable() >= kMss)
			s->Send(Create<Packet>(kMss));
	};
	socket->SetSendCallback(MakeCallback(+fill));
	Simulator::Schedule(MilliSeconds(1), [&] { fill(socket, 0); });

	uint64_t at20 = 0, at120 = 0;
	Simulator::Schedule(MilliSeconds(20), [&] { at20 = sink->GetTotalRx(); });
	Simulator::Schedule(MilliSeconds(120), [&] { at120 = sink->GetTotalRx(); });
	Simulator::Stop(MilliSeconds(121));
	Simulator::Run();

	const double goodput = (at120 - at20) * 8 / 0.1;
	EXPECT_GT(goodput, 0.9 * kPayload) << goodput;
	EXPECT_GT(cc->Cnps(), 0u);
	EXPECT_EQ(cc->RateCuts(), cc->Cnps()); // no losses
	EXPECT_EQ(cc->Timeouts(), 0u);
	EXPECT_EQ(timeouts, 0u);
	EXPECT_GT(port->GetStats().nTotalMarkedPackets, 0u);
	EXPECT_EQ(port->GetStats().nTotalDroppedPackets, 0u);
	EXPECT_EQ(cc->Flow().params.exempt, 1);
}

} // namespace
