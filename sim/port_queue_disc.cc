// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "port_queue_disc.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/tcp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PortQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(PortQueueDisc);

constexpr uint8_t kTcp = 6; // IPv4's protocol number

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

bool PortQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
	if (GetCurrentSize() + item > GetMaxSize()) {
		DropBeforeEnqueue(item, kOverLimit);
		return false;
	}
	// Mark() is false for a packet that is not ECN-capable.
	if (m_markThreshold && GetNBytes() >= m_markThreshold)
		Mark(item, kStepMark);
	else if (m_rampMax && RampMarks(GetNBytes()))
		Mark(item, kRampMark);
	const Band band = m_ackPriority && PureAck(item) ? kAcks : kData;
	return GetInternalQueue(band)->Enqueue(item);
}

Ptr<QueueDiscItem> PortQueueDisc::DoDequeue()
{
	if (Ptr<QueueDiscItem> ack = GetInternalQueue(kAcks)->Dequeue())
		return ack;
	return GetInternalQueue(kData)->Dequeue();
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
	// Each band may hold the whole limit; DoEnqueue() enforces it for both.
	for (int band = kAcks; band <= kData; band++)
		AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
			"MaxSize", QueueSizeValue(GetMaxSize())));
	return true;
}

void PortQueueDisc::InitializeParams() {}

} // namespace ns3
