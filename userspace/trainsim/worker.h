// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// One worker of an emulated data-parallel job: ring setup, the iteration loop
// (compute, then the collective) and the log. Single-threaded: one poll loop
// watches the sockets, the compute timer and the termination signals.
#ifndef MLTCP_TRAINSIM_WORKER_H
#define MLTCP_TRAINSIM_WORKER_H

#include "config.h"

namespace mltcp::trainsim
{

// Runs the worker to the end and returns the process exit status: 0 when the
// iterations are done (also after SIGINT/SIGTERM), 1 on a runtime error, which
// is reported on stderr. A summary line is logged in every case once the log
// is open.
int run_worker(const Config &config);

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_WORKER_H
