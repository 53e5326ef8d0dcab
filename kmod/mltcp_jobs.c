// SPDX-License-Identifier: GPL-2.0
/*
 * The job table of each network namespace (see mltcp_jobs.h for locking and
 * lifetime): an RCU list in ascending id, which new flows are matched
 * against (the first match wins), and an xarray from key to job, which the
 * datapath's accounting uses; and the namespace's own counters.
 */
#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/netns/generic.h>

#include "mltcp_jobs.h"
#include "uapi/mltcp.h"

/* A job's criteria and settings; immutable once published. */
struct mltcp_job_cfg {
	struct mltcp_job_spec spec;
	struct rcu_head rcu;
};

/*
 * How the namespace's flows' "sending resumed" events were judged, and how
 * the start gate's holds and progress priority's held moves up began and
 * ended, per CPU as the kernel's own per-namespace MIB counters are: the
 * hooks count every TX_START, and a shared counter would bounce between the
 * CPUs sending.
 */
struct mltcp_verdict_counts {
	unsigned long n[MLTCP_TX_NR_VERDICTS];
	unsigned long gate[MLTCP_GATE_NR_VERDICTS];	/* HOLD: starts held */
	unsigned long hold[MLTCP_PRIO_HOLD_NR_EVENTS];	/* BEGAN: moves up held */
};

struct mltcp_jobs_net {
	struct mutex lock;		/* serialises writers of the table */
	struct list_head jobs;		/* ascending id: the first match wins */
	struct xarray keys;		/* key -> job, for flows to find theirs */
	atomic_t gen;			/* of the table and its flows, for dumps */
	u32 next_key;
	unsigned int njobs;
	struct mltcp_verdict_counts __percpu *verdicts;
};

static unsigned int mltcp_jobs_net_id __read_mostly;

/* Jobs and configurations allocated and not yet freed. */
static atomic_long_t mltcp_objects;

static struct mltcp_jobs_net *mltcp_jobs_pernet(const struct net *net)
{
	return net_generic(net, mltcp_jobs_net_id);
}

long mltcp_jobs_objects(void)
{
	return atomic_long_read(&mltcp_objects);
}

/* Allocation */

static struct mltcp_job_cfg *mltcp_job_cfg_alloc(const struct mltcp_job_spec *spec)
{
	struct mltcp_job_cfg *cfg = kzalloc(sizeof(*cfg), GFP_KERNEL_ACCOUNT);

	if (!cfg)
		return NULL;
	atomic_long_inc(&mltcp_objects);
	cfg->spec = *spec;
	return cfg;
}

static void mltcp_job_cfg_free(struct mltcp_job_cfg *cfg)
{
	kfree(cfg);
	atomic_long_dec(&mltcp_objects);
}

static void mltcp_job_cfg_free_cb(struct rcu_head *head)
{
	mltcp_job_cfg_free(container_of(head, struct mltcp_job_cfg, rcu));
}

static struct mltcp_job *mltcp_job_alloc(const struct mltcp_job_spec *spec)
{
	struct mltcp_job *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	struct mltcp_job_cfg *cfg = mltcp_job_cfg_alloc(spec);

	if (!job || !cfg) {
		kfree(job);
		if (cfg)
			mltcp_job_cfg_free(cfg);
		return NULL;
	}
	atomic_long_inc(&mltcp_objects);
	job->id = spec->id;
	RCU_INIT_POINTER(job->cfg, cfg);
	return job;
}

static void mltcp_job_free(struct mltcp_job *job)
{
	mltcp_job_cfg_free(rcu_dereference_protected(job->cfg, 1));
	kfree(job);
	atomic_long_dec(&mltcp_objects);
}

static void mltcp_job_free_cb(struct rcu_head *head)
{
	mltcp_job_free(container_of(head, struct mltcp_job, rcu));
}

/* Writers */

u32 mltcp_jobs_gen(const struct net *net)
{
	return atomic_read(&mltcp_jobs_pernet(net)->gen);
}

void mltcp_jobs_gen_bump(const struct net *net)
{
	atomic_inc(&mltcp_jobs_pernet(net)->gen);
}

/*
 * Dumps read the table under RCU alone, so a change can land in the middle
 * of a dump's part. The generation moves before the change is published
 * (the barrier pairs with the smp_rmb() of mltcp_jobs_gen_after_walk()): a
 * reader that saw any part of a change sees its generation too, and flags
 * the dump.
 */
static void mltcp_jobs_gen_before_change(struct mltcp_jobs_net *jn)
{
	lockdep_assert_held(&jn->lock);
	atomic_inc(&jn->gen);
	smp_wmb();
}

u32 mltcp_jobs_gen_after_walk(const struct net *net)
{
	smp_rmb();
	return mltcp_jobs_gen(net);
}

void mltcp_jobs_lock(const struct net *net)
{
	mutex_lock(&mltcp_jobs_pernet(net)->lock);
}

void mltcp_jobs_unlock(const struct net *net)
{
	mutex_unlock(&mltcp_jobs_pernet(net)->lock);
}

struct mltcp_job *mltcp_job_find(const struct net *net, u32 id)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);
	struct mltcp_job *job;

	list_for_each_entry_rcu(job, &jn->jobs, node, lockdep_is_held(&jn->lock)) {
		if (job->id == id)
			return job;
		if (job->id > id)
			break;
	}
	return NULL;
}

struct mltcp_job *mltcp_job_next_rcu(const struct net *net, struct mltcp_job *prev)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);

	if (!prev)
		return list_first_or_null_rcu(&jn->jobs, struct mltcp_job, node);
	return list_next_or_null_rcu(&jn->jobs, &prev->node, struct mltcp_job, node);
}

const struct mltcp_job_spec *mltcp_job_spec(const struct net *net,
					    const struct mltcp_job *job)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);

	return &rcu_dereference_check(job->cfg, lockdep_is_held(&jn->lock))->spec;
}

int mltcp_job_insert(const struct net *net, const struct mltcp_job_spec *spec)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);
	struct mltcp_job *job, *pos;
	int err;

	lockdep_assert_held(&jn->lock);
	if (jn->njobs >= MLTCP_GENL_JOBS_MAX)
		return -ENOSPC;
	job = mltcp_job_alloc(spec);
	if (!job)
		return -ENOMEM;
	err = xa_alloc_cyclic(&jn->keys, &job->key, job, xa_limit_32b,
			      &jn->next_key, GFP_KERNEL_ACCOUNT);
	if (err < 0) {
		mltcp_job_free(job);
		return err;
	}
	list_for_each_entry(pos, &jn->jobs, node)
		if (pos->id > job->id)
			break;
	mltcp_jobs_gen_before_change(jn);
	/* Before pos, or at the tail when no job has a higher id. */
	list_add_tail_rcu(&job->node, &pos->node);
	jn->njobs++;
	return 0;
}

int mltcp_job_update(const struct net *net, struct mltcp_job *job,
		     const struct mltcp_job_spec *spec)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);
	struct mltcp_job_cfg *cfg, *old;

	lockdep_assert_held(&jn->lock);
	cfg = mltcp_job_cfg_alloc(spec);
	if (!cfg)
		return -ENOMEM;
	old = rcu_dereference_protected(job->cfg, lockdep_is_held(&jn->lock));
	mltcp_jobs_gen_before_change(jn);
	rcu_assign_pointer(job->cfg, cfg);
	call_rcu(&old->rcu, mltcp_job_cfg_free_cb);
	return 0;
}

static void mltcp_job_unlink(struct mltcp_jobs_net *jn, struct mltcp_job *job)
{
	list_del_rcu(&job->node);
	xa_erase(&jn->keys, job->key);
	jn->njobs--;
	call_rcu(&job->rcu, mltcp_job_free_cb);
}

void mltcp_job_delete(const struct net *net, struct mltcp_job *job)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);

	lockdep_assert_held(&jn->lock);
	mltcp_jobs_gen_before_change(jn);
	mltcp_job_unlink(jn, job);
}

/* The datapath: RCU, any context */

u32 mltcp_job_attach(const struct net *net, const struct mltcp_flow_key *key,
		     const struct mltcp_job_spec **spec)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);
	struct mltcp_job *job;

	list_for_each_entry_rcu(job, &jn->jobs, node) {
		const struct mltcp_job_cfg *cfg = rcu_dereference(job->cfg);

		if (mltcp_job_matches(&cfg->spec, key)) {
			atomic_inc(&job->flows);
			atomic64_inc(&job->flows_total);
			*spec = &cfg->spec;
			return job->key;
		}
	}
	*spec = NULL;
	return 0;
}

void mltcp_job_account_iteration(const struct net *net, u32 key, u64 bytes)
{
	struct mltcp_job *job;

	rcu_read_lock();
	job = xa_load(&mltcp_jobs_pernet(net)->keys, key);
	if (job) {
		atomic64_inc(&job->iterations);
		atomic64_add(bytes, &job->bytes);
	}
	rcu_read_unlock();
}

void mltcp_job_account_release(const struct net *net, u32 key, u64 bytes)
{
	struct mltcp_job *job;

	rcu_read_lock();
	job = xa_load(&mltcp_jobs_pernet(net)->keys, key);
	if (job) {
		atomic_dec(&job->flows);
		atomic64_add(bytes, &job->bytes);
	}
	rcu_read_unlock();
}

const struct mltcp_job_spec *mltcp_job_spec_of_key(const struct net *net, u32 key)
{
	struct mltcp_job *job = xa_load(&mltcp_jobs_pernet(net)->keys, key);

	return job ? &rcu_dereference(job->cfg)->spec : NULL;
}

/*
 * A kernel socket holds no reference on its namespace, and its owner may
 * close it only in its own exit, after ours has freed the counters (exits
 * run in reverse order of registration): its hooks may fire in between.
 * The namespace's count is 0 before cleanup_net() starts, and cleanup_net()
 * waits for a grace period before the exits run, so a hook that sees the
 * namespace alive under RCU counts before the counters are freed; the
 * socket lock alone (process context) would not order it against the exit.
 * The job table needs no such test: it is emptied, not freed, at exit, and
 * its jobs are freed after a grace period.
 */
void mltcp_net_count_verdict(const struct net *net, enum mltcp_tx_verdict verdict)
{
	rcu_read_lock();
	if (check_net(net))
		this_cpu_inc(mltcp_jobs_pernet(net)->verdicts->n[verdict]);
	rcu_read_unlock();
}

void mltcp_net_count_gate(const struct net *net, enum mltcp_gate_verdict verdict)
{
	rcu_read_lock();
	if (check_net(net))
		this_cpu_inc(mltcp_jobs_pernet(net)->verdicts->gate[verdict]);
	rcu_read_unlock();
}

void mltcp_net_count_prio_hold(const struct net *net, enum mltcp_prio_hold event)
{
	rcu_read_lock();
	if (check_net(net))
		this_cpu_inc(mltcp_jobs_pernet(net)->verdicts->hold[event]);
	rcu_read_unlock();
}

void mltcp_net_counts(const struct net *net, u64 verdicts[MLTCP_TX_NR_VERDICTS],
		      u64 gate[MLTCP_GATE_NR_VERDICTS], u64 hold[MLTCP_PRIO_HOLD_NR_EVENTS])
{
	struct mltcp_verdict_counts __percpu *counts = mltcp_jobs_pernet(net)->verdicts;
	int cpu, i;

	memset(verdicts, 0, MLTCP_TX_NR_VERDICTS * sizeof(*verdicts));
	memset(gate, 0, MLTCP_GATE_NR_VERDICTS * sizeof(*gate));
	memset(hold, 0, MLTCP_PRIO_HOLD_NR_EVENTS * sizeof(*hold));
	for_each_possible_cpu(cpu) {
		const struct mltcp_verdict_counts *c = per_cpu_ptr(counts, cpu);

		for (i = 0; i < MLTCP_TX_NR_VERDICTS; i++)
			verdicts[i] += READ_ONCE(c->n[i]);
		for (i = 0; i < MLTCP_GATE_NR_VERDICTS; i++)
			gate[i] += READ_ONCE(c->gate[i]);
		for (i = 0; i < MLTCP_PRIO_HOLD_NR_EVENTS; i++)
			hold[i] += READ_ONCE(c->hold[i]);
	}
}

u32 mltcp_job_marks(const struct net *net, u32 key)
{
	struct mltcp_job *job;
	u32 marks = 0;

	rcu_read_lock();
	job = xa_load(&mltcp_jobs_pernet(net)->keys, key);
	if (job)
		marks = atomic_read(&job->marks);
	rcu_read_unlock();
	return marks;
}

void mltcp_key_set_cgroups(struct mltcp_flow_key *key, struct cgroup *cgrp)
{
#ifdef CONFIG_CGROUPS
	int level, levels = min(cgrp->level + 1, MLTCP_CGROUP_LEVELS);

	for (level = 0; level < levels; level++)
		key->cgroup_ids[level] = cgroup_id(cgroup_ancestor(cgrp, level));
	key->cgroup_levels = levels;
#endif
}

bool mltcp_job_of_key(const struct net *net, u32 key, u32 *id, bool *exempt)
{
	struct mltcp_job *job;

	rcu_read_lock();
	job = xa_load(&mltcp_jobs_pernet(net)->keys, key);
	if (job) {
		*id = job->id;
		*exempt = rcu_dereference(job->cfg)->spec.exempt;
	}
	rcu_read_unlock();
	return !!job;
}

/* Namespaces */

static int __net_init mltcp_jobs_net_init(struct net *net)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);

	/* Accounted as struct net itself is, to the creator's memory cgroup. */
	jn->verdicts = alloc_percpu_gfp(struct mltcp_verdict_counts, GFP_KERNEL_ACCOUNT);
	if (!jn->verdicts)
		return -ENOMEM;
	mutex_init(&jn->lock);
	INIT_LIST_HEAD(&jn->jobs);
	xa_init_flags(&jn->keys, XA_FLAGS_ALLOC1);
	/* Not 0: a dump takes a sequence number of 0 as none to compare. */
	atomic_set(&jn->gen, 1);
	return 0;
}

/* No socket of the namespace is left; jobs go without touching flows. */
static void __net_exit mltcp_jobs_net_exit(struct net *net)
{
	struct mltcp_jobs_net *jn = mltcp_jobs_pernet(net);
	struct mltcp_job *job, *tmp;

	mutex_lock(&jn->lock);
	list_for_each_entry_safe(job, tmp, &jn->jobs, node)
		mltcp_job_unlink(jn, job);
	mutex_unlock(&jn->lock);
	xa_destroy(&jn->keys);
	free_percpu(jn->verdicts);
}

static struct pernet_operations mltcp_jobs_net_ops = {
	.init = mltcp_jobs_net_init,
	.exit = mltcp_jobs_net_exit,
	.id = &mltcp_jobs_net_id,
	.size = sizeof(struct mltcp_jobs_net),
};

int mltcp_jobs_init(void)
{
	return register_pernet_subsys(&mltcp_jobs_net_ops);
}

void mltcp_jobs_exit(void)
{
	unregister_pernet_subsys(&mltcp_jobs_net_ops);
}
