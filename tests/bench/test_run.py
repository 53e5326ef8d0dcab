# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`python3 -m bench run`: which configurations it runs, and its command line."""
import glob
import json
import os
import subprocess
import sys

import pytest

from bench import cli, matrix, paths, run


def configurations(*argv):
    return run.configurations(cli.parser().parse_args(["run"] + list(argv)))


def test_sets_with_overrides_and_a_filter():
    cfgs = configurations("torch", "--only", "ring", "--iterations", "7", "--repeats", "2",
                          "--algorithms", "cubic,mltcp")
    assert [c["name"] for c in cfgs] == ["torch-ring"]
    assert cfgs[0]["iterations"] == 7 and cfgs[0]["repeats"] == 2
    assert [a["name"] for a in cfgs[0]["algorithms"]] == ["cubic", "mltcp"]
    # The smoke point keeps its own size.
    assert configurations("smoke", "--iterations", "50")[0]["iterations"] == 4


def test_host_points_are_the_same_jobs_on_the_bpf_backend():
    (cfg,) = configurations("pair", "--host")
    assert cfg == matrix.on_host(matrix.pair()[0])
    assert cfg["backend"] == "bpf" and cfg["name"] == "pair-host"


def test_real_ddp_on_the_host_starts_without_the_guests_wait():
    guest = configurations("torch", "--only", "torch-ring")
    host = configurations("torch", "--only", "torch-ring", "--host")
    assert guest[0]["setup_s"] == matrix.TORCH_GUEST_SETUP_S
    assert host[0]["setup_s"] == matrix.TORCH_HOST_SETUP_S
    # Points without real frameworks keep the driver's own delay.
    assert "setup_s" not in configurations("pair", "--host")[0]


def test_one_configuration_file(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(matrix.smoke()[0]))
    (cfg,) = configurations("--config", str(path), "--repeats", "3")
    assert cfg["repeats"] == 3 and cfg["name"] == "smoke"


def test_a_points_stored_configuration_runs_again_at_this_checkout(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(matrix.smoke()[0], commit="0123abc", format=1)))
    (cfg,) = configurations("--config", str(path))
    assert "commit" not in cfg and cfg["name"] == "smoke"


def test_more_seeds_for_a_point_number_their_repeats_on(tmp_path):
    path = tmp_path / "config.json"
    cfg = dict(matrix.in_sim(matrix.sim_smoke(iterations=2)[0]), start="random", repeats=5)
    path.write_text(json.dumps(cfg))
    (more,) = configurations("--config", str(path), "--first-repeat", "5", "--repeats", "2")
    assert run.rundir.repeat_indices(more) == range(5, 7)
    point = run.rundir.Point(str(tmp_path / "more"))
    point.write_config(more)
    run.sim_argv(more, point)
    seeds = run.rundir.read_json(point.file(run.rundir.SIM_SEEDS))
    # The seeds and starts of repeats 5 and 6, as a run of all seven gives them.
    whole = run.rundir.Point(str(tmp_path / "whole"))
    whole.write_config(dict(cfg, repeats=7))
    run.sim_argv(dict(cfg, repeats=7), whole)
    all_seeds = run.rundir.read_json(whole.file(run.rundir.SIM_SEEDS))
    assert seeds and {k for k in seeds if "/rep5/" in k or k.startswith("rep5/")}
    assert seeds == {k: v for k, v in all_seeds.items()
                     if "rep5" in k.split("/") or "rep6" in k.split("/")}


def test_bad_first_repeats_are_refused(tmp_path):
    path = tmp_path / "config.json"
    for value in (-1, 1.5, "2", True):
        path.write_text(json.dumps(dict(matrix.smoke()[0], first_repeat=value)))
        with pytest.raises(SystemExit, match="first_repeat"):
            configurations("--config", str(path))
    path.write_text(json.dumps(matrix.smoke()[0]))
    with pytest.raises(SystemExit, match="--first-repeat: 0 or more"):
        configurations("--config", str(path), "--first-repeat", "-1")


def test_the_guest_budget_covers_the_guest_demo():
    with open(paths.TOP + "/bench/configs/demo-guest.json") as f:
        assert run.guest_budget_s(json.load(f)) == 1200
    assert run.guest_budget_s(matrix.guest_rules()[0]) == 600 + 100 * 3 * 11 * 4


def test_unknown_sets_are_refused_before_anything_runs():
    proc = subprocess.run([sys.executable, "-m", "bench", "run", "nosuchset"], cwd=paths.TOP,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "unknown set nosuchset" in proc.stderr


@pytest.mark.parametrize("old,new", sorted((old, new) for old, new in matrix.RETIRED.items()
                                           if new))
def test_a_renamed_set_is_refused_with_its_new_name(old, new):
    proc = subprocess.run([sys.executable, "-m", "bench", "run", "--dry-run", old],
                          cwd=paths.TOP, capture_output=True, text=True)
    assert proc.returncode != 0 and not proc.stdout
    assert proc.stderr == "bench run: set %s is now %s\n" % (old, new)
    assert new in matrix.SETS and old not in matrix.SETS


def test_a_deleted_set_is_refused_in_one_line():
    for old in (old for old, new in matrix.RETIRED.items() if not new):
        assert old not in matrix.SETS
        proc = subprocess.run([sys.executable, "-m", "bench", "run", "--dry-run", old],
                              cwd=paths.TOP, capture_output=True, text=True)
        assert proc.returncode != 0
        assert proc.stderr == "bench run: set %s was deleted (it never ran)\n" % old


def test_no_set_and_no_configuration_is_refused():
    with pytest.raises(SystemExit, match="give sets"):
        run.main(cli.parser().parse_args(["run", "--dry-run"]))


def test_every_command_has_help():
    for command in cli.COMMANDS:
        proc = subprocess.run([sys.executable, "-m", "bench", command, "--help"],
                              cwd=paths.TOP, capture_output=True, text=True)
        assert proc.returncode == 0 and "python3 -m bench" in proc.stdout, command


def test_every_sim_point_of_the_sets_gets_a_command_line(tmp_path):
    """Sim-only keys (ack_priority without a shaper, ECN marks) are the
    simulator's: the command line is built for every sim point of the sets
    that name them, with the queue limit the driver would give."""
    for name in ("sim-start-gate", "sim-exchange-noise", "sim-reverse-rate"):
        for cfg in configurations(name):
            point = run.rundir.Point(str(tmp_path / cfg["name"]))
            point.write_config(cfg)
            argv = run.sim_argv(cfg, point)
            assert argv[0] == paths.SIM and argv[1:3] == ["--queue-limit", "262144"], argv


@pytest.mark.parametrize("name", ["dc", "dc-dcqcn", "regime-map", "cluster"])
def test_the_simulated_sets_keep_the_line_they_were_measured_at(name):
    """Seeds added to a point later must run the rules its first seeds ran,
    whatever the shipped default line has become since (a2863da moved it to
    1.6 / 0.7; the simulated sets were measured at 1.6 / 0.2)."""
    line = {"slope": "1.6", "intercept": "0.2"}
    assert matrix.SIM_SET_LINE == line
    for cfg in configurations(name):
        assert {k: cfg["default_params"][k] for k in line} == line, cfg["name"]
        for alg in cfg["algorithms"]:
            params = matrix.algorithm_params(cfg, alg)
            if alg["cc"].startswith("mltcp"):
                assert {k: params[k] for k in line} == line, (cfg["name"], alg["name"])


# Committed simulated points named as a set's point whose configuration the
# set does not give, and why: what a set generates may change only where
# the point says so.
EDITED_POINTS = {
    "20261123T0836Z-dc/dc2-sync-ecn": "the dc set's first version (20 us, 50 ms period)",
    "20261123T1211Z-dc/dc2-sync-droptail": "the dc set's first version",
    "20261123T1211Z-dc/dc2-sync-ecn": "the dc set's first version",
    "20261124T1712Z-regime30-ai/regime-30rtts": "ai at 1.6 / 0.7 beside the map's 0.2",
    "20261124T1712Z-regime30-ai/regime-30rtts-solo": "the same run's lone jobs at 0.7",
    "20261124T2336Z-dc2-mechanism/dc2-sync-ecn": "restart rules outside the set",
    "20261125T0106Z-dc2-idle-restart/dc2-sync-ecn": "idle_rto_min_ms set",
    "20261125T0312Z-dc2-ai-strength/dc2-sync-ecn": "other lines of ai",
    "20261125T0424Z-dc2-constf-as-cubic/dc2-sync-ecn": "const_f under cubic's name",
    "20261125T0433Z-dc2-dcqcn-window-rules/dc2-sync-dcqcn": "window rules outside the set",
    "20261128T0037Z-yardstick-quick/yard-sim-2jobs-random-ecn":
        "before the emulated switch (prio_dscps) and the prio rules (issue 37)",
    "20261128T0300Z-prio-oracle-first/sim-oracles":
        "the oracle at periods from the jobs' phases alone (comm_ms), beside line rate's",
    "20261128T0300Z-prio-oracle-first/sim-oracle-p90":
        "the oracle at the solo phases' p90 (comm_ms)",
}


def committed_sim_points():
    names = {}
    for set_name, make in matrix.SETS.items():
        for cfg in make():
            names.setdefault(cfg["name"], set_name)
    out = []
    for path in sorted(glob.glob(paths.TOP + "/bench/results/*/*/config.json")):
        with open(path) as f:
            stored = json.load(f)
        point = os.path.relpath(os.path.dirname(path), paths.TOP + "/bench/results")
        if (stored.get("backend") == "ns-3" and stored["name"] in names
                and point not in EDITED_POINTS):
            out.append(pytest.param(names[stored["name"]], stored, id=point))
    return out


@pytest.mark.parametrize("set_name,stored", committed_sim_points())
def test_a_committed_simulated_point_is_its_sets(set_name, stored):
    """Each set's generator still gives the configuration its committed
    points ran (their iterations, repeats and rules), so that `bench run
    SET --only POINT` measures them again and seeds added later run the
    same rules."""
    argv = [set_name, "--only", stored["name"], "--iterations", str(stored["iterations"]),
            "--repeats", str(stored["repeats"]),
            "--algorithms", ",".join(a["name"] for a in stored["algorithms"])]
    if stored.get("first_repeat"):
        argv += ["--first-repeat", str(stored["first_repeat"])]
    (cfg,) = [c for c in configurations(*argv) if c["name"] == stored["name"]]
    stored = {k: v for k, v in stored.items() if k not in ("commit", "format")}
    # A start_seed equal to the point's name draws the starts the name drew
    # (bench.driver.start_offsets()): a point committed before the key ran them.
    if "start_seed" not in stored and cfg.get("start_seed") == stored["name"]:
        del cfg["start_seed"]
    if stored.get("first_repeat") == 0:
        del stored["first_repeat"]
    assert cfg == stored


def test_every_edited_point_is_committed():
    for point in EDITED_POINTS:
        assert os.path.exists(paths.TOP + "/bench/results/" + point + "/config.json"), point


def stub_host_run(monkeypatch, driver_reason=None, load_rc=0):
    """bench run's subprocess calls for a host point: mltcpctl's BPF load
    exits load_rc; the driver exits 2, leaving driver_reason."""
    from bench import rundir

    def fake_run(argv, **kw):
        if "bench" in argv and "driver" in argv:
            if driver_reason:
                with open(rundir.Point(argv[-1]).file(rundir.DRIVER_FAILURE), "w") as f:
                    f.write(driver_reason + "\n\nTraceback (most recent call last): ...\n")
            return subprocess.CompletedProcess(argv, 2)
        if "load" in argv:
            return subprocess.CompletedProcess(argv, load_rc, stderr="libbpf: no BTF\n")
        return subprocess.CompletedProcess(argv, 0)
    monkeypatch.setattr(run.subprocess, "run", fake_run)
    # The driver itself is run_child()'s (a Ctrl-C waits for it to unwind).
    monkeypatch.setattr(run, "run_child", fake_run)
    monkeypatch.setattr(run, "host_lock", lambda: __import__("contextlib").nullcontext())


def test_a_failure_on_the_host_names_the_host_and_the_drivers_reason(tmp_path, monkeypatch):
    from bench import rundir
    stub_host_run(monkeypatch, "`tc qdisc add` exited 2: Error: Exclusivity flag on.")
    cfg = dict(matrix.on_host(matrix.pair()[0]), commit="abc")
    summary, error = run.run_point(cfg, rundir.Point(str(tmp_path / "p")))
    assert summary is None
    assert error == "host run failed (2): `tc qdisc add` exited 2: Error: Exclusivity flag on."


def test_a_reason_of_an_earlier_run_is_not_reported(tmp_path, monkeypatch):
    from bench import rundir
    point = rundir.Point(str(tmp_path / "p"))
    os.makedirs(point.path)
    with open(point.file(rundir.DRIVER_FAILURE), "w") as f:
        f.write("stale\n")
    stub_host_run(monkeypatch)
    _, error = run.run_point(dict(matrix.on_host(matrix.pair()[0]), commit="abc"), point)
    assert error == "host run failed (2)"


def test_a_failed_bpf_load_is_one_line(tmp_path, monkeypatch):
    from bench import rundir
    stub_host_run(monkeypatch, load_rc=1)
    _, error = run.run_point(dict(matrix.on_host(matrix.pair()[0]), commit="abc"),
                             rundir.Point(str(tmp_path / "p")))
    assert error == "host BPF twin load failed (1): libbpf: no BTF"


def test_failures_name_the_backend_where_the_point_ran():
    assert [run.where({"backend": b}) for b in ("bpf", "ns-3", "module")] == \
        ["host", "sim", "guest"]
    assert run.where({}) == "guest"


def test_worker_failures_name_the_backend_and_the_first(tmp_path, monkeypatch):
    from bench import rundir
    monkeypatch.setattr(run.subprocess, "run",
                        lambda argv, **kw: subprocess.CompletedProcess(argv, 0))
    monkeypatch.setattr(run, "run_child", lambda argv, **kw: subprocess.CompletedProcess(argv, 0))
    monkeypatch.setattr(run, "host_lock", lambda: __import__("contextlib").nullcontext())
    fails = ["job1 rank 0 exited 1: Traceback (most recent call last):\n  File x\nOSError: y",
             "job2 rank 1 timed out"]
    monkeypatch.setattr(run.analyze, "analyze_point", lambda point: ({"s": 1}, fails))
    summary, error = run.run_point(dict(matrix.on_host(matrix.pair()[0]), commit="abc"),
                                   rundir.Point(str(tmp_path / "p")))
    assert summary == {"s": 1}
    assert error == "host run: 2 worker failures, first: job1 rank 0 exited 1: OSError: y"


def test_points_need_their_programs_built_and_say_so_before_anything_runs(monkeypatch, tmp_path):
    host = configurations("yardstick", "--only", "yard-host-pair-fifo")
    sim = configurations("yardstick", "--only", "yard-sim-2jobs-random-ecn")
    assert host and sim
    missing = str(tmp_path / "mltcpctl")
    monkeypatch.setattr(run.paths, "MLTCPCTL", missing)
    assert run.host_lacks(host, python="/bin/true") == (
        "%s is not built (cmake -S . -B build && cmake --build build)" % missing)
    monkeypatch.setattr(run.paths, "SIM", "/bin/true")  # built or not here
    assert run.host_lacks(sim, python="/bin/true") is None
    monkeypatch.setattr(run.paths, "SIM", str(tmp_path / "mltcp-sim"))
    assert "mltcp-sim is not built" in run.host_lacks(sim, python="/bin/true")


def test_host_ddp_points_need_torch_and_say_so_before_anything_runs(tmp_path):
    ddp = configurations("yardstick", "--only", "yard-host-torch-ring")
    others = configurations("yardstick", "--only", "yard-host-pair-fifo")
    assert ddp and others
    # A python without torch (an empty PYTHONPATH cannot give it one).
    lacking = tmp_path / "python3"
    lacking.write_text("#!/bin/sh\nexec %s -S -c 'import torch' 2>/dev/null\n" % sys.executable)
    lacking.chmod(0o755)
    why = run.host_lacks(ddp, python=str(lacking))
    assert why == ("real DDP on the host needs PyTorch in %s "
                   "(apt-get install python3-torch)" % lacking)
    assert run.host_lacks(others, python=str(lacking)) is None
    assert run.host_lacks(ddp, python="/bin/true") is None
