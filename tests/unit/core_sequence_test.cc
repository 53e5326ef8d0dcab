// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The per-ACK arithmetic, pinned: long random but seeded sequences of ACKs,
// losses, RTOs, application-limited stretches and restarted windows, driven
// through the policy's inlines as the hooks drive them, for each base with
// F = 1 and with F moving over an iteration. Every divisor and window is
// folded into a hash recorded from the straightforward arithmetic (commit
// 0f04cd6, before the per-ACK divisions were removed; CUBIC's re-recorded
// when its Reno-friendly alpha stopped switching to 1 and again when its
// divisor began to be reused for 1/32 s as the kernel's cnt is, at F = 1,
// changes of behaviour): an optimization of the hot path must leave every one of them
// unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "mltcp_policy.h"
#include "linux_window.h"

namespace
{

struct Hash {
	uint64_t h = 14695981039346656037ull; // FNV-1a

	void add(uint32_t v)
	{
		for (int i = 0; i < 4; i++) {
			h ^= (v >> (8 * i)) & 0xff;
			h *= 1099511628211ull;
		}
	}
};

constexpr uint32_t kMss = 1448;

// acks congestion-control events; f_moves: a fixed iteration size in ai
// mode, so F runs from intercept to intercept + slope and back each
// iteration; else no size is known and F is exactly 1.
uint64_t RunFlow(uint8_t base, bool f_moves, uint32_t seed, int acks)
{
	std::mt19937 rng(seed);
	mltcp_flow fl{};
	mltcp_params defaults{};
	WindowModel win;
	Hash hash;
	uint64_t acked_bytes = 0;
	uint32_t now = 0xffffffffu - 3'000'000; // the 32-bit clock wraps early on

	mltcp_params_default(&defaults);
	defaults.mode = MLTCP_MODE_BOTH;
	// The line the hashes were recorded with (1.6, 0.2), not today's default.
	defaults.slope = 1638;
	defaults.intercept = 205;
	mltcp_flow_init(&fl, 0, now);
	mltcp_flow_latch(&fl, &defaults, nullptr, base, nullptr);
	if (f_moves)
		mltcp_iter_set_fixed(&fl.iter, 4u << 20);
	win.cwnd = 10;
	win.clamp = 1u << 20;

	for (int i = 0; i < acks; i++) {
		const uint32_t event = rng() % 1'000'000;
		const uint32_t rtt = 10'000 + rng() % 5'000;
		const uint32_t acked = 1 + rng() % 3;

		now += rtt * acked / win.cwnd + rng() % 3; // the ACK clock
		if (f_moves && acked_bytes - fl.iter.start_acked > (5u << 20))
			fl.iter.start_acked = acked_bytes; // the next iteration
		if (event < 5) { // a loss: the decrease, softened by F in md mode
			uint32_t f = mltcp_f_decrease(&fl.iter, &fl.params, acked_bytes);

			mltcp_prio_hold hold;

			win.ssthresh = mltcp_flow_ssthresh(&fl, f, win.cwnd, win.ssthresh, &hold);
			win.cwnd = win.ssthresh;
			hash.add(win.cwnd);
			continue;
		}
		if (event < 6) { // an RTO
			uint32_t f = mltcp_f_decrease(&fl.iter, &fl.params, acked_bytes);

			mltcp_prio_hold hold;

			win.ssthresh = mltcp_flow_ssthresh(&fl, f, win.cwnd, win.ssthresh, &hold);
			mltcp_cubic_reset(&fl.cubic);
			win.cwnd = 1;
			hash.add(win.ssthresh);
			continue;
		}
		if (event < 16) { // an iteration start with a restarted window
			win.ssthresh = std::max(win.ssthresh, win.cwnd - win.cwnd / 4);
			win.cwnd = std::min(win.cwnd, 10u);
			continue;
		}
		acked_bytes += uint64_t{ acked } * kMss;
		if (!mltcp_flow_may_grow(&fl, event % 10 != 0, now))
			continue; // application-limited: the curve's clock stops
		uint32_t left = acked;

		if (win.in_slow_start()) {
			left = win.slow_start(acked);
			if (!left)
				continue;
		}
		uint32_t f = mltcp_f_increase(&fl.iter, &fl.params, acked_bytes);
		uint32_t w = mltcp_flow_ai_w(&fl, f, win.cwnd, left, now, rtt);

		win.additive_increase(w, left);
		hash.add(w);
		hash.add(win.cwnd);
	}
	return hash.h;
}

struct Pinned {
	const char *name;
	uint8_t base;
	bool f_moves;
	uint64_t hash;
};

TEST(PerAckSequence, DivisorsAndWindowsAreUnchanged)
{
	const Pinned cases[] = {
		{ "reno, F = 1", MLTCP_BASE_RENO, false, 0xd759b4f3e3c25dfcull },
		{ "reno, F moving", MLTCP_BASE_RENO, true, 0x7d0d7f638b6a722bull },
		{ "cubic, F = 1", MLTCP_BASE_CUBIC, false, 0x2aaaeb67769fffe7ull },
		{ "cubic, F moving", MLTCP_BASE_CUBIC, true, 0xd6dd15cededc5411ull },
	};

	for (const Pinned &c : cases) {
		uint64_t got = RunFlow(c.base, c.f_moves, 12, 2'000'000);

		EXPECT_EQ(got, c.hash) << c.name << ": 0x" << std::hex << got;
	}
}

// The curve converts microseconds to 2^-10 s per ACK with a multiplication
// instead of a division: W(K + dt) must be C (dt * 2^10 / 10^6)^3 + W_max,
// the quotient floored and clamped to 2^17 units, for every dt up to and
// past the clamp.
TEST(PerAckSequence, CurveTimeConversionIsTheExactQuotient)
{
	mltcp_cubic c{};
	auto expect = [](uint64_t dt_us) {
		uint64_t units = std::min<uint64_t>(dt_us * 1024 / 1'000'000, 1u << 17);

		return static_cast<uint32_t>(5'000 + ((410 * units * units * units) >> 40));
	};

	c.w_max = 5'000;
	c.k_us = 0;
	for (uint32_t dt = 0; dt < 130'000'000; dt++)
		if (mltcp_cubic_window(&c, dt) != expect(dt))
			FAIL() << "dt " << dt << ": " << mltcp_cubic_window(&c, dt) << " != " << expect(dt);
	for (uint32_t dt : { 0xffffffffu, 0x80000000u, 1'000'000'000u })
		EXPECT_EQ(mltcp_cubic_window(&c, dt), expect(dt));
	// Below K the same distance counts down from W_max.
	c.w_max = 1u << 21;
	c.k_us = 0xffffffffu;
	for (uint32_t dt = 0; dt < 130'000'000; dt += 997)
		ASSERT_EQ(mltcp_cubic_window(&c, c.k_us - dt), c.w_max - (expect(dt) - 5'000)) << dt;
}

// Reno's F divisor takes a 32-bit division below 2^22 segments and the
// 64-bit one above: the same quotient either way.
TEST(PerAckSequence, RenoDivisorIsCwndOverF)
{
	std::mt19937 rng(12);

	for (int i = 0; i < 1'000'000; i++) {
		uint32_t cwnd = rng() >> (rng() % 32);
		uint32_t f = 1 + rng() % (32 * MLTCP_ONE);
		uint64_t w = (uint64_t{ cwnd } << MLTCP_SHIFT) / f;

		if (f == MLTCP_ONE)
			continue;
		w = std::min<uint64_t>(std::max<uint64_t>(w, 1), 0xffffffffu);
		ASSERT_EQ(mltcp_reno_ai_w(cwnd, f), w) << "cwnd " << cwnd << " f " << f;
	}
	EXPECT_EQ(mltcp_reno_ai_w((1u << 22) - 1, 512), (1u << 23) - 2);
	EXPECT_EQ(mltcp_reno_ai_w(1u << 22, 512), 1u << 23);
}

} // namespace
