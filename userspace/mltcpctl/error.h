// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The failure every part of mltcpctl throws: already worded for the user,
// one line, printed as "mltcpctl: MESSAGE" with exit status 1.
#ifndef MLTCPCTL_ERROR_H
#define MLTCPCTL_ERROR_H

#include <stdexcept>

namespace mltcpctl
{

class Error : public std::runtime_error
{
public:
	using std::runtime_error::runtime_error;
};

} // namespace mltcpctl

#endif // MLTCPCTL_ERROR_H
