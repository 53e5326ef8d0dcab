// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "schedule.h"

namespace mltcp::trainsim
{

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

} // namespace mltcp::trainsim
