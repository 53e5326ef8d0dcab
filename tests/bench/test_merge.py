# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench merge refuses parts that are not one point's repeats, and changes
nothing when it does. (That the parts it joins are the point measured at
once is tests/sim/test_sim.py's.)"""
import pytest

from bench import merge, rundir


def make_part(path, first, repeats, commit="abc1234", have=None, **change):
    point = rundir.Point(str(path))
    cfg = {"name": "dc8", "backend": "ns-3", "rate_mbit": 10000, "rtt_ms": 0.01,
           "iterations": 60, "repeats": repeats, "commit": commit,
           "algorithms": [{"name": "cubic", "cc": "cubic"}, {"name": "ai", "cc": "mltcp"}],
           "jobs": [{"name": "job1", "bytes": 1000, "compute_ms": 1}]}
    if first:
        cfg["first_repeat"] = first
    cfg.update(change)
    point.write_config(cfg)
    for alg in ("cubic", "ai"):
        for rep in (have if have is not None else range(first, first + repeats)):
            point.write_repeat(alg, rep, {"start_at": 0.1}, [])
    return str(path)


def refused(tmp_path, parts, text):
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(SystemExit, match=text):
        merge.merge(str(tmp_path / "out"), parts)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_parts_with_a_gap_or_an_overlap_are_refused(tmp_path):
    a = make_part(tmp_path / "a", 0, 5)
    refused(tmp_path, [a, make_part(tmp_path / "gap", 6, 4)], "repeats 6 to 9.*end at 4")
    refused(tmp_path, [a, make_part(tmp_path / "over", 4, 2)], "repeats 4 to 5.*end at 4")
    # Sorted by their first repeats whatever their order on the command line.
    refused(tmp_path, [make_part(tmp_path / "b", 4, 1), make_part(tmp_path / "early", 1, 2)],
            "b runs repeats 4 to 4, the parts before it end at 2")


def test_parts_of_different_points_are_refused(tmp_path):
    a = make_part(tmp_path / "a", 0, 5)
    refused(tmp_path, [a, make_part(tmp_path / "b", 5, 5, iterations=100)], "in 'iterations'")
    refused(tmp_path, [a, make_part(tmp_path / "c", 5, 5, algorithms=[])], "in 'algorithms'")


def test_an_incomplete_part_is_refused(tmp_path):
    a = make_part(tmp_path / "a", 0, 5)
    refused(tmp_path, [a, make_part(tmp_path / "b", 5, 5, have=[5, 6, 7])],
            "cubic has repeats \\[5, 6, 7\\], its configuration runs 5 to 9")
    (tmp_path / "empty").mkdir()
    refused(tmp_path, [a, str(tmp_path / "empty")], "has no config.json")



def test_an_existing_out_is_refused(tmp_path):
    a = make_part(tmp_path / "a", 0, 5)
    (tmp_path / "out").mkdir()
    refused(tmp_path, [a], "out exists")


def test_an_unfinished_repeat_is_refused(tmp_path):
    a = make_part(tmp_path / "a", 0, 5)
    b = make_part(tmp_path / "b", 5, 2)
    (tmp_path / "b" / "raw" / "ai" / "rep6" / "meta.json").unlink()
    refused(tmp_path, [a, b], "ai repeat 6 did not finish")


def test_a_key_null_in_one_part_and_absent_in_the_other_differs(tmp_path):
    a = make_part(tmp_path / "a", 0, 5, start=None)
    refused(tmp_path, [a, make_part(tmp_path / "b", 5, 5)], "in 'start'")


def test_a_failed_analysis_leaves_nothing(tmp_path):
    # Finished repeats without worker logs: the analysis has nothing to read.
    parts = [make_part(tmp_path / "a", 0, 1), make_part(tmp_path / "b", 1, 1)]
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(Exception):
        merge.merge(str(tmp_path / "out"), parts)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_the_whole_configuration_names_every_parts_commit_and_all_repeats(tmp_path):
    parts = sorted((merge.read_part(p) for p in (make_part(tmp_path / "b", 5, 5, "def5678"),
                                                 make_part(tmp_path / "a", 0, 5))),
                   key=lambda part: rundir.repeat_indices(part[1]).start)
    cfg = merge.joined(parts)
    assert cfg["repeats"] == 10 and "first_repeat" not in cfg
    assert cfg["commit"] == "abc1234+def5678"
    assert rundir.repeat_indices(cfg) == range(0, 10)
    # A point merged before, and a part measured at one of its commits.
    again = [(None, dict(cfg, commit="abc1234+def5678")),
             (None, dict(cfg, first_repeat=10, repeats=2, commit="def5678"))]
    assert merge.joined(again)["commit"] == "abc1234+def5678"
    assert merge.joined(again)["repeats"] == 12
