// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The cgroup v2 hierarchy as this process sees it: a job's "cgroup PATH"
// resolved to the id the kernel matches sockets on, and an id back to its
// path for "job show". Ids are those of the kernel (cgroup_id(), the
// kernfs node id), read with name_to_handle_at() as systemd reads them.
#ifndef MLTCPCTL_CGROUP_H
#define MLTCPCTL_CGROUP_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mltcpctl
{

// Where cgroup2 is mounted, from /proc/self/mountinfo; throws Error if it
// is not (a cgroup v1-only host).
std::string cgroup2_mount();

// PATH as a job takes it: under the cgroup2 mount, or relative to it (with
// or without a leading "/", as /proc/PID/cgroup writes paths). Returns the
// path relative to the mount, starting with "/"; throws Error (one line)
// if it names no cgroup.
std::string cgroup_relative_path(std::string_view path);

// The id of the cgroup at PATH (as cgroup_relative_path() takes it).
uint64_t cgroup_id(std::string_view path);

// The id of the cgroup whose directory fd is (opened O_PATH or not).
uint64_t cgroup_id_at(int fd);

// Throws Error unless fd is a directory of a cgroup2 filesystem; what
// names it in the message.
void check_cgroup2_dir(int fd, std::string_view what);

// The path (relative to the mount) of the cgroup with this id, if this
// process can see it.
std::optional<std::string> cgroup_path(uint64_t id);

} // namespace mltcpctl

#endif // MLTCPCTL_CGROUP_H
