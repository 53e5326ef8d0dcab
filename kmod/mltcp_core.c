// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MLTCP core: congestion control for competing distributed-training jobs.
 *
 * A data-parallel training job repeats one iteration: compute, then send a
 * fixed number of gradient bytes. When several jobs share a bottleneck, fair
 * sharing slows all of them down at once. MLTCP (Rajasekaran et al., "MLTCP:
 * Congestion Control for DNN Training", arXiv:2402.09589; HotNets 2024) makes
 * each flow's window growth depend on how far it is through its iteration,
 *
 *	r = bytes acked in this iteration / bytes per iteration, in [0, 1]
 *	F(r) = slope * r + intercept
 *
 * so the flow that is further along takes more of the link, finishes first
 * and goes back to computing. Iteration after iteration the jobs' communication
 * phases slide apart until they take turns.
 *
 * Iterations are found from the flow's own behaviour: an iteration starts when
 * the flow sends again after its pipe drained while the application had
 * nothing queued, and stayed idle for at least idle_gap_us. Resumptions that
 * are not compute phases are rejected by name: retransmissions after an RTO
 * or in recovery, sends with data still outstanding, drains caused by a closed
 * receive window (unsent data was queued), and pauses shorter than the gap.
 * Once the size is known, an idle that follows less than 1/8 of it is not an
 * iteration's end either: the iteration so far is a fragment, and it goes
 * on. Frameworks send one: gloo, under PyTorch DDP, first tells the peer that
 * its receive buffers are ready (a few hundred bytes), then waits for the
 * slower rank to finish its backward pass before the gradients flow; counted
 * as an iteration, the notice would make two per training step, restart the
 * window twice and count r from the wrong start.
 *
 * Bytes per iteration are learned from completed iterations. A completed size
 * within 1/8 of the learned one is folded in with an EWMA of gain 1/4; a size
 * that disagrees is held as a candidate and adopted only if the next iteration
 * agrees with it, so one false or missed boundary cannot move the estimate
 * (and a fragment cannot pin F at its maximum for the next iteration); the
 * one exception is a candidate of which the learned size is a fragment,
 * kept for one iteration more (mltcp_iter_learn()). An operator may fix the size
 * instead.
 *
 * F is neutral (exactly 1.0, the base algorithm's arithmetic bit for bit)
 * until the size is trusted, and again once a flow has sent more than 1/8
 * beyond its learned size in the current iteration: a bulk flow is never
 * boosted for having paused once.
 *
 * Do no harm. A size learned from idles is trusted only once two completed
 * iterations after the one it was learned from have agreed with it, in size
 * and in start-to-start period, and is distrusted again by any completed
 * iteration whose size disagrees, until two agree again (MLTCP_TRUST_ITERS).
 * Where a framework's idles do not separate its steps (gloo's all-reduce
 * sends in halves and waits between them, DDP's buckets leave gaps of their
 * own), the pieces come in sizes that disagree, or in one size at periods
 * that alternate short and long, and acting on them would restart windows
 * inside a step and hand one rank's flow more of the link than its peer's,
 * which the step then waits for. Such a flow runs as its base algorithm
 * (F = 1, no restart, no class) and says so (the flow record's
 * iter_trusted). A size fixed by the operator, and the sizes of a job whose
 * steps are marked, are trusted as soon as they are known.
 *
 * Where F acts (mode):
 *  - AI: the additive increase is scaled by F. For Reno, cwnd grows by F
 *    segments per RTT. For CUBIC the window is a function of time since the
 *    last reduction, so scaling the per-ACK step would only change how fast
 *    cwnd catches up with the curve; instead the curve's clock runs F times
 *    as fast, and the Reno-friendly estimate grows F times as fast.
 *  - MD: the reduction 1 - beta is scaled by G = 2 - F, clamped to
 *    [1/16, 2]: a flow near the end of its iteration backs off less. Mean
 *    G over r is 1 when mean F is 1.
 *
 * CUBIC follows RFC 9438: W(t) = C (t - K)^3 + W_max with C = 0.4, beta = 0.7,
 * K = cbrt((W_max - cwnd_epoch) / C), the target W(t + RTT), or W_est in the
 * Reno-friendly region, clamped to [cwnd, 1.5 cwnd], fast convergence, the
 * Reno-friendly estimate W_est with alpha = 3 (1 - beta) / (1 + beta), K = 0
 * and W_max = cwnd after an RTO (RFC 9438 4.8), and no growth of the curve's
 * clock while the flow is application-limited (RFC 9438 5.8). Where the RFC
 * leaves room, the kernel's tcp_cubic is followed: growth of at most one
 * segment per two acked, alpha kept all epoch (the RFC's SHOULD switch it
 * to 1), and the growth divisor recomputed only when cwnd has changed or
 * 1/32 s has passed (CUBIC_RECALC_TICKS, at F = 1). HyStart++ is not
 * implemented.
 *
 * Units and bounds: windows in segments, below 2^22; times in microseconds:
 * the drain time in 64 bits (idles of any length), the others as the clock's
 * low 32 bits compared by wrapping subtraction, so the intervals they measure
 * (between ACKs of the CUBIC clock, one iteration's communication phase)
 * must be under 71 minutes; bytes per iteration up to MLTCP_ITER_BYTES_MAX
 * (1 TiB).
 */
#include "mltcp_core.h"

/* r = delivered * recip >> (MLTCP_RECIP_SHIFT - MLTCP_SHIFT). */
#define MLTCP_RECIP_SHIFT	50

/* An iteration that has carried less than size >> this is a fragment. */
#define MLTCP_FRAGMENT_SHIFT	3

/* EWMA gain for agreeing sizes: 1 / 2^this. */
#define MLTCP_LEARN_GAIN_SHIFT	2

/*
 * GATE mode. Another job's queue is a queueing delay worth this many bytes
 * at the flow's own rate: above what the held windows of a few jobs that
 * start together put in a queue (MLTCP_GATE_CWND segments each), below the
 * queues a sending job builds (a drop-tail buffer; ECN's marking threshold
 * in a data center, 65 segments and up).
 */
#define MLTCP_GATE_QUEUE_SHIFT	15
#define MLTCP_GATE_QUEUE_BYTES	(1U << MLTCP_GATE_QUEUE_SHIFT)	/* 32 KiB */
/* The threshold's floor: RTT samples are whole microseconds and jitter by a few. */
#define MLTCP_GATE_QUEUE_MIN_US	10U
/* The held window: enough to keep RTT samples coming, one delayed ACK's worth. */
#define MLTCP_GATE_CWND		2U
/*
 * The longest hold: twice the last communication phase (two other jobs'
 * turns), and never more than the last period >> this (half an iteration).
 */
#define MLTCP_GATE_HOLD_PHASES	2U
#define MLTCP_GATE_HOLD_SHIFT	1
/* After a hold that ran out or was cut by a reduction, iterations started without the gate. */
#define MLTCP_GATE_OFF_ITERS	15U
/* The largest restart window a hold keeps exactly (MLTCP_ITER_GATE_OFF's bits). */
#define MLTCP_GATE_WINDOW_MAX	15U

/* MD mode: G = 2 - F is kept within [1/16, 2]. */
#define MLTCP_MD_G_MIN		(MLTCP_ONE / 16)
#define MLTCP_MD_G_MAX		(2 * MLTCP_ONE)

/* CUBIC curve time is handled in 2^-10 s; (t - K) is clamped to 2^17 units (128 s). */
#define CUBIC_TIME_SHIFT	10
#define CUBIC_DT_MAX		(1ULL << 17)
#define CUBIC_K_DIFF_MAX	((1U << 22) - 1)
#define USEC_PER_SEC		1000000ULL
#define CUBIC_DT_MAX_US		128000000U	/* CUBIC_DT_MAX units in microseconds */
/*
 * us * 2^10 / 10^6 = us * 16 / 15625, per ACK without a division:
 * (us * CUBIC_US_MUL) >> CUBIC_US_SHIFT with CUBIC_US_MUL = ceil(2^45 / 15625)
 * is the exact floor for 16 * us < 2^31 (the multiplier's excess,
 * CUBIC_US_MUL * 15625 - 2^45 = 4918, is below 2^(45 - 31)), which covers
 * every us below CUBIC_DT_MAX_US; the product stays below 2^58.
 */
#define CUBIC_US_MUL		2251799814ULL
#define CUBIC_US_SHIFT		41
_Static_assert(MLTCP_GATE_OFF_ITERS <= MLTCP_ITER_GATE_OFF >> MLTCP_ITER_GATE_OFF_SHIFT,
	       "the gate's off count fits its flag bits");
_Static_assert(MLTCP_GATE_WINDOW_MAX <= MLTCP_ITER_GATE_OFF >> MLTCP_ITER_GATE_OFF_SHIFT &&
	       MLTCP_GATE_CWND <= MLTCP_GATE_WINDOW_MAX && MLTCP_INIT_CWND <= MLTCP_GATE_WINDOW_MAX,
	       "a held window fits the gate's flag bits, the kernel's initial window exactly");
_Static_assert(CUBIC_DT_MAX_US == (CUBIC_DT_MAX * USEC_PER_SEC) >> CUBIC_TIME_SHIFT,
	       "CUBIC_DT_MAX_US is CUBIC_DT_MAX in microseconds");
_Static_assert(USEC_PER_SEC == 15625ULL << (CUBIC_TIME_SHIFT - 4) &&
	       CUBIC_US_MUL * 15625 - (1ULL << 45) < (1ULL << (45 - 31)) &&
	       16ULL * CUBIC_DT_MAX_US < (1ULL << 31),
	       "(us * CUBIC_US_MUL) >> CUBIC_US_SHIFT is us * 2^10 / 10^6 exactly");
/* Fastest congestion-avoidance growth: one segment per this many acked. */
#define CUBIC_AI_W_MIN		2
/*
 * The divisor is reused while cwnd is unchanged for up to 30 ticks of
 * 2^10 us (31 ms), as the kernel's bictcp_update() reuses its cnt for HZ/32.
 * This is not only cheaper: it is part of how the kernel's cubic behaves.
 * Where losses keep windows small (the Reno-friendly region), the stale
 * divisor holds cwnd for up to 1/32 s each time it catches up with the
 * estimate; recomputing per ACK made us 4.4% faster than the kernel at 2%
 * random loss and 10 ms RTT (bench/fidelity.py, 10 runs each); with the
 * reuse, 0.992 and 1.001 of it (5 and 10 runs). The cache is 16 bits wide to fit icsk_ca_priv:
 * divisors of 0xffff and above (cwnd of 64Ki segments) are recomputed per ACK.
 */
#define CUBIC_TICK_SHIFT	10
#define CUBIC_RECALC_TICKS	30
#define CUBIC_AI_W_CACHED_MAX	0xfffeU
#define CUBIC_AI_W_NO_GROWTH	0xffffU

static u32 min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static u32 max_u32(u32 a, u32 b)
{
	return a > b ? a : b;
}

static u32 clamp_u64_to_u32(u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (u32)v;
}

void mltcp_params_default(struct mltcp_params *p)
{
	p->slope = MLTCP_DEFAULT_SLOPE;
	p->intercept = MLTCP_DEFAULT_INTERCEPT;
	p->idle_gap_us = MLTCP_DEFAULT_IDLE_GAP_US;
	p->mode = MLTCP_MODE_MD | MLTCP_MODE_RESTART;
	p->base = MLTCP_BASE_CUBIC;
	p->exempt = 0;
	p->marked = 0;
}

/* The gate holds a restarted window: it comes only with RESTART. */
bool mltcp_mode_valid(u32 mode)
{
	if (mode < MLTCP_MODE_AI || mode > MLTCP_MODE_ALL)
		return false;
	return !(mode & MLTCP_MODE_GATE) || (mode & MLTCP_MODE_RESTART);
}

bool mltcp_params_valid(const struct mltcp_params *p)
{
	return p->slope <= MLTCP_SLOPE_MAX &&
	       p->intercept <= MLTCP_INTERCEPT_MAX &&
	       p->idle_gap_us >= MLTCP_IDLE_GAP_MIN_US &&
	       p->idle_gap_us <= MLTCP_IDLE_GAP_MAX_US &&
	       mltcp_mode_valid(p->mode) &&
	       p->base <= MLTCP_BASE_CUBIC && p->exempt <= 1 && p->marked <= 1;
}

/*
 * Parse a non-negative decimal such as "1.6" into MLTCP_ONE units, rounding to
 * the nearest 1/1024. One trailing newline is accepted (sysfs writes carry
 * one). Returns 0, or -1 for malformed input or a value above max.
 */
int mltcp_parse_fixed(const char *s, u32 max, u32 *out)
{
	u64 whole = 0, frac = 0, scale = 1, value;
	int digits = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		whole = whole * 10 + (u64)(*s - '0');
		if (whole > 0xffffU)
			return -1;
	}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (++digits > 6)
				return -1;
			frac = frac * 10 + (u64)(*s - '0');
			scale *= 10;
		}
		if (!digits)
			return -1;
	}
	if (*s == '\n')
		s++;
	if (*s)
		return -1;

	value = (whole << MLTCP_SHIFT) +
		mltcp_div64((frac << MLTCP_SHIFT) + scale / 2, scale);
	if (value > max)
		return -1;
	*out = (u32)value;
	return 0;
}

/* Round a MLTCP_ONE-unit value to thousandths, for printing as "%u.%03u". */
u32 mltcp_fixed_to_milli(u32 fixed)
{
	return (u32)((((u64)fixed * 1000) + MLTCP_ONE / 2) >> MLTCP_SHIFT);
}

/*
 * The reciprocal is rounded up so that r is exact wherever r * 1024 is an
 * integer (F(0.5) is exactly slope / 2 + intercept); elsewhere it may read
 * high by less than 1/1024.
 */
static void mltcp_iter_set_bytes(struct mltcp_iter *it, u64 bytes)
{
	it->bytes = bytes;
	it->recip = mltcp_div64((1ULL << MLTCP_RECIP_SHIFT) + bytes - 1, bytes);
	it->candidate = 0;
	it->flags &= ~MLTCP_ITER_KEPT;
}

void mltcp_iter_init(struct mltcp_iter *it, u64 bytes_acked, u32 now_us)
{
	*it = (struct mltcp_iter){ 0 };
	it->start_acked = bytes_acked;
	it->start_us = now_us;
}

/* Operator-fixed bytes per iteration; 0 returns to learning. */
void mltcp_iter_set_fixed(struct mltcp_iter *it, u64 bytes)
{
	if (!bytes || bytes > MLTCP_ITER_BYTES_MAX) {
		it->flags &= ~MLTCP_ITER_FIXED;
		it->bytes = 0;
		it->recip = 0;
		return;
	}
	mltcp_iter_set_bytes(it, bytes);
	it->flags |= MLTCP_ITER_FIXED;
}

static bool mltcp_agrees(u64 size, u64 ref)
{
	u64 diff = size > ref ? size - ref : ref - size;

	return diff <= ref >> MLTCP_LEARN_TOL_SHIFT;
}

enum mltcp_learn mltcp_iter_learn(struct mltcp_iter *it, u64 completed)
{
	if (it->flags & MLTCP_ITER_FIXED)
		return MLTCP_LEARN_FIXED;
	if (!completed || completed > MLTCP_ITER_BYTES_MAX)
		return MLTCP_LEARN_OUTLIER;

	if (!it->bytes) {
		mltcp_iter_set_bytes(it, completed);
		return MLTCP_LEARN_FIRST;
	}
	if (mltcp_agrees(completed, it->bytes)) {
		u64 smoothed = it->bytes, candidate = it->candidate;
		bool kept = it->flags & MLTCP_ITER_KEPT;

		if (completed > smoothed)
			smoothed += (completed - smoothed) >> MLTCP_LEARN_GAIN_SHIFT;
		else
			smoothed -= (smoothed - completed) >> MLTCP_LEARN_GAIN_SHIFT;
		mltcp_iter_set_bytes(it, smoothed);
		/*
		 * Sizes alternating between a fragment and a whole (a notice, an
		 * idle, then the data) were learned at the fragment if it came
		 * first: the whole is kept as candidate across one agreeing
		 * iteration, so that seeing it next adopts it, after which the
		 * fragments are merged into it (mltcp_on_tx_start()). Once only:
		 * a size seen twice farther apart is not adopted.
		 */
		if (!kept && smoothed < candidate >> MLTCP_FRAGMENT_SHIFT) {
			it->candidate = candidate;
			it->flags |= MLTCP_ITER_KEPT;
		}
		return MLTCP_LEARN_AGREED;
	}
	if (it->candidate && mltcp_agrees(completed, it->candidate)) {
		mltcp_iter_set_bytes(it, completed);
		return MLTCP_LEARN_CONFIRMED;
	}
	/*
	 * Nor, while the estimate is a fragment of the candidate, does another
	 * fragment displace it (once, as above): a learned notice, the data,
	 * then a notice of another size.
	 */
	if (!(it->flags & MLTCP_ITER_KEPT) &&
	    completed < it->candidate >> MLTCP_FRAGMENT_SHIFT &&
	    it->bytes < it->candidate >> MLTCP_FRAGMENT_SHIFT) {
		it->flags |= MLTCP_ITER_KEPT;
		return MLTCP_LEARN_OUTLIER;
	}
	it->candidate = completed;
	it->flags &= ~MLTCP_ITER_KEPT;
	return MLTCP_LEARN_OUTLIER;
}

bool mltcp_iter_trusted(const struct mltcp_iter *it, const struct mltcp_params *p)
{
	if (!it->bytes)
		return false;
	return p->marked || (it->flags & MLTCP_ITER_FIXED) || it->agreed >= MLTCP_TRUST_ITERS;
}

static bool mltcp_periods_agree(u32 period_us, u32 ref_us)
{
	u32 diff = period_us > ref_us ? period_us - ref_us : ref_us - period_us;

	return diff <= ref_us >> MLTCP_TRUST_PERIOD_SHIFT;
}

/*
 * How a completed iteration found from idles moves the trust in the size.
 * One whose size agrees but whose period does not neither adds trust nor
 * takes it away: jobs whose phases are sliding apart change their periods
 * for a few iterations, and a flow that was acted on keeps being acted on.
 * Pieces of a step that alternate short and long periods add none past the
 * second iteration's, unless two periods in a row happen to agree.
 */
static void mltcp_trust_learn(struct mltcp_iter *it, enum mltcp_learn learned,
			      u32 period_us)
{
	/*
	 * The first iteration began when the flow did, not at a start, so
	 * its period (setup, perhaps a compute phase first) is no reference.
	 */
	bool period_agrees = it->count < 2 ||
			     mltcp_periods_agree(period_us, it->last_duration_us);

	switch (learned) {
	case MLTCP_LEARN_AGREED:
		if (period_agrees && it->agreed < MLTCP_TRUST_ITERS)
			it->agreed++;
		break;
	case MLTCP_LEARN_CONFIRMED:
		/* The candidate and this iteration: the new size, seen twice in a row. */
		it->agreed = period_agrees;
		break;
	case MLTCP_LEARN_FIXED:
		break;
	default:
		it->agreed = 0;
	}
}

/*
 * Called for ACKs that leave nothing outstanding. Only the first such ACK
 * stamps the drain time: ACKs piggybacked on the peer's own data keep arriving
 * during our compute phase and must not shorten the measured idle time.
 * app_idle is false when unsent data was queued: the pipe drained because the
 * receive window (or another limit) stopped us, not because we were done.
 */
void mltcp_on_ack_drain(struct mltcp_iter *it, u64 now_us, bool app_idle)
{
	if (!app_idle) {
		it->flags &= ~MLTCP_ITER_DRAINED;
		return;
	}
	if (!(it->flags & MLTCP_ITER_DRAINED)) {
		it->flags |= MLTCP_ITER_DRAINED;
		it->drain_us = now_us;
	}
}

/*
 * Start-to-start time of the iteration that ends now: its communication
 * phase (start to drain, within one iteration: 32 bits suffice) plus the
 * idle (64 bits), saturated at U32_MAX.
 */
static u32 mltcp_iter_duration(const struct mltcp_iter *it, u64 now_us)
{
	u32 busy = (u32)it->drain_us - it->start_us;

	return clamp_u64_to_u32(busy + (now_us - it->drain_us));
}

/*
 * GATE, at the end of an iteration that drained: the queueing delay that
 * stands for MLTCP_GATE_QUEUE_BYTES at the rate this flow's communication
 * phase just ran (the learned size over start-to-drain), so the threshold
 * follows the path's rate without being told it: about 1.3 ms at 200
 * Mbit/s, 26 us at 10 Gbit/s, MLTCP_GATE_QUEUE_MIN_US at the least. A phase
 * the flow shared ran slower, which only raises the threshold. 0 (no gate)
 * while no size is known, and for iterations smaller than that queue: all
 * of such an iteration fits in a few held windows, and a flow held with
 * nothing more to send could reach its next start held.
 */
static void mltcp_gate_learn(struct mltcp_iter *it, const struct mltcp_params *p)
{
	u32 busy = (u32)it->drain_us - it->start_us;
	u64 queue_us;

	if (!(p->mode & MLTCP_MODE_GATE))
		return;
	if (it->bytes < MLTCP_GATE_QUEUE_BYTES) {
		it->gate_queue_us = 0;
		return;
	}
	queue_us = mltcp_div64((u64)busy << MLTCP_GATE_QUEUE_SHIFT, it->bytes);
	it->gate_queue_us = (u16)min_u32(max_u32(clamp_u64_to_u32(queue_us),
						 MLTCP_GATE_QUEUE_MIN_US), 0xffffU);
}

/*
 * TX_START is raised for any segment sent with nothing in flight. One sent
 * while data is outstanding (all of it marked lost or SACKed) is a
 * retransmission or a probe; counted as IN_RECOVERY when loss recovery or an
 * RTO sent it. With nothing outstanding, a send is new data whatever the CA
 * state: a peer without SACK holds Recovery (or Loss) after its last
 * retransmission is acknowledged until an ACK above high_seq arrives
 * (tcp_try_undo_recovery(), RFC 6582), so an iteration whose last window saw
 * a loss leaves the flow in Recovery through the whole compute phase.
 * Refusing that start would merge two iterations into one.
 *
 * A marked flow's job says where its iterations start (mltcpctl job mark):
 * marks is the job's count of marks, and the first resumption after one
 * starts an iteration, however long or short the idle before it, and no
 * other does. A framework whose step has idles inside it (a ring
 * all-reduce waiting for a slower peer, gradient buckets) is followed that
 * way; a flow that never empties between steps starts at its first send
 * with nothing in flight after the mark, which may be inside the step.
 * Only the count's low 8 bits are kept: a flow that sends nothing through
 * 256 marks misses one start.
 */
static enum mltcp_tx_verdict mltcp_on_marked_start(struct mltcp_iter *it,
						   const struct mltcp_params *p, u64 bytes_acked,
						   u64 now_us, bool drained, u32 marks)
{
	u64 completed = bytes_acked - it->start_acked;

	if ((u8)marks == it->marks_seen)
		return MLTCP_TX_UNMARKED;
	it->marks_seen = (u8)marks;
	/* A mark the flow carried nothing for ends an empty iteration: nothing to learn. */
	if (completed)
		mltcp_iter_learn(it, completed);
	if (drained)
		mltcp_gate_learn(it, p);
	it->last_duration_us = drained ? mltcp_iter_duration(it, now_us) :
					 (u32)now_us - it->start_us;
	it->start_acked = bytes_acked;
	it->start_us = (u32)now_us;
	it->count++;
	return MLTCP_TX_NEW_ITERATION;
}

enum mltcp_tx_verdict mltcp_on_tx_start(struct mltcp_iter *it,
					const struct mltcp_params *p,
					u64 bytes_acked, u64 now_us,
					bool in_recovery, bool data_outstanding, u32 marks)
{
	bool drained = it->flags & MLTCP_ITER_DRAINED;
	u32 period_us;

	/* Each resumption consumes the drain it follows. */
	it->flags &= ~MLTCP_ITER_DRAINED;

	if (data_outstanding)
		return in_recovery ? MLTCP_TX_IN_RECOVERY : MLTCP_TX_OUTSTANDING;
	if (p->marked)
		return mltcp_on_marked_start(it, p, bytes_acked, now_us, drained, marks);
	if (!drained)
		return MLTCP_TX_NOT_IDLE;
	if (now_us - it->drain_us < p->idle_gap_us)
		return MLTCP_TX_SHORT_GAP;
	if (bytes_acked - it->start_acked < it->bytes >> MLTCP_FRAGMENT_SHIFT)
		return MLTCP_TX_FRAGMENT;

	period_us = mltcp_iter_duration(it, now_us);
	mltcp_trust_learn(it, mltcp_iter_learn(it, bytes_acked - it->start_acked), period_us);
	mltcp_gate_learn(it, p);
	it->last_duration_us = period_us;
	it->start_acked = bytes_acked;
	it->start_us = (u32)now_us;
	it->count++;
	return MLTCP_TX_NEW_ITERATION;
}

/*
 * tcp_init_cwnd() of the kernel, which is not exported to modules nor to BPF:
 * the route's initcwnd metric (0: none set) or TCP_INIT_CWND, within the
 * socket's window clamp. The datapaths read the two numbers.
 */
u32 mltcp_init_cwnd(u32 route_initcwnd, u32 cwnd_clamp)
{
	return min_u32(route_initcwnd ? route_initcwnd : MLTCP_INIT_CWND, cwnd_clamp);
}

/*
 * RESTART mode, at an iteration start: the window left from the previous
 * iteration says nothing about the link now, and sending it at once as a
 * burst into a queue another job is filling costs both jobs losses. Resume
 * from the initial window, init_cwnd from mltcp_init_cwnd(), and slow-start
 * back towards the old window (RFC 5681 4.1's restart, applied at every
 * iteration rather than only after an idle RTO; the kernel's
 * tcp_cwnd_restart() restarts from the same window). Only flows known to be
 * periodic (a learned or fixed size) and not exempt are touched.
 *
 * Only in Open or Disorder, the states in which the kernel's own restart
 * (tcp_cwnd_restart() through tcp_current_ssthresh()) raises ssthresh to
 * 3/4 of the window. In CWR (an ECN echo or local congestion in the last
 * RTT) or Recovery a reduction is under way: its ssthresh is the congestion
 * response and must not be raised, and the first ACK beyond high_seq ends
 * the state with cwnd = ssthresh (tcp_end_cwnd_reduction()), so a restarted
 * window would not hold anyway. An iteration starts in Recovery or Loss only
 * when a peer without SACK held the state across the compute phase
 * (mltcp_on_tx_start()); it keeps its window too. Returns whether the window
 * changed.
 */
static void mltcp_gate_close(struct mltcp_iter *it, const struct mltcp_params *p,
			     u32 init_cwnd, u32 *cwnd);

bool mltcp_restart_window(struct mltcp_iter *it, const struct mltcp_params *p,
			  u32 ca_state, u32 init_cwnd, u32 *cwnd, u32 *ssthresh)
{
	u32 old = *cwnd;

	/* A hold never opened: its window must not read as the gate's rest. */
	if (it->flags & MLTCP_ITER_GATED)
		it->flags &= (u8)~(MLTCP_ITER_GATED | MLTCP_ITER_GATE_OFF);
	if (!(p->mode & MLTCP_MODE_RESTART) || p->exempt || !mltcp_iter_trusted(it, p) ||
	    ca_state > MLTCP_CA_DISORDER)
		return false;
	*ssthresh = max_u32(*ssthresh, old - (old >> 2));
	*cwnd = min_u32(old, init_cwnd);
	mltcp_gate_close(it, p, init_cwnd, cwnd);
	return true;
}

/*
 * RESTART mode without the gate, at the ACK that drains the pipe: the
 * restart the next iteration's start would make, made now. At the start it
 * comes too late for the iteration's first skb: TX_START is raised from
 * inside its transmission, after tcp_write_xmit() sized it by the old window
 * (up to 64 KB, TSO's autosizing, at line rate into another job's queue).
 * No hook runs between the drain and that transmission (an ACK with nothing
 * in flight skips congestion control), so the drain is the last chance.
 *
 * Only a drain that ends a whole iteration restarts: at least 7/8 of the
 * size delivered and no overhang. A drain there that is not the end (a
 * last piece sent after a short pause) is undone at the next start by
 * mltcp_disarm(), from the window saved here (armed_cwnd, which shares its
 * bits with the gate's threshold: GATE mode keeps the restart at the start,
 * where the gate needs it). A window above what armed_cwnd holds is not
 * restarted early. Returns whether the window changed.
 */
#define MLTCP_WHOLE_SHIFT	3	/* whole: at least 1 - 2^-3 of the size delivered */

bool mltcp_restart_at_drain(struct mltcp_iter *it, const struct mltcp_params *p,
			    u64 bytes_acked, u32 ca_state, u32 init_cwnd, u32 *cwnd, u32 *ssthresh)
{
	u64 delivered = bytes_acked - it->start_acked;
	u32 old = *cwnd;

	if ((p->mode & MLTCP_MODE_GATE) || it->armed_cwnd || !it->bytes ||
	    old > MLTCP_ARMED_CWND_MAX ||
	    delivered < it->bytes - (it->bytes >> MLTCP_WHOLE_SHIFT) ||
	    mltcp_overhang(it, bytes_acked) || old <= init_cwnd)
		return false;
	if (!mltcp_restart_window(it, p, ca_state, init_cwnd, cwnd, ssthresh))
		return false;
	it->armed_cwnd = (u16)old;
	return true;
}

/*
 * At the next start, after its verdict: a new iteration keeps the window
 * restarted at the drain (the start's own restart finds it there); any
 * other resumption gets back the window it had, ssthresh as raised (below
 * it). A move up held (mltcp_prio_move()) is not a restart: it ends at its
 * own drain or reduction. Returns whether cwnd changed.
 */
bool mltcp_disarm(struct mltcp_iter *it, const struct mltcp_params *p,
		  enum mltcp_tx_verdict verdict, u32 *cwnd)
{
	u32 saved = it->armed_cwnd;

	if (!mltcp_armed(it, p) || (saved & MLTCP_ARMED_PRIO))
		return false;
	it->armed_cwnd = 0;
	if (verdict == MLTCP_TX_NEW_ITERATION || *cwnd >= saved)
		return false;
	*cwnd = saved;
	return true;
}

/*
 * GATE mode: the start gate. Restarting the window keeps a job from
 * bursting into another job's queue, but not from slow-starting into it:
 * two jobs whose phases overlap share the link until the rule has pushed
 * them apart, which takes iterations, and jitter brings them back
 * (docs/research/interleaving-on-the-host.md). With the gate, a flow that starts an
 * iteration while another job's queue stands in its path waits for it to
 * drain: its window is held at MLTCP_GATE_CWND segments, whose RTT samples
 * watch the queue, and opens to the restart window at the first sample
 * whose queueing delay (over the minimum RTT) is below gate_queue_us
 * (mltcp_gate_learn()). The job that was there first keeps the link, the
 * other takes its turn right after, one RTT late: the phases are apart
 * from the first iteration in which they were not exactly together, and
 * whichever job's phase jitters into the other's waits again.
 *
 * The hold is bounded: at most twice the last communication phase and half
 * of the last period (mltcp_gate_hold_max_us()), after which the window
 * opens and the gate stays off for MLTCP_GATE_OFF_ITERS iterations, so a
 * flow beside a bulk flow (a queue that never drains) loses at most that
 * in 16 iterations and otherwise runs as in restart mode. Time at a zero
 * receive window counts too. A flow yields only before its first release
 * in an iteration: once open it is never held again before the next start.
 * A loss or ECN echo of the held segments opens the gate too, as a hold
 * that ran out (mltcp_gate_ssthresh()).
 *
 * The samples see the queue of the whole round trip: a flow whose ACKs wait
 * behind data (its own job's other direction of an exchange, on a path
 * that does not serve ACKs first) takes that queue for another job's and
 * waits until the hold runs out. The gate is for networks that serve pure
 * ACKs first (docs/research/interleaving-on-the-host.md, issue 14).
 */
/*
 * *cwnd is the restart window, min(old, init_cwnd): opening must not give
 * more than the restart would have, so the hold keeps it where the rest
 * count lives, which is 0 while held: 0 for init_cwnd (read again at the
 * opening), else the window, saturated at MLTCP_GATE_WINDOW_MAX. Only a
 * route's initcwnd above that leaves a window between the two, and it then
 * opens at MLTCP_GATE_WINDOW_MAX, below the old window.
 */
static void mltcp_gate_close(struct mltcp_iter *it, const struct mltcp_params *p,
			     u32 init_cwnd, u32 *cwnd)
{
	u32 off = (it->flags & MLTCP_ITER_GATE_OFF) >> MLTCP_ITER_GATE_OFF_SHIFT;
	u32 window;

	if (!(p->mode & MLTCP_MODE_GATE) || !it->gate_queue_us || !it->last_duration_us)
		return;
	if (off) {
		it->flags = (u8)((it->flags & ~MLTCP_ITER_GATE_OFF) |
				 ((off - 1) << MLTCP_ITER_GATE_OFF_SHIFT));
		return;
	}
	window = *cwnd < init_cwnd ? min_u32(*cwnd, MLTCP_GATE_WINDOW_MAX) : 0;
	it->flags = (u8)(it->flags | MLTCP_ITER_GATED | (window << MLTCP_ITER_GATE_OFF_SHIFT));
	*cwnd = min_u32(*cwnd, MLTCP_GATE_CWND);
}

/* The gate rests for MLTCP_GATE_OFF_ITERS starts. */
static void mltcp_gate_rest(struct mltcp_iter *it)
{
	it->flags = (u8)((it->flags & ~(MLTCP_ITER_GATED | MLTCP_ITER_GATE_OFF)) |
			 (MLTCP_GATE_OFF_ITERS << MLTCP_ITER_GATE_OFF_SHIFT));
}

/*
 * The longest hold: MLTCP_GATE_HOLD_PHASES times the last communication
 * phase, which the threshold keeps (gate_queue_us = phase * 32 KiB /
 * bytes, so phase = gate_queue_us * bytes / 32 KiB, short of it where the
 * threshold saturated or was floored), and at most half the last period.
 * A period lengthened by a pause (a checkpoint) does not lengthen the hold.
 */
static u32 mltcp_gate_hold_max_us(const struct mltcp_iter *it)
{
	u64 phase_us = ((u64)it->gate_queue_us * it->bytes) >> MLTCP_GATE_QUEUE_SHIFT;

	return min_u32(clamp_u64_to_u32(MLTCP_GATE_HOLD_PHASES * phase_us),
		       it->last_duration_us >> MLTCP_GATE_HOLD_SHIFT);
}

/*
 * Per ACK while held (mltcp_gated()): rtt_us is the ACK's RTT sample (0:
 * none), min_rtt_us the flow's minimum. Opens the window to the restart's,
 * min(old, init_cwnd) (mltcp_gate_close()), when the sample shows no other
 * job's queue, or when the hold has lasted its longest
 * (mltcp_gate_hold_max_us()); *cwnd is changed unless the verdict is HOLD.
 */
enum mltcp_gate_verdict mltcp_gate_on_ack(struct mltcp_iter *it, u32 rtt_us, u32 min_rtt_us,
					  u32 now_us, u32 init_cwnd, u32 *cwnd)
{
	u32 window = (it->flags & MLTCP_ITER_GATE_OFF) >> MLTCP_ITER_GATE_OFF_SHIFT;

	window = window ? min_u32(window, init_cwnd) : init_cwnd;
	if (now_us - it->start_us >= mltcp_gate_hold_max_us(it)) {
		mltcp_gate_rest(it);
		*cwnd = max_u32(*cwnd, window);
		return MLTCP_GATE_RAN_OUT;
	}
	if (!rtt_us || (rtt_us > min_rtt_us && rtt_us - min_rtt_us >= it->gate_queue_us))
		return MLTCP_GATE_HOLD;
	it->flags &= (u8)~(MLTCP_ITER_GATED | MLTCP_ITER_GATE_OFF);
	*cwnd = max_u32(*cwnd, window);
	return MLTCP_GATE_OPEN;
}

/*
 * The ssthresh hook while held: a held segment was lost or echoed CE in
 * another job's queue. The gate opens and rests, as after a hold that ran
 * out (a neighbour whose queue drops or marks the held segments is one the
 * gate cannot wait out). The kernel ends the reduction with cwnd =
 * ssthresh (tcp_end_cwnd_reduction()), so ssthresh must not be the
 * restart's (3/4 of the last phase's window, a burst into the queue that
 * just dropped or marked): the flow goes on from the initial window in
 * congestion avoidance, at most MLTCP_INIT_CWND, as a restarted flow whose
 * first flight was lost.
 */
u32 mltcp_gate_ssthresh(struct mltcp_iter *it, u32 ssthresh)
{
	mltcp_gate_rest(it);
	return max_u32(min_u32(ssthresh, MLTCP_INIT_CWND), MLTCP_GATE_CWND);
}

/* Progress r through the current iteration, in MLTCP_ONE units, clamped to 1. */
u32 mltcp_ratio(const struct mltcp_iter *it, u64 bytes_acked)
{
	u64 delivered = bytes_acked - it->start_acked;

	if (!it->bytes)
		return 0;
	if (delivered >= it->bytes)
		return MLTCP_ONE;
	/* delivered < bytes and recip <= 2^50 / bytes + 1: the product is below 2^51. */
	return min_u32((u32)((delivered * it->recip) >>
			     (MLTCP_RECIP_SHIFT - MLTCP_SHIFT)), MLTCP_ONE);
}

/* The flow has sent more than 1/8 beyond its size this iteration: bulk, not training. */
bool mltcp_overhang(const struct mltcp_iter *it, u64 bytes_acked)
{
	return bytes_acked - it->start_acked > it->bytes + (it->bytes >> MLTCP_LEARN_TOL_SHIFT);
}

u32 mltcp_f(const struct mltcp_iter *it, const struct mltcp_params *p,
	    u64 bytes_acked)
{
	if (!mltcp_iter_trusted(it, p) || mltcp_overhang(it, bytes_acked))
		return MLTCP_ONE;
	return p->intercept +
	       (((u32)p->slope * mltcp_ratio(it, bytes_acked)) >> MLTCP_SHIFT);
}

u32 mltcp_f_increase(const struct mltcp_iter *it, const struct mltcp_params *p,
		     u64 bytes_acked)
{
	if (!(p->mode & MLTCP_MODE_AI))
		return MLTCP_ONE;
	return mltcp_f(it, p, bytes_acked);
}

u32 mltcp_f_decrease(const struct mltcp_iter *it, const struct mltcp_params *p,
		     u64 bytes_acked)
{
	if (!(p->mode & MLTCP_MODE_MD))
		return MLTCP_ONE;
	return mltcp_f(it, p, bytes_acked);
}

/* Decrease factor: 1 - (1 - base_beta) * G with G = 2 - F in [1/16, 2]. */
u32 mltcp_md_beta(u32 base_beta, u32 f)
{
	u32 g = f >= MLTCP_MD_G_MAX ? 0 : MLTCP_MD_G_MAX - f;

	g = max_u32(g, MLTCP_MD_G_MIN);
	return MLTCP_ONE - (((MLTCP_ONE - base_beta) * g) >> MLTCP_SHIFT);
}

/*
 * Progress priority. Scaling a window is a soft lever: ECN cuts every window
 * alike and nothing holds two jobs' phases apart once they stop overlapping.
 * A switch that serves classes in strict priority enforces an order instead.
 * The order is MLTCP's own, taken to its limit (an infinite slope): the flow
 * further through its iteration goes first. Its packets carry class
 *
 *	c = min(floor((r + tie) * K), K - 1)
 *
 * so K classes split r into K equal bands. Within one iteration r only grows
 * (bytes acked are cumulative, the size changes only at iteration starts), so
 * a flow crosses each threshold at most once and needs no hysteresis; each
 * move up may let its newer packets overtake older ones still queued in the
 * lower class (reordering that RACK absorbs), so K stays small.
 *
 * tie separates jobs at the same r (synchronized starts) by a fixed offset
 * of at most 15/1024 from the job's id: one crosses first, finishes first,
 * and starts its next iteration first.
 *
 * Starvation is bounded two ways. A flow holds a class above 0 for at most
 * 9/8 of its size per iteration; past that (the overhang) it is bulk and
 * falls to class 0. An iteration that outlasts the last whole period P
 * climbs one class per P / 2^MLTCP_PRIO_AGE_SHIFT whatever its r, so a job
 * that keeps losing reaches the top class within P + (K - 2) P / 4 and
 * shares it first-come first-served. A flow with no trusted size (learning,
 * bulk, iterations not told reliably) has no class and rides best effort.
 */
#define MLTCP_PRIO_AGE_SHIFT	2
/*
 * Full segments' worth of data a receiver may leave unacknowledged (a
 * delayed ACK): a held move up ends there. Linux acknowledges at once only
 * once more than one receive MSS is unacknowledged (__tcp_ack_snd_check());
 * the sender's MSS stands for the receiver's, which is larger only briefly
 * (an MTU probe), when a hold may again wait for the receiver's timer.
 */
#define MLTCP_PRIO_DELACK_SEGS	1
#define MLTCP_PRIO_TIE_SHIFT	28	/* a 32-bit hash to 0..15 */
#define MLTCP_PRIO_TIE_HASH	0x9e3779b1U	/* 2^32 / golden ratio */

/*
 * Class c's default DSCP is the class selector CS(c + 1): CS1..CS4 for
 * K = 4. A class selector's TOS bits are 0, so rt_tos2priority() keeps
 * sk_priority at 0 where IP_TOS is set through setsockopt (the BPF twin):
 * the host's own qdisc band does not move when a class does.
 */
void mltcp_prio_config_default(struct mltcp_prio_config *pc)
{
	u32 c;

	pc->classes = 0;
	pc->none_dscp = 0;
	for (c = 0; c < MLTCP_PRIO_CLASSES_MAX; c++)
		pc->dscp[c] = (u8)((c + 1) << 3);
}

/* K within range, and the used classes' DSCPs distinct from each other and from none_dscp. */
bool mltcp_prio_config_valid(const struct mltcp_prio_config *pc)
{
	u32 i, j;

	if (pc->classes > MLTCP_PRIO_CLASSES_MAX || pc->none_dscp > MLTCP_DSCP_MAX)
		return false;
	for (i = 0; i < pc->classes; i++) {
		if (pc->dscp[i] > MLTCP_DSCP_MAX || pc->dscp[i] == pc->none_dscp)
			return false;
		for (j = 0; j < i; j++)
			if (pc->dscp[i] == pc->dscp[j])
				return false;
	}
	return true;
}

u32 mltcp_prio_tie(u32 job)
{
	return (job * MLTCP_PRIO_TIE_HASH) >> MLTCP_PRIO_TIE_SHIFT;
}

/*
 * The class of a flow (it, p, bytes_acked: the flow's iteration, parameters
 * and counter) or of a job (its iteration and cumulative bytes); now_us in
 * the clock of it->start_us; classes is K (0: off); tie from mltcp_prio_tie().
 */
u32 mltcp_prio_class(const struct mltcp_iter *it, const struct mltcp_params *p,
		     u64 bytes_acked, u32 now_us, u32 classes, u32 tie)
{
	u32 period = it->last_duration_us, t = now_us - it->start_us, c;

	if (!classes || classes > MLTCP_PRIO_CLASSES_MAX || !mltcp_iter_trusted(it, p))
		return MLTCP_PRIO_NONE;
	if (mltcp_overhang(it, bytes_acked))
		return 0;
	c = min_u32(((mltcp_ratio(it, bytes_acked) + tie) * classes) >> MLTCP_SHIFT,
		    classes - 1);
	if (period && t > period) {
		u32 step = max_u32(period >> MLTCP_PRIO_AGE_SHIFT, 1);

		c = max_u32(c, min_u32(1 + (t - period) / step, classes - 1));
	}
	return c;
}

/*
 * The DSCP to write for class cls on a socket whose DSCP is cur_dscp, or -1
 * to leave it: unchanged, or no class on a socket that never had one of
 * ours (an application's own DSCP is kept).
 */
/* The class whose code dscp is under pc, or MLTCP_PRIO_NONE: none of pc's. */
u32 mltcp_prio_class_of_dscp(const struct mltcp_prio_config *pc, u32 dscp)
{
	u32 c;

	for (c = 0; c < pc->classes && c < MLTCP_PRIO_CLASSES_MAX; c++)
		if (pc->dscp[c] == dscp)
			return c;
	return MLTCP_PRIO_NONE;
}

int mltcp_prio_dscp(const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp)
{
	if (cls < pc->classes && cls < MLTCP_PRIO_CLASSES_MAX)
		return pc->dscp[cls] == cur_dscp ? -1 : pc->dscp[cls];
	if (mltcp_prio_class_of_dscp(pc, cur_dscp) != MLTCP_PRIO_NONE)
		return pc->none_dscp;
	return -1;
}

/* Whether class cls is above the class of cur_dscp; no class is below class 0. */
static bool mltcp_prio_above(const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp)
{
	u32 cur;

	if (cls >= pc->classes || cls >= MLTCP_PRIO_CLASSES_MAX || pc->dscp[cls] == cur_dscp)
		return false;
	cur = mltcp_prio_class_of_dscp(pc, cur_dscp);
	return cur == MLTCP_PRIO_NONE || cls > cur;
}

/*
 * A class's move up reorders the flow's own packets: those sent after it
 * are served ahead of those still queued in the lower class, and the
 * receiver's SACKs then have the sender retransmit the overtaken ones
 * (spurious retransmissions, RACK's reordering window grown the hard way)
 * or, without RACK, enter recovery. So a move up with data in flight waits
 * for that data to be acknowledged: the window is held at what is in
 * flight, so nothing new is sent in the old class, the window saved in
 * armed_cwnd (MLTCP_ARMED_PRIO), and at the ACK that leaves at most
 * MLTCP_PRIO_DELACK_SEGS unacknowledged the window comes back with the new
 * class. The flow pauses for about the time its queue takes to drain, at
 * most K - 1 times an iteration, and the link serves meanwhile the queue it
 * leaves.
 *
 * Not to nothing: a receiver acknowledges every second full segment and
 * holds back its ACK of less (a delayed ACK, 40 ms at least on Linux), so
 * waiting for the last segment's ACK stalls the flow for the receiver's
 * timer, not for its queue. The segment's worth left (one segment, or
 * several short ones) was queued right behind the data just acknowledged,
 * in the same class, so it has most likely been delivered or is next, and
 * the newer packets reach the switch an ACK's trip later. Where it has
 * not, the newer packets overtake it and the sender may retransmit it for
 * nothing and undo its reduction at the DSACK: one segment, against a
 * stall of 40 ms. (On the host's yardstick points, waiting for everything
 * instead left as many DSACKs.)
 *
 * Moves down do not reorder (the newer packets queue behind the older) and
 * are made at once, as is any move with no more than that unacknowledged.
 * In CWR and Recovery the kernel's reduction owns the window: a move up
 * waits for Open. A move at an RTO (ca_state MLTCP_CA_LOSS, which the
 * datapaths pass at CA_EVENT_LOSS: the kernel raises it before it sets the
 * state) is made at once: all in flight is taken for lost already, and a
 * flow starved in its class climbs by aging. A hold found in any state but
 * Open or Disorder is dropped, its window the reduction's (the reduction's
 * ssthresh released it first: mltcp_prio_release()). The gate's threshold
 * shares armed_cwnd's bits, so GATE mode moves at once, as does a window
 * above MLTCP_ARMED_CWND_MAX segments.
 *
 * cls is the class of the flow's progress (mltcp_prio_class()), cur_dscp
 * the socket's DSCP, unacked the data sent and not yet cumulatively
 * acknowledged in segments (mltcp_unacked_segs()) and in_flight the
 * segments still in the network. Returns the DSCP to write, or -1; *cwnd is the socket's
 * window, changed while a move up is held; *hold what the call did to a
 * hold (a hold dropped in a reduction's state counts as reduced: the
 * reduction ended it, only without its ssthresh).
 */
int mltcp_prio_move(struct mltcp_iter *it, const struct mltcp_params *p,
		    const struct mltcp_prio_config *pc, u32 cls, u32 cur_dscp,
		    u32 unacked, u32 in_flight, u32 ca_state, u32 *cwnd,
		    enum mltcp_prio_hold *hold)
{
	u32 window = min_u32(*cwnd, max_u32(in_flight, 1));
	bool draining = unacked > MLTCP_PRIO_DELACK_SEGS;

	*hold = MLTCP_PRIO_HOLD_NONE;
	if (mltcp_prio_held(it, p)) {
		if (ca_state > MLTCP_CA_DISORDER) {
			it->armed_cwnd = 0;
			*hold = MLTCP_PRIO_HOLD_REDUCED;
		} else if (draining) {
			*cwnd = window;
			return -1;
		} else {
			*hold = mltcp_prio_release(it, p, cwnd, MLTCP_PRIO_HOLD_RELEASED);
		}
	}
	/* A hold that just ended leaves its queue drained or a reduction: none begins. */
	if (draining && mltcp_prio_above(pc, cls, cur_dscp)) {
		if (ca_state == MLTCP_CA_CWR || ca_state == MLTCP_CA_RECOVERY)
			return -1;
		if (ca_state <= MLTCP_CA_DISORDER && !(p->mode & MLTCP_MODE_GATE) &&
		    !it->armed_cwnd && *cwnd <= MLTCP_ARMED_CWND_MAX) {
			it->armed_cwnd = (u16)(*cwnd | MLTCP_ARMED_PRIO);
			*cwnd = window;
			*hold = MLTCP_PRIO_HOLD_BEGAN;
			return -1;
		}
	}
	return mltcp_prio_dscp(pc, cls, cur_dscp);
}

/*
 * Data sent and not yet cumulatively acknowledged, in segments of mss
 * bytes, a short one counted whole: what mltcp_prio_move() calls unacked.
 * In bytes, not the kernel's packets_out: a receiver delays its ACK by the
 * bytes it holds, and several short segments (small writes, TCP_NODELAY)
 * are packets_out > 1 within one MSS.
 */
u32 mltcp_unacked_segs(u32 unacked_bytes, u32 mss)
{
	mss = max_u32(mss, 1);
	return unacked_bytes / mss + !!(unacked_bytes % mss);
}

/*
 * Ends a held move up (mltcp_prio_move()): *cwnd gets the saved window back.
 * At the drain, before the drain's own restart (why: RELEASED), and at a
 * reduction's ssthresh, which reduces the window saved, not the one held
 * (REDUCED). Returns why, or MLTCP_PRIO_HOLD_NONE if no move up was held.
 */
enum mltcp_prio_hold mltcp_prio_release(struct mltcp_iter *it, const struct mltcp_params *p,
					u32 *cwnd, enum mltcp_prio_hold why)
{
	if (!mltcp_prio_held(it, p))
		return MLTCP_PRIO_HOLD_NONE;
	*cwnd = it->armed_cwnd & MLTCP_ARMED_CWND_MAX;
	it->armed_cwnd = 0;
	return why;
}

/*
 * Divisor for tcp_cong_avoid_ai(): cwnd grows by one segment per w acked
 * segments. Reno's w is cwnd (one segment per RTT); F segments per RTT is
 * cwnd / F. F == 1 returns cwnd itself so the base arithmetic is unchanged.
 * Below 2^22 segments (every window in practice) cwnd / F in MLTCP_ONE
 * units fits 32 bits, and a 32-bit division is the cheaper one per ACK.
 */
u32 mltcp_reno_ai_w(u32 cwnd, u32 f)
{
	if (f == MLTCP_ONE)
		return cwnd;
	if (!f)
		return MLTCP_W_NO_GROWTH;
	if (cwnd < (1U << (32 - MLTCP_SHIFT)))
		return max_u32((cwnd << MLTCP_SHIFT) / f, 1);
	return max_u32(clamp_u64_to_u32(mltcp_div64((u64)cwnd << MLTCP_SHIFT, f)), 1);
}

/* With F == 1 this is max(cwnd >> 1, 2), tcp_reno_ssthresh() exactly. */
u32 mltcp_reno_ssthresh(u32 cwnd, u32 f)
{
	u64 ssthresh = ((u64)cwnd * mltcp_md_beta(MLTCP_RENO_BETA, f)) >> MLTCP_SHIFT;

	return max_u32((u32)ssthresh, 2);
}

/*
 * Floor of the cube root, bit by bit; only run when an epoch starts.
 * cand^3 <= x is tested as cand^2 <= x / cand (exact for integers, and
 * cand^2 < 2^44 cannot overflow). Unlike a bound on cand, it never decides
 * a branch from constants alone, which would keep the BPF verifier from
 * merging the paths through the loop.
 */
u32 mltcp_cbrt(u64 x)
{
	u32 root = 0;
	int bit;

	for (bit = 21; bit >= 0; bit--) {
		u64 cand = root | (1U << bit);

		if (cand * cand <= mltcp_div64(x, cand))
			root = (u32)cand;
	}
	return root;
}

void mltcp_cubic_init(struct mltcp_cubic *c)
{
	*c = (struct mltcp_cubic){ 0 };
}

/*
 * After an RTO the curve restarts from the next congestion-avoidance ACK
 * with K = 0 and W_max = cwnd there (RFC 9438 4.8): the window before the
 * timeout says nothing about the path any more. The kernel's cubic agrees:
 * entering TCP_CA_Loss, bictcp_reset() clears last_max_cwnd with the rest of
 * its epoch state.
 */
void mltcp_cubic_reset(struct mltcp_cubic *c)
{
	c->ai_cwnd = 0;
	c->w_max = 0;
	c->w_est_credit = 0;
}

/*
 * Time spent idle or application-limited does not advance the curve, and
 * the divisor is recomputed at the next ACK that may grow the window.
 */
void mltcp_cubic_pause(struct mltcp_cubic *c, u32 now_us)
{
	c->last_us = now_us;
	c->ai_w = 0;
}

u32 mltcp_cubic_ssthresh(struct mltcp_cubic *c, u32 cwnd, u32 f)
{
	u64 ssthresh;

	/* Fast convergence (RFC 9438 4.7): release bandwidth to newer flows. */
	if (cwnd < c->w_max)
		c->w_max = (u32)(((u64)cwnd * (MLTCP_ONE + MLTCP_CUBIC_BETA)) >>
				 (MLTCP_SHIFT + 1));
	else
		c->w_max = cwnd;
	c->ai_cwnd = 0;

	ssthresh = ((u64)cwnd * mltcp_md_beta(MLTCP_CUBIC_BETA, f)) >> MLTCP_SHIFT;
	return max_u32((u32)ssthresh, 2);
}

/* K = cbrt((W_max - cwnd) / C), computed in 2^-10 s and returned in us. */
static u32 cubic_k_us(u32 diff)
{
	u64 k = mltcp_cbrt(mltcp_div64((u64)min_u32(diff, CUBIC_K_DIFF_MAX) <<
				       (3 * CUBIC_TIME_SHIFT + MLTCP_SHIFT),
				       MLTCP_CUBIC_C));

	return (u32)((k * USEC_PER_SEC) >> CUBIC_TIME_SHIFT);
}

/* Microseconds to curve time units (2^-10 s), at most CUBIC_DT_MAX. */
static u64 cubic_us_to_units(u32 us)
{
	if (us >= CUBIC_DT_MAX_US)
		return CUBIC_DT_MAX;
	return (us * CUBIC_US_MUL) >> CUBIC_US_SHIFT;
}

/* W(t) = C (t - K)^3 + W_max in segments, t in curve microseconds. */
u32 mltcp_cubic_window(const struct mltcp_cubic *c, u32 t_us)
{
	bool after_k = t_us >= c->k_us;
	u64 dt = cubic_us_to_units(after_k ? t_us - c->k_us : c->k_us - t_us);
	u64 offs;

	/* C < 2^9 and dt^3 <= 2^51: no overflow. */
	offs = (MLTCP_CUBIC_C * dt * dt * dt) >> (3 * CUBIC_TIME_SHIFT + MLTCP_SHIFT);

	if (after_k)
		return clamp_u64_to_u32(c->w_max + offs);
	return offs < c->w_max ? c->w_max - (u32)offs : 0;
}

static void cubic_epoch_start(struct mltcp_cubic *c, u32 cwnd, u32 now_us)
{
	c->elapsed_us = 0;
	c->last_us = now_us;
	c->ai_w = 0;
	c->w_est = cwnd;
	c->w_est_credit = 0;
	if (cwnd < c->w_max) {
		c->k_us = cubic_k_us(c->w_max - cwnd);
	} else {
		c->k_us = 0;
		c->w_max = cwnd;
	}
}

/*
 * RFC 9438 4.3: W_est += alpha * acked / cwnd, here also scaled by F. The
 * credit reaches a whole segment once in about cwnd / alpha ACKs: only
 * then is there something to divide.
 *
 * alpha stays 3 (1 - beta) / (1 + beta) all epoch, as in the kernel's cubic
 * (its tcp_cwnd grows by one per 15/8 cwnd acked, alpha = 0.533). RFC 9438
 * says the sender SHOULD switch to alpha = 1 once W_est passes the window
 * of the last reduction; where losses keep windows small (the Reno-friendly
 * region) that made us 15-20% more aggressive than the kernel's cubic at
 * 0.5% and 2% random loss (bench/fidelity.py), and users compare the two.
 */
static void cubic_grow_estimate(struct mltcp_cubic *c, u32 cwnd, u32 acked, u32 f)
{
	u64 per_segment = (u64)cwnd << MLTCP_SHIFT;
	u64 credit = c->w_est_credit +
		     ((((u64)acked * MLTCP_CUBIC_ALPHA) * f) >> MLTCP_SHIFT);
	u64 steps = 0;

	if (credit >= per_segment)
		steps = mltcp_div64(credit, per_segment);

	c->w_est = clamp_u64_to_u32(c->w_est + steps);
	c->w_est_credit = (u32)(credit - steps * per_segment);
}

/*
 * The divisor that moves cwnd towards the RFC 9438 target within one RTT.
 * The target, in either region, is at most 1.5 cwnd (RFC 9438 4.2), and the
 * divisor at least 2 (the kernel's cnt >= 2): one segment per two acked,
 * 1.5x per RTT, however far the Reno-friendly estimate or the curve runs
 * ahead of cwnd (after an undo or a restarted window, or with a large F).
 */
static u32 cubic_compute_ai_w(const struct mltcp_cubic *c, u32 cwnd, u32 rtt_us, u32 f)
{
	u32 t, w_now, target;

	w_now = mltcp_cubic_window(c, c->elapsed_us);
	if (w_now < c->w_est) {
		/* Reno-friendly region: follow the estimate. */
		target = c->w_est;
	} else {
		t = clamp_u64_to_u32(c->elapsed_us +
				     (((u64)rtt_us * f) >> MLTCP_SHIFT));
		target = mltcp_cubic_window(c, t);
	}
	target = min_u32(target, cwnd + cwnd / 2);
	if (target <= cwnd)
		return MLTCP_W_NO_GROWTH;
	return max_u32(cwnd / (target - cwnd), CUBIC_AI_W_MIN);
}

/* The divisor computed for this cwnd less than 1/32 s ago, or 0. */
static u32 cubic_cached_ai_w(const struct mltcp_cubic *c, u32 cwnd, u16 tick)
{
	if (!c->ai_w || c->ai_cwnd != cwnd || (u16)(tick - c->ai_tick) > CUBIC_RECALC_TICKS)
		return 0;
	return c->ai_w == CUBIC_AI_W_NO_GROWTH ? MLTCP_W_NO_GROWTH : c->ai_w;
}

static void cubic_cache_ai_w(struct mltcp_cubic *c, u32 cwnd, u16 tick, u32 w)
{
	c->ai_cwnd = cwnd;
	c->ai_tick = tick;
	if (w == MLTCP_W_NO_GROWTH)
		c->ai_w = CUBIC_AI_W_NO_GROWTH;
	else
		c->ai_w = w <= CUBIC_AI_W_CACHED_MAX ? (u16)w : 0;
}

/*
 * Congestion avoidance step: returns the tcp_cong_avoid_ai() divisor. The
 * curve's clock and the Reno-friendly estimate advance with every ACK; the
 * divisor is reused while it is fresh (CUBIC_RECALC_TICKS) and F is 1, the
 * base algorithm, which is what the kernel's reuse is fidelity to. While F
 * is not 1 it moves with the flow's progress every ACK, and so does the
 * divisor: a reuse over 1/32 s would hold F still for hundreds of RTTs in a
 * data center.
 */
u32 mltcp_cubic_ai_w(struct mltcp_cubic *c, u32 cwnd, u32 acked,
		     u32 now_us, u32 rtt_us, u32 f)
{
	u16 tick = (u16)(now_us >> CUBIC_TICK_SHIFT);
	u32 w;

	if (!c->ai_cwnd) {
		cubic_epoch_start(c, cwnd, now_us);
	} else {
		u64 dt = ((u64)(u32)(now_us - c->last_us) * f) >> MLTCP_SHIFT;

		c->elapsed_us = clamp_u64_to_u32(c->elapsed_us + dt);
		c->last_us = now_us;
	}
	cubic_grow_estimate(c, cwnd, acked, f);

	if (f != MLTCP_ONE) {
		c->ai_w = 0;
		c->ai_cwnd = cwnd;	/* in an epoch: nonzero */
		return cubic_compute_ai_w(c, cwnd, rtt_us, f);
	}
	w = cubic_cached_ai_w(c, cwnd, tick);
	if (w)
		return w;
	w = cubic_compute_ai_w(c, cwnd, rtt_us, f);
	cubic_cache_ai_w(c, cwnd, tick, w);
	return w;
}
