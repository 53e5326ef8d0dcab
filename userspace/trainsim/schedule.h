// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// How many bytes each step of a collective moves, how an iteration's bytes
// go out (the patterns: iteration_plan()), and how long each compute phase
// lasts. Pure arithmetic, shared by the worker, the ns-3 simulator (sim/)
// and the tests.
//
// The patterns model DDP's bucket sizes, their order and their overlap with
// the compute phase, and NCCL's socket transport's chunking and socket
// rotation over the ring's steps. They leave out the forward pass (the whole
// compute phase produces gradients, as a backward pass), NCCL's pipelining
// of a step's slices into the next step (a step starts when the previous
// one's data has all arrived), its tree algorithm and helper threads, and
// the frameworks' own headers.
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

// NCCL's socket transport (net_socket.cc) cuts each message into chunks of
// max(64 KiB, ceil(size / sockets)) and hands them to its sockets in turn,
// the turn carried on from one message to the next.
inline constexpr uint64_t nccl_min_chunk_bytes = 64 * 1024;

// Adds message's chunks to per_socket (one entry per socket), starting at
// socket next_socket, which is left at the socket of the chunk after them.
// An empty message takes no turn.
void split_chunks(uint64_t message, std::vector<uint64_t> &per_socket, unsigned &next_socket);

// PyTorch DDP's buckets of an iteration of bytes, in the order they are
// reduced: the first of first_bucket_bytes, then bucket_bytes each, the last
// what remains. DDP's sizes (1 MiB, 25 MiB) are for models of hundreds of MB;
// where bytes is under ddp_min_buckets buckets, both sizes are scaled by
// bytes / (ddp_min_buckets * bucket_bytes) (rounded up, at least 1 byte), so
// that a small iteration still sends a train of ddp_min_buckets or more
// buckets with DDP's proportions. Returns at least one bucket; their sum is
// bytes.
inline constexpr uint64_t ddp_min_buckets = 4;
std::vector<uint64_t> ddp_buckets(uint64_t bytes, uint64_t bucket_bytes,
				  uint64_t first_bucket_bytes);

// One step of an iteration's plan: a step of one message's collective, its
// bytes per socket of the connection to next (send) and from prev (recv).
struct PlanStep {
	size_t message; // which message (DDP bucket), in sending order
	// The message's bytes may go once the compute phase has produced this
	// many of the iteration's bytes (ready_after_us()): a DDP bucket once its
	// gradients are computed, the single message of burst and nccl (bytes)
	// at the end of the compute phase.
	uint64_t ready_bytes;
	std::vector<uint64_t> send;
	std::vector<uint64_t> recv;
};

// An iteration as config.pattern sends it: the messages' collective steps
// one after another (a DDP bucket's collective starts when it is ready and
// the bucket before it is done, as DDP's buckets are reduced in order on one
// stream), each step's bytes cut over config.sockets sockets by
// split_chunks(), the turn starting at socket 0 in each iteration and going
// on through the iteration. With one message and one socket (burst) it is
// collective_schedule() exactly.
std::vector<PlanStep> iteration_plan(const Config &config);

// Backward compute produces the gradients at a steady rate over the compute
// phase: the time after the compute phase's start at which ready_bytes of
// bytes exist. The last message is ready when the compute phase ends.
uint64_t ready_after_us(uint64_t compute_us, uint64_t ready_bytes, uint64_t bytes);

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
