// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <string_view>

#include "backend.h"
#include "error.h"
#include "mltcp_core.h"
#include "mltcp_policy.h"
#include "object.h"

namespace mltcpctl
{
namespace
{

// A label value as the text format quotes it: backslash, double quote and
// newline escaped.
std::string quoted(const std::string &value)
{
	std::string out = "\"";

	for (char c : value) {
		if (c == '\\' || c == '"')
			out += '\\';
		if (c == '\n')
			out += "\\n";
		else
			out += c;
	}
	return out + "\"";
}

// One metric family: its HELP and TYPE lines, then its samples.
class Family
{
public:
	Family(std::string &out, const char *name, const char *type, const char *help)
	    : out_(out), name_(name), type_(type), help_(help)
	{
	}
	// labels: name, value pairs, in the order printed.
	void sample(std::initializer_list<std::pair<const char *, std::string>> labels,
		    const std::string &value)
	{
		std::string text;

		if (!started_)
			out_ += std::string("# HELP ") + name_ + " " + help_ + "\n# TYPE " + name_ +
				" " + type_ + "\n";
		started_ = true;
		for (const auto &l : labels)
			text += (text.empty() ? "{" : ",") + std::string(l.first) + "=" +
				quoted(l.second);
		out_ += name_ + text + (text.empty() ? "" : "}") + " " + value + "\n";
	}

private:
	std::string &out_;
	const char *name_, *type_, *help_;
	bool started_ = false;
};

std::string number(uint64_t v)
{
	return std::to_string(v);
}

std::string number(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.10g", v);
	return buf;
}

// The live flows of each job in this namespace, and the sum of their F.
struct JobFlows {
	uint64_t count = 0;
	uint64_t f_sum = 0; // MLTCP_ONE units
};

// A counter's debugfs name as its event label: without the prefix the
// family's name already says ("gate_held" in mltcp_gate_total: "held").
std::string event_label(std::string name, std::string_view prefix)
{
	if (name.compare(0, prefix.size(), prefix) == 0)
		name.erase(0, prefix.size());
	return name;
}

} // namespace

std::string prometheus_text(const Scrape &s)
{
	std::map<uint32_t, JobFlows> by_job;
	std::string out;

	for (const Flow &f : s.flows) {
		if (f.job) {
			by_job[*f.job].count++;
			by_job[*f.job].f_sum += f.f;
		}
	}
	const std::pair<const char *, std::string> netns{ "netns", s.netns };
	const std::pair<const char *, std::string> backend{ "backend", s.backend };

	Family(out, "mltcp_flows", "gauge",
	       "MLTCP flows open in the network namespace (initialized, not listening).")
		.sample({ netns, backend }, number(static_cast<uint64_t>(s.flows.size())));

	// Flows with a size whose iterations are not told reliably run as their
	// base algorithm (a flow still learning, or bulk, has no size).
	uint64_t untrusted = 0;
	for (const Flow &fl : s.flows)
		untrusted += fl.iter_bytes && fl.iter_trusted && !*fl.iter_trusted;
	Family(out, "mltcp_flows_untrusted", "gauge",
	       "MLTCP flows in the network namespace with a learned size whose iterations are "
	       "not told reliably: they run as their base algorithm (F = 1, no restart, no class).")
		.sample({ netns, backend }, number(untrusted));

	// Flows whose move up to a higher class waits for their data in flight.
	// A module older than the hold counts says nothing of it: no sample, not
	// a 0 (keyed on the module, as mltcp_prio_hold_total, so the series does
	// not come and go with the flows).
	uint64_t held = 0;
	for (const Flow &fl : s.flows)
		held += fl.prio_held.value_or(false);
	if (s.stats.prio_hold)
		Family(out, "mltcp_flows_prio_held", "gauge",
		       "MLTCP flows in the network namespace whose move up to a higher progress "
		       "priority class waits for their data in flight, the window held at it.")
			.sample({ netns, backend }, number(held));

	Family live(out, "mltcp_job_flows", "gauge",
		    "Live flows of the job in the network namespace.");
	for (const Job &j : s.jobs) {
		// The module counts them; the BPF twin's flows are counted here.
		uint64_t n = j.flows ? *j.flows : by_job[j.id].count;
		live.sample({ { "job", std::to_string(j.id) }, netns, backend }, number(n));
	}

	Family matched(out, "mltcp_job_flows_matched_total", "counter",
		       "Flows matched by the job since it was added.");
	Family iterations(out, "mltcp_job_iterations_total", "counter",
			  "Iterations the job's flows completed.");
	Family bytes(out, "mltcp_job_bytes_total", "counter",
		     "Bytes acked in the job's completed iterations and in its closed flows.");
	for (const Job &j : s.jobs) {
		std::pair<const char *, std::string> job{ "job", std::to_string(j.id) };
		if (j.flows_total)
			matched.sample({ job, netns, backend }, number(*j.flows_total));
	}
	for (const Job &j : s.jobs) {
		std::pair<const char *, std::string> job{ "job", std::to_string(j.id) };
		if (j.iterations)
			iterations.sample({ job, netns, backend }, number(*j.iterations));
	}
	for (const Job &j : s.jobs) {
		std::pair<const char *, std::string> job{ "job", std::to_string(j.id) };
		if (j.bytes)
			bytes.sample({ job, netns, backend }, number(*j.bytes));
	}

	Family f(out, "mltcp_job_f", "gauge",
		 "Mean F(r) of the job's live flows in the network namespace (1 is the base "
		 "algorithm).");
	for (const Job &j : s.jobs) {
		const JobFlows &jf = by_job[j.id];
		if (jf.count)
			f.sample({ { "job", std::to_string(j.id) }, netns, backend },
				 number(static_cast<double>(jf.f_sum) /
					(static_cast<double>(jf.count) * MLTCP_ONE)));
	}

	// Progress priority, where the backend reports each socket's DSCP (bpf):
	// the namespace's flows by class, "none" for a DSCP of no class.
	std::map<std::string, uint64_t> by_class;
	for (const Flow &fl : s.flows) {
		if (fl.dscp)
			by_class[fl.prio_class ? std::to_string(*fl.prio_class) : "none"]++;
	}
	Family classes(out, "mltcp_prio_class_flows", "gauge",
		       "MLTCP flows in the network namespace by the progress priority class "
		       "their packets carry (class \"none\": no class).");
	for (const auto &[cls, n] : by_class)
		classes.sample({ { "class", cls }, netns, backend }, number(n));

	// The namespace's count, or the host's (the BPF backend) without a netns label.
	auto count = [&](Family &family, std::pair<const char *, std::string> label, uint64_t n) {
		if (s.stats.host_wide)
			family.sample({ label, backend }, number(n));
		else
			family.sample({ label, netns, backend }, number(n));
	};
	Family verdicts(out, "mltcp_iteration_verdicts_total", "counter",
			"How the iteration detector judged each resumption of sending: "
			"verdict \"iterations\" started an iteration. The BPF backend counts "
			"for the whole host (no netns label).");
	for (int v = 0; v < MLTCP_TX_NR_VERDICTS; v++)
		count(verdicts, { "verdict", mltcp_verdict_name(static_cast<mltcp_tx_verdict>(v)) },
		      s.stats.verdicts[v]);

	Family gate(out, "mltcp_gate_total", "counter",
		    "The start gate (gate modes): event \"held\" counts iterations started "
		    "with the window held; \"opened\", \"ran_out\" and \"reduced\" count how "
		    "holds ended. The BPF backend counts for the whole host (no netns label).");
	// A module older than these counts does not report them: no samples, not zeros.
	if (s.stats.gate) {
		for (int v = 0; v < MLTCP_GATE_NR_VERDICTS; v++)
			count(gate,
			      { "event", event_label(mltcp_gate_verdict_name(
						 static_cast<mltcp_gate_verdict>(v)),
					 "gate_") },
			      (*s.stats.gate)[v]);
	}

	Family hold(out, "mltcp_prio_hold_total", "counter",
		    "Progress priority's moves up held until the data in flight was acked: "
		    "event \"held\" counts holds begun; \"released\" those that ended with the "
		    "window given back and the class moved, \"reduced\" those a loss or ECN "
		    "reduction ended. The BPF backend counts for the whole host (no netns label).");
	// A module older than these counts does not report them: no samples, not zeros.
	if (s.stats.prio_hold) {
		for (int e = 0; e < MLTCP_PRIO_HOLD_NR_EVENTS; e++)
			count(hold,
			      { "event", event_label(mltcp_prio_hold_name(
						 static_cast<mltcp_prio_hold>(e)),
					 "prio_") },
			      (*s.stats.prio_hold)[e]);
	}
	return out;
}

void replace_file(const std::string &path, const std::string &text)
{
	// Beside the target, so that rename() stays within one file system;
	// not ending in .prom, so that the collector skips it meanwhile.
	std::string tmp = path + ".XXXXXX";
	int fd = mkstemp(tmp.data());
	auto fail = [&](int err) {
		if (fd >= 0)
			close(fd);
		unlink(tmp.c_str());
		throw Error("export: cannot write " + path + ": " + strerror(err));
	};

	if (fd < 0)
		throw Error("export: cannot create a file beside " + path + ": " + strerror(errno));
	if (fchmod(fd, 0644) != 0)
		fail(errno);
	for (size_t done = 0; done < text.size();) {
		ssize_t n = write(fd, text.data() + done, text.size() - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail(errno);
		done += static_cast<size_t>(n);
	}
	if (close(fd) != 0) {
		fd = -1;
		fail(errno);
	}
	fd = -1;
	if (rename(tmp.c_str(), path.c_str()) != 0)
		fail(errno);
}

namespace
{

enum class ExportArg { Output, Interval, Count, Help };

const std::vector<Keyword<ExportArg>> kExportWords = {
	{ "output", ExportArg::Output },
	{ "interval", ExportArg::Interval },
	{ "count", ExportArg::Count },
	{ "help", ExportArg::Help },
};

// export [output FILE] [interval DURATION [count N]]; each word may also be
// written as an option (--output), the node_exporter tools' spelling.
void parse_export(Args &a, Command &cmd)
{
	uint32_t seen = 0;

	cmd.action = Action::Export;
	while (!a.done()) {
		switch (next_once(a, kExportWords, "export argument", seen, true)) {
		case ExportArg::Output: {
			std::string_view path = a.value("output");
			if (path.empty() || path.back() == '/')
				fail("output \"" + std::string(path) + "\": not a file name");
			cmd.output = std::string(path);
			break;
		}
		case ExportArg::Interval:
			cmd.interval_us = parse_interval(a.value("interval"));
			cmd.every = true;
			break;
		case ExportArg::Count: cmd.count = parse_count(a.value("count")); break;
		case ExportArg::Help: help_of(a, cmd, "export"); return;
		}
	}
	if (cmd.count && !cmd.every)
		fail("count: only with interval (export interval DURATION count N)");
}

std::string export_help()
{
	return "       mltcpctl [OPTIONS] export [output FILE] [interval DURATION [count N]]\n"
	       "  The counters and gauges of the jobs, flows, iteration detector, start\n"
	       "  gate and progress priority's held moves up, in the Prometheus text\n"
	       "  format: to stdout, or replacing FILE\n"
	       "  atomically (for node_exporter's textfile collector, FILE in its\n"
	       "  directory, ending .prom). interval: again every DURATION (10ms-3600s),\n"
	       "  count times or until killed. Also written --output, --interval, --count.\n"
	       "  Labels: job, netns (the -n name, empty without -n), backend, verdict,\n"
	       "  event. bpf: no job counters; verdict, gate and hold counts are the host's.\n";
}

volatile sig_atomic_t export_stop;

void export_stop_handler(int)
{
	export_stop = 1;
}

// Sleeps for us, or less if SIGTERM or SIGINT came; false if they did.
bool export_wait(uint64_t us)
{
	timespec left{ static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000 };

	while (!export_stop && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
	return !export_stop;
}

// One scrape per interval (or one), each to stdout or replacing the file.
// SIGTERM or SIGINT ends a loop, or a file's export, between scrapes, never
// halfway through writing one, so that no temporary file is left behind.
void export_metrics(Backend &client, const Command &cmd, std::ostream &out)
{
	if (cmd.every || !cmd.output.empty()) {
		struct sigaction sa = {};
		sa.sa_handler = export_stop_handler;
		sa.sa_flags = SA_RESTART; // a scrape under way completes
		sigaction(SIGTERM, &sa, nullptr);
		sigaction(SIGINT, &sa, nullptr);
	}
	for (uint64_t n = 0; n == 0 || (cmd.every && (!cmd.count || n < *cmd.count)); n++) {
		if (n && !export_wait(cmd.interval_us))
			break;
		Scrape s{ client.name(), cmd.options.netns, client.jobs(),
			  client.flows(std::nullopt), client.stats() };
		std::string text = prometheus_text(s);

		if (cmd.output.empty())
			out << text << std::flush;
		else
			replace_file(cmd.output, text);
	}
}

int run_export(const Command &cmd, std::ostream &out)
{
	export_metrics(*open_backend(cmd.options, false), cmd, out);
	return 0;
}

} // namespace

const Object export_object = {
	"export",
	"export [output FILE] [interval ...]",
	"the counters, for Prometheus",
	parse_export,
	export_help,
	run_export,
};

} // namespace mltcpctl
