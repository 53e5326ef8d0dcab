# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcp-trainsim's patterns (--pattern ddp|nccl, docs/trainsim.md
"Patterns") on loopback, the real binary: the sockets each worker opens, the
bytes each socket carries in each iteration as the kernel counted them
(tcpi_bytes_acked, the records' socket_bytes) against the chunking rule
worked out here, and DDP's overlap of its buckets with the compute phase.
Then the bench's keys for them: the options they pass and the refusal of a
bad value by trainsim's own parser. A few seconds; no root."""
import json
import os
import socket
import subprocess
import time

import pytest

from bench import driver
from testbed import paths

KIB, MIB = 1024, 1024 * 1024


def free_ports(count):
    socks = [socket.socket() for _ in range(count)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def run_job(tmp_path, world, bytes_, compute, iterations, extra, during=None):
    """A job of world ranks on 127.0.0.1; each rank's records. during(ports),
    if given, runs while the workers do."""
    assert os.access(paths.TRAINSIM, os.X_OK), "%s is not built" % paths.TRAINSIM
    ports = free_ports(world)
    procs = []
    for rank in range(world):
        argv = [paths.TRAINSIM, "--job", "p", "--rank", str(rank), "--world", str(world),
                "--listen", "127.0.0.1:%d" % ports[rank],
                "--next", "127.0.0.1:%d" % ports[(rank + 1) % world],
                "--bytes", str(bytes_), "--compute", compute, "--iterations", str(iterations),
                "--connect-timeout", "10s", "--log", str(tmp_path / ("r%d.jsonl" % rank))]
        procs.append(subprocess.Popen(argv + extra, stderr=subprocess.PIPE, text=True))
    try:
        if during:
            during(ports)
        for proc in procs:
            assert proc.wait(timeout=30) == 0, proc.stderr.read()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    out = []
    for rank in range(world):
        with open(tmp_path / ("r%d.jsonl" % rank)) as f:
            records = [json.loads(line) for line in f]
        assert records[-1]["type"] == "summary" and records[-1]["status"] == "complete"
        steps = [r for r in records if r["type"] == "iteration"]
        assert [r["iteration"] for r in steps] == list(range(iterations))
        out.append(steps)
    return out


def chunked(messages, sockets):
    """NCCL's rule, worked out independently of trainsim's code: each message
    in chunks of max(64 KiB, ceil(size / sockets)), dealt in turn, the turn
    carried from message to message."""
    per_socket, turn = [0] * sockets, 0
    for size in messages:
        chunk = max(64 * KIB, -(-size // sockets))
        done = 0
        while done < size:
            piece = min(chunk, size - done)
            per_socket[turn] += piece
            turn = (turn + 1) % sockets
            done += piece
    return per_socket


def ring_messages(size, world):
    """A ring all-reduce's 2(world - 1) steps: step k of either phase moves
    chunk k of size cut into world chunks."""
    chunk = [size // world + (1 if k < size % world else 0) for k in range(world)]
    return [chunk[k] for _ in range(2) for k in range(world - 1)]


def established(ports):
    """Connections accepted on the listening ports (the receiving ends)."""
    run = subprocess.run(["ss", "-Htn", "state", "established"], capture_output=True,
                         text=True, check=True)
    return sum(1 for line in run.stdout.splitlines()
               if any(line.split()[2].endswith(":%d" % p) for p in ports))


def most_established(ports, seconds):
    """The most connections accepted on the ports seen within seconds
    (polled: workers start and connect at the scheduler's pace)."""
    most, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        most = max(most, established(ports))
        time.sleep(0.02)
    return most


def test_nccl_opens_n_sockets_per_connection_and_deals_the_chunks(tmp_path):
    size = MIB + 100 * KIB + 7  # chunks of ceil(size / 4), the last short
    seen = []
    ranks = run_job(tmp_path, 2, size, "400ms", 2, ["--pattern", "nccl", "--sockets", "4"],
                    during=lambda ports: seen.append(most_established(ports, 0.6)))
    assert seen == [2 * 4], "two workers, four sockets accepted each"
    expected = chunked([size], 4)
    assert expected[3] < expected[0]
    for steps in ranks:
        for r in steps:
            assert r["socket_bytes"] == expected, r
            assert r["bytes_sent"] == r["bytes_received"] == size


def test_nccl_ring_steps_carry_the_turn_over_the_sockets(tmp_path):
    # 4 ranks, 300 KiB: six steps of 75 KiB, each two chunks (64 KiB and 11
    # KiB) over 4 sockets, the turn going on: sockets 0 and 2 get the 64 KiB
    # chunks, 1 and 3 the 11 KiB ones.
    size = 300 * KIB
    ranks = run_job(tmp_path, 4, size, "1ms", 3, ["--pattern", "nccl", "--sockets", "4"])
    expected = chunked(ring_messages(size, 4), 4)
    assert expected == [3 * 64 * KIB, 3 * 11 * KIB] * 2
    for steps in ranks:
        for r in steps:
            assert r["socket_bytes"] == expected, r
            assert r["bytes_sent"] == sum(ring_messages(size, 4))


def test_ddp_sends_its_buckets_during_the_compute_phase(tmp_path):
    # 8 MiB is under 4 buckets of 25 MiB: buckets of 2 MiB, the first
    # ceil(1 MiB x 8/100), so the first bucket is ready after about 1% of the
    # compute phase and the last at its end.
    # The bounds leave a loaded host (CI's other work, a guest) tens of
    # milliseconds of scheduling delay; a burst would send nothing before
    # comm_start.
    size, compute_s = 8 * MIB, 0.3
    ranks = run_job(tmp_path, 2, size, "300ms", 3, ["--pattern", "ddp"])
    for steps in ranks:
        for r in steps:
            assert r["socket_bytes"] == [size]
            assert r["bytes_sent"] == r["bytes_received"] == size
            first_after = r["first_send"] - r["start"]
            assert first_after < 0.25 * compute_s, r
            # comm_start is the compute phase's end: the buckets before the
            # last went while it ran.
            assert r["comm_start"] - r["first_send"] > 0.6 * compute_s, r
            assert r["compute_s"] == pytest.approx(compute_s, abs=0.02)


def test_burst_records_are_unchanged(tmp_path):
    (steps, _) = run_job(tmp_path, 2, MIB, "1ms", 2, [])
    assert "socket_bytes" not in steps[0] and "first_send" not in steps[0]


def test_the_bench_passes_a_jobs_pattern_keys():
    job = {"name": "j", "bytes": 1000, "compute_ms": 1, "pattern": "ddp", "sockets": 2,
           "bucket_bytes": 4 * MIB, "first_bucket_bytes": 256 * KIB}
    assert driver.pattern_argv(job) == ["--pattern", "ddp", "--sockets", "2",
                                        "--bucket", str(4 * MIB),
                                        "--first-bucket", str(256 * KIB)]
    assert driver.pattern_argv({"name": "j"}) == []


@pytest.mark.parametrize("keys, error", [
    ({"pattern": "tree"}, "driver: job j: --pattern: unknown pattern \"tree\""),
    ({"pattern": "nccl", "sockets": 0}, "driver: job j: --sockets: must be between 1 and 64"),
    ({"sockets": 4}, "driver: job j: --sockets: burst sends on one socket"),
    ({"pattern": "nccl", "bucket_bytes": 1000}, "driver: job j: --bucket: only with"),
])
def test_a_bad_pattern_key_is_refused_in_one_line(keys, error):
    cfg = {"iterations": 3, "jobs": [dict({"name": "j", "bytes": 1000000, "compute_ms": 5},
                                          **keys)]}
    with pytest.raises(SystemExit) as exc:
        driver.check_trainsim_jobs(cfg)
    assert str(exc.value.code).startswith(error)
    assert "\n" not in str(exc.value.code)
    driver.check_trainsim_jobs({"iterations": 3, "jobs": [
        {"name": "j", "bytes": 1000000, "compute_ms": 5, "pattern": "nccl"}]})
