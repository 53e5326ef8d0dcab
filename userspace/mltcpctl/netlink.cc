// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "netlink.h"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "uapi/mltcp.h"

namespace mltcpctl
{
namespace
{

// Dumps come in datagrams of up to 32 KiB; a bigger buffer never truncates.
constexpr size_t kRecvBuffer = 1 << 16;

[[noreturn]] void sys_fail(const std::string &what)
{
	throw Error(what + ": " + strerror(errno));
}

} // namespace

void read_consistent(const std::function<bool()> &read, const std::string &what)
{
	for (int attempt = 0; attempt < kDumpAttempts; attempt++)
		if (!read())
			return;
	throw Error("the " + what + " kept changing while they were read (" +
		    std::to_string(kDumpAttempts) + " attempts); try again");
}

KernelError::KernelError(uint8_t cmd_, Ack ack_, Bytes request_)
    : std::runtime_error(ack_.message.empty() ? strerror(ack_.error) : ack_.message), cmd(cmd_),
      ack(std::move(ack_)), request(std::move(request_))
{
}

void Socket::Closer::operator()(mnl_socket *s) const
{
	mnl_socket_close(s);
}

Socket::Socket() : sock_(mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC))
{
	int one = 1;

	if (!sock_)
		sys_fail("netlink socket");
	if (mnl_socket_bind(sock_.get(), 0, MNL_SOCKET_AUTOPID) < 0)
		sys_fail("netlink bind");
	// Extended acks (messages, offending attribute, policy), without the
	// request echoed back.
	mnl_socket_setsockopt(sock_.get(), NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock_.get(), NETLINK_CAP_ACK, &one, sizeof(one));
}

void Socket::send(const Bytes &msg)
{
	if (mnl_socket_sendto(sock_.get(), msg.data(), msg.size()) < 0)
		sys_fail("netlink send");
}

size_t Socket::recv(std::vector<uint8_t> &buf)
{
	ssize_t n;

	do {
		n = mnl_socket_recvfrom(sock_.get(), buf.data(), buf.size());
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		sys_fail("netlink receive");
	return static_cast<size_t>(n);
}

uint32_t Socket::portid() const
{
	return mnl_socket_get_portid(sock_.get());
}

Client::Client() : seq_(static_cast<uint32_t>(time(nullptr))), buf_(kRecvBuffer)
{
	std::optional<FamilyInfo> info;

	transact(0, encode_family_request(++seq_), false,
		 [&](const nlmsghdr *nlh) { info = decode_family(nlh); });
	if (!info)
		throw Error("unexpected reply from the generic netlink controller");
	family_ = info->id;
	version_ = info->version;
}

bool Client::transact(uint8_t cmd, Bytes request, bool dump,
		      const std::function<void(const nlmsghdr *)> &on_reply)
{
	auto *req = reinterpret_cast<const nlmsghdr *>(request.data());
	uint32_t seq = req->nlmsg_seq;
	uint32_t portid = sock_.portid();
	bool interrupted = false;

	sock_.send(request);
	for (;;) {
		size_t n = sock_.recv(buf_);
		for (const nlmsghdr *nlh : split_messages(buf_.data(), n)) {
			if (nlh->nlmsg_seq != seq || (nlh->nlmsg_pid && nlh->nlmsg_pid != portid))
				continue; // a stale reply
			if (nlh->nlmsg_type == NLMSG_NOOP)
				continue;
			interrupted |= (nlh->nlmsg_flags & NLM_F_DUMP_INTR) != 0;
			if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE) {
				auto ack = decode_ack(nlh);
				if (!ack)
					throw Error("malformed acknowledgement from the kernel");
				if (ack->error)
					throw KernelError(cmd, std::move(*ack), std::move(request));
				if (nlh->nlmsg_type == NLMSG_DONE || !dump)
					return interrupted;
				continue;
			}
			on_reply(nlh);
		}
	}
}

void Client::add_job(const Job &job)
{
	transact(MLTCP_CMD_JOB_ADD, encode_job(family_, MLTCP_CMD_JOB_ADD, job, ++seq_, NLM_F_ACK),
		 false, [](const nlmsghdr *) {});
}

void Client::set_job(const Job &job)
{
	transact(MLTCP_CMD_JOB_SET, encode_job(family_, MLTCP_CMD_JOB_SET, job, ++seq_, NLM_F_ACK),
		 false, [](const nlmsghdr *) {});
}

void Client::del_job(uint32_t id)
{
	transact(MLTCP_CMD_JOB_DEL,
		 encode_job_id(family_, MLTCP_CMD_JOB_DEL, id, ++seq_, NLM_F_ACK), false,
		 [](const nlmsghdr *) {});
}

void Client::mark_job(uint32_t id, std::optional<uint32_t> step)
{
	transact(MLTCP_CMD_JOB_MARK, encode_job_mark(family_, id, step, ++seq_), false,
		 [](const nlmsghdr *) {});
}

Job Client::get_job(uint32_t id)
{
	std::optional<Job> job;

	transact(MLTCP_CMD_JOB_GET,
		 encode_job_id(family_, MLTCP_CMD_JOB_GET, id, ++seq_, NLM_F_ACK), false,
		 [&](const nlmsghdr *nlh) {
			 job = decode_job(nlh);
			 if (!job)
				 throw Error("malformed job in the kernel's reply");
		 });
	if (!job)
		throw Error("no job in the kernel's reply");
	return *job;
}

std::vector<Job> Client::jobs()
{
	std::vector<Job> out;

	read_consistent(
		[&] {
			out.clear();
			return transact(
				MLTCP_CMD_JOB_GET,
				encode_job_id(family_, MLTCP_CMD_JOB_GET, std::nullopt, ++seq_,
					      NLM_F_ACK | NLM_F_DUMP),
				true, [&](const nlmsghdr *nlh) {
					auto job = decode_job(nlh);
					if (!job)
						throw Error("malformed job in the kernel's reply");
					out.push_back(std::move(*job));
				});
		},
		"jobs");
	return out;
}

std::vector<Flow> Client::flows(std::optional<uint32_t> job)
{
	std::vector<Flow> out;

	read_consistent(
		[&] {
			out.clear();
			return transact(
				MLTCP_CMD_FLOW_GET, encode_flow_dump(family_, job, ++seq_), true,
				[&](const nlmsghdr *nlh) {
					auto flow = decode_flow(nlh);
					if (!flow)
						throw Error("malformed flow in the kernel's reply");
					out.push_back(std::move(*flow));
				});
		},
		"jobs and their flows");
	return out;
}

Stats Client::stats()
{
	std::optional<Stats> stats;

	transact(MLTCP_CMD_STATS_GET, encode_stats_get(family_, ++seq_), false,
		 [&](const nlmsghdr *nlh) {
			 stats = decode_stats(nlh);
			 if (!stats)
				 throw Error("malformed counters in the kernel's reply");
		 });
	if (!stats)
		throw Error("no counters in the kernel's reply");
	return *stats;
}

} // namespace mltcpctl
