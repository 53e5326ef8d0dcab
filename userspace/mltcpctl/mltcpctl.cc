// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "mltcpctl.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "args.h"
#include "message.h"
#include "object.h"
#include "uapi/mltcp.h"
#include "units.h"

#ifdef MLTCPCTL_BPF
#include "bpf_loader.h"
#endif

#ifndef MLTCPCTL_VERSION
#error "MLTCPCTL_VERSION: the package's version, given by userspace/mltcpctl/CMakeLists.txt"
#endif

namespace mltcpctl
{
namespace
{

// The objects, in the order the help lists them: one line each.
// clang-format off
const Object *const kObjects[] = {
	&job_object,
	&flow_object,
	&monitor_object,
	&defaults_object,
	&bpf_object,
	&export_object,
	&run_object,
	&ackmark_object,
};
// clang-format on

const Object *find_object(std::string_view name)
{
	for (const Object *o : kObjects)
		if (name == o->name)
			return o;
	return nullptr;
}

enum class Opt { Json, Pretty, Netns, Backend, Debug, Help, Version };

const std::vector<Keyword<Opt>> kOptions = {
	{ "json", Opt::Json },	     { "pretty", Opt::Pretty },	  { "netns", Opt::Netns },
	{ "backend", Opt::Backend }, { "debug", Opt::Debug },	  { "help", Opt::Help },
	{ "Version", Opt::Version }, { "version", Opt::Version },
};

Command parse(const std::vector<std::string> &args)
{
	Args a(args);
	Command cmd;
	std::vector<Keyword<const Object *>> objects;
	std::string names;

	while (!a.done() && a.peek().size() > 1 && a.peek()[0] == '-') {
		std::string_view word = a.next();
		word.remove_prefix(word.size() > 2 && word[1] == '-' ? 2 : 1);
		switch (match(word, kOptions, "option")) {
		case Opt::Json: cmd.options.json = true; break;
		case Opt::Pretty: cmd.options.pretty = true; break;
		case Opt::Netns: {
			std::string_view name = a.value("-n");
			// A name under /run/netns, or a path such as /proc/PID/ns/net
			// (Mininet's hosts have no name).
			if (name.empty() ||
			    (name[0] != '/' && name.find('/') != std::string_view::npos) ||
			    name == "." || name == "..")
				fail("-n \"" + std::string(name) +
				     "\": not a network namespace name");
			cmd.options.netns = std::string(name);
			break;
		}
		case Opt::Backend:
			cmd.options.backend = match<BackendKind>(a.value("-b"),
								 { { "auto", BackendKind::Auto },
								   { "kmod", BackendKind::Kmod },
								   { "bpf", BackendKind::Bpf } },
								 "backend");
			break;
		case Opt::Debug: cmd.options.debug = true; break;
		case Opt::Help: cmd.action = Action::Help; return cmd;
		case Opt::Version: cmd.action = Action::Version; return cmd;
		}
	}
	for (const Object *o : kObjects) {
		objects.push_back({ o->name, o });
		names += std::string(o->name) + ", ";
	}
	if (a.done())
		fail("missing object (" + names.substr(0, names.size() - 2) + " or help)");
	objects.push_back({ "help", nullptr });
	const Object *object = match(a.next(), objects, "object");
	if (object) {
		cmd.object = object->name;
		object->parse(a, cmd);
		return cmd;
	}
	cmd.action = Action::Help;
	objects.pop_back();
	if (!a.done())
		cmd.help_topic = match(a.next(), objects, "help topic")->name;
	no_more(a, "help TOPIC");
	return cmd;
}

// "mltcpctl 0.1.0, netlink family version 1, BPF backend (libbpf 1.1)": the
// package's version (CMakeLists.txt's project()), then what this build speaks.
void print_version(std::ostream &out)
{
	out << "mltcpctl " MLTCPCTL_VERSION ", netlink family version " << MLTCP_GENL_VERSION;
#ifdef MLTCPCTL_BPF
	out << ", BPF backend (" << bpf::libbpf_version() << ")";
#endif
	out << "\n";
}

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

} // namespace

ParseResult parse_args(const std::vector<std::string> &args)
{
	ParseResult result;

	try {
		result.command = parse(args);
	} catch (const BadArgs &bad) {
		// Words are quoted back as typed; control characters are escaped
		// so that the error stays one line.
		for (unsigned char c : bad.message) {
			if (c < 0x20 || c == 0x7f) {
				char esc[8];
				snprintf(esc, sizeof(esc), "\\x%02x", c);
				result.error += esc;
			} else {
				result.error += static_cast<char>(c);
			}
		}
	}
	return result;
}

std::string usage(std::string_view topic)
{
	static const char options[] =
		"OPTIONS := { -j[son] | -p[retty] | -n[etns] NAME | -b[ackend] BACKEND |\n"
		"             -d[ebug] | -h[elp] | -V[ersion] }\n"
		"BACKEND := { auto | kmod | bpf }  (auto: the module if loaded, else BPF)\n"
		"  -d: libbpf's and the verifier's messages (bpf load, ackmark add).\n";
	const Object *object = find_object(topic);
	std::string out, names;

	if (object) {
		// The first line of grammar starts as wide as "Usage: " does.
		return "Usage:" + object->help().substr(6) + options;
	}
	for (const Object *o : kObjects)
		names += std::string(names.empty() ? "" : " | ") + o->name;
	out = "Usage: mltcpctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       mltcpctl help [OBJECT]\n"
	      "OBJECT := { " +
	      names + " }\n";
	for (const Object *o : kObjects) {
		char line[128];

		snprintf(line, sizeof(line), "  %-38s  %s\n", o->synopsis, o->purpose);
		out += line;
	}
	return out + options +
	       "\"mltcpctl OBJECT help\": an object's commands and what they take.\n";
}

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
	const Object *object = find_object(cmd.object);

	if (cmd.action == Action::Version) {
		print_version(out);
		return 0;
	}
	if (cmd.action == Action::Help || !object) {
		out << usage(cmd.help_topic);
		return 0;
	}
	return object->run(cmd, out);
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
			return "invalid cgroup: " +
			       (ack.message.empty() ? "no such cgroup" : ack.message);
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
