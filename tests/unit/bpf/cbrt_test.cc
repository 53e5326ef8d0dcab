// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp_cbrt() was rewritten for the BPF verifier (cand^3 <= x is now tested
// as cand^2 <= x / cand). This checks the new form against the original one,
// kept here as the reference, so the module's CUBIC is unchanged to the bit.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "mltcp_core.h"

namespace
{

// kmod/mltcp_core.c's mltcp_cbrt() before the change.
uint32_t original_cbrt(uint64_t x)
{
	uint32_t root = 0;

	for (int bit = 21; bit >= 0; bit--) {
		uint64_t cand = root | (1U << bit);

		if (cand <= 2642245U && cand * cand * cand <= x)
			root = static_cast<uint32_t>(cand);
	}
	return root;
}

TEST(CoreCbrt, MatchesTheOriginalAtEveryCubeBoundary)
{
	// Every r below 2^16, then every 7th up to the largest r with r^3 < 2^64:
	// r^3 - 1, r^3 and r^3 + 1 are where a floor cube root can go wrong.
	for (uint64_t r = 1; r <= 2642245; r += r < (1U << 16) ? 1 : 7) {
		uint64_t cube = r * r * r;

		for (uint64_t x : { cube - 1, cube, cube + 1 })
			ASSERT_EQ(mltcp_cbrt(x), original_cbrt(x)) << "x=" << x;
	}
}

TEST(CoreCbrt, MatchesTheOriginalOnExtremesAndRandomValues)
{
	std::mt19937_64 rng(42);

	for (uint64_t x : { 0ULL, 1ULL, 2ULL, 7ULL, 8ULL, 9ULL, 1ULL << 62, 1ULL << 63, ~0ULL - 1,
			    ~0ULL, 18446724184312856125ULL /* 2642245^3 */ })
		EXPECT_EQ(mltcp_cbrt(x), original_cbrt(x)) << "x=" << x;
	for (int i = 0; i < 300000; i++) {
		uint64_t x = rng() >> (rng() % 64);

		ASSERT_EQ(mltcp_cbrt(x), original_cbrt(x)) << "x=" << x;
	}
}

} // namespace
