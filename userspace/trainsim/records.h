// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The JSON lines mltcp-trainsim writes. Hand-written rather than through a JSON
// library so that times come out with exactly six decimals (microseconds) from
// integer nanoseconds, without a round trip through binary floating point.
#ifndef MLTCP_TRAINSIM_RECORDS_H
#define MLTCP_TRAINSIM_RECORDS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mltcp::trainsim
{

// Builds one JSON object, fields in insertion order.
class JsonObject
{
public:
	JsonObject &add_string(std::string_view key, std::string_view value);
	JsonObject &add_uint(std::string_view key, uint64_t value);
	// Nanoseconds written as seconds with six decimals, rounded to the
	// nearest microsecond: 1763790000123456789 -> 1763790000.123457.
	JsonObject &add_seconds_ns(std::string_view key, int64_t ns);
	// Seconds with six decimals; null when absent or not finite.
	JsonObject &add_seconds(std::string_view key, std::optional<double> seconds);
	JsonObject &add_uint_array(std::string_view key, const std::vector<uint64_t> &values);
	std::string str() const { return body_ + "}"; }

private:
	void add_key(std::string_view key);
	std::string body_ = "{";
};

std::string json_escape(std::string_view text);
std::string format_seconds_ns(int64_t ns);

struct IterationRecord {
	std::string job;
	unsigned rank = 0;
	unsigned world = 0;
	uint64_t iteration = 0;
	int64_t start_ns = 0;		// CLOCK_REALTIME: the iteration begins
	// With a slot schedule: its slot (slot_start_ns()); the compute phase
	// begins at max(start, slot), and a start before the slot is time spent
	// waiting for it. Without one the compute phase begins at start.
	std::optional<int64_t> slot_ns;
	int64_t comm_start_ns = 0;	// compute phase ends, collective begins
	int64_t end_ns = 0;		// collective complete on this worker
	uint64_t compute_target_us = 0; // the compute time drawn for this iteration
	uint64_t bytes_sent = 0;
	uint64_t bytes_received = 0;
	std::string cc;
	uint64_t retrans = 0;
	// Patterns other than burst (config.h, Pattern) only, so that a burst's
	// record is as it was. With ddp the first bucket goes before the compute
	// phase ends: comm_start stays the compute phase's end, and first_send is
	// when the first bytes went (before comm_start when they overlap).
	std::optional<int64_t> first_send_ns;
	// The bytes each socket to next carried this iteration, as its peer
	// acknowledged them (tcpi_bytes_acked), in the plan's socket order.
	std::vector<uint64_t> socket_bytes;
	// With --mark only: how long the iteration's mark took (mltcp_mark()),
	// part of the communication time, as torch_worker's mark_s.
	std::optional<int64_t> mark_ns;
};

std::string to_json(const IterationRecord &record);

struct SummaryRecord {
	std::string job;
	unsigned rank = 0;
	unsigned world = 0;
	std::string collective;
	std::string status;		 // complete | interrupted | failed
	std::vector<double> iteration_s; // end - start of each logged iteration
	std::vector<double> comm_s;	 // end - comm_start of each logged iteration
	uint64_t bytes_sent = 0;
	uint64_t bytes_received = 0;
	uint64_t total_retrans = 0;
	std::string cc;
};

std::string to_json(const SummaryRecord &record);

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_RECORDS_H
