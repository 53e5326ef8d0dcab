// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF backend's life cycle, for "mltcpctl bpf load|unload|status": libbpf,
// the generated skeleton of bpf/mltcp.bpf.c, and the bpffs pins that let the
// other commands find what "load" registered after mltcpctl exited. Returns
// what it did; the caller prints it.
#ifndef MLTCPCTL_BPF_LOADER_H
#define MLTCPCTL_BPF_LOADER_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fd.h"
#include "mltcp_bpf.h"
#include "error.h"

namespace mltcpctl::bpf
{

using mltcp::Fd;

// The three algorithms, as registered and pinned.
extern const std::array<const char *, 3> kAlgorithms;
// Name of a counter of the stats map, by index (< MLTCP_BPF_NR_STATS).
const char *stat_name(unsigned index);

// Whether this process has the capability (effective set), e.g. CAP_NET_ADMIN.
bool has_capability(int cap);

// Whether path is on a bpffs (the pins' filesystem).
bool on_bpffs(const std::string &path);

// CAP_BPF (or CAP_SYS_ADMIN), and CAP_NET_ADMIN or CAP_PERFMON when asked;
// throws Error naming what is missing, before anything is touched.
void require_caps(const std::string &command, bool net_admin, bool perfmon);

// A libbpf call's failure as a one-line Error: what, errno's text, and
// libbpf's last message.
Error libbpf_error(const std::string &what, int err);

// libbpf's messages: the last one completes a one-line error; with debug
// they all go to stderr as they come.
void set_debug(bool debug);

// A struct_ops map named like one of ours, with the kernel's state of it:
// "inuse" is registered, "tobefree" unregistered but kept by sockets.
struct OpsMap {
	std::string name;
	uint32_t id = 0;
	uint32_t state = 0;
};
const char *state_name(uint32_t state);

// Registers the three algorithms with these defaults and pins everything.
// flows: false when the kernel cannot load the TCP iterator (no procfs).
// cwnd_stamp: whether an iteration's restart refreshes snd_cwnd_stamp as
// the module's does (kernels that let BPF write it, 6.10 and later).
// A failed load leaves nothing registered and nothing pinned.
struct Loaded {
	bool flows = false;
	bool cwnd_stamp = false;
};
Loaded load(const mltcp_params &defaults, const mltcp_prio_config &prio);

// Unregisters through the pins, or by name when there are none.
struct Unloaded {
	std::vector<std::string> unloaded;
	std::vector<OpsMap> in_use;   // held by sockets or a namespace's default
	std::vector<OpsMap> not_ours; // named like ours, running other programs: left alone
};
Unloaded unload();

struct Status {
	bool loaded = false;
	bool pinned = false;
	bool flows = false;
	std::vector<std::string> registered;
	std::optional<mltcp_params> params;
	std::optional<mltcp_prio_config> prio;
	std::optional<std::array<uint64_t, MLTCP_BPF_NR_STATS>> stats;
	std::vector<OpsMap> struct_ops;
};
Status status();

// The maps below are opened in dir, the pin directory as the caller
// reaches it (bpf_pin_dirs(), backend.h).

// The stats map's counters summed over the CPUs, by index (MLTCP_BPF_STAT_*);
// nullopt if it cannot be read.
std::optional<std::array<uint64_t, MLTCP_BPF_NR_STATS>>
read_stats(const std::string &dir = MLTCP_BPF_PIN_DIR);

// The pinned config map, checked to be this version's; throws Error.
Fd open_config(const std::string &dir = MLTCP_BPF_PIN_DIR);
// The defaults flows latch: the map's value, or the built-in defaults when
// it holds none valid (as the BPF side does).
mltcp_params read_defaults(const Fd &config);
// Defaults the BPF side latches as they are; throws Error with the reason.
void check_defaults(const mltcp_params &defaults);
void write_defaults(const Fd &config, const mltcp_params &defaults);

// The pinned prio map (progress priority), checked to be this version's;
// throws Error (a backend loaded by an older mltcpctl has none).
Fd open_prio(const std::string &dir = MLTCP_BPF_PIN_DIR);
// Its configuration: the map's value, or off with the default DSCPs when it
// holds none valid (as the BPF side treats it: off).
mltcp_prio_config read_prio(const Fd &prio);
// Writes a configuration mltcp_prio_config_valid() accepts; throws Error.
void write_prio(const Fd &prio, const mltcp_prio_config &pc);

// "libbpf 1.1"
std::string libbpf_version();

} // namespace mltcpctl::bpf

#endif // MLTCPCTL_BPF_LOADER_H
