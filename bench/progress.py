# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How long bench points take: the estimate `run --dry-run` lists before
anything runs, and the progress `run` prints as it goes.

A point's estimate is its traffic at the ideal iteration time, stretched by
SLOWDOWN, plus fixed costs: per point (a guest boot and the dumbbell, or the
BPF twin's load; the analysis) and per run (one algorithm, one repeat: the
driver's start delay, workers starting, counters read). While a run goes
on, the time left is the estimate of the points left scaled by how the
points done so far compared with theirs, so a slow host or a busy emulator
corrects it after the first point.
"""
import time

from bench import metrics

# Measured iterations run slower than the ideal: competing jobs overlap
# (1.1-1.3x in host-rules), and the guest's emulator adds its own delays.
SLOWDOWN = 1.3
# Seconds per point: vm-run's boot (about 30 s) and the dumbbell, or the BPF
# twin's reload; then the analysis and plots on the host.
POINT_OVERHEAD_S = {"module": 60.0, "bpf": 15.0, "ns-3": 5.0}
# Seconds per run besides the driver's start delay: workers exiting, counters
# and qdisc statistics read, parameters set for the next algorithm.
RUN_OVERHEAD_S = {"module": 8.0, "bpf": 3.0, "ns-3": 0.5}
# The simulator's speed on this 2-core machine: simulated packets (data
# segments and their ACKs, one per two) per second of wall time, measured
# with tcmalloc, two simulations at once: dc3-sync-ecn, 60 iterations, about
# 4.7 million packets in 80-86 s a run.
SIM_PACKETS_PER_S = 55000


def backend(cfg):
    return cfg.get("backend", "module")


def ideal_iteration_s(cfg):
    """The slowest job's ideal iteration: compute plus its bytes at the
    payload rate of the bottleneck."""
    rate_bps = cfg["rate_mbit"] * 1e6
    return max(metrics.ideal_iteration(j["compute_ms"] / 1e3, j["bytes"], rate_bps)[0]
               for j in cfg["jobs"])


def runs(cfg):
    return cfg.get("repeats", 1) * len(cfg["algorithms"])


def sim_packets(cfg):
    """Packets one run simulates: each job's bytes in each direction it loads."""
    segments = sum(j["bytes"] * (1 if j.get("collective") == "push" else 2)
                   for j in cfg["jobs"]) / 1448
    return cfg["iterations"] * segments * 1.5


def run_s(cfg):
    """One algorithm, one repeat: the start delay (the driver's default when
    the point has none), the latest offset, the iterations, the overhead; in
    the simulator, its packets at its measured speed."""
    if backend(cfg) == "ns-3":
        return sim_packets(cfg) / SIM_PACKETS_PER_S + RUN_OVERHEAD_S["ns-3"]
    setup = cfg.get("setup_s", 4.0 + 1.5 * len(cfg["jobs"]))
    offset = max(j.get("offset_ms", 0) for j in cfg["jobs"]) / 1e3
    return (setup + offset + cfg["iterations"] * ideal_iteration_s(cfg) * SLOWDOWN +
            RUN_OVERHEAD_S[backend(cfg)])


def estimate_s(cfg):
    return POINT_OVERHEAD_S[backend(cfg)] + runs(cfg) * run_s(cfg)


def duration(seconds):
    """4h05m, 12m30s, 45s: the two largest units, rounded down to a second."""
    s = int(max(0, seconds))
    if s >= 3600:
        return "%dh%02dm" % (s // 3600, s % 3600 // 60)
    if s >= 60:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%ds" % s


def describe(cfg):
    """ring3-0.2: 3 jobs, 5 algorithms x 3 repeats x 100 iterations (ideal 1.000 s), guest"""
    return "%s: %d jobs, %d algorithms x %d repeats x %d iterations (ideal %.3f s), %s" % (
        cfg["name"], len(cfg["jobs"]), len(cfg["algorithms"]), cfg.get("repeats", 1),
        cfg["iterations"], ideal_iteration_s(cfg),
        {"bpf": "host", "ns-3": "sim"}.get(backend(cfg), "guest"))


def listing(cfgs):
    """The lines of --dry-run: every point with its estimate, then the total."""
    width = len(str(len(cfgs)))
    lines = ["[%*d/%d] %s, about %s" % (width, i + 1, len(cfgs), describe(cfg),
                                        duration(estimate_s(cfg)))
             for i, cfg in enumerate(cfgs)]
    lines.append("%d points, about %s in all (estimate; nothing was run)"
                 % (len(cfgs), duration(sum(estimate_s(c) for c in cfgs))))
    return lines


class Progress:
    """Prints each point as it starts, and when it ends the time it took and
    the estimated time left. clock and out are the test's to replace."""

    def __init__(self, cfgs, out=print, clock=time.monotonic):
        self.cfgs = cfgs
        self.out = out
        self.clock = clock
        self.width = len(str(len(cfgs)))
        self.done = 0
        self.spent_s = 0.0      # measured, points done
        self.estimated_s = 0.0  # their estimates
        self.started = None

    def tag(self):
        return "[%*d/%d]" % (self.width, self.done + 1, len(self.cfgs))

    def start(self, cfg):
        self.started = self.clock()
        self.out("%s %s, about %s" % (self.tag(), describe(cfg),
                                      duration(estimate_s(cfg) * self.speed())), flush=True)

    def speed(self):
        """Measured over estimated time of the points done (1 before any)."""
        return self.spent_s / self.estimated_s if self.estimated_s else 1.0

    def left_s(self):
        return sum(estimate_s(c) for c in self.cfgs[self.done:]) * self.speed()

    def finish(self, cfg, error=None):
        took = self.clock() - self.started
        tag = self.tag()
        self.done += 1
        self.spent_s += took
        self.estimated_s += estimate_s(cfg)
        left = len(self.cfgs) - self.done
        self.out("%s %s %s in %s; %s" % (
            tag, cfg["name"], "failed (%s)" % error if error else "done", duration(took),
            "%d points left, about %s (%.2fx the estimate so far)" % (
                left, duration(self.left_s()), self.speed()) if left else "all points run"),
            flush=True)
