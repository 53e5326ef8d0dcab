// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl bpf": the BPF backend's life cycle, load, unload and status.
#include <iostream>

#include "defaults.h"
#include "error.h"
#include "mltcp_bpf.h"
#include "object.h"

#ifdef MLTCPCTL_BPF
#include "bpf_loader.h"
#endif

namespace mltcpctl
{
namespace
{

void parse_bpf(Args &a, Command &cmd)
{
	if (cmd.options.backend == BackendKind::Kmod)
		fail("bpf: manages the BPF backend, not \"-b kmod\"");
	if (!cmd.options.netns.empty())
		fail("-n: the BPF backend is loaded for the whole host, not per network "
		     "namespace (drop -n)");
	cmd.action = Action::BpfStatus;
	if (a.done())
		return;
	enum class Sub { Load, Unload, Status, Help };
	static const std::vector<Keyword<Sub>> commands = {
		{ "load", Sub::Load },	 { "unload", Sub::Unload }, { "status", Sub::Status },
		{ "show", Sub::Status }, { "help", Sub::Help },
	};
	Sub sub = match(a.next(), commands, "bpf command");
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
	case Sub::Help: help_of(a, cmd, "bpf"); break;
	}
}

std::string bpf_help()
{
	return "       mltcpctl [OPTIONS] bpf { load [DEFAULT]... | unload | status }\n"
	       "  The BPF backend, the module's twin as BPF struct_ops: load registers\n"
	       "  mltcp, mltcp_reno and mltcp_cubic with these defaults and pins them in\n"
	       "  " MLTCP_BPF_PIN_DIR "; sockets using them keep them after unload.\n" +
	       defaults_help();
}

#ifdef MLTCPCTL_BPF
nlohmann::json ops_maps_json(const std::vector<bpf::OpsMap> &maps)
{
	nlohmann::json list = nlohmann::json::array();

	for (const bpf::OpsMap &m : maps)
		list.push_back({ { "name", m.name },
				 { "id", m.id },
				 { "state", bpf::state_name(m.state) } });
	return list;
}

std::string ops_map_text(const bpf::OpsMap &m)
{
	return m.name + " id " + std::to_string(m.id) + " " + bpf::state_name(m.state);
}

void bpf_load(const Command &cmd, std::ostream &out)
{
	mltcp_params params;
	Printer p(out, cmd.options.json, cmd.options.pretty);
	nlohmann::json algorithms = nlohmann::json::array();
	std::string names;

	mltcp_prio_config prio;

	mltcp_params_default(&params);
	cmd.settings.apply(params);
	mltcp_prio_config_default(&prio);
	std::string err = cmd.settings.prio.apply(prio);
	if (!err.empty())
		throw Error(err);
	bpf::Loaded loaded = bpf::load(params, prio);
	if (!loaded.flows)
		std::cerr << "mltcpctl: warning: this kernel cannot load the TCP iterator; "
			     "\"flow show\" will not work\n";
	for (const char *name : bpf::kAlgorithms) {
		algorithms.push_back(name);
		names += std::string(" ") + name;
	}
	p.begin_object();
	p.field("backend", "bpf", "");
	p.field("loaded", true, "loaded" + names);
	p.field("pin_dir", MLTCP_BPF_PIN_DIR, "(pinned in " MLTCP_BPF_PIN_DIR ")");
	p.field("algorithms", algorithms, "");
	p.field("flows", loaded.flows, "");
	p.field("cwnd_stamp", loaded.cwnd_stamp, "");
	p.newline();
	p.field("params", params_json(params), "defaults " + params_text(params));
	p.field("prio", prio_json(prio), prio.classes ? prio_text(prio) : "");
	p.end_object();
}

void bpf_unload(const Command &cmd, std::ostream &out)
{
	bpf::Unloaded u = bpf::unload();
	Printer p(out, cmd.options.json, cmd.options.pretty);
	std::string names, in_use, not_ours;

	for (const std::string &name : u.unloaded)
		names += " " + name;
	for (const bpf::OpsMap &m : u.in_use)
		in_use += " " + m.name + " (map id " + std::to_string(m.id) + ")";
	for (const bpf::OpsMap &m : u.not_ours)
		not_ours += " " + m.name + " (map id " + std::to_string(m.id) + ")";
	p.begin_object();
	p.field("backend", "bpf", "");
	p.field("unloaded", u.unloaded, "unloaded" + names);
	p.newline();
	p.field("in_use", ops_maps_json(u.in_use),
		in_use.empty() ? ""
			       : "still in use by open sockets (or a network namespace's "
				 "default) until they go:" +
					 in_use);
	p.newline();
	p.field("not_ours", ops_maps_json(u.not_ours),
		not_ours.empty() ? ""
				 : "left registered, running programs not loaded by this "
				   "mltcpctl:" +
					   not_ours);
	p.end_object();
}

// What is loaded, printed either way; the status is 1 when the backend is
// not loaded, as "systemctl is-active" answers, for scripts.
int bpf_status(const Command &cmd, std::ostream &out)
{
	bpf::Status st = bpf::status();
	Printer p(out, cmd.options.json, cmd.options.pretty);
	std::string registered, stats_text, ops_text;
	nlohmann::json stats = nullptr;

	for (const std::string &name : st.registered)
		registered += " " + name;
	if (st.stats) {
		stats = nlohmann::json::object();
		stats_text = "stats";
		for (size_t i = 0; i < st.stats->size(); i++) {
			const char *name = bpf::stat_name(static_cast<unsigned>(i));

			stats[name] = (*st.stats)[i];
			stats_text +=
				std::string(" ") + name + " " + std::to_string((*st.stats)[i]);
		}
	}
	p.begin_object();
	p.field("backend", "bpf", "backend bpf");
	p.newline();
	p.field("loaded", st.loaded, std::string("loaded ") + (st.loaded ? "yes" : "no"));
	p.field("pin_dir", MLTCP_BPF_PIN_DIR, "");
	p.field("pinned", st.pinned, st.pinned ? "(pinned in " MLTCP_BPF_PIN_DIR ")" : "");
	p.newline();
	p.field("registered", st.registered,
		"registered" + (registered.empty() ? std::string(" none") : registered));
	p.field("flows", st.flows, "");
	p.newline();
	p.field("params", st.params ? params_json(*st.params) : nlohmann::json(nullptr),
		st.params ? "defaults " + params_text(*st.params) : "");
	p.field("prio", st.prio ? prio_json(*st.prio) : nlohmann::json(nullptr),
		st.prio && st.prio->classes ? prio_text(*st.prio) : "");
	p.newline();
	p.field("stats", stats, stats_text);
	p.newline();
	for (const bpf::OpsMap &m : st.struct_ops)
		ops_text += (ops_text.empty() ? "" : "\n") + std::string("struct_ops ") +
			    ops_map_text(m);
	p.field("struct_ops", ops_maps_json(st.struct_ops), ops_text);
	p.end_object();
	return st.loaded ? 0 : 1;
}
#endif

// "mltcpctl bpf load|unload|status": the BPF backend's life cycle.
int run_bpf(const Command &cmd, std::ostream &out)
{
#ifdef MLTCPCTL_BPF
	bpf::set_debug(cmd.options.debug);
	switch (cmd.action) {
	case Action::BpfLoad: bpf_load(cmd, out); break;
	case Action::BpfUnload: bpf_unload(cmd, out); break;
	default: return bpf_status(cmd, out);
	}
	return 0;
#else
	(void)cmd;
	(void)out;
	throw Error("this mltcpctl was built without the BPF backend (libbpf-dev missing at "
		    "build time)");
#endif
}

} // namespace

const Object bpf_object = {
	"bpf",
	"bpf { load | unload | status }",
	"the BPF backend, the module's twin",
	parse_bpf,
	bpf_help,
	run_bpf,
};

} // namespace mltcpctl
