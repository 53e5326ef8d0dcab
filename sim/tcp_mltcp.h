// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ns3::TcpMltcp: MLTCP as an ns-3 congestion control (TcpCongestionOps),
// a third datapath over the very core and policy the module and the BPF twin
// compile (kmod/mltcp_core.c, kmod/mltcp_policy.c). Like the module's hooks
// (kmod/tcp_mltcp.c), each method here only adapts ns-3's socket state to
// the core's calls; no rule of MLTCP is written in this directory.
//
// What ns-3 3.37 cannot give the core exactly, and what stands in for it:
//  - Windows: ns-3 keeps cwnd and ssthresh in bytes, the core in segments.
//    The model reads cwnd / segment size at each hook and writes back whole
//    segments, growing them with the kernel's tcp_slow_start() and
//    tcp_cong_avoid_ai() (sim/linux_window.h), as the module does.
//  - bytes_acked (the kernel's tp->bytes_acked): the advance of the
//    cumulative ACK, m_lastAckedSeq, summed as 64 bits.
//  - The smoothed RTT (srtt, which CUBIC reads): ns-3's own RFC 6298
//    estimate, which 3.37 passes to PktsAcked().
//  - "Window-limited" (tcp_is_cwnd_limited()): ns-3 3.37 keeps no such
//    flag; a flow is taken as window-limited when what it had in flight
//    before the ACK (m_bytesInFlight is already net of it at IncreaseWindow)
//    filled its window but for one segment.
//  - An idle application at a drain (the kernel's empty write queue): the
//    congestion control cannot see ns-3's send buffer, so the application
//    says (SetAppIdle(); mltcp-sim's workers: nothing left in the socket's
//    buffer). Without it a drain counts as idle.
//  - Slow start after idle (tcp_cwnd_restart(), RFC 2861): the kernel
//    restarts any flow's window before sending after an idle longer than
//    the RTO; ns-3 3.37 does not, so the model does it at the first
//    transmission after the idle (attribute SlowStartAfterIdle, on by
//    default as Linux's sysctl is), measuring the idle from the drain less
//    one smoothed RTT and taking the RTO as srtt + IdleRtoMin (Linux's
//    tcp_rto_min, 200 ms, unless set to a route's rto_min).
//  - Jobs: the model has no job table. Each flow latches this object's
//    parameters as the defaults of a namespace of the initial user
//    namespace (F's line unbounded, as the guest's), and its job's settings (exempt,
//    a fixed iteration size, marked) through the policy's own latching, as a
//    module flow that matched a job; marks (a marked job's step count) come
//    from the simulation through Mark().
//  - Progress priority's class (PrioClasses > 0): the core's
//    mltcp_prio_class() and mltcp_prio_move() at every ACK, at TX_START and
//    at an RTO, as the module's hooks call them (a move up may hold the
//    window). TcpCongestionOps has no
//    socket, so the application hands the model the socket's TOS to read
//    and write (SetTosAccess()). ns-3 3.37's stream sockets keep the TOS's
//    ECN bits to themselves (Socket::SetIpTos() keeps the old ones, 00) and
//    TcpSocketBase::AddSocketTags() sets ECT on a nonzero TOS where ECN is
//    on: the model writes DSCP << 2 and ECN-capable data stays so
//    (tests/sim/test_sim.py checks marks under a class). TX_START runs in
//    SendPendingData() before the segment's tags are made, so an
//    iteration's first segment carries the class of r = 0.
#ifndef MLTCP_SIM_TCP_MLTCP_H
#define MLTCP_SIM_TCP_MLTCP_H

#include <array>
#include <cstdint>
#include <string>

#include "ns3/nstime.h"
#include "ns3/tcp-congestion-ops.h"

#include "linux_window.h"
#include "mltcp_policy.h"

namespace ns3
{

class TcpMltcp : public TcpCongestionOps
{
public:
	static TypeId GetTypeId();

	TcpMltcp();
	TcpMltcp(const TcpMltcp &other);

	std::string GetName() const override;
	void Init(Ptr<TcpSocketState> tcb) override;
	uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
	void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
	void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time &rtt) override;
	void CongestionStateSet(Ptr<TcpSocketState> tcb,
				const TcpSocketState::TcpCongState_t newState) override;
	void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
	Ptr<TcpCongestionOps> Fork() override;

	// The parameters the next Init() latches (before the socket connects):
	// the defaults, as a namespace's would be. Returns false, changing
	// nothing, if they are out of range.
	bool SetParams(const mltcp_params &params);
	// mltcp_reno and mltcp_cubic fix their base (MLTCP_BASE_SELECTABLE: mltcp).
	void SetFixedBase(int base) { m_fixedBase = base; }
	// Whether the application has nothing queued to send (the kernel's
	// tcp_write_queue_empty()), asked at a drain; without it a drain
	// counts as idle.
	void SetAppIdle(Callback<bool> idle) { m_appIdle = idle; }
	// Progress priority: read and write the sending socket's IP TOS
	// (Socket::GetIpTos(), SetIpTos()). Without them no class is set.
	void SetTosAccess(Callback<uint8_t> get, Callback<void, uint8_t> set)
	{
		m_getTos = get;
		m_setTos = set;
	}
	// Progress priority's configuration (PrioClasses, PrioDscp, PrioNoneDscp).
	const mltcp_prio_config &PrioConfig() const { return m_prio; }
	// Times the model rewrote the socket's DSCP.
	uint64_t DscpChanges() const { return m_dscpChanges; }
	// Moves up held until the data in flight was acknowledged (event
	// MLTCP_PRIO_HOLD_BEGAN), and how they ended: as the core reported
	// them, indexed by enum mltcp_prio_hold (the module's prio_* counts).
	uint64_t PrioHolds() const { return m_holdEvents[MLTCP_PRIO_HOLD_BEGAN]; }
	const std::array<uint64_t, MLTCP_PRIO_HOLD_NR_EVENTS> &PrioHoldEvents() const
	{
		return m_holdEvents;
	}
	// The flow's job marked its next step (a marked flow's iteration
	// starts at its next transmission after a mark).
	void Mark();
	// Whether iterations start at marks (attribute Marked).
	bool IsMarked() const { return m_job.marked; }

	const mltcp_flow &Flow() const { return m_flow; }
	uint64_t BytesAcked() const { return m_bytesAcked; }
	// Retransmission timeouts (CA_EVENT_LOSS, one per expiry, backed off or not).
	uint64_t Timeouts() const { return m_timeouts; }

protected:
	// For models that keep TcpMltcp's detector and replace its window
	// (ns3::TcpDcqcn): reads the socket's cumulative ACK into BytesAcked()
	// (and its window into the model's, which they may ignore).
	void Sync(Ptr<const TcpSocketState> tcb);
	static uint64_t NowUs();

private:
	// The attributes, by the policy's names and parsers.
	template <mltcp_param Which> void SetText(std::string text);
	template <mltcp_param Which> std::string GetText() const;

	void Store(Ptr<TcpSocketState> tcb) const;
	void Restarted(Ptr<TcpSocketState> tcb);
	void ReductionEnded(Ptr<TcpSocketState> tcb);
	bool AppIdle() const;
	void RestartAfterIdle(Ptr<TcpSocketState> tcb, uint64_t now);
	bool Outstanding(Ptr<const TcpSocketState> tcb) const;
	uint32_t Unacked(Ptr<const TcpSocketState> tcb) const;
	uint32_t RttSampleUs(const Time &srtt);
	bool WindowLimited(Ptr<const TcpSocketState> tcb, uint32_t segmentsAcked) const;

	void SetJobField(uint32_t flag, bool given);
	void SetIterBytes(uint64_t bytes);
	uint64_t GetIterBytes() const;
	void SetExempt(bool exempt);
	bool GetExempt() const;
	void SetMarked(bool marked);
	bool GetMarked() const;
	void SetPrioClasses(uint8_t classes) { m_prio.classes = classes; }
	uint8_t GetPrioClasses() const { return m_prio.classes; }
	void SetPrioNone(uint8_t dscp) { m_prio.none_dscp = dscp; }
	uint8_t GetPrioNone() const { return m_prio.none_dscp; }
	void SetPrioDscp(std::string text);
	std::string GetPrioDscp() const;
	void UpdateClass(Ptr<TcpSocketState> tcb, uint32_t acked, uint32_t caState);

	mltcp_params m_params; // the defaults Init() latches
	mltcp_job_spec m_job;  // the flow's job's settings (fields 0: no job)
	int m_fixedBase{ MLTCP_BASE_SELECTABLE };
	bool m_slowStartAfterIdle{ true };
	// The kernel's minimum RTO (TCP_RTO_MIN), IdleRtoMin's default.
	static constexpr int64_t kLinuxRtoMinUs = 200'000;
	Time m_idleRtoMin{ MicroSeconds(kLinuxRtoMinUs) }; // IdleRtoMin: the restart's RTO floor
	mltcp_flow m_flow;	     // the core's per-flow state, as in icsk_ca_priv
	WindowModel m_window;	     // cwnd, ssthresh in segments; the AI credit
	uint64_t m_bytesAcked{ 0 };  // tp->bytes_acked
	SequenceNumber32 m_una{ 0 }; // the cumulative ACK bytes_acked was summed to
	bool m_started{ false };     // m_una is valid
	uint32_t m_srttUs{ 0 };	     // smoothed RTT, ns-3's estimate
	int64_t m_srttNs{ 0 };	     // the same, to recover each sample from it
	uint32_t m_minRttUs{ 0 };    // smallest sample (tcp_min_rtt(); 0: none yet)
	uint32_t m_marks{ 0 };	     // marks made for the flow's job
	uint64_t m_drainUs{ 0 };     // when the last ACK left nothing outstanding
	uint64_t m_timeouts{ 0 };
	Callback<bool> m_appIdle;

	mltcp_prio_config m_prio;   // classes 0: progress priority off
	bool m_prioStatic{ false }; // the control: class (PrioJob - 1) mod K
	uint32_t m_prioJob{ 0 };    // the tie's job id (0: none)
	Callback<uint8_t> m_getTos;
	Callback<void, uint8_t> m_setTos;
	uint64_t m_dscpChanges{ 0 };
	std::array<uint64_t, MLTCP_PRIO_HOLD_NR_EVENTS> m_holdEvents{};
	void CountHold(mltcp_prio_hold event);
};

} // namespace ns3

#endif // MLTCP_SIM_TCP_MLTCP_H
