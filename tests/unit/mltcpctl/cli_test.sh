#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# mltcpctl as a program, where no kernel part is needed or whatever the
# host has loaded: -V prints the package's version (CMakeLists.txt's
# project(), which debian/changelog's latest entry must match); "bpf status"
# exits 1 exactly when it reports the BPF backend not loaded; with no backend
# at all, the error says how to get one.
#
#   cli_test.sh MLTCPCTL PROJECT_VERSION
set -uo pipefail

tool=$1
version=$2
top=$(cd "$(dirname "$0")/../../.." && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for opt in -V --version -Version; do
	out=$("$tool" "$opt")
	[[ $out == "mltcpctl $version, netlink family version "* ]] ||
		fail "$opt printed \"$out\", expected \"mltcpctl $version, ...\""
done
changelog=$(head -1 "$top/debian/changelog")
entry='^mltcp \(([^)-]*)[)-]'
if ! [[ $changelog =~ $entry && ${BASH_REMATCH[1]} == "$version" ]]; then
	fail "debian/changelog's latest entry \"$changelog\" is not version $version"
fi

out=$("$tool" bpf status 2>&1)
status=$?
if grep -qx "loaded no" <<<"$out"; then
	((status == 1)) || fail "bpf status reported \"loaded no\" with exit status $status"
elif grep -q "^loaded yes" <<<"$out"; then
	((status == 0)) || fail "bpf status reported \"loaded yes\" with exit status $status"
else
	echo "bpf status not checked here: $out"
fi

err=$("$tool" job show 2>&1 >/dev/null)
if [[ $err == "mltcpctl: no MLTCP backend:"* ]]; then
	[[ $err == *"load one: modprobe tcp_mltcp, or mltcpctl bpf load" ]] ||
		fail "no backend, and the error does not say how to get one: $err"
	[[ $(wc -l <<<"$err") == 1 ]] || fail "the error is not one line: $err"
else
	echo "no-backend error not checked here (a backend is there): $err"
fi

if ((fails)); then
	echo "cli_test: $fails failed"
	exit 1
fi
echo "cli_test: all passed"
