// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

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

} // namespace

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
