// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What of "mltcpctl defaults" the bpf object uses too ("bpf load" takes the
// same settings, "bpf status" shows them) and how the defaults print.
#ifndef MLTCPCTL_DEFAULTS_H
#define MLTCPCTL_DEFAULTS_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "args.h"
#include "model.h"
#include "output.h"

namespace mltcpctl
{

// DEFAULT... of "defaults set" and "bpf load".
void parse_defaults_settings(Args &a, DefaultsChange &c);

// "defaults help": its grammar, DEFAULT := and MODE := among it.
std::string defaults_help();

// The defaults: "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode
// md-restart", the words "defaults set" takes; JSON adds backend and scope.
// Progress priority where the backend has it: in JSON always ("prio"), in
// the text while on ("prio 4 prio-dscp 8,16,24,32 prio-none 0").
void print_defaults(Printer &p, const Defaults &d);

// The same fields, for a field of their own ("defaults ..." of bpf status and
// load): as text, and as a JSON object that also has the exact fixed-point
// slope_fixed and intercept_fixed.
std::string params_text(const mltcp_params &params);
nlohmann::json params_json(const mltcp_params &params);

// Progress priority's configuration: "prio 4 prio-dscp 8,16,24,32
// prio-none 0" (the words "defaults set" takes back; no prio-dscp when
// off), and {"classes": 4, "dscp": [8, 16, 24, 32], "none_dscp": 0}.
std::string prio_text(const mltcp_prio_config &pc);
nlohmann::json prio_json(const mltcp_prio_config &pc);

// The module's progress priority is three sysctls of the namespace
// (net.mltcp.prio_classes, prio_dscp, prio_none_dscp), and the kernel checks
// each write with the other two as they are then (mltcp_prio_config_valid()).
// The writes that take from to to (a valid configuration) through valid
// ones only: the knobs that differ, in an order whose every step is valid,
// else first prio_classes 0 (off: only prio_none_dscp's range is checked)
// and prio_classes last. Each step is the sysctl's name and its text.
struct PrioWrite {
	const char *sysctl;
	std::string text;
};
std::vector<PrioWrite> prio_writes(const mltcp_prio_config &from, const mltcp_prio_config &to);

} // namespace mltcpctl

#endif // MLTCPCTL_DEFAULTS_H
