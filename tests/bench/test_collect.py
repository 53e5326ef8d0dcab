# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench collect: point directories become one results directory, as bench
run SET writes it, stamped with the points' own commits and dates."""
import pytest

from bench import collect, regime, rundir


def algorithm(mean):
    return {"mean_iter_ms": mean, "p99_iter_ms": mean * 1.5, "steady_mean_iter_ms": mean,
            "ratio_to_ideal": mean / 200, "per_repeat_mean_iter_ms": [mean], "repeats": 1,
            "stable_repeats": 1, "converged_iteration": [3], "rtos": [0]}


def make_point(path, name, commit, date, means):
    point = rundir.Point(str(path))
    point.write_config({"name": name, "backend": "bpf", "rate_mbit": 200, "rtt_ms": 0,
                        "jobs": [{"name": "job1", "bytes": 1912813, "compute_ms": 120}]})
    point.write_summary({"commit": commit, "date": date, "ideal_iter_ms": 200.0,
                         "ideal_valid": True,
                         "algorithms": {a: algorithm(m) for a, m in means.items()}})
    (path / "raw").mkdir()
    return point


def test_points_are_copied_under_their_names_and_tabled(tmp_path):
    make_point(tmp_path / "a", "fair", "abc1234", "2026-11-24T01:30:01+00:00",
               {"cubic": 324.6, "md-restart": 351.8})
    make_point(tmp_path / "b", "two", "def5678", "2026-11-24T01:10:00+00:00",
               {"cubic": 209.8})
    out = tmp_path / "set"
    doc = collect.gather(str(out), [str(tmp_path / "a"), str(tmp_path / "b")])
    assert doc["commit"] == "abc1234+def5678"
    assert doc["date"] == "2026-11-24T01:10:00+00:00"
    results = rundir.Results(str(out))
    assert set(results.read()["results"]) == {"fair", "two"}
    assert results.point("fair").summary()["algorithms"]["md-restart"]["mean_iter_ms"] == 351.8
    assert "| fair (ideal 200.0 ms) | md-restart | 351.8" in (out / "results.md").read_text()
    # bench regime reads the set as it reads bench run's.
    assert {name for name, _, _, _ in regime.load([str(out)])} == {"fair", "two"}


def test_refuses_an_unanalyzed_point_a_repeated_name_and_an_existing_out(tmp_path):
    make_point(tmp_path / "a", "fair", "abc1234", "d", {"cubic": 1.0})
    make_point(tmp_path / "b", "fair", "abc1234", "d", {"cubic": 1.0})
    (tmp_path / "c").mkdir()
    with pytest.raises(SystemExit, match="no summary.json"):
        collect.gather(str(tmp_path / "o1"), [str(tmp_path / "c")])
    with pytest.raises(SystemExit, match="two points named fair"):
        collect.gather(str(tmp_path / "o2"), [str(tmp_path / "a"), str(tmp_path / "b")])
    with pytest.raises(SystemExit, match="exists"):
        collect.gather(str(tmp_path / "a"), [str(tmp_path / "a")])
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()
