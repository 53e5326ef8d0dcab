# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turn a point directory into summary.json, report.md and PNG plots.

    python3 -m bench analyze [--baseline cubic] [--from-summary] POINT_DIR

POINT_DIR holds config.json and the driver's raw/ (bench/rundir.py). Runs on
the host, after the guest is gone. --from-summary writes report.md from the
point's summary.json alone, no raw/ needed: the directories committed under
bench/results keep summary.json and not the report, and this renders it
again (listing the plots the directory has).
"""
import datetime
import os
import subprocess
import sys

from bench import metrics, paths, rundir
from testbed import topology


def utilization(samples, rate_bps):
    """Bottleneck use from the byte counters: over the whole run, and over the
    10 ms bins in which some job was sending (busy)."""
    if len(samples) < 2:
        return None, None
    t0, b0 = samples[0][0], sum(samples[0][1])
    t1, b1 = samples[-1][0], sum(samples[-1][1])
    overall = (b1 - b0) * 8 / ((t1 - t0) * rate_bps)
    busy = []
    for (ta, ra), (tb, rb) in zip(samples, samples[1:]):
        rate = (sum(rb) - sum(ra)) * 8 / max(tb - ta, 1e-6)
        if rate > 0.05 * rate_bps:
            busy.append(rate / rate_bps)
    return overall, (sum(busy) / len(busy) if busy else None)


def git_commit():
    """The checkout's short commit, or None outside a git checkout: a stamp,
    not worth failing a measurement for."""
    try:
        return subprocess.run(["git", "-C", paths.TOP, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def analyze(point):
    cfg = point.config()
    rate = cfg["rate_mbit"] * 1e6
    jobs_cfg = metrics.jobs_config(cfg["jobs"])
    per_alg = {}
    for alg in cfg["algorithms"]:
        reps = []
        for repeat in point.repeats(alg["name"]):
            meta, samples, records = repeat.meta, repeat.samples, repeat.records
            # A leaf-spine run names the links each job's bytes cross.
            links = meta.get("links")
            run = metrics.analyze_run(
                records, jobs_cfg, rate, samples=samples, sample_jobs=meta.get("sample_jobs"),
                rivals=metrics.contenders(links) if links else None,
                busiest_link_sum=max(metrics.link_loads(cfg, links).values()) if links else None)
            run["links"] = links
            run["cost"] = meta.get("cost")
            run["rtos"] = sum(meta["rtos"].values())
            run["drops"] = sum(sum(d.values()) for d in meta["drops"].values())
            run["failures"] = meta["failures"]
            run["cc_counters"] = meta.get("cc_counters", {})
            run["tcp_counters"] = meta.get("tcp_counters", {})
            run["utilization"], run["busy_utilization"] = utilization(samples, rate)
            run["phase"] = metrics.phase_offsets(metrics.job_iterations(records))
            run["samples"] = samples
            run["sample_jobs"] = meta["sample_jobs"]
            run["start_at"] = meta["start_at"]
            run["ccs"] = sorted({r["cc"] for r in records if r.get("type") == "iteration"})
            # Throughput of every flow (jobs and bulk) while the jobs ran.
            ends = [r["end"] for r in records if r.get("type") == "iteration"]
            rates = metrics.mean_rates(samples, meta["start_at"], max(ends)) if ends else None
            run["mean_mbit"] = (dict(zip(meta["sample_jobs"], [x / 1e6 for x in rates]))
                                if rates else {})
            run["bulk_mbit"] = {b: run["mean_mbit"].get(b) for b in meta.get("bulk", [])}
            run["jain"] = metrics.jain_index(list(run["mean_mbit"].values())) if rates else None
            run["repeat"] = repeat.index
            run["detector"] = (metrics.detector_view(meta["flows"], cfg["jobs"],
                                                     cfg["iterations"])
                               if "flows" in meta else None) or None
            reps.append(run)
        per_alg[alg["name"]] = reps
    return cfg, per_alg


def summed_counters(runs):
    """The CC's counters (testbed.mltcpctl.counters()) summed over runs; a
    counter missing from one run (a run dir older than the counters) is
    missing from the sum."""
    if not runs or not all(runs):
        return {}
    return {name: sum(r[name] for r in runs) for name in runs[0]
            if all(name in r for r in runs)}


GATE_COUNTERS = ("gate_held", "gate_opened", "gate_ran_out", "gate_reduced")


def ms(x):
    return None if x is None else round(x * 1e3, 2)


def aggregate(reps):
    """Mean over repeats, with the per-repeat values kept."""
    def avg(key):
        vals = [r[key] for r in reps if r[key] is not None]
        return sum(vals) / len(vals) if vals else None
    conv = [r["converged_iteration"] for r in reps]
    costs = [r.get("cost") for r in reps]
    return {
        # The simulator's cost of each run (wall time, simulated time, events).
        **({"costs": costs} if all(costs) else {}),
        "repeats": len(reps),
        "mean_iter_ms": ms(avg("mean_iter_s")),
        "p99_iter_ms": ms(avg("p99_iter_s")),
        "steady_mean_iter_ms": ms(avg("steady_mean_iter_s")),
        "steady_p99_iter_ms": ms(avg("steady_p99_iter_s")),
        "ratio_to_ideal": avg("ratio_to_ideal"),
        "steady_ratio_to_ideal": avg("steady_ratio_to_ideal"),
        "converged_iteration": conv[0] if len(conv) == 1 else conv,
        "stable_repeats": sum(1 for r in reps if r["stable"]),
        "stable_interval": metrics.wilson_interval(sum(1 for r in reps if r["stable"]),
                                                   len(reps)),
        "wire_stable_repeats": (sum(1 for r in reps if r["wire_stable"])
                                if all(r.get("wire_stable") is not None for r in reps)
                                else None),
        "wire_converged_iteration": [r.get("wire_converged_iteration") for r in reps],
        "settled_iteration": [r.get("settled_iteration") for r in reps],
        "relapses": [r.get("relapses") for r in reps],
        "wire_settled_iteration": [r.get("wire_settled_iteration") for r in reps],
        "wire_relapses": [r.get("wire_relapses") for r in reps],
        "rtos": [r["rtos"] for r in reps],
        "drops": [r["drops"] for r in reps],
        "utilization": avg("utilization"),
        "busy_utilization": avg("busy_utilization"),
        "ccs": sorted({c for r in reps for c in r["ccs"]}),
        "bulk_mbit": {b: sum(r["bulk_mbit"][b] for r in reps) / len(reps)
                      for b in reps[0]["bulk_mbit"]},
        "jain": avg("jain"),
        "failures": [f for r in reps for f in r["failures"]],
        "cc_counters": summed_counters([r["cc_counters"] for r in reps]),
        "tcp_counters": summed_counters([r.get("tcp_counters", {}) for r in reps]),
        "per_repeat_mean_iter_ms": [ms(r["mean_iter_s"]) for r in reps],
        # Each repeat's p99 (p99_iter_ms is their mean): the spread the
        # yardstick's table gives (bench/yardstick.py).
        "per_repeat_p99_iter_ms": [ms(r["p99_iter_s"]) for r in reps],
        # And past the settling allowance (bench.metrics.SETTLING_ITERATIONS).
        "per_repeat_p99_past_settling_iter_ms": [ms(r.get("p99_past_settling_iter_s"))
                                                 for r in reps],
        # The repeats' own numbers: a point merged from parts (bench merge)
        # may start at any.
        "repeat_indices": [r["repeat"] for r in reps],
        "detector": {str(r["repeat"]): r["detector"] for r in reps
                     if r.get("detector") is not None},
        "jobs": {job: {"mean_iter_ms": ms(sum(r["jobs"][job]["mean_iter_s"] for r in reps)
                                          / len(reps)),
                       "p99_iter_ms": ms(max(r["jobs"][job]["p99_iter_s"] for r in reps)),
                       "ideal_iter_ms": ms(reps[0]["jobs"][job]["ideal_iter_s"]),
                       "mean_comm_ms": ms(sum(r["jobs"][job]["mean_comm_s"] for r in reps)
                                          / len(reps)),
                       "mean_overlap_ms": ms(sum(r["jobs"][job]["mean_overlap_s"] for r in reps)
                                             / len(reps))}
                 for job in reps[0]["jobs"]},
    }


def summarize(cfg, per_alg, baseline):
    first = next(iter(per_alg.values()))[0]
    summary = {
        # On a leaf-spine fabric, the links each job's bytes cross (the run's
        # plan, the same for every run of the point), kept with the summary
        # since raw logs are not committed (bench regime --placement-table).
        **({"links": first["links"]} if first.get("links") else {}),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": cfg.get("commit") or git_commit(),
        "ideal_iter_ms": ms(first["ideal_iter_s"]),
        "ideal_valid": first["ideal_valid"],
        "comm_fraction_sum": round(first["comm_fraction_sum"], 3),
        "config": cfg,
        "algorithms": {name: aggregate(reps) for name, reps in per_alg.items()},
    }
    base = summary["algorithms"].get(baseline)
    for name, agg in summary["algorithms"].items():
        if base:
            agg["speedup_mean_vs_%s" % baseline] = round(
                base["mean_iter_ms"] / agg["mean_iter_ms"], 3)
            agg["speedup_p99_vs_%s" % baseline] = round(
                base["p99_iter_ms"] / agg["p99_iter_ms"], 3)
    return summary


def fmt(x, nd=1):
    if x is None:
        return "-"
    if isinstance(x, list):
        return ",".join("-" if v is None else str(v) for v in x)
    if isinstance(x, float):
        return "%.*f" % (nd, x)
    return str(x)


def delay_words(cfg):
    """How the bottleneck's delay was made, as the driver makes it
    (bench.driver.bottleneck_shaping(), testbed.topology.Shaping): netem,
    half the base RTT each way, only where rtt_ms is above 0; the host's
    points (backend bpf) have no netem and no added delay."""
    if cfg.get("backend") == "bpf":
        return ("no added delay (the host has no netem: the shaper alone, the RTT "
                "the queue's and the path's)")
    if not cfg["rtt_ms"]:
        return "no added delay (no netem: the RTT the queue's and the path's)"
    return "base RTT %g ms (netem, half each way)" % cfg["rtt_ms"]


def setup_line(cfg):
    """The point's network and traffic in one line, as its backend built them."""
    buffer = ("%d bytes" % cfg["buffer_bytes"] if "buffer_bytes" in cfg
              else "%.2g BDP" % cfg["buffer_bdp"])
    if cfg.get("backend") == "ns-3":
        where = ("a leaf-spine fabric (%(leaves)d leaves, %(spines)d spines, "
                 "%(hosts_per_leaf)d hosts a leaf)" % cfg["topology"]
                 if "topology" in cfg else "the dumbbell")
        port = ", ".join(what for key, what in (("ecn_mark_bytes", "ECN marks"),
                                                ("ack_priority", "pure ACKs first"))
                         if cfg.get(key)) or "drop-tail"
        net = "ns-3 3.37: %s at %g Mbit/s, base RTT %g ms, queue %s (%s)" % (
            where, cfg["rate_mbit"], cfg["rtt_ms"], buffer, port)
    else:
        if cfg.get("shaper") == "prio":
            # testbed.topology.Shaping.prio_tree().
            shaper = ("the emulated switch (htb: EF first, then training classes of DSCP "
                      "%s in strict priority, best effort assured %g%% of the rate; a queue "
                      "each)%s" % (
                          ",".join("%d" % d for d in cfg.get("prio_dscp",
                                                             topology.PRIO_DSCP)),
                          100 * cfg.get("be_share", topology.BE_SHARE),
                          ", the hosts marking pure ACKs EF for every rule"
                          if cfg.get("ack_priority") == "dscp" else ""))
        else:
            shaper = cfg.get("shaper", "tbf") + (
                " serving pure ACKs first, known by the DSCP the hosts' marker sets"
                if cfg.get("ack_priority") == "dscp" else
                " serving pure ACKs first" if cfg.get("ack_priority") else "")
        loss = (", %g%% random loss either way (nftables, offloads off)" % cfg["loss_pct"]
                if cfg.get("loss_pct") else "")
        net = ("Bottleneck: %g Mbit/s %s, %s, queue %s%s; "
               "a dumbbell of network namespaces and Linux bridges" % (
                   cfg["rate_mbit"], shaper, delay_words(cfg), buffer, loss))
    kinds = sorted({"%s%s" % (job.get("collective", "ring" if job.get("ranks", 2) > 2
                                      else "exchange"),
                              " of %d ranks" % job["ranks"] if job.get("ranks", 2) > 2 else "")
                    for job in cfg["jobs"]})
    start = "random starts (drawn per repeat)" if cfg.get("start") == "random" else \
        "the configured start offsets"
    return "%s; jobs: %s; %s." % (net, ", ".join(kinds), start)


def report(summary, baseline, plots):
    cfg = summary["config"]
    lines = ["# Interleaving experiment", "",
             "Measured %s at commit %s." % (summary["date"], summary["commit"]), "",
             "## Setup", "",
             "- " + setup_line(cfg),
             "- %d iterations per job, %d repeat(s) per algorithm; the same start "
             "offsets for every algorithm." % (cfg["iterations"], cfg.get("repeats", 1)),
             "- Jobs:", ""]
    lines += ["  | job | bytes per iteration | compute | start offset |",
              "  |---|---|---|---|"]
    for j in cfg["jobs"]:
        lines.append("  | %s | %d | %g ms | %g ms |" % (j["name"], j["bytes"], j["compute_ms"],
                                                       j.get("offset_ms", 0)))
    # On a fabric the sum is its busiest link's (metrics.analyze_run()).
    summed = ("the busiest link's communication fractions sum" if "links" in summary
              else "communication fractions sum")
    # Reachable by a fixed interleaving only with one period (issue 37 item 6).
    reach = metrics.fixed_interleaving(cfg, summary["comm_fraction_sum"])
    if reach["reachable"]:
        verdict = "reachable"
    elif not summary["ideal_valid"]:
        verdict = "NOT reachable: sum > 1"
    else:
        verdict = "NOT reachable: %s; it is a lower bound%s" % (
            reach["why"], "; all jobs at one common period reach %.2f ms"
            % reach["common_period_ms"] if reach["common_period_ms"] else "")
    lines += ["", "- Ideal iteration (compute + bytes at %.1f Mbit/s payload rate): "
              "%s ms; %s to %s (ideal %s)." % (
                  cfg["rate_mbit"] * metrics.PAYLOAD_EFFICIENCY, summary["ideal_iter_ms"],
                  summed, summary["comm_fraction_sum"], verdict),
              "", "## Results", "",
              "| algorithm | mean iter ms | p99 ms | steady mean ms | x ideal | "
              "speedup mean / p99 vs %s | converged at | stable | RTOs | drops | "
              "link use (busy) |" % baseline,
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, a in summary["algorithms"].items():
        lines.append("| %s (%s) | %s | %s | %s | %s | %s / %s | %s | %d/%d | %s | %s | %s (%s) |" % (
            name, ",".join(a["ccs"]), fmt(a["mean_iter_ms"]), fmt(a["p99_iter_ms"]),
            fmt(a["steady_mean_iter_ms"]), fmt(a["ratio_to_ideal"], 3),
            fmt(a.get("speedup_mean_vs_%s" % baseline), 3),
            fmt(a.get("speedup_p99_vs_%s" % baseline), 3),
            fmt(a["converged_iteration"]), a["stable_repeats"], a["repeats"],
            fmt(a["rtos"]), fmt(a["drops"]), fmt(a["utilization"], 2),
            fmt(a["busy_utilization"], 2)))
    lines += ["", "Per job (mean over repeats):", "",
              "| algorithm | job | mean iter ms | p99 ms | ideal ms | mean comm ms | "
              "mean overlap ms |", "|---|---|---|---|---|---|---|"]
    for name, a in summary["algorithms"].items():
        for job, j in a["jobs"].items():
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                name, job, fmt(j["mean_iter_ms"]), fmt(j["p99_iter_ms"]),
                fmt(j["ideal_iter_ms"]), fmt(j["mean_comm_ms"]), fmt(j["mean_overlap_ms"])))
    gated = {name: a["cc_counters"] for name, a in summary["algorithms"].items()
             if any(a.get("cc_counters", {}).get(c) for c in GATE_COUNTERS)}
    if gated:
        lines += ["", "The start gate, summed over repeats (the backend's host-wide "
                  "counters: iterations started held, and how the holds ended):", "",
                  "| algorithm | iterations | held | opened | ran out | reduced |",
                  "|---|---|---|---|---|---|"]
        for name, c in gated.items():
            lines.append("| %s | %s | %s |" % (name, fmt(c.get("iterations")),
                                                " | ".join(fmt(c.get(k)) for k in GATE_COUNTERS)))
    counted = {name: a["tcp_counters"] for name, a in summary["algorithms"].items()
               if a.get("tcp_counters")}
    if counted:
        names = list(next(iter(counted.values())))
        lines += ["", "The hosts' TCP counters, summed over repeats (retransmissions, and "
                  "reordering the senders detected: DSACKs are spurious retransmissions):",
                  "", "| algorithm | " + " | ".join(n.replace("TcpExtTCP", "") for n in names) +
                  " |", "|---" * (len(names) + 1) + "|"]
        for name, c in counted.items():
            lines.append("| %s | %s |" % (name, " | ".join(fmt(c.get(n)) for n in names)))
    if any(a.get("detector") for a in summary["algorithms"].values()):
        lines += ["", "What the detector learned of the gradient flows, per repeat (each "
                  "flow's iteration count, and its learned bytes per iteration over the "
                  "bytes it carried per step):", "",
                  "| algorithm | repeat | job | steps | gradient flows | iterations | "
                  "learned / carried |", "|---|---|---|---|---|---|---|"]
        for name, a in summary["algorithms"].items():
            views = a.get("detector") or {}
            # Older summaries list the repeats' views in order.
            for rep, view in views.items() if isinstance(views, dict) else enumerate(views):
                for job, d in view.items():
                    lines.append("| %s | %s | %s | %d | %d | %s | %s |" % (
                        name, rep, job, d["steps"], d["gradient_flows"],
                        fmt(d["iterations"]), fmt(d["learned_over_carried"])))
    if any(a["bulk_mbit"] for a in summary["algorithms"].values()):
        lines += ["", "Bulk flows sharing the bottleneck (mean throughput while the jobs ran) "
                  "and Jain's index over the mean throughputs of all flows:", "",
                  "| algorithm of the jobs | bulk Mbit/s | Jain's index |", "|---|---|---|"]
        for name, a in summary["algorithms"].items():
            lines.append("| %s | %s | %s |" % (
                name, ", ".join("%s %.1f" % (b, v) for b, v in a["bulk_mbit"].items()),
                fmt(a["jain"], 3)))
    failures = [f for a in summary["algorithms"].values() for f in a["failures"]]
    if failures:
        lines += ["", "**Worker failures:** " + "; ".join(failures)]
    lines += ["", "## Plots", ""] + ["![%s](%s)" % (t, p) for t, p in plots]
    lines += ["", "## Definitions", "", "```", metrics.__doc__.strip(), "```", ""]
    return "\n".join(lines)


# The plots of a point (file: title), in the order plot() makes them.
PLOTS = {
    "iteration_times.png": "iteration time per iteration, per job",
    "throughput.png": "stacked throughput over time (10 ms samples)",
    "iteration_cdf.png": "CDF of iteration times",
    "phase_offset.png": "phase offset between jobs over iterations",
}


def plot(point, cfg, per_alg):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(per_alg)
    rate = cfg["rate_mbit"]
    out = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(point.file(name), dpi=110)
        plt.close(fig)
        out.append((PLOTS[name], name))

    fig, axes = plt.subplots(len(names), 1, figsize=(9, 2.6 * len(names)), sharex=True,
                             squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        run = per_alg[name][0]
        for job, j in sorted(run["jobs"].items()):
            ax.plot([t * 1e3 for t in j["iter_s"]], marker=".", lw=1, label=job)
        ax.axhline(run["ideal_iter_s"] * 1e3, color="k", ls="--", lw=1, label="ideal")
        ax.set_title("%s: iteration time (repeat 0)" % name, fontsize=10)
        ax.set_ylabel("ms")
        ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("iteration")
    save(fig, "iteration_times.png")

    window = cfg.get("plot_window_s", 8.0)
    fig, axes = plt.subplots(len(names), 2, figsize=(12, 2.6 * len(names)), squeeze=False)
    for row, name in enumerate(names):
        run = per_alg[name][0]
        samples = run["samples"]
        t0 = run["start_at"]
        ts, rates = [], []
        for (ta, ra), (tb, rb) in zip(samples, samples[1:]):
            ts.append(tb - t0)
            rates.append([(b - a) * 8 / max(tb - ta, 1e-6) / 1e6 for a, b in zip(ra, rb)])
        end = ts[-1] if ts else 0
        for col, (lo, hi, label) in enumerate(((0, window, "first %g s" % window),
                                               (end - window, end, "last %g s" % window))):
            ax = axes[row, col]
            sel = [i for i, t in enumerate(ts) if lo <= t <= hi]
            if sel:
                ax.stackplot([ts[i] for i in sel],
                             *[[rates[i][k] for i in sel] for k in range(len(rates[0]))],
                             labels=run["sample_jobs"], alpha=0.85)
            ax.axhline(rate, color="k", ls="--", lw=1)
            ax.set_ylim(0, rate * 1.3)
            ax.set_title("%s: bottleneck throughput by job, %s" % (name, label), fontsize=10)
            ax.set_ylabel("Mbit/s")
            ax.set_xlabel("s since start")
            ax.legend(fontsize=8, loc="upper right", ncol=len(run["sample_jobs"]))
    save(fig, "throughput.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    for name in names:
        times = sorted(t * 1e3 for r in per_alg[name] for j in r["jobs"].values()
                       for t in j["iter_s"])
        ax.step(times, [(i + 1) / len(times) for i in range(len(times))], where="post",
                label=name)
    ax.axvline(per_alg[names[0]][0]["ideal_iter_s"] * 1e3, color="k", ls="--", lw=1,
               label="ideal")
    ax.set_xlabel("iteration time (ms)")
    ax.set_ylabel("fraction of iterations")
    ax.set_title("CDF of iteration times (all jobs, all repeats)", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, "iteration_cdf.png")

    fig, ax = plt.subplots(figsize=(8, 3.5))
    for name in names:
        for job, offs in per_alg[name][0]["phase"].items():
            ax.plot(offs, marker=".", lw=1, label="%s: %s" % (name, job))
    ax.set_ylim(-0.02, 0.52)
    ax.set_xlabel("iteration")
    ax.set_ylabel("offset / period")
    ax.set_title("communication-start offset from the first job "
                 "(0 = in step, 0.5 = half a period apart)", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, "phase_offset.png")
    return out


def print_table(summary, baseline):
    print("ideal iteration %s ms (fractions sum %s)" % (summary["ideal_iter_ms"],
                                                          summary["comm_fraction_sum"]))
    print("%-16s %10s %10s %10s %9s %9s %10s %6s" % (
        "algorithm", "mean ms", "p99 ms", "steady ms", "x ideal", "speedup", "converged", "RTOs"))
    for name, a in summary["algorithms"].items():
        print("%-16s %10s %10s %10s %9s %9s %10s %6s" % (
            name, fmt(a["mean_iter_ms"]), fmt(a["p99_iter_ms"]), fmt(a["steady_mean_iter_ms"]),
            fmt(a["ratio_to_ideal"], 3), fmt(a.get("speedup_mean_vs_%s" % baseline), 3),
            fmt(a["converged_iteration"]), fmt(a["rtos"])))


def add_arguments(parser):
    parser.add_argument("point", metavar="POINT_DIR")
    parser.add_argument("--baseline", default="cubic")
    parser.add_argument("--from-summary", action="store_true",
                        help="write report.md from summary.json only (no raw logs)")


def analyze_point(point, baseline="cubic"):
    """Write the point's summary.json, report.md and plots; print its table.
    Returns the summary and the workers' failures."""
    cfg, per_alg = analyze(point)
    summary = summarize(cfg, per_alg, baseline)
    plots = plot(point, cfg, per_alg)
    point.write_summary(summary)
    point.write_report(report(summary, baseline, plots))
    print_table(summary, baseline)
    failures = [f for a in summary["algorithms"].values() for f in a["failures"]]
    if failures:
        print("worker failures: " + "; ".join(failures), file=sys.stderr)
    return summary, failures


def report_from_summary(point, baseline="cubic"):
    """Write the point's report.md from its summary.json (and the plots it
    has); print its table."""
    summary = point.summary()
    plots = [(title, name) for name, title in PLOTS.items()
             if os.path.exists(point.file(name))]
    point.write_report(report(summary, baseline, plots))
    print_table(summary, baseline)


def main(args):
    if args.from_summary:
        report_from_summary(rundir.Point(args.point), args.baseline)
        return 0
    _, failures = analyze_point(rundir.Point(args.point), args.baseline)
    return 1 if failures else 0
