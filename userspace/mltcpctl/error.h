// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The failure every part of mltcpctl throws: already worded for the user,
// one line, printed as "mltcpctl: MESSAGE" with exit status 1. libmltcp
// returns it to its callers as a negative errno too: err, where a failure
// amounts to one (0: none does).
#ifndef MLTCPCTL_ERROR_H
#define MLTCPCTL_ERROR_H

#include <stdexcept>

namespace mltcpctl
{

class Error : public std::runtime_error
{
public:
	explicit Error(const std::string &what, int err_ = 0) : std::runtime_error(what), err(err_)
	{
	}
	int err;
};

} // namespace mltcpctl

#endif // MLTCPCTL_ERROR_H
