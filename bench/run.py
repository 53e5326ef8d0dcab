# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Run bench points and analyze them: the module in the test guest, or the
BPF twin on the host.

    python3 -m bench run [--iterations N] [--repeats N] [--first-repeat K] [--only TEXT]
                         [--algorithms A,B] [--host | --sim] [--out DIR] [--dry-run] SET...
    python3 -m bench run --config FILE.json [--out POINT_DIR] [--dry-run]

SETs are bench/matrix.py's, named by the question they answer (a set's
earlier name is refused with its new one). Each point of a module configuration boots a
guest (scripts/vm-run) that runs the driver; a BPF configuration (`--host`,
or "backend": "bpf") runs the driver on the host after loading this tree's
BPF twin (`mltcpctl bpf load`). The point is analyzed on the host. Results
go to bench/results/<UTC date>-<sets>/: per point its config, summary.json,
report.md and plots, and for the whole run results.json and results.md
stamped with the commit and date they were measured at (raw logs, reports
and plots are kept but not committed: bench/results/README.md). `--config` runs one configuration into one point directory
(default results/<file name>/), as scripts/demo does.

Each point is printed as it starts ("[3/12] ring3-0.2: 3 jobs, ...") with
its estimated duration, and when it ends with the time it took and the
estimated time left (bench/progress.py). `--dry-run` lists the points and
the estimated total, and runs nothing.
"""
import contextlib
import datetime
import fcntl
import json
import os
import subprocess

from bench import analyze, matrix, oracle, paths, progress, rundir
from bench.driver import bottleneck_limit, run_child, start_offsets, where, worker_seed
from testbed import mltcpctl


@contextlib.contextmanager
def host_lock():
    with open(paths.HOST_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def guest_budget_s(cfg):
    """vm-run's timeout for a point, boot included."""
    return max(1200, 600 + cfg["iterations"] * cfg.get("repeats", 1) *
               len(cfg["algorithms"]) * 4)


def failed(cfg, point, what, returncode):
    """bench run's one line for a failed run: the backend where it ran, the
    exit status, and the driver's reason where it wrote one
    (rundir.DRIVER_FAILURE's first line)."""
    reason = None
    try:
        with open(point.file(rundir.DRIVER_FAILURE)) as f:
            reason = f.readline().strip()
    except OSError:
        pass
    return "%s %s failed (%d)%s" % (where(cfg), what, returncode,
                                    ": " + reason if reason else "")


def run_point(cfg, point):
    """Run one configuration into a point directory and analyze it.
    Returns (summary, None) or (summary or None, what went wrong)."""
    # The code measured is the code at the start: a commit that lands
    # while the point runs must not be stamped on it (analyze.summarize()).
    cfg = dict(cfg, commit=cfg.get("commit") or analyze.git_commit())
    point.write_config(cfg)
    # A reason left by an earlier run of this directory is not this run's.
    with contextlib.suppress(FileNotFoundError):
        os.remove(point.file(rundir.DRIVER_FAILURE))
    driver = [paths.SYSTEM_PYTHON, "-m", "bench", "driver", point.path]
    if cfg.get("backend") == "ns-3":
        run = subprocess.run(sim_argv(cfg, point), cwd=paths.TOP, stdin=subprocess.DEVNULL)
        if run.returncode != 0:
            return None, failed(cfg, point, "run", run.returncode)
    elif cfg.get("backend") == "bpf":
        with host_lock():
            # This tree's build, whatever was registered before (unload
            # fails when nothing is: that is fine).
            subprocess.run(mltcpctl.bpf_unload_argv(paths.MLTCPCTL),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            load = subprocess.run(mltcpctl.bpf_load_argv(paths.MLTCPCTL),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if load.returncode != 0:
                err = load.stderr.strip().splitlines()
                return None, "host BPF twin load failed (%d)%s" % (
                    load.returncode, ": " + err[-1] if err else "")
            # A Ctrl-C waits for the driver to undo its changes to the host.
            run = run_child(driver, cwd=paths.TOP, stdin=subprocess.DEVNULL)
    else:
        run = subprocess.run([paths.VM_RUN, "--results", point.path,
                              "--timeout", str(guest_budget_s(cfg)), "--"] + driver,
                             cwd=paths.TOP, stdin=subprocess.DEVNULL)
    if run.returncode != 0:
        return None, failed(cfg, point, "run", run.returncode)
    summary, failures = analyze.analyze_point(point)
    if not failures:
        return summary, None
    # "<job> rank <r> exited <n>: <its stderr>": the stderr's last line
    # (a traceback's exception), not the traceback.
    lines = [line for line in failures[0].strip().splitlines() if line.strip()] or [""]
    first = lines[0] if len(lines) == 1 else \
        "%s: %s" % (lines[0].split(": ", 1)[0], lines[-1].strip())
    return summary, "%s run: %d worker failure%s, first: %s" % (
        where(cfg), len(failures), "" if len(failures) == 1 else "s", first)


def sim_argv(cfg, point):
    """mltcp-sim's command line for a point: the queue the guest's tbf would
    have and the workers' seeds, both computed where the driver computes
    them, the seeds (and a random start's offsets) written beside the
    point's configuration. The simulator's own keys (ack_priority: its
    port's two bands, with no shaper) go to it in the configuration."""
    limit = bottleneck_limit(cfg)
    seeds = {"%s/rep%d/%s/%d" % (alg["name"], rep, job["name"], rank):
             worker_seed("%s/rep%d" % (alg["name"], rep), job["name"], rank)
             for alg in cfg["algorithms"] for rep in rundir.repeat_indices(cfg)
             for job in cfg["jobs"] for rank in range(job.get("ranks", 2))}
    if cfg.get("start", "given") != "given":
        for rep in rundir.repeat_indices(cfg):
            for job, offset_ms in start_offsets(cfg, rep).items():
                seeds["rep%d/%s/offset_us" % (rep, job)] = int(round(offset_ms * 1e3))
    path = point.file(rundir.SIM_SEEDS)
    rundir.write_json(path, seeds)
    return [paths.SIM, "--queue-limit", str(limit), "--seeds", path, point.path]


def table(results):
    lines = ["| point | algorithm | mean ms (repeats min-max) | p99 ms | steady ms | x ideal | "
             "speedup vs cubic (mean/p99) | converged | stable | RTOs | bulk Mbit/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, res in results.items():
        if res.get("error"):
            lines.append("| %s | - | %s |||||||| " % (name, res["error"]))
            continue
        s = res["summary"]
        for alg, a in s["algorithms"].items():
            reps = a["per_repeat_mean_iter_ms"]
            lines.append("| %s (ideal %s ms%s) | %s | %s (%s-%s) | %s | %s | %.3f | %s / %s | %s "
                         "| %d/%d | %s | %s |" % (
                             name, s["ideal_iter_ms"], "" if s["ideal_valid"] else ", unreachable",
                             alg, a["mean_iter_ms"], min(reps), max(reps), a["p99_iter_ms"],
                             a["steady_mean_iter_ms"], a["ratio_to_ideal"],
                             a.get("speedup_mean_vs_cubic", "-"),
                             a.get("speedup_p99_vs_cubic", "-"), a["converged_iteration"],
                             a["stable_repeats"], a["repeats"], a["rtos"],
                             ", ".join("%.1f" % v for v in a.get("bulk_mbit", {}).values()) or "-"))
    return "\n".join(lines)


def results_doc(commit, stamp, sets, results):
    backends = set(res["backend"] for res in results.values())
    backend = " and ".join(sorted(
        "BPF struct_ops twin on the host kernel (%s), no netem" % os.uname().release
        if b == "bpf" else "ns3::TcpMltcp in ns-3 3.37 (build/sim/mltcp-sim)" if b == "ns-3"
        else "tcp_mltcp module in a QEMU TCG guest (Debian 6.1)" for b in backends))
    return {"commit": commit, "date": stamp, "sets": sets, "backend": backend,
            "results": {k: ({"error": v["error"]} if v["summary"] is None else
                            {"error": v["error"], "host_loadavg": v["host_loadavg"],
                             "backend": v["backend"],
                             "ideal_iter_ms": v["summary"]["ideal_iter_ms"],
                             "ideal_valid": v["summary"]["ideal_valid"],
                             "algorithms": {a: {k2: x[k2] for k2 in x if k2 != "jobs"}
                                            for a, x in v["summary"]["algorithms"].items()}})
                        for k, v in results.items()}}


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def configurations(args):
    """The points to run, with the command line's overrides applied."""
    if args.config:
        with open(args.config) as f:
            cfgs = [json.load(f)]
        # A point's config.json names the commit it measured; run again,
        # it measures this checkout's (run_point() stamps it).
        cfgs[0].pop("commit", None)
    else:
        cfgs = []
        for set_name in args.sets:
            kwargs = {}
            if set_name != "smoke":
                if args.iterations:
                    kwargs["iterations"] = args.iterations
                if args.repeats:
                    kwargs["repeats"] = args.repeats
            cfgs += [cfg for cfg in matrix.SETS[set_name](**kwargs)
                     if not args.only or args.only in cfg["name"]]
    if args.config:
        for key in ("iterations", "repeats"):
            if getattr(args, key):
                cfgs[0][key] = getattr(args, key)
    if args.first_repeat is not None:
        if args.first_repeat < 0:
            raise SystemExit("bench run: --first-repeat: 0 or more")
        for cfg in cfgs:
            cfg["first_repeat"] = args.first_repeat
    for cfg in cfgs:
        try:
            rundir.repeat_indices(cfg)
        except ValueError as e:
            raise SystemExit("bench run: %s: %s" % (cfg.get("name", "point"), e))
    if args.host and args.sim:
        raise SystemExit("bench run: --host or --sim, not both")
    if args.host:
        cfgs = [matrix.on_host(cfg) for cfg in cfgs]
    if args.sim:
        cfgs = [matrix.in_sim(cfg) for cfg in cfgs]
    if args.algorithms:
        keep = args.algorithms.split(",")
        for cfg in cfgs:
            cfg["algorithms"] = [a for a in cfg["algorithms"] if a["name"] in keep]
    # The oracle's slots, from the jobs as they run (after --host scaled them).
    return [oracle.resolve(cfg) for cfg in cfgs]


def add_arguments(parser):
    parser.add_argument("sets", nargs="*", metavar="SET", help="bench/matrix.py sets")
    parser.add_argument("--config", metavar="FILE.json", help="run this one configuration")
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--first-repeat", type=int, metavar="K",
                        help="number the repeats from K (default 0): more seeds for a "
                             "point measured already, to be joined by `bench merge`")
    parser.add_argument("--only", help="run only points whose name contains this")
    parser.add_argument("--algorithms", help="comma-separated subset of each point's algorithms")
    parser.add_argument("--out")
    parser.add_argument("--host", action="store_true",
                        help="run on the host kernel with the BPF backend (no VM, no netem)")
    parser.add_argument("--sim", action="store_true",
                        help="run in the ns-3 simulator (build/sim/mltcp-sim), same point")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the points and the estimated time; run nothing")


def refusal(args):
    """Why bench run refuses its command line (one line), or None."""
    for name in args.sets:
        if name in matrix.RETIRED:
            new = matrix.RETIRED[name]
            return ("set %s is now %s" % (name, new) if new else
                    "set %s was deleted (it never ran)" % name)
    unknown = [s for s in args.sets if s not in matrix.SETS]
    if unknown:
        return "unknown set %s (known: %s)" % (", ".join(unknown), ", ".join(matrix.SETS))
    if args.config and args.sets:
        return "give sets or --config, not both"
    if not args.config and not args.sets:
        return "give sets (known: %s) or --config" % ", ".join(matrix.SETS)
    return None


def unbuilt(cfgs):
    """The first program of this checkout's build the points run that is
    not built, or None: mltcp-sim for simulated points, mltcpctl and
    mltcp-trainsim for the others (the guest runs the host's)."""
    for cfg in cfgs:
        needed = ([paths.SIM] if cfg.get("backend") == "ns-3"
                  else [paths.MLTCPCTL, paths.TRAINSIM])
        for program in needed:
            if not os.access(program, os.X_OK):
                return program
    return None


def host_lacks(cfgs, python=paths.SYSTEM_PYTHON):
    """What this host lacks to run the points (one line), or None, found
    before any point runs rather than after hours of others: this
    checkout's programs built, and for real DDP on the host (backend bpf)
    PyTorch in the system's python3."""
    program = unbuilt(cfgs)
    if program:
        return "%s is not built (cmake -S . -B build && cmake --build build)" % program
    torch_here = any(cfg.get("backend") == "bpf" and
                     any(job.get("workload") == "torch" for job in cfg["jobs"]) for cfg in cfgs)
    if torch_here and subprocess.run([python, "-c", "import torch.distributed"],
                                     capture_output=True).returncode:
        return "real DDP on the host needs PyTorch in %s (apt-get install python3-torch)" % python
    return None


def main(args):
    why = refusal(args)
    if why:
        raise SystemExit("bench run: " + why)
    cfgs = configurations(args)
    lacks = None if args.dry_run else host_lacks(cfgs)
    if lacks:
        raise SystemExit("bench run: " + lacks)
    # A configuration file's point may be unnamed: the progress lines use its file's name.
    name = os.path.splitext(os.path.basename(args.config or ""))[0]
    shown = [dict(cfg, name=cfg.get("name", name)) for cfg in cfgs]
    if args.dry_run:
        for line in progress.listing(shown):
            print(line)
        return 0
    status = progress.Progress(shown)
    if args.config:
        point = rundir.Point(os.path.abspath(args.out or os.path.join(paths.TOP, "results",
                                                                      name)))
        status.start(shown[0])
        _, error = run_point(cfgs[0], point)
        status.finish(shown[0], error)
        if error:
            print("bench: %s" % error)
        return 1 if error else 0

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%MZ")
    out = rundir.Results(os.path.abspath(args.out or os.path.join(paths.RESULTS, "%s-%s%s" % (
        stamp, "host-" if args.host else "sim-" if args.sim else "", "+".join(args.sets)))))
    commit = analyze.git_commit()
    results = {}
    for cfg in cfgs:
        status.start(cfg)
        load_before = loadavg()
        summary, error = run_point(cfg, out.point(cfg["name"]))
        status.finish(cfg, error)
        # Other work on the host slows the emulator: keep the evidence.
        results[cfg["name"]] = {"summary": summary, "error": error,
                                "backend": cfg.get("backend", "module"),
                                "host_loadavg": [load_before, loadavg()]}
        # After every point, so that an interrupted run keeps what it measured.
        doc = results_doc(commit, stamp, args.sets, results)
        out.write(doc, "# Bench results\n\nMeasured %s at commit %s, backend: %s.\n\n%s\n" % (
            stamp, commit, doc["backend"], table(results)))
    print(table(results))
    print("bench: results in %s" % out.path)
    return 1 if any(v["error"] for v in results.values()) else 0
