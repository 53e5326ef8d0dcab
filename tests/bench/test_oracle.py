# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The oracle's slot schedule (bench/oracle.py): its period and offsets from
the jobs, its resolution into a point's configuration and what the driver
passes to mltcp-trainsim."""
import argparse

import pytest

from bench import driver, matrix, metrics, oracle, run, yardstick


def dumbbell(jobs, rate_mbit=10000):
    return {"name": "p", "rate_mbit": rate_mbit, "jobs": jobs,
            "algorithms": [{"name": "cubic", "cc": "cubic"}, oracle.RULE]}


def comm_phases(cfg, slots):
    """Each job's communication phase in its slot, [start, end) in us, folded
    into the period (a phase across the period's end split in two)."""
    period = slots["period_us"]
    out = []
    for name, compute_s, comm_s in oracle.phases(cfg):
        start = (slots["offsets_us"][name] + compute_s * 1e6) % period
        end = start + comm_s * 1e6
        out += [(start, min(end, period))] + ([(0, end - period)] if end > period else [])
    return sorted(out)


def test_identical_jobs_run_at_their_ideal_period_spread_evenly():
    jobs = matrix.identical_jobs(4, 0.2, 50, 10000)
    slots = oracle.slot_schedule(dumbbell(jobs))
    ideal_s, _ = metrics.ideal_iteration(jobs[0]["compute_ms"] / 1e3, jobs[0]["bytes"], 1e10)
    # The ideal period, rounded up to a whole microsecond.
    assert slots["period_us"] == 50000
    assert slots["period_us"] - 1 < ideal_s * 1e6 <= slots["period_us"]
    assert slots["offsets_us"] == {"job1": 0, "job2": 12500, "job3": 25000, "job4": 37500}


def test_fractions_summing_to_1_are_staggered_by_one_communication_time():
    jobs = matrix.identical_jobs(2, 0.5, 40, 1000)
    slots = oracle.slot_schedule(dumbbell(jobs, 1000))
    _, comm_s = metrics.ideal_iteration(jobs[0]["compute_ms"] / 1e3, jobs[0]["bytes"], 1e9)
    assert slots["offsets_us"]["job2"] == pytest.approx(comm_s * 1e6, abs=1)


def test_fractions_over_1_stretch_the_period_to_the_links_bound():
    jobs = matrix.identical_jobs(3, 0.4, 25, 10000)
    cfg = dumbbell(jobs)
    slots = oracle.slot_schedule(cfg)
    comm_us = sum(m for _, _, m in oracle.phases(cfg)) * 1e6
    assert slots["period_us"] == pytest.approx(comm_us, abs=1) and comm_us > 25000
    assert oracle.bound_ms(cfg) == pytest.approx(30, abs=1e-3)


def test_jobs_of_different_periods_share_the_longest():
    cfg = [p for p in yardstick.yardstick(iterations=10) if p["name"] == "yard-sim-mix4-sync-ecn"][0]
    slots = oracle.slot_schedule(cfg)
    periods = [c + m for _, c, m in oracle.phases(cfg)]
    assert len(set(round(p, 6) for p in periods)) > 1
    assert slots["period_us"] == pytest.approx(max(periods) * 1e6, abs=1)
    # A bound above the ideal (the mean of the jobs' own periods).
    assert oracle.bound_ms(cfg) > 1e3 * sum(periods) / len(periods)


@pytest.mark.parametrize("name", [p["name"] for p in yardstick.yardstick(iterations=10)
                                  if "topology" not in p])
def test_no_two_communication_phases_of_a_yardstick_point_meet(name):
    cfg = [p for p in yardstick.yardstick(iterations=10) if p["name"] == name][0]
    slots = oracle.slot_schedule(cfg)
    phases = comm_phases(cfg, slots)
    # Rounding to whole microseconds may close a gap by a microsecond or two.
    over = sum(max(0, a_end - b_start) for (_, a_end), (b_start, _) in zip(phases, phases[1:]))
    fractions = sum(m / (c + m) for _, c, m in oracle.phases(cfg))
    if fractions <= 1 + metrics.LINK_LOAD_SLACK:
        assert over <= 2, phases
    for offset in slots["offsets_us"].values():
        assert 0 <= offset < slots["period_us"]


def test_resolve_gives_the_oracle_its_slots_and_leaves_the_rest():
    cfg = dumbbell(matrix.identical_jobs(2, 0.4, 25, 10000))
    resolved = oracle.resolve(cfg)
    cubic, rule = resolved["algorithms"]
    assert cubic == {"name": "cubic", "cc": "cubic"}
    assert rule["cc"] == "cubic" and rule["slots"] == oracle.slot_schedule(cfg)
    assert "slots" not in oracle.RULE and "slots" not in cfg["algorithms"][1]
    plain = dict(cfg, algorithms=[{"name": "cubic", "cc": "cubic"}])
    assert oracle.resolve(plain) is plain


def test_a_point_that_cannot_run_the_oracle_is_refused_in_one_line():
    cfg = matrix.cluster_point(16, 0.2, 10, 1)
    cfg["algorithms"] = [oracle.RULE]
    with pytest.raises(SystemExit, match="one shared bottleneck"):
        oracle.resolve(cfg)
    cfg = dumbbell(matrix.torch_jobs(2, 0.4, 1000, 50))
    with pytest.raises(SystemExit, match="job job1 is not mltcp-trainsim's"):
        oracle.resolve(cfg)
    cfg = dumbbell(matrix.identical_jobs(2, 0.4, 25, 10000))
    cfg["algorithms"] = [dict(oracle.RULE, schedule="cassini")]
    with pytest.raises(SystemExit, match="unknown schedule 'cassini'"):
        oracle.resolve(cfg)


def test_bench_run_resolves_every_point_before_it_runs():
    args = argparse.Namespace(config=None, sets=["yardstick-quick"], iterations=None,
                              repeats=None, only=None, first_repeat=None, host=False,
                              sim=False, algorithms=None)
    cfgs = run.configurations(args)
    assert cfgs
    for cfg in cfgs:
        rules = {a["name"]: a for a in cfg["algorithms"]}
        assert rules["oracle"]["slots"] == oracle.slot_schedule(cfg)


def test_the_driver_passes_the_slot_period_and_the_oracles_starts():
    cfg = dict(dumbbell(matrix.identical_jobs(2, 0.4, 25, 10000)), trainsim="/bin/t",
               iterations=5)
    alg = oracle.resolve(cfg)["algorithms"][1]
    job = dict(cfg["jobs"][1], offset_ms=12.5)
    args = driver.trainsim_argv(cfg, job, alg, 0, 7100, "10.0.0.2", 1763790000.25,
                                "oracle/rep0", "/tmp/log")
    assert args[args.index("--slot-period") + 1] == "25000us"
    assert args[args.index("--offset") + 1] == "12.5ms"
    assert args[args.index("--cc") + 1] == "cubic"
    plain = driver.trainsim_argv(cfg, job, {"name": "cubic", "cc": "cubic"}, 0, 7100,
                                 "10.0.0.2", 1763790000.25, "cubic/rep0", "/tmp/log")
    assert "--slot-period" not in plain


def test_measured_phases_replace_line_rates():
    """A profiled oracle: each job's phase as measured alone sets P and the
    offsets, by the same arithmetic."""
    jobs = matrix.identical_jobs(2, 0.4, 25, 10000)
    cfg = dumbbell(jobs)
    compute_ms = jobs[0]["compute_ms"]
    slots = oracle.slot_schedule(cfg, {"job1": 12.0, "job2": 12.0})
    assert slots == {"period_us": round((compute_ms + 12) * 1e3),
                     "offsets_us": {"job1": 0, "job2": round((compute_ms + 12) * 1e3 / 2)}}
    # Phases longer than the compute leave: the link's bound.
    assert oracle.slot_schedule(cfg, {"job1": 30.0, "job2": 20.0})["period_us"] == 50000
    rule = dict(oracle.RULE, name="oracle-profiled", comm_ms={"job1": 12.0, "job2": 12.0})
    resolved = oracle.resolve(dict(cfg, algorithms=[rule]))
    assert resolved["algorithms"][0]["slots"] == slots


@pytest.mark.parametrize("comm_ms, words", [
    ({"job1": 12.0}, "every job's phase"),
    ({"job1": 12.0, "job2": 12.0, "job3": 1.0}, "every job's phase"),
    ({"job1": 12.0, "job2": 0}, "job job2: 0 is not"),
    ({"job1": 12.0, "job2": "12"}, "job job2: '12' is not"),
    ([12.0, 12.0], "every job's phase"),
])
def test_bad_measured_phases_are_refused(comm_ms, words):
    cfg = dumbbell(matrix.identical_jobs(2, 0.4, 25, 10000))
    cfg["algorithms"] = [dict(oracle.RULE, comm_ms=comm_ms)]
    with pytest.raises(SystemExit, match=words):
        oracle.resolve(cfg)
