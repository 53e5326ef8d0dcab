# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Who may mark a job, and what a step number does (issue 15). A training
framework marks its own steps without privilege: a process in the job's
cgroup (or below it) may mark that job, through a netlink socket opened
there; a job on the root cgroup has no such processes; any other process
needs CAP_NET_ADMIN. A mark with a step counts unless it is the step marked
last, so the ranks sharing a host mark each step once, and a restarted run
is followed. What marks do to flows: tests/datapath/test_marks.py."""
import json
import os
import re
import subprocess

import pytest

import tracefs
from nl_ctl import NOBODY, binary, clear_jobs, ctl, ctl_json


@pytest.fixture
def cgroup():
    path = "/sys/fs/cgroup/mltcp-marks-%d" % os.getpid()
    os.mkdir(path)
    yield path
    os.rmdir(path)


@pytest.fixture(autouse=True)
def no_jobs():
    clear_jobs()
    yield
    clear_jobs()


def marks(job):
    return ctl_json("job", "show", job)[0]["marks"]


def mark_as_nobody(job, cgroup=None):
    """mltcpctl job mark, unprivileged, started in cgroup if given."""
    argv = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
            binary(), "job", "mark", str(job)]
    if cgroup:
        argv = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup] + argv
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def test_the_jobs_own_processes_may_mark_it_unprivileged(cgroup):
    ctl("job", "add", 1, "cgroup", "/" + os.path.basename(cgroup), "marked")
    ctl("job", "add", 2, "marked")
    assert mark_as_nobody(1, cgroup).returncode == 0
    assert marks(1) == 1
    rank = os.path.join(cgroup, "rank0")
    os.mkdir(rank)
    try:
        assert mark_as_nobody(1, rank).returncode == 0, "a descendant is the job's own"
    finally:
        os.rmdir(rank)
    assert marks(1) == 2
    refused = mark_as_nobody(1)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "mltcpctl: job 1: marking a job needs CAP_NET_ADMIN or a process in the job's cgroup"]
    assert marks(1) == 2, "a refused mark changes nothing"
    refused = mark_as_nobody(2, cgroup)
    assert refused.returncode == 1, "a job without a cgroup: CAP_NET_ADMIN only"
    assert marks(2) == 0
    ctl("job", "mark", 2)
    assert marks(2) == 1


def test_a_job_on_the_root_cgroup_is_nobodys_own(cgroup):
    ctl("job", "add", 5, "cgroup", "/", "marked")
    assert mark_as_nobody(5, cgroup).returncode == 1
    assert marks(5) == 0


def test_a_step_counts_unless_it_was_marked_last():
    ctl("job", "add", 3, "marked")
    ctl("job", "mark", 3, "step", 5)
    assert marks(3) == 1
    ctl("job", "mark", 3, "step", 5)  # the other rank of the host, same step
    assert marks(3) == 1
    ctl("job", "mark", 3, "step", 6)
    ctl("job", "mark", 3, "step", 1)  # the run restarted: its steps count from 1
    assert marks(3) == 3
    ctl("job", "mark", 3)  # no step: always counts
    assert marks(3) == 4
    follow = subprocess.run([binary(), "job", "mark", "3", "follow"], input="7\n7\n\n9\n",
                            capture_output=True, text=True, timeout=60)
    assert follow.returncode == 0 and follow.stdout.split() == ["ok"] * 4, follow
    assert marks(3) == 7


@pytest.mark.parametrize("args, message", [
    (("step", "0"), "step \"0\": not a step number (1-4294967295)"),
    (("step", "4294967296"), "step \"4294967296\": not a step number (1-4294967295)"),
    (("step", "3", "follow"), "job mark: step or follow, not both (follow reads the steps)"),
])
def test_bad_steps_are_refused(args, message):
    ctl("job", "add", 4, "marked")
    done = ctl("job", "mark", 4, *args, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "mltcpctl: %s (try \"mltcpctl help\")" % message], done.stderr
    assert marks(4) == 0


# The netlink handlers and the job lock, traced by ftrace's function tracer.
# Only these module functions are patched: nothing but this test's requests
# runs them while the trace is switched on or off. Tracing every function,
# as function_graph does, patches scheduler functions that other vCPUs are
# running; under TCG one of them can hit the breakpoint of the patch and
# take the guest down.
TRACED = ("mltcp_nl_job_mark", "mltcp_nl_job_get", "mltcp_nl_job_dump", "mltcp_nl_flow_start",
          "mltcp_jobs_lock")


def calls_during(action):
    """The names of the TRACED functions called while action() ran."""
    tracefs.mount()
    tracefs.write("tracing_on", "0")
    tracefs.write("current_tracer", "nop")
    tracefs.write("set_ftrace_filter", "\n".join(TRACED))
    tracefs.write("trace", "")
    tracefs.write("current_tracer", "function")
    tracefs.write("tracing_on", "1")
    try:
        action()
    finally:
        tracefs.write("tracing_on", "0")
        with open(os.path.join(tracefs.TRACEFS, "trace")) as f:
            text = f.read()
        tracefs.write("current_tracer", "nop")
        tracefs.write("set_ftrace_filter", "")
        tracefs.write("trace", "")
    # "  mltcpctl-87  [001] .....  41.2: mltcp_jobs_lock <-mltcp_nl_job_mark [tcp_mltcp]"
    return set(re.findall(r": (\w+) <-", text))


def as_nobody(*args):
    return subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                           "--clear-groups", binary(), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_refused_marks_and_reads_never_take_the_job_lock():
    """Writers and marks serialise on the namespace's job lock; a process
    that may not mark, or only reads, must not hold it up: its request is
    checked and answered under RCU. The admin's mark is the control that the
    trace sees the lock when it is taken."""
    ctl("job", "add", 6, "marked")

    def unprivileged():
        assert as_nobody("job", "mark", 6).returncode == 1
        assert as_nobody("job", "mark", 99).returncode == 1
        shown = as_nobody("-j", "job", "show", 6)
        assert shown.returncode == 0 and json.loads(shown.stdout)[0]["id"] == 6, shown
        assert as_nobody("job", "show").returncode == 0
        assert as_nobody("flow", "show", "job", 6).returncode == 0

    calls = calls_during(unprivileged)
    assert {"mltcp_nl_job_mark", "mltcp_nl_job_get", "mltcp_nl_job_dump",
            "mltcp_nl_flow_start"} <= calls, sorted(calls)
    assert "mltcp_jobs_lock" not in calls, sorted(calls)
    assert marks(6) == 0, "a refused mark changes nothing"

    calls = calls_during(lambda: ctl("job", "mark", 6))
    assert "mltcp_jobs_lock" in calls, sorted(calls)
    assert marks(6) == 1
