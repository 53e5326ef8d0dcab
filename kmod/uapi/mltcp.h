/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The "mltcp" generic netlink family: training jobs, their flows, and the
 * namespace's counters.
 *
 * Shared, unchanged, by the kernel module (kmod/mltcp_genl.c) and by
 * mltcpctl, so the two cannot drift; spec/mltcp.yaml describes the same
 * family in the kernel's netlink-spec format and a test checks that the
 * three agree.
 *
 * Units: slope, intercept, r and F are fixed point with
 * MLTCP_GENL_FIXED_SHIFT fractional bits (1.0 == 1024); durations are
 * microseconds; sizes are bytes; ports are host byte order; addresses are
 * network byte order.
 */
#ifndef _UAPI_LINUX_MLTCP_H
#define _UAPI_LINUX_MLTCP_H

#define MLTCP_GENL_NAME		"mltcp"
#define MLTCP_GENL_VERSION	1

#define MLTCP_GENL_FIXED_SHIFT	10
#define MLTCP_GENL_SLOPE_MAX	16384		/* 16.0 */
#define MLTCP_GENL_INTERCEPT_MAX 16384		/* 16.0 */
#define MLTCP_GENL_IDLE_GAP_MIN	1000		/* us, 1 ms */
#define MLTCP_GENL_IDLE_GAP_MAX	60000000	/* us, 60 s */
#define MLTCP_GENL_ITER_BYTES_MAX (1ULL << 40)	/* 1 TiB */
#define MLTCP_GENL_JOBS_MAX	1024		/* jobs per network namespace */
#define MLTCP_GENL_CGROUP_LEVELS 12		/* a job's cgroup: level below this (root 0) */

/* Base algorithm (MLTCP_JOB_A_BASE, MLTCP_FLOW_A_BASE). */
enum mltcp_genl_base {
	MLTCP_GENL_BASE_RENO,
	MLTCP_GENL_BASE_CUBIC,
};

/* Where F acts (MLTCP_FLOW_A_MODE); a bit mask. */
enum mltcp_genl_mode {
	MLTCP_GENL_MODE_AI = 1,
	MLTCP_GENL_MODE_MD = 2,
	MLTCP_GENL_MODE_BOTH = 3,
	MLTCP_GENL_MODE_RESTART = 4,
	MLTCP_GENL_MODE_AI_RESTART = 5,
	MLTCP_GENL_MODE_MD_RESTART = 6,
	MLTCP_GENL_MODE_BOTH_RESTART = 7,
	MLTCP_GENL_MODE_GATE = 12,
	MLTCP_GENL_MODE_AI_GATE = 13,
	MLTCP_GENL_MODE_MD_GATE = 14,
	MLTCP_GENL_MODE_BOTH_GATE = 15,
};

/*
 * Bits of MLTCP_JOB_A_CLEAR: in MLTCP_CMD_JOB_SET, drop a match criterion
 * (the job then matches any value) or a setting (the namespace default
 * applies again).
 */
enum mltcp_genl_job_field {
	MLTCP_JOB_F_DPORT = 1 << 0,
	MLTCP_JOB_F_SPORT = 1 << 1,
	MLTCP_JOB_F_PEER = 1 << 2,
	MLTCP_JOB_F_MARK = 1 << 3,
	MLTCP_JOB_F_SLOPE = 1 << 4,
	MLTCP_JOB_F_INTERCEPT = 1 << 5,
	MLTCP_JOB_F_IDLE_GAP = 1 << 6,
	MLTCP_JOB_F_ITER_BYTES = 1 << 7,
	MLTCP_JOB_F_BASE = 1 << 8,
	MLTCP_JOB_F_EXEMPT = 1 << 9,
	MLTCP_JOB_F_CGROUP = 1 << 10,
	MLTCP_JOB_F_MARKED = 1 << 11,
	MLTCP_JOB_F_ALL = (1 << 12) - 1,
};

enum mltcp_genl_cmd {
	MLTCP_CMD_UNSPEC,
	MLTCP_CMD_JOB_ADD,	/* do; needs CAP_NET_ADMIN */
	MLTCP_CMD_JOB_SET,	/* do; needs CAP_NET_ADMIN */
	MLTCP_CMD_JOB_DEL,	/* do; needs CAP_NET_ADMIN */
	MLTCP_CMD_JOB_GET,	/* do (one job) and dump (all jobs) */
	MLTCP_CMD_FLOW_GET,	/* dump: flows, optionally of one job */
	MLTCP_CMD_STATS_GET,	/* do: the namespace's counters */
	MLTCP_CMD_JOB_MARK,	/* do: an iteration of the job starts; CAP_NET_ADMIN or in its cgroup */

	__MLTCP_CMD_MAX,
	MLTCP_CMD_MAX = __MLTCP_CMD_MAX - 1
};

/* Attributes of jobs: requests and replies of the MLTCP_CMD_JOB_* commands. */
enum mltcp_genl_job_attr {
	MLTCP_JOB_A_UNSPEC,
	MLTCP_JOB_A_PAD,
	MLTCP_JOB_A_ID,			/* u32, >= 1: the operator's job id */
	MLTCP_JOB_A_DPORT_MIN,		/* u16: destination port range ... */
	MLTCP_JOB_A_DPORT_MAX,		/* u16  ... (both or neither) */
	MLTCP_JOB_A_SPORT_MIN,		/* u16: source port range ... */
	MLTCP_JOB_A_SPORT_MAX,		/* u16  ... (both or neither) */
	MLTCP_JOB_A_PEER_V4,		/* binary[4]: peer IPv4 prefix */
	MLTCP_JOB_A_PEER_V6,		/* binary[16]: peer IPv6 prefix */
	MLTCP_JOB_A_PEER_PREFIXLEN,	/* u8: default the full address */
	MLTCP_JOB_A_MARK,		/* u32: socket mark ... */
	MLTCP_JOB_A_MARK_MASK,		/* u32  ... compared under this mask (default ~0) */
	MLTCP_JOB_A_SLOPE,		/* u32, fixed point, <= MLTCP_GENL_SLOPE_MAX */
	MLTCP_JOB_A_INTERCEPT,		/* u32, fixed point, <= MLTCP_GENL_INTERCEPT_MAX */
	MLTCP_JOB_A_IDLE_GAP_US,	/* u32, in [IDLE_GAP_MIN, IDLE_GAP_MAX] */
	MLTCP_JOB_A_ITER_BYTES,		/* u64, in [1, ITER_BYTES_MAX]: fixed, not learned */
	MLTCP_JOB_A_BASE,		/* u8, enum mltcp_genl_base ("mltcp" flows only) */
	MLTCP_JOB_A_EXEMPT,		/* u8, 0 or 1: F is always 1 (plain base) */
	MLTCP_JOB_A_CLEAR,		/* u32, MLTCP_JOB_F_* (JOB_SET only) */
	/* Replies only. */
	MLTCP_JOB_A_FLOWS,		/* u32: live flows of the job */
	MLTCP_JOB_A_FLOWS_TOTAL,	/* u64: flows matched since the job was added */
	MLTCP_JOB_A_ITERATIONS,		/* u64: iterations its flows completed */
	MLTCP_JOB_A_BYTES,		/* u64: bytes acked in them and in closed flows */
	/* Requests and replies. */
	MLTCP_JOB_A_CGROUP,		/* u64: cgroup v2 id; the cgroup and its descendants */
	MLTCP_JOB_A_MARKED,		/* u8, 0 or 1: iterations start at the job's marks */
	/* Replies only. */
	MLTCP_JOB_A_MARKS,		/* u64: the job's marks (MLTCP_CMD_JOB_MARK) */
	/* MLTCP_CMD_JOB_MARK only. */
	MLTCP_JOB_A_STEP,		/* u32, >= 1: the step marked (see mltcp_job_mark()) */

	__MLTCP_JOB_A_MAX,
	MLTCP_JOB_A_MAX = __MLTCP_JOB_A_MAX - 1
};

/* Attributes of flows: MLTCP_CMD_FLOW_GET. */
enum mltcp_genl_flow_attr {
	MLTCP_FLOW_A_UNSPEC,
	MLTCP_FLOW_A_PAD,
	MLTCP_FLOW_A_JOB,		/* u32: job id (request: only this job's flows) */
	/* Replies only. */
	MLTCP_FLOW_A_COOKIE,		/* u64: socket cookie, as in ss and inet_diag */
	MLTCP_FLOW_A_FAMILY,		/* u8: AF_INET or AF_INET6 */
	MLTCP_FLOW_A_SADDR,		/* binary[4 or 16] */
	MLTCP_FLOW_A_DADDR,		/* binary[4 or 16] */
	MLTCP_FLOW_A_SPORT,		/* u16 */
	MLTCP_FLOW_A_DPORT,		/* u16 */
	MLTCP_FLOW_A_CA,		/* string: "mltcp", "mltcp_reno" or "mltcp_cubic" */
	MLTCP_FLOW_A_BASE,		/* u8, enum mltcp_genl_base */
	MLTCP_FLOW_A_MODE,		/* u8, enum mltcp_genl_mode */
	MLTCP_FLOW_A_EXEMPT,		/* u8, 0 or 1 */
	MLTCP_FLOW_A_CWND,		/* u32, segments */
	MLTCP_FLOW_A_SSTHRESH,		/* u32, segments */
	MLTCP_FLOW_A_BYTES_THIS_ITER,	/* u64: acked since the iteration began */
	MLTCP_FLOW_A_ITER_BYTES,	/* u64: bytes per iteration, 0 if not known yet */
	MLTCP_FLOW_A_ITER_FIXED,	/* u8, 1 if ITER_BYTES was set by the job */
	MLTCP_FLOW_A_R,			/* u32, fixed point: progress through the iteration */
	MLTCP_FLOW_A_F,			/* u32, fixed point: F(r) */
	MLTCP_FLOW_A_ITERATIONS,	/* u32: iteration starts seen */
	MLTCP_FLOW_A_LAST_ITER_US,	/* u32: duration of the last full iteration */
	MLTCP_FLOW_A_SLOPE,		/* u32, fixed point */
	MLTCP_FLOW_A_INTERCEPT,		/* u32, fixed point */
	MLTCP_FLOW_A_IDLE_GAP_US,	/* u32 */
	MLTCP_FLOW_A_DSCP,		/* u8: the socket's DSCP (progress priority's class) */
	MLTCP_FLOW_A_ITER_TRUSTED,	/* u8, 1 if F, the restart and the class act on the
					 * iterations; 0: the flow runs as its base algorithm */
	MLTCP_FLOW_A_PRIO_HELD,		/* u8, 1 while a move up to a higher class waits for
					 * the data in flight, the window held at it */

	__MLTCP_FLOW_A_MAX,
	MLTCP_FLOW_A_MAX = __MLTCP_FLOW_A_MAX - 1
};

/*
 * Attributes of MLTCP_CMD_STATS_GET replies: the namespace's counters since
 * it was created or the module loaded, whichever is later. The first count
 * how the iteration detector judged an event "sending resumed with nothing
 * in flight" of the namespace's MLTCP flows; they follow the detector's
 * verdicts in order, ITERATIONS first. Then the start gate's (gate modes),
 * in the order of its verdicts: iteration starts held, and how holds ended.
 * Then progress priority's held moves up: holds begun, and how they ended.
 */
enum mltcp_genl_stats_attr {
	MLTCP_STATS_A_UNSPEC,
	MLTCP_STATS_A_PAD,
	MLTCP_STATS_A_ITERATIONS,	/* u64: it started an iteration */
	MLTCP_STATS_A_TX_IN_RECOVERY,	/* u64: in loss recovery or after an RTO */
	MLTCP_STATS_A_TX_OUTSTANDING,	/* u64: data still unacked (retransmission, probe) */
	MLTCP_STATS_A_TX_NOT_IDLE,	/* u64: no drain with the application idle before it */
	MLTCP_STATS_A_TX_SHORT_GAP,	/* u64: idle for less than the idle gap */
	MLTCP_STATS_A_TX_FRAGMENT,	/* u64: idle, after a fragment of an iteration */
	MLTCP_STATS_A_TX_UNMARKED,	/* u64: a marked job's flow, no mark since its last start */
	MLTCP_STATS_A_GATE_HELD,	/* u64: an iteration started with the window held */
	MLTCP_STATS_A_GATE_OPENED,	/* u64: a hold ended: the other job's queue drained */
	MLTCP_STATS_A_GATE_RAN_OUT,	/* u64: a hold ended: held for the longest allowed */
	MLTCP_STATS_A_GATE_REDUCED,	/* u64: a hold ended: a held segment lost or marked */
	MLTCP_STATS_A_PRIO_HELD,	/* u64: a move up waited for the data in flight */
	MLTCP_STATS_A_PRIO_RELEASED,	/* u64: a held move up made: its data acked but one MSS */
	MLTCP_STATS_A_PRIO_REDUCED,	/* u64: a held move up ended by a loss or ECN reduction */

	__MLTCP_STATS_A_MAX,
	MLTCP_STATS_A_MAX = __MLTCP_STATS_A_MAX - 1
};

#endif /* _UAPI_LINUX_MLTCP_H */
