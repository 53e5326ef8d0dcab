// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libFuzzer target: mltcpctl's command line parser. The input is split at
// NUL bytes into arguments. Whatever it gets, the parser must return either
// a command or a one-line error, and a parsed job or defaults change must be
// within the kernel's ranges (so the parser never lets through what the
// kernel would refuse as out of range); the text a defaults change writes to
// a sysctl must parse, with the kernel's own parser, to the value checked.
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "args.h"
#include "mltcpctl.h"
#include "uapi/mltcp.h"

static void check(bool ok)
{
	if (!ok)
		abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::vector<std::string> args(1);

	for (size_t i = 0; i < size && args.size() <= 64; i++) {
		if (data[i] == '\0')
			args.emplace_back();
		else
			args.back() += static_cast<char>(data[i]);
	}
	mltcpctl::ParseResult r = mltcpctl::parse_args(args);
	if (!r.command) {
		check(!r.error.empty() && r.error.find('\n') == std::string::npos);
		return 0;
	}
	const mltcpctl::Job &j = r.command->job;
	check(!j.slope || *j.slope <= MLTCP_GENL_SLOPE_MAX);
	check(!j.intercept || *j.intercept <= MLTCP_GENL_INTERCEPT_MAX);
	check(!j.idle_gap_us || (*j.idle_gap_us >= MLTCP_GENL_IDLE_GAP_MIN &&
				 *j.idle_gap_us <= MLTCP_GENL_IDLE_GAP_MAX));
	check(!j.iter_bytes || (*j.iter_bytes >= 1 && *j.iter_bytes <= MLTCP_GENL_ITER_BYTES_MAX));
	check(!j.dport || j.dport->min <= j.dport->max);
	check(!j.sport || j.sport->min <= j.sport->max);
	check(!j.peer || j.peer->len <= (j.peer->family == AF_INET ? 32 : 128));
	check(!j.base || *j.base <= MLTCP_GENL_BASE_CUBIC);
	check((j.clear & ~static_cast<uint32_t>(MLTCP_JOB_F_ALL)) == 0);
	// run: a command to run, and the job's cgroup is its own.
	check(r.command->action != mltcpctl::Action::Run ||
	      (!r.command->run_argv.empty() && !j.cgroup));
	// run's user and group: run's only, never uid 0, and no ':' or control
	// character (the lookup's error must stay one line).
	for (const std::string *id : { &r.command->run_user, &r.command->run_group }) {
		check(id->empty() || r.command->action == mltcpctl::Action::Run);
		for (unsigned char c : *id)
			check(c >= 0x20 && c != 0x7f && c != ':');
	}
	check(r.command->run_user.find_first_not_of('0') != std::string::npos ||
	      r.command->run_user.empty());
	// job mark: a step is 1 to 2^32 - 1, and not with follow.
	check(!r.command->step || (*r.command->step >= 1 && !r.command->follow));
	if (j.peer)
		(void)mltcpctl::format_prefix(*j.peer);

	const mltcpctl::DefaultsChange &c = r.command->settings;
	mltcp_params p;
	mltcp_params_default(&p);
	c.apply(p);
	check(mltcp_params_valid(&p));
	check(r.command->action != mltcpctl::Action::DefaultsSet || c.given || c.prio.given());
	// Progress priority's settings, each within its range alone.
	check(!c.prio.classes || *c.prio.classes <= MLTCP_PRIO_CLASSES_MAX);
	check(!c.prio.none_dscp || *c.prio.none_dscp <= MLTCP_DSCP_MAX);
	if (c.prio.dscp) {
		check(!c.prio.dscp->empty() && c.prio.dscp->size() <= MLTCP_PRIO_CLASSES_MAX);
		for (uint8_t d : *c.prio.dscp)
			check(d <= MLTCP_DSCP_MAX);
	}
	check(r.command->action != mltcpctl::Action::DefaultsSet || r.command->global ||
	      !c.has(MLTCP_PARAM_MODE));
	for (int i = 0; i < MLTCP_NR_PARAMS; i++) {
		auto which = static_cast<mltcp_param>(i);
		u32 value;

		if (!c.has(which))
			continue;
		check(mltcp_param_parse(which, c.text[i].c_str(), &value) == 0);
		check(value == mltcp_param_get(&c.values, which));
	}
	(void)mltcpctl::usage(r.command->help_topic);
	return 0;
}
