#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Run bench matrix sets (bench/matrix.py) in the test guest and tabulate them.

    run_bench.py [--iterations N] [--repeats N] [--out DIR] SET...

Each point boots a guest (scripts/vm-run), runs driver.py, then analyze.py on
the host. Results go to bench/results/<UTC date>-<sets>/: per point its
config, summary.json, report.md and plots (raw logs are kept but not
committed), and for the whole run results.json and results.md stamped with
the commit and date they were measured at.
"""
import argparse
import datetime
import fcntl
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, TOP)
from bench import matrix  # noqa: E402

HOST_LOCK = "/tmp/mltcp-host.lock"
MLTCP_BPF = os.path.join(TOP, "build", "userspace", "bpf", "mltcp-bpf")


def run_point(cfg, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    driver = ["/usr/bin/python3", "bench/driver.py", os.path.join(out_dir, "config.json"),
              os.path.join(out_dir, "raw")]
    if cfg.get("backend") == "bpf":
        # The host kernel itself. Host tests load and unload the same BPF twin
        # and create namespaces: they and host points take this lock in turn.
        with open(HOST_LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            # This tree's build, whatever was registered before.
            subprocess.run([MLTCP_BPF, "unload"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            subprocess.run([MLTCP_BPF, "load"], check=True, stdout=subprocess.DEVNULL)
            vm = subprocess.run(driver, cwd=TOP, stdin=subprocess.DEVNULL)
    else:
        budget = 600 + cfg["iterations"] * cfg["repeats"] * len(cfg["algorithms"]) * 4
        vm = subprocess.run([os.path.join(TOP, "scripts", "vm-run"), "--results", out_dir,
                             "--timeout", str(int(budget)), "--"] + driver,
                            cwd=TOP, stdin=subprocess.DEVNULL)
    if vm.returncode != 0:
        return None, "guest run failed (%d)" % vm.returncode
    an = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "analyze.py"), out_dir], cwd=TOP)
    with open(os.path.join(out_dir, "summary.json")) as f:
        summary = json.load(f)
    return summary, None if an.returncode == 0 else "analysis reported worker failures"


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


def write_results(out, commit, stamp, sets, results):
    """results.json and results.md for the points measured so far: written
    after every point, so an interrupted run keeps what it measured."""
    backends = set(res["backend"] for res in results.values())
    backend = " and ".join(sorted(
        "BPF struct_ops twin on the host kernel (%s), no netem" % os.uname().release
        if b == "bpf" else "tcp_mltcp module in a QEMU TCG guest (Debian 6.1)" for b in backends))
    doc = {"commit": commit, "date": stamp, "sets": sets, "backend": backend,
           "results": {k: ({"error": v["error"]} if v["summary"] is None else
                           {"error": v["error"], "host_loadavg": v["host_loadavg"],
                            "backend": v["backend"],
                            "ideal_iter_ms": v["summary"]["ideal_iter_ms"],
                            "ideal_valid": v["summary"]["ideal_valid"],
                            "algorithms": {a: {k2: x[k2] for k2 in x if k2 != "jobs"}
                                           for a, x in v["summary"]["algorithms"].items()}})
                       for k, v in results.items()}}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("# Bench results\n\nMeasured %s at commit %s, backend: %s.\n\n%s\n" % (
            stamp, commit, doc["backend"], table(results)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", default=["regimes", "offsets", "jobs", "sweep", "models"])
    ap.add_argument("--iterations", type=int)
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--only", help="run only points whose name contains this")
    ap.add_argument("--algorithms", help="comma-separated subset of each point's algorithms")
    ap.add_argument("--out")
    ap.add_argument("--host", action="store_true",
                    help="run on the host kernel with the BPF backend (no VM, no netem)")
    args = ap.parse_args()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%MZ")
    out = args.out or os.path.join(HERE, "results", "%s-%s%s" % (
        stamp, "host-" if args.host else "", "+".join(args.sets)))
    commit = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    results = {}
    for set_name in args.sets:
        kwargs = {}
        if set_name != "smoke":
            if args.iterations:
                kwargs["iterations"] = args.iterations
            if args.repeats:
                kwargs["repeats"] = args.repeats
        for cfg in matrix.SETS[set_name](**kwargs):
            if args.only and args.only not in cfg["name"]:
                continue
            if args.host:
                cfg = matrix.on_host(cfg)
            if args.algorithms:
                keep = args.algorithms.split(",")
                cfg["algorithms"] = [a for a in cfg["algorithms"] if a["name"] in keep]
            print("bench: %s" % cfg["name"], flush=True)
            load_before = open("/proc/loadavg").read().split()[:3]
            summary, error = run_point(cfg, os.path.join(out, cfg["name"]))
            # Other work on the host slows the emulator: keep the evidence.
            results[cfg["name"]] = {"summary": summary, "error": error,
                                    "backend": cfg.get("backend", "module"),
                                    "host_loadavg": [load_before,
                                                     open("/proc/loadavg").read().split()[:3]]}
            write_results(out, commit, stamp, args.sets, results)
    print(table(results))
    print("bench: results in %s" % out)
    if any(v["error"] for v in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
