// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl run": a command in a fresh cgroup, with a job that matches it,
// both removed when the command ends; the command optionally as another
// user and group.
#ifndef MLTCPCTL_RUN_H
#define MLTCPCTL_RUN_H

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "model.h"

namespace mltcpctl
{

// Who COMMAND runs as: "user" sets uid, gid and groups; "group" alone,
// gid only. Resolved in the parent before anything is made, so that the
// child looks nothing up.
struct Credentials {
	std::optional<uid_t> uid;
	std::optional<gid_t> gid;
	std::vector<gid_t> groups; // supplementary; set only with uid
	std::string name, home;	   // the user's entry in the user database, if any
};

// Looks up cmd.run_user and cmd.run_group (names or digits): a user name
// gets its entry's gid and the groups initgroups() would give it; a uid
// with an entry, the same; a uid without one needs a group and gets no
// supplementary groups. Throws Error (one line) for an unknown name, a uid
// that resolves to 0, or a uid without a group.
Credentials resolve_credentials(const std::string &user, const std::string &group);

// In the child, before exec: setgroups, setresgid, setresuid, every
// capability set emptied and no_new_privs (with a uid), then checks that
// root cannot be had back. Returns "" or why it failed (one line).
std::string drop_privileges(const Credentials &creds);

// Starts a child in the cgroup whose directory cgroup_fd is (O_PATH is
// enough): clone3(CLONE_INTO_CGROUP); where clone3 is ENOSYS (a seccomp
// profile hiding it), fork() and the child writes itself into cgroup.procs
// opened relative to cgroup_fd. Returns 0 in the child, which is in the
// cgroup, and its pid in the parent; throws Error. *forked, if given, says
// which way was taken.
pid_t spawn_in_cgroup(int cgroup_fd, bool *forked = nullptr);

// Runs cmd.run_argv; returns its exit status (128 + N if signal N killed
// it). Throws Error or KernelError if the user or group are unknown or the
// cgroup or the job cannot be made, having removed whatever it made.
int run_in_job(Backend &backend, const Command &cmd);

} // namespace mltcpctl

#endif // MLTCPCTL_RUN_H
