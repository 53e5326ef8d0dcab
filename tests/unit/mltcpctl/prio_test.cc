// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Progress priority's settings of "defaults set" and "bpf load": prio K,
// prio-dscp D0,D1,... and prio-none D, each parsed alone (ranges, DSCP
// names, one line per refusal), then applied to a configuration all or
// none and checked with the core's mltcp_prio_config_valid(); and how
// "defaults show" prints them (text while on, JSON always) so that set
// takes the text back.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstring>
#include <sstream>

#include "defaults.h"
#include "mltcpctl.h"
#include "output.h"
#include "parse.h"

using namespace mltcpctl;
using mltcpctl::test::bad;
using mltcpctl::test::ok;

namespace
{

PrioChange change(std::vector<std::string> words)
{
	words.insert(words.begin(), { "defaults", "set", "global" });
	return ok(words).settings.prio;
}

std::string refused(std::vector<std::string> words)
{
	words.insert(words.begin(), { "defaults", "set", "global" });
	return bad(words);
}

mltcp_prio_config config(uint8_t classes)
{
	mltcp_prio_config pc;

	mltcp_prio_config_default(&pc);
	pc.classes = classes;
	return pc;
}

std::vector<uint8_t> used(const mltcp_prio_config &pc)
{
	return std::vector<uint8_t>(pc.dscp, pc.dscp + pc.classes);
}

std::string print(bool json, const std::optional<mltcp_prio_config> &prio)
{
	std::ostringstream out;
	Printer p(out, json, false);
	mltcp_params params;

	mltcp_params_default(&params);
	print_defaults(p, Defaults{ "bpf", true, params, prio });
	return out.str();
}

} // namespace

TEST(Prio, Parsing)
{
	Command c = ok({ "defaults", "set", "global", "prio", "4" });
	EXPECT_EQ(c.action, Action::DefaultsSet);
	EXPECT_EQ(c.settings.given, 0u); // no mltcp_param: prio alone is a setting
	EXPECT_EQ(c.settings.prio.classes, 4);
	EXPECT_FALSE(c.settings.prio.dscp || c.settings.prio.none_dscp);

	PrioChange p = change({ "prio-dscp", "cs1,af41,46,0x30", "prio-none", "cs0" });
	EXPECT_FALSE(p.classes);
	EXPECT_EQ(*p.dscp, (std::vector<uint8_t>{ 8, 34, 46, 48 }));
	EXPECT_EQ(p.none_dscp, 0);
	EXPECT_EQ(change({ "prio", "0" }).classes, 0);
	EXPECT_EQ(change({ "prio", "7" }).classes, 7);
	EXPECT_EQ(*change({ "prio-dscp", "63" }).dscp, std::vector<uint8_t>{ 63 });
	// Prefixes: "prio" is exact, "prio-d" and "prio-n" unique.
	EXPECT_EQ(change({ "prio-d", "8,16" }).dscp->size(), 2u);
	EXPECT_EQ(change({ "prio-n", "4" }).none_dscp, 4);
	// With the others, and on bpf load.
	c = ok({ "defaults", "set", "global", "slope", "2", "prio", "2" });
	EXPECT_EQ(c.settings.given, 1U << MLTCP_PARAM_SLOPE);
	EXPECT_EQ(c.settings.prio.classes, 2);
	EXPECT_EQ(ok({ "bpf", "load", "prio", "4" }).settings.prio.classes, 4);
	EXPECT_FALSE(ok({ "bpf", "load" }).settings.prio.given());
}

TEST(Prio, BadWordsAreOneLine)
{
	struct Case {
		std::vector<std::string> words;
		const char *error;
	} cases[] = {
		{ { "prio", "8" }, "prio 8: out of range (allowed 0 to 7)" },
		{ { "prio", "-1" }, "prio \"-1\": not a number of classes (0 to 7, 0: off)" },
		{ { "prio", "four" }, "not a number of classes" },
		{ { "prio" }, "prio needs a value" },
		{ { "prio", "4", "prio", "2" }, "prio given twice" },
		{ { "prio-dscp", "8,,16" }, "a comma-separated list of DSCPs" },
		{ { "prio-dscp", "8,16," }, "a comma-separated list of DSCPs" },
		{ { "prio-dscp", "" }, "a comma-separated list of DSCPs" },
		{ { "prio-dscp", "8,64" }, "prio-dscp 64: out of range (allowed 0 to 63)" },
		{ { "prio-dscp", "cs8" }, "prio-dscp \"cs8\": not a DSCP" },
		{ { "prio-dscp", "1,2,3,4,5,6,7,8" }, "prio-dscp: 8 values, at most 7 classes" },
		{ { "prio-dscp", "8", "prio-dscp", "8" }, "prio-dscp given twice" },
		{ { "prio-none", "ef,cs1" }, "prio-none \"ef,cs1\": not a DSCP" },
		{ { "prio-none", "64" }, "prio-none 64: out of range (allowed 0 to 63)" },
		{ { "prio-", "4" }, "\"prio-\" is ambiguous: prio-dscp, prio-none" },
	};
	for (const Case &c : cases) {
		std::string err = refused(c.words);
		EXPECT_NE(err.find(c.error), std::string::npos) << err;
	}
	EXPECT_NE(bad({ "defaults", "set", "global" }).find("prio-dscp or prio-none"),
		  std::string::npos);
	// The ACK marker's DSCP kept its words (the parser moved to args.cc).
	EXPECT_NE(bad({ "ackmark", "add", "dev", "eth0", "dscp", "64" })
			  .find("dscp 64: out of range (allowed 0 to 63)"),
		  std::string::npos);
}

TEST(Prio, AppliedAllOrNone)
{
	mltcp_prio_config pc = config(0);

	// On with the default DSCPs: CS1..CSK.
	EXPECT_EQ(change({ "prio", "4" }).apply(pc), "");
	EXPECT_EQ(used(pc), (std::vector<uint8_t>{ 8, 16, 24, 32 }));
	EXPECT_TRUE(mltcp_prio_config_valid(&pc));
	// prio-dscp alone: exactly K values, for the classes in force.
	EXPECT_EQ(change({ "prio-dscp", "10,12,14,46" }).apply(pc), "");
	EXPECT_EQ(used(pc), (std::vector<uint8_t>{ 10, 12, 14, 46 }));
	EXPECT_EQ(change({ "prio", "2", "prio-dscp", "cs2,cs6", "prio-none", "4" }).apply(pc), "");
	EXPECT_EQ(pc.classes, 2);
	EXPECT_EQ(used(pc), (std::vector<uint8_t>{ 16, 48 }));
	EXPECT_EQ(pc.none_dscp, 4);

	struct Case {
		std::vector<std::string> words;
		const char *error;
	} cases[] = {
		{ { "prio-dscp", "8,16,24" }, "prio-dscp: 3 values for 2 classes: one per class" },
		{ { "prio-dscp", "8" }, "prio-dscp: 1 value for 2 classes" },
		{ { "prio", "3", "prio-dscp", "8,16" }, "prio-dscp: 2 values for 3 classes" },
		{ { "prio-dscp", "8,8" }, "prio-dscp 8,8 prio-none 4: each class needs a DSCP of its "
					  "own, other than prio-none's" },
		{ { "prio-none", "48" }, "prio-dscp 16,48 prio-none 48: each class needs" },
		{ { "prio", "0", "prio-dscp", "8" }, "prio-dscp: progress priority is off (prio 0)" },
	};
	for (const Case &c : cases) {
		mltcp_prio_config before = pc;
		std::string err = change(c.words).apply(pc);

		EXPECT_NE(err.find(c.error), std::string::npos) << err;
		EXPECT_EQ(err.find('\n'), std::string::npos);
		EXPECT_EQ(std::memcmp(&before, &pc, sizeof(pc)), 0) << "changed on a refusal";
	}
	// prio 3 after prio 2 takes class 2's DSCP from the table, as last set (14).
	EXPECT_EQ(change({ "prio", "3" }).apply(pc), "");
	EXPECT_EQ(used(pc), (std::vector<uint8_t>{ 16, 48, 14 }));
	// ... unless it is in use: then the command says so.
	mltcp_prio_config clash = config(2);
	EXPECT_EQ(change({ "prio-dscp", "24,16" }).apply(clash), "");
	EXPECT_NE(change({ "prio", "3" }).apply(clash).find("each class needs a DSCP of its own"),
		  std::string::npos);
	// Off keeps the table; on again finds it.
	EXPECT_EQ(change({ "prio", "0" }).apply(pc), "");
	EXPECT_EQ(pc.classes, 0);
	EXPECT_EQ(change({ "prio", "3" }).apply(pc), "");
	EXPECT_EQ(used(pc), (std::vector<uint8_t>{ 16, 48, 14 }));
}

TEST(Prio, Printing)
{
	mltcp_prio_config pc = config(4);

	EXPECT_EQ(prio_text(pc), "prio 4 prio-dscp 8,16,24,32 prio-none 0");
	EXPECT_EQ(prio_json(pc), nlohmann::json::parse(
					 R"({"classes": 4, "dscp": [8, 16, 24, 32], "none_dscp": 0})"));
	EXPECT_EQ(print(false, pc), "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode "
				    "md-restart prio 4 prio-dscp 8,16,24,32 prio-none 0\n");
	EXPECT_EQ(nlohmann::json::parse(print(true, pc))["prio"], prio_json(pc));
	// Off: JSON only, so a line of a backend with prio off reads as before.
	pc.classes = 0;
	EXPECT_EQ(prio_text(pc), "prio 0 prio-none 0");
	EXPECT_EQ(print(false, pc),
		  "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode md-restart\n");
	EXPECT_EQ(nlohmann::json::parse(print(true, pc))["prio"],
		  nlohmann::json::parse(R"({"classes": 0, "dscp": [], "none_dscp": 0})"));
	// A backend without progress priority (the module): nothing at all.
	EXPECT_FALSE(nlohmann::json::parse(print(true, std::nullopt)).contains("prio"));
}

TEST(Prio, TextRoundTripsThroughSet)
{
	mltcp_prio_config pc = config(0), back = config(0);

	ASSERT_EQ(change({ "prio", "5", "prio-dscp", "ef,af41,cs3,10,12", "prio-none", "2" })
			  .apply(pc),
		  "");
	std::vector<std::string> words;
	std::istringstream in(prio_text(pc));
	for (std::string w; in >> w;)
		words.push_back(w);
	ASSERT_EQ(change(words).apply(back), "");
	EXPECT_EQ(std::memcmp(&pc, &back, sizeof(pc)), 0);
}

TEST(Prio, TheMapRecordBpfAndUserspaceShare)
{
	// The mltcp_prio map's value is the core's struct, byte for byte: the
	// BPF side reads classes, none_dscp and dscp[] at these offsets.
	EXPECT_EQ(sizeof(mltcp_prio_config), 9u);
	EXPECT_EQ(offsetof(mltcp_prio_config, classes), 0u);
	EXPECT_EQ(offsetof(mltcp_prio_config, none_dscp), 1u);
	EXPECT_EQ(offsetof(mltcp_prio_config, dscp), 2u);
	// What "bpf load" writes when prio is not given: off, CS1..CS7 ready.
	mltcp_prio_config pc;
	mltcp_prio_config_default(&pc);
	EXPECT_EQ(PrioChange{}.apply(pc), "");
	EXPECT_EQ(pc.classes, 0);
	EXPECT_TRUE(mltcp_prio_config_valid(&pc));
	EXPECT_EQ(pc.dscp[6], 56);
}

namespace
{

std::vector<std::string> steps(const mltcp_prio_config &from, const mltcp_prio_config &to)
{
	std::vector<std::string> out;

	for (const PrioWrite &w : prio_writes(from, to))
		out.push_back(std::string(w.sysctl) + "=" + w.text);
	return out;
}

// Every step of the writes is a configuration the kernel takes, and the last is to.
void expect_valid_path(const mltcp_prio_config &from, const mltcp_prio_config &to)
{
	mltcp_prio_config pc = from;

	for (const PrioWrite &w : prio_writes(from, to)) {
		std::string name = w.sysctl;
		if (name == "prio_classes")
			pc.classes = static_cast<uint8_t>(std::stoi(w.text));
		else if (name == "prio_none_dscp")
			pc.none_dscp = static_cast<uint8_t>(std::stoi(w.text));
		else
			ASSERT_EQ(mltcp_prio_dscp_parse(w.text.c_str(), &pc), 7) << w.text;
		EXPECT_TRUE(mltcp_prio_config_valid(&pc)) << name << "=" << w.text;
	}
	EXPECT_EQ(std::memcmp(&pc, &to, sizeof(pc)), 0);
}

} // namespace

TEST(Prio, TheModulesSysctlsAreWrittenThroughValidSteps)
{
	mltcp_prio_config off = config(0), on = config(4);

	EXPECT_TRUE(steps(on, on).empty());
	EXPECT_EQ(steps(off, on), std::vector<std::string>{ "prio_classes=4" });
	// Fewer classes first, then their new codes (the old K would see 24 twice).
	mltcp_prio_config two = on;
	ASSERT_EQ(change({ "prio", "2", "prio-dscp", "24,8" }).apply(two), "");
	EXPECT_EQ(steps(on, two), (std::vector<std::string>{
					  "prio_classes=2", "prio_dscp=24 8 24 32 40 48 56" }));
	expect_valid_path(on, two);
	expect_valid_path(two, on);
	// A class's code and prio-none's swapped: no order passes, so off first.
	mltcp_prio_config swapped = on;
	ASSERT_EQ(change({ "prio-dscp", "0,16,24,32", "prio-none", "8" }).apply(swapped), "");
	EXPECT_EQ(steps(on, swapped),
		  (std::vector<std::string>{ "prio_classes=0", "prio_dscp=0 16 24 32 40 48 56",
					     "prio_none_dscp=8", "prio_classes=4" }));
	expect_valid_path(on, swapped);
	expect_valid_path(swapped, off);
}
