// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The one netlink client of mltcpctl: a libmnl socket owned by RAII, the
// family resolved through the generic netlink controller, and a request
// loop that turns error acks (with their extended-ack details) into
// exceptions.
#ifndef MLTCPCTL_NETLINK_H
#define MLTCPCTL_NETLINK_H

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.h"
#include "message.h"
#include "model.h"

struct mnl_socket;

namespace mltcpctl
{

// The kernel refused a request.
class KernelError : public std::runtime_error
{
public:
	KernelError(uint8_t cmd, Ack ack, Bytes request);
	uint8_t cmd; // MLTCP_CMD_*, 0 for the controller
	Ack ack;
	Bytes request;
};

// How often a dump the kernel flagged NLM_F_DUMP_INTR is read again.
constexpr int kDumpAttempts = 5;

// Runs read() (one whole dump; true if the kernel flagged it interrupted:
// the namespace's jobs, or the settings of their flows, changed while it
// was read) until a dump is not flagged, at most kDumpAttempts times; then
// throws Error, one line naming what (e.g. "jobs") kept changing.
void read_consistent(const std::function<bool()> &read, const std::string &what);

class Socket
{
public:
	Socket(); // throws Error
	void send(const Bytes &msg);
	// One datagram into buf; returns its length.
	size_t recv(std::vector<uint8_t> &buf);
	uint32_t portid() const;

private:
	struct Closer {
		void operator()(mnl_socket *s) const;
	};
	std::unique_ptr<mnl_socket, Closer> sock_;
};

class Client
{
public:
	// Opens a socket in the current network namespace and resolves the
	// family: throws KernelError (cmd 0, ENOENT) if the module is not loaded.
	Client();
	uint32_t version() const { return version_; }

	void add_job(const Job &job);
	void set_job(const Job &job);
	void del_job(uint32_t id);
	void mark_job(uint32_t id, std::optional<uint32_t> step);
	Job get_job(uint32_t id);
	std::vector<Job> jobs();
	std::vector<Flow> flows(std::optional<uint32_t> job);
	Stats stats();

private:
	// Sends the request and hands each reply message to on_reply, until the
	// ack (do) or NLMSG_DONE (dump). Returns whether a message of the dump,
	// NLMSG_DONE included, was flagged NLM_F_DUMP_INTR.
	bool transact(uint8_t cmd, Bytes request, bool dump,
		      const std::function<void(const nlmsghdr *)> &on_reply);
	Socket sock_;
	uint32_t seq_;
	uint16_t family_ = 0;
	uint32_t version_ = 0;
	std::vector<uint8_t> buf_;
};

} // namespace mltcpctl

#endif // MLTCPCTL_NETLINK_H
