// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Thin, throwing wrappers over the socket calls the worker needs.
#ifndef MLTCP_TRAINSIM_NET_H
#define MLTCP_TRAINSIM_NET_H

#include <sys/socket.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "config.h"

namespace mltcp::trainsim
{

// A failure at run time (network, peers, files): reported on one line, exit 1.
class RuntimeError : public std::runtime_error
{
public:
	using std::runtime_error::runtime_error;
};

// what + ": " + strerror(error)
[[noreturn]] void throw_system_error(const std::string &what, int error);

// Owns one file descriptor; closes it when destroyed or reset.
class UniqueFd
{
public:
	UniqueFd() = default;
	explicit UniqueFd(int fd) : fd_(fd) {}
	~UniqueFd() { reset(); }
	UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
	UniqueFd &operator=(UniqueFd &&other) noexcept
	{
		if (this != &other)
			reset(other.release());
		return *this;
	}
	UniqueFd(const UniqueFd &) = delete;
	UniqueFd &operator=(const UniqueFd &) = delete;

	int get() const { return fd_; }
	explicit operator bool() const { return fd_ >= 0; }
	int release()
	{
		int fd = fd_;
		fd_ = -1;
		return fd;
	}
	void reset(int fd = -1);

private:
	int fd_ = -1;
};

int64_t realtime_ns();
int64_t monotonic_ns();

struct SocketAddress {
	sockaddr_storage storage{};
	socklen_t length = 0;
};

std::string format_address(const SocketAddress &address);

// Resolves HOST:PORT (names or literals) to candidate addresses.
std::vector<SocketAddress> resolve(const Endpoint &endpoint);

// Selects the congestion control of a socket; a refusal names the algorithm,
// the reason, and what the kernel offers.
void set_congestion_control(int fd, const std::string &name);
std::string congestion_control(int fd);

void set_no_delay(int fd);

// Nonblocking listening socket with SO_REUSEADDR and the given congestion
// control (inherited by the accepted socket). An empty host listens on
// 0.0.0.0.
UniqueFd open_listener(const Endpoint &endpoint, const std::string &cc);

struct TcpCounters {
	uint64_t total_retrans = 0; // tcpi_total_retrans
	uint32_t rtt_us = 0;	    // tcpi_rtt
	uint64_t bytes_acked = 0;   // tcpi_bytes_acked
};
TcpCounters tcp_counters(int fd);

// Bytes written to the socket and not yet acknowledged by the peer (SIOCOUTQ).
uint64_t unacknowledged_bytes(int fd);

// Pending error of a socket (SO_ERROR), 0 if none.
int socket_error(int fd);

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_NET_H
