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
// Left out: the HELLO handshake and the ring barrier (the simulation wires
// the ring itself and starts every worker at a common time), and the
// control lines, which travelled against the data.
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
	// Iteration 0 starts at this simulated time plus the offset.
	void StartIterationsAt(ns3::Time start) { m_start = start; }

	bool Done() const { return m_iteration == *m_config.iterations; }
	uint64_t Retransmissions() const { return m_retrans; }
	uint64_t Timeouts() const;
	// The congestion control of the connection it opened (its sending side).
	ns3::Ptr<ns3::TcpCongestionOps> SenderCc() const { return m_cc; }
	// Writes the summary line (status "complete" or "failed").
	void Finish();
	// Before it starts: a JSON line to out at every change of its sending
	// socket's window, ssthresh or congestion state (a point's
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
	void WindowChanged(uint32_t before, uint32_t now);
	void SsthreshChanged(uint32_t before, uint32_t now);
	void WriteWindow() const;
	void BeginIteration();
	void BeginCommunication();
	void BeginStep();
	void Pump(ns3::Ptr<ns3::Socket> socket, uint32_t available);
	void Receive(ns3::Ptr<ns3::Socket> socket);
	void Advance();
	bool AllAcked() const;
	void EndIteration();
	int64_t Ns(ns3::Time t) const { return m_epochNs + t.GetNanoSeconds(); }

	trainsim::Config m_config;
	ns3::Ptr<ns3::TcpCongestionOps> m_cc;
	std::string m_ccName;
	std::ostream &m_log;
	int64_t m_epochNs;
	trainsim::ComputeTimes m_computeTimes;
	std::vector<trainsim::Step> m_steps;

	uint16_t m_listenPort = 0;
	ns3::InetSocketAddress m_next{ ns3::Ipv4Address::GetAny(), 0 };
	ns3::Ptr<ns3::Socket> m_listener, m_send, m_recv;
	ns3::Time m_start;

	uint64_t m_iteration = 0;
	size_t m_step = 0;
	uint64_t m_toSend = 0, m_toReceive = 0;
	bool m_communicating = false;
	trainsim::IterationRecord m_record;
	trainsim::SummaryRecord m_summary;
	uint64_t m_retrans = 0, m_lossStates = 0;
	uint32_t m_sndBufSize = 0;
	uint32_t m_highestSent = 0; // for counting retransmissions

	// The window trace: the sending socket's last values, in bytes.
	std::ostream *m_windowTrace = nullptr;
	uint32_t m_segmentSize = 1;
	uint32_t m_cwndBytes = 0, m_ssthreshBytes = 0;
	ns3::TcpSocketState::TcpCongState_t m_state = ns3::TcpSocketState::CA_OPEN;
};

} // namespace mltcp::sim

#endif // MLTCP_SIM_TRAINING_WORKER_H
