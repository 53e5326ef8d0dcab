// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The simulator's switch port (sim/port_queue_disc.h): one byte limit, step
// or ramp marking of ECN-capable packets only, and pure ACKs first when asked.
#include <gtest/gtest.h>

#include "ns3/boolean.h"
#include "ns3/core-module.h"
#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/tcp-header.h"

#include "port_queue_disc.h"

using namespace ns3;

namespace
{

constexpr uint32_t kPayload = 1000;
constexpr uint32_t kSegment = kPayload + 20 + 20; // TCP and IPv4 headers, no options

Ptr<Ipv4QueueDiscItem> Segment(uint32_t payload, bool ect)
{
	Ptr<Packet> packet = Create<Packet>(payload);
	TcpHeader tcp;
	tcp.SetFlags(TcpHeader::ACK);
	packet->AddHeader(tcp);
	Ipv4Header ip;
	ip.SetProtocol(6);
	ip.SetPayloadSize(packet->GetSize());
	ip.SetEcn(ect ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
	return Create<Ipv4QueueDiscItem>(packet, Address(), 0x0800, ip);
}

Ptr<PortQueueDisc> Port(uint32_t limit, uint32_t mark_threshold, bool ack_priority)
{
	Ptr<PortQueueDisc> port = CreateObjectWithAttributes<PortQueueDisc>(
		"MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, limit)), "MarkThreshold",
		UintegerValue(mark_threshold), "AckPriority", BooleanValue(ack_priority));
	port->Initialize();
	return port;
}

// A ramp from kmin to kmax bytes with pmax, its draws from stream 7.
Ptr<PortQueueDisc> RampPort(uint32_t limit, uint32_t kmin, uint32_t kmax, double pmax)
{
	Ptr<PortQueueDisc> port = CreateObjectWithAttributes<PortQueueDisc>(
		"MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, limit)), "RampMin",
		UintegerValue(kmin), "RampMax", UintegerValue(kmax), "RampPmax", DoubleValue(pmax));
	port->AssignStreams(7);
	port->Initialize();
	return port;
}

bool Marked(Ptr<QueueDiscItem> item)
{
	return DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetEcn() == Ipv4Header::ECN_CE;
}

// With `level` segments queued (not ECN-capable, so never marked), how many
// of n ECN-capable arrivals the port marks; the queue is held at the level
// by serving one segment after each arrival.
uint32_t MarksAtLevel(Ptr<PortQueueDisc> port, uint32_t level, uint32_t n)
{
	for (uint32_t i = 0; i < level; i++)
		port->Enqueue(Segment(kPayload, false));
	const uint64_t before = port->GetStats().nTotalMarkedPackets;
	for (uint32_t i = 0; i < n; i++) {
		port->Enqueue(Segment(kPayload, true));
		port->Dequeue();
	}
	while (port->Dequeue())
		;
	return static_cast<uint32_t>(port->GetStats().nTotalMarkedPackets - before);
}

uint32_t PayloadOf(Ptr<QueueDiscItem> item)
{
	TcpHeader tcp;
	item->GetPacket()->PeekHeader(tcp);
	return item->GetPacket()->GetSize() - tcp.GetSerializedSize();
}

TEST(PortQueueDisc, ServesPureAcksFirstOnlyWhenAsked)
{
	for (bool priority : { false, true }) {
		Ptr<PortQueueDisc> port = Port(100000, 0, priority);
		ASSERT_TRUE(port->Enqueue(Segment(kPayload, true)));
		ASSERT_TRUE(port->Enqueue(Segment(0, false)));
		ASSERT_TRUE(port->Enqueue(Segment(kPayload, true)));
		std::vector<uint32_t> order;
		while (Ptr<QueueDiscItem> item = port->Dequeue())
			order.push_back(PayloadOf(item));
		const std::vector<uint32_t> fifo{ kPayload, 0, kPayload };
		const std::vector<uint32_t> acks_first{ 0, kPayload, kPayload };
		EXPECT_EQ(order, priority ? acks_first : fifo) << "priority " << priority;
	}
}

TEST(PortQueueDisc, MarksEcnCapablePacketsArrivingAtTheThresholdAndDropsNone)
{
	Ptr<PortQueueDisc> port = Port(100000, 2 * kSegment, false);
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(port->Enqueue(Segment(kPayload, true)));
	ASSERT_TRUE(port->Enqueue(Segment(0, false))); // an ACK over the threshold
	std::vector<bool> marked;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		marked.push_back(DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetEcn() ==
				 Ipv4Header::ECN_CE);
	// Found 0, 1, 2 and 3 segments queued: the last two arrive at or over it.
	EXPECT_EQ(marked, (std::vector<bool>{ false, false, true, true, false }));
	EXPECT_EQ(port->GetStats().nTotalMarkedPackets, 2u);
	EXPECT_EQ(port->GetStats().nTotalDroppedPackets, 0u);
}

TEST(PortQueueDisc, TheLimitHoldsForBothBandsTogether)
{
	Ptr<PortQueueDisc> port = Port(3 * kSegment, 0, true);
	for (int i = 0; i < 3; i++)
		ASSERT_TRUE(port->Enqueue(Segment(kPayload, false)));
	EXPECT_FALSE(port->Enqueue(Segment(0, false))); // no room, even for an ACK
	EXPECT_EQ(port->GetNBytes(), 3 * kSegment);
	EXPECT_EQ(port->GetStats().nTotalDroppedPackets, 1u);
	EXPECT_EQ(port->GetStats().nTotalMarkedPackets, 0u);
}

// DCQCN's ramp: nothing up to Kmin, every ECN-capable packet from Kmax on,
// and between them the fraction Pmax (q - Kmin) / (Kmax - Kmin).
TEST(PortQueueDisc, RampMarksNothingBelowKminEverythingFromKmaxAndTheSlopeBetween)
{
	const uint32_t kmin = 4 * kSegment, kmax = 24 * kSegment;
	Ptr<PortQueueDisc> port = RampPort(100 * kSegment, kmin, kmax, 0.5);

	EXPECT_EQ(MarksAtLevel(port, 0, 1000), 0u);
	EXPECT_EQ(MarksAtLevel(port, 4, 1000), 0u); // at Kmin
	EXPECT_EQ(MarksAtLevel(port, 24, 1000), 1000u);
	EXPECT_EQ(MarksAtLevel(port, 40, 1000), 1000u);
	// 14 segments: p = 0.5 x 10 / 20 = 0.25; 4000 draws, 4 sigma is 0.027.
	const uint32_t marks = MarksAtLevel(port, 14, 4000);
	EXPECT_NEAR(marks / 4000.0, 0.25, 0.027) << marks;
	// Pure ACKs are never marked, wherever the queue is.
	for (uint32_t i = 0; i < 30; i++)
		port->Enqueue(Segment(kPayload, false));
	port->Enqueue(Segment(0, false));
	EXPECT_EQ(port->GetStats().nTotalDroppedPackets, 0u);
	uint32_t ce = 0;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		ce += Marked(item);
	EXPECT_EQ(ce, 0u);
}

// The draws are the port's stream's: the same stream marks the same
// packets; another marks others.
TEST(PortQueueDisc, RampDrawsAreTheStreamsOwn)
{
	auto pattern = [](int64_t stream) {
		Ptr<PortQueueDisc> port = RampPort(100 * kSegment, 0, 50 * kSegment, 1.0);
		port->AssignStreams(stream);
		std::vector<bool> marked;
		for (int i = 0; i < 25; i++)
			port->Enqueue(Segment(kPayload, false));
		for (int i = 0; i < 200; i++) {
			port->Enqueue(Segment(kPayload, true));
			port->Dequeue();
		}
		while (Ptr<QueueDiscItem> item = port->Dequeue())
			marked.push_back(Marked(item));
		return marked;
	};
	EXPECT_EQ(pattern(3), pattern(3));
	EXPECT_NE(pattern(3), pattern(4));
}

// --- progress priority's emulated switch ---------------------------------

constexpr uint8_t kCs1 = 8, kCs2 = 16, kCs3 = 24, kCs4 = 32, kEf = 46;

// A segment of this DSCP (ECT(0) or not).
Ptr<Ipv4QueueDiscItem> Classed(uint32_t payload, uint8_t dscp, bool ect = true)
{
	Ptr<Ipv4QueueDiscItem> item = Segment(payload, ect);
	Ipv4Header ip = item->GetHeader();
	ip.SetTos(static_cast<uint8_t>(dscp << 2 | (ect ? Ipv4Header::ECN_ECT0 : 0)));
	return Create<Ipv4QueueDiscItem>(item->GetPacket(), Address(), 0x0800, ip);
}

uint8_t DscpOf(Ptr<QueueDiscItem> item)
{
	return DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetTos() >> 2;
}

// Four classes CS1..CS4 (class 0 lowest), best effort at weight be.
Ptr<PortQueueDisc> ClassPort(uint32_t mark_threshold, double be = 0.1, bool ack_priority = false)
{
	Ptr<PortQueueDisc> port = CreateObjectWithAttributes<PortQueueDisc>(
		"MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, 5000 * kSegment)),
		"MarkThreshold", UintegerValue(mark_threshold), "AckPriority",
		BooleanValue(ack_priority), "TrainingDscps", StringValue("8,16,24,32"),
		"BestEffortWeight", DoubleValue(be));
	port->Initialize();
	return port;
}

TEST(PortQueueDisc, ServesTrainingClassesInStrictPriorityHighestFirst)
{
	Ptr<PortQueueDisc> port = ClassPort(0);
	ASSERT_EQ(port->TrainingClasses(), 4u);
	for (uint8_t dscp : { kCs1, kCs3, kCs2, kCs4, kCs1, kCs3 })
		ASSERT_TRUE(port->Enqueue(Classed(kPayload, dscp)));
	std::vector<uint8_t> order;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		order.push_back(DscpOf(item));
	// FIFO within a class.
	EXPECT_EQ(order, (std::vector<uint8_t>{ kCs4, kCs3, kCs3, kCs2, kCs1, kCs1 }));
}

TEST(PortQueueDisc, ServesAcksBeforeEveryClass)
{
	// EF (the hosts' ackmark) joins the ACK band; with AckPriority any pure
	// ACK does too, whatever its DSCP.
	Ptr<PortQueueDisc> port = ClassPort(0, 0.1, true);
	ASSERT_TRUE(port->Enqueue(Classed(kPayload, kCs4)));
	ASSERT_TRUE(port->Enqueue(Classed(kPayload, 0)));
	ASSERT_TRUE(port->Enqueue(Classed(0, kEf)));
	ASSERT_TRUE(port->Enqueue(Classed(0, 0, false)));
	std::vector<uint32_t> payloads;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		payloads.push_back(PayloadOf(item));
	EXPECT_EQ(payloads, (std::vector<uint32_t>{ 0, 0, kPayload, kPayload }));

	// Without AckPriority, a pure ACK of DSCP 0 is best effort: behind the class.
	port = ClassPort(0);
	ASSERT_TRUE(port->Enqueue(Classed(0, 0, false)));
	ASSERT_TRUE(port->Enqueue(Classed(kPayload, kCs1)));
	ASSERT_TRUE(port->Enqueue(Classed(0, kEf, false)));
	std::vector<uint8_t> order;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		order.push_back(DscpOf(item));
	EXPECT_EQ(order, (std::vector<uint8_t>{ kEf, kCs1, 0 }));
}

// While both stay backlogged, best effort gets its weight of the bytes, and
// the training classes the rest; alone, either gets everything.
TEST(PortQueueDisc, BestEffortSharesWithTheClassesByItsWeight)
{
	for (double weight : { 0.1, 0.3, 0.5 }) {
		Ptr<PortQueueDisc> port = ClassPort(0, weight);
		const int n = 2000;
		for (int i = 0; i < n; i++) {
			ASSERT_TRUE(port->Enqueue(Classed(kPayload, 0)));
			ASSERT_TRUE(port->Enqueue(Classed(kPayload, i % 2 ? kCs4 : kCs2)));
		}
		uint64_t be = 0, all = 0;
		for (int i = 0; i < n; i++) { // both backlogged throughout
			Ptr<QueueDiscItem> item = port->Dequeue();
			all += item->GetSize();
			be += DscpOf(item) == 0 ? item->GetSize() : 0;
		}
		EXPECT_NEAR(static_cast<double>(be) / all, weight, 0.01) << weight;
	}
	Ptr<PortQueueDisc> port = ClassPort(0);
	for (int i = 0; i < 5; i++)
		ASSERT_TRUE(port->Enqueue(Classed(kPayload, 0)));
	int sent = 0;
	while (port->Dequeue())
		sent++;
	EXPECT_EQ(sent, 5); // best effort alone: work-conserving
}

// Each band marks on its own queue: a high class is not cut for a low
// class's backlog; the ACK band never marks, ECN-capable or not.
TEST(PortQueueDisc, MarksEachBandOnItsOwnBytes)
{
	Ptr<PortQueueDisc> port = ClassPort(2 * kSegment);
	for (int i = 0; i < 4; i++)
		ASSERT_TRUE(port->Enqueue(Classed(kPayload, kCs1)));
	ASSERT_TRUE(port->Enqueue(Classed(kPayload, kCs4)));
	ASSERT_TRUE(port->Enqueue(Classed(kPayload, 0)));
	ASSERT_TRUE(port->Enqueue(Classed(0, kEf, true)));
	EXPECT_EQ(port->BandBytes(kCs1, false), 4 * kSegment);
	EXPECT_EQ(port->BandBytes(kCs4, false), kSegment);
	std::vector<std::pair<uint8_t, bool>> seen;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		seen.emplace_back(DscpOf(item), Marked(item));
	// CS1's third and fourth found 2 and 3 of their own queued.
	EXPECT_EQ(seen, (std::vector<std::pair<uint8_t, bool>>{ { kEf, false },
								{ kCs4, false },
								{ kCs1, false },
								{ kCs1, false },
								{ kCs1, true },
								{ kCs1, true },
								{ 0, false } }));
}

// Without training classes the port is one band, marking on its total.
TEST(PortQueueDisc, WithoutClassesEveryDscpSharesOneFifo)
{
	Ptr<PortQueueDisc> port = Port(100000, 2 * kSegment, false);
	ASSERT_EQ(port->TrainingClasses(), 0u);
	for (uint8_t dscp : { kCs1, kCs4, uint8_t{ 0 }, kEf })
		ASSERT_TRUE(port->Enqueue(Classed(kPayload, dscp)));
	std::vector<std::pair<uint8_t, bool>> seen;
	while (Ptr<QueueDiscItem> item = port->Dequeue())
		seen.emplace_back(DscpOf(item), Marked(item));
	EXPECT_EQ(seen, (std::vector<std::pair<uint8_t, bool>>{
				{ kCs1, false }, { kCs4, false }, { 0, true }, { kEf, true } }));
}

TEST(PortQueueDisc, RefusesABadClassList)
{
	for (const char *bad :
	     { "8,8", "0,8", "8,46", "64", "8,,16", "x", "8,16,24,32,40,48,56,10" }) {
		Ptr<PortQueueDisc> port = CreateObjectWithAttributes<PortQueueDisc>(
			"TrainingDscps", StringValue(bad));
		EXPECT_DEATH(port->Initialize(), "TrainingDscps") << bad;
	}
}

} // namespace

namespace
{

// TrainingEct: a training class's Not-ECT TCP data is taken as ECT(0) (ns-3
// 3.37 sends a stream socket's data Not-ECT under a nonzero TOS), so it is
// marked, not left to the limit; best effort and pure ACKs stay as sent.
TEST(PortQueueDisc, TrainingEctMarksAClassesNotEctData)
{
	for (bool ect : { false, true }) {
		Ptr<PortQueueDisc> port = ClassPort(2 * kSegment);
		port->SetAttribute("TrainingEct", BooleanValue(ect));
		for (int i = 0; i < 4; i++) {
			ASSERT_TRUE(port->Enqueue(Classed(kPayload, kCs2, false)));
			ASSERT_TRUE(port->Enqueue(Classed(kPayload, 0, false)));
		}
		ASSERT_TRUE(port->Enqueue(Classed(0, kCs2, false)));
		uint32_t class_marks = 0, be_marks = 0, acks_ect = 0;
		while (Ptr<QueueDiscItem> item = port->Dequeue()) {
			const auto ecn = DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetEcn();
			if (PayloadOf(item) == 0)
				acks_ect += ecn != Ipv4Header::ECN_NotECT;
			else if (DscpOf(item))
				class_marks += Marked(item);
			else
				be_marks += Marked(item);
		}
		EXPECT_EQ(class_marks, ect ? 2u : 0u) << ect;
		EXPECT_EQ(be_marks, 0u) << ect;
		EXPECT_EQ(acks_ect, 0u) << ect;
	}
}

} // namespace
