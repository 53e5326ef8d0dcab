/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MLTCP core: the arithmetic of MLTCP and of its CUBIC base, with no kernel
 * dependencies. The datapath (kernel module, BPF program or unit test) owns
 * the socket and the clock; it feeds plain numbers in and applies the numbers
 * that come back. See mltcp_core.c for the algorithm.
 *
 * Fixed point: r, F, slope, intercept and the decrease factors are unsigned
 * with MLTCP_SHIFT fractional bits, so 1.0 is MLTCP_ONE.
 */
#ifndef MLTCP_CORE_H
#define MLTCP_CORE_H

#include "mltcp_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MLTCP_SHIFT		10
#define MLTCP_ONE		(1U << MLTCP_SHIFT)

/* Limits of the tunables; values outside are rejected, never clamped. */
#define MLTCP_SLOPE_MAX		(16U * MLTCP_ONE)
#define MLTCP_INTERCEPT_MAX	(16U * MLTCP_ONE)
#define MLTCP_IDLE_GAP_MIN_US	1000U		/* 1 ms */
#define MLTCP_IDLE_GAP_MAX_US	60000000U	/* 60 s */
#define MLTCP_ITER_BYTES_MAX	(1ULL << 40)	/* 1 TiB, fixed or learned */

/*
 * A completed iteration agrees with the learned size within size >> this,
 * and F stays at F(1) until the flow has sent that much beyond the size
 * (the overhang): a bound on the line over r in [0, 1] must count it.
 */
#define MLTCP_LEARN_TOL_SHIFT	3

/*
 * Defaults: F from 0.7 at the start of an iteration to 2.3 at its end, so
 * the flow that is further along takes most of the link. The values are
 * documented in tcp_mltcp(7), PARAMETERS; why they are these, in NEWS.md,
 * "History of the default". A container inherits the line and may keep or
 * lower it (mltcp_f_line_check()).
 */
#define MLTCP_DEFAULT_SLOPE	1638U	/* 1.6 */
#define MLTCP_DEFAULT_INTERCEPT	717U	/* 0.7 */
#define MLTCP_DEFAULT_IDLE_GAP_US 20000U

enum mltcp_base {
	MLTCP_BASE_RENO = 0,
	MLTCP_BASE_CUBIC = 1,
};

/* Where F acts; a bit mask so that "both" is AI | MD. */
enum mltcp_mode {
	MLTCP_MODE_AI = 1,	/* additive increase scaled by F (the paper) */
	MLTCP_MODE_MD = 2,	/* multiplicative decrease softened by F */
	MLTCP_MODE_BOTH = 3,
	MLTCP_MODE_RESTART = 4,	/* the window restarts at each iteration start */
	MLTCP_MODE_GATE = 8,	/* ... and waits out another job's queue (needs RESTART) */
	MLTCP_MODE_ALL = 15,
};

/*
 * Per-flow copy of the tunables, latched when the flow chooses MLTCP; also
 * the defaults it is latched from (where exempt is 0).
 */
struct mltcp_params {
	u16 slope;		/* MLTCP_ONE units, <= MLTCP_SLOPE_MAX */
	u16 intercept;		/* MLTCP_ONE units, <= MLTCP_INTERCEPT_MAX */
	u32 idle_gap_us;	/* idle time that separates iterations */
	u8 mode;		/* enum mltcp_mode */
	u8 base;		/* enum mltcp_base */
	u8 exempt;		/* 1: the base algorithm (F is 1, no restart); 0 or 1 */
	u8 marked;		/* 1: iterations start at the job's marks, not at idles */
};

/*
 * The kernel's congestion-avoidance states (enum tcp_ca_state), by the same
 * numbers; each datapath checks that they agree.
 */
#define MLTCP_CA_OPEN		0
#define MLTCP_CA_DISORDER	1
#define MLTCP_CA_CWR		2
#define MLTCP_CA_RECOVERY	3
#define MLTCP_CA_LOSS		4

/* Iteration state flags. */
#define MLTCP_ITER_DRAINED	0x1	/* pipe emptied while the app had nothing queued */
#define MLTCP_ITER_FIXED	0x2	/* bytes per iteration set by the operator */
#define MLTCP_ITER_KEPT		0x4	/* candidate kept across one agreeing iteration */
#define MLTCP_ITER_GATED	0x8	/* GATE: the window is held at the iteration's start */
/*
 * GATE, bits 4-7: not held, the iterations left to start without the gate
 * after a hold ran out; held (GATED, when that count is 0), the restart
 * window to open to (mltcp_gate_close()).
 */
#define MLTCP_ITER_GATE_OFF_SHIFT 4
#define MLTCP_ITER_GATE_OFF	(0xfU << MLTCP_ITER_GATE_OFF_SHIFT)

/*
 * Iteration tracking. All-zero is a valid state (no structure, F neutral),
 * because the kernel zeroes icsk_ca_priv before our init runs and may deliver
 * ACK events in between.
 *
 * The drain time is the TCP clock's full 64 bits (tcp_mstamp), so an idle
 * of any length is judged right; a u32 would wrap after 71 minutes (a
 * checkpoint or an evaluation pause) and make a long idle look short. The
 * iteration's start keeps the low 32 bits: it only measures the stretch
 * from the start to the drain, one iteration's communication phase.
 */
struct mltcp_iter {
	u64 start_acked;	/* bytes_acked when the current iteration began */
	u64 bytes;		/* bytes per iteration (learned or fixed); 0: unknown */
	u64 recip;		/* 2^MLTCP_RECIP_SHIFT / bytes: r without a per-ACK divide */
	u64 candidate;		/* last completed size that disagreed with bytes */
	u64 drain_us;		/* when the pipe last drained (valid if DRAINED) */
	u32 start_us;		/* when the current iteration began, low 32 bits */
	u32 last_duration_us;	/* start-to-start time of the last full iteration */
	u32 count;		/* iteration starts detected */
	u8 flags;
	union {
		u8 marks_seen;	/* marked: the job's mark count at the last start, low 8 bits */
		u8 agreed;	/* from idles: iterations since the last size
				 * disagreement that agreed in size and period,
				 * saturating at MLTCP_TRUST_ITERS */
	};
	union {
		u16 gate_queue_us;	/* GATE: queueing delay that means another job's queue */
		u16 armed_cwnd;		/* not GATE: a window held below, to give back (0:
					 * none): by a restart at a drain until the next
					 * start, or (MLTCP_ARMED_PRIO) by a class's move
					 * up until its data in flight is acknowledged */
	};
};

/*
 * Do no harm: a size learned from idles is acted on (F, the restart, a
 * priority class) only after MLTCP_TRUST_ITERS completed iterations have
 * agreed with it, and not again after one that disagreed until as many
 * have agreed again (mltcp_iter_trusted()). Two: steps whose idles cut them
 * into pieces of two sizes, A B A B, never have two agreeing in a row.
 * An iteration agrees only if its start-to-start time is also within
 * 1/2^MLTCP_TRUST_PERIOD_SHIFT of the one before: pieces of one size
 * (gloo's two halves of an all-reduce) alternate a short wait for the peer
 * with the long compute phase, where whole steps repeat their period.
 */
#define MLTCP_TRUST_ITERS	2
#define MLTCP_TRUST_PERIOD_SHIFT	2

/* Why a "sending resumed with nothing in flight" event did or did not start an iteration. */
enum mltcp_tx_verdict {
	MLTCP_TX_NEW_ITERATION = 0,
	MLTCP_TX_IN_RECOVERY,	/* data unacked, in recovery or after an RTO: a retransmission */
	MLTCP_TX_OUTSTANDING,	/* data unacked otherwise: a retransmission or probe */
	MLTCP_TX_NOT_IDLE,	/* the pipe never drained with an idle application */
	MLTCP_TX_SHORT_GAP,	/* idle, but for less than idle_gap_us */
	MLTCP_TX_FRAGMENT,	/* an idle, but the iteration so far is a fragment: continued */
	MLTCP_TX_UNMARKED,	/* marked: nothing in flight, but no mark since the last start */
	MLTCP_TX_NR_VERDICTS,
};

/* What an ACK did to a held window (mltcp_gate_on_ack()). */
enum mltcp_gate_verdict {
	MLTCP_GATE_HOLD,	/* another job's queue is still there */
	MLTCP_GATE_OPEN,	/* the queue drained: the restart window goes */
	MLTCP_GATE_RAN_OUT,	/* held for the longest allowed: opened, and off for a while */
	MLTCP_GATE_REDUCED,	/* a held segment lost or marked: opened, and off for a while */
	MLTCP_GATE_NR_VERDICTS,
};

/* Result of folding a completed iteration into the learned size. */
enum mltcp_learn {
	MLTCP_LEARN_FIRST,	/* no size was known; adopted */
	MLTCP_LEARN_AGREED,	/* within tolerance; smoothed in */
	MLTCP_LEARN_CONFIRMED,	/* a new size seen twice in a row; adopted */
	MLTCP_LEARN_OUTLIER,	/* held as candidate, size unchanged */
	MLTCP_LEARN_FIXED,	/* operator-fixed size; nothing learned */
};

struct mltcp_cubic {
	u32 w_max;		/* segments: window at the last reduction */
	u32 k_us;		/* curve time at which W reaches w_max again */
	u32 elapsed_us;		/* curve time since the epoch began, runs F times real time */
	u32 last_us;		/* when elapsed_us was last advanced */
	u32 w_est;		/* segments: Reno-friendly estimate (RFC 9438 4.3) */
	u32 w_est_credit;	/* acked segments * alpha * F towards the next w_est step */
	u32 ai_cwnd;		/* cwnd ai_w was computed for (>= 1); 0: no epoch */
	u16 ai_w;		/* that divisor (0xffff: no growth); 0: none cached */
	u16 ai_tick;		/* when, in 2^10 us ticks, low 16 bits */
};

/* CUBIC constants (RFC 9438), MLTCP_ONE units. */
#define MLTCP_CUBIC_BETA	717U	/* 0.7 */
#define MLTCP_CUBIC_C		410U	/* 0.4 segments per second^3 */
#define MLTCP_CUBIC_ALPHA	542U	/* 3 (1 - beta) / (1 + beta) = 0.529 */
#define MLTCP_RENO_BETA		512U	/* 0.5 */

/* The kernel's initial window (TCP_INIT_CWND) where the route sets none. */
#define MLTCP_INIT_CWND		10U

/* tcp_cong_avoid_ai() divisor meaning "do not grow". */
#define MLTCP_W_NO_GROWTH	0xffffffffU

/* Tunables */
void mltcp_params_default(struct mltcp_params *p);
bool mltcp_mode_valid(u32 mode);
bool mltcp_params_valid(const struct mltcp_params *p);
int mltcp_parse_fixed(const char *s, u32 max, u32 *out);
u32 mltcp_fixed_to_milli(u32 fixed);

/* Iterations */
void mltcp_iter_init(struct mltcp_iter *it, u64 bytes_acked, u32 now_us);
void mltcp_iter_set_fixed(struct mltcp_iter *it, u64 bytes);
void mltcp_on_ack_drain(struct mltcp_iter *it, u64 now_us, bool app_idle);
enum mltcp_tx_verdict mltcp_on_tx_start(struct mltcp_iter *it,
					const struct mltcp_params *p,
					u64 bytes_acked, u64 now_us,
					bool in_recovery, bool data_outstanding, u32 marks);
enum mltcp_learn mltcp_iter_learn(struct mltcp_iter *it, u64 completed);
bool mltcp_iter_trusted(const struct mltcp_iter *it, const struct mltcp_params *p);

/* Progress and aggressiveness */
u32 mltcp_init_cwnd(u32 route_initcwnd, u32 cwnd_clamp);
bool mltcp_restart_window(struct mltcp_iter *it, const struct mltcp_params *p,
			  u32 ca_state, u32 init_cwnd, u32 *cwnd, u32 *ssthresh);
enum mltcp_gate_verdict mltcp_gate_on_ack(struct mltcp_iter *it, u32 rtt_us, u32 min_rtt_us,
					  u32 now_us, u32 init_cwnd, u32 *cwnd);
u32 mltcp_gate_ssthresh(struct mltcp_iter *it, u32 ssthresh);
bool mltcp_restart_at_drain(struct mltcp_iter *it, const struct mltcp_params *p,
			    u64 bytes_acked, u32 ca_state, u32 init_cwnd, u32 *cwnd, u32 *ssthresh);
bool mltcp_disarm(struct mltcp_iter *it, const struct mltcp_params *p,
		  enum mltcp_tx_verdict verdict, u32 *cwnd);

/*
 * armed_cwnd: the window saved, in segments, and whether progress priority
 * saved it (mltcp_prio_move()); a larger window is never held.
 */
#define MLTCP_ARMED_PRIO	0x8000U
#define MLTCP_ARMED_CWND_MAX	0x7fffU

/*
 * A restart at the drain holds the window until the next start, and a
 * class's move up until its data in flight is acknowledged: it must not
 * grow.
 */
static inline bool mltcp_armed(const struct mltcp_iter *it, const struct mltcp_params *p)
{
	return !(p->mode & MLTCP_MODE_GATE) && it->armed_cwnd;
}

static inline bool mltcp_prio_held(const struct mltcp_iter *it, const struct mltcp_params *p)
{
	return mltcp_armed(it, p) && (it->armed_cwnd & MLTCP_ARMED_PRIO);
}

static inline bool mltcp_gated(const struct mltcp_iter *it)
{
	return it->flags & MLTCP_ITER_GATED;
}

u32 mltcp_ratio(const struct mltcp_iter *it, u64 bytes_acked);
u32 mltcp_f(const struct mltcp_iter *it, const struct mltcp_params *p,
	    u64 bytes_acked);
u32 mltcp_f_increase(const struct mltcp_iter *it, const struct mltcp_params *p,
		     u64 bytes_acked);
u32 mltcp_f_decrease(const struct mltcp_iter *it, const struct mltcp_params *p,
		     u64 bytes_acked);
u32 mltcp_md_beta(u32 base_beta, u32 f);

/*
 * Progress priority: the class a flow's packets carry, 0 (lowest) to
 * classes - 1, from how far its iteration is (mltcp_core.c). A switch serves
 * the classes in strict priority, so the job furthest through its iteration
 * goes first. MLTCP_PRIO_NONE: no class, the socket's DSCP is left alone.
 */
/* Seven: the class selectors CS1..CS7 are the defaults (mltcp_prio_config_default()). */
#define MLTCP_PRIO_CLASSES_MAX	7
#define MLTCP_PRIO_NONE		0xffU
#define MLTCP_DSCP_MAX		63U
/* K when progress priority is turned on without a number of classes. */
#define MLTCP_PRIO_DEFAULT_CLASSES 4U

/*
 * Per namespace (or per job): classes is K, 0 when progress priority is off;
 * dscp[c] is class c's DSCP; none_dscp replaces a class when a flow loses
 * its class (its size is forgotten or it turned exempt).
 */
struct mltcp_prio_config {
	u8 classes;
	u8 none_dscp;
	u8 dscp[MLTCP_PRIO_CLASSES_MAX];
};

void mltcp_prio_config_default(struct mltcp_prio_config *pc);
bool mltcp_prio_config_valid(const struct mltcp_prio_config *pc);
bool mltcp_overhang(const struct mltcp_iter *it, u64 bytes_acked);
u32 mltcp_prio_tie(u32 job);
u32 mltcp_prio_class(const struct mltcp_iter *it, const struct mltcp_params *p,
		     u64 bytes_acked, u32 now_us, u32 classes, u32 tie);
int mltcp_prio_dscp(const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp);
u32 mltcp_prio_class_of_dscp(const struct mltcp_prio_config *pc, u32 dscp);

/*
 * What a call did to a move up held (mltcp_prio_move()), for the counters:
 * each hold begins once and ends once, released or reduced; one still held
 * (or on a socket closed while held) has only begun. The datapaths count
 * what the core reports and decide none of it.
 */
enum mltcp_prio_hold {
	MLTCP_PRIO_HOLD_BEGAN,		/* a move up waits, the window held at what is in flight */
	MLTCP_PRIO_HOLD_RELEASED,	/* all but one MSS acked: the window back, the new class */
	MLTCP_PRIO_HOLD_REDUCED,	/* a loss or ECN reduction began: the hold ends in it */
	MLTCP_PRIO_HOLD_NR_EVENTS,
	MLTCP_PRIO_HOLD_NONE = MLTCP_PRIO_HOLD_NR_EVENTS,	/* neither began nor ended one */
};

int mltcp_prio_move(struct mltcp_iter *it, const struct mltcp_params *p,
		    const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp,
		    u32 unacked, u32 in_flight, u32 ca_state, u32 *cwnd,
		    enum mltcp_prio_hold *hold);
enum mltcp_prio_hold mltcp_prio_release(struct mltcp_iter *it, const struct mltcp_params *p,
					u32 *cwnd, enum mltcp_prio_hold why);
u32 mltcp_unacked_segs(u32 unacked_bytes, u32 mss);

/* Reno */
u32 mltcp_reno_ai_w(u32 cwnd, u32 f);
u32 mltcp_reno_ssthresh(u32 cwnd, u32 f);

/* CUBIC (RFC 9438) */
void mltcp_cubic_init(struct mltcp_cubic *c);
void mltcp_cubic_reset(struct mltcp_cubic *c);
void mltcp_cubic_pause(struct mltcp_cubic *c, u32 now_us);
u32 mltcp_cubic_ssthresh(struct mltcp_cubic *c, u32 cwnd, u32 f);
u32 mltcp_cubic_ai_w(struct mltcp_cubic *c, u32 cwnd, u32 acked,
		     u32 now_us, u32 rtt_us, u32 f);
u32 mltcp_cubic_window(const struct mltcp_cubic *c, u32 t_us);
u32 mltcp_cbrt(u64 x);

#ifdef __cplusplus
}
#endif

#endif /* MLTCP_CORE_H */
