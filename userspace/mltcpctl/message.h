// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The mltcp generic netlink messages, built and read with libmnl over plain
// buffers: no socket, so every encoder and decoder is unit-tested (round
// trips) and the decoders are fuzzed. Attribute numbers come from the same
// uapi header the kernel module compiles (kmod/uapi/mltcp.h).
#ifndef MLTCPCTL_MESSAGE_H
#define MLTCPCTL_MESSAGE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model.h"

struct nlmsghdr;

namespace mltcpctl
{

using Bytes = std::vector<uint8_t>;

// Requests. flags: NLM_F_* besides NLM_F_REQUEST.
Bytes encode_family_request(uint32_t seq);
Bytes encode_job(uint16_t family, uint8_t cmd, const Job &job, uint32_t seq, uint16_t flags);
Bytes encode_job_id(uint16_t family, uint8_t cmd, std::optional<uint32_t> id, uint32_t seq,
		    uint16_t flags);
// MLTCP_CMD_JOB_MARK, of a step if given (mltcp_job_mark()).
Bytes encode_job_mark(uint16_t family, uint32_t id, std::optional<uint32_t> step, uint32_t seq);
Bytes encode_flow_dump(uint16_t family, std::optional<uint32_t> job, uint32_t seq);
Bytes encode_stats_get(uint16_t family, uint32_t seq);

// A flow dump reply, as the kernel builds it (for tests and fuzz seeds).
Bytes encode_flow(uint16_t family, const Flow &flow, uint32_t seq);
// A stats reply, as the kernel builds it (for tests and fuzz seeds).
Bytes encode_stats(uint16_t family, const Stats &stats, uint32_t seq);

// The complete messages of a received buffer; stops at the first one whose
// padded length does not fit. *trailing is set when bytes were left over.
std::vector<const nlmsghdr *> split_messages(const uint8_t *buf, size_t len,
					     bool *trailing = nullptr);

// Replies. Each takes one message as split_messages() returns it and
// validates every attribute it reads; nullopt if malformed.
struct FamilyInfo {
	uint16_t id = 0;
	uint32_t version = 0;
};
std::optional<FamilyInfo> decode_family(const nlmsghdr *nlh);
std::optional<Job> decode_job(const nlmsghdr *nlh);
std::optional<Flow> decode_flow(const nlmsghdr *nlh);
// Every verdict's count must be present: a module that counts fewer is
// another version. The gate's counts, and the held moves up's, are each
// all present or none (a module older than them): gate or prio_hold is
// then empty.
std::optional<Stats> decode_stats(const nlmsghdr *nlh);

// NLMSG_ERROR (an ack when error is 0) or NLMSG_DONE, with the extended ack.
struct Ack {
	int error = 0; // positive errno; 0: success
	std::string message;
	std::optional<uint32_t> offset;	  // of the offending attribute in the request
	std::optional<uint32_t> missing;  // type of a missing required attribute
	std::optional<uint64_t> min, max; // policy bounds of the offending attribute
	bool operator==(const Ack &o) const
	{
		return error == o.error && message == o.message && offset == o.offset &&
		       missing == o.missing && min == o.min && max == o.max;
	}
};
std::optional<Ack> decode_ack(const nlmsghdr *nlh);

// An extended ack as the kernel builds it (for tests and fuzz seeds); the
// request's header is echoed capped (NETLINK_CAP_ACK).
Bytes encode_ack(const Ack &ack, uint32_t seq);

// The type of the top-level attribute of a request at a byte offset (as an
// extended ack reports it); nullopt if no attribute starts there.
std::optional<uint16_t> attr_at(const Bytes &request, uint32_t offset);

} // namespace mltcpctl

#endif // MLTCPCTL_MESSAGE_H
