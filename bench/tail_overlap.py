#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How close each algorithm came to stable interleaving, from a point's raw logs.

    tail_overlap.py POINT_DIR [--tail 50]

"Stable" (bench/metrics.py) needs every one of the last 50 iterations below
the overlap threshold; this prints, per algorithm over all repeats, the share
of those iterations that were below it, the mean overlap there, and the
largest single overlap: whether a candidate failed by rare excursions or by
never separating the jobs. Raw logs are not committed; run it where the
bench ran.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench import analyze, metrics  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("point")
    ap.add_argument("--tail", type=int, default=50)
    args = ap.parse_args()
    with open(os.path.join(args.point, "config.json")) as f:
        cfg = json.load(f)
    rate_bps = cfg["rate_mbit"] * 1e6
    jobs_cfg = {j["name"]: {"compute_s": j["compute_ms"] / 1e3, "bytes": j["bytes"]}
                for j in cfg["jobs"]}
    print("| algorithm | last %d iterations below threshold | mean overlap there (ms) | "
          "largest overlap (ms) |" % args.tail)
    print("|---|---|---|---|")
    for alg in cfg["algorithms"]:
        below = total = 0
        overlaps = []
        for rep in range(cfg["repeats"]):
            run_dir = os.path.join(args.point, "raw", alg["name"], "rep%d" % rep)
            if not os.path.isdir(run_dir):
                continue
            records = analyze.load_records(run_dir)
            run = metrics.analyze_run(records, jobs_cfg, rate_bps)
            for job in run["jobs"].values():
                tail = job["overlap_s"][-args.tail:]
                limit = metrics.OVERLAP_THRESHOLD * job["ideal_comm_s"]
                below += sum(1 for x in tail if x < limit)
                total += len(tail)
                overlaps += tail
        if total:
            print("| %s | %.0f%% | %.1f | %.0f |" % (
                alg["name"], 100.0 * below / total, 1e3 * sum(overlaps) / len(overlaps),
                1e3 * max(overlaps)))


if __name__ == "__main__":
    main()
