// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The simulator's switch port where a point asks for more than drop-tail:
// first in, first out under one byte limit (MaxSize, the only thing that
// drops), with these options.
//  - Step marking (MarkThreshold > 0): a packet that arrives to find at least
//    that many bytes queued is marked Congestion Experienced if it is
//    ECN-capable (DCTCP's switch rule, RFC 8257 section 3.1, on the
//    instantaneous queue). One that is not, a pure ACK, is queued unmarked
//    rather than dropped, as a shared-buffer switch does below its limit.
//  - Ramp marking (RampMax > 0; DCQCN's switch, Zhu et al. SIGCOMM'15): an
//    ECN-capable packet arriving to find q bytes queued is marked with
//    probability 0 up to RampMin, RampPmax (q - RampMin) / (RampMax -
//    RampMin) between, and 1 from RampMax on: RED's ramp on the
//    instantaneous queue (no averaging), as DCQCN's switches mark. The draws
//    come from the port's own ns-3 random stream (AssignStreams(), or the
//    next automatic one: seeded by the simulation's seed and run, so per
//    repeat). One or the other marking, not both.
//  - ACK priority (AckPriority): segments without payload go in a queue of
//    their own, served first, so that one direction's data never delays the
//    other direction's ACKs (issue 14's reverse-path test). It takes what a
//    switch with a strict-priority class and a classifier on TCP payload
//    length (or the sender's DSCP) does.
//  - Training classes (TrainingDscps, design section 5 of
//    docs/research/progress-priority-design.md): the emulated switch of
//    progress priority. Bands, in the order served: pure ACKs (AckPriority,
//    and any packet of DSCP AckDscp, EF: the hosts' ackmark); the training
//    classes in strict priority among themselves, the last DSCP of the list
//    first; and best effort, every other DSCP (cubic's 0, bulk), which shares
//    the port with the training classes' aggregate by deficit round robin,
//    BestEffortWeight of the bytes while both are backlogged. A class's DSCP
//    is read from the IPv4 header. Each band marks on its own bytes queued
//    (switches' per-queue thresholds: a total would cut a high class for a
//    low class's queue); the ACK band never marks. MaxSize still holds for
//    all bands together. Without training classes the port is as above.
//    TrainingEct: ns-3 3.37's TcpSocketBase::AddSocketTags() sends a stream
//    socket's data Not-ECT whenever its TOS is nonzero (and SetIpTos()
//    cannot set the ECN bits of a stream socket), where Linux keeps ECT
//    under any DSCP; a marking point's ports, whose flows all negotiate
//    ECN, take TCP data of a training class as ECT(0) in its stead.
#ifndef MLTCP_SIM_PORT_QUEUE_DISC_H
#define MLTCP_SIM_PORT_QUEUE_DISC_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

class PortQueueDisc : public QueueDisc
{
public:
	static TypeId GetTypeId();
	PortQueueDisc();

	static constexpr const char *kOverLimit = "Over the byte limit";
	static constexpr const char *kStepMark = "Queue at or over the marking threshold";
	static constexpr const char *kRampMark = "Marked on the ramp";
	// The hosts' ackmark DSCP (EF).
	static constexpr uint8_t kEfDscp = 46;

	// Training classes configured (TrainingDscps not empty).
	size_t TrainingClasses() const { return m_dscps.size(); }
	// Bytes queued in the band a packet of this DSCP (a pure ACK or not)
	// would join, for tests and traces.
	uint32_t BandBytes(uint8_t dscp, bool pure_ack) const;

	// The ramp's random stream: uses one, returns 1.
	int64_t AssignStreams(int64_t stream);

private:
	// kData is best effort where training classes are configured; class c's
	// band is kFirstClass + c.
	enum Band { kAcks, kData, kFirstClass };
	enum Side { kTraining, kBestEffort };

	bool DoEnqueue(Ptr<QueueDiscItem> item) override;
	Ptr<QueueDiscItem> DoDequeue() override;
	bool CheckConfig() override;
	void InitializeParams() override;
	static bool PureAck(Ptr<const QueueDiscItem> item);

	bool RampMarks(uint32_t queued);
	size_t BandOf(Ptr<const QueueDiscItem> item) const;
	size_t BandFor(uint8_t dscp, bool pure_ack) const;
	Ptr<QueueDiscItem> DequeueTraining();
	Ptr<QueueDiscItem> AsEcnCapable(Ptr<QueueDiscItem> item) const;
	bool ParseDscps();
	void SetDscps(std::string text) { m_dscpText = std::move(text); }
	std::string GetDscps() const { return m_dscpText; }

	uint32_t m_markThreshold = 0; // bytes queued; 0: no marking
	uint32_t m_rampMin = 0, m_rampMax = 0; // bytes queued; RampMax 0: no ramp
	double m_rampPmax = 0.01;
	Ptr<UniformRandomVariable> m_uniform;
	bool m_ackPriority = false;

	std::string m_dscpText;	     // TrainingDscps as given
	std::vector<uint8_t> m_dscps; // class c's DSCP, c = 0 the lowest
	uint8_t m_ackDscp = kEfDscp;
	double m_beWeight = 0.1;
	bool m_trainingEct = false;
	// Deficit round robin between the training aggregate and best effort.
	std::array<uint32_t, 2> m_quantum{}, m_deficit{};
	Side m_turn = kBestEffort;
};

} // namespace ns3

#endif // MLTCP_SIM_PORT_QUEUE_DISC_H
