// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The policy around the core (kmod/mltcp_policy.c): job requests, matching,
// latching, flow records and the text forms of the tunables. The module, the
// BPF twin and mltcpctl all run this code; these tests pin its behaviour.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "mltcp_policy.h"

namespace
{

static_assert(MLTCP_AF_INET == AF_INET && MLTCP_AF_INET6 == AF_INET6,
	      "the policy's address families are the kernel's");

// Hosts' lines the bounded cases are checked against: one with mean F of
// exactly 1 (1.6, 0.2), where the bound is "mean F at most 1" alone, and one
// above it (1.6, 0.8), where lines under the host's are allowed too.
const mltcp_line kMeanOneHost = { 1638, 205 };
const mltcp_line kHighHost = { 1638, 819 };
// The host's line as the module's parameters start.
const mltcp_line kDefaultHost = { MLTCP_DEFAULT_SLOPE, MLTCP_DEFAULT_INTERCEPT };

mltcp_params Defaults()
{
	mltcp_params p{};
	mltcp_params_default(&p);
	return p;
}

mltcp_job_request Request(uint32_t id)
{
	mltcp_job_request r{};
	r.values.id = id;
	return r;
}

void SetPeer(mltcp_job_request &r, const char *addr, uint8_t len)
{
	r.given |= MLTCP_JOB_F_PEER;
	if (inet_pton(AF_INET, addr, r.values.peer) == 1) {
		r.values.peer_family = MLTCP_AF_INET;
	} else {
		ASSERT_EQ(inet_pton(AF_INET6, addr, r.values.peer), 1) << addr;
		r.values.peer_family = MLTCP_AF_INET6;
	}
	r.values.peer_prefixlen = len;
}

mltcp_flow_key KeyTo(const char *addr, uint16_t dport = 80, uint16_t sport = 40000,
		     uint32_t mark = 0)
{
	mltcp_flow_key k{};
	k.dport = dport;
	k.sport = sport;
	k.mark = mark;
	if (inet_pton(AF_INET, addr, k.daddr) == 1) {
		k.v4 = 1;
	} else {
		EXPECT_EQ(inet_pton(AF_INET6, addr, k.daddr), 1) << addr;
	}
	return k;
}

bool Matches(const mltcp_job_spec &job, const mltcp_flow_key &key)
{
	return mltcp_job_matches(&job, &key);
}

std::string Format(mltcp_param which, uint32_t value)
{
	char buf[MLTCP_PARAM_TEXT];
	int n = mltcp_param_format(which, value, buf, sizeof(buf));
	return n < 0 ? "<invalid>" : std::string(buf, static_cast<size_t>(n));
}

// Every criterion and one setting; mark and peer given unmasked.
mltcp_job_request CriteriaRequest()
{
	mltcp_job_request r = Request(7);

	r.given = MLTCP_JOB_F_DPORT | MLTCP_JOB_F_SPORT | MLTCP_JOB_F_MARK | MLTCP_JOB_F_SLOPE;
	r.values.dport_min = 100;
	r.values.dport_max = 200;
	r.values.sport_min = 5000;
	r.values.sport_max = 5000;
	r.values.mark = 0x1f;
	r.values.mark_mask = 0xf0;
	r.values.slope = 2048;
	SetPeer(r, "10.8.3.4", 16);
	return r;
}

TEST(JobApply, AddsGivenFieldsAndMasks)
{
	mltcp_job_spec spec{};
	mltcp_job_request r = CriteriaRequest();

	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_EQ(spec.id, 7u);
	EXPECT_EQ(spec.fields, MLTCP_JOB_F_DPORT | MLTCP_JOB_F_SPORT | MLTCP_JOB_F_MARK |
				       MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_PEER);
	EXPECT_EQ(spec.mark, 0x10u);
	EXPECT_EQ(spec.mark_mask, 0xf0u);
	EXPECT_EQ(spec.slope, 2048u);
	uint32_t want;
	inet_pton(AF_INET, "10.8.0.0", &want);
	EXPECT_EQ(spec.peer[0], want);
	EXPECT_EQ(spec.peer[1] | spec.peer[2] | spec.peer[3], 0u);
}

TEST(JobApply, ChangeKeepsOtherFieldsAndClears)
{
	mltcp_job_spec spec{};
	mltcp_job_request add = Request(3);
	add.given = MLTCP_JOB_F_SPORT | MLTCP_JOB_F_INTERCEPT | MLTCP_JOB_F_EXEMPT;
	add.values.sport_min = add.values.sport_max = 5000;
	add.values.intercept = 100;
	add.values.exempt = 1;
	ASSERT_EQ(mltcp_job_apply(&spec, &add), MLTCP_JOB_OK);
	ASSERT_EQ(spec.exempt, 1);

	mltcp_job_request set = Request(3);
	set.given = MLTCP_JOB_F_IDLE_GAP;
	set.values.idle_gap_us = 50000;
	set.clear = MLTCP_JOB_F_SPORT | MLTCP_JOB_F_EXEMPT;
	ASSERT_EQ(mltcp_job_apply(&spec, &set), MLTCP_JOB_OK);
	EXPECT_EQ(spec.fields, MLTCP_JOB_F_INTERCEPT | MLTCP_JOB_F_IDLE_GAP);
	EXPECT_EQ(spec.intercept, 100u);
	EXPECT_EQ(spec.idle_gap_us, 50000u);
	EXPECT_EQ(spec.exempt, 0);
}

TEST(JobApply, ExemptOffIsNoSetting)
{
	mltcp_job_spec spec{};
	mltcp_job_request r = Request(1);
	r.given = MLTCP_JOB_F_EXEMPT;
	r.values.exempt = 0;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_EQ(spec.fields & MLTCP_JOB_F_EXEMPT, 0u);
}

// A request wrong in one way: given names the field set (0: none), set() the bad values.
struct BadCase {
	const char *name;
	uint32_t given;
	void (*set)(mltcp_job_request &);
	mltcp_job_error error;
	uint32_t field; // what mltcp_job_error_field() must name
};

using R = mltcp_job_request;
constexpr uint32_t kNoField = 0;

// clang-format off
const BadCase kBad[] = {
	{ "id0", 0, [](R &r) { r.values.id = 0; }, MLTCP_JOB_E_ID, kNoField },
	{ "clear_unknown", 0, [](R &r) { r.clear = 1u << 20; }, MLTCP_JOB_E_CLEAR_UNKNOWN, kNoField },
	{ "clear_and_set", MLTCP_JOB_F_SLOPE, [](R &r) { r.clear = MLTCP_JOB_F_SLOPE; },
	  MLTCP_JOB_E_CLEAR_AND_SET, kNoField },
	{ "dport", MLTCP_JOB_F_DPORT, [](R &r) { r.values.dport_min = 10; r.values.dport_max = 9; },
	  MLTCP_JOB_E_DPORT, MLTCP_JOB_F_DPORT },
	{ "sport", MLTCP_JOB_F_SPORT, [](R &r) { r.values.sport_min = 10; r.values.sport_max = 9; },
	  MLTCP_JOB_E_SPORT, MLTCP_JOB_F_SPORT },
	{ "cgroup0", MLTCP_JOB_F_CGROUP, [](R &r) { r.values.cgroup_id = 0; }, MLTCP_JOB_E_CGROUP,
	  MLTCP_JOB_F_CGROUP },
	{ "peer_family", MLTCP_JOB_F_PEER, [](R &r) { r.values.peer_family = 1; },
	  MLTCP_JOB_E_PEER_FAMILY, MLTCP_JOB_F_PEER },
	{ "peer_v4_33", MLTCP_JOB_F_PEER,
	  [](R &r) { r.values.peer_family = MLTCP_AF_INET; r.values.peer_prefixlen = 33; },
	  MLTCP_JOB_E_PEER_PREFIXLEN, MLTCP_JOB_F_PEER },
	{ "peer_v6_129", MLTCP_JOB_F_PEER,
	  [](R &r) { r.values.peer_family = MLTCP_AF_INET6; r.values.peer_prefixlen = 129; },
	  MLTCP_JOB_E_PEER_PREFIXLEN, MLTCP_JOB_F_PEER },
	{ "slope", MLTCP_JOB_F_SLOPE, [](R &r) { r.values.slope = MLTCP_SLOPE_MAX + 1; },
	  MLTCP_JOB_E_SLOPE, MLTCP_JOB_F_SLOPE },
	{ "slope_wraps_u16", MLTCP_JOB_F_SLOPE, [](R &r) { r.values.slope = 65536 + 1024; },
	  MLTCP_JOB_E_SLOPE, MLTCP_JOB_F_SLOPE },
	{ "intercept", MLTCP_JOB_F_INTERCEPT, [](R &r) { r.values.intercept = MLTCP_INTERCEPT_MAX + 1; },
	  MLTCP_JOB_E_INTERCEPT, MLTCP_JOB_F_INTERCEPT },
	{ "idle_gap_low", MLTCP_JOB_F_IDLE_GAP,
	  [](R &r) { r.values.idle_gap_us = MLTCP_IDLE_GAP_MIN_US - 1; },
	  MLTCP_JOB_E_IDLE_GAP, MLTCP_JOB_F_IDLE_GAP },
	{ "idle_gap_high", MLTCP_JOB_F_IDLE_GAP,
	  [](R &r) { r.values.idle_gap_us = MLTCP_IDLE_GAP_MAX_US + 1; },
	  MLTCP_JOB_E_IDLE_GAP, MLTCP_JOB_F_IDLE_GAP },
	{ "iter_bytes_0", MLTCP_JOB_F_ITER_BYTES, [](R &) {},
	  MLTCP_JOB_E_ITER_BYTES, MLTCP_JOB_F_ITER_BYTES },
	{ "iter_bytes_high", MLTCP_JOB_F_ITER_BYTES,
	  [](R &r) { r.values.iter_bytes = MLTCP_ITER_BYTES_MAX + 1; },
	  MLTCP_JOB_E_ITER_BYTES, MLTCP_JOB_F_ITER_BYTES },
	{ "base", MLTCP_JOB_F_BASE, [](R &r) { r.values.base = 2; },
	  MLTCP_JOB_E_BASE, MLTCP_JOB_F_BASE },
	{ "f_zero", MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT,
	  [](R &r) { r.values.slope = 0; r.values.intercept = 0; },
	  MLTCP_JOB_E_F_ZERO, MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT },
};
// clang-format on

TEST(JobApply, RefusesBadRequestsAndChangesNothing)
{
	for (const BadCase &c : kBad) {
		mltcp_job_spec spec{};
		mltcp_job_request ok = Request(5);
		ok.given = MLTCP_JOB_F_SLOPE;
		ok.values.slope = 100;
		ASSERT_EQ(mltcp_job_apply(&spec, &ok), MLTCP_JOB_OK);
		mltcp_job_spec before = spec;

		mltcp_job_request r = Request(5);
		r.given = c.given;
		c.set(r);
		EXPECT_EQ(mltcp_job_apply(&spec, &r), c.error) << c.name;
		EXPECT_EQ(mltcp_job_error_field(c.error), c.field) << c.name;
		EXPECT_EQ(std::memcmp(&spec, &before, sizeof(spec)), 0) << c.name;
		std::string text = mltcp_job_strerror(c.error);
		EXPECT_EQ(text.find('\n'), std::string::npos) << c.name;
		EXPECT_NE(text, "invalid job") << c.name;
	}
}

TEST(JobApply, PeerIsMaskedToEveryPrefixLength)
{
	// The stored peer, byte by byte in network order: exactly the first len
	// bits of an all-ones address, whatever the host's byte order.
	for (int len = 0; len <= 128; len++) {
		for (bool v4 : { true, false }) {
			if (v4 && len > 32)
				continue;
			mltcp_job_spec spec{};
			mltcp_job_request r = Request(1);
			SetPeer(r,
				v4 ? "255.255.255.255" : "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
				static_cast<uint8_t>(len));
			if (v4)
				memset(&r.values.peer[1], 0xff, 12); // not part of an IPv4 peer
			ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
			const auto *bytes = reinterpret_cast<const uint8_t *>(spec.peer);
			for (int i = 0; i < 16; i++) {
				int left = len - 8 * i;
				uint8_t want = left >= 8   ? 0xff
					       : left <= 0 ? 0
							   : static_cast<uint8_t>(0xff << (8 - left));
				ASSERT_EQ(bytes[i], want)
					<< (v4 ? "v4 /" : "v6 /") << len << " byte " << i;
			}
		}
	}
}

TEST(JobApply, FIsNeverZeroWhateverTheOrderOfChanges)
{
	mltcp_job_spec spec{};
	mltcp_job_request r = Request(3);
	r.given = MLTCP_JOB_F_SLOPE;
	r.values.slope = 100;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);

	// Only the intercept to 0: the job's slope keeps F above 0.
	r = Request(3);
	r.given = MLTCP_JOB_F_INTERCEPT;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_EQ(spec.intercept, 0u);
	mltcp_job_spec before = spec;

	// Then the slope to 0 as well, exempt or not: refused, nothing changes.
	for (uint8_t exempt : { 0, 1 }) {
		r = Request(3);
		r.given = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_EXEMPT;
		r.values.exempt = exempt;
		EXPECT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_E_F_ZERO);
		EXPECT_EQ(std::memcmp(&spec, &before, sizeof(spec)), 0);
	}
	// Dropping the slope leaves the namespace's: mltcp_job_check_over()'s.
	r = Request(3);
	r.clear = MLTCP_JOB_F_SLOPE;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	mltcp_params d = Defaults();
	EXPECT_EQ(mltcp_job_check_over(&spec, &d, nullptr), MLTCP_JOB_OK);
	d.slope = 0;
	EXPECT_EQ(mltcp_job_check_over(&spec, &d, nullptr), MLTCP_JOB_E_F_ZERO);
}

TEST(FLine, RangesZeroAndTheBound)
{
	const uint32_t one = MLTCP_ONE;
	struct {
		uint32_t slope, intercept;
		mltcp_job_error unbounded, mean_one_host, high_host;
	} cases[] = {
		{ 1638, 205, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK },
		{ 1638, 819, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK }, // the high host's
		{ 0, 0, MLTCP_JOB_E_F_ZERO, MLTCP_JOB_E_F_ZERO, MLTCP_JOB_E_F_ZERO },
		{ 1, 0, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK },
		{ 0, 1, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK },
		{ 0, one, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK }, // const F = 1: the base
		// Const F just above: mean above 1, and above the high host at r = 0.
		{ 0, one + 1, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_E_BOUND },
		// F 0 to 2: mean 1 over [0, 1], 10/9 to the end of the overhang.
		{ 2 * one, 0, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		{ 2 * one + 1, 0, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		{ one, one / 2, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		{ one, one / 2 + 1, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		// A mean of 1 with the overhang, 5 * slope + 9 * intercept <= 9, to the unit.
		{ 1843, 0, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK },
		{ 1844, 0, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		{ one, 455, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK },
		{ one, 456, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		// Under the high host's line: at r = 0 and at r = 1, to the unit.
		{ 2457, 0, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		{ 2458, 0, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_E_BOUND },
		{ 1639, 819, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_E_BOUND },
		{ 1637, 820, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_E_BOUND },
		{ 0, 819, MLTCP_JOB_OK, MLTCP_JOB_OK, MLTCP_JOB_OK },
		{ 1200, 819, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_OK },
		{ 0, 16 * one, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND, MLTCP_JOB_E_BOUND }, // "intercept 16"
		{ MLTCP_SLOPE_MAX, MLTCP_INTERCEPT_MAX, MLTCP_JOB_OK, MLTCP_JOB_E_BOUND,
		  MLTCP_JOB_E_BOUND },
		{ MLTCP_SLOPE_MAX + 1, one, MLTCP_JOB_E_SLOPE, MLTCP_JOB_E_SLOPE, MLTCP_JOB_E_SLOPE },
		{ 0, MLTCP_INTERCEPT_MAX + 1, MLTCP_JOB_E_INTERCEPT, MLTCP_JOB_E_INTERCEPT,
		  MLTCP_JOB_E_INTERCEPT },
		{ 65536 + 100, 0, MLTCP_JOB_E_SLOPE, MLTCP_JOB_E_SLOPE,
		  MLTCP_JOB_E_SLOPE }, // never narrowed
	};
	for (const auto &c : cases) {
		EXPECT_EQ(mltcp_f_line_check(c.slope, c.intercept, nullptr), c.unbounded)
			<< c.slope << " " << c.intercept;
		EXPECT_EQ(mltcp_f_line_check(c.slope, c.intercept, &kMeanOneHost), c.mean_one_host)
			<< c.slope << " " << c.intercept;
		EXPECT_EQ(mltcp_f_line_check(c.slope, c.intercept, &kHighHost), c.high_host)
			<< c.slope << " " << c.intercept;
	}
	// The line a container inherits is one it may write.
	EXPECT_EQ(mltcp_f_line_check(kDefaultHost.slope, kDefaultHost.intercept, &kDefaultHost),
		  MLTCP_JOB_OK);
}

// What the bound promises, through the core's own F and decrease factors:
// every line it accepts either is on average no more aggressive than the
// base (F <= 2 at every r, and mean F <= 1 and, in md mode, a mean
// decrease at least the base's over every iteration, however far it runs:
// into the overhang, where F stays F(1) up to 1/8 beyond the size, and
// beyond it, where F is 1), or is nowhere more aggressive than the host's
// line (F and beta at most the host's at every point, the host's flows
// having the same overhang).
TEST(FLine, AcceptedLinesAreNoMoreAggressiveThanTheBaseOrTheHost)
{
	const uint64_t bytes = 1 << 20;
	const int steps = 256, last = 2 * steps; // r from 0 to 2
	mltcp_iter it{};
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, bytes);
	// The overhang is in the range: F(1) at 9/8 of the size, 1 beyond.
	mltcp_params probe = Defaults();
	ASSERT_EQ(mltcp_f(&it, &probe, bytes * 9 / 8), probe.slope + probe.intercept);
	ASSERT_EQ(mltcp_f(&it, &probe, bytes * 9 / 8 + 1), MLTCP_ONE);

	for (const mltcp_line *host : { &kMeanOneHost, &kHighHost }) {
		mltcp_params h = Defaults();
		h.slope = static_cast<uint16_t>(host->slope);
		h.intercept = static_cast<uint16_t>(host->intercept);
		int accepted = 0, under_host = 0;

		for (uint32_t slope = 0; slope <= 3 * MLTCP_ONE; slope += 8) {
			for (uint32_t intercept = 0; intercept <= 2 * MLTCP_ONE; intercept += 8) {
				if (mltcp_f_line_check(slope, intercept, host) != MLTCP_JOB_OK)
					continue;
				accepted++;
				mltcp_params p = Defaults();
				p.slope = static_cast<uint16_t>(slope);
				p.intercept = static_cast<uint16_t>(intercept);
				uint64_t sum_f = 0, sum_cubic = 0, sum_reno = 0;
				bool like_base = true, below_host = true;
				for (int k = 0; k <= last; k++) {
					uint64_t at = bytes * k / steps;
					uint32_t f = mltcp_f(&it, &p, at), fh = mltcp_f(&it, &h, at);
					uint64_t n = k + 1;
					sum_f += f;
					sum_cubic += mltcp_md_beta(MLTCP_CUBIC_BETA, f);
					sum_reno += mltcp_md_beta(MLTCP_RENO_BETA, f);
					// Means over the points of the iteration that ends here;
					// the fixed point rounds F down.
					like_base = like_base && f <= 2 * MLTCP_ONE &&
						    sum_f <= n * MLTCP_ONE &&
						    sum_cubic <= n * (MLTCP_CUBIC_BETA + 1) &&
						    sum_reno <= n * (MLTCP_RENO_BETA + 1);
					below_host = below_host && f <= fh &&
						     mltcp_md_beta(MLTCP_CUBIC_BETA, f) <=
							     mltcp_md_beta(MLTCP_CUBIC_BETA, fh) &&
						     mltcp_md_beta(MLTCP_RENO_BETA, f) <=
							     mltcp_md_beta(MLTCP_RENO_BETA, fh);
				}
				ASSERT_TRUE(like_base || below_host)
					<< slope << " " << intercept << " under " << host->slope
					<< " " << host->intercept;
				under_host += !like_base;
			}
		}
		EXPECT_GT(accepted, 10000);
		// Above a mean of 1, the host's line widens the bound; the mean-one
		// host's is above a mean of 1 with the overhang, and widens it a little.
		if (host == &kHighHost)
			EXPECT_GT(under_host, 1000);
		else
			EXPECT_GT(under_host, 0);
	}
}

TEST(JobCheckOver, TheLineAJobsFlowsLatch)
{
	mltcp_params d = Defaults();
	d.slope = 1638; // 1.6
	d.intercept = 205; // 0.2
	mltcp_job_spec job{};
	job.id = 1;

	// No slope and no intercept: nothing to check, even over defaults beyond it.
	job.fields = MLTCP_JOB_F_DPORT;
	mltcp_params loud = d;
	loud.intercept = 4 * MLTCP_ONE;
	EXPECT_EQ(mltcp_job_check_over(&job, &loud, &kMeanOneHost), MLTCP_JOB_OK);

	// A slope alone meets the namespace's intercept: 1.7 / 2 + 0.2 > 1,
	// and 1.7 + 0.2 above the host's 1.8 at r = 1, but not the high host's 2.4.
	job.fields = MLTCP_JOB_F_SLOPE;
	job.slope = 1741; // 1.7
	EXPECT_EQ(mltcp_job_check_over(&job, &d, nullptr), MLTCP_JOB_OK);
	EXPECT_EQ(mltcp_job_check_over(&job, &d, &kMeanOneHost), MLTCP_JOB_E_BOUND);
	EXPECT_EQ(mltcp_job_check_over(&job, &d, &kHighHost), MLTCP_JOB_OK);
	d.intercept = 0;
	EXPECT_EQ(mltcp_job_check_over(&job, &d, &kMeanOneHost), MLTCP_JOB_OK);

	// An intercept alone meets the namespace's slope.
	d.intercept = 205;
	job.fields = MLTCP_JOB_F_INTERCEPT;
	job.intercept = 16 * MLTCP_ONE;
	EXPECT_EQ(mltcp_job_check_over(&job, &d, nullptr), MLTCP_JOB_OK);
	EXPECT_EQ(mltcp_job_check_over(&job, &d, &kHighHost), MLTCP_JOB_E_BOUND);
	job.intercept = 0;
	d.slope = 0;
	EXPECT_EQ(mltcp_job_check_over(&job, &d, nullptr), MLTCP_JOB_E_F_ZERO);

	// Exempt: F is 1 whatever the stored line says.
	d = Defaults();
	job.fields = MLTCP_JOB_F_INTERCEPT | MLTCP_JOB_F_EXEMPT;
	job.intercept = 16 * MLTCP_ONE;
	job.exempt = 1;
	EXPECT_EQ(mltcp_job_check_over(&job, &d, &kMeanOneHost), MLTCP_JOB_OK);
}

// The module reports these messages as netlink extended acks, and the
// in-guest suite (tests/kernel/test_malformed_requests.py) looks for these words.
TEST(JobApply, MessagesTheKernelSuiteLooksFor)
{
	EXPECT_NE(std::string(mltcp_job_strerror(MLTCP_JOB_E_CLEAR_AND_SET)).find("cleared and set"),
		  std::string::npos);
	EXPECT_NE(std::string(mltcp_job_strerror(MLTCP_JOB_E_DPORT)).find("below"),
		  std::string::npos);
	EXPECT_NE(std::string(mltcp_job_strerror(MLTCP_JOB_E_SPORT)).find("below"),
		  std::string::npos);
	EXPECT_NE(std::string(mltcp_job_strerror(MLTCP_JOB_E_PEER_PREFIXLEN)).find("above 32"),
		  std::string::npos);
	EXPECT_NE(std::string(mltcp_job_strerror(MLTCP_JOB_E_F_ZERO)).find("both be 0"),
		  std::string::npos);
	EXPECT_NE(std::string(mltcp_job_strerror(MLTCP_JOB_E_BOUND)).find("mean F above 1"),
		  std::string::npos);
}

TEST(JobMatches, NoCriteriaMatchesEveryFlow)
{
	mltcp_job_spec spec{};
	spec.id = 1;
	EXPECT_TRUE(Matches(spec, KeyTo("10.0.0.1")));
	EXPECT_TRUE(Matches(spec, KeyTo("2001:db8::1")));
}

TEST(JobMatches, EveryCriterionMustHold)
{
	mltcp_job_spec spec{};
	mltcp_job_request r = CriteriaRequest();
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);

	EXPECT_TRUE(Matches(spec, KeyTo("10.8.3.4", 150, 5000, 0x1f)));
	EXPECT_TRUE(Matches(spec, KeyTo("10.8.3.4", 100, 5000, 0x10)));
	EXPECT_TRUE(Matches(spec, KeyTo("10.8.3.4", 200, 5000, 0x10)));
	EXPECT_FALSE(Matches(spec, KeyTo("10.8.3.4", 99, 5000, 0x10)));
	EXPECT_FALSE(Matches(spec, KeyTo("10.8.3.4", 201, 5000, 0x10)));
	EXPECT_FALSE(Matches(spec, KeyTo("10.8.3.4", 150, 5001, 0x10)));
	EXPECT_FALSE(Matches(spec, KeyTo("10.8.3.4", 150, 5000, 0x20)));
	EXPECT_FALSE(Matches(spec, KeyTo("10.9.3.4", 150, 5000, 0x10)));
	EXPECT_FALSE(Matches(spec, KeyTo("::ffff:10.9.3.4", 150, 5000, 0x10)));
}

// A socket in the cgroup whose ancestors, from the root, have these ids.
mltcp_flow_key KeyInCgroup(std::initializer_list<uint64_t> ids)
{
	mltcp_flow_key k = KeyTo("10.0.0.1");
	for (uint64_t id : ids)
		if (k.cgroup_levels < MLTCP_CGROUP_LEVELS)
			k.cgroup_ids[k.cgroup_levels++] = id;
	return k;
}

// A cgroup matches its own sockets and its descendants', not its
// ancestors' or siblings'; levels beyond the key's are never compared.
TEST(JobMatches, CgroupAndItsDescendants)
{
	mltcp_job_spec spec{};
	mltcp_job_request r = Request(3);
	r.given = MLTCP_JOB_F_CGROUP;
	r.values.cgroup_id = 70;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_EQ(spec.cgroup_id, 70u);

	EXPECT_TRUE(Matches(spec, KeyInCgroup({ 1, 50, 70 })));
	EXPECT_TRUE(Matches(spec, KeyInCgroup({ 1, 50, 70, 71, 72 })));
	EXPECT_FALSE(Matches(spec, KeyInCgroup({ 1, 50 })));
	EXPECT_FALSE(Matches(spec, KeyInCgroup({ 1, 50, 69, 70 + 1000 })));
	EXPECT_FALSE(Matches(spec, KeyTo("10.0.0.1"))) << "a socket without a cgroup";
	mltcp_flow_key stale = KeyInCgroup({ 1, 50 });
	stale.cgroup_ids[2] = 70; // beyond cgroup_levels: not the socket's
	EXPECT_FALSE(Matches(spec, stale));

	// With another criterion, both must hold.
	r = Request(3);
	r.given = MLTCP_JOB_F_DPORT;
	r.values.dport_min = r.values.dport_max = 5000;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	mltcp_flow_key k = KeyInCgroup({ 1, 70 });
	EXPECT_FALSE(Matches(spec, k));
	k.dport = 5000;
	EXPECT_TRUE(Matches(spec, k));

	// Cleared, the job matches every cgroup again.
	r = Request(3);
	r.clear = MLTCP_JOB_F_CGROUP | MLTCP_JOB_F_DPORT;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_TRUE(Matches(spec, KeyInCgroup({ 1, 2 })));
}

// The flow to addr with one bit flipped (0: the most significant).
mltcp_flow_key KeyWithBitFlipped(const char *addr, int bit)
{
	mltcp_flow_key k = KeyTo(addr);

	reinterpret_cast<uint8_t *>(k.daddr)[bit / 8] ^= static_cast<uint8_t>(0x80 >> (bit % 8));
	return k;
}

// For every prefix length of addr: a bit flipped just inside the prefix
// must miss, just outside must still match.
void ExpectPrefixBoundaries(const char *addr, int bits)
{
	for (int len = 0; len <= bits; len++) {
		mltcp_job_spec spec{};
		mltcp_job_request r = Request(1);
		SetPeer(r, addr, static_cast<uint8_t>(len));
		ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
		EXPECT_TRUE(Matches(spec, KeyTo(addr))) << addr << "/" << len;
		if (len > 0) {
			EXPECT_FALSE(Matches(spec, KeyWithBitFlipped(addr, len - 1)))
				<< addr << "/" << len;
		}
		if (len < bits) {
			EXPECT_TRUE(Matches(spec, KeyWithBitFlipped(addr, len))) << addr << "/" << len;
		}
	}
}

TEST(JobMatches, PrefixesOfEveryLength)
{
	ExpectPrefixBoundaries("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 128);
	ExpectPrefixBoundaries("10.255.255.255", 32);
}

TEST(JobMatches, FamiliesNeverCross)
{
	mltcp_job_spec v4{}, v6{};
	mltcp_job_request r4 = Request(1), r6 = Request(2);
	SetPeer(r4, "0.0.0.0", 0);
	SetPeer(r6, "::", 0);
	ASSERT_EQ(mltcp_job_apply(&v4, &r4), MLTCP_JOB_OK);
	ASSERT_EQ(mltcp_job_apply(&v6, &r6), MLTCP_JOB_OK);
	EXPECT_TRUE(Matches(v4, KeyTo("192.0.2.1")));
	EXPECT_FALSE(Matches(v4, KeyTo("2001:db8::1")));
	EXPECT_TRUE(Matches(v6, KeyTo("2001:db8::1")));
	EXPECT_FALSE(Matches(v6, KeyTo("192.0.2.1")));
}

TEST(FlowLatch, DefaultsAloneAndTheGlobalMode)
{
	mltcp_flow fl{};
	mltcp_params d = Defaults();
	d.slope = 100;
	d.mode = MLTCP_MODE_AI;
	mltcp_flow_init(&fl, 1000, 5);
	EXPECT_TRUE(mltcp_flow_latch(&fl, &d, nullptr, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.slope, 100);
	EXPECT_EQ(fl.params.mode, MLTCP_MODE_AI);
	EXPECT_EQ(fl.iter.start_acked, 1000u);

	// Latched again (a job change): the mode stays what the flow chose.
	d.mode = MLTCP_MODE_MD;
	EXPECT_TRUE(mltcp_flow_latch(&fl, &d, nullptr, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.mode, MLTCP_MODE_AI);
}

// "marked": a job's setting only (never the defaults'), latched whole, and
// "marked off" is no setting; a change naming it reaches a live flow.
TEST(FlowLatch, MarkedIsTheJobsSettingOnly)
{
	mltcp_flow fl{};
	mltcp_params d = Defaults();
	mltcp_job_spec spec{};
	mltcp_job_request r = Request(6);
	r.given = MLTCP_JOB_F_MARKED;
	r.values.marked = 1;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_EQ(spec.fields, static_cast<uint32_t>(MLTCP_JOB_F_MARKED));

	d.marked = 1; // not a default: ignored
	mltcp_flow_init(&fl, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, nullptr, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.marked, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &spec, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.marked, 1);

	r.values.marked = 0; // "marked off"
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);
	EXPECT_EQ(spec.fields & MLTCP_JOB_F_MARKED, 0u);
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &d, &spec, MLTCP_JOB_F_SLOPE, MLTCP_BASE_SELECTABLE,
				       nullptr));
	EXPECT_EQ(fl.params.marked, 1) << "a change that does not name it";
	fl.iter.marks_seen = 200; // the job's marks, as the datapath read them
	fl.iter.bytes = 1 << 20;
	ASSERT_TRUE(mltcp_iter_trusted(&fl.iter, &fl.params)) << "a marked job's size";
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &d, &spec, MLTCP_JOB_F_MARKED, MLTCP_BASE_SELECTABLE,
				       nullptr));
	EXPECT_EQ(fl.params.marked, 0);
	// The mark count is not read as agreeing iterations: learned from idles
	// now, the size is trusted only once they agree.
	EXPECT_EQ(fl.iter.agreed, 0);
	EXPECT_FALSE(mltcp_iter_trusted(&fl.iter, &fl.params));
}

// A mark counts, unless it is of the step marked last.
TEST(JobMark, StepsCountOnceAndRestartsAreFollowed)
{
	u32 count = 0, last = 0;

	EXPECT_TRUE(mltcp_job_mark(&count, &last, 0));
	EXPECT_TRUE(mltcp_job_mark(&count, &last, 0)) << "without steps, every mark";
	EXPECT_TRUE(mltcp_job_mark(&count, &last, 5));
	EXPECT_FALSE(mltcp_job_mark(&count, &last, 5)) << "the host's other rank";
	EXPECT_TRUE(mltcp_job_mark(&count, &last, 6));
	EXPECT_TRUE(mltcp_job_mark(&count, &last, 1)) << "a restarted run";
	EXPECT_EQ(count, 5u);
	EXPECT_EQ(last, 1u);
	count = 0xffffffffu;
	EXPECT_TRUE(mltcp_job_mark(&count, &last, 2));
	EXPECT_EQ(count, 0u) << "wraps; flows compare 8 bits";
}

TEST(FlowLatch, JobOverridesThenExempt)
{
	mltcp_flow fl{};
	mltcp_params d = Defaults();
	mltcp_job_spec spec{};
	mltcp_job_request r = Request(4);
	r.given = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_IDLE_GAP | MLTCP_JOB_F_BASE |
		  MLTCP_JOB_F_ITER_BYTES;
	r.values.slope = 3000;
	r.values.idle_gap_us = 7000;
	r.values.base = MLTCP_BASE_RENO;
	r.values.iter_bytes = 1 << 20;
	ASSERT_EQ(mltcp_job_apply(&spec, &r), MLTCP_JOB_OK);

	mltcp_flow_init(&fl, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &spec, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.slope, 3000);
	EXPECT_EQ(fl.params.intercept, d.intercept);
	EXPECT_EQ(fl.params.idle_gap_us, 7000u);
	EXPECT_EQ(fl.params.base, MLTCP_BASE_RENO);
	EXPECT_EQ(fl.iter.bytes, 1u << 20);
	EXPECT_TRUE(fl.iter.flags & MLTCP_ITER_FIXED);

	// mltcp_cubic keeps its own base whatever the job says.
	mltcp_flow cub{};
	mltcp_flow_init(&cub, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&cub, &d, &spec, MLTCP_BASE_CUBIC, nullptr));
	EXPECT_EQ(cub.params.base, MLTCP_BASE_CUBIC);

	mltcp_job_request ex = Request(4);
	ex.given = MLTCP_JOB_F_EXEMPT;
	ex.values.exempt = 1;
	ex.clear = MLTCP_JOB_F_ITER_BYTES;
	ASSERT_EQ(mltcp_job_apply(&spec, &ex), MLTCP_JOB_OK);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &spec, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.slope, 0);
	EXPECT_EQ(fl.params.intercept, MLTCP_ONE);
	EXPECT_FALSE(fl.iter.flags & MLTCP_ITER_FIXED);
	EXPECT_EQ(fl.iter.bytes, 0u);
}

TEST(FlowLatch, BaseChangeRestartsCubic)
{
	mltcp_flow fl{};
	mltcp_params d = Defaults();
	mltcp_flow_init(&fl, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, nullptr, MLTCP_BASE_SELECTABLE, nullptr));
	fl.cubic.w_max = 77;
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, nullptr, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.cubic.w_max, 77u); // same base: state kept
	mltcp_job_spec reno{};
	reno.id = 1;
	reno.fields = MLTCP_JOB_F_BASE;
	reno.base = MLTCP_BASE_RENO;
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &reno, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.cubic.w_max, 0u);
}

// A change of a job re-latches on its live flows the settings it names,
// nothing else: a flow whose base came from the defaults keeps it (and its
// CUBIC state) when the defaults change, whatever else the job changes.
TEST(FlowRelatch, OnlyWhatTheChangeNames)
{
	mltcp_params d = Defaults(); // cubic, md-restart
	mltcp_job_spec spec{};
	mltcp_job_request add = Request(1);
	add.given = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_DPORT;
	add.values.slope = 2 * MLTCP_ONE;
	add.values.dport_min = add.values.dport_max = 80;
	ASSERT_EQ(mltcp_job_apply(&spec, &add), MLTCP_JOB_OK);
	mltcp_flow fl{};
	mltcp_flow_init(&fl, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &spec, MLTCP_BASE_SELECTABLE, nullptr));
	ASSERT_EQ(fl.params.base, MLTCP_BASE_CUBIC);
	fl.cubic.w_max = 77;

	// The namespace's defaults change after the flow started.
	mltcp_params now = d;
	now.base = MLTCP_BASE_RENO;
	now.idle_gap_us = 5000;
	now.intercept = 400;
	now.mode = MLTCP_MODE_AI;

	mltcp_job_request set = Request(1);
	set.given = MLTCP_JOB_F_SLOPE;
	set.values.slope = 3 * MLTCP_ONE;
	ASSERT_EQ(mltcp_job_apply(&spec, &set), MLTCP_JOB_OK);
	EXPECT_EQ(mltcp_job_changed(&set), static_cast<uint32_t>(MLTCP_JOB_F_SLOPE));
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &now, &spec, mltcp_job_changed(&set),
				       MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.slope, 3 * MLTCP_ONE);
	EXPECT_EQ(fl.params.intercept, 400); // the line whole, over today's defaults
	EXPECT_EQ(fl.params.base, MLTCP_BASE_CUBIC);
	EXPECT_EQ(fl.cubic.w_max, 77u);
	EXPECT_EQ(fl.params.idle_gap_us, d.idle_gap_us);
	EXPECT_EQ(fl.params.mode, d.mode);

	// Criteria are not settings: a change of them re-latches nothing.
	mltcp_job_request ports = Request(1);
	ports.given = MLTCP_JOB_F_DPORT;
	ports.values.dport_min = 80;
	ports.values.dport_max = 90;
	EXPECT_EQ(mltcp_job_changed(&ports), 0u);

	// A cleared setting returns to today's default; the base only when named.
	mltcp_job_request clear = Request(1);
	clear.clear = MLTCP_JOB_F_IDLE_GAP | MLTCP_JOB_F_DPORT;
	ASSERT_EQ(mltcp_job_apply(&spec, &clear), MLTCP_JOB_OK);
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &now, &spec, mltcp_job_changed(&clear),
				       MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.idle_gap_us, 5000u);
	EXPECT_EQ(fl.params.base, MLTCP_BASE_CUBIC);
	EXPECT_EQ(fl.cubic.w_max, 77u);
	mltcp_job_request base = Request(1);
	base.given = MLTCP_JOB_F_BASE;
	base.values.base = MLTCP_BASE_RENO;
	ASSERT_EQ(mltcp_job_apply(&spec, &base), MLTCP_JOB_OK);
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &now, &spec, mltcp_job_changed(&base),
				       MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.base, MLTCP_BASE_RENO);
	EXPECT_EQ(fl.cubic.w_max, 0u); // the new base from a clean state

	// Deleted: what the job had returns to today's defaults, the rest stays.
	fl.params.idle_gap_us = 9000;
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &now, nullptr, spec.fields & MLTCP_JOB_F_SETTINGS,
				       MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.slope, now.slope);
	EXPECT_EQ(fl.params.base, MLTCP_BASE_RENO);
	EXPECT_EQ(fl.params.idle_gap_us, 9000u);
}

TEST(FlowRelatch, TheLineIsOneSetting)
{
	mltcp_params d = Defaults();
	d.slope = kMeanOneHost.slope; // within the bound below
	d.intercept = kMeanOneHost.intercept;
	mltcp_job_spec job{};
	job.id = 1;
	job.fields = MLTCP_JOB_F_EXEMPT | MLTCP_JOB_F_ITER_BYTES;
	job.exempt = 1;
	job.iter_bytes = 1 << 20;
	mltcp_flow fl{};
	mltcp_flow_init(&fl, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &kMeanOneHost));
	ASSERT_EQ(fl.params.exempt, 1);

	// No longer exempt: slope and intercept come back with it.
	job.exempt = 0;
	job.fields &= ~static_cast<uint32_t>(MLTCP_JOB_F_EXEMPT);
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &d, &job, MLTCP_JOB_F_EXEMPT, MLTCP_BASE_SELECTABLE,
				       &kMeanOneHost));
	EXPECT_EQ(fl.params.exempt, 0);
	EXPECT_EQ(fl.params.slope, d.slope);
	EXPECT_EQ(fl.params.intercept, d.intercept);
	EXPECT_EQ(fl.iter.bytes, 1u << 20); // not named: the fixed size stays

	// Bounded: a slope named alone is checked with today's intercept.
	mltcp_params high = d;
	high.intercept = MLTCP_ONE;
	job.fields |= MLTCP_JOB_F_SLOPE;
	job.slope = MLTCP_ONE;
	ASSERT_TRUE(mltcp_flow_relatch(&fl, &high, &job, MLTCP_JOB_F_SLOPE, MLTCP_BASE_SELECTABLE,
				       &kMeanOneHost));
	EXPECT_EQ(fl.params.slope, 0);
	EXPECT_EQ(fl.params.intercept, MLTCP_ONE);
}

// The host's line lowered under a live flow's: a flow beyond the new bound
// latches its line again as a new flow would (the defaults as they are now,
// the job's line over them, the base's if still beyond); nothing else moves.
TEST(FlowBeyond, RelatchingTheLineBringsItUnder)
{
	mltcp_params d = Defaults();
	d.slope = kHighHost.slope;
	d.intercept = kHighHost.intercept;
	d.idle_gap_us = 30000;
	mltcp_flow follower{}, with_job{};
	mltcp_flow_init(&follower, 0, 0);
	mltcp_flow_init(&with_job, 0, 0);
	mltcp_job_spec job{};
	job.id = 1;
	job.fields = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_INTERCEPT;
	job.slope = 2 * MLTCP_ONE;
	job.intercept = MLTCP_ONE / 4;
	ASSERT_TRUE(mltcp_flow_latch(&follower, &d, nullptr, MLTCP_BASE_SELECTABLE, &kHighHost));
	ASSERT_TRUE(mltcp_flow_latch(&with_job, &d, &job, MLTCP_BASE_SELECTABLE, &kHighHost));
	ASSERT_EQ(with_job.params.slope, 2u * MLTCP_ONE);
	EXPECT_FALSE(mltcp_flow_beyond(&follower, &kHighHost));
	EXPECT_FALSE(mltcp_flow_beyond(&with_job, &kHighHost));
	EXPECT_FALSE(mltcp_flow_beyond(&with_job, nullptr));

	// The host's line lowered to (1.6, 0.2); a namespace that never wrote
	// its own defaults follows it.
	EXPECT_TRUE(mltcp_flow_beyond(&follower, &kMeanOneHost));
	EXPECT_TRUE(mltcp_flow_beyond(&with_job, &kMeanOneHost));
	const mltcp_params kept = with_job.params;
	d.slope = kMeanOneHost.slope;
	d.intercept = kMeanOneHost.intercept;
	mltcp_flow_relatch(&follower, &d, nullptr, MLTCP_JOB_F_LINE, MLTCP_BASE_SELECTABLE,
			   &kMeanOneHost);
	mltcp_flow_relatch(&with_job, &d, &job, MLTCP_JOB_F_LINE, MLTCP_BASE_SELECTABLE,
			   &kMeanOneHost);
	EXPECT_EQ(follower.params.slope, kMeanOneHost.slope);
	EXPECT_EQ(follower.params.intercept, kMeanOneHost.intercept);
	EXPECT_EQ(with_job.params.slope, 0u);
	EXPECT_EQ(with_job.params.intercept, static_cast<uint32_t>(MLTCP_ONE));
	EXPECT_EQ(with_job.params.idle_gap_us, kept.idle_gap_us);
	EXPECT_EQ(with_job.params.mode, kept.mode);
	EXPECT_EQ(with_job.params.base, kept.base);
	EXPECT_FALSE(mltcp_flow_beyond(&follower, &kMeanOneHost));
	EXPECT_FALSE(mltcp_flow_beyond(&with_job, &kMeanOneHost));

	// A flow not yet latched has no line to bound.
	mltcp_flow fresh{};
	EXPECT_FALSE(mltcp_flow_beyond(&fresh, &kMeanOneHost));
}

TEST(FlowLatch, OutOfRangeJobFallsBackToDefaults)
{
	mltcp_params d = Defaults();
	for (uint32_t slope : { MLTCP_SLOPE_MAX + 1, 65536u + 100u }) {
		mltcp_flow fl{};
		mltcp_job_spec bad{};
		bad.id = 9;
		bad.fields = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_ITER_BYTES;
		bad.slope = slope;
		bad.iter_bytes = 4096;
		mltcp_flow_init(&fl, 0, 0);
		EXPECT_FALSE(mltcp_flow_latch(&fl, &d, &bad, MLTCP_BASE_SELECTABLE, nullptr));
		EXPECT_EQ(fl.params.slope, d.slope);
		EXPECT_EQ(fl.iter.bytes, 0u);
	}
}

// However the accepted writes combine, a bounded flow never latches a line
// beyond the bound, and no flow latches F = 0: it runs its base (F = 1).
TEST(FlowLatch, ALineBeyondTheBoundLatchesTheBase)
{
	mltcp_params d = Defaults();
	mltcp_job_spec job{};
	job.id = 1;
	job.fields = MLTCP_JOB_F_SLOPE | MLTCP_JOB_F_IDLE_GAP;
	job.slope = 2 * MLTCP_ONE;
	job.idle_gap_us = 5000;

	// Accepted over intercept 0 (under the host's 1.8 at r = 1 only with 1.8),
	// then the namespace's intercept rose (to 0.2: 2.0 at r = 1, above it).
	d.intercept = 0;
	mltcp_flow fl{};
	mltcp_flow_init(&fl, 0, 0);
	job.slope = 1843;
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &kMeanOneHost));
	EXPECT_EQ(fl.params.slope, 1843);
	EXPECT_EQ(fl.params.intercept, 0);
	// Slope 2 over intercept 0: a mean of 1 over [0, 1], 10/9 with the overhang.
	job.slope = 2 * MLTCP_ONE;
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &kMeanOneHost));
	EXPECT_EQ(fl.params.slope, 0);
	d.intercept = 205;
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &kMeanOneHost));
	EXPECT_EQ(fl.params.slope, 0);
	EXPECT_EQ(fl.params.intercept, MLTCP_ONE);
	EXPECT_EQ(fl.params.idle_gap_us, 5000u); // the job's other settings hold
	EXPECT_EQ(fl.params.exempt, 0);		 // not exempt: the mode still applies
	// The initial user namespace's flows keep the full range.
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(fl.params.slope, 2 * MLTCP_ONE);
	EXPECT_EQ(fl.params.intercept, 205);
	// Under a host's line that is higher everywhere, the same line latches.
	const mltcp_line steep = { 2 * MLTCP_ONE, MLTCP_ONE / 2 };
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &steep));
	EXPECT_EQ(fl.params.slope, 2 * MLTCP_ONE);
	// Crossing it (higher at r = 0, lower at r = 1): the base.
	const mltcp_line flat_host = { 0, MLTCP_ONE * 2 };
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &flat_host));
	EXPECT_EQ(fl.params.slope, 0);
	EXPECT_EQ(fl.params.intercept, MLTCP_ONE);

	// Defaults beyond the bound (the namespace's own, the host's line lowered since).
	mltcp_params loud = Defaults();
	loud.intercept = 16 * MLTCP_ONE;
	mltcp_flow other{};
	mltcp_flow_init(&other, 0, 0);
	mltcp_flow_latch(&other, &loud, nullptr, MLTCP_BASE_SELECTABLE, &kMeanOneHost);
	EXPECT_EQ(other.params.slope, 0);
	EXPECT_EQ(other.params.intercept, MLTCP_ONE);

	// F = 0 from two writes that were each fine: never latched, anywhere.
	mltcp_params flat = Defaults();
	flat.slope = 0;
	mltcp_job_spec zero{};
	zero.id = 2;
	zero.fields = MLTCP_JOB_F_INTERCEPT;
	zero.intercept = 0;
	for (const mltcp_line *bound : { static_cast<const mltcp_line *>(nullptr), &kHighHost }) {
		mltcp_flow z{};
		mltcp_flow_init(&z, 0, 0);
		mltcp_flow_latch(&z, &flat, &zero, MLTCP_BASE_SELECTABLE, bound);
		EXPECT_EQ(z.params.slope, 0);
		EXPECT_EQ(z.params.intercept, MLTCP_ONE);
	}
}

TEST(FlowLatch, ExemptIsTheBaseAlgorithmRestartIncluded)
{
	mltcp_params d = Defaults(); // md-restart
	d.slope = kMeanOneHost.slope; // within the bound below: restarts are the question
	d.intercept = kMeanOneHost.intercept;
	mltcp_job_spec job{};
	job.id = 1;
	job.fields = MLTCP_JOB_F_EXEMPT | MLTCP_JOB_F_ITER_BYTES;
	job.exempt = 1;
	job.iter_bytes = 1 << 20;
	mltcp_flow fl{};
	mltcp_flow_init(&fl, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &kMeanOneHost));
	EXPECT_EQ(fl.params.exempt, 1);
	EXPECT_EQ(fl.params.mode, d.mode); // the flow's mode is kept for later
	EXPECT_EQ(mltcp_f(&fl.iter, &fl.params, 1 << 19), MLTCP_ONE);
	uint32_t cwnd = 100, ssthresh = 50;
	EXPECT_FALSE(mltcp_restart_window(&fl.iter, &fl.params, MLTCP_CA_OPEN, MLTCP_INIT_CWND,
					  &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 100u);

	// No longer exempt: the job's flows restart again.
	job.exempt = 0;
	job.fields &= ~static_cast<uint32_t>(MLTCP_JOB_F_EXEMPT);
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &job, MLTCP_BASE_SELECTABLE, &kMeanOneHost));
	EXPECT_EQ(fl.params.exempt, 0);
	EXPECT_TRUE(mltcp_restart_window(&fl.iter, &fl.params, MLTCP_CA_OPEN, MLTCP_INIT_CWND,
					 &cwnd, &ssthresh));
	EXPECT_EQ(cwnd, 10u);

	// Defaults never make a flow exempt.
	d.exempt = 1;
	mltcp_flow plain{};
	mltcp_flow_init(&plain, 0, 0);
	ASSERT_TRUE(mltcp_flow_latch(&plain, &d, nullptr, MLTCP_BASE_SELECTABLE, nullptr));
	EXPECT_EQ(plain.params.exempt, 0);
}

TEST(FlowRecord, ReportsTheFlowsProgress)
{
	mltcp_flow fl{};
	mltcp_params d = Defaults();
	mltcp_job_spec spec{};
	spec.id = 2;
	spec.fields = MLTCP_JOB_F_ITER_BYTES;
	spec.iter_bytes = 1000;
	mltcp_flow_init(&fl, 100, 0);
	fl.job = 42;
	ASSERT_TRUE(mltcp_flow_latch(&fl, &d, &spec, MLTCP_BASE_SELECTABLE, nullptr));

	mltcp_flow_record rec{};
	mltcp_flow_fill_record(&rec, &fl, 600);
	EXPECT_EQ(rec.bytes_this_iter, 500u);
	EXPECT_EQ(rec.iter_bytes, 1000u);
	EXPECT_EQ(rec.iter_fixed, 1);
	EXPECT_EQ(rec.iter_trusted, 1); // the operator's size
	EXPECT_EQ(rec.r, MLTCP_ONE / 2);
	EXPECT_EQ(rec.f, mltcp_f(&fl.iter, &fl.params, 600));
	EXPECT_EQ(rec.job, 42u);
	EXPECT_EQ(rec.mode, d.mode);
	EXPECT_EQ(rec.base, d.base);
	EXPECT_EQ(rec.slope, d.slope);
	EXPECT_EQ(rec.intercept, d.intercept);
	EXPECT_EQ(rec.idle_gap_us, d.idle_gap_us);

	// A learned size not yet agreed with: progress is shown, F is 1.
	mltcp_iter_set_fixed(&fl.iter, 0);
	fl.iter.bytes = 1000;
	fl.iter.recip = (1ULL << 50) / 1000 + 1;
	mltcp_flow_fill_record(&rec, &fl, 600);
	EXPECT_EQ(rec.iter_fixed, 0);
	EXPECT_EQ(rec.iter_trusted, 0);
	EXPECT_EQ(rec.r, MLTCP_ONE / 2);
	EXPECT_EQ(rec.f, MLTCP_ONE);
	fl.iter.agreed = MLTCP_TRUST_ITERS;
	mltcp_flow_fill_record(&rec, &fl, 600);
	EXPECT_EQ(rec.iter_trusted, 1);
	EXPECT_NE(rec.f, MLTCP_ONE);
}

TEST(ParamText, NamesRoundTrip)
{
	for (uint32_t mode = MLTCP_MODE_AI; mode <= MLTCP_MODE_ALL; mode++) {
		const char *name = mltcp_mode_name(mode);
		if (!mltcp_mode_valid(mode)) { // the gate without restart
			EXPECT_EQ(name, nullptr) << mode;
			continue;
		}
		ASSERT_NE(name, nullptr) << mode;
		EXPECT_EQ(mltcp_mode_parse(name), static_cast<int>(mode));
		EXPECT_EQ(mltcp_mode_parse((std::string(name) + "\n").c_str()),
			  static_cast<int>(mode));
	}
	EXPECT_STREQ(mltcp_mode_name(MLTCP_MODE_MD | MLTCP_MODE_RESTART), "md-restart");
	EXPECT_EQ(mltcp_mode_name(0), nullptr);
	EXPECT_EQ(mltcp_mode_name(MLTCP_MODE_GATE), nullptr);
	EXPECT_EQ(mltcp_mode_name(MLTCP_MODE_ALL + 1), nullptr);
	EXPECT_STREQ(mltcp_mode_name(MLTCP_MODE_MD | MLTCP_MODE_RESTART | MLTCP_MODE_GATE),
		     "md-gate");
	EXPECT_EQ(mltcp_mode_parse("md-"), -1);
	EXPECT_EQ(mltcp_mode_parse("md-restartx"), -1);
	EXPECT_EQ(mltcp_mode_parse(""), -1);
	EXPECT_EQ(mltcp_base_parse("reno"), MLTCP_BASE_RENO);
	EXPECT_EQ(mltcp_base_parse("cubic\n"), MLTCP_BASE_CUBIC);
	EXPECT_EQ(mltcp_base_parse("cubic\n\n"), -1);
	EXPECT_EQ(mltcp_base_name(2), nullptr);
	for (int p = 0; p < MLTCP_NR_PARAMS; p++)
		EXPECT_NE(mltcp_param_name(static_cast<mltcp_param>(p)), nullptr);
	EXPECT_STREQ(mltcp_param_name(MLTCP_PARAM_IDLE_GAP), "idle_gap_us");
}

TEST(ParamText, FormatsAsSysfsAlwaysHas)
{
	EXPECT_EQ(Format(MLTCP_PARAM_SLOPE, MLTCP_DEFAULT_SLOPE), "1.600");
	EXPECT_EQ(Format(MLTCP_PARAM_INTERCEPT, MLTCP_DEFAULT_INTERCEPT), "0.700");
	EXPECT_EQ(Format(MLTCP_PARAM_SLOPE, 0), "0.000");
	EXPECT_EQ(Format(MLTCP_PARAM_SLOPE, MLTCP_SLOPE_MAX), "16.000");
	EXPECT_EQ(Format(MLTCP_PARAM_SLOPE, MLTCP_SLOPE_MAX + 1), "<invalid>");
	EXPECT_EQ(Format(MLTCP_PARAM_IDLE_GAP, 20000), "20000");
	EXPECT_EQ(Format(MLTCP_PARAM_BASE, MLTCP_BASE_RENO), "reno");
	EXPECT_EQ(Format(MLTCP_PARAM_MODE, MLTCP_MODE_BOTH | MLTCP_MODE_RESTART), "both-restart");
	EXPECT_EQ(Format(MLTCP_PARAM_MODE, MLTCP_MODE_ALL), "both-gate");
	EXPECT_EQ(Format(MLTCP_PARAM_MODE, MLTCP_MODE_GATE), "<invalid>");
	EXPECT_EQ(Format(MLTCP_PARAM_MODE, 0), "<invalid>");

	// Observed values (r, F) always print in thousandths.
	for (uint32_t v = 0; v <= MLTCP_SLOPE_MAX; v++) {
		char want[32], got[MLTCP_PARAM_TEXT];
		uint32_t milli = mltcp_fixed_to_milli(v);
		snprintf(want, sizeof(want), "%u.%03u", milli / 1000, milli % 1000);
		ASSERT_GT(mltcp_format_fixed(v, got, sizeof(got)), 0);
		ASSERT_STREQ(got, want) << v;
	}

	// Settings read back as themselves: in thousandths as the module always
	// printed them where those do, else in ten-thousandths, 24 per unit.
	int fine = 0;
	for (uint32_t v = 0; v <= MLTCP_SLOPE_MAX; v++) {
		char milli_text[32], got[MLTCP_PARAM_TEXT];
		uint32_t milli = mltcp_fixed_to_milli(v), back = ~0u, from_milli = ~0u;
		snprintf(milli_text, sizeof(milli_text), "%u.%03u", milli / 1000, milli % 1000);
		ASSERT_EQ(mltcp_param_parse(MLTCP_PARAM_SLOPE, milli_text, &from_milli), 0);
		ASSERT_GT(mltcp_param_format(MLTCP_PARAM_SLOPE, v, got, sizeof(got)), 0);
		ASSERT_EQ(mltcp_param_parse(MLTCP_PARAM_SLOPE, got, &back), 0) << got;
		ASSERT_EQ(back, v) << got;
		if (from_milli == v) {
			ASSERT_STREQ(got, milli_text);
		} else {
			ASSERT_EQ(std::strlen(got), std::strlen(milli_text) + 1) << got;
			fine++;
		}
	}
	EXPECT_EQ(fine, 24 * 16);
	EXPECT_EQ(Format(MLTCP_PARAM_INTERCEPT, 64), "0.0625");
	EXPECT_EQ(Format(MLTCP_PARAM_INTERCEPT, 65), "0.063");
	EXPECT_EQ(Format(MLTCP_PARAM_INTERCEPT, MLTCP_DEFAULT_INTERCEPT), "0.700");
	char small[6]; // "0.0625" and its NUL do not fit
	EXPECT_EQ(mltcp_format_setting(64, small, sizeof(small)), -1);
	EXPECT_EQ(mltcp_format_setting(MLTCP_SLOPE_MAX + 1, small, sizeof(small)), -1);

	// r and F in debugfs go beyond the tunables' range.
	for (uint32_t v : { 16385u, 32768u, 65535u, 1u << 20, 0xffffffffu }) {
		char want[32], got[MLTCP_PARAM_TEXT];
		uint32_t milli = mltcp_fixed_to_milli(v);
		snprintf(want, sizeof(want), "%u.%03u", milli / 1000, milli % 1000);
		ASSERT_GT(mltcp_format_fixed(v, got, sizeof(got)), 0);
		ASSERT_STREQ(got, want) << v;
	}

	char tiny[5];
	EXPECT_EQ(mltcp_format_fixed(MLTCP_SLOPE_MAX, tiny, sizeof(tiny)), -1);
	EXPECT_STREQ(tiny, "");
	EXPECT_EQ(mltcp_param_format(MLTCP_PARAM_MODE, MLTCP_MODE_ALL, tiny, sizeof(tiny)), -1);
}

TEST(ParamText, ParsesWithinRangeOnly)
{
	uint32_t v = 12345;
	EXPECT_EQ(mltcp_param_parse(MLTCP_PARAM_SLOPE, "1.6", &v), 0);
	EXPECT_EQ(v, 1638u);
	EXPECT_EQ(mltcp_param_parse(MLTCP_PARAM_IDLE_GAP, "20000\n", &v), 0);
	EXPECT_EQ(v, 20000u);
	EXPECT_EQ(mltcp_param_parse(MLTCP_PARAM_MODE, "md-restart", &v), 0);
	EXPECT_EQ(v, static_cast<uint32_t>(MLTCP_MODE_MD | MLTCP_MODE_RESTART));
	EXPECT_EQ(mltcp_param_parse(MLTCP_PARAM_BASE, "reno", &v), 0);
	EXPECT_EQ(v, 0u);

	v = 777;
	for (auto bad : { std::make_pair(MLTCP_PARAM_SLOPE, "16.001"),
			  std::make_pair(MLTCP_PARAM_SLOPE, "-1"),
			  std::make_pair(MLTCP_PARAM_INTERCEPT, "abc"),
			  std::make_pair(MLTCP_PARAM_IDLE_GAP, "999"),
			  std::make_pair(MLTCP_PARAM_IDLE_GAP, "60000001"),
			  std::make_pair(MLTCP_PARAM_IDLE_GAP, "99999999999999999999"),
			  std::make_pair(MLTCP_PARAM_IDLE_GAP, "20ms"),
			  std::make_pair(MLTCP_PARAM_IDLE_GAP, ""),
			  std::make_pair(MLTCP_PARAM_BASE, "bbr"),
			  std::make_pair(MLTCP_PARAM_MODE, "all") }) {
		EXPECT_EQ(mltcp_param_parse(bad.first, bad.second, &v), -1) << bad.second;
		EXPECT_EQ(v, 777u) << bad.second;
	}
}

TEST(ParamText, GetAndSetEveryParameter)
{
	mltcp_params p{};
	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		auto which = static_cast<mltcp_param>(i);
		mltcp_param_set(&p, which, static_cast<uint32_t>(i + 1));
		EXPECT_EQ(mltcp_param_get(&p, which), static_cast<uint32_t>(i + 1));
	}
	EXPECT_EQ(p.slope, 1);
	EXPECT_EQ(p.intercept, 2);
	EXPECT_EQ(p.idle_gap_us, 3u);
	EXPECT_EQ(p.base, 4);
	EXPECT_EQ(p.mode, 5);
}

} // namespace

namespace
{

mltcp_prio_config PrioDefaults()
{
	mltcp_prio_config pc{};
	mltcp_prio_config_default(&pc);
	return pc;
}

TEST(PrioDscpText, ParsesSpacesOrCommasAndKeepsTheRest)
{
	mltcp_prio_config pc = PrioDefaults();

	EXPECT_EQ(mltcp_prio_dscp_parse("10 12 14\n", &pc), 3);
	EXPECT_EQ(pc.dscp[0], 10u);
	EXPECT_EQ(pc.dscp[2], 14u);
	EXPECT_EQ(pc.dscp[3], 32u); // CS4 kept
	EXPECT_EQ(mltcp_prio_dscp_parse("1,2,3,4,5,6,7", &pc), 7);
	EXPECT_EQ(pc.dscp[6], 7u);
	EXPECT_EQ(mltcp_prio_dscp_parse("63", &pc), 1);
	EXPECT_EQ(pc.dscp[0], 63u);
}

TEST(PrioDscpText, RefusesMalformedAndChangesNothing)
{
	const char *const bad[] = { "", "\n", "64", "8 16 ", " 8", "8  16", "8;16", "-1",
				    "8 16 24 32 40 48 56 0", "1a", "8,,16", "999999999999" };

	for (const char *text : bad) {
		mltcp_prio_config pc = PrioDefaults();
		const mltcp_prio_config before = pc;

		EXPECT_EQ(mltcp_prio_dscp_parse(text, &pc), -1) << '"' << text << '"';
		EXPECT_EQ(memcmp(&pc, &before, sizeof(pc)), 0) << '"' << text << '"';
	}
}

TEST(PrioDscpText, FormatsAllSevenAndReadsBack)
{
	mltcp_prio_config pc = PrioDefaults();
	char buf[32];

	ASSERT_GT(mltcp_prio_dscp_format(&pc, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "8 16 24 32 40 48 56");
	mltcp_prio_config back{};
	ASSERT_EQ(mltcp_prio_dscp_parse(buf, &back), MLTCP_PRIO_CLASSES_MAX);
	EXPECT_EQ(memcmp(back.dscp, pc.dscp, sizeof(pc.dscp)), 0);
	EXPECT_EQ(mltcp_prio_dscp_format(&pc, buf, 10), -1);
	EXPECT_STREQ(buf, "");
}

// The datapaths' call: an exempt flow has no class, so ours goes back to none_dscp.
TEST(PrioFlow, ExemptFlowsLoseTheirClass)
{
	mltcp_prio_config pc = PrioDefaults();
	mltcp_flow fl{};
	mltcp_prio_hold hold;

	uint32_t cwnd = 20;

	pc.classes = 4;
	mltcp_flow_init(&fl, 0, 0);
	mltcp_iter_set_fixed(&fl.iter, 1 << 20);
	// Nothing in flight: the move up is made at once.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 900 << 10, 1000, 0, 0, 0, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  32); // r 0.88: CS4
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	fl.params.exempt = 1;
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 900 << 10, 1000, 32, 20, 20, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  0);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 900 << 10, 1000, 0, 20, 20, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(cwnd, 20u);
}

// K classes at their default codes.
mltcp_prio_config PrioConfig(uint8_t classes)
{
	mltcp_prio_config pc = PrioDefaults();
	pc.classes = classes;
	return pc;
}

// A flow as shipped (md-restart) in iterations of a fixed 1 MiB, trusted.
mltcp_flow IteratedFlow()
{
	mltcp_flow fl{};
	mltcp_flow_init(&fl, 0, 0);
	mltcp_params_default(&fl.params);
	mltcp_iter_set_fixed(&fl.iter, 1 << 20);
	return fl;
}

// A move up waits, the window held at what is in flight, until that is
// acknowledged; the flow cannot grow meanwhile; the window comes back with
// the class at the drain, and a reduction meanwhile reduces the saved one.
// Each call reports what it did to the hold, once: began, released, reduced.
TEST(PrioFlow, MoveUpWaitsForTheDataInFlight)
{
	mltcp_prio_config pc = PrioConfig(4);
	mltcp_flow fl = IteratedFlow();
	uint32_t cwnd = 40, ssthresh = 1000;
	mltcp_prio_hold hold, unheld_hold;

	// r 0.3 in class 0 (CS1, 8): class 1 is due, 30 segments in flight.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 300 << 10, 1000, 8, 30, 30, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_BEGAN);
	EXPECT_EQ(cwnd, 30u);
	EXPECT_TRUE(mltcp_prio_held(&fl.iter, &fl.params));
	EXPECT_FALSE(mltcp_flow_may_grow(&fl, true, 1000));
	// Each ACK lowers the window to what is still in flight; the hold goes on.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 310 << 10, 1100, 8, 12, 12, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(cwnd, 12u);
	// Two segments unacknowledged: the hold goes on.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 328 << 10, 1150, 8, 2, 2, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(cwnd, 2u);
	// The ACK that leaves one segment, which a receiver may hold its ACK of
	// for its delayed-ACK timer: the window and the class.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 330 << 10, 1200, 8, 1, 1, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  16);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_RELEASED);
	EXPECT_EQ(cwnd, 40u);
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	EXPECT_TRUE(mltcp_flow_may_grow(&fl, true, 1200));
	// The class stands: nothing more to report.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 340 << 10, 1250, 16, 30, 30, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);

	// Held again at r 0.55; an ECN echo's ssthresh reduces the saved window,
	// as it would the window of the flow not held.
	mltcp_flow unheld = fl;
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 550 << 10, 1300, 16, 35, 35, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_BEGAN);
	EXPECT_EQ(cwnd, 35u);
	EXPECT_EQ(mltcp_flow_ssthresh(&fl, MLTCP_ONE, cwnd, ssthresh, &hold),
		  mltcp_flow_ssthresh(&unheld, MLTCP_ONE, 40, ssthresh, &unheld_hold));
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_REDUCED);
	EXPECT_EQ(unheld_hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	// In CWR the reduction owns the window: the move waits for Open.
	cwnd = 34;
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 560 << 10, 1400, 16, 34, 34, MLTCP_CA_CWR, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(cwnd, 34u);
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	// At an RTO it is made at once: what was in flight is taken for lost.
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 560 << 10, 1500, 16, 2, 1, MLTCP_CA_LOSS, &cwnd,
				       &hold),
		  24);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(cwnd, 34u);
}

// The kernel's RTO: ssthresh() first, which ends a hold and reduces the
// window it saved, then CA_EVENT_LOSS while the socket is still Open, for
// which the datapaths pass Loss: the move is made at once and nothing is
// saved to come back after the RTO. A start's disarm leaves a hold alone,
// and a hold found outside Open and Disorder is dropped, not given back,
// and counted as a reduction's (no datapath's reduction skips ssthresh()
// today: the count keeps every hold begun ending once if one ever does).
TEST(PrioFlow, AnRtoMovesAtOnceAndSavesNothing)
{
	mltcp_prio_config pc = PrioConfig(4);
	mltcp_flow fl = IteratedFlow();
	uint32_t cwnd = 40;
	mltcp_prio_hold hold;

	ASSERT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 300 << 10, 1000, 8, 30, 30, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_BEGAN);
	mltcp_flow_ssthresh(&fl, MLTCP_ONE, cwnd, 1000, &hold);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_REDUCED);
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	cwnd = 1; // tcp_enter_loss(): in flight + 1, after the event
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 300 << 10, 1100, 8, 2, 0, MLTCP_CA_LOSS, &cwnd,
				       &hold),
		  16);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(fl.iter.armed_cwnd, 0u);
	EXPECT_EQ(cwnd, 1u);

	cwnd = 40;
	ASSERT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 550 << 10, 1200, 16, 35, 35, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_BEGAN);
	EXPECT_FALSE(mltcp_disarm(&fl.iter, &fl.params, MLTCP_TX_OUTSTANDING, &cwnd));
	EXPECT_TRUE(mltcp_prio_held(&fl.iter, &fl.params));
	EXPECT_EQ(cwnd, 35u);
	cwnd = 20; // a reduction's window
	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 560 << 10, 1300, 16, 20, 20, MLTCP_CA_RECOVERY,
				       &cwnd, &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_REDUCED);
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	EXPECT_EQ(cwnd, 20u);
	// Ended once: a later reduction's ssthresh has no hold to report.
	mltcp_flow_ssthresh(&fl, MLTCP_ONE, cwnd, 1000, &hold);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
}

// A move up held until the iteration drains ends at the drain, before the
// drain's own restart, which then sees the window the flow had.
TEST(PrioFlow, DrainEndsAHoldBeforeItsRestart)
{
	mltcp_prio_config pc = PrioConfig(4);
	mltcp_flow fl = IteratedFlow();
	uint32_t cwnd = 40, ssthresh = 1000;
	mltcp_prio_hold hold;

	EXPECT_EQ(mltcp_flow_prio_dscp(&fl, &pc, 1000 << 10, 1000, 16, 30, 30, MLTCP_CA_OPEN, &cwnd,
				       &hold),
		  -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_BEGAN);
	EXPECT_EQ(cwnd, 30u);
	ASSERT_TRUE(mltcp_flow_drained(&fl, 2000, true, 1 << 20, MLTCP_CA_OPEN, 10, &cwnd, &ssthresh,
				       &hold));
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_RELEASED);
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	EXPECT_EQ(cwnd, 10u);				// restarted from the 40 it had
	EXPECT_EQ(fl.iter.armed_cwnd, 40u);		// and given back if no iteration starts
	EXPECT_TRUE(mltcp_armed(&fl.iter, &fl.params));
	// The drain's own restart saved that window too, but it is no hold.
	EXPECT_FALSE(mltcp_prio_held(&fl.iter, &fl.params));
	EXPECT_FALSE(mltcp_flow_drained(&fl, 2100, true, 1 << 20, MLTCP_CA_OPEN, 10, &cwnd,
					&ssthresh, &hold));
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
}

// With no more than a segment's worth unacknowledged (what a receiver may
// hold its ACK of), a move up is made at once and nothing is held.
TEST(PrioFlow, AMoveUpWithOneSegmentUnacknowledgedIsMadeAtOnce)
{
	mltcp_prio_config pc = PrioConfig(4);
	uint32_t cwnd = 40;
	mltcp_prio_hold hold;
	// A fresh flow at r 0.3 in class 0 (CS1, 8), class 1 due.
	auto move = [&](uint32_t unacked, uint32_t in_flight) {
		mltcp_flow fl = IteratedFlow();
		int dscp = mltcp_flow_prio_dscp(&fl, &pc, 300 << 10, 1000, 8, unacked, in_flight,
						MLTCP_CA_OPEN, &cwnd, &hold);
		EXPECT_EQ(mltcp_prio_held(&fl.iter, &fl.params), hold == MLTCP_PRIO_HOLD_BEGAN);
		return dscp;
	};

	EXPECT_EQ(move(1, 1), 16);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	EXPECT_EQ(cwnd, 40u);
	// Three short segments (packets_out 3) within one MSS, as the datapaths
	// count them: a segment's worth, moved at once too.
	EXPECT_EQ(move(mltcp_unacked_segs(3 * 400, 1448), 3), 16);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_NONE);
	// A byte past one MSS is held.
	EXPECT_EQ(move(mltcp_unacked_segs(1449, 1448), 2), -1);
	EXPECT_EQ(hold, MLTCP_PRIO_HOLD_BEGAN);
}

// Unacknowledged data counts in segments of its bytes, not in packets: three
// short segments within one MSS are one segment's worth, a byte past an MSS
// two.
TEST(PrioFlow, UnackedCountsBytesInSegments)
{
	EXPECT_EQ(mltcp_unacked_segs(0, 1448), 0u);
	EXPECT_EQ(mltcp_unacked_segs(3 * 400, 1448), 1u);
	EXPECT_EQ(mltcp_unacked_segs(1448, 1448), 1u);
	EXPECT_EQ(mltcp_unacked_segs(1449, 1448), 2u);
	EXPECT_EQ(mltcp_unacked_segs(10 * 1448, 1448), 10u);
	EXPECT_EQ(mltcp_unacked_segs(~0u, 1448), ~0u / 1448 + 1);
	EXPECT_EQ(mltcp_unacked_segs(5, 0), 5u); // no MSS yet: bytes
}

// Every hold begun ends once, whichever way: over a long run of ACKs,
// drains and reductions, in the order the kernel's hooks see them, the
// holds the calls report begun are those they report ended, plus the one
// still held, and none is reported twice.
TEST(PrioFlow, EveryHoldBegunEndsOnce)
{
	mltcp_prio_config pc = PrioConfig(4);
	mltcp_flow fl = IteratedFlow();
	uint32_t cwnd = 40, ssthresh = 1000, dscp = 8;
	uint64_t counts[MLTCP_PRIO_HOLD_NR_EVENTS] = {};
	uint64_t acked = 0, ended_by_drain = 0, ended_by_ack = 0;
	uint32_t now = 1000, state = MLTCP_CA_OPEN;

	auto count = [&](mltcp_prio_hold hold) {
		ASSERT_LE(hold, MLTCP_PRIO_HOLD_NONE);
		if (hold != MLTCP_PRIO_HOLD_NONE)
			counts[hold]++;
	};
	bool drained = false, computing = false;

	for (int i = 0; i < 4000; i++) {
		mltcp_prio_hold hold;

		now += computing ? 50000 : 100;
		if (drained) { // the next send: a new iteration or a resumption
			mltcp_tx_verdict v = mltcp_on_tx_start(&fl.iter, &fl.params, acked, now,
							       state >= MLTCP_CA_RECOVERY, false, 0);
			mltcp_disarm(&fl.iter, &fl.params, v, &cwnd);
		}
		acked += 7 * 1460;
		// r climbs; a drain mid-iteration, and the compute phase after the last byte.
		const bool done = acked - fl.iter.start_acked >= fl.iter.bytes;
		const bool drain = done || i % 23 == 22, reduce = i % 37 == 36;
		// Now and then 1 unacknowledged (a hold ends: the receiver may delay
		// its ACK) or 2 (it goes on); in the network, fewer (SACKed or lost).
		const uint32_t unacked = drain ? 0 : i % 29 < 2 ? 1 + i % 29 : 5 + i % 30;
		const uint32_t in_flight = unacked - unacked / 5;

		drained = drain;
		computing = done;

		if (reduce) { // tcp_init_cwnd_reduction(): ssthresh, then the state
			ssthresh = mltcp_flow_ssthresh(&fl, MLTCP_ONE, cwnd, ssthresh, &hold);
			count(hold);
			state = i % 2 ? MLTCP_CA_CWR : MLTCP_CA_RECOVERY;
		} else if (i % 37 == 5) {
			state = MLTCP_CA_OPEN; // the reduction's end
		}
		if (drain) {
			mltcp_flow_drained(&fl, now, true, acked, state, 10, &cwnd, &ssthresh, &hold);
			if (hold == MLTCP_PRIO_HOLD_RELEASED)
				ended_by_drain++;
			count(hold);
		}
		int d = mltcp_flow_prio_dscp(&fl, &pc, acked, now, dscp, unacked, in_flight, state,
					     &cwnd, &hold);
		if (hold == MLTCP_PRIO_HOLD_RELEASED)
			ended_by_ack++;
		count(hold);
		if (d >= 0)
			dscp = static_cast<uint32_t>(d);
		cwnd = std::max(cwnd, 2u);
	}
	const uint64_t held = mltcp_prio_held(&fl.iter, &fl.params) ? 1 : 0;

	EXPECT_GT(counts[MLTCP_PRIO_HOLD_BEGAN], 10u);
	EXPECT_GT(ended_by_drain, 0u);
	EXPECT_GT(ended_by_ack, 0u);
	EXPECT_GT(counts[MLTCP_PRIO_HOLD_REDUCED], 0u);
	EXPECT_EQ(counts[MLTCP_PRIO_HOLD_BEGAN],
		  counts[MLTCP_PRIO_HOLD_RELEASED] + counts[MLTCP_PRIO_HOLD_REDUCED] + held);
}

} // namespace
