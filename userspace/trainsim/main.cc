// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-trainsim: one worker of an emulated data-parallel training job. See
// docs/trainsim.md.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "config.h"
#include "worker.h"

int main(int argc, char **argv)
{
	using mltcp::trainsim::ParseResult;

	std::vector<std::string> args(argv + 1, argv + argc);
	// --check: the line checked, nothing run (the bench checks a point's
	// jobs with it before it changes anything).
	auto check = std::find(args.begin(), args.end(), "--check");
	const bool check_only = check != args.end();
	if (check_only)
		args.erase(check);
	ParseResult parsed = mltcp::trainsim::parse_command_line(args);
	switch (parsed.outcome) {
	case ParseResult::Outcome::help: std::cout << mltcp::trainsim::usage_text(); return 0;
	case ParseResult::Outcome::error:
		std::cerr << "mltcp-trainsim: " << parsed.error << std::endl;
		return 2;
	case ParseResult::Outcome::run: break;
	}
	if (check_only)
		return 0;
	return mltcp::trainsim::run_worker(parsed.config);
}
