// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "port_queue_disc.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/tcp-header.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "mltcp_core.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PortQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(PortQueueDisc);

constexpr uint8_t kTcp = 6; // IPv4's protocol number
// The bytes a round of deficit round robin gives both sides together: ten
// full packets, so that a side's quantum at a weight of 0.1 is one packet.
constexpr double kDrrRound = 10 * 1500;

TypeId PortQueueDisc::GetTypeId()
{
	static TypeId tid =
		TypeId("ns3::PortQueueDisc")
			.SetParent<QueueDisc>()
			.SetGroupName("TrafficControl")
			.AddConstructor<PortQueueDisc>()
			.AddAttribute("MaxSize", "The most bytes the port holds, both bands",
				      QueueSizeValue(QueueSize("1MB")),
				      MakeQueueSizeAccessor(&QueueDisc::SetMaxSize,
							    &QueueDisc::GetMaxSize),
				      MakeQueueSizeChecker())
			.AddAttribute("MarkThreshold",
				      "Bytes queued at or over which an arriving "
				      "ECN-capable packet is marked; 0: never",
				      UintegerValue(0),
				      MakeUintegerAccessor(&PortQueueDisc::m_markThreshold),
				      MakeUintegerChecker<uint32_t>())
			.AddAttribute("RampMin", "Bytes queued up to which the ramp marks nothing",
				      UintegerValue(0),
				      MakeUintegerAccessor(&PortQueueDisc::m_rampMin),
				      MakeUintegerChecker<uint32_t>())
			.AddAttribute("RampMax",
				      "Bytes queued from which the ramp marks every "
				      "ECN-capable packet; 0: no ramp",
				      UintegerValue(0),
				      MakeUintegerAccessor(&PortQueueDisc::m_rampMax),
				      MakeUintegerChecker<uint32_t>())
			.AddAttribute(
				"RampPmax", "The ramp's marking probability just below RampMax",
				DoubleValue(0.01), MakeDoubleAccessor(&PortQueueDisc::m_rampPmax),
				MakeDoubleChecker<double>(0, 1))
			.AddAttribute("AckPriority",
				      "Serve segments without payload before the others",
				      BooleanValue(false),
				      MakeBooleanAccessor(&PortQueueDisc::m_ackPriority),
				      MakeBooleanChecker())
			.AddAttribute("TrainingDscps",
				      "The training classes' DSCPs, class 0 (the lowest) "
				      "first, comma-separated (at most 7); empty: none, one "
				      "data band as without progress priority",
				      StringValue(""),
				      MakeStringAccessor(&PortQueueDisc::SetDscps,
							 &PortQueueDisc::GetDscps),
				      MakeStringChecker())
			.AddAttribute("AckDscp",
				      "With training classes: packets of this DSCP join the "
				      "pure ACKs' band (the hosts' ackmark, EF)",
				      UintegerValue(kEfDscp),
				      MakeUintegerAccessor(&PortQueueDisc::m_ackDscp),
				      MakeUintegerChecker<uint8_t>(1, MLTCP_DSCP_MAX))
			.AddAttribute("BestEffortWeight",
				      "With training classes: best effort's share of the "
				      "bytes sent while it and the training classes are "
				      "both backlogged (deficit round robin)",
				      DoubleValue(0.1),
				      MakeDoubleAccessor(&PortQueueDisc::m_beWeight),
				      MakeDoubleChecker<double>(0, 1))
			.AddAttribute("TrainingEct",
				      "Take TCP data of a training class as ECN-capable "
				      "(ECT(0)) where it arrives Not-ECT: ns-3 3.37 sends a "
				      "stream socket's data Not-ECT whenever its TOS is "
				      "nonzero, where a kernel keeps ECT under any DSCP",
				      BooleanValue(false),
				      MakeBooleanAccessor(&PortQueueDisc::m_trainingEct),
				      MakeBooleanChecker());
	return tid;
}

PortQueueDisc::PortQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::BYTES),
      m_uniform(CreateObject<UniformRandomVariable>())
{
}

int64_t PortQueueDisc::AssignStreams(int64_t stream)
{
	m_uniform->SetStream(stream);
	return 1;
}

// The ramp's verdict for an arrival that finds `queued` bytes: a draw only
// on the slope.
bool PortQueueDisc::RampMarks(uint32_t queued)
{
	if (queued >= m_rampMax)
		return true;
	if (queued <= m_rampMin)
		return false;
	const double p = m_rampPmax * (queued - m_rampMin) / (m_rampMax - m_rampMin);
	return m_uniform->GetValue() < p;
}

bool PortQueueDisc::PureAck(Ptr<const QueueDiscItem> item)
{
	// An IPv4 item's packet starts at its transport header.
	Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
	TcpHeader tcp;
	Ptr<Packet> packet = item->GetPacket();
	return ip && ip->GetHeader().GetProtocol() == kTcp && packet->PeekHeader(tcp) &&
	       packet->GetSize() == tcp.GetSerializedSize();
}

size_t PortQueueDisc::BandFor(uint8_t dscp, bool pure_ack) const
{
	if (m_ackPriority && pure_ack)
		return kAcks;
	if (m_dscps.empty())
		return kData;
	if (dscp == m_ackDscp)
		return kAcks;
	for (size_t c = 0; c < m_dscps.size(); c++)
		if (m_dscps[c] == dscp)
			return kFirstClass + c;
	return kData;
}

size_t PortQueueDisc::BandOf(Ptr<const QueueDiscItem> item) const
{
	// Only a port that asks pays for reading the TCP header.
	const bool pure_ack = m_ackPriority && PureAck(item);
	uint8_t dscp = 0;

	if (!m_dscps.empty())
		if (Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item))
			dscp = ip->GetHeader().GetTos() >> 2;
	return BandFor(dscp, pure_ack);
}

uint32_t PortQueueDisc::BandBytes(uint8_t dscp, bool pure_ack) const
{
	return GetInternalQueue(BandFor(dscp, pure_ack))->GetNBytes();
}

bool PortQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
	if (GetCurrentSize() + item > GetMaxSize()) {
		DropBeforeEnqueue(item, kOverLimit);
		return false;
	}
	const size_t band = BandOf(item);
	if (m_trainingEct && band >= kFirstClass)
		item = AsEcnCapable(item);
	// One band: the port's bytes. Training classes: the band's own, as a
	// switch's per-queue threshold; ACKs (EF ones may be ECN-capable in
	// ns-3) are never marked.
	const bool classes = !m_dscps.empty();
	const uint32_t queued = classes ? GetInternalQueue(band)->GetNBytes() : GetNBytes();
	// Mark() is false for a packet that is not ECN-capable.
	if (!classes || band != kAcks) {
		if (m_markThreshold && queued >= m_markThreshold)
			Mark(item, kStepMark);
		else if (m_rampMax && RampMarks(queued))
			Mark(item, kRampMark);
	}
	return GetInternalQueue(band)->Enqueue(item);
}

// A TCP data segment that arrived Not-ECT, as ECT(0) (TrainingEct); any
// other item as it is. An Ipv4QueueDiscItem's header has no setter: a new
// item carries the packet on.
Ptr<QueueDiscItem> PortQueueDisc::AsEcnCapable(Ptr<QueueDiscItem> item) const
{
	Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
	if (!ip || ip->GetHeader().GetEcn() != Ipv4Header::ECN_NotECT || PureAck(item))
		return item;
	Ipv4Header header = ip->GetHeader();
	header.SetEcn(Ipv4Header::ECN_ECT0);
	Ptr<Ipv4QueueDiscItem> ect = Create<Ipv4QueueDiscItem>(ip->GetPacket(), ip->GetAddress(),
							       ip->GetProtocol(), header);
	ect->SetTxQueueIndex(ip->GetTxQueueIndex());
	return ect;
}

// The highest training class with a packet queued (strict priority).
Ptr<QueueDiscItem> PortQueueDisc::DequeueTraining()
{
	for (size_t band = kFirstClass + m_dscps.size(); band-- > kFirstClass;)
		if (Ptr<QueueDiscItem> item = GetInternalQueue(band)->Dequeue())
			return item;
	return nullptr;
}

Ptr<QueueDiscItem> PortQueueDisc::DoDequeue()
{
	if (Ptr<QueueDiscItem> ack = GetInternalQueue(kAcks)->Dequeue())
		return ack;
	if (m_dscps.empty())
		return GetInternalQueue(kData)->Dequeue();

	Ptr<const QueueDiscItem> training_head;
	for (size_t band = kFirstClass + m_dscps.size(); !training_head && band-- > kFirstClass;)
		training_head = GetInternalQueue(band)->Peek();
	Ptr<const QueueDiscItem> be_head = GetInternalQueue(kData)->Peek();
	if (!training_head || !be_head) {
		// No contest: whoever has packets sends, and neither side banks
		// credit for a later one. When one begins, the training classes'
		// quantum comes first.
		m_deficit = {};
		m_turn = kBestEffort;
		return training_head ? DequeueTraining() : GetInternalQueue(kData)->Dequeue();
	}
	// Deficit round robin: a side sends while its credit covers its head
	// packet; then the other side's turn adds that side's quantum.
	for (;;) {
		const uint32_t head = (m_turn == kTraining ? training_head : be_head)->GetSize();
		if (m_deficit[m_turn] >= head) {
			m_deficit[m_turn] -= head;
			return m_turn == kTraining ? DequeueTraining()
						   : GetInternalQueue(kData)->Dequeue();
		}
		m_turn = m_turn == kTraining ? kBestEffort : kTraining;
		m_deficit[m_turn] += m_quantum[m_turn];
	}
}

// TrainingDscps to m_dscps: whole numbers, checked by the core's own rule
// for a class list (distinct, none of them best effort's 0), and none the
// ACKs' DSCP.
bool PortQueueDisc::ParseDscps()
{
	mltcp_prio_config pc;
	std::istringstream in(m_dscpText);
	std::string field;

	mltcp_prio_config_default(&pc);
	m_dscps.clear();
	while (std::getline(in, field, ',')) {
		if (field.empty() || field.size() > 2 ||
		    field.find_first_not_of("0123456789") != std::string::npos ||
		    m_dscps.size() == MLTCP_PRIO_CLASSES_MAX)
			return false;
		m_dscps.push_back(static_cast<uint8_t>(std::stoul(field)));
	}
	pc.classes = static_cast<uint8_t>(m_dscps.size());
	for (size_t c = 0; c < m_dscps.size(); c++) {
		pc.dscp[c] = m_dscps[c];
		if (m_dscps[c] == m_ackDscp)
			return false;
	}
	return mltcp_prio_config_valid(&pc);
}

bool PortQueueDisc::CheckConfig()
{
	if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0 || GetNInternalQueues() > 0) {
		NS_LOG_ERROR("PortQueueDisc makes its two queues itself");
		return false;
	}
	if (GetMaxSize().GetUnit() != QueueSizeUnit::BYTES ||
	    m_markThreshold >= GetMaxSize().GetValue() || m_rampMax >= GetMaxSize().GetValue()) {
		NS_LOG_ERROR("PortQueueDisc needs a byte limit and thresholds below it");
		return false;
	}
	if (m_rampMax && (m_markThreshold || m_rampMin >= m_rampMax || m_rampPmax <= 0)) {
		NS_LOG_ERROR("PortQueueDisc: a ramp with RampMin below RampMax and RampPmax "
			     "above 0, and no step threshold");
		return false;
	}
	// ns-3's release builds do not check CheckConfig()'s verdict
	// (NS_ASSERT): a bad class list is fatal here, as a bad attribute is.
	NS_ABORT_MSG_UNLESS(ParseDscps(), "PortQueueDisc: TrainingDscps \""
						  << m_dscpText
						  << "\": up to 7 distinct DSCPs from 1 to 63, "
						     "none the ACKs' (AckDscp)");
	NS_ABORT_MSG_IF(!m_dscps.empty() && !(m_beWeight > 0 && m_beWeight < 1),
			"PortQueueDisc: BestEffortWeight between 0 and 1, both excluded");
	m_quantum[kBestEffort] =
		std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(m_beWeight * kDrrRound)));
	m_quantum[kTraining] = std::max<uint32_t>(
		1, static_cast<uint32_t>(std::lround((1 - m_beWeight) * kDrrRound)));
	// Each band may hold the whole limit; DoEnqueue() enforces it for all.
	for (size_t band = kAcks; band < kFirstClass + m_dscps.size(); band++)
		AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
			"MaxSize", QueueSizeValue(GetMaxSize())));
	return true;
}

void PortQueueDisc::InitializeParams() {}

} // namespace ns3
