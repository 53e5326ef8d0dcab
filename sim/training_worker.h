// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// One worker of a simulated training job: mltcp-trainsim's worker
// (docs/trainsim.md) as an ns-3 application. It computes for the drawn time,
// runs its collective's steps (the trainsim schedule) over two TCP
// connections, one to next and one from prev, and logs each iteration as
// trainsim does, so that the bench's analysis reads a simulated run like an
// emulated one. The same rules: a step is complete when its send and its
// receive are; the iteration ends when every step is and every byte sent has
// been acknowledged; the next compute phase starts at that end, or with a
// slot schedule (trainsim's --slot-period) at the iteration's slot.
//
// The patterns (config.pattern, trainsim's --pattern) as trainsim sends them:
// the iteration is trainsim::iteration_plan()'s steps, a DDP bucket's first
// step once the compute phase has produced the bucket
// (trainsim::ready_after_us()) and the bucket before it is done, each step's
// bytes over config.sockets connections to next (and as many from prev),
// each a TCP flow with a congestion control of its own (forked from the one
// given). What the patterns model and leave out: docs/trainsim.md,
// "Patterns".
//
// Left out: the HELLO handshake and the ring barrier (the simulation wires
// the ring itself and starts every worker at a common time), and the
// control lines, which travelled against the data; with several sockets,
// the receiving end numbers prev's sockets by asking prev for their ports
// (SetPrev()) instead of the SOCKET lines.
#ifndef MLTCP_SIM_TRAINING_WORKER_H
#define MLTCP_SIM_TRAINING_WORKER_H

#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "ns3/application.h"
#include "ns3/inet-socket-address.h"
#include "ns3/socket.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"

#include "config.h"
#include "records.h"
#include "schedule.h"

namespace mltcp::sim
{

class TrainingWorker : public ns3::Application
{
public:
	// config: the trainsim worker this one is (job, rank, world, bytes,
	// compute, jitter, iterations, collective, offset, slot period, seed); cc: the
	// congestion control of the connection it opens; log: where its JSON
	// lines go; epoch_ns: added to simulated time in the records.
	TrainingWorker(const trainsim::Config &config, ns3::Ptr<ns3::TcpCongestionOps> cc,
		       std::string cc_name, std::ostream &log, int64_t epoch_ns);

	// Where it listens (prev connects) and whom it connects to (next).
	void Wire(uint16_t listen_port, ns3::InetSocketAddress next);
	// The worker that connects to this one (several sockets: which of its
	// sockets an accepted one is, by its port).
	void SetPrev(ns3::Ptr<TrainingWorker> prev) { m_prev = prev; }
	// Iteration 0 starts at this simulated time plus the offset.
	void StartIterationsAt(ns3::Time start) { m_start = start; }

	bool Done() const { return m_iteration == *m_config.iterations; }
	uint64_t Retransmissions() const { return m_retrans; }
	uint64_t Timeouts() const;
	// The congestion controls of the sockets it opened (its sending side),
	// socket 0 first.
	const std::vector<ns3::Ptr<ns3::TcpCongestionOps>> &SenderCcs() const { return m_ccs; }
	// Writes the summary line (status "complete" or "failed").
	void Finish();
	// Before it starts: a JSON line to out at every change of its sending
	// socket's (socket 0's) window, ssthresh or congestion state (a point's
	// "window_trace"). Off by default: a line per ACK.
	void TraceWindow(std::ostream &out) { m_windowTrace = &out; }

protected:
	void StartApplication() override;
	void StopApplication() override;

private:
	void Accepted(ns3::Ptr<ns3::Socket> socket, const ns3::Address &from);
	void Sent(ns3::Ptr<const ns3::Packet> packet, const ns3::TcpHeader &header,
		  ns3::Ptr<const ns3::TcpSocketBase> socket);
	void StateChanged(ns3::TcpSocketState::TcpCongState_t before,
			  ns3::TcpSocketState::TcpCongState_t now);
	void OtherStateChanged(ns3::TcpSocketState::TcpCongState_t before,
			       ns3::TcpSocketState::TcpCongState_t now);
	void WindowChanged(uint32_t before, uint32_t now);
	void SsthreshChanged(uint32_t before, uint32_t now);
	void WriteWindow() const;
	void BeginIteration();
	void BeginCompute();
	void Release(size_t message, bool last);
	void MarkStep();
	void BeginStep();
	void Pump(ns3::Ptr<ns3::Socket> socket, uint32_t available);
	void PumpSocket(size_t k);
	void Receive(ns3::Ptr<ns3::Socket> socket);
	void ReceiveSocket(size_t k);
	void Advance();
	bool AllAcked() const;
	uint16_t SendPort(size_t k) const;
	void EndIteration();
	int64_t Ns(ns3::Time t) const { return m_epochNs + t.GetNanoSeconds(); }

	trainsim::Config m_config;
	ns3::Ptr<ns3::TcpCongestionOps> m_cc;
	std::string m_ccName;
	std::ostream &m_log;
	int64_t m_epochNs;
	trainsim::ComputeTimes m_computeTimes;
	std::vector<trainsim::PlanStep> m_plan;

	uint16_t m_listenPort = 0;
	ns3::InetSocketAddress m_next{ ns3::Ipv4Address::GetAny(), 0 };
	ns3::Ptr<TrainingWorker> m_prev;
	ns3::Ptr<ns3::Socket> m_listener;
	// config.sockets each, by socket number; m_recvs fills as prev connects.
	std::vector<ns3::Ptr<ns3::Socket>> m_sends, m_recvs;
	std::vector<ns3::Ptr<ns3::TcpCongestionOps>> m_ccs;
	ns3::Time m_start;

	uint64_t m_iteration = 0;
	size_t m_step = 0;	 // the plan's step under way, or the next to begin
	bool m_inStep = false;	 // m_step has begun
	size_t m_released = 0;	 // messages the compute phase has produced
	std::vector<uint64_t> m_toSend, m_toReceive; // of the step, per socket
	std::vector<uint64_t> m_written;	     // per socket, this iteration
	bool m_communicating = false;
	trainsim::IterationRecord m_record;
	trainsim::SummaryRecord m_summary;
	uint64_t m_retrans = 0, m_lossStates = 0;
	uint32_t m_sndBufSize = 0;
	std::vector<uint32_t> m_highestSent; // per socket, for counting retransmissions

	// The window trace: the sending socket's last values, in bytes.
	std::ostream *m_windowTrace = nullptr;
	uint32_t m_segmentSize = 1;
	uint32_t m_cwndBytes = 0, m_ssthreshBytes = 0;
	ns3::TcpSocketState::TcpCongState_t m_state = ns3::TcpSocketState::CA_OPEN;
};

} // namespace mltcp::sim

#endif // MLTCP_SIM_TRAINING_WORKER_H
