// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-bpf: load, unload and configure MLTCP as BPF struct_ops congestion
// control, for kernels that cannot load the tcp_mltcp module.
// Exit status: 0 success, 1 failure, 2 usage error; errors are one line on
// stderr.
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "loader.h"

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	mltcp::bpf::ParseResult parsed = mltcp::bpf::parse_args(args);

	if (!parsed.options) {
		std::cerr << "mltcp-bpf: " << parsed.error << "\n";
		return 2;
	}
	try {
		return mltcp::bpf::run(*parsed.options);
	} catch (const std::exception &e) {
		std::cerr << "mltcp-bpf: " << e.what() << "\n";
		return 1;
	}
}
