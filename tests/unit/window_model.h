// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// A test datapath: a model of the kernel's slow start and additive-increase
// helpers (tcp_slow_start(), tcp_cong_avoid_ai()) as documented in
// net/ipv4/tcp_cong.c, so that the divisors the core returns can be turned
// into cwnd trajectories exactly as the module's cong_avoid does.
#ifndef MLTCP_TESTS_WINDOW_MODEL_H
#define MLTCP_TESTS_WINDOW_MODEL_H

#include <algorithm>
#include <cstdint>

#include "mltcp_core.h"

struct WindowModel {
	uint32_t cwnd = 10;
	uint32_t cwnd_cnt = 0;
	uint32_t ssthresh = 0x7fffffff;
	uint32_t clamp = 0xffffffff;

	bool in_slow_start() const { return cwnd < ssthresh; }

	// Grow by the acked segments up to ssthresh; return the acked segments left over.
	uint32_t slow_start(uint32_t acked)
	{
		uint32_t grown = std::min(cwnd + acked, ssthresh);
		uint32_t left = acked - (grown - cwnd);

		cwnd = std::min(grown, clamp);
		return left;
	}

	// One segment of growth per w acked segments; credit earned at a larger w is paid out once.
	void additive_increase(uint32_t w, uint32_t acked)
	{
		if (cwnd_cnt >= w) {
			cwnd_cnt = 0;
			cwnd++;
		}
		cwnd_cnt += acked;
		if (cwnd_cnt >= w) {
			uint32_t steps = cwnd_cnt / w;

			cwnd_cnt -= steps * w;
			cwnd += steps;
		}
		cwnd = std::min(cwnd, clamp);
	}
};

#endif // MLTCP_TESTS_WINDOW_MODEL_H
