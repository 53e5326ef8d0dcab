// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// --mark JOB: a worker's libmltcp marker (mltcp.h), so that a marked MLTCP
// job counts this worker's iterations at their starts, as it counts a
// PyTorch job's steps at the DDP hook's marks (python3-mltcp's StepMarker),
// instead of finding them from idles.
#ifndef MLTCP_TRAINSIM_STEP_MARKER_H
#define MLTCP_TRAINSIM_STEP_MARKER_H

#include <cstdint>
#include <memory>

struct mltcp_marker;

namespace mltcp::trainsim
{

class StepMarker
{
public:
	// Opens a marker of job on libmltcp's automatic backend (the module if
	// loaded, else the BPF twin), in the calling thread's network namespace.
	// Throws RuntimeError with libmltcp's message if it cannot.
	explicit StepMarker(uint32_t job);

	// Marks the start of iteration `iteration`: step number iteration + 1,
	// so that the ranks sharing a host's job table count each step once
	// (step 0 would mean "no number"). Returns once the datapath has the
	// mark; throws RuntimeError with libmltcp's message if the mark failed
	// (the job is gone, the backend unloaded).
	void mark(uint64_t iteration);

private:
	struct Close {
		void operator()(mltcp_marker *marker) const noexcept;
	};
	uint32_t job_;
	std::unique_ptr<mltcp_marker, Close> marker_;
};

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_STEP_MARKER_H
