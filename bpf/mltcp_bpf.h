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

/* Default bpffs directory holding what "load" pinned. */
#define MLTCP_BPF_PIN_DIR "/sys/fs/bpf/mltcp"

/*
 * Pinned objects inside the directory: the three struct_ops maps (named like
 * the algorithms they register), the two data maps, and the iter/tcp link
 * whose file lists MLTCP flows of the reader's network namespace.
 */
#define MLTCP_BPF_PIN_CONFIG "config"
#define MLTCP_BPF_PIN_STATS "stats"
#define MLTCP_BPF_PIN_FLOWS "flows"

#endif /* MLTCP_BPF_H */
