# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Runs last: the kernel log of the whole guest run holds no warning, BUG,
oops, general protection fault, lockdep or refcount report."""
import re

from testbed.topology import sh

# Case-sensitive markers as the kernel prints them ("loops_per_jiffy" is not an oops).
BAD = re.compile(r"WARNING:|BUG:|kernel BUG at|Oops:|general protection fault|"
                 r"cut here|possible recursive locking|possible circular locking|lockdep|"
                 r"refcount_t:|Call Trace:|UBSAN:|KASAN:|kmemleak:|list_(add|del) corruption")


def test_markers_match_reports_and_only_reports():
    for line in ("WARNING: CPU: 1 PID: 7 at net/ipv4/tcp_cong.c:1 foo",
                 "BUG: kernel NULL pointer dereference, address: 0000000000000008",
                 "Oops: 0000 [#1] PREEMPT SMP NOPTI",
                 "general protection fault, probably for non-canonical address",
                 "refcount_t: underflow; use-after-free.",
                 "------------[ cut here ]------------", "Call Trace:"):
        assert BAD.search(line), line
    for line in ("calibrate_delay_direct() failed to get a good estimate for loops_per_jiffy.",
                 "tcp_mltcp: module verification failed: signature and/or required key missing",
                 "htb: netem qdisc 10: is non-work-conserving?"):
        assert not BAD.search(line), line


def test_dmesg_is_clean():
    log = sh("dmesg").stdout
    bad = [line for line in log.splitlines() if BAD.search(line)]
    assert not bad, "\n".join(bad)
