# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The kernel log's check: the log of the whole guest run holds no warning,
BUG, oops, general protection fault, lockdep, refcount, UBSAN, KASAN,
kmemleak or list corruption report.

The in-guest suites (tests/kernel, tests/datapath) run it once, after their
last test (testbed.dmesg_plugin); `python3 -m testbed.dmesg` runs it alone
and exits non-zero listing the offending lines.
"""
import re
import subprocess
import sys

# Case-sensitive markers as the kernel prints them ("loops_per_jiffy" is not an oops).
BAD = re.compile(r"WARNING:|BUG:|kernel BUG at|Oops:|general protection fault|"
                 r"cut here|possible recursive locking|possible circular locking|lockdep|"
                 r"refcount_t:|Call Trace:|UBSAN:|KASAN:|kmemleak:|list_(add|del) corruption")


def read():
    """The kernel log (dmesg); raises if it cannot be read."""
    proc = subprocess.run(["dmesg"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("dmesg failed (%d): %s" % (proc.returncode, proc.stderr.strip()))
    return proc.stdout


def reports(log):
    """The lines of log that are a kernel report."""
    return [line for line in log.splitlines() if BAD.search(line)]


def main():
    bad = reports(read())
    if bad:
        print("kernel log: %d report line(s):\n%s" % (len(bad), "\n".join(bad)))
        return 1
    print("kernel log: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
