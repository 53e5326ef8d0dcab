// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "point.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "mltcp_policy.h"

namespace mltcp::sim
{

namespace
{

using nlohmann::json;

// A TCP timer's longest: far beyond any phase, and far below what a
// microsecond count (ns-3's Time, std::llround) would overflow on.
constexpr double kMaxTimerMs = 1e6;

[[noreturn]] void refuse(const std::string &what)
{
	throw PointError(what);
}

double number(const json &obj, const char *key, std::optional<double> fallback = std::nullopt)
{
	if (!obj.contains(key)) {
		if (fallback)
			return *fallback;
		refuse(std::string("\"") + key + "\" is missing");
	}
	if (!obj[key].is_number() || !std::isfinite(obj[key].get<double>()) ||
	    obj[key].get<double>() < 0)
		refuse(std::string("\"") + key + "\": not a number >= 0");
	return obj[key].get<double>();
}

// A whole number from min to max.
uint64_t whole(const json &obj, const char *key, uint64_t min, uint64_t max,
	       std::optional<double> fallback = std::nullopt)
{
	const double value = number(obj, key, fallback);
	if (value < static_cast<double>(min) || value > static_cast<double>(max) ||
	    value != std::floor(value))
		refuse(std::string("\"") + key + "\": a whole number from " + std::to_string(min) +
		       " to " + std::to_string(max));
	return static_cast<uint64_t>(value);
}

// A count: a whole number from 1 to max.
uint64_t count(const json &obj, const char *key, uint64_t max,
	       std::optional<double> fallback = std::nullopt)
{
	return whole(obj, key, 1, max, fallback);
}

uint64_t us(double ms)
{
	return static_cast<uint64_t>(std::llround(ms * 1e3));
}

trainsim::Collective collective(const std::string &job, const std::string &text)
{
	if (text == "exchange")
		return trainsim::Collective::exchange;
	if (text == "push")
		return trainsim::Collective::push;
	if (text == "ring")
		return trainsim::Collective::ring;
	refuse("job " + job + ": collective \"" + text +
	       "\": the simulator runs exchange, push and ring");
}

LeafSpine parse_topology(const json &t, double rate_mbit)
{
	if (!t.is_object() || !t.contains("kind") || !t["kind"].is_string())
		refuse("\"topology\" must be an object with a \"kind\"");
	const std::string kind = t["kind"].get<std::string>();
	if (kind != "leaf-spine")
		refuse("topology \"" + kind +
		       "\": the simulator builds \"leaf-spine\" (or, "
		       "without a topology, the dumbbell)");
	LeafSpine fabric;
	fabric.leaves = static_cast<unsigned>(count(t, "leaves", 64));
	fabric.spines = static_cast<unsigned>(count(t, "spines", 64));
	fabric.hosts_per_leaf = static_cast<unsigned>(count(t, "hosts_per_leaf", 64));
	fabric.fabric_mbit = number(t, "fabric_mbit", rate_mbit);
	if (fabric.leaves < 2 || fabric.fabric_mbit <= 0 || fabric.fabric_mbit > 1e6)
		refuse("topology: at least 2 leaves, and fabric_mbit up to 1e6");
	return fabric;
}

void place_job(Job &job, const json &j, const std::optional<LeafSpine> &fabric)
{
	if (!fabric) {
		if (j.contains("hosts"))
			refuse("job " + job.name + ": \"hosts\" needs a leaf-spine topology");
		return;
	}
	const unsigned hosts = fabric->leaves * fabric->hosts_per_leaf;
	if (!j.contains("hosts") || !j["hosts"].is_array() || j["hosts"].size() != 2)
		refuse("job " + job.name + ": \"hosts\" must name its two workers' hosts");
	for (unsigned rank = 0; rank < 2; rank++) {
		const json &h = j["hosts"][rank];
		if (!h.is_number_unsigned() || h.get<uint64_t>() >= hosts)
			refuse("job " + job.name + ": host " + h.dump() + ": not a host of the " +
			       std::to_string(hosts) + " (0 to " + std::to_string(hosts - 1) + ")");
		job.hosts[rank] = h.get<unsigned>();
	}
	if (job.hosts[0] == job.hosts[1])
		refuse("job " + job.name + ": its two workers on one host");
}

// A job's pattern keys, checked by mltcp-trainsim's own parser as the
// options they stand for, so that the rules (and their one-line errors,
// naming the option) are trainsim's, in one place.
void parse_pattern(Job &job, const json &j)
{
	const std::pair<const char *, const char *> keys[] = {
		{ "pattern", "--pattern" },
		{ "sockets", "--sockets" },
		{ "bucket_bytes", "--bucket" },
		{ "first_bucket_bytes", "--first-bucket" },
	};
	std::vector<std::string> args = {
		"--job",     "j",
		"--rank",    "0",
		"--world",   std::to_string(job.ranks),
		"--listen",  "1",
		"--next",    "h:1",
		"--bytes",   std::to_string(job.bytes / (job.ranks - 1)),
		"--compute", std::to_string(job.compute_us) + "us",
		"--iterations", "1",
		"--collective", std::string(trainsim::collective_name(job.collective)),
	};
	for (const auto &[key, option] : keys) {
		if (!j.contains(key))
			continue;
		const json &value = j[key];
		if (key == std::string("pattern") ? !value.is_string() : !value.is_number_unsigned())
			refuse("job " + job.name + ": \"" + key + "\": " +
			       (key == std::string("pattern") ? "a string" : "a whole number"));
		args.push_back(option);
		args.push_back(value.is_string() ? value.get<std::string>() : value.dump());
	}
	const trainsim::ParseResult parsed = trainsim::parse_command_line(args);
	if (parsed.outcome != trainsim::ParseResult::Outcome::run)
		refuse("job " + job.name + ": " + parsed.error);
	job.pattern = parsed.config.pattern;
	job.sockets = parsed.config.sockets;
	job.bucket_bytes = parsed.config.bucket_bytes;
	job.first_bucket_bytes = parsed.config.first_bucket_bytes;
}

Job parse_job(const json &j, const std::optional<LeafSpine> &fabric)
{
	Job job;

	if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
		refuse("a job without a \"name\"");
	job.name = j["name"].get<std::string>();
	if (j.value("workload", std::string("trainsim")) != "trainsim")
		refuse("job " + job.name + ": workload \"" + j["workload"].get<std::string>() +
		       "\" cannot run in the simulator (trainsim jobs only)");
	job.ranks = static_cast<unsigned>(count(j, "ranks", 64, 2.0));
	// Ranks alternate between the job's two hosts: only an even ring
	// crosses between them at every hop.
	if (job.ranks < 2 || job.ranks % 2)
		refuse("job " + job.name + ": \"ranks\": an even number from 2 to 64");
	job.bytes = count(j, "bytes", MLTCP_ITER_BYTES_MAX);
	if (job.bytes / (job.ranks - 1) < job.ranks)
		refuse("job " + job.name + ": \"bytes\": too few for a ring of " +
		       std::to_string(job.ranks) + " (at least one byte a chunk)");
	job.compute_us = us(number(j, "compute_ms"));
	job.offset_us = us(number(j, "offset_ms", 0.0));
	job.jitter_us = us(number(j, "jitter_ms", 0.0));
	if (job.ranks > 2)
		job.collective = trainsim::Collective::ring;
	if (j.contains("collective"))
		job.collective = collective(job.name, j["collective"].get<std::string>());
	if ((job.collective == trainsim::Collective::ring) != (job.ranks > 2))
		refuse("job " + job.name + ": " + std::to_string(job.ranks) +
		       " ranks run a ring, two exchange or push");
	parse_pattern(job, j);
	place_job(job, j, fabric);
	return job;
}

// DCQCN's ramp: all three keys or none, not with a step threshold.
void parse_ramp(const json &cfg, Point &point)
{
	const char *keys[] = { "ecn_kmin_bytes", "ecn_kmax_bytes", "ecn_pmax" };
	int given = 0;
	for (const char *key : keys)
		given += cfg.contains(key);
	if (!given)
		return;
	if (given != 3)
		refuse("\"ecn_kmin_bytes\", \"ecn_kmax_bytes\" and \"ecn_pmax\": "
		       "the ramp needs all three");
	if (point.ecn_mark_bytes)
		refuse("\"ecn_mark_bytes\" (a step) or the ramp (\"ecn_kmin_bytes\", "
		       "\"ecn_kmax_bytes\", \"ecn_pmax\"), not both");
	point.ecn_kmin_bytes = count(cfg, "ecn_kmin_bytes", UINT32_MAX);
	point.ecn_kmax_bytes = count(cfg, "ecn_kmax_bytes", UINT32_MAX);
	point.ecn_pmax = number(cfg, "ecn_pmax");
	if (point.ecn_kmin_bytes >= point.ecn_kmax_bytes || point.ecn_pmax <= 0 ||
	    point.ecn_pmax > 1)
		refuse("the ramp: \"ecn_kmin_bytes\" below \"ecn_kmax_bytes\", and "
		       "\"ecn_pmax\" in (0, 1]");
}

// A configuration's parameter value as the policy's parser reads it.
std::string param_text(const json &value)
{
	if (value.is_string())
		return value.get<std::string>();
	if (value.is_number_integer())
		return std::to_string(value.get<int64_t>());
	if (value.is_number())
		return value.dump();
	refuse("a parameter that is neither text nor a number: " + value.dump());
}

void apply_params(mltcp_params &params, const json &given, const std::string &algorithm)
{
	if (!given.is_object())
		refuse("algorithm " + algorithm + ": \"params\" must be an object");
	for (const auto &[key, value] : given.items()) {
		int which = -1;
		for (int p = 0; p < MLTCP_NR_PARAMS; p++)
			if (key == mltcp_param_name(static_cast<mltcp_param>(p)))
				which = p;
		if (which < 0)
			refuse("algorithm " + algorithm + ": unknown parameter \"" + key + "\"");
		uint32_t v = 0;
		std::string text = param_text(value);
		if (mltcp_param_parse(static_cast<mltcp_param>(which), text.c_str(), &v) != 0)
			refuse("algorithm " + algorithm + ": " + key + " \"" + text +
			       "\" is invalid");
		mltcp_param_set(&params, static_cast<mltcp_param>(which), v);
	}
}

// A list of DSCPs (at most MLTCP_PRIO_CLASSES_MAX, each 0 to 63) into dscp.
size_t parse_dscps(const json &list, uint8_t *dscp, const std::string &what)
{
	if (!list.is_array() || list.size() > MLTCP_PRIO_CLASSES_MAX)
		refuse(what + ": a list of at most 7 DSCPs");
	for (size_t c = 0; c < list.size(); c++) {
		if (!list[c].is_number_unsigned() || list[c].get<uint64_t>() > MLTCP_DSCP_MAX)
			refuse(what + ": " + list[c].dump() + ": not a DSCP (0 to 63)");
		dscp[c] = static_cast<uint8_t>(list[c].get<uint64_t>());
	}
	return list.size();
}

// An algorithm's "prio" (progress priority), checked by the core's rule.
void parse_prio(Algorithm &alg, const json &p)
{
	const std::string what = "algorithm " + alg.name + ": \"prio\"";

	if (!p.is_object())
		refuse(what + " must be an object");
	mltcp_prio_config_default(&alg.prio);
	for (const auto &[key, value] : p.items())
		if (key != "classes" && key != "dscp" && key != "none_dscp" && key != "static")
			refuse(what + ": unknown key \"" + key + "\"");
	alg.prio.classes = static_cast<uint8_t>(whole(p, "classes", 0, MLTCP_PRIO_CLASSES_MAX));
	alg.prio.none_dscp = static_cast<uint8_t>(whole(p, "none_dscp", 0, MLTCP_DSCP_MAX, 0.0));
	if (p.contains("dscp") &&
	    parse_dscps(p["dscp"], alg.prio.dscp, what + " dscp") != alg.prio.classes)
		refuse(what + ": \"dscp\" needs exactly \"classes\" values");
	if (p.contains("static")) {
		if (!p["static"].is_boolean())
			refuse(what + ": \"static\": true or false");
		alg.prio_static = p["static"].get<bool>();
	}
	if (!mltcp_prio_config_valid(&alg.prio))
		refuse(what + ": the classes' DSCPs must differ from each other and from "
			      "none_dscp");
}

Algorithm parse_algorithm(const json &a, const json &defaults)
{
	Algorithm alg;

	if (!a.is_object() || !a.contains("name") || !a.contains("cc"))
		refuse("an algorithm needs \"name\" and \"cc\"");
	alg.name = a["name"].get<std::string>();
	alg.cc = a["cc"].get<std::string>();
	mltcp_params_default(&alg.params);
	if (alg.cc == "mltcp" || alg.cc == "mltcp_reno" || alg.cc == "mltcp_cubic") {
		alg.kind = CcKind::mltcp;
		apply_params(alg.params, defaults, alg.name);
		if (a.contains("params"))
			apply_params(alg.params, a["params"], alg.name);
		if (alg.cc != "mltcp")
			alg.fixed_base =
				alg.cc == "mltcp_reno" ? MLTCP_BASE_RENO : MLTCP_BASE_CUBIC;
	} else if (alg.cc == "cubic" || alg.cc == "reno") {
		// The kernel's algorithm is the core's base with F = 1: the
		// module's mltcp_cubic was measured within 3% of the kernel's
		// cubic (bench fidelity), and Reno's arithmetic is the kernel's.
		alg.kind = CcKind::base;
		alg.params.base = alg.cc == "cubic" ? MLTCP_BASE_CUBIC : MLTCP_BASE_RENO;
		alg.params.exempt = 1;
	} else if (alg.cc == "dcqcn") {
		// Plain DCQCN: the same sender with F = 1.
		alg.kind = CcKind::dcqcn;
		alg.params.exempt = 1;
	} else if (alg.cc == "mltcp-dcqcn") {
		// F scales DCQCN's rate increase: mode "ai" unless the algorithm
		// names one (the point's default mode is a window's rule).
		alg.kind = CcKind::dcqcn;
		apply_params(alg.params, defaults, alg.name);
		alg.params.mode = MLTCP_MODE_AI;
		if (a.contains("params"))
			apply_params(alg.params, a["params"], alg.name);
		if (alg.params.mode != MLTCP_MODE_AI)
			refuse("algorithm " + alg.name +
			       ": mltcp-dcqcn scales DCQCN's rate increase: mode \"ai\" only");
	} else if (alg.cc == "ns3-cubic" || alg.cc == "ns3-linux-reno" || alg.cc == "ns3-dctcp") {
		alg.kind = CcKind::ns3;
		alg.ns3_type = alg.cc == "ns3-cubic"   ? "ns3::TcpCubic"
			       : alg.cc == "ns3-dctcp" ? "ns3::TcpDctcp"
						       : "ns3::TcpLinuxReno";
	} else {
		refuse("algorithm " + alg.name + ": unknown congestion control \"" + alg.cc +
		       "\" (mltcp, mltcp_reno, mltcp_cubic, cubic, reno, dcqcn, mltcp-dcqcn, "
		       "ns3-cubic, ns3-linux-reno, ns3-dctcp)");
	}
	if (!mltcp_params_valid(&alg.params))
		refuse("algorithm " + alg.name + ": parameters out of range");
	if (a.contains("prio")) {
		if (alg.kind != CcKind::mltcp)
			refuse("algorithm " + alg.name + ": \"prio\" is MLTCP's (mltcp, "
				"mltcp_reno, mltcp_cubic), not " + alg.cc + "'s");
		parse_prio(alg, a["prio"]);
	}
	if (a.contains("marked")) {
		if (!a["marked"].is_boolean())
			refuse("algorithm " + alg.name + ": \"marked\" is true or false");
		alg.marked = a["marked"].get<bool>();
		if (alg.marked && alg.kind != CcKind::mltcp)
			refuse("algorithm " + alg.name + ": \"marked\" is MLTCP's (mltcp, "
				"mltcp_reno, mltcp_cubic), not " + alg.cc + "'s");
	}
	return alg;
}

// An algorithm's "slots" ({"period_us": P, "offsets_us": {job: offset}}),
// naming every job of the point and no other; an unresolved "schedule" (the
// bench's rule name, which bench/oracle.py turns into "slots") is refused.
std::optional<Slots> parse_slots(const json &a, const std::string &algorithm,
				 const std::vector<Job> &jobs)
{
	const std::string what = "algorithm " + algorithm + ": \"slots\"";

	if (!a.contains("slots")) {
		if (a.contains("schedule"))
			refuse("algorithm " + algorithm + ": \"schedule\" without \"slots\" (the "
			       "bench resolves it: bench/oracle.py)");
		return std::nullopt;
	}
	const json &given = a["slots"];
	if (!given.is_object() || !given.contains("offsets_us") ||
	    !given["offsets_us"].is_object())
		refuse(what + " must be an object with \"period_us\" and \"offsets_us\"");
	Slots slots;
	// mltcp-trainsim's --slot-period range: 1 us to an hour.
	slots.period_us = whole(given, "period_us", 1, 3'600'000'000ull);
	for (const auto &[name, value] : given["offsets_us"].items()) {
		if (std::none_of(jobs.begin(), jobs.end(),
				 [&](const Job &job) { return job.name == name; }))
			refuse(what + ": no job " + name);
		slots.offsets_us[name] = whole(given["offsets_us"], name.c_str(), 0,
					       3'600'000'000ull);
	}
	for (const Job &job : jobs)
		if (!slots.offsets_us.count(job.name))
			refuse(what + ": no offset for job " + job.name);
	return slots;
}

} // namespace

Point parse_point(const std::string &json_text)
{
	json cfg;
	try {
		cfg = json::parse(json_text);
	} catch (const json::exception &e) {
		refuse(std::string("config.json: ") + e.what());
	}
	Point point;
	try {
		point.name = cfg.value("name", std::string("point"));
		point.rate_mbit = number(cfg, "rate_mbit");
		point.rtt_ms = number(cfg, "rtt_ms");
		point.iterations = count(cfg, "iterations", 10'000'000);
		point.repeats = static_cast<unsigned>(count(cfg, "repeats", 1000, 1.0));
		point.first_repeat = static_cast<unsigned>(whole(cfg, "first_repeat", 0, 1000, 0.0));
		point.sample_ms = number(cfg, "sample_ms", 10.0);
		point.seed = count(cfg, "seed", UINT32_MAX, 1.0);
		if (cfg.contains("ecn_mark_bytes"))
			point.ecn_mark_bytes = count(cfg, "ecn_mark_bytes", UINT32_MAX);
		parse_ramp(cfg, point);
		for (auto [key, flag] : { std::pair{ "ack_priority", &point.ack_priority },
					  std::pair{ "port_queue", &point.port_queue },
					  std::pair{ "window_trace", &point.window_trace } }) {
			if (!cfg.contains(key))
				continue;
			if (!cfg[key].is_boolean())
				refuse(std::string("\"") + key + "\": true or false");
			*flag = cfg[key].get<bool>();
		}
		if (cfg.contains("prio_dscps")) {
			mltcp_prio_config pc;
			mltcp_prio_config_default(&pc);
			pc.classes = static_cast<uint8_t>(
				parse_dscps(cfg["prio_dscps"], pc.dscp, "\"prio_dscps\""));
			if (!mltcp_prio_config_valid(&pc))
				refuse("\"prio_dscps\": distinct DSCPs, none of them 0 (best "
				       "effort)");
			for (uint8_t c = 0; c < pc.classes; c++) {
				if (pc.dscp[c] == 46)
					refuse("\"prio_dscps\": 46 (EF) is the ACKs' class");
				point.prio_dscps.push_back(pc.dscp[c]);
			}
		}
		point.prio_be_weight = number(cfg, "prio_be_weight", point.prio_be_weight);
		if (point.prio_be_weight <= 0 || point.prio_be_weight >= 1)
			refuse("\"prio_be_weight\": between 0 and 1, both excluded");
		point.min_rto_ms = number(cfg, "min_rto_ms", point.min_rto_ms);
		point.delayed_ack_ms = number(cfg, "delayed_ack_ms", point.delayed_ack_ms);
		point.idle_rto_min_ms = number(cfg, "idle_rto_min_ms", point.idle_rto_min_ms);
		for (auto [key, ms] : { std::pair{ "min_rto_ms", point.min_rto_ms },
					std::pair{ "delayed_ack_ms", point.delayed_ack_ms },
					std::pair{ "idle_rto_min_ms", point.idle_rto_min_ms } })
			if (ms < 0.001 || ms > kMaxTimerMs)
				refuse(std::string(key) +
				       ": from 0.001 (1 us) to 1000000 (1000 s)");
		if (point.rate_mbit <= 0 || point.rate_mbit > 1e6 || point.sample_ms <= 0)
			refuse("rate_mbit (up to 1e6) and sample_ms must be positive");
		if (cfg.contains("bulk") && !cfg["bulk"].empty())
			refuse("bulk flows cannot run in the simulator yet");
		if (!cfg.contains("jobs") || !cfg["jobs"].is_array() || cfg["jobs"].empty())
			refuse("\"jobs\" must be a list of at least one job");
		if (cfg.contains("reverse_rate_mbit")) {
			point.reverse_rate_mbit = number(cfg, "reverse_rate_mbit");
			if (point.reverse_rate_mbit < point.rate_mbit ||
			    point.reverse_rate_mbit > 1e6)
				refuse("reverse_rate_mbit: from rate_mbit up to 1e6 (the ideal "
				       "counts rate_mbit, so the reverse direction may only "
				       "be faster)");
			if (cfg.contains("topology"))
				refuse("reverse_rate_mbit: the dumbbell's only, not a "
				       "\"topology\"'s");
		}
		if (cfg.contains("topology"))
			point.leaf_spine = parse_topology(cfg["topology"], point.rate_mbit);
		for (const json &j : cfg["jobs"])
			point.jobs.push_back(parse_job(j, point.leaf_spine));
		// A job's counter is its first host's: hosts are not shared.
		if (point.leaf_spine) {
			std::map<unsigned, std::string> owner;
			for (const Job &job : point.jobs)
				for (unsigned host : job.hosts)
					if (!owner.emplace(host, job.name).second)
						refuse("job " + job.name + ": host " +
						       std::to_string(host) + " is also " +
						       owner[host] + "'s");
		}
		const json defaults = cfg.value("default_params", json::object());
		if (!cfg.contains("algorithms") || !cfg["algorithms"].is_array() ||
		    cfg["algorithms"].empty())
			refuse("\"algorithms\" must be a list of at least one algorithm");
		for (const json &a : cfg["algorithms"]) {
			point.algorithms.push_back(parse_algorithm(a, defaults));
			Algorithm &alg = point.algorithms.back();
			alg.slots = parse_slots(a, alg.name, point.jobs);
			if (alg.kind == CcKind::dcqcn && !point.marks_ecn())
				refuse("algorithm " + alg.name + ": " + alg.cc +
				       " reacts to ECN marks: the port must mark "
				       "(\"ecn_mark_bytes\", or the ramp \"ecn_kmin_bytes\", "
				       "\"ecn_kmax_bytes\", \"ecn_pmax\")");
		}
	} catch (const json::exception &e) {
		refuse(std::string("config.json: ") + e.what());
	}
	return point;
}

} // namespace mltcp::sim
