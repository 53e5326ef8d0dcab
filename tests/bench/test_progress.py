# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`bench run`'s progress: the estimate of a point, the lines printed as
points start and end with the time left, and `--dry-run`, which lists the
points and the total and runs nothing. Synthetic configurations and a fake
clock: nothing is booted."""
import pytest

from bench import cli, matrix, progress, run


def cfg(name, backend=None, iterations=10, repeats=2, algorithms=2, setup_s=None):
    """Two jobs whose slowest ideal iteration is 1.0 s at 50 Mbit/s."""
    jobs = matrix.identical_jobs(2, 0.4, 1000, 50)
    jobs[1]["offset_ms"] = 250
    c = matrix.point(name, jobs, iterations=iterations, repeats=repeats,
                     algorithms=[{"name": "a%d" % i, "cc": "cubic"} for i in range(algorithms)])
    if backend:
        c["backend"] = backend
    if setup_s is not None:
        c["setup_s"] = setup_s
    return c


def test_estimate_is_traffic_plus_fixed_costs():
    c = cfg("p", setup_s=3.0)
    assert progress.ideal_iteration_s(c) == pytest.approx(1.0, rel=1e-3)
    run_s = 3.0 + 0.25 + 10 * progress.ideal_iteration_s(c) * progress.SLOWDOWN + \
        progress.RUN_OVERHEAD_S["module"]
    assert progress.run_s(c) == pytest.approx(run_s)
    assert progress.estimate_s(c) == pytest.approx(progress.POINT_OVERHEAD_S["module"] +
                                                   4 * run_s)
    # Without setup_s, the driver's own start delay: 4 s + 1.5 s a job.
    assert progress.run_s(cfg("p")) == pytest.approx(run_s - 3.0 + (4.0 + 1.5 * 2))
    # The host's fixed costs are its own.
    host = cfg("h", backend="bpf", setup_s=3.0)
    assert progress.estimate_s(host) == pytest.approx(
        progress.POINT_OVERHEAD_S["bpf"] + 4 * (run_s - progress.RUN_OVERHEAD_S["module"] +
                                                progress.RUN_OVERHEAD_S["bpf"]))


def test_durations():
    assert [progress.duration(s) for s in (0, 59.9, 60, 754, 3600, 14735, -3)] == \
        ["0s", "59s", "1m00s", "12m34s", "1h00m", "4h05m", "0s"]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_progress_lines_and_time_left():
    cfgs = [cfg("p1", setup_s=3.0), cfg("p2", setup_s=3.0, iterations=20), cfg("p3", setup_s=3.0)]
    est = [progress.estimate_s(c) for c in cfgs]
    lines, clock = [], Clock()
    status = progress.Progress(cfgs, out=lambda text, flush: lines.append(text), clock=clock)

    status.start(cfgs[0])
    assert lines[-1] == "[1/3] p1: 2 jobs, 2 algorithms x 2 repeats x 10 iterations " \
        "(ideal 1.000 s), guest, about %s" % progress.duration(est[0])
    # The first point took twice its estimate: what is left is scaled by 2.
    clock.now += 2 * est[0]
    status.finish(cfgs[0])
    assert lines[-1] == "[1/3] p1 done in %s; 2 points left, about %s (2.00x the estimate " \
        "so far)" % (progress.duration(2 * est[0]), progress.duration(2 * (est[1] + est[2])))

    status.start(cfgs[1])
    assert lines[-1].startswith("[2/3] p2: ") and \
        lines[-1].endswith("about %s" % progress.duration(2 * est[1]))
    # The second as estimated: the speed is measured over both.
    clock.now += est[1]
    status.finish(cfgs[1], error="guest run failed (124)")
    speed = (2 * est[0] + est[1]) / (est[0] + est[1])
    assert lines[-1] == "[2/3] p2 failed (guest run failed (124)) in %s; 1 points left, " \
        "about %s (%.2fx the estimate so far)" % (progress.duration(est[1]),
                                                  progress.duration(speed * est[2]), speed)

    status.start(cfgs[2])
    clock.now += 5
    status.finish(cfgs[2])
    assert lines[-1] == "[3/3] p3 done in 5s; all points run"
    assert len(lines) == 6


def test_dry_run_lists_points_and_total_and_runs_nothing(monkeypatch, capsys, tmp_path):
    def no_run(*_):
        raise AssertionError("--dry-run ran a point")

    monkeypatch.setattr(run, "run_point", no_run)
    out = tmp_path / "results"
    args = cli.parser().parse_args(["run", "--dry-run", "--out", str(out), "--repeats", "1",
                                    "pair", "torch", "guest-bulk-share"])
    assert run.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    cfgs = run.configurations(args)
    assert len(lines) == len(cfgs) + 1 == 7
    for i, (line, c) in enumerate(zip(lines, cfgs)):
        assert line == "[%d/6] %s, about %s" % (i + 1, progress.describe(c),
                                                progress.duration(progress.estimate_s(c)))
    assert lines[0].startswith("[1/6] pair: 2 jobs, 5 algorithms x 1 repeats x 100 "
                               "iterations (ideal 1.000 s), guest, about ")
    assert lines[-1] == "6 points, about %s in all (estimate; nothing was run)" % \
        progress.duration(sum(progress.estimate_s(c) for c in cfgs))
    assert not out.exists()


def test_dry_run_of_an_unnamed_configuration_file(monkeypatch, capsys):
    monkeypatch.setattr(run, "run_point", lambda *_: pytest.fail("--dry-run ran a point"))
    args = cli.parser().parse_args(["run", "--dry-run", "--config",
                                    run.paths.TOP + "/bench/configs/demo.json"])
    assert run.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[1/1] demo: 2 jobs, 3 algorithms x 1 repeats x 100 iterations")
    assert ", host, about " in lines[0]
    assert lines[1].startswith("1 points, about ")


def test_a_simulated_point_is_estimated_from_its_packets():
    cfg = {"name": "p", "backend": "ns-3", "iterations": 10, "repeats": 2, "rate_mbit": 50,
           "algorithms": [{"name": "a"}], "jobs": [
               {"name": "x", "bytes": 1448 * 1000, "compute_ms": 600},
               {"name": "y", "bytes": 1448 * 1000, "compute_ms": 600, "collective": "push"}]}
    # 10 iterations of 2000 + 1000 segments, with an ACK per two.
    assert progress.sim_packets(cfg) == 10 * 3000 * 1.5
    per_run = 45000 / progress.SIM_PACKETS_PER_S + progress.RUN_OVERHEAD_S["ns-3"]
    assert progress.estimate_s(cfg) == pytest.approx(progress.POINT_OVERHEAD_S["ns-3"] +
                                                     2 * per_run)
    assert progress.describe(cfg).endswith(", sim")
