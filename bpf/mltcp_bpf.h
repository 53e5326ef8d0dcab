/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the BPF twin (mltcp.bpf.c) and mltcpctl agree on: map layouts,
 * statistics indices, the flow records of the iterator and where "mltcpctl
 * bpf load" pins what it registered. Plain C over the policy's types
 * (kmod/mltcp_policy.h): the BPF program includes it after vmlinux.h and the
 * policy, mltcpctl as it is.
 */
#ifndef MLTCP_BPF_H
#define MLTCP_BPF_H

#include "mltcp_policy.h"

#ifndef __bpf__
#include <linux/bpf.h> /* struct bpf_spin_lock; the BPF side has it from vmlinux.h */
#endif

/*
 * mltcp_config: BPF_MAP_TYPE_ARRAY, one entry (key 0), value struct
 * mltcp_params: the defaults, one set for the host. Read by every flow when
 * it selects an MLTCP algorithm; an invalid value (mltcp_params_valid()
 * false, e.g. the all-zero initial map) falls back to mltcp_params_default().
 * mltcpctl writes it on "bpf load" and "defaults set global".
 *
 * mltcp_stats: BPF_MAP_TYPE_PERCPU_ARRAY of u64 counters, indexed as below:
 * the module's debugfs "stats" file as numbers. Index 1 + v counts verdict v
 * of mltcp_on_tx_start(), then the start gate's counts by its verdicts, then
 * progress priority's held moves up by enum mltcp_prio_hold.
 */
#define MLTCP_BPF_STAT_FLOWS_STARTED 0
#define MLTCP_BPF_STAT_VERDICT0 1
#define MLTCP_BPF_STAT_GATE0 (MLTCP_BPF_STAT_VERDICT0 + MLTCP_TX_NR_VERDICTS)
#define MLTCP_BPF_STAT_HOLD0 (MLTCP_BPF_STAT_GATE0 + MLTCP_GATE_NR_VERDICTS)
#define MLTCP_BPF_NR_STATS (MLTCP_BPF_STAT_HOLD0 + MLTCP_PRIO_HOLD_NR_EVENTS)

/*
 * mltcp_prio: BPF_MAP_TYPE_ARRAY, one entry (key 0), value the core's struct
 * mltcp_prio_config: progress priority, one set for the host like the
 * defaults. classes 0 (the all-zero initial map) is off. mltcpctl writes
 * only values mltcp_prio_config_valid() accepts (the twin does not check
 * them again per ACK; the core bounds the classes). Read on every ACK, at each
 * resumption of sending and at an RTO; mltcpctl writes it on "bpf load"
 * and "defaults set global prio ...". Pinned as MLTCP_BPF_PIN_PRIO.
 */

/*
 * mltcp_jobs: BPF_MAP_TYPE_ARRAY of MLTCP_BPF_JOBS_MAX struct
 * mltcp_bpf_job_slot, the twin of a network namespace's job table in the
 * module, but one table for the whole host (BPF maps are not per namespace).
 * A slot whose spec has id 0 is free; slots are in no particular order: a
 * flow takes the matching job with the lowest id, which is the module's
 * "ascending id, first match wins" without keeping the table sorted. Each
 * slot is written and read whole under its spin lock (BPF_F_LOCK from
 * userspace), so a flow that starts while "mltcpctl job set" rewrites the
 * slot sees the old job or the new one, never a mix. The spec is the
 * policy's, built by mltcp_job_apply() and matched by mltcp_job_matches().
 */
#define MLTCP_BPF_JOBS_MAX 64

/* The lock is apart because BPF programs may not load or store it directly. */
struct mltcp_bpf_job_slot {
	struct bpf_spin_lock lock;
	u32 marks;		/* "job mark": what the job's marked flows follow */
	struct mltcp_job_spec spec;
	u32 last_step;		/* mltcp_job_mark()'s; only mltcpctl reads it */
	u32 pad;
};

/*
 * The flow iterator (iter/tcp, pinned as "flows") writes one record per
 * MLTCP socket of the reader's network namespace whose algorithm has been
 * initialised (listeners and SYN_SENT sockets have not): this header, then
 * the policy's struct mltcp_flow_record, filled by mltcp_flow_fill_record()
 * and the socket's addresses, ports, cwnd, ssthresh, cookie, netns and
 * algorithm name. A reader refuses a record whose magic or size differ from
 * its own: the loaded object is another version. Change the magic when the
 * layout changes.
 */
#define MLTCP_BPF_RECORD_MAGIC 0x6d6c7405U /* "mlt", layout 5 */

struct mltcp_bpf_record {
	u32 magic; /* MLTCP_BPF_RECORD_MAGIC */
	u32 size;  /* sizeof(struct mltcp_bpf_record) */
	struct mltcp_flow_record flow;
};

/* Default bpffs directory holding what "load" pinned. */
#define MLTCP_BPF_PIN_DIR "/sys/fs/bpf/mltcp"

/*
 * Pinned objects inside the directory: the three struct_ops maps (named like
 * the algorithms they register), the four data maps, and the iter/tcp link
 * whose file holds the flow records of the reader's network namespace.
 */
#define MLTCP_BPF_PIN_CONFIG "config"
#define MLTCP_BPF_PIN_STATS "stats"
#define MLTCP_BPF_PIN_FLOWS "flows"
#define MLTCP_BPF_PIN_JOBS "jobs"
#define MLTCP_BPF_PIN_PRIO "prio"

#endif /* MLTCP_BPF_H */
