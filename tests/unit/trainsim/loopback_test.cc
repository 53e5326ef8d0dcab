// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// End-to-end checks of the real mltcp-trainsim binary: workers run as child
// processes on 127.0.0.1 and their JSON logs are checked for the accounting
// (bytes, iteration boundaries, timing) the experiment driver relies on.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "schedule.h"

extern char **environ;

namespace
{

using nlohmann::json;

const char *binary()
{
	const char *path = std::getenv("MLTCP_TRAINSIM");
	return path ? path : MLTCP_TRAINSIM_BINARY;
}

// A port nobody listens on right now: bound to 0, read back, released.
uint16_t free_port()
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	sockaddr_in address{};
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t length = sizeof(address);
	EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)), 0);
	EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length), 0);
	close(fd);
	return ntohs(address.sin_port);
}

double now_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string read_file(const std::string &path)
{
	std::ifstream file(path);
	std::stringstream text;
	text << file.rdbuf();
	return text.str();
}

// A scratch directory for logs, removed at the end of the test.
class TempDir
{
public:
	TempDir()
	{
		char pattern[] = "/tmp/trainsim-test-XXXXXX";
		path_ = mkdtemp(pattern);
	}
	~TempDir()
	{
		std::error_code ignored;
		std::filesystem::remove_all(path_, ignored);
	}
	std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
	std::string path_;
};

// One mltcp-trainsim process with its stderr in a file.
class Worker
{
public:
	Worker(std::vector<std::string> args, std::string stderr_path)
	    : stderr_path_(std::move(stderr_path))
	{
		args.insert(args.begin(), binary());
		std::vector<char *> argv;
		for (auto &arg : args)
			argv.push_back(arg.data());
		argv.push_back(nullptr);
		posix_spawn_file_actions_t actions;
		posix_spawn_file_actions_init(&actions);
		posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path_.c_str(),
						 O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
		posix_spawn_file_actions_destroy(&actions);
		EXPECT_EQ(rc, 0) << "cannot run " << argv[0];
	}
	Worker(Worker &&other) noexcept
	    : pid_(other.pid_), status_(other.status_), stderr_path_(std::move(other.stderr_path_))
	{
		other.pid_ = -1;
	}
	~Worker()
	{
		if (pid_ > 0) {
			kill(pid_, SIGKILL);
			waitpid(pid_, nullptr, 0);
		}
	}

	// Exit status, or -1 if it had to be killed after timeout_s.
	int wait(double timeout_s = 15)
	{
		auto deadline =
			std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
		while (pid_ > 0) {
			int status = 0;
			pid_t done = waitpid(pid_, &status, WNOHANG);
			if (done == pid_) {
				pid_ = -1;
				status_ = WIFEXITED(status) ? WEXITSTATUS(status)
							    : 128 + WTERMSIG(status);
				break;
			}
			if (std::chrono::steady_clock::now() > deadline) {
				kill(pid_, SIGKILL);
				waitpid(pid_, nullptr, 0);
				pid_ = -1;
				status_ = -1;
				break;
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		return status_;
	}
	void signal(int number) { kill(pid_, number); }
	std::string error_output() const { return read_file(stderr_path_); }

private:
	pid_t pid_ = -1;
	int status_ = -1;
	std::string stderr_path_;
};

struct Log {
	std::vector<json> iterations;
	std::vector<json> summaries;
};

Log read_log(const std::string &path)
{
	Log log;
	std::ifstream file(path);
	std::string line;
	while (std::getline(file, line)) {
		json record = json::parse(line);
		(record["type"] == "iteration" ? log.iterations : log.summaries).push_back(record);
	}
	return log;
}

// Starts the world workers of one job on consecutive loopback ports.
std::vector<Worker> start_job(const TempDir &dir, const std::string &job, unsigned world,
			      const std::vector<std::string> &common)
{
	std::vector<uint16_t> ports;
	for (unsigned rank = 0; rank < world; rank++)
		ports.push_back(free_port());
	std::vector<Worker> workers;
	for (unsigned rank = 0; rank < world; rank++) {
		std::vector<std::string> args = {
			"--job",
			job,
			"--rank",
			std::to_string(rank),
			"--world",
			std::to_string(world),
			"--listen",
			"127.0.0.1:" + std::to_string(ports[rank]),
			"--next",
			"127.0.0.1:" + std::to_string(ports[(rank + 1) % world]),
			"--log",
			dir.file(job + "-" + std::to_string(rank) + ".jsonl"),
			"--connect-timeout",
			"10s",
		};
		args.insert(args.end(), common.begin(), common.end());
		workers.emplace_back(args, dir.file(job + "-" + std::to_string(rank) + ".err"));
	}
	return workers;
}

void expect_all_exit(std::vector<Worker> &workers, int expected)
{
	for (size_t rank = 0; rank < workers.size(); rank++)
		EXPECT_EQ(workers[rank].wait(), expected)
			<< "rank " << rank << ": " << workers[rank].error_output();
}

// The invariants every iteration line of a rank must satisfy.
void check_iterations(const Log &log, size_t count, uint64_t sent_per_iteration,
		      uint64_t received_per_iteration, double min_compute_s)
{
	ASSERT_EQ(log.iterations.size(), count);
	for (size_t i = 0; i < count; i++) {
		const json &it = log.iterations[i];
		EXPECT_EQ(it["iteration"], i);
		EXPECT_EQ(it["bytes_sent"], sent_per_iteration) << i;
		EXPECT_EQ(it["bytes_received"], received_per_iteration) << i;
		double start = it["start"], comm_start = it["comm_start"], end = it["end"];
		EXPECT_LE(start, comm_start) << i;
		EXPECT_LE(comm_start, end) << i;
		EXPECT_GE(it["compute_s"].get<double>(), min_compute_s) << i;
		// With a slot schedule, the wait for the slot comes before the compute.
		EXPECT_NEAR(it["compute_s"].get<double>(),
			    comm_start - start - it.value("slot_wait_s", 0.0), 2e-6)
			<< i;
		EXPECT_NEAR(it["comm_s"].get<double>(), end - comm_start, 2e-6) << i;
		// Contiguous: the next compute phase starts when the collective ends.
		if (i > 0) {
			EXPECT_NEAR(start, log.iterations[i - 1]["end"].get<double>(), 0.002) << i;
		}
	}
}

void check_summary(const Log &log, size_t count, uint64_t sent_per_iteration,
		   uint64_t received_per_iteration)
{
	ASSERT_EQ(log.summaries.size(), 1u);
	const json &s = log.summaries[0];
	EXPECT_EQ(s["status"], "complete");
	EXPECT_EQ(s["iterations"], count);
	EXPECT_EQ(s["bytes_sent"], count * sent_per_iteration);
	EXPECT_EQ(s["bytes_received"], count * received_per_iteration);
	double mean = 0;
	for (const json &it : log.iterations)
		mean += it["end"].get<double>() - it["start"].get<double>();
	mean /= static_cast<double>(count);
	EXPECT_NEAR(s["mean_iter_s"].get<double>(), mean, 2e-6);
	EXPECT_LE(s["p50_iter_s"].get<double>(), s["p99_iter_s"].get<double>());
}

// Every rank's log of a job, each checked (check_iterations, check_summary)
// against the rank's bytes per iteration (sent and received: one entry a rank).
std::vector<Log> checked_logs(const TempDir &dir, const std::string &job, size_t count,
			      const std::vector<uint64_t> &sent,
			      const std::vector<uint64_t> &received, double min_compute_s)
{
	std::vector<Log> logs;
	for (size_t rank = 0; rank < sent.size(); rank++) {
		SCOPED_TRACE("rank " + std::to_string(rank));
		logs.push_back(read_log(dir.file(job + "-" + std::to_string(rank) + ".jsonl")));
		check_iterations(logs.back(), count, sent[rank], received[rank], min_compute_s);
		check_summary(logs.back(), count, sent[rank], received[rank]);
	}
	return logs;
}

TEST(TrainsimLoopback, TwoWorkerExchange)
{
	TempDir dir;
	auto workers = start_job(
		dir, "ex", 2,
		{ "--bytes", "1M", "--compute", "20ms", "--iterations", "5", "--cc", "cubic" });
	expect_all_exit(workers, 0);
	auto logs = checked_logs(dir, "ex", 5, { 1 << 20, 1 << 20 }, { 1 << 20, 1 << 20 },
				 0.020 - 0.001);
	for (unsigned rank = 0; rank < 2; rank++) {
		SCOPED_TRACE("rank " + std::to_string(rank));
		const Log &log = logs[rank];
		for (const json &it : log.iterations) {
			EXPECT_EQ(it["job"], "ex");
			EXPECT_EQ(it["rank"], rank);
			EXPECT_EQ(it["world"], 2);
			EXPECT_EQ(it["cc"], "cubic");
		}
		EXPECT_EQ(log.summaries[0]["collective"], "exchange");
		EXPECT_EQ(log.summaries[0]["cc"], "cubic");
	}
}

TEST(TrainsimLoopback, TwoWorkerPush)
{
	TempDir dir;
	const uint64_t bytes = 1000001;
	auto workers = start_job(dir, "push", 2,
				 { "--bytes", std::to_string(bytes), "--compute", "20ms",
				   "--iterations", "5", "--collective", "push" });
	expect_all_exit(workers, 0);
	for (const Log &log :
	     checked_logs(dir, "push", 5, { bytes, 0 }, { 0, bytes }, 0.020 - 0.001)) {
		EXPECT_EQ(log.summaries[0]["collective"], "push");
		EXPECT_EQ(log.summaries[0]["world"], 2);
	}
}

TEST(TrainsimLoopback, PushWithDurationEndsBothRanksAfterTheSameIteration)
{
	TempDir dir;
	auto workers = start_job(dir, "pushdur", 2,
				 { "--bytes", "300K", "--compute", "10ms", "--jitter", "5ms",
				   "--duration", "250ms", "--collective", "push" });
	expect_all_exit(workers, 0);
	size_t count = read_log(dir.file("pushdur-0.jsonl")).iterations.size();
	EXPECT_GE(count, 5u);
	checked_logs(dir, "pushdur", count, { 300 * 1024, 0 }, { 0, 300 * 1024 }, 0.005 - 0.001);
}

TEST(TrainsimLoopback, ThreeWorkerRing)
{
	TempDir dir;
	// Not divisible by 3, so the remainder handling is exercised end to end.
	const uint64_t bytes = 1000001;
	auto workers = start_job(dir, "ring", 3,
				 { "--bytes", std::to_string(bytes), "--compute", "10ms",
				   "--jitter", "2ms", "--iterations", "4" });
	expect_all_exit(workers, 0);
	auto totals = mltcp::trainsim::schedule_totals(mltcp::trainsim::collective_schedule(
		mltcp::trainsim::Collective::ring, 3, 0, bytes));
	ASSERT_EQ(totals.sent, 1333336u);
	std::vector<uint64_t> each(3, totals.sent);
	auto logs = checked_logs(dir, "ring", 4, each, each, 0.008 - 0.001);
	for (unsigned rank = 0; rank < 3; rank++) {
		SCOPED_TRACE("rank " + std::to_string(rank));
		const Log &log = logs[rank];
		EXPECT_EQ(log.summaries[0]["collective"], "ring");
		// The compute phase follows the drawn target, jitter included.
		for (const json &it : log.iterations) {
			double target = it["compute_target_s"];
			EXPECT_GE(target, 0.008 - 1e-9);
			EXPECT_LE(target, 0.012 + 1e-9);
			EXPECT_GE(it["compute_s"].get<double>(), target - 1e-6);
		}
	}
}

TEST(TrainsimLoopback, StartAtWithOffset)
{
	TempDir dir;
	// One second ahead, on a whole microsecond so that the text is exact.
	double start_at = std::round(now_seconds() * 1e6) / 1e6 + 1.0;
	char start_text[32];
	std::snprintf(start_text, sizeof(start_text), "%.6f", start_at);
	auto workers = start_job(dir, "sync", 2,
				 { "--bytes", "100K", "--compute", "5ms", "--iterations", "2",
				   "--start-at", start_text, "--offset", "100ms" });
	expect_all_exit(workers, 0);
	for (unsigned rank = 0; rank < 2; rank++) {
		Log log = read_log(dir.file("sync-" + std::to_string(rank) + ".jsonl"));
		ASSERT_EQ(log.iterations.size(), 2u);
		double first = log.iterations[0]["start"];
		EXPECT_GE(first, start_at + 0.100 - 1e-6) << "rank " << rank;
		EXPECT_LE(first, start_at + 0.100 + 0.005) << "rank " << rank;
	}
}

// --slot-period: each iteration's compute phase begins at its slot,
// --start-at + --offset + n * period, where the last collective ended
// earlier; the wait counts in the iteration (start is the last one's end).
TEST(TrainsimLoopback, SlotPeriodHoldsEachIterationToItsSlot)
{
	TempDir dir;
	double start_at = std::round(now_seconds() * 1e6) / 1e6 + 1.0;
	char start_text[32];
	std::snprintf(start_text, sizeof(start_text), "%.6f", start_at);
	auto workers = start_job(dir, "slots", 2,
				 { "--bytes", "100K", "--compute", "5ms", "--iterations", "5",
				   "--start-at", start_text, "--offset", "20ms", "--slot-period",
				   "40ms" });
	expect_all_exit(workers, 0);
	auto logs = checked_logs(dir, "slots", 5, { 100 * 1024, 100 * 1024 },
				 { 100 * 1024, 100 * 1024 }, 0.005 - 0.001);
	for (unsigned rank = 0; rank < 2; rank++) {
		SCOPED_TRACE("rank " + std::to_string(rank));
		const Log &log = logs[rank];
		for (size_t i = 0; i < log.iterations.size(); i++) {
			const json &it = log.iterations[i];
			const double slot = start_at + 0.020 + 0.040 * static_cast<double>(i);
			EXPECT_NEAR(it["slot"].get<double>(), slot, 1e-6) << i;
			double began = it["start"].get<double>() + it["slot_wait_s"].get<double>();
			// 100K on loopback takes well under the 35 ms left of a slot:
			// every iteration after the first waits, and begins on time
			// (within 10 ms: a loaded host's scheduling; a missed slot is
			// 40 ms late).
			EXPECT_GE(began, slot - 1e-6) << i;
			EXPECT_LE(began, slot + 0.010) << i;
			if (i > 0) {
				EXPECT_GT(it["slot_wait_s"].get<double>(), 0.005) << i;
			}
		}
		// The iterations after the first last a period each on the mean,
		// the wait included: they run end to end, from iteration 0's end.
		EXPECT_NEAR((log.iterations[4]["end"].get<double>() -
			     log.iterations[0]["end"].get<double>()) / 4,
			    0.040, 0.005);
	}
}

TEST(TrainsimLoopback, StartAtInThePastFails)
{
	TempDir dir;
	char start_text[32];
	std::snprintf(start_text, sizeof(start_text), "%.6f", now_seconds() - 5);
	auto workers = start_job(dir, "late", 2,
				 { "--bytes", "1K", "--compute", "1ms", "--iterations", "1",
				   "--start-at", start_text });
	for (auto &worker : workers) {
		EXPECT_EQ(worker.wait(), 1);
		EXPECT_NE(worker.error_output().find("after --start-at + --offset"),
			  std::string::npos)
			<< worker.error_output();
	}
}

TEST(TrainsimLoopback, UnknownCongestionControlFails)
{
	TempDir dir;
	std::vector<std::string> args = {
		"--job",     "cc",	    "--rank",	    "0",
		"--world",   "2",	    "--listen",	    std::to_string(free_port()),
		"--next",    "127.0.0.1:1", "--bytes",	    "1M",
		"--compute", "1ms",	    "--iterations", "1",
		"--cc",	     "nosuchcc",    "--log",	    dir.file("cc.jsonl")
	};
	Worker worker(args, dir.file("cc.err"));
	EXPECT_EQ(worker.wait(), 1);
	std::string error = worker.error_output();
	EXPECT_NE(error.find("--cc nosuchcc: the kernel refused it"), std::string::npos) << error;
	EXPECT_NE(error.find("available:"), std::string::npos) << error;
	EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << error;
	Log log = read_log(dir.file("cc.jsonl"));
	ASSERT_EQ(log.summaries.size(), 1u);
	EXPECT_EQ(log.summaries[0]["status"], "failed");
}

// --mark of a job no backend has: whether no backend is loaded here (the
// marker cannot open) or one is but holds no job 4294967295 (the first mark
// fails), every rank exits 1 with one line naming --mark and the reason,
// logs no iteration, and its summary says failed: a run never goes on
// unmarked, which would count its iterations at idles unnoticed.
TEST(TrainsimLoopback, MarkWithoutBackendOrJobFailsLoudly)
{
	TempDir dir;
	auto workers = start_job(dir, "mk", 2,
				 { "--bytes", "64K", "--compute", "1ms", "--iterations", "3",
				   "--mark", "4294967295" });
	for (unsigned rank = 0; rank < 2; rank++) {
		SCOPED_TRACE("rank " + std::to_string(rank));
		EXPECT_EQ(workers[rank].wait(), 1);
		std::string error = workers[rank].error_output();
		EXPECT_EQ(error.rfind("mltcp-trainsim: job mk rank " + std::to_string(rank) +
					      ": --mark 4294967295: ",
				      0),
			  0u)
			<< error;
		const bool no_backend = error.find("cannot open a marker: no MLTCP backend") !=
					std::string::npos;
		const bool no_job = error.find("iteration 0's mark failed") != std::string::npos;
		EXPECT_TRUE(no_backend || no_job) << error;
		EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << error;
		Log log = read_log(dir.file("mk-" + std::to_string(rank) + ".jsonl"));
		EXPECT_TRUE(log.iterations.empty());
		ASSERT_EQ(log.summaries.size(), 1u);
		EXPECT_EQ(log.summaries[0]["status"], "failed");
	}
}

TEST(TrainsimLoopback, BadCommandLineExitsTwo)
{
	TempDir dir;
	Worker worker({ "--job", "x", "--bytes", "12Q" }, dir.file("usage.err"));
	EXPECT_EQ(worker.wait(), 2);
	EXPECT_EQ(
		worker.error_output(),
		"mltcp-trainsim: --bytes: invalid size \"12Q\" (examples: 1500, 64K, 1.5M, 2G)\n");
}

TEST(TrainsimLoopback, DurationEndsEveryRankAfterTheSameIteration)
{
	TempDir dir;
	auto workers = start_job(dir, "dur", 3,
				 { "--bytes", "300K", "--compute", "10ms", "--jitter", "5ms",
				   "--duration", "250ms" });
	expect_all_exit(workers, 0);
	size_t count = read_log(dir.file("dur-0.jsonl")).iterations.size();
	EXPECT_GE(count, 5u);
	std::vector<uint64_t> each(3, 2 * (300 * 1024 - 300 * 1024 / 3));
	checked_logs(dir, "dur", count, each, each, 0.005 - 0.001);
}

TEST(TrainsimLoopback, MismatchedPeerIsRefused)
{
	TempDir dir;
	uint16_t port0 = free_port(), port1 = free_port();
	auto args = [&](unsigned rank, const char *bytes) {
		return std::vector<std::string>{
			"--job",
			"mm",
			"--rank",
			std::to_string(rank),
			"--world",
			"2",
			"--listen",
			"127.0.0.1:" + std::to_string(rank ? port1 : port0),
			"--next",
			"127.0.0.1:" + std::to_string(rank ? port0 : port1),
			"--bytes",
			bytes,
			"--compute",
			"1ms",
			"--iterations",
			"1",
			"--log",
			dir.file("mm" + std::to_string(rank) + ".jsonl"),
			"--connect-timeout",
			"5s",
		};
	};
	Worker rank0(args(0, "1M"), dir.file("mm0.err"));
	Worker rank1(args(1, "2M"), dir.file("mm1.err"));
	EXPECT_EQ(rank0.wait(), 1);
	EXPECT_EQ(rank1.wait(), 1);
	EXPECT_NE(rank0.error_output().find("is not the expected peer: it has bytes=2097152, "
					    "expected bytes=1048576"),
		  std::string::npos)
		<< rank0.error_output();
}

TEST(TrainsimLoopback, ConnectTimeoutAndSignalDuringSetup)
{
	TempDir dir;
	std::vector<std::string> common = {
		"--job",	"alone",
		"--rank",	"0",
		"--world",	"2",
		"--bytes",	"1M",
		"--compute",	"1ms",
		"--iterations", "1",
		"--listen",	"127.0.0.1:" + std::to_string(free_port()),
		"--next",	"127.0.0.1:" + std::to_string(free_port())
	};
	auto timeout_args = common;
	timeout_args.insert(timeout_args.end(),
			    { "--connect-timeout", "300ms", "--log", dir.file("timeout.jsonl") });
	Worker lonely(timeout_args, dir.file("timeout.err"));
	EXPECT_EQ(lonely.wait(), 1);
	EXPECT_NE(lonely.error_output().find("could not connect to --next 127.0.0.1:"),
		  std::string::npos)
		<< lonely.error_output();

	// SIGTERM while waiting for the peers: a clean exit with an empty summary.
	auto signal_args = common;
	signal_args.insert(signal_args.end(), { "--log", dir.file("signal.jsonl") });
	Worker waiting(signal_args, dir.file("signal.err"));
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	waiting.signal(SIGTERM);
	EXPECT_EQ(waiting.wait(), 0) << waiting.error_output();
	Log log = read_log(dir.file("signal.jsonl"));
	ASSERT_EQ(log.summaries.size(), 1u);
	EXPECT_EQ(log.summaries[0]["status"], "interrupted");
	EXPECT_EQ(log.summaries[0]["iterations"], 0);
	EXPECT_TRUE(log.summaries[0]["mean_iter_s"].is_null());
}

} // namespace
