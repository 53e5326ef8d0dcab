// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl run"'s process side, without a datapath: user and group looked
// up (names from Debian's base passwd: root, nobody, nogroup), the drop of
// privileges in a child (as root), and a child started inside a cgroup by
// its directory's fd, through clone3 and, with clone3 hidden by seccomp as
// container profiles hide it, through the fork fallback (as root, with a
// writable cgroup2). The end-to-end tests are tests/datapath/test_cgroup.py.
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "cgroup.h"
#include "fd.h"
#include "netlink.h"
#include "run.h"

namespace mltcpctl
{
namespace
{

std::string thrown(const std::function<void()> &f)
{
	try {
		f();
	} catch (const Error &e) {
		return e.what();
	}
	return "(nothing thrown)";
}

std::vector<gid_t> sorted(std::vector<gid_t> v)
{
	std::sort(v.begin(), v.end());
	return v;
}

// f runs in a child; what it writes to the fd it is given comes back.
std::string in_child(const std::function<void(int)> &f, int *status = nullptr)
{
	int fds[2];
	std::string out;
	char buf[512];
	ssize_t n;
	int st = 0;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return "pipe failed";
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		f(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		out.append(buf, static_cast<size_t>(n));
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (status)
		*status = st;
	return out;
}

void say(int fd, const std::string &text)
{
	ssize_t n = write(fd, text.data(), text.size());
	(void)n;
}

// "Uid", "Gid", "Groups", "CapInh", ... lines of /proc/self/status.
std::string status_line(const std::string &key)
{
	std::ifstream in("/proc/self/status");
	std::string line;

	while (std::getline(in, line))
		if (line.compare(0, key.size() + 1, key + ":") == 0) {
			std::string value = line.substr(key.size() + 1);
			value.erase(0, value.find_first_not_of(" \t"));
			return value;
		}
	return "?";
}

std::string identity()
{
	std::ostringstream out;

	for (const char *key : { "Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapAmb",
				 "NoNewPrivs" })
		out << key << "=" << status_line(key) << ";";
	return out.str();
}

TEST(Run, ResolveUserByNameAndId)
{
	struct passwd *pw = getpwnam("nobody");
	ASSERT_NE(pw, nullptr) << "no user nobody (Debian's base-passwd has one)";
	const uid_t uid = pw->pw_uid;
	const gid_t gid = pw->pw_gid;

	Credentials c = resolve_credentials("nobody", "");
	EXPECT_EQ(c.uid, uid);
	EXPECT_EQ(c.gid, gid);
	EXPECT_EQ(c.name, "nobody");
	EXPECT_FALSE(c.home.empty());
	ASSERT_FALSE(c.groups.empty());
	EXPECT_NE(std::find(c.groups.begin(), c.groups.end(), gid), c.groups.end())
		<< "initgroups' list has the user's own gid";

	Credentials by_id = resolve_credentials(std::to_string(uid), "");
	EXPECT_EQ(by_id.uid, uid);
	EXPECT_EQ(by_id.gid, gid) << "a uid with an entry is that entry";
	EXPECT_EQ(by_id.name, "nobody");
	EXPECT_EQ(sorted(by_id.groups), sorted(c.groups));

	// group changes the primary gid; the supplementary groups stay the user's.
	Credentials with_group = resolve_credentials("nobody", "0");
	EXPECT_EQ(with_group.gid, 0u);
	EXPECT_EQ(sorted(with_group.groups), sorted(c.groups));
}

TEST(Run, ResolveGroupAlone)
{
	Credentials c = resolve_credentials("", "4242");
	EXPECT_FALSE(c.uid);
	EXPECT_EQ(c.gid, 4242u) << "a gid needs no entry";
	EXPECT_TRUE(c.groups.empty());
	if (struct group *gr = getgrnam("nogroup")) {
		EXPECT_EQ(resolve_credentials("", "nogroup").gid, gr->gr_gid);
	}
}

TEST(Run, ResolveUidWithoutEntry)
{
	const uid_t uid = 4000000123u;
	ASSERT_EQ(getpwuid(uid), nullptr) << "uid " << uid << " has an entry here";
	EXPECT_EQ(thrown([&] { resolve_credentials(std::to_string(uid), ""); }),
		  "run: user 4000000123: not in the user database, so it has no group: give "
		  "group GID too");
	Credentials c = resolve_credentials(std::to_string(uid), "4242");
	EXPECT_EQ(c.uid, uid);
	EXPECT_EQ(c.gid, 4242u);
	EXPECT_TRUE(c.groups.empty()) << "no entry, no supplementary groups";
	EXPECT_TRUE(c.name.empty());
}

TEST(Run, ResolveRefusals)
{
	EXPECT_EQ(thrown([] { resolve_credentials("mltcp-no-such-user", ""); }),
		  "run: user mltcp-no-such-user: no such user");
	EXPECT_EQ(thrown([] { resolve_credentials("nobody", "mltcp-no-such-group"); }),
		  "run: group mltcp-no-such-group: no such group");
	EXPECT_EQ(thrown([] { resolve_credentials("", "mltcp-no-such-group"); }),
		  "run: group mltcp-no-such-group: no such group");
	EXPECT_EQ(thrown([] { resolve_credentials("root", ""); }),
		  "run: user root: uid 0 would keep root's privileges (leave user out to run "
		  "COMMAND as the caller)");
}

class AsRoot : public ::testing::Test
{
protected:
	void SetUp() override
	{
		ASSERT_EQ(geteuid(), 0u) << "the privilege drop is tested as root (scripts/test runs so)";
	}
};

TEST_F(AsRoot, DropToAUserLeavesNothingToRegain)
{
	Credentials c;
	c.uid = 65534;
	c.gid = 65533;
	c.groups = { 4243, 65534, 4242 };
	std::string got = in_child([&](int out) {
		// A launcher may leave inheritable capabilities, which setuid() keeps.
		__user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
		__user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {};
		syscall(SYS_capget, &header, caps);
		caps[0].inheritable |= 1U << CAP_NET_ADMIN;
		syscall(SYS_capset, &header, caps);
		if (status_line("CapInh") == "0000000000000000")
			say(out, "inheritable not raised;");
		std::string err = drop_privileges(c);
		say(out, err.empty() ? identity() : "error: " + err);
		// What an exec'ed setuid-root program would count on.
		say(out, std::string("setuid0=") + (setuid(0) == 0 ? "ok" : strerror(errno)) + ";");
		say(out, std::string("setegid0=") + (setegid(0) == 0 ? "ok" : strerror(errno)) +
				 ";");
	});
	EXPECT_EQ(got, "Uid=65534\t65534\t65534\t65534;Gid=65533\t65533\t65533\t65533;"
		       "Groups=4242 4243 65534 ;CapInh=0000000000000000;CapPrm=0000000000000000;"
		       "CapEff=0000000000000000;CapAmb=0000000000000000;NoNewPrivs=1;"
		       "setuid0=Operation not permitted;setegid0=Operation not permitted;");
}

TEST_F(AsRoot, GroupAloneChangesTheGidOnly)
{
	Credentials c;
	c.gid = 4242;
	std::string got = in_child([&](int out) {
		std::string before = status_line("Groups") + ";" + status_line("CapEff");
		std::string err = drop_privileges(c);
		say(out, err.empty() ? status_line("Uid") + ";" + status_line("Gid") + ";" +
					       (before == status_line("Groups") + ";" +
								 status_line("CapEff")
							? "same groups and capabilities"
							: "changed")
				     : "error: " + err);
	});
	EXPECT_EQ(got, "0\t0\t0\t0;4242\t4242\t4242\t4242;same groups and capabilities");
}

TEST_F(AsRoot, DropFailsWithoutThePrivilege)
{
	Credentials c;
	c.uid = 65534;
	c.gid = 65534;
	std::string got = in_child([&](int out) {
		// As a launcher holding CAP_NET_ADMIN but not CAP_SETGID would.
		__user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
		__user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {};
		syscall(SYS_capget, &header, caps);
		caps[0].effective &= ~(1U << CAP_SETGID);
		syscall(SYS_capset, &header, caps);
		say(out, drop_privileges(c));
		say(out, ";uid " + std::to_string(getuid()));
	});
	EXPECT_EQ(got, "setgroups: Operation not permitted;uid 0");
}

// A fresh cgroup below this process's own, removed at the end; skipped
// where cgroup2 is missing or read-only.
class InCgroup : public AsRoot
{
protected:
	void SetUp() override
	{
		AsRoot::SetUp();
		if (IsSkipped())
			return;
		std::ifstream in("/proc/self/cgroup");
		std::string line, own;
		while (std::getline(in, line))
			if (line.compare(0, 3, "0::") == 0)
				own = line.substr(3);
		if (own == "/")
			own.clear();
		try {
			mount_ = cgroup2_mount();
		} catch (const Error &e) {
			FAIL() << e.what();
		}
		const std::string relative = own + "/mltcp-run-test-" + std::to_string(getpid());
		ASSERT_EQ(mkdir((mount_ + relative).c_str(), 0755), 0)
			<< mount_ + relative << ": " << strerror(errno);
		relative_ = relative;
		fd_ = mltcp::Fd(open((mount_ + relative_).c_str(),
				     O_PATH | O_DIRECTORY | O_CLOEXEC));
		ASSERT_TRUE(fd_.valid());
	}
	void TearDown() override
	{
		if (!relative_.empty()) {
			EXPECT_EQ(rmdir((mount_ + relative_).c_str()), 0) << strerror(errno);
		}
	}

	// Spawns through spawn_in_cgroup(); the child writes its cgroup and
	// exits; "forked" or "cloned", then the child's cgroup.
	std::string spawn_and_report()
	{
		int fds[2];
		bool forked = false;
		char buf[512] = "";

		if (pipe2(fds, O_CLOEXEC) != 0)
			return "pipe failed";
		pid_t pid = spawn_in_cgroup(fd_.get(), &forked);
		if (pid == 0) {
			std::ifstream in("/proc/self/cgroup");
			std::string line, mine;
			while (std::getline(in, line))
				if (line.compare(0, 3, "0::") == 0)
					mine = line.substr(3);
			say(fds[1], mine);
			_exit(0);
		}
		close(fds[1]);
		ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
		close(fds[0]);
		int status = 0;
		waitpid(pid, &status, 0);
		return std::string(forked ? "forked " : "cloned ") +
		       std::string(buf, static_cast<size_t>(std::max<ssize_t>(n, 0)));
	}

	std::string mount_, relative_;
	mltcp::Fd fd_;
};

TEST_F(InCgroup, Clone3StartsTheChildInTheCgroup)
{
	EXPECT_EQ(spawn_and_report(), "cloned " + relative_);
	EXPECT_EQ(cgroup_id_at(fd_.get()), cgroup_id(relative_)) << "the id the job gets";
}

TEST_F(InCgroup, WithClone3HiddenTheForkedChildJoinsByTheFd)
{
	std::string got = in_child([&](int out) {
		struct sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { static_cast<unsigned short>(std::size(filter)), filter };
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
			say(out, std::string("seccomp: ") + strerror(errno));
			return;
		}
		say(out, spawn_and_report());
	});
	EXPECT_EQ(got, "forked " + relative_);
}

// cgroup2 refuses renames, but an empty cgroup can be removed and another
// made at its path before the child joins: the fd still names the first,
// and the child is not started (clone3 fails: ENOENT or ENODEV by kernel)
// or does not join (fork: its cgroup.procs is gone) rather than land in
// the second.
TEST_F(InCgroup, AReplacedCgroupIsNotJoined)
{
	ASSERT_EQ(rmdir((mount_ + relative_).c_str()), 0);
	ASSERT_EQ(mkdir((mount_ + relative_).c_str(), 0755), 0);

	std::string err = thrown([&] {
		if (spawn_in_cgroup(fd_.get()) == 0)
			_exit(0);
	});
	EXPECT_EQ(err.rfind("run: clone3 into the cgroup: No such ", 0), 0u) << err;
	EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "no child";

	int status = 0;
	std::string got = in_child(
		[&](int out) {
			struct sock_filter filter[] = {
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					 offsetof(struct seccomp_data, nr)),
				BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
				BPF_STMT(BPF_RET | BPF_K,
					 SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			};
			struct sock_fprog prog = { static_cast<unsigned short>(std::size(filter)),
						   filter };
			prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
			prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
			bool forked = false;
			pid_t pid = spawn_in_cgroup(fd_.get(), &forked);
			if (pid == 0)
				_exit(0);
			int st = 0;
			waitpid(pid, &st, 0);
			say(out, std::string(forked ? "forked" : "cloned") + ", child status " +
					 std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : -1));
		},
		&status);
	EXPECT_EQ(got, "forked, child status 126") << "it exits before it could exec";
	std::ifstream procs(mount_ + relative_ + "/cgroup.procs");
	std::string line;
	EXPECT_FALSE(std::getline(procs, line)) << "nothing joined the new cgroup: " << line;
}

TEST_F(InCgroup, NotACgroupIsAnErrorAndNoChild)
{
	mltcp::Fd tmp(open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC));
	std::string err = thrown([&] {
		if (spawn_in_cgroup(tmp.get()) == 0)
			_exit(0);
	});
	EXPECT_EQ(err.rfind("run: clone3 into the cgroup: ", 0), 0u) << err;
	EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "no child";
	EXPECT_EQ(errno, ECHILD);
}

} // namespace
} // namespace mltcpctl
