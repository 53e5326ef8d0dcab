// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "defaults show|set" and "bpf load|unload|status": the grammar, the ranges
// (the policy's), the text form that "defaults set" takes back, and the
// refusals, each one line. (The assertions of mltcp-bpf's own grammar, moved
// here when its commands became mltcpctl's.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "args.h"
#include "defaults.h"
#include "mltcpctl.h"
#include "output.h"
#include "parse.h"

using namespace mltcpctl;
using mltcpctl::test::bad;
using mltcpctl::test::ok;

namespace
{

mltcp_params defaults()
{
	mltcp_params p;
	mltcp_params_default(&p);
	return p;
}

// "defaults set global KEY VALUE" applied to the defaults.
mltcp_params set(const std::string &key, const std::string &value)
{
	mltcp_params p = defaults();
	ok({ "defaults", "set", "global", key, value }).settings.apply(p);
	return p;
}

// The error of "defaults set global KEY VALUE".
std::string refused(const std::string &key, const std::string &value)
{
	return bad({ "defaults", "set", "global", key, value });
}

std::string print(bool json, const Defaults &d)
{
	std::ostringstream out;
	Printer p(out, json, false);
	print_defaults(p, d);
	return out.str();
}

} // namespace

TEST(Defaults, Commands)
{
	EXPECT_EQ(ok({ "defaults" }).action, Action::DefaultsShow);
	Command c = ok({ "defaults", "show" });
	EXPECT_EQ(c.action, Action::DefaultsShow);
	EXPECT_FALSE(c.global);
	c = ok({ "defaults", "show", "global" });
	EXPECT_EQ(c.action, Action::DefaultsShow);
	EXPECT_TRUE(c.global);
	c = ok({ "defaults", "set", "slope", "1" });
	EXPECT_EQ(c.action, Action::DefaultsSet);
	EXPECT_FALSE(c.global);
	c = ok({ "defaults", "set", "global", "mode", "md" });
	EXPECT_TRUE(c.global);
	EXPECT_EQ(c.settings.given, 1U << MLTCP_PARAM_MODE);
	EXPECT_EQ(ok({ "defaults", "help" }).help_topic, "defaults");
	EXPECT_EQ(ok({ "help", "defaults" }).help_topic, "defaults");
	EXPECT_EQ(ok({ "bpf" }).action, Action::BpfStatus);
	EXPECT_EQ(ok({ "bpf", "load" }).action, Action::BpfLoad);
	EXPECT_EQ(ok({ "bpf", "unload" }).action, Action::BpfUnload);
	EXPECT_EQ(ok({ "bpf", "status" }).action, Action::BpfStatus);
	EXPECT_EQ(ok({ "bpf", "help" }).help_topic, "bpf");
	EXPECT_EQ(ok({ "help", "bpf" }).help_topic, "bpf");
	EXPECT_TRUE(ok({ "-d", "bpf", "load" }).options.debug);
	EXPECT_TRUE(ok({ "-debug", "bpf", "load" }).options.debug);
	EXPECT_FALSE(ok({ "bpf", "load" }).options.debug);
}

TEST(Defaults, Prefixes)
{
	EXPECT_EQ(ok({ "bpf", "l" }).action, Action::BpfLoad);
	EXPECT_EQ(ok({ "bpf", "u" }).action, Action::BpfUnload);
	EXPECT_EQ(ok({ "bpf", "st" }).action, Action::BpfStatus);
	EXPECT_EQ(ok({ "bpf", "s" }).action, Action::BpfStatus); // status and show agree
	EXPECT_EQ(ok({ "d", "se", "g", "sl", "2" }).action, Action::DefaultsSet);
	EXPECT_TRUE(ok({ "d", "sh", "g" }).global);
	EXPECT_EQ(ok({ "defaults", "set", "global", "m", "md" }).settings.values.mode,
		  MLTCP_MODE_MD);
	EXPECT_NE(bad({ "defaults", "s" }).find("\"s\" is ambiguous: show, set"),
		  std::string::npos);
	EXPECT_NE(bad({ "bpf", "loads" }).find("unknown bpf command \"loads\""), std::string::npos);
	EXPECT_NE(bad({ "bpf", "x" }).find("unknown bpf command"), std::string::npos);
}

TEST(Defaults, Options)
{
	EXPECT_EQ(ok({ "-n", "red", "flow", "show" }).options.netns, "red");
	EXPECT_EQ(ok({ "-n", "red", "defaults", "set", "slope", "2" }).options.netns, "red");
	EXPECT_TRUE(ok({ "-j", "bpf", "status" }).options.json);
	Command c = ok({ "-p", "-j", "bpf", "status" });
	EXPECT_TRUE(c.options.json && c.options.pretty);
}

TEST(Defaults, BadInput)
{
	struct Case {
		std::vector<std::string> args;
		const char *error;
	} cases[] = {
		{ { "bpf", "status", "now" }, "unexpected \"now\" after bpf status" },
		{ { "bpf", "unload", "-j" }, "unexpected \"-j\" after bpf unload" },
		{ { "-n", "red", "bpf", "status" },
		  "-n: the BPF backend is loaded for the whole host, not per network namespace" },
		{ { "-n", "red", "bpf", "load" }, "drop -n" },
		{ { "-b", "kmod", "bpf", "load" },
		  "bpf: manages the BPF backend, not \"-b kmod\"" },
		{ { "defaults", "set" }, "defaults set needs a setting" },
		{ { "defaults", "set", "global" }, "defaults set needs a setting" },
		{ { "defaults", "set", "slope" }, "slope needs a value" },
		{ { "defaults", "set", "slope", "1", "slope", "2" }, "slope given twice" },
		{ { "defaults", "set", "gain", "1" }, "unknown setting \"gain\"" },
		{ { "defaults", "set", "iter-bytes", "1M" }, "unknown setting \"iter-bytes\"" },
		{ { "bpf", "load", "1.6" }, "unknown setting \"1.6\"" },
		{ { "bpf", "load", "idle_gap_us", "20000" }, "unknown setting \"idle_gap_us\"" },
		{ { "defaults", "set", "slope", "1", "mode", "md" },
		  "mode: global only (defaults set global mode MODE)" },
		{ { "defaults", "set", "mode", "ai" }, "mode: global only" },
		{ { "defaults", "show", "slope" }, "unexpected \"slope\" after defaults show" },
		{ { "defaults", "show", "global", "x" },
		  "unexpected \"x\" after defaults show global" },
		{ { "defaults", "set", "slope", "2", "global" }, "unknown setting \"global\"" },
	};
	for (const auto &c : cases) {
		std::string err = bad(c.args);
		EXPECT_NE(err.find(c.error), std::string::npos) << "got: " << err;
	}
}

TEST(Defaults, Decimals)
{
	EXPECT_EQ(set("slope", "2.5").slope, 2560);
	EXPECT_EQ(set("slope", "1.6").slope, MLTCP_DEFAULT_SLOPE);
	EXPECT_EQ(set("slope", "16").slope, MLTCP_SLOPE_MAX);
	EXPECT_EQ(set("intercept", "0").intercept, 0);
	EXPECT_EQ(set("intercept", "0.123456").intercept, 126); // 126.4, rounded
	for (const char *value : { "16.001", "17", "-1", "+1", "1.", ".5", "1.1234567", "abc",
				   "1.6\n", "", " 1", "1e3" })
		EXPECT_NE(refused("slope", value).find("slope"), std::string::npos) << value;
	EXPECT_NE(refused("slope", "17").find("slope 17: out of range (allowed 0 to 16)"),
		  std::string::npos);
	EXPECT_NE(refused("intercept", "16.5").find("intercept 16.5: out of range"),
		  std::string::npos);
	// What the kernel's sysctl and parameter get: the decimal as typed.
	Command c = ok({ "defaults", "set", "slope", "0.0625", "intercept", "1" });
	EXPECT_EQ(c.settings.text[MLTCP_PARAM_SLOPE], "0.0625");
	EXPECT_EQ(c.settings.values.slope, 64);
	EXPECT_EQ(c.settings.text[MLTCP_PARAM_INTERCEPT], "1");
}

TEST(Defaults, IdleGap)
{
	EXPECT_EQ(set("idle-gap", "20000us").idle_gap_us, 20000u);
	EXPECT_EQ(set("idle-gap", "1000us").idle_gap_us, 1000u);
	EXPECT_EQ(set("idle-gap", "60000000us").idle_gap_us, 60000000u);
	EXPECT_EQ(set("idle-gap", "5ms").idle_gap_us, 5000u);
	EXPECT_EQ(set("idle-gap", "1.5ms").idle_gap_us, 1500u);
	EXPECT_EQ(set("idle-gap", "60s").idle_gap_us, 60000000u);
	EXPECT_EQ(ok({ "defaults", "set", "idle-gap", "20ms" }).settings.text[MLTCP_PARAM_IDLE_GAP],
		  "20000");
	for (const char *value : { "999us", "60000001us", "61s", "500us" })
		EXPECT_NE(refused("idle-gap", value).find("out of range (allowed 1ms to 60s)"),
			  std::string::npos)
			<< value;
	for (const char *value : { "20000", "-5", "5 ms", "ms", "", "99999999999999999999" })
		EXPECT_NE(refused("idle-gap", value).find("not a duration"), std::string::npos)
			<< value;
}

TEST(Defaults, Names)
{
	EXPECT_EQ(set("base", "reno").base, MLTCP_BASE_RENO);
	EXPECT_EQ(set("base", "cubic").base, MLTCP_BASE_CUBIC);
	EXPECT_EQ(refused("base", "bbr"), "unknown base \"bbr\"");
	EXPECT_EQ(refused("base", "Reno"), "unknown base \"Reno\"");
	EXPECT_EQ(set("mode", "ai").mode, MLTCP_MODE_AI);
	EXPECT_EQ(set("mode", "md").mode, MLTCP_MODE_MD);
	EXPECT_EQ(set("mode", "both").mode, MLTCP_MODE_BOTH);
	EXPECT_EQ(set("mode", "restart").mode, MLTCP_MODE_RESTART);
	EXPECT_EQ(set("mode", "md-restart").mode, MLTCP_MODE_MD | MLTCP_MODE_RESTART);
	EXPECT_EQ(set("mode", "both-restart").mode, MLTCP_MODE_BOTH | MLTCP_MODE_RESTART);
	EXPECT_EQ(set("mode", "md-gate").mode, MLTCP_MODE_MD | MLTCP_MODE_RESTART | MLTCP_MODE_GATE);
	EXPECT_EQ(refused("mode", "3"), "unknown mode \"3\"");
	EXPECT_EQ(refused("mode", "b"), "\"b\" is ambiguous: both, both-restart, both-gate");
	Command c = ok({ "defaults", "set", "global", "base", "reno", "mode", "ai-restart" });
	EXPECT_EQ(c.settings.text[MLTCP_PARAM_BASE], "reno");
	EXPECT_EQ(c.settings.text[MLTCP_PARAM_MODE], "ai-restart");
}

TEST(Defaults, SeveralAtOnceAreAllOrNothing)
{
	bad({ "defaults", "set", "global", "slope", "3", "mode", "none" });
	Command c =
		ok({ "defaults", "set", "global", "slope", "3", "intercept", "0.5", "mode", "md" });
	mltcp_params p = defaults();
	c.settings.apply(p);
	EXPECT_EQ(p.slope, 3 * MLTCP_ONE);
	EXPECT_EQ(p.intercept, MLTCP_ONE / 2);
	EXPECT_EQ(p.mode, MLTCP_MODE_MD);
	EXPECT_EQ(p.idle_gap_us, MLTCP_DEFAULT_IDLE_GAP_US); // not given: unchanged
	EXPECT_TRUE(mltcp_params_valid(&p));
	Command load = ok({ "bpf", "load", "slope", "2", "intercept", "0", "mode", "both",
			    "idle-gap", "5ms" });
	EXPECT_EQ(load.settings.given, (1U << MLTCP_PARAM_SLOPE) | (1U << MLTCP_PARAM_INTERCEPT) |
					       (1U << MLTCP_PARAM_MODE) |
					       (1U << MLTCP_PARAM_IDLE_GAP));
	EXPECT_EQ(ok({ "bpf", "load" }).settings.given, 0u);
}

TEST(Defaults, Printing)
{
	Defaults d{ "kmod", false, defaults(), std::nullopt };

	EXPECT_EQ(print(false, d),
		  "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode md-restart\n");
	nlohmann::json j = nlohmann::json::parse(print(true, d));
	EXPECT_EQ(j,
		  nlohmann::json::parse(
			  R"({"backend": "kmod", "scope": "netns", "slope": 1.6, "intercept": 0.7,
			         "idle_gap_us": 20000, "base": "cubic", "mode": "md-restart"})"));
	d = { "bpf", true, defaults(), std::nullopt };
	j = nlohmann::json::parse(print(true, d));
	EXPECT_EQ(j["backend"], "bpf");
	EXPECT_EQ(j["scope"], "global");

	EXPECT_EQ(params_text(defaults()),
		  "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode md-restart");
	j = params_json(defaults());
	EXPECT_EQ(j["slope"], 1.6);
	EXPECT_EQ(j["slope_fixed"], MLTCP_DEFAULT_SLOPE);
	EXPECT_EQ(j["intercept"], 0.7);
	EXPECT_EQ(j["intercept_fixed"], MLTCP_DEFAULT_INTERCEPT);
	EXPECT_EQ(j["idle_gap_us"], 20000);
	EXPECT_EQ(j["base"], "cubic");
	EXPECT_EQ(j["mode"], "md-restart");
}

TEST(Defaults, TextRoundTripsThroughSet)
{
	// "defaults show" prints the words that "defaults set global" takes back.
	mltcp_params p = defaults(), q = defaults();
	std::vector<std::string> words{ "defaults", "set", "global" };

	ok({ "defaults", "set", "global", "slope", "2.75", "base", "reno", "mode", "both",
	     "idle-gap", "1.5s" })
		.settings.apply(p);
	std::string text = params_text(p);
	for (size_t start = 0, end; start < text.size(); start = end + 1) {
		end = text.find(' ', start);
		if (end == std::string::npos)
			end = text.size();
		words.push_back(text.substr(start, end - start));
	}
	ok(words).settings.apply(q);
	EXPECT_EQ(params_text(q), text);
	EXPECT_EQ(q.slope, p.slope);
	EXPECT_EQ(q.idle_gap_us, 1500000u);
}

TEST(Defaults, Usage)
{
	std::string u = usage("defaults") + usage("bpf");
	for (const char *w :
	     { "defaults show [global]", "defaults set [global] DEFAULT...",
	       "bpf { load [DEFAULT]... | unload | status }", "-d[ebug]", "md-restart" })
		EXPECT_NE(u.find(w), std::string::npos) << w;
	EXPECT_EQ(usage("defaults").find("job add"), std::string::npos);
	EXPECT_NE(usage("bpf").find("DEFAULT :="), std::string::npos);
}
