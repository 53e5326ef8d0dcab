// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cgroup.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "error.h"

namespace mltcpctl
{
namespace
{

// path is mount or a path below it (not /sys/fs/cgroup2 for /sys/fs/cgroup).
bool under(const std::string &path, const std::string &mount)
{
	return path.compare(0, mount.size(), mount) == 0 &&
	       (path.size() == mount.size() || path[mount.size()] == '/');
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string &field)
{
	std::string out;

	for (size_t i = 0; i < field.size(); i++) {
		if (field[i] == '\\' && i + 3 < field.size()) {
			out += static_cast<char>(std::stoi(field.substr(i + 1, 3), nullptr, 8));
			i += 3;
		} else {
			out += field[i];
		}
	}
	return out;
}

std::string absolute_path(std::string_view path)
{
	const std::string mount = cgroup2_mount();
	std::string p(path);

	if (p.empty())
		throw Error("cgroup: empty path");
	if (under(p, mount))
		return p;
	return mount + (p[0] == '/' ? "" : "/") + p;
}

} // namespace

std::string cgroup2_mount()
{
	std::ifstream in("/proc/self/mountinfo");
	std::string line;

	while (std::getline(in, line)) {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		std::istringstream fields(line);
		std::string id, parent, dev, root, mountpoint, word;

		fields >> id >> parent >> dev >> root >> mountpoint;
		while (fields >> word && word != "-") {
		}
		if (fields >> word && word == "cgroup2")
			return unescape(mountpoint);
	}
	throw Error("cgroup: no cgroup2 filesystem mounted (cgroup v2 is required)");
}

std::string cgroup_relative_path(std::string_view path)
{
	const std::string mount = cgroup2_mount();
	const std::string given = absolute_path(path);
	std::unique_ptr<char, decltype(&free)> real(realpath(given.c_str(), nullptr), free);
	struct statfs fs {};
	struct stat st {};

	if (!real)
		throw Error("cgroup " + std::string(path) + ": " + strerror(errno));
	std::string resolved(real.get());
	if (statfs(resolved.c_str(), &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC ||
	    stat(resolved.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !under(resolved, mount))
		throw Error("cgroup " + std::string(path) + ": not a cgroup (v2) under " + mount);
	std::string relative = resolved.substr(mount.size());
	return relative.empty() ? "/" : relative;
}

namespace
{

// A kernfs file handle is the node's 64-bit id (FILEID_KERNFS).
bool handle_id(int dirfd, const char *path, int flags, uint64_t *id)
{
	struct {
		struct file_handle handle;
		uint64_t id;
	} fh{};
	int mount_id = 0;

	fh.handle.handle_bytes = sizeof(fh.id);
	if (name_to_handle_at(dirfd, path, &fh.handle, &mount_id, flags) != 0)
		return false;
	if (fh.handle.handle_bytes != sizeof(fh.id)) {
		errno = EINVAL;
		return false;
	}
	*id = fh.id;
	return true;
}

} // namespace

uint64_t cgroup_id(std::string_view path)
{
	const std::string full = cgroup2_mount() + cgroup_relative_path(path);
	uint64_t id = 0;

	if (!handle_id(AT_FDCWD, full.c_str(), 0, &id))
		throw Error("cgroup " + std::string(path) + ": cannot read its id: " +
			    strerror(errno));
	return id;
}

uint64_t cgroup_id_at(int fd)
{
	uint64_t id = 0;

	if (!handle_id(fd, "", AT_EMPTY_PATH, &id))
		throw Error(std::string("cgroup: cannot read its id: ") + strerror(errno));
	return id;
}

void check_cgroup2_dir(int fd, std::string_view what)
{
	struct statfs fs {};
	struct stat st {};

	if (fstatfs(fd, &fs) != 0 || fstat(fd, &st) != 0)
		throw Error(std::string(what) + ": " + strerror(errno));
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode))
		throw Error(std::string(what) + ": not a cgroup (v2)");
}

std::optional<std::string> cgroup_path(uint64_t id)
{
	namespace fs = std::filesystem;
	std::string mount;
	std::error_code ec;

	try {
		mount = cgroup2_mount();
	} catch (const Error &) {
		return std::nullopt;
	}
	// On 64-bit kernels a kernfs inode number is the node's id.
	struct stat st {};
	if (stat(mount.c_str(), &st) == 0 && st.st_ino == id)
		return "/";
	for (fs::recursive_directory_iterator it(mount, fs::directory_options::skip_permission_denied,
						 ec),
	     end;
	     !ec && it != end; it.increment(ec)) {
		if (!it->is_directory(ec) || it->is_symlink(ec))
			continue;
		if (stat(it->path().c_str(), &st) == 0 && st.st_ino == id)
			return it->path().string().substr(mount.size());
	}
	return std::nullopt;
}

} // namespace mltcpctl
