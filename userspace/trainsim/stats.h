// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Iteration-time statistics for the summary line.
#ifndef MLTCP_TRAINSIM_STATS_H
#define MLTCP_TRAINSIM_STATS_H

#include <optional>
#include <vector>

namespace mltcp::trainsim
{

// Arithmetic mean; nothing for an empty sample.
std::optional<double> mean(const std::vector<double> &values);

// Nearest-rank percentile: the smallest value such that at least p percent of
// the sample is at or below it, i.e. the ceil(p/100 * n)-th smallest (1-based).
// It is always an observed value (no interpolation); p50 of an even-sized
// sample is the lower middle value. p must be in (0, 100].
std::optional<double> nearest_rank_percentile(std::vector<double> values, double p);

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_STATS_H
