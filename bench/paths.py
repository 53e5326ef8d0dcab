# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the bench finds this checkout's programs and keeps its results.

The checkout has the same path in the test guest (scripts/vm-run shares the
host's root file system), so these hold on both sides.
"""
import os

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, "build")
TRAINSIM = os.path.join(BUILD, "userspace", "trainsim", "mltcp-trainsim")
MLTCPCTL = os.path.join(BUILD, "userspace", "mltcpctl", "mltcpctl")
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
