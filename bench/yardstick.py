# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The yardstick (issue 37, item 1): its points, and its table.

    python3 -m bench run yardstick          # the whole set
    python3 -m bench run yardstick-quick    # a subset, under 15 minutes here
    python3 -m bench yardstick-table [-j] DIR [DIR...]

The table gives, from the summary.json the analysis wrote (nothing is
recomputed from raw logs), per point cubic's median repeat mean over the
ideal, and per point and rule:
  - repeats N;
  - efficiency: ideal / the median over repeats of a repeat's mean
    iteration, with its spread (ideal over the slowest and the fastest
    repeat's mean);
  - headroom: (cubic - rule) / (cubic - ideal), of those medians, the share
    of the headroom over cubic the rule attained; only at "headroom" points,
    where cubic's median is at least HEADROOM_CUBIC (1.15) x the ideal,
    else "-"; cubic from the point's own run, else from another run given
    of the same point (bench.regime.cubic_beside());
  - p99 / ideal: the median over repeats of each repeat's nearest-rank p99
    with their spread, from "per_repeat_p99_iter_ms"; summaries written
    before the analysis kept it give only "p99_iter_ms", the repeats' mean,
    marked "(mean)" (JSON: "p99_of");
  - p99 / ideal past iteration 3: the same over the iterations after the
    three issue 37 allows for settling (bench.metrics.SETTLING_ITERATIONS;
    "-" for summaries written before it); informative: the target counted
    below is the p99 of all;
  - worst job x cubic: the largest, over the point's jobs, of the job's mean
    iteration under the rule over its mean under cubic (means over the
    repeats: the summary keeps no per-repeat job figures);
  - stable n/N: repeats whose interleaving converged with the last half of
    the run to spare (bench.metrics, the summary's "stable_repeats");
  - convergence: the median converged iteration over the repeats that
    converged, "-" where fewer than half did (bench.regime.median_convergence),
    with the spread of those that did.
A point given in several result directories (runs of one point,
bench.regime.same_point()) is one point: its rows take every rule either
run ran (merged()). A rule whose run had worker failures is shown, marked
EXCLUDED, and counted nowhere; a cubic so marked is no reference. A point
whose jobs' ideal periods differ is marked "no fixed interleaving": the
ideal is then a lower bound, not a target (periods not multiples of each
other slide past each other), and a note under the table gives what one
common period reaches (bench.metrics.fixed_interleaving()).
A line per rule ends the table: of the headroom points whose ideal a fixed
interleaving reaches and that have no random loss, how many meet each of
issue 37's targets (TARGETS) and how many meet all of them; then of the
points where the ideal is no target (incompatible, periods that differ,
random loss), how many meet the issue's targets there (GUARDS: mean and
p99, the medians over repeats, no worse than cubic's; queue drops, the
mean over repeats, at most twice cubic's).

`-j` prints the same rows and summary lines as one JSON document.
"""
import json
import statistics

from bench import matrix, metrics, oracle, regime

# --- the set --------------------------------------------------------------

# The simulator's rules: ai at the line the data-center set measured it at
# (bench.matrix.SIM_SET_LINE, the figures issue 37 cites), and today's
# default as it ships (md-restart at bench.matrix.DEFAULT_PARAMS).
SIM_RULES = [{"name": "cubic", "cc": "cubic"},
             matrix.sim_set_alg("ai", "ai"),
             matrix.mltcp_alg("md-restart", "md-restart")]
SIM_ECN_RULES = SIM_RULES + [{"name": "dctcp", "cc": "ns3-dctcp"}]


def sim_prio_alg(name, classes, mode="md-restart", slope=matrix.DEFAULT_PARAMS["slope"],
                 intercept=matrix.DEFAULT_PARAMS["intercept"], static=False):
    """A progress-priority rule for the simulator: an MLTCP line and mode with
    K = classes (the core's CS1..CS<K> DSCPs), passed to ns3::TcpMltcp as the
    algorithm's "prio" (mltcpctl defaults show -j's shape); static: the
    control that gives job j (from 1) the class (j - 1) mod K instead of its
    progress."""
    prio = {"classes": classes}
    if static:
        prio["static"] = True
    return dict(matrix.mltcp_alg(name, mode, slope, intercept), prio=prio)


# Progress priority (issue 37 item 2) and its controls, in the simulator:
# prio (today's default md-restart line plus K = 4), prio-k2 (K = 2),
# prio-only (K = 4 over the neutral line, slope 0 intercept 1 in mode ai:
# F = 1 and no restart, ordering alone), prio-k1 (one training class: the
# isolation from best effort without any order) and prio-static (K = 4, a
# fixed class per job: order without progress); prio-marked (prio with the
# jobs marking their steps, as with the DDP hook: iterations at the marks,
# sizes trusted from the second).
SIM_PRIO_RULES = [sim_prio_alg("prio", 4), sim_prio_alg("prio-k2", 2),
                  sim_prio_alg("prio-only", 4, "ai", "0", "1"),
                  sim_prio_alg("prio-k1", 1), sim_prio_alg("prio-static", 4, static=True),
                  dict(sim_prio_alg("prio-marked", 4), marked=True)]
# Every simulated point's ports are the emulated switch (design section 5)
# with all seven class selectors CS1..CS7 as training classes, whatever the
# rule: cubic's and DCTCP's DSCP 0 is best effort, alone on the port as
# before; a rule with K classes uses CS1..CS<K>.
SIM_PORT_CLASSES = {"prio_dscps": [8, 16, 24, 32, 40, 48, 56]}
# The host's: cubic, ai and md-restart at the shipped line; the host's
# bottleneck (the emulated switch, htb) marks no ECN, so no DCTCP.
HOST_RULES = matrix.candidates("cubic", "ai", "md-restart") + [oracle.RULE]


def host_prio_alg(name, classes, mode="md-restart", slope=matrix.DEFAULT_PARAMS["slope"],
                  intercept=matrix.DEFAULT_PARAMS["intercept"]):
    """A progress-priority rule for the host: a mode at a line, and K classes
    (`mltcpctl defaults set ... prio K`; the DSCPs the defaults', CS1..CSK)."""
    alg = matrix.mltcp_alg(name, mode, slope, intercept)
    alg["params"]["prio"] = classes
    return alg


# Progress priority on the host (BPF twin; issue 37): prio, today's default
# line with K = 4; prio-k2, K = 2; prio-only, K = 4 over the neutral line
# (slope 0, intercept 1 in mode ai: F = 1 and no restart, ordering alone,
# as the simulator's); the control prio-k1, one training class above
# best effort, FIFO within; and prio-marked, prio with each trainsim job's
# ranks marking its iterations (a marked job per job, mltcp-trainsim
# --mark), the simulator's prio-marked on a real TCP stack: iterations at
# the marks, sizes trusted from the second.
HOST_PRIO_RULES = [host_prio_alg("prio", 4), host_prio_alg("prio-k2", 2),
                   host_prio_alg("prio-only", 4, "ai", "0", "1"),
                   host_prio_alg("prio-k1", 1),
                   dict(host_prio_alg("prio-marked", 4), marked=True)]
# Every host point's bottleneck: the emulated switch (testbed.topology,
# shaper "prio"), a property of the fabric, not of the rule. Traffic of
# DSCP 0 (cubic, and every rule's data without priority) meets one FIFO.
HOST_SWITCH = {"shaper": "prio"}
# The lossy point's random loss, per frame either way, offloads off.
HOST_LOSS_PCT = 1
# The simulator's ports: drop-tail and ECN step marking (bench.matrix.DC_SET_PORTS).
PORTS = ("droptail", "ecn")
SIM_SEEDS, CLUSTER_SEEDS, HOST_REPEATS = 10, 3, 5
# The detector's idle gap, as in the data-center set: below the shortest
# compute phase (15 ms) and far above any pause inside a phase.
IDLE_GAP_US = "2000"
# The heterogeneous mix: (fraction, period over MIX_PERIOD_MS); fractions
# 0.1-0.35 summing to 0.8, periods within 1.5x of each other (not multiples
# of each other: no fixed interleaving reaches the ideal exactly).
MIX_PERIOD_MS = 25.0
MIX = ((0.35, 1.0), (0.2, 1.2), (0.15, 1.5), (0.1, 1.0))
# The incompatible point: three jobs of 0.4, summing to 1.2.
OVER_COUNT, OVER_FRACTION = 3, 0.4
# The framework patterns (issue 38; docs/trainsim.md, "Patterns"): a label
# and the jobs' keys. ddp: DDP's buckets (scaled to the point's bytes)
# overlapped with the compute; nccl4: NCCL's chunks over 4 sockets per
# connection.
PATTERNS = (("ddp", {"pattern": "ddp"}), ("nccl4", {"pattern": "nccl", "sockets": 4}))
# The host's: NCCL's on the demo's pair, ACKs first.
HOST_PATTERNS = (("nccl4", {"pattern": "nccl", "sockets": 4}),)


def start_seed(point, *args):
    """The start_seed of a random-start point (bench.driver.start_offsets()):
    a string of the point's kind and its parameters, frozen here and apart
    from its display name, so that renaming a point keeps its starts. Each
    equals the name the point had when the key came (so the starts the
    committed runs drew are drawn again); keep them as they are."""
    return START_SEEDS[point] % args


START_SEEDS = {"sim": "yard-sim-%djobs-random-%s", "mix": "yard-sim-mix4-random-%s",
               "over": "yard-sim-%dx%g-over-random-ecn", "host": "yard-host-4jobs-random-%s"}


def sim_ports(port):
    return dict(matrix.DC_TCP, **matrix.DC_SET_PORTS[port])


def yard_sim_point(name, jobs, port, start, iterations, repeats, period_ms, seed=None):
    keys = dict(sim_ports(port), **SIM_PORT_CLASSES)
    if start == "random":
        keys["start_seed"] = seed
    cfg = matrix.sim_point(name, jobs, matrix.DC_RATE_MBIT, matrix.DC_SET_RTT_MS,
                           matrix.DC_BUFFER_BYTES, iterations, repeats,
                           (SIM_ECN_RULES if "ecn_mark_bytes" in keys else SIM_RULES) +
                           SIM_PRIO_RULES + [oracle.RULE],
                           period_ms=period_ms, start=start, **keys)
    cfg["default_params"] = dict(cfg["default_params"], idle_gap_us=IDLE_GAP_US)
    return cfg


def sim_points(iterations, repeats):
    """The data-center regime (bench.matrix.data_center()'s: 10 Gbit/s, 10 us,
    200 kB, every phase 1000 base RTTs, fractions summing to 0.8):
    yard-sim-<n>jobs-<sync|random>-<port> for 2, 3, 4 and 8 exchanging jobs;
    yard-sim-mix4-<start>-<port>, the heterogeneous mix;
    yard-sim-3x0.4-over-random-ecn, the incompatible point; and
    yard-sim-2jobs-<ddp|nccl4>-random-ecn, the two jobs of
    yard-sim-2jobs-random-ecn (its starts too) sending as DDP and as NCCL
    (PATTERNS)."""
    out = []
    phase_ms = matrix.DC_SET_PHASE_RTTS * matrix.DC_SET_RTT_MS
    for count in (2, 3, 4, 8):
        fraction = matrix.DC_SET_LOAD / count
        period_ms = phase_ms / fraction
        for start in ("sync", "random"):
            for port in PORTS:
                jobs = matrix.identical_jobs(count, fraction, period_ms, matrix.DC_RATE_MBIT,
                                             "exchange")
                out.append(yard_sim_point("yard-sim-%djobs-%s-%s" % (count, start, port), jobs,
                                          port, "random" if start == "random" else "given",
                                          iterations, repeats, period_ms,
                                          start_seed("sim", count, port)))
    for start in ("sync", "random"):
        for port in PORTS:
            jobs = [matrix.job_for_fraction("job%d" % (i + 1), fraction, MIX_PERIOD_MS * scale,
                                            matrix.DC_RATE_MBIT)
                    for i, (fraction, scale) in enumerate(MIX)]
            for job in jobs:
                job["collective"] = "exchange"
            out.append(yard_sim_point("yard-sim-mix4-%s-%s" % (start, port), jobs, port,
                                      "random" if start == "random" else "given", iterations,
                                      repeats, MIX_PERIOD_MS, start_seed("mix", port)))
    period_ms = phase_ms / OVER_FRACTION
    jobs = matrix.identical_jobs(OVER_COUNT, OVER_FRACTION, period_ms, matrix.DC_RATE_MBIT,
                                 "exchange")
    out.append(yard_sim_point("yard-sim-%dx%g-over-random-ecn" % (OVER_COUNT, OVER_FRACTION),
                              jobs, "ecn", "random", iterations, repeats, period_ms,
                              start_seed("over", OVER_COUNT, OVER_FRACTION)))
    burst = next(cfg for cfg in out if cfg["name"] == "yard-sim-2jobs-random-ecn")
    for label, keys in PATTERNS:
        out.append(with_pattern(burst, "yard-sim-2jobs-%s-random-ecn" % label, keys))
    return out


def with_pattern(cfg, name, keys):
    """cfg's point renamed, its jobs sending with a pattern's keys."""
    return dict(cfg, name=name, jobs=[dict(job, **keys) for job in cfg["jobs"]])


def cluster_points(iterations, repeats):
    """The cluster set's 16-job leaf-spine placements (bench.matrix.cluster_point(),
    placement seed 1): fraction 0.2, compatible (busiest link 0.8), and 0.4,
    not (1.6): yard-cluster16-compatible, yard-cluster16-over; drop-tail,
    the yardstick's simulator rules."""
    out = []
    for fraction, kind in ((0.2, "compatible"), (0.4, "over")):
        cfg = matrix.cluster_point(16, fraction, iterations, repeats)
        cfg["name"] = "yard-cluster16-%s" % kind
        cfg["algorithms"] = SIM_RULES + SIM_PRIO_RULES
        cfg.update(SIM_PORT_CLASSES)
        out.append(cfg)
    return out


def host_points(iterations, repeats):
    """The host kernel with the BPF twin, the demo's rate and buffer (200
    Mbit/s, 256 KiB a class, exchanging jobs, 200 ms ideal period), every
    point through the emulated switch (HOST_SWITCH): with the hosts' pure
    ACKs unmarked, best effort beside the data, a FIFO for every rule
    without priority ("fifo"), and marked EF by every host for every rule,
    served first (mltcpctl ackmark, as bench/configs/demo.json: "acksfirst").
    A progress-priority rule marks them at either (the driver).
    yard-host-pair-<fifo|acksfirst> (two jobs of 0.4, synchronized, the
    demo's pair), yard-host-3jobs-<...> (three of 0.3, synchronized),
    yard-host-4jobs-random-<...> (four of 0.2 from random starts); and
    yard-host-pair-acksfirst-loss1, the demo's pair with HOST_LOSS_PCT (1%)
    random loss either way (issue 37 item 6); yard-host-pair-nccl4-acksfirst,
    the demo's pair sending as NCCL over 4 sockets per connection
    (HOST_PATTERNS). Rules: HOST_RULES and HOST_PRIO_RULES."""
    out = []
    for bottleneck, extra in (("fifo", HOST_SWITCH),
                              ("acksfirst", dict(HOST_SWITCH, ack_priority="dscp"))):
        for label, count, fraction, start in (("pair", 2, 0.4, "given"),
                                              ("3jobs", 3, 0.3, "given"),
                                              ("4jobs-random", 4, 0.2, "random")):
            jobs = matrix.identical_jobs(count, fraction, matrix.HOST_PERIOD_MS,
                                         matrix.HOST_RATE_MBIT)
            cfg = matrix.host_point("yard-host-%s-%s" % (label, bottleneck), jobs, 262144,
                                    iterations, repeats, HOST_RULES + HOST_PRIO_RULES)
            cfg.update(extra)
            if start != "given":
                cfg["start"] = start
                cfg["start_seed"] = start_seed("host", bottleneck)
            out.append(cfg)
    pair = next(cfg for cfg in out if cfg["name"] == "yard-host-pair-acksfirst")
    out.append(dict(pair, name="yard-host-pair-acksfirst-loss%g" % HOST_LOSS_PCT,
                    loss_pct=HOST_LOSS_PCT))
    for label, keys in HOST_PATTERNS:
        out.append(with_pattern(pair, "yard-host-pair-%s-acksfirst" % label, keys))
    return out


# Real DDP (issue 38 item 5): PyTorch over gloo, two jobs, on the host
# with the BPF twin through the emulated switch with pure ACKs first. Rules:
# cubic; today's default finding iterations from idles (md-restart);
# the default told the steps by DDP's hook (mltcp.StepMarker, a marked job
# per torch job); and progress priority (K = 4) on the marked steps, which
# idles alone rarely make trusted for gloo.
TORCH_RULES = [{"name": "cubic", "cc": "cubic"},
               matrix.mltcp_alg("md-restart", "md-restart"),
               dict(matrix.mltcp_alg("md-restart-marked", "md-restart"), marked=True),
               dict(host_prio_alg("prio-marked", 4), marked=True)]
TORCH_REPEATS, TORCH_ITERATIONS = 5, 20


def torch_points(iterations=TORCH_ITERATIONS, repeats=TORCH_REPEATS):
    """bench.matrix.torch_ddp()'s points (two jobs of fraction 0.4 of a 1 s
    ideal period: two ranks with one all-reduce per step, two ranks with
    1 MB buckets, four ranks in gloo's ring with one all-reduce, two ranks
    with DDP's default buckets overlapping half the compute) on the host at
    the host points' rate and buffer (bytes scaled with the rate, keeping
    the fraction), ACKs first: yard-host-torch-<point>-acksfirst. The
    ideal ignores the overlap of the last point (a bound, not a target)."""
    out = []
    for cfg in matrix.torch_ddp(iterations=iterations, repeats=repeats):
        host = matrix.on_host(cfg, rate_mbit=matrix.HOST_RATE_MBIT, buffer_bytes=262144)
        host.update(HOST_SWITCH, ack_priority="dscp", algorithms=TORCH_RULES,
                    name="yard-host-%s-acksfirst" % cfg["name"])
        out.append(host)
    return out


def yardstick(iterations=100, repeats=None):
    """The yardstick (issue 37, item 1) as the bench can run it today:
    points with headroom (cubic at 1.15x the ideal or worse) and without,
    every rule against cubic on the same starts.
    - The simulator's data-center regime (bench.matrix.data_center()'s
      network and jobs), SIM_SEEDS (10) seeds each: 2, 3, 4 and 8
      exchanging jobs, synchronized and from random starts, on a drop-tail
      and on an ECN-marking port; a heterogeneous mix of four jobs
      (fractions 0.1-0.35, periods within 1.5x) likewise; one incompatible
      point (three jobs of 0.4: 1.2); two jobs sending as DDP and as NCCL
      over 4 sockets (PATTERNS); and the 16-job leaf-spine placements,
      compatible and not, CLUSTER_SEEDS (3) seeds.
    - The host kernel (BPF twin), HOST_REPEATS (5) repeats each, through
      the emulated switch of progress priority: the demo's pair with pure
      ACKs in the data's FIFO and with ACKs first, three jobs, four jobs
      from random starts, on both; the pair with ACKs first and 1% random
      loss; the pair with ACKs first sending as NCCL over 4 sockets; the
      progress-priority rules beside the baselines (HOST_PRIO_RULES, with
      prio-marked: the jobs marking their iterations).
    - Real DDP on the host (torch_points(): TORCH_RULES, TORCH_REPEATS (5)
      repeats of TORCH_ITERATIONS (20) steps, whatever iterations says).
    - Rules: cubic, DCTCP where the port marks ECN (the simulator's), the
      paper's ai (in the simulator at the line the data-center set measured
      it at, SIM_SET_LINE; on the host at the shipped line, as host-rules),
      today's default md-restart at the shipped line (DEFAULT_PARAMS);
      in the simulator also progress priority and its controls
      (SIM_PRIO_RULES: prio, prio-k2, prio-only, prio-k1, prio-static,
      prio-marked),
      every simulated port the emulated switch (SIM_PORT_CLASSES: CS1..CS7
      served in strict priority, DSCP 0 best effort) whatever the rule; and
      the oracle time-shift schedule (bench/oracle.py: cubic, jobs started at
      the ideal interleaving's offsets and re-aligned to them every
      iteration) at every point but the leaf-spine ones, which have no one
      shared bottleneck for its schedule.
    Random starts are drawn from the point's start_seed
    (start_seed(), apart from its name) and the repeat
    (bench.driver.start_offsets()): renaming a point keeps its starts.
    repeats, where given, replaces every point's own."""
    points = (sim_points(iterations, repeats or SIM_SEEDS) +
              cluster_points(iterations, repeats or CLUSTER_SEEDS) +
              host_points(iterations, repeats or HOST_REPEATS) +
              torch_points(repeats=repeats or TORCH_REPEATS))
    return points


# The quick subset: one point of each backend with headroom, at fewer
# iterations (the stability metric's tail is then the last half) and
# repeats: QUICK_POINTS, each with its repeats. The simulator's estimate
# runs short (issue 37 item 6: 2.6x at dc points), so its point keeps two.
# The controls (QUICK_LEAVES: one training class, a fixed class per job)
# answer how priority works, not which rule ships; they run in the full set.
QUICK_POINTS = {"yard-sim-2jobs-random-ecn": 2, "yard-host-pair-fifo": 3}
QUICK_ITERATIONS = 30
QUICK_LEAVES = ("prio-k1", "prio-static")


def yardstick_quick(iterations=QUICK_ITERATIONS, repeats=None):
    """A subset of the yardstick that runs in under 15 minutes on the
    project's 2-core machine: QUICK_POINTS at QUICK_ITERATIONS (30)
    iterations, every rule of each but the controls (QUICK_LEAVES);
    repeats, where given, replaces theirs."""
    return [dict(cfg, repeats=repeats or QUICK_POINTS[cfg["name"]],
                 algorithms=[a for a in cfg["algorithms"] if a["name"] not in QUICK_LEAVES])
            for cfg in yardstick(iterations) if cfg["name"] in QUICK_POINTS]


# --- the table ------------------------------------------------------------

HEADROOM_CUBIC = 1.15
# Issue 37's targets at the compatible points with headroom:
# (key, label, test of a row).
TARGETS = (
    ("mean", "mean within 5% of ideal",
     lambda r: r["mean_ms"] <= 1.05 * r["ideal_ms"]),
    ("headroom", "headroom >= 0.9",
     lambda r: r["headroom"] is not None and r["headroom"] >= 0.9),
    ("p99", "p99 within 10% of ideal",
     lambda r: r["p99_ratio"] <= 1.10),
    ("stable", "stable >= 9/10",
     lambda r: r["stable"] >= 0.9 * r["repeats"]),
    ("convergence", "median convergence <= 3",
     lambda r: r["convergence"] is not None and r["convergence"] <= 3),
)


def spread(values):
    return (min(values), max(values)) if values else None


def mean_of(values):
    values = [v for v in values or [] if v is not None] if isinstance(values, list) else \
        ([values] if values is not None else [])
    return statistics.mean(values) if values else None


def failed(a):
    """A rule's worker failures in a run (its summary's "failures")."""
    return len(a.get("failures") or [])


def merged(points):
    """The points given, each point once however many runs of it (result
    directories) were given: runs whose configurations measure one point
    (bench.regime.same_point(): one network, jobs and repeats, whatever
    rules each ran) and one ideal make one entry, with every rule either
    ran. Where two ran a rule, the later given wins, unless it had worker
    failures and the earlier had none. In the order first given."""
    groups = []
    for name, cfg, summary, point in points:
        group = next((g for g in groups if g[0] == name and
                      g[2]["ideal_iter_ms"] == summary["ideal_iter_ms"] and
                      regime.same_point(g[1], cfg)), None)
        if group is None:
            group = (name, cfg, dict(summary, algorithms={}), point)
            groups.append(group)
        rules = group[2]["algorithms"]
        for rule, a in summary["algorithms"].items():
            if rule not in rules or not failed(a) or failed(rules[rule]):
                rules[rule] = a
    return groups


def row(name, cfg, summary, rule, cubic):
    """One point's figures for one rule; cubic: cubic's figures there or None."""
    ideal = summary["ideal_iter_ms"]
    a = summary["algorithms"][rule]
    reps = a.get("per_repeat_mean_iter_ms") or [a["mean_iter_ms"]]
    mean_ms = statistics.median(reps)
    reach = metrics.fixed_interleaving(dict(cfg, jobs=cfg.get("jobs") or []),
                                       summary.get("comm_fraction_sum", 0))
    if summary.get("ideal_valid") is False:
        reach = dict(reach, reachable=False, why=reach["why"] or "over 1")
    cubic_ms = statistics.median(cubic.get("per_repeat_mean_iter_ms") or
                                 [cubic["mean_iter_ms"]]) if cubic else None
    cubic_p99s = [x for x in (cubic or {}).get("per_repeat_p99_iter_ms") or []
                  if x is not None]
    cubic_p99 = (statistics.median(cubic_p99s) if cubic_p99s else cubic["p99_iter_ms"]) \
        if cubic else None
    headroom_point = cubic_ms is not None and cubic_ms >= HEADROOM_CUBIC * ideal
    # The median of the repeats' own p99s; a summary from before they were
    # kept gives only their mean ("p99_of" says which).
    p99s = [x for x in a.get("per_repeat_p99_iter_ms") or [] if x is not None]
    p99_ms = statistics.median(p99s) if p99s else a["p99_iter_ms"]
    lates = [x for x in a.get("per_repeat_p99_past_settling_iter_ms") or [] if x is not None]
    conv = a["converged_iteration"]
    conv = conv if isinstance(conv, list) else [conv]
    done = [c for c in conv if c is not None]
    worst = None
    if cubic and a.get("jobs") and cubic.get("jobs"):
        ratios = [j["mean_iter_ms"] / cubic["jobs"][job]["mean_iter_ms"]
                  for job, j in a["jobs"].items() if job in cubic["jobs"]]
        worst = max(ratios) if ratios else None
    slowest, fastest = max(reps), min(reps)
    return {
        "point": name, "rule": rule, "repeats": a["repeats"], "ideal_ms": ideal,
        "ideal_valid": summary.get("ideal_valid"), "mean_ms": mean_ms,
        # Whether a fixed interleaving reaches the ideal, why not, and what
        # one common period reaches (bench.metrics.fixed_interleaving()).
        "ideal_reachable": reach["reachable"], "unreachable_why": reach["why"],
        "common_period_ms": reach["common_period_ms"],
        # Worker failures: the row is shown, marked, and counted nowhere.
        "failures": failed(a),
        # Random loss on the bottleneck (the driver's "loss_pct").
        "lossy": bool(cfg.get("loss_pct")),
        "mean_x_cubic": mean_ms / cubic_ms if cubic_ms else None,
        "p99_x_cubic": (p99_ms / cubic_p99 if cubic_p99 else None),
        # Queue drops (the bottleneck's qdiscs'), the mean over repeats.
        "drops": mean_of(a.get("drops")),
        "cubic_drops": mean_of(cubic.get("drops")) if cubic else None,
        "efficiency": ideal / mean_ms,
        "efficiency_spread": [ideal / slowest, ideal / fastest],
        "cubic_ms": cubic_ms, "cubic_x_ideal": cubic_ms / ideal if cubic_ms else None,
        "headroom_point": headroom_point,
        "headroom": ((cubic_ms - mean_ms) / (cubic_ms - ideal)
                     if headroom_point and rule != "cubic" else None),
        "p99_ratio": p99_ms / ideal,
        "p99_of": "median" if p99s else "mean",
        "p99_spread": [x / ideal for x in spread(p99s)] if p99s else None,
        # The same past the settling allowance; None for summaries older than it.
        "late_p99_ratio": statistics.median(lates) / ideal if lates else None,
        "late_p99_spread": [x / ideal for x in spread(lates)] if lates else None,
        "worst_job_x_cubic": worst,
        "stable": a["stable_repeats"],
        "convergence": regime.median_convergence(conv),
        "convergence_spread": list(spread(done)) if done else None,
    }


def rows(points):
    """A row per point and rule (cubic first), in the points' natural order
    (bench.regime.natural_key()), each point once (merged()). A cubic with
    worker failures is no reference: its point has no headroom figures."""
    points = merged(points)
    out = []
    for name, cfg, summary, _ in sorted(points, key=lambda p: regime.natural_key(p[0])):
        cubic, _ = regime.cubic_beside(name, cfg, summary, points)
        if cubic is not None and failed(cubic):
            cubic = None
        rules = sorted(summary["algorithms"], key=lambda r: r != "cubic")
        out += [row(name, cfg, summary, rule, cubic) for rule in rules]
    return out


def counted(r):
    """Whether a row counts toward the targets: a rule's, not cubic's, at a
    headroom point whose ideal a fixed interleaving reaches, without random
    loss, from a run without worker failures."""
    return r["rule"] != "cubic" and r["headroom_point"] and r["ideal_reachable"] and \
        not r["lossy"] and not r["failures"]


# Issue 37's targets where the ideal is no target (incompatible points,
# periods that differ, the lossy point): no worse than cubic.
GUARDS = (
    ("mean", "mean no worse than cubic's",
     lambda r: r["mean_x_cubic"] is not None and r["mean_x_cubic"] <= 1),
    ("p99", "p99 no worse than cubic's",
     lambda r: r["p99_x_cubic"] is not None and r["p99_x_cubic"] <= 1),
    ("drops", "queue drops at most twice cubic's",
     lambda r: r["drops"] is not None and r["cubic_drops"] is not None and
     r["drops"] <= 2 * r["cubic_drops"]),
)


def guarded(r):
    """Whether a row counts toward GUARDS: a rule's at a point whose ideal
    no fixed interleaving reaches or with random loss, beside a cubic, from
    a run without worker failures."""
    return r["rule"] != "cubic" and (not r["ideal_reachable"] or r["lossy"]) and \
        r["cubic_ms"] is not None and not r["failures"]


def tally(table_rows, which, checks):
    """Per rule other than cubic, over the rows which() keeps: {"points": n,
    key: how many meet check key, "all": how many meet every one}."""
    out = {}
    for r in table_rows:
        if not which(r):
            continue
        counts = out.setdefault(r["rule"], dict({"points": 0, "all": 0},
                                                **{key: 0 for key, _, _ in checks}))
        counts["points"] += 1
        met = [test(r) for _, _, test in checks]
        for (key, _, _), ok in zip(checks, met):
            counts[key] += ok
        counts["all"] += all(met)
    return out


def guard_counts(table_rows):
    """The GUARDS over the points guarded() counts (tally())."""
    return tally(table_rows, guarded, GUARDS)


def target_counts(table_rows):
    """The TARGETS over the headroom points whose ideal is reachable
    (compatible, one period), rows with worker failures left out
    (counted(), tally())."""
    return tally(table_rows, counted, TARGETS)


fmt = regime.fmt


def ranged(x, pair, pattern="%.3f"):
    if x is None:
        return "-"
    if not pair:
        return pattern % x
    return ("%s (%s-%s)" % (pattern, pattern, pattern)) % (x, pair[0], pair[1])


def point_label(r):
    loss = " (random loss)" if r["lossy"] else ""
    if r["ideal_valid"] is False:
        return r["point"] + " (over 1)" + loss
    return r["point"] + (" (no fixed interleaving)" if not r["ideal_reachable"] else "") + loss


def text(table_rows, counts, guards=None):
    guards = guards if guards is not None else guard_counts(table_rows)
    lines = ["| point | cubic x ideal | rule | N | efficiency (spread) | headroom | "
             "p99/ideal: median of repeats' p99 (spread) | p99/ideal past iteration %d "
             "(spread) | worst job x cubic | stable | convergence (spread) |"
             % metrics.SETTLING_ITERATIONS,
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table_rows:
        lines.append("| %s | %s | %s | %d | %s | %s | %s%s | %s | %s | %d/%d | %s |" % (
            point_label(r), fmt(r["cubic_x_ideal"]),
            r["rule"] + (" (EXCLUDED: %d worker failure%s)" % (
                r["failures"], "" if r["failures"] == 1 else "s") if r["failures"] else ""),
            r["repeats"], ranged(r["efficiency"], r["efficiency_spread"]),
            fmt(r["headroom"], "%.2f"), ranged(r["p99_ratio"], r["p99_spread"]),
            " (mean)" if r["p99_of"] == "mean" else "",
            ranged(r["late_p99_ratio"], r["late_p99_spread"]),
            fmt(r["worst_job_x_cubic"]), r["stable"], r["repeats"],
            ranged(r["convergence"], r["convergence_spread"], "%g")))
    notes = {}
    for r in table_rows:
        if not r["ideal_reachable"] and r["point"] not in notes:
            notes[r["point"]] = "- %s: %s%s." % (
                r["point"], r["unreachable_why"],
                "; the ideal (%.2f ms) is a lower bound; every job at one common period, "
                "max(longest ideal period, sum of the phases), is a fixed interleaving: "
                "%.2f ms (x%.3f the ideal)" % (r["ideal_ms"], r["common_period_ms"],
                                             r["common_period_ms"] / r["ideal_ms"])
                if r["common_period_ms"] and r["ideal_valid"] is not False else "")
    if notes:
        lines += ["", "Points whose ideal no fixed interleaving reaches (not counted below):"]
        lines += list(notes.values())
    if any(r["p99_of"] == "mean" for r in table_rows):
        lines += ["", "p99 marked (mean): the mean of the repeats' p99s (a summary from "
                  "before each repeat's was kept)."]
    if any(r["failures"] for r in table_rows):
        lines += ["", "Rows marked EXCLUDED: their run had worker failures; they count "
                  "toward nothing (and a cubic so marked is no reference)."]
    lines += ["", "Headroom points (cubic >= %.2fx the ideal, ideal reachable by a fixed "
              "interleaving), per rule: how many meet each target of issue 37." % HEADROOM_CUBIC]
    lines += tally_lines(counts, TARGETS, "headroom points")
    lines += ["", "Points where the ideal is no target (over 1, no fixed interleaving, random "
              "loss), per rule: how many meet each of issue 37's targets there."]
    lines += tally_lines(guards, GUARDS, "points")
    return "\n".join(lines)


def tally_lines(counts, checks, noun):
    """A line per rule of a tally(), or "(none)"."""
    return ["%s: %d %s; %s; all: %d" % (
        rule, c["points"], noun, "; ".join("%s %d" % (label, c[key]) for key, label, _ in checks),
        c["all"]) for rule, c in counts.items()] or ["(none)"]


def render(points, as_json=False):
    """The table (text), or the same as one JSON document."""
    table_rows = rows(points)
    counts = target_counts(table_rows)
    guards = guard_counts(table_rows)
    if as_json:
        return json.dumps({"rows": table_rows, "targets": counts,
                           "target_labels": {key: label for key, label, _ in TARGETS},
                           "guards": guards,
                           "guard_labels": {key: label for key, label, _ in GUARDS},
                           "headroom_cubic": HEADROOM_CUBIC}, indent=1)
    return text(table_rows, counts, guards)


def add_arguments(parser):
    parser.add_argument("dirs", nargs="+", metavar="DIR",
                        help="a results directory (bench run SET) or a point directory")
    parser.add_argument("-j", "--json", action="store_true", help="the table as JSON")


def main(args):
    print(render(regime.load(args.dirs), args.json))
    return 0
