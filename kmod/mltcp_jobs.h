/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The training jobs of each network namespace: the table, matching a new
 * flow against it, the jobs' counters, and the namespace's counts of the
 * iteration detector's and the start gate's verdicts. What a job is and how
 * a request changes it is the policy's (struct mltcp_job_spec,
 * mltcp_job_apply()); this is storage and locking.
 *
 * Locking and lifetime:
 *  - Writers (netlink add/set/del, namespace exit) hold the namespace's job
 *    lock (mltcp_jobs_lock()) while they change the table, and not while
 *    the change reaches the job's live flows (mltcp_flows_relatch(), which
 *    re-reads the job's settings under each socket lock, so the flows end
 *    with the last change whatever the order of the walks).
 *  - Readers use RCU: the datapath (CC init, iteration and release
 *    accounting run in softirq or under a socket spinlock) and netlink's
 *    reads and permission checks, so that no request a process may make
 *    without privilege (a get, a dump, a refused mark) waits on or holds up
 *    the writers' lock. The list of jobs and each job's configuration
 *    pointer are RCU-published; jobs and configurations are freed after a
 *    grace period.
 *  - A job's configuration is immutable once published; a change publishes
 *    a new one and frees the old after a grace period.
 *  - A flow records its job by key, a per-namespace number that is never
 *    reused (cyclic over 2^32), so a flow can never be mistaken for a member
 *    of a job added after its own was deleted.
 */
#ifndef MLTCP_JOBS_H
#define MLTCP_JOBS_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <net/net_namespace.h>

#include "mltcp_policy.h"

struct mltcp_job_cfg;

struct mltcp_job {
	struct list_head node;		/* the namespace's jobs, ascending id, RCU */
	u32 id;				/* the operator's id */
	u32 key;			/* never reused: what flows record */
	struct mltcp_job_cfg __rcu *cfg;
	atomic_t flows;			/* live flows attached to the job */
	atomic64_t flows_total;		/* flows matched since the job was added */
	atomic64_t iterations;
	atomic64_t bytes;
	atomic_t marks;			/* iteration starts marked (JOB_MARK) */
	u32 last_step;			/* the step last marked; the job lock */
	struct rcu_head rcu;
};

int mltcp_jobs_init(void);
void mltcp_jobs_exit(void);	/* then rcu_barrier() before unloading */

/* Jobs and configurations currently allocated, for debugfs. */
long mltcp_jobs_objects(void);

/*
 * Datapath side, any context. The first job in ascending id whose criteria
 * all hold for key: counts the flow as its member and returns its key, with
 * *spec its settings, valid until the caller's rcu_read_unlock(). 0 and NULL
 * if none matches.
 */
u32 mltcp_job_attach(const struct net *net, const struct mltcp_flow_key *key,
		     const struct mltcp_job_spec **spec);
void mltcp_job_account_iteration(const struct net *net, u32 key, u64 bytes);
void mltcp_job_account_release(const struct net *net, u32 key, u64 bytes);

/*
 * The settings of the job with this key as they are now, NULL if it is gone;
 * valid until the caller's rcu_read_unlock().
 */
const struct mltcp_job_spec *mltcp_job_spec_of_key(const struct net *net, u32 key);

/*
 * The namespace's counts of mltcp_on_tx_start()'s verdicts, of the start
 * gate's (enum mltcp_gate_verdict: HOLD counts the iteration starts held,
 * the others how holds ended) and of progress priority's held moves up
 * (enum mltcp_prio_hold: BEGAN, then how each ended; never NONE): counted
 * by the hooks in any context, summed over the CPUs for netlink.
 */
void mltcp_net_count_verdict(const struct net *net, enum mltcp_tx_verdict verdict);
void mltcp_net_count_gate(const struct net *net, enum mltcp_gate_verdict verdict);
void mltcp_net_count_prio_hold(const struct net *net, enum mltcp_prio_hold event);
void mltcp_net_counts(const struct net *net, u64 verdicts[MLTCP_TX_NR_VERDICTS],
		      u64 gate[MLTCP_GATE_NR_VERDICTS], u64 hold[MLTCP_PRIO_HOLD_NR_EVENTS]);

/*
 * The marks of the job with this key so far (0 if it is gone): what a marked
 * flow's iteration starts follow (mltcp_on_tx_start()). Any context.
 */
u32 mltcp_job_marks(const struct net *net, u32 key);

struct cgroup;
/*
 * The ids of cgrp (a cgroup v2) and of its ancestors into key, as a job's
 * cgroup criterion compares them (struct mltcp_flow_key).
 */
void mltcp_key_set_cgroups(struct mltcp_flow_key *key, struct cgroup *cgrp);

/* The id and exemption of the job with this key; false if it is gone. Any context. */
bool mltcp_job_of_key(const struct net *net, u32 key, u32 *id, bool *exempt);

/*
 * The generation of the namespace's jobs and of the settings their flows
 * hold: it changes with every change of the table and again once a change
 * has reached the live flows. A dump reports it as its sequence number
 * (cb->seq), so one whose parts straddle a change is flagged
 * NLM_F_DUMP_INTR. Any context.
 */
u32 mltcp_jobs_gen(const struct net *net);
void mltcp_jobs_gen_bump(const struct net *net);
/*
 * The generation once a walk under RCU has ended: it has moved if the walk
 * saw any part of a change (the table's writers move it first).
 */
u32 mltcp_jobs_gen_after_walk(const struct net *net);

/* Writers of one namespace's table; readers need only RCU. */
void mltcp_jobs_lock(const struct net *net);
void mltcp_jobs_unlock(const struct net *net);

/*
 * With the job lock held or under rcu_read_lock(); a job found under RCU
 * alone may be deleted meanwhile and stays readable until the caller's
 * rcu_read_unlock().
 */
struct mltcp_job *mltcp_job_find(const struct net *net, u32 id);
const struct mltcp_job_spec *mltcp_job_spec(const struct net *net,
					    const struct mltcp_job *job);
/* Under rcu_read_lock(): the job after prev in ascending id (prev NULL: the first). */
struct mltcp_job *mltcp_job_next_rcu(const struct net *net, struct mltcp_job *prev);
/* A new job of spec->id, which must not exist: 0, -ENOSPC (table full) or -ENOMEM. */
int mltcp_job_insert(const struct net *net, const struct mltcp_job_spec *spec);
/* Publishes new settings for the job: 0 or -ENOMEM (the job is unchanged). */
int mltcp_job_update(const struct net *net, struct mltcp_job *job,
		     const struct mltcp_job_spec *spec);
/*
 * Unlinks the job: new flows no longer match it and accounting no longer
 * finds it; it is freed after a grace period. The caller detaches its live
 * flows by its key.
 */
void mltcp_job_delete(const struct net *net, struct mltcp_job *job);

#endif /* MLTCP_JOBS_H */
