// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The patterns' arithmetic (schedule.h: split_chunks(), ddp_buckets(),
// iteration_plan(), ready_after_us()) and their options.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "config.h"
#include "protocol.h"
#include "schedule.h"

namespace
{

using namespace mltcp::trainsim;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

uint64_t sum(const std::vector<uint64_t> &v)
{
	return std::accumulate(v.begin(), v.end(), uint64_t{ 0 });
}

std::vector<uint64_t> split(uint64_t message, unsigned sockets, unsigned &turn)
{
	std::vector<uint64_t> per_socket(sockets);
	split_chunks(message, per_socket, turn);
	return per_socket;
}

TEST(TrainsimPattern, ChunksAreTheMessageOverTheSocketsAtLeast64K)
{
	unsigned turn = 0;
	// 1 MiB over 4: a chunk of 256 KiB each.
	EXPECT_EQ(split(MiB, 4, turn), (std::vector<uint64_t>{ 256 * KiB, 256 * KiB, 256 * KiB,
								256 * KiB }));
	EXPECT_EQ(turn, 0u);
	// 100 KiB over 4: chunks of 64 KiB, the last short; the turn moves on.
	EXPECT_EQ(split(100 * KiB, 4, turn), (std::vector<uint64_t>{ 64 * KiB, 36 * KiB, 0, 0 }));
	EXPECT_EQ(turn, 2u);
	EXPECT_EQ(split(100 * KiB, 4, turn), (std::vector<uint64_t>{ 0, 0, 64 * KiB, 36 * KiB }));
	EXPECT_EQ(turn, 0u);
	// Uneven: ceil(1000001 / 8) each, the last what remains.
	auto chunks = split(1000001, 8, turn);
	EXPECT_EQ(sum(chunks), 1000001u);
	EXPECT_EQ(chunks[0], 125001u);
	EXPECT_EQ(chunks[7], 1000001u - 7 * 125001u);
	// An empty message takes no turn.
	EXPECT_EQ(split(0, 8, turn), std::vector<uint64_t>(8));
	EXPECT_EQ(turn, 0u);
}

TEST(TrainsimPattern, DdpBucketsAreDdpsSizesForALargeModel)
{
	auto buckets = ddp_buckets(100 * MiB, default_bucket_bytes, default_first_bucket_bytes);
	EXPECT_EQ(buckets, (std::vector<uint64_t>{ MiB, 25 * MiB, 25 * MiB, 25 * MiB, 24 * MiB }));
}

TEST(TrainsimPattern, DdpBucketsScaleDownToKeepATrain)
{
	// 10 MiB < 4 x 25 MiB: both sizes scaled by 10/100.
	auto buckets = ddp_buckets(10 * MiB, default_bucket_bytes, default_first_bucket_bytes);
	ASSERT_GE(buckets.size(), ddp_min_buckets);
	EXPECT_EQ(buckets.front(), (MiB + 9) / 10);
	EXPECT_EQ(buckets[1], (25 * MiB + 9) / 10);
	EXPECT_EQ(sum(buckets), 10 * MiB);
	// Tiny: 1-byte buckets at the least.
	buckets = ddp_buckets(3, default_bucket_bytes, default_first_bucket_bytes);
	EXPECT_EQ(buckets, (std::vector<uint64_t>{ 1, 1, 1 }));
}

Config two_ranks(Pattern pattern, uint64_t bytes, unsigned sockets)
{
	Config c;
	c.job = "j";
	c.world = 2;
	c.bytes = bytes;
	c.collective = Collective::exchange;
	c.pattern = pattern;
	c.sockets = sockets;
	return c;
}

TEST(TrainsimPattern, BurstIsTheCollectiveScheduleOnOneSocket)
{
	Config c = two_ranks(Pattern::burst, 5 * MiB, 1);
	c.world = 4;
	c.collective = Collective::ring;
	auto plan = iteration_plan(c);
	auto steps = collective_schedule(Collective::ring, 4, 0, 5 * MiB);
	ASSERT_EQ(plan.size(), steps.size());
	for (size_t i = 0; i < plan.size(); i++) {
		EXPECT_EQ(plan[i].message, 0u);
		EXPECT_EQ(plan[i].ready_bytes, 5 * MiB);
		EXPECT_EQ(plan[i].send, std::vector<uint64_t>{ steps[i].send_bytes });
		EXPECT_EQ(plan[i].recv, std::vector<uint64_t>{ steps[i].recv_bytes });
	}
}

TEST(TrainsimPattern, NcclRingStepsAreChunkedOverTheSockets)
{
	// 4 ranks, 4 MiB: 6 steps of 1 MiB, each 256 KiB on every socket.
	Config c = two_ranks(Pattern::nccl, 4 * MiB, 4);
	c.world = 4;
	c.collective = Collective::ring;
	auto plan = iteration_plan(c);
	ASSERT_EQ(plan.size(), 6u);
	for (const PlanStep &step : plan) {
		EXPECT_EQ(step.send, std::vector<uint64_t>(4, 256 * KiB));
		EXPECT_EQ(step.recv, step.send);
	}
}

TEST(TrainsimPattern, DdpPlanReleasesBucketsInOrderAsTheComputeGoes)
{
	Config c = two_ranks(Pattern::ddp, 10 * MiB, 1);
	auto buckets = ddp_buckets(c.bytes, c.bucket_bytes, c.first_bucket_bytes);
	auto plan = iteration_plan(c);
	ASSERT_EQ(plan.size(), buckets.size()); // one exchange step per bucket
	uint64_t ready = 0;
	for (size_t i = 0; i < plan.size(); i++) {
		ready += buckets[i];
		EXPECT_EQ(plan[i].message, i);
		EXPECT_EQ(plan[i].ready_bytes, ready);
		EXPECT_EQ(plan[i].send, std::vector<uint64_t>{ buckets[i] });
	}
	EXPECT_EQ(plan.back().ready_bytes, c.bytes);
	// Gradients at a steady rate: the first bucket early, the last at the end.
	EXPECT_EQ(ready_after_us(100'000, plan[0].ready_bytes, c.bytes),
		  100'000 * buckets[0] / c.bytes);
	EXPECT_LT(ready_after_us(100'000, plan[0].ready_bytes, c.bytes), 2'000u);
	EXPECT_EQ(ready_after_us(100'000, c.bytes, c.bytes), 100'000u);
}

TEST(TrainsimPattern, PushChunksTheSameOnBothEnds)
{
	Config sender = two_ranks(Pattern::nccl, 300 * KiB, 4), receiver = sender;
	sender.collective = receiver.collective = Collective::push;
	receiver.rank = 1;
	auto sent = iteration_plan(sender), received = iteration_plan(receiver);
	ASSERT_EQ(sent.size(), 1u);
	EXPECT_EQ(sent[0].send, received[0].recv);
	EXPECT_EQ(sent[0].send, (std::vector<uint64_t>{ 76800, 76800, 76800, 76800 }));
	EXPECT_EQ(received[0].send, std::vector<uint64_t>(4));
}

std::vector<std::string> line(std::vector<std::string> more)
{
	std::vector<std::string> args = { "--job",  "j",	"--rank",	"0",	 "--world",
					  "2",	    "--listen", "5000",		"--next", "h:5000",
					  "--bytes", "64M",	"--compute",	"1s",	  "--iterations",
					  "3" };
	args.insert(args.end(), more.begin(), more.end());
	return args;
}

std::string error_of(std::vector<std::string> more)
{
	ParseResult result = parse_command_line(line(std::move(more)));
	EXPECT_EQ(result.outcome, ParseResult::Outcome::error);
	EXPECT_EQ(result.error.find('\n'), std::string::npos);
	return result.error;
}

TEST(TrainsimPattern, Options)
{
	ParseResult r = parse_command_line(line({}));
	ASSERT_EQ(r.outcome, ParseResult::Outcome::run);
	EXPECT_EQ(r.config.pattern, Pattern::burst);
	EXPECT_EQ(r.config.sockets, 1u);

	r = parse_command_line(line({ "--pattern", "nccl" }));
	ASSERT_EQ(r.outcome, ParseResult::Outcome::run);
	EXPECT_EQ(r.config.sockets, default_nccl_sockets);

	r = parse_command_line(
		line({ "--pattern", "ddp", "--bucket", "4M", "--first-bucket", "256K", "--sockets",
		       "2" }));
	ASSERT_EQ(r.outcome, ParseResult::Outcome::run) << r.error;
	EXPECT_EQ(r.config.pattern, Pattern::ddp);
	EXPECT_EQ(r.config.bucket_bytes, 4 * MiB);
	EXPECT_EQ(r.config.first_bucket_bytes, 256 * KiB);
	EXPECT_EQ(r.config.sockets, 2u);

	EXPECT_EQ(error_of({ "--pattern", "tree" }),
		  "--pattern: unknown pattern \"tree\" (burst, ddp or nccl)");
	EXPECT_EQ(error_of({ "--pattern", "nccl", "--sockets", "0" }),
		  "--sockets: must be between 1 and 64, got 0");
	EXPECT_EQ(error_of({ "--pattern", "nccl", "--sockets", "65" }),
		  "--sockets: must be between 1 and 64, got 65");
	EXPECT_EQ(error_of({ "--sockets", "4" }),
		  "--sockets: burst sends on one socket per connection (use --pattern nccl or ddp)");
	EXPECT_EQ(error_of({ "--pattern", "nccl", "--bucket", "4M" }),
		  "--bucket: only with --pattern ddp");
	EXPECT_EQ(error_of({ "--pattern", "ddp", "--first-bucket", "30M" }),
		  "--first-bucket: 31457280 is larger than --bucket 26214400");
	EXPECT_EQ(error_of({ "--pattern", "ddp", "--bucket", "0" }),
		  "--bucket: must be between 1 byte and 1T");
}

TEST(TrainsimPattern, HelloCarriesThePattern)
{
	ParseResult r = parse_command_line(line({ "--pattern", "ddp" }));
	ASSERT_EQ(r.outcome, ParseResult::Outcome::run);
	Config peer = r.config;
	peer.rank = 1;
	EXPECT_FALSE(check_hello(r.config, make_hello(peer)));
	peer.pattern = Pattern::nccl;
	peer.sockets = 4;
	EXPECT_EQ(*check_hello(r.config, make_hello(peer)),
		  "it has pattern=nccl, expected pattern=ddp");
	peer.pattern = Pattern::ddp;
	EXPECT_EQ(*check_hello(r.config, make_hello(peer)), "it has sockets=4, expected sockets=1");
}

} // namespace
