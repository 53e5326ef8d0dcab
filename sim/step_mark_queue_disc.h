// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The data-center switch port of the simulator's ECN points: first in, first
// out, a byte limit, and step marking. A packet that arrives to find at least
// MarkThreshold bytes queued is marked Congestion Experienced if it is
// ECN-capable (DCTCP's switch rule, RFC 8257 section 3.1, on the
// instantaneous queue); one that is not (a pure ACK) is queued unmarked
// rather than dropped, as a shared-buffer switch does below its limit. Only
// the limit (MaxSize) drops.
#ifndef MLTCP_SIM_STEP_MARK_QUEUE_DISC_H
#define MLTCP_SIM_STEP_MARK_QUEUE_DISC_H

#include "ns3/queue-disc.h"

namespace ns3
{

class StepMarkQueueDisc : public QueueDisc
{
public:
	static TypeId GetTypeId();
	StepMarkQueueDisc();

	static constexpr const char *kOverLimit = "Over the byte limit";
	static constexpr const char *kStepMark = "Queue at or over the marking threshold";

private:
	bool DoEnqueue(Ptr<QueueDiscItem> item) override;
	Ptr<QueueDiscItem> DoDequeue() override;
	bool CheckConfig() override;
	void InitializeParams() override;

	uint32_t m_markThreshold = 0; // bytes queued
};

} // namespace ns3

#endif // MLTCP_SIM_STEP_MARK_QUEUE_DISC_H
