// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "port_queue_disc.h"

#include "ns3/boolean.h"
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
			.AddAttribute("AckPriority",
				      "Serve segments without payload before the others",
				      BooleanValue(false),
				      MakeBooleanAccessor(&PortQueueDisc::m_ackPriority),
				      MakeBooleanChecker());
	return tid;
}

PortQueueDisc::PortQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::BYTES)
{
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
	if (m_markThreshold && GetNBytes() >= m_markThreshold)
		Mark(item, kStepMark); // false for a packet that is not ECN-capable
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
	    m_markThreshold >= GetMaxSize().GetValue()) {
		NS_LOG_ERROR("PortQueueDisc needs a byte limit and a threshold below it");
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
