// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl defaults": the defaults of new flows, the module's or the BPF
// backend's.
#include "defaults.h"

#include "backend.h"
#include "mltcp_policy.h"
#include "object.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

// The defaults' settings, in enum mltcp_param order, named as "job" names them.
const std::vector<Keyword<mltcp_param>> kDefaultKeys = {
	{ "slope", MLTCP_PARAM_SLOPE },	      { "intercept", MLTCP_PARAM_INTERCEPT },
	{ "idle-gap", MLTCP_PARAM_IDLE_GAP }, { "base", MLTCP_PARAM_BASE },
	{ "mode", MLTCP_PARAM_MODE },
};

} // namespace

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

void DefaultsChange::apply(mltcp_params &params) const
{
	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		auto which = static_cast<mltcp_param>(i);

		if (has(which))
			mltcp_param_set(&params, which, mltcp_param_get(&values, which));
	}
}

namespace
{

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
	static const std::vector<Keyword<Sub>> commands = {
		{ "show", Sub::Show }, { "list", Sub::Show },  { "ls", Sub::Show },
		{ "set", Sub::Set },   { "change", Sub::Set }, { "help", Sub::Help },
	};
	Sub sub = match(a.next(), commands, "defaults command");
	if (sub == Sub::Help) {
		help_of(a, cmd, "defaults");
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

int run_defaults(const Command &cmd, std::ostream &out)
{
	std::unique_ptr<Backend> backend = open_backend(cmd.options, false);

	if (cmd.action == Action::DefaultsSet) {
		backend->set_defaults(cmd.settings, cmd.global);
		return 0;
	}
	Printer p(out, cmd.options.json, cmd.options.pretty);
	// The BPF backend's defaults are global whatever is asked.
	print_defaults(p, backend->defaults(cmd.global));
	return 0;
}

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

std::string defaults_help()
{
	return "       mltcpctl [OPTIONS] defaults show [global]\n"
	       "       mltcpctl [OPTIONS] defaults set [global] DEFAULT...\n"
	       "DEFAULT := { slope S | intercept I | idle-gap DURATION | base { reno | cubic } |\n"
	       "             mode MODE }\n"
	       "MODE := { ai | md | both | restart | ai-restart | md-restart | both-restart |\n"
	       "          gate | ai-gate | md-gate | both-gate }\n"
	       "  The defaults of new flows. kmod: the network namespace's net.mltcp.*\n"
	       "  sysctls, and the global mode; with \"global\", the module parameters,\n"
	       "  which every namespace follows until it sets its own value (mode is\n"
	       "  global only). bpf: one set for the host; \"set\" needs \"global\".\n";
}

const Object defaults_object = {
	"defaults",
	"defaults { show | set } [global] ...",
	"the defaults of new flows",
	parse_defaults,
	defaults_help,
	run_defaults,
};

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

} // namespace mltcpctl
