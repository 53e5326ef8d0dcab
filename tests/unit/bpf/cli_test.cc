// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-bpf's grammar and parameter validation (the module's ranges).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli.h"

namespace
{

using mltcp::bpf::apply_settings;
using mltcp::bpf::Command;
using mltcp::bpf::Options;
using mltcp::bpf::parse_args;
using mltcp::bpf::ParseResult;
using mltcp::bpf::Setting;

Options parse_ok(const std::vector<std::string> &args)
{
	ParseResult r = parse_args(args);

	EXPECT_TRUE(r.options.has_value()) << r.error;
	return r.options.value_or(Options{});
}

std::string parse_error(const std::vector<std::string> &args)
{
	ParseResult r = parse_args(args);

	EXPECT_FALSE(r.options.has_value());
	EXPECT_EQ(r.error.find('\n'), std::string::npos) << "errors are one line";
	return r.error;
}

mltcp_params defaults()
{
	mltcp_params p;

	mltcp_params_default(&p);
	return p;
}

// Applies one KEY VALUE to the defaults; returns the error ("" on success).
std::string apply(const std::string &key, const std::string &value, mltcp_params &p)
{
	p = defaults();
	return apply_settings(p, { Setting{ key, value } });
}

TEST(BpfCli, Commands)
{
	EXPECT_EQ(parse_ok({ "load" }).command, Command::Load);
	EXPECT_EQ(parse_ok({ "unload" }).command, Command::Unload);
	EXPECT_EQ(parse_ok({ "status" }).command, Command::Status);
	EXPECT_EQ(parse_ok({ "set", "slope", "1" }).command, Command::Set);
	EXPECT_EQ(parse_ok({ "flows" }).command, Command::Flows);
	EXPECT_EQ(parse_ok({ "help" }).command, Command::Help);
	EXPECT_EQ(parse_ok({ "-h" }).command, Command::Help);
	EXPECT_EQ(parse_ok({ "--version" }).command, Command::Version);
}

TEST(BpfCli, PrefixesResolveInOrder)
{
	EXPECT_EQ(parse_ok({ "l" }).command, Command::Load);
	EXPECT_EQ(parse_ok({ "u" }).command, Command::Unload);
	EXPECT_EQ(parse_ok({ "s" }).command, Command::Status);
	EXPECT_EQ(parse_ok({ "st" }).command, Command::Status);
	EXPECT_EQ(parse_ok({ "se", "mode", "md" }).command, Command::Set);
	EXPECT_EQ(parse_ok({ "f" }).command, Command::Flows);
	EXPECT_NE(parse_error({ "loads" }).find("unknown command \"loads\""), std::string::npos);
	EXPECT_NE(parse_error({ "x" }).find("unknown command"), std::string::npos);
}

TEST(BpfCli, Options)
{
	Options o = parse_ok({ "-j", "status" });
	EXPECT_TRUE(o.json);
	EXPECT_FALSE(o.pretty);
	o = parse_ok({ "-p", "status" });
	EXPECT_TRUE(o.json && o.pretty);
	o = parse_ok({ "--json", "--verbose", "load" });
	EXPECT_TRUE(o.json && o.verbose);
	EXPECT_EQ(parse_ok({ "status" }).pin_dir, MLTCP_BPF_PIN_DIR);
	EXPECT_EQ(parse_ok({ "-d", "/sys/fs/bpf/x/", "status" }).pin_dir, "/sys/fs/bpf/x");
	EXPECT_EQ(parse_ok({ "-n", "red", "flows" }).netns, "red");
	EXPECT_EQ(parse_ok({ "--netns", "red", "-j", "f" }).netns, "red");
}

TEST(BpfCli, OptionErrors)
{
	EXPECT_EQ(parse_error({}), "missing command (try: mltcp-bpf help)");
	EXPECT_EQ(parse_error({ "-j" }), "missing command (try: mltcp-bpf help)");
	EXPECT_NE(parse_error({ "-x", "status" }).find("unknown option \"-x\""), std::string::npos);
	EXPECT_EQ(parse_error({ "-d" }), "-d: missing argument");
	EXPECT_NE(parse_error({ "-d", "rel/dir", "status" }).find("absolute path"),
		  std::string::npos);
	EXPECT_NE(parse_error({ "-n", "../x", "flows" }).find("ip netns"), std::string::npos);
	EXPECT_EQ(parse_error({ "-n", "red", "status" }), "-n/--netns applies to flows only");
	EXPECT_EQ(parse_error({ "status", "now" }), "status: unexpected argument \"now\"");
	EXPECT_EQ(parse_error({ "unload", "-j" }), "unload: unexpected argument \"-j\"");
}

TEST(BpfCli, Settings)
{
	Options o = parse_ok({ "load", "slope", "2", "mode", "both" });
	ASSERT_EQ(o.settings.size(), 2u);
	EXPECT_EQ(o.settings[0].key, "slope");
	EXPECT_EQ(o.settings[0].value, "2");
	EXPECT_EQ(o.settings[1].key, "mode");
	EXPECT_EQ(o.settings[1].value, "both");
	EXPECT_TRUE(parse_ok({ "load" }).settings.empty());

	EXPECT_NE(parse_error({ "set" }).find("set: expected KEY VALUE"), std::string::npos);
	EXPECT_EQ(parse_error({ "set", "slope" }), "slope: missing value");
	EXPECT_EQ(parse_error({ "set", "slope", "1", "slope", "2" }), "slope: given twice");
	EXPECT_NE(parse_error({ "set", "gain", "1" }).find("unknown parameter \"gain\""),
		  std::string::npos);
	EXPECT_NE(parse_error({ "load", "1.6" }).find("unknown parameter \"1.6\""),
		  std::string::npos);
}

TEST(BpfParams, Decimals)
{
	mltcp_params p;

	EXPECT_EQ(apply("slope", "2.5", p), "");
	EXPECT_EQ(p.slope, 2560);
	EXPECT_EQ(apply("slope", "1.6", p), "");
	EXPECT_EQ(p.slope, MLTCP_DEFAULT_SLOPE);
	EXPECT_EQ(apply("slope", "16", p), "");
	EXPECT_EQ(p.slope, MLTCP_SLOPE_MAX);
	EXPECT_EQ(apply("intercept", "0", p), "");
	EXPECT_EQ(p.intercept, 0);
	EXPECT_EQ(apply("intercept", "0.123456", p), "");
	EXPECT_EQ(p.intercept, 126); // 0.123456 * 1024 = 126.4, rounded
	for (const char *bad : { "16.001", "17", "-1", "+1", "1.", ".5", "1.1234567", "abc",
				 "1.6\n", "", " 1", "1e3" }) {
		std::string err = apply("slope", bad, p);
		EXPECT_NE(err.find("slope: expected a decimal in [0, 16]"), std::string::npos)
			<< bad;
		EXPECT_EQ(p.slope, MLTCP_DEFAULT_SLOPE) << "unchanged on error";
	}
	EXPECT_NE(apply("intercept", "16.5", p).find("intercept: expected"), std::string::npos);
}

TEST(BpfParams, IdleGap)
{
	mltcp_params p;

	EXPECT_EQ(apply("idle_gap_us", "20000", p), "");
	EXPECT_EQ(p.idle_gap_us, 20000u);
	EXPECT_EQ(apply("idle_gap_us", "1000", p), "");
	EXPECT_EQ(apply("idle_gap_us", "60000000", p), "");
	EXPECT_EQ(apply("idle_gap_us", "5ms", p), "");
	EXPECT_EQ(p.idle_gap_us, 5000u);
	EXPECT_EQ(apply("idle_gap_us", "1.5ms", p), "");
	EXPECT_EQ(p.idle_gap_us, 1500u);
	EXPECT_EQ(apply("idle_gap_us", "60s", p), "");
	EXPECT_EQ(p.idle_gap_us, 60000000u);
	for (const char *bad : { "999", "60000001", "61s", "20", "500us", "-5", "5 ms", "ms", "",
				 "99999999999999999999" }) {
		std::string err = apply("idle_gap_us", bad, p);
		EXPECT_NE(err.find("idle_gap_us: expected microseconds in [1000, 60000000]"),
			  std::string::npos)
			<< bad;
		EXPECT_EQ(p.idle_gap_us, MLTCP_DEFAULT_IDLE_GAP_US);
	}
}

TEST(BpfParams, Names)
{
	mltcp_params p;

	EXPECT_EQ(apply("base", "reno", p), "");
	EXPECT_EQ(p.base, MLTCP_BASE_RENO);
	EXPECT_EQ(apply("base", "cubic", p), "");
	EXPECT_EQ(p.base, MLTCP_BASE_CUBIC);
	EXPECT_EQ(apply("base", "bbr", p), "base: expected reno|cubic, got \"bbr\"");
	EXPECT_EQ(apply("base", "Reno", p), "base: expected reno|cubic, got \"Reno\"");
	EXPECT_EQ(apply("mode", "ai", p), "");
	EXPECT_EQ(p.mode, MLTCP_MODE_AI);
	EXPECT_EQ(apply("mode", "md", p), "");
	EXPECT_EQ(p.mode, MLTCP_MODE_MD);
	EXPECT_EQ(apply("mode", "both", p), "");
	EXPECT_EQ(p.mode, MLTCP_MODE_BOTH);
	EXPECT_EQ(apply("mode", "md-restart", p), "");
	EXPECT_EQ(p.mode, MLTCP_MODE_MD | MLTCP_MODE_RESTART);
	EXPECT_EQ(
		apply("mode", "3", p),
		"mode: expected ai|md|both|restart|ai-restart|md-restart|both-restart, got \"3\"");
}

TEST(BpfParams, SeveralAtOnceAreAllOrNothing)
{
	mltcp_params p = defaults();

	EXPECT_NE(apply_settings(p, { { "slope", "3" }, { "mode", "none" } }), "");
	EXPECT_EQ(p.slope, MLTCP_DEFAULT_SLOPE);
	EXPECT_EQ(apply_settings(p, { { "slope", "3" }, { "intercept", "0.5" }, { "mode", "md" } }),
		  "");
	EXPECT_EQ(p.slope, 3 * MLTCP_ONE);
	EXPECT_EQ(p.intercept, MLTCP_ONE / 2);
	EXPECT_EQ(p.mode, MLTCP_MODE_MD);
	EXPECT_TRUE(mltcp_params_valid(&p));
}

TEST(BpfParams, Formatting)
{
	using mltcp::bpf::format_fixed;

	EXPECT_EQ(format_fixed(MLTCP_DEFAULT_SLOPE), "1.600");
	EXPECT_EQ(format_fixed(MLTCP_DEFAULT_INTERCEPT), "0.200");
	EXPECT_EQ(format_fixed(0), "0.000");
	EXPECT_EQ(format_fixed(1), "0.001");
	EXPECT_EQ(format_fixed(MLTCP_SLOPE_MAX), "16.000");
	EXPECT_EQ(mltcp::bpf::params_text(defaults()),
		  "slope 1.600 intercept 0.200 idle_gap_us 20000 base cubic mode md-restart");

	nlohmann::json j = mltcp::bpf::params_json(defaults());
	EXPECT_EQ(j["slope"], 1.6);
	EXPECT_EQ(j["slope_fixed"], MLTCP_DEFAULT_SLOPE);
	EXPECT_EQ(j["intercept"], 0.2);
	EXPECT_EQ(j["idle_gap_us"], 20000);
	EXPECT_EQ(j["base"], "cubic");
	EXPECT_EQ(j["mode"], "md-restart");
}

TEST(BpfParams, TextRoundTripsThroughSet)
{
	// "status" prints defaults as KEY VALUE words that "set" accepts back.
	mltcp_params p = defaults(), q = defaults();
	std::vector<std::string> words{ "set" };

	ASSERT_EQ(
		apply_settings(p, { { "slope", "2.75" }, { "base", "reno" }, { "mode", "both" } }),
		"");
	std::string text = mltcp::bpf::params_text(p);
	for (size_t start = 0, end; start < text.size(); start = end + 1) {
		end = text.find(' ', start);
		if (end == std::string::npos)
			end = text.size();
		words.push_back(text.substr(start, end - start));
	}
	Options o = parse_ok(words);
	ASSERT_EQ(apply_settings(q, o.settings), "");
	EXPECT_EQ(mltcp::bpf::params_text(q), text);
	EXPECT_EQ(q.slope, p.slope);
}

} // namespace
