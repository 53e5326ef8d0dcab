// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Which backend mltcpctl picks, from what it probed: no kernel involved.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "backend.h"
#include "mltcpctl.h"

using namespace mltcpctl;

namespace
{

Selection pick(BackendKind requested, bool kmod, PinState bpf)
{
	Probe p;
	p.kmod = kmod;
	p.bpf = bpf;
	Selection s = select_backend(requested, p);
	EXPECT_NE(s.kind.has_value(), !s.error.empty());
	EXPECT_EQ(s.error.find('\n'), std::string::npos);
	return s;
}

} // namespace

TEST(Backend, AutoPrefersTheModule)
{
	for (PinState bpf : { PinState::Present, PinState::Absent, PinState::NoAccess,
			       PinState::Hidden })
		EXPECT_EQ(pick(BackendKind::Auto, true, bpf).kind, BackendKind::Kmod);
}

TEST(Backend, AutoFallsBackToBpfWhenPinned)
{
	EXPECT_EQ(pick(BackendKind::Auto, false, PinState::Present).kind, BackendKind::Bpf);
}

TEST(Backend, AutoWithNeitherNamesBoth)
{
	Selection s = pick(BackendKind::Auto, false, PinState::Absent);
	EXPECT_FALSE(s.kind);
	EXPECT_NE(s.error.find("tcp_mltcp module is not loaded"), std::string::npos) << s.error;
	EXPECT_NE(s.error.find("BPF backend is not loaded"), std::string::npos) << s.error;
	EXPECT_NE(s.error.find("/sys/fs/bpf/mltcp"), std::string::npos) << s.error;
}

TEST(Backend, AutoWithNeitherSaysHowToGetOne)
{
	Selection s = pick(BackendKind::Auto, false, PinState::Absent);
	EXPECT_NE(s.error.find("modprobe tcp_mltcp"), std::string::npos) << s.error;
	EXPECT_NE(s.error.find("mltcpctl bpf load"), std::string::npos) << s.error;
}

TEST(Backend, AutoUnprivilegedSaysWhyItCannotTell)
{
	Selection s = pick(BackendKind::Auto, false, PinState::NoAccess);
	EXPECT_FALSE(s.kind);
	EXPECT_NE(s.error.find("only root"), std::string::npos) << s.error;
}

TEST(Backend, OverrideKmod)
{
	EXPECT_EQ(pick(BackendKind::Kmod, true, PinState::Present).kind, BackendKind::Kmod);
	Selection s = pick(BackendKind::Kmod, false, PinState::Present);
	EXPECT_FALSE(s.kind);
	EXPECT_EQ(s.error, "the tcp_mltcp module is not loaded (no generic netlink family "
			   "\"mltcp\")");
}

TEST(Backend, OverrideBpf)
{
	EXPECT_EQ(pick(BackendKind::Bpf, true, PinState::Present).kind, BackendKind::Bpf);
	Selection s = pick(BackendKind::Bpf, true, PinState::Absent);
	EXPECT_FALSE(s.kind);
	EXPECT_NE(s.error.find("BPF backend is not loaded"), std::string::npos) << s.error;
	s = pick(BackendKind::Bpf, false, PinState::NoAccess);
	EXPECT_NE(s.error.find("permission denied"), std::string::npos) << s.error;
}

TEST(Backend, OptionParsing)
{
	auto backend = [](std::vector<std::string> args) {
		ParseResult r = parse_args(args);
		EXPECT_TRUE(r.command) << r.error;
		return r.command ? r.command->options.backend : BackendKind::Auto;
	};
	EXPECT_EQ(backend({ "flow", "show" }), BackendKind::Auto);
	EXPECT_EQ(backend({ "-b", "bpf", "flow", "show" }), BackendKind::Bpf);
	EXPECT_EQ(backend({ "--backend", "kmod", "job" }), BackendKind::Kmod);
	EXPECT_EQ(backend({ "-backend", "auto", "job", "show" }), BackendKind::Auto);
	EXPECT_EQ(backend({ "-j", "-b", "b", "job", "show" }), BackendKind::Bpf);

	ParseResult r = parse_args({ "-b", "ebpf", "job", "show" });
	EXPECT_FALSE(r.command);
	EXPECT_EQ(r.error, "unknown backend \"ebpf\"");
	r = parse_args({ "-b" });
	EXPECT_FALSE(r.command);
	EXPECT_EQ(r.error, "-b needs a value");
}

TEST(Backend, BpfObjectIsTheBackendsLifeCycle)
{
	ParseResult r = parse_args({ "-j", "bpf", "load", "slope", "2" });
	ASSERT_TRUE(r.command) << r.error;
	EXPECT_EQ(r.command->action, Action::BpfLoad);
	EXPECT_TRUE(r.command->options.json);
	EXPECT_TRUE(r.command->settings.has(MLTCP_PARAM_SLOPE));
	EXPECT_EQ(r.command->settings.values.slope, 2048);
	r = parse_args({ "-b", "kmod", "bpf", "status" });
	EXPECT_FALSE(r.command);
	EXPECT_EQ(r.error, "bpf: manages the BPF backend, not \"-b kmod\"");
}

// The pins are looked for where `bpf load` puts them, then through PID 1's
// root: `ip netns exec` hides the first under a sysfs of its own.
TEST(Backend, PinDirsAreTheLoadersThenInitsMountNamespace)
{
	const std::vector<std::string> &dirs = bpf_pin_dirs();
	ASSERT_EQ(dirs.size(), 2U);
	EXPECT_EQ(dirs[0], "/sys/fs/bpf/mltcp");
	EXPECT_EQ(dirs[1], "/proc/1/root/sys/fs/bpf/mltcp");
}

TEST(Backend, ProbePinTakesTheFirstPlaceThatHasThePins)
{
	char tmpl[] = "/tmp/mltcp-pins-XXXXXX";
	ASSERT_NE(mkdtemp(tmpl), nullptr);
	const std::string top = tmpl, missing = top + "/missing", pins = top + "/pins";
	ASSERT_EQ(mkdir(pins.c_str(), 0700), 0);
	std::string found;

	EXPECT_EQ(probe_pin({ missing, pins }, &found), PinState::Present);
	EXPECT_EQ(found, pins);
	found.clear();
	EXPECT_EQ(probe_pin({ pins, missing }, &found), PinState::Present);
	EXPECT_EQ(found, pins);
	found.clear();
	EXPECT_EQ(probe_pin({ missing, missing + "2" }, &found), PinState::Absent);
	EXPECT_TRUE(found.empty());
	rmdir(pins.c_str());
	rmdir(top.c_str());
}

// Pins hidden by a private sysfs: said so, with the two ways out, not "not loaded".
TEST(Backend, HiddenPinsSayWhereToLookNotThatNothingIsLoaded)
{
	for (BackendKind kind : { BackendKind::Bpf, BackendKind::Auto }) {
		Selection s = pick(kind, false, PinState::Hidden);
		EXPECT_FALSE(s.kind);
		EXPECT_EQ(s.error.find("BPF backend is not loaded"), std::string::npos) << s.error;
		EXPECT_NE(s.error.find("cannot be seen from here"), std::string::npos) << s.error;
		EXPECT_NE(s.error.find("nsenter --net"), std::string::npos) << s.error;
		EXPECT_NE(s.error.find("/proc/1/root"), std::string::npos) << s.error;
	}
	EXPECT_NE(pick(BackendKind::Auto, false, PinState::Hidden).error.find("module is not loaded"),
		  std::string::npos);
}
