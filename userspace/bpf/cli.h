// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-bpf's command line: grammar, parameter parsing and validation (the
// module's ranges, from the core), and the text/JSON forms of the defaults.
// Nothing here touches the kernel, so all of it is unit-tested.
#ifndef MLTCP_BPF_CLI_H
#define MLTCP_BPF_CLI_H

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mltcp_bpf.h"

namespace mltcp::bpf
{

enum class Command { Load, Unload, Status, Set, Flows, Help, Version };

struct Setting {
	std::string key;
	std::string value;
};

struct Options {
	Command command = Command::Help;
	bool json = false;
	bool pretty = false;
	bool verbose = false;
	std::string pin_dir = MLTCP_BPF_PIN_DIR;
	std::string netns;	       // flows: list this named network namespace's flows
	std::vector<Setting> settings; // load, set
};

struct ParseResult {
	std::optional<Options> options;
	std::string error; // one line, when options is empty
};

// Parses the arguments after argv[0]. Options come first (iproute2 style),
// then the command, which may be abbreviated to any prefix (first match in
// the order load, unload, status, set, flows, help).
ParseResult parse_args(const std::vector<std::string> &args);

// Applies KEY VALUE pairs to params, then checks the result with the core's
// mltcp_params_valid(). Returns an empty string or a one-line error; params
// is unchanged on error.
std::string apply_settings(mltcp_params &params, const std::vector<Setting> &settings);

// "1.600" for a MLTCP_ONE-unit value, rounded to thousandths like the module.
std::string format_fixed(unsigned fixed);
const char *base_name(unsigned base);
const char *mode_name(unsigned mode);

// "slope 1.600 intercept 0.200 idle_gap_us 20000 base cubic mode ai": the
// same KEY VALUE words that "set" accepts.
std::string params_text(const mltcp_params &params);
nlohmann::json params_json(const mltcp_params &params);

std::string usage();

} // namespace mltcp::bpf

#endif // MLTCP_BPF_CLI_H
