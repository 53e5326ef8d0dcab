// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Sizes and durations as operators type them ("64M", "20ms"), shared by the
// userspace tools. Strict: no sign, no whitespace, no trailing garbage, no
// silent overflow.
#ifndef MLTCP_COMMON_UNITS_H
#define MLTCP_COMMON_UNITS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mltcp
{

// Bytes. Suffixes K, M, G, T are powers of 1024 and may be followed by "B"
// or "iB" ("64M", "64MiB", "1.5G"); a bare number or "B" is bytes. A
// fractional value is rounded to the nearest byte.
std::optional<uint64_t> parse_size(std::string_view text);

// Microseconds. Units us, ms, s ("20ms", "1.5s", "250us"); a unit is required.
std::optional<uint64_t> parse_duration_us(std::string_view text);

// Non-negative decimal with up to 6 fractional digits ("1.6").
std::optional<double> parse_decimal(std::string_view text);

// Human-readable forms for output ("64M", "20ms"): exact when possible.
std::string format_size(uint64_t bytes);
std::string format_duration_us(uint64_t us);

} // namespace mltcp

#endif // MLTCP_COMMON_UNITS_H
