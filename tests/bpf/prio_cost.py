#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What progress priority costs the BPF twin per ACK, on this machine's kernel:
the same iterated traffic with prio 0 (off) and prio K, alternating, and the
kernel's own accounting of the twin's programs (kernel.bpf_stats_enabled=1:
run_time_ns / run_cnt of mltcp_acked, the per-ACK hook, and mltcp_cwnd_evt).

    tests/bpf/prio_cost.py [--repeats 5] [--iterations 40] [--classes 4]

Needs root; loads the twin (build/bpf via mltcpctl) and unloads it after,
and sets kernel.bpf_stats_enabled back to what it was. Takes the host lock
(/tmp/mltcp-host.lock), as the host tests do. Prints one line per run and
the medians."""
import argparse
import fcntl
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostnet import run  # noqa: E402
import test_prio_wire as t  # noqa: E402

PROGS = ("mltcp_acked", "mltcp_cwnd_evt")
STATS = Path("/proc/sys/kernel/bpf_stats_enabled")


def prog_stats():
    out = {}
    for p in json.loads(run("bpftool", "-j", "prog", "show").stdout):
        if p.get("name") in PROGS:
            ns, cnt = out.get(p["name"], (0, 0))
            out[p["name"]] = (ns + p.get("run_time_ns", 0), cnt + p.get("run_cnt", 0))
    return out


def one_run(classes, iterations):
    t.tool("defaults", "set", "global", "prio", str(classes))
    before = prog_stats()
    proc = subprocess.Popen(["ip", "netns", "exec", t.NS_A, sys.executable, "-c", t.SENDER,
                             t.ADDR[4][1], str(t.PORT), "mltcp", str(t.SIZE), str(iterations),
                             "30", "-1", "65536"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().startswith("sport")
    assert proc.stdout.readline().strip() == "done"
    proc.communicate("\n", timeout=30)
    after = prog_stats()
    return {name: ((after[name][0] - before[name][0]), (after[name][1] - before[name][1]))
            for name in PROGS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--classes", type=int, default=4)
    args = ap.parse_args()
    old = STATS.read_text().strip()
    results = {0: [], args.classes: []}
    with open("/tmp/mltcp-host.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with t.topology():
            try:
                STATS.write_text("1\n")
                for r in range(args.repeats):
                    for k in (0, args.classes) if r % 2 == 0 else (args.classes, 0):
                        res = one_run(k, args.iterations)
                        ns, cnt = res["mltcp_acked"]
                        ens, ecnt = res["mltcp_cwnd_evt"]
                        results[k].append((ns / cnt, ens / max(ecnt, 1)))
                        print(f"prio {k}: mltcp_acked {cnt} runs {ns / cnt:.1f} ns/run; "
                              f"mltcp_cwnd_evt {ecnt} runs {ens / max(ecnt, 1):.1f} ns/run",
                              flush=True)
            finally:
                STATS.write_text(old + "\n")
    for k, rows in results.items():
        acked = [a for a, _ in rows]
        evt = [e for _, e in rows]
        print(f"median prio {k}: mltcp_acked {statistics.median(acked):.1f} ns/run "
              f"(range {min(acked):.1f}-{max(acked):.1f}), mltcp_cwnd_evt "
              f"{statistics.median(evt):.1f} ns/run (range {min(evt):.1f}-{max(evt):.1f}), "
              f"{len(rows)} runs")


if __name__ == "__main__":
    main()
