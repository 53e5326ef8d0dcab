// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MLTCP policy: jobs, matching, latching, flow records and the text forms of
 * the tunables, once for the module, the BPF twin, the tests and mltcpctl.
 * See mltcp_policy.h for what each piece is for.
 *
 * Matching runs when a flow selects MLTCP (and, in the module, when its job
 * changes), never per ACK. Latching writes the flow's parameters once; the
 * per-ACK path reads only struct mltcp_params, as before.
 */
#include "mltcp_policy.h"

/* Jobs: validating and applying a request */

static bool mltcp_prefix_valid(u8 family, u8 prefixlen)
{
	if (family == MLTCP_AF_INET)
		return prefixlen <= 32;
	return prefixlen <= 128;
}

/*
 * A word of a network-order address whose first `bits` bits are kept: the
 * host-order mask stored byte by byte, most significant first, so that it
 * is right on either byte order (a byte swap or nothing, once compiled).
 */
static u32 mltcp_prefix_mask(int bits)
{
	union {
		u8 bytes[4];
		u32 word;
	} mask;
	u32 host;

	if (bits <= 0)
		return 0;
	host = bits >= 32 ? 0xffffffffU : 0xffffffffU << (32 - bits);
	mask.bytes[0] = (u8)(host >> 24);
	mask.bytes[1] = (u8)(host >> 16);
	mask.bytes[2] = (u8)(host >> 8);
	mask.bytes[3] = (u8)host;
	return mask.word;
}

static void mltcp_mask_peer(u32 peer[4], u8 prefixlen)
{
	int w;

	for (w = 0; w < 4; w++)
		peer[w] &= mltcp_prefix_mask((int)prefixlen - 32 * w);
}

static enum mltcp_job_error mltcp_job_check(const struct mltcp_job_request *req)
{
	const struct mltcp_job_spec *v = &req->values;

	if (!v->id)
		return MLTCP_JOB_E_ID;
	if (req->clear & ~(u32)MLTCP_JOB_F_ALL)
		return MLTCP_JOB_E_CLEAR_UNKNOWN;
	if (req->clear & req->given)
		return MLTCP_JOB_E_CLEAR_AND_SET;
	if ((req->given & MLTCP_JOB_F_DPORT) && v->dport_min > v->dport_max)
		return MLTCP_JOB_E_DPORT;
	if ((req->given & MLTCP_JOB_F_SPORT) && v->sport_min > v->sport_max)
		return MLTCP_JOB_E_SPORT;
	if (req->given & MLTCP_JOB_F_PEER) {
		if (v->peer_family != MLTCP_AF_INET && v->peer_family != MLTCP_AF_INET6)
			return MLTCP_JOB_E_PEER_FAMILY;
		if (!mltcp_prefix_valid(v->peer_family, v->peer_prefixlen))
			return MLTCP_JOB_E_PEER_PREFIXLEN;
	}
	if ((req->given & MLTCP_JOB_F_SLOPE) && v->slope > MLTCP_SLOPE_MAX)
		return MLTCP_JOB_E_SLOPE;
	if ((req->given & MLTCP_JOB_F_INTERCEPT) && v->intercept > MLTCP_INTERCEPT_MAX)
		return MLTCP_JOB_E_INTERCEPT;
	if ((req->given & MLTCP_JOB_F_IDLE_GAP) &&
	    (v->idle_gap_us < MLTCP_IDLE_GAP_MIN_US || v->idle_gap_us > MLTCP_IDLE_GAP_MAX_US))
		return MLTCP_JOB_E_IDLE_GAP;
	if ((req->given & MLTCP_JOB_F_ITER_BYTES) &&
	    (!v->iter_bytes || v->iter_bytes > MLTCP_ITER_BYTES_MAX))
		return MLTCP_JOB_E_ITER_BYTES;
	if ((req->given & MLTCP_JOB_F_BASE) && v->base > MLTCP_BASE_CUBIC)
		return MLTCP_JOB_E_BASE;
	if ((req->given & MLTCP_JOB_F_CGROUP) && !v->cgroup_id)
		return MLTCP_JOB_E_CGROUP;
	return MLTCP_JOB_OK;
}

/*
 * Mean F at most 1 over an iteration that runs to the end of the overhang,
 * where F is still F(1): over 1 + 2^-k of the size (k the tolerance shift),
 * (slope / 2 + intercept + 2^-k (slope + intercept)) / (1 + 2^-k) <= 1, that
 * is (2^(k-1) + 1) slope + (2^k + 1) intercept <= (2^k + 1), exact in
 * MLTCP_ONE units. A longer iteration only adds F = 1, a shorter one drops
 * the top of a rising line. Or nowhere above *host, whose flows have the
 * same overhang.
 */
static bool mltcp_line_within(u32 slope, u32 intercept, const struct mltcp_line *host)
{
	const u32 over = 1U << MLTCP_LEARN_TOL_SHIFT;

	if ((over / 2 + 1) * slope + (over + 1) * intercept <= (over + 1) * MLTCP_ONE)
		return true;
	return intercept <= host->intercept && slope + intercept <= host->slope + host->intercept;
}

enum mltcp_job_error mltcp_f_line_check(u32 slope, u32 intercept, const struct mltcp_line *bound)
{
	if (slope > MLTCP_SLOPE_MAX)
		return MLTCP_JOB_E_SLOPE;
	if (intercept > MLTCP_INTERCEPT_MAX)
		return MLTCP_JOB_E_INTERCEPT;
	if (!slope && !intercept)
		return MLTCP_JOB_E_F_ZERO;
	/* Both in range: no sum below overflows. */
	if (bound && !mltcp_line_within(slope, intercept, bound))
		return MLTCP_JOB_E_BOUND;
	return MLTCP_JOB_OK;
}

enum mltcp_job_error mltcp_job_check_over(const struct mltcp_job_spec *job,
					  const struct mltcp_params *defaults,
					  const struct mltcp_line *bound)
{
	u32 line = job->fields & (MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT);

	if (!line || job->exempt)
		return MLTCP_JOB_OK;
	return mltcp_f_line_check(line & MLTCP_JOB_F_SLOPE ? job->slope : defaults->slope,
				  line & MLTCP_JOB_F_INTERCEPT ? job->intercept :
								  defaults->intercept,
				  bound);
}

enum mltcp_job_error mltcp_job_apply(struct mltcp_job_spec *spec,
				     const struct mltcp_job_request *req)
{
	const struct mltcp_job_spec *v = &req->values;
	enum mltcp_job_error err = mltcp_job_check(req);
	/* Built apart: *spec changes only if the result is valid as a whole. */
	struct mltcp_job_spec next = *spec;
	u32 given = req->given;

	if (err)
		return err;
	next.id = v->id;
	if (given & MLTCP_JOB_F_DPORT) {
		next.dport_min = v->dport_min;
		next.dport_max = v->dport_max;
	}
	if (given & MLTCP_JOB_F_SPORT) {
		next.sport_min = v->sport_min;
		next.sport_max = v->sport_max;
	}
	if (given & MLTCP_JOB_F_PEER) {
		int w;

		next.peer_family = v->peer_family;
		next.peer_prefixlen = v->peer_prefixlen;
		for (w = 0; w < 4; w++)
			next.peer[w] = v->peer_family == MLTCP_AF_INET && w ? 0 : v->peer[w];
		mltcp_mask_peer(next.peer, v->peer_prefixlen);
	}
	if (given & MLTCP_JOB_F_MARK) {
		next.mark_mask = v->mark_mask;
		next.mark = v->mark & v->mark_mask;
	}
	if (given & MLTCP_JOB_F_CGROUP)
		next.cgroup_id = v->cgroup_id;
	if (given & MLTCP_JOB_F_SLOPE)
		next.slope = v->slope;
	if (given & MLTCP_JOB_F_INTERCEPT)
		next.intercept = v->intercept;
	if (given & MLTCP_JOB_F_IDLE_GAP)
		next.idle_gap_us = v->idle_gap_us;
	if (given & MLTCP_JOB_F_ITER_BYTES)
		next.iter_bytes = v->iter_bytes;
	if (given & MLTCP_JOB_F_BASE)
		next.base = v->base;
	if (given & MLTCP_JOB_F_EXEMPT)
		next.exempt = v->exempt ? 1 : 0;
	if (given & MLTCP_JOB_F_MARKED)
		next.marked = v->marked ? 1 : 0;
	if (req->clear & MLTCP_JOB_F_MARKED)
		next.marked = 0;
	if (req->clear & MLTCP_JOB_F_EXEMPT)
		next.exempt = 0;

	next.fields = (next.fields & ~req->clear) | given;
	/* "exempt 0" and "marked 0" are the same as no setting. */
	if (!next.exempt)
		next.fields &= ~(u32)MLTCP_JOB_F_EXEMPT;
	if (!next.marked)
		next.fields &= ~(u32)MLTCP_JOB_F_MARKED;
	if ((next.fields & MLTCP_JOB_F_SLOPE) && (next.fields & MLTCP_JOB_F_INTERCEPT)) {
		err = mltcp_f_line_check(next.slope, next.intercept, NULL);
		if (err)
			return err;
	}
	*spec = next;
	return MLTCP_JOB_OK;
}

u32 mltcp_job_error_field(enum mltcp_job_error err)
{
	switch (err) {
	case MLTCP_JOB_E_DPORT:
		return MLTCP_JOB_F_DPORT;
	case MLTCP_JOB_E_SPORT:
		return MLTCP_JOB_F_SPORT;
	case MLTCP_JOB_E_PEER_FAMILY:
	case MLTCP_JOB_E_PEER_PREFIXLEN:
		return MLTCP_JOB_F_PEER;
	case MLTCP_JOB_E_SLOPE:
		return MLTCP_JOB_F_SLOPE;
	case MLTCP_JOB_E_INTERCEPT:
		return MLTCP_JOB_F_INTERCEPT;
	case MLTCP_JOB_E_IDLE_GAP:
		return MLTCP_JOB_F_IDLE_GAP;
	case MLTCP_JOB_E_ITER_BYTES:
		return MLTCP_JOB_F_ITER_BYTES;
	case MLTCP_JOB_E_BASE:
		return MLTCP_JOB_F_BASE;
	case MLTCP_JOB_E_CGROUP:
		return MLTCP_JOB_F_CGROUP;
	case MLTCP_JOB_E_F_ZERO:
	case MLTCP_JOB_E_BOUND:
		return MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT;
	default:
		return 0;
	}
}

/* Matching */

static bool mltcp_peer_matches(const struct mltcp_job_spec *job,
			       const struct mltcp_flow_key *key)
{
	int w;

	/* An IPv4 prefix never matches an IPv6 peer, nor the reverse. */
	if (key->v4)
		return job->peer_family == MLTCP_AF_INET &&
		       (key->daddr[0] & mltcp_prefix_mask(job->peer_prefixlen)) == job->peer[0];
	if (job->peer_family != MLTCP_AF_INET6)
		return false;
	for (w = 0; w < 4; w++) {
		if ((key->daddr[w] & mltcp_prefix_mask((int)job->peer_prefixlen - 32 * w)) !=
		    job->peer[w])
			return false;
	}
	return true;
}

/* The flow's cgroup is the job's or below it. */
static bool mltcp_cgroup_matches(const struct mltcp_job_spec *job,
				 const struct mltcp_flow_key *key)
{
	int level;

	for (level = 0; level < MLTCP_CGROUP_LEVELS && level < key->cgroup_levels; level++) {
		if (key->cgroup_ids[level] == job->cgroup_id)
			return true;
	}
	return false;
}

bool mltcp_job_mark(u32 *count, u32 *last_step, u32 step)
{
	if (step && step == *last_step)
		return false;
	*last_step = step;
	(*count)++;
	return true;
}

#ifndef __bpf__
/* Not in the BPF twin, whose marks are made by its maps' owner (root). */
bool mltcp_job_cgroup_matches(const struct mltcp_job_spec *job, const struct mltcp_flow_key *key)
{
	return (job->fields & MLTCP_JOB_F_CGROUP) && mltcp_cgroup_matches(job, key);
}
#endif

bool mltcp_job_matches(const struct mltcp_job_spec *job, const struct mltcp_flow_key *key)
{
	if ((job->fields & MLTCP_JOB_F_DPORT) &&
	    (key->dport < job->dport_min || key->dport > job->dport_max))
		return false;
	if ((job->fields & MLTCP_JOB_F_SPORT) &&
	    (key->sport < job->sport_min || key->sport > job->sport_max))
		return false;
	if ((job->fields & MLTCP_JOB_F_MARK) && (key->mark & job->mark_mask) != job->mark)
		return false;
	if ((job->fields & MLTCP_JOB_F_PEER) && !mltcp_peer_matches(job, key))
		return false;
	if ((job->fields & MLTCP_JOB_F_CGROUP) && !mltcp_cgroup_matches(job, key))
		return false;
	return true;
}

/* Latching */

void mltcp_flow_init(struct mltcp_flow *fl, u64 bytes_acked, u32 now_us)
{
	mltcp_iter_init(&fl->iter, bytes_acked, now_us);
	mltcp_cubic_init(&fl->cubic);
	fl->params.mode = 0;	/* not latched yet: the defaults' mode applies */
	fl->job = 0;
}

/* The settings the job overrides; false if they leave the valid range. */
static bool mltcp_job_settings(struct mltcp_params *p, u64 *fixed_bytes,
			       const struct mltcp_job_spec *job)
{
	struct mltcp_params q = *p;

	if (job->fields & MLTCP_JOB_F_SLOPE)
		q.slope = (u16)job->slope;
	if (job->fields & MLTCP_JOB_F_INTERCEPT)
		q.intercept = (u16)job->intercept;
	if (job->fields & MLTCP_JOB_F_IDLE_GAP)
		q.idle_gap_us = job->idle_gap_us;
	if (job->fields & MLTCP_JOB_F_BASE)
		q.base = job->base;
	if (job->exempt) {
		q.slope = 0;
		q.intercept = MLTCP_ONE;
		q.exempt = 1;
	}
	q.marked = job->marked;
	/* Checked before narrowing: 65536 + x must not pass as x. */
	if (job->slope > MLTCP_SLOPE_MAX || job->intercept > MLTCP_INTERCEPT_MAX ||
	    !mltcp_params_valid(&q) ||
	    ((job->fields & MLTCP_JOB_F_ITER_BYTES) && job->iter_bytes > MLTCP_ITER_BYTES_MAX))
		return false;
	*p = q;
	*fixed_bytes = job->fields & MLTCP_JOB_F_ITER_BYTES ? job->iter_bytes : 0;
	return true;
}

u32 mltcp_job_changed(const struct mltcp_job_request *req)
{
	return (req->given | req->clear) & MLTCP_JOB_F_SETTINGS;
}

/* A line beyond the bound is the base algorithm's: F is 1 (slope 0, intercept 1). */
static void mltcp_params_bound(struct mltcp_params *p, const struct mltcp_line *bound)
{
	if (mltcp_f_line_check(p->slope, p->intercept, bound) == MLTCP_JOB_OK)
		return;
	p->slope = 0;
	p->intercept = MLTCP_ONE;
}

bool mltcp_flow_beyond(const struct mltcp_flow *fl, const struct mltcp_line *bound)
{
	return fl->params.mode && bound &&
	       mltcp_f_line_check(fl->params.slope, fl->params.intercept, bound) != MLTCP_JOB_OK;
}

/* A live flow keeps what a change of its job does not name, and its mode. */
static void mltcp_keep_unchanged(struct mltcp_params *p, const struct mltcp_params *live,
				 u32 changed)
{
	p->mode = live->mode;
	if (!(changed & MLTCP_JOB_F_LINE)) {
		p->slope = live->slope;
		p->intercept = live->intercept;
		p->exempt = live->exempt;
	}
	if (!(changed & MLTCP_JOB_F_IDLE_GAP))
		p->idle_gap_us = live->idle_gap_us;
	if (!(changed & MLTCP_JOB_F_BASE))
		p->base = live->base;
	if (!(changed & MLTCP_JOB_F_MARKED))
		p->marked = live->marked;
}

bool mltcp_flow_relatch(struct mltcp_flow *fl, const struct mltcp_params *defaults,
			const struct mltcp_job_spec *job, u32 changed, int fixed_base,
			const struct mltcp_line *bound)
{
	struct mltcp_params p = *defaults;
	bool live = fl->params.mode;
	bool job_ok = true;
	u64 fixed_bytes = 0;

	p.exempt = 0;
	p.marked = 0;	/* a job's setting only */
	if (job)
		job_ok = mltcp_job_settings(&p, &fixed_bytes, job);
	if (live)
		mltcp_keep_unchanged(&p, &fl->params, changed);
	if (fixed_base != MLTCP_BASE_SELECTABLE)
		p.base = (u8)fixed_base;
	mltcp_params_bound(&p, bound);
	/* A live flow that changes base starts the new one from a clean state. */
	if (live && p.base != fl->params.base)
		mltcp_cubic_init(&fl->cubic);
	/*
	 * Marking turned on or off: the byte that counted marks counts agreeing
	 * sizes and back (the datapath then reads the job's marks); from 0.
	 */
	if (live && p.marked != fl->params.marked)
		fl->iter.agreed = 0;
	fl->params = p;

	if (live && !(changed & MLTCP_JOB_F_ITER_BYTES))
		return job_ok;
	if (fixed_bytes) {
		if (!(fl->iter.flags & MLTCP_ITER_FIXED) || fl->iter.bytes != fixed_bytes)
			mltcp_iter_set_fixed(&fl->iter, fixed_bytes);
	} else if (fl->iter.flags & MLTCP_ITER_FIXED) {
		mltcp_iter_set_fixed(&fl->iter, 0);
	}
	return job_ok;
}

bool mltcp_flow_latch(struct mltcp_flow *fl, const struct mltcp_params *defaults,
		      const struct mltcp_job_spec *job, int fixed_base,
		      const struct mltcp_line *bound)
{
	return mltcp_flow_relatch(fl, defaults, job, MLTCP_JOB_F_SETTINGS, fixed_base, bound);
}

/* Records */

void mltcp_flow_fill_record(struct mltcp_flow_record *rec, const struct mltcp_flow *fl,
			    u64 bytes_acked)
{
	rec->bytes_this_iter = bytes_acked - fl->iter.start_acked;
	rec->iter_bytes = fl->iter.bytes;
	rec->iter_fixed = fl->iter.flags & MLTCP_ITER_FIXED ? 1 : 0;
	rec->iter_trusted = mltcp_iter_trusted(&fl->iter, &fl->params) ? 1 : 0;
	rec->prio_held = mltcp_prio_held(&fl->iter, &fl->params) ? 1 : 0;
	rec->r = mltcp_ratio(&fl->iter, bytes_acked);
	rec->f = mltcp_f(&fl->iter, &fl->params, bytes_acked);
	rec->iterations = fl->iter.count;
	rec->last_iter_us = fl->iter.last_duration_us;
	rec->job = fl->job;
	rec->base = fl->params.base;
	rec->mode = fl->params.mode;
	rec->slope = fl->params.slope;
	rec->intercept = fl->params.intercept;
	rec->idle_gap_us = fl->params.idle_gap_us;
}

#ifdef MLTCP_POLICY_TEXT

/* Text forms of the tunables */

static const char *const mltcp_param_names[MLTCP_NR_PARAMS] = {
	[MLTCP_PARAM_SLOPE] = "slope",
	[MLTCP_PARAM_INTERCEPT] = "intercept",
	[MLTCP_PARAM_IDLE_GAP] = "idle_gap_us",
	[MLTCP_PARAM_BASE] = "base",
	[MLTCP_PARAM_MODE] = "mode",
};

static const char *const mltcp_base_names[] = {
	[MLTCP_BASE_RENO] = "reno",
	[MLTCP_BASE_CUBIC] = "cubic",
};

/*
 * Indexed by the mode bits: AI, MD and RESTART combine, and GATE with
 * RESTART ("gate" is restart and the gate). NULL: not a mode
 * (mltcp_mode_valid()).
 */
static const char *const mltcp_mode_names[MLTCP_MODE_ALL + 1] = {
	[MLTCP_MODE_AI] = "ai",
	[MLTCP_MODE_MD] = "md",
	[MLTCP_MODE_BOTH] = "both",
	[MLTCP_MODE_RESTART] = "restart",
	[MLTCP_MODE_AI | MLTCP_MODE_RESTART] = "ai-restart",
	[MLTCP_MODE_MD | MLTCP_MODE_RESTART] = "md-restart",
	[MLTCP_MODE_BOTH | MLTCP_MODE_RESTART] = "both-restart",
	[MLTCP_MODE_RESTART | MLTCP_MODE_GATE] = "gate",
	[MLTCP_MODE_AI | MLTCP_MODE_RESTART | MLTCP_MODE_GATE] = "ai-gate",
	[MLTCP_MODE_MD | MLTCP_MODE_RESTART | MLTCP_MODE_GATE] = "md-gate",
	[MLTCP_MODE_ALL] = "both-gate",
};

static const char *const mltcp_verdict_names[MLTCP_TX_NR_VERDICTS] = {
	[MLTCP_TX_NEW_ITERATION] = "iterations",
	[MLTCP_TX_IN_RECOVERY] = "tx_start_in_recovery",
	[MLTCP_TX_OUTSTANDING] = "tx_start_data_outstanding",
	[MLTCP_TX_NOT_IDLE] = "tx_start_not_idle",
	[MLTCP_TX_SHORT_GAP] = "tx_start_short_gap",
	[MLTCP_TX_FRAGMENT] = "tx_start_fragment",
	[MLTCP_TX_UNMARKED] = "tx_start_unmarked",
};

/* Per start held (HOLD) and per hold ended; the module's debugfs and the BPF stats. */
static const char *const mltcp_gate_names[MLTCP_GATE_NR_VERDICTS] = {
	[MLTCP_GATE_HOLD] = "gate_held",
	[MLTCP_GATE_OPEN] = "gate_opened",
	[MLTCP_GATE_RAN_OUT] = "gate_ran_out",
	[MLTCP_GATE_REDUCED] = "gate_reduced",
};

/* Per hold begun (held) and per hold ended; the module's debugfs and the BPF stats. */
static const char *const mltcp_prio_hold_names[MLTCP_PRIO_HOLD_NR_EVENTS] = {
	[MLTCP_PRIO_HOLD_BEGAN] = "prio_held",
	[MLTCP_PRIO_HOLD_RELEASED] = "prio_released",
	[MLTCP_PRIO_HOLD_REDUCED] = "prio_reduced",
};

#define MLTCP_NAMES(table)	(sizeof(table) / sizeof((table)[0]))

_Static_assert(MLTCP_STATS_A_ITERATIONS + MLTCP_TX_NEW_ITERATION == MLTCP_STATS_A_ITERATIONS &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_IN_RECOVERY == MLTCP_STATS_A_TX_IN_RECOVERY &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_OUTSTANDING == MLTCP_STATS_A_TX_OUTSTANDING &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_NOT_IDLE == MLTCP_STATS_A_TX_NOT_IDLE &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_SHORT_GAP == MLTCP_STATS_A_TX_SHORT_GAP &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_FRAGMENT == MLTCP_STATS_A_TX_FRAGMENT &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_UNMARKED == MLTCP_STATS_A_TX_UNMARKED &&
	       MLTCP_STATS_A_ITERATIONS + MLTCP_TX_NR_VERDICTS == MLTCP_STATS_A_GATE_HELD,
	       "one stats attribute per detector verdict, in the verdicts' order");
_Static_assert(MLTCP_STATS_A_GATE_HELD + MLTCP_GATE_HOLD == MLTCP_STATS_A_GATE_HELD &&
	       MLTCP_STATS_A_GATE_HELD + MLTCP_GATE_OPEN == MLTCP_STATS_A_GATE_OPENED &&
	       MLTCP_STATS_A_GATE_HELD + MLTCP_GATE_RAN_OUT == MLTCP_STATS_A_GATE_RAN_OUT &&
	       MLTCP_STATS_A_GATE_HELD + MLTCP_GATE_REDUCED == MLTCP_STATS_A_GATE_REDUCED &&
	       MLTCP_STATS_A_GATE_HELD + MLTCP_GATE_NR_VERDICTS == MLTCP_STATS_A_PRIO_HELD,
	       "one stats attribute per gate verdict, in the gate's order");
_Static_assert(MLTCP_STATS_A_PRIO_HELD + MLTCP_PRIO_HOLD_BEGAN == MLTCP_STATS_A_PRIO_HELD &&
	       MLTCP_STATS_A_PRIO_HELD + MLTCP_PRIO_HOLD_RELEASED == MLTCP_STATS_A_PRIO_RELEASED &&
	       MLTCP_STATS_A_PRIO_HELD + MLTCP_PRIO_HOLD_REDUCED == MLTCP_STATS_A_PRIO_REDUCED &&
	       MLTCP_STATS_A_PRIO_HELD + MLTCP_PRIO_HOLD_NR_EVENTS == __MLTCP_STATS_A_MAX,
	       "one stats attribute per held move up's event, in their order, last");

const char *mltcp_prio_hold_name(enum mltcp_prio_hold event)
{
	return (u32)event < MLTCP_PRIO_HOLD_NR_EVENTS ? mltcp_prio_hold_names[event] : NULL;
}

const char *mltcp_gate_verdict_name(enum mltcp_gate_verdict verdict)
{
	return (u32)verdict < MLTCP_GATE_NR_VERDICTS ? mltcp_gate_names[verdict] : NULL;
}

const char *mltcp_verdict_name(enum mltcp_tx_verdict verdict)
{
	return (u32)verdict < MLTCP_TX_NR_VERDICTS ? mltcp_verdict_names[verdict] : NULL;
}

const char *mltcp_param_name(enum mltcp_param which)
{
	return (u32)which < MLTCP_NR_PARAMS ? mltcp_param_names[which] : NULL;
}

const char *mltcp_base_name(u32 base)
{
	return base < MLTCP_NAMES(mltcp_base_names) ? mltcp_base_names[base] : NULL;
}

const char *mltcp_mode_name(u32 mode)
{
	return mode < MLTCP_NAMES(mltcp_mode_names) ? mltcp_mode_names[mode] : NULL;
}

/* text equals word, optionally followed by one newline. */
static bool mltcp_text_is(const char *text, const char *word)
{
	while (*word && *text == *word) {
		text++;
		word++;
	}
	if (*word)
		return false;
	if (*text == '\n')
		text++;
	return !*text;
}

int mltcp_base_parse(const char *text)
{
	u32 base;

	for (base = MLTCP_BASE_RENO; base <= MLTCP_BASE_CUBIC; base++)
		if (mltcp_text_is(text, mltcp_base_name(base)))
			return (int)base;
	return -1;
}

int mltcp_mode_parse(const char *text)
{
	u32 mode;

	for (mode = MLTCP_MODE_AI; mode <= MLTCP_MODE_ALL; mode++)
		if (mltcp_mode_valid(mode) && mltcp_text_is(text, mltcp_mode_name(mode)))
			return (int)mode;
	return -1;
}

/* A decimal integer within [min, max], one trailing newline allowed. */
static int mltcp_parse_u32(const char *text, u32 min, u32 max, u32 *value)
{
	u64 v = 0;

	if (*text < '0' || *text > '9')
		return -1;
	for (; *text >= '0' && *text <= '9'; text++) {
		v = v * 10 + (u64)(*text - '0');
		if (v > max)
			return -1;
	}
	if (*text == '\n')
		text++;
	if (*text || v < min)
		return -1;
	*value = (u32)v;
	return 0;
}

int mltcp_param_parse(enum mltcp_param which, const char *text, u32 *value)
{
	int named;

	switch (which) {
	case MLTCP_PARAM_SLOPE:
		return mltcp_parse_fixed(text, MLTCP_SLOPE_MAX, value);
	case MLTCP_PARAM_INTERCEPT:
		return mltcp_parse_fixed(text, MLTCP_INTERCEPT_MAX, value);
	case MLTCP_PARAM_IDLE_GAP:
		return mltcp_parse_u32(text, MLTCP_IDLE_GAP_MIN_US, MLTCP_IDLE_GAP_MAX_US, value);
	case MLTCP_PARAM_BASE:
		named = mltcp_base_parse(text);
		break;
	case MLTCP_PARAM_MODE:
		named = mltcp_mode_parse(text);
		break;
	default:
		return -1;
	}
	if (named < 0)
		return -1;
	*value = (u32)named;
	return 0;
}

/* Appends text to buf at *pos if it fits with its NUL; false otherwise. */
static bool mltcp_put(char *buf, u32 len, u32 *pos, const char *text)
{
	u32 n = 0;

	while (text[n])
		n++;
	if (*pos + n >= len)
		return false;
	while (*text)
		buf[(*pos)++] = *text++;
	buf[*pos] = '\0';
	return true;
}

/* Decimal digits of v, at least min_digits of them (zero-padded). */
static bool mltcp_put_u32(char *buf, u32 len, u32 *pos, u32 v, int min_digits)
{
	char digits[11];
	int n = 10;

	digits[n] = '\0';
	do {
		digits[--n] = (char)('0' + v % 10);
		v /= 10;
		min_digits--;
	} while (v || min_digits > 0);
	return mltcp_put(buf, len, pos, &digits[n]);
}

static int mltcp_format_end(char *buf, u32 len, u32 pos, bool ok)
{
	if (ok)
		return (int)pos;
	if (len)
		buf[0] = '\0';
	return -1;
}

int mltcp_format_fixed(u32 fixed, char *buf, u32 len)
{
	u32 milli = mltcp_fixed_to_milli(fixed), pos = 0;
	bool ok = len > 0;

	if (ok)
		buf[0] = '\0';
	ok = ok && mltcp_put_u32(buf, len, &pos, milli / 1000, 1) &&
	     mltcp_put(buf, len, &pos, ".") && mltcp_put_u32(buf, len, &pos, milli % 1000, 3);
	return mltcp_format_end(buf, len, pos, ok);
}

/* fixed to the nearest 1/scale, and back to the nearest fixed as mltcp_parse_fixed() reads it. */
static u32 mltcp_fixed_to_decimal(u32 fixed, u32 scale)
{
	return (u32)(((u64)fixed * scale + MLTCP_ONE / 2) >> MLTCP_SHIFT);
}

static u32 mltcp_decimal_to_fixed(u32 decimal, u32 scale)
{
	return (u32)mltcp_div64((u64)decimal * MLTCP_ONE + scale / 2, scale);
}

/*
 * Thousandths step finer than 1/1024 only on average: 24 values in each
 * unit share their nearest thousandth with a neighbour ("0.063" reads back
 * as 65/1024, not 64/1024). Those print in ten-thousandths, whose half-step
 * is a tenth of 1/1024, so every setting reads back as itself.
 */
#define MLTCP_SETTING_MILLI	1000
#define MLTCP_SETTING_FINE	10000

int mltcp_format_setting(u32 fixed, char *buf, u32 len)
{
	u32 scale = MLTCP_SETTING_MILLI, decimal, pos = 0;
	int digits = 3;
	bool ok = len > 0;

	if (ok)
		buf[0] = '\0';
	if (fixed > MLTCP_SLOPE_MAX)
		return mltcp_format_end(buf, len, 0, false);
	decimal = mltcp_fixed_to_decimal(fixed, scale);
	if (mltcp_decimal_to_fixed(decimal, scale) != fixed) {
		scale = MLTCP_SETTING_FINE;
		digits = 4;
		decimal = mltcp_fixed_to_decimal(fixed, scale);
	}
	ok = ok && mltcp_put_u32(buf, len, &pos, decimal / scale, 1) &&
	     mltcp_put(buf, len, &pos, ".") && mltcp_put_u32(buf, len, &pos, decimal % scale, digits);
	return mltcp_format_end(buf, len, pos, ok);
}

int mltcp_prio_dscp_parse(const char *text, struct mltcp_prio_config *pc)
{
	u8 codes[MLTCP_PRIO_CLASSES_MAX];
	int n = 0, c;

	for (;;) {
		u32 v = 0, digits = 0;

		for (; *text >= '0' && *text <= '9'; text++, digits++) {
			v = v * 10 + (u32)(*text - '0');
			if (v > MLTCP_DSCP_MAX)
				return -1;
		}
		if (!digits || n == MLTCP_PRIO_CLASSES_MAX)
			return -1;
		codes[n++] = (u8)v;
		if (*text == '\n')
			text++;
		if (!*text)
			break;
		if (*text != ' ' && *text != ',')
			return -1;
		text++;
	}
	for (c = 0; c < n; c++)
		pc->dscp[c] = codes[c];
	return n;
}

int mltcp_prio_dscp_format(const struct mltcp_prio_config *pc, char *buf, u32 len)
{
	u32 pos = 0, c;
	bool ok = len > 0;

	if (ok)
		buf[0] = '\0';
	for (c = 0; ok && c < MLTCP_PRIO_CLASSES_MAX; c++)
		ok = (!c || mltcp_put(buf, len, &pos, " ")) &&
		     mltcp_put_u32(buf, len, &pos, pc->dscp[c], 1);
	return mltcp_format_end(buf, len, pos, ok);
}

int mltcp_param_format(enum mltcp_param which, u32 value, char *buf, u32 len)
{
	const char *name = NULL;
	u32 pos = 0;
	bool ok = len > 0;

	if (ok)
		buf[0] = '\0';
	switch (which) {
	case MLTCP_PARAM_SLOPE:
		if (value > MLTCP_SLOPE_MAX)
			return mltcp_format_end(buf, len, 0, false);
		return mltcp_format_setting(value, buf, len);
	case MLTCP_PARAM_INTERCEPT:
		if (value > MLTCP_INTERCEPT_MAX)
			return mltcp_format_end(buf, len, 0, false);
		return mltcp_format_setting(value, buf, len);
	case MLTCP_PARAM_IDLE_GAP:
		ok = ok && mltcp_put_u32(buf, len, &pos, value, 1);
		return mltcp_format_end(buf, len, pos, ok);
	case MLTCP_PARAM_BASE:
		name = mltcp_base_name(value);
		break;
	case MLTCP_PARAM_MODE:
		name = mltcp_mode_name(value);
		break;
	default:
		break;
	}
	ok = ok && name && mltcp_put(buf, len, &pos, name);
	return mltcp_format_end(buf, len, pos, ok);
}

u32 mltcp_param_get(const struct mltcp_params *p, enum mltcp_param which)
{
	switch (which) {
	case MLTCP_PARAM_SLOPE:
		return p->slope;
	case MLTCP_PARAM_INTERCEPT:
		return p->intercept;
	case MLTCP_PARAM_IDLE_GAP:
		return p->idle_gap_us;
	case MLTCP_PARAM_BASE:
		return p->base;
	case MLTCP_PARAM_MODE:
		return p->mode;
	default:
		return 0;
	}
}

void mltcp_param_set(struct mltcp_params *p, enum mltcp_param which, u32 value)
{
	switch (which) {
	case MLTCP_PARAM_SLOPE:
		p->slope = (u16)value;
		break;
	case MLTCP_PARAM_INTERCEPT:
		p->intercept = (u16)value;
		break;
	case MLTCP_PARAM_IDLE_GAP:
		p->idle_gap_us = value;
		break;
	case MLTCP_PARAM_BASE:
		p->base = (u8)value;
		break;
	case MLTCP_PARAM_MODE:
		p->mode = (u8)value;
		break;
	default:
		break;
	}
}

const char *mltcp_job_strerror(enum mltcp_job_error err)
{
	switch (err) {
	case MLTCP_JOB_OK:
		return "ok";
	case MLTCP_JOB_E_ID:
		return "invalid job ID: 0";
	case MLTCP_JOB_E_CLEAR_UNKNOWN:
		return "invalid reset fields";
	case MLTCP_JOB_E_CLEAR_AND_SET:
		return "a field is both cleared and set";
	case MLTCP_JOB_E_DPORT:
		return "invalid dport: maximum below its minimum";
	case MLTCP_JOB_E_SPORT:
		return "invalid sport: maximum below its minimum";
	case MLTCP_JOB_E_PEER_FAMILY:
		return "invalid peer: neither IPv4 nor IPv6";
	case MLTCP_JOB_E_PEER_PREFIXLEN:
		return "invalid peer: prefix length above 32 (IPv4) or 128 (IPv6)";
	case MLTCP_JOB_E_SLOPE:
		return "invalid slope (allowed 0 to 16)";
	case MLTCP_JOB_E_INTERCEPT:
		return "invalid intercept (allowed 0 to 16)";
	case MLTCP_JOB_E_IDLE_GAP:
		return "invalid idle-gap (allowed 1ms to 60s)";
	case MLTCP_JOB_E_ITER_BYTES:
		return "invalid iter-bytes (allowed 1 to 1T)";
	case MLTCP_JOB_E_BASE:
		return "invalid base";
	case MLTCP_JOB_E_F_ZERO:
		return "slope and intercept may not both be 0 (F would be 0)";
	case MLTCP_JOB_E_BOUND:
		return "mean F above 1 and F above the host's line: allowed only in the host's network namespace";
	case MLTCP_JOB_E_CGROUP:
		return "invalid cgroup: id 0";
	default:
		return "invalid job";
	}
}

#endif /* MLTCP_POLICY_TEXT */
