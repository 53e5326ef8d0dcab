// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.h"

namespace
{

using mltcp::trainsim::Collective;
using mltcp::trainsim::Config;
using mltcp::trainsim::parse_command_line;
using mltcp::trainsim::ParseResult;

// The smallest valid command line, to which each test adds or replaces options.
std::vector<std::string> minimal(unsigned world = 2)
{
	return { "--job",	 "vgg",
		 "--rank",	 "0",
		 "--world",	 std::to_string(world),
		 "--listen",	 "5000",
		 "--next",	 "10.0.0.2:5000",
		 "--bytes",	 "64M",
		 "--compute",	 "600ms",
		 "--iterations", "10" };
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string> &more)
{
	args.insert(args.end(), more.begin(), more.end());
	return args;
}

// Replaces the value of an option of the minimal line (or removes the option
// when value is null).
std::vector<std::string> replaced(const std::string &option, const char *value, unsigned world = 2)
{
	std::vector<std::string> args = minimal(world), out;
	for (size_t i = 0; i < args.size(); i += 2) {
		if (args[i] != option) {
			out.push_back(args[i]);
			out.push_back(args[i + 1]);
		} else if (value) {
			out.push_back(args[i]);
			out.push_back(value);
		}
	}
	return out;
}

Config parse_ok(const std::vector<std::string> &args)
{
	ParseResult result = parse_command_line(args);
	EXPECT_EQ(result.outcome, ParseResult::Outcome::run) << result.error;
	return result.config;
}

std::string parse_error(const std::vector<std::string> &args)
{
	ParseResult result = parse_command_line(args);
	EXPECT_EQ(result.outcome, ParseResult::Outcome::error);
	EXPECT_EQ(result.error.find('\n'), std::string::npos) << "one line: " << result.error;
	return result.error;
}

TEST(TrainsimConfig, MinimalLineAndDefaults)
{
	Config c = parse_ok(minimal());
	EXPECT_EQ(c.job, "vgg");
	EXPECT_EQ(c.rank, 0u);
	EXPECT_EQ(c.world, 2u);
	EXPECT_EQ(c.listen.host, "");
	EXPECT_EQ(c.listen.port, 5000);
	EXPECT_EQ(c.next.host, "10.0.0.2");
	EXPECT_EQ(c.next.port, 5000);
	EXPECT_EQ(c.bytes, 64ull << 20);
	EXPECT_EQ(c.compute_us, 600000u);
	EXPECT_EQ(c.iterations, 10u);
	EXPECT_FALSE(c.duration_us);
	// Defaults.
	EXPECT_EQ(c.jitter_us, 0u);
	EXPECT_EQ(c.collective, Collective::exchange);
	EXPECT_EQ(c.cc, "");
	EXPECT_FALSE(c.start_at_ns);
	EXPECT_EQ(c.offset_us, 0u);
	EXPECT_EQ(c.log_path, "");
	EXPECT_EQ(c.seed, 1u);
	EXPECT_EQ(c.connect_timeout_us, 30'000'000u);
	EXPECT_EQ(c.chunk_bytes, 256u * 1024);
}

TEST(TrainsimConfig, EveryOptionWithUnits)
{
	Config c = parse_ok(with(replaced("--iterations", nullptr, 4), { "--jitter",
									 "50ms",
									 "--duration",
									 "1.5s",
									 "--collective",
									 "ring",
									 "--cc",
									 "mltcp",
									 "--start-at",
									 "1763790000.123456789",
									 "--offset",
									 "250us",
									 "--log",
									 "/tmp/x.jsonl",
									 "--seed",
									 "42",
									 "--connect-timeout",
									 "2s",
									 "--chunk",
									 "64K" }));
	EXPECT_EQ(c.world, 4u);
	EXPECT_EQ(c.jitter_us, 50000u);
	EXPECT_FALSE(c.iterations);
	EXPECT_EQ(c.duration_us, 1500000u);
	EXPECT_EQ(c.collective, Collective::ring);
	EXPECT_EQ(c.cc, "mltcp");
	EXPECT_EQ(c.start_at_ns, 1763790000123456789ll);
	EXPECT_EQ(c.offset_us, 250u);
	EXPECT_EQ(c.log_path, "/tmp/x.jsonl");
	EXPECT_EQ(c.seed, 42u);
	EXPECT_EQ(c.connect_timeout_us, 2'000'000u);
	EXPECT_EQ(c.chunk_bytes, 64u * 1024);
}

TEST(TrainsimConfig, EqualsFormAndStdoutLog)
{
	Config c = parse_ok(with(replaced("--listen", nullptr),
				 { "--cc=cubic", "--log=-", "--listen=127.0.0.1:6000" }));
	EXPECT_EQ(c.cc, "cubic");
	EXPECT_EQ(c.log_path, "");
	EXPECT_EQ(c.listen.host, "127.0.0.1");
	EXPECT_EQ(c.listen.port, 6000);
	// An option given twice is an error in the = form too.
	EXPECT_NE(parse_error(with(minimal(), { "--listen=6000" }))
			  .find("--listen: given more than once"),
		  std::string::npos);
}

TEST(TrainsimConfig, Endpoints)
{
	Config c = parse_ok(replaced("--listen", "[::1]:7000"));
	EXPECT_EQ(c.listen.host, "::1");
	EXPECT_EQ(c.listen.port, 7000);
	c = parse_ok(replaced("--next", "h2.example:6001"));
	EXPECT_EQ(c.next.host, "h2.example");
	c = parse_ok(replaced("--next", "[fe80::1]:6001"));
	EXPECT_EQ(c.next.host, "fe80::1");
	for (const char *bad : { "0", "65536", "x", "host:5000", "1.2.3.4:", ":5000", "::1:5000" })
		EXPECT_NE(parse_error(replaced("--listen", bad)).find("--listen: invalid"),
			  std::string::npos)
			<< bad;
	for (const char *bad : { "5000", "host:0", "host:port", "[::1]5000", "a:b:1" })
		EXPECT_NE(parse_error(replaced("--next", bad)).find("--next: invalid"),
			  std::string::npos)
			<< bad;
}

TEST(TrainsimConfig, CollectiveDefaultsByWorldSize)
{
	EXPECT_EQ(parse_ok(minimal(2)).collective, Collective::exchange);
	EXPECT_EQ(parse_ok(minimal(3)).collective, Collective::ring);
	EXPECT_EQ(parse_ok(minimal(8)).collective, Collective::ring);
	// A two-worker ring all-reduce is allowed.
	EXPECT_EQ(parse_ok(with(minimal(2), { "--collective", "ring" })).collective,
		  Collective::ring);
	EXPECT_EQ(parse_error(with(minimal(3), { "--collective", "exchange" })),
		  "--collective: exchange needs --world 2, got 3 (use ring)");
	EXPECT_EQ(parse_error(with(minimal(), { "--collective", "tree" })),
		  "--collective: unknown collective \"tree\" (exchange, ring or push)");
}

TEST(TrainsimConfig, PushNeedsTwoWorkers)
{
	Config c = parse_ok(with(minimal(2), { "--collective", "push" }));
	EXPECT_EQ(c.collective, Collective::push);
	EXPECT_EQ(mltcp::trainsim::collective_name(c.collective), "push");
	EXPECT_EQ(parse_ok(with(replaced("--rank", "1"), { "--collective=push" })).collective,
		  Collective::push);
	EXPECT_EQ(parse_error(with(minimal(3), { "--collective", "push" })),
		  "--collective: push needs --world 2, got 3");
}

TEST(TrainsimConfig, MissingRequired)
{
	for (const char *option :
	     { "--job", "--rank", "--world", "--listen", "--next", "--bytes", "--compute" })
		EXPECT_EQ(parse_error(replaced(option, nullptr)),
			  std::string(option) + " is required (see --help)");
	EXPECT_EQ(parse_error(replaced("--iterations", nullptr)),
		  "--iterations or --duration is required (see --help)");
	EXPECT_EQ(parse_error(with(minimal(), { "--duration", "1s" })),
		  "--iterations and --duration: give one, not both");
}

TEST(TrainsimConfig, RankAndWorld)
{
	EXPECT_EQ(parse_error(replaced("--rank", "2")), "--rank: 2 is not below --world 2");
	EXPECT_EQ(parse_ok(replaced("--rank", "2", 3)).rank, 2u);
	EXPECT_EQ(parse_error(replaced("--world", "1")),
		  "--world: must be between 2 and 4096, got 1");
	EXPECT_EQ(parse_error(replaced("--rank", "-1")),
		  "--rank: invalid number \"-1\" (a non-negative decimal integer)");
}

TEST(TrainsimConfig, BadSizesAndDurations)
{
	EXPECT_EQ(parse_error(replaced("--bytes", "64Q")),
		  "--bytes: invalid size \"64Q\" (examples: 1500, 64K, 1.5M, 2G)");
	EXPECT_EQ(parse_error(replaced("--bytes", "0")), "--bytes: must be at least 1 byte");
	EXPECT_EQ(parse_error(replaced("--bytes", "2", 3)),
		  "--bytes: 2 bytes cannot be split into 3 ring chunks");
	EXPECT_EQ(parse_error(replaced("--compute", "600")),
		  "--compute: invalid duration \"600\" (a unit is required: 250us, 20ms, 1.5s)");
	EXPECT_NE(parse_error(with(minimal(), { "--jitter", "-5ms" }))
			  .find("--jitter: invalid duration"),
		  std::string::npos);
	EXPECT_EQ(parse_error(with(minimal(), { "--chunk", "0" })),
		  "--chunk: must be between 1 byte and 64M");
	EXPECT_EQ(parse_error(with(minimal(), { "--chunk", "65M" })),
		  "--chunk: must be between 1 byte and 64M");
	EXPECT_EQ(parse_error(replaced("--iterations", "0")), "--iterations: must be at least 1");
	EXPECT_EQ(parse_error(with(replaced("--iterations", nullptr), { "--duration", "0s" })),
		  "--duration: must be longer than 0");
	EXPECT_EQ(parse_error(with(minimal(), { "--connect-timeout", "0ms" })),
		  "--connect-timeout: must be longer than 0");
}

TEST(TrainsimConfig, SlotPeriod)
{
	EXPECT_EQ(parse_ok(minimal()).slot_period_us, 0u);
	EXPECT_EQ(parse_ok(with(minimal(), { "--slot-period", "25ms" })).slot_period_us, 25000u);
	EXPECT_EQ(parse_ok(with(minimal(), { "--slot-period=12500us" })).slot_period_us, 12500u);
	EXPECT_EQ(parse_ok(with(minimal(), { "--slot-period", "3600s" })).slot_period_us,
		  3'600'000'000u);
	EXPECT_EQ(parse_error(with(minimal(), { "--slot-period", "0us" })),
		  "--slot-period: must be from 1us to 3600s");
	EXPECT_EQ(parse_error(with(minimal(), { "--slot-period", "3601s" })),
		  "--slot-period: must be from 1us to 3600s");
	EXPECT_EQ(parse_error(with(minimal(), { "--slot-period", "25" })),
		  "--slot-period: invalid duration \"25\" (a unit is required: 250us, 20ms, 1.5s)");
}

// --mark JOB: an MLTCP job id as libmltcp takes it (1 to 2^32 - 1; 0 is no
// job), checked before anything is opened.
TEST(TrainsimConfig, MarkTakesAnMltcpJobId)
{
	EXPECT_FALSE(parse_ok(minimal()).mark_job.has_value());
	EXPECT_EQ(parse_ok(with(minimal(), { "--mark", "7" })).mark_job, 7u);
	EXPECT_EQ(parse_ok(with(minimal(), { "--mark=1" })).mark_job, 1u);
	EXPECT_EQ(parse_ok(with(minimal(), { "--mark", "4294967295" })).mark_job, 4294967295u);
	EXPECT_EQ(parse_error(with(minimal(), { "--mark", "0" })),
		  "--mark: the MLTCP job must be between 1 and 4294967295, got 0");
	EXPECT_EQ(parse_error(with(minimal(), { "--mark", "4294967296" })),
		  "--mark: the MLTCP job must be between 1 and 4294967295, got 4294967296");
	EXPECT_EQ(parse_error(with(minimal(), { "--mark", "-1" })),
		  "--mark: invalid number \"-1\" (a non-negative decimal integer)");
	EXPECT_EQ(parse_error(with(minimal(), { "--mark", "job7" })),
		  "--mark: invalid number \"job7\" (a non-negative decimal integer)");
	EXPECT_EQ(parse_error(with(minimal(), { "--mark", "1", "--mark", "2" })),
		  "--mark: given more than once");
	EXPECT_EQ(parse_error(with(minimal(), { "--mark" })), "--mark: missing value");
}

TEST(TrainsimConfig, NamesAndTimes)
{
	EXPECT_NE(parse_error(replaced("--job", "a b")).find("--job: invalid name \"a b\""),
		  std::string::npos);
	EXPECT_NE(parse_error(replaced("--job", std::string(65, 'x').c_str()))
			  .find("--job: invalid name"),
		  std::string::npos);
	EXPECT_EQ(parse_error(with(minimal(), { "--cc", "a_very_long_name_x" })),
		  "--cc: the algorithm name must have 1 to 15 characters");
	for (const char *bad : { "", "1.", ".5", "-1", "1e9", "1763790000.1234567890", "now" })
		EXPECT_NE(parse_error(with(minimal(), { "--start-at", bad }))
				  .find("--start-at: invalid time"),
			  std::string::npos)
			<< bad;
	EXPECT_EQ(parse_ok(with(minimal(), { "--start-at", "1763790000" })).start_at_ns,
		  1763790000000000000ll);
	EXPECT_EQ(parse_ok(with(minimal(), { "--start-at", "1763790000.5" })).start_at_ns,
		  1763790000500000000ll);
}

TEST(TrainsimConfig, UnknownOptionsAndArguments)
{
	EXPECT_EQ(parse_error(with(minimal(), { "--bogus", "1" })),
		  "--bogus: unknown option (see --help)");
	EXPECT_EQ(parse_error(with(minimal(), { "stray" })),
		  "\"stray\": unexpected argument (see --help)");
	EXPECT_EQ(parse_error(with(minimal(), { "--seed" })), "--seed: missing value");
	EXPECT_EQ(parse_error(with(minimal(), { "--job", "x" })), "--job: given more than once");
}

TEST(TrainsimConfig, Help)
{
	EXPECT_EQ(parse_command_line({ "--help" }).outcome, ParseResult::Outcome::help);
	EXPECT_EQ(parse_command_line(with(minimal(), { "-h" })).outcome,
		  ParseResult::Outcome::help);
	EXPECT_NE(mltcp::trainsim::usage_text().find("--connect-timeout"), std::string::npos);
}

} // namespace
