// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// How load and unload find each other (measured on 6.18 with libbpf 1.1):
// the three tcp_congestion_ops are plain (non-link) struct_ops maps.
// Registering one (bpf_map__attach_struct_ops, a map update) makes the kernel
// hold a reference to the map, so the registration outlives the loader
// process. "load" pins the three maps, the config, stats and jobs maps and
// the flow iterator's link under the pin directory; "unload" deletes element
// 0 of each pinned struct_ops map, which unregisters it, then removes the
// pins (the job table goes with them: jobs do not outlive the backend, as the
// module's go with the module). If the pins are gone (bpffs unmounted),
// unload finds registered struct_ops maps by name instead, as "bpftool
// struct_ops unregister" does.
#include "loader.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "flows.h"
#include "mltcp.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

namespace mltcp::bpf
{
namespace
{

constexpr std::array<const char *, 3> kAlgorithms{ "mltcp", "mltcp_reno", "mltcp_cubic" };
constexpr std::array<const char *, MLTCP_BPF_NR_STATS> kStatNames{
	"flows_started",	"iterations",
	"tx_start_in_recovery", "tx_start_data_outstanding",
	"tx_start_not_idle",	"tx_start_short_gap",
};
constexpr unsigned long kBpfFsMagic = 0xcafe4a11;
constexpr const char *kAvailable = "/proc/sys/net/ipv4/tcp_available_congestion_control";
constexpr const char *kVersion = "0.1.0";

// ---- RAII ----

struct SkelDeleter {
	void operator()(mltcp_bpf *skel) const { mltcp_bpf__destroy(skel); }
};
using Skel = std::unique_ptr<mltcp_bpf, SkelDeleter>;

struct LinkDeleter {
	void operator()(bpf_link *link) const { bpf_link__destroy(link); }
};
using Link = std::unique_ptr<bpf_link, LinkDeleter>;

// ---- errors and libbpf's messages ----

std::string g_libbpf_log;
bool g_verbose;

int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	int len;

	if (level == LIBBPF_DEBUG && !g_verbose)
		return 0;
	va_copy(copy, ap);
	len = vsnprintf(nullptr, 0, fmt, copy);
	va_end(copy);
	if (len <= 0)
		return 0;
	std::string text(static_cast<size_t>(len) + 1, '\0');
	vsnprintf(text.data(), text.size(), fmt, ap);
	text.resize(static_cast<size_t>(len));
	if (g_verbose)
		std::cerr << text;
	else
		g_libbpf_log += text;
	return 0;
}

std::string errno_text(int err)
{
	return std::strerror(err < 0 ? -err : err);
}

// The last "libbpf: ..." line, the most useful context for a one-line error.
std::string last_libbpf_line()
{
	std::istringstream in(g_libbpf_log);
	std::string line, last;

	while (std::getline(in, line)) {
		if (line.rfind("libbpf: ", 0) == 0)
			last = line.substr(8);
	}
	return last;
}

Error libbpf_error(const std::string &what, int err)
{
	std::string context = last_libbpf_line();
	std::string msg = what + ": " + errno_text(err);

	if (!context.empty())
		msg += " (" + context + ")";
	if (!g_verbose)
		msg += "; mltcp-bpf -v shows libbpf's and the verifier's log";
	return Error(msg);
}

// ---- privileges ----

// CAP_SYS_ADMIN stands in for CAP_BPF and CAP_PERFMON, as in the kernel.
void require_caps(const char *command, bool net_admin, bool perfmon)
{
	bool admin = has_capability(CAP_SYS_ADMIN);
	std::vector<std::string> missing;

	if (!admin && !has_capability(CAP_BPF))
		missing.push_back("CAP_BPF");
	if (net_admin && !has_capability(CAP_NET_ADMIN))
		missing.push_back("CAP_NET_ADMIN");
	if (perfmon && !admin && !has_capability(CAP_PERFMON))
		missing.push_back("CAP_PERFMON");
	if (missing.empty())
		return;
	std::string list;
	for (size_t i = 0; i < missing.size(); i++)
		list += (i ? " and " : "") + missing[i];
	throw Error(std::string(command) + " needs " + list +
		    ", which this process does not have: run it as root");
}

// ---- files ----

std::string pin_path(const Options &o, const char *name)
{
	return o.pin_dir + "/" + name;
}

bool exists(const std::string &path)
{
	struct stat st;

	return stat(path.c_str(), &st) == 0;
}

std::string parent_dir(const std::string &path)
{
	size_t slash = path.rfind('/');

	return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

bool on_bpffs(const std::string &path)
{
	struct statfs st;

	return statfs(path.c_str(), &st) == 0 &&
	       static_cast<unsigned long>(st.f_type) == kBpfFsMagic;
}

// Pins need bpffs; the usual place is mounted here when it is not yet.
void ensure_bpffs(const Options &o)
{
	std::string parent = parent_dir(o.pin_dir);

	if (on_bpffs(parent))
		return;
	if (parent == "/sys/fs/bpf") {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") != 0)
			throw Error("cannot mount bpffs on /sys/fs/bpf: " + errno_text(errno));
		return;
	}
	throw Error(parent + " is not on a BPF filesystem (mount -t bpf bpf " + parent + ")");
}

std::set<std::string> available_ccs()
{
	std::ifstream in(kAvailable);
	std::set<std::string> names;
	std::string name;

	while (in >> name)
		names.insert(name);
	return names;
}

Fd open_pinned(const std::string &path)
{
	return Fd(bpf_obj_get(path.c_str()));
}

Fd open_pinned_or_fail(const Options &o, const char *name)
{
	std::string path = pin_path(o, name);
	Fd fd = open_pinned(path);

	if (!fd.valid()) {
		int err = errno;
		if (err == ENOENT)
			throw Error("not loaded (" + path + " does not exist)");
		throw Error("cannot open " + path + ": " + errno_text(err));
	}
	return fd;
}

// ---- struct_ops maps in the kernel ----

struct OpsMap {
	std::string name;
	uint32_t id;
	uint32_t state;
};

const char *state_name(uint32_t state)
{
	// enum bpf_struct_ops_state
	switch (state) {
	case 0: return "init";
	case 1: return "inuse";
	case 2: return "tobefree";
	case 3: return "ready";
	default: return "unknown";
	}
}

bool is_algorithm(const std::string &name)
{
	for (const char *a : kAlgorithms) {
		if (name == a)
			return true;
	}
	return false;
}

// Every struct_ops map named like one of ours, with its state: "inuse" is
// registered, "tobefree" is unregistered but kept alive by sockets still
// using it. The value starts with the kernel's refcount and state, 4 bytes each.
std::vector<OpsMap> scan_ops_maps()
{
	std::vector<OpsMap> maps;
	uint32_t id = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		Fd fd(bpf_map_get_fd_by_id(id));
		bpf_map_info info = {};
		uint32_t len = sizeof(info);
		uint32_t key = 0;

		if (!fd.valid() || bpf_obj_get_info_by_fd(fd.get(), &info, &len) != 0 ||
		    info.type != BPF_MAP_TYPE_STRUCT_OPS || !is_algorithm(info.name) ||
		    info.value_size < 8)
			continue;
		std::vector<unsigned char> value(info.value_size);
		uint32_t state = 0xffffffff;
		if (bpf_map_lookup_elem(fd.get(), &key, value.data()) == 0)
			std::memcpy(&state, value.data() + 4, sizeof(state));
		maps.push_back({ info.name, id, state });
	}
	return maps;
}

// ---- output ----

void print_json(const Options &o, const nlohmann::json &j)
{
	std::cout << j.dump(o.pretty ? 2 : -1) << "\n";
}

nlohmann::json algorithms_json()
{
	nlohmann::json list = nlohmann::json::array();

	for (const char *a : kAlgorithms)
		list.push_back(a);
	return list;
}

// ---- load ----

// What load has done so far; undone unless commit() is reached, so a failed
// load leaves nothing registered and nothing pinned.
class PendingLoad
{
public:
	explicit PendingLoad(std::string dir) : dir_(std::move(dir)) {}
	PendingLoad(const PendingLoad &) = delete;
	PendingLoad &operator=(const PendingLoad &) = delete;
	~PendingLoad()
	{
		if (committed_)
			return;
		registrations_.clear(); // destroying a connected link unregisters
		for (auto it = pins_.rbegin(); it != pins_.rend(); ++it)
			unlink(it->c_str());
		if (made_dir_)
			rmdir(dir_.c_str());
	}

	void make_dir()
	{
		if (mkdir(dir_.c_str(), 0700) != 0)
			throw Error("cannot create " + dir_ + ": " + errno_text(errno));
		made_dir_ = true;
	}

	void pin_map(bpf_map *map, const char *name)
	{
		std::string path = dir_ + "/" + name;
		int err = bpf_map__pin(map, path.c_str());

		if (err)
			throw libbpf_error("cannot pin " + path, err);
		pins_.push_back(path);
	}

	void pin_link(bpf_link *link, const char *name)
	{
		std::string path = dir_ + "/" + name;
		int err = bpf_link__pin(link, path.c_str());

		if (err)
			throw libbpf_error("cannot pin " + path, err);
		pins_.push_back(path);
	}

	void register_ops(bpf_map *map, const char *name)
	{
		Link link(bpf_map__attach_struct_ops(map));

		if (!link) {
			int err = errno;
			if (err == EEXIST)
				throw Error(std::string(name) +
					    " is already registered (by the tcp_mltcp module or "
					    "another loader)");
			throw libbpf_error(std::string("cannot register ") + name, err);
		}
		registrations_.push_back(std::move(link));
	}

	// Keeps the registrations after the links are destroyed: the kernel's
	// reference to each registered map keeps it alive.
	void commit()
	{
		for (Link &link : registrations_)
			bpf_link__disconnect(link.get());
		committed_ = true;
	}

private:
	std::string dir_;
	bool made_dir_ = false;
	bool committed_ = false;
	std::vector<std::string> pins_;
	std::vector<Link> registrations_;
};

// Kernels before 5.9 have no TCP iterator: load the congestion control
// without the flow list rather than not at all.
Skel open_and_load(bool &with_flows)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		Skel skel(mltcp_bpf__open());

		if (!skel)
			throw libbpf_error("cannot open the BPF object", errno);
		if (attempt == 1)
			bpf_program__set_autoload(skel->progs.mltcp_flows, false);
		g_libbpf_log.clear();
		int err = mltcp_bpf__load(skel.get());
		if (!err) {
			with_flows = attempt == 0;
			return skel;
		}
		if (attempt == 0 && g_libbpf_log.find("prog 'mltcp_flows'") != std::string::npos)
			continue;
		throw libbpf_error("cannot load the BPF programs", err);
	}
	throw Error("cannot load the BPF programs");
}

int cmd_load(const Options &o)
{
	mltcp_params params;
	bool with_flows = false;
	uint32_t zero = 0;

	require_caps("load", true, true);
	mltcp_params_default(&params);
	std::string err = apply_settings(params, o.settings);
	if (!err.empty())
		throw Error(err);

	ensure_bpffs(o);
	if (exists(o.pin_dir))
		throw Error("already loaded: " + o.pin_dir + " exists (mltcp-bpf unload first)");
	std::set<std::string> available = available_ccs();
	for (const char *name : kAlgorithms) {
		if (available.count(name))
			throw Error(std::string(name) +
				    " is already registered (by the tcp_mltcp module or another "
				    "loader)");
	}

	Skel skel = open_and_load(with_flows);
	if (!with_flows)
		std::cerr << "mltcp-bpf: warning: this kernel cannot load the TCP iterator; "
			     "\"flows\" will not work\n";
	int rc = bpf_map__update_elem(skel->maps.mltcp_config, &zero, sizeof(zero), &params,
				      sizeof(params), BPF_ANY);
	if (rc)
		throw libbpf_error("cannot write the defaults", rc);

	PendingLoad pending(o.pin_dir);
	pending.make_dir();
	pending.pin_map(skel->maps.mltcp_config, MLTCP_BPF_PIN_CONFIG);
	pending.pin_map(skel->maps.mltcp_stats, MLTCP_BPF_PIN_STATS);
	pending.pin_map(skel->maps.mltcp_jobs, MLTCP_BPF_PIN_JOBS);
	Link flows;
	if (with_flows) {
		flows.reset(bpf_program__attach_iter(skel->progs.mltcp_flows, nullptr));
		if (!flows)
			throw libbpf_error("cannot create the flow iterator", errno);
		pending.pin_link(flows.get(), MLTCP_BPF_PIN_FLOWS);
	}
	pending.register_ops(skel->maps.mltcp, "mltcp");
	pending.register_ops(skel->maps.mltcp_reno, "mltcp_reno");
	pending.register_ops(skel->maps.mltcp_cubic, "mltcp_cubic");
	pending.pin_map(skel->maps.mltcp, "mltcp");
	pending.pin_map(skel->maps.mltcp_reno, "mltcp_reno");
	pending.pin_map(skel->maps.mltcp_cubic, "mltcp_cubic");

	available = available_ccs();
	for (const char *name : kAlgorithms) {
		if (!available.count(name))
			throw Error(std::string("registered ") + name + " but " + kAvailable +
				    " does not list it");
	}
	pending.commit();

	if (o.json) {
		print_json(o, { { "backend", "bpf" },
				{ "loaded", true },
				{ "pin_dir", o.pin_dir },
				{ "algorithms", algorithms_json() },
				{ "flows", with_flows },
				{ "params", params_json(params) } });
	} else {
		std::cout << "loaded mltcp mltcp_reno mltcp_cubic (pinned in " << o.pin_dir
			  << ")\ndefaults " << params_text(params) << "\n";
	}
	return 0;
}

// ---- unload ----

// Unregisters through the map: deleting element 0 of a registered
// struct_ops map. Returns true if this call unregistered it.
bool unregister_map(int fd, const std::string &what)
{
	uint32_t zero = 0;

	if (bpf_map_delete_elem(fd, &zero) == 0)
		return true;
	// EINPROGRESS: already unregistered, kept alive by sockets; ENOENT: never registered.
	if (errno == EINPROGRESS || errno == ENOENT)
		return false;
	throw Error("cannot unregister " + what + ": " + errno_text(errno));
}

int cmd_unload(const Options &o)
{
	std::vector<std::string> unregistered;
	bool pinned = exists(o.pin_dir);

	require_caps("unload", true, false);
	for (const char *name : kAlgorithms) {
		std::string path = pin_path(o, name);
		Fd fd = open_pinned(path);

		if (fd.valid()) {
			if (unregister_map(fd.get(), path))
				unregistered.push_back(name);
		} else if (errno != ENOENT) {
			throw Error("cannot open " + path + ": " + errno_text(errno));
		}
	}
	if (!pinned) {
		// Registered without our pins (bpffs remounted, or bpftool): by name.
		for (const OpsMap &m : scan_ops_maps()) {
			Fd fd(bpf_map_get_fd_by_id(m.id));

			if (m.state == 1 && fd.valid() &&
			    unregister_map(fd.get(),
					   m.name + " (map id " + std::to_string(m.id) + ")"))
				unregistered.push_back(m.name);
		}
	}
	for (const char *name : { MLTCP_BPF_PIN_FLOWS, MLTCP_BPF_PIN_CONFIG, MLTCP_BPF_PIN_STATS,
				  MLTCP_BPF_PIN_JOBS, "mltcp", "mltcp_reno", "mltcp_cubic" }) {
		std::string path = pin_path(o, name);

		if (unlink(path.c_str()) != 0 && errno != ENOENT)
			throw Error("cannot remove " + path + ": " + errno_text(errno));
	}
	if (pinned && rmdir(o.pin_dir.c_str()) != 0 && errno != ENOENT)
		throw Error("cannot remove " + o.pin_dir + ": " + errno_text(errno));
	if (!pinned && unregistered.empty())
		throw Error("not loaded (no " + o.pin_dir +
			    ", and no registered mltcp struct_ops)");

	// What survives is held by sockets that selected it before the unload,
	// or by a network namespace whose default (net.ipv4.tcp_congestion_control)
	// it is: new sockets there still get it until the default changes or the
	// namespace goes.
	nlohmann::json in_use = nlohmann::json::array();
	std::string in_use_text;
	for (const OpsMap &m : scan_ops_maps()) {
		in_use.push_back(
			{ { "name", m.name }, { "id", m.id }, { "state", state_name(m.state) } });
		in_use_text += " " + m.name + " (map id " + std::to_string(m.id) + ")";
	}
	if (o.json) {
		print_json(o, { { "backend", "bpf" },
				{ "unloaded", unregistered },
				{ "in_use", in_use } });
	} else {
		std::cout << "unloaded";
		for (const std::string &name : unregistered)
			std::cout << " " << name;
		std::cout << "\n";
		if (!in_use.empty())
			std::cout << "still in use by open sockets (or a network namespace's "
				     "default) until they go:"
				  << in_use_text << "\n";
	}
	return 0;
}

// ---- status ----

bool read_params(const Options &o, mltcp_params &params)
{
	std::string path = pin_path(o, MLTCP_BPF_PIN_CONFIG);
	Fd fd = open_pinned(path);
	bpf_map_info info = {};
	uint32_t len = sizeof(info), zero = 0;

	if (!fd.valid())
		return false;
	if (bpf_obj_get_info_by_fd(fd.get(), &info, &len) != 0 || info.value_size != sizeof(params))
		throw Error(path + " is not this version's config map");
	return bpf_map_lookup_elem(fd.get(), &zero, &params) == 0;
}

bool read_stats(const Options &o, std::array<uint64_t, MLTCP_BPF_NR_STATS> &stats)
{
	Fd fd = open_pinned(pin_path(o, MLTCP_BPF_PIN_STATS));
	int cpus = libbpf_num_possible_cpus();

	if (!fd.valid() || cpus <= 0)
		return false;
	std::vector<uint64_t> per_cpu(static_cast<size_t>(cpus));
	for (uint32_t i = 0; i < MLTCP_BPF_NR_STATS; i++) {
		if (bpf_map_lookup_elem(fd.get(), &i, per_cpu.data()) != 0)
			return false;
		stats[i] = 0;
		for (uint64_t v : per_cpu)
			stats[i] += v;
	}
	return true;
}

int cmd_status(const Options &o)
{
	std::set<std::string> available = available_ccs();
	std::vector<std::string> registered;
	mltcp_params params;
	std::array<uint64_t, MLTCP_BPF_NR_STATS> stats{};

	require_caps("status", false, false);
	for (const char *name : kAlgorithms) {
		if (available.count(name))
			registered.push_back(name);
	}
	bool pinned = exists(o.pin_dir);
	bool have_params = pinned && read_params(o, params);
	bool have_stats = pinned && read_stats(o, stats);
	bool flows = pinned && exists(pin_path(o, MLTCP_BPF_PIN_FLOWS));
	bool loaded = pinned && registered.size() == kAlgorithms.size();
	std::vector<OpsMap> maps = scan_ops_maps();

	if (o.json) {
		nlohmann::json j = { { "backend", "bpf" },	   { "loaded", loaded },
				     { "pin_dir", o.pin_dir },	   { "pinned", pinned },
				     { "registered", registered }, { "flows", flows } };
		j["params"] = have_params ? params_json(params) : nlohmann::json(nullptr);
		if (have_stats) {
			for (size_t i = 0; i < stats.size(); i++)
				j["stats"][kStatNames[i]] = stats[i];
		} else {
			j["stats"] = nullptr;
		}
		j["struct_ops"] = nlohmann::json::array();
		for (const OpsMap &m : maps)
			j["struct_ops"].push_back({ { "name", m.name },
						    { "id", m.id },
						    { "state", state_name(m.state) } });
		print_json(o, j);
		return 0;
	}
	std::cout << "backend bpf\nloaded " << (loaded ? "yes" : "no");
	if (pinned)
		std::cout << " (pinned in " << o.pin_dir << ")";
	std::cout << "\nregistered";
	for (const std::string &name : registered)
		std::cout << " " << name;
	std::cout << (registered.empty() ? " none\n" : "\n");
	if (have_params)
		std::cout << "defaults " << params_text(params) << "\n";
	if (have_stats) {
		std::cout << "stats";
		for (size_t i = 0; i < stats.size(); i++)
			std::cout << " " << kStatNames[i] << " " << stats[i];
		std::cout << "\n";
	}
	for (const OpsMap &m : maps)
		std::cout << "struct_ops " << m.name << " id " << m.id << " " << state_name(m.state)
			  << "\n";
	return 0;
}

// ---- set ----

int cmd_set(const Options &o)
{
	mltcp_params params;
	uint32_t zero = 0;

	require_caps("set", true, false);
	Fd fd = open_pinned_or_fail(o, MLTCP_BPF_PIN_CONFIG);
	if (!read_params(o, params))
		throw Error("cannot read " + pin_path(o, MLTCP_BPF_PIN_CONFIG) + ": " +
			    errno_text(errno));
	// The BPF side uses the defaults for an invalid value; start from what it uses.
	if (!mltcp_params_valid(&params))
		mltcp_params_default(&params);
	std::string err = apply_settings(params, o.settings);
	if (!err.empty())
		throw Error(err);
	if (bpf_map_update_elem(fd.get(), &zero, &params, BPF_ANY) != 0)
		throw Error("cannot write the defaults: " + errno_text(errno));
	if (o.json)
		print_json(o, { { "backend", "bpf" }, { "params", params_json(params) } });
	else
		std::cout << "defaults " << params_text(params) << "\n";
	return 0;
}

// ---- flows ----

// The iterator lists the sockets of the network namespace that opens it.
void enter_netns(const std::string &name)
{
	std::string path = "/var/run/netns/" + name;
	Fd ns(open(path.c_str(), O_RDONLY | O_CLOEXEC));

	if (!ns.valid())
		throw Error("cannot open network namespace " + path + ": " + errno_text(errno));
	if (setns(ns.get(), CLONE_NEWNET) != 0)
		throw Error("cannot enter network namespace " + name + ": " + errno_text(errno));
}

int cmd_flows(const Options &o)
{
	std::string path = pin_path(o, MLTCP_BPF_PIN_FLOWS);
	std::string text;
	char buf[16384];
	ssize_t n;

	require_caps("flows", false, false);
	if (!o.netns.empty())
		enter_netns(o.netns);
	Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
	if (!fd.valid()) {
		int err = errno;
		if (err == ENOENT)
			throw Error(exists(o.pin_dir)
					    ? "this kernel has no flow list (no TCP iterator)"
					    : "not loaded (" + path + " does not exist)");
		throw Error("cannot open " + path + ": " + errno_text(err));
	}
	while ((n = read(fd.get(), buf, sizeof(buf))) > 0)
		text.append(buf, static_cast<size_t>(n));
	if (n < 0)
		throw Error("cannot read " + path + ": " + errno_text(errno));

	std::istringstream in(text);
	std::string line;
	nlohmann::json list = nlohmann::json::array();
	while (std::getline(in, line)) {
		if (line.empty())
			continue;
		if (!o.json) {
			std::cout << tidy_flow_line(line) << "\n";
			continue;
		}
		auto flow = parse_flow_line(line);
		if (!flow)
			throw Error("unexpected line from the flow iterator: " + line);
		list.push_back(*flow);
	}
	if (o.json)
		print_json(o, list);
	return 0;
}

} // namespace

bool has_capability(int cap)
{
	__user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
	__user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &header, data) != 0)
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

int run(const Options &o)
{
	g_verbose = o.verbose;
	libbpf_set_print(print_libbpf);

	switch (o.command) {
	case Command::Load: return cmd_load(o);
	case Command::Unload: return cmd_unload(o);
	case Command::Status: return cmd_status(o);
	case Command::Set: return cmd_set(o);
	case Command::Flows: return cmd_flows(o);
	case Command::Version:
		std::cout << "mltcp-bpf " << kVersion << " (libbpf " << libbpf_major_version()
			  << "." << libbpf_minor_version() << ")\n";
		return 0;
	case Command::Help: std::cout << usage(); return 0;
	}
	return 0;
}

} // namespace mltcp::bpf
