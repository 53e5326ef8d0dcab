// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "records.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "schedule.h"
#include "stats.h"

namespace mltcp::trainsim
{

std::string json_escape(std::string_view text)
{
	std::string out;
	for (unsigned char c : text) {
		switch (c) {
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		case '\n': out += "\\n"; break;
		case '\t': out += "\\t"; break;
		case '\r': out += "\\r"; break;
		default:
			if (c < 0x20) {
				char buf[8];
				std::snprintf(buf, sizeof(buf), "\\u%04x", c);
				out += buf;
			} else {
				out += static_cast<char>(c);
			}
		}
	}
	return out;
}

std::string format_seconds_ns(int64_t ns)
{
	bool negative = ns < 0;
	// Work on the magnitude so that rounding is symmetric; -1 ns is -0.000000.
	uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
	uint64_t us = (magnitude + 500) / 1000;
	char buf[48];
	std::snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%06" PRIu64, negative && us ? "-" : "",
		      us / 1'000'000, us % 1'000'000);
	return buf;
}

void JsonObject::add_key(std::string_view key)
{
	if (body_.size() > 1)
		body_ += ',';
	body_ += '"';
	body_ += json_escape(key);
	body_ += "\":";
}

JsonObject &JsonObject::add_string(std::string_view key, std::string_view value)
{
	add_key(key);
	body_ += '"';
	body_ += json_escape(value);
	body_ += '"';
	return *this;
}

JsonObject &JsonObject::add_uint(std::string_view key, uint64_t value)
{
	add_key(key);
	body_ += std::to_string(value);
	return *this;
}

JsonObject &JsonObject::add_seconds_ns(std::string_view key, int64_t ns)
{
	add_key(key);
	body_ += format_seconds_ns(ns);
	return *this;
}

JsonObject &JsonObject::add_seconds(std::string_view key, std::optional<double> seconds)
{
	add_key(key);
	if (!seconds || !std::isfinite(*seconds)) {
		body_ += "null";
		return *this;
	}
	char buf[48];
	std::snprintf(buf, sizeof(buf), "%.6f", *seconds);
	body_ += buf;
	return *this;
}

JsonObject &JsonObject::add_uint_array(std::string_view key, const std::vector<uint64_t> &values)
{
	add_key(key);
	body_ += '[';
	for (size_t i = 0; i < values.size(); i++)
		body_ += (i ? "," : "") + std::to_string(values[i]);
	body_ += ']';
	return *this;
}

namespace
{

// The fields every record starts with: what it is and whose it is.
template <typename Record> JsonObject record_head(const char *type, const Record &r)
{
	JsonObject head;

	head.add_string("type", type)
		.add_string("job", r.job)
		.add_uint("rank", r.rank)
		.add_uint("world", r.world);
	return head;
}

} // namespace

std::string to_json(const IterationRecord &r)
{
	const int64_t compute_start_ns = slot_start_ns(r.slot_ns, r.start_ns);
	JsonObject out = record_head("iteration", r);

	out.add_uint("iteration", r.iteration)
		.add_seconds_ns("start", r.start_ns)
		.add_seconds_ns("comm_start", r.comm_start_ns)
		.add_seconds_ns("end", r.end_ns)
		.add_seconds_ns("compute_s", r.comm_start_ns - compute_start_ns)
		.add_seconds_ns("comm_s", r.end_ns - r.comm_start_ns)
		.add_seconds_ns("compute_target_s",
				static_cast<int64_t>(r.compute_target_us) * 1000)
		.add_uint("bytes_sent", r.bytes_sent)
		.add_uint("bytes_received", r.bytes_received)
		.add_string("cc", r.cc)
		.add_uint("retrans", r.retrans);
	if (r.slot_ns)
		out.add_seconds_ns("slot", *r.slot_ns)
			.add_seconds_ns("slot_wait_s", compute_start_ns - r.start_ns);
	if (r.first_send_ns)
		out.add_seconds_ns("first_send", *r.first_send_ns);
	if (!r.socket_bytes.empty())
		out.add_uint_array("socket_bytes", r.socket_bytes);
	if (r.mark_ns)
		out.add_seconds_ns("mark_s", *r.mark_ns);
	return out.str();
}

std::string to_json(const SummaryRecord &r)
{
	return record_head("summary", r)
		.add_string("collective", r.collective)
		.add_string("status", r.status)
		.add_uint("iterations", r.iteration_s.size())
		.add_seconds("mean_iter_s", mean(r.iteration_s))
		.add_seconds("p50_iter_s", nearest_rank_percentile(r.iteration_s, 50))
		.add_seconds("p99_iter_s", nearest_rank_percentile(r.iteration_s, 99))
		.add_seconds("mean_comm_s", mean(r.comm_s))
		.add_uint("bytes_sent", r.bytes_sent)
		.add_uint("bytes_received", r.bytes_received)
		.add_uint("total_retrans", r.total_retrans)
		.add_string("cc", r.cc)
		.str();
}

} // namespace mltcp::trainsim
