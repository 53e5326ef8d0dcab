// SPDX-License-Identifier: GPL-2.0
/*
 * mltcp.bpf.c: MLTCP as a BPF struct_ops congestion control, the twin of the
 * tcp_mltcp module (kmod/tcp_mltcp.c) for kernels that cannot load modules.
 *
 * Registers the module's three algorithms, with the module's hooks, flags
 * and behaviour:
 *   mltcp_reno   MLTCP over Reno (slow start, recovery, undo: the kernel's)
 *   mltcp_cubic  MLTCP over our RFC 9438 CUBIC
 *   mltcp        MLTCP over the base named by the "base" default
 *
 * All of MLTCP's and CUBIC's arithmetic is the core, kmod/mltcp_core.c, and
 * everything around it that decides how a flow behaves (jobs, matching,
 * latching, flow records) is the policy, kmod/mltcp_policy.c: the very files
 * the module and the unit tests compile, included below. This file is only
 * glue, as tcp_mltcp.c is for the module: it reads the socket, feeds plain
 * numbers to the core and the policy and applies what comes back.
 *
 * Differences from the module, all imposed by BPF:
 *  - Defaults live in the mltcp_config array map instead of module
 *    parameters (written by the loader, validated with the core's
 *    mltcp_params_valid(); an invalid value falls back to the defaults).
 *  - Training jobs (mltcpctl) live in the mltcp_jobs array map, one table
 *    for the host instead of one per network namespace, matched once at
 *    init like the module's (ascending id, first match wins). A change of a
 *    job reaches flows that select MLTCP afterwards only: nothing can take
 *    a live socket's lock from userspace to re-latch it. No per-job counters.
 *    The flow's job reference is the operator's id.
 *  - Progress priority's configuration (classes and their DSCPs) lives in
 *    the mltcp_prio array map, one for the host like the defaults; a class
 *    reaches the packets through bpf_setsockopt(IP_TOS or IPV6_TCLASS)
 *    where the module writes inet->tos itself.
 *  - Statistics are a per-CPU array map instead of debugfs "stats".
 *  - The flow list is an iter/tcp program instead of debugfs "flows"; pinned
 *    by mltcpctl, reading its file gives the policy's binary flow records
 *    (bpf/mltcp_bpf.h) of the MLTCP flows of the reader's network namespace.
 *  - Slow start, additive increase and undo are the kernel's functions called
 *    as kfuncs; tcp_is_cwnd_limited() and tcp_write_queue_empty() are inline
 *    in the kernel and re-stated here from the 6.1 definitions.
 *  - A restart cannot clear snd_cwnd_used, and refreshes snd_cwnd_stamp only
 *    where the kernel lets BPF write it (6.10+; mltcp_write_cwnd_stamp).
 *
 * Built CO-RE against the build host's BTF (vmlinux.h generated at build
 * time), so the same object loads on other kernels with BTF. It needs Linux
 * 6.1 or later (tested: 6.1, 6.12, 6.18). What sets the floor: struct
 * cgroup's ancestors[] (6.0; a CO-RE relocation, refused before); the
 * kfuncs and bpf_for_each_map_elem() (5.13); the iter/tcp flow list (5.9).
 * 6.0 itself is untested. docs/bpf.md, "Kernels".
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * The core and the policy, compiled here from kmod/mltcp_core.c and
 * kmod/mltcp_policy.c. Their functions have external linkage, because the
 * module links them across objects. In BPF that does not work as is: a
 * non-static function becomes a "global subprogram" that the verifier checks
 * on its own with every pointer argument possibly NULL, and no BPF function
 * may take more than five arguments (two of the core's take six), not even an
 * out-of-line copy nobody calls. So the glue declares each of them first,
 * static and always inline; C gives the later declarations and definitions
 * in the two files the linkage of that first declaration (C11 6.2.2p4-5), so
 * the sources stay the module's, byte for byte. The policy's text functions
 * (names, parsing, formatting) are not compiled for BPF (MLTCP_POLICY_TEXT).
 *
 * The one exception is mltcp_cbrt(), the bit-by-bit cube root run when a
 * CUBIC epoch starts: it stays global and out of line, so the verifier checks
 * it once, with an unknown argument, instead of in every caller. Inlined, its
 * 22 data-dependent branches produce a different constant root on each path,
 * and every later comparison against the curve's K would double the paths
 * again (more than the verifier's 1M-instruction budget).
 */
#define MLTCP_BPF_CORE static inline __attribute__((always_inline))

struct mltcp_params;
struct mltcp_iter;
struct mltcp_cubic;
enum mltcp_tx_verdict;
enum mltcp_learn;
enum mltcp_gate_verdict;
enum mltcp_prio_hold;

MLTCP_BPF_CORE void mltcp_params_default(struct mltcp_params *p);
MLTCP_BPF_CORE bool mltcp_params_valid(const struct mltcp_params *p);
MLTCP_BPF_CORE int mltcp_parse_fixed(const char *s, u32 max, u32 *out);
MLTCP_BPF_CORE u32 mltcp_fixed_to_milli(u32 fixed);
MLTCP_BPF_CORE void mltcp_iter_init(struct mltcp_iter *it, u64 bytes_acked, u32 now_us);
MLTCP_BPF_CORE void mltcp_iter_set_fixed(struct mltcp_iter *it, u64 bytes);
MLTCP_BPF_CORE void mltcp_on_ack_drain(struct mltcp_iter *it, u64 now_us, bool app_idle);
MLTCP_BPF_CORE enum mltcp_tx_verdict mltcp_on_tx_start(struct mltcp_iter *it,
						       const struct mltcp_params *p,
						       u64 bytes_acked, u64 now_us,
						       bool in_recovery, bool data_outstanding,
						       u32 marks);
MLTCP_BPF_CORE u32 mltcp_init_cwnd(u32 route_initcwnd, u32 cwnd_clamp);
MLTCP_BPF_CORE bool mltcp_restart_window(struct mltcp_iter *it, const struct mltcp_params *p,
					 u32 ca_state, u32 init_cwnd, u32 *cwnd, u32 *ssthresh);
MLTCP_BPF_CORE enum mltcp_gate_verdict mltcp_gate_on_ack(struct mltcp_iter *it, u32 rtt_us,
							 u32 min_rtt_us, u32 now_us,
							 u32 init_cwnd, u32 *cwnd);
MLTCP_BPF_CORE u32 mltcp_gate_ssthresh(struct mltcp_iter *it, u32 ssthresh);
MLTCP_BPF_CORE bool mltcp_restart_at_drain(struct mltcp_iter *it, const struct mltcp_params *p,
					   u64 bytes_acked, u32 ca_state, u32 init_cwnd,
					   u32 *cwnd, u32 *ssthresh);
MLTCP_BPF_CORE bool mltcp_disarm(struct mltcp_iter *it, const struct mltcp_params *p,
				 enum mltcp_tx_verdict verdict, u32 *cwnd);
MLTCP_BPF_CORE enum mltcp_learn mltcp_iter_learn(struct mltcp_iter *it, u64 completed);
MLTCP_BPF_CORE bool mltcp_iter_trusted(const struct mltcp_iter *it, const struct mltcp_params *p);
MLTCP_BPF_CORE u32 mltcp_ratio(const struct mltcp_iter *it, u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_f(const struct mltcp_iter *it, const struct mltcp_params *p,
			   u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_f_increase(const struct mltcp_iter *it, const struct mltcp_params *p,
				    u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_f_decrease(const struct mltcp_iter *it, const struct mltcp_params *p,
				    u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_md_beta(u32 base_beta, u32 f);
struct mltcp_prio_config;
MLTCP_BPF_CORE void mltcp_prio_config_default(struct mltcp_prio_config *pc);
MLTCP_BPF_CORE bool mltcp_prio_config_valid(const struct mltcp_prio_config *pc);
MLTCP_BPF_CORE bool mltcp_overhang(const struct mltcp_iter *it, u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_prio_tie(u32 job);
MLTCP_BPF_CORE u32 mltcp_prio_class(const struct mltcp_iter *it, const struct mltcp_params *p,
				    u64 bytes_acked, u32 now_us, u32 classes, u32 tie);
MLTCP_BPF_CORE int mltcp_prio_dscp(const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp);
MLTCP_BPF_CORE int mltcp_prio_move(struct mltcp_iter *it, const struct mltcp_params *p,
				   const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp,
				   u32 unacked, u32 in_flight, u32 ca_state, u32 *cwnd,
				   enum mltcp_prio_hold *hold);
MLTCP_BPF_CORE enum mltcp_prio_hold mltcp_prio_release(struct mltcp_iter *it,
						       const struct mltcp_params *p, u32 *cwnd,
						       enum mltcp_prio_hold why);
MLTCP_BPF_CORE u32 mltcp_unacked_segs(u32 unacked_bytes, u32 mss);
MLTCP_BPF_CORE u32 mltcp_reno_ai_w(u32 cwnd, u32 f);
MLTCP_BPF_CORE u32 mltcp_reno_ssthresh(u32 cwnd, u32 f);
MLTCP_BPF_CORE void mltcp_cubic_init(struct mltcp_cubic *c);
MLTCP_BPF_CORE void mltcp_cubic_reset(struct mltcp_cubic *c);
MLTCP_BPF_CORE void mltcp_cubic_pause(struct mltcp_cubic *c, u32 now_us);
MLTCP_BPF_CORE u32 mltcp_cubic_ssthresh(struct mltcp_cubic *c, u32 cwnd, u32 f);
MLTCP_BPF_CORE u32 mltcp_cubic_ai_w(struct mltcp_cubic *c, u32 cwnd, u32 acked, u32 now_us,
				    u32 rtt_us, u32 f);
MLTCP_BPF_CORE u32 mltcp_cubic_window(const struct mltcp_cubic *c, u32 t_us);
__attribute__((noinline)) u32 mltcp_cbrt(u64 x);

struct mltcp_job_spec;
struct mltcp_job_request;
struct mltcp_flow_key;
struct mltcp_flow;
struct mltcp_flow_record;
struct mltcp_line;
enum mltcp_job_error;

MLTCP_BPF_CORE enum mltcp_job_error mltcp_f_line_check(u32 slope, u32 intercept,
						       const struct mltcp_line *bound);
MLTCP_BPF_CORE enum mltcp_job_error mltcp_job_check_over(const struct mltcp_job_spec *job,
							 const struct mltcp_params *defaults,
							 const struct mltcp_line *bound);
MLTCP_BPF_CORE enum mltcp_job_error mltcp_job_apply(struct mltcp_job_spec *spec,
						    const struct mltcp_job_request *req);
MLTCP_BPF_CORE u32 mltcp_job_error_field(enum mltcp_job_error err);
MLTCP_BPF_CORE bool mltcp_job_matches(const struct mltcp_job_spec *job,
				      const struct mltcp_flow_key *key);
MLTCP_BPF_CORE void mltcp_flow_init(struct mltcp_flow *fl, u64 bytes_acked, u32 now_us);
MLTCP_BPF_CORE bool mltcp_flow_latch(struct mltcp_flow *fl, const struct mltcp_params *defaults,
				     const struct mltcp_job_spec *job, int fixed_base,
				     const struct mltcp_line *bound);
MLTCP_BPF_CORE u32 mltcp_job_changed(const struct mltcp_job_request *req);
MLTCP_BPF_CORE bool mltcp_flow_relatch(struct mltcp_flow *fl, const struct mltcp_params *defaults,
				       const struct mltcp_job_spec *job, u32 changed,
				       int fixed_base, const struct mltcp_line *bound);
MLTCP_BPF_CORE void mltcp_flow_fill_record(struct mltcp_flow_record *rec,
					   const struct mltcp_flow *fl, u64 bytes_acked);

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#include "mltcp_core.c"
#include "mltcp_policy.c"
#pragma clang diagnostic pop

#include "mltcp_bpf.h"

char _license[] SEC("license") = "GPL";

/* Kernel functions exported to BPF congestion control (net/ipv4/bpf_tcp_ca.c). */
extern u32 tcp_slow_start(struct tcp_sock *tp, u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked) __ksym;
extern u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define TCP_CONG_NON_RESTRICTED 0x1

/* Per-socket state in icsk_ca_priv: the policy's struct mltcp_flow, as in the module. */
_Static_assert(sizeof(struct mltcp_flow) <=
		       sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "MLTCP state must fit icsk_ca_priv");
_Static_assert(MLTCP_CA_OPEN == TCP_CA_Open && MLTCP_CA_DISORDER == TCP_CA_Disorder &&
		       MLTCP_CA_CWR == TCP_CA_CWR && MLTCP_CA_RECOVERY == TCP_CA_Recovery &&
		       MLTCP_CA_LOSS == TCP_CA_Loss,
	       "the core numbers the CA states as the kernel does");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct mltcp_params);
} mltcp_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MLTCP_BPF_JOBS_MAX);
	__type(key, u32);
	__type(value, struct mltcp_bpf_job_slot);
} mltcp_jobs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct mltcp_prio_config);
} mltcp_prio SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MLTCP_BPF_NR_STATS);
	__type(key, u32);
	__type(value, u64);
} mltcp_stats SEC(".maps");

static __always_inline void mltcp_stat_inc(u32 index)
{
	u64 *count = bpf_map_lookup_elem(&mltcp_stats, &index);

	if (count)
		__sync_fetch_and_add(count, 1);
}

/* The module's mltcp_count_prio_hold(): what the core reported of a held move up, if anything. */
static __always_inline void mltcp_stat_prio_hold(enum mltcp_prio_hold event)
{
	if (event != MLTCP_PRIO_HOLD_NONE)
		mltcp_stat_inc(MLTCP_BPF_STAT_HOLD0 + event);
}

static __always_inline struct tcp_sock *mltcp_tp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct mltcp_flow *mltcp_ca(struct sock *sk)
{
	return (struct mltcp_flow *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* The TCP clock in microseconds; the core keeps 32 bits of it where they suffice. */
static __always_inline u64 mltcp_now_us(const struct tcp_sock *tp)
{
	return tp->tcp_mstamp;
}

/* tcp_is_cwnd_limited() of include/net/tcp.h (6.1). */
static __always_inline bool mltcp_cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

/* ---- Jobs: matched and latched by the policy, over the mltcp_jobs map ---- */

/* The flow's key, and the best match so far: the matching job with the lowest id. */
struct mltcp_match {
	struct mltcp_flow_key key;
	struct mltcp_job_spec best;
	u32 best_marks;
};

/*
 * One slot, visited by bpf_for_each_map_elem(): the verifier checks this
 * callback once, however many slots there are, where an open-coded loop
 * over 64 slots with a branch per criterion would be explored path by path.
 * The slot is copied out under its lock so a concurrent "job set" is seen
 * whole or not at all.
 */
static long mltcp_job_visit(struct bpf_map *map, u32 *key, struct mltcp_bpf_job_slot *slot,
			    struct mltcp_match *m)
{
	struct mltcp_job_spec job;
	u32 index = *key;

	/*
	 * Locked through a pointer of our own lookup, not the callback's
	 * argument: before 6.2 the verifier pairs lock and unlock by the
	 * pointer's id, which only a lookup gives, and refuses the unlock
	 * ("bpf_spin_unlock without taking a lock") otherwise.
	 */
	slot = bpf_map_lookup_elem(&mltcp_jobs, &index);
	if (!slot)
		return 0;
	bpf_spin_lock(&slot->lock);
	job = slot->spec;
	bpf_spin_unlock(&slot->lock);
	if (job.id && (!m->best.id || job.id < m->best.id) && mltcp_job_matches(&job, &m->key)) {
		m->best = job;
		/* Read apart from the spec: a mark changes only this word. */
		m->best_marks = *(volatile u32 *)&slot->marks;
	}
	return 0;
}

/* The ids of the socket's cgroup v2 and of its ancestors, from the root. */
static __always_inline void mltcp_key_cgroups(struct sock *sk, struct mltcp_flow_key *k)
{
	struct cgroup *cgrp = BPF_CORE_READ(sk, sk_cgrp_data.cgroup);
	int level, levels;

	if (!cgrp)
		return;
	levels = BPF_CORE_READ(cgrp, level) + 1;
	if (levels > MLTCP_CGROUP_LEVELS)
		levels = MLTCP_CGROUP_LEVELS;
#pragma unroll
	for (level = 0; level < MLTCP_CGROUP_LEVELS; level++) {
		if (level < levels) {
			struct cgroup *ancestor = BPF_CORE_READ(cgrp, ancestors[level]);

			k->cgroup_ids[level] = BPF_CORE_READ(ancestor, kn, id);
		}
	}
	k->cgroup_levels = levels;
}

/* What a job can match the flow on, as the module reads it. */
static __always_inline void mltcp_key_read(struct sock *sk, struct mltcp_flow_key *k)
{
	struct sock_common *skc = &sk->__sk_common;

	mltcp_key_cgroups(sk, k);
	k->dport = bpf_ntohs(skc->skc_dport);
	k->sport = skc->skc_num;
	k->mark = sk->sk_mark;
	k->v4 = 1;
	k->daddr[0] = skc->skc_daddr;
	if (skc->skc_family == MLTCP_AF_INET6) {
		u32 *a = skc->skc_v6_daddr.in6_u.u6_addr32;

		/* ::ffff:a.b.c.d is an IPv4 peer, as ipv6_addr_v4mapped() says. */
		k->v4 = a[0] == 0 && a[1] == 0 && a[2] == bpf_htonl(0x0000ffff);
		if (k->v4) {
			k->daddr[0] = a[3];
		} else {
			k->daddr[0] = a[0];
			k->daddr[1] = a[1];
			k->daddr[2] = a[2];
			k->daddr[3] = a[3];
		}
	}
}

/*
 * base: MLTCP_BASE_SELECTABLE ("mltcp") or the base of mltcp_reno and
 * mltcp_cubic. As the module's init: the defaults (the config map),
 * overridden by the first matching job; the policy latches them.
 */
static __always_inline void mltcp_init_base(struct sock *sk, int base)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	struct mltcp_match m = {};
	struct mltcp_params params;
	struct mltcp_params *cfg;
	u32 zero = 0;

	cfg = bpf_map_lookup_elem(&mltcp_config, &zero);
	if (cfg)
		params = *cfg;
	if (!cfg || !mltcp_params_valid(&params))
		mltcp_params_default(&params);

	mltcp_key_read(sk, &m.key);
	bpf_for_each_map_elem(&mltcp_jobs, mltcp_job_visit, &m, 0);
	mltcp_flow_init(ca, tp->bytes_acked, mltcp_now_us(tp));
	/*
	 * A slot written by something other than mltcpctl may be out of range:
	 * no job. Unbounded: only root (CAP_BPF in the initial user namespace)
	 * can write the maps, so no setting comes from a container.
	 */
	if (mltcp_flow_latch(ca, &params, m.best.id ? &m.best : NULL, base, NULL))
		ca->job = m.best.id;
	/* The marks made before the flow existed start nothing. */
	if (ca->params.marked)
		ca->iter.marks_seen = (u8)m.best_marks;
	mltcp_stat_inc(MLTCP_BPF_STAT_FLOWS_STARTED);
}

SEC("struct_ops")
void BPF_PROG(mltcp_init, struct sock *sk)
{
	mltcp_init_base(sk, MLTCP_BASE_SELECTABLE);
}

SEC("struct_ops")
void BPF_PROG(mltcp_init_r, struct sock *sk)
{
	mltcp_init_base(sk, MLTCP_BASE_RENO);
}

SEC("struct_ops")
void BPF_PROG(mltcp_init_c, struct sock *sk)
{
	mltcp_init_base(sk, MLTCP_BASE_CUBIC);
}

SEC("struct_ops")
void BPF_PROG(mltcp_cong_avd, struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	u32 now = mltcp_now_us(tp);
	u32 f, w;

	if (!mltcp_flow_may_grow(ca, mltcp_cwnd_limited(tp), now))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	f = mltcp_f_increase(&ca->iter, &ca->params, tp->bytes_acked);
	w = mltcp_flow_ai_w(ca, f, tp->snd_cwnd, acked, now, tp->srtt_us >> 3);
	tcp_cong_avoid_ai(tp, w, acked);
}

SEC("struct_ops")
u32 BPF_PROG(mltcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	u32 f = mltcp_f_decrease(&ca->iter, &ca->params, tp->bytes_acked);
	enum mltcp_prio_hold hold;
	u32 ssthresh;

	if (mltcp_gated(&ca->iter))
		mltcp_stat_inc(MLTCP_BPF_STAT_GATE0 + MLTCP_GATE_REDUCED);
	ssthresh = mltcp_flow_ssthresh(ca, f, tp->snd_cwnd, tp->snd_ssthresh, &hold);
	mltcp_stat_prio_hold(hold);
	return ssthresh;
}


/* The flag bits in the low bits of dst_entry._metrics (DST_METRICS_FLAGS, include/net/dst.h). */
#define MLTCP_DST_METRICS_FLAGS 0x3UL

/*
 * The window an iteration restarts from, as the module takes it: the
 * route's initcwnd, read as dst_metric(dst, RTAX_INITCWND) reads it (the
 * metrics array behind _metrics with the flag bits cleared). The socket
 * lock, held by the hooks, keeps the cached route; the reads are probes, so
 * a layout this does not expect reads as "no initcwnd", never as a fault.
 */
static __always_inline u32 mltcp_route_init_cwnd(struct sock *sk)
{
	struct dst_entry *dst = BPF_CORE_READ(sk, sk_dst_cache);
	u32 initcwnd = 0;

	if (dst) {
		u32 *metrics = (u32 *)(BPF_CORE_READ(dst, _metrics) & ~MLTCP_DST_METRICS_FLAGS);

		if (bpf_probe_read_kernel(&initcwnd, sizeof(initcwnd), metrics + RTAX_INITCWND - 1))
			initcwnd = 0;
	}
	return mltcp_init_cwnd(initcwnd, mltcp_tp(sk)->snd_cwnd_clamp);
}

/*
 * Whether this kernel lets a BPF congestion control write
 * tp->snd_cwnd_stamp (6.10 and later). mltcpctl sets it before loading,
 * from a trial load of a store to the field; being read-only data, its value
 * is known to the verifier, which removes the store where it is false
 * instead of refusing the program.
 */
const volatile bool mltcp_write_cwnd_stamp = true;

/*
 * The module's mltcp_restarted(), the window a restart computed (at an
 * iteration's start, mltcp_restart(), or at the drain before it,
 * mltcp_drained()). The stamp is refreshed as tcp_cwnd_restart()
 * refreshes it, where the kernel allows. snd_cwnd_used, which it also
 * clears, is never writable from BPF. Both are read only by the
 * application-limited check of tcp_cwnd_validate() (RFC 2861, with
 * tcp_slow_start_after_idle), which cannot lower a window at or below the
 * initial one, and both are refreshed by the kernel at the first send that
 * fills the window (docs/bpf.md, "Hooks").
 */
static __always_inline void mltcp_restarted(struct sock *sk, u32 cwnd, u32 ssthresh)
{
	struct tcp_sock *tp = mltcp_tp(sk);

	tp->snd_cwnd = cwnd;
	tp->snd_ssthresh = ssthresh;
	if (mltcp_write_cwnd_stamp)
		tp->snd_cwnd_stamp = (u32)bpf_jiffies64();
}

static __always_inline void mltcp_restart(struct sock *sk, struct mltcp_flow *ca, u32 ca_state)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	u32 cwnd = tp->snd_cwnd, ssthresh = tp->snd_ssthresh;

	if (!mltcp_restart_window(&ca->iter, &ca->params, ca_state, mltcp_route_init_cwnd(sk),
				  &cwnd, &ssthresh))
		return;
	mltcp_restarted(sk, cwnd, ssthresh);
	if (mltcp_gated(&ca->iter))
		mltcp_stat_inc(MLTCP_BPF_STAT_GATE0 + MLTCP_GATE_HOLD);
}

/*
 * The module's mltcp_drained(): the ACK that drained the pipe; one that ends
 * a whole iteration restarts the window for the next one now, before the
 * next iteration's first skb is sized (mltcp_flow_drained()), undone at the
 * next start if that is none (mltcp_disarm() in the cwnd_event hook).
 */
static __always_inline void mltcp_drained(struct sock *sk, struct mltcp_flow *ca)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = mltcp_tp(sk);
	u32 cwnd = tp->snd_cwnd, ssthresh = tp->snd_ssthresh;
	enum mltcp_prio_hold hold;

	/* tp->write_seq == tp->snd_nxt is tcp_write_queue_empty(). */
	if (mltcp_flow_drained(ca, mltcp_now_us(tp), tp->write_seq == tp->snd_nxt, tp->bytes_acked,
			       BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state),
			       mltcp_route_init_cwnd(sk), &cwnd, &ssthresh, &hold))
		mltcp_restarted(sk, cwnd, ssthresh);
	mltcp_stat_prio_hold(hold);
}

/* The module's mltcp_reduction_ended(): the restart a drain in a reduction could not make. */
static __always_inline void mltcp_reduction_ended(struct sock *sk, struct mltcp_flow *ca)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	u32 cwnd = tp->snd_cwnd, ssthresh = tp->snd_ssthresh;

	if (mltcp_flow_reopened(ca, !tp->packets_out && tp->write_seq == tp->snd_nxt,
				tp->bytes_acked, mltcp_route_init_cwnd(sk), &cwnd, &ssthresh))
		mltcp_restarted(sk, cwnd, ssthresh);
}

/* Called before icsk_ca_state changes: it still says where the flow comes from. */
SEC("struct_ops")
void BPF_PROG(mltcp_set_state, struct sock *sk, u8 new_state)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct mltcp_flow *ca = mltcp_ca(sk);

	if (new_state == TCP_CA_Loss)
		mltcp_cubic_reset(&ca->cubic);
	if (new_state == TCP_CA_Open && BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state) == TCP_CA_Loss)
		mltcp_reduction_ended(sk, ca);
}

/* ---- Progress priority: the class of the flow's progress, as its DSCP ---- */

/* include/uapi/linux/in.h, in6.h; net/inet_ecn.h. */
#define MLTCP_SOL_IP		0
#define MLTCP_IP_TOS		1
#define MLTCP_SOL_IPV6		41
#define MLTCP_IPV6_TCLASS	67
#define MLTCP_ECN_MASK		3

/*
 * The byte the socket's packets carry in their IPv4 TOS or IPv6 traffic
 * class field, DSCP and ECN bits: inet->tos, or np->tclass for AF_INET6.
 * A v4-mapped AF_INET6 socket sends inet->tos, which bpf_setsockopt()
 * cannot reach (IP_TOS is AF_INET only): its class is kept in np->tclass,
 * read and written alike, and does not reach the wire (docs/bpf.md).
 */
static __always_inline u32 mltcp_sock_tos(struct sock *sk)
{
	struct inet_sock *inet = (struct inet_sock *)sk;

	if (sk->__sk_common.skc_family == MLTCP_AF_INET6)
		return inet->pinet6->tclass;
	return inet->tos;
}

/* tcp_packets_in_flight(): sent, less what was SACKed or taken for lost, plus retransmissions. */
static __always_inline u32 mltcp_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/*
 * Puts the flow's packets in the class of its progress: the policy's
 * mltcp_flow_prio_dscp(), as the module's hooks call it (the core's class,
 * none for an exempt flow, and the DSCP to write against the socket's
 * current one: only on a change, and an application's own DSCP is left
 * alone while no class applies); a move up holds the window until the
 * data in flight is acknowledged, all but one MSS (mltcp_prio_move()). ca_state: the socket's, or
 * TCP_CA_Loss at an RTO, which tcp_enter_loss() reports before it sets it.
 * The flow keeps no class of its own: the socket's DSCP is the state, so a
 * write happens at most once per class change, a few times an iteration,
 * and nothing is done per packet. The ECN bits are the kernel's (ECT is set
 * per segment in the same byte) and are kept. Called with the socket locked
 * (or owned by the softirq that runs the hook), as setsockopt would be.
 */
static __always_inline void mltcp_prio_update(struct sock *sk, struct mltcp_flow *ca,
					      u64 bytes_acked, u32 now_us, u32 ca_state)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_prio_config *pc;
	enum mltcp_prio_hold hold;
	u32 zero = 0, tos, cwnd;
	int dscp, val;

	/*
	 * mltcpctl writes only what mltcp_prio_config_valid() accepts; the
	 * core bounds the classes it reads by MLTCP_PRIO_CLASSES_MAX, and the
	 * DSCP is cut to its 6 bits below, so a record written otherwise
	 * (the map is root's) mislabels packets at worst. Not checked per ACK:
	 * its loops cost more than the rest of the update.
	 */
	pc = bpf_map_lookup_elem(&mltcp_prio, &zero);
	if (!pc || !pc->classes)
		return;
	tos = mltcp_sock_tos(sk);
	cwnd = tp->snd_cwnd;
	dscp = mltcp_flow_prio_dscp(ca, pc, bytes_acked, now_us, tos >> 2,
				    mltcp_unacked_segs(tp->snd_nxt - tp->snd_una, tp->mss_cache),
				    mltcp_packets_in_flight(tp), ca_state, &cwnd, &hold);
	mltcp_stat_prio_hold(hold);
	if (cwnd != tp->snd_cwnd)
		tp->snd_cwnd = cwnd;
	if (dscp < 0)
		return;
	val = ((dscp << 2) & 0xfc) | (tos & MLTCP_ECN_MASK);
	if (sk->__sk_common.skc_family == MLTCP_AF_INET6)
		bpf_setsockopt(sk, MLTCP_SOL_IPV6, MLTCP_IPV6_TCLASS, &val, sizeof(val));
	else
		bpf_setsockopt(sk, MLTCP_SOL_IP, MLTCP_IP_TOS, &val, sizeof(val));
}

/* The slot holding job id: its marks, read once per resumption of a marked flow. */
struct mltcp_marks_of {
	u32 id;
	u32 marks;
};

static long mltcp_marks_visit(struct bpf_map *map, u32 *key, struct mltcp_bpf_job_slot *slot,
			      struct mltcp_marks_of *m)
{
	if (slot->spec.id != m->id)
		return 0;
	m->marks = *(volatile u32 *)&slot->marks;
	return 1;
}

static __always_inline u32 mltcp_job_marks(u32 id)
{
	struct mltcp_marks_of m = { .id = id };

	if (id)
		bpf_for_each_map_elem(&mltcp_jobs, mltcp_marks_visit, &m, 0);
	return m.marks;
}

SEC("struct_ops")
void BPF_PROG(mltcp_cwnd_evt, struct sock *sk, enum tcp_ca_event event)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	enum mltcp_tx_verdict verdict;
	u64 now = mltcp_now_us(tp);
	u32 ca_state, cwnd;

	/*
	 * An RTO: a flow starved of every ACK still climbs with time
	 * (mltcp_prio_class()'s aging), at its retransmissions.
	 */
	if (event == CA_EVENT_LOSS)
		mltcp_prio_update(sk, ca, tp->bytes_acked, now, TCP_CA_Loss);
	if (event == CA_EVENT_COMPLETE_CWR)
		mltcp_reduction_ended(sk, ca);
	if (event != CA_EVENT_TX_START)
		return;

	ca_state = BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state);
	verdict = mltcp_on_tx_start(&ca->iter, &ca->params, tp->bytes_acked, now,
				    ca_state >= TCP_CA_Recovery, tp->packets_out != 0,
				    ca->params.marked ? mltcp_job_marks(ca->job) : 0);
	mltcp_stat_inc(MLTCP_BPF_STAT_VERDICT0 + verdict);
	cwnd = tp->snd_cwnd;
	if (mltcp_disarm(&ca->iter, &ca->params, verdict, &cwnd))
		tp->snd_cwnd = cwnd;
	if (verdict == MLTCP_TX_NEW_ITERATION)
		mltcp_restart(sk, ca, ca_state);
	mltcp_cubic_pause(&ca->cubic, now);
	/*
	 * Inside the transmit, before the IP header is built: the first
	 * segment of an iteration already carries class 0's DSCP.
	 */
	mltcp_prio_update(sk, ca, tp->bytes_acked, now, ca_state);
}

/* Runs after the ACK has cleaned the retransmit queue, so packets_out is current. */
SEC("struct_ops")
void BPF_PROG(mltcp_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = mltcp_tp(sk);

	struct mltcp_flow *ca = mltcp_ca(sk);

	if (!tp->packets_out)
		mltcp_drained(sk, ca);
	if (mltcp_gated(&ca->iter)) {
		/* The module's mltcp_gate_ack(); tcp_min_rtt() is the windowed minimum's best. */
		u32 cwnd = tp->snd_cwnd;
		enum mltcp_gate_verdict verdict;

		verdict = mltcp_gate_on_ack(&ca->iter, sample->rtt_us > 0 ? sample->rtt_us : 0,
					    tp->rtt_min.s[0].v, mltcp_now_us(tp),
					    mltcp_route_init_cwnd(sk), &cwnd);
		if (verdict != MLTCP_GATE_HOLD) {
			tp->snd_cwnd = cwnd;
			mltcp_stat_inc(MLTCP_BPF_STAT_GATE0 + verdict);
		}
	}
	mltcp_prio_update(sk, ca, tp->bytes_acked, mltcp_now_us(tp),
			  BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state));
}

SEC("struct_ops")
u32 BPF_PROG(mltcp_undo, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

#define MLTCP_OPS(ops_name, init_prog)                                                             \
	{                                                                                          \
		.init = (void *)init_prog, .ssthresh = (void *)mltcp_ssthresh,                     \
		.cong_avoid = (void *)mltcp_cong_avd, .set_state = (void *)mltcp_set_state,        \
		.undo_cwnd = (void *)mltcp_undo, .cwnd_event = (void *)mltcp_cwnd_evt,             \
		.pkts_acked = (void *)mltcp_acked, .flags = TCP_CONG_NON_RESTRICTED,               \
		.name = ops_name,                                                                  \
	}

/* Map names equal the algorithm names, so "bpftool struct_ops list" reads naturally. */
SEC(".struct_ops")
struct tcp_congestion_ops mltcp = MLTCP_OPS("mltcp", mltcp_init);

SEC(".struct_ops")
struct tcp_congestion_ops mltcp_reno = MLTCP_OPS("mltcp_reno", mltcp_init_r);

SEC(".struct_ops")
struct tcp_congestion_ops mltcp_cubic = MLTCP_OPS("mltcp_cubic", mltcp_init_c);

/* ---- Flow list: the module's debugfs "flows", as a pinnable iter/tcp program. ---- */

static __always_inline bool mltcp_name_is(const char *name, const char *want, int len)
{
	int i;

	for (i = 0; i < len; i++) {
		if (name[i] != want[i])
			return false;
	}
	return true;
}

/* The lengths include the terminating NUL. */
static __always_inline bool mltcp_owns(const char *name)
{
	return mltcp_name_is(name, "mltcp", 6) || mltcp_name_is(name, "mltcp_reno", 11) ||
	       mltcp_name_is(name, "mltcp_cubic", 12);
}

/*
 * One record per MLTCP socket whose algorithm has been initialised (a
 * listener or a SYN_SENT socket has params.mode 0 and is skipped, as the
 * module's listings skip it).
 */
SEC("iter/tcp")
int mltcp_flows(struct bpf_iter__tcp *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct sock_common *skc = ctx->sk_common;
	const struct tcp_congestion_ops *ops;
	struct mltcp_bpf_record rec;
	struct mltcp_flow ca;
	struct tcp_sock *tp;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	__builtin_memset(&rec, 0, sizeof(rec));
	ops = BPF_CORE_READ(tp, inet_conn.icsk_ca_ops);
	if (!ops || bpf_probe_read_kernel(rec.flow.ca, sizeof(rec.flow.ca), ops->name) ||
	    !mltcp_owns(rec.flow.ca))
		return 0;
	if (bpf_probe_read_kernel(&ca, sizeof(ca), tp->inet_conn.icsk_ca_priv) || !ca.params.mode)
		return 0;

	rec.magic = MLTCP_BPF_RECORD_MAGIC;
	rec.size = sizeof(rec);
	mltcp_flow_fill_record(&rec.flow, &ca, BPF_CORE_READ(tp, bytes_acked));
	rec.flow.cookie = bpf_get_socket_cookie(tp);
	rec.flow.netns = BPF_CORE_READ(skc, skc_net.net, ns.inum);
	rec.flow.cwnd = BPF_CORE_READ(tp, snd_cwnd);
	rec.flow.ssthresh = BPF_CORE_READ(tp, snd_ssthresh);
	rec.flow.sport = BPF_CORE_READ(skc, skc_num);
	rec.flow.dport = bpf_ntohs(BPF_CORE_READ(skc, skc_dport));
	rec.flow.family = BPF_CORE_READ(skc, skc_family);
	if (rec.flow.family == MLTCP_AF_INET6) {
		BPF_CORE_READ_INTO(&rec.flow.saddr, skc, skc_v6_rcv_saddr);
		BPF_CORE_READ_INTO(&rec.flow.daddr, skc, skc_v6_daddr);
		rec.flow.tos = BPF_CORE_READ(tp, inet_conn.icsk_inet.pinet6, tclass);
	} else {
		BPF_CORE_READ_INTO((u32 *)rec.flow.saddr, skc, skc_rcv_saddr);
		BPF_CORE_READ_INTO((u32 *)rec.flow.daddr, skc, skc_daddr);
		rec.flow.tos = BPF_CORE_READ(tp, inet_conn.icsk_inet.tos);
	}
	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}
