# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The kernel log check's markers (testbed/dmesg.py) match the kernel's
reports and only those. The check itself runs after the session's last test
(testbed/dmesg_plugin.py, registered by this suite's conftest and
tests/datapath's): the kernel log of the whole guest run holds no warning,
BUG, oops, general protection fault, lockdep or refcount report."""
from testbed.dmesg import BAD


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
