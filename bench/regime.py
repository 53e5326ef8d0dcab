# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Rules against their regime: the simulator's data-center table, regime map
and shift map.

    python3 -m bench regime [--regime-plot FILE.png] [--shift-plot FILE.png]
                            [--shift-points A,B] [--shift-table] [--contest-table]
                            [--matrix] [--placement-table] DIR...

The table gives, for every point and rule:
  - RTTs per phase: a job's communication phase at line rate over the base RTT;
  - efficiency: ideal / mean iteration (1: the physical limit);
  - x solo: mean iteration over a lone job's, where a "<point>-solo" point ran
    beside it (what the window costs with no contest: slow start every phase),
    the same rule's solo run or, where the solo point did not run the rule,
    cubic's;
  - attained: (cubic - rule) / (cubic - ideal), the share of the speedup over
    cubic that was there to take (1: all of it; below 0: slower than cubic);
    where the point's run has no cubic, against cubic of another run given
    of the same point (the same network, jobs and repeats: the same starts;
    each rule draws its own compute times), marked "*" and named, with its
    commit, under the table;
  - p99 / ideal over all iterations and after convergence (steady), each
    the mean of the repeats' own p99s (the yardstick's table gives their
    median: bench/yardstick.py), stable
    repeats with their 95% interval, stable repeats by the wire overlap
    (bench.metrics: a job that holds back does not overlap), the median
    convergence iteration ("-" where fewer than half the repeats converged),
    and by the wire overlap the median settling iteration (the first of 10
    clear in a row) and the mean number of relapses in the last half;
  - for two jobs, from the raw logs: drift, the mean change
    per iteration of the distance D between the jobs' communication starts
    while their phases overlap (D < aT), and diffusion, the spread (standard
    deviation) of that change where they do not; both over the period. A
    rule that separates the jobs has drift > 0; jitter or a reverse-path
    effect that throws them back shows as diffusion. D is a distance, folded
    into [0, 0.5]: a walk with no force at all also shows a small positive
    drift near 0 (about the step's spread times 0.8), so drift is to be read
    against cubic's in the same table.

--matrix adds the set at a glance: a row per point, a column per rule, the
efficiency and stable repeats in each cell.

--placement-table, for leaf-spine points: per rule, the efficiency of the
jobs that share no link, of those whose shared links all sum to at most 1
and of those crossing a link over 1 (CASSINI's compatibility, job by job),
and the jobs of the busiest link against the steady-state bound it sets
(placement_rows()).

A second table gives each point's cost in the simulator (wall time and
simulated events per second per run) and, on a leaf-spine fabric, the sum of
the communication fractions on its busiest link and how many links exceed 1
(CASSINI's compatibility: a placement is compatible where none does).

The regime map plots efficiency against RTTs per phase, a line per rule. The
shift map plots, per iteration of a two-job point, the change of the distance
between the jobs' communication starts against that distance, both over the
period, beside the fluid model's prediction (HotNets'24, Eq. 2):

    Shift(D) = S D (aT - D) / (aT I + S D)   for 0 <= D <= aT, else 0

(S, I: the rule's slope and intercept; a: the communication fraction; T: the
period). A rule that behaves as the paper says follows the curve; one that
only pushes to the edge of the free region shows no restoring force past aT.
--shift-table gives the same in numbers: per two-job point and rule, the
mean measured shift in each bin of D (SHIFT_BIN of the period) beside the
model's at the bin's middle.

--contest-table reads the simulator's window traces ("window_trace"): per
two-job point and rule, the pairs of phases (one of each job) that overlapped,
and in that overlap the entries into CWR (ECN's cut), Recovery and Loss (an
RTO) of the job that started its phase first (the leader) and of the other
(the follower), and of the RTOs those that ended a fast recovery (from
Recovery; not from Disorder, where no retransmission was under way). A row
per direction: rank 0's senders (left to right) and, for exchanging jobs,
rank 1's (right to left), each with its sending workers' own phases (the
two ranks of an exchanging job start sending as each one's compute ends),
through its own port. Beside the counts, each role's window
averaged over the overlaps (time-weighted, segments), the pairs in which
the leader's was the larger, and, as the phases meet, the leader's window
and F and the follower's largest window in the overlap (medians over the
pairs). The fluid model
has the leader win the contest, with the larger share; a rule whose
leaders time out more than their followers, or hold the smaller window,
hands the lead back.
"""
import bisect
import os
import re
import statistics

from bench import matrix, merge, metrics, rundir


def rtts_per_phase(cfg):
    _, comm_s = ideal_period(cfg)
    return comm_s / (cfg["rtt_ms"] / 1e3) if cfg["rtt_ms"] else None


def load(dirs):
    """(name, config, summary, point directory) of every point that ran: the
    point's summary.json (a later `python3 -m bench analyze` rewrites it),
    else results.json's copy. A directory may also be one point's, as
    `bench run --config` makes it."""
    points = []
    for d in dirs:
        point = rundir.Point(d)
        if not os.path.exists(os.path.join(d, rundir.RESULTS)) and \
                os.path.exists(point.file(rundir.SUMMARY)):
            cfg = point.config()
            name = cfg.get("name") or os.path.basename(os.path.normpath(d))
            points.append((name, cfg, point.summary(), point))
            continue
        if not os.path.exists(os.path.join(d, rundir.RESULTS)):
            raise SystemExit("%s: no %s nor %s: not a result set of bench run, nor one point's"
                             % (d, rundir.RESULTS, rundir.SUMMARY))
        results = rundir.Results(d)
        for name, res in results.read()["results"].items():
            if res.get("algorithms"):
                point = results.point(name)
                if os.path.exists(point.file(rundir.SUMMARY)):
                    res = point.summary()
                points.append((name, point.config(), res, point))
    return points


# What two runs of one point may differ in: what the parts of one point may
# (bench merge: the commit, the format, how the repeats are written down,
# compared here as the repeat indices they make) and the rules each ran.
# Everything else decides each repeat's start and the network it runs on.
RUN_KEYS = merge.PART_KEYS + ("algorithms",)


def run_free(cfg):
    """A configuration without RUN_KEYS, its repeats as the indices run."""
    bare = {k: v for k, v in cfg.items() if k not in RUN_KEYS}
    bare["repeat_indices"] = rundir.repeat_indices(cfg)
    return bare


def same_point(cfg_a, cfg_b):
    """Whether two configurations measure one point: the same network, jobs
    and repeats, whatever rules each ran."""
    return run_free(cfg_a) == run_free(cfg_b)


def cubic_beside(name, cfg, summary, points):
    """(cubic's figures, the run they come from) for a point: its own run's
    cubic and None; else the cubic of the last run given of the same point
    (a rule measured later, beside an earlier run's cubic) and that run's
    point; else (None, None)."""
    if "cubic" in summary["algorithms"]:
        return summary["algorithms"]["cubic"], None
    found = None, None
    for other_name, other_cfg, other, other_point in points:
        if other_name == name and "cubic" in other["algorithms"] and \
                other["ideal_iter_ms"] == summary["ideal_iter_ms"] and \
                same_point(cfg, other_cfg):
            found = other["algorithms"]["cubic"], (other_point, other_cfg.get("commit"))
    return found


def attained(cubic_ms, rule_ms, ideal_ms):
    room = cubic_ms - ideal_ms
    return (cubic_ms - rule_ms) / room if room > 0.005 * ideal_ms else None


def median_convergence(conv):
    conv = conv if isinstance(conv, list) else [conv]
    done = [c for c in conv if c is not None]
    return statistics.median(done) if len(done) * 2 >= len(conv) else None


def drift_diffusion(point, rule, cfg):
    """(drift, diffusion) of a two-job point's rule over its repeats' raw logs,
    or (None, None)."""
    if point is None or len(cfg["jobs"]) != 2:
        return None, None
    period_s, comm_s = ideal_period(cfg)
    pts = [s for rep in point.repeats(rule) for s in shifts(rep.records, period_s)]
    inside = [s for d, s in pts if d < comm_s / period_s]
    outside = [s for d, s in pts if d >= comm_s / period_s]
    return (statistics.mean(inside) if inside else None,
            statistics.pstdev(outside) if len(outside) > 1 else None)


def ideal_period(cfg):
    job = cfg["jobs"][0]
    return metrics.ideal_iteration(job["compute_ms"] / 1e3, job["bytes"],
                                   cfg["rate_mbit"] * 1e6)


def rows(points):
    """One dict per point and rule, with every figure of the table."""
    solo = {name[:-len("-solo")]: s for name, _, s, _ in points if name.endswith("-solo")}
    out = []
    for name, cfg, summary, point in points:
        if name.endswith("-solo"):
            continue
        ideal = summary["ideal_iter_ms"]
        algs = summary["algorithms"]
        cubic, cubic_from = cubic_beside(name, cfg, summary, points)
        lone = solo.get(name, {}).get("algorithms", {})
        for rule, a in algs.items():
            lone_ms = (lone.get(rule) or lone.get("cubic") or {}).get("mean_iter_ms")
            drift, diffusion = drift_diffusion(point, rule, cfg)
            out.append({
                "point": name, "cfg": cfg, "source": point, "rule": rule,
                "rtts": rtts_per_phase(cfg),
                "jobs": len(cfg["jobs"]), "ideal_ms": ideal, "mean_ms": a["mean_iter_ms"],
                "efficiency": ideal / a["mean_iter_ms"],
                "x_solo": a["mean_iter_ms"] / lone_ms if lone_ms else None,
                "solo_efficiency": ideal / lone_ms if lone_ms else None,
                "attained": (attained(cubic["mean_iter_ms"], a["mean_iter_ms"], ideal)
                             if cubic and rule != "cubic" else None),
                "cubic_from": cubic_from,
                "p99_ratio": a["p99_iter_ms"] / ideal,
                "steady_p99_ratio": (a["steady_p99_iter_ms"] / ideal
                                     if a.get("steady_p99_iter_ms") else None),
                "stable": a["stable_repeats"], "repeats": a["repeats"],
                "stable_interval": a.get("stable_interval") or metrics.wilson_interval(
                    a["stable_repeats"], a["repeats"]),
                "wire_stable": a.get("wire_stable_repeats"),
                "convergence": median_convergence(a["converged_iteration"]),
                "wire_settled": (median_convergence(a["wire_settled_iteration"])
                                 if a.get("wire_settled_iteration") else None),
                "wire_relapses": (statistics.mean(a["wire_relapses"])
                                  if a.get("wire_relapses") and None not in a["wire_relapses"]
                                  else None),
                "rtos": sum(a["rtos"]), "drift": drift, "diffusion": diffusion,
            })
    return out


def point_links(cfg, summary, point):
    """A leaf-spine point's links (link -> the jobs whose bytes cross it): its
    summary's, or else a raw run's meta.json (points analyzed before
    summaries kept them)."""
    if summary.get("links"):
        return summary["links"]
    if point is None:
        return None
    return next((rep.meta["links"] for a in cfg["algorithms"]
                 for rep in point.repeats(a["name"]) if "links" in rep.meta), None)


def point_costs(cfg, summary, point):
    """Every run's cost (wall_s, simulated_s, events): the summary's, or else
    the raw runs' meta.json."""
    costs = [c for alg in summary.get("algorithms", {}).values() for c in alg.get("costs", [])]
    if costs or point is None:
        return costs
    return [rep.meta["cost"] for a in cfg["algorithms"] for rep in point.repeats(a["name"])
            if "cost" in rep.meta]


def cost_rows(points):
    """Per point run on a leaf-spine fabric or costed by the simulator: its
    busiest link's sum of fractions, how many links exceed 1, and a run's
    wall time and simulated events per second (means over its runs)."""
    out = []
    for name, cfg, summary, point in points:
        costs = point_costs(cfg, summary, point)
        if not costs:
            continue
        links = point_links(cfg, summary, point)
        loads = metrics.link_loads(cfg, links) if links else {}
        out.append({"point": name, "jobs": len(cfg["jobs"]), "runs": len(costs),
                    "max_link_load": max(loads.values()) if loads else None,
                    "links_over_1": sum(1 for v in loads.values() if metrics.over_capacity(v)),
                    "links": len(loads),
                    "wall_s": statistics.mean(c["wall_s"] for c in costs),
                    "events_per_s": statistics.mean(c["events"] / c["wall_s"] for c in costs
                                                    if c["wall_s"] > 0)})
    return out


def cost_table(points):
    lines = ["| point | jobs | busiest link (sum of fractions) | links over 1 | runs | "
             "wall s per run | events/s |", "|---|---|---|---|---|---|---|"]
    for r in cost_rows(points):
        lines.append("| %s | %d | %s | %s | %d | %.0f | %.0f |" % (
            r["point"], r["jobs"], fmt(r["max_link_load"], "%.2f"),
            "%d of %d" % (r["links_over_1"], r["links"]) if r["links"] else "-", r["runs"],
            r["wall_s"], r["events_per_s"]))
    return "\n".join(lines)


def placement_rows(points):
    """Per leaf-spine point and rule, CASSINI's question in numbers: the
    efficiency (ideal / mean iteration, over the jobs of a group) of the jobs
    that share no link with another (both workers on one leaf, say), of
    those that share links all summing to at most 1, and of those crossing a
    link over 1; and the jobs crossing the busiest link (the first by name
    where several tie) against what it allows them: its sum of fractions L
    times their ideal. n identical jobs sharing a link at iteration times T_i
    need sum(c / T_i) <= 1 for phases of c at line rate while all of them
    run, so their mean T_i is then at least n c, L times the ideal where L >
    1 (the harmonic mean is at most the arithmetic): a steady-state bound,
    which a job may beat once its neighbours have ended their iterations."""
    out = []
    for name, cfg, summary, point in points:
        if "topology" not in cfg:
            continue
        links = point_links(cfg, summary, point)
        if not links:
            continue
        loads = metrics.link_loads(cfg, links)
        top = max(loads.values())
        tied = sorted(link for link, load in loads.items()
                      if load >= top - metrics.LINK_LOAD_SLACK)
        busiest = tied[0]
        rivals = metrics.contenders(links)
        over = {job for link, names in links.items() if metrics.over_capacity(loads[link])
                for job in names}
        for rule, alg in summary["algorithms"].items():
            jobs = alg.get("jobs") or {}

            def group(names):
                names = [n for n in jobs if n in names]
                if not names:
                    return 0, None
                return len(names), (sum(jobs[n]["ideal_iter_ms"] for n in names),
                                    sum(jobs[n]["mean_iter_ms"] for n in names))

            alone = {n for n in jobs if not rivals.get(n)}
            groups = {"alone": group(alone), "within": group(set(jobs) - over - alone),
                      "over": group(over), "on_busiest": group(set(links[busiest]))}
            row = {"point": name, "rule": rule, "busiest": busiest, "tied": len(tied) - 1,
                   "busiest_load": loads[busiest]}
            for key, (count, sums) in groups.items():
                row[key] = count
                row[key + "_efficiency"] = sums[0] / sums[1] if count else None
            count, sums = groups["on_busiest"]
            row["busiest_x_bound"] = (sums[1] / (max(1.0, loads[busiest]) * sums[0])
                                      if count else None)
            out.append(row)
    return out


def placement_table(points):
    lines = ["| point | rule | jobs alone: efficiency | jobs sharing links within 1: efficiency | "
             "jobs over 1: efficiency | busiest link (sum of fractions) | "
             "its jobs: mean / steady-state bound |",
             "|---|---|---|---|---|---|---|"]
    for r in placement_rows(points):
        lines.append("| %s | %s | %d: %s | %d: %s | %d: %s | %s%s (%.2f) | %d: %s |" % (
            r["point"], r["rule"], r["alone"], fmt(r["alone_efficiency"]), r["within"],
            fmt(r["within_efficiency"]), r["over"], fmt(r["over_efficiency"]), r["busiest"],
            " and %d tied" % r["tied"] if r["tied"] else "", r["busiest_load"],
            r["on_busiest"], fmt(r["busiest_x_bound"])))
    return "\n".join(lines)


def natural_key(name):
    """dc2-... before dc16-...: the runs of digits compare as numbers (re.split
    with a group alternates text and digits), the name itself breaks ties."""
    return [int(part) if i % 2 else part
            for i, part in enumerate(re.split(r"([0-9]+)", name))] + [name]


def matrix_table(points):
    """The set at a glance: a row per point in natural order of their names, a
    column per rule (cubic first), each cell the efficiency and the stable
    repeats. Runs of one point (same_point()) share its row, a rule run in
    two of them showing the run given last; a run of the same name that
    measured something else gets a row of its own, named by its directory."""
    groups, rules = [], []
    for r in rows(points):
        name, cfg, point = r["point"], r["cfg"], r["source"]
        if r["rule"] not in rules:
            rules.append(r["rule"])
        group = next((g for g in groups if g["name"] == name and same_point(g["cfg"], cfg)),
                     None)
        if group is None:
            group = {"name": name, "cfg": cfg, "path": point.path if point else None,
                     "cells": {}}
            groups.append(group)
        group["cells"][r["rule"]] = r
    rules.sort(key=lambda rule: rule != "cubic")
    named = {}
    for g in groups:
        named[g["name"]] = named.get(g["name"], 0) + 1
    lines = ["| point | " + " | ".join(rules) + " |", "|---|" + "---|" * len(rules)]
    for g in sorted(groups, key=lambda g: natural_key(g["name"])):
        label = g["name"] if named[g["name"]] == 1 else "%s (%s)" % (g["name"], g["path"])
        lines.append("| %s | %s |" % (label, " | ".join(
            "%.3f (%d/%d)" % (g["cells"][rule]["efficiency"], g["cells"][rule]["stable"],
                              g["cells"][rule]["repeats"]) if rule in g["cells"] else "-"
            for rule in rules)))
    return "\n".join(lines)


def fmt(x, pattern="%.3f"):
    return "-" if x is None else pattern % x


def table(points):
    lines = ["| point | RTTs/phase | rule | efficiency | x solo | attained | "
             "p99/ideal (mean of repeats') | steady p99/ideal | stable (95%) | stable, wire | convergence | settled, wire | "
             "relapses, wire | RTOs | drift | diffusion |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    elsewhere = []
    for r in rows(points):
        lo, hi = r["stable_interval"]
        mark = ""
        if r["cubic_from"] and r["attained"] is not None:
            mark = "*"
            point, commit = r["cubic_from"]
            note = (r["point"], point.path if point else "-", commit or "-")
            if note not in elsewhere:
                elsewhere.append(note)
        lines.append("| %s | %s | %s | %.3f | %s | %s | %.3f | %s | %d/%d (%.0f-%.0f%%) | %s | "
                     "%s | %s | %s | %d | %s | %s |" % (
                         r["point"], fmt(r["rtts"], "%.0f"), r["rule"], r["efficiency"],
                         fmt(r["x_solo"]), fmt(r["attained"], "%.2f") + mark, r["p99_ratio"],
                         fmt(r["steady_p99_ratio"]),
                         r["stable"], r["repeats"], 100 * lo, 100 * hi,
                         fmt(r["wire_stable"], "%d"), fmt(r["convergence"], "%g"),
                         fmt(r["wire_settled"], "%g"), fmt(r["wire_relapses"], "%.1f"),
                         r["rtos"], fmt(r["drift"], "%+.4f"), fmt(r["diffusion"], "%.4f")))
    for note in elsewhere:
        lines += ["", "\\* %s: attained against cubic of another run of the point, %s "
                  "(at %s)" % note]
    return "\n".join(lines)


def comm_starts(records):
    return {job: [cs for _, cs, _ in its] for job, its in metrics.job_iterations(records).items()}


def shifts(records, period_s):
    """(D, change of D) per iteration of a two-job run, both over the period:
    D is the distance from each of the first job's communication starts to
    the nearest of the second's, in [0, 0.5]."""
    starts = comm_starts(records)
    if len(starts) != 2:
        return []
    first, second = (starts[j] for j in sorted(starts))
    distances = []
    for c in first:
        nearest = min(second, key=lambda s: abs(s - c))
        d = abs(nearest - c) / period_s
        distances.append(min(d, 1 - d) if d <= 1 else None)
    return [(a, b - a) for a, b in zip(distances, distances[1:])
            if a is not None and b is not None]


def fluid_shift(d, fraction, slope, intercept):
    """HotNets'24 Eq. 2 over the period: d and the result are fractions of T."""
    if d <= 0 or d >= fraction:
        return 0.0
    return slope * d * (fraction - d) / (fraction * intercept + slope * d)


SHIFT_BIN = 0.05  # of the period: --shift-table's bins of D


def rule_line(cfg, alg):
    """(slope, intercept) an MLTCP rule ran at, or None for a base algorithm."""
    if not alg["cc"].startswith("mltcp"):
        return None
    params = dict(matrix.DEFAULT_PARAMS, **matrix.algorithm_params(cfg, alg))
    return float(params["slope"]), float(params["intercept"])


def shift_rows(points):
    """Per two-job point, rule and bin of D that has shifts: the bin's start,
    the mean measured shift, how many, and the model's at the bin's middle
    (None for a base algorithm)."""
    out = []
    for name, cfg, _, point in points:
        if point is None or len(cfg["jobs"]) != 2:
            continue
        period_s, comm_s = ideal_period(cfg)
        for alg in cfg["algorithms"]:
            bins = {}
            for rep in point.repeats(alg["name"]):
                for d, shift in shifts(rep.records, period_s):
                    # The epsilon keeps a D on a bin's edge (0.30) in the
                    # bin it starts, against floating point (0.30 / 0.05).
                    b = min(int(d / SHIFT_BIN + 1e-9), int(0.5 / SHIFT_BIN) - 1)
                    bins.setdefault(b, []).append(shift)
            line = rule_line(cfg, alg)
            for b, values in sorted(bins.items()):
                middle = (b + 0.5) * SHIFT_BIN
                out.append({"point": name, "rule": alg["name"], "d": b * SHIFT_BIN,
                            "shift": statistics.mean(values), "n": len(values),
                            "model": fluid_shift(middle, comm_s / period_s, *line)
                            if line else None})
    return out


def shift_table(points):
    lines = ["| point | rule | D / period | measured shift (mean) | iterations | fluid model |",
             "|---|---|---|---|---|---|"]
    for r in shift_rows(points):
        lines.append("| %s | %s | %.2f-%.2f | %+.4f | %d | %s |" % (
            r["point"], r["rule"], r["d"], r["d"] + SHIFT_BIN, r["shift"], r["n"],
            fmt(r["model"], "%+.4f")))
    return "\n".join(lines)


# What --contest-table counts while two phases overlap: entries into these
# states (CWR: a cut for ECN marks, on a marking port the usual one), and
# the RTOs that ended a fast recovery under way (a retransmission lost too,
# or too little left in flight to find the rest: what RACK-TLP finds
# without the timer).
CONTEST_STATES = ("CA_CWR", "CA_RECOVERY", "CA_LOSS")
RTO_FROM_RECOVERY = "RTO from recovery"
# The contest's direction, by the rank whose sending it reads: on the
# dumbbell rank 0 sends from the left hosts, rank 1 from the right.
SENDERS = {0: "rank 0, left to right", 1: "rank 1, right to left"}
ROLES = ("leader", "follower")


def overlaps(its_a, its_b):
    """Every pair of phases, one of each job, that overlap on the wire: (the
    pair's leader index 0 or 1, the overlap's start, its end). Phases pair
    by their intervals, not their iteration numbers: jobs more than half a
    period apart overlap with the other's next iteration."""
    out = []
    k = 0
    for a in its_a:
        while k < len(its_b) and its_b[k][2] <= a[1]:
            k += 1
        j = k
        while j < len(its_b) and its_b[j][1] < a[2]:
            b = its_b[j]
            lo, hi = max(a[1], b[1]), min(a[2], b[2])
            if hi > lo:
                out.append((0 if a[1] <= b[1] else 1, lo, hi))
            j += 1
    return out


def entries(trace, times, lo, hi):
    """{state or RTO_FROM_RECOVERY: count} of the trace's entries into
    CONTEST_STATES in [lo, hi]; a state entered before lo does not count."""
    counts = dict.fromkeys(CONTEST_STATES + (RTO_FROM_RECOVERY,), 0)
    i = bisect.bisect_left(times, lo)
    state = trace[i - 1]["state"] if i else None
    for x in trace[i:bisect.bisect_right(times, hi)]:
        if x["state"] != state and x["state"] in CONTEST_STATES:
            counts[x["state"]] += 1
            if x["state"] == "CA_LOSS" and state == "CA_RECOVERY":
                counts[RTO_FROM_RECOVERY] += 1
        state = x["state"]
    return counts


def line_at(trace, times, t):
    """The trace's line in force at t (its first before it starts)."""
    i = bisect.bisect_right(times, t)
    return trace[i - 1] if i else trace[0]


def peak_window(trace, times, lo, hi):
    """The largest window in force for some time in [lo, hi): the one at lo,
    and each change after it that the next does not replace at once (ns-3
    may change a window twice in one event)."""
    inside = trace[bisect.bisect_right(times, lo):bisect.bisect_left(times, hi)]
    held = [x for x, after in zip(inside, inside[1:] + [None])
            if after is None or after["t"] > x["t"]]
    return max([line_at(trace, times, lo)["cwnd"]] + [x["cwnd"] for x in held])


def window_area(trace, times, lo, hi):
    """The trace's window (segments) integrated over [lo, hi], in segment
    seconds: the window in force at lo (line_at()) until each change."""
    window, since, area = line_at(trace, times, lo)["cwnd"], lo, 0.0
    for x in trace[bisect.bisect_right(times, lo):bisect.bisect_right(times, hi)]:
        area += window * (x["t"] - since)
        window, since = x["cwnd"], x["t"]
    return area + window * (hi - since)


def contest(repeat, jobs, rank=0):
    """The contest in one repeat of a two-job point, from its window traces
    of the jobs' rank-`rank` senders and those workers' phases (each from
    its communication start to its iteration's end), or None where the
    traces were not written (or are empty):
    {"pairs": overlapping phase pairs, "overlap_s": their overlap,
    "entries": {(role, state): entries}, "window": {role: the window
    integrated over the overlaps, segment seconds}, "leader_larger": pairs
    in which the leader's mean window was the larger, "arrivals": per pair,
    (the leader's window and F in force when the follower's phase meets it,
    as of the leader's last change before, and the follower's largest window
    in the overlap)}."""
    traces = [repeat.window_trace(job, rank) for job in jobs]
    if not all(traces):
        return None
    times = [[x["t"] for x in t] for t in traces]
    # The sending workers' own phases: in an exchange each worker starts
    # sending when its compute ends, not when its job's first worker's does.
    its = metrics.job_iterations([r for r in repeat.records if r.get("rank") == rank])
    out = {"pairs": 0, "overlap_s": 0.0, "leader_larger": 0,
           "entries": {(role, key): 0 for role in ROLES
                       for key in CONTEST_STATES + (RTO_FROM_RECOVERY,)},
           "window": dict.fromkeys(ROLES, 0.0), "arrivals": []}
    for leader, lo, hi in overlaps(its.get(jobs[0], []), its.get(jobs[1], [])):
        out["pairs"] += 1
        met = line_at(traces[leader], times[leader], lo)
        out["arrivals"].append((met["cwnd"], met.get("f"),
                                peak_window(traces[1 - leader], times[1 - leader], lo, hi)))
        out["overlap_s"] += hi - lo
        area = {}
        for job, role in zip((leader, 1 - leader), ROLES):
            for key, n in entries(traces[job], times[job], lo, hi).items():
                out["entries"][(role, key)] += n
            area[role] = window_area(traces[job], times[job], lo, hi)
            out["window"][role] += area[role]
        out["leader_larger"] += area["leader"] > area["follower"]
    return out


def senders(cfg):
    """The ranks whose sending the contest reads: rank 0 (the left hosts,
    sending right), and rank 1 too where every job exchanges: only then do
    both jobs send right to left and contest that direction."""
    exchanging = all(job.get("collective", "exchange") == "exchange" for job in cfg["jobs"])
    return (0, 1) if exchanging else (0,)


def contest_rows(points):
    out = []
    for name, cfg, _, point in points:
        if point is None or len(cfg["jobs"]) != 2 or \
                any(job.get("ranks", 2) != 2 for job in cfg["jobs"]):
            continue
        jobs = sorted(job["name"] for job in cfg["jobs"])
        for alg in cfg["algorithms"]:
            for rank in senders(cfg):
                found = [c for c in (contest(rep, jobs, rank)
                                     for rep in point.repeats(alg["name"])) if c is not None]
                if not found:
                    continue
                overlap_s = sum(c["overlap_s"] for c in found)
                out.append({"point": name, "rule": alg["name"], "sender": rank,
                            "repeats": len(found), "overlapped": sum(c["pairs"] for c in found),
                            "overlap_ms": 1e3 * overlap_s,
                            "entries": {k: sum(c["entries"][k] for c in found)
                                        for k in found[0]["entries"]},
                            # Time-weighted over every overlap, segments.
                            "mean_window": {role: (sum(c["window"][role] for c in found) /
                                                   overlap_s if overlap_s else None)
                                            for role in ROLES},
                            "leader_larger": sum(c["leader_larger"] for c in found),
                            "arrival": arrival([a for c in found for a in c["arrivals"]],
                                               rule_line(cfg, alg) is not None)})
    return out


def arrival(arrivals, scaled):
    """Medians over the pairs: {"leader_window", "leader_f" (None where
    MLTCP does not scale the flows: a base algorithm's trace carries F = 1),
    "follower_peak"}, or None without pairs."""
    if not arrivals:
        return None
    fs = [f for _, f, _ in arrivals if f is not None]
    return {"leader_window": statistics.median(w for w, _, _ in arrivals),
            "leader_f": statistics.median(fs) if fs and scaled else None,
            "follower_peak": statistics.median(p for _, _, p in arrivals)}


def contest_table(points):
    lines = ["| point | rule | senders | repeats | overlapping phase pairs | overlap, ms | "
             "leader: CWR, recoveries, RTOs (from recovery) | follower: CWR, recoveries, RTOs "
             "(from recovery) | mean window, leader / follower (segments) | pairs the "
             "leader's window was the larger in | as they meet (medians): leader's window, "
             "its F; the follower's peak |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in contest_rows(points):
        e, w, a = r["entries"], r["mean_window"], r["arrival"] or {}
        lines.append("| %s | %s | %s | %d | %d | %.0f | %d, %d, %d (%d) | %d, %d, %d (%d) | "
                     "%s / %s | %d | %s, %s; %s |" % (
                         r["point"], r["rule"], SENDERS[r["sender"]], r["repeats"],
                         r["overlapped"], r["overlap_ms"],
                         *(e[(role, key)] for role in ROLES
                           for key in CONTEST_STATES + (RTO_FROM_RECOVERY,)),
                         fmt(w["leader"], "%.1f"), fmt(w["follower"], "%.1f"),
                         r["leader_larger"], fmt(a.get("leader_window"), "%.0f"),
                         fmt(a.get("leader_f"), "%.2f"), fmt(a.get("follower_peak"), "%.0f")))
    return "\n".join(lines)


def plot_regime(points, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_rule = {}
    solo = {}
    for r in rows(points):
        if r["rtts"] is None:
            continue
        by_rule.setdefault(r["rule"], []).append((r["rtts"], r["efficiency"]))
        if r["solo_efficiency"] and r["rule"] == "cubic":
            solo[r["rtts"]] = r["solo_efficiency"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for rule, pts in by_rule.items():
        pts.sort()
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=rule)
    if solo:
        xs = sorted(solo)
        ax.plot(xs, [solo[x] for x in xs], color="k", ls="--", label="one job alone (cubic)")
    ax.set_xscale("log")
    ax.set_xlabel("base RTTs per communication phase")
    ax.set_ylabel("efficiency (ideal / mean iteration)")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.legend(fontsize=8)
    ax.set_title("Efficiency against base RTTs per communication phase", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def plot_shift(points, path, names=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chosen = [p for p in points if len(p[1]["jobs"]) == 2 and
              (not names or p[0] in names)]
    if names:
        chosen.sort(key=lambda p: names.index(p[0]))
    rules = sorted({a["name"] for _, cfg, _, _ in chosen for a in cfg["algorithms"]},
                   key=lambda n: [a["name"] for _, c, _, _ in chosen
                                  for a in c["algorithms"]].index(n))
    fig, axes = plt.subplots(len(chosen), len(rules), squeeze=False,
                             figsize=(2.6 * len(rules), 2.4 * len(chosen)), sharex=True,
                             sharey=True)
    for row, (name, cfg, _, point) in zip(axes, chosen):
        period_s, comm_s = ideal_period(cfg)
        fraction = comm_s / period_s
        for ax, rule in zip(row, rules):
            alg = next((a for a in cfg["algorithms"] if a["name"] == rule), None)
            ax.set_title("%s: %s" % (name, rule), fontsize=8)
            if alg is None:
                ax.axis("off")
                continue
            pts = [s for rep in point.repeats(rule) for s in shifts(rep.records, period_s)]
            ax.scatter([d for d, _ in pts], [s for _, s in pts], s=3, alpha=0.3)
            line = rule_line(cfg, alg)
            if line:
                slope, intercept = line
                xs = [i / 200 * 0.5 for i in range(201)]
                ax.plot(xs, [fluid_shift(x, fraction, slope, intercept) for x in xs],
                        color="r", lw=1, label="fluid model")
            ax.axvline(fraction, color="grey", lw=0.6, ls=":")
            ax.axhline(0, color="grey", lw=0.6)
    for ax in axes[-1]:
        ax.set_xlabel("distance D / period", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("next D - D", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def add_arguments(parser):
    parser.add_argument("dirs", nargs="+", metavar="DIR",
                        help="a results directory (bench run SET) or a point directory "
                        "(bench run --config)")
    parser.add_argument("--regime-plot", metavar="FILE.png")
    parser.add_argument("--shift-plot", metavar="FILE.png")
    parser.add_argument("--shift-points", help="comma-separated two-job points for --shift-plot")
    parser.add_argument("--shift-table", action="store_true",
                        help="the mean measured shift per bin of D beside the fluid model's")
    parser.add_argument("--matrix", action="store_true",
                        help="a row per point, a column per rule: efficiency (stable repeats)")
    parser.add_argument("--placement-table", action="store_true",
                        help="leaf-spine points: jobs within and over a link's capacity, and the "
                        "busiest link's jobs against its bound")
    parser.add_argument("--contest-table", action="store_true",
                        help="from window traces: leaders' and followers' recoveries and RTOs "
                        "while two jobs' phases overlap")


def main(args):
    points = load(args.dirs)
    print(table(points))
    print()
    print(cost_table(points))
    if args.matrix:
        print()
        print(matrix_table(points))
    if args.shift_table:
        print()
        print(shift_table(points))
    if args.contest_table:
        print()
        print(contest_table(points))
    if args.placement_table:
        print()
        print(placement_table(points))
    if args.regime_plot:
        plot_regime(points, args.regime_plot)
    if args.shift_plot:
        plot_shift(points, args.shift_plot,
                   args.shift_points.split(",") if args.shift_points else None)
    return 0
