# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Tabulate and plot bench results against the interleaving targets.

    python3 -m bench study-table [--plot FILE.png] [--points A,B] RESULTS_DIR...

For every point of every results.json: each algorithm's mean iteration over
the repeats (and the spread of the per-repeat means), p99, mean / ideal,
speedup over cubic in the same runs, how many repeats interleaved stably
(overlap under 10% of the ideal communication time for the last 50
iterations), RTOs and bottleneck drops per repeat. The verdict column checks
the targets that apply where cubic leaves the jobs overlapping: stable in at
least 90% of the repeats, within 10% of the ideal, at least 1.2x faster than
cubic.
"""
import statistics

from bench import rundir

TARGET_STABLE = 0.9
TARGET_IDEAL = 1.10
TARGET_SPEEDUP = 1.2


def load(dirs):
    points = []
    for d in dirs:
        doc = rundir.Results(d).read()
        for name, res in doc["results"].items():
            if res.get("algorithms"):
                points.append((name, doc, res))
    return points


def row(alg, a, ideal, cubic):
    reps = a["per_repeat_mean_iter_ms"]
    stable = a["stable_repeats"] / a["repeats"]
    speedup = cubic["mean_iter_ms"] / a["mean_iter_ms"] if cubic else None
    ok = (stable >= TARGET_STABLE and a["mean_iter_ms"] <= TARGET_IDEAL * ideal and
          speedup is not None and speedup >= TARGET_SPEEDUP)
    return ("| %s | %.1f (%.1f-%.1f) | %.1f | %.3f | %s | %d/%d | %d | %d | %s |" % (
        alg, a["mean_iter_ms"], min(reps), max(reps), a["p99_iter_ms"],
        a["mean_iter_ms"] / ideal, "%.3f" % speedup if speedup else "-",
        a["stable_repeats"], a["repeats"], sum(a["rtos"]),
        statistics.median(a["drops"]) if a.get("drops") else 0,
        "meets" if ok else "-"))


def table(points):
    out = []
    for name, doc, res in points:
        ideal = res["ideal_iter_ms"]
        algs = res["algorithms"]
        cubic = algs.get("cubic")
        out.append("### %s (ideal %.1f ms; commit %s, %s)\n" % (name, ideal, doc["commit"],
                                                                 doc["date"]))
        out.append("| algorithm | mean ms (repeat means min-max) | p99 ms | x ideal | speedup "
                   "vs cubic | stable | RTOs (all repeats) | drops (median repeat) | targets |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for alg, a in algs.items():
            out.append(row(alg, a, ideal, cubic))
        out.append("")
    return "\n".join(out)


def plot(points, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(4, len(points))
    rows = (len(points) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.8 * rows), squeeze=False)
    for ax in axes.flat[len(points):]:
        ax.axis("off")
    for ax, (name, _, res) in zip(axes.flat, points):
        ideal = res["ideal_iter_ms"]
        algs = list(res["algorithms"])
        for i, alg in enumerate(algs):
            a = res["algorithms"][alg]
            ys = [m / ideal for m in a["per_repeat_mean_iter_ms"]]
            ax.scatter([i] * len(ys), ys, s=12, alpha=0.7)
            ax.text(i, max(ys) + 0.01, "%d/%d" % (a["stable_repeats"], a["repeats"]),
                    ha="center", fontsize=7)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.axhline(TARGET_IDEAL, color="k", lw=0.8, ls="--")
        ax.set_xticks(range(len(algs)))
        ax.set_xticklabels(algs, rotation=45, ha="right", fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("mean iteration / ideal (one dot per repeat)", fontsize=8)
    fig.suptitle("Per-repeat mean iteration time over ideal; k/n = stably interleaved repeats",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def add_arguments(parser):
    parser.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    parser.add_argument("--plot", metavar="FILE.png")
    parser.add_argument("--points", help="comma-separated point names to keep, in this order")


def main(args):
    points = load(args.dirs)
    if args.points:
        by_name = {p[0]: p for p in points}
        points = [by_name[n] for n in args.points.split(",") if n in by_name]
    print(table(points))
    if args.plot:
        plot(points, args.plot)
    return 0
