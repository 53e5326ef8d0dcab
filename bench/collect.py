# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Gather point directories into one results directory.

    python3 -m bench collect OUT POINT_DIR...

`bench run --config` measures one configuration into one point directory
(config.json, summary.json, report.md, plots, raw/). A study made of such
runs is committed as one results directory, as `bench run SET` writes it:
each point copied under its configuration's name (an unnamed one under
its directory's), and results.json and results.md over all of them. The
commit stamped is the points' own (analyze.summarize() stamps the commit a
point started at); points measured at different commits are all named,
oldest first, joined by "+". The date is when the first repeat started
(the raw logs' start_at), or, for points kept without raw logs and for
simulated points (whose start_at is simulated time), when they were
analyzed. A point whose workers failed keeps bench run's error.
Nothing is measured again; OUT must not exist, and is made whole or not at
all.
"""
import datetime
import os
import shutil

from bench import rundir, run

STAMP = "%Y%m%dT%H%MZ"


def started(point, summary):
    """When the point's first repeat started (UTC, bench run's stamp), or
    when it was analyzed if its raw logs are gone or its clock was ns-3's
    (mltcp-sim's start_at counts simulated seconds from 0)."""
    starts = [r.meta["start_at"] for alg in summary["algorithms"]
              for r in point.repeats(alg)
              if "start_at" in r.meta and r.meta.get("backend") != "ns-3"]
    if starts:
        return datetime.datetime.fromtimestamp(min(starts), datetime.timezone.utc).strftime(STAMP)
    analyzed = summary.get("date")
    if not analyzed:
        return None
    return datetime.datetime.fromisoformat(analyzed).astimezone(
        datetime.timezone.utc).strftime(STAMP)


def read_point(path):
    point = rundir.Point(os.path.abspath(path))
    for name in (rundir.CONFIG, rundir.SUMMARY):
        if not os.path.exists(point.file(name)):
            raise SystemExit("bench collect: %s has no %s (not a point, or not analyzed?)"
                             % (point.path, name))
    cfg = point.config()
    return point, cfg.get("name") or os.path.basename(point.path.rstrip("/")), point.summary()


def gather(out_path, point_paths):
    """Copy the points into out_path and write its results.json and
    results.md; returns the results document."""
    if os.path.exists(out_path):
        raise SystemExit("bench collect: %s exists" % out_path)
    points, results, stamps = [], {}, []
    for path in point_paths:
        point, name, summary = read_point(path)
        if name in results:
            raise SystemExit("bench collect: two points named %s" % name)
        failed = any(a.get("failures") for a in summary["algorithms"].values())
        results[name] = {"summary": summary,
                         "error": "analysis reported worker failures" if failed else None,
                         "backend": point.config().get("backend", "module"),
                         "host_loadavg": None}
        points.append((point, name))
        stamps.append((started(point, summary) or "", summary.get("commit")))
    commit = rundir.joined_commits(c for _, c in sorted(stamps))
    dates = sorted(d for d, _ in stamps if d)
    date = dates[0] if dates else None
    doc = run.results_doc(commit, date, ["collected"], results)
    with rundir.made_whole(out_path, ".collect-") as tmp:
        for point, name in points:
            shutil.copytree(point.path, os.path.join(tmp, name))
        rundir.Results(tmp).write(doc, "# Bench results\n\nMeasured %s at commit %s, "
                                  "backend: %s; gathered by `bench collect`.\n\n%s\n" % (
                                      date, commit, doc["backend"], run.table(results)))
    return doc


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", help="the results directory to make")
    parser.add_argument("points", nargs="+", metavar="POINT_DIR")


def main(args):
    gather(os.path.abspath(args.out), args.points)
    print("bench: results in %s" % os.path.abspath(args.out))
    return 0
