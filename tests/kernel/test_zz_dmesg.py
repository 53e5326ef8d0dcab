# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Runs last: the kernel log of the whole guest run holds no warning, BUG,
oops, general protection fault, lockdep or refcount report."""
import re

from netlab import sh

BAD = re.compile(r"WARNING:|BUG:|kernel BUG|Oops|general protection|"
                 r"possible recursive locking|lockdep|refcount_t|"
                 r"Call Trace|UBSAN|KASAN|kmemleak|list_(add|del) corruption",
                 re.IGNORECASE)


def test_dmesg_is_clean():
    log = sh("dmesg").stdout
    bad = [line for line in log.splitlines() if BAD.search(line)]
    assert not bad, "\n".join(bad)
