/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-network-namespace state of tcp_mltcp: the defaults behind the
 * net.mltcp.* sysctls and the job table, and the walk over a namespace's
 * MLTCP sockets. Shared by tcp_mltcp.c (the CC glue), mltcp_netns.c and
 * mltcp_genl.c (the netlink family).
 *
 * Locking and lifetime of the job table:
 *  - Writers (netlink add/set/del, namespace exit) hold mltcp_net.lock.
 *  - Readers in the datapath (CC init, iteration and release accounting run
 *    in softirq or under a socket spinlock) use RCU: the list of jobs and
 *    each job's cfg pointer are RCU-published; jobs and configs are freed
 *    after a grace period.
 *  - A job's configuration is immutable once published; a change publishes
 *    a new one and frees the old after a grace period.
 *  - A flow records its job by key, a per-namespace number that is never
 *    reused (cyclic over 2^32), so a flow can never be mistaken for a member
 *    of a job added after its own was deleted.
 */
#ifndef MLTCP_NETNS_H
#define MLTCP_NETNS_H

#include <linux/atomic.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "mltcp_core.h"
#include "uapi/mltcp.h"

struct sock;

/* Immutable once published. */
struct mltcp_job_cfg {
	u32 fields;		/* MLTCP_JOB_F_*: criteria and settings present */
	/* Match criteria: all present ones must hold. */
	u16 dport_min, dport_max;
	u16 sport_min, sport_max;
	u8 peer_family;		/* AF_INET or AF_INET6 when MLTCP_JOB_F_PEER */
	u8 peer_prefixlen;
	struct in6_addr peer;	/* IPv4: peer.s6_addr32[0]; masked to the prefix */
	u32 mark, mark_mask;	/* mark is stored already masked */
	/* Settings: override the namespace defaults. */
	u16 slope, intercept;	/* MLTCP_ONE units */
	u32 idle_gap_us;
	u64 iter_bytes;
	u8 base;		/* enum mltcp_base */
	u8 exempt;
	struct rcu_head rcu;
};

struct mltcp_job {
	struct list_head node;		/* mltcp_net.jobs, ascending id, RCU */
	u32 id;				/* the operator's id */
	u32 key;			/* index in mltcp_net.keys; never reused */
	struct mltcp_job_cfg __rcu *cfg;
	atomic_t flows;			/* live flows attached to the job */
	atomic64_t flows_total;		/* flows matched since the job was added */
	atomic64_t iterations;
	atomic64_t bytes;
	struct rcu_head rcu;
};

/* The defaults a namespace holds in net.mltcp.* */
enum mltcp_net_default {
	MLTCP_NET_SLOPE,	/* MLTCP_ONE units */
	MLTCP_NET_INTERCEPT,	/* MLTCP_ONE units */
	MLTCP_NET_IDLE_GAP,	/* microseconds */
	MLTCP_NET_BASE,		/* enum mltcp_base */
	MLTCP_NET_NDEFAULTS,
};

struct mltcp_net {
	struct mutex lock;		/* serialises writers of the job table */
	struct list_head jobs;		/* ascending id: the first match wins */
	struct xarray keys;		/* key -> job, for flows to find theirs */
	u32 next_key;
	unsigned int njobs;
	/*
	 * Defaults for new flows, each one word: a value written through
	 * net.mltcp.*, or -1 while the namespace follows the module parameter.
	 */
	int defaults[MLTCP_NET_NDEFAULTS];
	struct ctl_table_header *sysctl;
	struct ctl_table *sysctl_table;
};

struct mltcp_net *mltcp_pernet(const struct net *net);
u32 mltcp_net_default(const struct mltcp_net *pn, enum mltcp_net_default which);

int mltcp_netns_init(void);
void mltcp_netns_exit(void);

/* Objects (jobs and configurations) currently allocated, for debugfs. */
long mltcp_netns_objects(void);

/* The generic netlink family (mltcp_genl.c). */
int mltcp_genl_init(void);
void mltcp_genl_exit(void);

/* Datapath side; any context. */
struct mltcp_job *mltcp_job_match(struct mltcp_net *pn, const struct sock *sk,
				  const struct mltcp_job_cfg **cfgp);
void mltcp_job_account_iteration(struct net *net, u32 key, u64 bytes);
void mltcp_job_account_release(struct net *net, u32 key, u64 bytes);

/* Writer side; process context, mltcp_net.lock held. */
struct mltcp_job *mltcp_job_find(struct mltcp_net *pn, u32 id);
int mltcp_job_insert(struct mltcp_net *pn, struct mltcp_job *job);
void mltcp_job_remove(struct mltcp_net *pn, struct mltcp_job *job);
void mltcp_job_release(struct mltcp_job *job);
struct mltcp_job *mltcp_job_alloc(u32 id, struct mltcp_job_cfg *cfg);
void mltcp_job_free(struct mltcp_job *job);
struct mltcp_job_cfg *mltcp_job_cfg_alloc(void);
void mltcp_job_cfg_free(struct mltcp_job_cfg *cfg);
void mltcp_job_cfg_free_rcu(struct mltcp_job_cfg *cfg);
void mltcp_job_update_flows(struct net *net, struct mltcp_job *job, bool detach);

/*
 * The walk over a namespace's MLTCP sockets, shared by debugfs, the flow dump
 * and job updates. fn runs in process context with a reference on the socket
 * and no lock held, so it may lock the socket; returning nonzero stops the
 * walk at that socket (a later call with the same cursor resumes there).
 * With net NULL every socket of the global established hash is visited.
 */
struct mltcp_walk {
	unsigned int bucket;
	unsigned int skip;	/* sockets of this bucket already visited */
};

int mltcp_walk_flows(struct net *net, struct mltcp_walk *pos,
		     int (*fn)(struct sock *sk, void *arg), void *arg);

/* Implemented in tcp_mltcp.c: the per-socket side. */

/* A snapshot of one flow, taken under its socket lock. */
struct mltcp_flow_info {
	u64 cookie;
	u32 netns;		/* inode number, as in /proc/PID/ns/net */
	u8 family;
	__be32 saddr4, daddr4;
	struct in6_addr saddr6, daddr6;
	u16 sport, dport;
	const char *ca;
	u32 job_key;		/* 0: no job */
	struct mltcp_params params;
	u32 cwnd, ssthresh;
	u64 bytes_this_iter;
	u64 iter_bytes;
	bool iter_fixed;
	u32 r, f;
	u32 iterations;
	u32 last_iter_us;
};

bool mltcp_owns(const struct sock *sk);
u32 mltcp_module_default(enum mltcp_net_default which);
bool mltcp_flow_snapshot(struct sock *sk, struct mltcp_flow_info *info);
void mltcp_flow_update(struct sock *sk, struct mltcp_net *pn,
		       struct mltcp_job *job, bool detach);

#endif /* MLTCP_NETNS_H */
