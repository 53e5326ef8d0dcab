# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Join a point measured in parts into one point directory.

    python3 -m bench merge OUT POINT_DIR...

A point's repeats may be measured in more than one run: `bench run --config
P/config.json --first-repeat K --repeats N --out Q` measures repeats K to
K + N - 1 of P's configuration, each seeded and started as one run of them
all would seed and start it (rundir.repeat_indices()), so that seeds can be
added to a point measured already. This joins the parts. Their
configurations must agree but for PART_KEYS; every part must hold each of its
algorithms' repeats, each finished (its meta.json written); together the
parts must number their repeats from the first one on without a gap or an
overlap. OUT gets their raw repeats, the
configuration over all of them (its "commit" the parts' commits, in order,
joined by "+"), the seeds of simulated parts, and a fresh analysis. Nothing
is measured again; OUT must not exist, and is made whole or not at all. As
`bench run`, it exits 1 if the analysis reports worker failures (the point
is still written).
"""
import os
import shutil
import sys

from bench import analyze, rundir

# What may differ between the parts of one point.
PART_KEYS = ("first_repeat", "repeats", "commit", "format")
ABSENT = object()  # a key one part's configuration does not have


def refuse(text):
    raise SystemExit("bench merge: " + text)


def read_part(path):
    point = rundir.Point(os.path.abspath(path))
    if not os.path.exists(point.file(rundir.CONFIG)):
        refuse("%s has no %s (not a point directory?)" % (path, rundir.CONFIG))
    cfg = point.config()
    try:
        indices = rundir.repeat_indices(cfg)
    except ValueError as e:
        refuse("%s: %s" % (path, e))
    for alg in cfg["algorithms"]:
        repeats = point.repeats(alg["name"])
        have = [r.index for r in repeats]
        if have != list(indices):
            refuse("%s: %s has repeats %s, its configuration runs %d to %d" % (
                path, alg["name"], have or "none", indices.start, indices.stop - 1))
        for repeat in repeats:
            # The driver makes a repeat's directory as it starts and writes
            # meta.json when it ends.
            if not os.path.exists(os.path.join(repeat.path, "meta.json")):
                refuse("%s: %s repeat %d did not finish (no meta.json)" % (
                    path, alg["name"], repeat.index))
    return point, cfg


def common(cfg):
    return {k: v for k, v in cfg.items() if k not in PART_KEYS}


def joined(parts):
    """The configuration of the whole point, from its parts' (sorted by their
    first repeat)."""
    first = common(parts[0][1])
    for point, cfg in parts[1:]:
        other = common(cfg)
        if other != first:
            key = sorted(k for k in set(first) | set(other)
                         if first.get(k, ABSENT) != other.get(k, ABSENT))[0]
            refuse("%s differs from %s in %r" % (point.path, parts[0][0].path, key))
    stop = rundir.repeat_indices(parts[0][1]).start
    for point, cfg in parts:
        indices = rundir.repeat_indices(cfg)
        if indices.start != stop:
            refuse("%s runs repeats %d to %d, the parts before it end at %d" % (
                point.path, indices.start, indices.stop - 1, stop - 1))
        stop = indices.stop
    commit = rundir.joined_commits(cfg.get("commit") for _, cfg in parts)
    out = dict(first, repeats=stop - rundir.repeat_indices(parts[0][1]).start)
    if parts[0][1].get("first_repeat"):
        out["first_repeat"] = parts[0][1]["first_repeat"]
    if commit:
        out["commit"] = commit
    return out


def merge(out_path, part_paths):
    """Join the parts into out_path and analyze it; returns the summary and
    the workers' failures (bench analyze's)."""
    if os.path.exists(out_path):
        refuse("%s exists" % out_path)
    parts = sorted((read_part(p) for p in part_paths),
                   key=lambda part: rundir.repeat_indices(part[1]).start)
    cfg = joined(parts)
    with rundir.made_whole(out_path, ".merge-") as tmp:
        whole = rundir.Point(tmp)
        whole.write_config(cfg)
        seeds = {}
        for point, part_cfg in parts:
            for alg in part_cfg["algorithms"]:
                for repeat in point.repeats(alg["name"]):
                    shutil.copytree(repeat.path, os.path.join(
                        tmp, "raw", alg["name"], os.path.basename(repeat.path)))
            if os.path.exists(point.file(rundir.SIM_SEEDS)):
                seeds.update(rundir.read_json(point.file(rundir.SIM_SEEDS)))
        if seeds:
            rundir.write_json(whole.file(rundir.SIM_SEEDS), seeds)
        return analyze.analyze_point(whole)


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", help="the point directory to make")
    parser.add_argument("parts", nargs="+", metavar="POINT_DIR")


def main(args):
    _, failures = merge(os.path.abspath(args.out), args.parts)
    print("bench: merged point in %s%s" % (os.path.abspath(args.out),
                                           ", with worker failures" if failures else ""),
          file=sys.stderr if failures else sys.stdout)
    return 1 if failures else 0
