// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcpctl's command line, in the manner of iproute2: OPTIONS OBJECT COMMAND
// ARGS, keywords matched by unambiguous prefix, values with units. Pure: no
// I/O, so every rule is unit-tested and fuzzed.
#ifndef MLTCPCTL_ARGS_H
#define MLTCPCTL_ARGS_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"

namespace mltcpctl
{

struct ParseResult {
	std::optional<Command> command; // set on success
	std::string error;		// one line, on failure
};

// args: the arguments after the program name.
ParseResult parse_args(const std::vector<std::string> &args);

// Usage for "help" (topic "", "job", "flow", "monitor", "defaults", "bpf" or "export").
std::string usage(std::string_view topic);

// A step number of "job mark": 1-4294967295; nullopt if the text is not one.
std::optional<uint32_t> parse_step(std::string_view text);

// A slope or intercept (1/1024 units) as the user writes it, and as it reads
// back as itself: "1.6", "0.2", "16", "0.0625" (mltcp_format_setting()).
std::string format_fixed(uint32_t fixed);

// "10.0.0.0/8", "fd00::/64".
std::string format_prefix(const Prefix &prefix);

// An address of a family (AF_INET: 4 bytes used, AF_INET6: 16).
std::string format_addr(int family, const std::array<uint8_t, 16> &addr);

} // namespace mltcpctl

#endif // MLTCPCTL_ARGS_H
