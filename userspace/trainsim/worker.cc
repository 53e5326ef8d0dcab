// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>

#include "net.h"
#include "protocol.h"
#include "records.h"
#include "schedule.h"
#include "step_marker.h"
#include "units.h"

namespace mltcp::trainsim
{
namespace
{

constexpr int64_t ns_per_us = 1000;
constexpr int64_t ns_per_ms = 1000 * ns_per_us;
// Pause between attempts to connect to a --next that is not listening yet.
constexpr int64_t connect_retry_ns = 50 * ns_per_ms;
// After its last iteration a worker reads what its neighbours still send
// until they close, so that closing never resets a connection that carries
// unread data; it stops waiting after this long.
constexpr int64_t drain_grace_ns = 10'000 * ns_per_ms;
constexpr int64_t interrupted_drain_grace_ns = 1'000 * ns_per_ms;
// With --duration, prev may close before the STOP that explains it has come
// round the ring from next; this long is allowed between the two.
constexpr int64_t stop_wait_ns = 10'000 * ns_per_ms;
constexpr int64_t control_write_timeout_ns = 5'000 * ns_per_ms;
// Bounds of the polling interval while waiting for the last bytes to be
// acknowledged: a fraction of the RTT, so that the end of an iteration is
// seen within max(100us, min(RTT/8, 2ms)) of the final ACK.
constexpr int64_t min_ack_poll_ns = 100 * ns_per_us;
constexpr int64_t max_ack_poll_ns = 2 * ns_per_ms;
// send()/recv() calls per wake-up, so one busy direction cannot starve the
// other or the signal check.
constexpr int max_calls_per_wakeup = 16;

// SIGINT or SIGTERM: stop after logging what is complete.
struct Interrupted {
};

class LogFile
{
public:
	explicit LogFile(const std::string &path)
	{
		if (path.empty()) {
			fd_ = STDOUT_FILENO;
			return;
		}
		owned_ = UniqueFd(
			open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
		if (!owned_)
			throw_system_error("--log " + path, errno);
		fd_ = owned_.get();
	}

	// One write() per record, so that a reader following the file never sees
	// half a line.
	void write_line(std::string line)
	{
		line += '\n';
		size_t done = 0;
		while (done < line.size()) {
			ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				throw_system_error("writing the log", errno);
			}
			done += static_cast<size_t>(n);
		}
	}

private:
	UniqueFd owned_;
	int fd_ = -1;
};

std::string format_ms(int64_t ns)
{
	return std::to_string(ns / ns_per_ms) + "." + std::to_string(ns % ns_per_ms / 100'000) +
	       " ms";
}

// Waits on fds until one is ready or the monotonic deadline passes. Returns
// the number of ready descriptors (0 on timeout).
int wait_events(pollfd *fds, nfds_t count, std::optional<int64_t> deadline_ns)
{
	timespec timeout{}, *timeout_ptr = nullptr;
	if (deadline_ns) {
		int64_t left = std::max<int64_t>(0, *deadline_ns - monotonic_ns());
		timeout.tv_sec = left / 1'000'000'000;
		timeout.tv_nsec = left % 1'000'000'000;
		timeout_ptr = &timeout;
	}
	int ready = ppoll(fds, count, timeout_ptr, nullptr);
	if (ready < 0) {
		if (errno == EINTR)
			return 0;
		throw_system_error("ppoll", errno);
	}
	return ready;
}

class Worker
{
public:
	Worker(const Config &config, LogFile &log);

	// Sets up the ring and runs the iterations. Throws RuntimeError or
	// Interrupted.
	void run();

	// Half-closes both connections and reads from them until the neighbours
	// close too, at most grace_ns. Never throws.
	void finish(int64_t grace_ns) noexcept;

	SummaryRecord &summary() { return summary_; }

private:
	enum class IterationEnd { completed, aborted };

	void set_up(int64_t deadline_ns);
	UniqueFd connect_to_next(int64_t deadline_ns);
	UniqueFd accept_from_prev(int64_t deadline_ns);
	void handshake(int64_t deadline_ns);

	void match_sockets(int64_t deadline_ns);
	std::string read_socket_line(int fd, int64_t deadline_ns);

	IterationEnd run_iteration(uint64_t index, int64_t start_ns, int64_t first_ns,
				   IterationRecord &record);
	bool wait_ready(uint64_t index, int64_t when_realtime_ns);
	bool transfer_step(uint64_t index, size_t step_index, IterationRecord &record);
	void wait_acknowledged();
	uint64_t pump_send(int fd, uint64_t remaining);
	std::optional<uint64_t> pump_receive(int fd, uint64_t remaining);
	uint64_t retransmissions() const;

	void check_signal(const pollfd &signal_poll);
	void sleep_until_monotonic(int64_t deadline_ns);
	void wait_until_realtime(int64_t when_ns);
	void arm_timer(int64_t when_realtime_ns);
	bool timer_fired(const pollfd &timer_poll);

	void write_control(const std::string &line, int64_t deadline_ns, size_t socket = 0);
	std::string read_control_line(int64_t deadline_ns, const std::string &waiting_for);
	void pull_control();
	std::optional<std::string> take_control_line();
	void process_control();
	void handle_control_line(const std::string &line);

	bool stopped_before(uint64_t index) const { return stop_after_ && *stop_after_ < index; }
	unsigned prev_rank() const { return (config_.rank + config_.world - 1) % config_.world; }
	unsigned next_rank() const { return (config_.rank + 1) % config_.world; }

	// Socket 0 of each connection carries the control lines too.
	int control_in_fd() const { return send_fds_[0].get(); }
	int control_out_fd() const { return recv_fds_[0].get(); }

	const Config &config_;
	LogFile &log_;
	std::vector<PlanStep> plan_;
	std::vector<char> send_buffer_, recv_buffer_;
	ComputeTimes compute_times_;
	UniqueFd signal_fd_, timer_fd_, listen_fd_;
	// config.sockets each, in the plan's socket order (match_sockets()).
	std::vector<UniqueFd> send_fds_; // connected to next: data out, control in
	std::vector<UniqueFd> recv_fds_; // accepted from prev: data in, control out
	std::string next_label_, prev_label_;
	std::string control_buffer_; // control bytes from next not yet forming a line
	bool control_open_ = false;  // next may still send control lines
	bool prev_closed_ = false;   // prev closed its data direction (--duration)
	std::optional<int64_t>
		stop_wait_deadline_ns_;	     // until then, expect the STOP that explains it
	std::optional<uint64_t> stop_after_; // the job's last iteration, once known
	std::optional<StepMarker> marker_;   // --mark
	SummaryRecord summary_;
};

Worker::Worker(const Config &config, LogFile &log)
    : config_(config), log_(log),
      plan_(iteration_plan(config)),
      send_buffer_(config.chunk_bytes, 'g'), recv_buffer_(config.chunk_bytes),
      compute_times_(config)
{
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	signal_fd_ = UniqueFd(signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC));
	if (!signal_fd_)
		throw_system_error("signalfd", errno);
	// Absolute CLOCK_REALTIME deadlines, like clock_nanosleep(TIMER_ABSTIME),
	// but pollable with the sockets and signals. Unlike a sleep it has no
	// timer slack.
	timer_fd_ = UniqueFd(timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC));
	if (!timer_fd_)
		throw_system_error("timerfd_create", errno);

	summary_.job = config.job;
	summary_.rank = config.rank;
	summary_.world = config.world;
	summary_.collective = collective_name(config.collective);
	summary_.cc = config.cc;
	next_label_ = "rank " + std::to_string(next_rank()) + " (--next " +
		      format_endpoint(config.next) + ")";
	prev_label_ = "rank " + std::to_string(prev_rank());
}

void Worker::check_signal(const pollfd &signal_poll)
{
	if (!(signal_poll.revents & POLLIN))
		return;
	signalfd_siginfo info;
	if (read(signal_fd_.get(), &info, sizeof(info)) > 0)
		throw Interrupted{};
}

void Worker::sleep_until_monotonic(int64_t deadline_ns)
{
	pollfd fds[1] = { { signal_fd_.get(), POLLIN, 0 } };
	while (monotonic_ns() < deadline_ns) {
		wait_events(fds, 1, deadline_ns);
		check_signal(fds[0]);
	}
}

void Worker::arm_timer(int64_t when_realtime_ns)
{
	itimerspec spec{};
	// A zero it_value disarms the timer; any instant in the past fires at once.
	when_realtime_ns = std::max<int64_t>(when_realtime_ns, 1);
	spec.it_value.tv_sec = when_realtime_ns / 1'000'000'000;
	spec.it_value.tv_nsec = when_realtime_ns % 1'000'000'000;
	if (timerfd_settime(timer_fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr) != 0)
		throw_system_error("timerfd_settime", errno);
}

bool Worker::timer_fired(const pollfd &timer_poll)
{
	if (!(timer_poll.revents & POLLIN))
		return false;
	uint64_t expirations;
	return read(timer_fd_.get(), &expirations, sizeof(expirations)) ==
	       static_cast<ssize_t>(sizeof(expirations));
}

void Worker::wait_until_realtime(int64_t when_ns)
{
	arm_timer(when_ns);
	pollfd fds[2] = { { signal_fd_.get(), POLLIN, 0 }, { timer_fd_.get(), POLLIN, 0 } };
	while (true) {
		wait_events(fds, 2, std::nullopt);
		check_signal(fds[0]);
		if (timer_fired(fds[1]))
			return;
	}
}

void Worker::write_control(const std::string &line, int64_t deadline_ns, size_t socket)
{
	const int fd = recv_fds_[socket].get();
	size_t done = 0;
	while (done < line.size()) {
		ssize_t n = ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
		if (n >= 0) {
			done += static_cast<size_t>(n);
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			throw_system_error("writing to " + prev_label_, errno);
		pollfd fds[2] = { { signal_fd_.get(), POLLIN, 0 }, { fd, POLLOUT, 0 } };
		wait_events(fds, 2, deadline_ns);
		check_signal(fds[0]);
		if (monotonic_ns() >= deadline_ns)
			throw RuntimeError("timed out writing to " + prev_label_);
	}
}

void Worker::pull_control()
{
	char buf[256];
	while (control_open_) {
		ssize_t n = recv(control_in_fd(), buf, sizeof(buf), 0);
		if (n > 0) {
			control_buffer_.append(buf, static_cast<size_t>(n));
			if (control_buffer_.size() > 4 * max_control_line)
				throw RuntimeError(next_label_ +
						   " sent more control data than expected");
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		// End of file or an error: next sends no more control lines. If it
		// failed, sending to it fails too and reports the cause.
		control_open_ = false;
	}
}

std::optional<std::string> Worker::take_control_line()
{
	size_t newline = control_buffer_.find('\n');
	if (newline == std::string::npos) {
		if (control_buffer_.size() > max_control_line)
			throw RuntimeError(next_label_ + " sent an overlong control line");
		return std::nullopt;
	}
	std::string line = control_buffer_.substr(0, newline);
	control_buffer_.erase(0, newline + 1);
	return line;
}

std::string Worker::read_control_line(int64_t deadline_ns, const std::string &waiting_for)
{
	while (true) {
		if (auto line = take_control_line())
			return *line;
		if (!control_open_)
			throw RuntimeError(next_label_ +
					   " closed the connection while this worker waited for " +
					   waiting_for);
		pollfd fds[2] = { { signal_fd_.get(), POLLIN, 0 }, { control_in_fd(), POLLIN, 0 } };
		wait_events(fds, 2, deadline_ns);
		check_signal(fds[0]);
		if (fds[1].revents)
			pull_control();
		else if (monotonic_ns() >= deadline_ns)
			throw RuntimeError("timed out after --connect-timeout " +
					   format_duration_us(config_.connect_timeout_us) +
					   " waiting for " + waiting_for +
					   " (is every rank of job " + config_.job + " running?)");
	}
}

void Worker::process_control()
{
	pull_control();
	while (auto line = take_control_line())
		handle_control_line(*line);
}

void Worker::handle_control_line(const std::string &line)
{
	auto stop = parse_stop(line);
	if (!stop || !config_.duration_us)
		throw RuntimeError(next_label_ + " sent an unexpected message: \"" + line + "\"");
	if (config_.rank == 0 || stop_after_)
		return; // rank 0's own STOP, back round the ring
	stop_after_ = *stop;
	// Pass it on at once; this worker may still have to finish iteration
	// *stop itself, which prev does not need to wait for.
	try {
		write_control(make_stop(*stop), monotonic_ns() + control_write_timeout_ns);
	} catch (const RuntimeError &) {
		// prev is gone; it cannot be waiting for the STOP then.
	}
}

UniqueFd Worker::connect_to_next(int64_t deadline_ns)
{
	auto addresses = resolve(config_.next);
	int last_error = 0;
	while (true) {
		for (const SocketAddress &address : addresses) {
			UniqueFd fd(socket(address.storage.ss_family,
					   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
			if (!fd)
				throw_system_error("socket", errno);
			if (!config_.cc.empty())
				set_congestion_control(fd.get(), config_.cc);
			set_no_delay(fd.get());
			if (connect(fd.get(), reinterpret_cast<const sockaddr *>(&address.storage),
				    address.length) == 0)
				return fd;
			if (errno != EINPROGRESS) {
				last_error = errno;
				continue;
			}
			pollfd fds[2] = { { signal_fd_.get(), POLLIN, 0 },
					  { fd.get(), POLLOUT, 0 } };
			while (!fds[1].revents && monotonic_ns() < deadline_ns) {
				wait_events(fds, 2, deadline_ns);
				check_signal(fds[0]);
			}
			int error = fds[1].revents ? socket_error(fd.get()) : ETIMEDOUT;
			if (error == 0)
				return fd;
			last_error = error;
		}
		int64_t now = monotonic_ns();
		if (now >= deadline_ns)
			throw RuntimeError("could not connect to --next " +
					   format_endpoint(config_.next) +
					   " within --connect-timeout " +
					   format_duration_us(config_.connect_timeout_us) + ": " +
					   std::strerror(last_error));
		sleep_until_monotonic(std::min(deadline_ns, now + connect_retry_ns));
	}
}

UniqueFd Worker::accept_from_prev(int64_t deadline_ns)
{
	pollfd fds[2] = { { signal_fd_.get(), POLLIN, 0 }, { listen_fd_.get(), POLLIN, 0 } };
	while (true) {
		wait_events(fds, 2, deadline_ns);
		check_signal(fds[0]);
		if (fds[1].revents & POLLIN) {
			SocketAddress peer;
			peer.length = sizeof(peer.storage);
			int fd = accept4(listen_fd_.get(),
					 reinterpret_cast<sockaddr *>(&peer.storage), &peer.length,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (fd >= 0) {
				UniqueFd accepted(fd);
				prev_label_ = "rank " + std::to_string(prev_rank()) + " (" +
					      format_address(peer) + ")";
				set_no_delay(accepted.get());
				// Normally inherited from the listener; make sure.
				if (!config_.cc.empty() &&
				    congestion_control(accepted.get()) != config_.cc)
					set_congestion_control(accepted.get(), config_.cc);
				return accepted;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				throw_system_error("accept on --listen " +
							   format_endpoint(config_.listen),
						   errno);
		}
		if (monotonic_ns() >= deadline_ns)
			throw RuntimeError("no connection from rank " +
					   std::to_string(prev_rank()) + " on --listen " +
					   format_endpoint(config_.listen) +
					   " within --connect-timeout " +
					   format_duration_us(config_.connect_timeout_us));
	}
}

void Worker::handshake(int64_t deadline_ns)
{
	write_control(make_hello(config_), deadline_ns);
	std::string hello = read_control_line(deadline_ns, "the hello of " + next_label_);
	if (auto mismatch = check_hello(config_, hello))
		throw RuntimeError("--next " + format_endpoint(config_.next) +
				   " is not the expected peer: " + *mismatch);

	// Ring barrier, against the data direction. When SYNC1 is back at rank 0,
	// every rank has passed it on, so every rank is connected; SYNC2 tells
	// them all. Nobody starts iteration 0 before the whole ring is up.
	for (const char *token : { "SYNC1", "SYNC2" }) {
		if (config_.rank == 0)
			write_control(std::string(token) + "\n", deadline_ns);
		std::string line = read_control_line(deadline_ns,
						     std::string(token) + " from the other ranks");
		if (line != token)
			throw RuntimeError(next_label_ + " sent \"" + line + "\", expected " +
					   token);
		if (config_.rank != 0)
			write_control(std::string(token) + "\n", deadline_ns);
	}
}

// A line of at most max_control_line bytes from one socket to next, read a
// byte at a time so that nothing after it (the HELLO, on socket 0) is taken.
std::string Worker::read_socket_line(int fd, int64_t deadline_ns)
{
	std::string line;
	while (line.size() <= max_control_line) {
		char c;
		ssize_t n = recv(fd, &c, 1, 0);
		if (n == 1) {
			if (c == '\n')
				return line;
			line += c;
			continue;
		}
		if (n == 0)
			throw RuntimeError(next_label_ + " closed a connection during set-up");
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			throw_system_error("receiving from " + next_label_, errno);
		pollfd fds[2] = { { signal_fd_.get(), POLLIN, 0 }, { fd, POLLIN, 0 } };
		wait_events(fds, 2, deadline_ns);
		check_signal(fds[0]);
		if (!fds[1].revents && monotonic_ns() >= deadline_ns)
			throw RuntimeError("timed out after --connect-timeout " +
					   format_duration_us(config_.connect_timeout_us) +
					   " waiting for the socket numbers of " + next_label_);
	}
	throw RuntimeError(next_label_ + " sent an overlong control line");
}

// Both ends must agree which socket is which: the plan gives each its own
// bytes. The connections are accepted in the order their handshakes
// complete, which a lost segment can change, so each accepted socket tells
// the connecting end its number ("SOCKET K", against the data), and the
// connecting end orders its sockets by them.
void Worker::match_sockets(int64_t deadline_ns)
{
	for (size_t k = 0; k < recv_fds_.size(); k++)
		write_control("SOCKET " + std::to_string(k) + "\n", deadline_ns, k);
	std::vector<UniqueFd> ordered(send_fds_.size());
	for (UniqueFd &fd : send_fds_) {
		std::string line = read_socket_line(fd.get(), deadline_ns);
		size_t k = ordered.size();
		if (line.rfind("SOCKET ", 0) == 0 && line.size() > 7 && line.size() < 10 &&
		    line.find_first_not_of("0123456789", 7) == std::string::npos)
			k = std::stoul(line.substr(7));
		if (k >= ordered.size() || ordered[k])
			throw RuntimeError(next_label_ + " sent \"" + line +
					   "\", expected SOCKET and a new socket number below " +
					   std::to_string(ordered.size()));
		ordered[k] = std::move(fd);
	}
	send_fds_ = std::move(ordered);
}

void Worker::set_up(int64_t deadline_ns)
{
	listen_fd_ = open_listener(config_.listen, config_.cc);
	// Connecting first cannot deadlock: next's kernel completes the
	// handshakes from its listen backlog before next calls accept().
	for (unsigned k = 0; k < config_.sockets; k++)
		send_fds_.push_back(connect_to_next(deadline_ns));
	control_open_ = true;
	for (unsigned k = 0; k < config_.sockets; k++)
		recv_fds_.push_back(accept_from_prev(deadline_ns));
	// A worker takes prev's sockets only; later connections are refused.
	listen_fd_.reset();
	if (config_.sockets > 1)
		match_sockets(deadline_ns);
	handshake(deadline_ns);
	summary_.cc = congestion_control(control_in_fd());
}

uint64_t Worker::pump_send(int fd, uint64_t remaining)
{
	uint64_t total = 0;
	for (int call = 0; call < max_calls_per_wakeup && total < remaining; call++) {
		size_t length = static_cast<size_t>(
			std::min<uint64_t>(remaining - total, send_buffer_.size()));
		ssize_t n = ::send(fd, send_buffer_.data(), length, MSG_NOSIGNAL);
		if (n > 0) {
			total += static_cast<uint64_t>(n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		throw_system_error("sending to " + next_label_, n < 0 ? errno : EPIPE);
	}
	return total;
}

std::optional<uint64_t> Worker::pump_receive(int fd, uint64_t remaining)
{
	uint64_t total = 0;
	for (int call = 0; call < max_calls_per_wakeup && total < remaining; call++) {
		size_t length = static_cast<size_t>(
			std::min<uint64_t>(remaining - total, recv_buffer_.size()));
		ssize_t n = ::recv(fd, recv_buffer_.data(), length, 0);
		if (n > 0) {
			total += static_cast<uint64_t>(n);
			continue;
		}
		if (n == 0)
			return total ? std::optional<uint64_t>(total) : std::nullopt;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		throw_system_error("receiving from " + prev_label_, errno);
	}
	return total;
}

uint64_t Worker::retransmissions() const
{
	uint64_t total = 0;
	for (const UniqueFd &fd : send_fds_)
		total += tcp_counters(fd.get()).total_retrans;
	return total;
}

// One step of the plan: every socket's share sent to next and received from
// prev, the sockets served as they become ready.
bool Worker::transfer_step(uint64_t index, size_t step_index, IterationRecord &record)
{
	const PlanStep &step = plan_[step_index];
	const size_t sockets = send_fds_.size();
	std::vector<uint64_t> sent(sockets), received(sockets);
	uint64_t send_total = 0, recv_total = 0, sent_total = 0, received_total = 0;
	for (size_t k = 0; k < sockets; k++) {
		send_total += step.send[k];
		recv_total += step.recv[k];
	}

	auto describe = [&] {
		return "iteration " + std::to_string(index) + ", step " +
		       std::to_string(step_index + 1) + " of " + std::to_string(plan_.size()) +
		       ": received " + std::to_string(received_total) + " of " +
		       std::to_string(recv_total) + " bytes";
	};

	// signal, control from next, then each socket's send and receive.
	std::vector<pollfd> fds(2 + 2 * sockets);
	while (sent_total < send_total || received_total < recv_total) {
		if (stopped_before(index))
			return false;
		if (prev_closed_ && (!control_open_ || (stop_after_ && *stop_after_ >= index)))
			throw RuntimeError(prev_label_ + " closed the connection during " +
					   describe());
		fds[0] = { signal_fd_.get(), POLLIN, 0 };
		fds[1] = { control_open_ ? control_in_fd() : -1, POLLIN, 0 };
		for (size_t k = 0; k < sockets; k++) {
			bool sending = sent[k] < step.send[k];
			bool receiving = received[k] < step.recv[k] && !prev_closed_;
			fds[2 + 2 * k] = { sending ? send_fds_[k].get() : -1, POLLOUT, 0 };
			fds[3 + 2 * k] = { receiving ? recv_fds_[k].get() : -1, POLLIN, 0 };
		}
		wait_events(fds.data(), fds.size(), stop_wait_deadline_ns_);
		check_signal(fds[0]);
		if (control_open_ && (fds[1].revents & (POLLIN | POLLERR | POLLHUP))) {
			process_control();
			if (stopped_before(index))
				return false;
		}
		for (size_t k = 0; k < sockets; k++) {
			if (fds[2 + 2 * k].revents & (POLLOUT | POLLERR | POLLHUP)) {
				uint64_t n = pump_send(send_fds_[k].get(), step.send[k] - sent[k]);
				sent[k] += n;
				sent_total += n;
			}
			if (!(fds[3 + 2 * k].revents & (POLLIN | POLLERR | POLLHUP)) || prev_closed_)
				continue;
			auto got = pump_receive(recv_fds_[k].get(), step.recv[k] - received[k]);
			if (got) {
				received[k] += *got;
				received_total += *got;
			} else if (!config_.duration_us) {
				throw RuntimeError(prev_label_ + " closed the connection during " +
						   describe());
			} else {
				// Probably the end of the job: rank 0 stopped and its STOP is
				// still on its way round the ring from next. Wait for it.
				prev_closed_ = true;
				stop_wait_deadline_ns_ = monotonic_ns() + stop_wait_ns;
			}
		}
		if (stop_wait_deadline_ns_ && monotonic_ns() >= *stop_wait_deadline_ns_)
			throw RuntimeError(prev_label_ + " closed the connection during " +
					   describe() + ", and no STOP came from " + next_label_);
	}
	record.bytes_sent += sent_total;
	record.bytes_received += received_total;
	return true;
}

void Worker::wait_acknowledged()
{
	// The last bytes count as sent once next has acknowledged them, not once
	// they are in the socket buffer: with a large send buffer the latter can
	// be tens of milliseconds earlier than the collective's real end.
	for (const UniqueFd &fd : send_fds_) {
		while (unacknowledged_bytes(fd.get()) > 0) {
			if (int error = socket_error(fd.get()))
				throw_system_error("sending to " + next_label_, error);
			int64_t interval =
				static_cast<int64_t>(tcp_counters(fd.get()).rtt_us) * ns_per_us / 8;
			interval = std::clamp(interval, min_ack_poll_ns, max_ack_poll_ns);
			pollfd fds[2] = {
				{ signal_fd_.get(), POLLIN, 0 },
				{ control_open_ ? control_in_fd() : -1, POLLIN, 0 },
			};
			wait_events(fds, 2, monotonic_ns() + interval);
			check_signal(fds[0]);
			if (fds[1].revents)
				process_control();
		}
	}
}

// start_ns: when the iteration begins (the last one's end); first_ns:
// iteration 0's intended start, where the slot schedule's grid begins.
Worker::IterationEnd Worker::run_iteration(uint64_t index, int64_t start_ns, int64_t first_ns,
					   IterationRecord &record)
{
	record = IterationRecord{};
	record.job = config_.job;
	record.rank = config_.rank;
	record.world = config_.world;
	record.iteration = index;
	record.cc = summary_.cc;
	record.start_ns = start_ns;
	if (config_.slot_period_us)
		record.slot_ns = iteration_slot_ns(first_ns, config_.slot_period_us, index);
	record.compute_target_us = compute_times_.next_us();
	uint64_t retrans_before = retransmissions();
	std::vector<uint64_t> acked_before;
	for (const UniqueFd &fd : send_fds_)
		acked_before.push_back(tcp_counters(fd.get()).bytes_acked);

	// Compute phase (after the wait for its slot, if any), timed to absolute
	// deadlines, so that the time spent in this loop does not accumulate over
	// iterations. A message (a DDP bucket) goes once the compute phase has
	// produced it and the message before it is done; the last is ready when
	// the compute phase ends.
	const int64_t compute_start_ns = slot_start_ns(record.slot_ns, start_ns);
	for (size_t step = 0; step < plan_.size(); step++) {
		const PlanStep &planned = plan_[step];
		if (step == 0 || planned.message != plan_[step - 1].message) {
			int64_t ready_ns = compute_start_ns +
					   static_cast<int64_t>(ready_after_us(record.compute_target_us,
									       planned.ready_bytes,
									       config_.bytes)) *
						   ns_per_us;
			if (!wait_ready(index, ready_ns))
				return IterationEnd::aborted;
			int64_t now = realtime_ns();
			if (step == 0 && config_.pattern != Pattern::burst)
				record.first_send_ns = now;
			// A marked job's mark, where the DDP hook makes it: before the
			// iteration's first byte (the ns-3 worker's MarkStep()). Its time
			// is communication's, as torch_worker counts it: the stamps above
			// are taken before it.
			if (step == 0 && marker_) {
				int64_t before = monotonic_ns();
				marker_->mark(index);
				record.mark_ns = monotonic_ns() - before;
			}
			// The compute phase's end: when its last message went, if that
			// was not later (the bucket before it still going).
			if (planned.ready_bytes == config_.bytes)
				record.comm_start_ns = config_.pattern == Pattern::ddp
							       ? std::min(now, ready_ns)
							       : now;
		}
		if (!transfer_step(index, step, record))
			return IterationEnd::aborted;
	}
	wait_acknowledged();
	record.end_ns = realtime_ns();
	record.retrans = retransmissions() - retrans_before;
	if (config_.pattern != Pattern::burst)
		for (size_t k = 0; k < send_fds_.size(); k++)
			record.socket_bytes.push_back(tcp_counters(send_fds_[k].get()).bytes_acked -
						      acked_before[k]);
	return IterationEnd::completed;
}

// Waits until when_realtime_ns, reading control lines; false if the job
// stopped before this iteration meanwhile.
bool Worker::wait_ready(uint64_t index, int64_t when_realtime_ns)
{
	if (realtime_ns() >= when_realtime_ns)
		return true;
	arm_timer(when_realtime_ns);
	while (true) {
		pollfd fds[3] = {
			{ signal_fd_.get(), POLLIN, 0 },
			{ timer_fd_.get(), POLLIN, 0 },
			{ control_open_ ? control_in_fd() : -1, POLLIN, 0 },
		};
		wait_events(fds, 3, std::nullopt);
		check_signal(fds[0]);
		if (fds[2].revents) {
			process_control();
			if (stopped_before(index))
				return false;
		}
		if (timer_fired(fds[1]))
			return true;
	}
}

void Worker::run()
{
	int64_t setup_deadline_ns =
		monotonic_ns() + static_cast<int64_t>(config_.connect_timeout_us) * ns_per_us;
	int64_t offset_ns = static_cast<int64_t>(config_.offset_us) * ns_per_us;

	// Already late: every worker says so before connecting. After set-up,
	// the first to notice would exit and the others would only see its
	// connection close.
	if (config_.start_at_ns && realtime_ns() > *config_.start_at_ns + offset_ns)
		throw RuntimeError("it is already " +
				   format_ms(realtime_ns() - *config_.start_at_ns - offset_ns) +
				   " after --start-at + --offset; choose a later --start-at");
	// The marker is opened before connecting, so that a worker that could
	// not mark fails at once, each rank saying why, instead of after a run
	// its job would have counted at idles.
	if (config_.mark_job)
		marker_.emplace(*config_.mark_job);
	set_up(setup_deadline_ns);

	int64_t first_start_ns;
	if (config_.start_at_ns) {
		first_start_ns = *config_.start_at_ns + offset_ns;
		int64_t late_ns = realtime_ns() - first_start_ns;
		if (late_ns > 0)
			throw RuntimeError(
				"the ring was set up " + format_ms(late_ns) +
				" after --start-at + --offset; choose a later --start-at");
	} else {
		first_start_ns = realtime_ns() + offset_ns;
	}
	wait_until_realtime(first_start_ns);

	int64_t start_ns = realtime_ns();
	const int64_t job_start_ns = start_ns;
	for (uint64_t index = 0;; index++) {
		if (config_.iterations && index >= *config_.iterations)
			break;
		if (stopped_before(index))
			break;
		IterationRecord record;
		if (run_iteration(index, start_ns, first_start_ns, record) == IterationEnd::aborted)
			break;
		log_.write_line(to_json(record));
		summary_.iteration_s.push_back(
			static_cast<double>(record.end_ns - record.start_ns) / 1e9);
		summary_.comm_s.push_back(
			static_cast<double>(record.end_ns - record.comm_start_ns) / 1e9);
		summary_.bytes_sent += record.bytes_sent;
		summary_.bytes_received += record.bytes_received;
		summary_.total_retrans += record.retrans;
		// The next iteration begins when the collective ends (its compute
		// phase then, or at its slot).
		start_ns = record.end_ns;

		// --duration: rank 0 alone decides, so that every rank runs the same
		// number of iterations; the others learn it from the STOP.
		if (config_.duration_us && config_.rank == 0 &&
		    record.end_ns - job_start_ns >=
			    static_cast<int64_t>(*config_.duration_us) * ns_per_us) {
			stop_after_ = index;
			write_control(make_stop(index), monotonic_ns() + control_write_timeout_ns);
			break;
		}
	}
}

void Worker::finish(int64_t grace_ns) noexcept
{
	for (auto *fds : { &send_fds_, &recv_fds_ })
		for (const UniqueFd &fd : *fds)
			shutdown(fd.get(), SHUT_WR);
	// Read prev's sockets and next's control socket until they close.
	std::vector<int> open;
	for (const UniqueFd &fd : recv_fds_)
		open.push_back(fd.get());
	if (!send_fds_.empty() && control_open_)
		open.push_back(control_in_fd());
	int64_t deadline_ns = monotonic_ns() + grace_ns;

	auto drain = [this](int fd) {
		ssize_t n = recv(fd, recv_buffer_.data(), recv_buffer_.size(), 0);
		return n > 0 ||
		       (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
	};
	try {
		std::vector<pollfd> fds(1 + open.size());
		while (std::count(open.begin(), open.end(), -1) < static_cast<long>(open.size()) &&
		       monotonic_ns() < deadline_ns) {
			fds[0] = { signal_fd_.get(), POLLIN, 0 };
			for (size_t i = 0; i < open.size(); i++)
				fds[1 + i] = { open[i], POLLIN, 0 };
			wait_events(fds.data(), fds.size(), deadline_ns);
			if (fds[0].revents)
				return; // asked again to stop: close now
			for (size_t i = 0; i < open.size(); i++)
				if (fds[1 + i].revents && !drain(open[i]))
					open[i] = -1;
		}
	} catch (const RuntimeError &) {
		// Closing is all that is left to do.
	}
}

void report(const Config &config, const std::string &message)
{
	std::cerr << "mltcp-trainsim: job " << config.job << " rank " << config.rank << ": "
		  << message << std::endl;
}

} // namespace

int run_worker(const Config &config)
{
	// Writes to a closed log pipe or socket must fail with EPIPE, not kill.
	signal(SIGPIPE, SIG_IGN);
	// SIGINT and SIGTERM are read from a signalfd in the poll loop; blocked,
	// they cannot interrupt a half-done write.
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigprocmask(SIG_BLOCK, &signals, nullptr);

	std::unique_ptr<LogFile> log;
	std::unique_ptr<Worker> worker;
	try {
		log = std::make_unique<LogFile>(config.log_path);
		worker = std::make_unique<Worker>(config, *log);
	} catch (const std::exception &error) {
		report(config, error.what());
		return 1;
	}

	int exit_status = 0;
	int64_t grace_ns = drain_grace_ns;
	SummaryRecord &summary = worker->summary();
	summary.status = "complete";
	try {
		worker->run();
	} catch (const Interrupted &) {
		summary.status = "interrupted";
		grace_ns = interrupted_drain_grace_ns;
	} catch (const std::exception &error) {
		report(config, error.what());
		summary.status = "failed";
		exit_status = 1;
		grace_ns = 0;
	}
	try {
		log->write_line(to_json(summary));
	} catch (const std::exception &error) {
		report(config, error.what());
		exit_status = 1;
	}
	if (grace_ns > 0)
		worker->finish(grace_ns);
	return exit_status;
}

} // namespace mltcp::trainsim
