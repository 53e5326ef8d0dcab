# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The ns-3 simulator end to end (issue 13): `python3 -m bench run --sim
sim-smoke` runs the smoke point in build/sim/mltcp-sim and the bench's own
analysis reads it, and mltcp-sim refuses what it cannot run.

The smoke point is the trivially compatible pair: two jobs of fraction 0.3,
the second offset by half the period, so that their phases never meet and
the fluid model puts every iteration at the ideal. Asserted: every worker
ran every iteration with the job's bytes each way; each sending flow's
detector counted every iteration start after the first and learned the
job's bytes exactly; the pair is interleaved from the first iteration and
stays so, within 10% of the ideal (measured 1.058x for cubic and 1.078x
for mltcp when this test was written: slow start at each phase and the
exchange's ACKs, which share each direction with the other's data)."""
import json
import os
import subprocess

import pytest

from bench import driver, matrix, metrics, oracle, paths, rundir
from testbed.paths import TRUST_ITERS

ITERATIONS = 20


def run_sim_smoke(out):
    return subprocess.run([paths.SYSTEM_PYTHON, "-m", "bench", "run", "--sim", "sim-smoke",
                           "--iterations", str(ITERATIONS), "--repeats", "1", "--out", out],
                          cwd=paths.TOP, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    assert os.access(paths.SIM, os.X_OK), "%s is not built (libns3-dev missing?)" % paths.SIM
    out = str(tmp_path_factory.mktemp("sim"))
    run = run_sim_smoke(out)
    assert run.returncode == 0, run.stdout + run.stderr
    return rundir.Point(os.path.join(out, "sim-smoke-sim"))


def test_every_worker_runs_every_iteration_with_the_jobs_bytes(smoke):
    cfg = smoke.config()
    assert cfg["backend"] == "ns-3"
    for alg in ("cubic", "mltcp"):
        (repeat,) = smoke.repeats(alg)
        for job in cfg["jobs"]:
            for rank in (0, 1):
                path = smoke.worker_log(alg, 0, job["name"], rank)
                with open(path) as f:
                    records = [json.loads(line) for line in f]
                steps = [r for r in records if r["type"] == "iteration"]
                assert [r["iteration"] for r in steps] == list(range(ITERATIONS)), path
                assert all(r["bytes_sent"] == r["bytes_received"] == job["bytes"]
                           for r in steps), path
                assert all(r["cc"] == alg for r in steps), path
                assert records[-1]["type"] == "summary", path
                assert records[-1]["status"] == "complete", path
        assert repeat.meta["failures"] == []


def test_the_detector_learns_every_iteration_and_its_bytes(smoke):
    cfg = smoke.config()
    for alg in ("cubic", "mltcp"):
        (repeat,) = smoke.repeats(alg)
        flows = repeat.meta["flows"]
        for j, job in enumerate(cfg["jobs"]):
            for host in ("L%d" % (j + 1), "R%d" % (j + 1)):
                (flow,) = flows[host]
                # The first iteration starts before anything was learned:
                # every later start is one.
                assert flow["iterations"] == ITERATIONS - 1, (alg, host, flow)
                assert flow["iter_bytes"] == job["bytes"], (alg, host, flow)
                assert flow["bytes_acked"] == ITERATIONS * job["bytes"], (alg, host, flow)


def test_the_compatible_pair_stays_interleaved_near_the_ideal(smoke):
    with open(smoke.file("summary.json")) as f:
        summary = json.load(f)
    for alg in ("cubic", "mltcp"):
        result = summary["algorithms"][alg]
        assert result["stable_repeats"] == 1, (alg, result)
        assert result["converged_iteration"] is not None and \
            result["converged_iteration"] <= 1, (alg, result)
        assert 1.0 <= result["ratio_to_ideal"] < 1.10, (alg, result)
        # mltcp's first restart comes once the size is trusted, at
        # iteration 1 + TRUST_ITERS, from a window cubic grew for three
        # iterations: its slow start to 3/4 of that overshoots this
        # drop-tail port, one RTO per job there (measured: 0.59 s against
        # 0.36 s for that iteration; none later).
        assert result["rtos"] == [0 if alg == "cubic" else 2], (alg, result)


def sim_refuses(tmp_path, cfg, *expected):
    point = rundir.Point(str(tmp_path / "point"))
    point.write_config(cfg)
    run = subprocess.run([paths.SIM, "--queue-limit", "37500", point.path],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    for word in expected:
        assert word in lines[0], run.stderr
    assert not os.path.exists(os.path.join(point.path, "raw")), "ran anyway"


def smoke_config():
    return matrix.in_sim(matrix.sim_smoke(iterations=2)[0])


def test_an_unknown_congestion_control_is_refused(tmp_path):
    cfg = smoke_config()
    cfg["algorithms"].append({"name": "fast", "cc": "bbr9"})
    sim_refuses(tmp_path, cfg, "fast", "bbr9", "mltcp-dcqcn")


def test_a_framework_workload_is_refused(tmp_path):
    cfg = smoke_config()
    cfg["jobs"][0]["workload"] = "torch"
    sim_refuses(tmp_path, cfg, "job1", "torch")


def test_an_unknown_parameter_is_refused(tmp_path):
    cfg = smoke_config()
    cfg["default_params"] = dict(cfg["default_params"], slope="lots")
    sim_refuses(tmp_path, cfg, "slope", "lots")


@pytest.mark.parametrize("first", [-1, 1.5, 1001, "1"])
def test_a_bad_first_repeat_is_refused(tmp_path, first):
    sim_refuses(tmp_path, dict(smoke_config(), first_repeat=first), "first_repeat")


@pytest.mark.parametrize("key", ["min_rto_ms", "delayed_ack_ms", "idle_rto_min_ms"])
@pytest.mark.parametrize("value", [0, -2, "2", 2e6])
def test_bad_tcp_timers_are_refused(tmp_path, key, value):
    sim_refuses(tmp_path, dict(smoke_config(), **{key: value}), key)


def test_bad_command_lines_are_refused(tmp_path):
    for argv in ([], ["--queue-limit", "0", str(tmp_path)], ["--queue-limit", "x", "y"]):
        run = subprocess.run([paths.SIM] + argv, capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr


def run_config(tmp_path, cfg, *options, out=None):
    """`python3 -m bench run --config` on cfg (with options); its point
    directory (out, or one named after cfg)."""
    config = tmp_path / (cfg["name"] + ".json")
    config.write_text(json.dumps(cfg))
    out = str(out or tmp_path / cfg["name"])
    run = subprocess.run([paths.SYSTEM_PYTHON, "-m", "bench", "run", "--config", str(config),
                          "--out", out] + list(options), cwd=paths.TOP, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return rundir.Point(out)


def test_an_ecn_point_marks_instead_of_dropping_and_starts_at_random(tmp_path):
    """A data-center style point (bench.matrix.sim_point): the bottleneck
    marks at 30 packets below a limit no window reaches, so every algorithm
    (the base, mltcp, ns-3's DCTCP) is held by marks alone: marks, no drops,
    no timeouts. Its random starts are drawn per repeat, the same for every
    algorithm, as bench.driver.start_offsets() draws them."""
    algorithms = [{"name": "cubic", "cc": "cubic"},
                  matrix.mltcp_alg("md-restart", "md-restart"),
                  {"name": "dctcp", "cc": "ns3-dctcp"}]
    jobs = matrix.identical_jobs(2, 0.4, 50, 1000, "push")
    cfg = matrix.sim_point("ecn-smoke", jobs, 1000, 0.1, 400000, 8, 2, algorithms,
                           ecn_mark_bytes=30 * 1514, start="random", **matrix.DC_TCP)
    point = run_config(tmp_path, cfg)
    for rep in range(2):
        offsets = driver.start_offsets(point.config(), rep)
        for alg in algorithms:
            repeat = point.repeats(alg["name"])[rep]
            marks = repeat.meta["marks"]["bottleneck"]
            assert marks["to-right"] > 0, (alg, rep, marks)
            assert repeat.meta["drops"]["bottleneck"] == {"to-right": 0, "to-left": 0}
            assert sum(repeat.meta["rtos"].values()) == 0, (alg, rep, repeat.meta["rtos"])
            assert repeat.meta["failures"] == []
            firsts = {}
            for rec in repeat.records:
                if rec["type"] == "iteration" and rec["iteration"] == 0 and rec["rank"] == 0:
                    firsts[rec["job"]] = rec["start"] - repeat.meta["start_at"]
            for job, offset_ms in offsets.items():
                assert firsts[job] == pytest.approx(offset_ms / 1e3, abs=2e-6), (alg, rep, job)
    assert driver.start_offsets(cfg, 0) != driver.start_offsets(cfg, 1)


def test_dcqcn_runs_on_a_ramp_marking_port_and_counts_its_cnps(tmp_path):
    """DCQCN (sim/tcp_dcqcn.h), plain and with MLTCP's F, on DCQCN's ramp
    (bench.matrix.DCQCN_RAMP, its top scaled to 50 kB, 400 us at 1 Gbit/s):
    every iteration and byte delivered, the ramp marks, each flow takes CNPs,
    and with no drop every rate cut is a CNP."""
    jobs = matrix.identical_jobs(2, 0.4, 50, 1000, "exchange")
    algorithms = [{"name": "dcqcn", "cc": "dcqcn"}, {"name": "mltcp-dcqcn", "cc": "mltcp-dcqcn"}]
    ramp = dict(matrix.DCQCN_RAMP, ecn_kmax_bytes=50000)
    cfg = matrix.sim_point("dcqcn-smoke", jobs, 1000, 0.1, 400000, 6, 1, algorithms, **ramp,
                           **matrix.DC_TCP)
    point = run_config(tmp_path, cfg)
    for alg in algorithms:
        (repeat,) = point.repeats(alg["name"])
        meta = repeat.meta
        assert meta["failures"] == []
        steps = [r for r in repeat.records if r["type"] == "iteration"]
        assert len(steps) == 6 * 2 * 2  # iterations x jobs x workers
        assert all(r["bytes_sent"] == r["bytes_received"] == jobs[0]["bytes"] and
                   r["cc"] == alg["cc"] for r in steps)
        assert meta["marks"]["bottleneck"]["to-right"] > 0, meta["marks"]
        assert meta["drops"]["bottleneck"] == {"to-right": 0, "to-left": 0}, meta["drops"]
        for host, (flow,) in meta["flows"].items():
            assert flow["ca"] == alg["cc"]
            # No drop at this port, so no loss cut: every cut is a CNP.
            assert flow["cnps"] > 0 and flow["rate_cuts"] == flow["cnps"], (alg, host, flow)
            assert flow["iterations"] == 5 and flow["iter_bytes"] == jobs[0]["bytes"]
    # mltcp-dcqcn scales the rate increase: mode "ai" whatever the point's default.
    (repeat,) = point.repeats("mltcp-dcqcn")
    assert cfg["default_params"]["mode"] == "md-restart"
    assert repeat.meta["defaults"]["mode"] == "ai"


@pytest.mark.parametrize("change, words", [
    (lambda c: c.update(algorithms=[{"name": "dq", "cc": "dcqcn"}]), ("dq", "dcqcn", "mark")),
    (lambda c: c.update(algorithms=[{"name": "mdq", "cc": "mltcp-dcqcn"}]),
     ("mdq", "mltcp-dcqcn", "mark")),
    (lambda c: c.update(ecn_kmin_bytes=5000), ("ecn_kmin_bytes", "all three")),
    (lambda c: c.update(ecn_kmin_bytes=5000, ecn_kmax_bytes=20000),
     ("ecn_pmax", "all three")),
    (lambda c: c.update(matrix.DCQCN_RAMP, ecn_mark_bytes=20000), ("ecn_mark_bytes", "not both")),
    (lambda c: c.update(ecn_kmin_bytes=5000, ecn_kmax_bytes=5000, ecn_pmax=0.01),
     ("ecn_kmin_bytes", "below")),
    (lambda c: c.update(matrix.DCQCN_RAMP), ("ecn_kmax_bytes", "200000", "queue limit")),
    (lambda c: c.update(matrix.DCQCN_RAMP, ecn_kmax_bytes=20000, algorithms=[
        matrix.mltcp_alg("mdq", "md-restart", cc="mltcp-dcqcn")]), ("mdq", "ai")),
])
def test_bad_dcqcn_configurations_are_refused(tmp_path, change, words):
    cfg = smoke_config()
    change(cfg)
    sim_refuses(tmp_path, cfg, *words)


def test_a_marking_threshold_at_or_over_the_limit_is_refused(tmp_path):
    cfg = smoke_config()
    cfg["ecn_mark_bytes"] = 37500
    sim_refuses(tmp_path, cfg, "ecn_mark_bytes", "37500", "queue limit")


def test_a_faster_reverse_direction_takes_the_reverse_contest_off_the_bottleneck(tmp_path):
    """Issue 14's asymmetric exchange: two exchanging jobs of the study's
    on a 64 KiB drop-tail, the right-to-left direction 500 times the rate (past
    the hosts' own links, which are 100 times it). Both directions drop
    when they run at one rate; with the reverse that fast, only the forward
    one does, and every iteration still finishes."""
    jobs = matrix.identical_jobs(2, 0.4, 200, 200, "exchange")
    algorithms = [{"name": "cubic", "cc": "cubic"}]
    drops = {}
    for name, extra in (("same", {}), ("fast", {"reverse_rate_mbit": 100000})):
        cfg = matrix.sim_point("reverse-" + name, jobs, 200, 0, 65536, 10, 1, algorithms,
                               **extra)
        repeat = run_config(tmp_path, cfg).repeats("cubic")[0]
        assert repeat.meta["failures"] == []
        drops[name] = repeat.meta["drops"]["bottleneck"]
    assert drops["same"]["to-right"] > 0 and drops["same"]["to-left"] > 0, drops
    assert drops["fast"]["to-right"] > 0 and drops["fast"]["to-left"] == 0, drops


def test_a_point_measured_in_parts_is_the_point_measured_at_once(tmp_path):
    """More seeds for a point measured already: `bench run --first-repeat K`
    runs repeats K on, each seeded and started as one run of them all does
    it, and `bench merge` joins the parts. From random starts (drawn per
    repeat), three repeats at once and as 0 then 1-2 give the same records
    to the nanosecond and the same summary."""
    algorithms = [{"name": "cubic", "cc": "cubic"}, matrix.mltcp_alg("ai", "ai", "1.6", "0.2")]
    jobs = matrix.identical_jobs(2, 0.4, 20, 1000, "exchange")
    cfg = matrix.sim_point("parts", jobs, 1000, 0.1, 100000, 6, 3, algorithms,
                           start="random", **matrix.DC_TCP)
    whole = run_config(tmp_path, cfg, out=tmp_path / "whole")
    first = run_config(tmp_path, dict(cfg, repeats=1), out=tmp_path / "first")
    rest = run_config(tmp_path, dict(cfg, repeats=2), "--first-repeat", "1",
                      out=tmp_path / "rest")
    assert [r.index for r in rest.repeats("ai")] == [1, 2]
    run = subprocess.run([paths.SYSTEM_PYTHON, "-m", "bench", "merge", str(tmp_path / "joined"),
                          rest.path, first.path], cwd=paths.TOP, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    joined = rundir.Point(str(tmp_path / "joined"))
    assert joined.config()["repeats"] == 3 and "first_repeat" not in joined.config()
    for alg in ("cubic", "ai"):
        reps = whole.repeats(alg)
        assert [r.index for r in joined.repeats(alg)] == [0, 1, 2]
        for once, part in zip(reps, joined.repeats(alg)):
            assert part.records == once.records, (alg, once.index)
        assert reps[0].records != reps[1].records, "the repeats were not drawn apart"
        keep = ("mean_iter_ms", "p99_iter_ms", "per_repeat_mean_iter_ms", "stable_repeats",
                "converged_iteration", "rtos")
        assert {k: joined.summary()["algorithms"][alg][k] for k in keep} == \
            {k: whole.summary()["algorithms"][alg][k] for k in keep}
    assert rundir.read_json(joined.file(rundir.SIM_SEEDS)) == \
        rundir.read_json(whole.file(rundir.SIM_SEEDS))


def test_a_window_trace_follows_each_sender_and_changes_nothing(tmp_path):
    """"window_trace": each worker's sending window, ssthresh and state at
    every change, beside its log. Two pushing jobs on a 64 KiB drop-tail
    contend, so the trace must see recoveries; MLTCP's flows carry their
    progress r and F, F on the rule's line (1.6 r + 0.2 for r in [0, 1])
    once the iteration's size is learned.
    The same point without the trace gives the same iterations to the
    nanosecond, and the bench reads the same records."""
    jobs = matrix.identical_jobs(2, 0.4, 200, 200, "push")
    algorithms = [{"name": "cubic", "cc": "cubic"}, matrix.mltcp_alg("ai", "ai", "1.6", "0.2")]
    points = {}
    for name, extra in (("plain", {}), ("traced", {"window_trace": True})):
        cfg = matrix.sim_point("trace-" + name, jobs, 200, 0, 65536, 6, 1, algorithms, **extra)
        points[name] = run_config(tmp_path, cfg)
    states = {"CA_OPEN", "CA_DISORDER", "CA_CWR", "CA_RECOVERY", "CA_LOSS"}
    for alg in ("cubic", "ai"):
        plain = points["plain"].repeats(alg)[0]
        traced = points["traced"].repeats(alg)[0]
        assert traced.records == plain.records, alg
        for key in ("rtos", "drops"):
            assert traced.meta[key] == plain.meta[key], (alg, key)
        assert plain.window_trace("job1", 0) is None
        seen = set()
        for job in ("job1", "job2"):
            trace = traced.window_trace(job, 0)
            assert len(trace) > 100, (alg, job, len(trace))
            times = [x["t"] for x in trace]
            assert times == sorted(times)
            assert all(x["state"] in states for x in trace)
            assert all(x["cwnd"] >= 1 for x in trace)
            # null: ns-3's "no ssthresh yet", until the first loss sets one.
            assert all(x["ssthresh"] is None or x["ssthresh"] >= 1 for x in trace)
            assert trace[0]["ssthresh"] is None
            seen |= {x["state"] for x in trace}
            if alg == "ai":
                # F is 1 until the detector has learned the iteration's size
                # and trusted it (TRUST_ITERS more iterations agreed: the
                # first three of six here), and again through an iteration
                # that disagreed; otherwise on the line.
                on_line = [x for x in trace if x["r"] > 0 and
                           x["f"] == pytest.approx(0.2 + 1.6 * x["r"], abs=0.01)]
                assert len(on_line) > len(trace) // 4, (job, len(on_line), len(trace))
                for x in trace:
                    assert 0 <= x["r"] <= 1, (job, x)
                    assert x["f"] == 1 or x in on_line, (job, x)
            # The other worker only receives: its socket's window and
            # ssthresh are set at connect (a line each) and never move.
            assert [x["cwnd"] for x in traced.window_trace(job, 1)] == [10, 10]
        assert "CA_RECOVERY" in seen, (alg, seen)


def test_the_drop_tail_dumbbell_counts_its_drops_as_the_port_queue_disc_does(tmp_path):
    """Without a queue disc, ns-3 drops a packet that meets the bottleneck's
    device queue stopped in the switch's traffic-control layer, not in the
    queue; meta.json counted only the queue's own (1 to 3 where the queue
    disc, the same limit, counted hundreds). Two exchanging jobs of the
    study's on a 64 KiB drop-tail, with and without the PortQueueDisc in
    front of the device (port_queue, one band): both count drops each way,
    and within a factor of two of each other."""
    jobs = matrix.identical_jobs(2, 0.4, 200, 200, "exchange")
    drops = {}
    for name, extra in (("device", {}), ("disc", {"port_queue": True})):
        cfg = matrix.sim_point("drops-" + name, jobs, 200, 0, 65536, 10, 1,
                               [{"name": "cubic", "cc": "cubic"}], **extra)
        drops[name] = run_config(tmp_path, cfg).repeats("cubic")[0].meta["drops"]["bottleneck"]
    for way in ("to-right", "to-left"):
        assert drops["device"][way] >= 50 and drops["disc"][way] >= 50, drops
        assert 0.5 <= drops["device"][way] / drops["disc"][way] <= 2, drops


@pytest.mark.parametrize("change, words", [
    (lambda c: c.update(reverse_rate_mbit=10), ("reverse_rate_mbit", "faster")),
    (lambda c: c.update(reverse_rate_mbit=2e6), ("reverse_rate_mbit", "1e6")),
    (lambda c: c.update(reverse_rate_mbit=2000,
                        topology={"kind": "leaf-spine", "leaves": 2, "spines": 2,
                                  "hosts_per_leaf": 2}), ("reverse_rate_mbit", "dumbbell")),
])
def test_a_bad_reverse_rate_is_refused(tmp_path, change, words):
    cfg = smoke_config()
    change(cfg)
    sim_refuses(tmp_path, cfg, *words)


def leaf_spine_config():
    """Two exchanging jobs on 2 leaves x 2 spines x 2 hosts, each job across
    the leaves (bench.matrix.sim_point with a topology)."""
    jobs = matrix.identical_jobs(2, 0.4, 50, 1000, "exchange")
    jobs[0]["hosts"], jobs[1]["hosts"] = [0, 2], [1, 3]
    cfg = matrix.sim_point("fabric-smoke", jobs, 1000, 0.1, 200000, 6, 1,
                           [{"name": "cubic", "cc": "cubic"},
                            matrix.mltcp_alg("md-restart", "md-restart")], **matrix.DC_TCP)
    cfg["topology"] = {"kind": "leaf-spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2}
    return cfg


def plan(tmp_path, cfg):
    point = rundir.Point(str(tmp_path / ("plan-" + cfg["name"])))
    point.write_config(cfg)
    run = subprocess.run([paths.SIM, "--plan", point.path], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert not os.path.exists(os.path.join(point.path, "raw")), "--plan simulated"
    return json.loads(run.stdout)["links"]


def test_the_dc_dcqcn_sets_points_are_accepted(tmp_path):
    """bench run dc-dcqcn's points parse in mltcp-sim (every algorithm on a
    marking port), the ramp's top a frame below the port's limit."""
    for cfg in matrix.dc_dcqcn(iterations=1):
        assert plan(tmp_path, cfg) == {}, cfg["name"]  # the dumbbell: no fabric links
        assert cfg["ecn_kmax_bytes"] + 1514 <= cfg["buffer_bytes"]


def test_a_leaf_spine_plan_routes_each_direction_over_one_spine(tmp_path):
    links = plan(tmp_path, leaf_spine_config())
    for job, (a, b) in (("job1", (0, 2)), ("job2", (1, 3))):
        for src, dst in ((a, b), (b, a)):  # an exchange: both ways
            lsrc, ldst = src // 2, dst // 2
            assert job in links["h%d>leaf%d" % (src, lsrc)]
            assert job in links["leaf%d>h%d" % (ldst, dst)]
            ups = [s for s in (0, 1) if job in links.get("leaf%d>spine%d" % (lsrc, s), [])]
            downs = [s for s in (0, 1) if job in links.get("spine%d>leaf%d" % (s, ldst), [])]
            # One spine per direction (per-destination ECMP), the same up and down.
            assert len(ups) == 1 and ups == downs, (job, src, dst, links)


def test_a_leaf_spine_point_runs_every_iteration_and_reports_its_ports_and_cost(tmp_path):
    cfg = leaf_spine_config()
    point = run_config(tmp_path, cfg)
    for alg in ("cubic", "md-restart"):
        (repeat,) = point.repeats(alg)
        meta = repeat.meta
        assert meta["failures"] == []
        steps = [r for r in repeat.records if r["type"] == "iteration"]
        assert len(steps) == 6 * 2 * 2  # iterations x jobs x workers
        assert all(r["bytes_sent"] == r["bytes_received"] == cfg["jobs"][0]["bytes"]
                   for r in steps)
        # Every switch port is counted; the plan is the run's.
        assert set(meta["drops"]) == {"fabric"} and set(meta["marks"]) == {"fabric"}
        assert "leaf0>spine0" in meta["drops"]["fabric"] and "leaf1>h3" in meta["drops"]["fabric"]
        assert meta["links"] == plan(tmp_path, cfg)
        assert meta["cost"]["events"] > 0 and meta["cost"]["wall_s"] > 0


def test_the_cluster_sets_sparse_placements_are_compatible_and_dense_ones_not(tmp_path):
    for cfg in matrix.cluster(iterations=1):
        loads = metrics.link_loads(cfg, plan(tmp_path, cfg))
        if "-a0.2" in cfg["name"]:
            assert max(loads.values()) <= 1 + 1e-9, (cfg["name"], max(loads.values()))
        else:
            assert max(loads.values()) > 1, (cfg["name"], max(loads.values()))


@pytest.mark.parametrize("change, words", [
    (lambda c: c["jobs"][0].update(hosts=[0, 9]), ("job1", "host 9", "0 to 3")),
    (lambda c: c["jobs"][0].update(hosts=[2, 2]), ("job1", "one host")),
    (lambda c: c["jobs"][0].pop("hosts"), ("job1", "hosts")),
    (lambda c: c["topology"].update(kind="fat-tree"), ("fat-tree", "leaf-spine")),
    (lambda c: c.pop("topology"), ("job1", "hosts", "leaf-spine")),
])
def test_bad_placements_are_refused(tmp_path, change, words):
    cfg = leaf_spine_config()
    change(cfg)
    sim_refuses(tmp_path, cfg, *words)


def test_a_ring_job_runs_every_rank_with_the_jobs_bytes_each_way(tmp_path):
    """Four ranks alternating sides (bench.driver's placement): each sends a
    ring all-reduce's 2 (SIZE - SIZE / 4) with SIZE = bytes / 3, so that each
    direction of the bottleneck carries the job's bytes."""
    jobs = matrix.identical_jobs(1, 0.4, 200, 200)
    jobs[0]["ranks"] = 4
    cfg = matrix.sim_point("ring-smoke", jobs, 200, 0, 262144, 4, 1,
                           [matrix.mltcp_alg("md-restart", "md-restart")], period_ms=200)
    point = rundir.Point(str(tmp_path / "ring"))
    point.write_config(cfg)
    run = subprocess.run([paths.SIM, "--queue-limit", "262144", point.path],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (repeat,) = point.repeats("md-restart")
    size = jobs[0]["bytes"] // 3
    per_rank = 2 * (size - size // 4)
    for rank in range(4):
        with open(point.worker_log("md-restart", 0, "job1", rank)) as f:
            records = [json.loads(line) for line in f]
        steps = [r for r in records if r["type"] == "iteration"]
        assert len(steps) == 4 and records[-1]["status"] == "complete"
        assert all(r["bytes_sent"] == r["bytes_received"] == per_rank for r in steps)
    # What left the job's left host (ranks 0 and 2) is the job's bytes each
    # iteration, in Ethernet frames of 1448-byte segments, and a little more
    # (headers of the ACKs it also sent, the handshake).
    sent = repeat.samples[-1][1][0]
    frames = 4 * jobs[0]["bytes"] / 1448 * 1514
    assert frames <= sent <= 1.05 * frames, (sent, frames)


def test_a_ring_crosses_the_fabric_both_ways(tmp_path):
    cfg = leaf_spine_config()
    cfg["jobs"][0].update(ranks=4, collective="ring")
    links = plan(tmp_path, cfg)
    assert "job1" in links["h0>leaf0"] and "job1" in links["h2>leaf1"]


def test_a_host_for_two_jobs_and_an_odd_ring_are_refused(tmp_path):
    cfg = leaf_spine_config()
    cfg["jobs"][1]["hosts"] = [2, 3]
    sim_refuses(tmp_path, cfg, "job2", "host 2", "job1")
    cfg = smoke_config()
    cfg["jobs"][0]["ranks"] = 3
    sim_refuses(tmp_path, cfg, "job1", "even")


def test_a_ring_needs_more_than_two_ranks_and_two_ranks_no_ring(tmp_path):
    cfg = smoke_config()
    cfg["jobs"][0]["ranks"] = 4
    cfg["jobs"][0]["collective"] = "exchange"
    sim_refuses(tmp_path, cfg, "job1", "4 ranks", "ring")
    cfg["jobs"][0]["ranks"] = 2
    cfg["jobs"][0]["collective"] = "ring"
    sim_refuses(tmp_path, cfg, "job1", "2 ranks")


def test_the_oracle_holds_each_job_to_its_slots(tmp_path):
    """The oracle's rule in the simulator: cubic, each job's iteration 0 at
    its slot offset whatever the point's random starts, and every
    iteration's compute phase at its slot, start_at + offset + n P, or at
    once where the last collective ended after it (mltcp-trainsim's
    --slot-period, sim/training_worker.cc). bench run resolves the rule into
    bench/oracle.py's slots; here a second rule is given slots of a period
    1.5x the ideal by hand, which no phase overruns: every iteration after
    the first waits for its slot, the pair never overlaps, and the mean
    iteration is that period. Cubic beside them keeps the point's random
    starts and has no slots."""
    jobs = matrix.identical_jobs(2, 0.4, 20, 1000, "exchange")
    wide = {"name": "wide", "cc": "cubic",
            "slots": {"period_us": 30000, "offsets_us": {"job1": 0, "job2": 15000}}}
    algorithms = [{"name": "cubic", "cc": "cubic"}, oracle.RULE, wide]
    cfg = matrix.sim_point("oracle-smoke", jobs, 1000, 0.1, 100000, 10, 1, algorithms,
                           start="random", **matrix.DC_TCP)
    point = run_config(tmp_path, cfg)
    rules = {a["name"]: a for a in point.config()["algorithms"]}
    assert rules["oracle"]["slots"] == oracle.slot_schedule(cfg)
    assert rules["wide"]["slots"] == wide["slots"]
    for name in ("cubic", "oracle", "wide"):
        repeat = point.repeats(name)[0]
        assert repeat.meta["failures"] == []
        t0 = repeat.meta["start_at"]
        its = [r for r in repeat.records if r["type"] == "iteration"]
        assert len(its) == 2 * 2 * 10
        for rec in its:
            if name == "cubic":
                assert "slot" not in rec
                if rec["iteration"] == 0:
                    offset = driver.start_offsets(cfg, 0)[rec["job"]] / 1e3
                    assert rec["start"] - t0 == pytest.approx(offset, abs=2e-6)
                continue
            slots = rules[name]["slots"]
            offset = slots["offsets_us"][rec["job"]] / 1e6
            slot = t0 + offset + rec["iteration"] * slots["period_us"] / 1e6
            assert rec["slot"] == pytest.approx(slot, abs=2e-6), rec
            began = rec["comm_start"] - rec["compute_target_s"]
            assert began == pytest.approx(max(rec["start"], slot), abs=3e-6), rec
            assert rec["slot_wait_s"] == pytest.approx(max(0, slot - rec["start"]), abs=3e-6)
            if name == "wide" and rec["iteration"] > 0:
                assert rec["slot_wait_s"] > 0.001, rec
    # After iteration 0 (which has no wait), a period each, give or take
    # how long each collective ran (the job's iteration runs from its first
    # rank's start to its last rank's end).
    for job, rows in metrics.job_iterations(point.repeats("wide")[0].records).items():
        times = [e - s for s, _, e in rows[1:]]
        assert all(abs(t - 0.03) < 1.5e-3 for t in times), (job, times)
        assert sum(times) / len(times) == pytest.approx(0.03, abs=5e-4), (job, times)
    for job in ("job1", "job2"):
        assert point.summary()["algorithms"]["wide"]["jobs"][job]["mean_overlap_ms"] == 0


@pytest.mark.parametrize("change, words", [
    (lambda a: a.pop("slots"), ["schedule", "slots"]),
    (lambda a: a["slots"]["offsets_us"].pop("job2"), ["no offset for job job2"]),
    (lambda a: a["slots"]["offsets_us"].update(job9=0), ["no job job9"]),
    (lambda a: a["slots"].update(period_us=0), ["period_us"]),
    (lambda a: a["slots"]["offsets_us"].update(job1=-5), ["job1"]),
])
def test_bad_slots_are_refused(tmp_path, change, words):
    cfg = oracle.resolve(dict(smoke_config(), algorithms=[oracle.RULE]))
    change(cfg["algorithms"][0])
    sim_refuses(tmp_path, cfg, *words)


PRIO_PORT = {"prio_dscps": [8, 16, 24, 32, 40, 48, 56]}


def prio_rule(name, classes, **prio):
    return dict(matrix.mltcp_alg(name, "md-restart"), prio=dict(prio, classes=classes))


def test_progress_priority_classes_go_on_the_wire_and_keep_ecn(tmp_path):
    """Progress priority (ns3::TcpMltcp's PrioClasses, the port's training
    classes): two exchanging jobs through a marking port that serves
    CS1..CS7 in strict priority. The prio flows' data carries the class of
    their progress, CS1..CS4 for K = 4, rising within an iteration; ns-3
    3.37 sends it Not-ECT under a nonzero TOS, and the marking port takes a
    class's data as ECT(0) (TrainingEct), so it marks rather than drops (no
    drop with the limit far over the threshold); cubic (DSCP 0, best
    effort) carries no class. Every iteration completes."""
    jobs = matrix.identical_jobs(2, 0.4, 20, 1000, "exchange")
    algorithms = [{"name": "cubic", "cc": "cubic"}, prio_rule("prio", 4)]
    cfg = matrix.sim_point("prio-wire", jobs, 1000, 0.1, 400000, 8, 1, algorithms,
                           ecn_mark_bytes=30 * 1514, window_trace=True, **matrix.DC_TCP,
                           **PRIO_PORT)
    # Iterations apart by the 12 ms compute phases.
    cfg["default_params"] = dict(cfg["default_params"], idle_gap_us="2000")
    point = run_config(tmp_path, cfg)
    for alg in ("cubic", "prio"):
        (repeat,) = point.repeats(alg)
        meta = repeat.meta
        assert meta["failures"] == []
        steps = [r for r in repeat.records if r["type"] == "iteration"]
        assert len(steps) == 8 * 2 * 2
        assert meta["marks"]["bottleneck"]["to-right"] > 0, (alg, meta["marks"])
        assert meta["drops"]["bottleneck"] == {"to-right": 0, "to-left": 0}, (alg, meta)
        for job in ("job1", "job2"):
            trace = repeat.window_trace(job, 0)
            if alg == "cubic":
                assert all("dscp" not in x for x in trace)
                continue
            dscps = [x["dscp"] for x in trace]
            # Nothing until the size is learned, then CS1..CS4 only.
            assert dscps[0] == 0
            assert set(dscps) - {0} == {8, 16, 24, 32}, (job, set(dscps))
            # Within an iteration (r not falling) the class never falls.
            # (A line at r = 0 is an iteration's start: the restarted
            # window is traced before the class moves back down.)
            for a, b in zip(trace, trace[1:]):
                if b["r"] >= a["r"] > 0 and a["dscp"]:
                    assert b["dscp"] >= a["dscp"], (job, a, b)
        if alg == "prio":
            assert meta["defaults"]["prio"] == {"classes": 4, "dscp": [8, 16, 24, 32],
                                                "none_dscp": 0, "static": False}
            for host, (flow,) in meta["flows"].items():
                if host.startswith("L"):
                    # Up three classes an iteration, down one at its start,
                    # from the first iteration whose size is trusted
                    # (1 + TRUST_ITERS), one spared.
                    assert flow["dscp_changes"] >= 4 * (8 - 2 - TRUST_ITERS), (host, flow)
                # Moves up held, as the core reported them, and each ended
                # (released, or by an ECN echo's reduction) but for one the
                # run may end in before its last ACK.
                ended = flow["prio_released"] + flow["prio_reduced"]
                assert flow["prio_holds"] > 0, (host, flow)
                assert ended <= flow["prio_holds"] <= ended + 1, (host, flow)


def test_a_held_move_up_does_not_wait_for_a_delayed_ack(tmp_path):
    """A move up holds the window until the data in flight is acknowledged,
    which ends at the ACK that leaves at most one MSS unacknowledged: a
    receiver acknowledges every second full segment and holds its ACK of a
    lone one for its delayed-ACK timer, 40 ms at least on Linux. One job
    alone, that timer in its receivers (and Linux's 200 ms minimum RTO, over
    it): with progress priority its iterations take what they take without
    (measured at the fix: 56.5 ms against 57.4; waiting for the last
    segment's ACK, 64.5 ms. Both are far over the 20 ms ideal: ns-3 also
    holds the ACK of each burst's last segment, which Linux sends when the
    application reads it). The holds are there to be tested: the flows
    report them."""
    jobs = matrix.identical_jobs(1, 0.4, 20, 1000, "exchange")
    algorithms = [matrix.mltcp_alg("plain", "md-restart"), prio_rule("prio", 4)]
    cfg = matrix.sim_point("prio-delack", jobs, 1000, 0.1, 400000, 10, 1, algorithms,
                           jitter=0, ecn_mark_bytes=30 * 1514, min_rto_ms=200, delayed_ack_ms=40,
                           **PRIO_PORT)
    cfg["default_params"] = dict(cfg["default_params"], idle_gap_us="2000")
    point = run_config(tmp_path, cfg)
    with open(point.file("summary.json")) as f:
        summary = json.load(f)
    (repeat,) = point.repeats("prio")
    holds = sum(flow["prio_holds"] for flows in repeat.meta["flows"].values() for flow in flows)
    assert holds > 0, repeat.meta["flows"]
    plain, prio = (summary["algorithms"][alg]["mean_iter_ms"] for alg in ("plain", "prio"))
    assert prio <= 1.02 * plain, (plain, prio)


@pytest.mark.parametrize("change, words", [
    (lambda c: c["algorithms"].append({"name": "p", "cc": "cubic", "prio": {"classes": 2}}),
     ("p", "prio", "cubic")),
    (lambda c: c["algorithms"].append(prio_rule("p", 8)), ("p", "classes", "0 to 7")),
    (lambda c: c["algorithms"].append(prio_rule("p", 2, dscp=[8])), ("p", "exactly")),
    (lambda c: c["algorithms"].append(prio_rule("p", 2, dscp=[8, 8])), ("p", "differ")),
    (lambda c: c["algorithms"].append(prio_rule("p", 2, none_dscp=8)), ("p", "differ")),
    (lambda c: c["algorithms"].append(prio_rule("p", 2, order=1)), ("p", "order")),
    (lambda c: c.update(prio_dscps=[8, 46]), ("prio_dscps", "46")),
    (lambda c: c.update(prio_dscps=[0, 8]), ("prio_dscps", "0")),
    (lambda c: c.update(prio_dscps=[8, 8]), ("prio_dscps", "distinct")),
    (lambda c: c.update(prio_dscps=[8, 64]), ("prio_dscps", "64")),
    (lambda c: c.update(prio_dscps=list(range(1, 9))), ("prio_dscps", "at most 7")),
    (lambda c: c.update(PRIO_PORT, prio_be_weight=1), ("prio_be_weight",)),
    (lambda c: c["algorithms"].append({"name": "m", "cc": "cubic", "marked": True}),
     ("m", "marked", "cubic")),
    (lambda c: c["algorithms"].append(dict(prio_rule("m", 2), marked="yes")),
     ("m", "marked", "true or false")),
])
def test_bad_progress_priority_configurations_are_refused(tmp_path, change, words):
    cfg = smoke_config()
    change(cfg)
    sim_refuses(tmp_path, cfg, *words)


def test_a_marked_job_is_trusted_from_its_second_mark(tmp_path):
    """"marked": true makes each worker mark its job before every
    iteration's first byte (where python3-mltcp's StepMarker marks a DDP
    step), so the flows' iterations start at the marks and the size is
    trusted from the second mark, where a size found from idles waits
    TRUST_ITERS more iterations (tests/unit's trust tests say why). Same
    point, same seeds: the marked rule's flows count a start at every mark
    (the flows exist before the first) and learn the job's bytes, and their classes start
    moving TRUST_ITERS iterations earlier: at least 4 more class changes
    an iteration (three up, one down) for each of those iterations, less
    one for the edge."""
    jobs = matrix.identical_jobs(2, 0.4, 20, 1000, "exchange")
    algorithms = [prio_rule("prio", 4), dict(prio_rule("prio-marked", 4), marked=True)]
    cfg = matrix.sim_point("prio-marked", jobs, 1000, 0.1, 400000, 8, 1, algorithms,
                           ecn_mark_bytes=30 * 1514, **matrix.DC_TCP, **PRIO_PORT)
    cfg["default_params"] = dict(cfg["default_params"], idle_gap_us="2000")
    point = run_config(tmp_path, cfg)
    flows = {}
    for alg in ("prio", "prio-marked"):
        (repeat,) = point.repeats(alg)
        assert repeat.meta["failures"] == []
        flows[alg] = {host: flow for host, (flow,) in repeat.meta["flows"].items()
                      if host.startswith("L")}
    assert (point.repeats("prio-marked")[0].meta["defaults"].get("marked") is True)
    for host, flow in flows["prio-marked"].items():
        assert flow["iterations"] == 8, (host, flow)
        assert flow["iter_bytes"] == jobs[0]["bytes"], (host, flow)
        unmarked = flows["prio"][host]
        assert flow["dscp_changes"] >= unmarked["dscp_changes"] + 4 * TRUST_ITERS - 1, (
            host, flow, unmarked)
