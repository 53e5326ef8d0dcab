/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the pure-ACK marker (ackmark.bpf.c) and mltcpctl ("ackmark add|del|
 * show") agree on: the tc filter's identity, the maps' names and layouts.
 *
 * Why it exists: two jobs that exchange gradients lose their interleaving
 * because each job's ACKs wait behind the other job's data in the
 * bottleneck's queue (docs/research/interleaving-on-the-host.md, "the reverse path"). A
 * switch can serve ACKs first only if it can tell them apart; this marker
 * gives every pure ACK a host sends one DSCP, which the fabric then maps to a
 * strict-priority class. The switch's part is the operator's.
 */
#ifndef MLTCP_ACKMARK_H
#define MLTCP_ACKMARK_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/*
 * The filter on the device's clsact egress hook: this handle at this
 * priority (tc's "pref"), direct action. Other filters on the hook are left
 * alone; ours runs first among those of higher pref and passes every packet
 * on (TC_ACT_UNSPEC), so the filters after it still see the packet.
 */
#define MLTCP_ACKMARK_TC_HANDLE 0x4d4cU
#define MLTCP_ACKMARK_TC_PRIORITY 1U
/* The program's name, by which mltcpctl tells its filter from another one. */
#define MLTCP_ACKMARK_PROG_NAME "mltcp_ackmark"

/* The six DSCP bits of the IPv4 TOS / IPv6 traffic class byte. */
#define MLTCP_ACKMARK_DSCP_MAX 63U

/*
 * ackmark_config: BPF_MAP_TYPE_ARRAY, one entry (key 0). Written once by
 * "mltcpctl ackmark add" before the filter is attached; each device's filter
 * has its own program and maps.
 */
struct mltcp_ackmark_config {
	__u32 dscp; /* 0..MLTCP_ACKMARK_DSCP_MAX */
};

/*
 * ackmark_stats: BPF_MAP_TYPE_PERCPU_ARRAY of __u64, by index:
 *   MARKED  pure ACKs (no payload; ACK set; SYN, FIN and RST clear) that
 *           left with the DSCP;
 *   LEFT    other TCP segments, left as they were (data, SYN, FIN, RST).
 * Packets that are not TCP over IPv4 or IPv6 (or whose headers are not in
 * the linear part, or carry IPv6 extension headers) are not counted.
 */
enum mltcp_ackmark_stat {
	MLTCP_ACKMARK_STAT_MARKED,
	MLTCP_ACKMARK_STAT_LEFT,
	MLTCP_ACKMARK_NR_STATS,
};

#endif /* MLTCP_ACKMARK_H */
