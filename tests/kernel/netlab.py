# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The traffic of the integration suite, on testbed/topology.py's dumbbell.

The tests' dumbbell: k senders on the left, one receiver on the right, a tbf
bottleneck toward the receiver and netem delay on the way back (the ACK
path), as in the measured rig recipe. On-off flows are mltcp-trainsim's
(one worker pushing to another); flowgen.py remains for what trainsim does
not do: a receiver that stops reading (zero-window stalls).
"""
import json
import os
import threading
import time

import tracefs
from testbed import mltcpctl, paths
from testbed.topology import Dumbbell, Shaping, queue_limit

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWGEN = os.path.join(HERE, "tools", "flowgen.py")
PYTHON = "/usr/bin/python3"
FLOWS = "/sys/kernel/debug/tcp_mltcp/flows"
STATS = "/sys/kernel/debug/tcp_mltcp/stats"


def dumbbell(senders=1, rate_mbit=100, delay_ms=5, buffer_bdp=1.5):
    """rate_mbit and delay_ms set the bottleneck; buffer_bdp sizes the tbf
    queue in bandwidth-delay products of the base RTT (the netem delay)."""
    forward = Shaping(rate_mbit=rate_mbit, burst_bytes=64 * 1024,
                      limit_bytes=queue_limit(rate_mbit, delay_ms, buffer_bdp))
    return Dumbbell(["s%d" % (i + 1) for i in range(senders)], ["r"], forward=forward,
                    reverse=Shaping(delay_ms=delay_ms), prefix="mt%d" % (os.getpid() % 100000))


def start_server(host, port, *extra):
    proc = host.spawn(PYTHON, FLOWGEN, "server", "--port", str(port), *extra)
    line = proc.stdout.readline()
    if line.strip() != "listening":
        raise RuntimeError("flowgen server failed: " + proc.stderr.read())
    return proc


def onoff(host, dst, port, cc, nbytes, idle_ms, iterations, timeout=300, trace=False):
    """flowgen.py onoff, and for explain_starts(): the flow's iteration
    starts as the tracepoint saw them ("starts"), the module's verdicts on
    TX_START events meanwhile ("verdicts", the host's counters: one flow at
    a time) and the sender namespace's idle gap ("idle_gap_us")."""
    tracefs.start()
    try:
        before = read_module_stats()
        out = json.loads(host.run(PYTHON, FLOWGEN, "onoff", "--dst", dst, "--port", str(port),
                                  "--cc", cc, "--bytes", str(nbytes), "--idle-ms", str(idle_ms),
                                  "--iterations", str(iterations),
                                  *(["--trace"] if trace else []), timeout=timeout).stdout)
        after = read_module_stats()
        out["starts"] = [e for e in tracefs.events()
                         if e["sport"] == out["local_port"] and e["dport"] == port]
    finally:
        tracefs.stop()
    out["verdicts"] = {k: after[k] - before[k] for k in after
                       if (k == "iterations" or k.startswith("tx_start_")) and after[k] != before[k]}
    out["idle_gap_us"] = int(host.run("sysctl", "-n", "net.mltcp.idle_gap_us").stdout)
    return out


# Slack between the tracepoint's clock and the application's (both
# CLOCK_MONOTONIC) for when a write's TX_START lies inside the write.
START_SLACK_S = 0.002


def explain_starts(out):
    """Each iteration start of an onoff() flow, matched to what the sender
    did. Every burst after the first starts one iteration at its first
    write. A start elsewhere is explained only where it is the write after
    a pause of the sender's inside a burst of at least the idle gap, with
    nothing unsent or unacked: an idle the module cannot tell from a compute
    phase (a guest descheduled that long under TCG on a busy host),
    counted where no size is known yet (the first burst) or past the first
    1/8 of one. Returns (extra starts explained, the problems, one line per
    burst and per start)."""
    bursts, starts = out["bursts"], out["starts"]
    gap_s = out["idle_gap_us"] / 1e6
    t_zero = bursts[0]["t0"]
    ms = lambda t: (t - t_zero) * 1000.0  # noqa: E731
    lines = ["idle gap %d us; TX_START verdicts meanwhile: %s" % (out["idle_gap_us"],
                                                                 out["verdicts"])]
    for j, b in enumerate(bursts):
        state = out["trace"][j]["before"] if j < len(out.get("trace", ())) else {}
        lines.append("burst %2d at %9.1f ms (ca_state %s cwnd %s), first write %.1f ms, "
                     "acked at %9.1f ms; pauses: %s" % (
                         j, ms(b["t0"]), state.get("ca_state"), state.get("snd_cwnd"),
                         (b["first"][1] - b["first"][0]) * 1000.0, ms(b["acked"]),
                         ", ".join("%.1f ms after %d bytes (at %.1f%s)" % (
                             (p["to"] - p["from"]) * 1000.0, p["sent"], ms(p["from"]),
                             ", drained" if p["drained"] else "")
                             for p in b["pauses"]) or "none"))
    first_start = {}
    extra, problems = 0, []
    for k, e in enumerate(starts):
        ts = e["ts"]
        j = max((i for i, b in enumerate(bursts) if b["t0"] - START_SLACK_S <= ts), default=None)
        b = bursts[j] if j is not None else None
        if b is None or ts > b["acked"] + START_SLACK_S:
            why = "in an idle, not at a write"
        elif j > 0 and j not in first_start and ts <= b["first"][1] + START_SLACK_S:
            first_start[j] = k
            why = "the burst's first write"
        else:
            pause = next((p for p in b["pauses"] if p["to"] - START_SLACK_S <= ts <=
                          p["to_ret"] + START_SLACK_S), None)
            if pause and pause["drained"] and pause["to"] - pause["from"] >= gap_s:
                extra += 1
                why = "EXTRA: the write after a pause of %.1f ms, at %d bytes of the burst" % (
                    (pause["to"] - pause["from"]) * 1000.0, pause["sent"])
            else:
                why = "inside the burst, after no drained pause of the idle gap"
        if not why.startswith(("the burst's", "EXTRA")):
            problems.append("start %d: %s" % (k + 1, why))
        lines.append("start %2d at %9.1f ms (burst %s, +%.1f ms): bytes %d iter_bytes %d "
                     "duration %d us: %s" % (
                         e["iteration"], ms(ts), j, (ts - b["t0"]) * 1000.0 if b else 0.0,
                         e["bytes"], e["iter_bytes"], e["duration_us"], why))
    problems += ["burst %d started no iteration" % j for j in range(1, len(bursts))
                 if j not in first_start]
    if int(out["module"]["iterations"]) != len(starts):
        problems.append("the module counted %s starts, the tracepoint %d" % (
            out["module"]["iterations"], len(starts)))
    return extra, problems, "\n".join(lines)


def onoff_py_pauses(proc):
    """The lines of tests/datapath/onoff.py send ... pauses up to "done":
    per burst, the sender's pauses inside it (onoff.py's Writer)."""
    pauses = []
    line = proc.stdout.readline()
    while line.startswith("burst "):
        pauses.append(json.loads(line.split(" ", 1)[1])["pauses"])
        line = proc.stdout.readline()
    assert line.strip() == "done", line + proc.stderr.read()
    return pauses


def idles_inside(pauses, host):
    """(burst, pause) for each pause of onoff_py_pauses() that the module
    may take for a compute phase: at least host's idle gap, after which the
    socket had nothing unsent or unacked (a guest not run that long on a
    busy host). Each can start an iteration where no size is known yet (the
    first burst) or past the first 1/8 of one."""
    gap_us = int(host.run("sysctl", "-n", "net.mltcp.idle_gap_us").stdout)
    return [(j, p) for j, burst in enumerate(pauses) for p in burst
            if p["drained"] and p["ms"] * 1000 >= gap_us]


def debugfs_flows():
    """The module's flows, one dict per line of its debugfs list."""
    with open(FLOWS) as f:
        return [dict(kv.split("=", 1) for kv in line.split()) for line in f]


class FlowWatcher(threading.Thread):
    """Keeps the last debugfs line of the flow src -> dst (both "addr:port",
    src's port "*" for any), and `ss -tin` of it as seen once from host."""

    def __init__(self, host, src, dst, period_s=0.005):
        super().__init__(daemon=True)
        self.host, self.src, self.dst, self.period = host, src, dst, period_s
        self.last = None
        self.ss = ""
        self.stop = threading.Event()

    def matches(self, flow):
        addr, port = self.src.rsplit(":", 1)
        return flow.get("dst") == self.dst and (
            flow.get("src") == self.src or port == "*" and
            flow.get("src", "").rsplit(":", 1)[0] == addr)

    def run(self):
        while not self.stop.is_set():
            found = [f for f in debugfs_flows() if self.matches(f)]
            if found:
                self.last = found[0]
                if not self.ss:
                    self.ss = self.host.run("ss", "-tin", "dst", self.dst).stdout
            time.sleep(self.period)


def trainsim_onoff(sender, receiver, port, cc, nbytes, idle_ms, iterations, logdir,
                   timeout=300):
    """An on-off flow from sender to receiver: mltcp-trainsim with the push
    collective (rank 0 on sender sends nbytes, waits until they are all
    acknowledged, then "computes" idle_ms; rank 1 on receiver only reads).
    Returns the flow as the module last listed it while it was open
    ("module"), the socket's algorithm ("cc"), and ss's view of it ("ss")."""
    ranks = ((0, sender, receiver), (1, receiver, sender))
    watcher = FlowWatcher(sender, "%s:*" % sender.addr, "%s:%d" % (receiver.addr, port))
    watcher.start()
    workers = []
    for rank, host, peer in ranks:
        log = os.path.join(str(logdir), "onoff-r%d.jsonl" % rank)
        workers.append((log, host.spawn(
            paths.TRAINSIM, "--job", "onoff", "--rank", str(rank), "--world", "2",
            "--collective", "push", "--listen", str(port), "--next", "%s:%d" % (peer.addr, port),
            "--bytes", str(nbytes), "--compute", "%dms" % idle_ms,
            "--iterations", str(iterations), "--cc", cc, "--log", log)))
    try:
        for log, proc in workers:
            proc.wait(timeout=timeout)
            if proc.returncode != 0:
                raise RuntimeError("mltcp-trainsim exited %d: %s" % (proc.returncode,
                                                                       proc.stderr.read()))
    finally:
        watcher.stop.set()
        watcher.join()
    with open(workers[0][0]) as f:
        records = [json.loads(line) for line in f]
    iters = [r for r in records if r["type"] == "iteration"]
    assert len(iters) == iterations and all(r["bytes_sent"] == nbytes for r in iters), records
    return {"cc": iters[-1]["cc"], "iterations": iterations, "bytes": nbytes,
            "comm_s": [r["comm_s"] for r in iters], "module": watcher.last, "ss": watcher.ss}


def write_file(path, value):
    """One write(2) of value, as sysctl and sysfs handlers expect; raises
    OSError with the handler's errno."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def read_module_stats():
    with open(STATS) as f:
        return mltcpctl.parse_module_stats(f.read())
