// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl defaults": the defaults of new flows, the module's or the BPF
// backend's.
#include "defaults.h"

#include <algorithm>
#include <cstring>

#include "backend.h"
#include "error.h"
#include "mltcp_policy.h"
#include "object.h"
#include "units.h"

namespace mltcpctl
{
namespace
{

// The defaults' settings, in enum mltcp_param order, named as "job" names
// them; then progress priority's, which are not mltcp_params.
enum { PRIO_CLASSES = MLTCP_NR_PARAMS, PRIO_DSCP, PRIO_NONE, NR_DEFAULT_KEYS };
const std::vector<Keyword<int>> kDefaultKeys = {
	{ "slope", MLTCP_PARAM_SLOPE },	      { "intercept", MLTCP_PARAM_INTERCEPT },
	{ "idle-gap", MLTCP_PARAM_IDLE_GAP }, { "base", MLTCP_PARAM_BASE },
	{ "mode", MLTCP_PARAM_MODE },	      { "prio", PRIO_CLASSES },
	{ "prio-dscp", PRIO_DSCP },	      { "prio-none", PRIO_NONE },
};

// "prio K": the number of classes, 0 (off) to MLTCP_PRIO_CLASSES_MAX.
uint8_t parse_prio_classes(std::string_view text)
{
	auto k = parse_uint(text);

	if (!k)
		fail("prio \"" + std::string(text) + "\": not a number of classes (0 to " +
		     std::to_string(MLTCP_PRIO_CLASSES_MAX) + ", 0: off)");
	if (*k > MLTCP_PRIO_CLASSES_MAX)
		fail(range_error("prio", text, "0", std::to_string(MLTCP_PRIO_CLASSES_MAX)));
	return static_cast<uint8_t>(*k);
}

// "prio-dscp D0,D1,...": one DSCP per class, class 0 (the lowest) first.
std::vector<uint8_t> parse_prio_dscp(std::string_view text)
{
	std::vector<uint8_t> dscp;

	for (;;) {
		size_t comma = text.find(',');
		std::string_view item = text.substr(0, comma);

		if (item.empty())
			fail("prio-dscp \"" + std::string(text) +
			     "\": a comma-separated list of DSCPs, class 0 first (e.g. cs1,cs2,cs3,cs4)");
		dscp.push_back(static_cast<uint8_t>(parse_dscp("prio-dscp", item)));
		if (comma == std::string_view::npos)
			break;
		text.remove_prefix(comma + 1);
	}
	if (dscp.size() > MLTCP_PRIO_CLASSES_MAX)
		fail("prio-dscp: " + std::to_string(dscp.size()) + " values, at most " +
		     std::to_string(MLTCP_PRIO_CLASSES_MAX) + " classes");
	return dscp;
}

std::string dscp_list(const mltcp_prio_config &pc)
{
	std::string out;

	for (unsigned c = 0; c < pc.classes && c < MLTCP_PRIO_CLASSES_MAX; c++)
		out += (c ? "," : "") + std::to_string(pc.dscp[c]);
	return out;
}

} // namespace

std::string PrioChange::apply(mltcp_prio_config &pc) const
{
	mltcp_prio_config next = pc;

	if (classes)
		next.classes = *classes;
	if (none_dscp)
		next.none_dscp = *none_dscp;
	if (dscp) {
		if (!next.classes)
			return "prio-dscp: progress priority is off (prio 0); give prio K too";
		if (dscp->size() != next.classes)
			return "prio-dscp: " + std::to_string(dscp->size()) +
			       (dscp->size() == 1 ? " value for " : " values for ") +
			       std::to_string(next.classes) +
			       " classes: one per class, class 0 (the lowest) first";
		for (size_t c = 0; c < dscp->size(); c++)
			next.dscp[c] = (*dscp)[c];
	}
	if (!mltcp_prio_config_valid(&next))
		return "prio-dscp " + dscp_list(next) + " prio-none " +
		       std::to_string(next.none_dscp) +
		       ": each class needs a DSCP of its own, other than prio-none's";
	pc = next;
	return "";
}

// DEFAULT... of "defaults set" and "bpf load".
void parse_defaults_settings(Args &a, DefaultsChange &c)
{
	while (!a.done()) {
		int key = match(a.next(), kDefaultKeys, "setting");
		const char *name = kDefaultKeys[key].name;
		char text[MLTCP_PARAM_TEXT];
		u32 value = 0;

		if (key >= MLTCP_NR_PARAMS) {
			PrioChange &prio = c.prio;
			std::string_view word = a.value(name);

			if ((key == PRIO_CLASSES && prio.classes) || (key == PRIO_DSCP && prio.dscp) ||
			    (key == PRIO_NONE && prio.none_dscp))
				fail(std::string(name) + " given twice");
			if (key == PRIO_CLASSES)
				prio.classes = parse_prio_classes(word);
			else if (key == PRIO_DSCP)
				prio.dscp = parse_prio_dscp(word);
			else
				prio.none_dscp = static_cast<uint8_t>(parse_dscp(name, word));
			continue;
		}
		auto which = static_cast<mltcp_param>(key);
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
	if (!cmd.settings.given && !cmd.settings.prio.given())
		fail("defaults set needs a setting (slope, intercept, idle-gap, base, mode, prio, "
		     "prio-dscp or prio-none)");
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
	       "             mode MODE | prio K | prio-dscp DSCP,... | prio-none DSCP }\n"
	       "MODE := { ai | md | both | restart | ai-restart | md-restart | both-restart |\n"
	       "          gate | ai-gate | md-gate | both-gate }\n"
	       "  The defaults of new flows. kmod: the network namespace's net.mltcp.*\n"
	       "  sysctls, and the global mode; with \"global\", the module parameters,\n"
	       "  which every namespace follows until it sets its own value (mode is\n"
	       "  global only). bpf: one set for the host; \"set\" needs \"global\".\n"
	       "  Progress priority: prio K (0-7, 0 off) puts a flow's packets in one of\n"
	       "  K classes by how far its iteration is, class 0 the lowest; prio-dscp\n"
	       "  gives each class its DSCP, class 0 first (default cs1,cs2,...); prio-none\n"
	       "  the DSCP of a flow that loses its class (default 0). kmod: the\n"
	       "  namespace's net.mltcp.prio_* (not global); bpf: one for the host, with\n"
	       "  or without \"global\". Pure ACKs belong in the top class: ackmark.\n";
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
	// Text only while on: the line of a backend with prio off reads as before.
	if (d.prio)
		p.field("prio", prio_json(*d.prio), d.prio->classes ? prio_text(*d.prio) : "");
	p.end_object();
}

std::string prio_text(const mltcp_prio_config &pc)
{
	std::string text = "prio " + std::to_string(pc.classes);

	if (pc.classes)
		text += " prio-dscp " + dscp_list(pc);
	return text + " prio-none " + std::to_string(pc.none_dscp);
}

nlohmann::json prio_json(const mltcp_prio_config &pc)
{
	nlohmann::json dscp = nlohmann::json::array();

	for (unsigned c = 0; c < pc.classes && c < MLTCP_PRIO_CLASSES_MAX; c++)
		dscp.push_back(pc.dscp[c]);
	return { { "classes", pc.classes }, { "dscp", dscp }, { "none_dscp", pc.none_dscp } };
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

namespace
{

enum PrioKnob { KNOB_CLASSES, KNOB_DSCP, KNOB_NONE, NR_KNOBS };
const char *const kPrioSysctls[NR_KNOBS] = { "prio_classes", "prio_dscp", "prio_none_dscp" };

void set_knob(mltcp_prio_config &pc, int knob, const mltcp_prio_config &to)
{
	if (knob == KNOB_CLASSES)
		pc.classes = to.classes;
	else if (knob == KNOB_DSCP)
		std::memcpy(pc.dscp, to.dscp, sizeof(pc.dscp));
	else
		pc.none_dscp = to.none_dscp;
}

PrioWrite knob_write(int knob, const mltcp_prio_config &pc)
{
	char codes[MLTCP_PARAM_TEXT * 2];

	if (knob == KNOB_CLASSES)
		return { kPrioSysctls[knob], std::to_string(pc.classes) };
	if (knob == KNOB_NONE)
		return { kPrioSysctls[knob], std::to_string(pc.none_dscp) };
	if (mltcp_prio_dscp_format(&pc, codes, sizeof(codes)) < 0)
		throw Error("cannot format the classes' DSCPs");
	return { kPrioSysctls[knob], codes };
}

} // namespace

std::vector<PrioWrite> prio_writes(const mltcp_prio_config &from, const mltcp_prio_config &to)
{
	std::vector<int> knobs;
	std::vector<PrioWrite> out;

	if (from.classes != to.classes)
		knobs.push_back(KNOB_CLASSES);
	if (std::memcmp(from.dscp, to.dscp, sizeof(from.dscp)) != 0)
		knobs.push_back(KNOB_DSCP);
	if (from.none_dscp != to.none_dscp)
		knobs.push_back(KNOB_NONE);
	// At most 3! orders; the first whose every step the kernel would take.
	do {
		mltcp_prio_config pc = from;
		bool ok = true;

		for (int knob : knobs) {
			set_knob(pc, knob, to);
			ok = ok && mltcp_prio_config_valid(&pc);
		}
		if (ok) {
			for (int knob : knobs)
				out.push_back(knob_write(knob, to));
			return out;
		}
	} while (std::next_permutation(knobs.begin(), knobs.end()));
	// Off for the moment: then any codes in range pass, and the classes last.
	mltcp_prio_config off = from;
	off.classes = 0;
	out.push_back(knob_write(KNOB_CLASSES, off));
	for (int knob : { KNOB_DSCP, KNOB_NONE })
		out.push_back(knob_write(knob, to));
	if (to.classes)
		out.push_back(knob_write(KNOB_CLASSES, to));
	return out;
}

} // namespace mltcpctl
