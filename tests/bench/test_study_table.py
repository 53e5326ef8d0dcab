# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""study-table judges each algorithm against the interleaving targets."""
import json

from bench import study_table


def alg(mean, stable, repeats=10, reps=None):
    return {"repeats": repeats, "mean_iter_ms": mean, "p99_iter_ms": mean * 1.2,
            "per_repeat_mean_iter_ms": reps or [mean] * repeats, "stable_repeats": stable,
            "rtos": [0] * repeats, "drops": [5] * repeats}


def write(tmp_path, algorithms):
    doc = {"commit": "abc", "date": "now", "results": {
        "p": {"ideal_iter_ms": 200.0, "algorithms": algorithms}}}
    (tmp_path / "results.json").write_text(json.dumps(doc))
    return study_table.table(study_table.load([str(tmp_path)]))


def verdicts(text):
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    return {r.split("|")[1].strip(): r.split("|")[-2].strip() for r in rows[1:]}


def test_meets_only_when_every_target_holds(tmp_path):
    v = verdicts(write(tmp_path, {
        "cubic": alg(270.0, 0),
        "good": alg(215.0, 9),           # 1.075 x ideal, 1.256x cubic, 9/10 stable
        "unstable": alg(215.0, 8),       # 8/10 stable is not enough
        "slow": alg(225.0, 10),          # 1.125 x ideal
        "small_gain": alg(219.0, 10),
    }))
    assert v["good"] == "meets"
    assert v["unstable"] == "-"
    assert v["slow"] == "-"
    assert v["small_gain"] == "meets"  # 270 / 219 = 1.233 and 1.095 x ideal
    assert v["cubic"] == "-"


def test_speedup_below_target_fails(tmp_path):
    v = verdicts(write(tmp_path, {"cubic": alg(230.0, 0), "x": alg(210.0, 10)}))
    assert v["x"] == "-"  # 230 / 210 = 1.095 < 1.2
