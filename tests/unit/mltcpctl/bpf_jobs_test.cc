// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF backend's job table entries and flow records, without a kernel:
// requests applied by the policy (the module's rules), entries decoded back,
// and the flow iterator's binary records read into the model the printer
// shares with the module's backend.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>

#include "args.h"
#include "mltcpctl.h"
#include "bpf_jobs.h"
#include "fixtures.h"
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

// A cgroup's id stands in for the one the command would resolve.
constexpr uint64_t kCgroupId = 4242;

mltcp_job_spec added(std::vector<std::string> args)
{
	mltcp_job_spec e{};
	std::vector<std::string> full{ "job", "add" };
	full.insert(full.end(), args.begin(), args.end());
	Job job = parsed(full);
	if (job.cgroup)
		job.cgroup->id = kCgroupId;
	EXPECT_EQ(apply_job(e, job), "");
	return e;
}

} // namespace

TEST(BpfJobs, TheLayoutBpfAndUserspaceShare)
{
	// The BPF side copies the job out of the slot past the lock; a layout
	// change must be deliberate (the loaded object and the tool must agree).
	EXPECT_EQ(sizeof(mltcp_job_spec), 80u);
	EXPECT_EQ(sizeof(mltcp_bpf_job_slot), 96u);
	EXPECT_EQ(offsetof(mltcp_bpf_job_slot, spec), 8u);
	// The flow records: a header, then the policy's record.
	EXPECT_EQ(sizeof(mltcp_flow_record), 128u);
	EXPECT_EQ(sizeof(mltcp_bpf_record), 136u);
	EXPECT_EQ(offsetof(mltcp_bpf_record, flow), 8u);
	EXPECT_EQ(offsetof(mltcp_flow_record, tos), 124u);
	EXPECT_LE(MLTCP_BPF_JOBS_MAX, MLTCP_GENL_JOBS_MAX);
}

TEST(BpfJobs, AddEncodesEveryField)
{
	mltcp_job_spec e = added(
		{ "7",	  "dport",	 "5000-5010", "sport", "40000",	    "peer",  "10.1.2.3/16",
		  "mark", "0x1234/0xff", "slope",     "2",     "intercept", "0.5",   "idle-gap",
		  "30ms", "iter-bytes",	 "64M",	      "base",  "reno",	    "exempt",
		  "cgroup", "/jobs/7", "marked" });
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
	EXPECT_EQ(e.cgroup_id, kCgroupId);
	EXPECT_EQ(e.marked, 1);
}

TEST(BpfJobs, Ipv6PrefixIsMasked)
{
	mltcp_job_spec e = added({ "1", "peer", "fd00:1:2:3:4:5:6:7/52" });
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
	Job j = decode_job_spec(added({ "3", "dport", "5201", "peer", "fd00::/64", "slope", "2",
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
	std::string json = test::printed(true, j);
	EXPECT_EQ(json.find("flows"), std::string::npos) << json;
	EXPECT_NE(json.find("\"slope\":2.0"), std::string::npos) << json;
}

TEST(BpfJobs, SetChangesAndResetsLikeTheModule)
{
	mltcp_job_spec e =
		added({ "1", "dport", "5201", "slope", "2", "intercept", "0.5", "exempt" });
	EXPECT_EQ(apply_job(e, parsed({ "job", "set", "1", "slope", "3", "dport", "any",
					"intercept", "default", "sport", "1-2" })),
		  "");
	Job j = decode_job_spec(e);
	EXPECT_FALSE(j.dport);
	EXPECT_EQ(j.sport, (PortRange{ 1, 2 }));
	EXPECT_EQ(j.slope, 3072u);
	EXPECT_FALSE(j.intercept);
	EXPECT_EQ(j.exempt, true);
	// "exempt off" is no setting, as in the module.
	EXPECT_EQ(apply_job(e, parsed({ "job", "set", "1", "exempt", "off" })), "");
	EXPECT_EQ(e.exempt, 0);
	EXPECT_EQ(e.fields & MLTCP_JOB_F_EXEMPT, 0u);
	EXPECT_FALSE(decode_job_spec(e).exempt);
}

TEST(BpfJobs, RefusedRequestsChangeNothing)
{
	mltcp_job_spec e = added({ "1", "dport", "5201", "slope", "2" });
	mltcp_job_spec before = e;
	Job bad;
	bad.id = 1;

	auto refused = [&](const Job &r) {
		std::string err = apply_job(e, r);
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

namespace
{

// A record as the iterator writes it.
mltcp_bpf_record record(const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	mltcp_bpf_record rec{};
	mltcp_flow_record &r = rec.flow;

	rec.magic = MLTCP_BPF_RECORD_MAGIC;
	rec.size = sizeof(rec);
	r.family = strchr(src, ':') ? AF_INET6 : AF_INET;
	EXPECT_EQ(inet_pton(r.family, src, r.saddr), 1);
	EXPECT_EQ(inet_pton(r.family, dst, r.daddr), 1);
	r.sport = sport;
	r.dport = dport;
	r.cookie = 8193;
	r.netns = 4026532177u;
	snprintf(r.ca, sizeof(r.ca), "mltcp");
	r.base = MLTCP_BASE_CUBIC;
	r.mode = MLTCP_MODE_AI;
	r.cwnd = 10;
	r.ssthresh = 2147483647;
	r.slope = 1638;
	r.intercept = 205;
	r.idle_gap_us = 20000;
	r.f = 1024;
	return rec;
}

std::string bytes_of(const std::vector<mltcp_bpf_record> &records)
{
	return std::string(reinterpret_cast<const char *>(records.data()),
			   records.size() * sizeof(mltcp_bpf_record));
}

std::optional<std::vector<Flow>> decode(const std::string &bytes, std::string *error = nullptr)
{
	std::string ignored;
	return decode_flow_records(bytes, error ? error : &ignored);
}

} // namespace

TEST(BpfJobs, FlowRecordToTheModel)
{
	mltcp_bpf_record rec = record("10.77.0.1", 42484, "10.77.0.2", 5201);
	mltcp_flow_record &r = rec.flow;
	r.job = 1;
	r.base = MLTCP_BASE_RENO;
	r.mode = MLTCP_MODE_BOTH;
	r.iterations = 7;
	r.iter_bytes = 4194304;
	r.iter_fixed = 1;
	r.bytes_this_iter = 1048576;
	r.last_iter_us = 134000;
	r.r = 256;
	r.slope = 2048;
	r.intercept = 512;
	auto flows = decode(bytes_of({ rec }));

	ASSERT_TRUE(flows);
	ASSERT_EQ(flows->size(), 1u);
	const Flow &f = (*flows)[0];
	EXPECT_EQ(f.job, 1u);
	EXPECT_EQ(f.cookie, 8193u);
	EXPECT_EQ(f.family, AF_INET);
	EXPECT_EQ(format_addr(f.family, f.saddr), "10.77.0.1");
	EXPECT_EQ(format_addr(f.family, f.daddr), "10.77.0.2");
	EXPECT_EQ(f.sport, 42484);
	EXPECT_EQ(f.dport, 5201);
	EXPECT_EQ(f.ca, "mltcp");
	EXPECT_EQ(f.base, MLTCP_GENL_BASE_RENO);
	EXPECT_EQ(f.mode, MLTCP_GENL_MODE_BOTH);
	EXPECT_EQ(f.cwnd, 10u);
	EXPECT_EQ(f.ssthresh, 2147483647u);
	EXPECT_EQ(f.iterations, 7u);
	EXPECT_EQ(f.iter_bytes, 4194304u);
	EXPECT_TRUE(f.iter_fixed);
	EXPECT_EQ(f.bytes_this_iter, 1048576u);
	EXPECT_EQ(f.last_iter_us, 134000u);
	EXPECT_EQ(f.r, 256u);
	EXPECT_EQ(f.f, 1024u);
	EXPECT_EQ(f.slope, 2048u);
	EXPECT_EQ(f.intercept, 512u);
	EXPECT_EQ(f.idle_gap_us, 20000u);
	EXPECT_FALSE(f.exempt); // the caller's, from the job table

	mltcp_bpf_record v6 = record("::1", 5201, "fd00::a2", 40000);
	snprintf(v6.flow.ca, sizeof(v6.flow.ca), "mltcp_reno");
	flows = decode(bytes_of({ rec, v6 }));
	ASSERT_TRUE(flows);
	ASSERT_EQ(flows->size(), 2u);
	const Flow &g = (*flows)[1];
	EXPECT_FALSE(g.job);
	EXPECT_EQ(g.family, AF_INET6);
	EXPECT_EQ(g.ca, "mltcp_reno");
	EXPECT_EQ(g.slope, 1638u);
	EXPECT_EQ(g.intercept, 205u);
	// IPv6 addresses compressed in the text, as the module's backend prints them.
	std::string text = test::printed(false, g);
	EXPECT_EQ(text.rfind("[::1]:5201 -> [fd00::a2]:40000 job - ca mltcp_reno "
			     "base cubic mode ai",
			     0),
		  0u)
		<< text;
	EXPECT_EQ(decode(""), std::vector<Flow>{}); // no flows
}

TEST(BpfJobs, RecordsOfAnotherVersionAreRefused)
{
	mltcp_bpf_record good = record("10.0.0.1", 1, "10.0.0.2", 2);
	std::string error;

	mltcp_bpf_record other = good;
	other.magic ^= 1;
	EXPECT_FALSE(decode(bytes_of({ good, other }), &error));
	EXPECT_NE(error.find("another version's records"), std::string::npos) << error;
	EXPECT_EQ(error.find('\n'), std::string::npos);
	other = good;
	other.size += 8;
	EXPECT_FALSE(decode(bytes_of({ other }), &error));
	EXPECT_NE(error.find("another version's records"), std::string::npos) << error;
	// An iterator of an older object wrote text lines.
	EXPECT_FALSE(decode("netns=1 cookie=2 job=0 src=10.0.0.1:1 dst=10.0.0.2:2 ca=mltcp "
			    "base=cubic mode=ai cwnd=1 ssthresh=1 iterations=0 iter_bytes=0 "
			    "fixed=0 bytes_this_iter=0 last_iter_us=0 r=0.000 f=1.000 "
			    "slope=1.600 intercept=0.200 idle_gap_us=20000\n",
			    &error));
	EXPECT_NE(error.find("another version's records"), std::string::npos) << error;
	// Cut short: inside the header, inside the record.
	std::string bytes = bytes_of({ good, good });
	for (size_t cut : { size_t{ 3 }, sizeof(good) - 1, sizeof(good) + 7, sizeof(good) + 100 }) {
		EXPECT_FALSE(decode(bytes.substr(0, bytes.size() - cut), &error)) << cut;
		EXPECT_NE(error.find("ends inside a record"), std::string::npos) << error;
	}
}

TEST(BpfJobs, MalformedRecordsAreRefused)
{
	auto refused = [](mltcp_bpf_record rec) {
		std::string error;
		EXPECT_FALSE(decode(bytes_of({ rec }), &error));
		EXPECT_EQ(error, "malformed record from the BPF flow iterator");
	};
	mltcp_bpf_record rec = record("10.0.0.1", 1, "10.0.0.2", 2);
	rec.flow.family = 0;
	refused(rec);
	rec = record("10.0.0.1", 1, "10.0.0.2", 2);
	rec.flow.mode = 0; // never latched: the iterator skips these
	refused(rec);
	rec.flow.mode = MLTCP_MODE_ALL + 1;
	refused(rec);
	rec = record("10.0.0.1", 1, "10.0.0.2", 2);
	rec.flow.base = MLTCP_BASE_CUBIC + 1;
	refused(rec);
	rec = record("10.0.0.1", 1, "10.0.0.2", 2);
	memset(rec.flow.ca, 'x', sizeof(rec.flow.ca)); // no NUL
	refused(rec);
	rec.flow.ca[0] = '\0';
	refused(rec);
}

TEST(BpfJobs, FixedPointComesBackExactly)
{
	// The record holds the flow's 1/1024 values: every slope in range comes
	// back exactly, not rounded to thousandths and back.
	for (uint32_t fixed = 0; fixed <= MLTCP_SLOPE_MAX; fixed++) {
		mltcp_bpf_record rec = record("10.0.0.1", 1, "10.0.0.2", 2);
		rec.flow.slope = fixed;
		rec.flow.r = fixed;
		auto flows = decode(bytes_of({ rec }));
		ASSERT_TRUE(flows);
		ASSERT_EQ((*flows)[0].slope, fixed);
		ASSERT_EQ((*flows)[0].r, fixed);
	}
}

TEST(BpfJobs, FlowRecordCarriesTheSocketsDscp)
{
	mltcp_bpf_record rec = record("10.0.0.1", 1, "10.0.0.2", 2);

	rec.flow.tos = (24 << 2) | 2; // CS3 with ECT(0): the ECN bits are not the DSCP
	auto flows = decode(bytes_of({ rec }));
	ASSERT_TRUE(flows);
	EXPECT_EQ((*flows)[0].dscp, 24);
	EXPECT_FALSE((*flows)[0].prio_class); // the backend sets it from the prio map
}

TEST(BpfJobs, TheClassOfADscp)
{
	mltcp_prio_config pc;

	mltcp_prio_config_default(&pc);
	pc.classes = 4;
	EXPECT_EQ(prio_class_of(pc, 8), 0);
	EXPECT_EQ(prio_class_of(pc, 32), 3);
	EXPECT_FALSE(prio_class_of(pc, 40)); // CS5: beyond K
	EXPECT_FALSE(prio_class_of(pc, 0));  // prio-none's
	EXPECT_FALSE(prio_class_of(pc, 10)); // an application's own
	pc.classes = 0;
	EXPECT_FALSE(prio_class_of(pc, 8)); // off: no class
}
