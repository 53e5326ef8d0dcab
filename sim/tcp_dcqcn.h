// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ns3::TcpDcqcn: a rate-based DCQCN sender (sim/dcqcn.h's reaction point) on
// ns-3 3.37's TCP, with MLTCP's F scaling its rate increase. It derives from
// ns3::TcpMltcp and keeps, hook for hook, TcpMltcp's iteration detector,
// bytes acked and drain / TX_START handling (so F is the core's, for the
// flow's progress through its iteration); what it replaces is the window.
//
// How DCQCN is mapped onto a TCP socket:
//  - The rate: the socket paces (TcpSocketState m_pacing, m_pacingRate) at
//    the reaction point's current rate RC. HasCongControl() is true, so
//    TcpSocketBase::UpdatePacingRate() leaves the rate alone (it returns
//    early for such algorithms) and recovery's PRR never runs; the rate is
//    set after every ACK (CongControl()) and at every start of sending
//    (CA_EVENT_TX_START, which runs the timers over an idle).
//  - The window is kept out of the way: fixed at WindowBytes (mltcp-sim sets
//    twice what the path holds at line rate, its base BDP plus a full port,
//    so that the rate, not the window, governs until packets are already
//    being dropped). ssthresh is the same, so leaving recovery (cwnd =
//    ssthresh) keeps it; an RTO's one-segment window is put back at the next
//    transmission or ACK, and what the RTO marked lost goes out again at RC
//    (as RoCE's go-back-N does).
//  - The CNP: DCQCN's notification point sends a CNP when a CE-marked packet
//    arrived, at most one per N = 50 us per flow. Here it is an ACK carrying
//    ECE: flows negotiate ECN (RFC 3168 negotiation, m_useEcn On), the
//    receiver echoes ECE on each ACK that covers a CE-marked segment and on
//    no other (this class, as the receiving socket's congestion control, in
//    CwndEvent()), and the sender takes an ACK with ECE as a CNP when 50 us
//    have passed since the last one it took. So the CNP comes with the ACK:
//    it takes the reverse path a NIC's CNP takes, but later by the
//    receiver's delayed-ACK hold (a NIC sends at once) and, unless the port
//    serves ACKs first ("ack_priority", as RoCE fabrics put CNPs in the top
//    class), behind the other direction's data. ns-3's own ECN response (the CWR
//    state) runs beside it and changes nothing: GetSsThresh() returns the
//    fixed window. ECN's "DctcpEcn" mode is not used: in ns-3 3.37 all it
//    changes is that pure ACKs become ECN-capable (and then marked at the
//    ports, sim/port_queue_disc.h); the per-packet echo is the receiver
//    congestion control's (TcpDctcp's, and this class's), and CNPs are not
//    marked either.
//  - A loss counts as a CNP: entering recovery and each retransmission
//    timeout cut the rate as a CNP does (not subject to the 50 us interval,
//    which is the notification point's). ns-3 3.37 does not enter recovery
//    from CWR (an ECE's state): a loss found there is retransmitted from the
//    SACK scoreboard without a state change, so it cuts nothing of its own;
//    the ECEs that put the flow in CWR are cutting the rate then.
//  - Bytes sent (DCQCN's byte counter) are counted as they are acknowledged:
//    one RTT late, a window's worth at most, against B = 10 MB.
//  - RoCE fabrics are lossless (PFC pauses a port before its buffer
//    overflows); ours drop at the port's limit, and TCP recovers the loss
//    (SACK, fast retransmit, RTOs). A DCQCN flow here loses packets where a
//    RoCE flow would be paused.
//
// The receiving side: mltcp-sim makes every socket of a DCQCN point's hosts
// a TcpDcqcn (TcpL4Protocol's SocketType), so that the accepted socket
// echoes ECE per marked segment; it sends only ACKs, so nothing else of it
// matters.
#ifndef MLTCP_SIM_TCP_DCQCN_H
#define MLTCP_SIM_TCP_DCQCN_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include "dcqcn.h"
#include "tcp_mltcp.h"

namespace ns3
{

class TcpDcqcn : public TcpMltcp
{
public:
	static TypeId GetTypeId();

	TcpDcqcn();
	TcpDcqcn(const TcpDcqcn &other);

	std::string GetName() const override;
	void Init(Ptr<TcpSocketState> tcb) override;
	uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
	void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
	void CongestionStateSet(Ptr<TcpSocketState> tcb,
				const TcpSocketState::TcpCongState_t newState) override;
	void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
	bool HasCongControl() const override;
	void CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection &rc,
			 const TcpRateOps::TcpRateSample &rs) override;
	Ptr<TcpCongestionOps> Fork() override;

	// The reaction point's parameters (before the socket connects; also
	// its attributes).
	void SetRpParams(const mltcp::sim::DcqcnParams &params) { m_params = params; }
	const mltcp::sim::DcqcnParams &RpParams() const { return m_params; }

	// The reaction point: its rate, target rate and alpha.
	const mltcp::sim::Dcqcn &ReactionPoint() const { return m_rp; }
	// ACKs with ECE taken as CNPs (one per CNP interval at most).
	uint64_t Cnps() const { return m_cnps; }
	// Rate cuts: the CNPs and the losses (recovery, RTOs).
	uint64_t RateCuts() const { return m_cnps + m_lossCuts; }

private:
	// The attributes: fields of the parameters.
	template <typename T, T mltcp::sim::DcqcnParams::*Field> void SetField(T value)
	{
		m_params.*Field = value;
	}
	template <typename T, T mltcp::sim::DcqcnParams::*Field> T GetField() const
	{
		return m_params.*Field;
	}
	template <uint64_t mltcp::sim::DcqcnParams::*Field> void SetRate(DataRate rate)
	{
		m_params.*Field = rate.GetBitRate();
	}
	template <uint64_t mltcp::sim::DcqcnParams::*Field> DataRate GetRate() const
	{
		return DataRate(m_params.*Field);
	}

	uint32_t F() const;
	void Cut(Ptr<TcpSocketState> tcb);
	void Apply(Ptr<TcpSocketState> tcb) const;

	mltcp::sim::DcqcnParams m_params;
	DataRate m_line{ 10'000'000'000 }; // the rate the flow starts at and never exceeds
	uint32_t m_window{ 1u << 20 };	   // cwnd and ssthresh, bytes
	mltcp::sim::Dcqcn m_rp{ mltcp::sim::DcqcnParams{}, 10'000'000'000 };
	uint64_t m_ackedCounted{ 0 }; // BytesAcked() given to the byte counter
	uint64_t m_lastCnpUs{ 0 };
	bool m_cnpSeen{ false };
	uint64_t m_cnps{ 0 }, m_lossCuts{ 0 };
	// The receiving side: a CE-marked segment not yet covered by an ACK.
	bool m_ceUnacked{ false };
	Time m_lastEcnEvent;
};

} // namespace ns3

#endif // MLTCP_SIM_TCP_DCQCN_H
