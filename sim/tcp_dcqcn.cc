// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ns3::TcpDcqcn (see tcp_dcqcn.h for how DCQCN is mapped onto ns-3's TCP).
#include "tcp_dcqcn.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpDcqcn");
NS_OBJECT_ENSURE_REGISTERED(TcpDcqcn);

using mltcp::sim::DcqcnParams;

TypeId TcpDcqcn::GetTypeId()
{
	const DcqcnParams defaults;
	static TypeId tid =
		TypeId("ns3::TcpDcqcn")
			.SetParent<TcpMltcp>()
			.SetGroupName("Internet")
			.AddConstructor<TcpDcqcn>()
			.AddAttribute("LineRate",
				      "The rate a flow starts at and never exceeds (payload bits)",
				      DataRateValue(DataRate(10'000'000'000)),
				      MakeDataRateAccessor(&TcpDcqcn::m_line),
				      MakeDataRateChecker())
			.AddAttribute("WindowBytes",
				      "The fixed window (cwnd and ssthresh), out of the rate's way",
				      UintegerValue(1u << 20),
				      MakeUintegerAccessor(&TcpDcqcn::m_window),
				      MakeUintegerChecker<uint32_t>(1))
			.AddAttribute(
				"G", "alpha's gain g", DoubleValue(defaults.g),
				MakeDoubleAccessor(&TcpDcqcn::SetField<double, &DcqcnParams::g>,
						   &TcpDcqcn::GetField<double, &DcqcnParams::g>),
				MakeDoubleChecker<double>(0, 1))
			.AddAttribute("AlphaPeriodUs",
				      "K: alpha decays after each K us without a CNP",
				      UintegerValue(defaults.alpha_period_us),
				      MakeUintegerAccessor(
					      &TcpDcqcn::SetField<uint64_t,
								  &DcqcnParams::alpha_period_us>,
					      &TcpDcqcn::GetField<uint64_t,
								  &DcqcnParams::alpha_period_us>),
				      MakeUintegerChecker<uint64_t>(1))
			.AddAttribute(
				"TimerUs", "T: the rate increase timer's period",
				UintegerValue(defaults.timer_us),
				MakeUintegerAccessor(
					&TcpDcqcn::SetField<uint64_t, &DcqcnParams::timer_us>,
					&TcpDcqcn::GetField<uint64_t, &DcqcnParams::timer_us>),
				MakeUintegerChecker<uint64_t>(1))
			.AddAttribute(
				"ByteCounter", "B: bytes sent between rate increase events",
				UintegerValue(defaults.byte_counter),
				MakeUintegerAccessor(
					&TcpDcqcn::SetField<uint64_t, &DcqcnParams::byte_counter>,
					&TcpDcqcn::GetField<uint64_t, &DcqcnParams::byte_counter>),
				MakeUintegerChecker<uint64_t>(1))
			.AddAttribute(
				"FastRecoverySteps",
				"F: increase events of each kind in fast recovery after a cut",
				UintegerValue(defaults.fast_recovery_steps),
				MakeUintegerAccessor(
					&TcpDcqcn::SetField<uint32_t,
							    &DcqcnParams::fast_recovery_steps>,
					&TcpDcqcn::GetField<uint32_t,
							    &DcqcnParams::fast_recovery_steps>),
				MakeUintegerChecker<uint32_t>())
			.AddAttribute(
				"RateAi", "RAI: the additive increase step",
				DataRateValue(DataRate(defaults.rai_bps)),
				MakeDataRateAccessor(&TcpDcqcn::SetRate<&DcqcnParams::rai_bps>,
						     &TcpDcqcn::GetRate<&DcqcnParams::rai_bps>),
				MakeDataRateChecker())
			.AddAttribute(
				"RateHai", "RHAI: the hyper increase step",
				DataRateValue(DataRate(defaults.rhai_bps)),
				MakeDataRateAccessor(&TcpDcqcn::SetRate<&DcqcnParams::rhai_bps>,
						     &TcpDcqcn::GetRate<&DcqcnParams::rhai_bps>),
				MakeDataRateChecker())
			.AddAttribute("MinRate", "The rate a cut never goes below",
				      DataRateValue(DataRate(defaults.min_rate_bps)),
				      MakeDataRateAccessor(
					      &TcpDcqcn::SetRate<&DcqcnParams::min_rate_bps>,
					      &TcpDcqcn::GetRate<&DcqcnParams::min_rate_bps>),
				      MakeDataRateChecker())
			.AddAttribute(
				"InitialAlpha", "alpha at the first CNP",
				DoubleValue(defaults.initial_alpha),
				MakeDoubleAccessor(
					&TcpDcqcn::SetField<double, &DcqcnParams::initial_alpha>,
					&TcpDcqcn::GetField<double, &DcqcnParams::initial_alpha>),
				MakeDoubleChecker<double>(0, 1))
			.AddAttribute("CnpIntervalUs",
				      "N: the least time between two CNPs of a flow",
				      UintegerValue(defaults.cnp_interval_us),
				      MakeUintegerAccessor(
					      &TcpDcqcn::SetField<uint64_t,
								  &DcqcnParams::cnp_interval_us>,
					      &TcpDcqcn::GetField<uint64_t,
								  &DcqcnParams::cnp_interval_us>),
				      MakeUintegerChecker<uint64_t>(1));
	return tid;
}

TcpDcqcn::TcpDcqcn() = default;

// A fork (an accepted socket) takes the configuration, not the flow.
TcpDcqcn::TcpDcqcn(const TcpDcqcn &other)
    : TcpMltcp(other), m_params(other.m_params), m_line(other.m_line), m_window(other.m_window)
{
}

std::string TcpDcqcn::GetName() const
{
	return "TcpDcqcn";
}

Ptr<TcpCongestionOps> TcpDcqcn::Fork()
{
	return CopyObject<TcpDcqcn>(this);
}

// MLTCP's F for the increase, the core's for the flow's progress (1 for an
// exempt flow: plain DCQCN).
uint32_t TcpDcqcn::F() const
{
	return mltcp_f_increase(&Flow().iter, &Flow().params, BytesAcked());
}

// The reaction point's rate to the socket's pacing; the window kept fixed.
void TcpDcqcn::Apply(Ptr<TcpSocketState> tcb) const
{
	tcb->m_pacingRate = DataRate(m_rp.Rate());
	tcb->m_cWnd = m_window;
	tcb->m_cWndInfl = m_window;
	tcb->m_ssThresh = m_window;
}

void TcpDcqcn::Init(Ptr<TcpSocketState> tcb)
{
	TcpMltcp::Init(tcb);
	const uint64_t line = m_line.GetBitRate();
	const char *invalid = m_params.Invalid(line);

	NS_ABORT_MSG_IF(invalid, "TcpDcqcn: " << invalid);
	m_rp = mltcp::sim::Dcqcn(m_params, line);
	m_ackedCounted = 0;
	m_lastCnpUs = 0;
	m_cnpSeen = false;
	m_cnps = m_lossCuts = 0;
	m_ceUnacked = false;
	tcb->m_useEcn = TcpSocketState::On;
	tcb->m_pacing = true;
	tcb->m_paceInitialWindow = true;
	tcb->m_maxPacingRate = m_line;
	Apply(tcb);
}

// Entering CWR (an ECE), recovery or loss: the window stays.
uint32_t TcpDcqcn::GetSsThresh(Ptr<const TcpSocketState> tcb [[maybe_unused]],
			       uint32_t bytesInFlight [[maybe_unused]])
{
	return m_window;
}

// ns-3 still calls it in Open and Loss; the window stays fixed.
void TcpDcqcn::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked [[maybe_unused]])
{
	Apply(tcb);
}

bool TcpDcqcn::HasCongControl() const
{
	return true;
}

// A loss, taken as a CNP.
void TcpDcqcn::Cut(Ptr<TcpSocketState> tcb)
{
	Sync(tcb);
	m_rp.Cnp(NowUs(), F());
	m_lossCuts++;
	Apply(tcb);
}

void TcpDcqcn::CongestionStateSet(Ptr<TcpSocketState> tcb,
				  const TcpSocketState::TcpCongState_t newState)
{
	TcpMltcp::CongestionStateSet(tcb, newState);
	if (newState == TcpSocketState::CA_RECOVERY)
		Cut(tcb);
}

void TcpDcqcn::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
	switch (event) {
	// The receiving side: ECE on each ACK that covers a CE-marked segment.
	// ns-3 enters ECN_CE_RCVD at a CE-marked segment and echoes ECE until
	// the sender's CWR (RFC 3168); here the echo also stops at the first
	// unmarked segment once an ACK has covered the marked ones.
	case TcpSocketState::CA_EVENT_ECN_IS_CE:
		m_ceUnacked = true;
		m_lastEcnEvent = Simulator::Now();
		break;
	case TcpSocketState::CA_EVENT_ECN_NO_CE:
		m_lastEcnEvent = Simulator::Now();
		if (!m_ceUnacked && (tcb->m_ecnState == TcpSocketState::ECN_CE_RCVD ||
				     tcb->m_ecnState == TcpSocketState::ECN_SENDING_ECE))
			tcb->m_ecnState = TcpSocketState::ECN_IDLE;
		break;
	// An ACK is sent now (at once, or when the delayed-ACK timer fires,
	// which is the only time this event comes without a segment arriving
	// in the same instant): it covers the marked segments.
	case TcpSocketState::CA_EVENT_NON_DELAYED_ACK: m_ceUnacked = false; break;
	case TcpSocketState::CA_EVENT_DELAYED_ACK:
		if (Simulator::Now() != m_lastEcnEvent)
			m_ceUnacked = false;
		break;
	// The sending side: TcpMltcp's detector first (F for the new
	// iteration), then the reaction point's timers over the idle.
	case TcpSocketState::CA_EVENT_TX_START:
		TcpMltcp::CwndEvent(tcb, event);
		m_rp.Advance(NowUs(), F());
		Apply(tcb);
		break;
	case TcpSocketState::CA_EVENT_LOSS: // a retransmission timeout
		TcpMltcp::CwndEvent(tcb, event);
		Cut(tcb);
		break;
	default: TcpMltcp::CwndEvent(tcb, event); break;
	}
}

// After every ACK: the timers, the byte counter, and an ACK with ECE as a
// CNP (ns-3 leaves m_ecnState at ECN_ECE_RCVD for an ACK that advanced
// with ECE, and moves it on at the next ACK without or the next segment
// sent).
void TcpDcqcn::CongControl(Ptr<TcpSocketState> tcb,
			   const TcpRateOps::TcpRateConnection &rc [[maybe_unused]],
			   const TcpRateOps::TcpRateSample &rs [[maybe_unused]])
{
	const uint64_t now = NowUs();

	Sync(tcb);
	const uint32_t f = F();
	m_rp.Advance(now, f);
	m_rp.Sent(BytesAcked() - m_ackedCounted, f);
	m_ackedCounted = BytesAcked();
	if (tcb->m_ecnState == TcpSocketState::ECN_ECE_RCVD &&
	    (!m_cnpSeen || now - m_lastCnpUs >= m_params.cnp_interval_us)) {
		m_rp.Cnp(now, f);
		m_cnps++;
		m_cnpSeen = true;
		m_lastCnpUs = now;
	}
	Apply(tcb);
}

} // namespace ns3
