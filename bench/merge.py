# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Join a point measured in parts into one point directory.

    python3 -m bench merge OUT POINT_DIR...

A point's repeats may be measured in more than one run: `bench run --config
P/config.json --first-repeat K --repeats N --out Q` measures repeats K to
K + N - 1 of P's configuration, each seeded and started as one run of them
all would seed and start it (rundir.repeat_indices()), so that seeds can be
added to a point measured already. This joins the parts. Their
configurations must agree but for PART_KEYS; every part must hold each of its
algorithms' repeats; together the parts must number their repeats from the
first one on without a gap or an overlap. OUT gets their raw repeats, the
configuration over all of them (its "commit" the parts' commits, in order,
joined by "+"), the seeds of simulated parts, and a fresh analysis. Nothing
is measured again; OUT must not exist, and is made whole or not at all.
"""
import os
import shutil
import tempfile

from bench import analyze, rundir

# What may differ between the parts of one point.
PART_KEYS = ("first_repeat", "repeats", "commit", "format")


def refuse(text):
    raise SystemExit("bench merge: " + text)


def read_part(path):
    point = rundir.Point(os.path.abspath(path))
    if not os.path.exists(point.file(rundir.CONFIG)):
        refuse("%s has no %s (not a point directory?)" % (path, rundir.CONFIG))
    cfg = point.config()
    indices = rundir.repeat_indices(cfg)
    for alg in cfg["algorithms"]:
        have = [r.index for r in point.repeats(alg["name"])]
        if have != list(indices):
            refuse("%s: %s has repeats %s, its configuration runs %d to %d" % (
                path, alg["name"], have or "none", indices.start, indices.stop - 1))
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
            key = sorted(k for k in set(first) | set(other) if first.get(k) != other.get(k))[0]
            refuse("%s differs from %s in %r" % (point.path, parts[0][0].path, key))
    stop = rundir.repeat_indices(parts[0][1]).start
    for point, cfg in parts:
        indices = rundir.repeat_indices(cfg)
        if indices.start != stop:
            refuse("%s runs repeats %d to %d, the parts before it end at %d" % (
                point.path, indices.start, indices.stop - 1, stop - 1))
        stop = indices.stop
    commits = []
    for _, cfg in parts:
        if cfg.get("commit") and cfg["commit"] not in commits:
            commits.append(cfg["commit"])
    out = dict(first, repeats=stop - rundir.repeat_indices(parts[0][1]).start)
    if parts[0][1].get("first_repeat"):
        out["first_repeat"] = parts[0][1]["first_repeat"]
    if commits:
        out["commit"] = "+".join(commits)
    return out


def merge(out_path, part_paths):
    """Join the parts into out_path and analyze it; returns the summary."""
    if os.path.exists(out_path):
        refuse("%s exists" % out_path)
    parts = sorted((read_part(p) for p in part_paths),
                   key=lambda part: rundir.repeat_indices(part[1]).start)
    cfg = joined(parts)
    parent = os.path.dirname(os.path.abspath(out_path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".merge-", dir=parent)
    try:
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
        summary, _ = analyze.analyze_point(whole)
        os.rename(tmp, out_path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", help="the point directory to make")
    parser.add_argument("parts", nargs="+", metavar="POINT_DIR")


def main(args):
    merge(os.path.abspath(args.out), args.parts)
    print("bench: merged point in %s" % os.path.abspath(args.out))
    return 0
