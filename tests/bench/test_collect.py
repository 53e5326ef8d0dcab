# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench collect: point directories become one results directory, as bench
run SET writes it, stamped with the points' own commits and dates."""
import pytest

from bench import collect, regime, rundir


def algorithm(mean):
    return {"mean_iter_ms": mean, "p99_iter_ms": mean * 1.5, "steady_mean_iter_ms": mean,
            "ratio_to_ideal": mean / 200, "per_repeat_mean_iter_ms": [mean], "repeats": 1,
            "stable_repeats": 1, "converged_iteration": [3], "rtos": [0]}


def make_point(path, name, commit, date, means, start_at=None, failures=(), backend="bpf"):
    point = rundir.Point(str(path))
    cfg = {"backend": backend, "rate_mbit": 200, "rtt_ms": 0,
           "jobs": [{"name": "job1", "bytes": 1912813, "compute_ms": 120}]}
    point.write_config(dict(cfg, name=name) if name else cfg)
    algs = {a: dict(algorithm(m), failures=list(failures)) for a, m in means.items()}
    point.write_summary({"commit": commit, "date": date, "ideal_iter_ms": 200.0,
                         "ideal_valid": True, "algorithms": algs})
    for rep, alg in enumerate(means):
        if start_at is not None:
            point.write_repeat(alg, 0, {"start_at": start_at + 60 * rep, "backend": backend}, [])
    return point


def test_points_are_copied_under_their_names_and_tabled(tmp_path):
    # Measured 2026-11-24 01:30 UTC (raw logs) at def5678, analyzed later.
    make_point(tmp_path / "a", "fair", "def5678", "2026-11-24T03:00:00+00:00",
               {"cubic": 324.6, "md-restart": 351.8}, start_at=1795483800)
    # Raw logs gone: the analysis's date, 01:10 UTC, at abc1234.
    make_point(tmp_path / "b", "two", "abc1234", "2026-11-24T02:10:00+01:00",
               {"cubic": 209.8})
    out = tmp_path / "set"
    doc = collect.gather(str(out), [str(tmp_path / "a"), str(tmp_path / "b")])
    assert doc["commit"] == "abc1234+def5678"
    assert doc["date"] == "20261124T0110Z"
    results = rundir.Results(str(out))
    assert set(results.read()["results"]) == {"fair", "two"}
    assert results.point("fair").summary()["algorithms"]["md-restart"]["mean_iter_ms"] == 351.8
    assert "| fair (ideal 200.0 ms) | md-restart | 351.8" in (out / "results.md").read_text()
    # bench regime reads the set as it reads bench run's.
    assert {name for name, _, _, _ in regime.load([str(out)])} == {"fair", "two"}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".collect-")] == []


def test_a_simulated_point_is_stamped_when_analyzed_not_at_its_simulated_start(tmp_path):
    # mltcp-sim's start_at is 0.1 simulated seconds: 1970 if read as a wall clock.
    make_point(tmp_path / "s", "dc2", "abc1234", "2026-11-24T15:30:00+00:00",
               {"cubic": 27.1, "ai": 24.0}, start_at=0.1, backend="ns-3")
    doc = collect.gather(str(tmp_path / "o"), [str(tmp_path / "s")])
    assert doc["date"] == "20261124T1530Z"
    assert "Measured 20261124T1530Z at commit abc1234" in (tmp_path / "o" / "results.md").read_text()


def test_an_unnamed_point_takes_its_directorys_name_and_failures_are_kept(tmp_path):
    make_point(tmp_path / "demo", None, "abc1234", "2026-11-24T01:00:00+00:00",
               {"cubic": 1.0}, failures=["job1 rank 0 exited 1"])
    doc = collect.gather(str(tmp_path / "o"), [str(tmp_path / "demo")])
    assert doc["results"]["demo"]["error"] == "analysis reported worker failures"
    assert "| demo | - | analysis reported worker failures |" in \
        (tmp_path / "o" / "results.md").read_text()


def test_refusals_change_nothing(tmp_path):
    make_point(tmp_path / "a", "fair", "abc1234", "2026-11-24T01:00:00+00:00", {"cubic": 1.0})
    make_point(tmp_path / "b", "fair", "abc1234", "2026-11-24T01:00:00+00:00", {"cubic": 1.0})
    (tmp_path / "c").mkdir()
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(SystemExit, match="has no config.json"):
        collect.gather(str(tmp_path / "o1"), [str(tmp_path / "c")])
    with pytest.raises(SystemExit, match="two points named fair"):
        collect.gather(str(tmp_path / "o2"), [str(tmp_path / "a"), str(tmp_path / "b")])
    with pytest.raises(SystemExit, match="exists"):
        collect.gather(str(tmp_path / "a"), [str(tmp_path / "b")])
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
