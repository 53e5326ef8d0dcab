// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "args.h"
#include "mltcpctl.h"
#include "fixtures.h"
#include "message.h"
#include "mltcp_policy.h"
#include "uapi/mltcp.h"

using namespace mltcpctl;
using test::range_ack;
using test::sample_flow;
using test::sample_job;

namespace
{

constexpr uint16_t kFamily = 33;

const nlmsghdr *only_message(const Bytes &b)
{
	auto msgs = split_messages(b.data(), b.size());
	EXPECT_EQ(msgs.size(), 1u);
	return msgs.empty() ? nullptr : msgs[0];
}

} // namespace

TEST(Message, JobRoundTrip)
{
	Job j = sample_job();
	// An IPv4 peer, a zero intercept, iter-bytes past 32 bits, no exemption.
	j.peer = test::prefix(AF_INET, "10.1.0.0", 16);
	j.intercept = 0;
	j.iter_bytes = 1ull << 40;
	j.exempt = false;
	Bytes b = encode_job(kFamily, MLTCP_CMD_JOB_ADD, j, 5, NLM_F_ACK);
	const nlmsghdr *nlh = only_message(b);
	ASSERT_TRUE(nlh);
	EXPECT_EQ(nlh->nlmsg_type, kFamily);
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	EXPECT_EQ(nlh->nlmsg_seq, 5u);
	auto *genl = static_cast<const genlmsghdr *>(mnl_nlmsg_get_payload(nlh));
	EXPECT_EQ(genl->cmd, MLTCP_CMD_JOB_ADD);
	EXPECT_EQ(genl->version, MLTCP_GENL_VERSION);
	auto back = decode_job(nlh);
	ASSERT_TRUE(back);
	EXPECT_EQ(*back, j);
}

TEST(Message, JobRoundTripV6CountersAndClear)
{
	Job j;
	j.id = 1;
	j.peer = test::prefix(AF_INET6, "fd00:1::", 48);
	j.exempt = true;
	j.clear = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_DPORT;
	j.flows = 3;
	j.flows_total = 1ull << 33;
	j.iterations = 12;
	j.bytes = 999999999999ull;
	auto back = decode_job(only_message(encode_job(kFamily, MLTCP_CMD_JOB_GET, j, 1, 0)));
	ASSERT_TRUE(back);
	EXPECT_EQ(*back, j);
}

TEST(Message, JobIdAndFlowDumpRequests)
{
	Bytes b = encode_job_id(kFamily, MLTCP_CMD_JOB_DEL, 9, 2, NLM_F_ACK);
	auto j = decode_job(only_message(b));
	ASSERT_TRUE(j);
	EXPECT_EQ(j->id, 9u);
	Bytes d = encode_flow_dump(kFamily, 4, 3);
	const nlmsghdr *nlh = only_message(d);
	EXPECT_EQ(nlh->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
	const nlattr *attr =
		static_cast<const nlattr *>(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN));
	EXPECT_EQ(mnl_attr_get_type(attr), MLTCP_FLOW_A_JOB);
	EXPECT_EQ(mnl_attr_get_u32(attr), 4u);
	EXPECT_EQ(encode_flow_dump(kFamily, std::nullopt, 3).size(), NLMSG_HDRLEN + GENL_HDRLEN);
}

TEST(Message, FlowRoundTrip)
{
	for (int family : { AF_INET, AF_INET6 }) {
		Flow f = sample_flow(family);
		auto back = decode_flow(only_message(encode_flow(kFamily, f, 1)));
		ASSERT_TRUE(back);
		EXPECT_EQ(*back, f);
	}
	Flow nojob = sample_flow(AF_INET);
	nojob.job.reset();
	auto back = decode_flow(only_message(encode_flow(kFamily, nojob, 1)));
	ASSERT_TRUE(back);
	EXPECT_FALSE(back->job);
	// Not held, and a module that does not say (no attribute): false, none.
	Flow unheld = sample_flow(AF_INET);
	unheld.prio_held = false;
	back = decode_flow(only_message(encode_flow(kFamily, unheld, 1)));
	ASSERT_TRUE(back);
	EXPECT_EQ(back->prio_held, std::optional<bool>(false));
	unheld.prio_held.reset();
	back = decode_flow(only_message(encode_flow(kFamily, unheld, 1)));
	ASSERT_TRUE(back);
	EXPECT_FALSE(back->prio_held);
}

TEST(Message, StatsRequestAndRoundTrip)
{
	Bytes req = encode_stats_get(kFamily, 5);
	const nlmsghdr *nlh = only_message(req);
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	EXPECT_EQ(static_cast<const genlmsghdr *>(mnl_nlmsg_get_payload(nlh))->cmd,
		  MLTCP_CMD_STATS_GET);
	EXPECT_EQ(req.size(), NLMSG_HDRLEN + GENL_HDRLEN); // no attributes

	Stats s;
	for (int v = 0; v < MLTCP_TX_NR_VERDICTS; v++)
		s.verdicts[v] = (1ull << 40) + static_cast<uint64_t>(v);
	s.gate.emplace();
	for (int v = 0; v < MLTCP_GATE_NR_VERDICTS; v++)
		(*s.gate)[v] = (1ull << 41) + static_cast<uint64_t>(v);
	s.prio_hold.emplace();
	for (int e = 0; e < MLTCP_PRIO_HOLD_NR_EVENTS; e++)
		(*s.prio_hold)[e] = (1ull << 42) + static_cast<uint64_t>(e);
	auto back = decode_stats(only_message(encode_stats(kFamily, s, 1)));
	ASSERT_TRUE(back);
	EXPECT_EQ(*back, s);
	ASSERT_TRUE(back->gate);
	EXPECT_EQ((*back->gate)[MLTCP_GATE_REDUCED], (1ull << 41) + MLTCP_GATE_REDUCED);
	ASSERT_TRUE(back->prio_hold);
	EXPECT_EQ((*back->prio_hold)[MLTCP_PRIO_HOLD_REDUCED],
		  (1ull << 42) + MLTCP_PRIO_HOLD_REDUCED);
	EXPECT_FALSE(back->host_wide);
}

// A module older than the gate's counts: the verdicts alone decode, the
// gate's counts are not reported (not zeros).
TEST(Message, StatsWithoutTheGateDecode)
{
	Stats s;
	s.verdicts[MLTCP_TX_NEW_ITERATION] = 7;
	Bytes b = encode_stats(kFamily, s, 1);
	EXPECT_EQ(b.size(),
		  NLMSG_HDRLEN + GENL_HDRLEN +
			  MLTCP_TX_NR_VERDICTS * MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(uint64_t)));
	auto back = decode_stats(only_message(b));
	ASSERT_TRUE(back);
	EXPECT_EQ(back->verdicts[MLTCP_TX_NEW_ITERATION], 7u);
	EXPECT_FALSE(back->gate);
	EXPECT_FALSE(back->prio_hold);
}

// A module with the gate's counts and older than the holds': the gate's
// decode, the holds' are not reported.
TEST(Message, StatsWithoutTheHoldsDecode)
{
	Stats s;
	s.gate.emplace();
	(*s.gate)[MLTCP_GATE_OPEN] = 3;
	auto back = decode_stats(only_message(encode_stats(kFamily, s, 1)));
	ASSERT_TRUE(back);
	ASSERT_TRUE(back->gate);
	EXPECT_EQ((*back->gate)[MLTCP_GATE_OPEN], 3u);
	EXPECT_FALSE(back->prio_hold);
}

TEST(Message, StatsWithPartOfTheHoldsAreRejected)
{
	Stats s;
	s.gate.emplace();
	s.prio_hold.emplace();
	Bytes b = encode_stats(kFamily, s, 1);
	// The last hold count (prio-reduced) cut off: no module sends that.
	Bytes cut(b.begin(), b.end() - MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(uint64_t)));
	reinterpret_cast<nlmsghdr *>(cut.data())->nlmsg_len = static_cast<uint32_t>(cut.size());
	EXPECT_TRUE(decode_stats(only_message(b)));
	EXPECT_FALSE(decode_stats(only_message(cut)));
}

TEST(Message, StatsWithPartOfTheGateAreRejected)
{
	Stats s;
	s.gate.emplace();
	Bytes b = encode_stats(kFamily, s, 1);
	// The last gate count (gate-reduced) cut off: no module sends that.
	Bytes cut(b.begin(), b.end() - MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(uint64_t)));
	reinterpret_cast<nlmsghdr *>(cut.data())->nlmsg_len = static_cast<uint32_t>(cut.size());
	EXPECT_TRUE(decode_stats(only_message(b)));
	EXPECT_FALSE(decode_stats(only_message(cut)));
}

TEST(Message, StatsWithoutEveryVerdictAreRejected)
{
	Bytes b = encode_stats(kFamily, Stats{}, 1);
	// The last verdict's count (tx-unmarked) cut off: an older module's reply.
	Bytes cut(b.begin(), b.end() - MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(uint64_t)));
	reinterpret_cast<nlmsghdr *>(cut.data())->nlmsg_len = static_cast<uint32_t>(cut.size());
	EXPECT_FALSE(decode_stats(only_message(cut)));
}

TEST(Message, FamilyReply)
{
	Bytes req = encode_family_request(8);
	const nlmsghdr *nlh = only_message(req);
	EXPECT_EQ(nlh->nlmsg_type, GENL_ID_CTRL);
	// A controller reply as the kernel builds it.
	Bytes buf(1024);
	nlmsghdr *rep = mnl_nlmsg_put_header(buf.data());
	rep->nlmsg_type = GENL_ID_CTRL;
	auto *g = static_cast<genlmsghdr *>(mnl_nlmsg_put_extra_header(rep, sizeof(genlmsghdr)));
	g->cmd = CTRL_CMD_NEWFAMILY;
	mnl_attr_put_strz(rep, CTRL_ATTR_FAMILY_NAME, "mltcp");
	mnl_attr_put_u16(rep, CTRL_ATTR_FAMILY_ID, 38);
	mnl_attr_put_u32(rep, CTRL_ATTR_VERSION, 1);
	buf.resize(rep->nlmsg_len);
	auto info = decode_family(only_message(buf));
	ASSERT_TRUE(info);
	EXPECT_EQ(info->id, 38);
	EXPECT_EQ(info->version, 1u);
}

TEST(Message, AckRoundTrip)
{
	Ack ack = range_ack(0, 16384);
	auto back = decode_ack(only_message(encode_ack(ack, 3)));
	ASSERT_TRUE(back);
	EXPECT_EQ(*back, ack);

	Ack missing;
	missing.error = EINVAL;
	missing.missing = MLTCP_JOB_A_ID;
	back = decode_ack(only_message(encode_ack(missing, 3)));
	ASSERT_TRUE(back);
	EXPECT_EQ(*back, missing);

	back = decode_ack(only_message(encode_ack(Ack{}, 3)));
	ASSERT_TRUE(back);
	EXPECT_EQ(back->error, 0);
	EXPECT_TRUE(back->message.empty());
}

TEST(Message, DoneWithError)
{
	Bytes buf(64);
	nlmsghdr *nlh = mnl_nlmsg_put_header(buf.data());
	nlh->nlmsg_type = NLMSG_DONE;
	int32_t err = -ENOENT;
	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(err)), &err, sizeof(err));
	buf.resize(nlh->nlmsg_len);
	auto ack = decode_ack(only_message(buf));
	ASSERT_TRUE(ack);
	EXPECT_EQ(ack->error, ENOENT);
}

TEST(Message, AttrAtFindsTheOffendingAttribute)
{
	Job j;
	j.id = 1;
	j.slope = 20000;
	Bytes b = encode_job(kFamily, MLTCP_CMD_JOB_ADD, j, 1, NLM_F_ACK);
	// header 16 + genl 4, id attribute 8: slope starts at 28.
	EXPECT_EQ(attr_at(b, 20), MLTCP_JOB_A_ID);
	EXPECT_EQ(attr_at(b, 28), MLTCP_JOB_A_SLOPE);
	EXPECT_EQ(attr_at(b, 24), std::nullopt);
	EXPECT_EQ(attr_at(b, 4000), std::nullopt);
}

TEST(Message, DescribeNamesTheFieldAndItsRange)
{
	Command cmd;
	cmd.action = Action::JobAdd;
	cmd.job.id = 7;
	Job j;
	j.id = 7;
	j.idle_gap_us = 5;
	Bytes req = encode_job(kFamily, MLTCP_CMD_JOB_ADD, j, 1, NLM_F_ACK);
	Ack ack = range_ack(1000, 60000000);
	EXPECT_EQ(describe(KernelError(MLTCP_CMD_JOB_ADD, ack, req), cmd),
		  "invalid idle-gap: integer out of range (allowed 1ms to 60s)");
	ack = Ack{};
	ack.error = ENOENT;
	EXPECT_EQ(describe(KernelError(MLTCP_CMD_JOB_SET, ack, req), cmd), "job 7: no such job");
	EXPECT_EQ(describe(KernelError(0, ack, req), cmd),
		  "the tcp_mltcp module is not loaded (no generic netlink family \"mltcp\")");
	ack.error = EPERM;
	EXPECT_EQ(describe(KernelError(MLTCP_CMD_JOB_DEL, ack, req), cmd),
		  "permission denied: changing jobs needs CAP_NET_ADMIN");
	// EPERM with a reason: the namespace's bound, not a missing capability.
	ack.message = mltcp_job_strerror(MLTCP_JOB_E_BOUND);
	EXPECT_EQ(describe(KernelError(MLTCP_CMD_JOB_ADD, ack, req), cmd),
		  "job 7: mean F above 1 and F above the host's line: allowed only in the host's "
		  "network namespace");
	ack.message.clear();
	ack.error = EEXIST;
	EXPECT_EQ(describe(KernelError(MLTCP_CMD_JOB_ADD, ack, req), cmd), "job 7: already exists");
	ack.error = EINVAL;
	ack.missing = MLTCP_JOB_A_ID;
	EXPECT_EQ(describe(KernelError(MLTCP_CMD_JOB_ADD, ack, req), cmd),
		  "invalid job ID: Invalid argument");
}

TEST(Message, MalformedRepliesAreRejected)
{
	Job j = sample_job();
	Bytes good = encode_job(kFamily, MLTCP_CMD_JOB_GET, j, 1, 0);

	// No id.
	Job noid = j;
	noid.id = 0;
	EXPECT_FALSE(decode_job(only_message(encode_job(kFamily, MLTCP_CMD_JOB_GET, noid, 1, 0))));
	// Shorter than the generic netlink header.
	// (the buffer padded, as the kernel would send it).
	Bytes tiny(good.begin(), good.begin() + NLMSG_HDRLEN + 4);
	reinterpret_cast<nlmsghdr *>(tiny.data())->nlmsg_len = NLMSG_HDRLEN + 2;
	EXPECT_FALSE(decode_job(only_message(tiny)));
	// The u32 id attribute shrunk to 2 bytes.
	Bytes shrunk = good;
	auto *id = reinterpret_cast<nlattr *>(shrunk.data() + NLMSG_HDRLEN + GENL_HDRLEN);
	ASSERT_EQ(id->nla_type, MLTCP_JOB_A_ID);
	id->nla_len = 6;
	EXPECT_FALSE(decode_job(only_message(shrunk)));
	// A flow with a 5-byte address.
	Flow f = sample_flow(AF_INET);
	Bytes fb = encode_flow(kFamily, f, 1);
	for (size_t off = NLMSG_HDRLEN + GENL_HDRLEN; off + 4 <= fb.size();) {
		auto *a = reinterpret_cast<nlattr *>(fb.data() + off);
		if (a->nla_type == MLTCP_FLOW_A_FAMILY)
			*static_cast<uint8_t *>(mnl_attr_get_payload(a)) = AF_INET6;
		off += MNL_ALIGN(a->nla_len);
	}
	EXPECT_FALSE(decode_flow(only_message(fb)));
	// An error ack claiming a positive errno.
	Ack ack;
	ack.error = -5;
	EXPECT_FALSE(decode_ack(only_message(encode_ack(ack, 1))));
}

TEST(Message, SplitMessages)
{
	Bytes a = encode_job_id(kFamily, MLTCP_CMD_JOB_GET, 1, 1, 0);
	Bytes b = encode_flow(kFamily, sample_flow(AF_INET), 2);
	Bytes both = a;
	both.insert(both.end(), b.begin(), b.end());
	bool trailing = true;
	EXPECT_EQ(split_messages(both.data(), both.size(), &trailing).size(), 2u);
	EXPECT_FALSE(trailing);
	both.push_back(0);
	EXPECT_EQ(split_messages(both.data(), both.size(), &trailing).size(), 2u);
	EXPECT_TRUE(trailing);
	EXPECT_TRUE(split_messages(both.data(), 10).empty());
}

// A message whose length is not a multiple of four and that ends the buffer:
// libmnl would walk its last attribute up to the padded tail, past the end.
TEST(Message, SplitMessagesRefusesAnUnpaddedLastMessage)
{
	Job job;
	job.id = 1;
	job.cgroup = Cgroup{ 7, "" };
	Bytes b = encode_job(kFamily, MLTCP_CMD_JOB_GET, job, 1, 0);
	ASSERT_EQ(split_messages(b.data(), b.size()).size(), 1u);
	auto *nlh = reinterpret_cast<nlmsghdr *>(b.data());
	nlh->nlmsg_len -= 3;
	b.resize(nlh->nlmsg_len);
	bool trailing = false;
	EXPECT_TRUE(split_messages(b.data(), b.size(), &trailing).empty());
	EXPECT_TRUE(trailing);
	// A length of 2^32 - 1 pads to 2^32, not to 0 (which would never end).
	nlh->nlmsg_len = UINT32_MAX;
	EXPECT_TRUE(split_messages(b.data(), b.size()).empty());
}

TEST(Message, RandomCorruptionNeverCrashes)
{
	std::mt19937 rng(1);
	Bytes seeds[] = { encode_job(kFamily, MLTCP_CMD_JOB_GET, sample_job(), 1, 0),
			  encode_flow(kFamily, sample_flow(AF_INET6), 1),
			  encode_ack(Ack{ ERANGE, "x", 20, 2, 0, 9 }, 1) };
	for (int i = 0; i < 20000; i++) {
		Bytes b = seeds[i % 3];
		for (int k = 0; k < 1 + i % 4; k++)
			b[rng() % b.size()] = static_cast<uint8_t>(rng());
		for (const nlmsghdr *nlh : split_messages(b.data(), b.size())) {
			(void)decode_job(nlh);
			(void)decode_flow(nlh);
			(void)decode_ack(nlh);
			(void)decode_family(nlh);
		}
	}
}
