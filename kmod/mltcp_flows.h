/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's live flows seen from process context: the walk over a
 * namespace's MLTCP sockets, a consistent snapshot of one flow, re-latching
 * the flows of a job that changed, and the debugfs flow list.
 */
#ifndef MLTCP_FLOWS_H
#define MLTCP_FLOWS_H

#include "mltcp_policy.h"

struct dentry;
struct net;
struct sock;
struct tcp_congestion_ops;

/*
 * The algorithms tcp_mltcp.c registers. mltcp_reno and mltcp_cubic fix
 * their base; mltcp takes the namespace's or the job's.
 */
#define MLTCP_CA_NAME		"mltcp"
#define MLTCP_CA_RENO_NAME	"mltcp_reno"
#define MLTCP_CA_CUBIC_NAME	"mltcp_cubic"

/* The algorithms registered (an array of n): their sockets are the walk's. */
void mltcp_flows_init(const struct tcp_congestion_ops *algs, unsigned int n);

/*
 * The walk over a namespace's MLTCP sockets, for debugfs, the flow dump and
 * job updates. fn runs in process context with a reference on the socket
 * and no lock held, so it may lock the socket; returning nonzero stops the
 * walk at that socket (a later call with the same cursor resumes there).
 * With net NULL every socket of the global established hash is visited;
 * with key nonzero only sockets whose flow had that job key when the walk
 * read it without their lock (fn checks again under the lock). Returns 0,
 * fn's nonzero value, or -ENOMEM.
 */
struct mltcp_walk {
	unsigned int bucket;
	unsigned int skip;	/* sockets of this bucket already visited */
};

int mltcp_walk_flows(struct net *net, u32 key, struct mltcp_walk *pos,
		     int (*fn)(struct sock *sk, void *arg), void *arg);

/*
 * The record of an initialized MLTCP flow, taken under its socket lock;
 * false if sk is not one. rec->job is the flow's job key (0: none).
 */
bool mltcp_flow_snapshot(struct sock *sk, struct mltcp_flow_record *rec);
/*
 * The same record of an initialized MLTCP flow whose socket the caller
 * owns already (its hooks, which run under the socket lock).
 */
void mltcp_flow_record_owned(struct sock *sk, struct mltcp_flow_record *rec);

/* The TOS byte (DSCP and ECN) sk's packets leave with. */
u8 mltcp_sk_tos(const struct sock *sk);

/*
 * After a change of the job with this key, published, that names the
 * settings changed (MLTCP_JOB_F_*): re-latch them on the job's live flows
 * from the job's configuration as it is under each socket lock
 * (mltcp_flow_relatch()); with detach (the job was deleted, changed being
 * every setting it had) detach its flows, whose changed settings return to
 * the namespace's defaults. Process context, without the job lock: sleeps
 * for an RCU grace period and on the job's socket locks, no other. Then
 * bumps the namespace's job generation. Returns 0, or -ENOMEM if some of
 * the job's flows may not have been reached.
 */
int mltcp_flows_relatch(struct net *net, u32 key, u32 changed, bool detach);

/*
 * After the host's line (the module parameters slope and intercept) was
 * lowered (the hook of mltcp_defaults_on_line_lowered(), set by module init
 * once the namespaces' state exists): queues a walk over every bounded
 * namespace's live flows (mltcp_net_bound()) that latches the line again,
 * as a new flow of its job would, on those whose line is beyond the host's
 * now (mltcp_flow_beyond()). Returns at once, without sleeping; the walk (a
 * work item) sleeps for an RCU grace period and on socket locks, and a flow
 * it cannot reach for want of memory keeps its line.
 */
void mltcp_flows_rebound(void);

/*
 * Before the namespaces' state goes (module exit, or init failing), with
 * the hook cleared: waits out stores in flight and cancels the walk, so
 * none is queued or running once it returns.
 */
void mltcp_flows_stop(void);

/* Creates "flows" and "relatch" in the module's debugfs directory. */
void mltcp_flows_debugfs_init(struct dentry *dir);

#endif /* MLTCP_FLOWS_H */
