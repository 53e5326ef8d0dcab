// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// DCQCN's reaction point (RP): the sender's half of DCQCN, the congestion
// control of RoCEv2 (Zhu, Eran, Firestone, Guo, Lipshteyn, Liron, Padhye,
// Raindel, Yahia, Zhang: "Congestion Control for Large-Scale RDMA
// Deployments", SIGCOMM 2015), as a plain class: no ns-3, no clock of its
// own. The caller (ns3::TcpDcqcn, sim/tcp_dcqcn.h) says what time it is, how
// many bytes went out and when a congestion notification came; the class
// says at what rate to send. Times are microseconds, rates bits per second,
// both uint64_t; alpha is a double in [0, 1].
//
// DCQCN has three parts. The congestion point (CP) is the switch: it marks
// ECN-capable packets with a RED-like ramp on its instantaneous queue (none
// below Kmin, a probability rising linearly to Pmax at Kmax, every packet
// above; sim/port_queue_disc.h). The notification point (NP) is the
// receiver's NIC: for a flow whose packets arrive marked it sends a
// congestion notification packet (CNP) back to the sender, at most one every
// N = 50 us. The reaction point, this class, is the sender's NIC: a rate
// limiter per flow that starts at line rate and reacts to CNPs much as
// DCTCP's window reacts to marks, then climbs back as QCN's rate limiter
// does.
//
// State: the current rate RC (the rate the flow sends at), the target rate
// RT (where RC was before the last cut), and alpha, an estimate of how
// congested the path is.
//
//  - A CNP: RT = RC, RC = RC (1 - alpha / 2), alpha = (1 - g) alpha + g
//    (the paper's equation 1). The cut uses alpha before its update, so the
//    first CNP from line rate halves RC with alpha at its initial 1. The
//    increase counters and their timer restart (below).
//  - alpha decays, alpha = (1 - g) alpha, at every K us that pass without a
//    CNP (equation 2); K is above the NP's CNP interval N, so that a flow
//    still being notified does not decay.
//  - The rate increases at two kinds of events: every T us (the rate
//    increase timer) and every B bytes sent (the byte counter), both counted
//    since the last CNP. At each, the stage is chosen by those two counts
//    (including the event itself) against F (the fast-recovery steps):
//      fast recovery, both counts at most F: RC = (RT + RC) / 2, RT kept:
//        RC halves its distance to where it was before the cut;
//      additive increase, one count above F: RT += RAI, RC = (RT + RC) / 2;
//      hyper increase, both above F: RT += i RHAI with i = min(counts) - F
//        (1 at the first hyper event, growing by one each time both have
//        counted once more), RC = (RT + RC) / 2.
//    RT and RC never exceed the line rate; RC never falls below the minimum
//    rate at a cut.
//
// The rate limiter exists from a CNP until RC is back at the line rate: a
// flow starts without one, sending at line rate; the first CNP makes it
// (alpha at its initial value), and when the increases bring RC back to the
// line it is released, as QCN's reaction point (IEEE 802.1Qau) releases a
// rate limiter at line rate, and the next CNP is a first CNP again. While
// there is none, alpha stays at its initial value and nothing is counted.
// While there is one, its timers run whether the flow sends or not, so a
// flow that pauses (a training job's compute phase) comes back at line rate
// with no rate limiter, and its next phase's first CNP halves its rate. (Had
// alpha decayed through a 30 ms pause instead, to about 0.12, that cut would
// be 6%: in the simulator the ports overflowed at every phase start.)
//
// MLTCP: the increase steps, RAI and RHAI, are multiplied by F (the caller's
// mltcp_f_increase(), MLTCP_ONE units: 1.0 for exempt flows, so plain DCQCN
// is this class with F = 1). The cut is DCQCN's for every flow; only the
// increase is scaled, as MLTCP's "ai" mode scales only a window's additive
// increase (docs/research/simulated-regimes.md, "DCQCN").
//
// Parameters (DcqcnParams; every one settable), and where they come from:
//   g = 1/256, K = 55 us, N = 50 us: the paper, and the configuration of
//     the simulator its authors released (github.com/bobzhuyb/ns3-rdma,
//     mix/config.txt: DCTCP_GAIN 0.00390625, ALPHA_RESUME_INTERVAL 55,
//     CNP_INTERVAL 50);
//   F = 5, RAI = 40 Mbit/s, RHAI = 200 Mbit/s: that configuration
//     (FAST_RECOVERY_TIMES 5, RATE_AI 40Mb/s, RATE_HAI 200Mb/s);
//   T = 55 us, B = 10 MB: the values commonly cited from the paper (not
//     checked against the paper's text here; the authors' configuration
//     sets its own timer and byte counter, not checked here either);
//   minimum rate 100 Mbit/s: that simulator's MinRate default, and HPCC's
//     simulator's MIN_RATE (github.com/alibaba-edu/High-Precision-Congestion-
//     Control, mix/config_doc.txt);
//   initial alpha 1: NVIDIA ConnectX's initial_alpha_value default (1023 of
//     1024), "the value of alpha used when receiving the first CNP".
// The switch's ramp (Kmin = 5 KB, Kmax = 200 KB, Pmax = 1%) is
// sim/port_queue_disc.h's, set by the point (bench/matrix.py, DCQCN_RAMP).
#ifndef MLTCP_SIM_DCQCN_H
#define MLTCP_SIM_DCQCN_H

#include <cstdint>

namespace mltcp::sim
{

struct DcqcnParams {
	double g = 1.0 / 256;		     // alpha's gain
	uint64_t alpha_period_us = 55;	     // K
	uint64_t timer_us = 55;		     // T
	uint64_t byte_counter = 10'000'000;  // B, bytes
	uint32_t fast_recovery_steps = 5;    // F
	uint64_t rai_bps = 40'000'000;	     // additive increase step
	uint64_t rhai_bps = 200'000'000;     // hyper increase step
	uint64_t min_rate_bps = 100'000'000; // RC's floor at a cut
	double initial_alpha = 1.0;
	uint64_t cnp_interval_us = 50; // N: the NP's, applied by the caller

	// What is out of range for this line rate, or nullptr: g in (0, 1],
	// K, T, B and N positive, the initial alpha in [0, 1], the minimum
	// rate positive and at most the line rate.
	const char *Invalid(uint64_t line_bps) const;
};

class Dcqcn
{
public:
	enum class Stage { kNone, kFastRecovery, kAdditive, kHyper };

	// A flow at line rate, no CNP yet. The parameters must be valid
	// (DcqcnParams::Invalid()).
	Dcqcn(const DcqcnParams &params, uint64_t line_bps);

	// Runs the timers due by now_us: alpha's decay and the rate increase
	// timer's events, the increase steps scaled by f (MLTCP_ONE units).
	void Advance(uint64_t now_us, uint32_t f);
	// Bytes sent: the byte counter's events, scaled by f.
	void Sent(uint64_t bytes, uint32_t f);
	// A CNP at now_us (the timers due by then run first, with f).
	void Cnp(uint64_t now_us, uint32_t f);

	uint64_t Rate() const { return m_rc; }
	uint64_t TargetRate() const { return m_rt; }
	double Alpha() const { return m_alpha; }
	// The rate limiter is on (from a CNP until RC is back at the line):
	// its timers run.
	bool Active() const { return m_active; }
	// Increase events since the last CNP, of the timer and of the byte counter.
	uint64_t TimerEvents() const { return m_timerEvents; }
	uint64_t ByteEvents() const { return m_byteEvents; }
	// The stage of the last increase event (kNone: none since the last CNP).
	Stage LastStage() const { return m_stage; }

	// An increase step of step_bps scaled by MLTCP's F (MLTCP_ONE units).
	static uint64_t Scaled(uint64_t step_bps, uint32_t f);

private:
	void Increase(bool timer, uint32_t f);

	DcqcnParams m_params;
	uint64_t m_line;
	uint64_t m_rc, m_rt;
	double m_alpha;
	bool m_active = false;
	uint64_t m_timerEvents = 0, m_byteEvents = 0;
	uint64_t m_bytes = 0;	 // sent since the last byte event (or CNP)
	uint64_t m_timerDue = 0; // the next rate increase timer event
	uint64_t m_alphaDue = 0; // the next decay of alpha
	Stage m_stage = Stage::kNone;
};

} // namespace mltcp::sim

#endif // MLTCP_SIM_DCQCN_H
