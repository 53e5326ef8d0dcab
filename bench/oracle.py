# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The oracle time-shift schedule (issue 37): the reference a centralized
scheduler would reach, CASSINI's enforcement. Its jobs run cubic; each job's
iterations start at the offsets of an ideal interleaving and are re-aligned
to them every iteration: job j's iteration n computes no earlier than
t0 + offset_j + n P (mltcp-trainsim's --slot-period and --offset; a late
iteration starts at once, userspace/trainsim/schedule.h says why).

The schedule, from the jobs' parameters (each job's ideal period T_j =
compute_j + comm_j and communication time comm_j at line rate,
bench.metrics.ideal_iteration(), as the ideal itself is counted):

    P = max(max_j T_j, sum_j comm_j)

Job j's communication phase starts at s_j = sum_{i<j} comm_i + j G, where
G = (P - sum_j comm_j) / n spreads the period's free time evenly between
the phases; its iteration starts compute_j before that, so
offset_j = (s_j - compute_j + compute_0) mod P (job 0 at 0). For identical
jobs whose fractions sum to 1 the phases are staggered by one
communication time; below 1 by P / n, each with the same slack on either
side (staggered by one communication time, every phase would overrun into
the next as soon as it runs long).

What it reaches: identical jobs whose fractions sum to at most 1, the
ideal (P = T). Fractions over 1: P = sum comm, every job iterating once a
period (the link's bound). Jobs whose periods differ: one common period
P = max(max T_j, sum comm_j), every job slowed to the longest period; this
is the bound a fixed schedule with one period reaches, not the ideal (no
fixed interleaving of periods that are not multiples of each other reaches
it). bound_ms() gives it.

The line rate is not what a job reaches even alone (an exchanging job's
ACKs wait behind its peer's data): where its phases overrun the slots, it
falls behind them (userspace/trainsim/schedule.h). A scheduler that profiles its
jobs would use their phases as measured: an oracle rule may carry
"comm_ms": {job: ms}, each job's communication phase measured alone, in
place of line rate's (P and the offsets follow from them alike). What either
reaches, measured: docs/research/oracle-schedule.md.

In a point's configuration the rule is RULE, {"schedule": "oracle"};
resolve() (bench run, before anything runs) computes the schedule and
writes it into the algorithm as "slots": {"period_us": P, "offsets_us":
{job: offset}}, which the driver passes to mltcp-trainsim and the simulator
(sim/point.h) reads. A point on a leaf-spine fabric, or with a job that is
not mltcp-trainsim's, is refused: the schedule assumes one shared bottleneck.
"""
import math

from bench import metrics

RULE = {"name": "oracle", "cc": "cubic", "schedule": "oracle"}


def phases(cfg, comm_ms=None):
    """[(name, compute_s, comm_s)] of the point's jobs: their communication
    at line rate, or as comm_ms ({job: ms}) gives it."""
    rate_bps = cfg["rate_mbit"] * 1e6
    out = []
    for job in cfg["jobs"]:
        period_s, comm_s = metrics.ideal_iteration(job["compute_ms"] / 1e3, job["bytes"], rate_bps)
        compute_s = period_s - comm_s
        if comm_ms:
            comm_s = comm_ms[job["name"]] / 1e3
        out.append((job["name"], compute_s, comm_s))
    return out


def period_s(cfg, comm_ms=None):
    """P: the longest period (compute and communication), or the sum of the
    communication times where that is longer."""
    jobs = phases(cfg, comm_ms)
    return max(max(c + m for _, c, m in jobs), sum(m for _, _, m in jobs))


def slot_schedule(cfg, comm_ms=None):
    """{"period_us": P rounded up (slots never closer than the ideal),
    "offsets_us": {job: offset}} of a point's jobs, their communication
    phases at line rate or as comm_ms gives them."""
    jobs = phases(cfg, comm_ms)
    period = period_s(cfg, comm_ms)
    period_us = math.ceil(round(period * 1e6, 3))
    gap = (period - sum(m for _, _, m in jobs)) / len(jobs)
    offsets, comm_start = {}, 0.0
    for name, compute, comm in jobs:
        offset = (comm_start - compute + jobs[0][1]) % period
        offsets[name] = int(round(offset * 1e6)) % period_us
        comm_start += comm + gap
    return {"period_us": period_us, "offsets_us": offsets}


def bound_ms(cfg, comm_ms=None):
    """The mean iteration the schedule allows at best: every job once a
    period, P (ms)."""
    return period_s(cfg, comm_ms) * 1e3


def refusal(cfg):
    """Why a point cannot run the oracle (one line), or None."""
    if "topology" in cfg:
        return "a %s fabric: the oracle's schedule needs one shared bottleneck" % (
            cfg["topology"].get("kind", "multi-link"))
    for job in cfg["jobs"]:
        if job.get("workload", "trainsim") != "trainsim":
            return "job %s is not mltcp-trainsim's: only trainsim keeps slots" % job["name"]
    return None


def bad_comm_ms(cfg, comm_ms):
    """What is wrong with an oracle's "comm_ms" (one line), or None."""
    if comm_ms is None:
        return None
    names = [job["name"] for job in cfg["jobs"]]
    if not isinstance(comm_ms, dict) or sorted(comm_ms) != sorted(names):
        return "\"comm_ms\" must give every job's phase in ms (%s)" % ", ".join(names)
    for name, ms in comm_ms.items():
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not 0 < ms < 3.6e6:
            return "\"comm_ms\": job %s: %r is not a time in ms above 0" % (name, ms)
    return None


def resolve(cfg):
    """The configuration with each algorithm of "schedule": "oracle" given
    its "slots" (computed afresh from the jobs); SystemExit with one line for
    an unknown schedule or a point that cannot run it."""
    if not any("schedule" in alg for alg in cfg["algorithms"]):
        return cfg
    algorithms = []
    for alg in cfg["algorithms"]:
        if "schedule" in alg:
            if alg["schedule"] != "oracle":
                raise SystemExit("bench: %s: algorithm %s: unknown schedule %r (oracle)" % (
                    cfg.get("name", "point"), alg["name"], alg["schedule"]))
            why = refusal(cfg) or bad_comm_ms(cfg, alg.get("comm_ms"))
            if why:
                raise SystemExit("bench: %s: algorithm %s: %s" % (
                    cfg.get("name", "point"), alg["name"], why))
            alg = dict(alg, slots=slot_schedule(cfg, alg.get("comm_ms")))
        algorithms.append(alg)
    return dict(cfg, algorithms=algorithms)
