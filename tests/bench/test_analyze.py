# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`python3 -m bench analyze` end to end on a synthetic point directory with
known answers."""
import json
import subprocess
import sys

from bench import analyze, paths
RATE_MBIT = 100
PAYLOAD = RATE_MBIT * 1e6 * 1448 / 1514


def write_run(tmp_path, repeats=1):
    nbytes = int(0.4 * PAYLOAD / 8)
    cfg = {"rate_mbit": RATE_MBIT, "rtt_ms": 4, "buffer_bdp": 1.5, "iterations": 10,
           "repeats": repeats,
           "jobs": [{"name": "j1", "bytes": nbytes, "compute_ms": 600},
                    {"name": "j2", "bytes": nbytes, "compute_ms": 600}],
           "algorithms": [{"name": "cubic", "cc": "cubic"}, {"name": "mltcp", "cc": "mltcp"}]}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    # cubic: both jobs share the link all the time (1.4 s iterations);
    # mltcp: interleaved at the ideal 1.0 s.
    shapes = {"cubic": (1.4, 0.8, 0.0), "mltcp": (1.0, 0.4, 0.5)}
    for (alg, (period, comm, offset)), r in ((a, r) for a in shapes.items()
                                              for r in range(repeats)):
        rep = tmp_path / "raw" / alg / ("rep%d" % r)
        rep.mkdir(parents=True)
        samples = []
        for j, job in enumerate(("j1", "j2")):
            for rank in (0, 1):
                with open(rep / ("%s-r%d.jsonl" % (job, rank)), "w") as f:
                    for i in range(10):
                        s = 100 + j * offset + i * period
                        f.write(json.dumps({"type": "iteration", "job": job, "rank": rank,
                                            "iteration": i, "start": s, "comm_start": s + 0.6,
                                            "end": s + 0.6 + comm, "cc": alg}) + "\n")
                    f.write(json.dumps({"type": "summary", "job": job, "rank": rank}) + "\n")
        for k in range(1000):
            t = 100 + k * 0.01
            samples.append([t, [k * 50000, k * 50000]])
        (rep / "samples.json").write_text(json.dumps(samples))
        meta = {"rtos": {"L1": 0, "R1": 1}, "drops": {"s1-eth3": {"tbf": 5, "netem": 0}},
                "failures": [], "start_at": 100.0, "sample_jobs": ["j1", "j2"],
                "tcp_counters": {"TcpExtTCPFastRetrans": 7 + r, "TcpExtTCPDSACKRecv": 2}}
        if alg == "mltcp":
            meta["cc_counters"] = {"flows_started": 4, "iterations": 40, "gate_held": 3,
                                   "gate_opened": 2, "gate_ran_out": 1, "gate_reduced": 0}
        (rep / "meta.json").write_text(json.dumps(meta))
    return tmp_path


def test_analyze_writes_summary_report_and_plots(tmp_path):
    run = write_run(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "bench", "analyze", str(run)],
                          cwd=paths.TOP, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((run / "summary.json").read_text())
    assert summary["ideal_iter_ms"] == 1000.0
    cubic, mltcp = summary["algorithms"]["cubic"], summary["algorithms"]["mltcp"]
    assert cubic["mean_iter_ms"] == 1400.0 and cubic["p99_iter_ms"] == 1400.0
    assert mltcp["mean_iter_ms"] == 1000.0
    assert mltcp["speedup_mean_vs_cubic"] == 1.4
    assert mltcp["speedup_p99_vs_cubic"] == 1.4
    assert mltcp["converged_iteration"] == 0
    assert cubic["converged_iteration"] is None
    assert cubic["rtos"] == [1] and cubic["drops"] == [5]
    # 2 x 50,000 B per 10 ms = 80 Mbit/s on a 100 Mbit/s link.
    assert abs(cubic["utilization"] - 0.8) < 0.01
    for png in ("iteration_times.png", "throughput.png", "iteration_cdf.png",
                "phase_offset.png"):
        assert (run / png).stat().st_size > 10000
    report = (run / "report.md").read_text()
    assert "| mltcp (mltcp) | 1000.0 | 1000.0 |" in report
    assert "Convergence iteration" in report
    # The backend's counters: the gate's table lists the algorithm that held.
    assert mltcp["cc_counters"]["gate_held"] == 3 and cubic["cc_counters"] == {}
    assert "| mltcp | 40 | 3 | 2 | 1 | 0 |" in report
    assert "| cubic | " not in report.split("The start gate")[1].split("\n\n")[1]
    # The hosts' TCP counters: retransmissions and the DSACKs of spurious ones.
    assert mltcp["tcp_counters"] == {"TcpExtTCPFastRetrans": 7, "TcpExtTCPDSACKRecv": 2}
    assert "| algorithm | FastRetrans | DSACKRecv |" in report
    assert "| mltcp | 7 | 2 |" in report


def test_the_tcp_counters_are_summed_over_the_repeats(tmp_path):
    run = write_run(tmp_path, repeats=2)
    proc = subprocess.run([sys.executable, "-m", "bench", "analyze", str(run)],
                          cwd=paths.TOP, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((run / "summary.json").read_text())
    assert summary["algorithms"]["cubic"]["repeats"] == 2
    assert summary["algorithms"]["cubic"]["tcp_counters"] == {"TcpExtTCPFastRetrans": 15,
                                                               "TcpExtTCPDSACKRecv": 4}


def test_the_report_is_written_again_from_the_summary_alone(tmp_path):
    """Committed points keep summary.json, not report.md: --from-summary
    renders the same report without the raw logs."""
    run = write_run(tmp_path)
    subprocess.run([sys.executable, "-m", "bench", "analyze", str(run)], cwd=paths.TOP,
                   capture_output=True, check=True)
    written = (run / "report.md").read_text()
    (run / "report.md").unlink()
    for path in (run / "raw").rglob("*"):
        if path.is_file():
            path.unlink()
    proc = subprocess.run([sys.executable, "-m", "bench", "analyze", "--from-summary", str(run)],
                          cwd=paths.TOP, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (run / "report.md").read_text() == written


def test_an_older_summary_without_the_detector_is_reported():
    """Summaries written before the detector's view (none, or a list of the
    repeats' views) render too, as the committed ones are."""
    algorithm = {"ccs": ["mltcp"], "mean_iter_ms": 250.0, "p99_iter_ms": 300.0,
                 "steady_mean_iter_ms": 240.0, "ratio_to_ideal": 1.25, "converged_iteration": [3],
                 "stable_repeats": 1, "repeats": 1, "rtos": [0], "drops": [2],
                 "utilization": 0.8, "busy_utilization": 0.9, "jobs": {}, "bulk_mbit": {},
                 "failures": []}
    view = {"job1": {"steps": 10, "gradient_flows": 2, "iterations": [9, 9],
                     "learned_over_carried": [1.0, 1.0]}}
    summary = {"date": "d", "commit": "c", "ideal_iter_ms": 200.0, "ideal_valid": True,
               "comm_fraction_sum": 0.8,
               "config": {"rate_mbit": 200, "rtt_ms": 0, "buffer_bytes": 262144,
                          "iterations": 10, "jobs": []},
               "algorithms": {"mltcp": algorithm}}
    assert "| mltcp (mltcp) | 250.0 |" in analyze.report(summary, "cubic", [])
    summary["algorithms"]["mltcp"] = dict(algorithm, detector=[view])
    assert "| mltcp | 0 | job1 | 10 | 2 | 9,9 | 1.0,1.0 |" in \
        analyze.report(summary, "cubic", [])


def test_counters_are_summed_over_repeats_that_all_have_them():
    runs = [{"gate_held": 2, "iterations": 10}, {"gate_held": 3, "iterations": 9, "x": 1}]
    assert analyze.summed_counters(runs) == {"gate_held": 5, "iterations": 19}
    # A repeat without counters (an older run dir): no sum at all.
    assert analyze.summed_counters(runs + [{}]) == {}
    assert analyze.summed_counters([]) == {}


def test_on_a_fabric_jobs_on_disjoint_links_do_not_overlap_and_the_links_are_kept(tmp_path):
    """The cubic run's jobs overlap in time (both communicate 0.8 s of every
    1.4), but on a leaf-spine fabric whose links they do not share they do
    not contend: no overlap, converged from the first iteration, and the
    ideal judged by the busiest link (0.4), not by the sum over both jobs
    (0.8)."""
    run = write_run(tmp_path)
    cfg = json.loads((run / "config.json").read_text())
    cfg["topology"] = {"kind": "leaf-spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 2}
    (run / "config.json").write_text(json.dumps(cfg))
    links = {"leaf0>h0": ["j1"], "leaf0>h1": ["j1"], "leaf1>h2": ["j2"], "leaf1>h3": ["j2"]}
    for alg in ("cubic", "mltcp"):
        meta_path = run / "raw" / alg / "rep0" / "meta.json"
        meta = json.loads(meta_path.read_text())
        meta.update(links=links, cost={"wall_s": 2.0, "simulated_s": 14.0, "events": 1000})
        meta_path.write_text(json.dumps(meta))
    proc = subprocess.run([sys.executable, "-m", "bench", "analyze", str(run)],
                          cwd=paths.TOP, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((run / "summary.json").read_text())
    assert summary["links"] == links
    assert summary["comm_fraction_sum"] == 0.4 and summary["ideal_valid"]
    cubic = summary["algorithms"]["cubic"]
    assert cubic["converged_iteration"] == 0 and cubic["stable_repeats"] == 1
    assert cubic["jobs"]["j1"]["mean_overlap_ms"] == 0.0
    assert cubic["costs"] == [{"wall_s": 2.0, "simulated_s": 14.0, "events": 1000}]
    report = (run / "report.md").read_text()
    assert "the busiest link's communication fractions sum to 0.4 (ideal reachable)" in report
    # The same jobs on a dumbbell overlap (the test above).


def test_the_setup_line_describes_the_delay_each_backend_made():
    """The guest's dumbbell delays with netem, half the RTT each way; the
    host has no netem (testbed.topology), so its reports must not say so."""
    from bench import matrix
    guest = matrix.pair()[0]
    assert guest.get("backend", "module") == "module" and guest["rtt_ms"] > 0
    line = analyze.setup_line(guest)
    assert "base RTT %g ms (netem, half each way)" % guest["rtt_ms"] in line
    host = matrix.on_host(guest)
    line = analyze.setup_line(host)
    assert "netem, half each way" not in line and "base RTT" not in line
    assert "no added delay (the host has no netem" in line
    assert line.startswith("Bottleneck: 500 Mbit/s tbf, no added delay")
    # A yardstick host point (htb, ACKs first) likewise.
    from bench import yardstick
    (acks,) = [c for c in yardstick.yardstick() if c["name"] == "yard-host-pair-acksfirst"]
    assert "the host has no netem" in analyze.setup_line(acks)
    assert "netem, half" not in analyze.setup_line(acks)
    # A guest point without delay has no netem either.
    assert "no added delay (no netem" in analyze.setup_line(dict(guest, rtt_ms=0))
    # The emulated switch, and the lossy point's loss.
    assert analyze.setup_line(acks).startswith(
        "Bottleneck: 200 Mbit/s the emulated switch (htb: EF first, then training classes of "
        "DSCP 8,16,24,32,40,48,56 in strict priority, best effort assured 50% of the rate; a "
        "queue each), the hosts marking pure ACKs EF for every rule, no added delay")
    (lossy,) = [c for c in yardstick.yardstick() if c.get("loss_pct")]
    assert "queue 262144 bytes, 1% random loss either way (nftables, offloads off);" in \
        analyze.setup_line(lossy)


def test_the_report_says_when_periods_that_differ_leave_the_ideal_unreachable():
    from bench import yardstick
    mix = next(c for c in yardstick.yardstick() if c["name"] == "yard-sim-mix4-random-ecn")
    algorithm = {"ccs": ["cubic"], "mean_iter_ms": 35.0, "p99_iter_ms": 40.0,
                 "steady_mean_iter_ms": 35.0, "ratio_to_ideal": 1.19, "converged_iteration": [3],
                 "stable_repeats": 1, "repeats": 1, "rtos": [0], "drops": [2],
                 "utilization": 0.8, "busy_utilization": 0.9, "jobs": {}, "bulk_mbit": {},
                 "failures": []}
    summary = {"date": "d", "commit": "c", "ideal_iter_ms": 29.38, "ideal_valid": True,
               "comm_fraction_sum": 0.8, "config": mix, "algorithms": {"cubic": algorithm}}
    text = analyze.report(summary, "cubic", [])
    assert "(ideal NOT reachable: periods not multiples of each other (up to 1.50x): no fixed " \
        "interleaving reaches the ideal; it is a lower bound; all jobs at one common period " \
        "reach 37.50 ms)" in text
