# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench/fidelity.py's arithmetic and table, on runs with known answers."""
from bench import fidelity


def runs(pairs):
    return [{"rep": rep, "cc": cc, "mbit": mbit, "retransmits": 10}
            for rep, (cubic, ours) in enumerate(pairs)
            for cc, mbit in (("cubic", cubic), ("mltcp_cubic", ours))]


def test_ratios_per_repeat_and_of_the_means():
    s = fidelity.summarize(fidelity.scenario_config("clean", 50), runs([(40, 42), (50, 50)]))
    assert s["repeats"] == 2
    assert s["ratios"] == [42 / 40, 1.0]
    assert s["ratio_min"] == 1.0 and s["ratio_max"] == 42 / 40
    assert abs(s["ratio_of_means"] - 92 / 90) < 1e-12
    assert s["within_target"]


def test_a_miss_is_reported_with_its_size():
    s = fidelity.summarize(fidelity.scenario_config("loss-2%", 50), runs([(40, 44)]))
    assert not s["within_target"]
    doc = {"scenarios": {"loss-2%": s}}
    assert "no, by 7.0 points" in fidelity.table(doc)


def test_every_scenario_is_configured():
    assert set(fidelity.SCENARIOS) == {"clean", "loss-0.5%", "loss-2%", "rtt-100ms", "shallow"}
    cfg = fidelity.scenario_config("rtt-100ms", 50)
    assert cfg["rtt_ms"] == 100 and cfg["loss_pct"] == 0
