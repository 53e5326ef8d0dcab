// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The kernel's slow start and additive-increase helpers (tcp_slow_start(),
// tcp_cong_avoid_ai(), net/ipv4/tcp_cong.c), in segments, for datapaths
// that are not the kernel: the ns-3 model (sim/tcp_mltcp.cc) turns the
// divisors the core returns into windows with them exactly as the module's
// cong_avoid does, and the unit tests drive the core through them.
#ifndef MLTCP_SIM_LINUX_WINDOW_H
#define MLTCP_SIM_LINUX_WINDOW_H

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

	// tcp_cwnd_restart() (RFC 2861, net.ipv4.tcp_slow_start_after_idle, on
	// by default), which the kernel runs before sending after an idle
	// longer than the RTO, whatever the congestion control: ssthresh rises
	// to 3/4 of the window unless a reduction is under way
	// (tcp_current_ssthresh()), then the window halves for every RTO
	// idle, but not below the initial window, which it never exceeds.
	void restart_after_idle(uint32_t init_cwnd, uint64_t idle_us, uint64_t rto_us,
				bool in_reduction)
	{
		uint32_t restart = std::min(init_cwnd, cwnd);

		if (!in_reduction)
			ssthresh = std::max(ssthresh, (cwnd >> 1) + (cwnd >> 2));
		while (idle_us > rto_us && cwnd > restart) {
			idle_us -= rto_us;
			cwnd >>= 1;
		}
		cwnd = std::max(cwnd, restart);
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

#endif // MLTCP_SIM_LINUX_WINDOW_H
