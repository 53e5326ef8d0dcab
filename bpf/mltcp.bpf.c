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
 * All of MLTCP's and CUBIC's arithmetic is the core, kmod/mltcp_core.c, the
 * very file the module and the unit tests compile, included below. This file
 * is only glue, as tcp_mltcp.c is for the module: it reads the socket, feeds
 * plain numbers to the core and applies what comes back.
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
 *  - Statistics are a per-CPU array map instead of debugfs "stats".
 *  - The flow list is an iter/tcp program instead of debugfs "flows"; pinned
 *    by the loader, reading its file lists the MLTCP flows of the reader's
 *    network namespace in the module's format.
 *  - Slow start, additive increase and undo are the kernel's functions called
 *    as kfuncs; tcp_is_cwnd_limited() and tcp_write_queue_empty() are inline
 *    in the kernel and re-stated here from the 6.1 definitions.
 *
 * Built CO-RE against the running kernel's BTF (vmlinux.h generated at build
 * time), so the same object loads on any kernel with BTF and BPF TCP
 * congestion control (5.13+ for the kfuncs; the flow iterator needs 5.9+).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * The core, compiled here from kmod/mltcp_core.c. Its functions have external
 * linkage, because the module links them across objects. In BPF that does
 * not work as is: a non-static function becomes a "global subprogram" that
 * the verifier checks on its own with every pointer argument possibly NULL,
 * and no BPF function may take more than five arguments (two of the core's
 * take six), not even an out-of-line copy nobody calls. So the glue declares
 * each of them first, static and always inline; C gives the core's own later
 * declarations and definitions the linkage of that first declaration (C11
 * 6.2.2p4-5), so the source stays the module's, byte for byte.
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

MLTCP_BPF_CORE void mltcp_params_default(struct mltcp_params *p);
MLTCP_BPF_CORE bool mltcp_params_valid(const struct mltcp_params *p);
MLTCP_BPF_CORE int mltcp_parse_fixed(const char *s, u32 max, u32 *out);
MLTCP_BPF_CORE u32 mltcp_fixed_to_milli(u32 fixed);
MLTCP_BPF_CORE void mltcp_iter_init(struct mltcp_iter *it, u64 bytes_acked, u32 now_us);
MLTCP_BPF_CORE void mltcp_iter_set_fixed(struct mltcp_iter *it, u64 bytes);
MLTCP_BPF_CORE void mltcp_on_ack_drain(struct mltcp_iter *it, u32 now_us, bool app_idle);
MLTCP_BPF_CORE enum mltcp_tx_verdict mltcp_on_tx_start(struct mltcp_iter *it,
						       const struct mltcp_params *p,
						       u64 bytes_acked, u32 now_us,
						       bool in_recovery, bool data_outstanding);
MLTCP_BPF_CORE bool mltcp_restart_window(const struct mltcp_iter *it,
					 const struct mltcp_params *p, u32 *cwnd, u32 *ssthresh);
MLTCP_BPF_CORE enum mltcp_learn mltcp_iter_learn(struct mltcp_iter *it, u64 completed);
MLTCP_BPF_CORE u32 mltcp_ratio(const struct mltcp_iter *it, u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_f(const struct mltcp_iter *it, const struct mltcp_params *p,
			   u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_f_increase(const struct mltcp_iter *it, const struct mltcp_params *p,
				    u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_f_decrease(const struct mltcp_iter *it, const struct mltcp_params *p,
				    u64 bytes_acked);
MLTCP_BPF_CORE u32 mltcp_md_beta(u32 base_beta, u32 f);
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

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#include "mltcp_core.c"
#pragma clang diagnostic pop

#include "mltcp_bpf.h"
#include "uapi/mltcp.h"

char _license[] SEC("license") = "GPL";

/* Kernel functions exported to BPF congestion control (net/ipv4/bpf_tcp_ca.c). */
extern u32 tcp_slow_start(struct tcp_sock *tp, u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked) __ksym;
extern u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define TCP_CONG_NON_RESTRICTED 0x1

/*
 * Per-socket state in icsk_ca_priv: the module's struct mltcp, same layout.
 * job is the operator's id of the job the flow matched at init (0: none);
 * the module keeps a never-reused key there instead, because it also
 * accounts per-job counters, which this backend does not.
 */
struct mltcp_flow {
	struct mltcp_iter iter;
	struct mltcp_cubic cubic;
	struct mltcp_params params;
	u32 job;
};

_Static_assert(sizeof(struct mltcp_flow) <=
		       sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "MLTCP state must fit icsk_ca_priv");

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

static __always_inline struct tcp_sock *mltcp_tp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct mltcp_flow *mltcp_ca(struct sock *sk)
{
	return (struct mltcp_flow *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline u32 mltcp_now_us(const struct tcp_sock *tp)
{
	return (u32)tp->tcp_mstamp;
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

/* ---- Jobs: the module's mltcp_job_match() and mltcp_latch() over the mltcp_jobs map ---- */

#define MLTCP_AF_INET 2
#define MLTCP_AF_INET6 10

/* What a job can match a flow on, read once from the socket. */
struct mltcp_match {
	u32 daddr[4]; /* network order; IPv4 (also v4-mapped IPv6) in daddr[0] */
	u32 mark;
	u16 dport, sport;
	bool v4;
	/* The best match so far: the matching job with the lowest id. */
	struct mltcp_bpf_job best;
};

/* Network-order mask of the first `bits` bits of a 32-bit word (bits clamped to 0..32). */
static __always_inline u32 mltcp_word_mask(int bits)
{
	if (bits <= 0)
		return 0;
	if (bits >= 32)
		return 0xffffffff;
	return bpf_htonl(0xffffffffU << (32 - bits));
}

static __always_inline bool mltcp_peer_matches(const struct mltcp_bpf_job *job,
					       const struct mltcp_match *m)
{
	int len = job->peer_prefixlen;
	int w;

	if (m->v4) {
		/* An IPv4 prefix never matches an IPv6 peer, nor the reverse. */
		if (job->peer_family != MLTCP_AF_INET)
			return false;
		return (m->daddr[0] & mltcp_word_mask(len)) == job->peer[0];
	}
	if (job->peer_family != MLTCP_AF_INET6)
		return false;
	for (w = 0; w < 4; w++) {
		if ((m->daddr[w] & mltcp_word_mask(len - 32 * w)) != job->peer[w])
			return false;
	}
	return true;
}

/* mltcp_cfg_matches() of kmod/mltcp_netns.c: every criterion present must hold. */
static __always_inline bool mltcp_job_matches(const struct mltcp_bpf_job *job,
					      const struct mltcp_match *m)
{
	if ((job->fields & MLTCP_JOB_F_DPORT) &&
	    (m->dport < job->dport_min || m->dport > job->dport_max))
		return false;
	if ((job->fields & MLTCP_JOB_F_SPORT) &&
	    (m->sport < job->sport_min || m->sport > job->sport_max))
		return false;
	if ((job->fields & MLTCP_JOB_F_MARK) && (m->mark & job->mark_mask) != job->mark)
		return false;
	if ((job->fields & MLTCP_JOB_F_PEER) && !mltcp_peer_matches(job, m))
		return false;
	return true;
}

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
	struct mltcp_bpf_job job;

	bpf_spin_lock(&slot->lock);
	job = slot->job;
	bpf_spin_unlock(&slot->lock);
	if (job.id && (!m->best.id || job.id < m->best.id) && mltcp_job_matches(&job, m))
		m->best = job;
	return 0;
}

static __always_inline void mltcp_match_read(struct sock *sk, struct mltcp_match *m)
{
	struct sock_common *skc = &sk->__sk_common;

	m->dport = bpf_ntohs(skc->skc_dport);
	m->sport = skc->skc_num;
	m->mark = sk->sk_mark;
	m->v4 = true;
	m->daddr[0] = skc->skc_daddr;
	if (skc->skc_family == MLTCP_AF_INET6) {
		u32 *a = skc->skc_v6_daddr.in6_u.u6_addr32;

		/* ::ffff:a.b.c.d is an IPv4 peer, as ipv6_addr_v4mapped() says. */
		m->v4 = a[0] == 0 && a[1] == 0 && a[2] == bpf_htonl(0x0000ffff);
		if (m->v4) {
			m->daddr[0] = a[3];
		} else {
			m->daddr[0] = a[0];
			m->daddr[1] = a[1];
			m->daddr[2] = a[2];
			m->daddr[3] = a[3];
		}
	}
}

/*
 * base < 0: take the base from the defaults ("mltcp"). As the module's
 * mltcp_init_base() and mltcp_latch(): the defaults, overridden by the
 * settings of the first matching job; an exempt job gets F = 1 exactly.
 */
static __always_inline void mltcp_init_base(struct sock *sk, int base)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	struct mltcp_match m = {};
	struct mltcp_params params;
	struct mltcp_params *cfg;
	const struct mltcp_bpf_job *job = &m.best;
	u64 fixed_bytes = 0;
	u32 zero = 0;

	cfg = bpf_map_lookup_elem(&mltcp_config, &zero);
	if (cfg)
		params = *cfg;
	if (!cfg || !mltcp_params_valid(&params))
		mltcp_params_default(&params);

	mltcp_match_read(sk, &m);
	bpf_for_each_map_elem(&mltcp_jobs, mltcp_job_visit, &m, 0);
	ca->job = job->id;
	if (job->id) {
		struct mltcp_params latched = params;

		if (job->fields & MLTCP_JOB_F_SLOPE)
			latched.slope = job->slope;
		if (job->fields & MLTCP_JOB_F_INTERCEPT)
			latched.intercept = job->intercept;
		if (job->fields & MLTCP_JOB_F_IDLE_GAP)
			latched.idle_gap_us = job->idle_gap_us;
		if (job->fields & MLTCP_JOB_F_BASE)
			latched.base = job->base;
		if (job->exempt) {
			latched.slope = 0;
			latched.intercept = MLTCP_ONE;
		}
		/* The loader validates jobs; a slot written by anything else is ignored. */
		if (mltcp_params_valid(&latched)) {
			params = latched;
			if (job->fields & MLTCP_JOB_F_ITER_BYTES)
				fixed_bytes = job->iter_bytes;
		} else {
			ca->job = 0;
		}
	}
	if (base >= 0)
		params.base = (u8)base;
	ca->params = params;
	mltcp_iter_init(&ca->iter, tp->bytes_acked, mltcp_now_us(tp));
	mltcp_cubic_init(&ca->cubic);
	if (fixed_bytes)
		mltcp_iter_set_fixed(&ca->iter, fixed_bytes);
	mltcp_stat_inc(MLTCP_BPF_STAT_FLOWS_STARTED);
}

SEC("struct_ops")
void BPF_PROG(mltcp_init, struct sock *sk)
{
	mltcp_init_base(sk, -1);
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

	if (!mltcp_cwnd_limited(tp)) {
		mltcp_cubic_pause(&ca->cubic, now);
		return;
	}
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	f = mltcp_f_increase(&ca->iter, &ca->params, tp->bytes_acked);
	if (ca->params.base == MLTCP_BASE_CUBIC)
		w = mltcp_cubic_ai_w(&ca->cubic, tp->snd_cwnd, acked, now, tp->srtt_us >> 3, f);
	else
		w = mltcp_reno_ai_w(tp->snd_cwnd, f);
	tcp_cong_avoid_ai(tp, w, acked);
}

SEC("struct_ops")
u32 BPF_PROG(mltcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	u32 f = mltcp_f_decrease(&ca->iter, &ca->params, tp->bytes_acked);

	if (ca->params.base == MLTCP_BASE_CUBIC)
		return mltcp_cubic_ssthresh(&ca->cubic, tp->snd_cwnd, f);
	return mltcp_reno_ssthresh(tp->snd_cwnd, f);
}

SEC("struct_ops")
void BPF_PROG(mltcp_set_state, struct sock *sk, u8 new_state)
{
	if (new_state == TCP_CA_Loss)
		mltcp_cubic_reset(&mltcp_ca(sk)->cubic);
}

SEC("struct_ops")
void BPF_PROG(mltcp_cwnd_evt, struct sock *sk, enum tcp_ca_event event)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = mltcp_tp(sk);
	struct mltcp_flow *ca = mltcp_ca(sk);
	enum mltcp_tx_verdict verdict;
	u32 now = mltcp_now_us(tp);

	if (event != CA_EVENT_TX_START)
		return;

	verdict = mltcp_on_tx_start(&ca->iter, &ca->params, tp->bytes_acked, now,
				    BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state) >= TCP_CA_Recovery,
				    tp->packets_out != 0);
	mltcp_stat_inc(MLTCP_BPF_STAT_VERDICT0 + verdict);
	if (verdict == MLTCP_TX_NEW_ITERATION) {
		u32 cwnd = tp->snd_cwnd, ssthresh = tp->snd_ssthresh;

		if (mltcp_restart_window(&ca->iter, &ca->params, &cwnd, &ssthresh)) {
			tp->snd_cwnd = cwnd;
			tp->snd_ssthresh = ssthresh;
		}
	}
	mltcp_cubic_pause(&ca->cubic, now);
}

/* Runs after the ACK has cleaned the retransmit queue, so packets_out is current. */
SEC("struct_ops")
void BPF_PROG(mltcp_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = mltcp_tp(sk);

	/* tp->write_seq == tp->snd_nxt is tcp_write_queue_empty(). */
	if (!tp->packets_out)
		mltcp_on_ack_drain(&mltcp_ca(sk)->iter, mltcp_now_us(tp),
				   tp->write_seq == tp->snd_nxt);
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

/* Prints " key=%u.%03u" for a MLTCP_ONE-unit value, as the module's mltcp_show_milli(). */
#define MLTCP_SHOW_MILLI(seq, key, fixed)                                                          \
	do {                                                                                       \
		u32 milli_ = mltcp_fixed_to_milli(fixed);                                          \
                                                                                                   \
		BPF_SEQ_PRINTF(seq, " " key "=%u.%03u", milli_ / 1000, milli_ % 1000);             \
	} while (0)

static __always_inline const char *mltcp_mode_name(u8 mode)
{
	if (mode == MLTCP_MODE_AI)
		return "ai";
	if (mode == MLTCP_MODE_MD)
		return "md";
	if (mode == MLTCP_MODE_BOTH)
		return "both";
	if (mode == MLTCP_MODE_RESTART)
		return "restart";
	if (mode == (MLTCP_MODE_AI | MLTCP_MODE_RESTART))
		return "ai-restart";
	if (mode == (MLTCP_MODE_MD | MLTCP_MODE_RESTART))
		return "md-restart";
	return "both-restart";
}

SEC("iter/tcp")
int mltcp_flows(struct bpf_iter__tcp *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct sock_common *skc = ctx->sk_common;
	const struct tcp_congestion_ops *ops;
	struct mltcp_flow ca;
	struct tcp_sock *tp;
	char name[16];
	u16 family, sport, dport;
	u64 acked;
	u32 netns;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	ops = BPF_CORE_READ(tp, inet_conn.icsk_ca_ops);
	if (!ops || bpf_probe_read_kernel(name, sizeof(name), ops->name) || !mltcp_owns(name))
		return 0;
	if (bpf_probe_read_kernel(&ca, sizeof(ca), tp->inet_conn.icsk_ca_priv))
		return 0;
	acked = BPF_CORE_READ(tp, bytes_acked);
	family = BPF_CORE_READ(skc, skc_family);
	sport = BPF_CORE_READ(skc, skc_num);
	dport = bpf_ntohs(BPF_CORE_READ(skc, skc_dport));
	netns = BPF_CORE_READ(skc, skc_net.net, ns.inum);

	BPF_SEQ_PRINTF(seq, "netns=%u cookie=%llu job=%u", netns, bpf_get_socket_cookie(tp),
		       ca.job);
	if (family == 10 /* AF_INET6 */)
		BPF_SEQ_PRINTF(seq, " src=[%pI6]:%u dst=[%pI6]:%u", &skc->skc_v6_rcv_saddr, sport,
			       &skc->skc_v6_daddr, dport);
	else
		BPF_SEQ_PRINTF(seq, " src=%pI4:%u dst=%pI4:%u", &skc->skc_rcv_saddr, sport,
			       &skc->skc_daddr, dport);
	BPF_SEQ_PRINTF(seq, " ca=%s base=%s mode=%s cwnd=%u ssthresh=%u", name,
		       ca.params.base == MLTCP_BASE_RENO ? "reno" : "cubic",
		       mltcp_mode_name(ca.params.mode), BPF_CORE_READ(tp, snd_cwnd),
		       BPF_CORE_READ(tp, snd_ssthresh));
	BPF_SEQ_PRINTF(seq,
		       " iterations=%u iter_bytes=%llu fixed=%u bytes_this_iter=%llu"
		       " last_iter_us=%u",
		       ca.iter.count, ca.iter.bytes, !!(ca.iter.flags & MLTCP_ITER_FIXED),
		       acked - ca.iter.start_acked, ca.iter.last_duration_us);
	MLTCP_SHOW_MILLI(seq, "r", mltcp_ratio(&ca.iter, acked));
	MLTCP_SHOW_MILLI(seq, "f", mltcp_f(&ca.iter, &ca.params, acked));
	MLTCP_SHOW_MILLI(seq, "slope", ca.params.slope);
	MLTCP_SHOW_MILLI(seq, "intercept", ca.params.intercept);
	BPF_SEQ_PRINTF(seq, " idle_gap_us=%u\n", ca.params.idle_gap_us);
	return 0;
}
