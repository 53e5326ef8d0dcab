/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the BPF twin (mltcp.bpf.c) and its loader (userspace/bpf) agree on:
 * map layouts, statistics indices and where load pins what it registered.
 * Plain C over the core's types: the BPF program includes it after vmlinux.h,
 * the C++ loader as it is.
 */
#ifndef MLTCP_BPF_H
#define MLTCP_BPF_H

#include "mltcp_core.h"

#ifndef __bpf__
#include <linux/bpf.h> /* struct bpf_spin_lock; the BPF side has it from vmlinux.h */
#endif

/*
 * mltcp_config: BPF_MAP_TYPE_ARRAY, one entry (key 0), value struct
 * mltcp_params. Read by every flow when it selects an MLTCP algorithm; an
 * invalid value (mltcp_params_valid() false, e.g. the all-zero initial map)
 * falls back to mltcp_params_default(). The loader writes it at load time and
 * on "set".
 *
 * mltcp_stats: BPF_MAP_TYPE_PERCPU_ARRAY of u64 counters, indexed as below:
 * the module's debugfs "stats" file as numbers. Index 1 + v counts verdict v
 * of mltcp_on_tx_start().
 */
#define MLTCP_BPF_STAT_FLOWS_STARTED 0
#define MLTCP_BPF_STAT_VERDICT0 1
#define MLTCP_BPF_NR_STATS (MLTCP_BPF_STAT_VERDICT0 + MLTCP_TX_NR_VERDICTS)

/*
 * mltcp_jobs: BPF_MAP_TYPE_ARRAY of MLTCP_BPF_JOBS_MAX struct mltcp_bpf_job_slot,
 * the BPF twin of a network namespace's job table in the module, but one
 * table for the whole host (BPF maps are not per namespace). A slot with
 * id 0 is free; slots are in no particular order: a flow takes the matching
 * job with the lowest id, which is the module's "ascending id, first match
 * wins" without keeping the table sorted. Each slot is written and read
 * whole under its spin lock (BPF_F_LOCK from userspace), so a flow that
 * starts while "mltcpctl job set" rewrites the slot sees the old job or the
 * new one, never a mix.
 *
 * Field meanings and units are the module's struct mltcp_job_cfg: fields is
 * a mask of MLTCP_JOB_F_* (kmod/uapi/mltcp.h) saying which criteria and
 * settings are present; ports in host order; peer in network order, already
 * masked to its prefix (IPv4 in peer[0]); mark stored already masked.
 */
#define MLTCP_BPF_JOBS_MAX 64

struct mltcp_bpf_job {
	u32 id; /* the operator's job id; 0: free slot */
	u32 fields;
	u16 dport_min, dport_max;
	u16 sport_min, sport_max;
	u8 peer_family; /* AF_INET or AF_INET6 when MLTCP_JOB_F_PEER */
	u8 peer_prefixlen;
	u8 base;   /* enum mltcp_base */
	u8 exempt; /* 1: F is exactly 1 (slope 0, intercept 1) */
	u32 peer[4];
	u32 mark, mark_mask;
	u32 slope, intercept; /* MLTCP_ONE units */
	u32 idle_gap_us;
	u32 pad;
	u64 iter_bytes;
};

/* The lock is apart because BPF programs may not load or store it directly. */
struct mltcp_bpf_job_slot {
	struct bpf_spin_lock lock;
	u32 pad;
	struct mltcp_bpf_job job;
};

/* Default bpffs directory holding what "load" pinned. */
#define MLTCP_BPF_PIN_DIR "/sys/fs/bpf/mltcp"

/*
 * Pinned objects inside the directory: the three struct_ops maps (named like
 * the algorithms they register), the three data maps, and the iter/tcp link
 * whose file lists MLTCP flows of the reader's network namespace.
 */
#define MLTCP_BPF_PIN_CONFIG "config"
#define MLTCP_BPF_PIN_STATS "stats"
#define MLTCP_BPF_PIN_FLOWS "flows"
#define MLTCP_BPF_PIN_JOBS "jobs"

#endif /* MLTCP_BPF_H */
