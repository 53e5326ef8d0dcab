// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-bpf's commands against the kernel: libbpf, the generated skeleton of
// bpf/mltcp.bpf.c, and bpffs pins that let "unload", "set", "status" and
// "flows" find what "load" registered after the loader exited.
#ifndef MLTCP_BPF_LOADER_H
#define MLTCP_BPF_LOADER_H

#include <unistd.h>

#include <stdexcept>
#include <utility>

#include "cli.h"

namespace mltcp::bpf
{

// A failed command; what() is one line, printed after "mltcp-bpf: ".
class Error : public std::runtime_error
{
public:
	using std::runtime_error::runtime_error;
};

// An owned file descriptor, closed on destruction (also used by mltcpctl's BPF backend).
class Fd
{
public:
	explicit Fd(int fd = -1) : fd_(fd) {}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	Fd(Fd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
	Fd &operator=(Fd &&other) noexcept
	{
		std::swap(fd_, other.fd_);
		return *this;
	}
	~Fd()
	{
		if (fd_ >= 0)
			close(fd_);
	}
	int get() const { return fd_; }
	bool valid() const { return fd_ >= 0; }

private:
	int fd_;
};

// Runs the parsed command; returns the exit status or throws Error.
int run(const Options &options);

// Whether this process has the capability (effective set), e.g. CAP_NET_ADMIN.
bool has_capability(int cap);

} // namespace mltcp::bpf

#endif // MLTCP_BPF_LOADER_H
