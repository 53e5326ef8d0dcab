// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Progress priority: the class rule, its starvation bound and the DSCP it writes.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "mltcp_core.h"

namespace
{

constexpr uint64_t kBytes = 1 << 20;
constexpr uint32_t kPeriodUs = 100000;
// The defaults: the iterations below are fixed, so trusted (unmarked).
const mltcp_params kParams = [] {
	mltcp_params p{};
	mltcp_params_default(&p);
	return p;
}();

// An iteration of kBytes (fixed) that began at bytes_acked 0 and time 0,
// after a whole period of kPeriodUs when period is true.
mltcp_iter Iteration(bool period = true)
{
	mltcp_iter it{};
	mltcp_iter_init(&it, 0, 0);
	mltcp_iter_set_fixed(&it, kBytes);
	if (period)
		it.last_duration_us = kPeriodUs;
	return it;
}

uint32_t ClassAt(const mltcp_iter &it, double r, uint32_t classes, uint32_t now_us = 1000,
		 uint32_t tie = 0)
{
	return mltcp_prio_class(&it, &kParams, static_cast<uint64_t>(r * kBytes), now_us, classes, tie);
}

mltcp_prio_config Config(uint32_t classes)
{
	mltcp_prio_config pc{};
	mltcp_prio_config_default(&pc);
	pc.classes = static_cast<uint8_t>(classes);
	return pc;
}

TEST(PrioClass, SplitsProgressIntoEqualBands)
{
	const mltcp_iter it = Iteration();

	EXPECT_EQ(ClassAt(it, 0.0, 4), 0u);
	EXPECT_EQ(ClassAt(it, 0.24, 4), 0u);
	EXPECT_EQ(ClassAt(it, 0.26, 4), 1u);
	EXPECT_EQ(ClassAt(it, 0.51, 4), 2u);
	EXPECT_EQ(ClassAt(it, 0.76, 4), 3u);
	EXPECT_EQ(ClassAt(it, 1.0, 4), 3u); // r saturates at 1: the top class, not K
	EXPECT_EQ(ClassAt(it, 0.49, 2), 0u);
	EXPECT_EQ(ClassAt(it, 0.51, 2), 1u);
	EXPECT_EQ(ClassAt(it, 0.99, 1), 0u); // one class: FIFO among training flows
}

TEST(PrioClass, NeverFallsWithinAnIterationBeforeTheOverhang)
{
	for (uint32_t classes = 1; classes <= MLTCP_PRIO_CLASSES_MAX; classes++) {
		const mltcp_iter it = Iteration();
		uint32_t prev = 0;

		for (uint64_t acked = 0; acked <= kBytes + (kBytes >> 3); acked += 4096) {
			for (uint32_t now = 0; now <= 3 * kPeriodUs; now += kPeriodUs / 7) {
				const uint32_t c = mltcp_prio_class(&it, &kParams, acked, now, classes, 0);

				ASSERT_LT(c, classes);
				ASSERT_GE(c, now == 0 ? prev : 0u) << "acked " << acked;
				if (now == 0)
					prev = c;
			}
		}
	}
}

TEST(PrioClass, OverhangIsBulkInTheLowestClass)
{
	const mltcp_iter it = Iteration();

	EXPECT_EQ(mltcp_prio_class(&it, &kParams, kBytes + (kBytes >> 3), 1000, 4, 0), 3u);
	EXPECT_EQ(mltcp_prio_class(&it, &kParams, kBytes + (kBytes >> 3) + 1, 1000, 4, 0), 0u);
	// ... however long it has lasted: a bulk flow does not age into the top class.
	EXPECT_EQ(mltcp_prio_class(&it, &kParams, 10 * kBytes, 10 * kPeriodUs, 4, 0), 0u);
}

TEST(PrioClass, NoClassWithoutASizeOrWhenOff)
{
	mltcp_iter learning{};
	mltcp_iter_init(&learning, 0, 0);

	EXPECT_EQ(mltcp_prio_class(&learning, &kParams, 1 << 20, 1000, 4, 0), MLTCP_PRIO_NONE);
	EXPECT_EQ(ClassAt(Iteration(), 0.9, 0), MLTCP_PRIO_NONE);
	EXPECT_EQ(ClassAt(Iteration(), 0.9, MLTCP_PRIO_CLASSES_MAX + 1), MLTCP_PRIO_NONE);
}

TEST(PrioClass, AgesOneClassPerQuarterPeriodPastAWholePeriod)
{
	const mltcp_iter it = Iteration();

	// At r = 0 (a job that has not got a byte through), K = 4:
	EXPECT_EQ(ClassAt(it, 0.0, 4, kPeriodUs), 0u);
	EXPECT_EQ(ClassAt(it, 0.0, 4, kPeriodUs + 1), 1u);
	EXPECT_EQ(ClassAt(it, 0.0, 4, kPeriodUs + kPeriodUs / 4), 2u);
	// The bound: the top class by P + (K - 2) P / 4.
	EXPECT_EQ(ClassAt(it, 0.0, 4, kPeriodUs + 2 * kPeriodUs / 4), 3u);
	EXPECT_EQ(ClassAt(it, 0.0, 4, 50 * kPeriodUs), 3u);
	// Aging only raises: a flow already higher keeps its band.
	EXPECT_EQ(ClassAt(it, 0.9, 4, kPeriodUs + 1), 3u);
	// No period known yet (the first iteration with a size): no aging.
	EXPECT_EQ(ClassAt(Iteration(false), 0.0, 4, 50 * kPeriodUs), 0u);
}

TEST(PrioClass, AgingMeasuresFromTheIterationStartAcrossClockWrap)
{
	mltcp_iter it = Iteration();
	it.start_us = 0xffffff00u; // the 32-bit clock wraps during the iteration

	EXPECT_EQ(mltcp_prio_class(&it, &kParams, 0, 0xffffff00u + kPeriodUs, 4, 0), 0u);
	EXPECT_EQ(mltcp_prio_class(&it, &kParams, 0, 0xffffff00u + kPeriodUs + kPeriodUs / 4, 4, 0), 2u);
}

TEST(PrioClass, TieSplitsSynchronizedJobsAtAThreshold)
{
	const mltcp_iter it = Iteration();
	// Just below the first threshold of K = 4 (256/1024), in whole 1/1024 units.
	const uint64_t acked = kBytes * 250 / 1024;

	EXPECT_EQ(mltcp_prio_class(&it, &kParams, acked, 1000, 4, 0), 0u);
	EXPECT_EQ(mltcp_prio_class(&it, &kParams, acked, 1000, 4, 15), 1u);
	EXPECT_LE(mltcp_prio_tie(0), 15u);
	EXPECT_EQ(mltcp_prio_tie(0), 0u);

	// Consecutive job ids get different offsets more often than not.
	std::set<uint32_t> ties;
	for (uint32_t job = 1; job <= 8; job++) {
		ASSERT_LE(mltcp_prio_tie(job), 15u);
		ties.insert(mltcp_prio_tie(job));
	}
	EXPECT_GE(ties.size(), 6u);
}

TEST(PrioDscp, WritesOnChangeOnlyAndKeepsAnApplicationsOwn)
{
	const mltcp_prio_config pc = Config(4);

	EXPECT_EQ(mltcp_prio_dscp(&pc, 0, 0), 8);   // CS1
	EXPECT_EQ(mltcp_prio_dscp(&pc, 3, 8), 32);  // CS4
	EXPECT_EQ(mltcp_prio_dscp(&pc, 3, 32), -1); // already there
	// No class: ours goes back to none_dscp, an application's own DSCP (AF41) stays.
	EXPECT_EQ(mltcp_prio_dscp(&pc, MLTCP_PRIO_NONE, 16), 0);
	EXPECT_EQ(mltcp_prio_dscp(&pc, MLTCP_PRIO_NONE, 34), -1);
	EXPECT_EQ(mltcp_prio_dscp(&pc, MLTCP_PRIO_NONE, 0), -1);
	// Turned off: K = 0 names no classes, so nothing is written.
	const mltcp_prio_config off = Config(0);
	EXPECT_EQ(mltcp_prio_dscp(&off, MLTCP_PRIO_NONE, 16), -1);
}

TEST(PrioConfig, DefaultIsOffAndValid)
{
	mltcp_prio_config pc{};
	mltcp_prio_config_default(&pc);

	EXPECT_EQ(pc.classes, 0u);
	EXPECT_TRUE(mltcp_prio_config_valid(&pc));
	pc.classes = MLTCP_PRIO_DEFAULT_CLASSES;
	EXPECT_TRUE(mltcp_prio_config_valid(&pc));
	pc.classes = MLTCP_PRIO_CLASSES_MAX;
	EXPECT_TRUE(mltcp_prio_config_valid(&pc));
}

TEST(PrioConfig, RejectsOutOfRangeAndAmbiguousCodes)
{
	mltcp_prio_config pc = Config(4);

	pc.classes = MLTCP_PRIO_CLASSES_MAX + 1;
	EXPECT_FALSE(mltcp_prio_config_valid(&pc));
	pc = Config(4);
	pc.dscp[2] = 64;
	EXPECT_FALSE(mltcp_prio_config_valid(&pc));
	pc = Config(4);
	pc.dscp[3] = pc.dscp[1]; // two classes one code: the switch cannot tell them apart
	EXPECT_FALSE(mltcp_prio_config_valid(&pc));
	pc = Config(4);
	pc.none_dscp = pc.dscp[0];
	EXPECT_FALSE(mltcp_prio_config_valid(&pc));
	pc.none_dscp = 64;
	EXPECT_FALSE(mltcp_prio_config_valid(&pc));
	// Codes of unused classes are not checked.
	pc = Config(2);
	pc.dscp[5] = pc.dscp[0];
	EXPECT_TRUE(mltcp_prio_config_valid(&pc));
}

} // namespace

namespace
{

TEST(PrioDscp, ClassOfACodeOnlyAmongTheClassesInUse)
{
	mltcp_prio_config pc{};
	mltcp_prio_config_default(&pc);
	pc.classes = 4;

	EXPECT_EQ(mltcp_prio_class_of_dscp(&pc, 8), 0u);
	EXPECT_EQ(mltcp_prio_class_of_dscp(&pc, 32), 3u);
	EXPECT_EQ(mltcp_prio_class_of_dscp(&pc, 40), MLTCP_PRIO_NONE); // CS5: beyond K
	EXPECT_EQ(mltcp_prio_class_of_dscp(&pc, 0), MLTCP_PRIO_NONE);
	pc.classes = 0;
	EXPECT_EQ(mltcp_prio_class_of_dscp(&pc, 8), MLTCP_PRIO_NONE);
}

} // namespace
