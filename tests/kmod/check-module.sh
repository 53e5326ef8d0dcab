#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Static checks of the built module on the host (it cannot be loaded here):
# every parameter is listed by modinfo with a description, the licence lets
# it use the GPL-only TCP helpers, it was built for the kernel series asked
# for, and its files call each other one way only (check-layers.sh).
#
#   check-module.sh [KO [SERIES]]   (default ./tcp_mltcp.ko, 6.1)
set -euo pipefail

ko=${1:-$(dirname "$0")/../../tcp_mltcp.ko}
series=${2:-6.1}
fail() { echo "check-module: FAIL: $*" >&2; exit 1; }

[[ -f $ko ]] || fail "$ko not built"
for param in slope intercept idle_gap_us base mode; do
	desc=$(modinfo -F parm "$ko" | sed -n "s/^$param:\(.*\)/\1/p")
	[[ -n $desc ]] || fail "parameter $param has no description"
	echo "ok: parm $param: $desc"
done
[[ $(modinfo -F license "$ko") == GPL ]] || fail "license is not GPL"
vermagic=$(modinfo -F vermagic "$ko")
[[ $vermagic == "$series".* ]] || fail "built for '$vermagic', expected a $series kernel"
echo "ok: vermagic $vermagic"
for alias in tcp_mltcp_reno tcp_mltcp_cubic; do
	modinfo -F alias "$ko" | grep -qx "$alias" || fail "alias $alias missing"
done
echo "ok: aliases for autoloading mltcp_reno and mltcp_cubic"
"$(dirname "$0")/check-layers.sh" "$(dirname "$ko")"
