/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, all in one place. CI builds tcp_mltcp with
 * warnings as errors against Debian 12's two kernels, 6.1 and 6.12, and runs
 * the in-guest suite on both. 6.1 is the oldest: the module needs APIs that
 * arrived in 6.1 (the per-namespace established hash behind
 * tcp_death_row.hashinfo, genl_family.resv_start_op), so older kernels are
 * refused here rather than with errors deep in the build. The version
 * cut-offs below are the releases that changed each API; only 6.1 and 6.12
 * are built.
 */
#ifndef MLTCP_COMPAT_H
#define MLTCP_COMPAT_H

#include <linux/version.h>

#if KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE
#error "tcp_mltcp needs Linux 6.1 or newer"
#endif

/* 6.11 made the table argument of every sysctl proc_handler const. */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define MLTCP_CTL_TABLE const struct ctl_table
#else
#define MLTCP_CTL_TABLE struct ctl_table
#endif

/*
 * 6.6 sized sysctl tables (register_net_sysctl() became a macro taking
 * ARRAY_SIZE() of its argument, which must then be an array); before, the
 * table ended at its empty sentinel entry, which the sized form ignores.
 */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#define mltcp_register_net_sysctl(net, path, table, n) \
	register_net_sysctl_sz(net, path, table, n)
#else
#define mltcp_register_net_sysctl(net, path, table, n) \
	register_net_sysctl(net, path, table)
#endif

/* 6.2 moved a dump's parsed attributes into a struct genl_info. */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define mltcp_dump_attrs(cb) (genl_dumpit_info(cb)->info.attrs)
#else
#define mltcp_dump_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

#endif /* MLTCP_COMPAT_H */
