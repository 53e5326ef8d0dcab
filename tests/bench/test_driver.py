# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The driver's command lines for mltcp-trainsim and its start offsets (no namespaces needed)."""
import os
import subprocess
import time

import pytest

from bench import driver

CFG = {"trainsim": "/bin/trainsim", "iterations": 20}
ALG = {"name": "mltcp", "cc": "mltcp"}


def argv(job, rank=0):
    return driver.trainsim_argv(CFG, job, ALG, rank, 7100, "10.0.0.2", 1763790000.25,
                                "mltcp/rep0", "/tmp/j-r%d.jsonl" % rank)


def option(args, name):
    return args[args.index(name) + 1] if name in args else None


def test_exchange_job_line_is_unchanged():
    args = argv({"name": "j1", "bytes": 1048576, "compute_ms": 600, "offset_ms": 100})
    assert args[0] == "/bin/trainsim"
    assert option(args, "--collective") is None
    assert option(args, "--world") == "2"
    assert option(args, "--next") == "10.0.0.2:7100"
    assert option(args, "--bytes") == "1048576"
    assert option(args, "--compute") == "600ms"
    assert option(args, "--jitter") == "0ms"
    assert option(args, "--offset") == "100ms"
    assert option(args, "--start-at") == "1763790000.250000"
    assert option(args, "--cc") == "mltcp"


def test_push_job_passes_the_collective_to_both_ranks():
    job = {"name": "j1", "bytes": 1048576, "compute_ms": 600, "collective": "push"}
    for rank in (0, 1):
        args = argv(job, rank)
        assert option(args, "--collective") == "push"
        assert option(args, "--rank") == str(rank)
    # Same seed and timing options as the exchange job of the same name.
    plain = {k: v for k, v in job.items() if k != "collective"}
    assert argv(job)[:len(argv(plain))] == argv(plain)


def test_torch_rings_carry_the_jobs_bytes_each_way():
    job = {"name": "t", "bytes": 3000000, "compute_ms": 600, "workload": "torch",
           "ranks": 4, "backward_share": 0.5}
    args = driver.torch_argv(CFG, job, 3, 4, 7100, "10.0.0.1", 1763790000.25, "x/rep0", "/l")
    # Each of 4 ranks sends 2 (N - 1) / N of the gradients; two ranks per
    # side: 3 gradient sizes each way.
    assert option(args, "--bytes") == "1000000"
    assert option(args, "--world") == "4" and option(args, "--rank") == "3"
    assert option(args, "--backward-share") == "0.5"
    assert option(args, "--bucket-mb") == "25" and option(args, "--first-bucket-mb") == "1"


class Host:
    def __init__(self, name):
        self.name = name


def random_start_config():
    return {"name": "p", "rate_mbit": 100, "start": "random",
            "jobs": [{"name": "job1", "bytes": 500000, "compute_ms": 60},
                     {"name": "job2", "bytes": 500000, "compute_ms": 60, "offset_ms": 7}]}


def test_given_starts_are_the_jobs_offsets():
    cfg = dict(random_start_config(), start="given")
    assert driver.start_offsets(cfg, 0) == {"job1": 0, "job2": 7}
    del cfg["start"]
    assert driver.start_offsets(cfg, 3) == {"job1": 0, "job2": 7}


def test_random_starts_fall_within_a_period_and_are_reproducible_per_repeat():
    cfg = random_start_config()
    period_ms = 60 + 500000 * 8 / (100e6 * driver.metrics.PAYLOAD_EFFICIENCY) * 1e3
    draws = [driver.start_offsets(cfg, rep) for rep in range(20)]
    # No algorithm in the key: every algorithm of a repeat starts alike.
    assert draws == [driver.start_offsets(cfg, rep) for rep in range(20)]
    assert all(0 <= d[j] < period_ms for d in draws for j in d)
    assert len({d["job2"] for d in draws}) == 20
    assert draws[0]["job1"] != draws[0]["job2"]


def test_a_start_seed_decides_random_starts_whatever_the_points_name():
    a = dict(random_start_config(), name="first-name", start_seed="stable")
    b = dict(random_start_config(), name="renamed", start_seed="stable")
    assert [driver.start_offsets(a, rep) for rep in range(5)] == \
        [driver.start_offsets(b, rep) for rep in range(5)]
    other = dict(a, start_seed="another")
    assert driver.start_offsets(other, 0) != driver.start_offsets(a, 0)


def test_without_a_start_seed_the_name_seeds_the_starts_as_before():
    cfg = random_start_config()
    # The draws every committed random-start point was run with.
    assert driver.start_offsets(cfg, 0) == {"job1": 20.589, "job2": 35.531}
    assert driver.start_offsets(dict(cfg, name="q"), 0) != driver.start_offsets(cfg, 0)
    assert driver.start_offsets(dict(cfg, start_seed="p"), 1) == driver.start_offsets(cfg, 1)


def test_an_unknown_start_is_refused():
    with pytest.raises(SystemExit, match="random"):
        driver.start_offsets(dict(random_start_config(), start="staggered"), 0)


def test_ecn_points_are_refused_outside_the_simulator():
    cfg = dict(random_start_config(), ecn_mark_bytes=100000)
    with pytest.raises(SystemExit, match="simulator"):
        driver.Experiment(cfg, None)
    # DCQCN's ramp too.
    cfg = dict(random_start_config(), ecn_kmin_bytes=5000, ecn_kmax_bytes=200000, ecn_pmax=0.01)
    with pytest.raises(SystemExit, match="ecn_kmin_bytes, ecn_kmax_bytes, ecn_pmax"):
        driver.Experiment(cfg, None)
    # An asymmetric bottleneck too: the rig shapes both directions alike.
    cfg = dict(random_start_config(), reverse_rate_mbit=1000)
    with pytest.raises(SystemExit, match="reverse_rate_mbit: the simulator's only"):
        driver.Experiment(cfg, None)


def test_odd_rings_and_unknown_shapers_are_refused():
    cfg = random_start_config()
    cfg["jobs"][0]["ranks"] = 3
    with pytest.raises(SystemExit, match="ranks 3"):
        driver.Experiment(cfg, None)
    base = {"rate_mbit": 200, "rtt_ms": 0, "buffer_bytes": 262144}
    with pytest.raises(SystemExit, match="HTB"):
        driver.bottleneck_shaping(dict(base, shaper="HTB"))
    with pytest.raises(SystemExit, match="htb"):
        driver.bottleneck_shaping(dict(base, ack_priority=True))
    shaping, limit = driver.bottleneck_shaping(dict(base, shaper="htb", ack_priority=True))
    assert shaping.shaper == "htb" and shaping.ack_priority and limit == 262144
    shaping, _ = driver.bottleneck_shaping(dict(base, shaper="htb", ack_priority="dscp"))
    assert shaping.ack_priority == "dscp"
    for wrong in ("DSCP", 1, 0):
        with pytest.raises(SystemExit, match="ack_priority %r" % wrong):
            driver.bottleneck_shaping(dict(base, shaper="htb", ack_priority=wrong))


def test_trainsim_rings_listen_per_rank_and_carry_the_jobs_bytes_each_way():
    job = {"name": "job1", "bytes": 3000000, "compute_ms": 100, "ranks": 4}
    lines = [driver.trainsim_argv(CFG, job, ALG, rank, 7100, "10.0.0.%d" % (2 - rank % 2),
                                  1763790000.25, "mltcp/rep0", "/tmp/r%d.jsonl" % rank)
             for rank in range(4)]
    # Ranks 0 and 2 share Lj, 1 and 3 share Rj: each listens on its own port
    # and connects to the next rank's, on the other side.
    assert [option(a, "--listen") for a in lines] == ["7100", "7100", "7200", "7200"]
    assert [option(a, "--next") for a in lines] == [
        "10.0.0.2:7100", "10.0.0.1:7200", "10.0.0.2:7200", "10.0.0.1:7100"]
    assert all(option(a, "--world") == "4" for a in lines)
    # Each direction carries (ranks - 1) x trainsim's --bytes: the job's bytes.
    assert all(option(a, "--bytes") == "1000000" for a in lines)


def failing_point(tmp_path, exc):
    """A host point whose Experiment raises exc; driver.main's exit code."""
    from bench import rundir
    point = rundir.Point(str(tmp_path / "p"))
    point.write_config(dict(random_start_config(), backend="bpf", trainsim="/bin/true"))

    def experiment(cfg, pt):
        raise exc
    return point, experiment


def test_a_driver_exception_is_one_line_and_its_traceback_a_file(tmp_path, monkeypatch, capsys):
    import argparse
    import subprocess
    from bench import rundir
    exc = subprocess.CalledProcessError(2, ["tc", "qdisc", "add"],
                                        stderr=b"Error: Exclusivity flag on.\n")
    point, experiment = failing_point(tmp_path, exc)
    monkeypatch.setattr(driver, "Experiment", experiment)
    assert driver.main(argparse.Namespace(point=point.path)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "driver (host): `tc qdisc add` exited 2: Error: Exclusivity flag on." in err
    with open(point.file(rundir.DRIVER_FAILURE)) as f:
        text = f.read()
    assert text.splitlines()[0] == "`tc qdisc add` exited 2: Error: Exclusivity flag on."
    assert "Traceback" in text


def test_any_exception_gives_its_type_and_first_line():
    assert driver.failure_reason(KeyError("rate_mbit")) == "KeyError: 'rate_mbit'"
    assert driver.failure_reason(OSError("no such\nmore")) == "OSError: no such"
    assert driver.failure_reason(RuntimeError()) == "RuntimeError"


class FakeSysctl:
    """/proc/sys as a dict; writes recorded."""

    def __init__(self, allowed, available):
        self.values = {driver.ALLOWED_CCS: allowed, driver.AVAILABLE_CCS: available}
        self.writes = []

    def read(self, path):
        return self.values[path] + "\n"

    def write(self, path, value):
        self.writes.append(value)
        self.values[path] = value


def test_the_points_ccs_are_allowed_for_the_run_and_restored_after():
    fake = FakeSysctl("reno bbr", "reno bbr cubic mltcp_bpf")
    with driver.allowed_ccs(["cubic", "bbr", "mltcp_bpf", "dctcp"], fake.read,
                            fake.write) as added:
        # dctcp is not in this kernel: asking for it would refuse the write.
        assert added == ["cubic", "mltcp_bpf"]
        assert fake.values[driver.ALLOWED_CCS] == "reno bbr cubic mltcp_bpf"
    assert fake.values[driver.ALLOWED_CCS] == "reno bbr"


def test_the_allowed_ccs_are_restored_when_the_run_fails():
    fake = FakeSysctl("reno bbr", "reno bbr cubic")
    with pytest.raises(RuntimeError):
        with driver.allowed_ccs(["cubic"], fake.read, fake.write):
            raise RuntimeError("worker")
    assert fake.values[driver.ALLOWED_CCS] == "reno bbr"


class RefusingSysctl(FakeSysctl):
    """Refuses the writes numbered in refuse (0: the first)."""

    def __init__(self, allowed, available, refuse):
        super().__init__(allowed, available)
        self.refuse = refuse

    def write(self, path, value):
        if len(self.writes) in self.refuse:
            self.writes.append(None)
            raise PermissionError(1, "Operation not permitted")
        super().write(path, value)


def test_a_refused_widening_is_a_warning_and_nothing_is_restored(capsys):
    fake = RefusingSysctl("reno bbr", "reno bbr cubic", refuse={0})
    with driver.allowed_ccs(["cubic"], fake.read, fake.write) as added:
        assert added == []
    assert fake.writes == [None], "one write, refused; no restore"
    assert "could not allow cubic" in capsys.readouterr().err


def test_a_refused_restore_leaves_the_runs_own_failure(capsys):
    fake = RefusingSysctl("reno bbr", "reno bbr cubic", refuse={1})
    with pytest.raises(RuntimeError, match="worker"):
        with driver.allowed_ccs(["cubic"], fake.read, fake.write):
            raise RuntimeError("worker")
    assert 'could not restore %s to "reno bbr"' % driver.ALLOWED_CCS in capsys.readouterr().err


def test_sigterm_unwinds_as_an_exit_and_the_handler_comes_back():
    import signal
    before = signal.getsignal(signal.SIGTERM)
    unwound = []
    with pytest.raises(SystemExit) as exc:
        with driver.terminate_as_exit():
            try:
                signal.raise_signal(signal.SIGTERM)
            finally:
                unwound.append(True)
    assert exc.value.code == 128 + signal.SIGTERM and unwound == [True]
    assert signal.getsignal(signal.SIGTERM) is before


def test_ctrl_c_unwinds_and_a_second_one_cannot_cut_the_undoing_short():
    import signal
    before = signal.getsignal(signal.SIGINT)
    undone = []
    with pytest.raises(KeyboardInterrupt):
        with driver.terminate_as_exit():
            try:
                signal.raise_signal(signal.SIGINT)
            finally:
                # Undoing the run: an impatient second Ctrl-C changes nothing.
                signal.raise_signal(signal.SIGINT)
                undone.append(True)
    assert undone == [True]
    assert signal.getsignal(signal.SIGINT) is before


def test_nothing_is_written_when_every_cc_is_allowed():
    fake = FakeSysctl("reno cubic", "reno cubic")
    with driver.allowed_ccs(["cubic"], fake.read, fake.write) as added:
        assert added == []
    assert fake.writes == []


def test_the_driver_allows_the_points_ccs_around_its_experiment(tmp_path, monkeypatch):
    import argparse
    from bench import rundir
    fake = FakeSysctl("reno bbr", "reno bbr cubic")
    monkeypatch.setattr(driver, "read_sysctl", fake.read)
    monkeypatch.setattr(driver, "write_sysctl", fake.write)
    point = rundir.Point(str(tmp_path / "p"))
    cfg = dict(random_start_config(), backend="bpf", trainsim="/bin/true",
               algorithms=[{"name": "cubic", "cc": "cubic"}, {"name": "bbr", "cc": "bbr"}])
    point.write_config(cfg)
    seen = []

    def experiment(cfg, pt):
        seen.append(fake.values[driver.ALLOWED_CCS])
        raise OSError("topology failed")
    monkeypatch.setattr(driver, "Experiment", experiment)
    assert driver.main(argparse.Namespace(point=point.path)) == 2
    assert seen == ["reno bbr cubic"]
    assert fake.values[driver.ALLOWED_CCS] == "reno bbr"
    assert driver.point_ccs(dict(cfg, bulk=[{"name": "b", "cc": "reno"}])) == \
        ["cubic", "bbr", "reno"]


# A driver run whose experiment waits in its first run and takes a second
# to close (as deleting namespaces does), its sysctls a file: what bench run
# starts as its child, in a process group of its own, as a terminal's.
CHILD = r"""
import argparse, sys, time
from bench import driver, rundir
state, point = sys.argv[1], sys.argv[2]
driver.read_sysctl = lambda path: (open(state).read() if path == driver.ALLOWED_CCS
                                   else "reno cubic\n")
driver.write_sysctl = lambda path, value: open(state, "w").write(value)

class Experiment:
    jobs, limit, loss_pct = [], 0, 0
    def __init__(self, cfg, point):
        self.shaping = driver.topology.Shaping()
    def run_once(self, alg, rep):
        open(state + ".running", "w").close()
        time.sleep(60)
    def drop_marked_jobs(self):
        pass
    def prio_off(self):
        pass
    def close(self):
        time.sleep(1)

driver.Experiment = Experiment
sys.exit(driver.main(argparse.Namespace(point=point)))
"""
PARENT = r"""
import subprocess, sys
from bench import driver
run = driver.run_child if sys.argv[1] == "run_child" else subprocess.run
run([sys.executable, "-c", sys.argv[2]] + sys.argv[3:])
"""


def interrupted_run(tmp_path, how):
    """The host's allowed CCs after a Ctrl-C to bench run (how: "run_child",
    or "subprocess.run" as before) while its driver runs a point."""
    import signal
    import sys
    import time
    from bench import paths, rundir
    point = rundir.Point(str(tmp_path / "p"))
    point.write_config(dict(random_start_config(), backend="bpf", trainsim="/bin/true",
                            algorithms=[{"name": "cubic", "cc": "cubic"}], repeats=1, rtt_ms=0))
    state = tmp_path / "allowed"
    state.write_text("reno\n")
    # As from a terminal: SIGINT not ignored. A shell that runs the tests in
    # the background without job control (`scripts/test &`) ignores it, and
    # Python then leaves it ignored in bench run, which never sees the Ctrl-C.
    parent = subprocess.Popen([sys.executable, "-c", PARENT, how, CHILD, str(state), point.path],
                              cwd=paths.TOP, start_new_session=True, stderr=subprocess.PIPE,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 30
    while not (tmp_path / "allowed.running").exists():
        assert time.time() < deadline and parent.poll() is None, parent.stderr.read()
        time.sleep(0.05)
    assert state.read_text().split() == ["reno", "cubic"]
    os.killpg(parent.pid, signal.SIGINT)  # the terminal's Ctrl-C: the whole group
    parent.wait(timeout=30)
    time.sleep(1.5)  # an orphaned driver would be done by now
    return state.read_text().split()


def test_a_ctrl_c_during_a_host_point_restores_the_allowed_ccs(tmp_path):
    assert interrupted_run(tmp_path, "run_child") == ["reno"]


def test_without_run_child_a_ctrl_c_kills_the_driver_before_it_restores(tmp_path):
    # The control: subprocess.run kills its child 0.25 s after a Ctrl-C.
    assert interrupted_run(tmp_path, "subprocess.run") == ["reno", "cubic"]


def test_the_emulated_switch_and_its_keys():
    base = {"rate_mbit": 200, "rtt_ms": 0, "buffer_bytes": 262144}
    shaping, _ = driver.bottleneck_shaping(dict(base, shaper="prio"))
    assert shaping.shaper == "prio" and shaping.prio_dscp == (8, 16, 24, 32, 40, 48, 56)
    assert shaping.be_share == 0.5
    shaping, _ = driver.bottleneck_shaping(dict(base, shaper="prio", ack_priority="dscp",
                                                prio_dscp=[10, 12], be_share=0.25))
    assert shaping.prio_dscp == (10, 12) and shaping.be_share == 0.25
    for key, wrong, says in (("prio_dscp", [8, 46], "not EF"), ("prio_dscp", [8, 8], "distinct"),
                             ("prio_dscp", [0], "1..63"),
                             ("prio_dscp", list(range(1, 9)), "1 to 7"),
                             ("be_share", 1, "below 1"), ("be_share", 0, "above 0")):
        with pytest.raises(SystemExit, match=says):
            driver.bottleneck_shaping(dict(base, shaper="prio", **{key: wrong}))
    with pytest.raises(SystemExit, match="emulated switch"):
        driver.bottleneck_shaping(dict(base, shaper="htb", be_share=0.3))
    with pytest.raises(SystemExit, match="\"tbf\", \"htb\", \"prio\""):
        driver.bottleneck_shaping(dict(base, shaper="ets"))


def test_loss_is_a_percentage():
    assert driver.loss_percent({}) == 0
    assert driver.loss_percent({"loss_pct": 1}) == 1
    for wrong in (100, -1, 0.001, True, "1%"):
        with pytest.raises(SystemExit, match="loss_pct"):
            driver.loss_percent({"loss_pct": wrong})


PRIO_POINT = dict(random_start_config(), rtt_ms=0, buffer_bytes=262144, backend="bpf",
                  default_params={"mode": "md-restart"},
                  algorithms=[{"name": "cubic", "cc": "cubic"},
                              {"name": "prio", "cc": "mltcp",
                               "params": {"mode": "md-restart", "prio": "4"}}])


def test_prio_rules_need_the_emulated_switch():
    with pytest.raises(SystemExit,
                       match="prio set prio: progress priority needs the emulated switch"):
        driver.Experiment(dict(PRIO_POINT, shaper="htb"), None)
    assert driver.uses_prio(PRIO_POINT) and not driver.uses_prio(random_start_config())
    assert [driver.prio_classes(PRIO_POINT, a) for a in PRIO_POINT["algorithms"]] == [0, 4]
    for wrong in (8, -1, "four", True, 2.5):
        alg = {"name": "bad", "cc": "mltcp", "params": {"prio": wrong}}
        with pytest.raises(SystemExit, match="bad: prio .*: 0 \\(off\\) to 7 classes"):
            driver.prio_classes(PRIO_POINT, alg)
        with pytest.raises(SystemExit, match="prio"):
            driver.Experiment(dict(PRIO_POINT, shaper="prio", algorithms=[alg]), None)


class FakeDefaults:
    tool = "/bin/mltcpctl"

    def __init__(self):
        self.sets = []

    def set(self, params):
        self.sets.append(dict(params))

    def show(self):
        return {}


def test_each_rule_of_a_prio_point_says_its_k_and_a_prio_run_marks_acks(monkeypatch):
    """Every rule sets prio (0 where it has none: the twin's defaults
    outlive a run); a prio run marks every host's pure ACKs EF and unmarks
    them after, on failure too; the point ends with prio off."""
    calls = []
    monkeypatch.setattr(driver.subprocess, "run",
                        lambda argv, **kw: calls.append([str(a) for a in argv]))
    exp = object.__new__(driver.Experiment)
    exp.cfg, exp.defaults, exp.acks_marked = dict(PRIO_POINT, shaper="prio"), FakeDefaults(), False
    exp.net = type("Net", (), {"hosts": {"L1": Host("L1"), "R1": Host("R1")}})()
    runs = []

    def measure(alg, rep):
        runs.append((alg["name"], [c[-4:] for c in calls]))
        if alg["name"] == "prio" and rep == 1:
            raise RuntimeError("worker")
        return {}
    exp.measure = measure
    for alg in exp.cfg["algorithms"]:
        exp.run_once(alg, 0)
    assert exp.defaults.sets == [{"mode": "md-restart", "prio": 0},
                                 {"mode": "md-restart", "prio": "4"}]
    assert runs[0] == ("cubic", [])
    assert runs[1] == ("prio", [["dev", "eth0", "dscp", "46"]] * 2)
    assert [c[c.index("-n") + 1:] for c in calls] == [
        ["L1", "ackmark", "add", "dev", "eth0", "dscp", "46"],
        ["R1", "ackmark", "add", "dev", "eth0", "dscp", "46"],
        ["L1", "ackmark", "del", "dev", "eth0"], ["R1", "ackmark", "del", "dev", "eth0"]]
    calls.clear()
    with pytest.raises(RuntimeError):
        exp.run_once(exp.cfg["algorithms"][1], 1)
    assert [c[c.index("ackmark") + 1] for c in calls] == ["add", "add", "del", "del"]
    # A point whose hosts mark their ACKs throughout: nothing more to do.
    calls.clear()
    exp.acks_marked = True
    exp.run_once(exp.cfg["algorithms"][1], 0)
    assert calls == []
    exp.prio_off()
    assert exp.defaults.sets[-1] == {"prio": 0}


def test_prio_settings_are_mltcpctl_words():
    from testbed import mltcpctl
    assert mltcpctl.setting_words({"prio": "4", "prio_dscp": [8, 16, 24, 32], "prio_none": 0}) \
        == ["prio", "4", "prio-dscp", "8,16,24,32", "prio-none", "0"]


def test_a_workers_stderr_goes_to_a_file_whose_last_line_its_failure_quotes(tmp_path):
    log = str(tmp_path / "job1-r0.jsonl")
    err = driver.worker_stderr(log)
    assert err == str(tmp_path / "job1-r0.stderr")
    assert driver.last_words(err, ": ") == ""
    with open(err, "w") as f:
        f.write("[W gloo] a warning\nTraceback (most recent call last):\nOSError: y\n\n")
    assert driver.last_words(err, ": ") == ": OSError: y"


def test_a_hung_workers_failure_says_what_its_threads_wait_on():
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        deadline = time.time() + 5
        where = driver.threads_waiting(sleeper.pid)
        while not where.startswith("threads: S") and time.time() < deadline:
            time.sleep(0.05)
            where = driver.threads_waiting(sleeper.pid)
        assert where.startswith("threads: S"), where  # asleep (and its wait channel, if shown)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert driver.threads_waiting(sleeper.pid) == "gone"
