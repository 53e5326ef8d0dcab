#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Self-test of scripts/vm-run, run on the HOST. Boots the guest nine times
# (the timeout check in the background while the others run; three boots
# end in a panic at once), about 2 minutes in all. Exits non-zero if any check fails.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_RUN=$ROOT/scripts/vm-run
cd "$ROOT"

TMP=$(mktemp -d /tmp/test_vm_run.XXXXXX)
TIMEOUT_PID=
cleanup() {
	[[ -z $TIMEOUT_PID ]] || kill "$TIMEOUT_PID" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

FAILED=0
pass() { echo "ok   - $*"; }
fail() {
	echo "FAIL - $*"
	FAILED=1
}
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
show_log() { sed 's/^/    | /' "$1"; }

# Runs vm-run with the given args; output in $TMP/$name.log, status in RC.
RC=0
vm() {
	local name=$1
	shift
	RC=0
	"$VM_RUN" "$@" >"$TMP/$name.log" 2>&1 || RC=$?
}

# (f) Timeout, started first, in the background: its guest just sleeps, so
# the other boots can proceed meanwhile.
echo "# (f) started: vm-run --timeout 60 -- sleep 600 (in the background)"
(
	start=$SECONDS rc=0
	"$VM_RUN" --no-load --timeout 60 -- sleep 600 >"$TMP/timeout.log" 2>&1 </dev/null || rc=$?
	echo "$rc $((SECONDS - start))" >"$TMP/timeout.status"
) &
TIMEOUT_PID=$!

# (a) + (e): no-op with stdin closed, as in CI.
echo "# (a)(e) vm-run --no-load -- true  (stdin closed)"
vm true --no-load -- true <&-
check "(a) 'true' exits 0 (got $RC)" test "$RC" -eq 0
check "(a) output shows a 6.1 guest kernel" grep -Eq '^mltcp-vm: guest: kernel 6\.1\.' "$TMP/true.log"
check "(e) runs with stdin closed" test "$RC" -eq 0
((RC == 0)) || show_log "$TMP/true.log"

# (c): argv with spaces and quotes survives; stdin from /dev/null.
echo "# (c) vm-run --no-load -- printf '%s|' 'a b' \"c'd\""
vm printf --no-load -- printf '%s|' 'a b' "c'd" </dev/null
check "(c) exits 0 (got $RC)" test "$RC" -eq 0
check "(c) prints: a b|c'd|" grep -Fxq "a b|c'd|" "$TMP/printf.log"
((RC == 0)) || show_log "$TMP/printf.log"

# (b) + (d) + (g): exit status, results dir, netem; one boot.
echo "# (b)(d)(g) vm-run --no-load --results DIR -- sh -c '...; exit 7'"
token=$RANDOM$RANDOM
mkdir -p "$TMP/results"
# shellcheck disable=SC2016  # expanded by the guest's sh, not here
guest_script='
	set -e
	echo "in-vm=$MLTCP_IN_VM"
	echo "$1" > "$MLTCP_RESULTS/from-guest.txt"
	grep -q "^sch_netem " /proc/modules && echo "netem-module=loaded"
	tc qdisc add dev lo root netem delay 1ms
	tc qdisc show dev lo | grep -q "netem" && echo "netem-qdisc=ok"
	if touch /etc/mltcp-vm-probe 2>/dev/null; then echo "root=writable"; else echo "root=read-only"; fi
	[ "$(bash -c "cat <(echo fd)")" = fd ] && echo "dev-fd=ok"
	exit 7'
vm combined --no-load --results "$TMP/results" -- sh -c "$guest_script" sh "$token" </dev/null
check "(b) COMMAND's exit status 7 is vm-run's (got $RC)" test "$RC" -eq 7
check "(d) MLTCP_IN_VM=1 in the guest" grep -Fxq "in-vm=1" "$TMP/combined.log"
check "(d) file written to \$MLTCP_RESULTS appears on the host" \
	grep -Fxq "$token" "$TMP/results/from-guest.txt"
check "(g) sch_netem loaded in the guest" grep -Fxq "netem-module=loaded" "$TMP/combined.log"
check "(g) tc qdisc add dev lo root netem delay 1ms works" grep -Fxq "netem-qdisc=ok" "$TMP/combined.log"
check "(h) without --writable the root is read-only" grep -Fxq "root=read-only" "$TMP/combined.log"
check "(g) bash's <(...) works (/dev/fd)" grep -Fxq "dev-fd=ok" "$TMP/combined.log"
((RC == 7)) || show_log "$TMP/combined.log"

# (h) --writable: the guest writes anywhere, the upper layer shows what it
# wrote, and nothing reaches the host.
echo "# (h) vm-run --writable --no-load -- sh -c 'echo TOKEN > /etc/...'"
probe=/etc/mltcp-vm-probe.$token
# shellcheck disable=SC2016  # expanded by the guest's sh, not here
guest_script='
	set -e
	echo "$1" > "$2" && rm -f /etc/hostname
	echo "read-back=$(cat "$2")"
	test -f "$MLTCP_VM_OVERLAY/rw/upper$2" && echo "upper=has-it"
	test -c "$MLTCP_VM_OVERLAY/rw/upper/etc/hostname" && echo "upper=whiteout"'
vm writable --no-load --writable -- sh -c "$guest_script" sh "$token" "$probe" </dev/null
check "(h) --writable: writing / works (got $RC)" test "$RC" -eq 0
check "(h) --writable: the guest reads back what it wrote" grep -Fxq "read-back=$token" "$TMP/writable.log"
check "(h) --writable: the upper layer holds the new file" grep -Fxq "upper=has-it" "$TMP/writable.log"
check "(h) --writable: a deletion is a whiteout" grep -Fxq "upper=whiteout" "$TMP/writable.log"
check "(h) --writable: nothing reached the host" test ! -e "$probe" -a -e /etc/hostname
((RC == 0)) || show_log "$TMP/writable.log"

# (i) a guest that dies under the command (an immediate reset, as a panic
# with panic=-1 would): no status, so 125, and the console's tail on stderr.
echo "# (i) vm-run --no-load -- sh -c 'echo b >/proc/sysrq-trigger'"
vm reset --no-load -- sh -c 'echo b >/proc/sysrq-trigger; sleep 60'
check "(i) a guest that dies exits 125 (got $RC)" test "$RC" -eq 125
check "(i) the reason on stderr" grep -q "guest died without reporting a status" "$TMP/reset.log"
check "(i) the console's last lines on stderr" grep -q "last console lines:" "$TMP/reset.log"
check "(i) a death after our init is not booted again" test "$(grep -c "booting again" "$TMP/reset.log")" -eq 0
((RC == 125)) || show_log "$TMP/reset.log"
# vm-run keeps a dead guest's run directory for post-mortem; not this one.
dead_run=$(sed -n 's/.*(qemu exit [0-9]*; console: \(.*\)\/console\.log)$/\1/p' "$TMP/reset.log")
[[ -z $dead_run || ! -d $dead_run ]] || rm -rf -- "$dead_run"

# (j) a kernel that dies booting, before the guest side starts (no init:
# rdinit= names nothing, root= is unset): booted three times, each failure
# said, then 125.
echo "# (j) vm-run --no-load --kernel-arg rdinit=/nonexistent -- true"
vm noinit --no-load --kernel-arg rdinit=/nonexistent -- true
check "(j) a kernel that never boots exits 125 (got $RC)" test "$RC" -eq 125
check "(j) booted again twice, each said" \
	test "$(grep -c "the guest kernel died booting, before our init ran: .*Kernel panic" "$TMP/noinit.log")" -eq 2
check "(j) the third boot is the last" grep -q "booting again (3 of 3;" "$TMP/noinit.log"
((RC == 125)) || show_log "$TMP/noinit.log"
dead_run=$(sed -n 's/.*(qemu exit [0-9]*; console: \(.*\)\/console\.log)$/\1/p' "$TMP/noinit.log")
[[ -z $dead_run || ! -d $dead_run ]] || rm -rf -- "$dead_run"

# (f) collect the timeout run.
echo "# (f) waiting for the timeout run"
wait "$TIMEOUT_PID" || true
TIMEOUT_PID=
read -r trc telapsed <"$TMP/timeout.status"
check "(f) timeout exits 124 (got $trc)" test "$trc" -eq 124
check "(f) killed well before 'sleep 600' ends (${telapsed} s)" test "$telapsed" -lt 120
check "(f) timeout reason on stderr" grep -q "timeout: guest killed after 60 s" "$TMP/timeout.log"
((trc == 124)) || show_log "$TMP/timeout.log"
dead_run=$(sed -n 's/.*timeout: guest killed after [0-9]* s (console: \(.*\)\/console\.log)$/\1/p' "$TMP/timeout.log")
[[ -z $dead_run || ! -d $dead_run ]] || rm -rf -- "$dead_run"

if ((FAILED)); then
	echo "# test_vm_run: FAILED"
	exit 1
fi
echo "# test_vm_run: all checks passed"
