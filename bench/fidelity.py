# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Fidelity of our CUBIC to the kernel's: bulk goodput of `mltcp_cubic`
against `cubic` in five scenarios, in the test guest (tcp_mltcp loaded).

    python3 -m bench fidelity [--runs N] [--seconds S] [--omit S] [--rate MBIT]
                              [--only NAME] [--out DIR]
    python3 -m bench fidelity --here --out DIR ...   (inside the guest)

A bulk flow never idles, so F is exactly 1 (mltcp_f()): `mltcp_cubic` is
then our RFC 9438 CUBIC alone, what users compare with the kernel's. Each
scenario is a one-sender dumbbell (testbed/topology.py): a tbf at --rate with
a queue of some bandwidth-delay products, half the RTT of netem delay each
way, and netem loss on the data direction. Each run is one iperf3 flow of
--seconds after --omit seconds of start-up are left out; the two algorithms
alternate (which goes first alternates too), so drift of the emulator's
speed falls on both. Without --here, one guest (scripts/vm-run) runs every
scenario; the host then writes results.json (every run's goodput and
retransmissions, the ratio mltcp_cubic / cubic per scenario: mean, min,
max, and the ratio of means) and results.md under
bench/results/<UTC date>-fidelity/, stamped with the commit measured.
"""
import datetime
import os
import statistics
import subprocess

from bench import analyze, paths, rundir
from testbed import bulk

ALGORITHMS = ("cubic", "mltcp_cubic")
TARGET = 0.03  # the review's bound on |ratio - 1|

# name -> (RTT ms, queue in BDPs, loss % on the data direction)
SCENARIOS = {
    "clean": (10, 1.0, 0),
    "loss-0.5%": (10, 1.0, 0.5),
    "loss-2%": (10, 1.0, 2),
    "rtt-100ms": (100, 1.0, 0),
    "shallow": (10, 0.1, 0),
}

RAW = "raw.json"


def scenario_config(name, rate_mbit):
    rtt_ms, buffer_bdp, loss = SCENARIOS[name]
    return {"name": name, "rate_mbit": rate_mbit, "rtt_ms": rtt_ms, "buffer_bdp": buffer_bdp,
            "loss_pct": loss}


def run_scenario(cfg, runs, seconds, omit):
    """Every run of one scenario, in the order run."""
    from testbed.topology import TO_RIGHT, Dumbbell, Shaping, queue_limit

    half = cfg["rtt_ms"] / 2
    forward = Shaping(rate_mbit=cfg["rate_mbit"], delay_ms=half,
                      limit_bytes=queue_limit(cfg["rate_mbit"], cfg["rtt_ms"], cfg["buffer_bdp"]))
    bell = Dumbbell(["snd"], ["rcv"], forward=forward, reverse=Shaping(delay_ms=half),
                    prefix="fi%d" % (os.getpid() % 100000))
    try:
        if cfg["loss_pct"]:
            bell.set_loss(TO_RIGHT, cfg["loss_pct"])
        snd, rcv = bell.left[0], bell.right[0]
        done = []
        for rep in range(runs):
            order = ALGORITHMS if rep % 2 == 0 else ALGORITHMS[::-1]
            for cc in order:
                end, _ = bulk.iperf3(snd, rcv, cc, seconds, omit)
                mbit, retrans = bulk.goodput_bps(end) / 1e6, bulk.retransmits(end)
                done.append({"rep": rep, "cc": cc, "mbit": mbit, "retransmits": retrans})
                print("fidelity: %s rep %d %s %.2f Mbit/s, %s retransmits"
                      % (cfg["name"], rep, cc, mbit, retrans), flush=True)
        return done
    finally:
        bell.close()


def summarize(cfg, runs):
    """Per scenario: goodputs, and mltcp_cubic / cubic per repeat and of the means."""
    by = {cc: {r["rep"]: r["mbit"] for r in runs if r["cc"] == cc} for cc in ALGORITHMS}
    reps = sorted(set(by["cubic"]) & set(by["mltcp_cubic"]))
    ratios = [by["mltcp_cubic"][k] / by["cubic"][k] for k in reps]
    mean = {cc: statistics.mean(by[cc][k] for k in reps) for cc in ALGORITHMS}
    retrans = {cc: statistics.mean(r["retransmits"] for r in runs if r["cc"] == cc)
               for cc in ALGORITHMS}
    ratio_of_means = mean["mltcp_cubic"] / mean["cubic"]
    return {"config": cfg, "runs": runs, "repeats": len(reps),
            "mean_mbit": mean, "stdev_mbit": {cc: statistics.pstdev(by[cc][k] for k in reps)
                                              for cc in ALGORITHMS},
            "mean_retransmits": retrans,
            "ratios": ratios, "ratio_mean": statistics.mean(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios),
            "ratio_of_means": ratio_of_means,
            "within_target": abs(ratio_of_means - 1) <= TARGET}


def table(doc):
    lines = ["| scenario | cubic Mbit/s (sd) | mltcp_cubic Mbit/s (sd) | ratio of means | "
             "ratio per repeat: mean (min-max) | retransmits cubic / mltcp_cubic | within 3% |",
             "|---|---|---|---|---|---|---|"]
    for name, s in doc["scenarios"].items():
        miss = abs(s["ratio_of_means"] - 1) - TARGET
        lines.append("| %s | %.2f (%.2f) | %.2f (%.2f) | %.4f | %.4f (%.4f-%.4f) | %.0f / %.0f | %s |"
                     % (name, s["mean_mbit"]["cubic"], s["stdev_mbit"]["cubic"],
                        s["mean_mbit"]["mltcp_cubic"], s["stdev_mbit"]["mltcp_cubic"],
                        s["ratio_of_means"], s["ratio_mean"], s["ratio_min"], s["ratio_max"],
                        s["mean_retransmits"]["cubic"], s["mean_retransmits"]["mltcp_cubic"],
                        "yes" if s["within_target"] else "no, by %.1f points" % (100 * miss)))
    return "\n".join(lines)


def describe(doc):
    p = doc["params"]
    return ("# CUBIC fidelity: mltcp_cubic vs the kernel's cubic\n\n"
            "Measured %s at commit %s: tcp_mltcp in a QEMU TCG guest (Debian 6.1), one bulk "
            "iperf3 flow per run through a %d Mbit/s tbf, %d runs of %d s per algorithm and "
            "scenario (the first %d s left out), algorithms alternating. Ratio: "
            "mltcp_cubic goodput / cubic goodput; the target is within 3%%.\n\n"
            "Command: `%s`\n\n%s\n" % (doc["date"], doc["commit"], p["rate_mbit"], p["runs"],
                                       p["seconds"], p["omit"], doc["command"], table(doc)))


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=5, help="runs per algorithm and scenario")
    parser.add_argument("--seconds", type=int, default=20, help="measured seconds per run")
    parser.add_argument("--omit", type=int, default=2, help="start-up seconds left out")
    parser.add_argument("--rate", type=int, default=50, help="bottleneck Mbit/s")
    parser.add_argument("--only", action="append", choices=sorted(SCENARIOS),
                        help="run only this scenario (repeatable)")
    parser.add_argument("--out", help="results directory (default bench/results/<date>-fidelity)")
    parser.add_argument("--here", action="store_true",
                        help="run the scenarios in this kernel (the guest) and write raw.json")


def scenario_names(args):
    return args.only or list(SCENARIOS)


def main(args):
    if args.here:
        runs = {}
        for name in scenario_names(args):
            cfg = scenario_config(name, args.rate)
            runs[name] = {"config": cfg,
                          "runs": run_scenario(cfg, args.runs, args.seconds, args.omit)}
            rundir.write_json(os.path.join(args.out, RAW), runs)
        return 0

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%MZ")
    # The commit the guest's module is built from: read before the run,
    # which takes long enough for the checkout to move on.
    commit = analyze.git_commit()
    out = rundir.Results(os.path.abspath(args.out or os.path.join(paths.RESULTS,
                                                                  stamp + "-fidelity")))
    os.makedirs(out.path, exist_ok=True)
    params = {"runs": args.runs, "seconds": args.seconds, "omit": args.omit,
              "rate_mbit": args.rate}
    inner = [paths.SYSTEM_PYTHON, "-m", "bench", "fidelity", "--here", "--out", out.path,
             "--runs", str(args.runs), "--seconds", str(args.seconds), "--omit", str(args.omit),
             "--rate", str(args.rate)] + sum((["--only", n] for n in args.only or []), [])
    budget = 300 + len(scenario_names(args)) * args.runs * 2 * (args.seconds + args.omit + 8)
    guest = subprocess.run([paths.VM_RUN, "--results", out.path, "--timeout", str(budget),
                            "--"] + inner, cwd=paths.TOP, stdin=subprocess.DEVNULL)
    raw_path = os.path.join(out.path, RAW)
    if not os.path.exists(raw_path):
        print("bench fidelity: the guest wrote no %s (exit %d)" % (RAW, guest.returncode))
        return 1
    raw = rundir.read_json(raw_path)
    doc = {"commit": commit, "date": stamp, "params": params,
           "command": "python3 -m bench fidelity --runs %d --seconds %d --omit %d --rate %d%s" % (
               args.runs, args.seconds, args.omit, args.rate,
               "".join(" --only " + n for n in args.only or [])),
           "scenarios": {name: summarize(r["config"], r["runs"]) for name, r in raw.items()}}
    out.write(doc, describe(doc))
    print(describe(doc))
    print("bench: results in %s" % out.path)
    if guest.returncode != 0:
        print("bench fidelity: guest exit %d; the table holds the scenarios it finished"
              % guest.returncode)
    return 0 if guest.returncode == 0 and len(raw) == len(scenario_names(args)) else 1
