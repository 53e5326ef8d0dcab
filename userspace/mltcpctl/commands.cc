// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "commands.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>
#include <thread>

#include "args.h"
#include "backend.h"
#include "cgroup.h"
#include "export.h"
#include "message.h"
#include "output.h"
#include "run.h"
#include "uapi/mltcp.h"
#include "units.h"

#ifdef MLTCPCTL_BPF
#include "bpf_loader.h"
#include "mltcp_bpf.h"
#endif

namespace mltcpctl
{
namespace
{

// The user's name for a request attribute, and its bounds in user units.
struct Field {
	const char *name;
	std::string (*format)(uint64_t);
};

std::string plain(uint64_t v)
{
	return std::to_string(v);
}

std::string fixed(uint64_t v)
{
	return format_fixed(static_cast<uint32_t>(v));
}

std::string duration(uint64_t v)
{
	return mltcp::format_duration_us(v);
}

std::string size(uint64_t v)
{
	return mltcp::format_size(v);
}

Field job_field(uint16_t type)
{
	switch (type) {
	case MLTCP_JOB_A_ID: return { "job ID", plain };
	case MLTCP_JOB_A_DPORT_MIN:
	case MLTCP_JOB_A_DPORT_MAX: return { "dport", plain };
	case MLTCP_JOB_A_SPORT_MIN:
	case MLTCP_JOB_A_SPORT_MAX: return { "sport", plain };
	case MLTCP_JOB_A_PEER_V4:
	case MLTCP_JOB_A_PEER_V6:
	case MLTCP_JOB_A_PEER_PREFIXLEN: return { "peer", plain };
	case MLTCP_JOB_A_MARK:
	case MLTCP_JOB_A_MARK_MASK: return { "mark", plain };
	case MLTCP_JOB_A_SLOPE: return { "slope", fixed };
	case MLTCP_JOB_A_INTERCEPT: return { "intercept", fixed };
	case MLTCP_JOB_A_IDLE_GAP_US: return { "idle-gap", duration };
	case MLTCP_JOB_A_ITER_BYTES: return { "iter-bytes", size };
	case MLTCP_JOB_A_BASE: return { "base", plain };
	case MLTCP_JOB_A_EXEMPT: return { "exempt", plain };
	case MLTCP_JOB_A_CLEAR: return { "reset fields", plain };
	case MLTCP_JOB_A_CGROUP: return { "cgroup", plain };
	}
	return { nullptr, plain };
}

std::string job_ref(const Command &cmd)
{
	uint32_t id = cmd.job_id ? *cmd.job_id : cmd.job.id;
	return "job " + std::to_string(id);
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

void show_flows(Backend &client, const Command &cmd, std::ostream &out)
{
	Printer p(out, cmd.options.json, cmd.options.pretty);

	p.begin_list();
	for (const Flow &flow : client.flows(cmd.job_id))
		print_flow(p, flow);
	p.end_list();
}

void monitor(Backend &client, const Command &cmd, std::ostream &out)
{
	bool tty = !cmd.options.json && &out == &std::cout && isatty(STDOUT_FILENO);
	Printer p(out, cmd.options.json, cmd.options.pretty);

	for (uint64_t n = 0; !cmd.count || n < *cmd.count; n++) {
		if (n)
			std::this_thread::sleep_for(std::chrono::microseconds(cmd.interval_us));
		auto flows = client.flows(cmd.job_id);
		if (!cmd.options.json) {
			char stamp[32];
			time_t now = time(nullptr);
			strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
			if (tty)
				out << "\033[H\033[2J";
			out << "mltcp flows at " << stamp << ": " << flows.size()
			    << (cmd.job_id ? " of " + job_ref(cmd) : std::string()) << ", every "
			    << mltcp::format_duration_us(cmd.interval_us) << "\n";
		}
		p.begin_list();
		for (const Flow &flow : flows)
			print_flow_brief(p, flow);
		p.end_list();
	}
}

volatile sig_atomic_t export_stop;

void export_stop_handler(int)
{
	export_stop = 1;
}

// Sleeps for us, or less if SIGTERM or SIGINT came; false if they did.
bool export_wait(uint64_t us)
{
	timespec left{ static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000 };

	while (!export_stop && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
	return !export_stop;
}

// One scrape per interval (or one), each to stdout or replacing the file.
// SIGTERM or SIGINT ends a loop, or a file's export, between scrapes, never
// halfway through writing one, so that no temporary file is left behind.
void export_metrics(Backend &client, const Command &cmd, std::ostream &out)
{
	if (cmd.every || !cmd.output.empty()) {
		struct sigaction sa = {};
		sa.sa_handler = export_stop_handler;
		sa.sa_flags = SA_RESTART; // a scrape under way completes
		sigaction(SIGTERM, &sa, nullptr);
		sigaction(SIGINT, &sa, nullptr);
	}
	for (uint64_t n = 0; n == 0 || (cmd.every && (!cmd.count || n < *cmd.count)); n++) {
		if (n && !export_wait(cmd.interval_us))
			break;
		Scrape s{ client.name(), cmd.options.netns, client.jobs(),
			  client.flows(std::nullopt), client.stats() };
		std::string text = prometheus_text(s);

		if (cmd.output.empty())
			out << text << std::flush;
		else
			replace_file(cmd.output, text);
	}
}

#ifdef MLTCPCTL_BPF
nlohmann::json ops_maps_json(const std::vector<bpf::OpsMap> &maps)
{
	nlohmann::json list = nlohmann::json::array();

	for (const bpf::OpsMap &m : maps)
		list.push_back({ { "name", m.name },
				 { "id", m.id },
				 { "state", bpf::state_name(m.state) } });
	return list;
}

std::string ops_map_text(const bpf::OpsMap &m)
{
	return m.name + " id " + std::to_string(m.id) + " " + bpf::state_name(m.state);
}

void bpf_load(const Command &cmd, std::ostream &out)
{
	mltcp_params params;
	Printer p(out, cmd.options.json, cmd.options.pretty);
	nlohmann::json algorithms = nlohmann::json::array();
	std::string names;

	mltcp_params_default(&params);
	cmd.settings.apply(params);
	bpf::Loaded loaded = bpf::load(params);
	if (!loaded.flows)
		std::cerr << "mltcpctl: warning: this kernel cannot load the TCP iterator; "
			     "\"flow show\" will not work\n";
	for (const char *name : bpf::kAlgorithms) {
		algorithms.push_back(name);
		names += std::string(" ") + name;
	}
	p.begin_object();
	p.field("backend", "bpf", "");
	p.field("loaded", true, "loaded" + names);
	p.field("pin_dir", MLTCP_BPF_PIN_DIR, "(pinned in " MLTCP_BPF_PIN_DIR ")");
	p.field("algorithms", algorithms, "");
	p.field("flows", loaded.flows, "");
	p.field("cwnd_stamp", loaded.cwnd_stamp, "");
	p.newline();
	p.field("params", params_json(params), "defaults " + params_text(params));
	p.end_object();
}

void bpf_unload(const Command &cmd, std::ostream &out)
{
	bpf::Unloaded u = bpf::unload();
	Printer p(out, cmd.options.json, cmd.options.pretty);
	std::string names, in_use, not_ours;

	for (const std::string &name : u.unloaded)
		names += " " + name;
	for (const bpf::OpsMap &m : u.in_use)
		in_use += " " + m.name + " (map id " + std::to_string(m.id) + ")";
	for (const bpf::OpsMap &m : u.not_ours)
		not_ours += " " + m.name + " (map id " + std::to_string(m.id) + ")";
	p.begin_object();
	p.field("backend", "bpf", "");
	p.field("unloaded", u.unloaded, "unloaded" + names);
	p.newline();
	p.field("in_use", ops_maps_json(u.in_use),
		in_use.empty() ? ""
			       : "still in use by open sockets (or a network namespace's "
				 "default) until they go:" +
					 in_use);
	p.newline();
	p.field("not_ours", ops_maps_json(u.not_ours),
		not_ours.empty() ? ""
				 : "left registered, running programs not loaded by this "
				   "mltcpctl:" +
					   not_ours);
	p.end_object();
}

void bpf_status(const Command &cmd, std::ostream &out)
{
	bpf::Status st = bpf::status();
	Printer p(out, cmd.options.json, cmd.options.pretty);
	std::string registered, stats_text, ops_text;
	nlohmann::json stats = nullptr;

	for (const std::string &name : st.registered)
		registered += " " + name;
	if (st.stats) {
		stats = nlohmann::json::object();
		stats_text = "stats";
		for (size_t i = 0; i < st.stats->size(); i++) {
			const char *name = bpf::stat_name(static_cast<unsigned>(i));

			stats[name] = (*st.stats)[i];
			stats_text += std::string(" ") + name + " " +
				      std::to_string((*st.stats)[i]);
		}
	}
	p.begin_object();
	p.field("backend", "bpf", "backend bpf");
	p.newline();
	p.field("loaded", st.loaded, std::string("loaded ") + (st.loaded ? "yes" : "no"));
	p.field("pin_dir", MLTCP_BPF_PIN_DIR, "");
	p.field("pinned", st.pinned, st.pinned ? "(pinned in " MLTCP_BPF_PIN_DIR ")" : "");
	p.newline();
	p.field("registered", st.registered,
		"registered" + (registered.empty() ? std::string(" none") : registered));
	p.field("flows", st.flows, "");
	p.newline();
	p.field("params", st.params ? params_json(*st.params) : nlohmann::json(nullptr),
		st.params ? "defaults " + params_text(*st.params) : "");
	p.newline();
	p.field("stats", stats, stats_text);
	p.newline();
	for (const bpf::OpsMap &m : st.struct_ops)
		ops_text += (ops_text.empty() ? "" : "\n") + std::string("struct_ops ") +
			    ops_map_text(m);
	p.field("struct_ops", ops_maps_json(st.struct_ops), ops_text);
	p.end_object();
}
#endif

// "mltcpctl bpf load|unload|status": the BPF backend's life cycle.
int run_bpf(const Command &cmd, std::ostream &out)
{
#ifdef MLTCPCTL_BPF
	bpf::set_debug(cmd.options.debug);
	switch (cmd.action) {
	case Action::BpfLoad: bpf_load(cmd, out); break;
	case Action::BpfUnload: bpf_unload(cmd, out); break;
	default: bpf_status(cmd, out); break;
	}
	return 0;
#else
	(void)cmd;
	(void)out;
	throw Error("this mltcpctl was built without the BPF backend (libbpf-dev missing at "
		    "build time)");
#endif
}

// "mltcpctl ackmark add|del|show": the pure-ACK marker, backend-neutral.
int run_ackmark(const Command &cmd, std::ostream &out)
{
#ifdef MLTCPCTL_BPF
	bpf::set_debug(cmd.options.debug);
	switch (cmd.action) {
	case Action::AckmarkAdd: ackmark::add(cmd.dev, cmd.dscp); break;
	case Action::AckmarkDel: ackmark::del(cmd.dev); break;
	default: {
		Printer p(out, cmd.options.json, cmd.options.pretty);
		std::optional<std::string> dev;

		if (!cmd.dev.empty())
			dev = cmd.dev;
		p.begin_list();
		for (const ackmark::Marker &m : ackmark::show(dev))
			print_ackmark(p, m);
		p.end_list();
		break;
	}
	}
	return 0;
#else
	(void)cmd;
	(void)out;
	throw Error("this mltcpctl was built without BPF support (libbpf-dev missing at build "
		    "time): no ACK marker");
#endif
}

// "mltcpctl, netlink family version 1, BPF backend (libbpf 1.1)"
void print_version(std::ostream &out)
{
	out << "mltcpctl, netlink family version " << MLTCP_GENL_VERSION;
#ifdef MLTCPCTL_BPF
	out << ", BPF backend (" << bpf::libbpf_version() << ")";
#endif
	out << "\n";
}

void show_defaults(Backend &backend, const Command &cmd, std::ostream &out)
{
	Printer p(out, cmd.options.json, cmd.options.pretty);
	// The BPF backend's defaults are global whatever is asked.
	print_defaults(p, backend.defaults(cmd.global));
}

bool is_job_action(Action a)
{
	return a == Action::JobAdd || a == Action::JobSet || a == Action::JobDel ||
	       a == Action::JobShow || a == Action::Run || a == Action::JobMark;
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
				throw Error("job mark follow: \"" + line +
					    "\": not a step number (1-4294967295) or an empty line");
		}
		client.mark_job(cmd.job.id, step);
		out << "ok" << std::endl;
	}
}

} // namespace

void enter_netns(const std::string &name)
{
	std::string path = name[0] == '/' ? name : "/run/netns/" + name;
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && name[0] != '/') {
		path = "/var/run/netns/" + name;
		fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		throw Error("netns " + name + ": " +
			    (errno == ENOENT ? std::string("no such network namespace")
					     : std::string(strerror(errno))));
	int err = setns(fd, CLONE_NEWNET);
	int saved = errno;
	close(fd);
	if (err < 0)
		throw Error("netns " + name + ": " +
			    (saved == EPERM ? std::string("permission denied") : strerror(saved)));
}

int run(const Command &cmd, std::ostream &out)
{
	switch (cmd.action) {
	case Action::Help: out << usage(cmd.help_topic); return 0;
	case Action::Version: print_version(out); return 0;
	case Action::BpfLoad:
	case Action::BpfUnload:
	case Action::BpfStatus: return run_bpf(cmd, out);
	case Action::AckmarkAdd:
	case Action::AckmarkDel:
	case Action::AckmarkShow: return run_ackmark(cmd, out);
	default: break;
	}

	std::unique_ptr<Backend> backend = open_backend(cmd.options.backend);
	Backend &client = *backend;
	// A job given in one namespace would silently apply to all of them.
	if (!cmd.options.netns.empty() && is_job_action(cmd.action) &&
	    std::string(backend->name()) == "bpf")
		throw Error("-n: the BPF backend's jobs are one table for the host, not per "
			    "network namespace (drop -n; jobs can match on peer and ports)");
	switch (cmd.action) {
	case Action::JobAdd: client.add_job(with_cgroup_id(cmd.job)); break;
	case Action::JobSet: client.set_job(with_cgroup_id(cmd.job)); break;
	case Action::JobDel: client.del_job(cmd.job.id); break;
	case Action::JobMark: mark_job(client, cmd, out); break;
	case Action::JobShow: show_jobs(client, cmd, out); break;
	case Action::FlowShow: show_flows(client, cmd, out); break;
	case Action::Monitor: monitor(client, cmd, out); break;
	case Action::Export: export_metrics(client, cmd, out); break;
	case Action::DefaultsShow: show_defaults(client, cmd, out); break;
	case Action::DefaultsSet: client.set_defaults(cmd.settings, cmd.global); break;
	case Action::Run: return run_in_job(client, cmd);
	default: break;
	}
	return 0;
}

std::string describe(const KernelError &e, const Command &cmd)
{
	const Ack &ack = e.ack;
	std::string detail = ack.message.empty() ? "" : " (" + ack.message + ")";

	if (e.cmd == 0 && ack.error == ENOENT)
		return "the tcp_mltcp module is not loaded (no generic netlink family "
		       "\"" MLTCP_GENL_NAME "\")";
	switch (ack.error) {
	case EPERM:
		// With a reason: refused by the namespace's bound, not for lack of a capability.
		if (!ack.message.empty())
			return job_ref(cmd) + ": " + ack.message;
		return "permission denied: changing jobs needs CAP_NET_ADMIN";
	case ENOENT:
		if (ack.offset && attr_at(e.request, *ack.offset) == MLTCP_JOB_A_CGROUP)
			return "invalid cgroup: " + (ack.message.empty() ? "no such cgroup"
									  : ack.message);
		return job_ref(cmd) + ": no such job";
	case EEXIST: return job_ref(cmd) + ": already exists";
	case ENOSPC:
		return "job table full (at most " + std::to_string(MLTCP_GENL_JOBS_MAX) +
		       " jobs per network namespace)";
	case EOPNOTSUPP: return "the loaded tcp_mltcp does not support this command" + detail;
	case EINVAL:
	case ERANGE: {
		std::optional<uint16_t> type;
		if (ack.offset)
			type = attr_at(e.request, *ack.offset);
		if (ack.missing)
			type = static_cast<uint16_t>(*ack.missing);
		Field field = type && e.cmd != MLTCP_CMD_FLOW_GET
				      ? job_field(*type)
				      : Field{ type ? "job" : nullptr, plain };
		std::string what = field.name ? field.name : "request";
		std::string out = "invalid " + what + ": " +
				  (ack.message.empty() ? strerror(ack.error) : ack.message);
		if (ack.min && ack.max)
			out += " (allowed " + field.format(*ack.min) + " to " +
			       field.format(*ack.max) + ")";
		return out;
	}
	}
	return std::string(strerror(ack.error)) + detail;
}

} // namespace mltcpctl
