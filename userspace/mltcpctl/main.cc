// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcpctl: tag training jobs and tune them through the mltcp generic
// netlink family; see docs/mltcpctl.8.
#include <iostream>
#include <string>
#include <vector>

#include "mltcpctl.h"

int main(int argc, char **argv)
{
	using namespace mltcpctl;
	std::vector<std::string> args(argv + 1, argv + argc);
	ParseResult parsed = parse_args(args);

	if (!parsed.command) {
		std::cerr << "mltcpctl: " << parsed.error << " (try \"mltcpctl help\")\n";
		return 2;
	}
	const Command &cmd = *parsed.command;
	try {
		if (!cmd.options.netns.empty())
			enter_netns(cmd.options.netns);
		return run(cmd, std::cout);
	} catch (const KernelError &e) {
		std::cerr << "mltcpctl: " << describe(e, cmd) << "\n";
	} catch (const std::exception &e) {
		std::cerr << "mltcpctl: " << e.what() << "\n";
	}
	return 1;
}
