// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "run.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include "cgroup.h"
#include "fd.h"
#include "job.h"
#include "netlink.h"
#include "object.h"
#include "uapi/mltcp.h"

namespace mltcpctl
{
namespace
{

// How many ids an automatic choice tries when others take them meanwhile.
constexpr int kIdAttempts = 16;
// How long the processes left in the cgroup get to die once killed.
constexpr auto kKillWait = std::chrono::seconds(5);
// The child's status when it could not become COMMAND (as a shell's 126:
// found, but could not be run).
constexpr int kCannotRun = 126;

// This process's cgroup v2, relative to the mount ("0::/PATH" in /proc/self/cgroup).
std::string own_cgroup()
{
	std::ifstream in("/proc/self/cgroup");
	std::string line;

	while (std::getline(in, line))
		if (line.compare(0, 3, "0::") == 0)
			return line.substr(3);
	throw Error("run: this process is in no cgroup v2 (no \"0::\" line in /proc/self/cgroup)");
}

// The files of the cgroup are opened relative to its directory's fd, never
// by path: the path may be renamed or replaced while COMMAND runs.
void write_at(int dir, const char *file, const std::string &text)
{
	mltcp::Fd fd(openat(dir, file, O_WRONLY | O_CLOEXEC));

	if (!fd.valid() || write(fd.get(), text.data(), text.size()) !=
				   static_cast<ssize_t>(text.size()))
		throw Error(std::string(file) + ": " + strerror(errno));
}

bool populated(int dir)
{
	mltcp::Fd fd(openat(dir, "cgroup.events", O_RDONLY | O_CLOEXEC));
	char buf[256];
	ssize_t n;

	if (!fd.valid() || (n = read(fd.get(), buf, sizeof(buf) - 1)) <= 0)
		return false;
	buf[n] = '\0';
	const char *p = strstr(buf, "populated ");
	return p && p[strlen("populated ")] != '0';
}

// The command's cgroup: made here, held by its directory's fd (the job's
// id and the child's cgroup both come from that fd), and at the end
// emptied (cgroup.kill, 5.14+) and removed if it is still where it was
// made.
class RunCgroup
{
public:
	explicit RunCgroup(const Command &cmd)
	{
		std::string parent = cmd.run_parent.empty() ? own_cgroup()
							    : cgroup_relative_path(cmd.run_parent);
		if (parent == "/")
			parent.clear();
		name_ = "mltcp-run-" + std::to_string(getpid());
		relative_ = parent + "/" + name_;

		const std::string where = "run: cgroup " + (parent.empty() ? "/" : parent);
		parent_ = mltcp::Fd(
			open((cgroup2_mount() + parent).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
		if (!parent_.valid())
			throw Error(where + ": " + strerror(errno));
		check_cgroup2_dir(parent_.get(), where);
		if (mkdirat(parent_.get(), name_.c_str(), 0755) != 0)
			throw Error("run: cgroup " + relative_ + ": " + strerror(errno));
		try {
			dir_ = mltcp::Fd(openat(parent_.get(), name_.c_str(),
						O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
			if (!dir_.valid())
				throw Error("run: cgroup " + relative_ + ": " + strerror(errno));
			id_ = cgroup_id_at(dir_.get());
		} catch (...) {
			unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR);
			throw;
		}
	}
	RunCgroup(const RunCgroup &) = delete;
	RunCgroup &operator=(const RunCgroup &) = delete;
	~RunCgroup()
	{
		if (populated(dir_.get())) {
			try {
				write_at(dir_.get(), "cgroup.kill", "1");
			} catch (const Error &e) {
				std::cerr << "mltcpctl: run: cgroup " << relative_ << ": "
					  << e.what() << "\n";
			}
			auto deadline = std::chrono::steady_clock::now() + kKillWait;
			while (populated(dir_.get()) && std::chrono::steady_clock::now() < deadline)
				std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		if (!still_named()) {
			std::cerr << "mltcpctl: run: cgroup " << relative_
				  << " left behind: it was moved or replaced\n";
			return;
		}
		if (unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR) != 0)
			std::cerr << "mltcpctl: run: cgroup " << relative_
				  << " left behind: " << strerror(errno) << "\n";
	}
	const std::string &relative() const { return relative_; }
	int fd() const { return dir_.get(); }
	uint64_t id() const { return id_; }

private:
	// Whether the name it was made under still names it: removing by name
	// must not remove whatever took its place.
	bool still_named() const
	{
		struct stat named {}, held {};

		return fstatat(parent_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
		       fstat(dir_.get(), &held) == 0 && named.st_dev == held.st_dev &&
		       named.st_ino == held.st_ino;
	}

	mltcp::Fd parent_, dir_;
	std::string name_, relative_;
	uint64_t id_ = 0;
};

// The job matching the cgroup, deleted at the end.
class RunJob
{
public:
	RunJob(Backend &backend, Job job, const RunCgroup &cgroup) : backend_(backend)
	{
		job.cgroup = Cgroup{ cgroup.id(), cgroup.relative() };
		if (job.id) {
			backend.add_job(job);
			id_ = job.id;
			return;
		}
		for (int attempt = 0; attempt < kIdAttempts; attempt++) {
			std::set<uint32_t> taken;
			for (const Job &j : backend.jobs())
				taken.insert(j.id);
			job.id = 1;
			while (taken.count(job.id))
				job.id++;
			try {
				backend.add_job(job);
				id_ = job.id;
				return;
			} catch (const KernelError &e) {
				if (e.ack.error != EEXIST)
					throw;
			}
		}
		throw Error("run: no free job id after " + std::to_string(kIdAttempts) +
			    " attempts (others are adding jobs)");
	}
	RunJob(const RunJob &) = delete;
	RunJob &operator=(const RunJob &) = delete;
	~RunJob()
	{
		try {
			backend_.del_job(id_);
		} catch (const std::exception &e) {
			std::cerr << "mltcpctl: run: job " << id_ << " left behind: " << e.what()
				  << "\n";
		}
	}
	uint32_t id() const { return id_; }

private:
	Backend &backend_;
	uint32_t id_ = 0;
};

bool is_id(const std::string &text)
{
	return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// The getpw*_r/getgr*_r calls: a buffer grown on ERANGE; "not found" is
// 0 with no result, or one of the errors the manual lists for it.
template <typename Entry, typename Lookup>
bool lookup(Lookup call, Entry *entry, std::vector<char> &buf, const std::string &what)
{
	Entry *result = nullptr;
	int err;

	buf.resize(1024);
	while ((err = call(entry, buf.data(), buf.size(), &result)) == ERANGE &&
	       buf.size() < (1 << 24))
		buf.resize(buf.size() * 2);
	if (result)
		return true;
	if (err == 0 || err == ENOENT || err == ESRCH || err == EBADF || err == EPERM)
		return false;
	throw Error("run: " + what + ": cannot look it up: " + strerror(err));
}

std::vector<gid_t> groups_of(const std::string &name, gid_t gid)
{
	std::vector<gid_t> groups(32);
	int n = static_cast<int>(groups.size());

	while (getgrouplist(name.c_str(), gid, groups.data(), &n) < 0) {
		groups.resize(std::max<size_t>(static_cast<size_t>(n), groups.size() * 2));
		n = static_cast<int>(groups.size());
	}
	groups.resize(static_cast<size_t>(n));
	return groups;
}

std::string text_of(const char *what)
{
	return std::string(what) + ": " + strerror(errno);
}

// After the drop: ids as asked, the groups as set, every capability set
// empty, no_new_privs on, and neither uid 0 nor gid 0 to be had back.
std::string check_dropped(const Credentials &c)
{
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;

	if (c.gid && (getresgid(&rgid, &egid, &sgid) != 0 || rgid != *c.gid || egid != *c.gid ||
		      sgid != *c.gid))
		return "gid not changed";
	if (!c.uid)
		return "";
	if (getresuid(&ruid, &euid, &suid) != 0 || ruid != *c.uid || euid != *c.uid ||
	    suid != *c.uid)
		return "uid not changed";

	std::vector<gid_t> have(static_cast<size_t>(std::max(getgroups(0, nullptr), 0)));
	std::vector<gid_t> want = c.groups;
	if (getgroups(static_cast<int>(have.size()), have.data()) < 0)
		return text_of("getgroups");
	std::sort(have.begin(), have.end());
	std::sort(want.begin(), want.end());
	if (have != want)
		return "supplementary groups not changed";

	__user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
	__user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {};
	if (syscall(SYS_capget, &header, caps) != 0)
		return text_of("capget");
	for (const auto &set : caps)
		if (set.effective || set.permitted || set.inheritable)
			return "capabilities left";
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return "no_new_privs not set";
	if (setuid(0) == 0 || errno != EPERM)
		return "uid 0 can be regained";
	if (*c.gid != 0 && (setgid(0) == 0 || errno != EPERM))
		return "gid 0 can be regained";
	return "";
}

// The child, now in the cgroup: the environment, the credentials, the
// caller's signal mask back, then COMMAND. It returns to nothing: the
// parent's RAII owners (job, cgroup) must not run their destructors here.
[[noreturn]] void exec_command(const Command &cmd, const RunCgroup &cgroup, uint32_t job,
			       const Credentials &creds, const sigset_t &old_mask) noexcept
{
	try {
		std::vector<char *> argv;

		setenv("MLTCP_JOB", std::to_string(job).c_str(), 1);
		setenv("MLTCP_CGROUP", cgroup.relative().c_str(), 1);
		// As su without -l: a program that writes to ~ (caches, checkpoints)
		// must not aim at root's home.
		if (creds.uid && !creds.name.empty()) {
			setenv("HOME", creds.home.c_str(), 1);
			setenv("USER", creds.name.c_str(), 1);
			setenv("LOGNAME", creds.name.c_str(), 1);
		}
		std::string err = drop_privileges(creds);
		if (!err.empty()) {
			std::cerr << "mltcpctl: run: "
				  << (cmd.run_user.empty() ? "group " + cmd.run_group
							   : "user " + cmd.run_user)
				  << ": " << err << "\n";
			_exit(kCannotRun);
		}
		sigprocmask(SIG_SETMASK, &old_mask, nullptr);
		for (const std::string &arg : cmd.run_argv)
			argv.push_back(const_cast<char *>(arg.c_str()));
		argv.push_back(nullptr);
		execvp(argv[0], argv.data());
		std::cerr << "mltcpctl: run: " << cmd.run_argv[0] << ": " << strerror(errno)
			  << "\n";
		_exit(errno == ENOENT ? 127 : kCannotRun);
	} catch (...) {
		_exit(kCannotRun);
	}
}

// Waits for the child, passing on the signals sent to us; its exit status.
int wait_command(pid_t child, const sigset_t &handled)
{
	for (;;) {
		siginfo_t info{};
		int status = 0;

		if (sigwaitinfo(&handled, &info) < 0) {
			if (errno == EINTR)
				continue;
			throw Error(std::string("run: sigwaitinfo: ") + strerror(errno));
		}
		if (info.si_signo != SIGCHLD) {
			// A terminal's ^C reaches the whole foreground group already.
			if (info.si_code == SI_USER || info.si_code == SI_QUEUE)
				kill(child, info.si_signo);
			continue;
		}
		pid_t done = waitpid(child, &status, WNOHANG);
		if (done != child)
			continue;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
	}
}

} // namespace

Credentials resolve_credentials(const std::string &user, const std::string &group)
{
	Credentials c;
	std::vector<char> buf;

	if (!group.empty()) {
		if (is_id(group)) {
			c.gid = static_cast<gid_t>(std::stoul(group));
		} else {
			struct group entry {};
			if (!lookup<struct group>(
				    [&](struct group *e, char *b, size_t n, struct group **r) {
					    return getgrnam_r(group.c_str(), e, b, n, r);
				    },
				    &entry, buf, "group " + group))
				throw Error("run: group " + group + ": no such group");
			c.gid = entry.gr_gid;
		}
	}
	if (user.empty())
		return c;

	struct passwd entry {};
	bool found;
	if (is_id(user)) {
		const uid_t uid = static_cast<uid_t>(std::stoul(user));
		found = lookup<struct passwd>(
			[&](struct passwd *e, char *b, size_t n, struct passwd **r) {
				return getpwuid_r(uid, e, b, n, r);
			},
			&entry, buf, "user " + user);
		c.uid = uid;
	} else {
		found = lookup<struct passwd>(
			[&](struct passwd *e, char *b, size_t n, struct passwd **r) {
				return getpwnam_r(user.c_str(), e, b, n, r);
			},
			&entry, buf, "user " + user);
		if (!found)
			throw Error("run: user " + user + ": no such user");
		c.uid = entry.pw_uid;
	}
	if (*c.uid == 0)
		throw Error("run: user " + user +
			    ": uid 0 would keep root's privileges (leave user out to run COMMAND "
			    "as the caller)");
	if (!found) {
		if (!c.gid)
			throw Error("run: user " + user +
				    ": not in the user database, so it has no group: give group "
				    "GID too");
		return c;
	}
	c.name = entry.pw_name;
	c.home = entry.pw_dir;
	if (!c.gid)
		c.gid = entry.pw_gid;
	// The groups of a login (initgroups()): those of the entry's own gid
	// and every group listing the user; "group" changes the primary only.
	c.groups = groups_of(c.name, entry.pw_gid);
	return c;
}

// The glibc wrappers are safe here although the child of clone3() is not
// one glibc made: mltcpctl starts no thread, so they make the plain
// system call for this one thread, which is the whole child.
std::string drop_privileges(const Credentials &c)
{
	if (c.uid) {
		// Before setuid: set later, a failure would leave a child that
		// has dropped root but may gain it back through a setuid program.
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			return text_of("no_new_privs");
		if (setgroups(c.groups.size(), c.groups.data()) != 0)
			return text_of("setgroups");
	}
	if (c.gid && setresgid(*c.gid, *c.gid, *c.gid) != 0)
		return text_of("setgid");
	if (c.uid) {
		if (setresuid(*c.uid, *c.uid, *c.uid) != 0)
			return text_of("setuid");
		// setuid() empties the effective and permitted sets only without
		// SECBIT_KEEP_CAPS or SECBIT_NO_SETUID_FIXUP, which a launcher may
		// have locked on; and it leaves the inheritable set. Lowering is
		// always allowed.
		__user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
		__user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
		if (syscall(SYS_capset, &header, none) != 0)
			return text_of("capset");
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
			return text_of("clearing the ambient capabilities");
	}
	return check_dropped(c);
}

pid_t spawn_in_cgroup(int cgroup_fd, bool *forked)
{
	struct clone_args args {};

	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = static_cast<uint64_t>(cgroup_fd);
	long pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid >= 0) {
		if (pid > 0 && forked)
			*forked = false;
		return static_cast<pid_t>(pid);
	}
	if (errno != ENOSYS)
		throw Error(std::string("run: clone3 into the cgroup: ") + strerror(errno));

	// A seccomp profile that hides clone3 (so that glibc falls back to
	// clone) answers ENOSYS. The child then joins the cgroup itself, still
	// through the directory's fd, before it can open a socket or exec.
	pid = fork();
	if (pid < 0)
		throw Error(std::string("run: fork: ") + strerror(errno));
	if (pid > 0) {
		if (forked)
			*forked = true;
		return static_cast<pid_t>(pid);
	}
	try {
		write_at(cgroup_fd, "cgroup.procs", "0");
	} catch (const Error &e) {
		std::cerr << "mltcpctl: run: joining the cgroup: " << e.what() << "\n";
		_exit(kCannotRun);
	}
	return 0;
}

int run_in_job(Backend &backend, const Command &cmd)
{
	sigset_t handled, old_mask;
	Credentials creds;

	// Looked up first: an unknown user or group leaves nothing made.
	if (!cmd.run_user.empty() || !cmd.run_group.empty())
		creds = resolve_credentials(cmd.run_user, cmd.run_group);

	// Blocked before the cgroup exists, so that a signal cannot leave it
	// behind. SIGCHLD must not be ignored (a launcher may have ignored it):
	// an ignored SIGCHLD is never sent, and the child is reaped unseen.
	// The others keep their dispositions, which COMMAND inherits (nohup).
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&handled);
	for (int sig : { SIGINT, SIGTERM, SIGHUP, SIGCHLD })
		sigaddset(&handled, sig);
	sigprocmask(SIG_BLOCK, &handled, &old_mask);

	RunCgroup cgroup(cmd);
	RunJob job(backend, cmd.job, cgroup);
	pid_t child = spawn_in_cgroup(cgroup.fd());

	if (child == 0)
		exec_command(cmd, cgroup, job.id(), creds, old_mask);
	return wait_command(child, handled);
}

namespace
{

// "user NAME|UID" or "group NAME|GID" of run, checked but not looked up.
// Digits are an id (useradd and groupadd refuse names of digits only);
// uid 0 is refused because "user" promises a dropped privilege, and
// (uid_t)-1 means "unchanged" to the kernel. A name may hold neither ':'
// (the user database's separator) nor a control character, so that the
// lookup's error stays one line.
std::string parse_run_id(std::string_view key, std::string_view text)
{
	const std::string what = key == "user" ? "user" : "group";

	if (text.empty())
		fail(what + ": empty " + what);
	if (text.find_first_not_of("0123456789") == std::string_view::npos) {
		auto id = parse_uint(text);
		if (!id || *id >= kMaxU32)
			fail(range_error(key, text, what == "user" ? "1" : "0",
					 std::to_string(kMaxU32 - 1)));
		if (what == "user" && *id == 0)
			fail("user " + std::string(text) +
			     ": uid 0 would keep root's privileges (leave user out to run "
			     "COMMAND as the caller)");
		return std::string(text);
	}
	for (unsigned char c : text)
		if (c < 0x20 || c == 0x7f || c == ':')
			fail(what + " \"" + std::string(text) + "\": not a " + what +
			     " name or id");
	return std::string(text);
}

// The first job id run may not take: from here up, contrib/slurm's.
constexpr uint32_t kRunJobIdLimit = 2147483648u;

// run [job ID] [parent PATH] [user USER] [group GROUP] [MATCH]... [SETTING]...
//     -- COMMAND [ARG]...
void parse_run(Args &a, Command &cmd)
{
	std::vector<std::string> words;

	// "help" is run's only when it comes first: later it would drop the
	// settings already parsed into a command that is not run.
	if (!a.done() && a.peek() == "help") {
		a.next();
		help_of(a, cmd, "run");
		return;
	}
	cmd.action = Action::Run;
	while (!a.done() && a.peek() != "--") {
		std::string_view word = a.next();

		if (word == "job") {
			std::string_view value = a.value(word);
			if (cmd.job.id)
				fail("job given twice");
			cmd.job.id = parse_job_id(value);
			// The Slurm prolog adds 2^31 + SLURM_JOB_ID; a run there would
			// make a Slurm job's prolog fail and drain the node.
			if (cmd.job.id >= kRunJobIdLimit)
				fail(range_error("job ID", value, "1", std::to_string(kRunJobIdLimit - 1)) +
				     ": the ids above are the Slurm hooks'");
			continue;
		}
		if (word == "parent") {
			std::string_view value = a.value(word);
			if (!cmd.run_parent.empty())
				fail("parent given twice");
			if (value.empty())
				fail("parent: empty path");
			cmd.run_parent = std::string(value);
			continue;
		}
		if (word == "user" || word == "group") {
			std::string &field = word == "user" ? cmd.run_user : cmd.run_group;
			std::string_view value = a.value(word);
			if (!field.empty())
				fail(std::string(word) + " given twice");
			field = parse_run_id(word, value);
			continue;
		}
		words.emplace_back(word);
	}
	if (a.done())
		fail("run: \"--\" and a command must follow the job's settings");
	a.next();
	if (a.done())
		fail("run: no command after \"--\"");
	while (!a.done())
		cmd.run_argv.emplace_back(a.next());

	Args job_words(words);
	parse_job_args(job_words, cmd.job, false);
	if (cmd.job.cgroup)
		fail("run: the job matches the command's own cgroup; give no cgroup");
}

std::string run_help()
{
	return "       mltcpctl [OPTIONS] run [job ID] [parent PATH] [user USER] [group GROUP]\n"
	       "                              [MATCH]... [SETTING]... -- COMMAND [ARG]...\n"
	       "USER := { NAME | UID }  GROUP := { NAME | GID }\n"
	       "  Runs COMMAND in a new cgroup with a job that matches it (and the other\n"
	       "  criteria given), then removes both; exits with COMMAND's status (128+N if\n"
	       "  killed by signal N). The cgroup is made under PATH (default: the caller's\n"
	       "  own cgroup); the job takes ID (default: the lowest free one; below\n"
	       "  2147483648, the ids from there up are the Slurm hooks'). COMMAND sees\n"
	       "  MLTCP_JOB and MLTCP_CGROUP. SIGINT, SIGTERM and SIGHUP sent to mltcpctl go\n"
	       "  to COMMAND; processes left in the cgroup when it exits are killed.\n"
	       "  user: COMMAND runs as USER, with USER's groups and primary group (GROUP's\n"
	       "  if given), no capabilities and no_new_privs (setuid programs and file\n"
	       "  capabilities grant nothing); group alone: the gid only, COMMAND stays root.\n";
}

std::string run_and_job_help()
{
	return run_help() + job_object.help();
}

int run_run(const Command &cmd, std::ostream &)
{
	return run_in_job(*open_backend(cmd.options, true), cmd);
}

} // namespace

const Object run_object = {
	"run",
	"run [MATCH]... [SETTING]... -- COMMAND",
	"COMMAND in a job of its own",
	parse_run,
	run_and_job_help,
	run_run,
};

} // namespace mltcpctl
