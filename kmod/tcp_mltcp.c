// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_mltcp: MLTCP congestion control over Reno and CUBIC.
 *
 * MLTCP lets competing distributed-training jobs take turns on a shared link:
 * each flow's window growth is scaled by F(r) = slope * r + intercept, where r
 * is the fraction of the current training iteration's bytes the flow has
 * delivered, so the job that is further along wins the link, finishes and
 * returns to computing. The arithmetic (iteration detection, byte-count
 * learning, F, and our RFC 9438 CUBIC) lives in mltcp_core.c, shared with the
 * BPF twin and the unit tests; this file is the kernel glue: hooks, per-socket
 * state in icsk_ca_priv, module parameters and a debugfs view.
 *
 * Three algorithms are registered, all selectable by unprivileged sockets:
 *   mltcp_reno   MLTCP over Reno (slow start, recovery, undo: the kernel's)
 *   mltcp_cubic  MLTCP over our CUBIC
 *   mltcp        MLTCP over the namespace's base (net.mltcp.base) or its job's
 *
 * Parameters are latched into each socket when it selects the algorithm:
 * the namespace's defaults (net.mltcp.*, the module parameters unless the
 * namespace set its own), overridden by the settings of the first
 * matching training job (mltcp_netns.c, managed over generic netlink by
 * mltcp_genl.c). A change of a job re-latches its live flows under their
 * socket lock; other changes affect new sockets only.
 *
 * debugfs (tcp_mltcp/): "flows" lists every MLTCP socket in the global
 * established hash with its iteration state; "stats" counts flows and how
 * each "sending resumed" event was judged.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/sock_diag.h>
#include <linux/string.h>
#include <net/tcp.h>

#include "compat.h"
#include "mltcp_core.h"
#include "mltcp_netns.h"

/*
 * Per-flow state, in icsk_ca_priv. Written only with the socket owned: by
 * the CC hooks, which run under the socket lock, and by mltcp_flow_update(),
 * which takes it. params.mode is 0 until init has run.
 */
struct mltcp {
	struct mltcp_iter iter;
	struct mltcp_cubic cubic;
	struct mltcp_params params;
	u32 job;		/* key of the flow's job in its namespace, 0: none */
};

/* Defaults for new sockets; each field is written whole by its param ops. */
static struct mltcp_params mltcp_defaults __read_mostly = {
	.slope = MLTCP_DEFAULT_SLOPE,
	.intercept = MLTCP_DEFAULT_INTERCEPT,
	.idle_gap_us = MLTCP_DEFAULT_IDLE_GAP_US,
	.mode = MLTCP_MODE_MD | MLTCP_MODE_RESTART,
	.base = MLTCP_BASE_CUBIC,
};

static const char * const mltcp_base_names[] = {
	[MLTCP_BASE_RENO] = "reno",
	[MLTCP_BASE_CUBIC] = "cubic",
};

/* Indexed by enum mltcp_mode - 1. */
static const char * const mltcp_mode_names[] = { MLTCP_MODE_NAMES };

static const char * const mltcp_verdict_names[MLTCP_TX_NR_VERDICTS] = {
	[MLTCP_TX_NEW_ITERATION] = "iterations",
	[MLTCP_TX_IN_RECOVERY] = "tx_start_in_recovery",
	[MLTCP_TX_OUTSTANDING] = "tx_start_data_outstanding",
	[MLTCP_TX_NOT_IDLE] = "tx_start_not_idle",
	[MLTCP_TX_SHORT_GAP] = "tx_start_short_gap",
};

static atomic_long_t mltcp_verdicts[MLTCP_TX_NR_VERDICTS];
static atomic_long_t mltcp_flows_started;

/* Decimal tunables ("1.6"), stored in MLTCP_ONE units. */
static int mltcp_set_fixed(const char *val, const struct kernel_param *kp, u32 max)
{
	u32 fixed;

	if (mltcp_parse_fixed(val, max, &fixed))
		return -EINVAL;
	WRITE_ONCE(*(u16 *)kp->arg, fixed);
	return 0;
}

static int mltcp_set_slope(const char *val, const struct kernel_param *kp)
{
	return mltcp_set_fixed(val, kp, MLTCP_SLOPE_MAX);
}

static int mltcp_set_intercept(const char *val, const struct kernel_param *kp)
{
	return mltcp_set_fixed(val, kp, MLTCP_INTERCEPT_MAX);
}

static int mltcp_get_fixed(char *buffer, const struct kernel_param *kp)
{
	u32 milli = mltcp_fixed_to_milli(READ_ONCE(*(u16 *)kp->arg));

	return sysfs_emit(buffer, "%u.%03u\n", milli / 1000, milli % 1000);
}

static const struct kernel_param_ops mltcp_slope_ops = {
	.set = mltcp_set_slope,
	.get = mltcp_get_fixed,
};

static const struct kernel_param_ops mltcp_intercept_ops = {
	.set = mltcp_set_intercept,
	.get = mltcp_get_fixed,
};

static int mltcp_set_idle_gap(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, MLTCP_IDLE_GAP_MIN_US,
				     MLTCP_IDLE_GAP_MAX_US);
}

static const struct kernel_param_ops mltcp_idle_gap_ops = {
	.set = mltcp_set_idle_gap,
	.get = param_get_uint,
};

static int mltcp_set_base(const char *val, const struct kernel_param *kp)
{
	int base = sysfs_match_string(mltcp_base_names, val);

	if (base < 0)
		return -EINVAL;
	WRITE_ONCE(*(u8 *)kp->arg, base);
	return 0;
}

static int mltcp_get_base(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", mltcp_base_names[READ_ONCE(*(u8 *)kp->arg)]);
}

static const struct kernel_param_ops mltcp_base_ops = {
	.set = mltcp_set_base,
	.get = mltcp_get_base,
};

static int mltcp_set_mode(const char *val, const struct kernel_param *kp)
{
	int mode = sysfs_match_string(mltcp_mode_names, val);

	if (mode < 0)
		return -EINVAL;
	WRITE_ONCE(*(u8 *)kp->arg, mode + 1);
	return 0;
}

static int mltcp_get_mode(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n",
			  mltcp_mode_names[READ_ONCE(*(u8 *)kp->arg) - 1]);
}

static const struct kernel_param_ops mltcp_mode_ops = {
	.set = mltcp_set_mode,
	.get = mltcp_get_mode,
};

module_param_cb(slope, &mltcp_slope_ops, &mltcp_defaults.slope, 0644);
MODULE_PARM_DESC(slope, "F(r) = slope * r + intercept: slope, decimal in [0, 16] (default 1.6)");
module_param_cb(intercept, &mltcp_intercept_ops, &mltcp_defaults.intercept, 0644);
MODULE_PARM_DESC(intercept, "F(r) = slope * r + intercept: intercept, decimal in [0, 16] (default 0.2)");
module_param_cb(idle_gap_us, &mltcp_idle_gap_ops, &mltcp_defaults.idle_gap_us, 0644);
MODULE_PARM_DESC(idle_gap_us, "idle time that starts a new iteration, us in [1000, 60000000] (default 20000)");
module_param_cb(base, &mltcp_base_ops, &mltcp_defaults.base, 0644);
MODULE_PARM_DESC(base, "base algorithm of \"mltcp\": reno or cubic (default cubic)");
module_param_cb(mode, &mltcp_mode_ops, &mltcp_defaults.mode, 0644);
MODULE_PARM_DESC(mode, "where F acts: ai (additive increase), md (multiplicative decrease) or both; with -restart the window also restarts at each iteration (default md-restart)");

static u32 mltcp_now_us(const struct tcp_sock *tp)
{
	return (u32)tp->tcp_mstamp;
}

/* The defaults of namespaces that did not set their own net.mltcp.* value. */
u32 mltcp_module_default(enum mltcp_net_default which)
{
	switch (which) {
	case MLTCP_NET_SLOPE:
		return READ_ONCE(mltcp_defaults.slope);
	case MLTCP_NET_INTERCEPT:
		return READ_ONCE(mltcp_defaults.intercept);
	case MLTCP_NET_IDLE_GAP:
		return READ_ONCE(mltcp_defaults.idle_gap_us);
	case MLTCP_NET_BASE:
		return READ_ONCE(mltcp_defaults.base);
	default:
		return 0;
	}
}

/* "mltcp" runs the namespace's or the job's base; the others their own. */
#define MLTCP_BASE_SELECTABLE	(-1)

/*
 * Latch the flow's parameters: the namespace's defaults, overridden by the
 * settings of its job's configuration cfg (NULL: no job). The caller owns
 * the socket (see struct mltcp). An exempt job gets F = 1 exactly (slope 0,
 * intercept 1), the base algorithm's own arithmetic.
 */
static void mltcp_latch(struct sock *sk, const struct mltcp_net *pn,
			const struct mltcp_job_cfg *cfg, int fixed_base)
{
	struct mltcp *ca = inet_csk_ca(sk);
	struct mltcp_params p = {
		.slope = mltcp_net_default(pn, MLTCP_NET_SLOPE),
		.intercept = mltcp_net_default(pn, MLTCP_NET_INTERCEPT),
		.idle_gap_us = mltcp_net_default(pn, MLTCP_NET_IDLE_GAP),
		.mode = ca->params.mode ? ca->params.mode : READ_ONCE(mltcp_defaults.mode),
		.base = mltcp_net_default(pn, MLTCP_NET_BASE),
	};
	u64 fixed_bytes = 0;

	if (cfg) {
		if (cfg->fields & MLTCP_JOB_F_SLOPE)
			p.slope = cfg->slope;
		if (cfg->fields & MLTCP_JOB_F_INTERCEPT)
			p.intercept = cfg->intercept;
		if (cfg->fields & MLTCP_JOB_F_IDLE_GAP)
			p.idle_gap_us = cfg->idle_gap_us;
		if (cfg->fields & MLTCP_JOB_F_BASE)
			p.base = cfg->base;
		if (cfg->fields & MLTCP_JOB_F_ITER_BYTES)
			fixed_bytes = cfg->iter_bytes;
		if (cfg->exempt) {
			p.slope = 0;
			p.intercept = MLTCP_ONE;
		}
	}
	if (fixed_base != MLTCP_BASE_SELECTABLE)
		p.base = fixed_base;
	/* A live flow that changes base starts the new one from a clean state. */
	if (ca->params.mode && p.base != ca->params.base)
		mltcp_cubic_init(&ca->cubic);
	ca->params = p;

	if (fixed_bytes) {
		if (!(ca->iter.flags & MLTCP_ITER_FIXED) || ca->iter.bytes != fixed_bytes)
			mltcp_iter_set_fixed(&ca->iter, fixed_bytes);
	} else if (ca->iter.flags & MLTCP_ITER_FIXED) {
		mltcp_iter_set_fixed(&ca->iter, 0);
	}
}

/*
 * CC init runs in softirq for passive opens: the job table is read under
 * RCU only. The flow is matched once, here; a later change of its job
 * reaches it through mltcp_flow_update().
 */
static void mltcp_init_base(struct sock *sk, int fixed_base)
{
	struct mltcp_net *pn = mltcp_pernet(sock_net(sk));
	const struct mltcp_job_cfg *cfg = NULL;
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp *ca = inet_csk_ca(sk);
	struct mltcp_job *job;

	mltcp_iter_init(&ca->iter, tp->bytes_acked, mltcp_now_us(tp));
	mltcp_cubic_init(&ca->cubic);
	ca->job = 0;
	rcu_read_lock();
	job = mltcp_job_match(pn, sk, &cfg);
	if (job) {
		ca->job = job->key;
		atomic_inc(&job->flows);
		atomic64_inc(&job->flows_total);
	}
	mltcp_latch(sk, pn, cfg, fixed_base);
	rcu_read_unlock();
	atomic_long_inc(&mltcp_flows_started);
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
	struct mltcp *ca = inet_csk_ca(sk);
	u32 now = mltcp_now_us(tp);
	u32 f, w;

	if (!tcp_is_cwnd_limited(sk)) {
		mltcp_cubic_pause(&ca->cubic, now);
		return;
	}
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	f = mltcp_f_increase(&ca->iter, &ca->params, tp->bytes_acked);
	if (ca->params.base == MLTCP_BASE_CUBIC)
		w = mltcp_cubic_ai_w(&ca->cubic, tcp_snd_cwnd(tp), acked, now,
				     tp->srtt_us >> 3, f);
	else
		w = mltcp_reno_ai_w(tcp_snd_cwnd(tp), f);
	tcp_cong_avoid_ai(tp, w, acked);
}

static u32 mltcp_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp *ca = inet_csk_ca(sk);
	u32 f = mltcp_f_decrease(&ca->iter, &ca->params, tp->bytes_acked);

	if (ca->params.base == MLTCP_BASE_CUBIC)
		return mltcp_cubic_ssthresh(&ca->cubic, tcp_snd_cwnd(tp), f);
	return mltcp_reno_ssthresh(tcp_snd_cwnd(tp), f);
}

static void mltcp_set_state(struct sock *sk, u8 new_state)
{
	struct mltcp *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss)
		mltcp_cubic_reset(&ca->cubic);
}

static void mltcp_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp *ca = inet_csk_ca(sk);
	u64 start_acked = ca->iter.start_acked;
	enum mltcp_tx_verdict verdict;
	u32 now = mltcp_now_us(tp);

	if (event != CA_EVENT_TX_START)
		return;

	verdict = mltcp_on_tx_start(&ca->iter, &ca->params, tp->bytes_acked, now,
				    icsk->icsk_ca_state >= TCP_CA_Recovery,
				    tp->packets_out != 0);
	atomic_long_inc(&mltcp_verdicts[verdict]);
	if (verdict == MLTCP_TX_NEW_ITERATION && ca->job)
		mltcp_job_account_iteration(sock_net(sk), ca->job,
					    tp->bytes_acked - start_acked);
	if (verdict == MLTCP_TX_NEW_ITERATION) {
		u32 cwnd = tcp_snd_cwnd(tp), ssthresh = tp->snd_ssthresh;

		if (mltcp_restart_window(&ca->iter, &ca->params, &cwnd, &ssthresh)) {
			tcp_snd_cwnd_set(tp, cwnd);
			tp->snd_ssthresh = ssthresh;
		}
	}
	mltcp_cubic_pause(&ca->cubic, now);
}

/* Runs after the ACK has cleaned the retransmit queue, so packets_out is current. */
static void mltcp_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp *ca = inet_csk_ca(sk);

	if (!tp->packets_out)
		mltcp_on_ack_drain(&ca->iter, mltcp_now_us(tp),
				   tcp_write_queue_empty(sk));
}

/*
 * Also called for sockets whose init never ran (a listener, a connection
 * closed before it was established): their state is all zero.
 */
static void mltcp_release(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct mltcp *ca = inet_csk_ca(sk);
	u32 key = ca->job;

	if (!key)
		return;
	ca->job = 0;
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
	MLTCP_OPS("mltcp", mltcp_init),
	MLTCP_OPS("mltcp_reno", mltcp_reno_init),
	MLTCP_OPS("mltcp_cubic", mltcp_cubic_init_sk),
};

bool mltcp_owns(const struct sock *sk)
{
	const struct tcp_congestion_ops *ops = READ_ONCE(inet_csk(sk)->icsk_ca_ops);

	return ops >= &mltcp_ops[0] && ops < &mltcp_ops[ARRAY_SIZE(mltcp_ops)];
}

static int mltcp_fixed_base(const struct sock *sk)
{
	const struct tcp_congestion_ops *ops = inet_csk(sk)->icsk_ca_ops;

	if (ops == &mltcp_ops[1])
		return MLTCP_BASE_RENO;
	if (ops == &mltcp_ops[2])
		return MLTCP_BASE_CUBIC;
	return MLTCP_BASE_SELECTABLE;
}

/*
 * After a change of job: re-latch the flow from the job's current
 * configuration, or detach it from a job being deleted (it returns to the
 * namespace's defaults). Process context; caller holds pn->lock, which keeps
 * the job and its configuration alive. lock_sock() excludes every CC hook of
 * this socket, so the whole per-flow state may be rewritten.
 */
void mltcp_flow_update(struct sock *sk, struct mltcp_net *pn,
		       struct mltcp_job *job, bool detach)
{
	struct mltcp *ca = inet_csk_ca(sk);

	lock_sock(sk);
	if (mltcp_owns(sk) && ca->params.mode && ca->job == job->key) {
		if (detach) {
			ca->job = 0;
			atomic_dec(&job->flows);
			mltcp_latch(sk, pn, NULL, mltcp_fixed_base(sk));
		} else {
			mltcp_latch(sk, pn,
				    rcu_dereference_protected(job->cfg, lockdep_is_held(&pn->lock)),
				    mltcp_fixed_base(sk));
		}
	}
	release_sock(sk);
}

/* A consistent snapshot of an initialized MLTCP flow, under its socket lock. */
bool mltcp_flow_snapshot(struct sock *sk, struct mltcp_flow_info *info)
{
	const struct inet_sock *inet = inet_sk(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct mltcp *ca = inet_csk_ca(sk);
	u32 cookie[2];
	bool slow, ok;
	u64 acked;

	slow = lock_sock_fast(sk);
	ok = mltcp_owns(sk) && ca->params.mode;
	if (!ok)
		goto out;
	memset(info, 0, sizeof(*info));
	sock_diag_save_cookie(sk, cookie);
	info->cookie = (u64)cookie[1] << 32 | cookie[0];
	info->netns = sock_net(sk)->ns.inum;
	info->family = AF_INET;
	info->saddr4 = inet->inet_rcv_saddr;
	info->daddr4 = inet->inet_daddr;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		info->family = AF_INET6;
		info->saddr6 = sk->sk_v6_rcv_saddr;
		info->daddr6 = sk->sk_v6_daddr;
	}
#endif
	info->sport = ntohs(inet->inet_sport);
	info->dport = ntohs(inet->inet_dport);
	info->ca = inet_csk(sk)->icsk_ca_ops->name;
	info->job_key = ca->job;
	info->params = ca->params;
	info->cwnd = tcp_snd_cwnd(tp);
	info->ssthresh = tp->snd_ssthresh;
	acked = tp->bytes_acked;
	info->bytes_this_iter = acked - ca->iter.start_acked;
	info->iter_bytes = ca->iter.bytes;
	info->iter_fixed = ca->iter.flags & MLTCP_ITER_FIXED;
	info->r = mltcp_ratio(&ca->iter, acked);
	info->f = mltcp_f(&ca->iter, &ca->params, acked);
	info->iterations = ca->iter.count;
	info->last_iter_us = ca->iter.last_duration_us;
out:
	unlock_sock_fast(sk, slow);
	return ok;
}

static void mltcp_show_milli(struct seq_file *m, const char *key, u32 fixed)
{
	u32 milli = mltcp_fixed_to_milli(fixed);

	seq_printf(m, " %s=%u.%03u", key, milli / 1000, milli % 1000);
}

static int mltcp_show_flow(struct sock *sk, void *arg)
{
	struct seq_file *m = arg;
	struct mltcp_flow_info fi;

	if (!mltcp_flow_snapshot(sk, &fi))
		return 0;
	seq_printf(m, "netns=%u", fi.netns);
	if (fi.family == AF_INET6)
		seq_printf(m, " src=[%pI6c]:%u dst=[%pI6c]:%u",
			   &fi.saddr6, fi.sport, &fi.daddr6, fi.dport);
	else
		seq_printf(m, " src=%pI4:%u dst=%pI4:%u",
			   &fi.saddr4, fi.sport, &fi.daddr4, fi.dport);
	seq_printf(m, " ca=%s base=%s mode=%s cwnd=%u ssthresh=%u",
		   fi.ca, mltcp_base_names[fi.params.base],
		   mltcp_mode_names[fi.params.mode - 1], fi.cwnd, fi.ssthresh);
	seq_printf(m, " iterations=%u iter_bytes=%llu fixed=%u bytes_this_iter=%llu last_iter_us=%u",
		   fi.iterations, fi.iter_bytes, fi.iter_fixed, fi.bytes_this_iter,
		   fi.last_iter_us);
	mltcp_show_milli(m, "r", fi.r);
	mltcp_show_milli(m, "f", fi.f);
	mltcp_show_milli(m, "slope", fi.params.slope);
	mltcp_show_milli(m, "intercept", fi.params.intercept);
	seq_putc(m, '\n');
	return 0;
}

/*
 * Every MLTCP socket in the global established hash, whatever its
 * namespace. Sockets of a namespace with a private hash
 * (net.ipv4.tcp_child_ehash_entries) are listed by the netlink flow dump.
 */
static int mltcp_flows_show(struct seq_file *m, void *unused)
{
	struct mltcp_walk pos = { };

	return mltcp_walk_flows(NULL, &pos, mltcp_show_flow, m);
}
DEFINE_SHOW_ATTRIBUTE(mltcp_flows);

static int mltcp_stats_show(struct seq_file *m, void *unused)
{
	int i;

	seq_printf(m, "flows_started %ld\n", atomic_long_read(&mltcp_flows_started));
	seq_printf(m, "job_objects %ld\n", mltcp_netns_objects());
	for (i = 0; i < MLTCP_TX_NR_VERDICTS; i++)
		seq_printf(m, "%s %ld\n", mltcp_verdict_names[i],
			   atomic_long_read(&mltcp_verdicts[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mltcp_stats);

static struct dentry *mltcp_debugfs;

static int __init mltcp_register(void)
{
	int i, err;

	BUILD_BUG_ON(sizeof(struct mltcp) > ICSK_CA_PRIV_SIZE);

	/* Namespaces first: a flow's init reads its namespace's state. */
	err = mltcp_netns_init();
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(mltcp_ops); i++) {
		err = tcp_register_congestion_control(&mltcp_ops[i]);
		if (err)
			goto unwind;
	}
	err = mltcp_genl_init();
	if (err)
		goto unwind;

	mltcp_debugfs = debugfs_create_dir("tcp_mltcp", NULL);
	debugfs_create_file("flows", 0444, mltcp_debugfs, NULL, &mltcp_flows_fops);
	debugfs_create_file("stats", 0444, mltcp_debugfs, NULL, &mltcp_stats_fops);
	return 0;

unwind:
	while (--i >= 0)
		tcp_unregister_congestion_control(&mltcp_ops[i]);
	mltcp_netns_exit();
	rcu_barrier();
	return err;
}

static void __exit mltcp_unregister(void)
{
	int i;

	debugfs_remove_recursive(mltcp_debugfs);
	mltcp_genl_exit();
	for (i = ARRAY_SIZE(mltcp_ops) - 1; i >= 0; i--)
		tcp_unregister_congestion_control(&mltcp_ops[i]);
	mltcp_netns_exit();
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
