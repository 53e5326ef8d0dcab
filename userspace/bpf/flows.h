// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The flow list written by the BPF iterator (bpf/mltcp.bpf.c, mltcp_flows):
// one line per MLTCP socket, " key=value" fields in the module's debugfs
// "flows" format. Parsed here into JSON, or tidied for text output.
#ifndef MLTCP_BPF_FLOWS_H
#define MLTCP_BPF_FLOWS_H

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mltcp::bpf
{

// One line to a JSON object: numbers as numbers (r, f, slope and intercept
// as decimals), src/dst split into address and port (sport, dport), IPv6
// addresses compressed. Empty for a malformed line.
std::optional<nlohmann::json> parse_flow_line(std::string_view line);

// The line as text, with IPv6 addresses compressed ("[::1]:5201"); other
// fields unchanged. A malformed line is returned as it is.
std::string tidy_flow_line(std::string_view line);

} // namespace mltcp::bpf

#endif // MLTCP_BPF_FLOWS_H
