/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, all in one place. tcp_mltcp is built and tested
 * against Debian 12's 6.1, the oldest kernel CI builds; it needs APIs that
 * arrived in 6.1 (the per-namespace established hash behind
 * tcp_death_row.hashinfo, genl_family.resv_start_op), so older kernels are
 * refused here rather than with errors deep in the build.
 */
#ifndef MLTCP_COMPAT_H
#define MLTCP_COMPAT_H

#include <linux/version.h>

#if KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE
#error "tcp_mltcp needs Linux 6.1 or newer"
#endif

#endif /* MLTCP_COMPAT_H */
