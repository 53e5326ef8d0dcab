// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Text and JSON from one code path, as iproute2's json_print does: each
// field is printed by one call that carries its JSON key and value and its
// text form; the Printer keeps whichever the user asked for.
#ifndef MLTCPCTL_OUTPUT_H
#define MLTCPCTL_OUTPUT_H

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <string_view>

#include "ackmark.h"
#include "model.h"

namespace mltcpctl
{

class Printer
{
public:
	Printer(std::ostream &out, bool json, bool pretty);

	// A list of objects: a JSON array, or one text line per object.
	void begin_list();
	void end_list();
	// An object: in a list, or alone (a JSON object; text lines).
	void begin_object();
	void end_object();

	// key: the JSON key; text: the field as text ("dport 5000-5010").
	void field(std::string_view key, nlohmann::json value, std::string text);
	// Text only: the fields that follow start a new line (print_nl() of iproute2).
	void newline();

private:
	std::ostream &out_;
	bool json_;
	bool pretty_;
	bool in_list_ = false;
	nlohmann::json list_;
	nlohmann::json object_;
	std::string line_;
};

void print_job(Printer &p, const Job &job);
void print_flow(Printer &p, const Flow &flow);
// The fields `monitor` refreshes: who the flow is, its job, r, F, cwnd.
void print_flow_brief(Printer &p, const Flow &flow);

// The defaults: "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode
// md-restart", the words "defaults set" takes; JSON adds backend and scope.
void print_defaults(Printer &p, const Defaults &d);

// The same fields, for a field of their own ("defaults ..." of bpf status and
// load): as text, and as a JSON object that also has the exact fixed-point
// slope_fixed and intercept_fixed.
std::string params_text(const mltcp_params &params);
nlohmann::json params_json(const mltcp_params &params);

// A device's pure-ACK marker: "dev eth0 dscp 46 marked 120 left 3075"; a
// filter of another program at its place is named as such.
void print_ackmark(Printer &p, const ackmark::Marker &m);

// r or F (1/1024 units) as a JSON number rounded to thousandths.
double fixed_value(uint32_t fixed);

// A slope or intercept as a JSON number, the decimal the text shows
// (mltcp_format_setting()): it reads back as the same setting.
double setting_value(uint32_t fixed);

} // namespace mltcpctl

#endif // MLTCPCTL_OUTPUT_H
