// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "output.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstdio>

#include "args.h"
#include "mltcp_policy.h"
#include "uapi/mltcp.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

const char *base_name(uint8_t base)
{
	const char *name = mltcp_base_name(base);

	return name ? name : "unknown";
}

const char *mode_name(uint8_t mode)
{
	const char *name = mltcp_mode_name(mode);

	return name ? name : "unknown";
}

std::string ports(const PortRange &r)
{
	if (r.min == r.max)
		return std::to_string(r.min);
	return std::to_string(r.min) + "-" + std::to_string(r.max);
}

std::string hex(uint32_t v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "0x%x", v);
	return buf;
}

// r and F: always three decimals, so columns line up.
std::string milli3(uint32_t fixed)
{
	char buf[MLTCP_PARAM_TEXT];

	return mltcp_format_fixed(fixed, buf, sizeof(buf)) < 0 ? "?" : buf;
}

std::string endpoint(int family, const std::array<uint8_t, 16> &addr, uint16_t port)
{
	std::string a = format_addr(family, addr);
	if (family == AF_INET6)
		a = "[" + a + "]";
	return a + ":" + std::to_string(port);
}

void flow_identity(Printer &p, const Flow &f)
{
	p.field("src", format_addr(f.family, f.saddr), "");
	p.field("sport", f.sport, "");
	p.field("dst", format_addr(f.family, f.daddr), "");
	p.field("dport", f.dport,
		endpoint(f.family, f.saddr, f.sport) + " -> " +
			endpoint(f.family, f.daddr, f.dport));
	p.field("cookie", f.cookie, "");
	p.field("job", f.job ? nlohmann::json(*f.job) : nlohmann::json(nullptr),
		"job " + (f.job ? std::to_string(*f.job) : std::string("-")));
}

} // namespace

double fixed_value(uint32_t fixed)
{
	return mltcp_fixed_to_milli(fixed) / 1000.0;
}

double setting_value(uint32_t fixed)
{
	char buf[MLTCP_PARAM_TEXT];
	double value = 0;
	int len = mltcp_format_setting(fixed, buf, sizeof(buf));

	// from_chars: the "C" locale's decimal point, whatever the process's.
	if (len < 0 || std::from_chars(buf, buf + len, value).ec != std::errc())
		return fixed_value(fixed);
	return value;
}

Printer::Printer(std::ostream &out, bool json, bool pretty)
    : out_(out), json_(json), pretty_(pretty), list_(nlohmann::json::array())
{
}

void Printer::begin_list()
{
	list_ = nlohmann::json::array();
	in_list_ = true;
}

void Printer::end_list()
{
	if (json_)
		out_ << list_.dump(pretty_ ? 4 : -1) << "\n";
	out_.flush();
	in_list_ = false;
}

void Printer::begin_object()
{
	object_ = nlohmann::json::object();
	line_.clear();
}

void Printer::end_object()
{
	if (json_ && in_list_) {
		list_.push_back(std::move(object_));
	} else if (json_) {
		out_ << object_.dump(pretty_ ? 4 : -1) << "\n";
	} else if (in_list_ || !line_.empty()) {
		out_ << line_ << "\n";
		line_.clear();
	}
	if (!in_list_)
		out_.flush();
}

void Printer::newline()
{
	if (json_ || line_.empty())
		return;
	out_ << line_ << "\n";
	line_.clear();
}

void Printer::field(std::string_view key, nlohmann::json value, std::string text)
{
	if (json_) {
		object_[std::string(key)] = std::move(value);
		return;
	}
	if (text.empty())
		return;
	if (!line_.empty())
		line_ += ' ';
	line_ += text;
}

void print_job(Printer &p, const Job &j)
{
	p.begin_object();
	p.field("id", j.id, "job " + std::to_string(j.id));
	if (j.dport)
		p.field("dport", { { "min", j.dport->min }, { "max", j.dport->max } },
			"dport " + ports(*j.dport));
	if (j.sport)
		p.field("sport", { { "min", j.sport->min }, { "max", j.sport->max } },
			"sport " + ports(*j.sport));
	if (j.peer)
		p.field("peer", format_prefix(*j.peer), "peer " + format_prefix(*j.peer));
	if (j.mark) {
		std::string text = "mark " + hex(j.mark->value);
		if (j.mark->mask != 0xffffffff)
			text += "/" + hex(j.mark->mask);
		p.field("mark", j.mark->value, "");
		p.field("mark_mask", j.mark->mask, text);
	}
	if (j.cgroup) {
		const std::string &path = j.cgroup->path;

		p.field("cgroup_id", j.cgroup->id, "");
		p.field("cgroup", path.empty() ? nlohmann::json() : nlohmann::json(path),
			path.empty() ? "cgroup-id " + std::to_string(j.cgroup->id)
				     : "cgroup " + path);
	}
	if (j.slope)
		p.field("slope", setting_value(*j.slope), "slope " + format_fixed(*j.slope));
	if (j.intercept)
		p.field("intercept", setting_value(*j.intercept),
			"intercept " + format_fixed(*j.intercept));
	if (j.idle_gap_us)
		p.field("idle_gap_us", *j.idle_gap_us,
			"idle-gap " + mltcp::format_duration_us(*j.idle_gap_us));
	if (j.iter_bytes)
		p.field("iter_bytes", *j.iter_bytes,
			"iter-bytes " + mltcp::format_size(*j.iter_bytes));
	if (j.base)
		p.field("base", base_name(*j.base), std::string("base ") + base_name(*j.base));
	p.field("exempt", j.exempt.value_or(false), j.exempt.value_or(false) ? "exempt" : "");
	p.field("marked", j.marked.value_or(false), j.marked.value_or(false) ? "marked" : "");
	// The count is the marked flows' (an unmarked job's marks move nothing).
	if (j.marks && j.marked.value_or(false))
		p.field("marks", *j.marks, "marks " + std::to_string(*j.marks));
	if (j.flows)
		p.field("flows", *j.flows, "flows " + std::to_string(*j.flows));
	if (j.flows_total)
		p.field("flows_total", *j.flows_total,
			"flows-total " + std::to_string(*j.flows_total));
	if (j.iterations)
		p.field("iterations", *j.iterations, "iterations " + std::to_string(*j.iterations));
	if (j.bytes)
		p.field("bytes", *j.bytes, "bytes " + std::to_string(*j.bytes));
	p.end_object();
}

void print_flow(Printer &p, const Flow &f)
{
	p.begin_object();
	flow_identity(p, f);
	p.field("ca", f.ca, "ca " + f.ca);
	p.field("base", base_name(f.base), std::string("base ") + base_name(f.base));
	p.field("mode", mode_name(f.mode), std::string("mode ") + mode_name(f.mode));
	p.field("exempt", f.exempt, f.exempt ? "exempt" : "");
	p.field("cwnd", f.cwnd, "cwnd " + std::to_string(f.cwnd));
	p.field("ssthresh", f.ssthresh, "ssthresh " + std::to_string(f.ssthresh));
	p.field("iterations", f.iterations, "iterations " + std::to_string(f.iterations));
	p.field("iter_bytes", f.iter_bytes,
		"iter-bytes " +
			(f.iter_bytes ? mltcp::format_size(f.iter_bytes) : std::string("-")));
	p.field("iter_fixed", f.iter_fixed, f.iter_fixed ? "fixed" : "learned");
	p.field("bytes_this_iter", f.bytes_this_iter,
		"this-iter " + std::to_string(f.bytes_this_iter));
	p.field("last_iter_us", f.last_iter_us,
		"last-iter " + mltcp::format_duration_us(f.last_iter_us));
	p.field("r", fixed_value(f.r), "r " + milli3(f.r));
	p.field("f", fixed_value(f.f), "F " + milli3(f.f));
	p.field("slope", setting_value(f.slope), "slope " + format_fixed(f.slope));
	p.field("intercept", setting_value(f.intercept), "intercept " + format_fixed(f.intercept));
	p.field("idle_gap_us", f.idle_gap_us,
		"idle-gap " + mltcp::format_duration_us(f.idle_gap_us));
	p.end_object();
}

namespace
{

// Each default once: its JSON key and value, and its text as "defaults set" takes it.
template <typename Fn> void each_default(const mltcp_params &params, Fn fn)
{
	fn("slope", setting_value(params.slope), "slope " + format_fixed(params.slope));
	fn("intercept", setting_value(params.intercept),
	   "intercept " + format_fixed(params.intercept));
	fn("idle_gap_us", params.idle_gap_us,
	   "idle-gap " + mltcp::format_duration_us(params.idle_gap_us));
	fn("base", base_name(params.base), std::string("base ") + base_name(params.base));
	fn("mode", mode_name(params.mode), std::string("mode ") + mode_name(params.mode));
}

} // namespace

void print_defaults(Printer &p, const Defaults &d)
{
	p.begin_object();
	p.field("backend", d.backend, "");
	p.field("scope", d.global ? "global" : "netns", "");
	each_default(d.params, [&p](const char *key, nlohmann::json value, std::string text) {
		p.field(key, std::move(value), std::move(text));
	});
	p.end_object();
}

void print_ackmark(Printer &p, const ackmark::Marker &m)
{
	p.begin_object();
	p.field("dev", m.dev, "dev " + m.dev);
	p.field("ifindex", m.ifindex, "");
	p.field("prog_id", m.prog_id,
		m.prog_id ? "prog id " + std::to_string(m.prog_id) : "(a filter of another kind)");
	p.field("ours", m.ours ? nlohmann::json(*m.ours) : nlohmann::json(nullptr),
		m.ours.value_or(true) || !m.prog_id ? "" : "(another program, not the marker)");
	p.field("dscp", m.dscp ? nlohmann::json(*m.dscp) : nlohmann::json(nullptr),
		m.dscp ? "dscp " + std::to_string(*m.dscp) : "");
	if (m.stats) {
		for (unsigned i = 0; i < MLTCP_ACKMARK_NR_STATS; i++)
			p.field(ackmark::stat_name(i), (*m.stats)[i],
				std::string(ackmark::stat_name(i)) + " " +
					std::to_string((*m.stats)[i]));
	}
	p.end_object();
}

std::string params_text(const mltcp_params &params)
{
	std::string out;

	each_default(params, [&out](const char *, const nlohmann::json &, const std::string &text) {
		out += (out.empty() ? "" : " ") + text;
	});
	return out;
}

nlohmann::json params_json(const mltcp_params &params)
{
	nlohmann::json j = nlohmann::json::object();

	each_default(params, [&j](const char *key, nlohmann::json value, const std::string &) {
		j[key] = std::move(value);
	});
	j["slope_fixed"] = params.slope;
	j["intercept_fixed"] = params.intercept;
	return j;
}

void print_flow_brief(Printer &p, const Flow &f)
{
	p.begin_object();
	flow_identity(p, f);
	p.field("r", fixed_value(f.r), "r " + milli3(f.r));
	p.field("f", fixed_value(f.f), "F " + milli3(f.f));
	p.field("cwnd", f.cwnd, "cwnd " + std::to_string(f.cwnd));
	p.field("iterations", f.iterations, "iterations " + std::to_string(f.iterations));
	p.end_object();
}

} // namespace mltcpctl
