// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>


#include "ackmark.h"
#include "args.h"
#include "fixtures.h"
#include "flow.h"
#include "job.h"
#include "output.h"
#include "uapi/mltcp.h"

using namespace mltcpctl;

using test::printed;
using test::sample_job;

TEST(Output, JobAsText)
{
	EXPECT_EQ(printed(false, sample_job()),
		  "job 7 dport 5000-5010 sport 1-65535 peer fd00::/64 mark 0x10/0xff slope 2.5 "
		  "intercept 0.2 "
		  "idle-gap 20ms iter-bytes 64M base reno exempt flows 2 flows-total 5 "
		  "iterations 9 bytes 1234\n");
	Job bare;
	bare.id = 1;
	EXPECT_EQ(printed(false, bare), "job 1\n");
}

TEST(Output, JobAsJsonHasTheSameFields)
{
	auto j = nlohmann::json::parse(printed(true, sample_job()));
	ASSERT_EQ(j.size(), 1u);
	auto o = j[0];
	EXPECT_EQ(o["id"], 7);
	EXPECT_EQ(o["dport"]["min"], 5000);
	EXPECT_EQ(o["dport"]["max"], 5010);
	EXPECT_EQ(o["sport"]["min"], 1);
	EXPECT_EQ(o["sport"]["max"], 65535);
	EXPECT_EQ(o["peer"], "fd00::/64");
	EXPECT_EQ(o["mark"], 16);
	EXPECT_EQ(o["mark_mask"], 255);
	EXPECT_EQ(o["slope"], 2.5);
	EXPECT_EQ(o["intercept"], 0.2);
	EXPECT_EQ(o["idle_gap_us"], 20000);
	EXPECT_EQ(o["iter_bytes"], 64 << 20);
	EXPECT_EQ(o["base"], "reno");
	EXPECT_EQ(o["exempt"], true);
	EXPECT_EQ(o["flows"], 2);
	EXPECT_EQ(o["flows_total"], 5);
	EXPECT_EQ(o["iterations"], 9);
	EXPECT_EQ(o["bytes"], 1234);
}

TEST(Output, FlowBothWays)
{
	Flow f;
	f.family = AF_INET6;
	inet_pton(AF_INET6, "::1", f.saddr.data());
	inet_pton(AF_INET6, "::1", f.daddr.data());
	f.sport = 40000;
	f.dport = 5000;
	f.ca = "mltcp_reno";
	f.mode = MLTCP_GENL_MODE_BOTH;
	f.r = 512;
	f.f = 1024 + 512;
	f.slope = 1024;
	f.intercept = 1024;
	f.idle_gap_us = 1500000;
	std::string text = printed(false, f);
	EXPECT_EQ(
		text.rfind("[::1]:40000 -> [::1]:5000 job - ca mltcp_reno base reno mode both", 0),
		0u)
		<< text;
	EXPECT_NE(text.find("r 0.500 F 1.500 slope 1 intercept 1 idle-gap 1500ms"),
		  std::string::npos)
		<< text;
	auto o = nlohmann::json::parse(printed(true, f))[0];
	EXPECT_EQ(o["src"], "::1");
	EXPECT_EQ(o["sport"], 40000);
	EXPECT_TRUE(o["job"].is_null());
	EXPECT_EQ(o["mode"], "both");
	EXPECT_EQ(o["r"], 0.5);
	EXPECT_EQ(o["f"], 1.5);
	// A datapath that does not say whether a move up is held: no field.
	EXPECT_FALSE(o.contains("prio_held"));
	EXPECT_EQ(text.find("held"), std::string::npos) << text;
}

// A move up held (the low cwnd is the hold's): "held" in the text, as
// "untrusted" is; JSON a boolean either way.
TEST(Output, FlowHoldingAMoveUp)
{
	Flow f = test::sample_flow(AF_INET);
	f.prio_held = true;
	std::string text = printed(false, f);
	// Beside the size it acts on, as "untrusted" would be (this one is trusted).
	EXPECT_NE(text.find(" iter-bytes 64M fixed held this-iter "), std::string::npos) << text;
	EXPECT_EQ(nlohmann::json::parse(printed(true, f))[0]["prio_held"], true);

	f.prio_held = false;
	text = printed(false, f);
	EXPECT_EQ(text.find("held"), std::string::npos) << text;
	auto o = nlohmann::json::parse(printed(true, f))[0];
	ASSERT_TRUE(o.contains("prio_held"));
	EXPECT_EQ(o["prio_held"], false);
}

TEST(Output, AckmarkBothWays)
{
	ackmark::Marker m;
	m.dev = "eth0";
	m.ifindex = 2;
	m.prog_id = 57;
	m.ours = true;
	m.dscp = 46;
	m.stats = std::array<uint64_t, MLTCP_ACKMARK_NR_STATS>{ 120, 3075 };
	ackmark::Marker other;
	other.dev = "eth1";
	other.ifindex = 3;
	other.prog_id = 9;
	other.ours = false;
	ackmark::Marker kind;
	kind.dev = "eth2";
	kind.ifindex = 4;
	kind.ours = false;

	for (bool json : { false, true }) {
		std::ostringstream out;
		Printer p(out, json, false);
		p.begin_list();
		print_ackmark(p, m);
		print_ackmark(p, other);
		print_ackmark(p, kind);
		p.end_list();
		if (!json) {
			EXPECT_EQ(out.str(), "dev eth0 prog id 57 dscp 46 marked 120 left 3075\n"
					     "dev eth1 prog id 9 (another program, not the marker)\n"
					     "dev eth2 (a filter of another kind)\n");
			continue;
		}
		auto j = nlohmann::json::parse(out.str());
		ASSERT_EQ(j.size(), 3u);
		EXPECT_EQ(j[0], nlohmann::json({ { "dev", "eth0" },
						 { "ifindex", 2 },
						 { "prog_id", 57 },
						 { "ours", true },
						 { "dscp", 46 },
						 { "marked", 120 },
						 { "left", 3075 } }));
		EXPECT_EQ(j[1]["ours"], false);
		EXPECT_TRUE(j[1]["dscp"].is_null());
		EXPECT_FALSE(j[1].contains("marked"));
		EXPECT_EQ(j[2]["prog_id"], 0);
	}
}
