// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "schedule.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace mltcp::trainsim
{

namespace
{

uint64_t fnv1a(std::string_view text)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	for (unsigned char c : text) {
		hash ^= c;
		hash *= 0x100000001b3ull;
	}
	return hash;
}

std::mt19937_64 seeded_rng(const Config &config)
{
	uint64_t job = fnv1a(config.job);
	std::seed_seq sequence{ static_cast<uint32_t>(config.seed),
				static_cast<uint32_t>(config.seed >> 32), config.rank,
				static_cast<uint32_t>(job), static_cast<uint32_t>(job >> 32) };
	return std::mt19937_64(sequence);
}

} // namespace

uint64_t ring_chunk_bytes(uint64_t bytes, unsigned world, unsigned chunk)
{
	return bytes / world + (chunk < bytes % world ? 1 : 0);
}

std::vector<Step> collective_schedule(Collective collective, unsigned world, unsigned rank,
				      uint64_t bytes)
{
	if (collective == Collective::exchange)
		return { Step{ bytes, bytes } };
	if (collective == Collective::push)
		return { rank == 0 ? Step{ bytes, 0 } : Step{ 0, bytes } };

	std::vector<Step> steps;
	steps.reserve(2 * (world - 1));
	for (int phase = 0; phase < 2; phase++)
		for (unsigned k = 0; k + 1 < world; k++) {
			uint64_t size = ring_chunk_bytes(bytes, world, k);
			steps.push_back(Step{ size, size });
		}
	return steps;
}

void split_chunks(uint64_t message, std::vector<uint64_t> &per_socket, unsigned &next_socket)
{
	const uint64_t sockets = per_socket.size();
	const uint64_t chunk = std::max(nccl_min_chunk_bytes, (message + sockets - 1) / sockets);

	for (uint64_t done = 0; done < message;) {
		uint64_t size = std::min(chunk, message - done);
		per_socket[next_socket] += size;
		next_socket = static_cast<unsigned>((next_socket + 1) % sockets);
		done += size;
	}
}

std::vector<uint64_t> ddp_buckets(uint64_t bytes, uint64_t bucket_bytes,
				  uint64_t first_bucket_bytes)
{
	const uint64_t full = ddp_min_buckets * bucket_bytes;

	if (bytes < full) {
		// 128-bit: bucket sizes up to the option's limit times bytes.
		auto scale = [&](uint64_t size) {
			unsigned __int128 scaled = static_cast<unsigned __int128>(size) * bytes;
			return std::max<uint64_t>(1, static_cast<uint64_t>((scaled + full - 1) / full));
		};
		bucket_bytes = scale(bucket_bytes);
		first_bucket_bytes = scale(first_bucket_bytes);
	}
	std::vector<uint64_t> buckets;
	uint64_t left = bytes;
	for (uint64_t size = first_bucket_bytes; left > 0; size = bucket_bytes) {
		buckets.push_back(std::min(size, left));
		left -= buckets.back();
	}
	return buckets;
}

std::vector<PlanStep> iteration_plan(const Config &config)
{
	std::vector<uint64_t> messages{ config.bytes };
	if (config.pattern == Pattern::ddp)
		messages = ddp_buckets(config.bytes, config.bucket_bytes, config.first_bucket_bytes);

	std::vector<PlanStep> plan;
	unsigned next_send = 0, next_recv = 0;
	uint64_t ready = 0;
	for (size_t m = 0; m < messages.size(); m++) {
		ready += messages[m];
		for (const Step &step : collective_schedule(config.collective, config.world,
							    config.rank, messages[m])) {
			PlanStep out{ m, ready, std::vector<uint64_t>(config.sockets),
				      std::vector<uint64_t>(config.sockets) };
			split_chunks(step.send_bytes, out.send, next_send);
			split_chunks(step.recv_bytes, out.recv, next_recv);
			plan.push_back(std::move(out));
		}
	}
	return plan;
}

uint64_t ready_after_us(uint64_t compute_us, uint64_t ready_bytes, uint64_t bytes)
{
	if (bytes == 0 || ready_bytes >= bytes)
		return compute_us;
	return static_cast<uint64_t>(static_cast<unsigned __int128>(compute_us) * ready_bytes /
				     bytes);
}

Totals schedule_totals(const std::vector<Step> &steps)
{
	Totals totals{ 0, 0 };
	for (const Step &step : steps) {
		totals.sent += step.send_bytes;
		totals.received += step.recv_bytes;
	}
	return totals;
}

std::optional<int64_t> iteration_slot_ns(int64_t first_ns, uint64_t period_us, uint64_t index)
{
	constexpr int64_t max_ns = std::numeric_limits<int64_t>::max();

	if (period_us == 0 || period_us > static_cast<uint64_t>(max_ns / 1000) || first_ns < 0)
		return std::nullopt;
	const int64_t period_ns = static_cast<int64_t>(period_us) * 1000;
	if (index > static_cast<uint64_t>((max_ns - first_ns) / period_ns))
		return std::nullopt;
	return first_ns + static_cast<int64_t>(index) * period_ns;
}

int64_t slot_start_ns(std::optional<int64_t> slot_ns, int64_t ready_ns)
{
	return slot_ns ? std::max(ready_ns, *slot_ns) : ready_ns;
}

ComputeTimes::ComputeTimes(const Config &config)
    : compute_us_(config.compute_us), jitter_us_(config.jitter_us), rng_(seeded_rng(config))
{
}

uint64_t ComputeTimes::next_us()
{
	if (jitter_us_ == 0)
		return compute_us_;
	int64_t jitter = static_cast<int64_t>(jitter_us_);
	int64_t noise = std::uniform_int_distribution<int64_t>(-jitter, jitter)(rng_);
	return static_cast<uint64_t>(
		std::max<int64_t>(0, static_cast<int64_t>(compute_us_) + noise));
}

} // namespace mltcp::trainsim
