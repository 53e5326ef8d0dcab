# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Gather point directories into one results directory.

    python3 -m bench collect OUT POINT_DIR...

`bench run --config` measures one configuration into one point directory
(config.json, summary.json, report.md, plots, raw/). A study made of such
runs is committed as one results directory, as `bench run SET` writes it:
each point copied under its configuration's name, and results.json and
results.md over all of them. The commit and date stamped are the points'
own (analyze.summarize() stamps the commit a point started at); points
measured at different commits are all named, joined by "+". Nothing is
measured again, and OUT must not exist yet.
"""
import os
import shutil

from bench import rundir, run


def gather(out_path, point_paths):
    """Copy the points into out_path and write its results.json and
    results.md; returns the results document."""
    points = [rundir.Point(os.path.abspath(p)) for p in point_paths]
    results, commits, dates, names = {}, [], [], set()
    for point in points:
        if not os.path.exists(point.file(rundir.SUMMARY)):
            raise SystemExit("bench collect: %s has no %s (not analyzed?)"
                             % (point.path, rundir.SUMMARY))
        cfg, summary = point.config(), point.summary()
        if cfg["name"] in names:
            raise SystemExit("bench collect: two points named %s" % cfg["name"])
        names.add(cfg["name"])
        if summary.get("commit") not in commits:
            commits.append(summary.get("commit"))
        dates.append(summary.get("date", ""))
        results[cfg["name"]] = {"summary": summary, "error": None,
                                "backend": cfg.get("backend", "module"),
                                "host_loadavg": None}
    if os.path.exists(out_path):
        raise SystemExit("bench collect: %s exists" % out_path)
    for point in points:
        shutil.copytree(point.path, os.path.join(out_path, point.config()["name"]))
    commit = "+".join(str(c) for c in commits)
    doc = run.results_doc(commit, min(dates), ["collected"], results)
    rundir.Results(out_path).write(doc, "# Bench results\n\nMeasured %s at commit %s, "
                                   "backend: %s; gathered by `bench collect`.\n\n%s\n" % (
                                       min(dates), commit, doc["backend"], run.table(results)))
    return doc


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", help="the results directory to make")
    parser.add_argument("points", nargs="+", metavar="POINT_DIR")


def main(args):
    gather(os.path.abspath(args.out), args.points)
    print("bench: results in %s" % os.path.abspath(args.out))
    return 0
