// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Sample values of the model for the tests and the fuzz seeds: a job with
// every field set, a flow, a range error; and what the printer makes of a
// job or a flow. No gtest here: tests/fuzz/fuzz_seeds.cc includes it too.
#ifndef MLTCPCTL_TEST_FIXTURES_H
#define MLTCPCTL_TEST_FIXTURES_H

#include <arpa/inet.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <type_traits>

#include "message.h"
#include "model.h"
#include "flow.h"
#include "job.h"
#include "output.h"
#include "uapi/mltcp.h"

namespace mltcpctl::test
{

inline Prefix prefix(int family, const char *addr, uint8_t len)
{
	Prefix p{};
	p.family = family;
	inet_pton(family, addr, p.addr.data());
	p.len = len;
	return p;
}

// Every field set, the counters too:
// job 7 dport 5000-5010 sport 1-65535 peer fd00::/64 mark 0x10/0xff slope 2.5
// intercept 0.2 idle-gap 20ms iter-bytes 64M base reno exempt
// flows 2 flows-total 5 iterations 9 bytes 1234
inline Job sample_job()
{
	Job j;
	j.id = 7;
	j.dport = PortRange{ 5000, 5010 };
	j.sport = PortRange{ 1, 65535 };
	j.peer = prefix(AF_INET6, "fd00::", 64);
	j.mark = Mark{ 0x10, 0xff };
	j.slope = 2560;
	j.intercept = 205;
	j.idle_gap_us = 20000;
	j.iter_bytes = 64 << 20;
	j.base = MLTCP_GENL_BASE_RENO;
	j.exempt = true;
	j.flows = 2;
	j.flows_total = 5;
	j.iterations = 9;
	j.bytes = 1234;
	return j;
}

// Every field set; 10.0.0.1:40000 -> 10.0.0.2:5001 or [fd00::1]:40000 -> [fd00::2]:5001.
inline Flow sample_flow(int family)
{
	Flow f;
	f.job = 3;
	f.cookie = 0x1122334455667788ull;
	f.family = family;
	inet_pton(family, family == AF_INET ? "10.0.0.1" : "fd00::1", f.saddr.data());
	inet_pton(family, family == AF_INET ? "10.0.0.2" : "fd00::2", f.daddr.data());
	f.sport = 40000;
	f.dport = 5001;
	f.ca = "mltcp";
	f.base = MLTCP_GENL_BASE_CUBIC;
	f.mode = MLTCP_GENL_MODE_AI;
	f.cwnd = 10;
	f.ssthresh = 0x7fffffff;
	f.bytes_this_iter = 123456789012ull;
	f.iter_bytes = 1 << 26;
	f.iter_fixed = true;
	f.iter_trusted = true;
	f.prio_held = true;
	f.r = 512;
	f.f = 1024;
	f.iterations = 4;
	f.last_iter_us = 250000;
	f.slope = 1638;
	f.intercept = 205;
	f.idle_gap_us = 20000;
	return f;
}

// The kernel's extended ack for a value outside the policy's bounds, the
// offending attribute at offset 28 (the second one of a job request).
inline Ack range_ack(uint64_t min, uint64_t max)
{
	Ack ack;
	ack.error = ERANGE;
	ack.message = "integer out of range";
	ack.offset = 28;
	ack.min = min;
	ack.max = max;
	return ack;
}

// A job or a flow as `mltcpctl job show` or `flow show` prints it, as text or JSON.
template <typename Item> std::string printed(bool json, const Item &item)
{
	std::ostringstream out;
	Printer p(out, json, false);
	p.begin_list();
	if constexpr (std::is_same_v<Item, Job>)
		print_job(p, item);
	else
		print_flow(p, item);
	p.end_list();
	return out.str();
}

} // namespace mltcpctl::test

#endif // MLTCPCTL_TEST_FIXTURES_H
