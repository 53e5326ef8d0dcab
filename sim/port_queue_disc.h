// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The simulator's switch port where a point asks for more than drop-tail:
// first in, first out under one byte limit (MaxSize, the only thing that
// drops), with two options.
//  - Step marking (MarkThreshold > 0): a packet that arrives to find at least
//    that many bytes queued is marked Congestion Experienced if it is
//    ECN-capable (DCTCP's switch rule, RFC 8257 section 3.1, on the
//    instantaneous queue). One that is not, a pure ACK, is queued unmarked
//    rather than dropped, as a shared-buffer switch does below its limit.
//  - ACK priority (AckPriority): segments without payload go in a queue of
//    their own, served first, so that one direction's data never delays the
//    other direction's ACKs (issue 14's reverse-path test). It takes what a
//    switch with a strict-priority class and a classifier on TCP payload
//    length (or the sender's DSCP) does.
#ifndef MLTCP_SIM_PORT_QUEUE_DISC_H
#define MLTCP_SIM_PORT_QUEUE_DISC_H

#include "ns3/queue-disc.h"

namespace ns3
{

class PortQueueDisc : public QueueDisc
{
public:
	static TypeId GetTypeId();
	PortQueueDisc();

	static constexpr const char *kOverLimit = "Over the byte limit";
	static constexpr const char *kStepMark = "Queue at or over the marking threshold";

private:
	enum Band { kAcks, kData };

	bool DoEnqueue(Ptr<QueueDiscItem> item) override;
	Ptr<QueueDiscItem> DoDequeue() override;
	bool CheckConfig() override;
	void InitializeParams() override;
	static bool PureAck(Ptr<const QueueDiscItem> item);

	uint32_t m_markThreshold = 0; // bytes queued; 0: no marking
	bool m_ackPriority = false;
};

} // namespace ns3

#endif // MLTCP_SIM_PORT_QUEUE_DISC_H
