# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`python3 -m bench run`: which configurations it runs, and its command line."""
import json
import subprocess
import sys

import pytest

from bench import cli, matrix, paths, run


def configurations(*argv):
    return run.configurations(cli.parser().parse_args(["run"] + list(argv)))


def test_sets_with_overrides_and_a_filter():
    cfgs = configurations("offsets", "--only", "0.1", "--iterations", "7", "--repeats", "2",
                          "--algorithms", "cubic,mltcp")
    assert [c["name"] for c in cfgs] == ["offset-0.1"]
    assert cfgs[0]["iterations"] == 7 and cfgs[0]["repeats"] == 2
    assert [a["name"] for a in cfgs[0]["algorithms"]] == ["cubic", "mltcp"]
    # The smoke point keeps its own size.
    assert configurations("smoke", "--iterations", "50")[0]["iterations"] == 4


def test_host_points_are_the_same_jobs_on_the_bpf_backend():
    (cfg,) = configurations("pair", "--host")
    assert cfg == matrix.on_host(matrix.pair()[0])
    assert cfg["backend"] == "bpf" and cfg["name"] == "pair-host"


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
    assert run.guest_budget_s(matrix.study_guest()[0]) == 600 + 100 * 3 * 11 * 4


def test_unknown_sets_are_refused_before_anything_runs():
    proc = subprocess.run([sys.executable, "-m", "bench", "run", "nosuchset"], cwd=paths.TOP,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "unknown set nosuchset" in proc.stderr


def test_every_command_has_help():
    for command in cli.COMMANDS:
        proc = subprocess.run([sys.executable, "-m", "bench", command, "--help"],
                              cwd=paths.TOP, capture_output=True, text=True)
        assert proc.returncode == 0 and "python3 -m bench" in proc.stdout, command


def test_every_sim_point_of_the_sets_gets_a_command_line(tmp_path):
    """Sim-only keys (ack_priority without a shaper, ECN marks) are the
    simulator's: the command line is built for every sim point of the sets
    that name them, with the queue limit the driver would give."""
    for name in ("gate-sim", "diag-exchange", "diag-asym"):
        for cfg in configurations(name):
            point = run.rundir.Point(str(tmp_path / cfg["name"]))
            point.write_config(cfg)
            argv = run.sim_argv(cfg, point)
            assert argv[0] == paths.SIM and argv[1:3] == ["--queue-limit", "262144"], argv


@pytest.mark.parametrize("name", ["dc", "dc-dcqcn", "regime-map", "cluster"])
def test_issue_13s_sets_keep_the_line_they_were_measured_at(name):
    """Seeds added to a point later must run the rules its first seeds ran,
    whatever the shipped default line has become since (a2863da moved it to
    1.6 / 0.7; issue 13's sets were measured at 1.6 / 0.2)."""
    line = {"slope": "1.6", "intercept": "0.2"}
    assert matrix.SIM_SET_LINE == line
    for cfg in configurations(name):
        assert {k: cfg["default_params"][k] for k in line} == line, cfg["name"]
        for alg in cfg["algorithms"]:
            params = matrix.algorithm_params(cfg, alg)
            if alg["cc"].startswith("mltcp"):
                assert {k: params[k] for k in line} == line, (cfg["name"], alg["name"])


def test_a_data_center_point_from_the_set_is_the_committed_one():
    """The set's generator still gives the configuration a committed point ran."""
    committed = paths.TOP + "/bench/results/20261124T1808Z-dc-more/dc4-sync-ecn-ackprio"
    with open(committed + "/config.json") as f:
        stored = json.load(f)
    names = ",".join(a["name"] for a in stored["algorithms"])
    (cfg,) = configurations("dc", "--only", "dc4-sync-ecn-ackprio", "--iterations", "60",
                            "--repeats", "10", "--algorithms", names)
    for key in ("commit", "format"):
        stored.pop(key, None)
    assert cfg == stored
