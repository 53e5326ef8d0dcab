// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "commands.h"
#include "fd.h"
#include "mltcp_bpf.h"
#include "netlink.h"
#include "uapi/mltcp.h"

namespace mltcpctl
{

#ifdef MLTCPCTL_BPF
std::unique_ptr<Backend> open_bpf_backend(); // bpf_backend.cc
#endif

namespace
{

const char kNoModule[] = "the tcp_mltcp module is not loaded (no generic netlink family "
			 "\"" MLTCP_GENL_NAME "\")";
const char kNoBpf[] = "the BPF backend is not loaded (no " MLTCP_BPF_PIN_DIR "; mltcpctl bpf load)";
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

// Opens every file first, so that a refusal (permission, a file missing)
// comes before anything is written; then writes them in order.
void write_defaults(const DefaultsChange &change, bool global)
{
	std::array<mltcp::Fd, MLTCP_NR_PARAMS> fds;

	if (change.has(MLTCP_PARAM_MODE) && !global)
		throw Error("mode: global only (defaults set global mode MODE)");
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
	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		auto which = static_cast<mltcp_param>(i);
		std::string text = change.text[i] + "\n";

		if (!fds[i].valid())
			continue;
		if (write(fds[i].get(), text.data(), text.size()) !=
		    static_cast<ssize_t>(text.size()))
			throw Error(std::string(mltcp_param_name(which)) + " " + change.text[i] +
				    ": refused by the kernel (" +
				    (errno == EPERM || errno == EACCES ? "permission denied"
								       : strerror(errno)) +
				    ")");
	}
}

class KmodBackend : public Backend
{
public:
	KmodBackend(std::unique_ptr<Client> client) : client_(std::move(client))
	{
		if (client_->version() < MLTCP_GENL_VERSION)
			throw Error("the loaded tcp_mltcp speaks mltcp netlink version " +
				    std::to_string(client_->version()) + ", mltcpctl needs " +
				    std::to_string(MLTCP_GENL_VERSION));
	}
	const char *name() const override { return "kmod"; }
	void add_job(const Job &job) override { client_->add_job(job); }
	void set_job(const Job &job) override { client_->set_job(job); }
	void del_job(uint32_t id) override { client_->del_job(id); }
	Job get_job(uint32_t id) override { return client_->get_job(id); }
	std::vector<Job> jobs() override { return client_->jobs(); }
	std::vector<Flow> flows(std::optional<uint32_t> job) override
	{
		return client_->flows(job);
	}
	Defaults defaults(bool global) override
	{
		Defaults d{ name(), global, {} };

		for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
			auto which = static_cast<mltcp_param>(i);
			mltcp_param_set(&d.params, which, read_default(which, global));
		}
		return d;
	}
	void set_defaults(const DefaultsChange &change, bool global) override
	{
		write_defaults(change, global);
	}

private:
	std::unique_ptr<Client> client_;
};

PinState probe_pin()
{
	struct stat st;

	if (stat(MLTCP_BPF_PIN_DIR, &st) == 0)
		return PinState::Present;
	return errno == EACCES || errno == EPERM ? PinState::NoAccess : PinState::Absent;
}

} // namespace

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
		return { std::nullopt, probe.bpf == PinState::NoAccess ? kBpfNoAccess : kNoBpf };
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
	return { std::nullopt, "no MLTCP backend: the tcp_mltcp module is not loaded (no generic "
			       "netlink family \"" MLTCP_GENL_NAME "\") and the BPF backend is "
			       "not loaded (no " MLTCP_BPF_PIN_DIR ")" };
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
	if (!probe.kmod && requested != BackendKind::Kmod)
		probe.bpf = probe_pin();

	Selection s = select_backend(requested, probe);
	if (!s.kind)
		throw Error(s.error);
	if (*s.kind == BackendKind::Kmod)
		return std::make_unique<KmodBackend>(std::move(client));
#ifdef MLTCPCTL_BPF
	return open_bpf_backend();
#else
	throw Error("this mltcpctl was built without the BPF backend (libbpf-dev missing at "
		    "build time)");
#endif
}

} // namespace mltcpctl
