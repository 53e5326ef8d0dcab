// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libFuzzer target: mltcpctl's decoders of kernel replies (jobs, flows,
// counters, acks with extended-ack attributes, controller replies), fed
// arbitrary bytes as a received netlink datagram, and the decoder of the BPF
// flow iterator's records, fed the same bytes. A decoded job, flow or set of
// counters must encode again and decode to itself; records decode whole or
// not at all.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bpf_jobs.h"
#include "message.h"
#include "uapi/mltcp.h"

using namespace mltcpctl;

// Any id a generic netlink family can have (>= NLMSG_MIN_TYPE).
static constexpr uint16_t kFamily = 0x20;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// A private, aligned copy, as a receive buffer would be.
	std::vector<uint8_t> buf(data, data + size);

	for (const nlmsghdr *nlh : split_messages(buf.data(), buf.size())) {
		if (auto job = decode_job(nlh)) {
			Bytes re = encode_job(kFamily, MLTCP_CMD_JOB_GET, *job, 1, 0);
			auto msgs = split_messages(re.data(), re.size());
			if (msgs.size() != 1)
				abort();
			auto back = decode_job(msgs[0]);
			if (job->id && (!back || !(*back == *job)))
				abort();
		}
		if (auto flow = decode_flow(nlh)) {
			Bytes re = encode_flow(kFamily, *flow, 1);
			auto msgs = split_messages(re.data(), re.size());
			if (msgs.size() != 1)
				abort();
			auto back = decode_flow(msgs[0]);
			if (!back || !(*back == *flow))
				abort();
		}
		if (auto stats = decode_stats(nlh)) {
			Bytes re = encode_stats(kFamily, *stats, 1);
			auto msgs = split_messages(re.data(), re.size());
			auto back = msgs.size() == 1 ? decode_stats(msgs[0]) : std::nullopt;
			if (!back || !(*back == *stats))
				abort();
		}
		if (auto ack = decode_ack(nlh))
			(void)ack->message.size();
		(void)decode_family(nlh);
	}
	std::string error;
	auto records = decode_flow_records(
		std::string_view(reinterpret_cast<const char *>(data), size), &error);
	if (records ? records->size() * sizeof(mltcp_bpf_record) != size
		    : error.empty() || error.find('\n') != std::string::npos)
		abort();
	Bytes req(buf.begin(), buf.end());
	for (uint32_t off = 0; off < 64 && off < size; off++)
		(void)attr_at(req, off);
	return 0;
}
