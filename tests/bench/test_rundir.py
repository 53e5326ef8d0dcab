# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The run-directory reader and writer: the format stamp, round trips, and
the committed results of format 0 that the documents are built from."""
import json
import os

import pytest

from bench import paths, rundir

COMMITTED = os.path.join(paths.RESULTS, "20261122T1045Z-study-push")


def test_a_point_written_now_carries_the_format_and_reads_back(tmp_path):
    point = rundir.Point(str(tmp_path / "p"))
    stored = point.write_config({"name": "p", "format": 0, "iterations": 3})
    assert stored == {"format": rundir.FORMAT, "name": "p", "iterations": 3}
    assert point.config() == stored
    assert json.loads((tmp_path / "p" / "config.json").read_text())["format"] == 1

    log = point.worker_log("mltcp", 0, "job1", 1)
    assert log == str(tmp_path / "p" / "raw" / "mltcp" / "rep0" / "job1-r1.jsonl")
    with open(log, "w") as f:
        f.write('{"type": "iteration", "iteration": 0}\n\n{"type": "summary"}\n')
    point.write_repeat("mltcp", 0, {"defaults": {"slope": 1.6}}, [[1.0, [0, 5]]])
    (repeat,) = point.repeats("mltcp")
    assert repeat.index == 0
    assert repeat.meta == {"defaults": {"slope": 1.6}}
    assert repeat.samples == [[1.0, [0, 5]]]
    assert [r["type"] for r in repeat.records] == ["iteration", "summary"]

    point.write_summary({"algorithms": {}})
    assert point.summary() == {"format": 1, "algorithms": {}}


def test_repeats_are_in_numeric_order(tmp_path):
    point = rundir.Point(str(tmp_path))
    for rep in (10, 2, 0, 1):
        point.write_repeat("cubic", rep, {}, [])
    (tmp_path / "raw" / "cubic" / "rep-notes").mkdir()
    assert [r.index for r in point.repeats("cubic")] == [0, 1, 2, 10]
    assert point.repeats("mltcp") == []


def test_format_0_meta_names_its_defaults_module_params(tmp_path):
    rep = tmp_path / "raw" / "mltcp" / "rep0"
    rep.mkdir(parents=True)
    (rep / "meta.json").write_text(json.dumps({"module_params": {"slope": "1.600"}}))
    (repeat,) = rundir.Point(str(tmp_path)).repeats("mltcp")
    assert repeat.meta == {"defaults": {"slope": "1.600"}}


def test_committed_results_are_format_0_and_read():
    results = rundir.Results(COMMITTED)
    doc = results.read()
    assert "format" not in doc
    assert set(doc["results"]) == {"push2-1000mbit", "push2-200mbit"}
    point = results.point("push2-1000mbit")
    assert point.config()["rate_mbit"] == 1000
    assert point.summary()["algorithms"]["md-restart"]["stable_repeats"] == 8


def test_results_written_now_carry_the_format(tmp_path):
    results = rundir.Results(str(tmp_path / "r"))
    results.write({"commit": "abc", "results": {}}, "# table\n")
    assert results.read() == {"format": 1, "commit": "abc", "results": {}}
    assert (tmp_path / "r" / "results.md").read_text() == "# table\n"


@pytest.mark.parametrize("version", [2, "1", -1])
def test_an_unknown_format_is_refused(tmp_path, version):
    (tmp_path / "config.json").write_text(json.dumps({"format": version}))
    with pytest.raises(rundir.FormatError):
        rundir.Point(str(tmp_path)).config()
