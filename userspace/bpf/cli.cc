// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli.h"

#include <array>
#include <cstdint>

#include "uapi/mltcp.h"
#include "units.h"

namespace mltcp::bpf
{
namespace
{

struct CommandName {
	const char *name;
	Command command;
};

// Prefixes resolve to the first match, so the order is part of the grammar.
constexpr std::array<CommandName, 6> kCommands{ {
	{ "load", Command::Load },
	{ "unload", Command::Unload },
	{ "status", Command::Status },
	{ "set", Command::Set },
	{ "flows", Command::Flows },
	{ "help", Command::Help },
} };

constexpr std::array<const char *, 2> kBaseNames{ "reno", "cubic" };
// Indexed by enum mltcp_mode - 1.
constexpr std::array<const char *, 7> kModeNames{ MLTCP_MODE_NAMES };

bool is_prefix(std::string_view word, std::string_view of)
{
	return !word.empty() && word.size() <= of.size() && of.substr(0, word.size()) == word;
}

std::string in_quotes(std::string_view s)
{
	return "\"" + std::string(s) + "\"";
}

bool all_digits(std::string_view s)
{
	if (s.empty())
		return false;
	for (char c : s) {
		if (c < '0' || c > '9')
			return false;
	}
	return true;
}

std::string parse_fixed_setting(std::string_view key, std::string_view value, uint32_t max,
				uint16_t &out)
{
	u32 fixed;
	std::string text(value);

	// mltcp_parse_fixed() tolerates the newline of a sysfs write; a command
	// line has no business carrying one.
	if (text.find('\n') != std::string::npos ||
	    mltcp_parse_fixed(text.c_str(), max, &fixed) != 0)
		return std::string(key) + ": expected a decimal in [0, " +
		       std::to_string(max / MLTCP_ONE) + "] with at most 6 decimals, got " +
		       in_quotes(value);
	out = static_cast<uint16_t>(fixed);
	return "";
}

std::string parse_idle_gap(std::string_view value, uint32_t &out)
{
	std::optional<uint64_t> us;

	if (all_digits(value)) {
		if (value.size() <= 12)
			us = std::stoull(std::string(value));
	} else {
		us = mltcp::parse_duration_us(value);
	}
	if (!us || *us < MLTCP_IDLE_GAP_MIN_US || *us > MLTCP_IDLE_GAP_MAX_US)
		return "idle_gap_us: expected microseconds in [" +
		       std::to_string(MLTCP_IDLE_GAP_MIN_US) + ", " +
		       std::to_string(MLTCP_IDLE_GAP_MAX_US) + "] (or with a unit: 20ms), got " +
		       in_quotes(value);
	out = static_cast<uint32_t>(*us);
	return "";
}

template <size_t N>
std::string parse_name(std::string_view key, std::string_view value,
		       const std::array<const char *, N> &names, int &index)
{
	std::string choices;

	for (size_t i = 0; i < N; i++) {
		if (value == names[i]) {
			index = static_cast<int>(i);
			return "";
		}
		choices += (i ? "|" : "") + std::string(names[i]);
	}
	return std::string(key) + ": expected " + choices + ", got " + in_quotes(value);
}

std::string apply_one(mltcp_params &p, std::string_view key, std::string_view value)
{
	int index = 0;
	std::string err;

	if (key == "slope")
		return parse_fixed_setting(key, value, MLTCP_SLOPE_MAX, p.slope);
	if (key == "intercept")
		return parse_fixed_setting(key, value, MLTCP_INTERCEPT_MAX, p.intercept);
	if (key == "idle_gap_us")
		return parse_idle_gap(value, p.idle_gap_us);
	if (key == "base") {
		err = parse_name(key, value, kBaseNames, index);
		if (err.empty())
			p.base = static_cast<u8>(index);
		return err;
	}
	if (key == "mode") {
		err = parse_name(key, value, kModeNames, index);
		if (err.empty())
			p.mode = static_cast<u8>(index + 1);
		return err;
	}
	return "unknown parameter " + in_quotes(key) +
	       " (expected slope, intercept, idle_gap_us, base or mode)";
}

bool is_known_key(std::string_view key)
{
	return key == "slope" || key == "intercept" || key == "idle_gap_us" || key == "base" ||
	       key == "mode";
}

// KEY VALUE pairs after "load" or "set": syntax only, values are checked later.
std::string parse_settings(const std::vector<std::string> &args, size_t i,
			   std::vector<Setting> &out)
{
	for (; i < args.size(); i += 2) {
		const std::string &key = args[i];

		if (!is_known_key(key))
			return "unknown parameter " + in_quotes(key) +
			       " (expected slope, intercept, idle_gap_us, base or mode)";
		if (i + 1 >= args.size())
			return key + ": missing value";
		for (const Setting &s : out) {
			if (s.key == key)
				return key + ": given twice";
		}
		out.push_back({ key, args[i + 1] });
	}
	return "";
}

ParseResult fail(std::string message)
{
	return { std::nullopt, std::move(message) };
}

} // namespace

ParseResult parse_args(const std::vector<std::string> &args)
{
	Options o;
	size_t i = 0;

	for (; i < args.size(); i++) {
		const std::string &a = args[i];

		if (a.empty() || a[0] != '-')
			break;
		if (a == "-j" || a == "--json") {
			o.json = true;
		} else if (a == "-p" || a == "--pretty") {
			o.json = true;
			o.pretty = true;
		} else if (a == "-v" || a == "--verbose") {
			o.verbose = true;
		} else if (a == "-h" || a == "--help") {
			o.command = Command::Help;
			return { o, "" };
		} else if (a == "-V" || a == "--version") {
			o.command = Command::Version;
			return { o, "" };
		} else if (a == "-d" || a == "--pin-dir" || a == "-n" || a == "--netns") {
			if (i + 1 >= args.size() || args[i + 1].empty())
				return fail(a + ": missing argument");
			if (a == "-d" || a == "--pin-dir") {
				o.pin_dir = args[++i];
				if (o.pin_dir[0] != '/')
					return fail(a + ": expected an absolute path, got " +
						    in_quotes(o.pin_dir));
				while (o.pin_dir.size() > 1 && o.pin_dir.back() == '/')
					o.pin_dir.pop_back();
			} else {
				o.netns = args[++i];
				if (o.netns.find('/') != std::string::npos || o.netns == "." ||
				    o.netns == "..")
					return fail(a +
						    ": expected a name from \"ip netns\", got " +
						    in_quotes(o.netns));
			}
		} else {
			return fail("unknown option " + in_quotes(a) + " (try: mltcp-bpf help)");
		}
	}
	if (i >= args.size())
		return fail("missing command (try: mltcp-bpf help)");

	const std::string &word = args[i++];
	bool found = false;

	for (const CommandName &c : kCommands) {
		if (is_prefix(word, c.name)) {
			o.command = c.command;
			found = true;
			break;
		}
	}
	if (!found)
		return fail("unknown command " + in_quotes(word) + " (try: mltcp-bpf help)");

	switch (o.command) {
	case Command::Load:
	case Command::Set: {
		std::string err = parse_settings(args, i, o.settings);

		if (!err.empty())
			return fail(err);
		if (o.command == Command::Set && o.settings.empty())
			return fail("set: expected KEY VALUE (slope, intercept, idle_gap_us, base, "
				    "mode)");
		break;
	}
	default:
		if (i < args.size())
			return fail(word + ": unexpected argument " + in_quotes(args[i]));
		break;
	}
	if (!o.netns.empty() && o.command != Command::Flows)
		return fail("-n/--netns applies to flows only");
	return { o, "" };
}

std::string apply_settings(mltcp_params &params, const std::vector<Setting> &settings)
{
	mltcp_params p = params;

	for (const Setting &s : settings) {
		std::string err = apply_one(p, s.key, s.value);

		if (!err.empty())
			return err;
	}
	if (!mltcp_params_valid(&p))
		return "invalid parameters: " + params_text(p);
	params = p;
	return "";
}

std::string format_fixed(unsigned fixed)
{
	u32 milli = mltcp_fixed_to_milli(fixed);
	char frac[4] = { static_cast<char>('0' + milli % 1000 / 100),
			 static_cast<char>('0' + milli % 100 / 10),
			 static_cast<char>('0' + milli % 10), 0 };

	return std::to_string(milli / 1000) + "." + frac;
}

const char *base_name(unsigned base)
{
	return base < kBaseNames.size() ? kBaseNames[base] : "?";
}

const char *mode_name(unsigned mode)
{
	return mode >= 1 && mode <= kModeNames.size() ? kModeNames[mode - 1] : "?";
}

std::string params_text(const mltcp_params &p)
{
	return "slope " + format_fixed(p.slope) + " intercept " + format_fixed(p.intercept) +
	       " idle_gap_us " + std::to_string(p.idle_gap_us) + " base " + base_name(p.base) +
	       " mode " + mode_name(p.mode);
}

nlohmann::json params_json(const mltcp_params &p)
{
	// Decimals rounded to thousandths as the module's sysfs shows them,
	// plus the exact fixed-point value (1/1024 units) the flows latch.
	return {
		{ "slope", mltcp_fixed_to_milli(p.slope) / 1000.0 },
		{ "slope_fixed", p.slope },
		{ "intercept", mltcp_fixed_to_milli(p.intercept) / 1000.0 },
		{ "intercept_fixed", p.intercept },
		{ "idle_gap_us", p.idle_gap_us },
		{ "base", base_name(p.base) },
		{ "mode", mode_name(p.mode) },
	};
}

std::string usage()
{
	return "Usage: mltcp-bpf [OPTIONS] COMMAND [ARGS]\n"
	       "MLTCP congestion control as BPF struct_ops (no kernel module needed).\n"
	       "\n"
	       "Commands (any prefix works: l, u, st, se, f):\n"
	       "  load [KEY VALUE]...          register mltcp, mltcp_reno and mltcp_cubic,\n"
	       "                               with these defaults for new flows\n"
	       "  unload                       unregister them; sockets using them keep\n"
	       "                               MLTCP until they close\n"
	       "  status                       what is registered, defaults, counters\n"
	       "  set KEY VALUE [KEY VALUE]... change the defaults (new flows only)\n"
	       "  flows                        MLTCP flows of this network namespace\n"
	       "  help\n"
	       "\n"
	       "Parameters (the tcp_mltcp module's, same ranges):\n"
	       "  slope DECIMAL        0-16, F(r) = slope * r + intercept (default 1.6)\n"
	       "  intercept DECIMAL    0-16 (default 0.2)\n"
	       "  idle_gap_us N        1000-60000000 us, or with a unit: 20ms (default 20000)\n"
	       "  base reno|cubic      base algorithm of \"mltcp\" (default cubic)\n"
	       "  mode MODE            where F acts: ai, md, both; with -restart the window\n"
	       "                       also restarts at each iteration (default md-restart)\n"
	       "\n"
	       "Options:\n"
	       "  -j, --json           JSON output\n"
	       "  -p, --pretty         indented JSON output\n"
	       "  -v, --verbose        show libbpf's and the verifier's messages\n"
	       "  -n, --netns NAME     flows: list the flows of network namespace NAME\n"
	       "  -d, --pin-dir DIR    bpffs directory of the loaded objects\n"
	       "                       (default " MLTCP_BPF_PIN_DIR ")\n"
	       "  -V, --version\n"
	       "\n"
	       "load, unload and set need CAP_BPF and CAP_NET_ADMIN (status and flows: CAP_BPF;\n"
	       "flows also CAP_PERFMON on some kernels): run them as root.\n";
}

} // namespace mltcp::bpf
