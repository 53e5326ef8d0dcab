/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tcp_mltcp, for perf, bpftrace and tracefs users
 * (events/mltcp/ under /sys/kernel/tracing). Defined once, in
 * mltcp_trace.c; tcp_mltcp.c fires them.
 *
 * mltcp:mltcp_iteration fires when the iteration detector starts a new
 * iteration of a flow (mltcp_on_tx_start() returned MLTCP_TX_NEW_ITERATION),
 * with the iteration that just ended:
 *   cookie          socket cookie, as in ss, inet_diag and "mltcpctl flow show"
 *   family, saddr, daddr, sport, dport
 *                   the flow; IPv4 addresses as v4-mapped IPv6
 *   job             the operator's id of the flow's job, 0 if none
 *   iteration       iteration starts seen so far, this one included
 *                   ("iterations" of "flow show")
 *   bytes           bytes acked from the previous start to this one: what the
 *                   job's byte counter was charged
 *   duration_us     start-to-start time of the iteration that ended
 *   iter_bytes      bytes per iteration after learning from it (0: unknown)
 *   f               F the flow begins the new iteration with, fixed point with
 *                   MLTCP_SHIFT fractional bits (1024 is 1.0): its line's
 *                   intercept once the size is known (an exempt flow's line
 *                   is F = 1), exactly 1.0 before
 * The fields are those of the flow's netlink record at that moment.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mltcp

#if !defined(MLTCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MLTCP_TRACE_H

#include <linux/in6.h>
#include <linux/tracepoint.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "mltcp_flows.h"
#include "mltcp_jobs.h"

#ifndef MLTCP_TRACE_HELPERS
#define MLTCP_TRACE_HELPERS
/* A record's address as IPv6, IPv4 ones v4-mapped, so that one format prints both. */
static inline void mltcp_trace_addr(u8 *out, u8 family, const u8 *addr)
{
	struct in6_addr a;
	__be32 v4;

	if (family == AF_INET6) {
		memcpy(&a, addr, sizeof(a));
	} else {
		memcpy(&v4, addr, sizeof(v4));
		ipv6_addr_set_v4mapped(v4, &a);
	}
	memcpy(out, &a, sizeof(a));
}
#endif

TRACE_EVENT(mltcp_iteration,

	TP_PROTO(struct sock *sk, u64 bytes),

	TP_ARGS(sk, bytes),

	TP_STRUCT__entry(
		__field(u64, cookie)
		__field(u64, bytes)
		__field(u64, iter_bytes)
		__field(u32, job)
		__field(u32, iteration)
		__field(u32, duration_us)
		__field(u32, f)
		__field(u16, family)
		__field(u16, sport)
		__field(u16, dport)
		__array(u8, saddr, sizeof(struct in6_addr))
		__array(u8, daddr, sizeof(struct in6_addr))
	),

	TP_fast_assign(
		struct mltcp_flow_record rec;
		bool exempt;

		mltcp_flow_record_owned(sk, &rec);
		__entry->cookie = rec.cookie;
		__entry->bytes = bytes;
		__entry->iter_bytes = rec.iter_bytes;
		__entry->job = 0;
		if (rec.job)
			mltcp_job_of_key(sock_net(sk), rec.job, &__entry->job, &exempt);
		__entry->iteration = rec.iterations;
		__entry->duration_us = rec.last_iter_us;
		__entry->f = rec.f;
		__entry->family = rec.family;
		__entry->sport = rec.sport;
		__entry->dport = rec.dport;
		mltcp_trace_addr(__entry->saddr, rec.family, rec.saddr);
		mltcp_trace_addr(__entry->daddr, rec.family, rec.daddr);
	),

	TP_printk("cookie=%llu src=[%pI6c]:%u dst=[%pI6c]:%u job=%u iteration=%u bytes=%llu duration_us=%u iter_bytes=%llu f=%u",
		  __entry->cookie, __entry->saddr, __entry->sport, __entry->daddr,
		  __entry->dport, __entry->job, __entry->iteration, __entry->bytes,
		  __entry->duration_us, __entry->iter_bytes, __entry->f)
);

#endif /* MLTCP_TRACE_H */

/* define_trace.h finds this file through the module's -I of kmod/. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mltcp_trace
#include <trace/define_trace.h>
