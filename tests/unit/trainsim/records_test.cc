// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "protocol.h"
#include "records.h"

namespace
{

using namespace mltcp::trainsim;

TEST(TrainsimRecords, SecondsAreExactMicroseconds)
{
	EXPECT_EQ(format_seconds_ns(1763790000123456789ll), "1763790000.123457");
	EXPECT_EQ(format_seconds_ns(1763790000123456499ll), "1763790000.123456");
	EXPECT_EQ(format_seconds_ns(1999999999999999500ll), "2000000000.000000");
	EXPECT_EQ(format_seconds_ns(0), "0.000000");
	EXPECT_EQ(format_seconds_ns(600'000'000), "0.600000");
	EXPECT_EQ(format_seconds_ns(-1'500'000), "-0.001500");
	EXPECT_EQ(format_seconds_ns(-1), "0.000000");
}

TEST(TrainsimRecords, IterationLine)
{
	IterationRecord r;
	r.job = "job \"1\"";
	r.rank = 1;
	r.world = 2;
	r.iteration = 7;
	r.start_ns = 1763790000'000000000ll;
	r.comm_start_ns = r.start_ns + 600'000'000;
	r.end_ns = r.comm_start_ns + 123'456'000;
	r.compute_target_us = 600000;
	r.bytes_sent = 1 << 20;
	r.bytes_received = 1 << 20;
	r.cc = "mltcp";
	r.retrans = 3;
	std::string line = to_json(r);
	EXPECT_EQ(line.find('\n'), std::string::npos);
	EXPECT_EQ(line.find("{\"type\":\"iteration\",\"job\":\"job \\\"1\\\"\",\"rank\":1"), 0u)
		<< line;
	EXPECT_NE(line.find("\"start\":1763790000.000000,\"comm_start\":1763790000.600000,"
			    "\"end\":1763790000.723456,\"compute_s\":0.600000,\"comm_s\":0.123456"),
		  std::string::npos)
		<< line;
	auto json = nlohmann::json::parse(line);
	EXPECT_EQ(json["job"], "job \"1\"");
	EXPECT_EQ(json["iteration"], 7);
	EXPECT_EQ(json["bytes_sent"], 1 << 20);
	EXPECT_EQ(json["bytes_received"], 1 << 20);
	EXPECT_EQ(json["cc"], "mltcp");
	EXPECT_EQ(json["retrans"], 3);
	EXPECT_DOUBLE_EQ(json["compute_target_s"].get<double>(), 0.6);
	EXPECT_NEAR(json["end"].get<double>() - json["start"].get<double>(), 0.723456, 1e-6);
}

// With a slot schedule the iteration begins when the last ended and its
// compute phase at its slot: the wait is in the iteration, not in compute_s.
TEST(TrainsimRecords, IterationLineWithASlot)
{
	IterationRecord r;
	r.job = "j";
	r.start_ns = 1763790000'000000000ll;
	r.slot_ns = r.start_ns + 4'000'000;
	r.comm_start_ns = *r.slot_ns + 600'000'000;
	r.end_ns = r.comm_start_ns + 100'000'000;
	auto json = nlohmann::json::parse(to_json(r));
	EXPECT_DOUBLE_EQ(json["slot"].get<double>(), 1763790000.004);
	EXPECT_NEAR(json["slot_wait_s"].get<double>(), 0.004, 1e-9);
	EXPECT_NEAR(json["compute_s"].get<double>(), 0.6, 1e-9);
	EXPECT_NEAR(json["end"].get<double>() - json["start"].get<double>(), 0.704, 1e-6);

	// Late for its slot: no wait, the compute phase from the start.
	r.slot_ns = r.start_ns - 1'000'000;
	json = nlohmann::json::parse(to_json(r));
	EXPECT_DOUBLE_EQ(json["slot_wait_s"].get<double>(), 0.0);
	EXPECT_NEAR(json["compute_s"].get<double>(), 0.604, 1e-9);

	// Without a schedule, neither field.
	r.slot_ns.reset();
	json = nlohmann::json::parse(to_json(r));
	EXPECT_FALSE(json.contains("slot"));
	EXPECT_FALSE(json.contains("slot_wait_s"));
}

// A marking worker's records (--mark) end with the mark's time; the others
// are as they were.
TEST(TrainsimRecords, IterationLineWithAMark)
{
	IterationRecord r;
	r.job = "j";
	r.start_ns = 1763790000'000000000ll;
	r.comm_start_ns = r.start_ns + 600'000'000;
	r.end_ns = r.comm_start_ns + 100'000'000;
	EXPECT_FALSE(nlohmann::json::parse(to_json(r)).contains("mark_s"));
	r.mark_ns = 14'499;
	std::string line = to_json(r);
	EXPECT_NE(line.find(",\"mark_s\":0.000014}"), std::string::npos) << line;
}

TEST(TrainsimRecords, SummaryLine)
{
	SummaryRecord s;
	s.job = "j";
	s.world = 3;
	s.collective = "ring";
	s.status = "complete";
	s.iteration_s = { 1.0, 3.0, 2.0 };
	s.comm_s = { 0.5, 0.25, 0.75 };
	s.bytes_sent = 10;
	s.bytes_received = 11;
	s.total_retrans = 2;
	s.cc = "cubic";
	auto json = nlohmann::json::parse(to_json(s));
	EXPECT_EQ(json["type"], "summary");
	EXPECT_EQ(json["iterations"], 3);
	EXPECT_DOUBLE_EQ(json["mean_iter_s"].get<double>(), 2.0);
	EXPECT_DOUBLE_EQ(json["p50_iter_s"].get<double>(), 2.0);
	EXPECT_DOUBLE_EQ(json["p99_iter_s"].get<double>(), 3.0);
	EXPECT_DOUBLE_EQ(json["mean_comm_s"].get<double>(), 0.5);
	EXPECT_EQ(json["bytes_sent"], 10);
	EXPECT_EQ(json["bytes_received"], 11);
	EXPECT_EQ(json["total_retrans"], 2);
	EXPECT_EQ(json["status"], "complete");

	// No iterations: the statistics are null, not zero.
	SummaryRecord empty;
	empty.status = "interrupted";
	json = nlohmann::json::parse(to_json(empty));
	EXPECT_EQ(json["iterations"], 0);
	EXPECT_TRUE(json["mean_iter_s"].is_null());
	EXPECT_TRUE(json["p99_iter_s"].is_null());
}

TEST(TrainsimRecords, EscapesControlCharacters)
{
	EXPECT_EQ(mltcp::trainsim::json_escape("a\\b\n\x01"), "a\\\\b\\n\\u0001");
}

} // namespace
