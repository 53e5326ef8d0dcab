// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Running a parsed command against the kernel, and wording failures as the
// one-line errors mltcpctl prints.
#ifndef MLTCPCTL_COMMANDS_H
#define MLTCPCTL_COMMANDS_H

#include <ostream>
#include <string>

#include "model.h"
#include "netlink.h"

namespace mltcpctl
{

// Joins the network namespace /run/netns/NAME (as "ip netns" names them),
// or the one a path names (/proc/PID/ns/net).
void enter_netns(const std::string &name);

// Runs the command, printing to out; returns the exit status. Throws Error
// or KernelError.
int run(const Command &cmd, std::ostream &out);

// The one-line message for a refusal by the kernel.
std::string describe(const KernelError &e, const Command &cmd);

} // namespace mltcpctl

#endif // MLTCPCTL_COMMANDS_H
