// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "protocol.h"

#include <map>
#include <sstream>

namespace mltcp::trainsim
{
namespace
{

constexpr std::string_view hello_tag = "HELLO mltcp-trainsim/1";

std::string stop_rule(const Config &config)
{
	if (config.iterations)
		return "iterations:" + std::to_string(*config.iterations);
	return "duration";
}

std::map<std::string, std::string> hello_fields(const Config &config, unsigned rank)
{
	return {
		{ "job", config.job },
		{ "rank", std::to_string(rank) },
		{ "world", std::to_string(config.world) },
		{ "collective", std::string(collective_name(config.collective)) },
		{ "bytes", std::to_string(config.bytes) },
		{ "stop", stop_rule(config) },
		{ "pattern", std::string(pattern_name(config.pattern)) },
		{ "sockets", std::to_string(config.sockets) },
		{ "buckets", config.pattern == Pattern::ddp
				     ? std::to_string(config.first_bucket_bytes) + ":" +
					       std::to_string(config.bucket_bytes)
				     : "-" },
	};
}

} // namespace

std::string make_hello(const Config &config)
{
	std::string line(hello_tag);
	// Fixed order, so that the line is easy to read in a packet capture.
	auto fields = hello_fields(config, config.rank);
	for (const char *key : { "job", "rank", "world", "collective", "bytes", "stop", "pattern",
				 "sockets", "buckets" })
		line += std::string(" ") + key + "=" + fields[key];
	return line + "\n";
}

std::optional<std::string> check_hello(const Config &config, std::string_view line)
{
	if (line.substr(0, hello_tag.size()) != hello_tag)
		return "it is not an mltcp-trainsim worker of this version (got \"" +
		       std::string(line.substr(0, 40)) + "\")";
	std::map<std::string, std::string> peer;
	std::istringstream words{ std::string(line.substr(hello_tag.size())) };
	std::string word;
	while (words >> word) {
		size_t equals = word.find('=');
		if (equals == std::string::npos)
			return "malformed hello \"" + std::string(line) + "\"";
		peer[word.substr(0, equals)] = word.substr(equals + 1);
	}
	auto expected = hello_fields(config, (config.rank + 1) % config.world);
	for (const char *key : { "job", "world", "rank", "collective", "bytes", "stop", "pattern",
				 "sockets", "buckets" }) {
		auto found = peer.find(key);
		std::string got = found == peer.end() ? "(missing)" : found->second;
		if (got != expected[key])
			return std::string("it has ") + key + "=" + got + ", expected " + key +
			       "=" + expected[key];
	}
	return std::nullopt;
}

std::string make_stop(uint64_t last_iteration)
{
	return "STOP " + std::to_string(last_iteration) + "\n";
}

std::optional<uint64_t> parse_stop(std::string_view line)
{
	constexpr std::string_view tag = "STOP ";
	if (line.substr(0, tag.size()) != tag || line.size() == tag.size() || line.size() > 25)
		return std::nullopt;
	uint64_t value = 0;
	for (char c : line.substr(tag.size())) {
		if (c < '0' || c > '9')
			return std::nullopt;
		value = value * 10 + static_cast<uint64_t>(c - '0');
	}
	return value;
}

} // namespace mltcp::trainsim
