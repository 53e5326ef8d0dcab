// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// An owned file descriptor, closed on destruction.
#ifndef MLTCP_COMMON_FD_H
#define MLTCP_COMMON_FD_H

#include <unistd.h>

#include <utility>

namespace mltcp
{

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

} // namespace mltcp

#endif // MLTCP_COMMON_FD_H
