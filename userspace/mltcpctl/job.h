// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What of "mltcpctl job" other objects use: the words of a job ("run" takes
// them too) and how a job prints.
#ifndef MLTCPCTL_JOB_H
#define MLTCPCTL_JOB_H

#include "args.h"
#include "model.h"
#include "output.h"

namespace mltcpctl
{

// [MATCH]... [SETTING]... into job; set: "job set", where "any" and
// "default" reset a field.
void parse_job_args(Args &a, Job &job, bool set);

void print_job(Printer &p, const Job &job);

} // namespace mltcpctl

#endif // MLTCPCTL_JOB_H
