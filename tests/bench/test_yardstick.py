# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench.yardstick: the set's points, and the table on summaries with known answers."""
import json

import pytest

from bench import cli, matrix, metrics, progress, rundir, yardstick


def names(cfgs):
    return [cfg["name"] for cfg in cfgs]


def rules(cfg):
    return [a["name"] for a in cfg["algorithms"]]


def test_the_yardstick_is_registered_with_its_quick_subset():
    assert matrix.SETS["yardstick"]() == yardstick.yardstick()
    assert matrix.SETS["yardstick-quick"]() == yardstick.yardstick_quick()


def test_the_yardstick_has_the_points_of_issue_37_that_the_bench_can_express():
    cfgs = yardstick.yardstick()
    sim = [c for c in cfgs if c["name"].startswith("yard-sim-")]
    cluster = [c for c in cfgs if c["name"].startswith("yard-cluster16-")]
    host = [c for c in cfgs if c["name"].startswith("yard-host-")
            and not c["name"].startswith("yard-host-torch-")]
    torch = [c for c in cfgs if c["name"].startswith("yard-host-torch-")]
    # 4 job counts x 2 starts x 2 ports, the mix on both ports from both
    # starts, the incompatible point, two patterns; two placements; 3 host
    # points x 2, the lossy pair and the NCCL pair; 4 DDP points.
    assert (len(sim), len(cluster), len(host), len(torch)) == (23, 2, 8, 4)
    assert len(cfgs) == 37
    assert len(set(names(cfgs))) == len(cfgs)
    assert all(c["repeats"] == 10 for c in sim)
    assert all(c["repeats"] == 3 for c in cluster)
    assert all(c["repeats"] == 5 for c in host)
    assert {c["backend"] for c in sim + cluster} == {"ns-3"}
    assert {c["backend"] for c in host} == {"bpf"}
    for count in (2, 3, 4, 8):
        for start in ("sync", "random"):
            for port in ("droptail", "ecn"):
                cfg = next(c for c in sim if c["name"] == "yard-sim-%djobs-%s-%s"
                           % (count, start, port))
                assert len(cfg["jobs"]) == count
                assert cfg.get("start") == ("random" if start == "random" else "given")
                assert ("ecn_mark_bytes" in cfg) == (port == "ecn")


def fractions(cfg):
    return [metrics.ideal_iteration(j["compute_ms"] / 1e3, j["bytes"], cfg["rate_mbit"] * 1e6)
            for j in cfg["jobs"]]


def test_the_mix_is_heterogeneous_and_the_incompatible_point_sums_to_1_2():
    cfgs = {c["name"]: c for c in yardstick.yardstick()}
    mix = cfgs["yard-sim-mix4-random-ecn"]
    ideal = fractions(mix)
    shares = [comm / period for period, comm in ideal]
    assert min(shares) == pytest.approx(0.1) and max(shares) == pytest.approx(0.35)
    assert sum(shares) == pytest.approx(0.8)
    periods = [period for period, _ in ideal]
    assert max(periods) / min(periods) == pytest.approx(1.5)
    over = cfgs["yard-sim-3x0.4-over-random-ecn"]
    assert sum(comm / period for period, comm in fractions(over)) == pytest.approx(1.2)
    assert cfgs["yard-cluster16-compatible"]["topology"]["kind"] == "leaf-spine"
    assert len(cfgs["yard-cluster16-over"]["jobs"]) == 16


def test_every_point_has_the_baselines_and_dctcp_exactly_where_the_port_marks():
    for cfg in yardstick.yardstick():
        # Real DDP's are issue 38's (test_ddp_points_...).
        assert {"cubic", "md-restart"} <= set(rules(cfg))
        assert ("ai" in rules(cfg)) == ("torch" not in cfg["name"]), cfg["name"]
        assert ("dctcp" in rules(cfg)) == ("ecn_mark_bytes" in cfg)
        restart = next(a for a in cfg["algorithms"] if a["name"] == "md-restart")
        # Today's default as it ships.
        assert restart["params"] == {"slope": matrix.DEFAULT_PARAMS["slope"],
                                     "intercept": matrix.DEFAULT_PARAMS["intercept"],
                                     "mode": "md-restart"}


def test_the_quick_subset_is_a_subset_and_its_estimate_is_under_15_minutes():
    full = {c["name"]: c for c in yardstick.yardstick()}
    quick = yardstick.yardstick_quick()
    assert quick and set(names(quick)) <= set(full)
    for cfg in quick:
        same = ("iterations", "repeats", "algorithms")
        assert {k: v for k, v in cfg.items() if k not in same} == \
            {k: v for k, v in full[cfg["name"]].items() if k not in same}
        # Every rule but the controls, as the full set has it.
        assert cfg["algorithms"] == [a for a in full[cfg["name"]]["algorithms"]
                                     if a["name"] not in ("prio-k1", "prio-static")]
        assert {"cubic", "ai", "md-restart", "prio", "oracle"} <= set(rules(cfg))
    assert sum(progress.estimate_s(c) for c in quick) < 15 * 60


def test_random_starts_are_seeded_apart_from_the_points_name():
    from bench import driver
    random_points = [c for c in yardstick.yardstick() if c.get("start") == "random"]
    assert len(random_points) == 15  # 8 + the mix 2 + over 1 + host 2 + the patterns 2
    for cfg in random_points:
        assert isinstance(cfg["start_seed"], str), cfg["name"]
        # The seed is the name the point had when the key came: the starts
        # committed runs drew are drawn again (a pattern point's, its burst
        # point's: the same starts) ...
        burst = cfg["name"].replace("-ddp", "").replace("-nccl4", "")
        assert cfg["start_seed"] == burst
        # ... and a renamed point keeps them.
        renamed = dict(cfg, name="renamed")
        assert driver.start_offsets(renamed, 1) == driver.start_offsets(cfg, 1)
    assert all("start_seed" not in c for c in yardstick.yardstick() if c.get("start") != "random")


def test_every_host_point_runs_through_the_emulated_switch_with_the_prio_rules():
    host = {c["name"]: c for c in yardstick.yardstick()
            if c["backend"] == "bpf" and "torch" not in c["name"]}
    for cfg in host.values():
        assert cfg["shaper"] == "prio", cfg["name"]
        assert {"cubic", "ai", "md-restart", "prio", "prio-k2", "prio-only", "prio-k1"} <= \
            set(rules(cfg))
        prio = {a["name"]: a["params"] for a in cfg["algorithms"] if "params" in a}
        assert {name: p.get("prio") for name, p in prio.items() if p.get("prio")} == {
            "prio": 4, "prio-k2": 2, "prio-only": 4, "prio-k1": 1, "prio-marked": 4}
        # prio is today's default line with priority; prio-only the neutral line.
        assert prio["prio"] == dict(prio["md-restart"], prio=4)
        # prio-marked is prio with its jobs marking their iterations, and
        # the only marked rule of a trainsim point.
        assert prio["prio-marked"] == prio["prio"]
        assert [a["name"] for a in cfg["algorithms"] if a.get("marked")] == ["prio-marked"]
        assert (prio["prio-only"]["slope"], prio["prio-only"]["intercept"]) == ("0", "1")
        # "acksfirst": every host marks its ACKs EF for every rule.
        assert (cfg.get("ack_priority") == "dscp") == ("acksfirst" in cfg["name"])
    lossy = host["yard-host-pair-acksfirst-loss1"]
    assert lossy["loss_pct"] == 1
    assert {k: v for k, v in lossy.items() if k not in ("name", "loss_pct")} == \
        {k: v for k, v in host["yard-host-pair-acksfirst"].items() if k != "name"}
    assert sum("loss_pct" in c for c in host.values()) == 1
    from bench import driver
    for cfg in host.values():
        # What the driver builds of them: refused before anything is built if not.
        shaping, _ = driver.bottleneck_shaping(cfg)
        assert shaping.shaper == "prio" and driver.uses_prio(cfg)
        assert driver.loss_percent(cfg) == cfg.get("loss_pct", 0)
    quick = {c["name"]: c for c in yardstick.yardstick_quick()}
    assert "prio" in rules(quick["yard-host-pair-fifo"])


def test_the_pattern_points_are_their_burst_points_sending_as_ddp_and_nccl():
    """Issue 38: the pattern points are the burst point's jobs, network and
    starts, only the jobs' pattern keys added, and the simulator and the
    driver's trainsim parse them (here: trainsim's --check)."""
    from bench import driver
    cfgs = {c["name"]: c for c in yardstick.yardstick()}
    for name, burst, keys in (
            ("yard-sim-2jobs-ddp-random-ecn", "yard-sim-2jobs-random-ecn", {"pattern": "ddp"}),
            ("yard-sim-2jobs-nccl4-random-ecn", "yard-sim-2jobs-random-ecn",
             {"pattern": "nccl", "sockets": 4}),
            ("yard-host-pair-nccl4-acksfirst", "yard-host-pair-acksfirst",
             {"pattern": "nccl", "sockets": 4})):
        cfg, base = cfgs[name], cfgs[burst]
        assert {k: v for k, v in cfg.items() if k not in ("name", "jobs")} == \
            {k: v for k, v in base.items() if k not in ("name", "jobs")}
        assert cfg["jobs"] == [dict(job, **keys) for job in base["jobs"]]
        assert all("pattern" not in job for job in base["jobs"])
        if cfg["backend"] == "bpf":
            driver.check_trainsim_jobs(cfg)


def test_repeats_given_replace_every_points():
    assert {c["repeats"] for c in yardstick.yardstick(repeats=2)} == {2}
    assert {c["repeats"] for c in yardstick.yardstick_quick(repeats=1)} == {1}


# --- the table ------------------------------------------------------------

def alg(per_repeat, p99, stable, conv, jobs=None):
    return {"repeats": len(per_repeat), "mean_iter_ms": sum(per_repeat) / len(per_repeat),
            "per_repeat_mean_iter_ms": per_repeat, "p99_iter_ms": p99,
            "stable_repeats": stable, "converged_iteration": conv,
            "jobs": jobs or {}}


def summary(ideal, algorithms, valid=True):
    return {"ideal_iter_ms": ideal, "ideal_valid": valid, "algorithms": algorithms}


def jobs(a, b):
    return {"job1": {"mean_iter_ms": a}, "job2": {"mean_iter_ms": b}}


def headroom_point():
    # Ideal 100 ms, cubic 150 (1.5x: headroom); "good" reaches 104 with
    # 9/10 stable and converges at 2; "half" takes half the headroom.
    return ("p-headroom", {"jobs": []}, summary(100, {
        "cubic": alg([150] * 10, 200, 0, [None] * 10, jobs(150, 150)),
        "good": alg([103, 104, 104, 105] + [104] * 6, 108, 9, [2] * 9 + [None],
                    jobs(100, 108)),
        "half": alg([125] * 10, 180, 3, [None] * 10, jobs(120, 165)),
    }), None)


def flat_point():
    # cubic at 1.1x the ideal: no headroom.
    return ("p-flat", {"jobs": []}, summary(100, {
        "cubic": alg([110] * 10, 130, 10, [1] * 10),
        "good": alg([102] * 10, 105, 10, [1] * 10),
    }), None)


def by_rule(rows, point):
    return {r["rule"]: r for r in rows if r["point"] == point}


def test_the_table_gives_efficiency_headroom_p99_and_the_worst_job():
    rows = yardstick.rows([headroom_point(), flat_point()])
    head = by_rule(rows, "p-headroom")
    assert head["good"]["efficiency"] == pytest.approx(100 / 104)
    assert head["good"]["efficiency_spread"] == pytest.approx([100 / 105, 100 / 103])
    assert head["good"]["headroom"] == pytest.approx((150 - 104) / 50)
    assert head["half"]["headroom"] == pytest.approx(0.5)
    assert head["cubic"]["headroom"] is None
    assert head["good"]["p99_ratio"] == pytest.approx(1.08)
    assert head["half"]["worst_job_x_cubic"] == pytest.approx(165 / 150)
    assert head["good"]["worst_job_x_cubic"] == pytest.approx(108 / 150)
    assert head["good"]["convergence"] == 2
    assert head["half"]["convergence"] is None
    flat = by_rule(rows, "p-flat")
    assert not flat["good"]["headroom_point"] and flat["good"]["headroom"] is None
    # cubic first in each point.
    assert [r["rule"] for r in rows][:1] == ["cubic"]


def test_p99_is_the_median_repeat_where_the_summary_keeps_each():
    name, cfg, summ, _ = headroom_point()
    summ["algorithms"]["good"]["per_repeat_p99_iter_ms"] = [104, 106, 120, None]
    head = by_rule(yardstick.rows([(name, cfg, summ, None)]), name)
    assert head["good"]["p99_ratio"] == pytest.approx(1.06)
    assert head["good"]["p99_spread"] == pytest.approx([1.04, 1.20])
    assert head["half"]["p99_spread"] is None
    assert head["good"]["late_p99_ratio"] is None  # a summary from before it


def test_p99_past_settling_is_its_own_column_and_counts_toward_no_target():
    name, cfg, summ, _ = headroom_point()
    good = summ["algorithms"]["good"]
    good["per_repeat_p99_iter_ms"] = [130, 140, 150]
    good["per_repeat_p99_past_settling_iter_ms"] = [104, 106, None, 108]
    rows = yardstick.rows([(name, cfg, summ, None)])
    head = by_rule(rows, name)
    assert head["good"]["late_p99_ratio"] == pytest.approx(1.06)
    assert head["good"]["late_p99_spread"] == pytest.approx([1.04, 1.08])
    assert "| 1.400 (1.300-1.500) | 1.060 (1.040-1.080) |" in yardstick.render(
        [(name, cfg, summ, None)])
    # The target is the p99 of all iterations: 1.40 misses it.
    assert yardstick.target_counts(rows)["good"]["p99"] == 0


def test_the_targets_count_only_headroom_points_with_a_reachable_ideal():
    over = ("p-over", {"jobs": []}, summary(100, {
        "cubic": alg([200] * 10, 300, 0, [None] * 10),
        "good": alg([101] * 10, 102, 10, [1] * 10)}, valid=False), None)
    counts = yardstick.target_counts(yardstick.rows([headroom_point(), flat_point(), over]))
    assert counts["good"] == {"points": 1, "mean": 1, "headroom": 1, "p99": 1, "stable": 1,
                              "convergence": 1, "all": 1}
    assert counts["half"] == {"points": 1, "mean": 0, "headroom": 0, "p99": 0, "stable": 0,
                              "convergence": 0, "all": 0}
    assert "cubic" not in counts


def test_text_and_json_print_the_same_table():
    points = [headroom_point(), flat_point()]
    text = yardstick.render(points)
    assert "| p-flat | 1.100 | good | 10 | 0.980 (0.980-0.980) | - |" in text
    # No per-repeat p99s in these summaries: the repeats' mean, and said so.
    assert "| p-headroom | 1.500 | half | 10 | 0.800 (0.800-0.800) | 0.50 | 1.800 (mean) | - " \
        "| 1.100 | 3/10 | - |" in text
    assert "p99 marked (mean): the mean of the repeats' p99s" in text
    assert "good: 1 headroom points;" in text and "all: 1" in text
    doc = json.loads(yardstick.render(points, as_json=True))
    assert doc["targets"]["good"]["all"] == 1
    assert len(doc["rows"]) == 5


def test_the_command_reads_a_point_directory(tmp_path, capsys):
    name, cfg, summ, _ = headroom_point()
    point = rundir.Point(str(tmp_path / "p"))
    point.write_config(dict(cfg, name=name))
    point.write_summary(summ)
    assert cli.main(["yardstick-table", "-j", point.path]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["targets"]["good"]["headroom"] == 1


def point_cfg(name, fractions=(0.4, 0.4), periods=(200, 200), **extra):
    jobs = [matrix.job_for_fraction("job%d" % (i + 1), f, p, 200)
            for i, (f, p) in enumerate(zip(fractions, periods))]
    return dict({"name": name, "rate_mbit": 200, "rtt_ms": 0, "buffer_bytes": 262144,
                 "iterations": 100, "repeats": 10, "jobs": jobs,
                 "algorithms": []}, **extra)


def test_a_point_in_two_result_dirs_is_counted_once():
    """A later run of the same point (other rules) adds its rules to the
    point's rows; the targets count the point once."""
    name, _, first, _ = headroom_point()
    cfg = point_cfg(name)
    later = summary(100, {"good": alg([110] * 10, 130, 2, [None] * 10, jobs(110, 110)),
                          "prio": alg([101] * 10, 104, 10, [1] * 10, jobs(101, 101))})
    rows = yardstick.rows([(name, cfg, first, None), (name, dict(cfg, commit="x"), later, None)])
    assert [r["rule"] for r in rows] == ["cubic", "good", "half", "prio"]
    # The later run's "good" replaces the earlier's; cubic is the first run's.
    head = by_rule(rows, name)
    assert head["good"]["mean_ms"] == 110 and head["prio"]["headroom"] == pytest.approx(0.98)
    counts = yardstick.target_counts(rows)
    assert counts["good"]["points"] == 1 and counts["prio"]["all"] == 1
    # Another network under the same name is another point.
    other = yardstick.rows([(name, cfg, first, None),
                            (name, dict(cfg, buffer_bytes=131072), later, None)])
    assert len(other) == 5


def test_rows_with_worker_failures_are_marked_and_count_nowhere():
    name, _, summ, _ = headroom_point()
    summ["algorithms"]["good"]["failures"] = ["job1 rank 0 timed out"]
    cfg = point_cfg(name)
    rows = yardstick.rows([(name, cfg, summ, None)])
    assert by_rule(rows, name)["good"]["failures"] == 1
    assert "good" not in yardstick.target_counts(rows)
    text = yardstick.render([(name, cfg, summ, None)])
    assert "| good (EXCLUDED: 1 worker failure) |" in text
    # A run without failures of the same point given later replaces the row.
    clean = summary(100, {"good": alg([104] * 10, 108, 9, [2] * 10)})
    rows = yardstick.rows([(name, cfg, summ, None), (name, cfg, clean, None)])
    assert by_rule(rows, name)["good"]["failures"] == 0
    # ... but a failed later run does not replace a clean one.
    rows = yardstick.rows([(name, cfg, clean, None), (name, cfg, summ, None)])
    assert by_rule(rows, name)["good"]["failures"] == 0
    # A failed cubic is no reference: no headroom at its point.
    summ["algorithms"]["cubic"]["failures"] = ["job2 rank 1 timed out"]
    rows = yardstick.rows([(name, cfg, summ, None)])
    assert all(r["headroom"] is None for r in rows)


def test_a_mix_of_periods_that_are_not_multiples_is_not_counted_reachable():
    cfgs = {c["name"]: c for c in yardstick.yardstick()}
    mix = cfgs["yard-sim-mix4-random-ecn"]
    reach = metrics.fixed_interleaving(mix, 0.8)
    assert not reach["reachable"] and "not multiples" in reach["why"]
    # Periods 25, 30, 37.5 and 25 ms, phases summing to 22.875: all at 37.5 ms.
    assert reach["common_period_ms"] == pytest.approx(37.5, rel=1e-6)
    assert metrics.fixed_interleaving(cfgs["yard-sim-2jobs-random-ecn"], 0.8)["reachable"]
    assert "multiples of each other" in metrics.fixed_interleaving(
        point_cfg("m", (0.2, 0.2), (100, 200)), 0.4)["why"]
    assert "over 1" in metrics.fixed_interleaving(cfgs["yard-sim-3x0.4-over-random-ecn"],
                                                 1.2)["why"]
    # In the table: a headroom point otherwise, marked and left out of the counts.
    name, _, summ, _ = headroom_point()
    rows = yardstick.rows([(name, dict(mix, name=name), summ, None)])
    assert not any(r["ideal_reachable"] for r in rows)
    assert yardstick.target_counts(rows) == {}
    text = yardstick.render([(name, dict(mix, name=name), summ, None)])
    assert "| p-headroom (no fixed interleaving) |" in text
    assert "no fixed interleaving reaches the ideal; the ideal (100.00 ms) is a lower bound" \
        in text


def test_the_lossy_and_incompatible_points_are_judged_against_cubic():
    """Where the ideal is no target (random loss, over 1, periods that
    differ) the issue's targets are cubic's mean and p99, and at most twice
    cubic's queue drops; such points count toward nothing else."""
    name, _, summ, _ = headroom_point()
    summ["algorithms"]["cubic"]["drops"] = [10, 10]
    summ["algorithms"]["good"]["drops"] = [15, 25]   # 20: twice cubic's, met
    summ["algorithms"]["half"]["drops"] = [30, 20]   # 25: over
    lossy = (name, point_cfg(name, loss_pct=1), summ, None)
    rows = yardstick.rows([lossy])
    assert all(r["lossy"] for r in rows) and yardstick.target_counts(rows) == {}
    guards = yardstick.guard_counts(rows)
    assert guards["good"] == {"points": 1, "mean": 1, "p99": 1, "drops": 1, "all": 1}
    assert guards["half"] == {"points": 1, "mean": 1, "p99": 1, "drops": 0, "all": 0}
    text = yardstick.render([lossy])
    assert "| p-headroom (random loss) |" in text
    assert "good: 1 points; mean no worse than cubic's 1; p99 no worse than cubic's 1; " \
        "queue drops at most twice cubic's 1; all: 1" in text
    # Slower than cubic, or a longer tail: not met. A reachable point: not guarded.
    summ["algorithms"]["good"]["per_repeat_mean_iter_ms"] = [151] * 10
    summ["algorithms"]["good"]["p99_iter_ms"] = 201
    assert yardstick.guard_counts(yardstick.rows([lossy]))["good"]["mean"] == 0
    assert yardstick.guard_counts(yardstick.rows([lossy]))["good"]["p99"] == 0
    assert yardstick.guard_counts(yardstick.rows([(name, point_cfg(name), summ, None)])) == {}
    doc = json.loads(yardstick.render([lossy], as_json=True))
    assert doc["guards"]["half"]["drops"] == 0 and "drops" in doc["guard_labels"]


def test_a_directory_that_is_no_result_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["yardstick-table", str(tmp_path)])
    assert "not a result set of bench run" in str(exit_.value)
    assert "\n" not in str(exit_.value)


def test_ddp_points_are_real_torch_jobs_with_the_rules_of_issue_38():
    torch = {c["name"]: c for c in yardstick.torch_points()}
    assert sorted(torch) == ["yard-host-torch-%s-acksfirst" % p
                             for p in ("buckets", "one-bucket", "overlap", "ring")]
    from bench import driver
    for cfg in torch.values():
        assert cfg["backend"] == "bpf" and cfg["shaper"] == "prio"
        assert cfg["ack_priority"] == "dscp"
        assert (cfg["repeats"], cfg["iterations"]) == (5, 20)
        assert all(j["workload"] == "torch" for j in cfg["jobs"]) and len(cfg["jobs"]) == 2
        algs = {a["name"]: a for a in cfg["algorithms"]}
        assert sorted(algs) == ["cubic", "md-restart", "md-restart-marked", "prio-marked"]
        assert not algs["md-restart"].get("marked")
        assert algs["md-restart-marked"]["marked"] and algs["prio-marked"]["marked"]
        assert algs["md-restart-marked"]["params"] == algs["md-restart"]["params"]
        assert algs["prio-marked"]["params"] == dict(algs["md-restart"]["params"], prio=4)
        # Every job keeps the guest point's fraction at the host's rate.
        ((period, comm),) = set(fractions(cfg))
        assert comm / period == pytest.approx(0.4)
        shaping, _ = driver.bottleneck_shaping(cfg)
        assert shaping.shaper == "prio"
    ring = torch["yard-host-torch-ring-acksfirst"]
    assert {j["ranks"] for j in ring["jobs"]} == {4}
    assert {j["bucket_mb"] for j in torch["yard-host-torch-buckets-acksfirst"]["jobs"]} == {1}
