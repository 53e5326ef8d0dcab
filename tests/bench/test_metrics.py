# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The experiment's metrics on synthetic logs with known answers."""
import pytest

from bench import metrics

RATE = 100e6
PAYLOAD = RATE * 1448 / 1514


def rec(job, rank, i, start, comm_start, end):
    return {"type": "iteration", "job": job, "rank": rank, "iteration": i,
            "start": start, "comm_start": comm_start, "end": end}


def periodic(job, n, period, compute, comm, offset=0.0, ranks=1):
    """A job whose iteration i computes from offset + i*period, then communicates."""
    out = []
    for i in range(n):
        s = offset + i * period
        for r in range(ranks):
            out.append(rec(job, r, i, s, s + compute, s + compute + comm))
    return out


def test_percentile_is_nearest_rank():
    assert metrics.percentile(list(range(1, 101)), 99) == 99
    assert metrics.percentile(list(range(1, 11)), 99) == 10
    assert metrics.percentile([4, 1, 3, 2], 50) == 2
    assert metrics.percentile([7], 99) == 7
    assert metrics.percentile([], 99) is None


def test_jain_index():
    assert metrics.jain_index([5, 5]) == pytest.approx(1.0)
    assert metrics.jain_index([1, 0]) == pytest.approx(0.5)
    assert metrics.jain_index([3, 1]) == pytest.approx(16 / 20)


def test_ideal_uses_payload_rate():
    nbytes = 0.4 * PAYLOAD / 8
    ideal, comm = metrics.ideal_iteration(0.6, nbytes, RATE)
    assert comm == pytest.approx(0.4)
    assert ideal == pytest.approx(1.0)


def test_workers_of_a_job_merge_into_one_iteration():
    records = [rec("a", 0, 0, 1.0, 1.6, 2.0), rec("a", 1, 0, 1.01, 1.62, 2.05),
               {"type": "summary", "job": "a"}]
    assert metrics.job_iterations(records) == {"a": [(1.0, 1.6, 2.05)]}


def test_overlap_seconds_are_exact():
    jobs = {"a": [(0.0, 0.0, 1.0)], "b": [(0.0, 0.5, 2.0)], "c": [(0.0, 0.8, 0.9)]}
    ov = metrics.overlaps(jobs)
    assert ov["a"] == [pytest.approx(0.5)]  # b covers 0.5-1.0 (c inside it)
    assert ov["b"] == [pytest.approx(0.5)]
    assert ov["c"] == [pytest.approx(0.1)]


def test_convergence_iteration():
    assert metrics.convergence_iteration([0.3, 0.2, 0.0, 0.01, 0.0], 0.4) == 2
    assert metrics.convergence_iteration([0.0, 0.0], 0.4) == 0
    # Re-merging at the end means it never converged.
    assert metrics.convergence_iteration([0.3, 0.0, 0.0, 0.2], 0.4) is None
    # The threshold is 10% of the ideal communication time, strictly below.
    assert metrics.convergence_iteration([0.041, 0.039], 0.4) == 1


def test_settling_is_the_first_clear_run_and_later_overlaps_are_relapses():
    ideal = {"a": 0.4, "b": 0.4}
    clear, hit = 0.0, 0.1
    # Clear from 2 for 10 in a row, one overlap at 14 (job b only), clear after.
    ov = {"a": [hit, hit] + [clear] * 18, "b": [hit, hit] + [clear] * 12 + [hit] + [clear] * 5}
    # Convergence waits for the last overlap; settling does not.
    assert metrics.convergence_iteration(ov["b"], 0.4) == 15
    assert metrics.settling(ov, ideal) == (2, 1)
    # Never 10 clear in a row: not settled; every overlap of the last half counts.
    ov = {"a": ([hit] + [clear] * 8) * 2, "b": [clear] * 18}
    assert metrics.settling(ov, ideal) == (None, 1)
    assert metrics.settling(ov, ideal, run=8) == (1, 1)


def test_interleaved_jobs_reach_the_ideal():
    nbytes = 0.4 * PAYLOAD / 8
    cfg = {"a": {"compute_s": 0.6, "bytes": nbytes}, "b": {"compute_s": 0.6, "bytes": nbytes}}
    records = (periodic("a", 20, 1.0, 0.6, 0.4, ranks=2) +
               periodic("b", 20, 1.0, 0.6, 0.4, offset=0.5, ranks=2))
    run = metrics.analyze_run(records, cfg, RATE)
    assert run["converged_iteration"] == 0
    assert run["stable"]
    assert run["ideal_valid"]
    assert run["comm_fraction_sum"] == pytest.approx(0.8)
    assert run["mean_iter_s"] == pytest.approx(1.0)
    assert run["ratio_to_ideal"] == pytest.approx(1.0)
    offs = metrics.phase_offsets(metrics.job_iterations(records))
    assert offs["b"] == [pytest.approx(0.5)] * 20


def test_synchronized_jobs_never_converge_and_are_slower():
    nbytes = 0.4 * PAYLOAD / 8
    cfg = {"a": {"compute_s": 0.6, "bytes": nbytes}, "b": {"compute_s": 0.6, "bytes": nbytes}}
    fair = (periodic("a", 10, 1.4, 0.6, 0.8) + periodic("b", 10, 1.4, 0.6, 0.8))
    inter = (periodic("a", 10, 1.0, 0.6, 0.4) + periodic("b", 10, 1.0, 0.6, 0.4, offset=0.5))
    r_fair = metrics.analyze_run(fair, cfg, RATE)
    r_inter = metrics.analyze_run(inter, cfg, RATE)
    assert r_fair["converged_iteration"] is None
    assert not r_fair["stable"]
    assert r_fair["jobs"]["a"]["mean_overlap_s"] == pytest.approx(0.8)
    assert metrics.speedup(r_fair, r_inter) == pytest.approx(1.4)


def test_convergence_after_a_few_iterations_and_steady_state():
    nbytes = 0.4 * PAYLOAD / 8
    cfg = {"a": {"compute_s": 0.6, "bytes": nbytes}, "b": {"compute_s": 0.6, "bytes": nbytes}}
    a, b = [], []
    t = 0.0
    # Three overlapped iterations (both slow), then interleaved (ideal).
    for i in range(3):
        a.append(rec("a", 0, i, t, t + 0.6, t + 1.4))
        b.append(rec("b", 0, i, t, t + 0.6, t + 1.4))
        t += 1.4
    for i in range(3, 13):
        a.append(rec("a", 0, i, t, t + 0.6, t + 1.0))
        b.append(rec("b", 0, i, t + 0.5, t + 1.1, t + 1.5))
        t += 1.0
    run = metrics.analyze_run(a + b, cfg, RATE, stable_tail=5)
    assert run["converged_iteration"] == 3
    assert run["stable"]
    assert run["jobs"]["a"]["steady_mean_iter_s"] == pytest.approx(1.0)
    assert run["mean_iter_s"] == pytest.approx((3 * 1.4 + 10 * 1.0) / 13)
    assert run["steady_p99_iter_s"] == pytest.approx(1.0)
    # Past the three settling iterations: the interleaved ones only, while
    # the p99 of all is one of the overlapped three.
    assert metrics.SETTLING_ITERATIONS == 3
    assert run["p99_past_settling_iter_s"] == pytest.approx(1.0)
    assert run["jobs"]["b"]["p99_past_settling_iter_s"] == pytest.approx(1.0)
    assert run["p99_iter_s"] == pytest.approx(1.4)


def test_p99_past_settling_keeps_a_late_slow_iteration():
    nbytes = 0.4 * PAYLOAD / 8
    cfg = {"a": {"compute_s": 0.6, "bytes": nbytes}}
    t, a = 0.0, []
    for i, dur in enumerate([1.4] * 3 + [1.0] * 5 + [2.0] + [1.0] * 3):
        a.append(rec("a", 0, i, t, t + 0.6, t + dur))
        t += dur
    run = metrics.analyze_run(a, cfg, RATE)
    assert run["p99_past_settling_iter_s"] == pytest.approx(2.0)


def test_fractions_above_one_make_the_ideal_invalid():
    nbytes = 0.6 * PAYLOAD / 8
    cfg = {"a": {"compute_s": 0.4, "bytes": nbytes}, "b": {"compute_s": 0.4, "bytes": nbytes}}
    records = periodic("a", 3, 1.0, 0.4, 0.6) + periodic("b", 3, 1.0, 0.4, 0.6)
    run = metrics.analyze_run(records, cfg, RATE)
    assert run["comm_fraction_sum"] == pytest.approx(1.2)
    assert not run["ideal_valid"]


def test_mean_rates_over_the_window():
    samples = [[0.0, [0, 0]], [1.0, [1000, 0]], [2.0, [3000, 500]], [3.0, [9000, 500]]]
    assert metrics.mean_rates(samples, 1.0, 2.0) == [16000.0, 4000.0]
    assert metrics.mean_rates(samples, 0.5, 10) == [8 * 8000 / 2, 8 * 500 / 2]
    assert metrics.mean_rates(samples, 5, 6) is None


def test_detector_view_picks_gradient_flows_and_compares_learned_bytes():
    jobs = [{"name": "a", "bytes": 3000, "compute_ms": 1, "workload": "torch", "ranks": 4},
            {"name": "b", "bytes": 1000, "compute_ms": 1}]
    flows = {
        # 4 ranks: each gradient flow carries 2 * 3000 / 4 = 1500 B per step.
        "L1": [{"iterations": 10, "iter_bytes": 1500},   # one per step
               {"iterations": 21, "iter_bytes": 700},    # steps split in two
               {"iterations": 3, "iter_bytes": 40}],     # the rendezvous
        "R1": [{"iterations": 1, "iter_bytes": 5000}],   # set-up traffic only
        "L2": [{"iterations": 10, "iter_bytes": 1000}],  # not a torch job
    }
    view = metrics.detector_view(flows, jobs, steps=10)
    assert list(view) == ["a", "b"]
    # A trainsim job's worker sends the job's bytes.
    assert view["b"]["carried_per_step"] == 1000 and view["b"]["iterations"] == [10]
    assert view["a"] == {"steps": 10, "carried_per_step": 1500, "gradient_flows": 2,
                         "iterations": [10, 21], "learned_over_carried": [0.467, 1.0]}


def test_detector_view_of_an_unlisted_host_is_empty():
    jobs = [{"name": "a", "bytes": 1000, "compute_ms": 1, "workload": "torch"}]
    view = metrics.detector_view({"L1": {"error": "no such namespace"}}, jobs, steps=5)
    assert view["a"]["gradient_flows"] == 0 and view["a"]["iterations"] == []


def test_wire_overlap_counts_only_time_both_jobs_sent():
    rate = 100e6  # 10% of it: 1.25 MB/s, 12.5 kB per 10 ms sample
    # job1 communicates 0.00-0.04 s and sends throughout; job2's phase spans
    # 0.00-0.08 s but it holds back (sends nothing) until 0.04 s.
    jobs = {"job1": [(0.0, 0.0, 0.04)], "job2": [(0.0, 0.0, 0.08)]}
    samples, b1, b2 = [], 0, 0
    for k in range(9):
        t = k * 0.01
        samples.append([t, [b1, b2]])
        b1 += 100000 if t < 0.04 else 0
        b2 += 100000 if t >= 0.04 else 1000  # 1 kB: a probe, below the floor
    wire = metrics.wire_overlaps(jobs, samples, ["job1", "job2"], rate)
    assert wire == {"job1": [0.0], "job2": [0.0]}
    # By the phases alone, both overlap for 40 ms.
    ov = metrics.overlaps(jobs)
    assert ov["job1"][0] == pytest.approx(0.04) and ov["job2"][0] == pytest.approx(0.04)
    # When job2 sends from the start, the wire overlap is the 40 ms too.
    busy = [[t, [row[0], int(t / 0.01) * 100000]] for t, row in samples]
    wire = metrics.wire_overlaps(jobs, busy, ["job1", "job2"], rate)
    assert wire["job1"][0] == pytest.approx(0.04) and wire["job2"][0] == pytest.approx(0.04)


def test_wire_overlap_needs_every_jobs_counter():
    jobs = {"job1": [(0.0, 0.0, 0.04)], "job2": [(0.0, 0.0, 0.08)]}
    assert metrics.wire_overlaps(jobs, [[0, [0]], [0.01, [5]]], ["job1"], 1e6) is None


def test_wilson_interval_brackets_the_proportion():
    lo, hi = metrics.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-3)
    lo, hi = metrics.wilson_interval(9, 10)
    assert lo == pytest.approx(0.5958, abs=1e-3) and hi == pytest.approx(0.9821, abs=1e-3)
    assert metrics.wilson_interval(0, 0) == (0.0, 1.0)


def test_link_loads_sum_the_fractions_of_the_jobs_crossing_each_link():
    # Two jobs of 20 ms of bytes at 1 Gbit/s in a 50 ms ideal period: 0.4
    # each on the hosts' 1 Gbit/s links, 0.2 each on 2 Gbit/s fabric links.
    nbytes = int(0.02 * 1e9 * metrics.PAYLOAD_EFFICIENCY / 8)
    job = {"bytes": nbytes, "compute_ms": 30}
    cfg = {"rate_mbit": 1000, "topology": {"kind": "leaf-spine", "fabric_mbit": 2000},
           "jobs": [dict(job, name="job1"), dict(job, name="job2")]}
    loads = metrics.link_loads(cfg, {"leaf0>h1": ["job1"], "leaf0>spine1": ["job1", "job2"],
                                     "spine1>leaf1": ["job2"]})
    assert loads["leaf0>h1"] == pytest.approx(0.4, rel=1e-3)
    assert loads["leaf0>spine1"] == pytest.approx(0.4, rel=1e-3)
    assert loads["spine1>leaf1"] == pytest.approx(0.2, rel=1e-3)


def test_on_a_fabric_only_jobs_sharing_a_link_contend():
    # a and b share leaf0>spine0; c crosses only links of its own.
    links = {"leaf0>spine0": ["a", "b"], "leaf0>h0": ["a"], "leaf0>h1": ["b"],
             "leaf1>spine1": ["c"], "leaf1>h2": ["c"]}
    rivals = metrics.contenders(links)
    assert rivals == {"a": {"b"}, "b": {"a"}, "c": set()}
    jobs = {"a": [(0.0, 0.0, 1.0)], "b": [(0.0, 0.5, 2.0)], "c": [(0.0, 0.0, 2.0)]}
    ov = metrics.overlaps(jobs, rivals)
    assert ov["a"] == [pytest.approx(0.5)] and ov["b"] == [pytest.approx(0.5)]
    assert ov["c"] == [0.0]
    # On the wire too: c sends throughout, beside nobody it contends with.
    samples = [[k * 0.25, [k * 1000000] * 3] for k in range(9)]
    wire = metrics.wire_overlaps(jobs, samples, ["a", "b", "c"], 1e6, rivals=rivals)
    assert wire["c"] == [0.0] and wire["a"][0] == pytest.approx(1.0)  # b sends from 0
    assert metrics.wire_overlaps(jobs, samples, ["a", "b", "c"], 1e6)["c"][0] == pytest.approx(2.0)


def test_on_a_fabric_the_busiest_link_decides_whether_the_ideal_is_reachable():
    # Two jobs of 0.6: over 1 together, each alone on its links.
    nbytes = 0.6 * PAYLOAD / 8
    cfg = {"a": {"compute_s": 0.4, "bytes": nbytes}, "b": {"compute_s": 0.4, "bytes": nbytes}}
    records = periodic("a", 3, 1.0, 0.4, 0.6) + periodic("b", 3, 1.0, 0.4, 0.6)
    run = metrics.analyze_run(records, cfg, RATE, rivals={"a": set(), "b": set()},
                              busiest_link_sum=0.6)
    assert run["comm_fraction_sum"] == pytest.approx(0.6) and run["ideal_valid"]
    assert run["jobs"]["a"]["mean_overlap_s"] == 0.0 and run["stable"]
