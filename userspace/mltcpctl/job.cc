// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl job": the jobs flows are matched to, their settings, and the
// marks that start their iterations.
#include "job.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "backend.h"
#include "cgroup.h"
#include "error.h"
#include "mltcp_policy.h"
#include "object.h"
#include "uapi/mltcp.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

PortRange parse_ports(std::string_view key, std::string_view text)
{
	auto dash = text.find('-');
	std::string_view lo = text.substr(0, dash);
	std::string_view hi = dash == std::string_view::npos ? lo : text.substr(dash + 1);
	auto min = parse_uint(lo), max = parse_uint(hi);

	if (!min || !max)
		fail(std::string(key) + " \"" + std::string(text) +
		     "\": not a port or port range (LO[-HI])");
	if (*min > 65535 || *max > 65535)
		fail(range_error(key, text, "0", "65535"));
	if (*min > *max)
		fail(std::string(key) + " " + std::string(text) +
		     ": range maximum below its minimum");
	return PortRange{ static_cast<uint16_t>(*min), static_cast<uint16_t>(*max) };
}

Prefix parse_prefix(std::string_view text)
{
	auto slash = text.find('/');
	std::string addr(text.substr(0, slash));
	Prefix p;

	if (inet_pton(AF_INET, addr.c_str(), p.addr.data()) == 1)
		p.family = AF_INET;
	else if (inet_pton(AF_INET6, addr.c_str(), p.addr.data()) == 1)
		p.family = AF_INET6;
	else
		fail("peer \"" + std::string(text) + "\": not an IPv4 or IPv6 prefix");
	unsigned max_len = p.family == AF_INET ? 32 : 128;
	p.len = static_cast<uint8_t>(max_len);
	if (slash != std::string_view::npos) {
		auto len = parse_uint(text.substr(slash + 1));
		if (!len)
			fail("peer \"" + std::string(text) + "\": bad prefix length");
		if (*len > max_len)
			fail("peer " + std::string(text) +
			     ": prefix length out of range (allowed 0 to " +
			     std::to_string(max_len) + ")");
		p.len = static_cast<uint8_t>(*len);
	}
	return p;
}

Mark parse_mark(std::string_view text)
{
	auto slash = text.find('/');
	auto value = parse_u32_any_base(text.substr(0, slash));
	Mark m;

	if (!value)
		fail("mark \"" + std::string(text) +
		     "\": not a mark (MARK[/MASK], decimal or 0x hex)");
	m.value = *value;
	if (slash != std::string_view::npos) {
		auto mask = parse_u32_any_base(text.substr(slash + 1));
		if (!mask)
			fail("mark \"" + std::string(text) + "\": bad mask");
		m.mask = *mask;
	}
	return m;
}

enum class Key {
	Dport,
	Sport,
	Peer,
	Mark,
	Slope,
	Intercept,
	IdleGap,
	IterBytes,
	Base,
	Exempt,
	Cgroup,
	Marked,
};

const std::vector<Keyword<Key>> kJobKeys = {
	{ "dport", Key::Dport },      { "sport", Key::Sport },
	{ "peer", Key::Peer },	      { "mark", Key::Mark },
	{ "slope", Key::Slope },      { "intercept", Key::Intercept },
	{ "idle-gap", Key::IdleGap }, { "iter-bytes", Key::IterBytes },
	{ "base", Key::Base },	      { "exempt", Key::Exempt },
	{ "cgroup", Key::Cgroup },    { "marked", Key::Marked },
};

// The MLTCP_JOB_F_* bit each key sets or clears.
uint32_t field_of(Key key)
{
	switch (key) {
	case Key::Dport: return MLTCP_JOB_F_DPORT;
	case Key::Sport: return MLTCP_JOB_F_SPORT;
	case Key::Peer: return MLTCP_JOB_F_PEER;
	case Key::Mark: return MLTCP_JOB_F_MARK;
	case Key::Slope: return MLTCP_JOB_F_SLOPE;
	case Key::Intercept: return MLTCP_JOB_F_INTERCEPT;
	case Key::IdleGap: return MLTCP_JOB_F_IDLE_GAP;
	case Key::IterBytes: return MLTCP_JOB_F_ITER_BYTES;
	case Key::Base: return MLTCP_JOB_F_BASE;
	case Key::Exempt: return MLTCP_JOB_F_EXEMPT;
	case Key::Cgroup: return MLTCP_JOB_F_CGROUP;
	case Key::Marked: return MLTCP_JOB_F_MARKED;
	}
	return 0;
}

bool is_match_key(Key key)
{
	return key == Key::Dport || key == Key::Sport || key == Key::Peer || key == Key::Mark ||
	       key == Key::Cgroup;
}

} // namespace

void parse_job_args(Args &a, Job &job, bool set)
{
	uint32_t seen = 0;

	while (!a.done()) {
		std::string_view word = a.next();
		Key key = match(word, kJobKeys, "job argument");
		const char *name = kJobKeys[static_cast<size_t>(key)].name;
		uint32_t field = field_of(key);

		if (seen & field)
			fail(std::string(name) + " given twice");
		seen |= field;

		if (key == Key::Exempt || key == Key::Marked) {
			// Alone it turns the flag on; on, off or default may follow.
			if (a.done() ||
			    (a.peek() != "on" && a.peek() != "off" && a.peek() != "default")) {
				(key == Key::Exempt ? job.exempt : job.marked) = true;
				continue;
			}
		}
		std::string_view text = a.value(name);
		if (text == (is_match_key(key) ? "any" : "default")) {
			if (!set)
				fail(std::string(name) + " " + std::string(text) +
				     ": only \"job set\" can reset a field");
			job.clear |= field;
			continue;
		}
		switch (key) {
		case Key::Dport: job.dport = parse_ports("dport", text); break;
		case Key::Sport: job.sport = parse_ports("sport", text); break;
		case Key::Peer: job.peer = parse_prefix(text); break;
		case Key::Mark: job.mark = parse_mark(text); break;
		// Resolved to its id when the command runs (args does no I/O).
		case Key::Cgroup: job.cgroup = Cgroup{ 0, std::string(text) }; break;
		case Key::Slope:
			job.slope = parse_fixed("slope", text, MLTCP_GENL_SLOPE_MAX);
			break;
		case Key::Intercept:
			job.intercept = parse_fixed("intercept", text, MLTCP_GENL_INTERCEPT_MAX);
			break;
		case Key::IdleGap: job.idle_gap_us = parse_idle_gap(text); break;
		case Key::IterBytes: job.iter_bytes = parse_iter_bytes(text); break;
		case Key::Base: job.base = parse_base(text); break;
		case Key::Exempt:
			job.exempt = match<bool>(text, { { "on", true }, { "off", false } },
						 "exempt value");
			break;
		case Key::Marked:
			job.marked = match<bool>(text, { { "on", true }, { "off", false } },
						 "marked value");
			break;
		}
	}
}

namespace
{

enum class JobCmd { Add, Set, Del, Show, Mark, Help };

const std::vector<Keyword<JobCmd>> kJobCommands = {
	{ "add", JobCmd::Add },	  { "set", JobCmd::Set },    { "change", JobCmd::Set },
	{ "del", JobCmd::Del },	  { "delete", JobCmd::Del }, { "show", JobCmd::Show },
	{ "list", JobCmd::Show }, { "ls", JobCmd::Show },    { "mark", JobCmd::Mark },
	{ "help", JobCmd::Help },
};

// The ID of "job add|set|del|mark ID".
uint32_t id_of(Args &a, const char *command)
{
	if (a.done())
		fail(std::string("job ") + command + " needs a job ID");
	return parse_job_id(a.next());
}

void parse_job(Args &a, Command &cmd)
{
	if (a.done()) {
		cmd.action = Action::JobShow;
		return;
	}
	JobCmd sub = match(a.next(), kJobCommands, "job command");
	switch (sub) {
	case JobCmd::Add:
	case JobCmd::Set: {
		bool set = sub == JobCmd::Set;
		cmd.action = set ? Action::JobSet : Action::JobAdd;
		cmd.job.id = id_of(a, set ? "set" : "add");
		parse_job_args(a, cmd.job, set);
		Job nothing;
		nothing.id = cmd.job.id;
		if (set && cmd.job == nothing)
			fail("job set " + std::to_string(cmd.job.id) + ": nothing to change");
		break;
	}
	case JobCmd::Del:
		cmd.action = Action::JobDel;
		cmd.job.id = id_of(a, "del");
		no_more(a, "job del ID");
		break;
	case JobCmd::Mark:
		cmd.action = Action::JobMark;
		cmd.job.id = id_of(a, "mark");
		while (!a.done()) {
			if (match<bool>(a.next(), { { "follow", true }, { "step", false } },
					"job mark argument")) {
				if (cmd.follow)
					fail("follow given twice");
				cmd.follow = true;
				continue;
			}
			if (cmd.step)
				fail("step given twice");
			std::string_view text = a.value("step");
			cmd.step = parse_step(text);
			if (!cmd.step)
				fail("step \"" + std::string(text) +
				     "\": not a step number (1-4294967295)");
		}
		if (cmd.follow && cmd.step)
			fail("job mark: step or follow, not both (follow reads the steps)");
		break;
	case JobCmd::Show:
		cmd.action = Action::JobShow;
		if (!a.done()) {
			if (a.peek() == "id")
				a.next();
			cmd.job_id = parse_job_id(a.value("id"));
		}
		no_more(a, "job show [ID]");
		break;
	case JobCmd::Help: help_of(a, cmd, "job"); break;
	}
}

std::string job_help()
{
	return "       mltcpctl [OPTIONS] job add ID [MATCH]... [SETTING]...\n"
	       "       mltcpctl [OPTIONS] job set ID [MATCH]... [SETTING]...\n"
	       "       mltcpctl [OPTIONS] job del ID\n"
	       "       mltcpctl [OPTIONS] job show [ID]\n"
	       "       mltcpctl [OPTIONS] job mark ID [ step N | follow ]\n"
	       "MATCH := { dport LO[-HI] | sport LO[-HI] | peer PREFIX | mark MARK[/MASK] |\n"
	       "           cgroup PATH }\n"
	       "SETTING := { slope S | intercept I | idle-gap DURATION | iter-bytes SIZE |\n"
	       "             base { reno | cubic } | exempt [ on | off ] | marked [ on | off ] }\n"
	       "  job set: \"any\" as a MATCH value drops the criterion,\n"
	       "           \"default\" as a SETTING value returns to the namespace default.\n"
	       "  ID: 1-4294967295. S, I: decimal 0-16. DURATION: 1ms-60s (us, ms, s).\n"
	       "  SIZE: 1-1T (K, M, G, T are powers of 1024).\n"
	       "  PATH: a cgroup v2, under its mount or relative to it; its descendants match.\n"
	       "  A flow gets the first job, in ascending ID, whose criteria all match it\n"
	       "  when it selects MLTCP; changing a job updates its live flows.\n"
	       "  marked: the job's iterations start where \"job mark\" says (a flow's first\n"
	       "  send after each mark), not at idles. job mark: allowed to CAP_NET_ADMIN\n"
	       "  and to processes in the job's cgroup; with step N, a mark counts unless N\n"
	       "  is the step marked last (ranks sharing a host mark each step once);\n"
	       "  follow: a mark per line of standard input (empty, or the step N), \"ok\"\n"
	       "  written once each is made.\n";
}

// A request's cgroup path resolved to the id the datapath matches. Its
// depth is checked here for the BPF backend; the module checks it too, in
// absolute levels (a cgroup namespace shows fewer).
Job with_cgroup_id(Job job)
{
	if (job.cgroup) {
		const std::string given = job.cgroup->path;

		job.cgroup->id = cgroup_id(given);
		job.cgroup->path = cgroup_relative_path(given);
		size_t level = std::count(job.cgroup->path.begin(), job.cgroup->path.end(), '/');
		if (job.cgroup->path == "/")
			level = 0;
		if (level >= MLTCP_GENL_CGROUP_LEVELS)
			throw Error("cgroup " + given + ": too deep (levels 0 to " +
				    std::to_string(MLTCP_GENL_CGROUP_LEVELS - 1) + " only)");
	}
	return job;
}

// A reply's cgroup id with its path, where this process can see it.
Job with_cgroup_path(Job job)
{
	if (job.cgroup)
		job.cgroup->path = cgroup_path(job.cgroup->id).value_or("");
	return job;
}

void show_jobs(Backend &client, const Command &cmd, std::ostream &out)
{
	Printer p(out, cmd.options.json, cmd.options.pretty);

	p.begin_list();
	if (cmd.job_id)
		print_job(p, with_cgroup_path(client.get_job(*cmd.job_id)));
	else
		for (const Job &job : client.jobs())
			print_job(p, with_cgroup_path(job));
	p.end_list();
}

// job mark ID [step N] [follow]: once, or once per line of standard input
// (a training framework's steps: an empty line, or the step's number), each
// acknowledged with "ok" once the mark is made, so that the caller can start
// sending knowing the mark comes first.
void mark_job(Backend &client, const Command &cmd, std::ostream &out)
{
	std::string line;

	if (!cmd.follow) {
		client.mark_job(cmd.job.id, cmd.step);
		return;
	}
	while (std::getline(std::cin, line)) {
		std::optional<uint32_t> step;

		if (!line.empty()) {
			step = parse_step(line);
			if (!step)
				throw Error(
					"job mark follow: \"" + line +
					"\": not a step number (1-4294967295) or an empty line");
		}
		client.mark_job(cmd.job.id, step);
		out << "ok" << std::endl;
	}
}

int run_job(const Command &cmd, std::ostream &out)
{
	std::unique_ptr<Backend> backend = open_backend(cmd.options, true);
	Backend &client = *backend;

	switch (cmd.action) {
	case Action::JobAdd: client.add_job(with_cgroup_id(cmd.job)); break;
	case Action::JobSet: client.set_job(with_cgroup_id(cmd.job)); break;
	case Action::JobDel: client.del_job(cmd.job.id); break;
	case Action::JobMark: mark_job(client, cmd, out); break;
	default: show_jobs(client, cmd, out); break;
	}
	return 0;
}

std::string ports(const PortRange &r)
{
	if (r.min == r.max)
		return std::to_string(r.min);
	return std::to_string(r.min) + "-" + std::to_string(r.max);
}

std::string hex(uint32_t v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "0x%x", v);
	return buf;
}

} // namespace

const Object job_object = {
	"job",
	"job { add | set | del | show | mark }",
	"tag jobs: what they match, settings",
	parse_job,
	job_help,
	run_job,
};

void print_job(Printer &p, const Job &j)
{
	p.begin_object();
	p.field("id", j.id, "job " + std::to_string(j.id));
	if (j.dport)
		p.field("dport", { { "min", j.dport->min }, { "max", j.dport->max } },
			"dport " + ports(*j.dport));
	if (j.sport)
		p.field("sport", { { "min", j.sport->min }, { "max", j.sport->max } },
			"sport " + ports(*j.sport));
	if (j.peer)
		p.field("peer", format_prefix(*j.peer), "peer " + format_prefix(*j.peer));
	if (j.mark) {
		std::string text = "mark " + hex(j.mark->value);
		if (j.mark->mask != 0xffffffff)
			text += "/" + hex(j.mark->mask);
		p.field("mark", j.mark->value, "");
		p.field("mark_mask", j.mark->mask, text);
	}
	if (j.cgroup) {
		const std::string &path = j.cgroup->path;

		p.field("cgroup_id", j.cgroup->id, "");
		p.field("cgroup", path.empty() ? nlohmann::json() : nlohmann::json(path),
			path.empty() ? "cgroup-id " + std::to_string(j.cgroup->id)
				     : "cgroup " + path);
	}
	if (j.slope)
		p.field("slope", setting_value(*j.slope), "slope " + format_fixed(*j.slope));
	if (j.intercept)
		p.field("intercept", setting_value(*j.intercept),
			"intercept " + format_fixed(*j.intercept));
	if (j.idle_gap_us)
		p.field("idle_gap_us", *j.idle_gap_us,
			"idle-gap " + mltcp::format_duration_us(*j.idle_gap_us));
	if (j.iter_bytes)
		p.field("iter_bytes", *j.iter_bytes,
			"iter-bytes " + mltcp::format_size(*j.iter_bytes));
	if (j.base)
		p.field("base", base_name(*j.base), std::string("base ") + base_name(*j.base));
	p.field("exempt", j.exempt.value_or(false), j.exempt.value_or(false) ? "exempt" : "");
	p.field("marked", j.marked.value_or(false), j.marked.value_or(false) ? "marked" : "");
	// The count is the marked flows' (an unmarked job's marks move nothing).
	if (j.marks && j.marked.value_or(false))
		p.field("marks", *j.marks, "marks " + std::to_string(*j.marks));
	if (j.flows)
		p.field("flows", *j.flows, "flows " + std::to_string(*j.flows));
	if (j.flows_total)
		p.field("flows_total", *j.flows_total,
			"flows-total " + std::to_string(*j.flows_total));
	if (j.iterations)
		p.field("iterations", *j.iterations, "iterations " + std::to_string(*j.iterations));
	if (j.bytes)
		p.field("bytes", *j.bytes, "bytes " + std::to_string(*j.bytes));
	p.end_object();
}

} // namespace mltcpctl
