// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Parsing the BPF flow iterator's lines (the module's debugfs format).
#include <gtest/gtest.h>

#include "flows.h"

namespace
{

using mltcp::bpf::parse_flow_line;
using mltcp::bpf::tidy_flow_line;

const char *kV4 = "netns=4026532177 src=10.77.0.1:42484 dst=10.77.0.2:5201 ca=mltcp base=cubic "
		  "mode=ai cwnd=1232 ssthresh=2147483647 iterations=7 iter_bytes=4194304 fixed=0 "
		  "bytes_this_iter=1048576 last_iter_us=134000 r=0.250 f=0.600 slope=1.600 "
		  "intercept=0.200\n";

TEST(BpfFlows, ParsesAnIpv4Line)
{
	auto flow = parse_flow_line(kV4);

	ASSERT_TRUE(flow.has_value());
	const nlohmann::json &f = *flow;
	EXPECT_EQ(f["netns"], 4026532177ULL);
	EXPECT_EQ(f["src"], "10.77.0.1");
	EXPECT_EQ(f["sport"], 42484);
	EXPECT_EQ(f["dst"], "10.77.0.2");
	EXPECT_EQ(f["dport"], 5201);
	EXPECT_EQ(f["ca"], "mltcp");
	EXPECT_EQ(f["base"], "cubic");
	EXPECT_EQ(f["mode"], "ai");
	EXPECT_EQ(f["cwnd"], 1232);
	EXPECT_EQ(f["ssthresh"], 2147483647);
	EXPECT_EQ(f["iterations"], 7);
	EXPECT_EQ(f["iter_bytes"], 4194304);
	EXPECT_EQ(f["fixed"], false);
	EXPECT_EQ(f["bytes_this_iter"], 1048576);
	EXPECT_EQ(f["last_iter_us"], 134000);
	EXPECT_EQ(f["r"], 0.25);
	EXPECT_EQ(f["f"], 0.6);
	EXPECT_EQ(f["slope"], 1.6);
	EXPECT_EQ(f["intercept"], 0.2);
}

TEST(BpfFlows, CompressesIpv6Addresses)
{
	std::string line = "netns=1 src=[0000:0000:0000:0000:0000:0000:0000:0001]:5201 "
			   "dst=[fd00:0000:0000:0000:0000:0000:0000:00a2]:40000 ca=mltcp_reno "
			   "fixed=1 r=1.000";
	auto flow = parse_flow_line(line);

	ASSERT_TRUE(flow.has_value());
	EXPECT_EQ((*flow)["src"], "::1");
	EXPECT_EQ((*flow)["dst"], "fd00::a2");
	EXPECT_EQ((*flow)["dport"], 40000);
	EXPECT_EQ((*flow)["fixed"], true);
	EXPECT_EQ(tidy_flow_line(line),
		  "netns=1 src=[::1]:5201 dst=[fd00::a2]:40000 ca=mltcp_reno fixed=1 r=1.000");
}

TEST(BpfFlows, TidyLeavesIpv4Alone)
{
	std::string line(kV4);

	line.pop_back(); // the newline
	EXPECT_EQ(tidy_flow_line(kV4), line);
}

TEST(BpfFlows, RejectsMalformedLines)
{
	for (const char *bad : {
		     "",
		     "garbage",
		     "netns=1 ca=mltcp",	      // no src
		     "src=10.0.0.1:1 dst=10.0.0.2:2", // no ca
		     "src=10.0.0.1:1 ca=mltcp cwnd=x",
		     "src=10.0.0.1:99999 ca=mltcp",
		     "src=10.0.0.300:1 ca=mltcp",
		     "src=[::1:1 ca=mltcp",
		     "src=10.0.0.1:1 ca=mltcp r=0.5",
		     "src=10.0.0.1:1 ca=mltcp =3",
		     "src=10.0.0.1:1 ca=mltcp iter_bytes=99999999999999999999999",
	     })
		EXPECT_FALSE(parse_flow_line(bad).has_value()) << bad;
}

TEST(BpfFlows, KeepsUnknownFieldsAsText)
{
	auto flow = parse_flow_line("src=10.0.0.1:1 ca=mltcp model=resnet");

	ASSERT_TRUE(flow.has_value());
	EXPECT_EQ((*flow)["model"], "resnet");
}

TEST(BpfFlows, JobCookieAndIdleGapAreNumbers)
{
	auto flow = parse_flow_line("cookie=8193 job=3 src=10.0.0.1:1 ca=mltcp idle_gap_us=20000");

	ASSERT_TRUE(flow.has_value());
	EXPECT_EQ((*flow)["cookie"], 8193);
	EXPECT_EQ((*flow)["job"], 3);
	EXPECT_EQ((*flow)["idle_gap_us"], 20000);
	EXPECT_FALSE(parse_flow_line("job=resnet src=10.0.0.1:1 ca=mltcp"));
}

} // namespace
