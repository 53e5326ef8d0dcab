// SPDX-License-Identifier: GPL-2.0
/*
 * The module's tracepoints, defined here once (mltcp_trace.h says what each
 * reports). Their probes read the flow's record and its job, so this file
 * sits above mltcp_flows.c and mltcp_jobs.c; only tcp_mltcp.c fires them.
 */
#define CREATE_TRACE_POINTS
#include "mltcp_trace.h"
