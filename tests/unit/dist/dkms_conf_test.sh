#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# dkms.conf's BUILD_EXCLUSIVE_KERNEL against kernel releases, matched as
# DKMS matches it (dkms's read_conf: [[ $kernelver =~ $BUILD_EXCLUSIVE_KERNEL ]]):
# the kernels kmod/compat.h refuses must be skipped, not fail the build of
# every later kernel's autoinstall, and every release from its minimum on
# must be built. Also: the package's DKMS file is this dkms.conf, so that
# there is one source for both.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# dkms.conf is shell that DKMS sources; read it the same way, apart.
exclusive=$(
	# shellcheck disable=SC2034 # what dkms.conf's lines may refer to
	kernel_source_dir=/nonexistent dkms_tree=/nonexistent
	# shellcheck source=/dev/null
	. "$top/dkms.conf" && printf '%s' "${BUILD_EXCLUSIVE_KERNEL:-}"
)
[[ -n $exclusive ]] || fail "dkms.conf sets no BUILD_EXCLUSIVE_KERNEL"

built() { [[ $1 =~ $exclusive ]]; }

for v in 5.10.0-28-amd64 4.19.0-26-amd64 5.19.0 6.0.12-1-amd64 6.0 6.0-rc7 3.16.0-11-amd64 \
	2.6.32-5-amd64; do
	built "$v" && fail "$v: built, but kmod/compat.h refuses it (must be skipped)"
done
for v in 6.1.0-28-amd64 6.1.0-56-amd64 6.1 6.1-rc1 6.12.117+deb12-amd64 6.12.0 6.10.5 \
	6.19.3-arch1-1 7.0 7.0.0-1-amd64 9.5 10.0.0 16.3.1; do
	built "$v" || fail "$v: skipped, but the module supports it"
done

# The cut-off is compat.h's: its #error line names the oldest release.
if [[ $(cat "$top/kmod/compat.h") =~ KERNEL_VERSION\(([0-9]+),\ ([0-9]+),\ 0\)\ \>\ LINUX_VERSION_CODE ]]; then
	major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
	built "$major.$minor.0-1-amd64" || fail "compat.h's minimum $major.$minor: skipped"
	if ((minor > 0)); then
		built "$major.$((minor - 1)).0-1-amd64" && fail "$major.$((minor - 1)): below compat.h's minimum, built"
	else
		built "$((major - 1)).99.0" && fail "$((major - 1)).99: below compat.h's minimum, built"
	fi
else
	fail "kmod/compat.h: no \"KERNEL_VERSION(X, Y, 0) > LINUX_VERSION_CODE\" minimum found"
fi

# dh_dkms installs the one file debian/<package>.dkms names as dkms.conf.
[[ $(<"$top/debian/tcp-mltcp-dkms.dkms") == dkms.conf ]] ||
	fail "debian/tcp-mltcp-dkms.dkms does not name the top-level dkms.conf"

if ((fails)); then
	echo "$fails failure(s)"
	exit 1
fi
echo "dkms.conf: BUILD_EXCLUSIVE_KERNEL builds $major.$minor and later, skips older kernels"
