# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench.regime: the fluid model, the measured shifts, and the table's figures."""
import statistics

import pytest

from bench import regime


def test_the_fluid_model_is_zero_at_its_fixed_points_and_positive_between():
    # S = 1.6, I = 0.2, a = 0.4: Shift(D) = S D (a - D) / (a I + S D).
    assert regime.fluid_shift(0, 0.4, 1.6, 0.2) == 0
    assert regime.fluid_shift(0.4, 0.4, 1.6, 0.2) == 0
    assert regime.fluid_shift(0.45, 0.4, 1.6, 0.2) == 0  # the free region
    assert regime.fluid_shift(0.2, 0.4, 1.6, 0.2) == pytest.approx(
        1.6 * 0.2 * 0.2 / (0.4 * 0.2 + 1.6 * 0.2))
    # Constant F (slope 0) never separates the jobs.
    assert regime.fluid_shift(0.2, 0.4, 0, 1) == 0


def records(job, comm_starts, rank=0):
    return [{"type": "iteration", "job": job, "rank": rank, "iteration": i, "start": c - 0.03,
             "comm_start": c, "end": c + 0.02} for i, c in enumerate(comm_starts)]


def test_shifts_follow_the_distance_between_the_jobs_communication_starts():
    period = 0.05
    first = [1.0 + i * period for i in range(4)]
    # The second job starts 5, 10, 20 then 20 ms after the first.
    second = [c + d for c, d in zip(first, (0.005, 0.010, 0.020, 0.020))]
    shifts = regime.shifts(records("job1", first) + records("job2", second), period)
    assert [pytest.approx(d) for d, _ in shifts] == [0.1, 0.2, 0.4]
    assert [pytest.approx(s, abs=1e-9) for _, s in shifts] == [0.1, 0.2, 0.0]


def test_shifts_need_exactly_two_jobs():
    assert regime.shifts(records("job1", [1.0, 1.05]), 0.05) == []


def test_attained_is_the_share_of_the_speedup_over_cubic_taken():
    assert regime.attained(120, 110, 100) == pytest.approx(0.5)
    assert regime.attained(120, 100, 100) == pytest.approx(1.0)
    assert regime.attained(120, 130, 100) == pytest.approx(-0.5)
    # Nothing to take where cubic is already at the ideal.
    assert regime.attained(100.2, 100.1, 100) is None


def test_median_convergence_needs_half_the_repeats():
    assert regime.median_convergence([3, 5, None]) == 4
    assert regime.median_convergence([3, None, None]) is None
    assert regime.median_convergence(2) == 2


def summary(means, ideal=50.0, conv=(1, 2)):
    return {"ideal_iter_ms": ideal, "algorithms": {
        rule: {"mean_iter_ms": m, "p99_iter_ms": m * 1.5, "stable_repeats": 2, "repeats": 2,
               "converged_iteration": list(conv), "rtos": [0, 1]}
        for rule, m in means.items()}}


def test_rows_put_each_rule_beside_cubic_and_a_lone_job():
    cfg = {"rate_mbit": 1000, "rtt_ms": 0.2,
           "jobs": [{"name": "job1", "bytes": 2391017, "compute_ms": 30}]}
    points = [("p-solo", cfg, summary({"cubic": 52.0}), None),
              ("p", dict(cfg, jobs=cfg["jobs"] * 2), summary({"cubic": 60.0, "md": 55.0}), None)]
    rows = {r["rule"]: r for r in regime.rows(points)}
    assert set(rows) == {"cubic", "md"}
    md = rows["md"]
    assert md["rtts"] == pytest.approx(100, rel=1e-3)
    assert md["efficiency"] == pytest.approx(50 / 55)
    assert md["x_solo"] == pytest.approx(55 / 52)
    assert md["attained"] == pytest.approx(0.5)
    assert md["convergence"] == 1.5 and md["rtos"] == 1
    assert rows["cubic"]["attained"] is None


class PathPoint:
    """A point directory with no raw logs."""

    def __init__(self, path):
        self.path = path

    def repeats(self, rule):
        return []


def test_a_rule_run_later_is_set_beside_cubic_of_the_same_point_and_marked():
    cfg = {"format": 1, "rate_mbit": 1000, "rtt_ms": 0.2, "repeats": 2, "commit": "aaa",
           "algorithms": [{"name": "cubic"}],
           "jobs": [{"name": "job1", "bytes": 2391017, "compute_ms": 30}]}
    # A later run: another commit and its rules, a format-0 configuration
    # (no "format"), the same two repeats written as a part would write them.
    later = {k: v for k, v in cfg.items() if k != "format"}
    later.update(commit="bbb", first_repeat=0, algorithms=[{"name": "reno"}, {"name": "md"}])
    points = [("p", cfg, summary({"cubic": 70.0}), PathPoint("old/p")),
              ("p", dict(cfg, commit="abc"), summary({"cubic": 60.0}), PathPoint("first/p")),
              ("p", later, summary({"reno": 55.0, "md": 57.5}), PathPoint("later/p")),
              # Other repeats start elsewhere; another point is not this one;
              # nor is one analyzed against another ideal.
              ("p", dict(later, first_repeat=2), summary({"ai": 55.0}), PathPoint("other/p")),
              ("q", later, summary({"ai": 55.0}), PathPoint("later/q")),
              ("p", later, summary({"dctcp": 55.0}, ideal=40.0), PathPoint("re/p"))]
    rows = {(r["point"], r["rule"], r["source"].path): r for r in regime.rows(points)}
    reno, md = rows[("p", "reno", "later/p")], rows[("p", "md", "later/p")]
    # The last cubic given of the point.
    assert reno["attained"] == pytest.approx(0.5) and md["attained"] == pytest.approx(0.25)
    assert reno["cubic_from"][0].path == "first/p" and reno["cubic_from"][1] == "abc"
    assert rows[("p", "ai", "other/p")]["attained"] is None
    assert rows[("q", "ai", "later/q")]["attained"] is None
    assert rows[("p", "dctcp", "re/p")]["attained"] is None
    assert rows[("p", "cubic", "first/p")]["cubic_from"] is None
    lines = regime.table(points).splitlines()
    assert sum("| 0.50* |" in line or "| 0.25* |" in line for line in lines) == 2
    assert not any("*" in line for line in lines if "| ai |" in line or "| dctcp |" in line)
    # One note, a paragraph of its own.
    assert lines[-2:] == ["", "\\* p: attained against cubic of another run of the point, "
                                "first/p (at abc)"]
    assert sum("attained against" in line for line in lines) == 1


def test_same_point_compares_the_repeats_run_not_how_they_are_written():
    cfg = {"rate_mbit": 1000, "repeats": 10, "jobs": []}
    assert regime.same_point(cfg, dict(cfg, first_repeat=0, format=1, commit="x"))
    assert not regime.same_point(cfg, dict(cfg, first_repeat=5, repeats=5))
    assert not regime.same_point(cfg, dict(cfg, rate_mbit=100))


class FakeRepeat:
    def __init__(self, recs):
        self.records = recs

    def window_trace(self, job, rank):
        return None


class FakePoint:
    def __init__(self, repeats):
        self._repeats = repeats

    def repeats(self, rule):
        return self._repeats


def test_drift_is_the_mean_change_while_overlapping_and_diffusion_the_spread_outside():
    # 2 jobs, fraction 0.4 of a 50 ms period (compute 30 ms, 20 ms of bytes).
    cfg = {"rate_mbit": 1000, "rtt_ms": 0.2,
           "jobs": [{"name": "job%d" % j, "bytes": 2391017, "compute_ms": 30}
                    for j in (1, 2)]}
    period, comm = regime.ideal_period(cfg)
    first = [1.0 + i * period for i in range(6)]
    # D / T: 0.1, 0.2 (overlapping), then 0.45, 0.41, 0.45, 0.41 (apart).
    dist = (0.1, 0.2, 0.45, 0.41, 0.45, 0.41)
    second = [c + d * period for c, d in zip(first, dist)]
    point = FakePoint([FakeRepeat(records("job1", first) + records("job2", second))])
    drift, diffusion = regime.drift_diffusion(point, "md", cfg)
    assert comm / period == pytest.approx(0.4, rel=1e-3)
    # Inside (D < 0.4): changes +0.1 and +0.25; outside: -0.04, +0.04, -0.04.
    assert drift == pytest.approx((0.1 + 0.25) / 2)
    assert diffusion == pytest.approx(statistics.pstdev([-0.04, 0.04, -0.04]))
    assert regime.drift_diffusion(None, "md", cfg) == (None, None)


def test_load_takes_a_point_directory_as_bench_run_config_makes_it(tmp_path):
    from bench import rundir
    cfg = {"name": "p", "rate_mbit": 1000, "rtt_ms": 0.2,
           "jobs": [{"name": "job1", "bytes": 2391017, "compute_ms": 30}]}
    point = rundir.Point(str(tmp_path / "p"))
    point.write_config(cfg)
    point.write_summary(summary({"cubic": 52.0}))
    [(name, got_cfg, got, got_point)] = regime.load([point.path])
    assert name == "p" and got_cfg["jobs"] == cfg["jobs"]
    assert got["algorithms"]["cubic"]["mean_iter_ms"] == 52.0
    assert got_point.path == point.path


def two_job_cfg(algorithms):
    return {"rate_mbit": 1000, "rtt_ms": 0.2, "algorithms": algorithms,
            "default_params": {"slope": "1.6", "intercept": "0.2"},
            "jobs": [{"name": "job%d" % j, "bytes": 2391017, "compute_ms": 30}
                     for j in (1, 2)]}


def test_the_shift_table_bins_the_measured_shifts_beside_the_rules_model():
    cfg = two_job_cfg([{"name": "cubic", "cc": "cubic"},
                       {"name": "ai", "cc": "mltcp", "params": {"mode": "ai"}}])
    period, _ = regime.ideal_period(cfg)
    first = [1.0 + i * period for i in range(4)]
    # D / T: 0.11, 0.12, 0.32, 0.30. The shifts +0.01 (from 0.11) and +0.20
    # (from 0.12) fall in the bin 0.10-0.15, -0.02 (from 0.32) in 0.30-0.35.
    second = [c + d * period for c, d in zip(first, (0.11, 0.12, 0.32, 0.30))]
    point = FakePoint([FakeRepeat(records("job1", first) + records("job2", second))])
    rows = {(r["rule"], round(r["d"], 2)): r
            for r in regime.shift_rows([("p", cfg, None, point)])}
    assert set(rows) == {("cubic", 0.10), ("cubic", 0.30), ("ai", 0.10), ("ai", 0.30)}
    ai = rows[("ai", 0.10)]
    assert ai["n"] == 2 and ai["shift"] == pytest.approx((0.01 + 0.20) / 2)
    assert ai["model"] == pytest.approx(regime.fluid_shift(0.125, 0.4, 1.6, 0.2), rel=1e-3)
    assert rows[("ai", 0.30)]["shift"] == pytest.approx(-0.02)
    assert rows[("cubic", 0.10)]["model"] is None
    assert "| p | ai | 0.10-0.15 | +0.1050 | 2 | +0.1" in regime.shift_table(
        [("p", cfg, None, point)])


class TracedRepeat(FakeRepeat):
    def __init__(self, recs, traces, reverse=None):
        super().__init__(recs)
        self.traces = {0: traces, 1: reverse or {}}

    def window_trace(self, job, rank):
        return self.traces[rank].get(job)


def test_the_contest_counts_recoveries_and_timeouts_by_who_started_first():
    cfg = two_job_cfg([{"name": "ai", "cc": "mltcp"}])
    # Phases of 20 ms. job2 leads job1 by 10 ms in iterations 0 and 1 (10 ms
    # overlaps). job1's iteration 2 (1.170-1.190) is 70 ms after job2's and
    # meets job2's iteration 3 (1.180-1.200) instead, led by job1: phases
    # pair by their intervals, not their iteration numbers.
    recs = [dict(r, rank=rank) for rank in (0, 1)
            for r in (records("job1", [1.010, 1.060, 1.170]) +
                      records("job2", [1.000, 1.050, 1.100, 1.180]))]

    def line(t, state):
        return {"t": t, "cwnd": 10, "ssthresh": 10, "state": state}
    traces = {
        "job2": [line(1.005, "CA_RECOVERY"),  # entered before the overlap
                 line(1.011, "CA_RECOVERY"),  # still in it: no entry
                 line(1.012, "CA_LOSS"),  # an RTO ending a recovery
                 line(1.016, "CA_OPEN"),
                 line(1.062, "CA_RECOVERY"), line(1.063, "CA_OPEN"),
                 line(1.110, "CA_RECOVERY"), line(1.111, "CA_OPEN"),  # no overlap
                 line(1.182, "CA_LOSS"), line(1.184, "CA_OPEN")],  # an RTO from Open
        "job1": [line(1.061, "CA_DISORDER"), line(1.064, "CA_RECOVERY"),
                 line(1.065, "CA_RECOVERY"), line(1.066, "CA_OPEN"),
                 line(1.185, "CA_DISORDER"), line(1.186, "CA_LOSS"),  # from Disorder
                 line(1.187, "CA_OPEN"),
                 line(1.188, "CA_CWR"), line(1.189, "CA_OPEN")],  # an ECN cut
    }
    point = FakePoint([TracedRepeat(recs, traces)] * 2)
    [row] = regime.contest_rows([("p", cfg, None, point)])
    assert row["repeats"] == 2 and row["overlapped"] == 6
    assert row["overlap_ms"] == pytest.approx(60)
    e = row["entries"]
    # Leaders: job2's recovery at 1.062, its RTO at 1.012 (from Recovery),
    # job1's at 1.186 (from Disorder); followers: job1's recovery at 1.064,
    # job2's RTO at 1.182 (from Open); job1's ECN cut at 1.188, leading.
    # Twice.
    keys = ("CA_CWR", "CA_RECOVERY", "CA_LOSS", regime.RTO_FROM_RECOVERY)
    assert [e[("leader", k)] for k in keys] == [2, 2, 4, 2]
    assert [e[("follower", k)] for k in keys] == [0, 2, 2, 0]
    # Every line's window is 10 segments: no leader's is the larger.
    assert row["mean_window"] == {"leader": pytest.approx(10), "follower": pytest.approx(10)}
    assert row["leader_larger"] == 0
    assert "| p | ai | rank 0, left to right | 2 | 6 | 60 | 2, 2, 4 (2) | 0, 2, 2 (0) " \
        "| 10.0 / 10.0 | 0 |" in regime.contest_table([("p", cfg, None, point)])
    # Without traces there is no row.
    assert regime.contest_rows([("p", cfg, None, FakePoint([FakeRepeat(recs)]))]) == []
    # The exchange's other direction: the same phases, rank 1's senders. Its
    # leader job2 (at 1.000) is cut for ECN once in the first overlap.
    reverse = {"job1": [line(1.0, "CA_OPEN")],
               "job2": [line(1.001, "CA_CWR"), line(1.002, "CA_OPEN")]}
    point = FakePoint([TracedRepeat(recs, traces, reverse)])
    forward, back = regime.contest_rows([("p", cfg, None, point)])
    assert (forward["sender"], back["sender"]) == (0, 1)
    assert back["overlapped"] == forward["overlapped"] == 3
    assert [back["entries"][("leader", k)] for k in keys] == [0, 0, 0, 0]
    reverse["job2"] = [line(1.012, "CA_CWR"), line(1.013, "CA_OPEN")]  # in 1.010-1.020
    assert [regime.contest_rows([("p", cfg, None, point)])[1]["entries"][("leader", k)]
            for k in keys] == [1, 0, 0, 0]
    # The window in force counts from where the overlap starts: job2's 40
    # from 1.012 to 1.016 and 10 after, over job2-led overlaps 1.010-1.020
    # and 1.060-1.070 (20 ms), led by job1 over 1.180-1.190 (10 ms).
    reverse["job2"] = [line(1.0, "CA_OPEN"), dict(line(1.012, "CA_OPEN"), cwnd=40),
                       line(1.016, "CA_OPEN")]
    back = regime.contest_rows([("p", cfg, None, point)])[1]
    leader = (10 * 0.002 + 40 * 0.004 + 10 * 0.004 + 10 * 0.010 + 10 * 0.010) / 0.030
    assert back["mean_window"] == {"leader": pytest.approx(leader),
                                   "follower": pytest.approx(10)}
    assert back["leader_larger"] == 1
    # Pushing jobs send from rank 0 only: no row for rank 1's receivers,
    # nor where one job pushes and the other exchanges.
    cfg["jobs"][0]["collective"] = "push"
    assert [r["sender"] for r in regime.contest_rows([("p", cfg, None, point)])] == [0]
    cfg["jobs"][1]["collective"] = "push"
    assert [r["sender"] for r in regime.contest_rows([("p", cfg, None, point)])] == [0]


def test_the_shift_tables_bins_keep_their_edges_and_the_farthest_distance():
    cfg = two_job_cfg([{"name": "ai", "cc": "mltcp"}])
    period, _ = regime.ideal_period(cfg)
    first = [1.0 + i * period for i in range(3)]
    # D / T: 0.30 (on an edge: its own bin, 0.30-0.35), then 0.5 (the
    # largest distance: the last bin, 0.45-0.50), then 0.5 again.
    second = [c + d * period for c, d in zip(first, (0.30, 0.5, 0.5))]
    point = FakePoint([FakeRepeat(records("job1", first) + records("job2", second))])
    rows = {round(r["d"], 2): r for r in regime.shift_rows([("p", cfg, None, point)])}
    assert set(rows) == {0.30, 0.45}
    assert rows[0.30]["shift"] == pytest.approx(0.2) and rows[0.45]["shift"] == pytest.approx(0)


def test_the_contest_notes_the_leaders_window_and_f_and_the_followers_peak_as_they_meet():
    cfg = two_job_cfg([{"name": "cubic", "cc": "cubic"}, {"name": "ai", "cc": "mltcp"}])
    # job2 leads 1.000-1.020 against job1's 1.010-1.030, then job1 leads
    # 1.100-1.120 against job2's 1.110-1.130.
    recs = records("job1", [1.010, 1.100]) + records("job2", [1.000, 1.110])

    def line(t, cwnd, f):
        return {"t": t, "cwnd": cwnd, "ssthresh": None, "state": "CA_OPEN", "f": f}
    traces = {"job2": [line(1.000, 10, 0.2), line(1.008, 30, 0.6), line(1.114, 60, 0.3),
                       line(1.116, 20, 0.3)],
              "job1": [line(1.010, 10, 0.2), line(1.012, 70, 0.3), line(1.025, 10, 0.9),
                       line(1.104, 40, 1.1)]}
    c = regime.contest(TracedRepeat(recs, traces), ["job1", "job2"])
    # As they meet: job2 at 30 (F 0.6), job1 up to 70 in 1.010-1.020; then
    # job1 at 40 (F 1.1), job2 up to 60 in 1.110-1.120.
    assert c["arrivals"] == [(30, 0.6, 70), (40, 1.1, 60)]
    point = FakePoint([TracedRepeat(recs, traces)])
    rows = {r["rule"]: r for r in regime.contest_rows([("p", cfg, None, point)])}
    assert rows["ai"]["arrival"] == {"leader_window": 35, "leader_f": pytest.approx(0.85),
                                     "follower_peak": 65}
    # A base algorithm's trace carries F = 1, which is no rule's: not shown.
    assert rows["cubic"]["arrival"]["leader_f"] is None
    assert "| 35, 0.85; 65 |" in regime.contest_table([("p", cfg, None, point)])
    assert "| 35, -; 65 |" in regime.contest_table([("p", cfg, None, point)])


def test_each_direction_pairs_its_own_senders_phases():
    """In an exchange each worker starts sending when its own compute ends:
    rank 1's contest pairs rank 1's phases, whoever led on rank 0's side."""
    recs = (records("job1", [1.010]) + records("job2", [1.000]) +  # job2 leads rank 0's
            records("job1", [1.000], rank=1) + records("job2", [1.012], rank=1))

    def line(t, cwnd, f):
        return {"t": t, "cwnd": cwnd, "ssthresh": None, "state": "CA_OPEN", "f": f}
    forward = {"job1": [line(1.0, 5, 0.2)], "job2": [line(1.0, 7, 0.9)]}
    reverse = {"job1": [line(1.0, 11, 1.1)], "job2": [line(1.0, 13, 0.3)]}
    repeat = TracedRepeat(recs, forward, reverse)
    jobs = ["job1", "job2"]
    assert regime.contest(repeat, jobs, 0)["arrivals"] == [(7, 0.9, 5)]
    assert regime.contest(repeat, jobs, 1)["arrivals"] == [(11, 1.1, 13)]
    assert regime.contest(repeat, jobs, 1)["overlap_s"] == pytest.approx(0.008)
    # An empty trace is no trace.
    assert regime.contest(TracedRepeat(recs, dict(forward, job2=[])), jobs, 0) is None


def test_the_peak_counts_windows_held_for_some_time_inside_the_overlap():
    def line(t, cwnd):
        return {"t": t, "cwnd": cwnd}
    trace = [line(1.0, 10), line(1.2, 30), line(1.2, 50), line(1.2, 20), line(1.5, 90)]
    times = [x["t"] for x in trace]
    # 50 is replaced in the event that set it; 90 comes at the overlap's end.
    assert regime.peak_window(trace, times, 1.1, 1.5) == 20
    assert regime.peak_window(trace, times, 1.1, 1.6) == 90
    # The window in force at the start counts, before the trace's first line too.
    assert regime.peak_window(trace, times, 1.3, 1.4) == 20
    assert regime.peak_window(trace, times, 0.5, 0.9) == 10
    assert regime.window_area(trace, times, 1.1, 1.3) == pytest.approx(10 * 0.1 + 20 * 0.1)


def test_the_matrix_gives_a_row_per_point_and_a_column_per_rule():
    cfg = {"rate_mbit": 1000, "rtt_ms": 0.2,
           "jobs": [{"name": "job1", "bytes": 2391017, "compute_ms": 30}] * 2}
    points = [("p2", cfg, summary({"md": 62.5, "ai": 50.0}), PathPoint("a/p2")),
              ("p16", cfg, summary({"cubic": 80.0}), PathPoint("a/p16")),
              ("p2", cfg, summary({"cubic": 100.0, "ai": 62.5}), PathPoint("b/p2")),
              # The same name, another network: a row of its own.
              ("p16", dict(cfg, rate_mbit=100), summary({"cubic": 50.0}), PathPoint("c/p16"))]
    assert regime.matrix_table(points).splitlines() == [
        "| point | cubic | md | ai |", "|---|---|---|---|",
        "| p2 | 0.500 (2/2) | 0.800 (2/2) | 0.800 (2/2) |",
        "| p16 (a/p16) | 0.625 (2/2) | - | - |",
        "| p16 (c/p16) | 1.000 (2/2) | - | - |"]


def test_names_sort_with_their_numbers_as_numbers():
    names = ["dc16-a", "dc2-sync", "dc10x10", "dc2", "dc10x2", "dc2-a"]
    assert sorted(names, key=regime.natural_key) == [
        "dc2", "dc2-a", "dc2-sync", "dc10x2", "dc10x10", "dc16-a"]


class LinksRepeat:
    def __init__(self, links):
        self.meta = {"links": links}


def placement_point(links_in_summary):
    # Six jobs of fraction 0.4 (50 ms ideal): j1-j3 share leaf0>spine0, a sum
    # of 1.2, so while all three run they cannot average under 1.2 x 50 ms;
    # j4 and j5 share leaf1>spine0 (0.8); j6 shares no link.
    job = {"bytes": 2391017, "compute_ms": 30}
    names = ("j1", "j2", "j3", "j4", "j5", "j6")
    cfg = {"rate_mbit": 1000, "rtt_ms": 0.2, "topology": {"kind": "leaf-spine"},
           "algorithms": [{"name": "cubic"}], "jobs": [dict(job, name=n) for n in names]}
    links = {"leaf0>spine0": ["j1", "j2", "j3"], "leaf1>spine0": ["j4", "j5"],
             "leaf2>h9": ["j6"]}
    links.update({"leaf0>h%d" % i: [n] for i, n in enumerate(names)})
    per_job = {"j1": 60.0, "j2": 70.0, "j3": 80.0, "j4": 55.0, "j5": 65.0, "j6": 50.0}
    summ = {"algorithms": {"cubic": {"jobs": {
        n: {"mean_iter_ms": m, "ideal_iter_ms": 50.0} for n, m in per_job.items()}}}}
    if links_in_summary:
        return cfg, dict(summ, links=links), FakePoint([])
    return cfg, summ, FakePoint([LinksRepeat(links)])


@pytest.mark.parametrize("links_in_summary", [True, False])
def test_the_placement_table_sets_jobs_over_a_links_capacity_against_its_bound(
        links_in_summary):
    cfg, summ, point = placement_point(links_in_summary)
    (row,) = regime.placement_rows([("p", cfg, summ, point)])
    assert (row["busiest"], row["tied"]) == ("leaf0>spine0", 0)
    assert row["busiest_load"] == pytest.approx(1.2, rel=1e-3)
    assert (row["alone"], row["within"], row["over"], row["on_busiest"]) == (1, 2, 3, 3)
    assert row["alone_efficiency"] == pytest.approx(1.0)
    assert row["within_efficiency"] == pytest.approx(100 / 120)
    assert row["over_efficiency"] == pytest.approx(150 / 210)
    assert row["busiest_x_bound"] == pytest.approx(210 / (1.2 * 150), rel=1e-3)


def test_a_busiest_link_within_capacity_bounds_its_jobs_at_the_ideal():
    cfg, summ, point = placement_point(True)
    del summ["links"]["leaf0>spine0"]
    (row,) = regime.placement_rows([("p", cfg, summ, point)])
    # leaf1>spine0 (0.8) is the busiest now; j1-j3 share nothing.
    assert row["busiest"] == "leaf1>spine0" and row["over"] == 0 and row["alone"] == 4
    assert row["busiest_x_bound"] == pytest.approx(120 / 100)


def test_tied_busiest_links_are_named_by_the_first_and_counted():
    cfg, summ, point = placement_point(True)
    summ["links"]["leaf0>spine1"] = ["j4", "j5", "j6"]
    summ["links"]["leaf0>spine0"] = ["j1", "j2"]
    (row,) = regime.placement_rows([("p", cfg, summ, point)])
    assert (row["busiest"], row["tied"]) == ("leaf0>spine1", 0)
    summ["links"]["leaf0>spine0"] = ["j1", "j2", "j3"]
    (row,) = regime.placement_rows([("p", cfg, summ, point)])
    assert (row["busiest"], row["tied"]) == ("leaf0>spine0", 1)


def test_points_off_the_fabric_or_without_links_have_no_placement_row():
    cfg, summ, point = placement_point(False)
    dumbbell = {k: v for k, v in cfg.items() if k != "topology"}
    assert regime.placement_rows([("d", dumbbell, summ, point)]) == []
    assert regime.placement_rows([("p", cfg, summ, FakePoint([]))]) == []
