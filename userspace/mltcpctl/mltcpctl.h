// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcpctl's command line, in the manner of iproute2's ip: OPTIONS OBJECT
// COMMAND ARGS, each OBJECT in a file of its own (object.h); here the
// options, the table of objects, the top-level help, and running a parsed
// command. Parsing is pure: no I/O, so every rule is unit-tested and fuzzed.
#ifndef MLTCPCTL_MLTCPCTL_H
#define MLTCPCTL_MLTCPCTL_H

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"
#include "netlink.h"

namespace mltcpctl
{

struct ParseResult {
	std::optional<Command> command; // set on success
	std::string error;		// one line, on failure
};

// args: the arguments after the program name.
ParseResult parse_args(const std::vector<std::string> &args);

// The help of an object (topic: its name), or, for "", the top-level help:
// one screen of grammar.
std::string usage(std::string_view topic);

// Joins the network namespace /run/netns/NAME (as "ip netns" names them),
// or the one a path names (/proc/PID/ns/net).
void enter_netns(const std::string &name);

// Runs the command, printing to out; returns the exit status. Throws Error
// or KernelError.
int run(const Command &cmd, std::ostream &out);

// The one-line message for a refusal by the kernel.
std::string describe(const KernelError &e, const Command &cmd);

} // namespace mltcpctl

#endif // MLTCPCTL_MLTCPCTL_H
