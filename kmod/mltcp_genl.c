// SPDX-License-Identifier: GPL-2.0
/*
 * The "mltcp" generic netlink family (uapi/mltcp.h, spec/mltcp.yaml): add,
 * change, delete, get and dump the training jobs of the caller's network
 * namespace, dump its MLTCP flows, and get its counters.
 *
 * - Usable in every namespace (netnsok); each has its own job table.
 * - Writes need CAP_NET_ADMIN in the user namespace owning the network
 *   namespace (GENL_UNS_ADMIN_PERM), so a container's root manages its own.
 *   In a bounded namespace (every one but the host's, mltcp_net_bound()), a
 *   job may not give its flows a line above the bound: the job's slope and
 *   intercept over the namespace's defaults are checked by
 *   mltcp_job_check_over() and refused with -EPERM and an extack message.
 * - Every command has a netlink policy with ranges and strict validation
 *   (resv_start_op is 0: unknown attributes, trailing bytes and reserved
 *   header bits are refused for all commands).
 * - What a request means is mltcp_policy.c's: a handler turns the attributes
 *   into a struct mltcp_job_request, checking only what is netlink's own
 *   (which attributes must come together), and mltcp_job_apply() validates
 *   the request whole before anything changes. Either way the extack
 *   message names the attribute.
 * - Operations run in parallel (parallel_ops); writers of one namespace's
 *   table serialise on its job lock; readers (the datapath, JOB_GET, the
 *   dumps, and the permission check of a mark) use RCU, so a request that
 *   needs no privilege, or is refused, never holds the lock marks take. A
 *   change reaches the job's live flows after the lock is dropped, and
 *   locks only their sockets (mltcp_flows.c).
 * - Reads (JOB_GET, FLOW_GET) need no privilege: any process of the
 *   namespace may list its jobs and flows, as it may its routes, rules and
 *   sockets (ip route, ip rule with its fwmarks, ss). Flows carry no socket
 *   mark, which inet_diag shows only to CAP_NET_ADMIN.
 * - Dumps report the namespace's job generation as their sequence number:
 *   one whose parts straddle a change of the table, or of the settings the
 *   job's flows hold, is flagged NLM_F_DUMP_INTR (the flow dump is not
 *   flagged for flows that come and go, as inet_diag's is not).
 */
#include <linux/cgroup.h>
#include <linux/in6.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "compat.h"
#include "mltcp_flows.h"
#include "mltcp_genl.h"
#include "mltcp_jobs.h"
#include "mltcp_sysctl.h"
#include "uapi/mltcp.h"

static struct genl_family mltcp_genl_family;

static struct netlink_range_validation mltcp_idle_gap_range = {
	.min = MLTCP_GENL_IDLE_GAP_MIN,
	.max = MLTCP_GENL_IDLE_GAP_MAX,
};

static struct netlink_range_validation mltcp_iter_bytes_range = {
	.min = 1,
	.max = MLTCP_GENL_ITER_BYTES_MAX,
};

/* The counters a reply carries, in the middle of the request attributes. */
#define MLTCP_REPLY_ONLY						\
	{ .type = NLA_REJECT, .reject_message = "a reply's attribute, not a request's" }

#define MLTCP_JOB_POLICY						\
	[MLTCP_JOB_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),			\
	[MLTCP_JOB_A_DPORT_MIN] = { .type = NLA_U16 },			\
	[MLTCP_JOB_A_DPORT_MAX] = { .type = NLA_U16 },			\
	[MLTCP_JOB_A_SPORT_MIN] = { .type = NLA_U16 },			\
	[MLTCP_JOB_A_SPORT_MAX] = { .type = NLA_U16 },			\
	[MLTCP_JOB_A_PEER_V4] = NLA_POLICY_EXACT_LEN(4),		\
	[MLTCP_JOB_A_PEER_V6] = NLA_POLICY_EXACT_LEN(16),		\
	[MLTCP_JOB_A_PEER_PREFIXLEN] = NLA_POLICY_MAX(NLA_U8, 128),	\
	[MLTCP_JOB_A_MARK] = { .type = NLA_U32 },			\
	[MLTCP_JOB_A_MARK_MASK] = { .type = NLA_U32 },			\
	[MLTCP_JOB_A_SLOPE] = NLA_POLICY_MAX(NLA_U32, MLTCP_GENL_SLOPE_MAX), \
	[MLTCP_JOB_A_INTERCEPT] = NLA_POLICY_MAX(NLA_U32, MLTCP_GENL_INTERCEPT_MAX), \
	[MLTCP_JOB_A_IDLE_GAP_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &mltcp_idle_gap_range), \
	[MLTCP_JOB_A_ITER_BYTES] = NLA_POLICY_FULL_RANGE(NLA_U64, &mltcp_iter_bytes_range), \
	[MLTCP_JOB_A_BASE] = NLA_POLICY_MAX(NLA_U8, MLTCP_GENL_BASE_CUBIC), \
	[MLTCP_JOB_A_EXEMPT] = NLA_POLICY_MAX(NLA_U8, 1),		\
	[MLTCP_JOB_A_FLOWS] = MLTCP_REPLY_ONLY,				\
	[MLTCP_JOB_A_FLOWS_TOTAL] = MLTCP_REPLY_ONLY,			\
	[MLTCP_JOB_A_ITERATIONS] = MLTCP_REPLY_ONLY,			\
	[MLTCP_JOB_A_BYTES] = MLTCP_REPLY_ONLY,				\
	[MLTCP_JOB_A_CGROUP] = NLA_POLICY_MIN(NLA_U64, 1),		\
	[MLTCP_JOB_A_MARKED] = NLA_POLICY_MAX(NLA_U8, 1),		\
	[MLTCP_JOB_A_MARKS] = MLTCP_REPLY_ONLY

static const struct nla_policy mltcp_job_add_policy[MLTCP_JOB_A_MARKS + 1] = {
	MLTCP_JOB_POLICY,
	[MLTCP_JOB_A_CLEAR] = { .type = NLA_REJECT, .reject_message = "clear is for job-set only" },
};

static const struct nla_policy mltcp_job_set_policy[MLTCP_JOB_A_MARKS + 1] = {
	MLTCP_JOB_POLICY,
	[MLTCP_JOB_A_CLEAR] = NLA_POLICY_MASK(NLA_U32, MLTCP_JOB_F_ALL),
};

static const struct nla_policy mltcp_job_id_policy[MLTCP_JOB_A_ID + 1] = {
	[MLTCP_JOB_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* A job's id and, optionally, the step marked; the rest is not for a mark. */
static const struct nla_policy mltcp_job_mark_policy[MLTCP_JOB_A_STEP + 1] = {
	[MLTCP_JOB_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[MLTCP_JOB_A_MARKS] = MLTCP_REPLY_ONLY,
	[MLTCP_JOB_A_STEP] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy mltcp_flow_get_policy[MLTCP_FLOW_A_JOB + 1] = {
	[MLTCP_FLOW_A_JOB] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Turning attributes into a request: only what netlink itself requires. */

static int mltcp_nl_ports(struct mltcp_job_request *req, struct nlattr **tb, int min_attr,
			  int max_attr, u32 field, u16 *min, u16 *max,
			  struct netlink_ext_ack *extack)
{
	if (!tb[min_attr] && !tb[max_attr])
		return 0;
	if (!tb[min_attr] || !tb[max_attr]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[min_attr] ? tb[min_attr] : tb[max_attr],
				    "a port range needs both its minimum and its maximum");
		return -EINVAL;
	}
	*min = nla_get_u16(tb[min_attr]);
	*max = nla_get_u16(tb[max_attr]);
	req->given |= field;
	return 0;
}

/* The address as given; mltcp_job_apply() masks it to the prefix. */
static int mltcp_nl_peer(struct mltcp_job_request *req, struct nlattr **tb,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *len_attr = tb[MLTCP_JOB_A_PEER_PREFIXLEN];
	struct nlattr *v4 = tb[MLTCP_JOB_A_PEER_V4];
	struct nlattr *v6 = tb[MLTCP_JOB_A_PEER_V6];
	struct mltcp_job_spec *v = &req->values;

	if (!v4 && !v6 && !len_attr)
		return 0;
	if (v4 && v6) {
		NL_SET_ERR_MSG_ATTR(extack, v6, "one peer prefix: IPv4 or IPv6, not both");
		return -EINVAL;
	}
	if (!v4 && !v6) {
		NL_SET_ERR_MSG_ATTR(extack, len_attr, "peer prefix length without a peer address");
		return -EINVAL;
	}
	BUILD_BUG_ON(sizeof(v->peer) != sizeof(struct in6_addr));
	if (v4) {
		v->peer_family = MLTCP_AF_INET;
		v->peer_prefixlen = 32;
		nla_memcpy(v->peer, v4, sizeof(__be32));
	} else {
		v->peer_family = MLTCP_AF_INET6;
		v->peer_prefixlen = 128;
		nla_memcpy(v->peer, v6, sizeof(struct in6_addr));
	}
	if (len_attr)
		v->peer_prefixlen = nla_get_u8(len_attr);
	req->given |= MLTCP_JOB_F_PEER;
	return 0;
}

/*
 * A job's cgroup, by its id: a cgroup v2 the sender's cgroup namespace can
 * see (cgroup_get_from_id() checks both), at a level the flows' keys hold.
 * The job keeps the id, not the cgroup: ids are not reused, and a job whose
 * cgroup is removed matches nothing new.
 */
static int mltcp_nl_cgroup(struct mltcp_job_request *req, struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
#if defined(CONFIG_CGROUPS) && defined(CONFIG_SOCK_CGROUP_DATA)
	struct cgroup *cgrp;
	int level;

	if (!attr)
		return 0;
	cgrp = cgroup_get_from_id(nla_get_u64(attr));
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such cgroup (v2) here");
		return -ENOENT;
	}
	level = cgrp->level;
	cgroup_put(cgrp);
	if (level >= MLTCP_CGROUP_LEVELS) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "cgroup too deep: levels 0 to 11 only");
		return -ERANGE;
	}
	req->values.cgroup_id = nla_get_u64(attr);
	req->given |= MLTCP_JOB_F_CGROUP;
	return 0;
#else
	if (!attr)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "this kernel does not keep sockets' cgroups");
	return -EOPNOTSUPP;
#endif
}

/*
 * The request of a JOB_ADD or JOB_SET (without its clear mask). The netlink
 * policy has checked each attribute's type and range; what the values mean
 * together is for mltcp_job_apply() to check.
 */
static int mltcp_nl_request(struct mltcp_job_request *req, struct nlattr **tb,
			    struct netlink_ext_ack *extack)
{
	struct mltcp_job_spec *v = &req->values;
	int err;

	memset(req, 0, sizeof(*req));
	v->id = nla_get_u32(tb[MLTCP_JOB_A_ID]);
	if (tb[MLTCP_JOB_A_MARK_MASK] && !tb[MLTCP_JOB_A_MARK]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MLTCP_JOB_A_MARK_MASK], "mark mask without a mark");
		return -EINVAL;
	}
	err = mltcp_nl_ports(req, tb, MLTCP_JOB_A_DPORT_MIN, MLTCP_JOB_A_DPORT_MAX,
			     MLTCP_JOB_F_DPORT, &v->dport_min, &v->dport_max, extack);
	if (err)
		return err;
	err = mltcp_nl_ports(req, tb, MLTCP_JOB_A_SPORT_MIN, MLTCP_JOB_A_SPORT_MAX,
			     MLTCP_JOB_F_SPORT, &v->sport_min, &v->sport_max, extack);
	if (err)
		return err;
	err = mltcp_nl_peer(req, tb, extack);
	if (err)
		return err;
	err = mltcp_nl_cgroup(req, tb[MLTCP_JOB_A_CGROUP], extack);
	if (err)
		return err;
	if (tb[MLTCP_JOB_A_MARK]) {
		v->mark = nla_get_u32(tb[MLTCP_JOB_A_MARK]);
		v->mark_mask = tb[MLTCP_JOB_A_MARK_MASK] ?
			       nla_get_u32(tb[MLTCP_JOB_A_MARK_MASK]) : ~0U;
		req->given |= MLTCP_JOB_F_MARK;
	}
	if (tb[MLTCP_JOB_A_SLOPE]) {
		v->slope = nla_get_u32(tb[MLTCP_JOB_A_SLOPE]);
		req->given |= MLTCP_JOB_F_SLOPE;
	}
	if (tb[MLTCP_JOB_A_INTERCEPT]) {
		v->intercept = nla_get_u32(tb[MLTCP_JOB_A_INTERCEPT]);
		req->given |= MLTCP_JOB_F_INTERCEPT;
	}
	if (tb[MLTCP_JOB_A_IDLE_GAP_US]) {
		v->idle_gap_us = nla_get_u32(tb[MLTCP_JOB_A_IDLE_GAP_US]);
		req->given |= MLTCP_JOB_F_IDLE_GAP;
	}
	if (tb[MLTCP_JOB_A_ITER_BYTES]) {
		v->iter_bytes = nla_get_u64(tb[MLTCP_JOB_A_ITER_BYTES]);
		req->given |= MLTCP_JOB_F_ITER_BYTES;
	}
	if (tb[MLTCP_JOB_A_BASE]) {
		v->base = nla_get_u8(tb[MLTCP_JOB_A_BASE]);
		req->given |= MLTCP_JOB_F_BASE;
	}
	if (tb[MLTCP_JOB_A_EXEMPT]) {
		v->exempt = nla_get_u8(tb[MLTCP_JOB_A_EXEMPT]);
		req->given |= MLTCP_JOB_F_EXEMPT;
	}
	if (tb[MLTCP_JOB_A_MARKED]) {
		v->marked = nla_get_u8(tb[MLTCP_JOB_A_MARKED]);
		req->given |= MLTCP_JOB_F_MARKED;
	}
	return 0;
}

/* The attribute that carries the field mltcp_job_apply() refused. */
static struct nlattr *mltcp_nl_error_attr(struct nlattr **tb, struct nlattr *clear_attr,
					  enum mltcp_job_error err)
{
	switch (mltcp_job_error_field(err)) {
	case MLTCP_JOB_F_DPORT:
		return tb[MLTCP_JOB_A_DPORT_MAX];
	case MLTCP_JOB_F_SPORT:
		return tb[MLTCP_JOB_A_SPORT_MAX];
	case MLTCP_JOB_F_PEER:
		return tb[MLTCP_JOB_A_PEER_PREFIXLEN];
	case MLTCP_JOB_F_SLOPE:
		return tb[MLTCP_JOB_A_SLOPE];
	case MLTCP_JOB_F_INTERCEPT:
		return tb[MLTCP_JOB_A_INTERCEPT];
	case MLTCP_JOB_F_IDLE_GAP:
		return tb[MLTCP_JOB_A_IDLE_GAP_US];
	case MLTCP_JOB_F_ITER_BYTES:
		return tb[MLTCP_JOB_A_ITER_BYTES];
	case MLTCP_JOB_F_BASE:
		return tb[MLTCP_JOB_A_BASE];
	case MLTCP_JOB_F_CGROUP:
		return tb[MLTCP_JOB_A_CGROUP];
	case MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT:
		/* The line: the attribute that sets part of it, if any does. */
		return tb[MLTCP_JOB_A_INTERCEPT] ? tb[MLTCP_JOB_A_INTERCEPT] :
						    tb[MLTCP_JOB_A_SLOPE];
	default:
		/* The id is the netlink policy's; what is left is the clear mask. */
		return err == MLTCP_JOB_E_ID ? tb[MLTCP_JOB_A_ID] : clear_attr;
	}
}

/*
 * Reports a request mltcp_job_apply() refused. NL_SET_ERR_MSG_ATTR() takes
 * only a string literal (6.1 copies it into a static array); the messages of
 * mltcp_job_strerror() are static strings already, so they are set as the
 * macro would set them. A value out of range is -ERANGE, as the netlink
 * policy reports its own; a line above the bound of the namespace is
 * -EPERM, as the same request is allowed where the bound does not apply.
 */
static int mltcp_nl_refuse(struct genl_info *info, struct nlattr *clear_attr,
			   enum mltcp_job_error err)
{
	const char *msg = mltcp_job_strerror(err);

	do_trace_netlink_extack(msg);
	if (info->extack)
		info->extack->_msg = msg;
	NL_SET_BAD_ATTR(info->extack, mltcp_nl_error_attr(info->attrs, clear_attr, err));
	switch (err) {
	case MLTCP_JOB_E_ID:
	case MLTCP_JOB_E_PEER_PREFIXLEN:
	case MLTCP_JOB_E_SLOPE:
	case MLTCP_JOB_E_INTERCEPT:
	case MLTCP_JOB_E_IDLE_GAP:
	case MLTCP_JOB_E_ITER_BYTES:
	case MLTCP_JOB_E_BASE:
		return -ERANGE;
	case MLTCP_JOB_E_BOUND:
		return -EPERM;
	default:
		return -EINVAL;
	}
}

/*
 * Applies req to *spec, then checks the line the job's flows would latch
 * over the namespace's defaults, bounded if the namespace is.
 */
static enum mltcp_job_error mltcp_nl_apply(struct net *net, struct mltcp_job_spec *spec,
					   const struct mltcp_job_request *req)
{
	struct mltcp_job_spec next = *spec;
	struct mltcp_params defaults;
	struct mltcp_line host;
	enum mltcp_job_error err;

	err = mltcp_job_apply(&next, req);
	if (err)
		return err;
	mltcp_net_defaults(net, &defaults);
	err = mltcp_job_check_over(&next, &defaults, mltcp_net_bound(net, &host));
	if (!err)
		*spec = next;
	return err;
}

static int mltcp_nl_job_add(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mltcp_job_spec spec = { };
	struct mltcp_job_request req;
	enum mltcp_job_error perr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	err = mltcp_nl_request(&req, info->attrs, info->extack);
	if (err)
		return err;
	perr = mltcp_nl_apply(net, &spec, &req);
	if (perr)
		return mltcp_nl_refuse(info, NULL, perr);

	mltcp_jobs_lock(net);
	if (mltcp_job_find(net, spec.id)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MLTCP_JOB_A_ID], "job exists");
		err = -EEXIST;
	} else {
		err = mltcp_job_insert(net, &spec);
		if (err == -ENOSPC)
			NL_SET_ERR_MSG(info->extack, "job table full");
	}
	mltcp_jobs_unlock(net);
	return err;
}

static struct mltcp_job *mltcp_nl_find(struct net *net, struct genl_info *info)
{
	struct mltcp_job *job = mltcp_job_find(net, nla_get_u32(info->attrs[MLTCP_JOB_A_ID]));

	if (!job)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MLTCP_JOB_A_ID], "no such job");
	return job;
}

/*
 * The change of a job (published) reaches its live flows; the job lock is
 * not held. Fails only for memory, after the table changed: as rtnetlink
 * does when a link change fails part-way, the error says what is left.
 */
static int mltcp_nl_relatch(struct genl_info *info, struct net *net, u32 key, u32 changed,
			    bool detach)
{
	int err = mltcp_flows_relatch(net, key, changed, detach);

	if (err)
		NL_SET_ERR_MSG(info->extack,
			       "the job changed, but not all its live flows: out of memory");
	return err;
}

/* A change reaches the job's live flows before the command returns. */
static int mltcp_nl_job_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *clear_attr = info->attrs[MLTCP_JOB_A_CLEAR];
	struct net *net = genl_info_net(info);
	struct mltcp_job_request req;
	struct mltcp_job_spec spec;
	enum mltcp_job_error perr;
	struct mltcp_job *job;
	u32 key = 0;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	err = mltcp_nl_request(&req, info->attrs, info->extack);
	if (err)
		return err;
	req.clear = clear_attr ? nla_get_u32(clear_attr) : 0;

	mltcp_jobs_lock(net);
	job = mltcp_nl_find(net, info);
	if (!job) {
		err = -ENOENT;
		goto out;
	}
	spec = *mltcp_job_spec(net, job);
	perr = mltcp_nl_apply(net, &spec, &req);
	if (perr) {
		err = mltcp_nl_refuse(info, clear_attr, perr);
		goto out;
	}
	err = mltcp_job_update(net, job, &spec);
	key = job->key;
out:
	mltcp_jobs_unlock(net);
	if (err)
		return err;
	return mltcp_nl_relatch(info, net, key, mltcp_job_changed(&req), false);
}

static int mltcp_nl_job_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mltcp_job *job;
	u32 key, had;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	mltcp_jobs_lock(net);
	job = mltcp_nl_find(net, info);
	if (!job) {
		mltcp_jobs_unlock(net);
		return -ENOENT;
	}
	key = job->key;
	had = mltcp_job_spec(net, job)->fields & MLTCP_JOB_F_SETTINGS;
	mltcp_job_delete(net, job);
	mltcp_jobs_unlock(net);
	return mltcp_nl_relatch(info, net, key, had, true);
}

#if defined(CONFIG_CGROUPS) && defined(CONFIG_SOCK_CGROUP_DATA)
/* cgrp is the job's cgroup or below it; the root cgroup is nobody's own. */
static bool mltcp_in_job_cgroup(const struct mltcp_job_spec *spec, struct cgroup *cgrp)
{
	struct mltcp_flow_key key = { };

	mltcp_key_set_cgroups(&key, cgrp);
	return key.cgroup_ids[0] != spec->cgroup_id && mltcp_job_cgroup_matches(spec, &key);
}
#endif

/*
 * The job's own processes may mark it without privilege: a training
 * framework marks its steps. Own means in the job's cgroup or below it, as
 * its sockets are matched, and so is the netlink socket the mark came
 * through (no process outside can have one inside write it); a job on the
 * root cgroup has no own processes. Anyone else needs CAP_NET_ADMIN over
 * the namespace, as for any change of a job. A job on a cgroup that other
 * users' processes share lets them mark it: name the job's own cgroup.
 */
static bool mltcp_nl_own_job(struct sk_buff *skb, const struct mltcp_job_spec *spec)
{
	bool own = false;

#if defined(CONFIG_CGROUPS) && defined(CONFIG_SOCK_CGROUP_DATA)
	rcu_read_lock();
	own = mltcp_in_job_cgroup(spec, task_dfl_cgroup(current)) &&
	      mltcp_in_job_cgroup(spec, sock_cgroup_ptr(&NETLINK_CB(skb).sk->sk_cgrp_data));
	rcu_read_unlock();
#endif
	return own;
}

/*
 * Without CAP_NET_ADMIN, the job is looked up and the caller's ownership
 * checked under RCU: a mark that is refused never takes the job lock, so
 * processes that may not mark cannot delay the marks of those that may.
 */
static int mltcp_nl_mark_allowed(struct sk_buff *skb, struct genl_info *info, struct net *net)
{
	struct mltcp_job *job;
	int err = 0;

	rcu_read_lock();
	job = mltcp_nl_find(net, info);
	if (!job) {
		err = -ENOENT;
	} else if (!mltcp_nl_own_job(skb, mltcp_job_spec(net, job))) {
		NL_SET_ERR_MSG(info->extack,
			       "marking a job needs CAP_NET_ADMIN or a process in the job's cgroup");
		err = -EPERM;
	}
	rcu_read_unlock();
	return err;
}

/*
 * An iteration of the job starts: each of its marked flows starts one when
 * it next sends with nothing in flight (mltcp_on_tx_start()). Nothing is
 * walked or socket locked: the flows read the job's count of marks, which
 * mltcp_job_mark() moves under the job lock. The job found under the lock
 * is checked again: the one checked under RCU may have been replaced by
 * another of the same id since.
 */
static int mltcp_nl_job_mark(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mltcp_job *job;
	bool admin;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	admin = netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN);
	if (!admin) {
		err = mltcp_nl_mark_allowed(skb, info, net);
		if (err)
			return err;
	}
	err = 0;
	mltcp_jobs_lock(net);
	job = mltcp_nl_find(net, info);
	if (!job) {
		err = -ENOENT;
	} else if (!admin && !mltcp_nl_own_job(skb, mltcp_job_spec(net, job))) {
		NL_SET_ERR_MSG(info->extack,
			       "marking a job needs CAP_NET_ADMIN or a process in the job's cgroup");
		err = -EPERM;
	} else {
		struct nlattr *step = info->attrs[MLTCP_JOB_A_STEP];
		u32 count = atomic_read(&job->marks);

		if (mltcp_job_mark(&count, &job->last_step, step ? nla_get_u32(step) : 0))
			atomic_set(&job->marks, count);
	}
	mltcp_jobs_unlock(net);
	return err;
}

static int mltcp_nl_put_peer(struct sk_buff *skb, const struct mltcp_job_spec *spec)
{
	if (spec->peer_family == MLTCP_AF_INET)
		return nla_put(skb, MLTCP_JOB_A_PEER_V4, sizeof(__be32), spec->peer) ||
		       nla_put_u8(skb, MLTCP_JOB_A_PEER_PREFIXLEN, spec->peer_prefixlen);
	return nla_put(skb, MLTCP_JOB_A_PEER_V6, sizeof(struct in6_addr), spec->peer) ||
	       nla_put_u8(skb, MLTCP_JOB_A_PEER_PREFIXLEN, spec->peer_prefixlen);
}

/* cb: the dump the message is part of, NULL for a reply to JOB_GET. */
static int mltcp_nl_fill_job(struct sk_buff *skb, const struct mltcp_job *job,
			     const struct mltcp_job_spec *spec, u32 portid, u32 seq, int flags,
			     struct netlink_callback *cb)
{
	void *hdr = genlmsg_put(skb, portid, seq, &mltcp_genl_family, flags, MLTCP_CMD_JOB_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, MLTCP_JOB_A_ID, job->id))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_DPORT) &&
	    (nla_put_u16(skb, MLTCP_JOB_A_DPORT_MIN, spec->dport_min) ||
	     nla_put_u16(skb, MLTCP_JOB_A_DPORT_MAX, spec->dport_max)))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_SPORT) &&
	    (nla_put_u16(skb, MLTCP_JOB_A_SPORT_MIN, spec->sport_min) ||
	     nla_put_u16(skb, MLTCP_JOB_A_SPORT_MAX, spec->sport_max)))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_PEER) && mltcp_nl_put_peer(skb, spec))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_MARK) &&
	    (nla_put_u32(skb, MLTCP_JOB_A_MARK, spec->mark) ||
	     nla_put_u32(skb, MLTCP_JOB_A_MARK_MASK, spec->mark_mask)))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_CGROUP) &&
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_CGROUP, spec->cgroup_id, MLTCP_JOB_A_PAD))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_SLOPE) &&
	    nla_put_u32(skb, MLTCP_JOB_A_SLOPE, spec->slope))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_INTERCEPT) &&
	    nla_put_u32(skb, MLTCP_JOB_A_INTERCEPT, spec->intercept))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_IDLE_GAP) &&
	    nla_put_u32(skb, MLTCP_JOB_A_IDLE_GAP_US, spec->idle_gap_us))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_ITER_BYTES) &&
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_ITER_BYTES, spec->iter_bytes, MLTCP_JOB_A_PAD))
		goto cancel;
	if ((spec->fields & MLTCP_JOB_F_BASE) && nla_put_u8(skb, MLTCP_JOB_A_BASE, spec->base))
		goto cancel;
	if (spec->exempt && nla_put_u8(skb, MLTCP_JOB_A_EXEMPT, 1))
		goto cancel;
	if (spec->marked && nla_put_u8(skb, MLTCP_JOB_A_MARKED, 1))
		goto cancel;
	if (nla_put_u32(skb, MLTCP_JOB_A_FLOWS, max(atomic_read(&job->flows), 0)) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_FLOWS_TOTAL, atomic64_read(&job->flows_total),
			      MLTCP_JOB_A_PAD) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_ITERATIONS, atomic64_read(&job->iterations),
			      MLTCP_JOB_A_PAD) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_BYTES, atomic64_read(&job->bytes),
			      MLTCP_JOB_A_PAD) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_MARKS, (u32)atomic_read(&job->marks),
			      MLTCP_JOB_A_PAD))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int mltcp_nl_job_get(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mltcp_job *job;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	job = mltcp_nl_find(net, info);
	if (!job)
		err = -ENOENT;
	else
		err = mltcp_nl_fill_job(msg, job, mltcp_job_spec(net, job),
					info->snd_portid, info->snd_seq, 0, NULL);
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* The dump resumes after the last job id it sent. */
struct mltcp_job_dump_ctx {
	bool started;
	u32 last_id;
};

static int mltcp_nl_job_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mltcp_job_dump_ctx *ctx = (struct mltcp_job_dump_ctx *)cb->ctx;
	struct nlattr **tb = mltcp_dump_attrs(cb);
	struct net *net = sock_net(skb->sk);
	u32 only = tb[MLTCP_JOB_A_ID] ? nla_get_u32(tb[MLTCP_JOB_A_ID]) : 0;
	struct mltcp_job *job;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	rcu_read_lock();
	cb->seq = mltcp_jobs_gen(net);
	for (job = mltcp_job_next_rcu(net, NULL); job; job = mltcp_job_next_rcu(net, job)) {
		if ((ctx->started && job->id <= ctx->last_id) || (only && job->id != only))
			continue;
		if (mltcp_nl_fill_job(skb, job, mltcp_job_spec(net, job),
				      NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				      NLM_F_MULTI, cb))
			break;
		ctx->started = true;
		ctx->last_id = job->id;
	}
	/*
	 * A change during this part flags the next one, or NLMSG_DONE if this
	 * was the last: netlink compares each message's sequence with the last.
	 */
	cb->seq = mltcp_jobs_gen_after_walk(net);
	rcu_read_unlock();
	return skb->len;
}

struct mltcp_flow_dump_ctx {
	struct mltcp_walk pos;
	u32 key;		/* only this job's flows, if nonzero */
};

static int mltcp_nl_flow_start(struct netlink_callback *cb)
{
	struct mltcp_flow_dump_ctx *ctx = (struct mltcp_flow_dump_ctx *)cb->ctx;
	struct nlattr **tb = mltcp_dump_attrs(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct mltcp_job *job;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	memset(ctx, 0, sizeof(*ctx));
	if (!tb[MLTCP_FLOW_A_JOB])
		return 0;
	rcu_read_lock();
	job = mltcp_job_find(net, nla_get_u32(tb[MLTCP_FLOW_A_JOB]));
	if (job) {
		ctx->key = job->key;
	} else {
		NL_SET_ERR_MSG_ATTR(cb->extack, tb[MLTCP_FLOW_A_JOB], "no such job");
		err = -ENOENT;
	}
	rcu_read_unlock();
	return err;
}

struct mltcp_flow_fill {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	u32 key;
};

/* An address of the record: 4 bytes for IPv4, 16 for IPv6. */
static int mltcp_nl_put_addr(struct sk_buff *skb, int attr, const struct mltcp_flow_record *rec,
			     const u8 *addr)
{
	if (rec->family == MLTCP_AF_INET6)
		return nla_put(skb, attr, sizeof(struct in6_addr), addr);
	return nla_put(skb, attr, sizeof(__be32), addr);
}

static int mltcp_nl_put_flow(struct sk_buff *skb, const struct mltcp_flow_record *rec,
			     u32 job_id, bool exempt)
{
	return (job_id && nla_put_u32(skb, MLTCP_FLOW_A_JOB, job_id)) ||
	       nla_put_u64_64bit(skb, MLTCP_FLOW_A_COOKIE, rec->cookie, MLTCP_FLOW_A_PAD) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_FAMILY, rec->family) ||
	       mltcp_nl_put_addr(skb, MLTCP_FLOW_A_SADDR, rec, rec->saddr) ||
	       mltcp_nl_put_addr(skb, MLTCP_FLOW_A_DADDR, rec, rec->daddr) ||
	       nla_put_u16(skb, MLTCP_FLOW_A_SPORT, rec->sport) ||
	       nla_put_u16(skb, MLTCP_FLOW_A_DPORT, rec->dport) ||
	       nla_put_string(skb, MLTCP_FLOW_A_CA, rec->ca) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_BASE, rec->base) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_MODE, rec->mode) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_EXEMPT, exempt) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_CWND, rec->cwnd) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_SSTHRESH, rec->ssthresh) ||
	       nla_put_u64_64bit(skb, MLTCP_FLOW_A_BYTES_THIS_ITER, rec->bytes_this_iter,
				 MLTCP_FLOW_A_PAD) ||
	       nla_put_u64_64bit(skb, MLTCP_FLOW_A_ITER_BYTES, rec->iter_bytes,
				 MLTCP_FLOW_A_PAD) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_ITER_FIXED, rec->iter_fixed) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_R, rec->r) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_F, rec->f) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_ITERATIONS, rec->iterations) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_LAST_ITER_US, rec->last_iter_us) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_SLOPE, rec->slope) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_INTERCEPT, rec->intercept) ||
	       nla_put_u32(skb, MLTCP_FLOW_A_IDLE_GAP_US, rec->idle_gap_us) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_DSCP, rec->tos >> 2) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_ITER_TRUSTED, rec->iter_trusted) ||
	       nla_put_u8(skb, MLTCP_FLOW_A_PRIO_HELD, rec->prio_held);
}

static int mltcp_nl_flow_one(struct sock *sk, void *arg)
{
	struct mltcp_flow_fill *f = arg;
	struct mltcp_flow_record rec;
	bool exempt = false;
	u32 job_id = 0;
	void *hdr;

	if (!mltcp_flow_snapshot(sk, &rec) || (f->key && rec.job != f->key))
		return 0;
	if (rec.job)
		mltcp_job_of_key(sock_net(sk), rec.job, &job_id, &exempt);

	hdr = genlmsg_put(f->skb, NETLINK_CB(f->cb->skb).portid, f->cb->nlh->nlmsg_seq,
			  &mltcp_genl_family, NLM_F_MULTI, MLTCP_CMD_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(f->cb, hdr);
	if (mltcp_nl_put_flow(f->skb, &rec, job_id, exempt)) {
		genlmsg_cancel(f->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(f->skb, hdr);
	return 0;
}

static int mltcp_nl_flow_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mltcp_flow_dump_ctx *ctx = (struct mltcp_flow_dump_ctx *)cb->ctx;
	struct mltcp_flow_fill f = { .skb = skb, .cb = cb, .key = ctx->key };
	struct net *net = sock_net(skb->sk);
	int err;

	cb->seq = mltcp_jobs_gen(net);
	err = mltcp_walk_flows(net, ctx->key, &ctx->pos, mltcp_nl_flow_one, &f);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;	/* full: the next call resumes at this flow */
	return err ? err : skb->len;
}

/* No attribute is defined for a request: any is refused. */
static const struct nla_policy mltcp_stats_get_policy[MLTCP_STATS_A_PAD + 1] = {
};

static int mltcp_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	u64 counts[MLTCP_TX_NR_VERDICTS], gate[MLTCP_GATE_NR_VERDICTS];
	u64 hold[MLTCP_PRIO_HOLD_NR_EVENTS];
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mltcp_genl_family, 0, MLTCP_CMD_STATS_GET);
	if (!hdr)
		goto nospace;
	mltcp_net_counts(genl_info_net(info), counts, gate, hold);
	for (i = 0; i < MLTCP_TX_NR_VERDICTS; i++)
		if (nla_put_u64_64bit(msg, mltcp_stats_verdict_attr(i), counts[i],
				      MLTCP_STATS_A_PAD))
			goto nospace;
	for (i = 0; i < MLTCP_GATE_NR_VERDICTS; i++)
		if (nla_put_u64_64bit(msg, mltcp_stats_gate_attr(i), gate[i], MLTCP_STATS_A_PAD))
			goto nospace;
	for (i = 0; i < MLTCP_PRIO_HOLD_NR_EVENTS; i++)
		if (nla_put_u64_64bit(msg, mltcp_stats_prio_hold_attr(i), hold[i],
				      MLTCP_STATS_A_PAD))
			goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const struct genl_ops mltcp_genl_ops[] = {
	{
		.cmd = MLTCP_CMD_JOB_ADD,
		.flags = GENL_UNS_ADMIN_PERM,
		.policy = mltcp_job_add_policy,
		.maxattr = ARRAY_SIZE(mltcp_job_add_policy) - 1,
		.doit = mltcp_nl_job_add,
	},
	{
		.cmd = MLTCP_CMD_JOB_SET,
		.flags = GENL_UNS_ADMIN_PERM,
		.policy = mltcp_job_set_policy,
		.maxattr = ARRAY_SIZE(mltcp_job_set_policy) - 1,
		.doit = mltcp_nl_job_set,
	},
	{
		.cmd = MLTCP_CMD_JOB_DEL,
		.flags = GENL_UNS_ADMIN_PERM,
		.policy = mltcp_job_id_policy,
		.maxattr = ARRAY_SIZE(mltcp_job_id_policy) - 1,
		.doit = mltcp_nl_job_del,
	},
	{
		.cmd = MLTCP_CMD_JOB_GET,
		.policy = mltcp_job_id_policy,
		.maxattr = ARRAY_SIZE(mltcp_job_id_policy) - 1,
		.doit = mltcp_nl_job_get,
		.dumpit = mltcp_nl_job_dump,
	},
	{
		.cmd = MLTCP_CMD_FLOW_GET,
		.policy = mltcp_flow_get_policy,
		.maxattr = ARRAY_SIZE(mltcp_flow_get_policy) - 1,
		.start = mltcp_nl_flow_start,
		.dumpit = mltcp_nl_flow_dump,
	},
	{
		.cmd = MLTCP_CMD_STATS_GET,
		.policy = mltcp_stats_get_policy,
		.maxattr = ARRAY_SIZE(mltcp_stats_get_policy) - 1,
		.doit = mltcp_nl_stats_get,
	},
	{
		/* Unprivileged: mltcp_nl_may_mark() decides. */
		.cmd = MLTCP_CMD_JOB_MARK,
		.policy = mltcp_job_mark_policy,
		.maxattr = ARRAY_SIZE(mltcp_job_mark_policy) - 1,
		.doit = mltcp_nl_job_mark,
	},
};

static struct genl_family mltcp_genl_family = {
	.name = MLTCP_GENL_NAME,
	.version = MLTCP_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = mltcp_genl_ops,
	.n_ops = ARRAY_SIZE(mltcp_genl_ops),
	/* 0: strict header and attribute checks for every command. */
	.resv_start_op = 0,
};

int mltcp_genl_init(void)
{
	/* The uapi numbers are the core's. */
	BUILD_BUG_ON((int)MLTCP_GENL_BASE_RENO != (int)MLTCP_BASE_RENO ||
		     (int)MLTCP_GENL_BASE_CUBIC != (int)MLTCP_BASE_CUBIC);
	BUILD_BUG_ON((int)MLTCP_GENL_MODE_AI != (int)MLTCP_MODE_AI ||
		     (int)MLTCP_GENL_MODE_MD != (int)MLTCP_MODE_MD ||
		     (int)MLTCP_GENL_MODE_BOTH != (int)MLTCP_MODE_BOTH ||
		     (int)MLTCP_GENL_MODE_RESTART != (int)MLTCP_MODE_RESTART ||
		     (int)MLTCP_GENL_MODE_BOTH_RESTART != (int)(MLTCP_MODE_BOTH | MLTCP_MODE_RESTART) ||
		     (int)MLTCP_GENL_MODE_GATE != (int)(MLTCP_MODE_RESTART | MLTCP_MODE_GATE) ||
		     (int)MLTCP_GENL_MODE_BOTH_GATE != (int)MLTCP_MODE_ALL);
	BUILD_BUG_ON((u32)MLTCP_GENL_FIXED_SHIFT != (u32)MLTCP_SHIFT ||
		     (u32)MLTCP_GENL_SLOPE_MAX != (u32)MLTCP_SLOPE_MAX ||
		     (u32)MLTCP_GENL_INTERCEPT_MAX != (u32)MLTCP_INTERCEPT_MAX ||
		     (u32)MLTCP_GENL_IDLE_GAP_MIN != (u32)MLTCP_IDLE_GAP_MIN_US ||
		     (u32)MLTCP_GENL_IDLE_GAP_MAX != (u32)MLTCP_IDLE_GAP_MAX_US);
	return genl_register_family(&mltcp_genl_family);
}

void mltcp_genl_exit(void)
{
	genl_unregister_family(&mltcp_genl_family);
}
