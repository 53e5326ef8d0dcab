// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-bpf's commands against the kernel: libbpf, the generated skeleton of
// bpf/mltcp.bpf.c, and bpffs pins that let "unload", "set", "status" and
// "flows" find what "load" registered after the loader exited.
#ifndef MLTCP_BPF_LOADER_H
#define MLTCP_BPF_LOADER_H

#include <stdexcept>

#include "cli.h"

namespace mltcp::bpf
{

// A failed command; what() is one line, printed after "mltcp-bpf: ".
class Error : public std::runtime_error
{
public:
	using std::runtime_error::runtime_error;
};

// Runs the parsed command; returns the exit status or throws Error.
int run(const Options &options);

// Whether this process has the capability (effective set), e.g. CAP_NET_ADMIN.
bool has_capability(int cap);

} // namespace mltcp::bpf

#endif // MLTCP_BPF_LOADER_H
