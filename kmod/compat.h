/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, all in one place. tcp_mltcp is built and tested
 * against Debian 12's 6.1; the guards below cover what changed between 5.15
 * (the oldest kernel with every API we rely on) and 6.1.
 */
#ifndef MLTCP_COMPAT_H
#define MLTCP_COMPAT_H

#include <linux/version.h>
#include <net/tcp.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "tcp_mltcp needs Linux 5.15 or newer (param_set_uint_minmax, tcp_sock::bytes_acked)"
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 19, 0)
/* The snd_cwnd accessors arrived in 5.19. */
static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}
#endif

#endif /* MLTCP_COMPAT_H */
