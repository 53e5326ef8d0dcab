# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Marked jobs in the bench on either backend (issue 38 item 4; trainsim
jobs since mltcp-trainsim --mark): the job tables and cgroups the driver
adds to and removes from (its command lines, no kernel), a step's mark as
torch_worker records it, and on this host's kernel with the BPF twin:
mltcpctl reaching the twin's pins from a process in another network
namespace, a failed driver run leaving the job table empty, and a marked
run of trainsim jobs whose ranks mark every iteration and leave nothing
behind.

The live tests load the twin with mltcpctl if none is loaded (and unload it
after); one another test loaded is used as it is, its jobs left alone."""
import json
import os
import subprocess
import sys
import time

import pytest

from bench import driver, rundir, torch_worker
from testbed import mltcpctl, paths, topology

TOOL = paths.MLTCPCTL


class Host:
    def __init__(self, name):
        self.name = name


@pytest.fixture
def calls(monkeypatch, tmp_path):
    """The driver's mltcpctl runs, recorded (each succeeds); its cgroups
    made under tmp_path."""
    seen = []

    def run(argv, **kw):
        seen.append([str(a) for a in argv])
        return subprocess.CompletedProcess(argv, 0, "[]", "")
    monkeypatch.setattr(driver.subprocess, "run", run)
    monkeypatch.setattr(driver.topology, "cgroup2_mount", lambda: str(tmp_path))
    return seen


def experiment(backend):
    exp = object.__new__(driver.Experiment)
    exp.cfg, exp.backend, exp.marked, exp.cgroups = {"mltcpctl": "/bin/mltcpctl"}, backend, [], []
    return exp


def job_words(argv):
    return argv[argv.index("job") + 1:]


def test_module_marked_job_is_in_each_hosts_table_matching_its_cgroup(calls, tmp_path):
    exp = experiment("module")
    cgroup, opts = exp.marked_job((Host("L1"), Host("R1")), 1, "torch")
    relative = "/" + driver.MARK_CGROUP % (os.getpid(), 1)
    assert cgroup == str(tmp_path) + relative and os.path.isdir(cgroup)
    assert opts[:2] == ["--mark-steps", "1"]
    # No delete first: a job of the same id is another's, not ours to remove.
    assert [job_words(c) for c in calls] == [["add", "1", "marked", "cgroup", relative]] * 2
    assert [c[c.index("-n") + 1] for c in calls] == ["L1", "R1"]


def test_bpf_marked_job_is_added_once_to_the_hosts_table(calls):
    """The BPF backend's table is the host's: one add, no -n (which it refuses
    for jobs); a second job's criterion is its own cgroup."""
    exp = experiment("bpf")
    exp.marked_job((Host("L1"), Host("R1")), 1, "torch")
    exp.marked_job((Host("L2"), Host("R2")), 2, "trainsim")
    assert [job_words(c) for c in calls] == [
        ["add", "1", "marked", "cgroup", "/" + driver.MARK_CGROUP % (os.getpid(), 1)],
        ["add", "2", "marked", "cgroup", "/" + driver.MARK_CGROUP % (os.getpid(), 2)]]
    assert not any("-n" in c for c in calls)
    assert exp.marked == [(None, 1), (None, 2)]


@pytest.mark.parametrize("backend,tables", [("module", ["L1", "R1"]), ("bpf", [None])])
def test_a_trainsim_jobs_ranks_mark_it_with_the_same_job_and_cgroup(calls, tmp_path, backend,
                                                                   tables):
    """A trainsim job gets the torch job's care (a criterion of its own
    cgroup, once per table) and its ranks trainsim's --mark ID, through
    libmltcp: no mltcpctl option."""
    exp = experiment(backend)
    cgroup, opts = exp.marked_job((Host("L1"), Host("R1")), 3, "trainsim")
    relative = "/" + driver.MARK_CGROUP % (os.getpid(), 3)
    assert cgroup == str(tmp_path) + relative and os.path.isdir(cgroup)
    assert opts == ["--mark", "3"]
    assert [job_words(c) for c in calls] == [["add", "3", "marked", "cgroup", relative]] * \
        len(tables)
    assert [c[c.index("-n") + 1] if "-n" in c else None for c in calls] == tables
    assert exp.marked == [(table, 3) for table in tables]
    calls.clear()
    exp.drop_marked_jobs()
    assert [job_words(c) for c in calls] == [["del", "3"]] * len(tables)
    assert not os.path.exists(cgroup)


def test_trainsim_accepts_the_marking_options_the_driver_gives_it():
    """The driver's command line for a marked trainsim rank, as trainsim's
    own parser checks it (--check: nothing opened)."""
    trainsim = paths.TRAINSIM
    assert os.access(trainsim, os.X_OK), "%s is not built" % trainsim
    job = {"name": "j1", "bytes": 1048576, "compute_ms": 600, "pattern": "nccl"}
    argv = driver.trainsim_argv({"trainsim": trainsim, "iterations": 3}, job,
                                {"cc": "mltcp"}, 0, 7100, "10.0.0.2", 1763790000.25, "x/rep0",
                                "-") + ["--mark", "1", "--check"]
    out = subprocess.run(argv, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("backend,tables", [("module", ["L1", "R1"]), ("bpf", [None])])
def test_cleanup_deletes_each_job_once_and_again_is_a_no_op(calls, backend, tables):
    exp = experiment(backend)
    cgroup, _ = exp.marked_job((Host("L1"), Host("R1")), 1, "torch")
    calls.clear()
    exp.drop_marked_jobs()
    assert [job_words(c) for c in calls] == [["del", "1"]] * len(tables)
    assert [c[c.index("-n") + 1] if "-n" in c else None for c in calls] == tables
    assert not os.path.exists(cgroup)
    calls.clear()
    exp.drop_marked_jobs()
    assert calls == []


def test_cleanup_of_a_job_already_gone_is_quiet_and_one_that_stays_is_said(
        monkeypatch, tmp_path, capsys):
    """A del that fails: no error if the table no longer lists the job (a
    run's cleanup repeated, say), a warning if it does; the other jobs and
    the cgroups still go."""
    listed = {"1": "[]", "2": '[{"id": 2}]'}
    deletes = []

    def run(argv, **kw):
        words = job_words([str(a) for a in argv])
        if words[0] == "del":
            deletes.append(words[1])
            return subprocess.CompletedProcess(argv, 1, "", "mltcpctl: job %s: busy\n" % words[1])
        return subprocess.CompletedProcess(argv, 0, listed[str(len(deletes))], "")
    monkeypatch.setattr(driver.subprocess, "run", run)
    monkeypatch.setattr(mltcpctl.subprocess, "run", run)
    exp = experiment("bpf")
    (tmp_path / "cg").mkdir()
    exp.marked, exp.cgroups = [(None, 1), (None, 2)], [str(tmp_path / "cg")]
    exp.drop_marked_jobs()
    assert deletes == ["1", "2"]
    err = capsys.readouterr().err
    assert "job 1" not in err
    assert "driver: warning: job 2 left in the host's table: mltcpctl: job 2: busy" in err
    assert not (tmp_path / "cg").exists() and exp.marked == [] and exp.cgroups == []


def test_job_tables_are_per_namespace_on_the_module_and_one_on_bpf():
    assert mltcpctl.job_tables("module", ["L1", "R1", "L1"]) == ["L1", "R1"]
    assert mltcpctl.job_tables("bpf", ["L1", "R1"]) == [None]
    assert "-n" not in mltcpctl.job_argv(TOOL, "bpf", None, "del", 1)


def test_a_marking_rank_enters_the_network_namespace_alone():
    ns = object.__new__(topology.Netns)
    ns.name = "L1"
    assert ns.enter_argv() == ("ip", "netns", "exec", "L1")
    assert ns.enter_argv(host_mounts=True) == ("nsenter", "--net=/run/netns/L1", "--")


class Marker:
    """contrib/torch/mltcp_steps.StepMarker's state as torch_worker reads it."""

    def __init__(self, step=0, mark_s=0.0, failed=None):
        self.step, self.mark_s, self.failed = step, mark_s, failed


def test_a_steps_mark_time_is_null_unless_a_mark_was_made():
    assert torch_worker.step_mark(None, 0) == {"mark_s": None}
    assert torch_worker.step_mark(Marker(step=3, mark_s=0.00021), 2) == {"mark_s": 0.00021}
    # No bucket this step: nothing asked, nothing timed.
    assert torch_worker.step_mark(Marker(step=2, mark_s=0.00021), 2) == {"mark_s": None}
    # Failed: the hook's mark_s is still its initial 0 (or the last good
    # mark's): never reported as this step's.
    failed = Marker(step=1, mark_s=0.0, failed="mltcpctl: no MLTCP backend")
    assert torch_worker.step_mark(failed, 0) == {"mark_s": None,
                                                 "mark_error": "mltcpctl: no MLTCP backend"}


# ---- on this host's kernel, with the BPF twin ----

def ctl(*args, check=True):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, check=check)


@pytest.fixture(scope="module")
def twin():
    """The BPF twin, loaded here if it is not; the ids of the jobs it held
    before (another's, left alone)."""
    assert os.geteuid() == 0, "the BPF twin's tests need root"
    assert os.access(TOOL, os.X_OK), "%s is not built" % TOOL
    loaded = json.loads(ctl("-j", "bpf", "status", check=False).stdout).get("loaded")
    if not loaded:
        ctl("bpf", "load")
    try:
        yield set(mltcpctl.job_ids(TOOL, "bpf", None))
    finally:
        if not loaded:
            ctl("bpf", "unload", check=False)


@pytest.fixture
def netns():
    name = "mk%d" % os.getpid()
    ns = topology.Netns(name)
    yield ns
    ns.close()


def free_id(twin):
    return max(twin | set(mltcpctl.job_ids(TOOL, "bpf", None)) | {100}) + 1


def test_the_twin_is_reached_from_a_namespace_entered_alone(twin, netns):
    """What a marking rank does: mark the twin's job from inside a host
    namespace entered with nsenter (the bench's way)."""
    job = free_id(twin)
    ctl("-b", "bpf", "job", "add", str(job), "marked", "dport", "1-2")
    try:
        proc = netns.spawn(TOOL, "job", "mark", str(job), host_mounts=True)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert json.loads(ctl("-j", "job", "show", str(job)).stdout)[0]["marks"] == 1
    finally:
        ctl("job", "del", str(job))


def test_the_twin_is_reached_under_ip_netns_exec_through_pid_1s_root(twin, netns):
    """`ip netns exec` mounts a sysfs of its own over /sys: /sys/fs/bpf is
    empty there, and mltcpctl finds the pins through /proc/1/root. PID 1
    is a PID namespace's own init here (unshare), as in a container whose
    root has the host's bpffs: this host's own PID 1 may not be followed
    (a sandbox)."""
    job = free_id(twin)
    ctl("-b", "bpf", "job", "add", str(job), "marked", "dport", "1-2")
    try:
        # The mark is made only where the loader's path is hidden.
        hidden = subprocess.run(
            ["unshare", "--pid", "--fork", "--mount-proc",
             # PID 1 stays this shell, outside ip netns exec's mounts.
             "sh", "-c", '"$@"; exit $?', "sh", "ip", "netns", "exec", netns.name,
             "sh", "-c", 'test ! -e /sys/fs/bpf/mltcp || exit 99; exec "$@"', "sh",
             TOOL, "job", "mark", str(job)], capture_output=True, text=True, timeout=20)
        assert hidden.returncode == 0, hidden.stderr
        assert json.loads(ctl("-j", "job", "show", str(job)).stdout)[0]["marks"] == 1
    finally:
        ctl("job", "del", str(job))


# A marked point of two torch jobs on the host's twin; its runs fail at once
# or are interrupted, so no torch step is needed.
POINT = {"description": "test_marks", "backend": "bpf", "rate_mbit": 1000, "rtt_ms": 0,
         "buffer_bdp": 0, "buffer_bytes": 262144, "iterations": 2, "repeats": 1,
         "sample_ms": 10, "setup_s": 1,
         "jobs": [{"name": "job1", "bytes": 100000, "compute_ms": 10, "workload": "torch"},
                  {"name": "job2", "bytes": 100000, "compute_ms": 10, "workload": "torch"}],
         "algorithms": [{"name": "marked", "cc": "mltcp", "marked": True}]}


def bench_cgroups():
    return [d for d in os.listdir(topology.cgroup2_mount()) if d.startswith("mltcp-bench-")]


def start_driver(tmp_path, point, **kw):
    rundir.Point(str(tmp_path)).write_config(point)
    return subprocess.Popen([sys.executable, "-m", "bench", "driver", str(tmp_path)],
                            cwd=paths.TOP, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


@pytest.fixture
def driver_ids(twin):
    """The driver's job ids (1, 2) free in the twin's table, and its job
    table as it was before (ours to compare with after)."""
    before = set(mltcpctl.job_ids(TOOL, "bpf", None))
    assert not before & {1, 2}, "jobs 1 and 2 are in the BPF twin's table already"
    return before


def test_a_run_whose_workers_fail_leaves_no_job_and_says_why(tmp_path, driver_ids):
    point = dict(POINT, jobs=[dict(job, backward_share=2) for job in POINT["jobs"]])
    proc = start_driver(tmp_path, point)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert set(mltcpctl.job_ids(TOOL, "bpf", None)) == driver_ids
    assert bench_cgroups() == []
    meta = rundir.Point(str(tmp_path))
    with open(os.path.join(meta.repeat_dir("marked", 0), "meta.json")) as f:
        failures = json.load(f)["failures"]
    # Every rank's failure with its stderr's reason.
    assert len(failures) == 4 and all("--backward-share 2" in f for f in failures), failures
    assert "FAILED" in out


def test_a_driver_that_fails_midway_leaves_no_job(tmp_path, driver_ids):
    """Job 2's add fails (a job 2 is there already): the driver fails, and
    job 1, added before, is gone with its cgroup; the other job 2 stays."""
    ctl("-b", "bpf", "job", "add", "2", "dport", "1-2")
    try:
        proc = start_driver(tmp_path, POINT)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 2, (out, err)
        assert "job 2: already exists" in err
        assert set(mltcpctl.job_ids(TOOL, "bpf", None)) == driver_ids | {2}
        assert bench_cgroups() == []
    finally:
        ctl("job", "del", "2")


def test_an_interrupted_run_leaves_no_job(tmp_path, driver_ids):
    """A Ctrl-C while the marked jobs' ranks start: the jobs and the ranks'
    cgroups go (the ranks with them)."""
    proc = start_driver(tmp_path, dict(POINT, setup_s=60))
    try:
        deadline = time.monotonic() + 60
        while not {1, 2} <= set(mltcpctl.job_ids(TOOL, "bpf", None) or []):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        proc.send_signal(2)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + 2, (out, err)
    assert set(mltcpctl.job_ids(TOOL, "bpf", None)) == driver_ids
    assert bench_cgroups() == []


# The same point with trainsim jobs (nccl: several flows per job), whose
# runs complete in a second.
TRAINSIM_POINT = dict(POINT, description="test_marks trainsim", iterations=3,
                      jobs=[{"name": "job1", "bytes": 100000, "compute_ms": 10,
                             "pattern": "nccl", "sockets": 2},
                            {"name": "job2", "bytes": 100000, "compute_ms": 10}])


def test_a_marked_run_of_trainsim_jobs_marks_every_iteration_and_leaves_nothing(
        tmp_path, driver_ids):
    """Each trainsim job's ranks mark its own marked job (--mark, the job's
    index + 1) before every iteration: every record has its mark's time,
    and the run's jobs and cgroups are gone after it."""
    proc = start_driver(tmp_path, TRAINSIM_POINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "FAILED" not in out, out
    assert set(mltcpctl.job_ids(TOOL, "bpf", None)) == driver_ids
    assert bench_cgroups() == []
    point = rundir.Point(str(tmp_path))
    for job in TRAINSIM_POINT["jobs"]:
        for rank in (0, 1):
            with open(point.worker_log("marked", 0, job["name"], rank)) as f:
                records = [json.loads(line) for line in f]
            steps = [r for r in records if r["type"] == "iteration"]
            assert len(steps) == 3 and records[-1]["status"] == "complete", records
            assert all(r["cc"] == "mltcp" and r["mark_s"] > 0 for r in steps), steps


# One MLTCP connection, held until stdin closes: "serve PORT" accepts one,
# "connect ADDR PORT" makes it; both select mltcp.
PEER = r"""
import socket, sys
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
if sys.argv[1] == "serve":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", int(sys.argv[2])))
    s.listen(1)
    print("listening", flush=True)
    c, _ = s.accept()
else:
    s.connect((sys.argv[2], int(sys.argv[3])))
    s.sendall(b"x")
print("up", flush=True)
sys.stdin.read()
"""


def test_each_marked_job_holds_its_own_ranks_flows_alone(twin, tmp_path, monkeypatch):
    """Two marked jobs, as the driver adds them on the twin, and one
    connection per job between its hosts, started as the driver starts
    ranks (in the job's cgroup, the namespace entered alone): each job's
    flows, on both its hosts, match that job and no other."""
    assert not set(mltcpctl.job_ids(TOOL, "bpf", None)) & {1, 2}, \
        "jobs 1 and 2 are in the BPF twin's table already"
    net = topology.Dumbbell(["L1", "L2"], ["R1", "R2"], prefix="mk%d" % (os.getpid() % 100000))
    exp = experiment("bpf")
    exp.cfg = {"mltcpctl": TOOL}
    procs = []
    try:
        for j, (left, right) in enumerate(zip(net.left, net.right)):
            cgroup, _ = exp.marked_job((left, right), j + 1, "trainsim")
            server = right.spawn(sys.executable, "-c", PEER, "serve", "7100",
                                 stdin=subprocess.PIPE, cgroup=cgroup, host_mounts=True)
            assert server.stdout.readline() == "listening\n", server.stderr.read()
            client = left.spawn(sys.executable, "-c", PEER, "connect", right.addr, "7100",
                                stdin=subprocess.PIPE, cgroup=cgroup, host_mounts=True)
            assert client.stdout.readline() == "up\n", client.stderr.read()
            assert server.stdout.readline() == "up\n", server.stderr.read()
            procs += [server, client]
        for j, (left, right) in enumerate(zip(net.left, net.right)):
            for host in (left, right):
                flows = json.loads(ctl("-n", host.name, "-j", "flow", "show").stdout)
                assert len(flows) == 1 and flows[0]["job"] == j + 1, (host.name, flows)
    finally:
        for proc in procs:
            proc.stdin.close()
        exp.drop_marked_jobs()
        net.close()
    assert not set(mltcpctl.job_ids(TOOL, "bpf", None)) & {1, 2}
    assert bench_cgroups() == []
