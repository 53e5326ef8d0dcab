# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How close each algorithm came to stable interleaving, from a point's raw logs.

    python3 -m bench tail-overlap POINT_DIR [--tail 50]

"Stable" (bench/metrics.py) needs every one of the last 50 iterations below
the overlap threshold; this prints, per algorithm over all repeats, the share
of those iterations that were below it, the mean overlap there, and the
largest single overlap: whether a candidate failed by rare excursions or by
never separating the jobs. Raw logs are not committed; run it where the
bench ran.
"""
from bench import metrics, rundir


def add_arguments(parser):
    parser.add_argument("point", metavar="POINT_DIR")
    parser.add_argument("--tail", type=int, default=50)


def main(args):
    point = rundir.Point(args.point)
    cfg = point.config()
    rate_bps = cfg["rate_mbit"] * 1e6
    jobs_cfg = metrics.jobs_config(cfg["jobs"])
    print("| algorithm | last %d iterations below threshold | mean overlap there (ms) | "
          "largest overlap (ms) |" % args.tail)
    print("|---|---|---|---|")
    for alg in cfg["algorithms"]:
        below = total = 0
        overlaps = []
        for repeat in point.repeats(alg["name"]):
            run = metrics.analyze_run(repeat.records, jobs_cfg, rate_bps)
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
    return 0
