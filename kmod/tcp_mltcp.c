// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_mltcp: MLTCP congestion control over Reno and CUBIC.
 *
 * MLTCP lets competing distributed-training jobs take turns on a shared link:
 * each flow's window growth is scaled by F(r) = slope * r + intercept, where r
 * is the fraction of the current training iteration's bytes the flow has
 * delivered, so the job that is further along wins the link, finishes and
 * returns to computing. The arithmetic (iteration detection, byte-count
 * learning, F, and our RFC 9438 CUBIC) lives in mltcp_core.c and the policy
 * around it (jobs, latching, names) in mltcp_policy.c, both shared with the
 * BPF twin and the unit tests. This file is the datapath: the CC hooks, the
 * per-socket state in icsk_ca_priv (struct mltcp_flow), the module's
 * counters, and module init, which registers everything.
 *
 * Three algorithms are registered, all selectable by unprivileged sockets:
 *   mltcp_reno   MLTCP over Reno (slow start, recovery, undo: the kernel's)
 *   mltcp_cubic  MLTCP over our CUBIC
 *   mltcp        MLTCP over the namespace's base (net.mltcp.base) or its job's
 *
 * Parameters are latched into each socket when it selects the algorithm:
 * the namespace's defaults (net.mltcp.*, mltcp_sysctl.c, which follow the
 * module parameters of mltcp_defaults.c unless the namespace set its own),
 * overridden by the settings of the first matching training job
 * (mltcp_jobs.c, managed over generic netlink by mltcp_genl.c). A change of
 * a job re-latches its live flows under their socket lock (mltcp_flows.c);
 * other changes affect new sockets only.
 *
 * The per-socket state is written only with the socket owned: by the hooks,
 * which run under the socket lock, and by the re-latch, which takes it.
 *
 * debugfs (tcp_mltcp/): "flows" lists every MLTCP socket in the global
 * established hash with its iteration state (mltcp_flows.c); "stats" counts
 * flows, how each "sending resumed" event was judged, and how the start
 * gate's holds and progress priority's held moves up began and ended.
 */
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "compat.h"
#include "mltcp_defaults.h"
#include "mltcp_flows.h"
#include "mltcp_genl.h"
#include "mltcp_jobs.h"
#include "mltcp_sysctl.h"
#include "mltcp_trace.h"

/*
 * Event counters, per CPU: every TX_START and every new flow counts one,
 * and a shared cache line bouncing between the CPUs that run them would be
 * paid on each. Only the debugfs reader sums them.
 */
struct mltcp_stats {
	unsigned long flows_started;
	unsigned long verdicts[MLTCP_TX_NR_VERDICTS];
	unsigned long gate[MLTCP_GATE_NR_VERDICTS];	/* HOLD: starts held */
	unsigned long hold[MLTCP_PRIO_HOLD_NR_EVENTS];	/* BEGAN: moves up held */
};

static DEFINE_PER_CPU(struct mltcp_stats, mltcp_stats);

/* The host's count for debugfs, and the namespace's for STATS_GET. */
static void mltcp_count_gate(const struct sock *sk, enum mltcp_gate_verdict verdict)
{
	this_cpu_inc(mltcp_stats.gate[verdict]);
	mltcp_net_count_gate(sock_net(sk), verdict);
}

/* What the core reported of a held move up, if anything (not NONE), counted as the gate's. */
static void mltcp_count_prio_hold(const struct sock *sk, enum mltcp_prio_hold event)
{
	if (event == MLTCP_PRIO_HOLD_NONE)
		return;
	this_cpu_inc(mltcp_stats.hold[event]);
	mltcp_net_count_prio_hold(sock_net(sk), event);
}

/* The TCP clock in microseconds; the core keeps 32 bits of it where they suffice. */
static u64 mltcp_now_us(const struct tcp_sock *tp)
{
	return tp->tcp_mstamp;
}

/*
 * The ids of the socket's cgroup v2 and of its ancestors, from the root.
 * The socket holds its cgroup, and a cgroup its ancestors. A passive open's
 * socket has its listener's cgroup (cgroup_sk_clone()).
 */
static void mltcp_flow_key_cgroups(struct sock *sk, struct mltcp_flow_key *key)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	mltcp_key_set_cgroups(key, sock_cgroup_ptr(&sk->sk_cgrp_data));
#endif
}

/* What a job can match the flow on; v4-mapped IPv6 peers are IPv4 peers. */
static void mltcp_flow_key_fill(struct sock *sk, struct mltcp_flow_key *key)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(key, 0, sizeof(*key));
	mltcp_flow_key_cgroups(sk, key);
	key->dport = ntohs(inet->inet_dport);
	key->sport = inet->inet_num;
	key->mark = READ_ONCE(sk->sk_mark);
	key->v4 = 1;
	key->daddr[0] = (__force u32)sk->sk_daddr;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		key->v4 = 0;
		memcpy(key->daddr, &sk->sk_v6_daddr, sizeof(key->daddr));
	}
#endif
}

/*
 * CC init runs in softirq for passive opens: the job table is read under
 * RCU only. The flow is matched once, here; a later change of its job
 * reaches it through mltcp_flows_relatch().
 */
static void mltcp_init_base(struct sock *sk, int fixed_base)
{
	const struct mltcp_job_spec *spec;
	struct mltcp_flow *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_params defaults;
	struct mltcp_line host;
	struct mltcp_flow_key key;

	mltcp_flow_init(ca, tp->bytes_acked, mltcp_now_us(tp));
	mltcp_flow_key_fill(sk, &key);
	rcu_read_lock();
	/* Read without the socket lock by the walk of a job change. */
	WRITE_ONCE(ca->job, mltcp_job_attach(sock_net(sk), &key, &spec));
	mltcp_net_defaults(sock_net(sk), &defaults);
	/*
	 * mltcp_flow_latch() refuses only settings out of range, and a job is
	 * checked by mltcp_job_apply() before it is published. A line beyond
	 * the namespace's bound latches as the base algorithm's.
	 */
	mltcp_flow_latch(ca, &defaults, spec, fixed_base, mltcp_net_bound(sock_net(sk), &host));
	/* The marks made before the flow existed start nothing. */
	if (ca->params.marked)
		ca->iter.marks_seen = (u8)mltcp_job_marks(sock_net(sk), ca->job);
	rcu_read_unlock();
	this_cpu_inc(mltcp_stats.flows_started);
}

static void mltcp_init(struct sock *sk)
{
	mltcp_init_base(sk, MLTCP_BASE_SELECTABLE);
}

static void mltcp_reno_init(struct sock *sk)
{
	mltcp_init_base(sk, MLTCP_BASE_RENO);
}

static void mltcp_cubic_init_sk(struct sock *sk)
{
	mltcp_init_base(sk, MLTCP_BASE_CUBIC);
}

static void mltcp_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_flow *ca = inet_csk_ca(sk);
	u32 now = mltcp_now_us(tp);
	u32 f, w;

	if (!mltcp_flow_may_grow(ca, tcp_is_cwnd_limited(sk), now))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	f = mltcp_f_increase(&ca->iter, &ca->params, tp->bytes_acked);
	w = mltcp_flow_ai_w(ca, f, tcp_snd_cwnd(tp), acked, now, tp->srtt_us >> 3);
	tcp_cong_avoid_ai(tp, w, acked);
}

static u32 mltcp_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_flow *ca = inet_csk_ca(sk);
	u32 f = mltcp_f_decrease(&ca->iter, &ca->params, tp->bytes_acked);
	enum mltcp_prio_hold hold;
	u32 ssthresh;

	if (mltcp_gated(&ca->iter))
		mltcp_count_gate(sk, MLTCP_GATE_REDUCED);
	ssthresh = mltcp_flow_ssthresh(ca, f, tcp_snd_cwnd(tp), tp->snd_ssthresh, &hold);
	mltcp_count_prio_hold(sk, hold);
	return ssthresh;
}

/*
 * The window an iteration restarts from, as tcp_cwnd_restart() takes it
 * (tcp_init_cwnd(), not exported): the route's initcwnd if it sets one. The
 * hooks run under the socket lock, which keeps the cached route.
 */
static u32 mltcp_route_init_cwnd(struct sock *sk)
{
	const struct dst_entry *dst = __sk_dst_get(sk);

	return mltcp_init_cwnd(dst ? dst_metric(dst, RTAX_INITCWND) : 0,
			       tcp_sk(sk)->snd_cwnd_clamp);
}

/*
 * A new iteration in a restart mode: the window restarts as the kernel's
 * tcp_cwnd_restart() restarts it, stamp and usage included, so that the
 * application-limited check of tcp_cwnd_validate() (their only reader, with
 * tcp_slow_start_after_idle) measures from here. That check cannot lower a
 * window at or below the initial one, so a stale stamp would not show in
 * cwnd or ssthresh: this keeps the socket as the kernel's restart leaves it.
 */
static void mltcp_restarted(struct sock *sk, u32 cwnd, u32 ssthresh)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tcp_snd_cwnd_set(tp, cwnd);
	tp->snd_ssthresh = ssthresh;
	tp->snd_cwnd_stamp = tcp_jiffies32;
	tp->snd_cwnd_used = 0;
}

static void mltcp_restart(struct sock *sk, struct mltcp_flow *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp), ssthresh = tp->snd_ssthresh;

	if (!mltcp_restart_window(&ca->iter, &ca->params, inet_csk(sk)->icsk_ca_state,
				  mltcp_route_init_cwnd(sk), &cwnd, &ssthresh))
		return;
	mltcp_restarted(sk, cwnd, ssthresh);
	if (mltcp_gated(&ca->iter))
		mltcp_count_gate(sk, MLTCP_GATE_HOLD);
}

/*
 * The ACK that drained the pipe; one that ends a whole iteration restarts
 * the window for the next one now (mltcp_flow_drained()), undone at the
 * next start if that is none.
 */
static void mltcp_drained(struct sock *sk, struct mltcp_flow *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp), ssthresh = tp->snd_ssthresh;
	enum mltcp_prio_hold hold;

	if (mltcp_flow_drained(ca, mltcp_now_us(tp), tcp_write_queue_empty(sk), tp->bytes_acked,
			       inet_csk(sk)->icsk_ca_state, mltcp_route_init_cwnd(sk),
			       &cwnd, &ssthresh, &hold))
		mltcp_restarted(sk, cwnd, ssthresh);
	mltcp_count_prio_hold(sk, hold);
}

/* A reduction's end: the restart a drain in it could not make (mltcp_flow_reopened()). */
static void mltcp_reduction_ended(struct sock *sk, struct mltcp_flow *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp), ssthresh = tp->snd_ssthresh;

	if (mltcp_flow_reopened(ca, !tp->packets_out && tcp_write_queue_empty(sk),
				tp->bytes_acked, mltcp_route_init_cwnd(sk), &cwnd, &ssthresh))
		mltcp_restarted(sk, cwnd, ssthresh);
}

/* Called before icsk_ca_state changes: it still says where the flow comes from. */
static void mltcp_set_state(struct sock *sk, u8 new_state)
{
	struct mltcp_flow *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss)
		mltcp_cubic_reset(&ca->cubic);
	if (new_state == TCP_CA_Open && inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		mltcp_reduction_ended(sk, ca);
}

/*
 * An ACK while the start gate holds the window (GATE mode): its RTT sample
 * (0: none) against the flow's minimum decides whether the window opens.
 */
static void mltcp_gate_ack(struct sock *sk, struct mltcp_flow *ca, u32 rtt_us)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	enum mltcp_gate_verdict verdict;

	verdict = mltcp_gate_on_ack(&ca->iter, rtt_us, tcp_min_rtt(tp), mltcp_now_us(tp),
				    mltcp_route_init_cwnd(sk), &cwnd);
	if (verdict == MLTCP_GATE_HOLD)
		return;
	tcp_snd_cwnd_set(tp, cwnd);
	mltcp_count_gate(sk, verdict);
}

/*
 * Writes dscp under the socket lock, keeping the ECN field, which
 * tcp_ecn_send() sets per skb in the same byte, the way INET_ECN_xmit()
 * does. The next skb built carries it, retransmissions and the flow's own
 * pure ACKs included; skbs already queued on the host keep the old one. Not
 * done: sk_priority (the host's qdisc band stays where the application put
 * it) and a dst reset (a route chosen by DSCP stays cached).
 */
static void mltcp_sk_set_dscp(struct sock *sk, u32 dscp)
{
	struct inet_sock *inet = inet_sk(sk);
	u8 tos = (u8)(dscp << 2);

	WRITE_ONCE(inet->tos, (READ_ONCE(inet->tos) & INET_ECN_MASK) | tos);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		struct ipv6_pinfo *np = inet6_sk(sk);

		WRITE_ONCE(np->tclass, (READ_ONCE(np->tclass) & INET_ECN_MASK) | tos);
	}
#endif
}

/*
 * Progress priority: the flow's class as its DSCP, rewritten when it
 * changes; a move up holds the window until the data in flight is
 * acknowledged, all but one MSS (mltcp_prio_move()). ca_state: the socket's, or TCP_CA_Loss
 * at an RTO, which tcp_enter_loss() reports before it sets that state.
 */
static void mltcp_prio_update(struct sock *sk, struct mltcp_flow *ca, u32 ca_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_prio_config pc;
	u32 cwnd = tcp_snd_cwnd(tp);
	enum mltcp_prio_hold hold;
	int dscp;

	if (!mltcp_net_prio(sock_net(sk), &pc))
		return;
	dscp = mltcp_flow_prio_dscp(ca, &pc, tp->bytes_acked, (u32)mltcp_now_us(tp),
				    mltcp_sk_tos(sk) >> 2,
				    mltcp_unacked_segs(tp->snd_nxt - tp->snd_una, tp->mss_cache),
				    tcp_packets_in_flight(tp), ca_state, &cwnd, &hold);
	mltcp_count_prio_hold(sk, hold);
	if (cwnd != tcp_snd_cwnd(tp))
		tcp_snd_cwnd_set(tp, cwnd);
	if (dscp >= 0)
		mltcp_sk_set_dscp(sk, dscp);
}

static void mltcp_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_flow *ca = inet_csk_ca(sk);
	u64 start_acked = ca->iter.start_acked;
	enum mltcp_tx_verdict verdict;
	u64 now = mltcp_now_us(tp);
	u32 cwnd;

	/* An RTO: a flow starved of ACKs still ages into a higher class. */
	if (event == CA_EVENT_LOSS)
		mltcp_prio_update(sk, ca, TCP_CA_Loss);
	if (event == CA_EVENT_COMPLETE_CWR)
		mltcp_reduction_ended(sk, ca);
	if (event != CA_EVENT_TX_START)
		return;

	verdict = mltcp_on_tx_start(&ca->iter, &ca->params, tp->bytes_acked, now,
				    icsk->icsk_ca_state >= TCP_CA_Recovery,
				    tp->packets_out != 0,
				    ca->params.marked ? mltcp_job_marks(sock_net(sk), ca->job) : 0);
	this_cpu_inc(mltcp_stats.verdicts[verdict]);
	mltcp_net_count_verdict(sock_net(sk), verdict);
	cwnd = tcp_snd_cwnd(tp);
	if (mltcp_disarm(&ca->iter, &ca->params, verdict, &cwnd))
		tcp_snd_cwnd_set(tp, cwnd);
	if (verdict == MLTCP_TX_NEW_ITERATION) {
		if (ca->job)
			mltcp_job_account_iteration(sock_net(sk), ca->job,
						    tp->bytes_acked - start_acked);
		mltcp_restart(sk, ca);
		trace_mltcp_iteration(sk, tp->bytes_acked - start_acked);
	}
	mltcp_cubic_pause(&ca->cubic, now);
	/* Before the IP header is built: the iteration's first skb has its class. */
	mltcp_prio_update(sk, ca, icsk->icsk_ca_state);
}

/* Runs after the ACK has cleaned the retransmit queue, so packets_out is current. */
static void mltcp_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_flow *ca = inet_csk_ca(sk);

	if (!tp->packets_out)
		mltcp_drained(sk, ca);
	if (mltcp_gated(&ca->iter))
		mltcp_gate_ack(sk, ca, sample->rtt_us > 0 ? sample->rtt_us : 0);
	mltcp_prio_update(sk, ca, inet_csk(sk)->icsk_ca_state);
}

/*
 * Also called for sockets whose init never ran (a listener, a connection
 * closed before it was established): their state is all zero.
 */
static void mltcp_release(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp_flow *ca = inet_csk_ca(sk);
	u32 key = ca->job;

	if (!key)
		return;
	WRITE_ONCE(ca->job, 0);
	mltcp_job_account_release(sock_net(sk), key,
				  tp->bytes_acked - ca->iter.start_acked);
}

#define MLTCP_OPS(ops_name, init_fn)				\
	{							\
		.init		= init_fn,			\
		.release	= mltcp_release,		\
		.ssthresh	= mltcp_ssthresh,		\
		.cong_avoid	= mltcp_cong_avoid,		\
		.set_state	= mltcp_set_state,		\
		.undo_cwnd	= tcp_reno_undo_cwnd,		\
		.cwnd_event	= mltcp_cwnd_event,		\
		.pkts_acked	= mltcp_pkts_acked,		\
		.flags		= TCP_CONG_NON_RESTRICTED,	\
		.owner		= THIS_MODULE,			\
		.name		= ops_name,			\
	}

static struct tcp_congestion_ops mltcp_ops[] __read_mostly = {
	MLTCP_OPS(MLTCP_CA_NAME, mltcp_init),
	MLTCP_OPS(MLTCP_CA_RENO_NAME, mltcp_reno_init),
	MLTCP_OPS(MLTCP_CA_CUBIC_NAME, mltcp_cubic_init_sk),
};

static int mltcp_stats_show(struct seq_file *m, void *unused)
{
	struct mltcp_stats sum = {};
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct mltcp_stats *s = per_cpu_ptr(&mltcp_stats, cpu);

		sum.flows_started += READ_ONCE(s->flows_started);
		for (i = 0; i < MLTCP_TX_NR_VERDICTS; i++)
			sum.verdicts[i] += READ_ONCE(s->verdicts[i]);
		for (i = 0; i < MLTCP_GATE_NR_VERDICTS; i++)
			sum.gate[i] += READ_ONCE(s->gate[i]);
		for (i = 0; i < MLTCP_PRIO_HOLD_NR_EVENTS; i++)
			sum.hold[i] += READ_ONCE(s->hold[i]);
	}
	seq_printf(m, "flows_started %lu\n", sum.flows_started);
	seq_printf(m, "job_objects %ld\n", mltcp_jobs_objects());
	for (i = 0; i < MLTCP_TX_NR_VERDICTS; i++)
		seq_printf(m, "%s %lu\n", mltcp_verdict_name(i), sum.verdicts[i]);
	for (i = 0; i < MLTCP_GATE_NR_VERDICTS; i++)
		seq_printf(m, "%s %lu\n", mltcp_gate_verdict_name(i), sum.gate[i]);
	for (i = 0; i < MLTCP_PRIO_HOLD_NR_EVENTS; i++)
		seq_printf(m, "%s %lu\n", mltcp_prio_hold_name(i), sum.hold[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mltcp_stats);

static struct dentry *mltcp_debugfs;

/*
 * The algorithms are registered last, as tcp_cubic and tcp_bbr do: once a
 * name is registered a socket may select it and run our hooks, so
 * everything they use is in place before, and nothing after it can fail.
 * Each failure unwinds what was done, in reverse order.
 */
static int __init mltcp_register(void)
{
	int i, err;

	BUILD_BUG_ON(sizeof(struct mltcp_flow) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON(MLTCP_INIT_CWND != TCP_INIT_CWND);
	BUILD_BUG_ON((int)TCP_CA_Open != MLTCP_CA_OPEN ||
		     (int)TCP_CA_Disorder != MLTCP_CA_DISORDER ||
		     MLTCP_CA_CWR != (int)TCP_CA_CWR ||
		     (int)TCP_CA_Recovery != MLTCP_CA_RECOVERY ||
		     (int)TCP_CA_Loss != MLTCP_CA_LOSS);

	mltcp_flows_init(mltcp_ops, ARRAY_SIZE(mltcp_ops));
	/* Namespaces first: a flow's init reads its namespace's state. */
	err = mltcp_sysctl_init();
	if (err)
		return err;
	err = mltcp_jobs_init();
	if (err)
		goto out_sysctl;
	err = mltcp_genl_init();
	if (err)
		goto out_jobs;

	mltcp_debugfs = debugfs_create_dir("tcp_mltcp", NULL);
	mltcp_flows_debugfs_init(mltcp_debugfs);
	debugfs_create_file("stats", 0444, mltcp_debugfs, NULL, &mltcp_stats_fops);

	/* Before any flow can latch: a host's line lowered from here reaches it. */
	mltcp_defaults_on_line_lowered(mltcp_flows_rebound);
	for (i = 0; i < ARRAY_SIZE(mltcp_ops); i++) {
		err = tcp_register_congestion_control(&mltcp_ops[i]);
		if (err)
			goto out_algs;
	}
	return 0;

out_algs:
	while (--i >= 0)
		tcp_unregister_congestion_control(&mltcp_ops[i]);
	mltcp_defaults_on_line_lowered(NULL);
	mltcp_flows_stop();
	debugfs_remove_recursive(mltcp_debugfs);
	mltcp_genl_exit();
out_jobs:
	mltcp_jobs_exit();
out_sysctl:
	mltcp_sysctl_exit();
	rcu_barrier();
	return err;
}

static void __exit mltcp_unregister(void)
{
	int i;

	for (i = ARRAY_SIZE(mltcp_ops) - 1; i >= 0; i--)
		tcp_unregister_congestion_control(&mltcp_ops[i]);
	mltcp_defaults_on_line_lowered(NULL);
	mltcp_flows_stop();
	debugfs_remove_recursive(mltcp_debugfs);
	mltcp_genl_exit();
	mltcp_jobs_exit();
	mltcp_sysctl_exit();
	/* Jobs and configurations are freed by RCU callbacks in this module. */
	rcu_barrier();
}

module_init(mltcp_register);
module_exit(mltcp_unregister);

MODULE_AUTHOR("The mltcp authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MLTCP: congestion control that interleaves distributed-training jobs");
MODULE_VERSION("0.1.0");
MODULE_ALIAS("tcp_mltcp_reno");
MODULE_ALIAS("tcp_mltcp_cubic");
