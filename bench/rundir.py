# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The bench's directories on disk: the one reader and writer of them.

A point directory holds one driver run (one topology, every algorithm, every
repeat):

    config.json                    the point's configuration
    raw/<algorithm>/rep<k>/        one repeat of one algorithm:
        meta.json                  start time, RTOs, bottleneck drops, failures, defaults in force
        samples.json               [[unix time, [bytes each sampled flow sent into the switch]], ...]
        <job>-r<rank>.jsonl        one worker's mltcp-trainsim log (docs/trainsim.md)
        <job>-r<rank>.stderr       what a host worker wrote to stderr
        <job>-r<rank>.window.jsonl the simulator's trace of that worker's
                                   sending window ("window_trace", sim/point.h)
    sim-seeds.json                 a simulated point's workers' seeds and random
                                   starts, as mltcp-sim was given them
    driver-failure.txt             where the driver failed: one line of reason,
                                   then the traceback (bench.driver.main())
    summary.json, report.md, *.png written by `python3 -m bench analyze`

A results directory (`python3 -m bench run SET...`) holds a point directory
per point, and results.json and results.md over all of them.

config.json, summary.json and results.json carry "format":

  0 (no "format" key): written before the bench was a package; the
    directories committed under bench/results/ are of this format. meta.json
    calls the defaults in force "module_params" (the module's sysfs
    parameters as strings, or mltcp-bpf's status "params").
  1 meta.json calls them "defaults": `mltcpctl -j defaults show global`.

The readers return format 1 whatever they read; raw/ is never committed.
"""
import contextlib
import functools
import glob
import json
import os
import shutil
import tempfile

FORMAT = 1
CONFIG, SUMMARY, RESULTS = "config.json", "summary.json", "results.json"
WINDOW_TRACE = ".window.jsonl"  # beside a worker's log: mltcp-sim's window_trace
SIM_SEEDS = "sim-seeds.json"  # a simulated point's seeds and starts (bench.run.sim_argv())
DRIVER_FAILURE = "driver-failure.txt"  # why the driver failed (bench.driver.main())


class FormatError(ValueError):
    pass


def repeat_indices(cfg):
    """The repeats a configuration runs: "repeats" of them from
    "first_repeat" (default 0). A repeat's seeds and random starts follow its
    index, so a point measured in parts (bench merge) is the point measured
    in one run."""
    first, count = cfg.get("first_repeat", 0), cfg.get("repeats", 1)
    for key, value, least in (("first_repeat", first, 0), ("repeats", count, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError("%s: %r, a whole number from %d" % (key, value, least))
    return range(first, first + count)


def joined_commits(stamps):
    """Commit stamps ("abc1234", or several joined by "+") as one, each
    commit once, in order; None if there are none."""
    commits = []
    for stamp in stamps:
        for commit in (stamp or "").split("+"):
            if commit and commit not in commits:
                commits.append(commit)
    return "+".join(commits) or None


@contextlib.contextmanager
def made_whole(out_path, prefix):
    """A directory to build out_path in: made beside it and renamed to it if
    the block ends without an exception, removed if not, so that out_path is
    made whole or not at all."""
    parent = os.path.dirname(os.path.abspath(out_path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=prefix, dir=parent)
    try:
        yield tmp
        os.rename(tmp, out_path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def read_json(path):
    with open(path) as f:
        return json.load(f)


def dumps(doc, depth=2, indent=0):
    """doc as JSON with its first `depth` levels one item a line, and what
    lies deeper on one line with no spaces: readable and diffable by point
    and by algorithm, at 60% of the bytes of json.dump(indent=1) (the
    committed results stay within their 3 MB)."""
    items = doc.items() if isinstance(doc, dict) else doc if isinstance(doc, list) else None
    if depth <= 0 or not items or \
            all(not isinstance(v, (dict, list)) for v in (doc.values() if isinstance(doc, dict)
                                                         else doc)):
        return json.dumps(doc, separators=(",", ":"))
    pad = " " * (indent + 1)
    if isinstance(doc, dict):
        lines = ["%s%s: %s" % (pad, json.dumps(k), dumps(v, depth - 1, indent + 1))
                 for k, v in items]
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [pad + dumps(v, depth - 1, indent + 1) for v in items]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"


def write_json(path, doc):
    with open(path, "w") as f:
        f.write(dumps(doc) + "\n")


def stamped(doc):
    """doc with this format's stamp (a copy; the stamp comes first)."""
    return dict({"format": FORMAT}, **{k: v for k, v in doc.items() if k != "format"})


def checked(doc, path):
    """doc, if this reader knows its format."""
    version = doc.get("format", 0)
    if not isinstance(version, int) or not 0 <= version <= FORMAT:
        raise FormatError("%s: format %r, this bench reads 0 to %d" % (path, version, FORMAT))
    return doc


class Repeat:
    """One repeat of one algorithm: raw/<algorithm>/rep<index>/."""

    def __init__(self, path, index):
        self.path = path
        self.index = index

    @functools.cached_property
    def meta(self):
        meta = read_json(os.path.join(self.path, "meta.json"))
        if "module_params" in meta:  # format 0
            meta["defaults"] = meta.pop("module_params")
        return meta

    @functools.cached_property
    def samples(self):
        return read_json(os.path.join(self.path, "samples.json"))

    @functools.cached_property
    def records(self):
        """Every worker's log records, worker after worker."""
        records = []
        for log in sorted(glob.glob(os.path.join(self.path, "*.jsonl"))):
            if log.endswith(WINDOW_TRACE):
                continue
            with open(log) as f:
                records += [json.loads(line) for line in f if line.strip()]
        return records

    def window_trace(self, job, rank):
        """A worker's sending window at every change ({"t", "cwnd",
        "ssthresh", "state", and "r", "f" for MLTCP}), or None if the point
        did not trace it."""
        path = os.path.join(self.path, "%s-r%d%s" % (job, rank, WINDOW_TRACE))
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]


class Point:
    """A point directory."""

    def __init__(self, path):
        self.path = path

    def file(self, name):
        return os.path.join(self.path, name)

    def write_config(self, cfg):
        """Start the directory with its configuration; returns it as stored."""
        os.makedirs(self.path, exist_ok=True)
        cfg = stamped(cfg)
        write_json(self.file(CONFIG), cfg)
        return cfg

    def config(self):
        return checked(read_json(self.file(CONFIG)), self.file(CONFIG))

    def repeat_dir(self, algorithm, rep):
        """raw/<algorithm>/rep<rep>/, created: the workers log into it."""
        path = os.path.join(self.path, "raw", algorithm, "rep%d" % rep)
        os.makedirs(path, exist_ok=True)
        return path

    def worker_log(self, algorithm, rep, job, rank):
        return os.path.join(self.repeat_dir(algorithm, rep), "%s-r%d.jsonl" % (job, rank))

    def write_repeat(self, algorithm, rep, meta, samples):
        path = self.repeat_dir(algorithm, rep)
        write_json(os.path.join(path, "meta.json"), meta)
        with open(os.path.join(path, "samples.json"), "w") as f:
            json.dump(samples, f)

    def repeats(self, algorithm):
        """The algorithm's repeats on disk, in order."""
        found = []
        for path in glob.glob(os.path.join(self.path, "raw", algorithm, "rep*")):
            suffix = os.path.basename(path)[3:]
            if suffix.isdigit() and os.path.isdir(path):
                found.append(Repeat(path, int(suffix)))
        return sorted(found, key=lambda r: r.index)

    def write_summary(self, summary):
        write_json(self.file(SUMMARY), stamped(summary))

    def summary(self):
        return checked(read_json(self.file(SUMMARY)), self.file(SUMMARY))

    def write_report(self, text):
        with open(self.file("report.md"), "w") as f:
            f.write(text)


class Results:
    """A results directory: points, results.json and results.md."""

    def __init__(self, path):
        self.path = path

    def point(self, name):
        return Point(os.path.join(self.path, name))

    def write(self, doc, table_md):
        os.makedirs(self.path, exist_ok=True)
        write_json(os.path.join(self.path, RESULTS), stamped(doc))
        with open(os.path.join(self.path, "results.md"), "w") as f:
            f.write(table_md)

    def read(self):
        path = os.path.join(self.path, RESULTS)
        return checked(read_json(path), path)
