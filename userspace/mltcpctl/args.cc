// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "args.h"

#include <arpa/inet.h>

#include <cctype>

#include "mltcp_policy.h"
#include "uapi/mltcp.h"
#include "units.h"

namespace mltcpctl
{

void fail(std::string message)
{
	throw BadArgs{ std::move(message) };
}

void no_more(Args &a, std::string_view what)
{
	if (!a.done())
		fail("unexpected \"" + std::string(a.peek()) + "\" after " + std::string(what));
}

void help_of(Args &a, Command &cmd, const char *object)
{
	cmd.action = Action::Help;
	cmd.help_topic = object;
	no_more(a, "help");
}

// Strict unsigned decimal: digits only, no sign, no overflow.
std::optional<uint64_t> parse_uint(std::string_view text)
{
	uint64_t value = 0;

	if (text.empty() || text.size() > 20)
		return std::nullopt;
	for (char c : text) {
		if (c < '0' || c > '9')
			return std::nullopt;
		uint64_t digit = static_cast<uint64_t>(c - '0');
		if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
			return std::nullopt;
		value = value * 10 + digit;
	}
	return value;
}

// Decimal or 0x-prefixed hexadecimal u32, as marks are written.
std::optional<uint32_t> parse_u32_any_base(std::string_view text)
{
	uint64_t value = 0;

	if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		text.remove_prefix(2);
		if (text.empty() || text.size() > 8)
			return std::nullopt;
		for (char c : text) {
			int digit;
			if (c >= '0' && c <= '9')
				digit = c - '0';
			else if (c >= 'a' && c <= 'f')
				digit = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				digit = c - 'A' + 10;
			else
				return std::nullopt;
			value = value * 16 + static_cast<uint64_t>(digit);
		}
		return static_cast<uint32_t>(value);
	}
	auto dec = parse_uint(text);
	if (!dec || *dec > kMaxU32)
		return std::nullopt;
	return static_cast<uint32_t>(*dec);
}

std::string range_error(std::string_view key, std::string_view value, std::string_view lo,
			std::string_view hi)
{
	return std::string(key) + " " + std::string(value) + ": out of range (allowed " +
	       std::string(lo) + " to " + std::string(hi) + ")";
}

// A whole number from 1 to 2^32 - 1: a job ID, a count.
static uint32_t parse_positive_u32(std::string_view what, std::string_view text)
{
	auto n = parse_uint(text);

	if (!n)
		fail(std::string(what) + " \"" + std::string(text) + "\": not a number");
	if (*n < 1 || *n > kMaxU32)
		fail(range_error(what, text, "1", std::to_string(kMaxU32)));
	return static_cast<uint32_t>(*n);
}

uint32_t parse_job_id(std::string_view text)
{
	return parse_positive_u32("job ID", text);
}

uint32_t parse_fixed(std::string_view key, std::string_view text, uint32_t max)
{
	auto value = mltcp::parse_decimal(text);
	u32 fixed;

	if (!value)
		fail(std::string(key) + " \"" + std::string(text) + "\": not a decimal number");
	if (mltcp_parse_fixed(std::string(text).c_str(), max, &fixed) != 0)
		fail(range_error(key, text, "0", format_fixed(max)));
	return fixed;
}

uint32_t parse_idle_gap(std::string_view text)
{
	auto us = mltcp::parse_duration_us(text);

	if (!us)
		fail("idle-gap \"" + std::string(text) +
		     "\": not a duration (e.g. 20ms, 1.5s, 500us)");
	if (*us < MLTCP_GENL_IDLE_GAP_MIN || *us > MLTCP_GENL_IDLE_GAP_MAX)
		fail(range_error("idle-gap", text,
				 mltcp::format_duration_us(MLTCP_GENL_IDLE_GAP_MIN),
				 mltcp::format_duration_us(MLTCP_GENL_IDLE_GAP_MAX)));
	return static_cast<uint32_t>(*us);
}

uint64_t parse_iter_bytes(std::string_view text)
{
	auto bytes = mltcp::parse_size(text);

	if (!bytes)
		fail("iter-bytes \"" + std::string(text) +
		     "\": not a size (e.g. 64M, 1.5G, 65536)");
	if (*bytes < 1 || *bytes > MLTCP_GENL_ITER_BYTES_MAX)
		fail(range_error("iter-bytes", text, "1",
				 mltcp::format_size(MLTCP_GENL_ITER_BYTES_MAX)));
	return *bytes;
}

namespace
{

// A name of the policy's, for match(): bases and modes.
template <typename T> std::vector<Keyword<T>> names(const char *(*name)(u32), u32 first, u32 last)
{
	std::vector<Keyword<T>> table;

	for (u32 v = first; v <= last; v++)
		if (const char *word = name(v)) // NULL: a gap in the table
			table.push_back({ word, static_cast<T>(v) });
	return table;
}

} // namespace

uint8_t parse_base(std::string_view text)
{
	return match(text, names<uint8_t>(mltcp_base_name, MLTCP_BASE_RENO, MLTCP_BASE_CUBIC),
		     "base");
}

uint8_t parse_mode(std::string_view text)
{
	return match(text, names<uint8_t>(mltcp_mode_name, MLTCP_MODE_AI, MLTCP_MODE_ALL), "mode");
}

// A DSCP: 0-63 (decimal or 0x hex), or a name of RFC 2474's class
// selectors (cs0-cs7), RFC 2597's assured forwarding (af11-af43) or RFC
// 3246's expedited forwarding (ef).
uint32_t parse_dscp(std::string_view key, std::string_view text)
{
	std::string lower(text);

	for (char &c : lower)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	if (lower == "ef")
		return 46;
	if (lower.size() == 3 && lower.compare(0, 2, "cs") == 0 && lower[2] >= '0' &&
	    lower[2] <= '7')
		return 8U * static_cast<uint32_t>(lower[2] - '0');
	if (lower.size() == 4 && lower.compare(0, 2, "af") == 0 && lower[2] >= '1' &&
	    lower[2] <= '4' && lower[3] >= '1' && lower[3] <= '3')
		return 8U * static_cast<uint32_t>(lower[2] - '0') +
		       2U * static_cast<uint32_t>(lower[3] - '0');
	auto value = parse_u32_any_base(text);
	if (!value)
		fail(std::string(key) + " \"" + std::string(text) +
		     "\": not a DSCP (0-63, or cs0-cs7, af11-af43, ef)");
	if (*value > MLTCP_DSCP_MAX)
		fail(range_error(key, text, "0", std::to_string(MLTCP_DSCP_MAX)));
	return *value;
}

// "interval DURATION" of monitor and export.
uint64_t parse_interval(std::string_view text)
{
	auto us = mltcp::parse_duration_us(text);

	if (!us)
		fail("interval \"" + std::string(text) + "\": not a duration (e.g. 500ms, 2s)");
	if (*us < 10000 || *us > 3600000000ULL)
		fail(range_error("interval", text, "10ms", "3600s"));
	return *us;
}

// "count N" of monitor and export.
uint64_t parse_count(std::string_view text)
{
	return parse_positive_u32("count", text);
}

std::optional<uint32_t> parse_step(std::string_view text)
{
	auto n = parse_uint(text);

	if (!n || *n < 1 || *n > kMaxU32)
		return std::nullopt;
	return static_cast<uint32_t>(*n);
}

std::string format_fixed(uint32_t fixed)
{
	char buf[MLTCP_PARAM_TEXT];
	std::string out;

	if (mltcp_format_setting(fixed, buf, sizeof(buf)) < 0)
		return "?";
	out = buf;
	// "1.600" to "1.6", "16.000" to "16".
	while (out.back() == '0')
		out.pop_back();
	if (out.back() == '.')
		out.pop_back();
	return out;
}

std::string format_addr(int family, const std::array<uint8_t, 16> &addr)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, addr.data(), buf, sizeof(buf)))
		return "?";
	return buf;
}

std::string format_prefix(const Prefix &prefix)
{
	return format_addr(prefix.family, prefix.addr) + "/" + std::to_string(prefix.len);
}

} // namespace mltcpctl
