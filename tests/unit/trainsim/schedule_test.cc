// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "schedule.h"

namespace
{

using namespace mltcp::trainsim;

TEST(TrainsimSchedule, ExchangeIsOneStepOfTheWholeSize)
{
	auto steps = collective_schedule(Collective::exchange, 2, 0, 1 << 20);
	ASSERT_EQ(steps.size(), 1u);
	EXPECT_EQ(steps[0].send_bytes, 1u << 20);
	EXPECT_EQ(steps[0].recv_bytes, 1u << 20);
	EXPECT_EQ(schedule_totals(steps).sent, 1u << 20);
	EXPECT_EQ(schedule_totals(steps).received, 1u << 20);
}

TEST(TrainsimSchedule, PushSendsFromRankZeroOnly)
{
	auto steps = collective_schedule(Collective::push, 2, 0, 1000001);
	ASSERT_EQ(steps.size(), 1u);
	EXPECT_EQ(steps[0].send_bytes, 1000001u);
	EXPECT_EQ(steps[0].recv_bytes, 0u);

	steps = collective_schedule(Collective::push, 2, 1, 1000001);
	ASSERT_EQ(steps.size(), 1u);
	EXPECT_EQ(steps[0].send_bytes, 0u);
	EXPECT_EQ(steps[0].recv_bytes, 1000001u);
	EXPECT_EQ(schedule_totals(steps).sent, 0u);
	EXPECT_EQ(schedule_totals(steps).received, 1000001u);
}

TEST(TrainsimSchedule, ChunksSpreadTheRemainderAndAddUp)
{
	for (unsigned world : { 2u, 3u, 4u, 7u })
		for (uint64_t bytes : { 7ull, 1000ull, 1000001ull, (64ull << 20) + 3 }) {
			uint64_t total = 0;
			for (unsigned k = 0; k < world; k++) {
				uint64_t size = ring_chunk_bytes(bytes, world, k);
				EXPECT_TRUE(size == bytes / world || size == bytes / world + 1);
				total += size;
			}
			EXPECT_EQ(total, bytes) << world << " " << bytes;
		}
	// 10 = 4 + 3 + 3: the extra byte goes to the lowest chunk.
	EXPECT_EQ(ring_chunk_bytes(10, 3, 0), 4u);
	EXPECT_EQ(ring_chunk_bytes(10, 3, 1), 3u);
	EXPECT_EQ(ring_chunk_bytes(10, 3, 2), 3u);
}

TEST(TrainsimSchedule, RingThreeWorkers)
{
	// 1000001 = 333334 + 333334 + 333333.
	auto steps = collective_schedule(Collective::ring, 3, 0, 1000001);
	ASSERT_EQ(steps.size(), 4u); // 2 (N - 1)
	const uint64_t expected[] = { 333334, 333334, 333334, 333334 };
	for (size_t s = 0; s < steps.size(); s++) {
		EXPECT_EQ(steps[s].send_bytes, expected[s]) << s;
		EXPECT_EQ(steps[s].recv_bytes, steps[s].send_bytes) << s;
	}
	// Each phase moves all but the one chunk the rank keeps, 333333 bytes.
	EXPECT_EQ(schedule_totals(steps).sent, 2u * (1000001 - 333333));
	EXPECT_EQ(schedule_totals(steps).received, 2u * (1000001 - 333333));
}

TEST(TrainsimSchedule, RingFourWorkers)
{
	// Divisible: every step moves exactly SIZE/N, 2(N-1)/N * SIZE in all.
	auto steps = collective_schedule(Collective::ring, 4, 0, 4 << 20);
	ASSERT_EQ(steps.size(), 6u);
	for (const auto &step : steps) {
		EXPECT_EQ(step.send_bytes, 1u << 20);
		EXPECT_EQ(step.recv_bytes, 1u << 20);
	}
	EXPECT_EQ(schedule_totals(steps).sent, 6u << 20);
	EXPECT_EQ(schedule_totals(steps).received, 6u << 20);

	// 10 bytes: chunks 3 3 2 2; steps move chunks 0 1 2 twice.
	steps = collective_schedule(Collective::ring, 4, 0, 10);
	ASSERT_EQ(steps.size(), 6u);
	const uint64_t expected[] = { 3, 3, 2, 3, 3, 2 };
	for (size_t s = 0; s < steps.size(); s++)
		EXPECT_EQ(steps[s].send_bytes, expected[s]) << s;
	EXPECT_EQ(schedule_totals(steps).sent, 16u); // 2 * (10 - floor(10 / 4))
	EXPECT_EQ(schedule_totals(steps).received, 16u);
}

TEST(TrainsimSchedule, TwoWorkerRingMovesTheWholeSizeEachWay)
{
	auto steps = collective_schedule(Collective::ring, 2, 0, 1001);
	ASSERT_EQ(steps.size(), 2u);
	EXPECT_EQ(steps[0].send_bytes, 501u);
	EXPECT_EQ(steps[1].send_bytes, 501u);
}


TEST(TrainsimSchedule, ComputeTimesRepeatPerWorkerAndStayInBounds)
{
	Config config;
	config.job = "resnet";
	config.compute_us = 1000;
	config.jitter_us = 300;
	config.seed = 9;

	ComputeTimes a(config), b(config);
	config.rank = 1;
	ComputeTimes other_rank(config);
	bool differs = false;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = a.next_us();
		EXPECT_EQ(x, b.next_us());
		EXPECT_GE(x, 700u);
		EXPECT_LE(x, 1300u);
		differs |= x != other_rank.next_us();
	}
	EXPECT_TRUE(differs);

	config.jitter_us = 5000; // more jitter than compute: clamped at 0
	ComputeTimes wide(config);
	uint64_t zeros = 0;
	for (int i = 0; i < 1000; i++)
		zeros += wide.next_us() == 0;
	EXPECT_GT(zeros, 0u);

	config.jitter_us = 0;
	ComputeTimes exact(config);
	EXPECT_EQ(exact.next_us(), 1000u);
}

// The slot schedule (--slot-period): iteration n's slot is iteration 0's
// start plus n periods, in nanoseconds from a period in microseconds.
TEST(TrainsimSlots, TheSlotsAreAGridFromTheFirstStart)
{
	const int64_t first = 1763790000'000000000ll;
	EXPECT_EQ(iteration_slot_ns(first, 25000, 0), first);
	EXPECT_EQ(iteration_slot_ns(first, 25000, 1), first + 25'000'000);
	EXPECT_EQ(iteration_slot_ns(first, 25000, 1000), first + 25'000'000'000ll);
	EXPECT_EQ(iteration_slot_ns(first, 1, 7), first + 7000);
	// No schedule: no slot.
	EXPECT_EQ(iteration_slot_ns(first, 0, 5), std::nullopt);
}

TEST(TrainsimSlots, AnEarlyIterationWaitsForItsSlotALateOneBeginsAtOnce)
{
	const int64_t first = 1'000'000'000;
	const uint64_t period_us = 10'000; // 10 ms
	auto slot = iteration_slot_ns(first, period_us, 3); // at first + 30 ms
	ASSERT_TRUE(slot);
	// Ready 4 ms before its slot: waits for it.
	EXPECT_EQ(slot_start_ns(slot, first + 26'000'000), first + 30'000'000);
	// Ready exactly at it.
	EXPECT_EQ(slot_start_ns(slot, first + 30'000'000), first + 30'000'000);
	// Ready 1 us late: at once, not at the next boundary (first + 40 ms).
	EXPECT_EQ(slot_start_ns(slot, first + 30'001'000), first + 30'001'000);
	// Ready a period and more late: still at once.
	EXPECT_EQ(slot_start_ns(slot, first + 45'000'000), first + 45'000'000);
	// Without a slot: at once, whenever ready.
	EXPECT_EQ(slot_start_ns(std::nullopt, first + 26'000'000), first + 26'000'000);
}

// The grid stays that of the iteration's index: a late iteration does not
// move the later slots, so a short compute phase after it re-aligns the job.
TEST(TrainsimSlots, ALateIterationDoesNotMoveTheGrid)
{
	const int64_t first = 0;
	const uint64_t period_us = 10'000;
	const int64_t compute = 6'000'000, ms = 1'000'000;
	// Collectives of 4, 7 (late by 3), 2 and 4 ms, compute always 6 ms.
	const int64_t comm[] = { 4 * ms, 7 * ms, 2 * ms, 4 * ms };
	const int64_t expected_compute_start[] = { 0, 10 * ms, 23 * ms, 31 * ms };
	int64_t ready = first;
	for (uint64_t n = 0; n < 4; n++) {
		int64_t begin = slot_start_ns(iteration_slot_ns(first, period_us, n), ready);
		EXPECT_EQ(begin, expected_compute_start[n]) << "iteration " << n;
		ready = begin + compute + comm[n];
	}
	// Iteration 2 began 3 ms late (at 23, not 20) and its 2 ms collective
	// made up only 2 of them: iteration 3 began 1 ms late, at 31. Had that
	// collective taken no time, iteration 3 would have waited for its slot.
	ready = 23 * ms + compute;
	EXPECT_EQ(slot_start_ns(iteration_slot_ns(first, period_us, 3), ready), 30 * ms);
}

TEST(TrainsimSlots, SlotsOutsideTheRangeAreNeverReached)
{
	const int64_t max = std::numeric_limits<int64_t>::max();
	const uint64_t hour_us = 3'600'000'000ull;
	const int64_t first = 1763790000'000000000ll;
	// The last slot in range and the first past it.
	const uint64_t last = static_cast<uint64_t>((max - first) / (hour_us * 1000));
	ASSERT_TRUE(iteration_slot_ns(first, hour_us, last));
	EXPECT_LE(*iteration_slot_ns(first, hour_us, last), max);
	EXPECT_EQ(iteration_slot_ns(first, hour_us, last + 1), std::nullopt);
	EXPECT_EQ(iteration_slot_ns(first, hour_us, UINT64_MAX), std::nullopt);
	EXPECT_EQ(iteration_slot_ns(first, UINT64_MAX, 1), std::nullopt);
	EXPECT_EQ(iteration_slot_ns(-1, 1000, 1), std::nullopt);
	// Never reached: the iteration begins when ready.
	EXPECT_EQ(slot_start_ns(iteration_slot_ns(first, hour_us, UINT64_MAX), 42), 42);
}

} // namespace
