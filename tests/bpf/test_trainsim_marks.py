# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcp-trainsim --mark against the BPF twin on this machine's own kernel:
a two-rank job whose marked MLTCP job's idle gap (1 s) is far above its
compute phase (20 ms), so that idles cut no iteration, counts its
iterations at the marks: each step once in the host's job table (the two
ranks share it), and each of its two data flows an iteration per mark. The
control, the same job unmarked and not marking, counts next to none. A
mark of a job the table does not hold fails the run loudly.

Needs root. The binary is $MLTCP_TRAINSIM, else the one beside
$MLTCPCTL_TOOL's build. Run: tests/bpf/run.sh
"""
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from hostnet import run

TOP = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
TRAINSIM = Path(os.environ.get("MLTCP_TRAINSIM",
                               TOOL.parents[1] / "trainsim/mltcp-trainsim"))
JOB = 31
ITERATIONS = 8


def ctl(*args, check=True):
    return run(TOOL, *args, check=check)


def stats():
    return json.loads(ctl("-j", "bpf", "status").stdout)["stats"]


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """The BPF backend loaded through mltcpctl; unloaded at the end."""
    assert os.geteuid() == 0, "the BPF host tests need root"
    assert not Path("/sys/module/tcp_mltcp").exists(), "these tests expect no tcp_mltcp module"
    assert os.access(TRAINSIM, os.X_OK), "%s is not built" % TRAINSIM
    ctl("bpf", "unload", check=False)
    ctl("bpf", "load")
    yield
    ctl("bpf", "unload", check=False)


def free_port_pair():
    """Two consecutive loopback ports nobody listens on: the ranks' --listen,
    so that one dport range matches the job's two data flows (each rank's
    connection to the next) and not the accepted sockets."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port >= 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    pytest.fail("no two consecutive free ports")


def run_job(tmp_path, mark):
    """The job's two ranks on loopback under mltcp, marking MLTCP job JOB
    if mark: (each rank's iteration records, the twin's counters' change,
    the job's marks)."""
    port = free_port_pair()
    ctl("job", "add", JOB, "dport", "%d-%d" % (port, port + 1), "idle-gap", "1s",
        *(["marked"] if mark else []))
    try:
        before = stats()
        ranks = []
        for rank in (0, 1):
            ranks.append(subprocess.Popen(
                [str(TRAINSIM), "--job", "marks", "--rank", str(rank), "--world", "2",
                 "--listen", "127.0.0.1:%d" % (port + rank),
                 "--next", "127.0.0.1:%d" % (port + 1 - rank),
                 "--bytes", "256K", "--compute", "20ms", "--iterations", str(ITERATIONS),
                 "--cc", "mltcp", "--connect-timeout", "10s",
                 "--log", str(tmp_path / ("r%d.jsonl" % rank))] +
                (["--mark", str(JOB)] if mark else []),
                stderr=subprocess.PIPE, text=True))
        for proc in ranks:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
        after = stats()
        [job] = json.loads(ctl("-j", "job", "show", "id", JOB).stdout)
    finally:
        ctl("job", "del", JOB, check=False)
    records = []
    for rank in (0, 1):
        with open(tmp_path / ("r%d.jsonl" % rank)) as f:
            lines = [json.loads(line) for line in f]
        assert lines[-1]["status"] == "complete"
        records.append([r for r in lines if r["type"] == "iteration"])
    # An unmarked job shows no count of marks.
    return records, after["iterations"] - before["iterations"], job.get("marks", 0)


def test_a_marked_job_counts_its_iterations_at_the_marks(tmp_path):
    records, iterations, marks = run_job(tmp_path, mark=True)
    for rank in records:
        assert len(rank) == ITERATIONS
        assert all(0 < r["mark_s"] < 0.05 for r in rank), [r["mark_s"] for r in rank]
    # Both ranks marked every step, numbered: the shared table counted each once.
    assert marks == ITERATIONS
    # Each data flow starts an iteration at each mark; the first start ends
    # none, and the last iteration may end only when the flow closes.
    assert 2 * (ITERATIONS - 1) <= iterations <= 2 * ITERATIONS, iterations


def test_unmarked_the_same_job_finds_no_iterations_between_its_idles(tmp_path):
    """The control: without marks the 1 s idle gap hides every iteration
    boundary of the 20 ms compute phases, so the count above is the marks'."""
    records, iterations, marks = run_job(tmp_path, mark=False)
    assert all(len(rank) == ITERATIONS and "mark_s" not in rank[0] for rank in records)
    assert marks == 0
    assert iterations <= 2, iterations


def test_marking_a_job_the_table_does_not_hold_fails_the_run(tmp_path):
    """The twin is loaded, so the marker opens; the first mark finds no job."""
    port = free_port_pair()
    ranks = [subprocess.Popen(
        [str(TRAINSIM), "--job", "nojob", "--rank", str(rank), "--world", "2",
         "--listen", "127.0.0.1:%d" % (port + rank), "--next", "127.0.0.1:%d" % (port + 1 - rank),
         "--bytes", "64K", "--compute", "1ms", "--iterations", "2", "--cc", "mltcp",
         "--mark", "4294967295", "--log", str(tmp_path / ("n%d.jsonl" % rank))],
        stderr=subprocess.PIPE, text=True) for rank in (0, 1)]
    for rank, proc in enumerate(ranks):
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err
        assert err == ("mltcp-trainsim: job nojob rank %d: --mark 4294967295: iteration 0's "
                       "mark failed: job 4294967295: no such job\n" % rank), err
