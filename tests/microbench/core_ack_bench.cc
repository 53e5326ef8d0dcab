// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Cost of one congestion-avoidance ACK in the core, as the hooks pay it:
// mltcp_f_increase(), then mltcp_flow_ai_w() (the policy's inline over
// mltcp_reno_ai_w() or mltcp_cubic_ai_w()), then the kernel's
// tcp_cong_avoid_ai() as sim/linux_window.h models it. One ACK of one
// segment every RTT / cwnd (the ACK clock) at a 10 ms RTT; a loss (the
// decrease and, for CUBIC, a new epoch with its cube root) whenever cwnd
// reaches 1.5x its starting window, so every path stays in congestion
// avoidance. The model's own cost is the "model only" line.
//
//   build/tests/microbench/mltcp_core_bench [--benchmark_repetitions=N]
#include <benchmark/benchmark.h>

#include <cstdint>

#include "mltcp_policy.h"
#include "linux_window.h"

namespace
{

constexpr uint32_t kMss = 1448;
constexpr uint32_t kRttUs = 10'000;
constexpr uint32_t kStartCwnd = 1000;

struct Flow {
	mltcp_flow fl{};
	WindowModel win;
	uint64_t acked_bytes = 0;
	uint64_t now_ns = 0;
	bool f_moves;

	Flow(uint8_t base, bool f_moves) : f_moves(f_moves)
	{
		mltcp_params defaults{};

		mltcp_params_default(&defaults);
		defaults.mode = MLTCP_MODE_AI; // F scales the increase
		// The line the benchmark was first measured with, not today's default.
		defaults.slope = 1638;
		defaults.intercept = 205;
		mltcp_flow_init(&fl, 0, 0);
		mltcp_flow_latch(&fl, &defaults, nullptr, base, nullptr);
		if (f_moves) // a known iteration size: F runs from 0.2 to 1.8
			mltcp_iter_set_fixed(&fl.iter, 64u << 20);
		win.cwnd = kStartCwnd;
		win.ssthresh = kStartCwnd / 2;
	}

	uint32_t now_us() const { return static_cast<uint32_t>(now_ns / 1000); }

	void ack(bool core)
	{
		now_ns += uint64_t{ kRttUs } * 1000 / win.cwnd;
		acked_bytes += kMss;
		if (f_moves && acked_bytes - fl.iter.start_acked >= (64u << 20))
			fl.iter.start_acked = acked_bytes; // the next iteration, F from 0.2
		if (win.cwnd >= kStartCwnd + kStartCwnd / 2) {
			mltcp_prio_hold hold;

			win.cwnd = mltcp_flow_ssthresh(&fl, MLTCP_ONE, win.cwnd, win.ssthresh, &hold);
			win.ssthresh = win.cwnd;
		}
		uint32_t w = win.cwnd;

		if (core) {
			uint32_t f = mltcp_f_increase(&fl.iter, &fl.params, acked_bytes);

			w = mltcp_flow_ai_w(&fl, f, win.cwnd, 1, now_us(), kRttUs);
		}
		benchmark::DoNotOptimize(w);
		win.additive_increase(w, 1);
	}
};

void Ack(benchmark::State &state, uint8_t base, bool f_moves, bool core)
{
	Flow flow(base, f_moves);

	for (auto _ : state)
		flow.ack(core);
	state.counters["cwnd"] = flow.win.cwnd;
}

BENCHMARK_CAPTURE(Ack, model_only, MLTCP_BASE_RENO, false, false);
BENCHMARK_CAPTURE(Ack, reno_f1, MLTCP_BASE_RENO, false, true);
BENCHMARK_CAPTURE(Ack, reno_mltcp_f_moving, MLTCP_BASE_RENO, true, true);
BENCHMARK_CAPTURE(Ack, cubic_f1, MLTCP_BASE_CUBIC, false, true);
BENCHMARK_CAPTURE(Ack, cubic_mltcp_f_moving, MLTCP_BASE_CUBIC, true, true);

} // namespace
