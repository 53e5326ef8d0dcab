// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h> // tcp_info with tcpi_bytes_acked (glibc's predates it)
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mltcp::trainsim
{

void throw_system_error(const std::string &what, int error)
{
	throw RuntimeError(what + ": " + std::strerror(error));
}

void UniqueFd::reset(int fd)
{
	if (fd_ >= 0)
		::close(fd_);
	fd_ = fd;
}

namespace
{

int64_t clock_ns(clockid_t clock)
{
	timespec ts;
	clock_gettime(clock, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string available_congestion_control()
{
	std::ifstream file("/proc/sys/net/ipv4/tcp_available_congestion_control");
	std::string line;
	std::getline(file, line);
	return line.empty() ? "unknown" : line;
}

} // namespace

int64_t realtime_ns()
{
	return clock_ns(CLOCK_REALTIME);
}

int64_t monotonic_ns()
{
	return clock_ns(CLOCK_MONOTONIC);
}

std::string format_address(const SocketAddress &address)
{
	char host[INET6_ADDRSTRLEN] = "?";
	uint16_t port = 0;
	if (address.storage.ss_family == AF_INET) {
		const auto *in = reinterpret_cast<const sockaddr_in *>(&address.storage);
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		return std::string(host) + ":" + std::to_string(port);
	}
	if (address.storage.ss_family == AF_INET6) {
		const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&address.storage);
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		return "[" + std::string(host) + "]:" + std::to_string(port);
	}
	return "?";
}

std::vector<SocketAddress> resolve(const Endpoint &endpoint)
{
	addrinfo hints{};
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	addrinfo *found = nullptr;
	std::string port = std::to_string(endpoint.port);
	int rc = getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &found);
	if (rc != 0)
		throw RuntimeError("cannot resolve " + format_endpoint(endpoint) + ": " +
				   gai_strerror(rc));
	std::vector<SocketAddress> addresses;
	for (addrinfo *ai = found; ai; ai = ai->ai_next) {
		SocketAddress address;
		std::memcpy(&address.storage, ai->ai_addr, ai->ai_addrlen);
		address.length = ai->ai_addrlen;
		addresses.push_back(address);
	}
	freeaddrinfo(found);
	return addresses;
}

void set_congestion_control(int fd, const std::string &name)
{
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(), name.size()) == 0)
		return;
	int error = errno;
	throw RuntimeError("--cc " + name + ": the kernel refused it: " + std::strerror(error) +
			   " (available: " + available_congestion_control() + ")");
}

std::string congestion_control(int fd)
{
	char name[32] = {};
	socklen_t length = sizeof(name) - 1;
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &length) != 0)
		throw_system_error("getsockopt(TCP_CONGESTION)", errno);
	return std::string(name, strnlen(name, length));
}

void set_no_delay(int fd)
{
	int one = 1;
	// The last segment of a step must leave at once: Nagle plus delayed ACKs
	// would hold it for up to 40 ms and stretch the step.
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
		throw_system_error("setsockopt(TCP_NODELAY)", errno);
}

UniqueFd open_listener(const Endpoint &endpoint, const std::string &cc)
{
	SocketAddress address;
	if (endpoint.host.empty()) {
		auto *in = reinterpret_cast<sockaddr_in *>(&address.storage);
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_ANY);
		in->sin_port = htons(endpoint.port);
		address.length = sizeof(sockaddr_in);
	} else {
		address = resolve(endpoint).at(0);
	}
	UniqueFd fd(
		socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (!fd)
		throw_system_error("socket", errno);
	int one = 1;
	if (setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
		throw_system_error("setsockopt(SO_REUSEADDR)", errno);
	if (!cc.empty())
		set_congestion_control(fd.get(), cc);
	if (bind(fd.get(), reinterpret_cast<sockaddr *>(&address.storage), address.length) != 0)
		throw_system_error("--listen " + format_endpoint(endpoint) + ": bind", errno);
	// Every worker connects all its sockets to next before it accepts prev's:
	// the kernel must complete them all from the backlog meanwhile.
	if (listen(fd.get(), max_sockets + 4) != 0)
		throw_system_error("--listen " + format_endpoint(endpoint) + ": listen", errno);
	return fd;
}

TcpCounters tcp_counters(int fd)
{
	tcp_info info{};
	socklen_t length = sizeof(info);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0)
		throw_system_error("getsockopt(TCP_INFO)", errno);
	return TcpCounters{ info.tcpi_total_retrans, info.tcpi_rtt, info.tcpi_bytes_acked };
}

uint64_t unacknowledged_bytes(int fd)
{
	int queued = 0;
	if (ioctl(fd, SIOCOUTQ, &queued) != 0)
		throw_system_error("ioctl(SIOCOUTQ)", errno);
	return queued > 0 ? static_cast<uint64_t>(queued) : 0;
}

int socket_error(int fd)
{
	int error = 0;
	socklen_t length = sizeof(error);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0)
		return errno;
	return error;
}

} // namespace mltcp::trainsim
