# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The ns-3 worker's patterns (issue 38; docs/trainsim.md "Patterns"): short
points of two jobs at 1 Gbit/s run through `bench run --config`, one with
DDP's buckets and one with NCCL's chunks over 4 sockets per connection.
Asserted: every worker runs every iteration with the job's bytes; nccl's
four flows per worker each carry a quarter of them in every iteration and
each one's detector learns its own quarter; ddp's first bucket goes early in
the compute phase; bad pattern keys are refused in one line."""
import pytest

from bench import matrix

from test_sim import run_config, sim_refuses, smoke_config

ITERATIONS = 4


def pattern_point(tmp_path, name, **keys):
    jobs = matrix.identical_jobs(2, 0.4, 50, 1000, "exchange")
    for job in jobs:
        job["bytes"] -= job["bytes"] % 4  # four equal chunks for nccl
        job.update(keys)
    algorithms = [matrix.mltcp_alg("md-restart", "md-restart")]
    cfg = matrix.sim_point(name, jobs, 1000, 0.1, 400000, ITERATIONS, 1, algorithms,
                           **matrix.DC_TCP)
    point = run_config(tmp_path, cfg)
    (repeat,) = point.repeats("md-restart")
    assert repeat.meta["failures"] == []
    steps = [r for r in repeat.records if r["type"] == "iteration"]
    assert len(steps) == ITERATIONS * 2 * 2  # iterations x jobs x workers
    for r in steps:
        assert r["bytes_sent"] == r["bytes_received"] == jobs[0]["bytes"], r
    return jobs[0]["bytes"], steps, repeat.meta


def test_nccl_sends_on_four_flows_per_worker_each_a_quarter(tmp_path):
    size, steps, meta = pattern_point(tmp_path, "nccl-smoke", pattern="nccl", sockets=4)
    for r in steps:
        assert r["socket_bytes"] == [size // 4] * 4, r
        assert r["first_send"] == r["comm_start"], r
    for host, flows in meta["flows"].items():
        assert len(flows) == 4, (host, flows)
        for flow in flows:
            assert flow["bytes_acked"] == ITERATIONS * size // 4, (host, flow)
            # Each flow's detector sees its own iterations and bytes.
            assert flow["iter_bytes"] == size // 4, (host, flow)
            assert flow["iterations"] == ITERATIONS - 1, (host, flow)


def test_ddp_sends_its_first_bucket_early_in_the_compute_phase(tmp_path):
    size, steps, meta = pattern_point(tmp_path, "ddp-smoke", pattern="ddp")
    # Under 4 x 25 MiB: the first bucket ceil(1 MiB x size / 100 MiB), ready
    # after that share of the compute phase.
    first = -(-(1 << 20) * size // (100 << 20))
    for r in steps:
        assert r["socket_bytes"] == [size], r
        assert r["first_send"] - r["start"] == pytest.approx(
            r["compute_target_s"] * first / size, abs=2e-6), r
        assert r["comm_start"] - r["start"] == pytest.approx(r["compute_target_s"], abs=2e-6)
    for host, flows in meta["flows"].items():
        assert len(flows) == 1 and flows[0]["bytes_acked"] == ITERATIONS * size, (host, flows)


@pytest.mark.parametrize("keys, words", [
    ({"pattern": "tree"}, ["job1", "--pattern", "tree"]),
    ({"pattern": 3}, ["job1", "\"pattern\"", "a string"]),
    ({"pattern": "nccl", "sockets": 65}, ["job1", "--sockets", "65"]),
    ({"pattern": "nccl", "sockets": "4"}, ["job1", "\"sockets\"", "a whole number"]),
    ({"pattern": "burst", "sockets": 2}, ["job1", "--sockets", "burst"]),
    ({"pattern": "ddp", "first_bucket_bytes": 1 << 30}, ["job1", "--first-bucket", "larger"]),
])
def test_bad_pattern_keys_are_refused(tmp_path, keys, words):
    cfg = smoke_config()
    cfg["jobs"][0].update(keys)
    sim_refuses(tmp_path, cfg, *words)
