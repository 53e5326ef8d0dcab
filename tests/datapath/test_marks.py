# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Marked jobs: the application says where its iterations start
(`mltcpctl job mark`), and the job's flows follow the marks instead of
their idles (issue 15). The step here is shaped as PyTorch DDP's over gloo
is on two ranks far apart: a short notice, a wait, half the gradients, a
longer wait, the other half; by idles alone it is three iterations."""
import os
import subprocess
import time

import pytest

from dp import ONOFF, OTHER_PORT, PYTHON, TOP

HALF = 256 << 10
NOTICE = 192


pytestmark = pytest.mark.usefixtures("no_jobs")


class Steps:
    """onoff.py steps: a burst per line, on the test's signal."""

    def __init__(self, net):
        self.proc = net.snd.spawn(PYTHON, ONOFF, "steps", net.rcv.addr, str(OTHER_PORT), "mltcp",
                                  stdin=subprocess.PIPE)
        line = self.proc.stdout.readline().split()
        assert line and line[0] == "sport", self.proc.stderr.read()
        self.sport = int(line[1])

    def burst(self, nbytes, then_idle_s):
        self.proc.stdin.write("%d\n" % nbytes)
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "sent", self.proc.stderr.read()
        time.sleep(then_idle_s)

    def step(self):
        self.burst(NOTICE, 0.05)
        self.burst(HALF, 0.12)
        self.burst(HALF, 0.03)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_marked_flow_starts_iterations_at_marks_only(backend, net):
    backend.job("add", 1, "dport", OTHER_PORT, "marked")
    assert backend.jobs(1)[0]["marked"] is True
    flow = Steps(net)
    try:
        flow.step()
        assert net.flow_by_sport(flow.sport)["iterations"] == 0, "no mark yet: no start"
        for _ in range(5):
            backend.job("mark", 1)
            flow.step()
        shown = net.flow_by_sport(flow.sport)
        assert shown["iterations"] == 5, shown
        # Learned from four whole steps (the first also folded the unmarked one).
        assert abs(shown["iter_bytes"] - (2 * HALF + NOTICE)) <= 0.02 * 2 * HALF, shown
        assert backend.jobs(1)[0]["marks"] == 5
    finally:
        flow.close()


def test_unmarked_job_counts_idles_and_marks_change_nothing(backend, net):
    backend.job("add", 1, "dport", OTHER_PORT)
    flow = Steps(net)
    try:
        for _ in range(3):
            backend.job("mark", 1)
            flow.step()
        shown = net.flow_by_sport(flow.sport)
        assert shown["iterations"] >= 3, "idles still start iterations: %s" % shown
        assert "marked" not in backend.jobs(1)[0] or backend.jobs(1)[0]["marked"] is False
    finally:
        flow.close()


def test_mark_of_a_missing_job_fails_with_one_line(backend):
    done = backend.job("mark", 77, check=False)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["mltcpctl: job 77: no such job"], done.stderr


# A rank's marks through libmltcp (the package mltcp), from a process in the
# sender's network namespace (the module's jobs are that namespace's): a
# mark per line read, "ok" once made. nsenter joins the namespace without
# `ip netns exec`'s private /sys, so the BPF twin's pins stay in reach.
LIB_MARKER = """
import sys
import mltcp
marker = mltcp.Marker(int(sys.argv[1]), sys.argv[2])
for line in sys.stdin:
    marker.mark(int(line))
    print("ok", flush=True)
"""


def test_marks_through_libmltcp_start_the_iterations(backend, net):
    backend.job("add", 1, "dport", OTHER_PORT, "marked")
    marker = subprocess.Popen(
        ["nsenter", "--net=/run/netns/" + net.snd.name, PYTHON, "-c", LIB_MARKER, "1",
         backend.name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=dict(os.environ, PYTHONPATH=os.path.join(TOP, "userspace", "libmltcp",
                                                                "python")))
    flow = Steps(net)
    try:
        for step in range(1, 5):
            marker.stdin.write("%d\n%d\n" % (step, step))  # two ranks' marks of one step
            marker.stdin.flush()
            for _ in range(2):
                assert marker.stdout.readline().strip() == "ok", marker.stderr.read()
            flow.step()
        shown = net.flow_by_sport(flow.sport)
        assert shown["iterations"] == 4, shown
        assert backend.jobs(1)[0]["marks"] == 4
    finally:
        flow.close()
        marker.stdin.close()
        marker.wait(timeout=30)
