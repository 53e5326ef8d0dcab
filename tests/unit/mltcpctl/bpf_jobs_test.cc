// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF backend's job table entries and flow lines, without a kernel:
// requests applied with the module's rules, entries decoded back, and the
// flow iterator's lines read into the model the printer shares with the
// module's backend.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "args.h"
#include "bpf_jobs.h"
#include "output.h"
#include "uapi/mltcp.h"

using namespace mltcpctl;

namespace
{

Job parsed(std::vector<std::string> args)
{
	ParseResult r = parse_args(args);
	EXPECT_TRUE(r.command) << r.error;
	return r.command ? r.command->job : Job{};
}

mltcp_bpf_job added(std::vector<std::string> args)
{
	mltcp_bpf_job e{};
	std::vector<std::string> full{ "job", "add" };
	full.insert(full.end(), args.begin(), args.end());
	EXPECT_EQ(apply_bpf_job(e, parsed(full)), "");
	return e;
}

std::string json_of(const Job &job)
{
	std::ostringstream out;
	Printer p(out, true, false);
	p.begin_list();
	print_job(p, job);
	p.end_list();
	return out.str();
}

} // namespace

TEST(BpfJobs, TheLayoutBpfAndUserspaceShare)
{
	// The BPF side copies the job out of the slot past the lock; a layout
	// change must be deliberate (the loaded object and the tool must agree).
	EXPECT_EQ(sizeof(mltcp_bpf_job), 72u);
	EXPECT_EQ(sizeof(mltcp_bpf_job_slot), 80u);
	EXPECT_EQ(offsetof(mltcp_bpf_job_slot, job), 8u);
	EXPECT_LE(MLTCP_BPF_JOBS_MAX, MLTCP_GENL_JOBS_MAX);
}

TEST(BpfJobs, AddEncodesEveryField)
{
	mltcp_bpf_job e = added(
		{ "7",	  "dport",	 "5000-5010", "sport", "40000",	    "peer",  "10.1.2.3/16",
		  "mark", "0x1234/0xff", "slope",     "2",     "intercept", "0.5",   "idle-gap",
		  "30ms", "iter-bytes",	 "64M",	      "base",  "reno",	    "exempt" });
	EXPECT_EQ(e.id, 7u);
	EXPECT_EQ(e.fields, static_cast<uint32_t>(MLTCP_JOB_F_ALL));
	EXPECT_EQ(e.dport_min, 5000);
	EXPECT_EQ(e.dport_max, 5010);
	EXPECT_EQ(e.sport_min, 40000);
	EXPECT_EQ(e.sport_max, 40000);
	EXPECT_EQ(e.peer_family, AF_INET);
	EXPECT_EQ(e.peer_prefixlen, 16);
	EXPECT_EQ(e.peer[0], inet_addr("10.1.0.0")); // masked to the prefix, network order
	EXPECT_EQ(e.mark, 0x34u);		     // masked, as the module stores it
	EXPECT_EQ(e.mark_mask, 0xffu);
	EXPECT_EQ(e.slope, 2048u);
	EXPECT_EQ(e.intercept, 512u);
	EXPECT_EQ(e.idle_gap_us, 30000u);
	EXPECT_EQ(e.iter_bytes, 64ULL << 20);
	EXPECT_EQ(e.base, MLTCP_BASE_RENO);
	EXPECT_EQ(e.exempt, 1);
}

TEST(BpfJobs, Ipv6PrefixIsMasked)
{
	mltcp_bpf_job e = added({ "1", "peer", "fd00:1:2:3:4:5:6:7/52" });
	unsigned char want[16];
	ASSERT_EQ(inet_pton(AF_INET6, "fd00:1:2::", want), 1);
	EXPECT_EQ(e.peer_family, AF_INET6);
	EXPECT_EQ(e.peer_prefixlen, 52);
	EXPECT_EQ(std::memcmp(e.peer, want, 16), 0);
	e = added({ "1", "peer", "fd00::1/0" });
	EXPECT_EQ(e.peer[0] | e.peer[1] | e.peer[2] | e.peer[3], 0u);
}

TEST(BpfJobs, DecodeRoundTrips)
{
	Job j = decode_bpf_job(added({ "3", "dport", "5201", "peer", "fd00::/64", "slope", "2",
				       "intercept", "0.5", "iter-bytes", "1G", "base", "cubic" }));
	EXPECT_EQ(j.id, 3u);
	EXPECT_EQ(j.dport, (PortRange{ 5201, 5201 }));
	EXPECT_FALSE(j.sport);
	ASSERT_TRUE(j.peer);
	EXPECT_EQ(format_prefix(*j.peer), "fd00::/64");
	EXPECT_EQ(j.slope, 2048u);
	EXPECT_EQ(j.intercept, 512u);
	EXPECT_FALSE(j.idle_gap_us);
	EXPECT_EQ(j.iter_bytes, 1ULL << 30);
	EXPECT_EQ(j.base, MLTCP_GENL_BASE_CUBIC);
	EXPECT_FALSE(j.exempt);
	// No counters: the BPF backend does not keep them, and output omits them.
	EXPECT_FALSE(j.flows || j.flows_total || j.iterations || j.bytes);
	std::string json = json_of(j);
	EXPECT_EQ(json.find("flows"), std::string::npos) << json;
	EXPECT_NE(json.find("\"slope\":2.0"), std::string::npos) << json;
}

TEST(BpfJobs, SetChangesAndResetsLikeTheModule)
{
	mltcp_bpf_job e =
		added({ "1", "dport", "5201", "slope", "2", "intercept", "0.5", "exempt" });
	EXPECT_EQ(apply_bpf_job(e, parsed({ "job", "set", "1", "slope", "3", "dport", "any",
					    "intercept", "default", "sport", "1-2" })),
		  "");
	Job j = decode_bpf_job(e);
	EXPECT_FALSE(j.dport);
	EXPECT_EQ(j.sport, (PortRange{ 1, 2 }));
	EXPECT_EQ(j.slope, 3072u);
	EXPECT_FALSE(j.intercept);
	EXPECT_EQ(j.exempt, true);
	// "exempt off" is no setting, as in the module.
	EXPECT_EQ(apply_bpf_job(e, parsed({ "job", "set", "1", "exempt", "off" })), "");
	EXPECT_EQ(e.exempt, 0);
	EXPECT_EQ(e.fields & MLTCP_JOB_F_EXEMPT, 0u);
	EXPECT_FALSE(decode_bpf_job(e).exempt);
}

TEST(BpfJobs, RefusedRequestsChangeNothing)
{
	mltcp_bpf_job e = added({ "1", "dport", "5201", "slope", "2" });
	mltcp_bpf_job before = e;
	Job bad;
	bad.id = 1;

	auto refused = [&](const Job &r) {
		std::string err = apply_bpf_job(e, r);
		EXPECT_FALSE(err.empty());
		EXPECT_EQ(err.find('\n'), std::string::npos);
		EXPECT_EQ(std::memcmp(&e, &before, sizeof(e)), 0);
	};
	Job r = bad;
	r.slope = MLTCP_GENL_SLOPE_MAX + 1;
	refused(r);
	r = bad;
	r.idle_gap_us = 999;
	refused(r);
	r = bad;
	r.iter_bytes = 0;
	refused(r);
	r = bad;
	r.dport = PortRange{ 10, 9 };
	refused(r);
	r = bad;
	r.peer = Prefix{ AF_INET, {}, 33 };
	refused(r);
	r = bad;
	r.base = 2;
	refused(r);
	r = bad;
	r.slope = 1;
	r.clear = MLTCP_JOB_F_SLOPE;
	refused(r);
	r = bad;
	r.id = 0;
	refused(r);
}

TEST(BpfJobs, FlowLineToTheModel)
{
	const char *line = "netns=4026532177 cookie=8193 job=1 src=10.77.0.1:42484 "
			   "dst=10.77.0.2:5201 ca=mltcp base=reno mode=both cwnd=10 "
			   "ssthresh=2147483647 iterations=7 iter_bytes=4194304 fixed=1 "
			   "bytes_this_iter=1048576 last_iter_us=134000 r=0.250 f=1.000 "
			   "slope=2.000 intercept=0.500 idle_gap_us=20000";
	auto f = decode_bpf_flow(line);

	ASSERT_TRUE(f);
	EXPECT_EQ(f->job, 1u);
	EXPECT_EQ(f->cookie, 8193u);
	EXPECT_EQ(f->family, AF_INET);
	EXPECT_EQ(format_addr(f->family, f->saddr), "10.77.0.1");
	EXPECT_EQ(format_addr(f->family, f->daddr), "10.77.0.2");
	EXPECT_EQ(f->sport, 42484);
	EXPECT_EQ(f->dport, 5201);
	EXPECT_EQ(f->ca, "mltcp");
	EXPECT_EQ(f->base, MLTCP_GENL_BASE_RENO);
	EXPECT_EQ(f->mode, MLTCP_GENL_MODE_BOTH);
	EXPECT_EQ(f->cwnd, 10u);
	EXPECT_EQ(f->iterations, 7u);
	EXPECT_EQ(f->iter_bytes, 4194304u);
	EXPECT_TRUE(f->iter_fixed);
	EXPECT_EQ(f->bytes_this_iter, 1048576u);
	EXPECT_EQ(f->last_iter_us, 134000u);
	EXPECT_EQ(f->r, 256u);
	EXPECT_EQ(f->f, 1024u);
	EXPECT_EQ(f->slope, 2048u);
	EXPECT_EQ(f->intercept, 512u);
	EXPECT_EQ(f->idle_gap_us, 20000u);

	auto none = decode_bpf_flow("netns=1 cookie=2 job=0 src=[::1]:1 dst=[::1]:2 ca=mltcp_cubic "
				    "base=cubic mode=ai cwnd=1 ssthresh=1 iterations=0 "
				    "iter_bytes=0 fixed=0 bytes_this_iter=0 last_iter_us=0 r=0.000 "
				    "f=1.000 slope=1.600 intercept=0.200 idle_gap_us=20000");
	ASSERT_TRUE(none);
	EXPECT_FALSE(none->job);
	EXPECT_EQ(none->family, AF_INET6);
	EXPECT_EQ(none->slope, 1638u);
	EXPECT_EQ(none->intercept, 205u);
}

TEST(BpfJobs, MalformedFlowLinesAreRefused)
{
	EXPECT_FALSE(decode_bpf_flow(""));
	EXPECT_FALSE(decode_bpf_flow("garbage"));
	// An iterator of an older object: no job, cookie or idle gap.
	EXPECT_FALSE(decode_bpf_flow("netns=1 src=10.0.0.1:1 dst=10.0.0.2:2 ca=mltcp base=cubic "
				     "mode=ai cwnd=1 ssthresh=1 iterations=0 iter_bytes=0 fixed=0 "
				     "bytes_this_iter=0 last_iter_us=0 r=0.000 f=1.000 "
				     "slope=1.600 intercept=0.200"));
}

TEST(BpfJobs, ThousandthsComeBackExactly)
{
	// The iterator prints thousandths; the model holds 1/1024. Every value
	// in range must print the same thousandths again.
	for (uint32_t milli = 0; milli <= 16000; milli++) {
		char text[32];
		snprintf(text, sizeof(text), "slope=%u.%03u", milli / 1000, milli % 1000);
		std::string line =
			std::string("netns=1 cookie=2 job=0 src=10.0.0.1:1 "
				    "dst=10.0.0.2:2 ca=mltcp base=cubic mode=ai cwnd=1 "
				    "ssthresh=1 iterations=0 iter_bytes=0 fixed=0 "
				    "bytes_this_iter=0 last_iter_us=0 r=0.000 f=1.000 ") +
			text + " intercept=0.200 idle_gap_us=20000";
		auto f = decode_bpf_flow(line);
		ASSERT_TRUE(f) << line;
		ASSERT_EQ(mltcp_fixed_to_milli(f->slope), milli);
	}
}
