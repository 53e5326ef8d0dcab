// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "commands.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>
#include <thread>

#include "args.h"
#include "backend.h"
#include "message.h"
#include "output.h"
#include "uapi/mltcp.h"
#include "units.h"

#ifdef MLTCPCTL_BPF
#include "cli.h"
#include "loader.h"
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
	}
	return { nullptr, plain };
}

std::string job_ref(const Command &cmd)
{
	uint32_t id = cmd.job_id ? *cmd.job_id : cmd.job.id;
	return "job " + std::to_string(id);
}

void show_jobs(Backend &client, const Command &cmd, std::ostream &out)
{
	Printer p(out, cmd.options.json, cmd.options.pretty);

	p.begin_list();
	if (cmd.job_id)
		print_job(p, client.get_job(*cmd.job_id));
	else
		for (const Job &job : client.jobs())
			print_job(p, job);
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

// "mltcpctl bpf ARGS" is "mltcp-bpf ARGS": the same parser and code.
int run_bpf(const Command &cmd)
{
#ifdef MLTCPCTL_BPF
	std::vector<std::string> args;

	if (cmd.options.pretty)
		args.emplace_back("-p");
	else if (cmd.options.json)
		args.emplace_back("-j");
	args.insert(args.end(), cmd.bpf_args.begin(), cmd.bpf_args.end());
	mltcp::bpf::ParseResult parsed = mltcp::bpf::parse_args(args);
	if (!parsed.options) {
		std::cerr << "mltcpctl: bpf: " << parsed.error << "\n";
		return 2;
	}
	return mltcp::bpf::run(*parsed.options);
#else
	(void)cmd;
	throw Error("this mltcpctl was built without the BPF backend (libbpf-dev missing at "
		    "build time)");
#endif
}

bool is_job_action(Action a)
{
	return a == Action::JobAdd || a == Action::JobSet || a == Action::JobDel ||
	       a == Action::JobShow;
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
	case Action::Version:
		out << "mltcpctl, netlink family version " << MLTCP_GENL_VERSION << "\n";
		return 0;
	case Action::Bpf: return run_bpf(cmd);
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
	case Action::JobAdd: client.add_job(cmd.job); break;
	case Action::JobSet: client.set_job(cmd.job); break;
	case Action::JobDel: client.del_job(cmd.job.id); break;
	case Action::JobShow: show_jobs(client, cmd, out); break;
	case Action::FlowShow: show_flows(client, cmd, out); break;
	case Action::Monitor: monitor(client, cmd, out); break;
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
	case EPERM: return "permission denied: changing jobs needs CAP_NET_ADMIN";
	case ENOENT: return job_ref(cmd) + ": no such job";
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
