// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl export": the Prometheus text of a scrape of either backend,
// exactly, and the file replaced whole. The text is also parsed by
// Prometheus's own parser in the guest (tests/kernel/test_export.py).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>

#include "export.h"
#include "fixtures.h"
#include "netlink.h"

using namespace mltcpctl;

namespace
{

Flow flow_of(std::optional<uint32_t> job, uint32_t f)
{
	Flow fl = test::sample_flow(AF_INET);
	fl.job = job;
	fl.f = f;
	return fl;
}

// Job 3 with the module's counters, job 9 without flows; two flows of job 3
// (F 0.2 and 1.8, the second holding a move up) and one without a job, whose
// iterations are not trusted. Of 30 holds begun, 26 released, 3 reduced: the
// one left is the flow's.
Scrape sample_scrape()
{
	Scrape s;
	Job three, nine;
	three.id = 3;
	three.flows = 2;
	three.flows_total = 5;
	three.iterations = 41;
	three.bytes = 1ull << 40;
	nine.id = 9;
	nine.flows = 0;
	nine.flows_total = 0;
	nine.iterations = 0;
	nine.bytes = 0;
	s.backend = "kmod";
	s.netns = "h1";
	s.jobs = { three, nine };
	s.flows = { flow_of(3, 205), flow_of(3, 1843), flow_of(std::nullopt, 1024) };
	s.flows.back().iter_trusted = false;
	for (Flow &fl : s.flows)
		fl.prio_held = false;
	s.flows[1].prio_held = true;
	s.stats.verdicts = { 41, 2, 3, 4, 5 };
	s.stats.gate = { { 12, 9, 2, 1 } };
	s.stats.prio_hold = { { 30, 26, 3 } };
	return s;
}

} // namespace

TEST(Export, ModuleScrape)
{
	EXPECT_EQ(prometheus_text(sample_scrape()),
		  "# HELP mltcp_flows MLTCP flows open in the network namespace (initialized, not "
		  "listening).\n"
		  "# TYPE mltcp_flows gauge\n"
		  "mltcp_flows{netns=\"h1\",backend=\"kmod\"} 3\n"
		  "# HELP mltcp_flows_untrusted MLTCP flows in the network namespace with a learned "
		  "size whose iterations are not told reliably: they run as their base algorithm "
		  "(F = 1, no restart, no class).\n"
		  "# TYPE mltcp_flows_untrusted gauge\n"
		  "mltcp_flows_untrusted{netns=\"h1\",backend=\"kmod\"} 1\n"
		  "# HELP mltcp_flows_prio_held MLTCP flows in the network namespace whose move up "
		  "to a higher progress priority class waits for their data in flight, the window "
		  "held at it.\n"
		  "# TYPE mltcp_flows_prio_held gauge\n"
		  "mltcp_flows_prio_held{netns=\"h1\",backend=\"kmod\"} 1\n"
		  "# HELP mltcp_job_flows Live flows of the job in the network namespace.\n"
		  "# TYPE mltcp_job_flows gauge\n"
		  "mltcp_job_flows{job=\"3\",netns=\"h1\",backend=\"kmod\"} 2\n"
		  "mltcp_job_flows{job=\"9\",netns=\"h1\",backend=\"kmod\"} 0\n"
		  "# HELP mltcp_job_flows_matched_total Flows matched by the job since it was added.\n"
		  "# TYPE mltcp_job_flows_matched_total counter\n"
		  "mltcp_job_flows_matched_total{job=\"3\",netns=\"h1\",backend=\"kmod\"} 5\n"
		  "mltcp_job_flows_matched_total{job=\"9\",netns=\"h1\",backend=\"kmod\"} 0\n"
		  "# HELP mltcp_job_iterations_total Iterations the job's flows completed.\n"
		  "# TYPE mltcp_job_iterations_total counter\n"
		  "mltcp_job_iterations_total{job=\"3\",netns=\"h1\",backend=\"kmod\"} 41\n"
		  "mltcp_job_iterations_total{job=\"9\",netns=\"h1\",backend=\"kmod\"} 0\n"
		  "# HELP mltcp_job_bytes_total Bytes acked in the job's completed iterations and in "
		  "its closed flows.\n"
		  "# TYPE mltcp_job_bytes_total counter\n"
		  "mltcp_job_bytes_total{job=\"3\",netns=\"h1\",backend=\"kmod\"} 1099511627776\n"
		  "mltcp_job_bytes_total{job=\"9\",netns=\"h1\",backend=\"kmod\"} 0\n"
		  "# HELP mltcp_job_f Mean F(r) of the job's live flows in the network namespace (1 "
		  "is the base algorithm).\n"
		  "# TYPE mltcp_job_f gauge\n"
		  "mltcp_job_f{job=\"3\",netns=\"h1\",backend=\"kmod\"} 1\n"
		  "# HELP mltcp_iteration_verdicts_total How the iteration detector judged each "
		  "resumption of sending: verdict \"iterations\" started an iteration. The BPF "
		  "backend counts for the whole host (no netns label).\n"
		  "# TYPE mltcp_iteration_verdicts_total counter\n"
		  "mltcp_iteration_verdicts_total{verdict=\"iterations\",netns=\"h1\",backend=\"kmod\"} "
		  "41\n"
		  "mltcp_iteration_verdicts_total{verdict=\"tx_start_in_recovery\",netns=\"h1\","
		  "backend=\"kmod\"} 2\n"
		  "mltcp_iteration_verdicts_total{verdict=\"tx_start_data_outstanding\",netns=\"h1\","
		  "backend=\"kmod\"} 3\n"
		  "mltcp_iteration_verdicts_total{verdict=\"tx_start_not_idle\",netns=\"h1\","
		  "backend=\"kmod\"} 4\n"
		  "mltcp_iteration_verdicts_total{verdict=\"tx_start_short_gap\",netns=\"h1\","
		  "backend=\"kmod\"} 5\n"
		  "mltcp_iteration_verdicts_total{verdict=\"tx_start_fragment\",netns=\"h1\","
		  "backend=\"kmod\"} 0\n"
		  "mltcp_iteration_verdicts_total{verdict=\"tx_start_unmarked\",netns=\"h1\","
		  "backend=\"kmod\"} 0\n"
		  "# HELP mltcp_gate_total The start gate (gate modes): event \"held\" counts "
		  "iterations started with the window held; \"opened\", \"ran_out\" and \"reduced\" "
		  "count how holds ended. The BPF backend counts for the whole host (no netns "
		  "label).\n"
		  "# TYPE mltcp_gate_total counter\n"
		  "mltcp_gate_total{event=\"held\",netns=\"h1\",backend=\"kmod\"} 12\n"
		  "mltcp_gate_total{event=\"opened\",netns=\"h1\",backend=\"kmod\"} 9\n"
		  "mltcp_gate_total{event=\"ran_out\",netns=\"h1\",backend=\"kmod\"} 2\n"
		  "mltcp_gate_total{event=\"reduced\",netns=\"h1\",backend=\"kmod\"} 1\n"
		  "# HELP mltcp_prio_hold_total Progress priority's moves up held until the data in "
		  "flight was acked: event \"held\" counts holds begun; \"released\" those that "
		  "ended with the window given back and the class moved, \"reduced\" those a loss "
		  "or ECN reduction ended. The BPF backend counts for the whole host (no netns "
		  "label).\n"
		  "# TYPE mltcp_prio_hold_total counter\n"
		  "mltcp_prio_hold_total{event=\"held\",netns=\"h1\",backend=\"kmod\"} 30\n"
		  "mltcp_prio_hold_total{event=\"released\",netns=\"h1\",backend=\"kmod\"} 26\n"
		  "mltcp_prio_hold_total{event=\"reduced\",netns=\"h1\",backend=\"kmod\"} 3\n");
}

// A module older than the gate's counts: the family is left out, not
// reported as zeros.
TEST(Export, GateCountsNotReportedAreLeftOut)
{
	Scrape s = sample_scrape();
	s.stats.gate.reset();
	std::string text = prometheus_text(s);

	EXPECT_NE(text.find("mltcp_iteration_verdicts_total{"), std::string::npos) << text;
	EXPECT_EQ(text.find("mltcp_gate_total"), std::string::npos) << text;
	EXPECT_NE(text.find("mltcp_prio_hold_total{"), std::string::npos) << text;
}

// The same for a module older than the holds' counts, and its flows, which
// say nothing of a hold: no gauge of flows holding either, rather than a 0.
TEST(Export, HoldCountsNotReportedAreLeftOut)
{
	Scrape s = sample_scrape();
	s.stats.prio_hold.reset();
	for (Flow &fl : s.flows)
		fl.prio_held.reset();
	std::string text = prometheus_text(s);

	EXPECT_NE(text.find("mltcp_gate_total{"), std::string::npos) << text;
	EXPECT_EQ(text.find("mltcp_prio_hold_total"), std::string::npos) << text;
	EXPECT_EQ(text.find("mltcp_flows_prio_held"), std::string::npos) << text;
	// A module that reports holds, with no flows: none holding.
	s = sample_scrape();
	s.flows.clear();
	EXPECT_NE(prometheus_text(s).find("mltcp_flows_prio_held{netns=\"h1\",backend=\"kmod\"} 0\n"),
		  std::string::npos);
}

// The BPF twin keeps no job counters: those families are left out rather
// than reported as zeros; live flows are counted from its flow records, and
// its verdict and gate counts are the host's, without a netns label.
TEST(Export, BpfScrapeLeavesOutWhatItDoesNotCount)
{
	Scrape s = sample_scrape();
	for (Job &j : s.jobs) {
		j.flows.reset();
		j.flows_total.reset();
		j.iterations.reset();
		j.bytes.reset();
	}
	s.backend = "bpf";
	s.netns = "";
	s.stats.host_wide = true;
	std::string text = prometheus_text(s);

	EXPECT_NE(text.find("mltcp_job_flows{job=\"3\",netns=\"\",backend=\"bpf\"} 2\n"),
		  std::string::npos)
		<< text;
	EXPECT_NE(text.find("mltcp_job_flows{job=\"9\",netns=\"\",backend=\"bpf\"} 0\n"),
		  std::string::npos);
	EXPECT_NE(text.find("mltcp_job_f{job=\"3\",netns=\"\",backend=\"bpf\"} 1\n"),
		  std::string::npos);
	EXPECT_NE(text.find("mltcp_iteration_verdicts_total{verdict=\"iterations\",backend=\"bpf\"} "
			    "41\n"),
		  std::string::npos);
	EXPECT_NE(text.find("mltcp_gate_total{event=\"held\",backend=\"bpf\"} 12\n"),
		  std::string::npos);
	EXPECT_NE(text.find("mltcp_prio_hold_total{event=\"released\",backend=\"bpf\"} 26\n"),
		  std::string::npos);
	EXPECT_NE(text.find("mltcp_flows_prio_held{netns=\"\",backend=\"bpf\"} 1\n"),
		  std::string::npos);
	EXPECT_EQ(text.find("netns=\"\",backend=\"bpf\"} 12\n"), std::string::npos);
	for (const char *absent : { "_total{job=", "mltcp_job_iterations_total",
				    "mltcp_job_bytes_total", "mltcp_job_flows_matched_total" })
		EXPECT_EQ(text.find(absent), std::string::npos) << absent;
}

TEST(Export, FlowsByProgressPriorityClass)
{
	Scrape s = sample_scrape();
	s.backend = "bpf";
	s.flows[0].dscp = 8;
	s.flows[0].prio_class = 0;
	s.flows[1].dscp = 32;
	s.flows[1].prio_class = 3;
	s.flows[2].dscp = 0; // no class
	s.flows.push_back(s.flows[1]);
	std::string text = prometheus_text(s);

	EXPECT_NE(text.find("# TYPE mltcp_prio_class_flows gauge\n"
			    "mltcp_prio_class_flows{class=\"0\",netns=\"h1\",backend=\"bpf\"} 1\n"
			    "mltcp_prio_class_flows{class=\"3\",netns=\"h1\",backend=\"bpf\"} 2\n"
			    "mltcp_prio_class_flows{class=\"none\",netns=\"h1\",backend=\"bpf\"} 1\n"),
		  std::string::npos)
		<< text;
	// The module reports no DSCP: no family at all (ModuleScrape's text is whole).
	EXPECT_EQ(prometheus_text(sample_scrape()).find("mltcp_prio_class_flows"),
		  std::string::npos);
}

TEST(Export, LabelValuesAreEscaped)
{
	Scrape s = sample_scrape();
	s.netns = "a\"b\\c\nd";
	std::string text = prometheus_text(s);

	EXPECT_NE(text.find("mltcp_flows{netns=\"a\\\"b\\\\c\\nd\",backend=\"kmod\"} 3\n"),
		  std::string::npos)
		<< text;
}

TEST(Export, FileIsReplacedWholeAndReadableByAll)
{
	char dir[] = "/tmp/mltcpctl-export-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	std::string path = std::string(dir) + "/mltcp.prom";

	replace_file(path, "first\n");
	replace_file(path, "second\n");
	std::ifstream in(path);
	std::stringstream got;
	got << in.rdbuf();
	EXPECT_EQ(got.str(), "second\n");
	struct stat st;
	ASSERT_EQ(stat(path.c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0644u);

	// Nothing else is left in the directory.
	DIR *d = opendir(dir);
	ASSERT_NE(d, nullptr);
	int entries = 0;
	while (dirent *e = readdir(d))
		entries += e->d_name[0] != '.';
	closedir(d);
	EXPECT_EQ(entries, 1);

	// A directory that does not exist: one error, nothing created.
	try {
		replace_file(std::string(dir) + "/missing/mltcp.prom", "x\n");
		ADD_FAILURE() << "no error";
	} catch (const Error &e) {
		EXPECT_NE(std::string(e.what()).find("export: cannot create a file beside"),
			  std::string::npos)
			<< e.what();
	}
	unlink(path.c_str());
	rmdir(dir);
}
