# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the bench finds this checkout's programs and keeps its results.

The checkout has the same path in the test guest (scripts/vm-run shares the
host's root file system), so these hold on both sides.
"""
import os

from testbed import paths as testbed_paths

# The checkout and the programs the test bed runs too: one home, testbed/paths.py.
TOP, MLTCPCTL, TRAINSIM = testbed_paths.TOP, testbed_paths.MLTCPCTL, testbed_paths.TRAINSIM

BUILD = os.path.join(TOP, "build")
SIM = os.path.join(BUILD, "sim", "mltcp-sim")
VM_RUN = os.path.join(TOP, "scripts", "vm-run")
RESULTS = os.path.join(TOP, "bench", "results")
# The guest runs the host's userspace; this is the interpreter that has
# the packages the bench needs (matplotlib), whatever python3 is on PATH.
SYSTEM_PYTHON = "/usr/bin/python3"
# Host bench points each load the BPF twin: they take this lock in turn.
HOST_LOCK = "/tmp/mltcp-host.lock"


def in_tree(path):
    """A configuration's path to a program, relative to the top of the checkout."""
    return path if os.path.isabs(path) else os.path.join(TOP, path)
