// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mltcp::trainsim
{

std::optional<double> mean(const std::vector<double> &values)
{
	if (values.empty())
		return std::nullopt;
	return std::accumulate(values.begin(), values.end(), 0.0) /
	       static_cast<double>(values.size());
}

std::optional<double> nearest_rank_percentile(std::vector<double> values, double p)
{
	if (values.empty() || !(p > 0) || p > 100)
		return std::nullopt;
	std::sort(values.begin(), values.end());
	// p * n / 100 in integer-friendly form: 99 * 100 / 100 must give exactly 99.
	double rank = std::ceil(p * static_cast<double>(values.size()) / 100.0 - 1e-9);
	size_t index = static_cast<size_t>(std::max(rank, 1.0)) - 1;
	return values[std::min(index, values.size() - 1)];
}

} // namespace mltcp::trainsim
