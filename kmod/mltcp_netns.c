// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_mltcp per-namespace state: the net.mltcp.* sysctls that hold the
 * defaults for new flows, the job table, and the walk over a namespace's
 * MLTCP sockets (used by debugfs, the netlink flow dump and job updates).
 *
 * Sysctls, each namespace its own:
 *   net.mltcp.slope        decimal in [0, 16], e.g. "1.6" (stored in 1/1024)
 *   net.mltcp.intercept    decimal in [0, 16]
 *   net.mltcp.idle_gap_us  integer in [1000, 60000000]
 *   net.mltcp.base         "reno" or "cubic" (flows of "mltcp" only)
 * A namespace starts with the module parameters' values and follows them
 * until it writes its own, so a parameter change still reaches every
 * namespace that was not tuned on its own. A value out of range or malformed
 * is refused with -EINVAL and changes nothing; nothing is clamped. Like the
 * module parameters, the defaults are latched by each flow when it chooses
 * MLTCP.
 *
 * How a job change reaches live flows: the writer publishes the job's new
 * configuration (RCU), then walks the namespace's established hash and, for
 * each MLTCP socket, takes the socket lock and re-latches the flow if it
 * belongs to the job (mltcp_flow_update()). Every CC hook runs with the
 * socket lock held (the spinlock in softirq, or owned by a process), so
 * under lock_sock() no hook of that socket runs concurrently and the
 * multi-word per-flow state can be rewritten safely. A flow whose CC init
 * raced with the change either finished init before the walk locked it (it
 * is then re-latched) or starts init after the walk passed its bucket or
 * released its lock, and then reads the already published configuration.
 */
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/sock_diag.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <net/inet_hashtables.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "mltcp_netns.h"
#include "uapi/mltcp.h"

static unsigned int mltcp_net_id __read_mostly;

/* Jobs and configurations allocated and not yet freed. */
static atomic_long_t mltcp_objects;

struct mltcp_net *mltcp_pernet(const struct net *net)
{
	return net_generic(net, mltcp_net_id);
}

long mltcp_netns_objects(void)
{
	return atomic_long_read(&mltcp_objects);
}

/* Sysctls */

/* Room for any valid value and its newline; longer writes are refused. */
#define MLTCP_SYSCTL_TEXT 24

static int mltcp_default_max[MLTCP_NET_NDEFAULTS] = {
	[MLTCP_NET_SLOPE] = MLTCP_SLOPE_MAX,
	[MLTCP_NET_INTERCEPT] = MLTCP_INTERCEPT_MAX,
	[MLTCP_NET_IDLE_GAP] = MLTCP_IDLE_GAP_MAX_US,
	[MLTCP_NET_BASE] = MLTCP_BASE_CUBIC,
};

/* The namespace's own value, else the module parameter's. */
u32 mltcp_net_default(const struct mltcp_net *pn, enum mltcp_net_default which)
{
	int value = READ_ONCE(pn->defaults[which]);

	return value < 0 ? mltcp_module_default(which) : value;
}

static const char * const mltcp_sysctl_bases[] = {
	[MLTCP_BASE_RENO] = "reno",
	[MLTCP_BASE_CUBIC] = "cubic",
};

/*
 * One handler for the four defaults; table->data points to the namespace's
 * slot, table->extra1 to which default it is. Text in and out: decimals for
 * slope and intercept ("1.6", read back "1.600", parsed by the core like the
 * module parameters), an integer for the idle gap, a name for the base. A
 * value malformed or out of range, a partial write (non-zero offset) or an
 * oversized one is refused with -EINVAL and changes nothing.
 */
static int mltcp_proc_default(struct ctl_table *table, int write, void *buffer,
			      size_t *lenp, loff_t *ppos)
{
	enum mltcp_net_default which = *(int *)table->extra1;
	int *slot = table->data;
	struct mltcp_net *pn = container_of(slot - which, struct mltcp_net, defaults[0]);
	char text[MLTCP_SYSCTL_TEXT];
	struct ctl_table tmp = { .data = text, .maxlen = sizeof(text) };
	u32 value, milli;
	int err, base;

	if (!write) {
		value = mltcp_net_default(pn, which);
		switch (which) {
		case MLTCP_NET_SLOPE:
		case MLTCP_NET_INTERCEPT:
			milli = mltcp_fixed_to_milli(value);
			snprintf(text, sizeof(text), "%u.%03u", milli / 1000, milli % 1000);
			break;
		case MLTCP_NET_BASE:
			strscpy(text, mltcp_sysctl_bases[value], sizeof(text));
			break;
		default:
			snprintf(text, sizeof(text), "%u", value);
			break;
		}
		return proc_dostring(&tmp, 0, buffer, lenp, ppos);
	}

	if (*ppos || *lenp >= sizeof(text))
		return -EINVAL;
	text[0] = '\0';
	err = proc_dostring(&tmp, 1, buffer, lenp, ppos);
	if (err)
		return err;
	switch (which) {
	case MLTCP_NET_SLOPE:
	case MLTCP_NET_INTERCEPT:
		if (mltcp_parse_fixed(text, mltcp_default_max[which], &value))
			return -EINVAL;
		break;
	case MLTCP_NET_BASE:
		base = match_string(mltcp_sysctl_bases, ARRAY_SIZE(mltcp_sysctl_bases), text);
		if (base < 0)
			return -EINVAL;
		value = base;
		break;
	default:
		if (kstrtou32(text, 10, &value) || value < MLTCP_IDLE_GAP_MIN_US ||
		    value > MLTCP_IDLE_GAP_MAX_US)
			return -EINVAL;
		break;
	}
	WRITE_ONCE(pn->defaults[which], value);
	return 0;
}

static int mltcp_default_index[MLTCP_NET_NDEFAULTS] = { 0, 1, 2, 3 };

#define MLTCP_SYSCTL(name, which) {				\
	.procname = name,					\
	.maxlen = sizeof(int),					\
	.mode = 0644,						\
	.proc_handler = mltcp_proc_default,			\
	.extra1 = &mltcp_default_index[which],			\
}

/* In enum mltcp_net_default order: entry i serves pn->defaults[i]. */
static const struct ctl_table mltcp_sysctl_template[] = {
	MLTCP_SYSCTL("slope", MLTCP_NET_SLOPE),
	MLTCP_SYSCTL("intercept", MLTCP_NET_INTERCEPT),
	MLTCP_SYSCTL("idle_gap_us", MLTCP_NET_IDLE_GAP),
	MLTCP_SYSCTL("base", MLTCP_NET_BASE),
	{ }
};

/* Jobs */

struct mltcp_job_cfg *mltcp_job_cfg_alloc(void)
{
	struct mltcp_job_cfg *cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);

	if (cfg)
		atomic_long_inc(&mltcp_objects);
	return cfg;
}

/* A configuration that was never published. */
void mltcp_job_cfg_free(struct mltcp_job_cfg *cfg)
{
	if (!cfg)
		return;
	kfree(cfg);
	atomic_long_dec(&mltcp_objects);
}

static void mltcp_job_cfg_free_cb(struct rcu_head *head)
{
	mltcp_job_cfg_free(container_of(head, struct mltcp_job_cfg, rcu));
}

/* A configuration readers may still hold. */
void mltcp_job_cfg_free_rcu(struct mltcp_job_cfg *cfg)
{
	if (cfg)
		call_rcu(&cfg->rcu, mltcp_job_cfg_free_cb);
}

/* Takes ownership of cfg, also on failure. */
struct mltcp_job *mltcp_job_alloc(u32 id, struct mltcp_job_cfg *cfg)
{
	struct mltcp_job *job = kzalloc(sizeof(*job), GFP_KERNEL);

	if (!job) {
		mltcp_job_cfg_free(cfg);
		return NULL;
	}
	atomic_long_inc(&mltcp_objects);
	job->id = id;
	RCU_INIT_POINTER(job->cfg, cfg);
	return job;
}

static void mltcp_job_free_cb(struct rcu_head *head)
{
	struct mltcp_job *job = container_of(head, struct mltcp_job, rcu);

	mltcp_job_cfg_free(rcu_dereference_protected(job->cfg, 1));
	kfree(job);
	atomic_long_dec(&mltcp_objects);
}

/* Frees a job that was never inserted. */
void mltcp_job_free(struct mltcp_job *job)
{
	mltcp_job_free_cb(&job->rcu);
}

struct mltcp_job *mltcp_job_find(struct mltcp_net *pn, u32 id)
{
	struct mltcp_job *job;

	lockdep_assert_held(&pn->lock);
	list_for_each_entry(job, &pn->jobs, node) {
		if (job->id == id)
			return job;
		if (job->id > id)
			break;
	}
	return NULL;
}

int mltcp_job_insert(struct mltcp_net *pn, struct mltcp_job *job)
{
	struct mltcp_job *pos;
	int err;

	lockdep_assert_held(&pn->lock);
	if (pn->njobs >= MLTCP_GENL_JOBS_MAX)
		return -ENOSPC;
	err = xa_alloc_cyclic(&pn->keys, &job->key, job, xa_limit_32b,
			      &pn->next_key, GFP_KERNEL);
	if (err < 0)
		return err;
	list_for_each_entry(pos, &pn->jobs, node)
		if (pos->id > job->id)
			break;
	/* Before pos, or at the tail when no job has a higher id. */
	list_add_tail_rcu(&job->node, &pos->node);
	pn->njobs++;
	return 0;
}

/*
 * Unlinks the job: new flows no longer match it and accounting no longer
 * finds it. The caller detaches its live flows, then frees it with
 * mltcp_job_release().
 */
void mltcp_job_remove(struct mltcp_net *pn, struct mltcp_job *job)
{
	lockdep_assert_held(&pn->lock);
	list_del_rcu(&job->node);
	xa_erase(&pn->keys, job->key);
	pn->njobs--;
}

void mltcp_job_release(struct mltcp_job *job)
{
	call_rcu(&job->rcu, mltcp_job_free_cb);
}

/* Matching, in the datapath: RCU, any context */

static bool mltcp_peer_matches(const struct mltcp_job_cfg *cfg, const struct sock *sk)
{
	bool v4 = sk->sk_family == AF_INET;

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		v4 = ipv6_addr_v4mapped(&sk->sk_v6_daddr);
		if (!v4)
			return cfg->peer_family == AF_INET6 &&
			       ipv6_prefix_equal(&sk->sk_v6_daddr, &cfg->peer,
						 cfg->peer_prefixlen);
	}
#endif
	if (!v4 || cfg->peer_family != AF_INET)
		return false;
	return !((sk->sk_daddr ^ cfg->peer.s6_addr32[0]) &
		 inet_make_mask(cfg->peer_prefixlen));
}

static bool mltcp_cfg_matches(const struct mltcp_job_cfg *cfg, const struct sock *sk)
{
	u16 dport = ntohs(inet_sk(sk)->inet_dport);
	u16 sport = inet_sk(sk)->inet_num;

	if ((cfg->fields & MLTCP_JOB_F_DPORT) &&
	    (dport < cfg->dport_min || dport > cfg->dport_max))
		return false;
	if ((cfg->fields & MLTCP_JOB_F_SPORT) &&
	    (sport < cfg->sport_min || sport > cfg->sport_max))
		return false;
	if ((cfg->fields & MLTCP_JOB_F_MARK) &&
	    (READ_ONCE(sk->sk_mark) & cfg->mark_mask) != cfg->mark)
		return false;
	if ((cfg->fields & MLTCP_JOB_F_PEER) && !mltcp_peer_matches(cfg, sk))
		return false;
	return true;
}

/*
 * The first job, in ascending id order, whose criteria all hold for the
 * socket (a job without criteria matches every flow). Caller holds
 * rcu_read_lock(); *cfgp is the configuration that matched.
 */
struct mltcp_job *mltcp_job_match(struct mltcp_net *pn, const struct sock *sk,
				  const struct mltcp_job_cfg **cfgp)
{
	struct mltcp_job *job;

	list_for_each_entry_rcu(job, &pn->jobs, node) {
		const struct mltcp_job_cfg *cfg = rcu_dereference(job->cfg);

		if (mltcp_cfg_matches(cfg, sk)) {
			*cfgp = cfg;
			return job;
		}
	}
	return NULL;
}

void mltcp_job_account_iteration(struct net *net, u32 key, u64 bytes)
{
	struct mltcp_job *job;

	rcu_read_lock();
	job = xa_load(&mltcp_pernet(net)->keys, key);
	if (job) {
		atomic64_inc(&job->iterations);
		atomic64_add(bytes, &job->bytes);
	}
	rcu_read_unlock();
}

void mltcp_job_account_release(struct net *net, u32 key, u64 bytes)
{
	struct mltcp_job *job;

	rcu_read_lock();
	job = xa_load(&mltcp_pernet(net)->keys, key);
	if (job) {
		atomic_dec(&job->flows);
		atomic64_add(bytes, &job->bytes);
	}
	rcu_read_unlock();
}

/* The walk */

static bool mltcp_walk_wants(const struct sock *sk, const struct net *net)
{
	return sk_fullsock(sk) && (!net || net_eq(sock_net(sk), net)) &&
	       mltcp_owns(sk);
}

/*
 * Takes a reference on each wanted socket of the bucket, up to cap; returns
 * how many were taken and sets *wanted to how many there were.
 */
static unsigned int mltcp_walk_collect(struct inet_hashinfo *hinfo, unsigned int bucket,
				       const struct net *net, struct sock **socks,
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
		if (!mltcp_walk_wants(sk, net))
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
int mltcp_walk_flows(struct net *net, struct mltcp_walk *pos,
		     int (*fn)(struct sock *sk, void *arg), void *arg)
{
	struct inet_hashinfo *hinfo = net ? net->ipv4.tcp_death_row.hashinfo : &tcp_hashinfo;
	struct sock *stack[MLTCP_WALK_STACK], **socks = stack;
	unsigned int cap = MLTCP_WALK_STACK;
	int ret = 0;

	for (; pos->bucket <= hinfo->ehash_mask; pos->bucket++, pos->skip = 0) {
		unsigned int n, i, wanted;

		if (hlist_nulls_empty(&hinfo->ehash[pos->bucket].chain))
			continue;
		for (;;) {
			struct sock **bigger;

			n = mltcp_walk_collect(hinfo, pos->bucket, net, socks, cap, &wanted);
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

struct mltcp_update {
	struct mltcp_net *pn;
	struct mltcp_job *job;
	bool detach;
};

static int mltcp_update_one(struct sock *sk, void *arg)
{
	struct mltcp_update *u = arg;

	mltcp_flow_update(sk, u->pn, u->job, u->detach);
	return 0;
}

/*
 * Re-latch (or, when the job is being deleted, detach) every live flow of
 * the job. Caller holds pn->lock; the job's new configuration is published.
 */
void mltcp_job_update_flows(struct net *net, struct mltcp_job *job, bool detach)
{
	struct mltcp_update u = { .pn = mltcp_pernet(net), .job = job, .detach = detach };
	struct mltcp_walk pos = { };

	lockdep_assert_held(&u.pn->lock);
	/* Only -ENOMEM for a very long hash chain; retry that bucket. */
	while (mltcp_walk_flows(net, &pos, mltcp_update_one, &u))
		cond_resched();
}

/* Namespaces */

static int __net_init mltcp_net_init(struct net *net)
{
	struct mltcp_net *pn = mltcp_pernet(net);
	struct ctl_table *table;
	int i;

	mutex_init(&pn->lock);
	INIT_LIST_HEAD(&pn->jobs);
	xa_init_flags(&pn->keys, XA_FLAGS_ALLOC1);

	table = kmemdup(mltcp_sysctl_template, sizeof(mltcp_sysctl_template), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < MLTCP_NET_NDEFAULTS; i++) {
		pn->defaults[i] = -1;	/* follow the module parameter */
		table[i].data = &pn->defaults[i];
	}
	pn->sysctl = register_net_sysctl(net, "net/mltcp", table);
	if (!pn->sysctl) {
		kfree(table);
		return -ENOMEM;
	}
	pn->sysctl_table = table;
	return 0;
}

/* No socket of the namespace is left; jobs go without touching flows. */
static void __net_exit mltcp_net_exit(struct net *net)
{
	struct mltcp_net *pn = mltcp_pernet(net);
	struct mltcp_job *job, *tmp;

	unregister_net_sysctl_table(pn->sysctl);
	kfree(pn->sysctl_table);

	mutex_lock(&pn->lock);
	list_for_each_entry_safe(job, tmp, &pn->jobs, node) {
		mltcp_job_remove(pn, job);
		mltcp_job_release(job);
	}
	mutex_unlock(&pn->lock);
	xa_destroy(&pn->keys);
}

static struct pernet_operations mltcp_net_ops = {
	.init = mltcp_net_init,
	.exit = mltcp_net_exit,
	.id = &mltcp_net_id,
	.size = sizeof(struct mltcp_net),
};

int mltcp_netns_init(void)
{
	return register_pernet_subsys(&mltcp_net_ops);
}

/* After this, wait for the RCU callbacks (rcu_barrier()) before unloading. */
void mltcp_netns_exit(void)
{
	unregister_pernet_subsys(&mltcp_net_ops);
}
