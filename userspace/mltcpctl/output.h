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

// The policy's names of a base and a mode; "unknown" for a value it has none for.
const char *base_name(uint8_t base);
const char *mode_name(uint8_t mode);

// r or F (1/1024 units) as a JSON number rounded to thousandths.
double fixed_value(uint32_t fixed);

// A slope or intercept as a JSON number, the decimal the text shows
// (mltcp_format_setting()): it reads back as the same setting.
double setting_value(uint32_t fixed);

} // namespace mltcpctl

#endif // MLTCPCTL_OUTPUT_H
