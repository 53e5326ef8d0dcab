// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcpctl's data: what a command asks for and what the kernel reports.
// Plain values, no netlink: the parser produces them, the message layer
// encodes and decodes them, the printer prints them.
#ifndef MLTCPCTL_MODEL_H
#define MLTCPCTL_MODEL_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mltcp_policy.h"

namespace mltcpctl
{

struct PortRange {
	uint16_t min = 0;
	uint16_t max = 0;
	bool operator==(const PortRange &o) const { return min == o.min && max == o.max; }
};

// An IPv4 or IPv6 prefix; addr holds 4 or 16 bytes in network order.
struct Prefix {
	int family = 0; // AF_INET or AF_INET6
	std::array<uint8_t, 16> addr{};
	uint8_t len = 0;
	bool operator==(const Prefix &o) const
	{
		return family == o.family && addr == o.addr && len == o.len;
	}
};

struct Mark {
	uint32_t value = 0;
	uint32_t mask = 0xffffffff;
	bool operator==(const Mark &o) const { return value == o.value && mask == o.mask; }
};

// A cgroup v2 a job matches: the path as the user gave it (a request) or as
// found again from the id (a reply; empty if this process cannot see it).
// The id is what the kernel matches; mltcpctl fills it from the path.
struct Cgroup {
	uint64_t id = 0;
	std::string path;
	bool operator==(const Cgroup &o) const { return id == o.id && path == o.path; }
};

// A job as requested (add, set) or as reported (show). Settings in kernel
// units: slope and intercept in 1/1024, durations in microseconds.
struct Job {
	uint32_t id = 0;
	std::optional<PortRange> dport, sport;
	std::optional<Prefix> peer;
	std::optional<Mark> mark;
	std::optional<Cgroup> cgroup;
	std::optional<uint32_t> slope, intercept, idle_gap_us;
	std::optional<uint64_t> iter_bytes;
	std::optional<uint8_t> base;
	std::optional<bool> exempt;
	std::optional<bool> marked;
	uint32_t clear = 0; // MLTCP_JOB_F_* (job set)
	// Reported only.
	std::optional<uint32_t> flows;
	std::optional<uint64_t> flows_total, iterations, bytes, marks;

	bool operator==(const Job &o) const;
};

// One flow as the kernel reports it.
struct Flow {
	std::optional<uint32_t> job;
	uint64_t cookie = 0;
	int family = 0;
	std::array<uint8_t, 16> saddr{}, daddr{};
	uint16_t sport = 0, dport = 0;
	std::string ca;
	uint8_t base = 0, mode = 0;
	bool exempt = false;
	uint32_t cwnd = 0, ssthresh = 0;
	uint64_t bytes_this_iter = 0, iter_bytes = 0;
	bool iter_fixed = false;
	// Whether F, the restart and the class act on its iterations (none: a
	// module that does not say).
	std::optional<bool> iter_trusted;
	// Whether a move up to a higher class waits for its data in flight,
	// the window held at it (none: a datapath that does not say).
	std::optional<bool> prio_held;
	uint32_t r = 0, f = 0; // 1/1024
	uint32_t iterations = 0, last_iter_us = 0;
	uint32_t slope = 0, intercept = 0, idle_gap_us = 0;
	// The socket's DSCP (where the backend reports it: the BPF backend),
	// and the progress-priority class it is the DSCP of (none: no class).
	std::optional<uint8_t> dscp;
	std::optional<uint8_t> prio_class;

	bool operator==(const Flow &o) const;
};

// How the iteration detector judged each "sending resumed" event, indexed
// by enum mltcp_tx_verdict, the start gate's counts, indexed by enum
// mltcp_gate_verdict, and progress priority's held moves up, indexed by
// enum mltcp_prio_hold: a network namespace's (the module counts per
// namespace) or the whole host's (the BPF twin's one counter map). A module
// older than the gate's or the holds' counts does not report them.
struct Stats {
	bool host_wide = false;
	std::array<uint64_t, MLTCP_TX_NR_VERDICTS> verdicts{};
	std::optional<std::array<uint64_t, MLTCP_GATE_NR_VERDICTS>> gate;
	std::optional<std::array<uint64_t, MLTCP_PRIO_HOLD_NR_EVENTS>> prio_hold;
	bool operator==(const Stats &o) const
	{
		return host_wide == o.host_wide && verdicts == o.verdicts && gate == o.gate &&
		       prio_hold == o.prio_hold;
	}
};

// The defaults of new flows: a namespace's (the module's net.mltcp.*
// sysctls, with the global mode) or the global ones (the module parameters,
// or the BPF backend's config map). Values in kernel units.
struct Defaults {
	std::string backend; // "kmod" or "bpf"
	bool global = false;
	mltcp_params params{};
	// Progress priority, where the backend has it (the BPF backend's prio
	// map; the module has none yet).
	std::optional<mltcp_prio_config> prio;
};

// The progress-priority class whose DSCP a socket carries, or none (prio
// off, or a DSCP of no class: prio-none's, an application's own).
inline std::optional<uint8_t> prio_class_of(const mltcp_prio_config &pc, uint8_t dscp)
{
	uint32_t c = mltcp_prio_class_of_dscp(&pc, dscp);

	if (c == MLTCP_PRIO_NONE)
		return std::nullopt;
	return static_cast<uint8_t>(c);
}

// "prio K", "prio-dscp D0,D1,..." and "prio-none D" of "defaults set" and
// "bpf load": progress priority's settings, each checked alone by the
// parser; how they go together is checked against the config they change.
struct PrioChange {
	std::optional<uint8_t> classes;
	std::optional<std::vector<uint8_t>> dscp; // class 0 (lowest) first
	std::optional<uint8_t> none_dscp;

	bool given() const { return classes || dscp || none_dscp; }
	// Applies the settings to pc, all or none: "" and pc changed, or the
	// one-line reason and pc as it was. dscp must give exactly as many
	// values as pc has classes after the change; the result must pass
	// mltcp_prio_config_valid().
	std::string apply(mltcp_prio_config &pc) const;
};

// "defaults set" and "bpf load": the settings given, by enum mltcp_param.
// text is the value as the kernel's sysctls and module parameters take it
// (the decimal as the user wrote it, microseconds, a name); the parser has
// checked it with the policy's own parser.
struct DefaultsChange {
	uint32_t given = 0; // 1 << enum mltcp_param
	mltcp_params values{};
	std::array<std::string, MLTCP_NR_PARAMS> text;
	PrioChange prio;

	bool has(mltcp_param p) const { return given & (1U << p); }
	// Applies the given settings to params.
	void apply(mltcp_params &params) const;
};

// Which datapath the job and flow commands talk to: the tcp_mltcp module
// (generic netlink) or the BPF struct_ops twin (pinned maps); Auto takes the
// module if its family resolves, else the BPF backend if it is loaded.
enum class BackendKind { Auto, Kmod, Bpf };

struct Options {
	bool json = false;
	bool pretty = false;
	bool debug = false; // bpf load: libbpf's and the verifier's messages
	std::string netns;
	BackendKind backend = BackendKind::Auto;
};

enum class Action {
	Help,
	Version,
	JobAdd,
	JobSet,
	JobDel,
	JobShow,
	FlowShow,
	Monitor,
	DefaultsShow,
	DefaultsSet,
	Run,
	JobMark,
	BpfLoad,
	BpfUnload,
	BpfStatus,
	Export,
	AckmarkAdd,
	AckmarkDel,
	AckmarkShow,
};

struct Command {
	Options options;
	std::string object; // the OBJECT given, as its table entry names it ("": none)
	Action action = Action::Help;
	std::string help_topic;		// Help: "", "job", "flow", "monitor", "defaults", "bpf",
					// "export", "run", "ackmark"
	Job job;			// JobAdd, JobSet; JobDel and JobShow use job.id
	std::optional<uint32_t> job_id; // JobShow, FlowShow, Monitor: only this job
	uint64_t interval_us = 1000000; // Monitor; Export with every
	std::optional<uint64_t> count;	// Monitor: refreshes, Export: scrapes, then exit
	bool every = false;		// Export: scrape every interval_us (until count)
	std::string output;		// Export: replace this file at each scrape ("": stdout)
	bool global = false;		// DefaultsShow, DefaultsSet
	DefaultsChange settings;	// DefaultsSet, BpfLoad
	// Run: job holds the criteria and settings (job.id 0: the lowest free
	// id); the command, and the cgroup to make its cgroup in ("": the
	// caller's own). run_user and run_group as typed (a name, or digits
	// for an id; "": not given): the parser does no lookups.
	std::vector<std::string> run_argv;
	std::string run_parent;
	std::string run_user, run_group;
	bool follow = false; // JobMark: a mark per line read, "ok" written for each
	std::optional<uint32_t> step; // JobMark: the count becomes at least this
	std::string dev;	      // Ackmark*: the device ("" for every one: AckmarkShow)
	uint32_t dscp = 0;	      // AckmarkAdd
};

} // namespace mltcpctl

#endif // MLTCPCTL_MODEL_H
