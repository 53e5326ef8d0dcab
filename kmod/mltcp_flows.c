// SPDX-License-Identifier: GPL-2.0
/*
 * Live MLTCP flows from process context: the walk over the established hash,
 * snapshots for the netlink flow dump and debugfs, re-latching the flows of
 * a job that changed, and bounding containers' flows again when the host's
 * line is stored (the same argument as a job change's, over every bounded
 * namespace).
 *
 * How a job change reaches live flows: the writer publishes the job's new
 * configuration (RCU), drops the table lock, waits for a grace period, then
 * walks the namespace's established hash. Only the job's own flows are
 * locked: the walk reads each MLTCP socket's job key without the socket
 * lock and takes the socket lock of those that match, where it checks the
 * key again and re-latches the flow. Every CC hook runs with the socket lock
 * held (the spinlock in softirq, or owned by a process), so under
 * lock_sock() no hook of that socket runs concurrently and the multi-word
 * per-flow state can be rewritten safely; a process that holds the lock of
 * another socket (lock_sock() waits uninterruptibly) delays nothing.
 *
 * Why the unlocked read of the key misses no flow: CC init matches the flow
 * and writes its key in one RCU read-side section (mltcp_init_base()). After
 * the grace period every init that could have matched against the table as
 * it was before the change has finished and its key is visible here; an init
 * that starts later reads the configuration already published.
 *
 * Why concurrent changes need no lock between them: under the socket lock
 * the flow is re-latched from the job's configuration as it is then, not as
 * it was when the walk began. Changes to one socket are ordered by its lock,
 * and each change was published before its own walk took any socket lock, so
 * the last walk to lock a socket reads a configuration at least as new as
 * every change whose walk locked it before: when two job sets return, every
 * live flow holds the job's last configuration, whichever walk came last.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sock_diag.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/inet_hashtables.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "mltcp_flows.h"
#include "mltcp_jobs.h"
#include "mltcp_sysctl.h"

/* The algorithms whose sockets are ours, from mltcp_flows_init(). */
static const struct tcp_congestion_ops *mltcp_algs;
static unsigned int mltcp_nalgs;

void mltcp_flows_init(const struct tcp_congestion_ops *algs, unsigned int n)
{
	mltcp_algs = algs;
	mltcp_nalgs = n;
}

/*
 * The socket runs one of our algorithms. Any context: without the socket
 * lock its ops may change under us (and another module's be unloaded), so
 * the pointer is read once and compared, never followed.
 */
static bool mltcp_owns(const struct sock *sk)
{
	const struct tcp_congestion_ops *ops = READ_ONCE(inet_csk(sk)->icsk_ca_ops);

	return ops >= mltcp_algs && ops < mltcp_algs + mltcp_nalgs;
}

/* The base the flow's algorithm fixes (see MLTCP_CA_NAME); socket owned. */
static int mltcp_fixed_base(const struct sock *sk)
{
	const char *name = inet_csk(sk)->icsk_ca_ops->name;

	if (!strcmp(name, MLTCP_CA_RENO_NAME))
		return MLTCP_BASE_RENO;
	if (!strcmp(name, MLTCP_CA_CUBIC_NAME))
		return MLTCP_BASE_CUBIC;
	return MLTCP_BASE_SELECTABLE;
}

/* The walk */

/*
 * An MLTCP socket of net, and of the job with this key unless key is 0. The
 * key is read without the socket lock: it may be stale, and the caller checks
 * it again under the lock. icsk_ca_priv is part of the socket whatever its
 * algorithm, so the read itself is always safe.
 */
static bool mltcp_walk_wants(const struct sock *sk, const struct net *net, u32 key)
{
	const struct mltcp_flow *fl = inet_csk_ca(sk);

	return sk_fullsock(sk) && (!net || net_eq(sock_net(sk), net)) &&
	       mltcp_owns(sk) && (!key || READ_ONCE(fl->job) == key);
}

/*
 * Takes a reference on each wanted socket of the bucket, up to cap; returns
 * how many were taken and sets *wanted to how many there were.
 */
static unsigned int mltcp_walk_collect(struct inet_hashinfo *hinfo, unsigned int bucket,
				       const struct net *net, u32 key, struct sock **socks,
				       unsigned int cap, unsigned int *wanted)
{
	struct inet_ehash_bucket *head = &hinfo->ehash[bucket];
	spinlock_t *lock = inet_ehash_lockp(hinfo, bucket);
	struct hlist_nulls_node *node;
	unsigned int n = 0;
	struct sock *sk;

	*wanted = 0;
	spin_lock_bh(lock);
	sk_nulls_for_each(sk, node, &head->chain) {
		if (!mltcp_walk_wants(sk, net, key))
			continue;
		(*wanted)++;
		if (n < cap && refcount_inc_not_zero(&sk->sk_refcnt))
			socks[n++] = sk;
	}
	spin_unlock_bh(lock);
	return n;
}

static void mltcp_walk_put(struct sock **socks, unsigned int n)
{
	while (n)
		sock_gen_put(socks[--n]);
}

#define MLTCP_WALK_STACK 16

/*
 * Each bucket's sockets are collected whole (growing the array outside the
 * bucket lock if the chain is long), so a walk that runs to the end visits
 * every socket that was in the hash throughout. A dump that stops part-way
 * resumes at the same index of the same bucket; sockets that came or went in
 * between may then be missed or repeated, as with inet_diag.
 */
int mltcp_walk_flows(struct net *net, u32 key, struct mltcp_walk *pos,
		     int (*fn)(struct sock *sk, void *arg), void *arg)
{
	/* init_net's is the global hash, tcp_hashinfo, which 6.12 no longer exports. */
	struct inet_hashinfo *hinfo = (net ?: &init_net)->ipv4.tcp_death_row.hashinfo;
	struct sock *stack[MLTCP_WALK_STACK], **socks = stack;
	unsigned int cap = MLTCP_WALK_STACK;
	int ret = 0;

	for (; pos->bucket <= hinfo->ehash_mask; pos->bucket++, pos->skip = 0) {
		unsigned int n, i, wanted;

		if (hlist_nulls_empty(&hinfo->ehash[pos->bucket].chain))
			continue;
		for (;;) {
			struct sock **bigger;

			n = mltcp_walk_collect(hinfo, pos->bucket, net, key, socks, cap, &wanted);
			if (wanted <= cap)
				break;
			mltcp_walk_put(socks, n);
			bigger = kmalloc_array(wanted + MLTCP_WALK_STACK, sizeof(*socks),
					       GFP_KERNEL);
			if (!bigger) {
				ret = -ENOMEM;
				goto out;
			}
			if (socks != stack)
				kfree(socks);
			socks = bigger;
			cap = wanted + MLTCP_WALK_STACK;
		}
		for (i = pos->skip; i < n && !ret; i++) {
			ret = fn(socks[i], arg);
			if (!ret)
				pos->skip = i + 1;
		}
		mltcp_walk_put(socks, n);
		if (ret)
			goto out;
		cond_resched();
	}
out:
	if (socks != stack)
		kfree(socks);
	return ret;
}

/* Snapshots */

/*
 * The TOS byte (DSCP and ECN) the socket's packets leave with: IPv4 and
 * v4-mapped IPv6 take inet->tos (ip_queue_xmit()), native IPv6 np->tclass
 * (inet6_csk_xmit()).
 */
u8 mltcp_sk_tos(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr))
		return READ_ONCE(inet6_sk(sk)->tclass);
#endif
	return READ_ONCE(inet_sk(sk)->tos);
}

/* The socket's part of a record: addresses, ports, window, names, TOS. */
static void mltcp_record_socket(struct sock *sk, struct mltcp_flow_record *rec)
{
	const struct inet_sock *inet = inet_sk(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 cookie[2];

	sock_diag_save_cookie(sk, cookie);
	rec->cookie = (u64)cookie[1] << 32 | cookie[0];
	rec->netns = sock_net(sk)->ns.inum;
	rec->family = MLTCP_AF_INET;
	memcpy(rec->saddr, &inet->inet_rcv_saddr, sizeof(__be32));
	memcpy(rec->daddr, &inet->inet_daddr, sizeof(__be32));
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		rec->family = MLTCP_AF_INET6;
		memcpy(rec->saddr, &sk->sk_v6_rcv_saddr, sizeof(struct in6_addr));
		memcpy(rec->daddr, &sk->sk_v6_daddr, sizeof(struct in6_addr));
	}
#endif
	rec->sport = ntohs(inet->inet_sport);
	rec->dport = ntohs(inet->inet_dport);
	strscpy(rec->ca, inet_csk(sk)->icsk_ca_ops->name, sizeof(rec->ca));
	rec->cwnd = tcp_snd_cwnd(tp);
	rec->ssthresh = tp->snd_ssthresh;
	rec->tos = mltcp_sk_tos(sk);
}

void mltcp_flow_record_owned(struct sock *sk, struct mltcp_flow_record *rec)
{
	BUILD_BUG_ON(MLTCP_AF_INET != AF_INET || MLTCP_AF_INET6 != AF_INET6);
	BUILD_BUG_ON(sizeof(rec->saddr) < sizeof(struct in6_addr));
	memset(rec, 0, sizeof(*rec));
	mltcp_record_socket(sk, rec);
	mltcp_flow_fill_record(rec, inet_csk_ca(sk), tcp_sk(sk)->bytes_acked);
}

bool mltcp_flow_snapshot(struct sock *sk, struct mltcp_flow_record *rec)
{
	const struct mltcp_flow *fl = inet_csk_ca(sk);
	bool slow, ok;

	slow = lock_sock_fast(sk);
	ok = mltcp_owns(sk) && fl->params.mode;
	if (ok)
		mltcp_flow_record_owned(sk, rec);
	unlock_sock_fast(sk, slow);
	return ok;
}

/* Re-latching after a job change */

/*
 * Job changes that reached live flows, and the sockets they locked to do it
 * (debugfs "relatch"): what a job change costs the namespace's other flows.
 */
static atomic_long_t mltcp_relatch_changes;
static atomic_long_t mltcp_relatch_locked;

struct mltcp_relatch {
	u32 key;
	u32 changed;		/* MLTCP_JOB_F_* the change names */
	bool detach;		/* the job was deleted */
};

static int mltcp_relatch_one(struct sock *sk, void *arg)
{
	const struct mltcp_relatch *r = arg;
	struct mltcp_flow *fl = inet_csk_ca(sk);
	const struct mltcp_job_spec *spec = NULL;
	struct net *net = sock_net(sk);
	struct mltcp_params defaults;
	struct mltcp_line host;

	lock_sock(sk);
	atomic_long_inc(&mltcp_relatch_locked);
	if (!mltcp_owns(sk) || !fl->params.mode || fl->job != r->key)
		goto out;
	rcu_read_lock();
	if (r->detach) {
		WRITE_ONCE(fl->job, 0);
	} else {
		spec = mltcp_job_spec_of_key(net, r->key);
		/*
		 * Deleted since: the deletion's walk detaches the flow, with
		 * every setting the job had.
		 */
		if (!spec)
			goto out_rcu;
	}
	mltcp_net_defaults(net, &defaults);
	/* Checked by mltcp_job_apply(): the job's settings latch whole. */
	mltcp_flow_relatch(fl, &defaults, spec, r->changed, mltcp_fixed_base(sk),
			   mltcp_net_bound(net, &host));
	/* Marking turned on: the marks made until now start nothing. */
	if ((r->changed & MLTCP_JOB_F_MARKED) && fl->params.marked)
		fl->iter.marks_seen = (u8)mltcp_job_marks(net, r->key);
out_rcu:
	rcu_read_unlock();
out:
	release_sock(sk);
	return 0;
}

/*
 * A walk fails only when it cannot allocate room for a bucket's sockets of
 * the job, that is with thousands of them in one hash chain or when the
 * task is being killed for memory; it resumes at that bucket a few times.
 */
#define MLTCP_RELATCH_TRIES	3

int mltcp_flows_relatch(struct net *net, u32 key, u32 changed, bool detach)
{
	struct mltcp_relatch r = { .key = key, .changed = changed, .detach = detach };
	struct mltcp_walk pos = { };
	int tries = 0, err;

	/* See the top of this file: every init that matched before is done. */
	synchronize_rcu();
	atomic_long_inc(&mltcp_relatch_changes);
	do {
		err = mltcp_walk_flows(net, key, &pos, mltcp_relatch_one, &r);
		cond_resched();
	} while (err == -ENOMEM && ++tries < MLTCP_RELATCH_TRIES);
	mltcp_jobs_gen_bump(net);
	return err;
}

/* Re-bounding after the host's line was lowered */

/* Live flows of containers the walk gave a new line. */
static atomic_long_t mltcp_rebound_count;

static void mltcp_rebound_work_fn(struct work_struct *work);
static DECLARE_WORK(mltcp_rebound_work, mltcp_rebound_work_fn);

/*
 * The flow's line is beyond its namespace's bound now: latch the line again
 * as a new flow of its job would (the namespace's defaults as they are, the
 * job's line over them, the base's if still beyond), as a change of its
 * job naming the line does. Its other settings it keeps.
 */
static int mltcp_rebound_one(struct sock *sk, void *arg)
{
	struct mltcp_flow *fl = inet_csk_ca(sk);
	const struct mltcp_line *bound;
	struct mltcp_params defaults;
	struct mltcp_line host;
	struct net *net;

	/* Hashed sockets of a namespace being dismantled are left to it. */
	net = maybe_get_net(sock_net(sk));
	if (!net)
		return 0;
	/* Fixed for the namespace's life: the host's own sockets are not locked. */
	if (!mltcp_net_bound(net, &host))
		goto out;
	lock_sock(sk);
	rcu_read_lock();
	bound = mltcp_net_bound(net, &host);
	if (mltcp_owns(sk) && mltcp_flow_beyond(fl, bound)) {
		mltcp_net_defaults(net, &defaults);
		mltcp_flow_relatch(fl, &defaults, mltcp_job_spec_of_key(net, fl->job),
				   MLTCP_JOB_F_LINE, mltcp_fixed_base(sk), bound);
		atomic_long_inc(&mltcp_rebound_count);
		mltcp_jobs_gen_bump(net);	/* a flow dump across it is told */
	}
	rcu_read_unlock();
	release_sock(sk);
out:
	put_net(net);
	return 0;
}

static void mltcp_rebound_walk(struct net *net)
{
	struct mltcp_walk pos = { };
	int tries = 0, err;

	do {
		err = mltcp_walk_flows(net, 0, &pos, mltcp_rebound_one, NULL);
		cond_resched();
	} while (err == -ENOMEM && ++tries < MLTCP_RELATCH_TRIES);
	if (err)
		pr_warn_ratelimited("tcp_mltcp: out of memory: some containers' flows keep a line above the host's\n");
}

static bool mltcp_own_hash(const struct net *net)
{
	return net->ipv4.tcp_death_row.hashinfo != init_net.ipv4.tcp_death_row.hashinfo;
}

/*
 * Namespaces with an established hash of their own (tcp_child_ehash_entries)
 * that are bounded, each with a reference: at most max of them.
 */
static unsigned int mltcp_own_hash_nets(struct net **nets, unsigned int max)
{
	struct mltcp_line host;
	unsigned int n = 0;
	struct net *net;

	down_read(&net_rwsem);
	for_each_net(net) {
		if (n < max && mltcp_own_hash(net) && mltcp_net_bound(net, &host)) {
			nets[n] = maybe_get_net(net);
			if (nets[n])
				n++;
		}
	}
	up_read(&net_rwsem);
	return n;
}

/*
 * A work item, so that the store returns at once and holds no lock while
 * the walk waits on a socket lock: a container's process that keeps its own
 * socket locked (a send blocked on a page fault) delays the walk, and with
 * it the flows after that socket and later lowerings, never the host's
 * writer or the creation of namespaces.
 */
static void mltcp_rebound_work_fn(struct work_struct *work)
{
	struct net **nets;
	unsigned int max = 0, n, i;
	struct net *net;

	/* As for a job change: every init that read the old line is done. */
	synchronize_rcu();
	/* The global hash holds every namespace's sockets but those below. */
	mltcp_rebound_walk(NULL);

	down_read(&net_rwsem);
	for_each_net(net)
		max += mltcp_own_hash(net);
	up_read(&net_rwsem);
	if (!max)
		return;
	nets = kmalloc_array(max, sizeof(*nets), GFP_KERNEL);
	if (!nets) {
		pr_warn_ratelimited("tcp_mltcp: out of memory: some containers' flows keep a line above the host's\n");
		return;
	}
	/* Namespaces created since latch the line stored already. */
	n = mltcp_own_hash_nets(nets, max);
	for (i = 0; i < n; i++) {
		mltcp_rebound_walk(nets[i]);
		put_net(nets[i]);
	}
	kfree(nets);
}

void mltcp_flows_rebound(void)
{
	queue_work(system_unbound_wq, &mltcp_rebound_work);
}

void mltcp_flows_stop(void)
{
	/* A store that saw the hook set has queued its walk once this returns. */
	kernel_param_lock(THIS_MODULE);
	kernel_param_unlock(THIS_MODULE);
	cancel_work_sync(&mltcp_rebound_work);
}

/* debugfs */

static void mltcp_show_fixed(struct seq_file *m, const char *key, u32 fixed)
{
	char text[MLTCP_PARAM_TEXT];

	mltcp_format_fixed(fixed, text, sizeof(text));
	seq_printf(m, " %s=%s", key, text);
}

static int mltcp_show_flow(struct sock *sk, void *arg)
{
	struct seq_file *m = arg;
	struct mltcp_flow_record rec;

	if (!mltcp_flow_snapshot(sk, &rec))
		return 0;
	seq_printf(m, "netns=%u", rec.netns);
	if (rec.family == MLTCP_AF_INET6)
		seq_printf(m, " src=[%pI6c]:%u dst=[%pI6c]:%u",
			   rec.saddr, rec.sport, rec.daddr, rec.dport);
	else
		seq_printf(m, " src=%pI4:%u dst=%pI4:%u",
			   rec.saddr, rec.sport, rec.daddr, rec.dport);
	seq_printf(m, " ca=%s base=%s mode=%s cwnd=%u ssthresh=%u",
		   rec.ca, mltcp_base_name(rec.base), mltcp_mode_name(rec.mode),
		   rec.cwnd, rec.ssthresh);
	seq_printf(m, " iterations=%u iter_bytes=%llu fixed=%u bytes_this_iter=%llu last_iter_us=%u",
		   rec.iterations, rec.iter_bytes, rec.iter_fixed, rec.bytes_this_iter,
		   rec.last_iter_us);
	mltcp_show_fixed(m, "r", rec.r);
	mltcp_show_fixed(m, "f", rec.f);
	mltcp_show_fixed(m, "slope", rec.slope);
	mltcp_show_fixed(m, "intercept", rec.intercept);
	seq_printf(m, " trusted=%u held=%u", rec.iter_trusted, rec.prio_held);
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

	return mltcp_walk_flows(NULL, 0, &pos, mltcp_show_flow, m);
}
DEFINE_SHOW_ATTRIBUTE(mltcp_flows);

static int mltcp_relatch_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "changes %ld\n", atomic_long_read(&mltcp_relatch_changes));
	seq_printf(m, "sockets_locked %ld\n", atomic_long_read(&mltcp_relatch_locked));
	seq_printf(m, "rebound %ld\n", atomic_long_read(&mltcp_rebound_count));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mltcp_relatch);

void mltcp_flows_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("flows", 0444, dir, NULL, &mltcp_flows_fops);
	debugfs_create_file("relatch", 0444, dir, NULL, &mltcp_relatch_fops);
}
