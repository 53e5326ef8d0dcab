// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The datapath behind the job, flow and defaults commands: the tcp_mltcp
// module over generic netlink and its sysctls and parameters, or the BPF
// struct_ops twin through its pinned maps. Both
// take and return the same model (model.h), so the printer, the grammar and
// the JSON are one for both.
#ifndef MLTCPCTL_BACKEND_H
#define MLTCPCTL_BACKEND_H

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model.h"

namespace mltcpctl
{

class Backend
{
public:
	virtual ~Backend() = default;
	virtual const char *name() const = 0; // "kmod" or "bpf"
	virtual void add_job(const Job &job) = 0;
	virtual void set_job(const Job &job) = 0;
	virtual void del_job(uint32_t id) = 0;
	// An iteration of the job starts (its marked flows follow the marks), of
	// step if given: the count moves unless step is the last one marked.
	virtual void mark_job(uint32_t id, std::optional<uint32_t> step) = 0;
	virtual Job get_job(uint32_t id) = 0;
	virtual std::vector<Job> jobs() = 0;
	virtual std::vector<Flow> flows(std::optional<uint32_t> job) = 0;
	// The iteration detector's verdict counts: the network namespace's
	// (kmod) or the host's (bpf).
	virtual Stats stats() = 0;
	// The defaults of new flows: global, or this network namespace's.
	virtual Defaults defaults(bool global) = 0;
	// Writes the given settings, all or none; throws Error.
	virtual void set_defaults(const DefaultsChange &change, bool global) = 0;
};

// What auto-selection looks at.
enum class PinState {
	Present,  // the BPF backend's pin directory exists
	Absent,	  // it does not
	NoAccess, // this process may not look (bpffs is root's)
};

struct Probe {
	bool kmod = false; // the generic netlink family "mltcp" resolves
	PinState bpf = PinState::Absent;
};

struct Selection {
	std::optional<BackendKind> kind; // set on success
	std::string error;		 // one line, on failure
};

// Pure: which backend to use, or why none can be. requested Auto prefers
// the module, whose jobs are per network namespace.
Selection select_backend(BackendKind requested, const Probe &probe);

// Probes what is needed (the family only unless the module is refused or
// absent; the pin directory only when it matters) and opens the backend.
// Throws Error with the selection's message.
std::unique_ptr<Backend> open_backend(BackendKind requested);

// The backend a command's options ask for, opened. jobs: the command reads
// or changes jobs, which the BPF backend keeps one table of for the host:
// refused with -n, where they would silently apply to every namespace.
std::unique_ptr<Backend> open_backend(const Options &options, bool jobs);

// Whether this mltcpctl was built with the BPF backend (libbpf found).
bool have_bpf_backend();

} // namespace mltcpctl

#endif // MLTCPCTL_BACKEND_H
