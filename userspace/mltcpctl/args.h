// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The argument cursor the objects parse their words with, in the manner of
// iproute2: keywords matched by unambiguous prefix, values with units, every
// failure one line. Pure: no I/O, so every rule is unit-tested and fuzzed.
// The values several objects take are read here; an object's own words are
// in its file (job.cc, defaults.cc, ...).
#ifndef MLTCPCTL_ARGS_H
#define MLTCPCTL_ARGS_H

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"

namespace mltcpctl
{

constexpr uint64_t kMaxU32 = std::numeric_limits<uint32_t>::max();

// Thrown by the parsers only; parse_args() turns it into its one-line error.
struct BadArgs {
	std::string message;
};

[[noreturn]] void fail(std::string message);

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

class Args
{
public:
	explicit Args(const std::vector<std::string> &args) : args_(args) {}
	bool done() const { return pos_ >= args_.size(); }
	std::string_view peek() const { return args_[pos_]; }
	std::string_view next() { return args_[pos_++]; }
	// The value of key: the next word, which must be there.
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

// The next word as one of table's values (an enum), each at most once:
// seen holds a bit per value given ("WORD given twice" otherwise). dashes:
// "--word" is "word" too.
template <typename T>
T next_once(Args &a, const std::vector<Keyword<T>> &table, std::string_view what,
	    uint32_t &seen, bool dashes = false)
{
	std::string_view word = a.next();

	if (dashes && word.size() > 2 && word.substr(0, 2) == "--")
		word.remove_prefix(2);
	T value = match(word, table, what);
	uint32_t bit = 1U << static_cast<int>(value);
	if (seen & bit)
		fail(std::string(word) + " given twice");
	seen |= bit;
	return value;
}

// Fails if a word is left after what: "unexpected \"x\" after what".
void no_more(Args &a, std::string_view what);

// "help" as an object's command: the object's help, nothing after it.
void help_of(Args &a, Command &cmd, const char *object);

// Strict unsigned decimal: digits only, no sign, no overflow.
std::optional<uint64_t> parse_uint(std::string_view text);
// Decimal or 0x-prefixed hexadecimal u32, as marks are written.
std::optional<uint32_t> parse_u32_any_base(std::string_view text);
// "KEY VALUE: out of range (allowed LO to HI)"
std::string range_error(std::string_view key, std::string_view value, std::string_view lo,
			std::string_view hi);

// The values of several objects, each failing with its own one line.
uint32_t parse_job_id(std::string_view text);
uint32_t parse_fixed(std::string_view key, std::string_view text, uint32_t max);
uint32_t parse_idle_gap(std::string_view text);
uint64_t parse_iter_bytes(std::string_view text);
uint8_t parse_base(std::string_view text);
uint8_t parse_mode(std::string_view text);
// A DSCP, 0-63 or a name (cs1, af41, ef); errors name key.
uint32_t parse_dscp(std::string_view key, std::string_view text);
// "interval DURATION" and "count N" of monitor and export.
uint64_t parse_interval(std::string_view text);
uint64_t parse_count(std::string_view text);

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
