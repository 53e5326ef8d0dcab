// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// How many bytes each step of a collective moves, and how long each compute
// phase lasts. Pure arithmetic, shared by the worker, the ns-3 simulator
// (sim/) and the tests.
#ifndef MLTCP_TRAINSIM_SCHEDULE_H
#define MLTCP_TRAINSIM_SCHEDULE_H

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "config.h"

namespace mltcp::trainsim
{

// One step: send send_bytes to next while receiving recv_bytes from prev. The
// step is complete when both are.
struct Step {
	uint64_t send_bytes;
	uint64_t recv_bytes;
};

// Size of chunk k (0 <= k < world) when bytes are cut into world chunks: the
// remainder goes to the lowest chunks, one byte each, so sizes differ by at
// most one and add up to bytes exactly.
uint64_t ring_chunk_bytes(uint64_t bytes, unsigned world, unsigned chunk);

// exchange: one step of {bytes, bytes}.
// push (world 2): one step, {bytes, 0} on rank 0 and {0, bytes} on rank 1; the
// only collective whose schedule depends on the rank.
// ring: 2(world - 1) steps, reduce-scatter then all-gather; step k of either
// phase moves chunk k (k < world - 1). Every rank uses the same schedule, so a
// step's send to next and receive from prev have the same size, and each rank
// sends and receives 2 * (bytes - floor(bytes / world)) bytes per iteration:
// exactly 2(N-1)/N * bytes when world divides bytes. (In the textbook
// algorithm each rank skips a different chunk, so ranks would differ by up to
// two bytes; a rank-independent schedule keeps sent == received on every rank.)
std::vector<Step> collective_schedule(Collective collective, unsigned world, unsigned rank,
				      uint64_t bytes);

struct Totals {
	uint64_t sent;
	uint64_t received;
};

Totals schedule_totals(const std::vector<Step> &steps);

// The slot schedule (--slot-period): iteration index may begin its compute
// phase no earlier than its slot, first_ns + index * period_us, where first_ns
// is iteration 0's start (--start-at + --offset). iteration_slot_ns() is that
// slot: none without a schedule (period_us 0), nor where it falls outside the
// int64 nanosecond range (or first_ns is before the epoch): never reached.
std::optional<int64_t> iteration_slot_ns(int64_t first_ns, uint64_t period_us, uint64_t index);

// When an iteration ready at ready_ns (its last collective complete) begins
// its compute phase: at its slot, or at once where it is ready later (its
// last collective ran long) or has none.
//
// At once, not at the next slot boundary: the period is the ideal iteration
// at line rate (bench/oracle.py), so a job has no slack of its own and a TCP
// phase runs a little over its ideal (the window's ramp, jitter). Waiting for
// the next boundary would turn every such overrun into a lost period, an
// iteration of 2P; starting at once costs the overrun only. The slots stay
// those of iteration index (the grid never moves to a late start), so a later
// short compute phase brings the job back to its slot: that is the
// re-alignment. A job that overruns at every iteration falls behind its slots
// by the sum of its overruns and is not pulled back.
int64_t slot_start_ns(std::optional<int64_t> slot_ns, int64_t ready_ns);

// The compute phase of each iteration: config.compute_us plus uniform noise
// in [-jitter_us, +jitter_us], clamped at 0. Jitter must differ between
// workers (real workers are not in lockstep) yet repeat from run to run: the
// generator mixes config.seed with the job's name and the rank.
class ComputeTimes
{
public:
	explicit ComputeTimes(const Config &config);
	uint64_t next_us();

private:
	uint64_t compute_us_;
	uint64_t jitter_us_;
	std::mt19937_64 rng_;
};

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_SCHEDULE_H
