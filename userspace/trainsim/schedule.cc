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
