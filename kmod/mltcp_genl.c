// SPDX-License-Identifier: GPL-2.0
/*
 * The "mltcp" generic netlink family (uapi/mltcp.h, spec/mltcp.yaml): add,
 * change, delete, get and dump the training jobs of the caller's network
 * namespace, and dump its MLTCP flows.
 *
 * - Usable in every namespace (netnsok); each has its own job table.
 * - Writes need CAP_NET_ADMIN in the user namespace owning the network
 *   namespace (GENL_UNS_ADMIN_PERM), so a container's root manages its own.
 * - Every command has a policy with ranges and strict validation
 *   (resv_start_op is 0: unknown attributes, trailing bytes and reserved
 *   header bits are refused for all commands). Combinations the policy cannot
 *   express are checked here, with an extack message naming the attribute.
 *   A request is validated whole before anything changes.
 * - Operations run in parallel (parallel_ops); writers of one namespace's
 *   table serialise on its mutex, readers in the datapath use RCU.
 */
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "mltcp_netns.h"
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
	[MLTCP_JOB_A_EXEMPT] = NLA_POLICY_MAX(NLA_U8, 1)

static const struct nla_policy mltcp_job_add_policy[MLTCP_JOB_A_EXEMPT + 1] = {
	MLTCP_JOB_POLICY,
};

static const struct nla_policy mltcp_job_set_policy[MLTCP_JOB_A_CLEAR + 1] = {
	MLTCP_JOB_POLICY,
	[MLTCP_JOB_A_CLEAR] = NLA_POLICY_MASK(NLA_U32, MLTCP_JOB_F_ALL),
};

static const struct nla_policy mltcp_job_id_policy[MLTCP_JOB_A_ID + 1] = {
	[MLTCP_JOB_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy mltcp_flow_get_policy[MLTCP_FLOW_A_JOB + 1] = {
	[MLTCP_FLOW_A_JOB] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Which criteria and settings a request names. */
static u32 mltcp_nl_given(struct nlattr **tb)
{
	u32 given = 0;

	if (tb[MLTCP_JOB_A_DPORT_MIN] || tb[MLTCP_JOB_A_DPORT_MAX])
		given |= MLTCP_JOB_F_DPORT;
	if (tb[MLTCP_JOB_A_SPORT_MIN] || tb[MLTCP_JOB_A_SPORT_MAX])
		given |= MLTCP_JOB_F_SPORT;
	if (tb[MLTCP_JOB_A_PEER_V4] || tb[MLTCP_JOB_A_PEER_V6] || tb[MLTCP_JOB_A_PEER_PREFIXLEN])
		given |= MLTCP_JOB_F_PEER;
	if (tb[MLTCP_JOB_A_MARK] || tb[MLTCP_JOB_A_MARK_MASK])
		given |= MLTCP_JOB_F_MARK;
	if (tb[MLTCP_JOB_A_SLOPE])
		given |= MLTCP_JOB_F_SLOPE;
	if (tb[MLTCP_JOB_A_INTERCEPT])
		given |= MLTCP_JOB_F_INTERCEPT;
	if (tb[MLTCP_JOB_A_IDLE_GAP_US])
		given |= MLTCP_JOB_F_IDLE_GAP;
	if (tb[MLTCP_JOB_A_ITER_BYTES])
		given |= MLTCP_JOB_F_ITER_BYTES;
	if (tb[MLTCP_JOB_A_BASE])
		given |= MLTCP_JOB_F_BASE;
	if (tb[MLTCP_JOB_A_EXEMPT])
		given |= MLTCP_JOB_F_EXEMPT;
	return given;
}

static int mltcp_nl_ports(struct nlattr **tb, int min_attr, int max_attr,
			  u16 *min, u16 *max, struct netlink_ext_ack *extack)
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
	if (*min > *max) {
		NL_SET_ERR_MSG_ATTR(extack, tb[max_attr], "port range maximum below its minimum");
		return -EINVAL;
	}
	return 0;
}

static int mltcp_nl_peer(struct mltcp_job_cfg *cfg, struct nlattr **tb,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *len_attr = tb[MLTCP_JOB_A_PEER_PREFIXLEN];
	struct nlattr *v4 = tb[MLTCP_JOB_A_PEER_V4];
	struct nlattr *v6 = tb[MLTCP_JOB_A_PEER_V6];
	u8 len;

	if (v4 && v6) {
		NL_SET_ERR_MSG_ATTR(extack, v6, "one peer prefix: IPv4 or IPv6, not both");
		return -EINVAL;
	}
	if (!v4 && !v6) {
		NL_SET_ERR_MSG_ATTR(extack, len_attr, "peer prefix length without a peer address");
		return -EINVAL;
	}
	memset(&cfg->peer, 0, sizeof(cfg->peer));
	if (v4) {
		len = len_attr ? nla_get_u8(len_attr) : 32;
		if (len > 32) {
			NL_SET_ERR_MSG_ATTR(extack, len_attr, "IPv4 prefix length above 32");
			return -ERANGE;
		}
		cfg->peer_family = AF_INET;
		cfg->peer.s6_addr32[0] = nla_get_in_addr(v4) & inet_make_mask(len);
	} else {
		struct in6_addr addr = nla_get_in6_addr(v6);

		len = len_attr ? nla_get_u8(len_attr) : 128;
		cfg->peer_family = AF_INET6;
		ipv6_addr_prefix(&cfg->peer, &addr, len);
	}
	cfg->peer_prefixlen = len;
	return 0;
}

/*
 * Apply a request to cfg: a fresh configuration for JOB_ADD, a copy of the
 * current one for JOB_SET. The policy has checked each attribute's type and
 * range; this checks how they combine. On error cfg is left half-done and
 * the caller discards it.
 */
static int mltcp_nl_apply(struct mltcp_job_cfg *cfg, struct nlattr **tb, u32 clear,
			  struct nlattr *clear_attr, struct netlink_ext_ack *extack)
{
	u32 given = mltcp_nl_given(tb);
	int err;

	if (clear & given) {
		NL_SET_ERR_MSG_ATTR(extack, clear_attr, "a field is both cleared and set");
		return -EINVAL;
	}
	if (tb[MLTCP_JOB_A_MARK_MASK] && !tb[MLTCP_JOB_A_MARK]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MLTCP_JOB_A_MARK_MASK], "mark mask without a mark");
		return -EINVAL;
	}
	err = mltcp_nl_ports(tb, MLTCP_JOB_A_DPORT_MIN, MLTCP_JOB_A_DPORT_MAX,
			     &cfg->dport_min, &cfg->dport_max, extack);
	if (err)
		return err;
	err = mltcp_nl_ports(tb, MLTCP_JOB_A_SPORT_MIN, MLTCP_JOB_A_SPORT_MAX,
			     &cfg->sport_min, &cfg->sport_max, extack);
	if (err)
		return err;
	if (given & MLTCP_JOB_F_PEER) {
		err = mltcp_nl_peer(cfg, tb, extack);
		if (err)
			return err;
	}
	if (tb[MLTCP_JOB_A_MARK]) {
		cfg->mark_mask = tb[MLTCP_JOB_A_MARK_MASK] ?
				 nla_get_u32(tb[MLTCP_JOB_A_MARK_MASK]) : ~0U;
		cfg->mark = nla_get_u32(tb[MLTCP_JOB_A_MARK]) & cfg->mark_mask;
	}
	if (tb[MLTCP_JOB_A_SLOPE])
		cfg->slope = nla_get_u32(tb[MLTCP_JOB_A_SLOPE]);
	if (tb[MLTCP_JOB_A_INTERCEPT])
		cfg->intercept = nla_get_u32(tb[MLTCP_JOB_A_INTERCEPT]);
	if (tb[MLTCP_JOB_A_IDLE_GAP_US])
		cfg->idle_gap_us = nla_get_u32(tb[MLTCP_JOB_A_IDLE_GAP_US]);
	if (tb[MLTCP_JOB_A_ITER_BYTES])
		cfg->iter_bytes = nla_get_u64(tb[MLTCP_JOB_A_ITER_BYTES]);
	if (tb[MLTCP_JOB_A_BASE])
		cfg->base = nla_get_u8(tb[MLTCP_JOB_A_BASE]);
	if (tb[MLTCP_JOB_A_EXEMPT])
		cfg->exempt = nla_get_u8(tb[MLTCP_JOB_A_EXEMPT]);
	if (clear & MLTCP_JOB_F_EXEMPT)
		cfg->exempt = 0;

	cfg->fields = (cfg->fields & ~clear) | given;
	/* "exempt 0" is the same as no setting. */
	if (!cfg->exempt)
		cfg->fields &= ~MLTCP_JOB_F_EXEMPT;
	return 0;
}

static int mltcp_nl_job_add(struct sk_buff *skb, struct genl_info *info)
{
	struct mltcp_net *pn = mltcp_pernet(genl_info_net(info));
	struct mltcp_job_cfg *cfg;
	struct mltcp_job *job;
	u32 id;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[MLTCP_JOB_A_ID]);

	cfg = mltcp_job_cfg_alloc();
	if (!cfg)
		return -ENOMEM;
	err = mltcp_nl_apply(cfg, info->attrs, 0, NULL, info->extack);
	if (err) {
		mltcp_job_cfg_free(cfg);
		return err;
	}
	job = mltcp_job_alloc(id, cfg);
	if (!job)
		return -ENOMEM;

	mutex_lock(&pn->lock);
	if (mltcp_job_find(pn, id)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MLTCP_JOB_A_ID], "job exists");
		err = -EEXIST;
	} else {
		err = mltcp_job_insert(pn, job);
		if (err == -ENOSPC)
			NL_SET_ERR_MSG(info->extack, "job table full");
	}
	mutex_unlock(&pn->lock);
	if (err)
		mltcp_job_free(job);
	return err;
}

static struct mltcp_job *mltcp_nl_find(struct mltcp_net *pn, struct genl_info *info)
{
	struct mltcp_job *job = mltcp_job_find(pn, nla_get_u32(info->attrs[MLTCP_JOB_A_ID]));

	if (!job)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MLTCP_JOB_A_ID], "no such job");
	return job;
}

static int mltcp_nl_job_set(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mltcp_net *pn = mltcp_pernet(net);
	struct nlattr *clear_attr = info->attrs[MLTCP_JOB_A_CLEAR];
	struct mltcp_job_cfg *cfg, *old;
	struct mltcp_job *job;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	cfg = mltcp_job_cfg_alloc();
	if (!cfg)
		return -ENOMEM;

	mutex_lock(&pn->lock);
	job = mltcp_nl_find(pn, info);
	if (!job) {
		err = -ENOENT;
		goto fail;
	}
	old = rcu_dereference_protected(job->cfg, lockdep_is_held(&pn->lock));
	memcpy(cfg, old, offsetof(struct mltcp_job_cfg, rcu));
	err = mltcp_nl_apply(cfg, info->attrs, clear_attr ? nla_get_u32(clear_attr) : 0,
			     clear_attr, info->extack);
	if (err)
		goto fail;
	rcu_assign_pointer(job->cfg, cfg);
	mltcp_job_update_flows(net, job, false);
	mutex_unlock(&pn->lock);
	mltcp_job_cfg_free_rcu(old);
	return 0;

fail:
	mutex_unlock(&pn->lock);
	mltcp_job_cfg_free(cfg);
	return err;
}

static int mltcp_nl_job_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mltcp_net *pn = mltcp_pernet(net);
	struct mltcp_job *job;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	mutex_lock(&pn->lock);
	job = mltcp_nl_find(pn, info);
	if (!job) {
		mutex_unlock(&pn->lock);
		return -ENOENT;
	}
	mltcp_job_remove(pn, job);
	mltcp_job_update_flows(net, job, true);
	mutex_unlock(&pn->lock);
	mltcp_job_release(job);
	return 0;
}

static int mltcp_nl_fill_job(struct sk_buff *skb, const struct mltcp_job *job,
			     const struct mltcp_job_cfg *cfg, u32 portid, u32 seq, int flags)
{
	void *hdr = genlmsg_put(skb, portid, seq, &mltcp_genl_family, flags, MLTCP_CMD_JOB_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MLTCP_JOB_A_ID, job->id))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_DPORT) &&
	    (nla_put_u16(skb, MLTCP_JOB_A_DPORT_MIN, cfg->dport_min) ||
	     nla_put_u16(skb, MLTCP_JOB_A_DPORT_MAX, cfg->dport_max)))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_SPORT) &&
	    (nla_put_u16(skb, MLTCP_JOB_A_SPORT_MIN, cfg->sport_min) ||
	     nla_put_u16(skb, MLTCP_JOB_A_SPORT_MAX, cfg->sport_max)))
		goto cancel;
	if (cfg->fields & MLTCP_JOB_F_PEER) {
		if (cfg->peer_family == AF_INET ?
		    nla_put_in_addr(skb, MLTCP_JOB_A_PEER_V4, cfg->peer.s6_addr32[0]) :
		    nla_put_in6_addr(skb, MLTCP_JOB_A_PEER_V6, &cfg->peer))
			goto cancel;
		if (nla_put_u8(skb, MLTCP_JOB_A_PEER_PREFIXLEN, cfg->peer_prefixlen))
			goto cancel;
	}
	if ((cfg->fields & MLTCP_JOB_F_MARK) &&
	    (nla_put_u32(skb, MLTCP_JOB_A_MARK, cfg->mark) ||
	     nla_put_u32(skb, MLTCP_JOB_A_MARK_MASK, cfg->mark_mask)))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_SLOPE) &&
	    nla_put_u32(skb, MLTCP_JOB_A_SLOPE, cfg->slope))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_INTERCEPT) &&
	    nla_put_u32(skb, MLTCP_JOB_A_INTERCEPT, cfg->intercept))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_IDLE_GAP) &&
	    nla_put_u32(skb, MLTCP_JOB_A_IDLE_GAP_US, cfg->idle_gap_us))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_ITER_BYTES) &&
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_ITER_BYTES, cfg->iter_bytes, MLTCP_JOB_A_PAD))
		goto cancel;
	if ((cfg->fields & MLTCP_JOB_F_BASE) && nla_put_u8(skb, MLTCP_JOB_A_BASE, cfg->base))
		goto cancel;
	if (cfg->exempt && nla_put_u8(skb, MLTCP_JOB_A_EXEMPT, 1))
		goto cancel;
	if (nla_put_u32(skb, MLTCP_JOB_A_FLOWS, max(atomic_read(&job->flows), 0)) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_FLOWS_TOTAL, atomic64_read(&job->flows_total),
			      MLTCP_JOB_A_PAD) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_ITERATIONS, atomic64_read(&job->iterations),
			      MLTCP_JOB_A_PAD) ||
	    nla_put_u64_64bit(skb, MLTCP_JOB_A_BYTES, atomic64_read(&job->bytes),
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
	struct mltcp_net *pn = mltcp_pernet(genl_info_net(info));
	struct mltcp_job *job;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MLTCP_JOB_A_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&pn->lock);
	job = mltcp_nl_find(pn, info);
	if (!job)
		err = -ENOENT;
	else
		err = mltcp_nl_fill_job(msg, job,
					rcu_dereference_protected(job->cfg,
								  lockdep_is_held(&pn->lock)),
					info->snd_portid, info->snd_seq, 0);
	mutex_unlock(&pn->lock);
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
	struct nlattr **tb = genl_dumpit_info(cb)->attrs;
	struct mltcp_net *pn = mltcp_pernet(sock_net(skb->sk));
	u32 only = tb[MLTCP_JOB_A_ID] ? nla_get_u32(tb[MLTCP_JOB_A_ID]) : 0;
	struct mltcp_job *job;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	mutex_lock(&pn->lock);
	list_for_each_entry(job, &pn->jobs, node) {
		if ((ctx->started && job->id <= ctx->last_id) || (only && job->id != only))
			continue;
		if (mltcp_nl_fill_job(skb, job,
				      rcu_dereference_protected(job->cfg,
								lockdep_is_held(&pn->lock)),
				      NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				      NLM_F_MULTI))
			break;
		ctx->started = true;
		ctx->last_id = job->id;
	}
	mutex_unlock(&pn->lock);
	return skb->len;
}

struct mltcp_flow_dump_ctx {
	struct mltcp_walk pos;
	u32 key;		/* only this job's flows, if nonzero */
};

static int mltcp_nl_flow_start(struct netlink_callback *cb)
{
	struct mltcp_flow_dump_ctx *ctx = (struct mltcp_flow_dump_ctx *)cb->ctx;
	struct nlattr **tb = genl_dumpit_info(cb)->attrs;
	struct mltcp_net *pn = mltcp_pernet(sock_net(cb->skb->sk));
	struct mltcp_job *job;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	memset(ctx, 0, sizeof(*ctx));
	if (!tb[MLTCP_FLOW_A_JOB])
		return 0;
	mutex_lock(&pn->lock);
	job = mltcp_job_find(pn, nla_get_u32(tb[MLTCP_FLOW_A_JOB]));
	if (job) {
		ctx->key = job->key;
	} else {
		NL_SET_ERR_MSG_ATTR(cb->extack, tb[MLTCP_FLOW_A_JOB], "no such job");
		err = -ENOENT;
	}
	mutex_unlock(&pn->lock);
	return err;
}

struct mltcp_flow_fill {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct mltcp_net *pn;
	u32 key;
};

static int mltcp_nl_put_addr(struct sk_buff *skb, int attr, const struct mltcp_flow_info *fi,
			     __be32 v4, const struct in6_addr *v6)
{
	if (fi->family == AF_INET6)
		return nla_put_in6_addr(skb, attr, v6);
	return nla_put_in_addr(skb, attr, v4);
}

static int mltcp_nl_flow_one(struct sock *sk, void *arg)
{
	struct mltcp_flow_fill *f = arg;
	struct sk_buff *skb = f->skb;
	struct mltcp_flow_info fi;
	struct mltcp_job *job;
	u32 job_id = 0;
	u8 exempt = 0;
	void *hdr;

	if (!mltcp_flow_snapshot(sk, &fi) || (f->key && fi.job_key != f->key))
		return 0;
	if (fi.job_key) {
		rcu_read_lock();
		job = xa_load(&f->pn->keys, fi.job_key);
		if (job) {
			job_id = job->id;
			exempt = rcu_dereference(job->cfg)->exempt;
		}
		rcu_read_unlock();
	}

	hdr = genlmsg_put(skb, NETLINK_CB(f->cb->skb).portid, f->cb->nlh->nlmsg_seq,
			  &mltcp_genl_family, NLM_F_MULTI, MLTCP_CMD_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	if ((job_id && nla_put_u32(skb, MLTCP_FLOW_A_JOB, job_id)) ||
	    nla_put_u64_64bit(skb, MLTCP_FLOW_A_COOKIE, fi.cookie, MLTCP_FLOW_A_PAD) ||
	    nla_put_u8(skb, MLTCP_FLOW_A_FAMILY, fi.family) ||
	    mltcp_nl_put_addr(skb, MLTCP_FLOW_A_SADDR, &fi, fi.saddr4, &fi.saddr6) ||
	    mltcp_nl_put_addr(skb, MLTCP_FLOW_A_DADDR, &fi, fi.daddr4, &fi.daddr6) ||
	    nla_put_u16(skb, MLTCP_FLOW_A_SPORT, fi.sport) ||
	    nla_put_u16(skb, MLTCP_FLOW_A_DPORT, fi.dport) ||
	    nla_put_string(skb, MLTCP_FLOW_A_CA, fi.ca) ||
	    nla_put_u8(skb, MLTCP_FLOW_A_BASE, fi.params.base) ||
	    nla_put_u8(skb, MLTCP_FLOW_A_MODE, fi.params.mode) ||
	    nla_put_u8(skb, MLTCP_FLOW_A_EXEMPT, exempt) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_CWND, fi.cwnd) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_SSTHRESH, fi.ssthresh) ||
	    nla_put_u64_64bit(skb, MLTCP_FLOW_A_BYTES_THIS_ITER, fi.bytes_this_iter,
			      MLTCP_FLOW_A_PAD) ||
	    nla_put_u64_64bit(skb, MLTCP_FLOW_A_ITER_BYTES, fi.iter_bytes, MLTCP_FLOW_A_PAD) ||
	    nla_put_u8(skb, MLTCP_FLOW_A_ITER_FIXED, fi.iter_fixed) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_R, fi.r) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_F, fi.f) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_ITERATIONS, fi.iterations) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_LAST_ITER_US, fi.last_iter_us) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_SLOPE, fi.params.slope) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_INTERCEPT, fi.params.intercept) ||
	    nla_put_u32(skb, MLTCP_FLOW_A_IDLE_GAP_US, fi.params.idle_gap_us)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int mltcp_nl_flow_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mltcp_flow_dump_ctx *ctx = (struct mltcp_flow_dump_ctx *)cb->ctx;
	struct net *net = sock_net(skb->sk);
	struct mltcp_flow_fill f = {
		.skb = skb,
		.cb = cb,
		.pn = mltcp_pernet(net),
		.key = ctx->key,
	};
	int err;

	err = mltcp_walk_flows(net, &ctx->pos, mltcp_nl_flow_one, &f);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;	/* full: the next call resumes at this flow */
	return err ? err : skb->len;
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
		     (int)MLTCP_GENL_MODE_BOTH_RESTART != (int)MLTCP_MODE_ALL);
	BUILD_BUG_ON(MLTCP_GENL_FIXED_SHIFT != MLTCP_SHIFT ||
		     MLTCP_GENL_SLOPE_MAX != MLTCP_SLOPE_MAX ||
		     MLTCP_GENL_INTERCEPT_MAX != MLTCP_INTERCEPT_MAX ||
		     MLTCP_GENL_IDLE_GAP_MIN != MLTCP_IDLE_GAP_MIN_US ||
		     MLTCP_GENL_IDLE_GAP_MAX != MLTCP_IDLE_GAP_MAX_US);
	return genl_register_family(&mltcp_genl_family);
}

void mltcp_genl_exit(void)
{
	genl_unregister_family(&mltcp_genl_family);
}
