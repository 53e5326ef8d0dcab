/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MLTCP policy: everything around the arithmetic that decides how a flow
 * behaves, written once for every datapath (the module, the BPF twin, the
 * unit tests and mltcpctl). Pure C over mltcp_types.h, like the core:
 *
 *  - a training job's criteria and settings (struct mltcp_job_spec), the one
 *    layout stored by the module's job table, by the BPF twin's job map and
 *    built by mltcpctl;
 *  - validating a job request and applying it to a spec (mltcp_job_apply());
 *  - matching a flow against a job (mltcp_job_matches()) from the few socket
 *    fields a datapath reads into struct mltcp_flow_key;
 *  - the per-flow state every datapath keeps in icsk_ca_priv (struct
 *    mltcp_flow) and how its parameters are latched: the defaults, then the
 *    job's settings, then "exempt" (mltcp_flow_latch());
 *  - the snapshot of a flow that every listing reports (struct
 *    mltcp_flow_record), filled by mltcp_flow_fill_record();
 *  - names of bases, modes and tunables and their text forms
 *    (mltcp_param_parse(), mltcp_param_format()), used by module
 *    parameters, sysctls and mltcpctl. Not compiled for BPF (no strings
 *    there): guarded by MLTCP_POLICY_TEXT.
 *
 * A datapath owns storage, locking and the socket; it calls these.
 */
#ifndef MLTCP_POLICY_H
#define MLTCP_POLICY_H

#include "mltcp_core.h"
#include "uapi/mltcp.h"

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(__bpf__)
#define MLTCP_POLICY_TEXT 1
#endif

/* Address families as the kernel numbers them (checked where AF_* is known). */
#define MLTCP_AF_INET		2
#define MLTCP_AF_INET6		10

/*
 * A job: which flows it matches and how they behave. fields is a mask of
 * MLTCP_JOB_F_* (uapi/mltcp.h) naming the criteria and settings present;
 * a criterion absent matches every flow, a setting absent leaves the
 * namespace default. Ports in host order; peer in network order, masked to
 * its prefix (IPv4 in peer[0]); mark stored masked; cgroup_id a cgroup v2
 * id (the datapath checks that it names a cgroup, at a level below
 * MLTCP_CGROUP_LEVELS). Fixed size, no pointers: it is a BPF map value and
 * a netlink payload's model.
 */
struct mltcp_job_spec {
	u32 id;			/* the operator's id, >= 1; 0: none (a free BPF slot) */
	u32 fields;		/* MLTCP_JOB_F_* */
	u16 dport_min, dport_max;
	u16 sport_min, sport_max;
	u8 peer_family;		/* MLTCP_AF_INET or MLTCP_AF_INET6 */
	u8 peer_prefixlen;
	u8 base;		/* enum mltcp_base */
	u8 exempt;		/* 1: the base algorithm (F is 1, no restart) */
	u32 peer[4];
	u32 mark, mark_mask;
	u32 slope, intercept;	/* MLTCP_ONE units */
	u32 idle_gap_us;
	u8 marked;		/* 1: iterations start at the job's marks */
	u8 pad[3];
	u64 iter_bytes;		/* fixed bytes per iteration, not learned */
	u64 cgroup_id;		/* the cgroup and its descendants */
};

/*
 * A request to add a job (applied to an all-zero spec) or to change one
 * (applied to a copy of it): values holds the given fields (peer and mark
 * need not be masked yet; mark_mask is ~0 when the operator gave none),
 * given and clear name what is set and what is dropped.
 */
struct mltcp_job_request {
	struct mltcp_job_spec values;
	u32 given;		/* MLTCP_JOB_F_* set by the request */
	u32 clear;		/* MLTCP_JOB_F_* dropped (a change only) */
};

/* Why a request was refused; MLTCP_JOB_OK is 0. */
enum mltcp_job_error {
	MLTCP_JOB_OK = 0,
	MLTCP_JOB_E_ID,			/* id 0 */
	MLTCP_JOB_E_CLEAR_UNKNOWN,	/* clear names an unknown field */
	MLTCP_JOB_E_CLEAR_AND_SET,	/* a field both cleared and set */
	MLTCP_JOB_E_DPORT,		/* destination port maximum below its minimum */
	MLTCP_JOB_E_SPORT,		/* source port maximum below its minimum */
	MLTCP_JOB_E_PEER_FAMILY,	/* neither IPv4 nor IPv6 */
	MLTCP_JOB_E_PEER_PREFIXLEN,	/* prefix longer than the address */
	MLTCP_JOB_E_SLOPE,
	MLTCP_JOB_E_INTERCEPT,
	MLTCP_JOB_E_IDLE_GAP,
	MLTCP_JOB_E_ITER_BYTES,
	MLTCP_JOB_E_BASE,
	MLTCP_JOB_E_F_ZERO,		/* slope and intercept both 0 */
	MLTCP_JOB_E_BOUND,		/* above the bound of a contained namespace */
	MLTCP_JOB_E_CGROUP,		/* cgroup id 0 */
	MLTCP_JOB_NR_ERRORS,
};

/* A line F(r) = slope * r + intercept, in MLTCP_ONE units. */
struct mltcp_line {
	u32 slope;
	u32 intercept;
};

/*
 * The line F(r) = slope * r + intercept, r in [0, 1], as a whole. Refused
 * everywhere: slope or intercept out of range (MLTCP_JOB_E_SLOPE,
 * MLTCP_JOB_E_INTERCEPT), and both 0 (MLTCP_JOB_E_F_ZERO: F would be 0, a
 * window that never grows in ai and an ssthresh of 2 in md).
 *
 * Refused where bounded (the flows of a network namespace other than the
 * host's, which its own root can reconfigure: mltcp_net_bound()),
 * MLTCP_JOB_E_BOUND: a line that is both
 *  - more aggressive than the base algorithm on average: mean F over an
 *    iteration that runs into the overhang (F stays F(1) up to 1/8 beyond
 *    the size, MLTCP_LEARN_TOL_SHIFT) above 1: (slope / 2 + intercept +
 *    (slope + intercept) / 8) / (9 / 8), checked exactly in MLTCP_ONE units
 *    as 5 * slope + 9 * intercept > 9 (slope 2, intercept 0, mean 1 over
 *    [0, 1], is 10/9 with the overhang), and
 *  - above the host's line (*bound: the module parameters, the line every
 *    namespace starts with, set by the initial namespace's root) somewhere
 *    in [0, 1], that is at r = 0 or at r = 1.
 * So a container may keep the host's line or lower it anywhere, and may
 * always choose a line that is on average its base algorithm, but never
 * one that is both above a mean of 1 and above the host's line somewhere.
 * "Mean F at most 1" alone would forbid a host's line above a mean of 1
 * to the containers that inherit it, and such a line met the fairness
 * target beside a bulk flow where lines with a mean of 1 did not
 * (docs/research/interleaving-on-the-host.md, "Beside a bulk flow"). NULL: unbounded.
 *
 * The host's line is read as two values (mltcp_net_bound()), each written
 * alone: a check that races the host's own change of both may see a pair
 * the host never set, each half of which it did.
 */
enum mltcp_job_error mltcp_f_line_check(u32 slope, u32 intercept,
					const struct mltcp_line *bound);

/*
 * The line a job's flows latch: the job's slope and intercept, each where it
 * sets one, else the defaults'. A job that sets neither, or is exempt, adds
 * nothing to check. For the module's job add and set, whose requests
 * mltcp_job_apply() has already checked alone.
 */
enum mltcp_job_error mltcp_job_check_over(const struct mltcp_job_spec *job,
					  const struct mltcp_params *defaults,
					  const struct mltcp_line *bound);

/*
 * Validates req whole, then applies it to *spec: given fields replace,
 * cleared ones are dropped, the peer is masked to its prefix and the mark to
 * its mask, "exempt 0" is no setting. A result that sets both slope and
 * intercept is checked as a line (mltcp_f_line_check(), unbounded). On error
 * *spec is unchanged.
 */
enum mltcp_job_error mltcp_job_apply(struct mltcp_job_spec *spec,
				     const struct mltcp_job_request *req);

/* The MLTCP_JOB_F_* field an error is about (0 for none). */
u32 mltcp_job_error_field(enum mltcp_job_error err);

/*
 * Levels of the cgroup v2 tree a job can name: the root is level 0. The key
 * holds one id per level on the BPF twin's stack (512 bytes with the job
 * it is matched against): 12 levels, where Kubernetes' pods are at 3 or 4
 * and Slurm's jobs at 3.
 */
#define MLTCP_CGROUP_LEVELS	MLTCP_GENL_CGROUP_LEVELS

/*
 * What a job can match a flow on, read once from the socket by the datapath.
 * daddr in network order; an IPv4 peer, also as a v4-mapped IPv6 address,
 * has v4 set and its address in daddr[0]. cgroup_ids: the ids of the
 * socket's cgroup v2 and its ancestors by level (cgroup_ids[0] the root's),
 * the first cgroup_levels of them (at most MLTCP_CGROUP_LEVELS: deeper
 * levels cannot be a job's).
 */
struct mltcp_flow_key {
	u64 cgroup_ids[MLTCP_CGROUP_LEVELS];
	u32 daddr[4];
	u32 mark;
	u16 dport, sport;	/* host order; sport is the local port */
	u8 v4;
	u8 cgroup_levels;
};

/*
 * A mark of a job: *count is what the job's marked flows follow (they start
 * an iteration at their first send after it changes). Without a step
 * (step 0) every mark counts. With one, a mark counts when its step differs
 * from the last step marked: the ranks that share a job table mark each
 * step once between them (DDP keeps them within a step of each other), and
 * a restarted run, whose steps count from 1 again, is followed too.
 * Returns whether the count moved. The caller serializes marks of a job.
 */
bool mltcp_job_mark(u32 *count, u32 *last_step, u32 step);

/* The job has a cgroup criterion and key's cgroups include it. */
bool mltcp_job_cgroup_matches(const struct mltcp_job_spec *job, const struct mltcp_flow_key *key);

/* Every criterion the job has holds for the flow (none: every flow). */
bool mltcp_job_matches(const struct mltcp_job_spec *job, const struct mltcp_flow_key *key);

/*
 * Per-flow state in icsk_ca_priv, the same in the module and the BPF twin.
 * All-zero until init (params.mode 0). job: the datapath's reference to the
 * flow's job, 0 for none (the module keeps a never-reused key, the BPF twin
 * the operator's id).
 */
struct mltcp_flow {
	struct mltcp_iter iter;
	struct mltcp_cubic cubic;
	struct mltcp_params params;
	u32 job;
};

/* "mltcp": the base comes from the defaults or the job; the others fix it. */
#define MLTCP_BASE_SELECTABLE	(-1)

/* Starts a flow's state: no iteration known, a fresh CUBIC epoch. */
void mltcp_flow_init(struct mltcp_flow *fl, u64 bytes_acked, u32 now_us);

/* A job's settings, as opposed to its criteria (which match new flows only). */
#define MLTCP_JOB_F_SETTINGS						\
	(MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT | MLTCP_JOB_F_IDLE_GAP |	\
	 MLTCP_JOB_F_ITER_BYTES | MLTCP_JOB_F_BASE | MLTCP_JOB_F_EXEMPT |	\
	 MLTCP_JOB_F_MARKED)

/* Slope, intercept and exempt: the line F(r), latched and checked whole. */
#define MLTCP_JOB_F_LINE (MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT | MLTCP_JOB_F_EXEMPT)

/* The settings a change of a job names: given or cleared (see mltcp_flow_relatch()). */
u32 mltcp_job_changed(const struct mltcp_job_request *req);

/*
 * Latches the flow's parameters: defaults (the namespace's, or the BPF map's),
 * overridden by the settings of job (NULL: none), then exempt (slope 0,
 * intercept 1 and params.exempt: F is exactly 1 and the window never
 * restarts, the base algorithm); fixed_base is MLTCP_BASE_SELECTABLE or the
 * base of mltcp_reno/mltcp_cubic. A flow already latched keeps its mode (the
 * mode is global and chosen once) and restarts CUBIC if its base changes; a
 * job's fixed size replaces the learned one, and dropping it returns to
 * learning. Returns false, and latches the defaults alone, if the job's
 * settings are out of range (a BPF map slot written by something other than
 * mltcpctl).
 *
 * Whatever was written, the latched line passes mltcp_f_line_check() with
 * bound: a line that does not (a namespace's defaults changed after its
 * jobs were accepted, the host's line lowered below what a namespace
 * wrote, a race between writers) is latched as slope 0, intercept 1: F is
 * 1, the base algorithm's growth and decrease, which every bound allows.
 */
bool mltcp_flow_latch(struct mltcp_flow *fl, const struct mltcp_params *defaults,
		      const struct mltcp_job_spec *job, int fixed_base,
		      const struct mltcp_line *bound);

/*
 * A live flow after a change of its job: only the settings the change names
 * (changed, MLTCP_JOB_F_*; every setting the job had when it is deleted) are
 * latched again as mltcp_flow_latch() would, from job (NULL: deleted) and,
 * where the job does not set them, from defaults as they are now, the only
 * ones there are (the flow does not keep those it started with). What the
 * change does not name the flow keeps: its other settings, and so its base
 * unless the change names the base (then the new base starts from a clean
 * state, as the kernel's own switch of algorithm runs the new one's init),
 * and its mode. Slope, intercept and exempt are one setting, the line: a
 * change of any of them latches the line whole, as it was checked when
 * written (the job's parts over today's defaults), and the bound is checked
 * again. On a flow not yet latched it is mltcp_flow_latch(). Returns false
 * as mltcp_flow_latch() does.
 */
bool mltcp_flow_relatch(struct mltcp_flow *fl, const struct mltcp_params *defaults,
			const struct mltcp_job_spec *job, u32 changed, int fixed_base,
			const struct mltcp_line *bound);

/*
 * A latched flow whose line is beyond bound (NULL: unbounded, never): the
 * host's line was lowered under it, and mltcp_flow_relatch() naming the line
 * brings it back under, as a new flow would latch.
 */
bool mltcp_flow_beyond(const struct mltcp_flow *fl, const struct mltcp_line *bound);

/*
 * One flow as every listing reports it: the module's netlink dump and
 * debugfs, and the BPF twin's flow iterator, which writes it as a binary
 * record that mltcpctl decodes. Fixed size; addresses in network order (IPv4
 * in the first 4 bytes), ports in host order.
 */
#define MLTCP_CA_NAME_MAX	16

struct mltcp_flow_record {
	u64 cookie;		/* socket cookie, as in ss and inet_diag */
	u64 bytes_this_iter;	/* acked since the iteration began */
	u64 iter_bytes;		/* bytes per iteration, 0 if not known yet */
	u32 netns;		/* inode number, as in /proc/PID/ns/net */
	u32 job;		/* the datapath's job reference, 0: none */
	u32 cwnd, ssthresh;	/* segments */
	u32 r, f;		/* MLTCP_ONE units */
	u32 iterations;		/* iteration starts seen */
	u32 last_iter_us;	/* start-to-start time of the last full iteration */
	u32 slope, intercept;	/* latched, MLTCP_ONE units */
	u32 idle_gap_us;
	u16 sport, dport;
	u8 family;		/* MLTCP_AF_INET or MLTCP_AF_INET6 */
	u8 base;		/* enum mltcp_base */
	u8 mode;		/* enum mltcp_mode */
	u8 iter_fixed;		/* 1: iter_bytes set by the job */
	u8 saddr[16], daddr[16];
	char ca[MLTCP_CA_NAME_MAX];	/* "mltcp", "mltcp_reno" or "mltcp_cubic" */
	u8 tos;			/* the socket's TOS (IPv6: traffic class) byte, DSCP and ECN */
	u8 iter_trusted;	/* 1: F, the restart and the class act on the iterations
				 * (mltcp_iter_trusted()); 0: the base algorithm */
	u8 prio_held;		/* 1: a class's move up waits, the window held at what is
				 * in flight (mltcp_prio_held()) */
};

/*
 * Per ACK, first: a flow grows only while its window limits it; otherwise
 * the CUBIC curve's clock stops (RFC 9438 5.8) and the hook returns. A
 * window the start gate holds does not grow either, nor one restarted at
 * the drain (mltcp_restart_at_drain(): the draining ACK's own growth,
 * which runs after it, would undo the restart).
 */
static inline bool mltcp_flow_may_grow(struct mltcp_flow *fl, bool cwnd_limited, u32 now_us)
{
	if (!cwnd_limited)
		mltcp_cubic_pause(&fl->cubic, now_us);
	return cwnd_limited && !mltcp_gated(&fl->iter) && !mltcp_armed(&fl->iter, &fl->params);
}

/*
 * An ACK that left nothing in flight (app_idle: nor anything unsent): the
 * drain the next start is judged by, and in RESTART mode the restart that
 * start would make, made now, before the next iteration's first skb is sized
 * (mltcp_restart_at_drain()); first, a move up held until this drain ends
 * (mltcp_prio_release(): *hold RELEASED, else NONE). Returns whether *cwnd
 * and *ssthresh changed.
 */
static inline bool mltcp_flow_drained(struct mltcp_flow *fl, u64 now_us, bool app_idle,
				      u64 bytes_acked, u32 ca_state, u32 init_cwnd,
				      u32 *cwnd, u32 *ssthresh, enum mltcp_prio_hold *hold)
{
	*hold = mltcp_prio_release(&fl->iter, &fl->params, cwnd, MLTCP_PRIO_HOLD_RELEASED);
	mltcp_on_ack_drain(&fl->iter, now_us, app_idle);
	return (app_idle && mltcp_restart_at_drain(&fl->iter, &fl->params, bytes_acked, ca_state,
						  init_cwnd, cwnd, ssthresh)) ||
	       *hold != MLTCP_PRIO_HOLD_NONE;
}

/*
 * The end of a reduction of a flow with nothing in flight nor unsent
 * (idle): an iteration that ended in CWR (an ECN echo), Recovery or Loss
 * drained in that state, where the window is the reduction's and is not
 * restarted. The reduction then ends on the same ACK, after the drain hook:
 * CWR and Recovery by tcp_end_cwnd_reduction(), which sets the window to
 * ssthresh and raises CA_EVENT_COMPLETE_CWR; Loss by the move to Open (the
 * set_state hook). Those are the last hooks before the next send: the
 * restart the drain could not make, made there.
 */
static inline bool mltcp_flow_reopened(struct mltcp_flow *fl, bool idle, u64 bytes_acked,
				       u32 init_cwnd, u32 *cwnd, u32 *ssthresh)
{
	return idle && (fl->iter.flags & MLTCP_ITER_DRAINED) &&
	       mltcp_restart_at_drain(&fl->iter, &fl->params, bytes_acked, MLTCP_CA_OPEN,
				      init_cwnd, cwnd, ssthresh);
}

/*
 * Per ACK in congestion avoidance: the divisor for tcp_cong_avoid_ai(), the
 * base's growth scaled by f (mltcp_f_increase(), which the caller computes
 * first, so that cwnd is read after it as the hooks always did). Inline, so
 * each datapath's hook compiles to the same code as if written out in it.
 */
static inline u32 mltcp_flow_ai_w(struct mltcp_flow *fl, u32 f, u32 cwnd, u32 acked,
				  u32 now_us, u32 srtt_us)
{
	if (fl->params.base == MLTCP_BASE_CUBIC)
		return mltcp_cubic_ai_w(&fl->cubic, cwnd, acked, now_us, srtt_us, f);
	return mltcp_reno_ai_w(cwnd, f);
}

/*
 * At a loss or ECN signal: the base's ssthresh, its decrease softened by f
 * (mltcp_f_decrease()); while the start gate holds the window, the gate
 * opens and ssthresh (the socket's) stays (mltcp_gate_ssthresh()). A move
 * up held (mltcp_prio_move()) ends: the window it saved is the one reduced
 * (*hold REDUCED, else NONE).
 */
static inline u32 mltcp_flow_ssthresh(struct mltcp_flow *fl, u32 f, u32 cwnd, u32 ssthresh,
				      enum mltcp_prio_hold *hold)
{
	*hold = mltcp_prio_release(&fl->iter, &fl->params, &cwnd, MLTCP_PRIO_HOLD_REDUCED);
	if (mltcp_gated(&fl->iter))
		return mltcp_gate_ssthresh(&fl->iter, ssthresh);
	if (fl->params.base == MLTCP_BASE_CUBIC)
		return mltcp_cubic_ssthresh(&fl->cubic, cwnd, f);
	return mltcp_reno_ssthresh(cwnd, f);
}

/* The class of a flow's progress (mltcp_prio_class()); none for an exempt flow. */
static inline u32 mltcp_flow_prio_class(const struct mltcp_flow *fl,
					const struct mltcp_prio_config *pc, u64 bytes_acked,
					u32 now_us)
{
	if (fl->params.exempt)
		return MLTCP_PRIO_NONE;
	return mltcp_prio_class(&fl->iter, &fl->params, bytes_acked, now_us, pc->classes,
				mltcp_prio_tie(fl->job));
}

/*
 * Progress priority, per ACK, at an iteration's first transmit and at a
 * loss: the DSCP to write on a flow whose DSCP is now cur_dscp, or -1 to
 * leave it; a move up waits, the window held, until the data in flight is
 * acknowledged (mltcp_prio_move(): *cwnd, the socket's window, changes
 * then, and *hold says whether a hold began or ended). unacked: the data
 * sent and not cumulatively acknowledged, in segments
 * (mltcp_unacked_segs()); in_flight: segments in the network. An exempt
 * flow has no class, so a class it carried goes back to pc->none_dscp. The
 * flow keeps no class of its own: the socket's DSCP is the state, so
 * nothing can disagree with the wire.
 */
static inline int mltcp_flow_prio_dscp(struct mltcp_flow *fl, const struct mltcp_prio_config *pc,
				       u64 bytes_acked, u32 now_us, u32 cur_dscp,
				       u32 unacked, u32 in_flight, u32 ca_state, u32 *cwnd,
				       enum mltcp_prio_hold *hold)
{
	return mltcp_prio_move(&fl->iter, &fl->params, pc,
			       mltcp_flow_prio_class(fl, pc, bytes_acked, now_us), cur_dscp, unacked,
			       in_flight, ca_state, cwnd, hold);
}

/*
 * Progress priority's codes as text: 1 to MLTCP_PRIO_CLASSES_MAX decimals in
 * [0, 63], class 0's first, each followed by one space or comma ("8 16 24",
 * as net.mltcp.prio_dscp shows them, or "8,16,24"), one trailing newline
 * accepted. Replaces the first n codes of pc, keeps the others and returns
 * n; -1 for malformed text, and pc is unchanged.
 */
int mltcp_prio_dscp_parse(const char *text, struct mltcp_prio_config *pc);

/* All MLTCP_PRIO_CLASSES_MAX codes, space-separated; the length, or -1 (buf ""). */
int mltcp_prio_dscp_format(const struct mltcp_prio_config *pc, char *buf, u32 len);

/* The MLTCP part of a record; the datapath fills addresses, ports, cwnd, names. */
void mltcp_flow_fill_record(struct mltcp_flow_record *rec, const struct mltcp_flow *fl,
			    u64 bytes_acked);

#ifdef MLTCP_POLICY_TEXT
/*
 * The tunables by name, as module parameters, net.mltcp.* sysctls, the BPF
 * defaults and mltcpctl know them. Values in storage units: slope and
 * intercept MLTCP_ONE units, idle gap microseconds, base and mode their enums.
 */
enum mltcp_param {
	MLTCP_PARAM_SLOPE,
	MLTCP_PARAM_INTERCEPT,
	MLTCP_PARAM_IDLE_GAP,
	MLTCP_PARAM_BASE,
	MLTCP_PARAM_MODE,
	MLTCP_NR_PARAMS,
};

/* Room for any formatted value and its terminating NUL. */
#define MLTCP_PARAM_TEXT	16

const char *mltcp_param_name(enum mltcp_param which);	/* "slope", ..., "idle_gap_us" */
const char *mltcp_base_name(u32 base);			/* "reno", "cubic"; NULL if invalid */
const char *mltcp_mode_name(u32 mode);			/* "ai", ..., "both-gate"; NULL */
int mltcp_base_parse(const char *text);			/* enum mltcp_base, or -1 */
int mltcp_mode_parse(const char *text);			/* enum mltcp_mode, or -1 */

/*
 * Text to value: decimals for slope and intercept ("1.6", at most six
 * decimals, within range), a decimal integer of microseconds for the idle gap
 * within range, a name for base and mode. One trailing newline is accepted
 * (a sysfs or sysctl write). Returns 0, or -1 and leaves *value unchanged.
 */
int mltcp_param_parse(enum mltcp_param which, const char *text, u32 *value);

/*
 * Value to text, without newline: "1.600" (mltcp_format_setting()),
 * "20000", "cubic", "md-restart". Returns the length, or -1 if the value is
 * invalid or buf too small (then buf holds ""). What it writes,
 * mltcp_param_parse() reads back as the same value.
 */
int mltcp_param_format(enum mltcp_param which, u32 value, char *buf, u32 len);

/*
 * A slope or intercept (MLTCP_ONE units, at most MLTCP_SLOPE_MAX) as text
 * that reads back as itself: thousandths, "1.600", where they do, else
 * ten-thousandths, "0.0625" (24 values in each unit). -1 as above.
 */
int mltcp_format_setting(u32 fixed, char *buf, u32 len);

/*
 * "1.600" for any MLTCP_ONE-unit value, always thousandths (columns line
 * up): r and F as observed, which are read, never written back.
 */
int mltcp_format_fixed(u32 fixed, char *buf, u32 len);

u32 mltcp_param_get(const struct mltcp_params *p, enum mltcp_param which);
void mltcp_param_set(struct mltcp_params *p, enum mltcp_param which, u32 value);

/* How a "sending resumed" event was judged, as the statistics name it ("iterations", ...). */
const char *mltcp_verdict_name(enum mltcp_tx_verdict verdict);

/* The start gate's counts: "gate_held" (starts held), "gate_opened", "gate_ran_out", ... */
const char *mltcp_gate_verdict_name(enum mltcp_gate_verdict verdict);

/* Progress priority's held moves up: "prio_held" (holds begun), "prio_released", ... */
const char *mltcp_prio_hold_name(enum mltcp_prio_hold event);

/*
 * The MLTCP_CMD_STATS_GET attribute that carries each count: the detector's
 * verdicts in their order from MLTCP_STATS_A_ITERATIONS, then the gate's
 * from MLTCP_STATS_A_GATE_HELD, then the held moves up's from
 * MLTCP_STATS_A_PRIO_HELD (mltcp_policy.c checks the enums against the
 * uapi). A new count of any kind takes a new attribute at the end, and
 * this mapping becomes a table.
 */
static inline u16 mltcp_stats_verdict_attr(enum mltcp_tx_verdict verdict)
{
	return (u16)(MLTCP_STATS_A_ITERATIONS + verdict);
}

static inline u16 mltcp_stats_gate_attr(enum mltcp_gate_verdict verdict)
{
	return (u16)(MLTCP_STATS_A_GATE_HELD + verdict);
}

static inline u16 mltcp_stats_prio_hold_attr(enum mltcp_prio_hold event)
{
	return (u16)(MLTCP_STATS_A_PRIO_HELD + event);
}

/* A message for an error of mltcp_job_apply(), one line, no newline. */
const char *mltcp_job_strerror(enum mltcp_job_error err);
#endif /* MLTCP_POLICY_TEXT */

#ifdef __cplusplus
}
#endif

#endif /* MLTCP_POLICY_H */
