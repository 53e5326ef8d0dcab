# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the congestion control's own work costs a bulk flow: one flow over
a veth pair with no bottleneck, sender and receiver pinned to one CPU, so
that the CPU is the only limit. mltcp and mltcp_cubic against the kernel's
cubic, in alternating runs (each round runs every algorithm once, the
order rotated from round to round, so that drift in the machine's load
falls on all of them).

    python3 -m bench throughput [--host] [--runs N] [--seconds S] [--cpu N] [--out DIR]

Default: the module, in the test guest (scripts/vm-run boots it and runs
this command with --here inside). --host: this kernel, with this tree's
BPF twin (`mltcpctl bpf load`, under the host lock; unloaded after).
Results go to bench/results/<UTC date>-throughput-<guest|host>/:
results.json (every run's goodput, sender CPU and retransmissions, and per
algorithm its ratio to cubic) and results.md, stamped with the commit and
date. The ratio is per round (the algorithm's run over the same round's
cubic run), reported as median, quartiles and range over the rounds, for
the goodput and for the goodput per CPU second of the two ends (which
discounts time that other work on a shared machine takes from the CPU).
"""
import argparse
import datetime
import os
import statistics
import subprocess

from bench import analyze, paths, rundir
from bench.run import host_lock, loadavg
from testbed import bulk, mltcpctl
from testbed.topology import Netns, ip_batch

ALGORITHMS = ("cubic", "mltcp", "mltcp_cubic")
REFERENCE = "cubic"
METRICS = {"gbit_s": "Gbit/s", "gbit_per_cpu_s": "Gbit per CPU second (both ends)"}
PORT = 5301


class VethPair:
    """Two namespaces on one veth, no qdisc beyond the defaults."""

    def __init__(self, prefix):
        self.snd, self.rcv = Netns(prefix + "-s"), Netns(prefix + "-r")
        try:
            ip_batch(None, [["link", "add", "eth0", "netns", self.snd.name, "type", "veth",
                             "peer", "name", "eth0", "netns", self.rcv.name]])
            for ns, addr in ((self.snd, "10.9.0.1"), (self.rcv, "10.9.0.2")):
                ns.addr = addr
                ip_batch(ns.name, [["addr", "add", addr + "/24", "dev", "eth0"],
                                   ["link", "set", "eth0", "up"]])
        except BaseException:
            self.close()
            raise

    def close(self):
        self.snd.close()
        self.rcv.close()


def iperf_run(net, cc, seconds, cpu):
    """One bulk flow: goodput at the receiver, the sender's CPU share, retransmissions."""
    end, _ = bulk.iperf3(net.snd, net.rcv, cc, seconds, omit=1, port=PORT,
                         prefix=("taskset", "-c", str(cpu)))
    cpu = end["cpu_utilization_percent"]
    gbit_s = bulk.goodput_bps(end) / 1e9
    # Both ends share the CPU: their CPU time over the run's, summed, is the
    # share of it the flow got; goodput per CPU second discounts the time
    # other work on a shared machine took from it.
    busy = (cpu["host_total"] + cpu["remote_total"]) / 100
    return {"cc": cc, "gbit_s": gbit_s, "sender_cpu_percent": cpu["host_total"],
            "receiver_cpu_percent": cpu["remote_total"], "gbit_per_cpu_s": gbit_s / busy,
            "retransmits": bulk.retransmits(end)}


def summarize(runs, rounds):
    """Per algorithm: goodput statistics and the per-round ratio to the reference."""
    by_cc = {cc: [r for r in runs if r["cc"] == cc] for cc in ALGORITHMS}
    summary = {}
    for cc, mine in by_cc.items():
        summary[cc] = {}
        for metric in ("gbit_s", "gbit_per_cpu_s"):
            values = [r[metric] for r in mine]
            ratios = [mine[k][metric] / by_cc[REFERENCE][k][metric] for k in range(rounds)]
            q1, _, q3 = statistics.quantiles(ratios, n=4) if rounds > 1 else (ratios * 3)
            summary[cc][metric] = {
                "median": statistics.median(values), "min": min(values), "max": max(values),
                "ratio_median": statistics.median(ratios), "ratio_q1": q1, "ratio_q3": q3,
                "ratio_min": min(ratios), "ratio_max": max(ratios)}
    return summary


def table(summary):
    lines = ["| algorithm | metric | median (min-max) | ratio to cubic per round: median "
             "(quartiles; min-max) |", "|---|---|---|---|"]
    for cc, metrics in summary.items():
        for metric, s in metrics.items():
            lines.append("| %s | %s | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f; %.3f-%.3f) |" % (
                cc, METRICS[metric], s["median"], s["min"], s["max"], s["ratio_median"],
                s["ratio_q1"], s["ratio_q3"], s["ratio_min"], s["ratio_max"]))
    return "\n".join(lines)


def measure(args, backend):
    """Every round here, on this kernel; returns the results document."""
    net = VethPair("tp%d" % (os.getpid() % 100000))
    runs, load_before = [], loadavg()
    try:
        for k in range(args.runs):
            order = ALGORITHMS[k % len(ALGORITHMS):] + ALGORITHMS[:k % len(ALGORITHMS)]
            for cc in order:
                run = dict(iperf_run(net, cc, args.seconds, args.cpu), round=k)
                print("round %d %-12s %.3f Gbit/s, CPU %.0f%% + %.0f%%, %.3f Gbit/CPU s" % (
                    k, cc, run["gbit_s"], run["sender_cpu_percent"],
                    run["receiver_cpu_percent"], run["gbit_per_cpu_s"]), flush=True)
                runs.append(run)
    finally:
        net.close()
    runs.sort(key=lambda r: r["round"])
    return {"commit": analyze.git_commit(), "date": args.stamp, "backend": backend,
            "kernel": os.uname().release, "cpu": args.cpu, "seconds": args.seconds,
            "rounds": args.runs, "loadavg": [load_before, loadavg()],
            "summary": summarize(runs, args.runs), "runs": runs}


def write(out, doc):
    out.write(doc, "# Bulk throughput, no bottleneck\n\nMeasured %s at commit %s: %s, "
              "kernel %s, %d rounds of %d s, sender and receiver on CPU %d; load average "
              "%s before, %s after.\n\n%s\n" % (
                  doc["date"], doc["commit"], doc["backend"], doc["kernel"], doc["rounds"],
                  doc["seconds"], doc["cpu"], " ".join(doc["loadavg"][0]),
                  " ".join(doc["loadavg"][1]), table(doc["summary"])))


def add_arguments(parser):
    parser.add_argument("--host", action="store_true",
                        help="on this kernel with the BPF twin (default: the module in the guest)")
    parser.add_argument("--here", action="store_true",
                        help="measure on this kernel as it is (what the guest runs)")
    parser.add_argument("--runs", type=int, default=20, help="rounds (default 20)")
    parser.add_argument("--seconds", type=int, default=3, help="per run (default 3)")
    parser.add_argument("--cpu", type=int, default=1, help="the CPU both ends run on (default 1)")
    parser.add_argument("--stamp", help=argparse.SUPPRESS)
    parser.add_argument("--out")


def main(args):
    args.stamp = args.stamp or datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y%m%dT%H%MZ")
    where = "host" if args.host else "guest"
    out = rundir.Results(os.path.abspath(args.out or os.path.join(
        paths.RESULTS, "%s-throughput-%s" % (args.stamp, where))))
    if args.here:
        write(out, measure(args, "tcp_mltcp module in a QEMU TCG guest (Debian 6.1)"))
    elif args.host:
        with host_lock():
            subprocess.run(mltcpctl.bpf_unload_argv(paths.MLTCPCTL),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            subprocess.run(mltcpctl.bpf_load_argv(paths.MLTCPCTL), check=True,
                           stdout=subprocess.DEVNULL)
            try:
                write(out, measure(args, "BPF struct_ops twin on the host kernel"))
            finally:
                subprocess.run(mltcpctl.bpf_unload_argv(paths.MLTCPCTL),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        os.makedirs(out.path, exist_ok=True)
        budget = 600 + args.runs * len(ALGORITHMS) * (args.seconds + 15)
        inner = [paths.SYSTEM_PYTHON, "-m", "bench", "throughput", "--here", "--out", out.path,
                 "--runs", str(args.runs), "--seconds", str(args.seconds),
                 "--cpu", str(args.cpu), "--stamp", args.stamp]
        run = subprocess.run([paths.VM_RUN, "--results", out.path, "--timeout", str(budget),
                              "--"] + inner, cwd=paths.TOP, stdin=subprocess.DEVNULL)
        if run.returncode != 0:
            print("bench throughput: guest run failed (%d)" % run.returncode)
            return 1
    print(open(os.path.join(out.path, "results.md")).read())
    return 0
