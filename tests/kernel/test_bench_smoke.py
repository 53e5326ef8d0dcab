# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Smoke run of the interleaving experiment (the bench's "smoke" point): the
driver, mltcp-trainsim and the analysis work end to end for cubic and mltcp,
every worker logs every iteration with the right byte counts, and the
sockets used the algorithm asked for."""
import json
import subprocess
import sys

from bench import matrix, rundir
from conftest import TOP


def test_experiment_smoke(tmp_path):
    cfg = matrix.smoke()[0]
    out = tmp_path / "run"
    rundir.Point(str(out)).write_config(cfg)
    proc = subprocess.run([sys.executable, "-m", "bench", "driver", str(out)], cwd=TOP,
                          capture_output=True, text=True, timeout=600)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0
    for alg in cfg["algorithms"]:
        rep = out / "raw" / alg["name"] / "rep0"
        meta = json.loads((rep / "meta.json").read_text())
        assert meta["failures"] == []
        for job in cfg["jobs"]:
            for rank in (0, 1):
                lines = [json.loads(l) for l in
                         (rep / ("%s-r%d.jsonl" % (job["name"], rank))).read_text().splitlines()]
                iters = [l for l in lines if l["type"] == "iteration"]
                assert [l["iteration"] for l in iters] == list(range(cfg["iterations"]))
                assert all(l["bytes_sent"] == job["bytes"] == l["bytes_received"] for l in iters)
                assert all(l["cc"] == alg["cc"] for l in iters)
                assert lines[-1]["type"] == "summary"
        samples = json.loads((rep / "samples.json").read_text())
        assert len(samples) > 50
    proc = subprocess.run([sys.executable, "-m", "bench", "analyze", str(out)], cwd=TOP,
                          capture_output=True, text=True, timeout=300)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["algorithms"]) == {"cubic", "mltcp"}
    assert summary["algorithms"]["mltcp"]["mean_iter_ms"] > 0
    # The bulk flow ran beside the jobs and was measured.
    for alg in summary["algorithms"].values():
        assert alg["bulk_mbit"]["bulk"] > 1
        assert 0 < alg["jain"] <= 1
