// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// How a flow prints: whole ("flow show"), or the fields "monitor" refreshes.
#ifndef MLTCPCTL_FLOW_H
#define MLTCPCTL_FLOW_H

#include "model.h"
#include "output.h"

namespace mltcpctl
{

void print_flow(Printer &p, const Flow &flow);
// The fields `monitor` refreshes: who the flow is, its job, r, F, cwnd.
void print_flow_brief(Printer &p, const Flow &flow);

} // namespace mltcpctl

#endif // MLTCPCTL_FLOW_H
