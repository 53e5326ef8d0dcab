// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "step_mark_queue_disc.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StepMarkQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(StepMarkQueueDisc);

TypeId StepMarkQueueDisc::GetTypeId()
{
	static TypeId tid =
		TypeId("ns3::StepMarkQueueDisc")
			.SetParent<QueueDisc>()
			.SetGroupName("TrafficControl")
			.AddConstructor<StepMarkQueueDisc>()
			.AddAttribute("MaxSize", "The most bytes the queue holds",
				      QueueSizeValue(QueueSize("1MB")),
				      MakeQueueSizeAccessor(&QueueDisc::SetMaxSize,
							    &QueueDisc::GetMaxSize),
				      MakeQueueSizeChecker())
			.AddAttribute("MarkThreshold",
				      "Bytes queued at or over which an arriving "
				      "ECN-capable packet is marked",
				      UintegerValue(0),
				      MakeUintegerAccessor(&StepMarkQueueDisc::m_markThreshold),
				      MakeUintegerChecker<uint32_t>(1));
	return tid;
}

StepMarkQueueDisc::StepMarkQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE, QueueSizeUnit::BYTES)
{
}

bool StepMarkQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
	if (GetCurrentSize() + item > GetMaxSize()) {
		DropBeforeEnqueue(item, kOverLimit);
		return false;
	}
	if (GetNBytes() >= m_markThreshold)
		Mark(item, kStepMark); // false for a packet that is not ECN-capable
	return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem> StepMarkQueueDisc::DoDequeue()
{
	return GetInternalQueue(0)->Dequeue();
}

bool StepMarkQueueDisc::CheckConfig()
{
	if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0 || GetNInternalQueues() > 0) {
		NS_LOG_ERROR("StepMarkQueueDisc makes its one queue itself");
		return false;
	}
	if (GetMaxSize().GetUnit() != QueueSizeUnit::BYTES || !m_markThreshold ||
	    m_markThreshold > GetMaxSize().GetValue()) {
		NS_LOG_ERROR("StepMarkQueueDisc needs a byte limit and a threshold within it");
		return false;
	}
	AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
		"MaxSize", QueueSizeValue(GetMaxSize())));
	return true;
}

void StepMarkQueueDisc::InitializeParams() {}

} // namespace ns3
