// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ns3::TcpMltcp, hook by hook as kmod/tcp_mltcp.c does it (see tcp_mltcp.h
// for what stands in for the kernel's socket state).
#include "tcp_mltcp.h"

#include <algorithm>
#include <sstream>

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpMltcp");
NS_OBJECT_ENSURE_REGISTERED(TcpMltcp);

namespace
{

// An attribute's text to a parameter, by the policy's parser (the module's
// sysctls and mltcpctl read the same words); a bad value is fatal, as any
// ns-3 attribute that does not parse.
uint32_t Parse(mltcp_param which, const std::string &text)
{
	uint32_t value = 0;

	NS_ABORT_MSG_IF(mltcp_param_parse(which, text.c_str(), &value) != 0,
			"TcpMltcp: " << mltcp_param_name(which) << " " << text << ": invalid");
	return value;
}

std::string Format(mltcp_param which, uint32_t value)
{
	char buf[MLTCP_PARAM_TEXT];

	mltcp_param_format(which, value, buf, sizeof(buf));
	return buf;
}

} // namespace

// The core's congestion states are the kernel's, which ns-3's copy.
static_assert(TcpSocketState::CA_OPEN == MLTCP_CA_OPEN &&
	      TcpSocketState::CA_DISORDER == MLTCP_CA_DISORDER &&
	      TcpSocketState::CA_CWR == MLTCP_CA_CWR &&
	      TcpSocketState::CA_RECOVERY == MLTCP_CA_RECOVERY &&
	      TcpSocketState::CA_LOSS == MLTCP_CA_LOSS);

template <mltcp_param Which> void TcpMltcp::SetText(std::string text)
{
	mltcp_params next = m_params;

	mltcp_param_set(&next, Which, Parse(Which, text));
	NS_ABORT_MSG_UNLESS(mltcp_params_valid(&next), "TcpMltcp: " << text << ": out of range");
	m_params = next;
}

template <mltcp_param Which> std::string TcpMltcp::GetText() const
{
	return Format(Which, mltcp_param_get(&m_params, Which));
}

TypeId TcpMltcp::GetTypeId()
{
	mltcp_params defaults;

	mltcp_params_default(&defaults);
	static TypeId tid =
		TypeId("ns3::TcpMltcp")
			.SetParent<TcpCongestionOps>()
			.SetGroupName("Internet")
			.AddConstructor<TcpMltcp>()
			.AddAttribute("Base", "The base algorithm: reno or cubic",
				      StringValue(Format(MLTCP_PARAM_BASE, defaults.base)),
				      MakeStringAccessor(&TcpMltcp::SetText<MLTCP_PARAM_BASE>,
							 &TcpMltcp::GetText<MLTCP_PARAM_BASE>),
				      MakeStringChecker())
			.AddAttribute("Mode", "What F scales: ai, md, both, and -restart variants",
				      StringValue(Format(MLTCP_PARAM_MODE, defaults.mode)),
				      MakeStringAccessor(&TcpMltcp::SetText<MLTCP_PARAM_MODE>,
							 &TcpMltcp::GetText<MLTCP_PARAM_MODE>),
				      MakeStringChecker())
			.AddAttribute("Slope", "F's slope, a decimal",
				      StringValue(Format(MLTCP_PARAM_SLOPE, defaults.slope)),
				      MakeStringAccessor(&TcpMltcp::SetText<MLTCP_PARAM_SLOPE>,
							 &TcpMltcp::GetText<MLTCP_PARAM_SLOPE>),
				      MakeStringChecker())
			.AddAttribute(
				"Intercept", "F's intercept, a decimal",
				StringValue(Format(MLTCP_PARAM_INTERCEPT, defaults.intercept)),
				MakeStringAccessor(&TcpMltcp::SetText<MLTCP_PARAM_INTERCEPT>,
						   &TcpMltcp::GetText<MLTCP_PARAM_INTERCEPT>),
				MakeStringChecker())
			.AddAttribute(
				"IdleGapUs", "Idle time that separates iterations, microseconds",
				StringValue(Format(MLTCP_PARAM_IDLE_GAP, defaults.idle_gap_us)),
				MakeStringAccessor(&TcpMltcp::SetText<MLTCP_PARAM_IDLE_GAP>,
						   &TcpMltcp::GetText<MLTCP_PARAM_IDLE_GAP>),
				MakeStringChecker())
			.AddAttribute("IterBytes",
				      "Bytes per iteration, fixed as a job's iter-bytes fixes "
				      "them; 0: learned",
				      UintegerValue(0),
				      MakeUintegerAccessor(&TcpMltcp::SetIterBytes,
							   &TcpMltcp::GetIterBytes),
				      MakeUintegerChecker<uint64_t>(0, MLTCP_ITER_BYTES_MAX))
			.AddAttribute(
				"Exempt",
				"The base algorithm alone, as a job's exempt setting: F is "
				"1 and the window never restarts",
				BooleanValue(false),
				MakeBooleanAccessor(&TcpMltcp::SetExempt, &TcpMltcp::GetExempt),
				MakeBooleanChecker())
			.AddAttribute(
				"Marked",
				"Iterations start at the job's marks (Mark()), not at idles, "
				"as a job's marked setting",
				BooleanValue(false),
				MakeBooleanAccessor(&TcpMltcp::SetMarked, &TcpMltcp::GetMarked),
				MakeBooleanChecker())
			.AddAttribute("SlowStartAfterIdle",
				      "Restart the window after an idle longer than the RTO, as "
				      "Linux does by default (tcp_slow_start_after_idle)",
				      BooleanValue(true),
				      MakeBooleanAccessor(&TcpMltcp::m_slowStartAfterIdle),
				      MakeBooleanChecker())
			.AddAttribute("IdleRtoMin",
				      "The floor of the RTO an idle must exceed for that "
				      "restart: the kernel compares the idle with the "
				      "socket's RTO, whose floor is TCP_RTO_MIN or a route's "
				      "rto_min",
				      TimeValue(MicroSeconds(kLinuxRtoMinUs)),
				      MakeTimeAccessor(&TcpMltcp::m_idleRtoMin),
				      MakeTimeChecker(MicroSeconds(1)))
			.AddAttribute("PrioClasses",
				      "Progress priority's number of classes K (0: off), as "
				      "mltcpctl's defaults prio",
				      UintegerValue(0),
				      MakeUintegerAccessor(&TcpMltcp::SetPrioClasses,
							   &TcpMltcp::GetPrioClasses),
				      MakeUintegerChecker<uint8_t>(0, MLTCP_PRIO_CLASSES_MAX))
			.AddAttribute(
				"PrioDscp",
				"The classes' DSCPs, class 0 (the lowest) first, "
				"comma-separated; the core's defaults (CS1..CS7) for "
				"classes not given",
				StringValue("8,16,24,32,40,48,56"),
				MakeStringAccessor(&TcpMltcp::SetPrioDscp, &TcpMltcp::GetPrioDscp),
				MakeStringChecker())
			.AddAttribute("PrioNoneDscp",
				      "The DSCP a flow that loses its class returns to",
				      UintegerValue(0),
				      MakeUintegerAccessor(&TcpMltcp::SetPrioNone,
							   &TcpMltcp::GetPrioNone),
				      MakeUintegerChecker<uint8_t>(0, MLTCP_DSCP_MAX))
			.AddAttribute("PrioStatic",
				      "The control: a fixed class, (PrioJob - 1) mod K, "
				      "wherever the core gives one, instead of progress",
				      BooleanValue(false),
				      MakeBooleanAccessor(&TcpMltcp::m_prioStatic),
				      MakeBooleanChecker())
			.AddAttribute("PrioJob",
				      "The flow's job id, for the classes' tie offset "
				      "(mltcp_prio_tie()) and the static control; 0: none",
				      UintegerValue(0), MakeUintegerAccessor(&TcpMltcp::m_prioJob),
				      MakeUintegerChecker<uint32_t>());
	return tid;
}

TcpMltcp::TcpMltcp() : m_job{}, m_flow{}
{
	mltcp_params_default(&m_params);
	mltcp_prio_config_default(&m_prio);
	m_job.id = 1;
}

TcpMltcp::TcpMltcp(const TcpMltcp &other)
    : TcpCongestionOps(other), m_params(other.m_params), m_job(other.m_job),
      m_fixedBase(other.m_fixedBase), m_slowStartAfterIdle(other.m_slowStartAfterIdle),
      m_idleRtoMin(other.m_idleRtoMin), m_flow{}, m_marks(other.m_marks), m_prio(other.m_prio),
      m_prioStatic(other.m_prioStatic), m_prioJob(other.m_prioJob), m_getTos(other.m_getTos),
      m_setTos(other.m_setTos)
{
}

// PrioDscp's text: up to MLTCP_PRIO_CLASSES_MAX whole numbers; Init()
// checks the whole configuration with the core's mltcp_prio_config_valid().
void TcpMltcp::SetPrioDscp(std::string text)
{
	std::istringstream in(text);
	std::string field;
	size_t c = 0;

	while (std::getline(in, field, ',')) {
		NS_ABORT_MSG_IF(
			field.empty() || field.size() > 2 ||
				field.find_first_not_of("0123456789") != std::string::npos ||
				c == MLTCP_PRIO_CLASSES_MAX || std::stoul(field) > MLTCP_DSCP_MAX,
			"TcpMltcp: PrioDscp " << text << ": up to 7 DSCPs, whole numbers 0 to 63");
		m_prio.dscp[c++] = static_cast<uint8_t>(std::stoul(field));
	}
}

std::string TcpMltcp::GetPrioDscp() const
{
	std::ostringstream out;

	for (size_t c = 0; c < MLTCP_PRIO_CLASSES_MAX; c++)
		out << (c ? "," : "") << static_cast<unsigned>(m_prio.dscp[c]);
	return out.str();
}

// A job setting is given (its MLTCP_JOB_F_* flag set) when it is not zero,
// as mltcpctl gives it; the policy's latch reads the flags.
void TcpMltcp::SetJobField(uint32_t flag, bool given)
{
	if (given)
		m_job.fields |= flag;
	else
		m_job.fields &= ~flag;
}

void TcpMltcp::SetIterBytes(uint64_t bytes)
{
	m_job.iter_bytes = bytes;
	SetJobField(MLTCP_JOB_F_ITER_BYTES, bytes);
}

uint64_t TcpMltcp::GetIterBytes() const
{
	return m_job.iter_bytes;
}

void TcpMltcp::SetExempt(bool exempt)
{
	m_job.exempt = exempt;
	SetJobField(MLTCP_JOB_F_EXEMPT, exempt);
}

bool TcpMltcp::GetExempt() const
{
	return m_job.exempt;
}

void TcpMltcp::SetMarked(bool marked)
{
	m_job.marked = marked;
	SetJobField(MLTCP_JOB_F_MARKED, marked);
}

bool TcpMltcp::GetMarked() const
{
	return m_job.marked;
}

std::string TcpMltcp::GetName() const
{
	return "TcpMltcp";
}

Ptr<TcpCongestionOps> TcpMltcp::Fork()
{
	return CopyObject<TcpMltcp>(this);
}

bool TcpMltcp::SetParams(const mltcp_params &params)
{
	if (!mltcp_params_valid(&params))
		return false;
	m_params = params;
	return true;
}

void TcpMltcp::Mark()
{
	m_marks++;
}

uint64_t TcpMltcp::NowUs()
{
	return Simulator::Now().GetMicroSeconds();
}

// The socket's window and the cumulative ACK, read at each hook: ns-3 moves
// cwnd itself in recovery and at an RTO.
void TcpMltcp::Sync(Ptr<const TcpSocketState> tcb)
{
	const uint32_t mss = tcb->m_segmentSize;

	m_window.clamp = UINT32_MAX / mss; // cwnd is stored in bytes, 32 bits
	m_window.cwnd = std::max<uint32_t>(tcb->m_cWnd / mss, 1);
	m_window.ssthresh = std::max<uint32_t>(tcb->m_ssThresh / mss, 1);
	if (!m_started) {
		// ns-3 3.37 runs Init() before the SYN is sent (or, listening,
		// answered), so the first cumulative ACK covers the SYN's
		// sequence number, which is not data: the kernel's bytes_acked
		// leaves it out, and so does this.
		m_una = tcb->m_lastAckedSeq + 1;
		m_started = true;
	} else if (tcb->m_lastAckedSeq > m_una) {
		m_bytesAcked += tcb->m_lastAckedSeq - m_una;
		m_una = tcb->m_lastAckedSeq;
	}
}

void TcpMltcp::Store(Ptr<TcpSocketState> tcb) const
{
	tcb->m_cWnd = m_window.cwnd * tcb->m_segmentSize;
}

// Data sent and not yet cumulatively acknowledged (the kernel's packets_out
// != 0). Against the model's own m_una: ns-3 leaves m_lastAckedSeq at 0
// until the first ACK of data, so the SYN would count as outstanding.
bool TcpMltcp::Outstanding(Ptr<const TcpSocketState> tcb) const
{
	return tcb->m_highTxMark.Get() > m_una;
}

// The data sent and not yet cumulatively acknowledged, in segments
// (mltcp_unacked_segs(), as the module counts it).
uint32_t TcpMltcp::Unacked(Ptr<const TcpSocketState> tcb) const
{
	if (!Outstanding(tcb))
		return 0;
	return mltcp_unacked_segs(tcb->m_highTxMark.Get() - m_una, tcb->m_segmentSize);
}

bool TcpMltcp::WindowLimited(Ptr<const TcpSocketState> tcb, uint32_t segmentsAcked) const
{
	const uint32_t mss = tcb->m_segmentSize;
	const uint32_t before = tcb->m_bytesInFlight + segmentsAcked * mss;

	return before + mss >= tcb->m_cWnd;
}

// mltcp_init_base(): a fresh flow, latched from this object's parameters.
void TcpMltcp::Init(Ptr<TcpSocketState> tcb)
{
	m_started = false;
	m_bytesAcked = 0;
	m_srttUs = 0;
	m_srttNs = 0;
	m_minRttUs = 0;
	m_drainUs = 0;
	Sync(tcb);
	mltcp_flow_init(&m_flow, m_bytesAcked, static_cast<uint32_t>(NowUs()));
	mltcp_flow_latch(&m_flow, &m_params, m_job.fields ? &m_job : nullptr, m_fixedBase, nullptr);
	m_flow.job = m_prioJob; // the module's job id: the classes' tie
	if (m_flow.params.marked)
		m_flow.iter.marks_seen = static_cast<uint8_t>(m_marks);
	m_window.cwnd_cnt = 0;
	NS_ABORT_MSG_UNLESS(mltcp_prio_config_valid(&m_prio),
			    "TcpMltcp: PrioDscp " << GetPrioDscp() << ", PrioNoneDscp "
						  << static_cast<unsigned>(m_prio.none_dscp)
						  << ": the classes' DSCPs must differ from "
						     "each other and from PrioNoneDscp");
}

// The flow's class now, written to the socket if its DSCP differs (the
// flow keeps no class of its own: the socket's DSCP is the state); a move
// up holds the window until the data in flight is acknowledged, all but
// one MSS (mltcp_prio_move()). An exempt flow has none. The static control keeps
// the core's "no class" (an unknown size) and replaces any class by its
// job's. caState: the socket's, or CA_LOSS at an RTO (as the module passes
// it: the kernel reports the RTO before it sets the state). The segments
// in flight: m_bytesInFlight less this ACK's (acked: 0 where no ACK), at
// most what is in flight whether ns-3 updated it before the ACK was
// processed or after; a held window below what is in flight sends nothing
// either.
void TcpMltcp::UpdateClass(Ptr<TcpSocketState> tcb, uint32_t acked, uint32_t caState)
{
	if (!m_prio.classes || m_getTos.IsNull() || m_setTos.IsNull())
		return;
	uint32_t cls = mltcp_flow_prio_class(&m_flow, &m_prio, m_bytesAcked,
					     static_cast<uint32_t>(NowUs()));
	if (m_prioStatic && cls != MLTCP_PRIO_NONE)
		cls = m_prioJob ? (m_prioJob - 1) % m_prio.classes : 0;
	const uint32_t mss = tcb->m_segmentSize;
	const uint32_t inFlight = tcb->m_bytesInFlight.Get() / mss;
	const uint32_t cwnd = m_window.cwnd;
	const uint8_t tos = m_getTos();
	mltcp_prio_hold hold;
	const int dscp = mltcp_prio_move(&m_flow.iter, &m_flow.params, &m_prio, cls, tos >> 2,
					 Unacked(tcb), inFlight > acked ? inFlight - acked : 0,
					 caState, &m_window.cwnd, &hold);
	CountHold(hold);
	if (m_window.cwnd != cwnd)
		Store(tcb);
	if (dscp < 0)
		return;
	m_setTos(static_cast<uint8_t>(dscp << 2 | (tos & 3)));
	m_dscpChanges++;
}

// The module's mltcp_count_prio_hold(): what the core reported, if anything.
void TcpMltcp::CountHold(mltcp_prio_hold event)
{
	if (event != MLTCP_PRIO_HOLD_NONE)
		m_holdEvents[event]++;
}

// mltcp_cong_avoid().
void TcpMltcp::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
	const uint32_t now = static_cast<uint32_t>(NowUs());
	uint32_t acked = segmentsAcked;

	Sync(tcb);
	if (!mltcp_flow_may_grow(&m_flow, WindowLimited(tcb, segmentsAcked), now))
		return;
	if (m_window.in_slow_start()) {
		acked = m_window.slow_start(acked);
		if (!acked) {
			Store(tcb);
			return;
		}
	}
	const uint32_t f = mltcp_f_increase(&m_flow.iter, &m_flow.params, m_bytesAcked);
	const uint32_t w = mltcp_flow_ai_w(&m_flow, f, m_window.cwnd, acked, now, m_srttUs);

	m_window.additive_increase(w, acked);
	Store(tcb);
}

// mltcp_ssthresh(): in segments, as the kernel's hook returns it.
uint32_t TcpMltcp::GetSsThresh(Ptr<const TcpSocketState> tcb,
			       uint32_t bytesInFlight [[maybe_unused]])
{
	Sync(tcb);
	const uint32_t f = mltcp_f_decrease(&m_flow.iter, &m_flow.params, m_bytesAcked);
	mltcp_prio_hold hold;
	const uint32_t ssthresh =
		mltcp_flow_ssthresh(&m_flow, f, m_window.cwnd, m_window.ssthresh, &hold);

	CountHold(hold);
	return ssthresh * tcb->m_segmentSize;
}

// The ACK's RTT sample (0: none), which ns-3 3.37 does not pass: it passes
// the smoothed estimate after the sample (RttMeanDeviation, gain 1/8), and
// its m_minRtt is the smallest estimate, not the smallest sample. The sample
// is the estimate's step times 8 (exact to 8 ns). An ACK without a sample
// leaves the estimate as it was, and so does a sample equal to it: both
// read as none, as the kernel's rtt_us of -1. The minimum is the flow's
// whole life's (the kernel's is over tcp_min_rtt_wlen, 300 s).
uint32_t TcpMltcp::RttSampleUs(const Time &srtt)
{
	const int64_t now = srtt.GetNanoSeconds();
	const int64_t sample = m_srttNs ? m_srttNs + 8 * (now - m_srttNs) : now;

	if (now == m_srttNs)
		return 0;
	m_srttNs = now;
	m_srttUs = static_cast<uint32_t>(now / 1000);
	const uint32_t us = sample > 1000 ? static_cast<uint32_t>(sample / 1000) : 1;
	if (!m_minRttUs || us < m_minRttUs)
		m_minRttUs = us;
	return us;
}

// mltcp_pkts_acked(): a drain may begin an idle; a held window may open.
// CUBIC reads the smoothed RTT (RFC 6298, as the kernel's srtt).
void TcpMltcp::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked,
			 const Time &rtt)
{
	Sync(tcb);
	const uint32_t sample = rtt.IsStrictlyPositive() ? RttSampleUs(rtt) : 0;
	if (!Outstanding(tcb)) {
		mltcp_prio_hold hold;

		m_drainUs = NowUs();
		if (mltcp_flow_drained(&m_flow, m_drainUs, AppIdle(), m_bytesAcked, tcb->m_congState,
				       mltcp_init_cwnd(tcb->m_initialCWnd, UINT32_MAX),
				       &m_window.cwnd, &m_window.ssthresh, &hold))
			Restarted(tcb);
		CountHold(hold);
	}
	if (mltcp_gated(&m_flow.iter) &&
	    mltcp_gate_on_ack(&m_flow.iter, sample, m_minRttUs, static_cast<uint32_t>(NowUs()),
			      mltcp_init_cwnd(tcb->m_initialCWnd, UINT32_MAX),
			      &m_window.cwnd) != MLTCP_GATE_HOLD)
		Store(tcb);
	UpdateClass(tcb, segmentsAcked, tcb->m_congState);
}

// Whether the application has nothing unsent (the module's tcp_write_queue_empty()).
bool TcpMltcp::AppIdle() const
{
	return m_appIdle.IsNull() || m_appIdle();
}

// The module's mltcp_restarted(): a restart's window and ssthresh into the socket.
void TcpMltcp::Restarted(Ptr<TcpSocketState> tcb)
{
	Store(tcb);
	tcb->m_ssThresh = m_window.ssthresh * tcb->m_segmentSize;
}

// The module's mltcp_reduction_ended(): the restart a drain in a reduction could not make.
void TcpMltcp::ReductionEnded(Ptr<TcpSocketState> tcb)
{
	Sync(tcb);
	if (mltcp_flow_reopened(&m_flow, !Outstanding(tcb) && AppIdle(), m_bytesAcked,
				mltcp_init_cwnd(tcb->m_initialCWnd, UINT32_MAX), &m_window.cwnd,
				&m_window.ssthresh))
		Restarted(tcb);
}

// mltcp_set_state(); tcb->m_congState is still the state the flow leaves.
void TcpMltcp::CongestionStateSet(Ptr<TcpSocketState> tcb,
				  const TcpSocketState::TcpCongState_t newState)
{
	// A reduction starts (tcp_init_cwnd_reduction(), tcp_enter_loss()):
	// the additive-increase credit goes.
	if (newState >= TcpSocketState::CA_CWR)
		m_window.cwnd_cnt = 0;
	if (newState == TcpSocketState::CA_LOSS)
		mltcp_cubic_reset(&m_flow.cubic);
	if (newState == TcpSocketState::CA_OPEN && tcb->m_congState == TcpSocketState::CA_LOSS)
		ReductionEnded(tcb);
}

// What the kernel does before the congestion control hears of sending after
// an idle (tcp_slow_start_after_idle_check(), ns-3 3.37 has no such
// restart): an idle longer than the RTO restarts the window
// (tcp_cwnd_restart()). The kernel measures the idle from the last segment
// sent, about one smoothed RTT before the ACK that drained the flow, and its
// RTO is at least srtt plus the minimum (tcp_rto_min, 200 ms, or a route's
// rto_min: IdleRtoMin): both as estimated here.
void TcpMltcp::RestartAfterIdle(Ptr<TcpSocketState> tcb, uint64_t now)
{
	const uint64_t last_sent = m_drainUs > m_srttUs ? m_drainUs - m_srttUs : 0;
	const uint64_t rto = m_srttUs + static_cast<uint64_t>(m_idleRtoMin.GetMicroSeconds());

	if (!m_slowStartAfterIdle || !m_drainUs || now - last_sent <= rto)
		return;
	m_window.restart_after_idle(mltcp_init_cwnd(tcb->m_initialCWnd, UINT32_MAX),
				    now - last_sent, rto,
				    tcb->m_congState == TcpSocketState::CA_CWR ||
					    tcb->m_congState == TcpSocketState::CA_RECOVERY);
	Store(tcb);
	tcb->m_ssThresh = m_window.ssthresh * tcb->m_segmentSize;
}

// mltcp_cwnd_event(): sending resumed; a new iteration may restart the window.
void TcpMltcp::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
	if (event == TcpSocketState::CA_EVENT_LOSS) {
		// A flow starved of ACKs still climbs by aging at its RTOs.
		m_timeouts++;
		Sync(tcb);
		UpdateClass(tcb, 0, TcpSocketState::CA_LOSS);
	}
	if (event == TcpSocketState::CA_EVENT_COMPLETE_CWR)
		ReductionEnded(tcb);
	if (event != TcpSocketState::CA_EVENT_TX_START)
		return;
	const uint64_t now = NowUs();

	Sync(tcb);
	const bool outstanding = Outstanding(tcb);
	if (!outstanding)
		RestartAfterIdle(tcb, now);
	const mltcp_tx_verdict verdict = mltcp_on_tx_start(
		&m_flow.iter, &m_flow.params, m_bytesAcked, now,
		tcb->m_congState >= TcpSocketState::CA_RECOVERY, outstanding, m_marks);
	if (mltcp_disarm(&m_flow.iter, &m_flow.params, verdict, &m_window.cwnd))
		Store(tcb);
	if (verdict == MLTCP_TX_NEW_ITERATION &&
	    mltcp_restart_window(&m_flow.iter, &m_flow.params, tcb->m_congState,
				 mltcp_init_cwnd(tcb->m_initialCWnd, UINT32_MAX), &m_window.cwnd,
				 &m_window.ssthresh))
		Restarted(tcb);
	mltcp_cubic_pause(&m_flow.cubic, static_cast<uint32_t>(now));
	// After the verdict: a new iteration's first segment carries r = 0's class.
	UpdateClass(tcb, 0, tcb->m_congState);
}

} // namespace ns3
