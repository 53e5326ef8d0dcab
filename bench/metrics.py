# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Metrics of the interleaving experiment, computed from mltcp-trainsim logs.

Definitions (also printed in every report):

- A job's iteration i runs from the earliest `start` (compute begins) to the
  latest `end` (collective done) over the job's workers; its communication
  phase runs from the earliest `comm_start` to that end. Iteration time is
  end - start.
- Ideal iteration time of a job: its compute time plus its gradient bytes at
  the full bottleneck rate, where the full rate is the payload rate of
  1514-byte frames carrying 1448 bytes of TCP payload (rate * 1448 / 1514).
  It is reachable only if the jobs' communication fractions sum to at most 1
  (`ideal_valid`); on a leaf-spine fabric, those of the jobs crossing each
  link, so its busiest link's sum (`comm_fraction_sum` there).
- Overlap of an iteration: seconds of its communication phase during which at
  least one other job was also communicating; on a leaf-spine fabric, one
  whose bytes cross a link this job's cross (its contenders), since jobs on
  disjoint paths do not compete however their phases fall.
- Wire overlap of an iteration: seconds of its communication phase
  during which this job and at least one other both put bytes on the wire at
  10% of the bottleneck rate or more, from the sampled per-job counters (the
  left hosts', so one direction). A job that holds back while another sends
  does not overlap by this measure, where by the first it does. Convergence
  and stability are also given by it ("wire_...").
- Settling iteration: the first iteration that begins
  SETTLE_RUN iterations in a row in which every job's overlap stays below
  10% of its ideal communication time; unlike convergence, a later single
  overlap does not move it. Relapses: the iterations of the last half in
  which some job overlaps by that much. Both are also given by the wire
  overlap ("wire_...").
- Stable repeats k of n come with a 95% Wilson score interval.
- Convergence iteration of a job: the first iteration from which every later
  iteration's overlap stays below 10% of the job's ideal communication time.
  The run's convergence iteration is the largest over its jobs (None if some
  job never converges). Interleaving is stable if it converged at least
  `stable_tail` iterations before the end (default: the last half of the run,
  at most 50 iterations).
- p99 is the nearest-rank percentile. Speedup over a baseline is the
  baseline's mean iteration time divided by this algorithm's.
- Jain's fairness index of throughputs x: (sum x)^2 / (n * sum x^2).
"""
import math

PAYLOAD_EFFICIENCY = 1448 / 1514
OVERLAP_THRESHOLD = 0.10


def percentile(values, p):
    """Nearest-rank percentile (p in (0, 100])."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def mean(values):
    return sum(values) / len(values) if values else None


def jain_index(throughputs):
    total = sum(throughputs)
    squares = sum(x * x for x in throughputs)
    if not throughputs or squares == 0:
        return None
    return total * total / (len(throughputs) * squares)


def mean_rates(samples, t_start, t_end):
    """Mean bit/s of each sampled counter between t_start and t_end (the
    samples nearest inside the window)."""
    inside = [(t, row) for t, row in samples if t_start <= t <= t_end]
    if len(inside) < 2:
        return None
    (ta, ra), (tb, rb) = inside[0], inside[-1]
    return [(b - a) * 8 / (tb - ta) for a, b in zip(ra, rb)]


def job_iterations(records):
    """Per job, its iterations [(start, comm_start, end)] from worker records."""
    by_job = {}
    for rec in records:
        if rec.get("type") != "iteration":
            continue
        it = by_job.setdefault(rec["job"], {}).setdefault(rec["iteration"], [])
        it.append(rec)
    jobs = {}
    for job, iterations in by_job.items():
        rows = []
        for i in sorted(iterations):
            recs = iterations[i]
            rows.append((min(r["start"] for r in recs),
                         min(r["comm_start"] for r in recs),
                         max(r["end"] for r in recs)))
        jobs[job] = rows
    return jobs


def _merge(intervals):
    merged = []
    for lo, hi in sorted(intervals):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged


def contenders(links):
    """Per job of a leaf-spine point (a run's meta "links": link -> the jobs
    whose bytes cross it), the other jobs sharing one of its links. The
    links are those of the jobs' data (both directions for an exchange, one
    for a push, whose ACKs are not counted)."""
    out = {}
    for names in links.values():
        for job in names:
            out.setdefault(job, set()).update(n for n in names if n != job)
    return out


def _rivals(job, jobs, rivals):
    """The jobs job's phase can contend with: every other one, or its
    contenders where given."""
    return {o for o in jobs if o != job and (rivals is None or o in rivals.get(job, ()))}


def overlaps(jobs, rivals=None):
    """Per job, per iteration: seconds its communication overlapped others'
    (its contenders' only, where rivals, contenders(), is given)."""
    result = {}
    for job, rows in jobs.items():
        others = _merge([(cs, e) for other in _rivals(job, jobs, rivals)
                         for (_, cs, e) in jobs[other]])
        per_iter = []
        for _, cs, e in rows:
            total = 0.0
            for lo, hi in others:
                if hi <= cs:
                    continue
                if lo >= e:
                    break
                total += min(hi, e) - max(lo, cs)
            per_iter.append(total)
        result[job] = per_iter
    return result


def wire_overlaps(jobs, samples, sample_jobs, rate_bps, threshold=OVERLAP_THRESHOLD,
                  rivals=None):
    """Per job, per iteration: seconds of its communication phase during which
    it and another job (a contender, where rivals is given) each sent at
    threshold * rate_bps or more, by the samples (time, cumulative bytes per
    job in sample_jobs' order). None where a job has no counter."""
    if any(job not in sample_jobs for job in jobs) or len(samples) < 2:
        return None
    column = {job: sample_jobs.index(job) for job in jobs}
    # Sample intervals with the jobs sending in each.
    spans = []
    for (ta, ra), (tb, rb) in zip(samples, samples[1:]):
        if tb <= ta:
            continue
        floor = threshold * rate_bps * (tb - ta) / 8
        spans.append((ta, tb, {job for job, c in column.items() if rb[c] - ra[c] >= floor}))
    result = {}
    for job, rows in jobs.items():
        others = _rivals(job, jobs, rivals)
        per_iter = []
        for _, cs, e in rows:
            total = 0.0
            for ta, tb, sending in spans:
                if tb <= cs or ta >= e or job not in sending or not sending & others:
                    continue
                total += min(tb, e) - max(ta, cs)
            per_iter.append(total)
        result[job] = per_iter
    return result


# A link's sum of fractions above this is over its capacity: sums are
# floats of fractions given to three places, and a link at exactly 1 (the
# ideal just reachable) must not count as over.
LINK_LOAD_SLACK = 1e-9


def over_capacity(load):
    return load > 1 + LINK_LOAD_SLACK


def link_loads(cfg, links):
    """Per directed link of a leaf-spine point (a run's meta "links": link ->
    the jobs whose bytes cross it), the sum of those jobs' communication
    fractions on it: its bytes at the link's rate (the fabric's between leaf
    and spine, the point's to a host) over the job's ideal iteration."""
    fabric_mbit = cfg["topology"].get("fabric_mbit", cfg["rate_mbit"])
    jobs = {job["name"]: job for job in cfg["jobs"]}
    loads = {}
    for link, names in links.items():
        mbit = fabric_mbit if "spine" in link else cfg["rate_mbit"]
        total = 0.0
        for name in names:
            job = jobs[name]
            period_s, _ = ideal_iteration(job["compute_ms"] / 1e3, job["bytes"],
                                          cfg["rate_mbit"] * 1e6)
            total += job["bytes"] * 8 / (mbit * 1e6 * PAYLOAD_EFFICIENCY) / period_s
        loads[link] = total
    return loads


def wilson_interval(k, n, z=1.96):
    """95% Wilson score interval of a proportion k / n, as (low, high)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def convergence_iteration(overlap_s, ideal_comm_s, threshold=OVERLAP_THRESHOLD):
    """First index from which every overlap stays below threshold * ideal_comm_s."""
    limit = threshold * ideal_comm_s
    first = None
    for i, ov in enumerate(overlap_s):
        if ov < limit:
            if first is None:
                first = i
        else:
            first = None
    return first


SETTLE_RUN = 10

# Issue 37 allows a rule three iterations to settle ("settled within 3
# iterations"). A run's p99 over every iteration counts those three, and in
# a short run (30 iterations, two jobs: 60 samples) its p99 is then one of
# them whatever the rule does afterwards; a training run's thousands of
# iterations would not see them. "p99_past_settling_iter_s" is the p99 of
# the iterations after them, the same three for every rule and cubic, beside
# the p99 of all.
SETTLING_ITERATIONS = 3


def settling(overlaps_by_job, ideal_comm_by_job, run=SETTLE_RUN, threshold=OVERLAP_THRESHOLD):
    """(settling iteration or None, relapses in the last half) of a run whose
    jobs' per-iteration overlaps are overlaps_by_job."""
    n = min(len(v) for v in overlaps_by_job.values())
    clear = [all(overlaps_by_job[j][i] < threshold * ideal_comm_by_job[j]
                 for j in overlaps_by_job) for i in range(n)]
    settled = next((i for i in range(n - run + 1) if all(clear[i:i + run])), None)
    return settled, sum(1 for ok in clear[n // 2:] if not ok)


def ideal_iteration(compute_s, nbytes, rate_bps):
    comm = nbytes * 8 / (rate_bps * PAYLOAD_EFFICIENCY)
    return compute_s + comm, comm


def jobs_config(jobs):
    """analyze_run's jobs_config from a point configuration's "jobs"."""
    return {j["name"]: {"compute_s": j["compute_ms"] / 1e3, "bytes": j["bytes"]} for j in jobs}


def analyze_run(records, jobs_config, rate_bps, stable_tail=None, samples=None,
                sample_jobs=None, rivals=None, busiest_link_sum=None):
    """Metrics of one algorithm's run.

    jobs_config maps job name -> {"compute_s": .., "bytes": ..}: the bytes a
    worker sends per iteration through the bottleneck in one direction.
    samples and sample_jobs (the run's samples.json and meta's "sample_jobs")
    give the wire overlap; without them it is None. On a leaf-spine fabric
    rivals (contenders()) limits overlaps to jobs sharing a link, and
    busiest_link_sum (the largest of link_loads()) decides whether the ideal
    is reachable, in place of the sum over every job.
    """
    jobs = job_iterations(records)
    ov = overlaps(jobs, rivals)
    wire = (wire_overlaps(jobs, samples, sample_jobs, rate_bps, rivals=rivals)
            if samples and sample_jobs else None)
    out = {"jobs": {}}
    fractions = 0.0
    converged, wire_converged = [], []
    all_times, steady_times, late_times = [], [], []
    for job, rows in sorted(jobs.items()):
        cfg = jobs_config[job]
        ideal, ideal_comm = ideal_iteration(cfg["compute_s"], cfg["bytes"], rate_bps)
        fractions += ideal_comm / ideal
        times = [e - s for s, _, e in rows]
        conv = convergence_iteration(ov[job], ideal_comm)
        wire_conv = convergence_iteration(wire[job], ideal_comm) if wire else None
        n = len(rows)
        tail = stable_tail if stable_tail is not None else min(50, n // 2)
        steady_from = conv if conv is not None else n // 2
        steady = times[steady_from:] or times
        late = times[SETTLING_ITERATIONS:] or times
        out["jobs"][job] = {
            "iterations": n,
            "mean_iter_s": mean(times),
            "p99_iter_s": percentile(times, 99),
            "steady_from": steady_from,
            "steady_mean_iter_s": mean(steady),
            "steady_p99_iter_s": percentile(steady, 99),
            "p99_past_settling_iter_s": percentile(late, 99),
            "ideal_iter_s": ideal,
            "ideal_comm_s": ideal_comm,
            "mean_comm_s": mean([e - cs for _, cs, e in rows]),
            "mean_overlap_s": mean(ov[job]),
            "overlap_s": ov[job],
            "iter_s": times,
            "converged_iteration": conv,
            "stable": conv is not None and conv <= n - tail,
            "wire_overlap_s": wire[job] if wire else None,
            "wire_converged_iteration": wire_conv,
            "wire_stable": (wire_conv is not None and wire_conv <= n - tail) if wire else None,
        }
        converged.append(conv)
        wire_converged.append(wire_conv)
        all_times += times
        steady_times += steady
        late_times += late
    if busiest_link_sum is not None:
        fractions = busiest_link_sum
    valid = not over_capacity(fractions)
    ideal_mean = mean([j["ideal_iter_s"] for j in out["jobs"].values()])
    ideal_comm = {job: j["ideal_comm_s"] for job, j in out["jobs"].items()}
    settled, relapses = settling(ov, ideal_comm)
    wire_settled, wire_relapses = settling(wire, ideal_comm) if wire else (None, None)
    out.update({
        "settled_iteration": settled,
        "relapses": relapses,
        "wire_settled_iteration": wire_settled,
        "wire_relapses": wire_relapses,
        "mean_iter_s": mean(all_times),
        "p99_iter_s": percentile(all_times, 99),
        "steady_mean_iter_s": mean(steady_times),
        "steady_p99_iter_s": percentile(steady_times, 99),
        "p99_past_settling_iter_s": percentile(late_times, 99),
        "ideal_iter_s": ideal_mean,
        "ideal_valid": valid,
        "comm_fraction_sum": fractions,
        "converged_iteration": (None if any(c is None for c in converged)
                                else max(converged)),
        "stable": all(j["stable"] for j in out["jobs"].values()),
        "wire_converged_iteration": (None if not wire or any(c is None for c in wire_converged)
                                     else max(wire_converged)),
        "wire_stable": (all(j["wire_stable"] for j in out["jobs"].values())
                        if wire else None),
    })
    out["ratio_to_ideal"] = out["mean_iter_s"] / ideal_mean
    out["steady_ratio_to_ideal"] = out["steady_mean_iter_s"] / ideal_mean
    return out


def speedup(baseline, candidate, key="mean_iter_s"):
    return baseline[key] / candidate[key]


def phase_offsets(jobs, reference=None):
    """Offset of each job's communication start from the reference job's, per
    iteration, as a fraction of the reference's iteration time, in [0, 0.5]
    (0: communicating in step, 0.5: half a period apart)."""
    names = sorted(jobs)
    ref = reference or names[0]
    rrows = jobs[ref]
    result = {}
    for job in names:
        if job == ref:
            continue
        offs = []
        for i in range(min(len(rrows), len(jobs[job]))):
            period = rrows[i][2] - rrows[i][0]
            d = (jobs[job][i][1] - rrows[i][1]) / period
            d = d - math.floor(d)
            offs.append(min(d, 1 - d))
        result[job] = offs
    return result


def detector_view(flows_by_host, jobs, steps):
    """What MLTCP's iteration detector learned of each job's gradient flows
    (meta "flows": {host: [mltcpctl flow record]}, listed by the guest's
    driver for torch jobs, and by the simulator for every job).

    Job j's ranks sit on hosts L<j+1> and R<j+1>. A torch job's N ranks each
    send 2 (N - 1) / N of the gradients, (bytes / (N - 1)), to the next rank,
    so a gradient flow carries 2 bytes / N per step; a trainsim job's
    workers each send the job's bytes. A gradient flow is one whose
    learned bytes times its iteration count (about what it carried in all)
    reach half of what a gradient flow carries over the run; the others are
    the rendezvous and gloo's idle pairs. Per job: the steps, how many
    gradient flows, and per flow its iteration count and its learned bytes
    per iteration over what it carried per step.
    """
    view = {}
    for j, job in enumerate(jobs):
        hosts = ("L%d" % (j + 1), "R%d" % (j + 1))
        if not any(host in flows_by_host for host in hosts):
            continue
        if job.get("workload") == "torch":
            carried = 2 * job["bytes"] // job.get("ranks", 2)
        else:
            carried = job["bytes"]
        listed = [f for host in hosts
                  for f in (flows_by_host.get(host) or [])
                  if isinstance(f, dict)]
        gradient = [f for f in listed
                    if f["iter_bytes"] * f["iterations"] >= carried * steps / 2]
        view[job["name"]] = {
            "steps": steps, "carried_per_step": carried, "gradient_flows": len(gradient),
            "iterations": sorted(f["iterations"] for f in gradient),
            "learned_over_carried": sorted(round(f["iter_bytes"] / carried, 3)
                                           for f in gradient)}
    return view


# Periods within this ratio of each other are one period (jobs' sizes are
# whole bytes, so equal fractions of equal periods can differ in the ninth
# digit).
PERIOD_SLACK = 1e-6


def fixed_interleaving(cfg, fractions_sum):
    """Whether a fixed interleaving reaches the ideal of a point's jobs:
    {"reachable": bool, "why": None or one line, "common_period_ms": ...}.

    Reachable where every job has one ideal period T and the (busiest
    link's) communication fractions sum to at most 1: the phases then fit
    back to back in every period. Where the periods differ, the ideal (the
    mean of each job's own T_i) stays a lower bound that no rule beats, but
    not one to reach: where the periods are not multiples of each other
    the jobs' phases slide past each other and meet again, so no fixed
    interleaving reaches it; where they are multiples, only if the phases
    fit. What a fixed interleaving does reach there: every job at one
    common period, max(the longest T_i, the sum of the phases c_i) on a
    dumbbell (common_period_ms; None on a fabric)."""
    periods, phases = [], []
    for job in cfg["jobs"]:
        period_s, comm_s = ideal_iteration(job["compute_ms"] / 1e3, job["bytes"],
                                           cfg["rate_mbit"] * 1e6)
        periods.append(period_s)
        phases.append(comm_s)
    if over_capacity(fractions_sum):
        return {"reachable": False, "why": "fractions sum to %.2f, over 1" % fractions_sum,
                "common_period_ms": None}
    if not periods:
        return {"reachable": True, "why": None, "common_period_ms": None}
    shortest, longest = min(periods), max(periods)
    common = None if "topology" in cfg else 1e3 * max(longest, sum(phases))
    if longest <= shortest * (1 + PERIOD_SLACK):
        return {"reachable": True, "why": None, "common_period_ms": common}
    multiples = all(abs(p / shortest - round(p / shortest)) <= PERIOD_SLACK * p / shortest
                    for p in periods)
    why = ("periods differ (multiples of each other, up to %.2fx): the ideal only if the "
           "phases fit" if multiples else
           "periods not multiples of each other (up to %.2fx): no fixed interleaving "
           "reaches the ideal") % (longest / shortest)
    return {"reachable": False, "why": why, "common_period_ms": common}
