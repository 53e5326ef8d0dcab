// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl run": a command in a fresh cgroup, with a job that matches it,
// both removed when the command ends.
#ifndef MLTCPCTL_RUN_H
#define MLTCPCTL_RUN_H

#include "backend.h"
#include "model.h"

namespace mltcpctl
{

// Runs cmd.run_argv; returns its exit status (128 + N if signal N killed
// it). Throws Error or KernelError if the cgroup or the job cannot be
// made, having removed whatever it made.
int run_in_job(Backend &backend, const Command &cmd);

} // namespace mltcpctl

#endif // MLTCPCTL_RUN_H
