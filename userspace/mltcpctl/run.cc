// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include "cgroup.h"
#include "netlink.h"
#include "uapi/mltcp.h"

namespace mltcpctl
{
namespace
{

// How many ids an automatic choice tries when others take them meanwhile.
constexpr int kIdAttempts = 16;
// How long the processes left in the cgroup get to die once killed.
constexpr auto kKillWait = std::chrono::seconds(5);

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

void write_file(const std::string &path, const std::string &text)
{
	int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, text.data(), text.size());
		close(fd);
	}
	if (n != static_cast<ssize_t>(text.size()))
		throw Error(path + ": " + strerror(errno));
}

bool populated(const std::string &dir)
{
	std::ifstream in(dir + "/cgroup.events");
	std::string key, value;

	while (in >> key >> value)
		if (key == "populated")
			return value != "0";
	return false;
}

// The command's cgroup: made here, and at the end emptied (cgroup.kill,
// 5.14+) and removed.
class RunCgroup
{
public:
	explicit RunCgroup(const Command &cmd)
	{
		std::string parent = cmd.run_parent.empty() ? own_cgroup()
							    : cgroup_relative_path(cmd.run_parent);
		if (parent == "/")
			parent.clear();
		relative_ = parent + "/mltcp-run-" + std::to_string(getpid());
		dir_ = cgroup2_mount() + relative_;
		if (mkdir(dir_.c_str(), 0755) != 0)
			throw Error("run: cgroup " + relative_ + ": " + strerror(errno));
	}
	RunCgroup(const RunCgroup &) = delete;
	RunCgroup &operator=(const RunCgroup &) = delete;
	~RunCgroup()
	{
		if (populated(dir_)) {
			try {
				write_file(dir_ + "/cgroup.kill", "1");
			} catch (const Error &e) {
				std::cerr << "mltcpctl: run: " << e.what() << "\n";
			}
			auto deadline = std::chrono::steady_clock::now() + kKillWait;
			while (populated(dir_) && std::chrono::steady_clock::now() < deadline)
				std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		if (rmdir(dir_.c_str()) != 0)
			std::cerr << "mltcpctl: run: cgroup " << relative_
				  << " left behind: " << strerror(errno) << "\n";
	}
	const std::string &relative() const { return relative_; }
	const std::string &dir() const { return dir_; }

private:
	std::string relative_, dir_;
};

// The job matching the cgroup, deleted at the end.
class RunJob
{
public:
	RunJob(Backend &backend, Job job, const RunCgroup &cgroup) : backend_(backend)
	{
		job.cgroup = Cgroup{ cgroup_id(cgroup.relative()), cgroup.relative() };
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

// The child: into the cgroup, the caller's signal mask back, then COMMAND.
[[noreturn]] void exec_command(const Command &cmd, const RunCgroup &cgroup, uint32_t job,
			       const sigset_t &old_mask)
{
	std::vector<char *> argv;

	try {
		write_file(cgroup.dir() + "/cgroup.procs", "0");
	} catch (const Error &e) {
		std::cerr << "mltcpctl: run: " << e.what() << "\n";
		_exit(127);
	}
	setenv("MLTCP_JOB", std::to_string(job).c_str(), 1);
	setenv("MLTCP_CGROUP", cgroup.relative().c_str(), 1);
	sigprocmask(SIG_SETMASK, &old_mask, nullptr);
	for (const std::string &arg : cmd.run_argv)
		argv.push_back(const_cast<char *>(arg.c_str()));
	argv.push_back(nullptr);
	execvp(argv[0], argv.data());
	std::cerr << "mltcpctl: run: " << cmd.run_argv[0] << ": " << strerror(errno) << "\n";
	_exit(errno == ENOENT ? 127 : 126);
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

int run_in_job(Backend &backend, const Command &cmd)
{
	sigset_t handled, old_mask;

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
	pid_t child = fork();

	if (child < 0)
		throw Error(std::string("run: fork: ") + strerror(errno));
	if (child == 0)
		exec_command(cmd, cgroup, job.id(), old_mask);
	return wait_command(child, handled);
}

} // namespace mltcpctl
