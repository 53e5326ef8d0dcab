// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl ackmark add|del|show": the pure-ACK marker (bpf/ackmark.bpf.c)
// on a device's clsact egress hook, in the network namespace mltcpctl runs
// in. libbpf's tc API attaches it; the filter holds the program after
// mltcpctl exits, and "show" and "del" find it again by its handle and
// priority (bpf/mltcp_ackmark.h) and tell it from another program by its name.
#ifndef MLTCPCTL_ACKMARK_H
#define MLTCPCTL_ACKMARK_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mltcp_ackmark.h"
#include "output.h"

namespace mltcpctl::ackmark
{

// Name of a counter, by index (< MLTCP_ACKMARK_NR_STATS).
inline const char *stat_name(unsigned index)
{
	switch (index) {
	case MLTCP_ACKMARK_STAT_MARKED: return "marked";
	case MLTCP_ACKMARK_STAT_LEFT: return "left";
	}
	return "?";
}

// What sits at our handle and priority on a device's egress hook.
struct Marker {
	std::string dev;
	uint32_t ifindex = 0;
	uint32_t prog_id = 0; // 0: a filter of another kind than BPF
	// Whether the program is MLTCP_ACKMARK_PROG_NAME (by the filter's
	// name; with CAP_SYS_ADMIN, confirmed from the program itself).
	std::optional<bool> ours;
	// Ours only, and only with CAP_SYS_ADMIN (maps read by id).
	std::optional<uint32_t> dscp;
	std::optional<std::array<uint64_t, MLTCP_ACKMARK_NR_STATS>> stats;
};

// Attaches a marker giving pure ACKs leaving dev this DSCP. Throws Error: no
// such device, not Ethernet, a filter already there, no privilege.
void add(const std::string &dev, uint32_t dscp);
// Detaches ours from dev; another program at our place is left alone (Error).
void del(const std::string &dev);
// The markers of dev, or of every device of the namespace; without
// CAP_SYS_ADMIN, without their DSCP and counts.
std::vector<Marker> show(const std::optional<std::string> &dev);

} // namespace mltcpctl::ackmark

namespace mltcpctl
{

// A device's pure-ACK marker: "dev eth0 dscp 46 marked 120 left 3075"; a
// filter of another program at its place is named as such.
void print_ackmark(Printer &p, const ackmark::Marker &m);

} // namespace mltcpctl

#endif // MLTCPCTL_ACKMARK_H
