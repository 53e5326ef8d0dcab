// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flows.h"

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace mltcp::bpf
{
namespace
{

constexpr std::array<const char *, 4> kDecimalKeys{ "r", "f", "slope", "intercept" };
constexpr std::array<const char *, 10> kIntegerKeys{
	"netns",      "cookie",		 "job",		 "cwnd",	"ssthresh", "iterations",
	"iter_bytes", "bytes_this_iter", "last_iter_us", "idle_gap_us",
};

template <size_t N> bool one_of(std::string_view key, const std::array<const char *, N> &keys)
{
	for (const char *k : keys) {
		if (key == k)
			return true;
	}
	return false;
}

std::optional<uint64_t> parse_u64(std::string_view s)
{
	uint64_t v = 0;

	if (s.empty() || s.size() > 20)
		return std::nullopt;
	for (char c : s) {
		if (c < '0' || c > '9')
			return std::nullopt;
		uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
		if (next / 10 != v)
			return std::nullopt;
		v = next;
	}
	return v;
}

// "1.600" (the iterator prints %u.%03u) to 1.6.
std::optional<double> parse_milli(std::string_view s)
{
	size_t dot = s.find('.');

	if (dot == std::string_view::npos || s.size() - dot != 4)
		return std::nullopt;
	auto whole = parse_u64(s.substr(0, dot));
	auto frac = parse_u64(s.substr(dot + 1));
	if (!whole || !frac)
		return std::nullopt;
	return static_cast<double>(*whole) + static_cast<double>(*frac) / 1000.0;
}

// "10.0.0.1:5201" or "[0000:...:0001]:5201" to a canonical address and a port.
std::optional<std::pair<std::string, uint16_t>> parse_endpoint(std::string_view s)
{
	size_t colon = s.rfind(':');
	std::string addr;
	char buf[INET6_ADDRSTRLEN];
	unsigned char bin[16];
	int family = AF_INET;

	if (colon == std::string_view::npos)
		return std::nullopt;
	auto port = parse_u64(s.substr(colon + 1));
	if (!port || *port > 0xffff)
		return std::nullopt;
	addr = std::string(s.substr(0, colon));
	if (addr.size() >= 2 && addr.front() == '[' && addr.back() == ']') {
		addr = addr.substr(1, addr.size() - 2);
		family = AF_INET6;
	}
	if (inet_pton(family, addr.c_str(), bin) != 1 || !inet_ntop(family, bin, buf, sizeof(buf)))
		return std::nullopt;
	return std::make_pair(std::string(buf), static_cast<uint16_t>(*port));
}

std::vector<std::string_view> split_words(std::string_view line)
{
	std::vector<std::string_view> words;
	size_t i = 0;

	while (i < line.size()) {
		while (i < line.size() && (line[i] == ' ' || line[i] == '\n'))
			i++;
		size_t start = i;
		while (i < line.size() && line[i] != ' ' && line[i] != '\n')
			i++;
		if (i > start)
			words.push_back(line.substr(start, i - start));
	}
	return words;
}

} // namespace

std::optional<nlohmann::json> parse_flow_line(std::string_view line)
{
	nlohmann::json flow = nlohmann::json::object();

	for (std::string_view word : split_words(line)) {
		size_t eq = word.find('=');

		if (eq == std::string_view::npos || eq == 0)
			return std::nullopt;
		std::string key(word.substr(0, eq));
		std::string_view value = word.substr(eq + 1);

		if (key == "src" || key == "dst") {
			auto ep = parse_endpoint(value);
			if (!ep)
				return std::nullopt;
			flow[key] = ep->first;
			flow[key == "src" ? "sport" : "dport"] = ep->second;
		} else if (key == "fixed") {
			auto v = parse_u64(value);
			if (!v)
				return std::nullopt;
			flow[key] = *v != 0;
		} else if (one_of(key, kIntegerKeys)) {
			auto v = parse_u64(value);
			if (!v)
				return std::nullopt;
			flow[key] = *v;
		} else if (one_of(key, kDecimalKeys)) {
			auto v = parse_milli(value);
			if (!v)
				return std::nullopt;
			flow[key] = *v;
		} else {
			// ca, base, mode, and any field this version does not know.
			flow[key] = std::string(value);
		}
	}
	if (!flow.contains("ca") || !flow.contains("src"))
		return std::nullopt;
	return flow;
}

std::string tidy_flow_line(std::string_view line)
{
	std::string out;

	for (std::string_view word : split_words(line)) {
		std::string piece(word);

		if ((word.rfind("src=[", 0) == 0 || word.rfind("dst=[", 0) == 0)) {
			auto ep = parse_endpoint(word.substr(4));
			if (ep)
				piece = std::string(word.substr(0, 4)) + "[" + ep->first +
					"]:" + std::to_string(ep->second);
		}
		if (!out.empty())
			out += ' ';
		out += piece;
	}
	return out;
}

} // namespace mltcp::bpf
