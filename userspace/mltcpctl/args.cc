// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "args.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <cctype>
#include <cstring>
#include <limits>

#include "mltcp_ackmark.h"
#include "mltcp_bpf.h"
#include "mltcp_policy.h"
#include "uapi/mltcp.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

constexpr uint64_t kMaxU32 = std::numeric_limits<uint32_t>::max();

// Thrown inside the parser only; parse_args() turns it into ParseResult.
struct Bad {
	std::string message;
};

[[noreturn]] void fail(std::string message)
{
	throw Bad{ std::move(message) };
}

template <typename T> struct Keyword {
	const char *name;
	T value;
};

// The exact keyword, else the one all keywords that `word` begins are
// (several spellings of one value, like "del" and "delete", are fine).
template <typename T>
T match(std::string_view word, const std::vector<Keyword<T>> &table, std::string_view what)
{
	std::vector<const Keyword<T> *> found;
	std::string names;

	for (const auto &k : table)
		if (word == k.name)
			return k.value;
	if (!word.empty())
		for (const auto &k : table)
			if (std::string_view(k.name).substr(0, word.size()) == word)
				found.push_back(&k);
	if (found.empty())
		fail("unknown " + std::string(what) + " \"" + std::string(word) + "\"");
	for (const auto *k : found)
		names += std::string(names.empty() ? "" : ", ") + k->name;
	for (const auto *k : found)
		if (!(k->value == found[0]->value))
			fail("\"" + std::string(word) + "\" is ambiguous: " + names);
	return found[0]->value;
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

uint32_t parse_job_id(std::string_view text)
{
	auto id = parse_uint(text);
	if (!id)
		fail("job ID \"" + std::string(text) + "\": not a number");
	if (*id < 1 || *id > kMaxU32)
		fail(range_error("job ID", text, "1", std::to_string(kMaxU32)));
	return static_cast<uint32_t>(*id);
}

PortRange parse_ports(std::string_view key, std::string_view text)
{
	auto dash = text.find('-');
	std::string_view lo = text.substr(0, dash);
	std::string_view hi = dash == std::string_view::npos ? lo : text.substr(dash + 1);
	auto min = parse_uint(lo), max = parse_uint(hi);

	if (!min || !max)
		fail(std::string(key) + " \"" + std::string(text) +
		     "\": not a port or port range (LO[-HI])");
	if (*min > 65535 || *max > 65535)
		fail(range_error(key, text, "0", "65535"));
	if (*min > *max)
		fail(std::string(key) + " " + std::string(text) +
		     ": range maximum below its minimum");
	return PortRange{ static_cast<uint16_t>(*min), static_cast<uint16_t>(*max) };
}

Prefix parse_prefix(std::string_view text)
{
	auto slash = text.find('/');
	std::string addr(text.substr(0, slash));
	Prefix p;

	if (inet_pton(AF_INET, addr.c_str(), p.addr.data()) == 1)
		p.family = AF_INET;
	else if (inet_pton(AF_INET6, addr.c_str(), p.addr.data()) == 1)
		p.family = AF_INET6;
	else
		fail("peer \"" + std::string(text) + "\": not an IPv4 or IPv6 prefix");
	unsigned max_len = p.family == AF_INET ? 32 : 128;
	p.len = static_cast<uint8_t>(max_len);
	if (slash != std::string_view::npos) {
		auto len = parse_uint(text.substr(slash + 1));
		if (!len)
			fail("peer \"" + std::string(text) + "\": bad prefix length");
		if (*len > max_len)
			fail("peer " + std::string(text) +
			     ": prefix length out of range (allowed 0 to " +
			     std::to_string(max_len) + ")");
		p.len = static_cast<uint8_t>(*len);
	}
	return p;
}

Mark parse_mark(std::string_view text)
{
	auto slash = text.find('/');
	auto value = parse_u32_any_base(text.substr(0, slash));
	Mark m;

	if (!value)
		fail("mark \"" + std::string(text) +
		     "\": not a mark (MARK[/MASK], decimal or 0x hex)");
	m.value = *value;
	if (slash != std::string_view::npos) {
		auto mask = parse_u32_any_base(text.substr(slash + 1));
		if (!mask)
			fail("mark \"" + std::string(text) + "\": bad mask");
		m.mask = *mask;
	}
	return m;
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

// A name of the policy's, for match(): bases and modes.
template <typename T> std::vector<Keyword<T>> names(const char *(*name)(u32), u32 first, u32 last)
{
	std::vector<Keyword<T>> table;

	for (u32 v = first; v <= last; v++)
		if (const char *word = name(v)) // NULL: a gap in the table
			table.push_back({ word, static_cast<T>(v) });
	return table;
}

uint8_t parse_base(std::string_view text)
{
	return match(text, names<uint8_t>(mltcp_base_name, MLTCP_BASE_RENO, MLTCP_BASE_CUBIC),
		     "base");
}

uint8_t parse_mode(std::string_view text)
{
	return match(text, names<uint8_t>(mltcp_mode_name, MLTCP_MODE_AI, MLTCP_MODE_ALL), "mode");
}

enum class Key {
	Dport,
	Sport,
	Peer,
	Mark,
	Slope,
	Intercept,
	IdleGap,
	IterBytes,
	Base,
	Exempt,
	Cgroup,
	Marked,
};

const std::vector<Keyword<Key>> kJobKeys = {
	{ "dport", Key::Dport },      { "sport", Key::Sport },
	{ "peer", Key::Peer },	      { "mark", Key::Mark },
	{ "slope", Key::Slope },      { "intercept", Key::Intercept },
	{ "idle-gap", Key::IdleGap }, { "iter-bytes", Key::IterBytes },
	{ "base", Key::Base },	      { "exempt", Key::Exempt },
	{ "cgroup", Key::Cgroup },     { "marked", Key::Marked },
};

// The MLTCP_JOB_F_* bit each key sets or clears.
uint32_t field_of(Key key)
{
	switch (key) {
	case Key::Dport: return MLTCP_JOB_F_DPORT;
	case Key::Sport: return MLTCP_JOB_F_SPORT;
	case Key::Peer: return MLTCP_JOB_F_PEER;
	case Key::Mark: return MLTCP_JOB_F_MARK;
	case Key::Slope: return MLTCP_JOB_F_SLOPE;
	case Key::Intercept: return MLTCP_JOB_F_INTERCEPT;
	case Key::IdleGap: return MLTCP_JOB_F_IDLE_GAP;
	case Key::IterBytes: return MLTCP_JOB_F_ITER_BYTES;
	case Key::Base: return MLTCP_JOB_F_BASE;
	case Key::Exempt: return MLTCP_JOB_F_EXEMPT;
	case Key::Cgroup: return MLTCP_JOB_F_CGROUP;
	case Key::Marked: return MLTCP_JOB_F_MARKED;
	}
	return 0;
}

bool is_match_key(Key key)
{
	return key == Key::Dport || key == Key::Sport || key == Key::Peer || key == Key::Mark ||
	       key == Key::Cgroup;
}

class Args
{
public:
	explicit Args(const std::vector<std::string> &args) : args_(args) {}
	bool done() const { return pos_ >= args_.size(); }
	std::string_view peek() const { return args_[pos_]; }
	std::string_view next() { return args_[pos_++]; }
	std::string_view value(std::string_view key)
	{
		if (done())
			fail(std::string(key) + " needs a value");
		return next();
	}

private:
	const std::vector<std::string> &args_;
	size_t pos_ = 0;
};

void parse_job_args(Args &a, Job &job, bool set)
{
	uint32_t seen = 0;

	while (!a.done()) {
		std::string_view word = a.next();
		Key key = match(word, kJobKeys, "job argument");
		const char *name = kJobKeys[static_cast<size_t>(key)].name;
		uint32_t field = field_of(key);

		if (seen & field)
			fail(std::string(name) + " given twice");
		seen |= field;

		if (key == Key::Exempt || key == Key::Marked) {
			// Alone it turns the flag on; on, off or default may follow.
			if (a.done() ||
			    (a.peek() != "on" && a.peek() != "off" && a.peek() != "default")) {
				(key == Key::Exempt ? job.exempt : job.marked) = true;
				continue;
			}
		}
		std::string_view text = a.value(name);
		if (text == (is_match_key(key) ? "any" : "default")) {
			if (!set)
				fail(std::string(name) + " " + std::string(text) +
				     ": only \"job set\" can reset a field");
			job.clear |= field;
			continue;
		}
		switch (key) {
		case Key::Dport: job.dport = parse_ports("dport", text); break;
		case Key::Sport: job.sport = parse_ports("sport", text); break;
		case Key::Peer: job.peer = parse_prefix(text); break;
		case Key::Mark: job.mark = parse_mark(text); break;
		// Resolved to its id when the command runs (args does no I/O).
		case Key::Cgroup: job.cgroup = Cgroup{ 0, std::string(text) }; break;
		case Key::Slope:
			job.slope = parse_fixed("slope", text, MLTCP_GENL_SLOPE_MAX);
			break;
		case Key::Intercept:
			job.intercept = parse_fixed("intercept", text, MLTCP_GENL_INTERCEPT_MAX);
			break;
		case Key::IdleGap: job.idle_gap_us = parse_idle_gap(text); break;
		case Key::IterBytes: job.iter_bytes = parse_iter_bytes(text); break;
		case Key::Base: job.base = parse_base(text); break;
		case Key::Exempt:
			job.exempt = match<bool>(text, { { "on", true }, { "off", false } },
						 "exempt value");
			break;
		case Key::Marked:
			job.marked = match<bool>(text, { { "on", true }, { "off", false } },
						 "marked value");
			break;
		}
	}
}

enum class JobCmd { Add, Set, Del, Show, Mark, Help };

void no_more(Args &a, std::string_view what)
{
	if (!a.done())
		fail("unexpected \"" + std::string(a.peek()) + "\" after " + std::string(what));
}

// "job ID", the filter of flow show and monitor.
std::optional<uint32_t> parse_job_filter(Args &a)
{
	match<int>(a.next(), { { "job", 0 } }, "argument");
	return parse_job_id(a.value("job"));
}

void parse_job(Args &a, Command &cmd)
{
	if (a.done()) {
		cmd.action = Action::JobShow;
		return;
	}
	JobCmd sub = match<JobCmd>(a.next(),
				   { { "add", JobCmd::Add },
				     { "set", JobCmd::Set },
				     { "change", JobCmd::Set },
				     { "del", JobCmd::Del },
				     { "delete", JobCmd::Del },
				     { "show", JobCmd::Show },
				     { "list", JobCmd::Show },
				     { "mark", JobCmd::Mark },
				     { "help", JobCmd::Help } },
				   "job command");
	switch (sub) {
	case JobCmd::Add:
	case JobCmd::Set: {
		bool set = sub == JobCmd::Set;
		cmd.action = set ? Action::JobSet : Action::JobAdd;
		if (a.done())
			fail(std::string("job ") + (set ? "set" : "add") + " needs a job ID");
		cmd.job.id = parse_job_id(a.next());
		parse_job_args(a, cmd.job, set);
		Job nothing;
		nothing.id = cmd.job.id;
		if (set && cmd.job == nothing)
			fail("job set " + std::to_string(cmd.job.id) + ": nothing to change");
		break;
	}
	case JobCmd::Del:
		cmd.action = Action::JobDel;
		if (a.done())
			fail("job del needs a job ID");
		cmd.job.id = parse_job_id(a.next());
		no_more(a, "job del ID");
		break;
	case JobCmd::Mark:
		cmd.action = Action::JobMark;
		if (a.done())
			fail("job mark needs a job ID");
		cmd.job.id = parse_job_id(a.next());
		while (!a.done()) {
			if (match<bool>(a.next(), { { "follow", true }, { "step", false } },
					"job mark argument")) {
				if (cmd.follow)
					fail("follow given twice");
				cmd.follow = true;
				continue;
			}
			if (cmd.step)
				fail("step given twice");
			std::string_view text = a.value("step");
			cmd.step = parse_step(text);
			if (!cmd.step)
				fail("step \"" + std::string(text) + "\": not a step number (1-4294967295)");
		}
		if (cmd.follow && cmd.step)
			fail("job mark: step or follow, not both (follow reads the steps)");
		break;
	case JobCmd::Show:
		cmd.action = Action::JobShow;
		if (!a.done()) {
			if (a.peek() == "id")
				a.next();
			cmd.job_id = parse_job_id(a.value("id"));
		}
		no_more(a, "job show [ID]");
		break;
	case JobCmd::Help:
		cmd.action = Action::Help;
		cmd.help_topic = "job";
		no_more(a, "help");
		break;
	}
}

void parse_flow(Args &a, Command &cmd)
{
	cmd.action = Action::FlowShow;
	if (a.done())
		return;
	if (match<bool>(a.next(), { { "show", true }, { "list", true }, { "help", false } },
			"flow command") == false) {
		cmd.action = Action::Help;
		cmd.help_topic = "flow";
		no_more(a, "help");
		return;
	}
	if (!a.done())
		cmd.job_id = parse_job_filter(a);
	no_more(a, "flow show [job ID]");
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
	auto n = parse_uint(text);

	if (!n)
		fail("count \"" + std::string(text) + "\": not a number");
	if (*n < 1 || *n > kMaxU32)
		fail(range_error("count", text, "1", std::to_string(kMaxU32)));
	return *n;
}

enum class MonArg { Job, Interval, Count, Help };

void parse_monitor(Args &a, Command &cmd)
{
	uint32_t seen = 0;

	cmd.action = Action::Monitor;
	while (!a.done()) {
		std::string_view word = a.next();
		MonArg arg = match<MonArg>(word,
					   { { "job", MonArg::Job },
					     { "interval", MonArg::Interval },
					     { "count", MonArg::Count },
					     { "help", MonArg::Help } },
					   "monitor argument");
		if (seen & (1U << static_cast<int>(arg)))
			fail(std::string(word) + " given twice");
		seen |= 1U << static_cast<int>(arg);
		switch (arg) {
		case MonArg::Job: cmd.job_id = parse_job_id(a.value("job")); break;
		case MonArg::Interval: cmd.interval_us = parse_interval(a.value("interval")); break;
		case MonArg::Count: cmd.count = parse_count(a.value("count")); break;
		case MonArg::Help:
			cmd.action = Action::Help;
			cmd.help_topic = "monitor";
			no_more(a, "help");
			return;
		}
	}
}

enum class ExportArg { Output, Interval, Count, Help };

// export [output FILE] [interval DURATION [count N]]; each word may also be
// written as an option (--output), the node_exporter tools' spelling.
void parse_export(Args &a, Command &cmd)
{
	uint32_t seen = 0;

	cmd.action = Action::Export;
	while (!a.done()) {
		std::string_view word = a.next();
		if (word.size() > 2 && word.substr(0, 2) == "--")
			word.remove_prefix(2);
		ExportArg arg = match<ExportArg>(word,
						 { { "output", ExportArg::Output },
						   { "interval", ExportArg::Interval },
						   { "count", ExportArg::Count },
						   { "help", ExportArg::Help } },
						 "export argument");
		if (seen & (1U << static_cast<int>(arg)))
			fail(std::string(word) + " given twice");
		seen |= 1U << static_cast<int>(arg);
		switch (arg) {
		case ExportArg::Output: {
			std::string_view path = a.value("output");
			if (path.empty() || path.back() == '/')
				fail("output \"" + std::string(path) + "\": not a file name");
			cmd.output = std::string(path);
			break;
		}
		case ExportArg::Interval:
			cmd.interval_us = parse_interval(a.value("interval"));
			cmd.every = true;
			break;
		case ExportArg::Count: cmd.count = parse_count(a.value("count")); break;
		case ExportArg::Help:
			cmd.action = Action::Help;
			cmd.help_topic = "export";
			no_more(a, "help");
			return;
		}
	}
	if (cmd.count && !cmd.every)
		fail("count: only with interval (export interval DURATION count N)");
}

// The defaults' settings, in enum mltcp_param order, named as "job" names them.
const std::vector<Keyword<mltcp_param>> kDefaultKeys = {
	{ "slope", MLTCP_PARAM_SLOPE },	      { "intercept", MLTCP_PARAM_INTERCEPT },
	{ "idle-gap", MLTCP_PARAM_IDLE_GAP }, { "base", MLTCP_PARAM_BASE },
	{ "mode", MLTCP_PARAM_MODE },
};

// DEFAULT... of "defaults set" and "bpf load".
void parse_defaults_settings(Args &a, DefaultsChange &c)
{
	while (!a.done()) {
		mltcp_param which = match(a.next(), kDefaultKeys, "setting");
		const char *name = kDefaultKeys[which].name;
		char text[MLTCP_PARAM_TEXT];
		u32 value = 0;

		if (c.has(which))
			fail(std::string(name) + " given twice");
		std::string_view word = a.value(name);
		switch (which) {
		case MLTCP_PARAM_SLOPE: value = parse_fixed(name, word, MLTCP_SLOPE_MAX); break;
		case MLTCP_PARAM_INTERCEPT:
			value = parse_fixed(name, word, MLTCP_INTERCEPT_MAX);
			break;
		case MLTCP_PARAM_IDLE_GAP: value = parse_idle_gap(word); break;
		case MLTCP_PARAM_BASE: value = parse_base(word); break;
		case MLTCP_PARAM_MODE: value = parse_mode(word); break;
		case MLTCP_NR_PARAMS: break;
		}
		// The kernel's text: a decimal as typed (the kernel rounds it as
		// mltcp_parse_fixed() just did), else the policy's form of the value.
		if (which == MLTCP_PARAM_SLOPE || which == MLTCP_PARAM_INTERCEPT)
			c.text[which] = std::string(word);
		else if (mltcp_param_format(which, value, text, sizeof(text)) >= 0)
			c.text[which] = text;
		mltcp_param_set(&c.values, which, value);
		c.given |= 1U << which;
	}
}

bool is_keyword(const Args &a, const char *keyword)
{
	std::string_view word = a.done() ? std::string_view() : a.peek();

	return !word.empty() && std::string_view(keyword).substr(0, word.size()) == word;
}

void parse_defaults(Args &a, Command &cmd)
{
	cmd.action = Action::DefaultsShow;
	if (a.done())
		return;
	enum class Sub { Show, Set, Help };
	Sub sub = match<Sub>(a.next(),
			     { { "show", Sub::Show },
			       { "list", Sub::Show },
			       { "set", Sub::Set },
			       { "change", Sub::Set },
			       { "help", Sub::Help } },
			     "defaults command");
	if (sub == Sub::Help) {
		cmd.action = Action::Help;
		cmd.help_topic = "defaults";
		no_more(a, "help");
		return;
	}
	if (is_keyword(a, "global")) {
		a.next();
		cmd.global = true;
	}
	if (sub == Sub::Show) {
		no_more(a, cmd.global ? "defaults show global" : "defaults show");
		return;
	}
	cmd.action = Action::DefaultsSet;
	parse_defaults_settings(a, cmd.settings);
	if (!cmd.settings.given)
		fail("defaults set needs a setting (slope, intercept, idle-gap, base or mode)");
	if (cmd.settings.has(MLTCP_PARAM_MODE) && !cmd.global)
		fail("mode: global only (defaults set global mode MODE)");
}

void parse_bpf(Args &a, Command &cmd)
{
	cmd.action = Action::BpfStatus;
	if (a.done())
		return;
	enum class Sub { Load, Unload, Status, Help };
	Sub sub = match<Sub>(a.next(),
			     { { "load", Sub::Load },
			       { "unload", Sub::Unload },
			       { "status", Sub::Status },
			       { "show", Sub::Status },
			       { "help", Sub::Help } },
			     "bpf command");
	switch (sub) {
	case Sub::Load:
		cmd.action = Action::BpfLoad;
		parse_defaults_settings(a, cmd.settings);
		break;
	case Sub::Unload:
		cmd.action = Action::BpfUnload;
		no_more(a, "bpf unload");
		break;
	case Sub::Status: no_more(a, "bpf status"); break;
	case Sub::Help:
		cmd.action = Action::Help;
		cmd.help_topic = "bpf";
		no_more(a, "help");
		break;
	}
}

// A DSCP: 0-63 (decimal or 0x hex), or a name of RFC 2474's class
// selectors (cs0-cs7), RFC 2597's assured forwarding (af11-af43) or RFC
// 3246's expedited forwarding (ef).
uint32_t parse_dscp(std::string_view text)
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
		fail("dscp \"" + std::string(text) +
		     "\": not a DSCP (0-63, or cs0-cs7, af11-af43, ef)");
	if (*value > MLTCP_ACKMARK_DSCP_MAX)
		fail(range_error("dscp", text, "0", std::to_string(MLTCP_ACKMARK_DSCP_MAX)));
	return *value;
}

// ackmark { add dev DEV dscp DSCP | del dev DEV | show [dev DEV] }
void parse_ackmark(Args &a, Command &cmd)
{
	enum class Sub { Add, Del, Show, Help };
	Sub sub = Sub::Show;
	bool dscp_given = false;

	cmd.action = Action::AckmarkShow;
	if (!a.done())
		sub = match<Sub>(a.next(),
				 { { "add", Sub::Add },
				   { "del", Sub::Del },
				   { "delete", Sub::Del },
				   { "show", Sub::Show },
				   { "list", Sub::Show },
				   { "help", Sub::Help } },
				 "ackmark command");
	if (sub == Sub::Help) {
		cmd.action = Action::Help;
		cmd.help_topic = "ackmark";
		no_more(a, "help");
		return;
	}
	cmd.action = sub == Sub::Add ? Action::AckmarkAdd
		     : sub == Sub::Del ? Action::AckmarkDel
				       : Action::AckmarkShow;
	while (!a.done()) {
		bool is_dev = match<bool>(a.next(), { { "dev", true }, { "dscp", false } },
					  "ackmark argument");
		if (is_dev) {
			if (!cmd.dev.empty())
				fail("dev given twice");
			cmd.dev = std::string(a.value("dev"));
			if (cmd.dev.empty() || cmd.dev.size() >= IFNAMSIZ ||
			    cmd.dev.find_first_of("/ ") != std::string::npos)
				fail("dev \"" + cmd.dev + "\": not a device name");
			continue;
		}
		if (sub != Sub::Add)
			fail("dscp: only \"ackmark add\" takes one");
		if (dscp_given)
			fail("dscp given twice");
		cmd.dscp = parse_dscp(a.value("dscp"));
		dscp_given = true;
	}
	if (sub != Sub::Show && cmd.dev.empty())
		fail(std::string("ackmark ") + (sub == Sub::Add ? "add" : "del") + " needs dev DEV");
	if (sub == Sub::Add && !dscp_given)
		fail("ackmark add needs dscp DSCP (the class the fabric serves first)");
}

enum class Opt { Json, Pretty, Netns, Backend, Debug, Help, Version };

// "user NAME|UID" or "group NAME|GID" of run, checked but not looked up.
// Digits are an id (useradd and groupadd refuse names of digits only);
// uid 0 is refused because "user" promises a dropped privilege, and
// (uid_t)-1 means "unchanged" to the kernel. A name may hold neither ':'
// (the user database's separator) nor a control character, so that the
// lookup's error stays one line.
std::string parse_run_id(std::string_view key, std::string_view text)
{
	const std::string what = key == "user" ? "user" : "group";

	if (text.empty())
		fail(what + ": empty " + what);
	if (text.find_first_not_of("0123456789") == std::string_view::npos) {
		auto id = parse_uint(text);
		if (!id || *id >= kMaxU32)
			fail(range_error(key, text, what == "user" ? "1" : "0",
					 std::to_string(kMaxU32 - 1)));
		if (what == "user" && *id == 0)
			fail("user " + std::string(text) +
			     ": uid 0 would keep root's privileges (leave user out to run "
			     "COMMAND as the caller)");
		return std::string(text);
	}
	for (unsigned char c : text)
		if (c < 0x20 || c == 0x7f || c == ':')
			fail(what + " \"" + std::string(text) + "\": not a " + what +
			     " name or id");
	return std::string(text);
}

// The first job id run may not take: from here up, contrib/slurm's.
constexpr uint32_t kRunJobIdLimit = 2147483648u;

// run [job ID] [parent PATH] [user USER] [group GROUP] [MATCH]... [SETTING]...
//     -- COMMAND [ARG]...
void parse_run(Args &a, Command &cmd)
{
	std::vector<std::string> words;

	// "help" is run's only when it comes first: later it would drop the
	// settings already parsed into a command that is not run.
	if (!a.done() && a.peek() == "help") {
		a.next();
		cmd.action = Action::Help;
		cmd.help_topic = "run";
		no_more(a, "help");
		return;
	}
	cmd.action = Action::Run;
	while (!a.done() && a.peek() != "--") {
		std::string_view word = a.next();

		if (word == "job") {
			std::string_view value = a.value(word);
			if (cmd.job.id)
				fail("job given twice");
			cmd.job.id = parse_job_id(value);
			// The Slurm prolog adds 2^31 + SLURM_JOB_ID; a run there would
			// make a Slurm job's prolog fail and drain the node.
			if (cmd.job.id >= kRunJobIdLimit)
				fail(range_error("job ID", value, "1", std::to_string(kRunJobIdLimit - 1)) +
				     ": the ids above are the Slurm hooks'");
			continue;
		}
		if (word == "parent") {
			std::string_view value = a.value(word);
			if (!cmd.run_parent.empty())
				fail("parent given twice");
			if (value.empty())
				fail("parent: empty path");
			cmd.run_parent = std::string(value);
			continue;
		}
		if (word == "user" || word == "group") {
			std::string &field = word == "user" ? cmd.run_user : cmd.run_group;
			std::string_view value = a.value(word);
			if (!field.empty())
				fail(std::string(word) + " given twice");
			field = parse_run_id(word, value);
			continue;
		}
		words.emplace_back(word);
	}
	if (a.done())
		fail("run: \"--\" and a command must follow the job's settings");
	a.next();
	if (a.done())
		fail("run: no command after \"--\"");
	while (!a.done())
		cmd.run_argv.emplace_back(a.next());

	Args job_words(words);
	parse_job_args(job_words, cmd.job, false);
	if (cmd.job.cgroup)
		fail("run: the job matches the command's own cgroup; give no cgroup");
}

enum class Object { Job, Flow, Monitor, Defaults, Bpf, Export, Run, Ackmark, Help };

Command parse(const std::vector<std::string> &args)
{
	Args a(args);
	Command cmd;

	while (!a.done() && a.peek().size() > 1 && a.peek()[0] == '-') {
		std::string_view word = a.next();
		word.remove_prefix(word.size() > 2 && word[1] == '-' ? 2 : 1);
		switch (match<Opt>(word,
				   { { "json", Opt::Json },
				     { "pretty", Opt::Pretty },
				     { "netns", Opt::Netns },
				     { "backend", Opt::Backend },
				     { "debug", Opt::Debug },
				     { "help", Opt::Help },
				     { "Version", Opt::Version },
				     { "version", Opt::Version } },
				   "option")) {
		case Opt::Json: cmd.options.json = true; break;
		case Opt::Pretty: cmd.options.pretty = true; break;
		case Opt::Netns: {
			std::string_view name = a.value("-n");
			// A name under /run/netns, or a path such as /proc/PID/ns/net
			// (Mininet's hosts have no name).
			if (name.empty() ||
			    (name[0] != '/' && name.find('/') != std::string_view::npos) ||
			    name == "." || name == "..")
				fail("-n \"" + std::string(name) +
				     "\": not a network namespace name");
			cmd.options.netns = std::string(name);
			break;
		}
		case Opt::Backend:
			cmd.options.backend = match<BackendKind>(a.value("-b"),
								 { { "auto", BackendKind::Auto },
								   { "kmod", BackendKind::Kmod },
								   { "bpf", BackendKind::Bpf } },
								 "backend");
			break;
		case Opt::Debug: cmd.options.debug = true; break;
		case Opt::Help: cmd.action = Action::Help; return cmd;
		case Opt::Version: cmd.action = Action::Version; return cmd;
		}
	}
	if (a.done())
		fail("missing object (job, flow, monitor, defaults, bpf, export, run, ackmark or "
		     "help)");
	switch (match<Object>(a.next(),
			      { { "job", Object::Job },
				{ "flow", Object::Flow },
				{ "monitor", Object::Monitor },
				{ "defaults", Object::Defaults },
				{ "bpf", Object::Bpf },
				{ "export", Object::Export },
				{ "run", Object::Run },
				{ "ackmark", Object::Ackmark },
				{ "help", Object::Help } },
			      "object")) {
	case Object::Bpf:
		if (cmd.options.backend == BackendKind::Kmod)
			fail("bpf: manages the BPF backend, not \"-b kmod\"");
		if (!cmd.options.netns.empty())
			fail("-n: the BPF backend is loaded for the whole host, not per network "
			     "namespace (drop -n)");
		parse_bpf(a, cmd);
		break;
	case Object::Defaults: parse_defaults(a, cmd); break;
	case Object::Job: parse_job(a, cmd); break;
	case Object::Flow: parse_flow(a, cmd); break;
	case Object::Monitor: parse_monitor(a, cmd); break;
	case Object::Export: parse_export(a, cmd); break;
	case Object::Run: parse_run(a, cmd); break;
	case Object::Ackmark:
		if (cmd.options.backend != BackendKind::Auto)
			fail("ackmark: a tc filter of its own, used with either backend; drop -b");
		parse_ackmark(a, cmd);
		break;
	case Object::Help:
		cmd.action = Action::Help;
		if (!a.done())
			cmd.help_topic = match<std::string>(a.next(),
							    { { "job", "job" },
							      { "flow", "flow" },
							      { "monitor", "monitor" },
							      { "defaults", "defaults" },
							      { "bpf", "bpf" },
							      { "export", "export" },
							      { "run", "run" },
							      { "ackmark", "ackmark" } },
							    "help topic");
		no_more(a, "help TOPIC");
		break;
	}
	return cmd;
}

} // namespace

ParseResult parse_args(const std::vector<std::string> &args)
{
	ParseResult result;

	try {
		result.command = parse(args);
	} catch (const Bad &bad) {
		// Words are quoted back as typed; control characters are escaped
		// so that the error stays one line.
		for (unsigned char c : bad.message) {
			if (c < 0x20 || c == 0x7f) {
				char esc[8];
				snprintf(esc, sizeof(esc), "\\x%02x", c);
				result.error += esc;
			} else {
				result.error += static_cast<char>(c);
			}
		}
	}
	return result;
}

void DefaultsChange::apply(mltcp_params &params) const
{
	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		auto which = static_cast<mltcp_param>(i);

		if (has(which))
			mltcp_param_set(&params, which, mltcp_param_get(&values, which));
	}
}

std::string usage(std::string_view topic)
{
	static const char job[] =
		"       mltcpctl [OPTIONS] job add ID [MATCH]... [SETTING]...\n"
		"       mltcpctl [OPTIONS] job set ID [MATCH]... [SETTING]...\n"
		"       mltcpctl [OPTIONS] job del ID\n"
		"       mltcpctl [OPTIONS] job show [ID]\n"
		"       mltcpctl [OPTIONS] job mark ID [ step N | follow ]\n"
		"MATCH := { dport LO[-HI] | sport LO[-HI] | peer PREFIX | mark MARK[/MASK] |\n"
		"           cgroup PATH }\n"
		"SETTING := { slope S | intercept I | idle-gap DURATION | iter-bytes SIZE |\n"
		"             base { reno | cubic } | exempt [ on | off ] | marked [ on | off ] }\n"
		"  job set: \"any\" as a MATCH value drops the criterion,\n"
		"           \"default\" as a SETTING value returns to the namespace default.\n"
		"  ID: 1-4294967295. S, I: decimal 0-16. DURATION: 1ms-60s (us, ms, s).\n"
		"  SIZE: 1-1T (K, M, G, T are powers of 1024).\n"
		"  PATH: a cgroup v2, under its mount or relative to it; its descendants match.\n"
		"  A flow gets the first job, in ascending ID, whose criteria all match it\n"
		"  when it selects MLTCP; changing a job updates its live flows.\n"
		"  marked: the job's iterations start where \"job mark\" says (a flow's first\n"
		"  send after each mark), not at idles. job mark: allowed to CAP_NET_ADMIN\n"
		"  and to processes in the job's cgroup; with step N, a mark counts unless N\n"
		"  is the step marked last (ranks sharing a host mark each step once);\n"
		"  follow: a mark per line of standard input (empty, or the step N), \"ok\"\n"
		"  written once each is made.\n";
	static const char flow[] = "       mltcpctl [OPTIONS] flow show [job ID]\n";
	static const char monitor[] =
		"       mltcpctl [OPTIONS] monitor [job ID] [interval DURATION] [count N]\n";
	static const char defaults[] =
		"       mltcpctl [OPTIONS] defaults show [global]\n"
		"       mltcpctl [OPTIONS] defaults set [global] DEFAULT...\n"
		"DEFAULT := { slope S | intercept I | idle-gap DURATION | base { reno | cubic } |\n"
		"             mode MODE }\n"
		"MODE := { ai | md | both | restart | ai-restart | md-restart | both-restart |\n"
		"          gate | ai-gate | md-gate | both-gate }\n"
		"  The defaults of new flows. kmod: the network namespace's net.mltcp.*\n"
		"  sysctls, and the global mode; with \"global\", the module parameters,\n"
		"  which every namespace follows until it sets its own value (mode is\n"
		"  global only). bpf: one set for the host; \"set\" needs \"global\".\n";
	static const char bpf[] =
		"       mltcpctl [OPTIONS] bpf { load [DEFAULT]... | unload | status }\n"
		"  The BPF backend, the module's twin as BPF struct_ops: load registers\n"
		"  mltcp, mltcp_reno and mltcp_cubic with these defaults and pins them in\n"
		"  " MLTCP_BPF_PIN_DIR "; sockets using them keep them after unload.\n";
	static const char export_[] =
		"       mltcpctl [OPTIONS] export [output FILE] [interval DURATION [count N]]\n"
		"  The counters and gauges of the jobs, flows, iteration detector and start\n"
		"  gate, in the Prometheus text format: to stdout, or replacing FILE\n"
		"  atomically (for node_exporter's textfile collector, FILE in its\n"
		"  directory, ending .prom). interval: again every DURATION (10ms-3600s),\n"
		"  count times or until killed. Also written --output, --interval, --count.\n"
		"  Labels: job, netns (the -n name, empty without -n), backend, verdict,\n"
		"  event. bpf: no job counters; verdict and gate counts are the host's.\n";
	static const char run[] =
		"       mltcpctl [OPTIONS] run [job ID] [parent PATH] [user USER] [group GROUP]\n"
		"                              [MATCH]... [SETTING]... -- COMMAND [ARG]...\n"
		"USER := { NAME | UID }  GROUP := { NAME | GID }\n"
		"  Runs COMMAND in a new cgroup with a job that matches it (and the other\n"
		"  criteria given), then removes both; exits with COMMAND's status (128+N if\n"
		"  killed by signal N). The cgroup is made under PATH (default: the caller's\n"
		"  own cgroup); the job takes ID (default: the lowest free one; below\n"
		"  2147483648, the ids from there up are the Slurm hooks'). COMMAND sees\n"
		"  MLTCP_JOB and MLTCP_CGROUP. SIGINT, SIGTERM and SIGHUP sent to mltcpctl go\n"
		"  to COMMAND; processes left in the cgroup when it exits are killed.\n"
		"  user: COMMAND runs as USER, with USER's groups and primary group (GROUP's\n"
		"  if given), no capabilities and no_new_privs (setuid programs and file\n"
		"  capabilities grant nothing); group alone: the gid only, COMMAND stays root.\n";
	static const char ackmark[] =
		"       mltcpctl [OPTIONS] ackmark { add dev DEV dscp DSCP | del dev DEV |\n"
		"                                    show [dev DEV] }\n"
		"DSCP := { 0-63 | cs0-cs7 | af11-af43 | ef }\n"
		"  Gives the pure TCP ACKs leaving DEV (Ethernet) this DSCP, for a fabric\n"
		"  that serves it first: exchanging jobs hold their turns only if their\n"
		"  ACKs do not wait behind the other jobs' data. A tc BPF filter on DEV's\n"
		"  clsact egress hook (-n: DEV in that namespace); data segments, SYN, FIN\n"
		"  and RST are never marked, ECN bits are kept. add needs CAP_BPF (or\n"
		"  CAP_SYS_ADMIN) and CAP_NET_ADMIN, del CAP_NET_ADMIN; show reads the\n"
		"  DSCP and counts with CAP_SYS_ADMIN.\n";
	static const char options[] =
		"OPTIONS := { -j[son] | -p[retty] | -n[etns] NAME | -b[ackend] BACKEND |\n"
		"             -d[ebug] | -h[elp] | -V[ersion] }\n"
		"BACKEND := { auto | kmod | bpf }  (auto: the module if loaded, else BPF)\n"
		"  -d: libbpf's and the verifier's messages (bpf load, ackmark add).\n";
	std::string out =
		"Usage: mltcpctl [OPTIONS] { job | flow | monitor | defaults | bpf | export | run |\n"
		"                            ackmark | help } ...\n";

	if (topic == "job")
		return out + job + options;
	if (topic == "flow")
		return out + flow + options;
	if (topic == "monitor")
		return out + monitor + options;
	if (topic == "defaults")
		return out + defaults + options;
	if (topic == "bpf")
		return out + bpf + defaults + options;
	if (topic == "export")
		return out + export_ + options;
	if (topic == "run")
		return out + run + job + options;
	if (topic == "ackmark")
		return out + ackmark + options;
	return out + job + flow + monitor + defaults + bpf + export_ + run + ackmark + options;
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
