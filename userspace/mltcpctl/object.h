// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcpctl's objects, as iproute2's (ip/ipaddress.c, ip/iplink.c): each
// OBJECT's file owns its words, its help, its commands and what they print;
// the table in mltcpctl.cc lists them, one line each. Shared: the argument
// cursor (args.h), the printer (output.h), the backends (backend.h).
#ifndef MLTCPCTL_OBJECT_H
#define MLTCPCTL_OBJECT_H

#include <ostream>
#include <string>

#include "args.h"
#include "model.h"

namespace mltcpctl
{

struct Object {
	const char *name;
	// Its line of the top-level help: its commands (at most 38 columns),
	// and what it is for.
	const char *synopsis;
	const char *purpose;
	// The words after OBJECT: sets cmd.action and what that action uses
	// ("help": Action::Help, cmd.help_topic the object's name). Fails with
	// fail() (args.h).
	void (*parse)(Args &a, Command &cmd);
	// "mltcpctl OBJECT help": its grammar and notes, each line of grammar
	// "       mltcpctl [OPTIONS] OBJECT ...".
	std::string (*help)();
	// Runs a command its parse() made; returns the exit status. Throws
	// Error or KernelError.
	int (*run)(const Command &cmd, std::ostream &out);
};

// Defined in job.cc, flow.cc, monitor.cc, defaults.cc, bpf.cc, export.cc,
// run.cc and ackmark.cc.
extern const Object job_object, flow_object, monitor_object, defaults_object, bpf_object,
	export_object, run_object, ackmark_object;

} // namespace mltcpctl

#endif // MLTCPCTL_OBJECT_H
