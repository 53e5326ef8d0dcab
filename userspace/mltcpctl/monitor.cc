// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl monitor": the flows' r, F and cwnd, refreshed.
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <thread>

#include "backend.h"
#include "flow.h"
#include "object.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

enum class MonArg { Job, Interval, Count, Help };

const std::vector<Keyword<MonArg>> kMonitorWords = {
	{ "job", MonArg::Job },
	{ "interval", MonArg::Interval },
	{ "count", MonArg::Count },
	{ "help", MonArg::Help },
};

void parse_monitor(Args &a, Command &cmd)
{
	uint32_t seen = 0;

	cmd.action = Action::Monitor;
	while (!a.done()) {
		switch (next_once(a, kMonitorWords, "monitor argument", seen)) {
		case MonArg::Job: cmd.job_id = parse_job_id(a.value("job")); break;
		case MonArg::Interval: cmd.interval_us = parse_interval(a.value("interval")); break;
		case MonArg::Count: cmd.count = parse_count(a.value("count")); break;
		case MonArg::Help: help_of(a, cmd, "monitor"); return;
		}
	}
}

std::string monitor_help()
{
	return "       mltcpctl [OPTIONS] monitor [job ID] [interval DURATION] [count N]\n";
}

void monitor(Backend &client, const Command &cmd, std::ostream &out)
{
	bool tty = !cmd.options.json && &out == &std::cout && isatty(STDOUT_FILENO);
	Printer p(out, cmd.options.json, cmd.options.pretty);

	for (uint64_t n = 0; !cmd.count || n < *cmd.count; n++) {
		if (n)
			std::this_thread::sleep_for(std::chrono::microseconds(cmd.interval_us));
		auto flows = client.flows(cmd.job_id);
		if (!cmd.options.json) {
			char stamp[32];
			time_t now = time(nullptr);
			strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
			if (tty)
				out << "\033[H\033[2J";
			out << "mltcp flows at " << stamp << ": " << flows.size()
			    << (cmd.job_id ? " of job " + std::to_string(*cmd.job_id)
					   : std::string())
			    << ", every " << mltcp::format_duration_us(cmd.interval_us) << "\n";
		}
		p.begin_list();
		for (const Flow &flow : flows)
			print_flow_brief(p, flow);
		p.end_list();
	}
}

int run_monitor(const Command &cmd, std::ostream &out)
{
	monitor(*open_backend(cmd.options, false), cmd, out);
	return 0;
}

} // namespace

const Object monitor_object = {
	"monitor",
	"monitor [job ID] [interval DURATION]",
	"the flows' r, F and cwnd, refreshed",
	parse_monitor,
	monitor_help,
	run_monitor,
};

} // namespace mltcpctl
