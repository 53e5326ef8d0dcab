// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "backend.h"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "args.h"
#ifdef MLTCPCTL_BPF
#include "bpf_loader.h"
#endif
#include "defaults.h"
#include "fd.h"
#include "mltcp_bpf.h"
#include "netlink.h"
#include "uapi/mltcp.h"

namespace mltcpctl
{

#ifdef MLTCPCTL_BPF
std::unique_ptr<Backend> open_bpf_backend(const std::string &dir); // bpf_backend.cc
#endif

namespace
{

const char kNoModule[] = "the tcp_mltcp module is not loaded (no generic netlink family "
			 "\"" MLTCP_GENL_NAME "\")";
const char kNoBpf[] = "the BPF backend is not loaded (no " MLTCP_BPF_PIN_DIR "; mltcpctl bpf load)";
const char kBpfHidden[] = "the BPF backend cannot be seen from here: no " MLTCP_BPF_PIN_DIR
			  " (/sys/fs/bpf is no bpffs here: ip netns exec's or a container's "
			  "own sysfs), nor through /proc/1/root; enter the network namespace "
			  "alone (nsenter --net) or mount the host's /sys/fs/bpf here (mltcpctl(8), "
			  "BACKENDS)";
const char kBpfNoAccess[] = "permission denied: the BPF backend (" MLTCP_BPF_PIN_DIR
			    ") is root's: its jobs, flows and defaults need CAP_BPF, changing "
			    "them also CAP_NET_ADMIN";

// The module's defaults: the namespace's net.mltcp.* sysctls (what the
// calling process's network namespace shows under /proc/sys/net) and the
// module parameters, which are global and hold the mode.
const char kSysctlDir[] = "/proc/sys/net/mltcp/";
const char kParamDir[] = "/sys/module/tcp_mltcp/parameters/";

std::string default_path(mltcp_param which, bool global)
{
	return std::string(global || which == MLTCP_PARAM_MODE ? kParamDir : kSysctlDir) +
	       mltcp_param_name(which);
}

u32 read_default(mltcp_param which, bool global)
{
	std::string path = default_path(which, global), text;
	std::ifstream in(path);
	u32 value;

	if (!in)
		throw Error("cannot read " + path + ": " + strerror(errno));
	std::getline(in, text);
	if (mltcp_param_parse(which, text.c_str(), &value) != 0)
		throw Error("unexpected value in " + path + ": \"" + text + "\"");
	return value;
}

// The inodes of the initial user and PID namespaces, as every kernel
// numbers them (PROC_USER_INIT_INO, PROC_PID_INIT_INO, include/linux/proc_ns.h).
constexpr ino_t kInitUserNsInode = 0xEFFFFFFDU;
constexpr ino_t kInitPidNsInode = 0xEFFFFFFCU;

// The module's bound_netns: whether namespaces of the initial user
// namespace are bounded too. A module without the parameter did not.
bool bound_netns()
{
	std::ifstream in(std::string(kParamDir) + "bound_netns");
	std::string text;

	return in && std::getline(in, text) && text == "Y";
}

// Whether the calling process's network namespace is bounded
// (mltcp_net_bound()): every one but the host's, or with bound_netns off,
// those owned by a user namespace other than the initial one; nullopt if
// that cannot be told, and then the kernel decides alone. The host's has
// no fixed inode: it is the one of the initial PID namespace's init.
std::optional<bool> netns_bounded()
{
	mltcp::Fd net(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
	struct stat st, self, init;

	if (!net.valid() || fstat(net.get(), &self) != 0)
		return std::nullopt;
	mltcp::Fd owner(ioctl(net.get(), NS_GET_USERNS));
	if (!owner.valid() || fstat(owner.get(), &st) != 0)
		return std::nullopt;
	if (st.st_ino != kInitUserNsInode)
		return true;
	if (!bound_netns())
		return false;
	if (stat("/proc/self/ns/pid", &st) != 0 || st.st_ino != kInitPidNsInode ||
	    stat("/proc/1/ns/net", &init) != 0)
		return std::nullopt;
	return self.st_dev != init.st_dev || self.st_ino != init.st_ino;
}

// The bound the kernel checks the calling namespace's line against
// (mltcp_f_line_check()): the host's line, the module parameters, where
// the namespace is bounded; nullopt where it is not (global: the module
// parameters themselves) or where that cannot be told, and then the
// kernel decides alone. The parameters read back exactly
// (mltcp_format_setting()); read as two values, a host's change between
// the reads can be seen half done, and then the kernel's answer holds.
std::optional<mltcp_line> namespace_bound(bool global)
{
	if (global || !netns_bounded().value_or(false))
		return std::nullopt;
	try {
		return mltcp_line{ read_default(MLTCP_PARAM_SLOPE, true),
				   read_default(MLTCP_PARAM_INTERCEPT, true) };
	} catch (const Error &) {
		return std::nullopt;
	}
}

std::string given_text(const DefaultsChange &change, std::initializer_list<mltcp_param> which)
{
	std::string text;

	for (mltcp_param p : which) {
		if (change.has(p))
			text += std::string(text.empty() ? "" : " ") + mltcp_param_name(p) + " " +
				change.text[p];
	}
	return text;
}

// The order to write the defaults in: each sysctl or parameter is checked
// by the kernel with the values the others have at that moment, and slope
// and intercept are checked as a line. Checks the line they make after the
// change, as the kernel will (bounded where it is), and orders the two so
// that the line is allowed after each write. Throws Error if it is not, or
// cannot be reached one write at a time.
std::vector<mltcp_param> write_order(const DefaultsChange &change, bool global)
{
	std::vector<mltcp_param> order;
	bool slope = change.has(MLTCP_PARAM_SLOPE), intercept = change.has(MLTCP_PARAM_INTERCEPT);

	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		if (change.has(static_cast<mltcp_param>(i)))
			order.push_back(static_cast<mltcp_param>(i));
	}
	if (!slope && !intercept)
		return order;
	u32 old_slope = read_default(MLTCP_PARAM_SLOPE, global);
	u32 old_intercept = read_default(MLTCP_PARAM_INTERCEPT, global);
	u32 new_slope = slope ? change.values.slope : old_slope;
	u32 new_intercept = intercept ? change.values.intercept : old_intercept;
	std::optional<mltcp_line> host = namespace_bound(global);
	const mltcp_line *bound = host ? &*host : nullptr;
	std::string what = given_text(change, { MLTCP_PARAM_SLOPE, MLTCP_PARAM_INTERCEPT });

	if (auto err = mltcp_f_line_check(new_slope, new_intercept, bound))
		throw Error(what + ": " + mltcp_job_strerror(err));
	if (!slope || !intercept ||
	    mltcp_f_line_check(new_slope, old_intercept, bound) == MLTCP_JOB_OK)
		return order;
	if (mltcp_f_line_check(old_slope, new_intercept, bound) != MLTCP_JOB_OK)
		throw Error(what + ": not reachable one sysctl at a time from slope " +
			    format_fixed(old_slope) + " intercept " + format_fixed(old_intercept) +
			    " (either order passes a refused line): change one of them first");
	std::swap(order[0], order[1]); // the intercept first
	return order;
}

// The kernel's reason for refusing a value mltcpctl found valid.
std::string refusal(mltcp_param which, int err)
{
	bool line = which == MLTCP_PARAM_SLOPE || which == MLTCP_PARAM_INTERCEPT;

	if (line && err == EPERM)
		return mltcp_job_strerror(MLTCP_JOB_E_BOUND);
	if (line && err == EINVAL)
		return mltcp_job_strerror(MLTCP_JOB_E_F_ZERO); // changed under us
	if (err == EPERM || err == EACCES)
		return "permission denied";
	return strerror(err);
}

// Progress priority: the namespace's net.mltcp.prio_* sysctls (no module
// parameter: it is each namespace's own), where the module has them.
std::string prio_path(const char *sysctl)
{
	return std::string(kSysctlDir) + sysctl;
}

bool module_has_prio()
{
	return access(prio_path("prio_classes").c_str(), F_OK) == 0;
}

std::string read_sysctl(const std::string &path)
{
	std::ifstream in(path);
	std::string text;

	if (!in || !std::getline(in, text))
		throw Error("cannot read " + path + ": " + strerror(errno));
	return text;
}

mltcp_prio_config read_prio()
{
	mltcp_prio_config pc;
	std::string classes = read_sysctl(prio_path("prio_classes"));
	std::string codes = read_sysctl(prio_path("prio_dscp"));
	std::string none = read_sysctl(prio_path("prio_none_dscp"));
	auto k = parse_uint(classes), n = parse_uint(none);

	mltcp_prio_config_default(&pc);
	if (!k || *k > MLTCP_PRIO_CLASSES_MAX || !n || *n > MLTCP_DSCP_MAX ||
	    mltcp_prio_dscp_parse(codes.c_str(), &pc) != MLTCP_PRIO_CLASSES_MAX)
		throw Error("unexpected values in " + std::string(kSysctlDir) +
			    "prio_*: \"" + classes + "\", \"" + codes + "\", \"" + none + "\"");
	pc.classes = static_cast<u8>(*k);
	pc.none_dscp = static_cast<u8>(*n);
	return pc;
}

// The writes of a change of progress priority, checked whole first; opened
// (a refusal before anything is written) by the caller.
std::vector<PrioWrite> prio_plan(const PrioChange &change, bool global)
{
	if (global)
		throw Error("prio: the module's progress priority is each network namespace's "
			    "own (net.mltcp.prio_*), not global: defaults set prio ..., without "
			    "global");
	if (!module_has_prio())
		throw Error("progress priority: not supported by this tcp_mltcp module (no "
			    "net.mltcp.prio_classes); use the BPF twin or a newer module");
	mltcp_prio_config from = read_prio(), to = from;
	std::string err = change.apply(to);
	if (!err.empty())
		throw Error(err);
	return prio_writes(from, to);
}

// Opens every file first, so that a refusal (permission, a file missing)
// comes before anything is written; then writes them in write_order(),
// then progress priority's in prio_writes()' order.
void write_defaults(const DefaultsChange &change, bool global)
{
	std::array<mltcp::Fd, MLTCP_NR_PARAMS> fds;
	std::vector<PrioWrite> prio;
	std::vector<mltcp::Fd> prio_fds;

	if (change.has(MLTCP_PARAM_MODE) && !global)
		throw Error("mode: global only (defaults set global mode MODE)");
	if (change.prio.given())
		prio = prio_plan(change.prio, global);
	for (const PrioWrite &w : prio) {
		std::string path = prio_path(w.sysctl);

		prio_fds.emplace_back(open(path.c_str(), O_WRONLY | O_CLOEXEC));
		if (prio_fds.back().valid())
			continue;
		if (errno == EACCES || errno == EPERM)
			throw Error("permission denied: changing the defaults needs CAP_NET_ADMIN");
		throw Error("cannot open " + path + ": " + strerror(errno));
	}
	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		auto which = static_cast<mltcp_param>(i);
		std::string path = default_path(which, global);

		if (!change.has(which))
			continue;
		fds[i] = mltcp::Fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
		if (fds[i].valid())
			continue;
		if (errno == EACCES || errno == EPERM)
			throw Error("permission denied: changing the defaults needs CAP_NET_ADMIN");
		throw Error("cannot open " + path + ": " + strerror(errno));
	}
	for (mltcp_param which : write_order(change, global)) {
		std::string text = change.text[which] + "\n";

		if (write(fds[which].get(), text.data(), text.size()) !=
		    static_cast<ssize_t>(text.size()))
			throw Error(std::string(mltcp_param_name(which)) + " " +
				    change.text[which] + ": refused by the kernel (" +
				    refusal(which, errno) + ")");
	}
	for (size_t i = 0; i < prio.size(); i++) {
		std::string text = prio[i].text + "\n";

		if (write(prio_fds[i].get(), text.data(), text.size()) !=
		    static_cast<ssize_t>(text.size()))
			throw Error(std::string("net.mltcp.") + prio[i].sysctl + " " + prio[i].text +
				    ": refused by the kernel (" + strerror(errno) + ")");
	}
}

class KmodBackend : public Backend
{
public:
	KmodBackend(std::unique_ptr<Client> client) : client_(std::move(client))
	{
		if (client_->version() < MLTCP_GENL_VERSION)
			throw Error("the loaded tcp_mltcp speaks mltcp netlink version " +
					    std::to_string(client_->version()) +
					    ", mltcpctl needs " +
					    std::to_string(MLTCP_GENL_VERSION),
				    EPROTO);
	}
	const char *name() const override { return "kmod"; }
	void add_job(const Job &job) override { client_->add_job(job); }
	void set_job(const Job &job) override { client_->set_job(job); }
	void del_job(uint32_t id) override { client_->del_job(id); }
	void mark_job(uint32_t id, std::optional<uint32_t> step) override
	{
		client_->mark_job(id, step);
	}
	Job get_job(uint32_t id) override { return client_->get_job(id); }
	std::vector<Job> jobs() override { return client_->jobs(); }
	std::vector<Flow> flows(std::optional<uint32_t> job) override
	{
		std::vector<Flow> flows = client_->flows(job);

		// The class of each flow's DSCP under its namespace's progress priority.
		if (module_has_prio()) {
			mltcp_prio_config pc = read_prio();
			for (Flow &flow : flows)
				if (flow.dscp)
					flow.prio_class = prio_class_of(pc, *flow.dscp);
		}
		return flows;
	}
	Stats stats() override { return client_->stats(); }
	Defaults defaults(bool global) override
	{
		Defaults d{ name(), global, {}, std::nullopt };

		for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
			auto which = static_cast<mltcp_param>(i);
			mltcp_param_set(&d.params, which, read_default(which, global));
		}
		// The namespace's own; none globally, nor from a module without it.
		if (!global && module_has_prio())
			d.prio = read_prio();
		return d;
	}
	void set_defaults(const DefaultsChange &change, bool global) override
	{
		write_defaults(change, global);
	}

private:
	std::unique_ptr<Client> client_;
};

} // namespace

// `ip netns exec` (and a container's own sysfs) mounts a fresh sysfs over
// /sys in a mount namespace of its own, which hides the host's bpffs and
// the pins in it; mounting bpffs again would make another instance, empty.
// /proc/1/root resolves the path in init's mount namespace, where they
// are, so a marking process in such a namespace reaches the host's twin.
// Following that link needs what the maps need anyway: root.
const std::vector<std::string> &bpf_pin_dirs()
{
	static const std::vector<std::string> dirs = { MLTCP_BPF_PIN_DIR,
						       "/proc/1/root" MLTCP_BPF_PIN_DIR };
	return dirs;
}

PinState probe_pin(const std::vector<std::string> &dirs, std::string *found)
{
	bool blocked = false;
	struct stat st;

	for (size_t i = 0; i < dirs.size(); i++) {
		if (stat(dirs[i].c_str(), &st) == 0) {
			*found = dirs[i];
			return PinState::Present;
		}
		// The first place's answer is the process's own; a later one it
		// may not follow (PID 1's root) leaves the pins unknown.
		if (errno == EACCES || errno == EPERM) {
			if (i == 0)
				return PinState::NoAccess;
			blocked = true;
		}
	}
	return blocked ? PinState::Hidden : PinState::Absent;
}

bool have_bpf_backend()
{
#ifdef MLTCPCTL_BPF
	return true;
#else
	return false;
#endif
}

Selection select_backend(BackendKind requested, const Probe &probe)
{
	switch (requested) {
	case BackendKind::Kmod:
		if (probe.kmod)
			return { BackendKind::Kmod, "" };
		return { std::nullopt, kNoModule };
	case BackendKind::Bpf:
		if (probe.bpf == PinState::Present)
			return { BackendKind::Bpf, "" };
		return { std::nullopt, probe.bpf == PinState::NoAccess ? kBpfNoAccess
				       : probe.bpf == PinState::Hidden ? kBpfHidden
								       : kNoBpf };
	case BackendKind::Auto: break;
	}
	if (probe.kmod)
		return { BackendKind::Kmod, "" };
	if (probe.bpf == PinState::Present)
		return { BackendKind::Bpf, "" };
	if (probe.bpf == PinState::NoAccess)
		return { std::nullopt, std::string("the tcp_mltcp module is not loaded, and ") +
					       "only root may see whether the BPF backend is (" +
					       MLTCP_BPF_PIN_DIR + ")" };
	if (probe.bpf == PinState::Hidden)
		return { std::nullopt, std::string("no MLTCP backend: the tcp_mltcp module is not "
						   "loaded, and ") + kBpfHidden };
	return { std::nullopt, "no MLTCP backend: the tcp_mltcp module is not loaded (no generic "
			       "netlink family \"" MLTCP_GENL_NAME "\") and the BPF backend is "
			       "not loaded (no " MLTCP_BPF_PIN_DIR "); load one: modprobe "
			       "tcp_mltcp, or mltcpctl bpf load" };
}

std::unique_ptr<Backend> open_backend(BackendKind requested)
{
	std::unique_ptr<Client> client;
	Probe probe;

	if (requested != BackendKind::Bpf) {
		try {
			client = std::make_unique<Client>();
			probe.kmod = true;
		} catch (const KernelError &e) {
			// Only "no such family" means "no module"; anything else is a
			// real failure of the module's backend and is reported as such.
			if (e.cmd != 0 || e.ack.error != ENOENT)
				throw;
		}
	}
	if (!probe.kmod && requested != BackendKind::Kmod) {
		probe.bpf = probe_pin(bpf_pin_dirs(), &probe.bpf_dir);
#ifdef MLTCPCTL_BPF
		// Where /sys/fs/bpf is the bpffs, nothing hides the pins: not loaded.
		if (probe.bpf == PinState::Hidden && bpf::on_bpffs("/sys/fs/bpf"))
			probe.bpf = PinState::Absent;
#endif
	}

	Selection s = select_backend(requested, probe);
	if (!s.kind) // libmltcp's errno: there but not this process's to reach, or none
		throw Error(s.error, probe.bpf == PinState::NoAccess ? EACCES : ENODEV);
	if (*s.kind == BackendKind::Kmod)
		return std::make_unique<KmodBackend>(std::move(client));
#ifdef MLTCPCTL_BPF
	return open_bpf_backend(probe.bpf_dir);
#else
	throw Error("this mltcpctl was built without the BPF backend (libbpf-dev missing at "
		    "build time)",
		    EOPNOTSUPP);
#endif
}

std::unique_ptr<Backend> open_backend(const Options &options, bool jobs)
{
	std::unique_ptr<Backend> backend = open_backend(options.backend);

	if (jobs && !options.netns.empty() && std::string(backend->name()) == "bpf")
		throw Error("-n: the BPF backend's jobs are one table for the host, not per "
			    "network namespace (drop -n; jobs can match on peer and ports)");
	return backend;
}

} // namespace mltcpctl
