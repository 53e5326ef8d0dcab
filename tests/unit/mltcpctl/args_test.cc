// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "args.h"
#include "mltcpctl.h"
#include "parse.h"
#include "uapi/mltcp.h"

using namespace mltcpctl;
using mltcpctl::test::bad;
using mltcpctl::test::ok;

TEST(Args, JobAddWithEverything)
{
	Command c = ok({ "job",	  "add",       "7",	      "dport",	  "5000-5010", "sport",
			 "40000", "peer",      "10.1.0.0/16", "mark",	  "0x10/0xff", "slope",
			 "2.5",	  "intercept", "0.2",	      "idle-gap", "20ms",      "iter-bytes",
			 "64M",	  "base",      "reno",	      "exempt" });
	EXPECT_EQ(c.action, Action::JobAdd);
	const Job &j = c.job;
	EXPECT_EQ(j.id, 7u);
	EXPECT_EQ(j.dport, (PortRange{ 5000, 5010 }));
	EXPECT_EQ(j.sport, (PortRange{ 40000, 40000 }));
	ASSERT_TRUE(j.peer);
	EXPECT_EQ(j.peer->family, AF_INET);
	EXPECT_EQ(j.peer->len, 16);
	EXPECT_EQ(format_prefix(*j.peer), "10.1.0.0/16");
	EXPECT_EQ(j.mark, (Mark{ 0x10, 0xff }));
	EXPECT_EQ(j.slope, 2560u);
	EXPECT_EQ(j.intercept, 205u);
	EXPECT_EQ(j.idle_gap_us, 20000u);
	EXPECT_EQ(j.iter_bytes, 64ull << 20);
	EXPECT_EQ(j.base, MLTCP_GENL_BASE_RENO);
	EXPECT_EQ(j.exempt, true);
	EXPECT_EQ(j.clear, 0u);
}

TEST(Args, Units)
{
	EXPECT_EQ(ok({ "job", "add", "1", "iter-bytes", "1.5G" }).job.iter_bytes, 3ull << 29);
	EXPECT_EQ(ok({ "job", "add", "1", "iter-bytes", "65536" }).job.iter_bytes, 65536u);
	EXPECT_EQ(ok({ "job", "add", "1", "iter-bytes", "64MiB" }).job.iter_bytes, 64u << 20);
	EXPECT_EQ(ok({ "job", "add", "1", "iter-bytes", "1T" }).job.iter_bytes, 1ull << 40);
	EXPECT_EQ(ok({ "job", "add", "1", "idle-gap", "1.5s" }).job.idle_gap_us, 1500000u);
	EXPECT_EQ(ok({ "job", "add", "1", "idle-gap", "1ms" }).job.idle_gap_us, 1000u);
	EXPECT_EQ(ok({ "job", "add", "1", "idle-gap", "60s" }).job.idle_gap_us, 60000000u);
	EXPECT_EQ(ok({ "job", "add", "1", "idle-gap", "2500us" }).job.idle_gap_us, 2500u);
	EXPECT_EQ(ok({ "job", "add", "1", "slope", "1.6" }).job.slope, 1638u);
	EXPECT_EQ(ok({ "job", "add", "1", "slope", "16" }).job.slope, 16384u);
	EXPECT_EQ(ok({ "job", "add", "1", "slope", "0" }).job.slope, 0u);
	EXPECT_EQ(ok({ "job", "add", "1", "intercept", "0.125" }).job.intercept, 128u);
}

TEST(Args, PeersAndMarks)
{
	Job j = ok({ "job", "add", "1", "peer", "fd00:1::/48" }).job;
	ASSERT_TRUE(j.peer);
	EXPECT_EQ(j.peer->family, AF_INET6);
	EXPECT_EQ(format_prefix(*j.peer), "fd00:1::/48");
	j = ok({ "job", "add", "1", "peer", "10.2.3.4" }).job;
	EXPECT_EQ(format_prefix(*j.peer), "10.2.3.4/32");
	j = ok({ "job", "add", "1", "peer", "::1" }).job;
	EXPECT_EQ(j.peer->len, 128);
	EXPECT_EQ(ok({ "job", "add", "1", "mark", "42" }).job.mark, (Mark{ 42, 0xffffffff }));
	EXPECT_EQ(ok({ "job", "add", "1", "mark", "0xFFFFFFFF/0x1" }).job.mark,
		  (Mark{ 0xffffffff, 1 }));
}

TEST(Args, ExemptForms)
{
	EXPECT_EQ(ok({ "job", "add", "1", "exempt" }).job.exempt, true);
	EXPECT_EQ(ok({ "job", "add", "1", "exempt", "off" }).job.exempt, false);
	EXPECT_EQ(ok({ "job", "add", "1", "exempt", "on" }).job.exempt, true);
	Job j = ok({ "job", "add", "1", "exempt", "slope", "2" }).job;
	EXPECT_EQ(j.exempt, true);
	EXPECT_EQ(j.slope, 2048u);
	EXPECT_EQ(ok({ "job", "set", "1", "exempt", "default" }).job.clear, MLTCP_JOB_F_EXEMPT);
}

// The path is kept as given; the command resolves it (args does no I/O).
TEST(Args, CgroupIsAMatch)
{
	Job j = ok({ "job", "add", "1", "cgroup", "/slurm/job_7", "dport", "5000" }).job;
	ASSERT_TRUE(j.cgroup);
	EXPECT_EQ(j.cgroup->path, "/slurm/job_7");
	EXPECT_EQ(j.cgroup->id, 0u);
	EXPECT_NE(parse_args({ "job", "add", "1", "cgroup" }).error.find("cgroup needs a value"),
		  std::string::npos);
	EXPECT_NE(parse_args({ "job", "add", "1", "cgroup", "any" }).error.find("only \"job set\""),
		  std::string::npos);
	EXPECT_EQ(ok({ "job", "set", "1", "cgroup", "any" }).job.clear, MLTCP_JOB_F_CGROUP);
}

TEST(Args, JobSetClears)
{
	Command c = ok({ "job",	    "set",	  "3",	     "dport",	  "any",     "slope",
			 "default", "iter-bytes", "default", "peer",	  "any",     "mark",
			 "any",	    "sport",	  "any",     "intercept", "default", "idle-gap",
			 "default", "base",	  "default", "cgroup",	  "any",     "marked",
			 "default" });
	EXPECT_EQ(c.action, Action::JobSet);
	EXPECT_EQ(c.job.clear, static_cast<uint32_t>(MLTCP_JOB_F_ALL & ~MLTCP_JOB_F_EXEMPT));
	EXPECT_EQ(ok({ "job", "set", "1", "marked", "default" }).job.clear, MLTCP_JOB_F_MARKED);
	EXPECT_FALSE(c.job.slope);
	c = ok({ "job", "change", "3", "slope", "1" });
	EXPECT_EQ(c.action, Action::JobSet);
	EXPECT_EQ(c.job.slope, 1024u);
}

TEST(Args, EveryCommand)
{
	EXPECT_EQ(ok({ "job", "del", "4" }).action, Action::JobDel);
	EXPECT_EQ(ok({ "job", "delete", "4" }).job.id, 4u);
	EXPECT_EQ(ok({ "job" }).action, Action::JobShow);
	EXPECT_EQ(ok({ "job", "show" }).job_id, std::nullopt);
	EXPECT_EQ(ok({ "job", "show", "9" }).job_id, 9u);
	EXPECT_EQ(ok({ "job", "list", "id", "9" }).job_id, 9u);
	EXPECT_EQ(ok({ "flow" }).action, Action::FlowShow);
	EXPECT_EQ(ok({ "flow", "show" }).job_id, std::nullopt);
	EXPECT_EQ(ok({ "flow", "list", "job", "3" }).job_id, 3u);
	Command m = ok({ "monitor" });
	EXPECT_EQ(m.action, Action::Monitor);
	EXPECT_EQ(m.interval_us, 1000000u);
	EXPECT_FALSE(m.count);
	m = ok({ "monitor", "job", "2", "interval", "200ms", "count", "5" });
	EXPECT_EQ(m.job_id, 2u);
	EXPECT_EQ(m.interval_us, 200000u);
	EXPECT_EQ(m.count, 5u);
	EXPECT_EQ(ok({ "help" }).action, Action::Help);
	EXPECT_EQ(ok({ "help", "job" }).help_topic, "job");
	EXPECT_EQ(ok({ "job", "help" }).help_topic, "job");
	EXPECT_EQ(ok({ "flow", "help" }).help_topic, "flow");
	EXPECT_EQ(ok({ "monitor", "help" }).help_topic, "monitor");
	EXPECT_EQ(ok({ "-h" }).action, Action::Help);
	EXPECT_EQ(ok({ "--help" }).action, Action::Help);
	EXPECT_EQ(ok({ "-V" }).action, Action::Version);
}

// "ls" is "list", wherever "list" lists, as iproute2 takes it; "l" is both,
// which is not ambiguous.
TEST(Args, LsIsList)
{
	EXPECT_EQ(ok({ "job", "ls" }).action, Action::JobShow);
	EXPECT_EQ(ok({ "job", "ls", "9" }).job_id, 9u);
	EXPECT_EQ(ok({ "job", "l" }).action, Action::JobShow);
	EXPECT_EQ(ok({ "flow", "ls", "job", "3" }).job_id, 3u);
	EXPECT_EQ(ok({ "flow", "l" }).action, Action::FlowShow);
	EXPECT_EQ(ok({ "defaults", "ls", "global" }).action, Action::DefaultsShow);
	EXPECT_TRUE(ok({ "defaults", "ls", "global" }).global);
	EXPECT_EQ(ok({ "ackmark", "ls", "dev", "x" }).action, Action::AckmarkShow);
	EXPECT_EQ(ok({ "ackmark", "ls", "dev", "x" }).dev, "x");
	EXPECT_NE(bad({ "job", "ls", "x" }).find("not a number"), std::string::npos);
}

TEST(Args, Export)
{
	Command e = ok({ "export" });
	EXPECT_EQ(e.action, Action::Export);
	EXPECT_FALSE(e.every);
	EXPECT_EQ(e.output, "");
	e = ok({ "-n", "h1", "export", "output", "/var/lib/node/mltcp.prom", "interval", "15s",
		 "count", "3" });
	EXPECT_EQ(e.options.netns, "h1");
	EXPECT_EQ(e.output, "/var/lib/node/mltcp.prom");
	EXPECT_TRUE(e.every);
	EXPECT_EQ(e.interval_us, 15000000u);
	EXPECT_EQ(e.count, 3u);
	// The option spellings of node_exporter's tools, and prefixes.
	e = ok({ "exp", "--output", "m.prom", "--interval", "200ms", "--count", "2" });
	EXPECT_EQ(e.output, "m.prom");
	EXPECT_EQ(e.interval_us, 200000u);
	EXPECT_EQ(e.count, 2u);
	EXPECT_EQ(ok({ "export", "help" }).help_topic, "export");
	EXPECT_EQ(ok({ "help", "export" }).help_topic, "export");
	EXPECT_EQ(bad({ "export", "count", "2" }),
		  "count: only with interval (export interval DURATION count N)");
	EXPECT_EQ(bad({ "export", "interval", "5ms" }),
		  "interval 5ms: out of range (allowed 10ms to 3600s)");
	EXPECT_EQ(bad({ "export", "output", "a", "output", "b" }), "output given twice");
	EXPECT_EQ(bad({ "export", "output", "dir/" }), "output \"dir/\": not a file name");
	EXPECT_EQ(bad({ "export", "output" }), "output needs a value");
	EXPECT_EQ(bad({ "export", "--frob" }), "unknown export argument \"frob\"");
	EXPECT_NE(usage("export").find("export [output FILE] [interval DURATION [count N]]"),
		  std::string::npos);
}

TEST(Args, Prefixes)
{
	Command c = ok({ "j", "a", "5", "dp", "80", "sl", "1", "int", "0", "idle", "5ms", "it",
			 "1M", "b", "c", "ex" });
	EXPECT_EQ(c.action, Action::JobAdd);
	EXPECT_EQ(c.job.dport, (PortRange{ 80, 80 }));
	EXPECT_EQ(c.job.base, MLTCP_GENL_BASE_CUBIC);
	EXPECT_EQ(c.job.exempt, true);
	EXPECT_EQ(ok({ "j", "d", "5" }).action, Action::JobDel); // del and delete agree
	EXPECT_EQ(ok({ "f", "s", "j", "2" }).job_id, 2u);
	EXPECT_EQ(ok({ "m", "c", "1" }).count, 1u);
}

TEST(Args, Options)
{
	Command c = ok({ "-j", "-p", "-n", "h1", "job", "show" });
	EXPECT_TRUE(c.options.json);
	EXPECT_TRUE(c.options.pretty);
	EXPECT_EQ(c.options.netns, "h1");
	c = ok({ "-json", "--netns", "h2", "flow" });
	EXPECT_TRUE(c.options.json);
	EXPECT_EQ(c.options.netns, "h2");
	EXPECT_FALSE(ok({ "job" }).options.json);
	EXPECT_EQ(ok({ "-n", "/proc/42/ns/net", "job" }).options.netns, "/proc/42/ns/net");
}

TEST(Args, BadInput)
{
	struct Case {
		std::vector<std::string> args;
		const char *error;
	} cases[] = {
		{ {}, "missing object" },
		{ { "jobs" }, "unknown object \"jobs\"" },
		{ { "job", "frob" }, "unknown job command \"frob\"" },
		{ { "job", "add" }, "job add needs a job ID" },
		{ { "job", "add", "x" }, "job ID \"x\": not a number" },
		{ { "job", "add", "0" }, "job ID 0: out of range (allowed 1 to 4294967295)" },
		{ { "job", "add", "4294967296" }, "job ID 4294967296: out of range" },
		{ { "job", "add", "-1" }, "not a number" },
		{ { "job", "add", "1", "s", "1" }, "\"s\" is ambiguous: sport, slope" },
		{ { "job", "add", "1", "i", "1" }, "ambiguous: intercept, idle-gap, iter-bytes" },
		{ { "job", "add", "1", "slope" }, "slope needs a value" },
		{ { "job", "add", "1", "slope", "1", "slope", "2" }, "slope given twice" },
		{ { "job", "add", "1", "slope", "17" },
		  "slope 17: out of range (allowed 0 to 16)" },
		{ { "job", "add", "1", "slope", "16.001" }, "out of range (allowed 0 to 16)" },
		{ { "job", "add", "1", "slope", "-1" }, "slope \"-1\": not a decimal number" },
		{ { "job", "add", "1", "slope", "1." }, "not a decimal number" },
		{ { "job", "add", "1", "slope", "1.2345678" }, "not a decimal number" },
		{ { "job", "add", "1", "intercept", "abc" }, "intercept \"abc\": not a decimal" },
		{ { "job", "add", "1", "idle-gap", "20" }, "idle-gap \"20\": not a duration" },
		{ { "job", "add", "1", "idle-gap", "999us" },
		  "idle-gap 999us: out of range (allowed 1ms to 60s)" },
		{ { "job", "add", "1", "idle-gap", "61s" }, "out of range (allowed 1ms to 60s)" },
		{ { "job", "add", "1", "iter-bytes", "64X" }, "iter-bytes \"64X\": not a size" },
		{ { "job", "add", "1", "iter-bytes", "0" },
		  "iter-bytes 0: out of range (allowed 1 to 1T)" },
		{ { "job", "add", "1", "iter-bytes", "1.5T" }, "out of range (allowed 1 to 1T)" },
		{ { "job", "add", "1", "dport", "70000" },
		  "dport 70000: out of range (allowed 0 to 65535)" },
		{ { "job", "add", "1", "dport", "90-80" }, "range maximum below its minimum" },
		{ { "job", "add", "1", "dport", "80-" }, "not a port or port range" },
		{ { "job", "add", "1", "sport", "a-b" }, "not a port or port range" },
		{ { "job", "add", "1", "peer", "10.0.0.0/33" },
		  "prefix length out of range (allowed 0 to 32)" },
		{ { "job", "add", "1", "peer", "::/129" }, "out of range (allowed 0 to 128)" },
		{ { "job", "add", "1", "peer", "example.com" }, "not an IPv4 or IPv6 prefix" },
		{ { "job", "add", "1", "peer", "10.0.0.0/x" }, "bad prefix length" },
		{ { "job", "add", "1", "mark", "0x" }, "not a mark" },
		{ { "job", "add", "1", "mark", "0x123456789" }, "not a mark" },
		{ { "job", "add", "1", "mark", "1/zz" }, "bad mask" },
		{ { "job", "add", "1", "base", "bbr" }, "unknown base \"bbr\"" },
		{ { "job", "add", "1", "slope", "default" }, "only \"job set\" can reset a field" },
		{ { "job", "add", "1", "dport", "any" }, "only \"job set\" can reset a field" },
		{ { "job", "set", "1" }, "job set 1: nothing to change" },
		{ { "job", "set", "1", "dport", "default" }, "not a port" },
		{ { "job", "del" }, "job del needs a job ID" },
		{ { "job", "del", "1", "2" }, "unexpected \"2\"" },
		{ { "job", "show", "1", "2" }, "unexpected \"2\"" },
		{ { "flow", "show", "3" }, "unknown argument \"3\"" },
		{ { "flow", "show", "job" }, "job needs a value" },
		{ { "monitor", "count", "0" }, "count 0: out of range" },
		{ { "monitor", "interval", "1ms" },
		  "interval 1ms: out of range (allowed 10ms to 3600s)" },
		{ { "monitor", "interval", "fast" }, "not a duration" },
		{ { "monitor", "job", "1", "job", "2" }, "job given twice" },
		{ { "-n" }, "-n needs a value" },
		{ { "-n", "a/b", "job" }, "not a network namespace name" },
		{ { "-x", "job" }, "unknown option \"x\"" },
		{ { "help", "me" }, "unknown help topic \"me\"" },
	};
	for (const auto &c : cases) {
		std::string err = bad(c.args);
		EXPECT_NE(err.find(c.error), std::string::npos) << "got: " << err;
	}
}

TEST(Args, ErrorsStayOneLine)
{
	std::string err = bad({ "job", "fr\nob\x7f" });
	EXPECT_NE(err.find("fr\\x0aob\\x7f"), std::string::npos) << err;
}

// The top-level help is one screen of grammar naming every object and
// option; each object's help names each of its commands.
TEST(Args, UsageNamesEveryCommand)
{
	std::string u = usage("");
	size_t lines = 0, line_start = 0;

	for (const char *w :
	     { "job", "flow", "monitor", "defaults", "bpf", "export", "run", "ackmark",
	       "-n[etns] NAME", "-b[ackend] BACKEND", "\"mltcpctl OBJECT help\"" })
		EXPECT_NE(u.find(w), std::string::npos) << w;
	for (size_t nl = u.find('\n'); nl != std::string::npos; nl = u.find('\n', line_start)) {
		EXPECT_LE(nl - line_start, 80u) << u.substr(line_start, nl - line_start);
		lines++;
		line_start = nl + 1;
	}
	EXPECT_LE(lines, 24u) << u;
	EXPECT_EQ(u.find("job add ID"), std::string::npos) << "details are the objects'";
	for (auto [topic, w] : std::vector<std::pair<const char *, const char *>>{
		     { "job", "job add ID" },
		     { "job", "job set ID" },
		     { "job", "job del ID" },
		     { "job", "job show [ID]" },
		     { "flow", "flow show [job ID]" },
		     { "monitor", "monitor [job ID]" },
		     { "bpf", "bpf { load" },
		     { "defaults", "defaults show" },
		     { "export", "export [output" } }) {
		EXPECT_NE(usage(topic).find(w), std::string::npos) << topic << ": " << w;
		EXPECT_EQ(usage(topic).rfind("Usage: mltcpctl [OPTIONS] ", 0), 0u) << topic;
		EXPECT_NE(usage(topic).find("-n[etns] NAME"), std::string::npos) << topic;
	}
	EXPECT_EQ(usage("flow").find("job add"), std::string::npos);
}

TEST(Args, FormatFixed)
{
	EXPECT_EQ(format_fixed(1638), "1.6");
	EXPECT_EQ(format_fixed(205), "0.2");
	EXPECT_EQ(format_fixed(16384), "16");
	EXPECT_EQ(format_fixed(0), "0");
	EXPECT_EQ(format_fixed(128), "0.125");
	// 64/1024: "0.063" would read back as 65; a setting reads back as itself.
	EXPECT_EQ(format_fixed(64), "0.0625");
	EXPECT_EQ(format_fixed(65), "0.063");
}

// run [job ID] [parent PATH] [MATCH]... [SETTING]... -- COMMAND [ARG]...
TEST(Args, Run)
{
	Command c = ok({ "run", "job", "7", "slope", "2", "dport", "5000", "--", "torchrun", "--nproc",
			 "2", "--", "train.py" });
	EXPECT_EQ(c.action, Action::Run);
	EXPECT_EQ(c.job.id, 7u);
	EXPECT_EQ(c.job.slope, 2048u);
	EXPECT_EQ(c.job.dport, (PortRange{ 5000, 5000 }));
	EXPECT_EQ(c.run_argv,
		  (std::vector<std::string>{ "torchrun", "--nproc", "2", "--", "train.py" }));
	EXPECT_TRUE(c.run_parent.empty());

	c = ok({ "run", "parent", "/slurm", "--", "true" });
	EXPECT_EQ(c.job.id, 0u) << "the lowest free id";
	EXPECT_EQ(c.run_parent, "/slurm");
	EXPECT_EQ(c.run_argv, (std::vector<std::string>{ "true" }));
	EXPECT_EQ(ok({ "run", "help" }).help_topic, "run");
	// Later, "help" is a word of the job: no run settings leak into a help.
	EXPECT_NE(bad({ "run", "user", "nobody", "help" }).find("\"--\" and a command"),
		  std::string::npos);

	EXPECT_NE(bad({ "run", "slope", "2" }).find("\"--\" and a command"), std::string::npos);
	EXPECT_NE(bad({ "run", "--" }).find("no command"), std::string::npos);
	EXPECT_NE(bad({ "run", "cgroup", "/x", "--", "true" }).find("give no cgroup"),
		  std::string::npos);
	EXPECT_NE(bad({ "run", "job", "1", "job", "2", "--", "true" }).find("job given twice"),
		  std::string::npos);
	EXPECT_NE(bad({ "run", "slope", "99", "--", "true" }).find("slope"), std::string::npos);
	EXPECT_NE(bad({ "run", "job", "0", "--", "true" }).find("job"), std::string::npos);
	EXPECT_EQ(ok({ "run", "job", "2147483647", "--", "true" }).job.id, 2147483647u);
	EXPECT_EQ(bad({ "run", "job", "2147483648", "--", "true" }),
		  "job ID 2147483648: out of range (allowed 1 to 2147483647): the ids above "
		  "are the Slurm hooks'");
}

// run ... [user USER] [group GROUP] ...: checked here, looked up when run.
TEST(Args, RunUserGroup)
{
	Command c = ok({ "run", "user", "alice", "group", "video", "job", "3", "slope", "2", "--",
			 "id" });
	EXPECT_EQ(c.run_user, "alice");
	EXPECT_EQ(c.run_group, "video");
	EXPECT_EQ(c.job.id, 3u);
	EXPECT_EQ(c.job.slope, 2048u);
	EXPECT_EQ(c.run_argv, (std::vector<std::string>{ "id" }));

	c = ok({ "run", "group", "0", "--", "id" });
	EXPECT_TRUE(c.run_user.empty()) << "group alone";
	EXPECT_EQ(c.run_group, "0");
	c = ok({ "run", "user", "4294967294", "group", "4294967294", "--", "id" });
	EXPECT_EQ(c.run_user, "4294967294");
	EXPECT_EQ(c.run_group, "4294967294");
	EXPECT_EQ(ok({ "run", "user", "svc-train.1$", "--", "id" }).run_user, "svc-train.1$");
	EXPECT_TRUE(ok({ "run", "--", "id" }).run_user.empty());
	// After "--" the words are COMMAND's.
	c = ok({ "run", "--", "runuser", "user", "x" });
	EXPECT_TRUE(c.run_user.empty());
	EXPECT_EQ(c.run_argv.size(), 3u);

	EXPECT_EQ(bad({ "run", "user", "0", "--", "id" }),
		  "user 0: uid 0 would keep root's privileges (leave user out to run COMMAND as "
		  "the caller)");
	EXPECT_EQ(bad({ "run", "user", "00", "--", "id" }).substr(0, 24),
		  "user 00: uid 0 would kee");
	EXPECT_EQ(bad({ "run", "user", "4294967295", "--", "id" }),
		  "user 4294967295: out of range (allowed 1 to 4294967294)");
	EXPECT_EQ(bad({ "run", "group", "4294967295", "--", "id" }),
		  "group 4294967295: out of range (allowed 0 to 4294967294)");
	EXPECT_EQ(bad({ "run", "user", "123456789012345678901234", "--", "id" }),
		  "user 123456789012345678901234: out of range (allowed 1 to 4294967294)");
	EXPECT_EQ(bad({ "run", "user", "", "--", "id" }), "user: empty user");
	EXPECT_EQ(bad({ "run", "group", "", "--", "id" }), "group: empty group");
	EXPECT_EQ(bad({ "run", "user", "a:b", "--", "id" }),
		  "user \"a:b\": not a user name or id");
	EXPECT_EQ(bad({ "run", "group", "a\nb", "--", "id" }),
		  "group \"a\\x0ab\": not a group name or id");
	EXPECT_EQ(bad({ "run", "user", "a", "user", "b", "--", "id" }), "user given twice");
	EXPECT_EQ(bad({ "run", "group", "1", "group", "1", "--", "id" }), "group given twice");
	EXPECT_NE(bad({ "run", "user" }).find("user"), std::string::npos);
	EXPECT_NE(bad({ "run", "user", "alice" }).find("\"--\" and a command"), std::string::npos);
	EXPECT_NE(usage("run").find("run [job ID] [parent PATH] [user USER] [group GROUP]"),
		  std::string::npos);
	EXPECT_NE(usage("run").find("USER := { NAME | UID }"), std::string::npos);
	// Not a job word: "user" is run's alone.
	EXPECT_NE(bad({ "job", "add", "1", "user", "alice" }).find("unknown"), std::string::npos);
}

// ackmark { add dev DEV dscp DSCP | del dev DEV | show [dev DEV] }
TEST(Args, Ackmark)
{
	Command c = ok({ "ackmark", "add", "dev", "eth0", "dscp", "46" });
	EXPECT_EQ(c.action, Action::AckmarkAdd);
	EXPECT_EQ(c.dev, "eth0");
	EXPECT_EQ(c.dscp, 46u);
	for (auto [word, dscp] : { std::pair{ "ef", 46u }, { "EF", 46u }, { "cs0", 0u },
				   { "cs6", 48u }, { "cs7", 56u }, { "af11", 10u }, { "af43", 38u },
				   { "0x3f", 63u }, { "0", 0u } })
		EXPECT_EQ(ok({ "ackmark", "add", "dscp", word, "dev", "e" }).dscp, dscp) << word;
	c = ok({ "-n", "h1", "ackmark", "del", "dev", "veth1" });
	EXPECT_EQ(c.action, Action::AckmarkDel);
	EXPECT_EQ(c.options.netns, "h1");
	EXPECT_EQ(ok({ "ackmark" }).action, Action::AckmarkShow);
	EXPECT_EQ(ok({ "ackmark", "show" }).dev, "");
	EXPECT_EQ(ok({ "ackmark", "list", "dev", "x" }).dev, "x");
	EXPECT_EQ(ok({ "ackmark", "help" }).help_topic, "ackmark");
	EXPECT_EQ(ok({ "help", "ackmark" }).help_topic, "ackmark");

	EXPECT_NE(bad({ "ackmark", "add", "dev", "eth0" }).find("needs dscp DSCP"),
		  std::string::npos);
	EXPECT_NE(bad({ "ackmark", "add", "dscp", "ef" }).find("ackmark add needs dev DEV"),
		  std::string::npos);
	EXPECT_NE(bad({ "ackmark", "del" }).find("ackmark del needs dev DEV"), std::string::npos);
	EXPECT_NE(bad({ "ackmark", "add", "dev", "e", "dscp", "64" })
			  .find("dscp 64: out of range (allowed 0 to 63)"),
		  std::string::npos);
	for (const char *word : { "af44", "af10", "cs8", "-1", "", "0x", "ef1" })
		EXPECT_NE(bad({ "ackmark", "add", "dev", "e", "dscp", word }).find("not a DSCP"),
			  std::string::npos)
			<< word;
	EXPECT_NE(bad({ "ackmark", "del", "dev", "e", "dscp", "1" }).find("only \"ackmark add\""),
		  std::string::npos);
	EXPECT_NE(bad({ "ackmark", "add", "dev", "a", "dev", "b", "dscp", "1" }).find("dev given twice"),
		  std::string::npos);
	EXPECT_NE(bad({ "ackmark", "add", "dev", "e", "dscp", "1", "dscp", "2" })
			  .find("dscp given twice"),
		  std::string::npos);
	EXPECT_NE(bad({ "ackmark", "show", "dev", "0123456789abcdef" }).find("not a device name"),
		  std::string::npos);
	EXPECT_NE(bad({ "ackmark", "show", "dev", "a/b" }).find("not a device name"),
		  std::string::npos);
	EXPECT_NE(bad({ "-b", "kmod", "ackmark" }).find("drop -b"), std::string::npos);
	EXPECT_NE(bad({ "ackmark", "flip" }).find("unknown ackmark command"), std::string::npos);
	EXPECT_NE(usage("ackmark").find("ackmark { add dev DEV dscp DSCP"), std::string::npos);
}
