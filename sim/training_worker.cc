// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "training_worker.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>

#include "ns3/abort.h"
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
      m_computeTimes(config), m_plan(trainsim::iteration_plan(config)),
      m_toSend(config.sockets), m_toReceive(config.sockets), m_written(config.sockets),
      m_highestSent(config.sockets)
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

namespace
{

// The application-idle test of socket k's congestion control: nothing left
// in its send buffer (TrainingWorker::AllAcked()).
bool TxEmpty(Ptr<Socket> socket, uint32_t size)
{
	return socket->GetTxAvailable() == size;
}

} // namespace

// Sending socket k's local port: with several sockets, prev's accepting end
// numbers them by it.
uint16_t TrainingWorker::SendPort(size_t k) const
{
	Address name;
	m_sends.at(k)->GetSockName(name);
	return InetSocketAddress::ConvertFrom(name).GetPort();
}

void TrainingWorker::StartApplication()
{
	m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
	m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_listenPort));
	m_listener->Listen();
	m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address &>(),
				      MakeCallback(&TrainingWorker::Accepted, this));
	m_recvs.assign(m_config.sockets, nullptr);

	for (size_t k = 0; k < m_config.sockets; k++) {
		Ptr<Socket> send = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
		Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(send);
		// Each socket a flow of its own, with state of its own.
		Ptr<TcpCongestionOps> cc = k == 0 ? m_cc : m_cc->Fork();
		tcp->SetCongestionControlAlgorithm(cc);
		UintegerValue size;
		send->GetAttribute("SndBufSize", size);
		m_sndBufSize = static_cast<uint32_t>(size.Get()); // asked at every ACK's callback
		if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(cc)) {
			mltcp->SetAppIdle(MakeBoundCallback(&TxEmpty, send, m_sndBufSize));
			// Raw: the socket owns the congestion control.
			mltcp->SetTosAccess(MakeCallback(&Socket::GetIpTos, PeekPointer(send)),
					    MakeCallback(&Socket::SetIpTos, PeekPointer(send)));
		}
		tcp->TraceConnectWithoutContext("Tx", MakeCallback(&TrainingWorker::Sent, this));
		tcp->TraceConnectWithoutContext(
			"CongState", MakeCallback(k == 0 ? &TrainingWorker::StateChanged
							 : &TrainingWorker::OtherStateChanged,
						  this));
		if (m_windowTrace && k == 0) {
			UintegerValue segment, ssthresh;
			send->GetAttribute("SegmentSize", segment);
			m_segmentSize = std::max<uint32_t>(1, static_cast<uint32_t>(segment.Get()));
			// The window's trace fires first, at connect: the ssthresh it
			// goes out with is the socket's initial one, not a zero.
			send->GetAttribute("InitialSlowStartThreshold", ssthresh);
			m_ssthreshBytes = static_cast<uint32_t>(ssthresh.Get());
			tcp->TraceConnectWithoutContext(
				"CongestionWindow", MakeCallback(&TrainingWorker::WindowChanged, this));
			tcp->TraceConnectWithoutContext(
				"SlowStartThreshold",
				MakeCallback(&TrainingWorker::SsthreshChanged, this));
		}
		send->Bind();
		send->Connect(m_next);
		send->SetSendCallback(MakeCallback(&TrainingWorker::Pump, this));
		m_sends.push_back(send);
		m_ccs.push_back(cc);
	}
	Simulator::Schedule(m_start + MicroSeconds(m_config.offset_us) - Simulator::Now(),
			    &TrainingWorker::BeginIteration, this);
}

void TrainingWorker::Sent(Ptr<const Packet> packet, const TcpHeader &header,
			  Ptr<const TcpSocketBase> socket)
{
	const uint32_t seq = header.GetSequenceNumber().GetValue();
	const auto k = static_cast<size_t>(
		std::find(m_sends.begin(), m_sends.end(), socket) - m_sends.begin());

	if (!packet->GetSize() || k == m_sends.size())
		return;
	// Sequence space below the highest sent (modulo 2^32): sent again.
	if (static_cast<int32_t>(seq - m_highestSent[k]) < 0)
		m_retrans++;
	else
		m_highestSent[k] = seq + packet->GetSize();
}

void TrainingWorker::StateChanged(TcpSocketState::TcpCongState_t,
				  TcpSocketState::TcpCongState_t now)
{
	if (now == TcpSocketState::CA_LOSS)
		m_lossStates++;
	m_state = now;
	WriteWindow();
}

void TrainingWorker::OtherStateChanged(TcpSocketState::TcpCongState_t,
				       TcpSocketState::TcpCongState_t now)
{
	if (now == TcpSocketState::CA_LOSS)
		m_lossStates++;
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
			out << ",\"dscp\":" << (m_sends[0]->GetIpTos() >> 2);
	}
	out << "}\n";
}

uint64_t TrainingWorker::Timeouts() const
{
	// ns3::TcpMltcp counts every expiry; of ns-3's own algorithms only the
	// entries into Loss are seen, which backed-off expiries do not repeat.
	if (!DynamicCast<TcpMltcp>(m_cc))
		return m_lossStates;
	uint64_t timeouts = 0;
	for (const Ptr<TcpCongestionOps> &cc : m_ccs)
		timeouts += DynamicCast<TcpMltcp>(cc)->Timeouts();
	return timeouts;
}

void TrainingWorker::StopApplication()
{
	if (m_listener)
		m_listener->Close();
	for (auto *sockets : { &m_sends, &m_recvs })
		for (const Ptr<Socket> &socket : *sockets)
			if (socket)
				socket->Close();
}

void TrainingWorker::Accepted(Ptr<Socket> socket, const Address &from)
{
	// Prev's socket k, found by its port; with one socket, the one.
	size_t k = 0;
	if (m_config.sockets > 1) {
		const uint16_t port = InetSocketAddress::ConvertFrom(from).GetPort();
		NS_ABORT_MSG_IF(!m_prev, "several sockets need the worker's prev (SetPrev())");
		while (k < m_config.sockets && m_prev->SendPort(k) != port)
			k++;
		NS_ABORT_MSG_IF(k == m_config.sockets || m_recvs[k],
				"a connection from a port that is no socket of prev's");
	}
	m_recvs[k] = socket;
	socket->SetRecvCallback(MakeCallback(&TrainingWorker::Receive, this));
	// Progress priority needs the pure ACKs in the top class: the hosts'
	// ackmark marks them EF. This socket only ACKs prev's data, and prev
	// runs this worker's algorithm.
	if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(m_cc); mltcp && mltcp->PrioConfig().classes)
		socket->SetIpTos(kAckmarkDscp << 2);
	if (m_communicating)
		ReceiveSocket(k);
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
	Simulator::Schedule(NanoSeconds(wait_ns), &TrainingWorker::BeginCompute, this);
}

// The compute phase begins: each message is released when the compute phase
// has produced it (trainsim::ready_after_us()), the last at its end.
void TrainingWorker::BeginCompute()
{
	m_step = 0;
	m_inStep = false;
	m_released = 0;
	std::fill(m_written.begin(), m_written.end(), 0);
	for (size_t step = 0; step < m_plan.size(); step++) {
		const trainsim::PlanStep &planned = m_plan[step];
		if (step > 0 && planned.message == m_plan[step - 1].message)
			continue;
		const uint64_t after_us = trainsim::ready_after_us(
			m_record.compute_target_us, planned.ready_bytes, m_config.bytes);
		Simulator::Schedule(MicroSeconds(after_us), &TrainingWorker::Release, this,
				    planned.message, planned.ready_bytes == m_config.bytes);
	}
}

void TrainingWorker::Release(size_t message, bool last)
{
	const int64_t now = Ns(Simulator::Now());

	if (message == 0) {
		m_communicating = true;
		MarkStep();
		if (m_config.pattern != trainsim::Pattern::burst)
			m_record.first_send_ns = now;
	}
	if (last)
		m_record.comm_start_ns = now; // the compute phase ends
	m_released = message + 1;
	if (!m_inStep && m_step < m_plan.size() && m_plan[m_step].message < m_released)
		BeginStep();
}

// A marked job's mark, made where the DDP hook makes it: before the
// iteration's first byte is written, on every flow the worker sends on (each
// TcpMltcp keeps the count its host's job would).
void TrainingWorker::MarkStep()
{
	for (const Ptr<TcpCongestionOps> &cc : m_ccs)
		if (Ptr<TcpMltcp> mltcp = DynamicCast<TcpMltcp>(cc); mltcp && mltcp->IsMarked())
			mltcp->Mark();
}

void TrainingWorker::BeginStep()
{
	const trainsim::PlanStep &step = m_plan[m_step];

	m_inStep = true;
	m_toSend = step.send;
	m_toReceive = step.recv;
	for (size_t k = 0; k < m_config.sockets; k++) {
		m_record.bytes_sent += step.send[k];
		m_record.bytes_received += step.recv[k];
		m_written[k] += step.send[k];
	}
	for (size_t k = 0; k < m_config.sockets; k++) {
		PumpSocket(k);
		if (m_recvs[k])
			ReceiveSocket(k); // what prev sent early waits in the buffer
	}
	Advance();
}

void TrainingWorker::Pump(Ptr<Socket> socket, uint32_t)
{
	const auto k =
		static_cast<size_t>(std::find(m_sends.begin(), m_sends.end(), socket) - m_sends.begin());
	if (k < m_sends.size())
		PumpSocket(k);
	Advance();
}

void TrainingWorker::PumpSocket(size_t k)
{
	const Ptr<Socket> &socket = m_sends[k];
	while (m_communicating && m_toSend[k] && socket->GetTxAvailable()) {
		const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(
			{ m_toSend[k], socket->GetTxAvailable(), m_config.chunk_bytes }));
		const int sent = socket->Send(Create<Packet>(size));
		if (sent <= 0)
			break;
		m_toSend[k] -= static_cast<uint64_t>(sent);
	}
}

void TrainingWorker::Receive(Ptr<Socket> socket)
{
	const auto k =
		static_cast<size_t>(std::find(m_recvs.begin(), m_recvs.end(), socket) - m_recvs.begin());
	if (k < m_recvs.size())
		ReceiveSocket(k);
	Advance();
}

void TrainingWorker::ReceiveSocket(size_t k)
{
	const Ptr<Socket> &socket = m_recvs[k];
	while (m_communicating && m_toReceive[k]) {
		const uint32_t want = static_cast<uint32_t>(
			std::min<uint64_t>(m_toReceive[k], m_config.chunk_bytes));
		Ptr<Packet> packet = socket->Recv(want, 0);
		if (!packet || !packet->GetSize())
			break;
		m_toReceive[k] -= packet->GetSize();
	}
}

// Nothing left in any send buffer: everything written has been acknowledged
// (ns-3 drops acknowledged bytes from the buffer before it runs the
// congestion control's hooks for the ACK, so at a drain this says whether
// the application has more queued).
bool TrainingWorker::AllAcked() const
{
	for (const Ptr<Socket> &socket : m_sends)
		if (!TxEmpty(socket, m_sndBufSize))
			return false;
	return true;
}

// Moves on as far as the bytes allow: the next step (once its message is
// released), or the iteration's end once every step is done and everything
// sent is acknowledged.
void TrainingWorker::Advance()
{
	if (!m_communicating || !m_inStep)
		return;
	for (size_t k = 0; k < m_config.sockets; k++)
		if (m_toSend[k] || m_toReceive[k])
			return;
	if (m_step + 1 < m_plan.size()) {
		m_step++;
		m_inStep = false;
		if (m_plan[m_step].message < m_released)
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
	m_inStep = false;
	m_record.end_ns = now;
	m_record.retrans = m_retrans - m_record.retrans;
	if (m_config.pattern != trainsim::Pattern::burst)
		m_record.socket_bytes = m_written; // all acknowledged by now
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
