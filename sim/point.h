// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// A bench point's configuration (bench/matrix.py, bench/rundir.py's
// config.json) as the simulator reads it: the same keys the guest's driver
// reads, refused with a one-line reason where the simulator cannot run them.
#ifndef MLTCP_SIM_POINT_H
#define MLTCP_SIM_POINT_H

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config.h"	// mltcp-trainsim's Collective
#include "mltcp_core.h" // mltcp_params

namespace mltcp::sim
{

// A configuration the simulator cannot run: what() is one line.
struct PointError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

struct Job {
	std::string name;
	// The leaf-spine fabric: the hosts (0 .. leaves * hosts_per_leaf - 1,
	// leaf after leaf) of worker 0 and worker 1.
	std::array<unsigned, 2> hosts{};
	uint64_t bytes = 0; // per iteration, each direction (as mltcp-trainsim's --bytes)
	uint64_t compute_us = 0;
	uint64_t offset_us = 0;
	uint64_t jitter_us = 0;
	trainsim::Collective collective = trainsim::Collective::exchange;
	// Workers: 2, or a ring of more, placed as the guest's driver places
	// them (even ranks on worker 0's host, odd on worker 1's).
	unsigned ranks = 2;
	// How an iteration goes out (trainsim's --pattern, --sockets, --bucket,
	// --first-bucket; keys "pattern", "sockets", "bucket_bytes",
	// "first_bucket_bytes"), as trainsim's parser left them.
	trainsim::Pattern pattern = trainsim::Pattern::burst;
	unsigned sockets = 1;
	uint64_t bucket_bytes = trainsim::default_bucket_bytes;
	uint64_t first_bucket_bytes = trainsim::default_first_bucket_bytes;
};

// How a flow's congestion control is made in ns-3.
enum class CcKind {
	mltcp, // ns3::TcpMltcp with the algorithm's parameters
	base,  // ns3::TcpMltcp exempt: the base algorithm alone (F = 1, no restart)
	ns3,   // one of ns-3's own (ns3_type)
	dcqcn, // ns3::TcpDcqcn: plain DCQCN (exempt), or with MLTCP's F ("ai")
};

// The oracle's slot schedule (bench/oracle.py computes it, the algorithm's
// "slots" carries it): every job's iteration n computes no earlier than
// iteration 0's start + n * period_us, iteration 0 starting at the job's
// offset (mltcp-trainsim's --slot-period and --offset).
struct Slots {
	uint64_t period_us = 0;
	std::map<std::string, uint64_t> offsets_us; // every job's, by name
};

struct Algorithm {
	std::string name; // as the configuration names it (the run directory's)
	std::string cc;	  // as the configuration names it ("cubic", "mltcp", ...)
	CcKind kind = CcKind::mltcp;
	mltcp_params params{}; // kind mltcp, base or dcqcn
	int fixed_base = -1;   // mltcp_reno / mltcp_cubic fix the base
	std::string ns3_type;  // kind ns3
	std::optional<Slots> slots; // the jobs held to a slot schedule
	// Progress priority (kind mltcp): "prio": {"classes": K, "dscp": [...],
	// "none_dscp": N, "static": bool}, as mltcpctl's defaults show -j
	// prints it (static: the control, a fixed class per job). classes 0: off.
	mltcp_prio_config prio{};
	bool prio_static = false;
	// "marked": true (kind mltcp): each worker marks its job at every
	// iteration's first send, as the DDP hook (python3-mltcp's StepMarker)
	// marks each step before its first bucket, so the flows' iterations
	// start at the marks and their sizes are trusted from the second.
	bool marked = false;
};

// A leaf-spine fabric (sim/network.h); without one, the guest's dumbbell.
struct LeafSpine {
	unsigned leaves = 0, spines = 0, hosts_per_leaf = 0;
	double fabric_mbit = 0; // leaf-spine links; hosts' links run at rate_mbit
};

struct Point {
	std::string name;
	double rate_mbit = 0;
	// The dumbbell's right-to-left direction (worker 1 to worker 0), if
	// faster than rate_mbit: issue 14's asymmetric exchange, where one
	// direction's contest is short. 0: rate_mbit, as the guest's tbf. Never
	// slower, so that the ideal (counted at rate_mbit) stays the ideal.
	double reverse_rate_mbit = 0;
	double rtt_ms = 0;
	uint64_t iterations = 0;
	unsigned repeats = 1;
	// The first repeat's index: a point measured in parts (bench merge)
	// runs repeats first_repeat .. first_repeat + repeats - 1, each seeded
	// and started as it would be in one run of them all.
	unsigned first_repeat = 0;
	double sample_ms = 10;
	uint64_t seed = 1;
	// ECN points (data-center regime): the bottleneck marks at this many
	// bytes queued (PortQueueDisc) and every flow negotiates ECN; 0:
	// drop-tail, no ECN, as the guest's tbf.
	uint64_t ecn_mark_bytes = 0;
	// Or DCQCN's ramp (PortQueueDisc's): no mark up to kmin bytes queued, a
	// probability rising to pmax at kmax, every packet from kmax on. 0:
	// none.
	uint64_t ecn_kmin_bytes = 0, ecn_kmax_bytes = 0;
	double ecn_pmax = 0;
	// The ports mark (step or ramp), and every flow negotiates ECN.
	bool marks_ecn() const { return ecn_mark_bytes || ecn_kmax_bytes; }
	// Pure ACKs served first at the bottleneck (PortQueueDisc), both ways.
	bool ack_priority = false;
	// The PortQueueDisc at the bottleneck even without marks or priority
	// (the control for either).
	bool port_queue = false;
	// The emulated switch of progress priority (PortQueueDisc's training
	// classes): the classes' DSCPs, class 0 first ("prio_dscps"), and best
	// effort's weight against them ("prio_be_weight"). Empty: none.
	std::vector<uint8_t> prio_dscps;
	double prio_be_weight = 0.1;
	// Each sending socket's window, ssthresh and state at every change, to
	// raw/<algorithm>/rep<k>/<job>-r<rank>.window.jsonl (TrainingWorker::
	// TraceWindow()): a line per ACK, for looking at one point closely.
	bool window_trace = false;
	// Linux's defaults: tcp_rto_min (200 ms) and the stand-in for the ACK
	// sent when the application reads a burst's last segment (sim/main.cc).
	// Data-center points set them as such fabrics do (`ip route ... rto_min`,
	// quick ACKs): a 200 ms timeout would be ten of their iterations.
	double min_rto_ms = 200;
	double delayed_ack_ms = 1;
	// The RTO floor of the restart after idle (TcpMltcp's IdleRtoMin).
	// Linux takes it from the retransmission's, so a point modelling a
	// route's rto_min fully sets it to min_rto_ms too. It defaults to 200 ms
	// whatever min_rto_ms says because the data-center set was measured so:
	// there a window restarts after a compute idle only by its rule's own
	// restart, as with tcp_slow_start_after_idle = 0.
	double idle_rto_min_ms = 200;
	std::optional<LeafSpine> leaf_spine;
	std::vector<Job> jobs;
	std::vector<Algorithm> algorithms;
};

// config.json's text to a Point; throws PointError.
Point parse_point(const std::string &json_text);

} // namespace mltcp::sim

#endif // MLTCP_SIM_POINT_H
