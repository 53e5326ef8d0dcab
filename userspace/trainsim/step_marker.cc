// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "step_marker.h"

#include <limits>
#include <string>

#include "mltcp.h"
#include "net.h"

namespace mltcp::trainsim
{

void StepMarker::Close::operator()(mltcp_marker *marker) const noexcept
{
	mltcp_marker_close(marker);
}

StepMarker::StepMarker(uint32_t job) : job_(job)
{
	mltcp_marker *opened = nullptr;
	if (mltcp_marker_open(&opened, job, MLTCP_BACKEND_AUTO) < 0)
		throw RuntimeError("--mark " + std::to_string(job) +
				   ": cannot open a marker: " + mltcp_error());
	marker_.reset(opened);
}

void StepMarker::mark(uint64_t iteration)
{
	// Step numbers are 32 bits: past 2^32 - 1 iterations they wrap, skipping
	// 0 (a mark without a number), and still differ from the last one.
	constexpr uint64_t steps = std::numeric_limits<uint32_t>::max();
	const auto step = static_cast<uint32_t>(iteration % steps + 1);
	if (mltcp_mark(marker_.get(), step) < 0)
		throw RuntimeError("--mark " + std::to_string(job_) + ": iteration " +
				   std::to_string(iteration) + "'s mark failed: " + mltcp_error());
}

} // namespace mltcp::trainsim
