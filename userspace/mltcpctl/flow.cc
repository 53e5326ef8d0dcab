// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl flow": the flows using an MLTCP algorithm, and their state.
#include "flow.h"

#include <arpa/inet.h>

#include "backend.h"
#include "mltcp_policy.h"
#include "object.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

// "job ID", the filter of flow show.
std::optional<uint32_t> parse_job_filter(Args &a)
{
	match<int>(a.next(), { { "job", 0 } }, "argument");
	return parse_job_id(a.value("job"));
}

void parse_flow(Args &a, Command &cmd)
{
	cmd.action = Action::FlowShow;
	if (a.done())
		return;
	if (match<bool>(a.next(),
			{ { "show", true }, { "list", true }, { "ls", true }, { "help", false } },
			"flow command") == false) {
		help_of(a, cmd, "flow");
		return;
	}
	if (!a.done())
		cmd.job_id = parse_job_filter(a);
	no_more(a, "flow show [job ID]");
}

std::string flow_help()
{
	return "       mltcpctl [OPTIONS] flow show [job ID]\n";
}

int run_flow(const Command &cmd, std::ostream &out)
{
	std::unique_ptr<Backend> client = open_backend(cmd.options, false);
	Printer p(out, cmd.options.json, cmd.options.pretty);

	p.begin_list();
	for (const Flow &flow : client->flows(cmd.job_id))
		print_flow(p, flow);
	p.end_list();
	return 0;
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

const Object flow_object = {
	"flow",	  "flow show [job ID]", "the flows using MLTCP, their state", parse_flow, flow_help,
	run_flow,
};

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
	// A size whose iterations are not told reliably: the flow runs as its
	// base algorithm (without a size, iter-bytes "-" says it is learning).
	if (f.iter_trusted)
		p.field("iter_trusted", *f.iter_trusted,
			*f.iter_trusted || !f.iter_bytes ? "" : "untrusted");
	// A move up to a higher class waiting for the data in flight: the low
	// cwnd beside it is the hold's, for about a round trip.
	if (f.prio_held)
		p.field("prio_held", *f.prio_held, *f.prio_held ? "held" : "");
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
	// Where the backend reports them (bpf): the socket's DSCP and the
	// progress-priority class it is of.
	if (f.dscp) {
		p.field("dscp", *f.dscp, "dscp " + std::to_string(*f.dscp));
		p.field("class", f.prio_class ? nlohmann::json(*f.prio_class) : nlohmann::json(nullptr),
			"class " + (f.prio_class ? std::to_string(*f.prio_class) : std::string("-")));
	}
	p.end_object();
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
