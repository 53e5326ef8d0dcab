// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "training_worker.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>

#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include "tcp_mltcp.h"

namespace mltcp::sim
{

using namespace ns3;

// The EF DSCP `mltcpctl ackmark` gives pure ACKs (the port's AckDscp).
constexpr uint8_t kAckmarkDscp = 46;

TrainingWorker::TrainingWorker(const trainsim::Config &config, Ptr<TcpCongestionOps> cc,
			       std::string cc_name, std::ostream &log, int64_t epoch_ns)
    : m_config(config), m_cc(cc), m_ccName(std::move(cc_name)), m_log(log), m_epochNs(epoch_ns),
      m_computeTimes(config), m_steps(trainsim::collective_schedule(config.collective, config.world,
								    config.rank, config.bytes))
{
	m_summary.job = config.job;
	m_summary.rank = config.rank;
	m_summary.world = config.world;
	m_summary.collective = std::string(trainsim::collective_name(config.collective));
	m_summary.cc = m_ccName;
	m_summary.status = "failed";
}

void TrainingWorker::Wire(uint16_t listen_port, InetSocketAddress next)
{
	m_listenPort = listen_port;
	m_next = next;
}

void TrainingWorker::StartApplication()
{
	m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
	m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_listenPort));
	m_listener->Listen();
	m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address &>(),
				      MakeCallback(&TrainingWorker::Accepted, this));

	m_send = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
	Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(m_send);
	tcp->SetCongestionControlAlgorithm(m_cc);
	if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(m_cc)) {
		mltcp->SetAppIdle(MakeCallback(&TrainingWorker::AllAcked, this));
		// Raw: the socket owns the congestion control.
		mltcp->SetTosAccess(MakeCallback(&Socket::GetIpTos, PeekPointer(m_send)),
				    MakeCallback(&Socket::SetIpTos, PeekPointer(m_send)));
	}
	tcp->TraceConnectWithoutContext("Tx", MakeCallback(&TrainingWorker::Sent, this));
	tcp->TraceConnectWithoutContext("CongState",
					MakeCallback(&TrainingWorker::StateChanged, this));
	if (m_windowTrace) {
		UintegerValue segment, ssthresh;
		m_send->GetAttribute("SegmentSize", segment);
		m_segmentSize = std::max<uint32_t>(1, static_cast<uint32_t>(segment.Get()));
		// The window's trace fires first, at connect: the ssthresh it
		// goes out with is the socket's initial one, not a zero.
		m_send->GetAttribute("InitialSlowStartThreshold", ssthresh);
		m_ssthreshBytes = static_cast<uint32_t>(ssthresh.Get());
		tcp->TraceConnectWithoutContext("CongestionWindow",
						MakeCallback(&TrainingWorker::WindowChanged, this));
		tcp->TraceConnectWithoutContext("SlowStartThreshold",
						MakeCallback(&TrainingWorker::SsthreshChanged, this));
	}
	UintegerValue size;
	m_send->GetAttribute("SndBufSize", size);
	m_sndBufSize = static_cast<uint32_t>(size.Get()); // asked at every ACK's callback
	m_send->Bind();
	m_send->Connect(m_next);
	m_send->SetSendCallback(MakeCallback(&TrainingWorker::Pump, this));
	Simulator::Schedule(m_start + MicroSeconds(m_config.offset_us) - Simulator::Now(),
			    &TrainingWorker::BeginIteration, this);
}

void TrainingWorker::Sent(Ptr<const Packet> packet, const TcpHeader &header,
			  Ptr<const TcpSocketBase>)
{
	const uint32_t seq = header.GetSequenceNumber().GetValue();

	if (!packet->GetSize())
		return;
	// Sequence space below the highest sent (modulo 2^32): sent again.
	if (static_cast<int32_t>(seq - m_highestSent) < 0)
		m_retrans++;
	else
		m_highestSent = seq + packet->GetSize();
}

void TrainingWorker::StateChanged(TcpSocketState::TcpCongState_t,
				  TcpSocketState::TcpCongState_t now)
{
	if (now == TcpSocketState::CA_LOSS)
		m_lossStates++;
	m_state = now;
	WriteWindow();
}

void TrainingWorker::WindowChanged(uint32_t, uint32_t now)
{
	m_cwndBytes = now;
	WriteWindow();
}

void TrainingWorker::SsthreshChanged(uint32_t, uint32_t now)
{
	m_ssthreshBytes = now;
	WriteWindow();
}

// One line of the window trace: when (the records' clock), the window and
// ssthresh in whole segments (ssthresh null while it is ns-3's "none yet",
// UINT32_MAX), the state by ns-3's name, and for an MLTCP flow its progress
// r and F as every listing reports them (mltcp_flow_fill_record()).
void TrainingWorker::WriteWindow() const
{
	if (!m_windowTrace)
		return;
	std::ostream &out = *m_windowTrace;
	out << "{\"t\":" << std::fixed << std::setprecision(6) << Ns(Simulator::Now()) / 1e9
	    << ",\"cwnd\":" << m_cwndBytes / m_segmentSize << ",\"ssthresh\":";
	if (m_ssthreshBytes == UINT32_MAX)
		out << "null";
	else
		out << m_ssthreshBytes / m_segmentSize;
	out << ",\"state\":\"" << TcpSocketState::TcpCongStateName[m_state] << '"';
	if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(m_cc)) {
		mltcp_flow_record rec{};
		mltcp_flow_fill_record(&rec, &mltcp->Flow(), mltcp->BytesAcked());
		out << std::setprecision(4) << ",\"r\":" << static_cast<double>(rec.r) / MLTCP_ONE
		    << ",\"f\":" << static_cast<double>(rec.f) / MLTCP_ONE;
		if (mltcp->PrioConfig().classes)
			out << ",\"dscp\":" << (m_send->GetIpTos() >> 2);
	}
	out << "}\n";
}

uint64_t TrainingWorker::Timeouts() const
{
	// ns3::TcpMltcp counts every expiry; of ns-3's own algorithms only the
	// entries into Loss are seen, which backed-off expiries do not repeat.
	if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(m_cc))
		return mltcp->Timeouts();
	return m_lossStates;
}

void TrainingWorker::StopApplication()
{
	for (Ptr<Socket> socket : { m_listener, m_send, m_recv })
		if (socket)
			socket->Close();
}

void TrainingWorker::Accepted(Ptr<Socket> socket, const Address &)
{
	m_recv = socket;
	m_recv->SetRecvCallback(MakeCallback(&TrainingWorker::Receive, this));
	// Progress priority needs the pure ACKs in the top class: the hosts'
	// ackmark marks them EF. This socket only ACKs prev's data, and prev
	// runs this worker's algorithm.
	if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(m_cc); mltcp && mltcp->PrioConfig().classes)
		m_recv->SetIpTos(kAckmarkDscp << 2);
}

void TrainingWorker::BeginIteration()
{
	m_record = trainsim::IterationRecord{};
	m_record.job = m_config.job;
	m_record.rank = m_config.rank;
	m_record.world = m_config.world;
	m_record.iteration = m_iteration;
	m_record.cc = m_ccName;
	m_record.start_ns = Ns(Simulator::Now());
	// A slot schedule (trainsim's --slot-period): the compute phase waits
	// for the iteration's slot, on a grid from iteration 0's start.
	if (m_config.slot_period_us)
		m_record.slot_ns = trainsim::iteration_slot_ns(
			Ns(m_start + MicroSeconds(m_config.offset_us)), m_config.slot_period_us,
			m_iteration);
	m_record.compute_target_us = m_computeTimes.next_us();
	m_record.retrans = m_retrans; // made a delta at the end
	const int64_t wait_ns = trainsim::slot_start_ns(m_record.slot_ns, m_record.start_ns) -
				m_record.start_ns;
	Simulator::Schedule(NanoSeconds(wait_ns) + MicroSeconds(m_record.compute_target_us),
			    &TrainingWorker::BeginCommunication, this);
}

void TrainingWorker::BeginCommunication()
{
	m_record.comm_start_ns = Ns(Simulator::Now());
	m_communicating = true;
	m_step = 0;
	BeginStep();
}

void TrainingWorker::BeginStep()
{
	m_toSend = m_steps[m_step].send_bytes;
	m_toReceive = m_steps[m_step].recv_bytes;
	m_record.bytes_sent += m_toSend;
	m_record.bytes_received += m_toReceive;
	Pump(m_send, m_send->GetTxAvailable());
	if (m_recv)
		Receive(m_recv); // what prev sent early waits in the buffer
	Advance();
}

void TrainingWorker::Pump(Ptr<Socket> socket, uint32_t)
{
	while (m_communicating && m_toSend && socket->GetTxAvailable()) {
		const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(
			{ m_toSend, socket->GetTxAvailable(), m_config.chunk_bytes }));
		const int sent = socket->Send(Create<Packet>(size));
		if (sent <= 0)
			break;
		m_toSend -= static_cast<uint64_t>(sent);
	}
	Advance();
}

void TrainingWorker::Receive(Ptr<Socket> socket)
{
	while (m_communicating && m_toReceive) {
		const uint32_t want = static_cast<uint32_t>(
			std::min<uint64_t>(m_toReceive, m_config.chunk_bytes));
		Ptr<Packet> packet = socket->Recv(want, 0);
		if (!packet || !packet->GetSize())
			break;
		m_toReceive -= packet->GetSize();
	}
	Advance();
}

// Nothing left in the send buffer: everything written has been acknowledged
// (ns-3 drops acknowledged bytes from the buffer before it runs the
// congestion control's hooks for the ACK, so at a drain this says whether
// the application has more queued).
bool TrainingWorker::AllAcked() const
{
	return m_send->GetTxAvailable() == m_sndBufSize;
}

// Moves on as far as the bytes allow: the next step, or the iteration's end
// once every step is done and everything sent is acknowledged.
void TrainingWorker::Advance()
{
	if (!m_communicating || m_toSend || m_toReceive)
		return;
	if (m_step + 1 < m_steps.size()) {
		m_step++;
		BeginStep();
		return;
	}
	if (AllAcked())
		EndIteration();
}

void TrainingWorker::EndIteration()
{
	const int64_t now = Ns(Simulator::Now());

	m_communicating = false;
	m_record.end_ns = now;
	m_record.retrans = m_retrans - m_record.retrans;
	m_log << trainsim::to_json(m_record) << '\n';
	m_summary.iteration_s.push_back((now - m_record.start_ns) / 1e9);
	m_summary.comm_s.push_back((now - m_record.comm_start_ns) / 1e9);
	m_summary.bytes_sent += m_record.bytes_sent;
	m_summary.bytes_received += m_record.bytes_received;
	m_summary.total_retrans += m_record.retrans;
	m_iteration++;
	if (!Done())
		BeginIteration(); // the next compute phase starts at this end
}

void TrainingWorker::Finish()
{
	m_summary.status = Done() ? "complete" : "failed";
	m_log << trainsim::to_json(m_summary) << '\n';
	m_log.flush();
}

} // namespace mltcp::sim
