# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The traffic of the integration suite, on bench/topology.py's dumbbell.

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

from bench import mltcpctl, paths
from bench.topology import Dumbbell, Shaping, queue_limit

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
    out = host.run(PYTHON, FLOWGEN, "onoff", "--dst", dst, "--port", str(port),
                   "--cc", cc, "--bytes", str(nbytes), "--idle-ms", str(idle_ms),
                   "--iterations", str(iterations), *(["--trace"] if trace else []),
                   timeout=timeout).stdout
    return json.loads(out)


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
