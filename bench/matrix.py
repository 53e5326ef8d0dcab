# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The bench matrix: named sets of experiment configurations for the driver.

Each point is one driver run (one topology) comparing the same algorithms
with the same start offsets; jobs are given by compute time and bytes, mostly
through their communication fraction of an ideal period. A set is named by
the question it answers, its backend first where it has one: host- (the BPF
twin on the host kernel), guest- (the module in the QEMU guest), sim- (the
ns-3 simulator); dc, dc-dcqcn, regime-map and cluster are simulated too.
Points keep the names their committed results carry (some from a set's
earlier name, as study2-buf256k), so that `bench run SET --only POINT`
measures a cited point again.
"""
import json
import random

from bench.metrics import PAYLOAD_EFFICIENCY

# Every run compares the baselines, MLTCP, and a control with constant F
# equal to MLTCP's mean F (1.0 for the defaults): it isolates "F varies with
# progress" from "our CUBIC differs from the kernel's".
BASE_ALGORITHMS = [
    {"name": "cubic", "cc": "cubic"},
    {"name": "reno", "cc": "reno"},
    {"name": "mltcp", "cc": "mltcp"},
    {"name": "mltcp_reno", "cc": "mltcp_reno"},
    {"name": "const_f", "cc": "mltcp", "params": {"slope": "0", "intercept": "1"}},
]
# Each job's exchange loads both directions of the bottleneck and the emulated
# guest forwards about 200 Mbit/s in all, so guest points run at 50 Mbit/s.
RATE_MBIT = 50
GUEST_PERIOD_MS = 1000
# The shipped defaults (kmod/mltcp_core.h). Configurations carry them, so a
# stored config.json runs with the line it was measured with.
DEFAULT_PARAMS = {"slope": "1.6", "intercept": "0.7", "mode": "md-restart", "base": "cubic"}


def job_for_fraction(name, fraction, period_ms, rate_mbit, offset_ms=0):
    """A job whose ideal iteration is period_ms with the given communication fraction."""
    comm_s = fraction * period_ms / 1e3
    nbytes = int(comm_s * rate_mbit * 1e6 * PAYLOAD_EFFICIENCY / 8)
    return {"name": name, "bytes": nbytes, "compute_ms": period_ms * (1 - fraction),
            "offset_ms": offset_ms}


def identical_jobs(count, fraction, period_ms, rate_mbit, collective=None):
    """job1..jobN, all alike, synchronized; collective: mltcp-trainsim's
    --collective for every job (None: trainsim's default, exchange)."""
    jobs = [job_for_fraction("job%d" % (i + 1), fraction, period_ms, rate_mbit)
            for i in range(count)]
    if collective:
        for job in jobs:
            job["collective"] = collective
    return jobs


def point(name, jobs, rate_mbit=RATE_MBIT, rtt_ms=4, buffer_bdp=1.5, iterations=100, repeats=3,
          algorithms=None):
    return {"name": name, "rate_mbit": rate_mbit, "rtt_ms": rtt_ms, "buffer_bdp": buffer_bdp,
            "iterations": iterations, "repeats": repeats, "sample_ms": 10,
            "default_params": DEFAULT_PARAMS, "jobs": jobs,
            "algorithms": algorithms or BASE_ALGORITHMS}


def pair(iterations=100, repeats=3):
    """The demo's job pair (fraction 0.4 each, 1 s ideal period, synchronized) at
    50 Mbit/s, every baseline and control."""
    jobs = identical_jobs(2, 0.4, GUEST_PERIOD_MS, RATE_MBIT)
    return [point("pair", jobs, iterations=iterations, repeats=repeats)]


def guest_bulk_share(iterations=100, repeats=3):
    """What a bulk cubic flow gets beside one training job (fraction 0.4)
    when the job uses cubic, mltcp or the control, on the module in the
    guest."""
    jobs = identical_jobs(1, 0.4, GUEST_PERIOD_MS, RATE_MBIT)
    cfg = point("fairness", jobs, iterations=iterations, repeats=repeats,
                algorithms=[{"name": "cubic", "cc": "cubic"}, {"name": "mltcp", "cc": "mltcp"},
                            {"name": "const_f", "cc": "mltcp",
                             "params": {"slope": "0", "intercept": "1"}}])
    cfg["bulk"] = [{"name": "bulk-cubic", "cc": "cubic"}]
    return [cfg]


def smoke():
    """A tiny run for CI: the driver, trainsim, a bulk flow and the analysis
    work end to end."""
    jobs = identical_jobs(2, 0.4, 300, RATE_MBIT)
    cfg = point("smoke", jobs, iterations=4, repeats=1,
                algorithms=[{"name": "cubic", "cc": "cubic"}, {"name": "mltcp", "cc": "mltcp"}])
    cfg["bulk"] = [{"name": "bulk", "cc": "cubic"}]
    return [cfg]


def torch_jobs(count, fraction, period_ms, rate_mbit, **torch):
    """Jobs of real PyTorch DDP training (bench/torch_worker.py), sized as
    identical_jobs(); torch: the jobs' torch keys (bench/driver.py: ranks,
    bucket_mb, first_bucket_mb, backward_share), DDP's defaults if absent."""
    jobs = identical_jobs(count, fraction, period_ms, rate_mbit)
    for job in jobs:
        job["workload"] = "torch"
        job.update(torch)
    return jobs


# One all-reduce per step: both of DDP's bucket limits above the model.
ONE_BUCKET = {"bucket_mb": 1024, "first_bucket_mb": 1024}
# Until the first step of real DDP: importing torch takes tens of seconds
# under emulation; eight ranks import it and meet in about 5 s on the host.
TORCH_GUEST_SETUP_S, TORCH_HOST_SETUP_S = 90, 15


def torch_ddp(iterations=40, repeats=3):
    """Two jobs of real DDP training (gloo, CPU), fraction 0.4 of a 1 s
    ideal period at 50 Mbit/s each:
    - torch-one-bucket: two ranks, one all-reduce per step;
    - torch-buckets: two ranks, 1 MB buckets (several all-reduces per step);
    - torch-ring: four ranks per job (gloo's ring, every hop across the
      bottleneck), one all-reduce per step;
    - torch-overlap: two ranks, DDP's default buckets, half of the compute
      in the backward pass, which the all-reduces overlap.
    mltcp detecting iterations from idles, and mltcp-marked told them by the
    ranks (a marked job per host, steps marked from DDP's hook)."""
    algorithms = [{"name": "cubic", "cc": "cubic"}, {"name": "mltcp", "cc": "mltcp"},
                  {"name": "mltcp-marked", "cc": "mltcp", "marked": True}]
    points = (("torch-one-bucket", ONE_BUCKET),
              ("torch-buckets", {"bucket_mb": 1}),
              ("torch-ring", dict(ONE_BUCKET, ranks=4)),
              ("torch-overlap", {"backward_share": 0.5}))
    out = []
    for name, torch in points:
        cfg = point(name, torch_jobs(2, 0.4, GUEST_PERIOD_MS, RATE_MBIT, **torch),
                    iterations=iterations, repeats=repeats, algorithms=algorithms)
        cfg["setup_s"] = TORCH_GUEST_SETUP_S
        out.append(cfg)
    return out


def sim_smoke(iterations=20, repeats=1):
    """The simulator's smoke point (run by `--sim`, and by the suite in
    tests/sim): two jobs of fraction 0.3 at 50 Mbit/s, the second offset
    by half the 1 s ideal period, so that their phases never meet: the
    trivially compatible pair, whose iterations the fluid model puts at the
    ideal. cubic and mltcp."""
    jobs = identical_jobs(2, 0.3, GUEST_PERIOD_MS, RATE_MBIT)
    jobs[1]["offset_ms"] = GUEST_PERIOD_MS / 2
    return [point("sim-smoke", jobs, iterations=iterations, repeats=repeats,
                  algorithms=[{"name": "cubic", "cc": "cubic"},
                              {"name": "mltcp", "cc": "mltcp"}])]


def in_sim(cfg):
    """The same point in the ns-3 simulator (sim/main.cc: the guest's dumbbell,
    rate, RTT and queue, TCP set as Linux sets it)."""
    out = json.loads(json.dumps(cfg))
    out.update({"backend": "ns-3", "name": cfg["name"] + "-sim"})
    return out


def on_host(cfg, rate_mbit=500, buffer_bytes=131072):
    """The same point on the host kernel with the BPF backend: no netem there, so
    no added delay (RTT from queueing only) and a buffer in bytes; the rate is
    scaled up and bytes with it, keeping every job's communication fraction;
    real DDP's ranks start sooner, with no emulator to wait for."""
    out = json.loads(json.dumps(cfg))
    scale = rate_mbit / cfg["rate_mbit"]
    out.update({"backend": "bpf", "rate_mbit": rate_mbit, "rtt_ms": 0, "buffer_bdp": 0,
                "buffer_bytes": buffer_bytes, "name": cfg["name"] + "-host"})
    if any(job.get("workload") == "torch" for job in out["jobs"]):
        out["setup_s"] = TORCH_HOST_SETUP_S
    for job in out["jobs"]:
        job["bytes"] = int(job["bytes"] * scale)
    return out


# The host sets run on the host kernel with the BPF twin: no emulator, so
# no timing noise from TCG, but also no netem (RTT comes from queueing).
# 200 Mbit/s is what this 2-core host forwards in both directions at once
# without becoming the bottleneck itself (a lone job reaches its ideal
# iteration time: measured 200.7 ms for 200 ms ideal, where at 500 Mbit/s it
# took 237-245 ms).
HOST_RATE_MBIT = 200
HOST_PERIOD_MS = 200
# Pure ACKs served first at the bottleneck (htb; testbed.topology.Shaping).
ACK_PRIORITY = {"shaper": "htb", "ack_priority": True}


def host_point(name, jobs, buffer_bytes, iterations=100, repeats=10, algorithms=None,
               rate_mbit=HOST_RATE_MBIT):
    cfg = point(name, jobs, rate_mbit=rate_mbit, rtt_ms=0, buffer_bdp=0,
                iterations=iterations, repeats=repeats, algorithms=algorithms)
    cfg.update({"backend": "bpf", "buffer_bytes": buffer_bytes, "setup_s": 2.5})
    return cfg


def algorithm_params(cfg, alg):
    """The MLTCP parameters a point sets for one of its algorithms: the
    point's defaults with the algorithm's own over them. What neither names
    stays as the module (or twin) has it."""
    return dict(cfg.get("default_params", {}), **alg.get("params", {}))


def mltcp_alg(name, mode, slope=DEFAULT_PARAMS["slope"], intercept=DEFAULT_PARAMS["intercept"],
              cc="mltcp"):
    return {"name": name, "cc": cc,
            "params": {"slope": slope, "intercept": intercept, "mode": mode}}


RULE_CANDIDATES = [
    {"name": "cubic", "cc": "cubic"},
    mltcp_alg("ai", "ai"),
    mltcp_alg("ai-strong", "ai", "1.9", "0.05"),
    mltcp_alg("md", "md"),
    mltcp_alg("md-strong", "md", "1.9", "0.05"),
    mltcp_alg("both", "both"),
    # Constant F = 1 through our own CUBIC: what MLTCP's code does without
    # progress-dependent favouritism.
    mltcp_alg("const_f", "ai", "0", "1"),
]
# The window restarts at every iteration start, with F in AI, MD, or nowhere
# (the control: restart without favouritism).
RESTART_CANDIDATES = [
    mltcp_alg("restart", "restart"),
    mltcp_alg("ai-restart", "ai-restart"),
    mltcp_alg("md-restart", "md-restart"),
    mltcp_alg("both-restart", "both-restart"),
]
# md-restart with the start gate (a restarted window held while another
# job's queue stands in the path).
GATE_CANDIDATES = [mltcp_alg("md-gate", "md-gate")]


def candidates(*names):
    """The candidate rules of these names, in the candidates' order."""
    return [a for a in RULE_CANDIDATES + RESTART_CANDIDATES + GATE_CANDIDATES
            if a["name"] in names]


def host_rules(iterations=100, repeats=10):
    """Which way of applying F (in AI, in MD, both; at the default line or a
    stronger one; or F constant) interleaves jobs on the host (BPF backend):
    two jobs (fraction 0.4) in the buffer regime where cubic leaves them
    overlapping (256 KiB, 10 ms of queue) and the one where it interleaves
    them itself (128 KiB); three jobs (0.3 each) in the overlapping regime;
    synchronized starts. These are "the host points" of the sets below."""
    two = identical_jobs(2, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT)
    three = identical_jobs(3, 0.3, HOST_PERIOD_MS, HOST_RATE_MBIT)
    return [
        host_point("study2-buf256k", two, 262144, iterations, repeats, RULE_CANDIDATES),
        host_point("study2-buf128k", two, 131072, iterations, repeats,
                   candidates("cubic", "ai", "md")),
        host_point("study3-buf256k", three, 262144, iterations, repeats,
                   candidates("cubic", "ai", "md", "both")),
    ]


def host_window_restart(iterations=100, repeats=10):
    """Whether restarting the window at every iteration start interleaves
    the host points' jobs, with F acting in AI, in MD, or nowhere (the
    control: restart without favouritism), beside cubic and md."""
    two = identical_jobs(2, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT)
    three = identical_jobs(3, 0.3, HOST_PERIOD_MS, HOST_RATE_MBIT)
    return [
        host_point("restart2-buf256k", two, 262144, iterations, repeats,
                   candidates("cubic", "md", "restart", "ai-restart", "md-restart")),
        host_point("restart2-buf128k", two, 131072, iterations, repeats,
                   candidates("cubic", "ai", "restart", "md-restart")),
        host_point("restart3-buf256k", three, 262144, iterations, repeats,
                   candidates("cubic", "ai", "md-restart")),
    ]


# 10 ms of queue at 1 Gbit/s, the host points' overlapping regime.
GBIT_RATE_MBIT, GBIT_BUFFER_BYTES = 1000, 1310720


def host_gbit(iterations=100, repeats=3):
    """The demo's job set (two jobs, fraction 0.4, synchronized) on the host at
    1 Gbit/s. Jobs push one way (rank 0 to rank 1): the host forwards one
    direction at 1 Gbit/s but not both at once. A lone job first, to show
    what the host itself achieves."""
    algs = candidates("cubic", "ai", "md-restart")
    return [host_point(name, identical_jobs(count, 0.4, HOST_PERIOD_MS, GBIT_RATE_MBIT, "push"),
                       GBIT_BUFFER_BYTES, iterations, repeats, algs, rate_mbit=GBIT_RATE_MBIT)
            for name, count in (("gbit-solo", 1), ("gbit-pair", 2))]


def host_push_rate(iterations=100, repeats=10):
    """Jobs that push one way (rank 0 to rank 1): at 1 Gbit/s (the host-gbit
    pair, 10 repeats) and at the host points' 200 Mbit/s, both with 10 ms of
    queue, to tell the traffic pattern apart from the rate."""
    algs = candidates("cubic", "md-restart")
    return [host_point("push2-%dmbit" % rate, identical_jobs(2, 0.4, HOST_PERIOD_MS, rate, "push"),
                       buf, iterations, repeats, algs, rate_mbit=rate)
            for rate, buf in ((GBIT_RATE_MBIT, GBIT_BUFFER_BYTES), (HOST_RATE_MBIT, 262144))]


def guest_rules(iterations=100, repeats=3):
    """The candidate rules on the module in the guest: the guest demo's pair
    (fraction 0.4, 1 s ideal period, 50 Mbit/s, 4 ms RTT, 1.5 BDP of buffer),
    the regime where cubic left the jobs overlapping in every run so far."""
    jobs = identical_jobs(2, 0.4, GUEST_PERIOD_MS, RATE_MBIT)
    return [point("study-guest", jobs, iterations=iterations, repeats=repeats,
                  algorithms=RULE_CANDIDATES + RESTART_CANDIDATES)]


def host_bulk_share(iterations=100, repeats=3):
    """What a bulk cubic flow gets beside one training job (fraction 0.4) on
    the host, per rule of the job."""
    jobs = identical_jobs(1, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT)
    cfg = host_point("study-fairness", jobs, 262144, iterations, repeats,
                     candidates("cubic", "ai", "md-restart", "restart", "md-gate"))
    cfg["bulk"] = [{"name": "bulk-cubic", "cc": "cubic"}]
    return [cfg]


# The data-center regime, in the simulator only: 10 Gbit/s, 20 us of base
# RTT, a 50 ms iteration whose communication phase (fraction 0.4: 20 ms)
# spans 1000 base RTTs, as on the papers' GPU clusters. The port is
# shallow: 200 kB (8 BDPs), drop-tail, or the same with ECN step marking at
# RFC 8257's K for 10 Gbit/s (65 packets). TCP is set as such fabrics set
# it: a 2 ms minimum RTO (`ip route ... rto_min 2ms`; Linux's 200 ms is four
# iterations here) and ACKs within 50 us. Compute jitter is uniform within +-1% of the period.
# The regime map and the cluster set keep these; the data-center set itself
# (data_center()) runs at DC_SET_RTT_MS, see there.
DC_RATE_MBIT = 10000
DC_RTT_MS = 0.02
DC_PERIOD_MS = 50
DC_BUFFER_BYTES = 200000
DC_ECN_MARK_BYTES = 65 * 1514
DC_TCP = {"min_rto_ms": 2, "delayed_ack_ms": 0.05}
DC_JITTER = 0.01
# The line the simulated sets (dc, dc-dcqcn, regime-map, cluster,
# sim-exchange-noise, sim-start-gate) were measured at: 1.6 / 0.2, the
# shipped default until 6223b34 (1.6 / 0.8) and a2863da (1.6 / 0.7, for a
# bulk flow's sake). The sets keep it, so that
# seeds added to a point later run the rules its first seeds ran and each
# set stays one measurement. It is mean-neutral (F averages 1 over the
# progress r of a phase), and at the two-job marking point no other
# mean-neutral line was faster (docs/research/simulated-regimes.md, "How strong F must
# be").
SIM_SET_LINE = {"slope": "1.6", "intercept": "0.2"}
# sim-reverse-rate ran after a2863da, at that commit's default.
REVERSE_RATE_LINE = {"slope": "1.6", "intercept": "0.7"}


def at_line(algs, line):
    """These algorithms with every MLTCP rule's slope and intercept at line
    (for rules named by their mode; a rule named by its own line, such as
    const_f or ai-strong, would lose it)."""
    return [dict(a, params=dict(a["params"], **line)) if "params" in a else a for a in algs]


def sim_set_alg(name, mode):
    """An MLTCP rule of the simulated sets: mode at SIM_SET_LINE."""
    return mltcp_alg(name, mode, **SIM_SET_LINE)


DC_ALGORITHMS = [{"name": "cubic", "cc": "cubic"}, {"name": "reno", "cc": "reno"},
                 sim_set_alg("ai", "ai"), sim_set_alg("md", "md"),
                 sim_set_alg("md-restart", "md-restart"), sim_set_alg("md-gate", "md-gate")]
# DCTCP (ns-3's) beside them where the port marks.
DC_ECN_ALGORITHMS = DC_ALGORITHMS + [{"name": "dctcp", "cc": "ns3-dctcp"}]


def sim_point(name, jobs, rate_mbit, rtt_ms, buffer_bytes, iterations, repeats, algorithms,
              jitter=DC_JITTER, period_ms=DC_PERIOD_MS, line=None, **extra):
    """A point that only the simulator runs (backend ns-3): the queue in bytes,
    every job's compute jittered by +-jitter of the period, samples every
    millisecond, the slope and intercept of line over the defaults where
    given, and any of mltcp-sim's own keys (extra: ecn_mark_bytes,
    min_rto_ms, delayed_ack_ms, start)."""
    for job in jobs:
        job["jitter_ms"] = round(jitter * period_ms, 3)
    cfg = point(name, jobs, rate_mbit=rate_mbit, rtt_ms=rtt_ms, buffer_bdp=0,
                iterations=iterations, repeats=repeats, algorithms=algorithms)
    if line:
        cfg["default_params"] = dict(cfg["default_params"], **line)
    cfg.update({"backend": "ns-3", "buffer_bytes": buffer_bytes, "sample_ms": 1}, **extra)
    return cfg


# The data-center set's base RTT, the lower end of the fabrics' 10-50 us:
# the cheapest to simulate that keeps every job's phase at 1000 base RTTs
# (the cost of a run is its bytes, and a phase of n RTTs is n BDPs).
DC_SET_RTT_MS = 0.01
DC_SET_PHASE_RTTS = 1000
DC_SET_LOAD = 0.8
# The ports of the set: drop-tail; ECN step marking; and the marking port
# serving pure ACKs first (exchanging jobs' ACKs wait behind the other
# job's data, and a switch's priority class for them is what held the
# interleaving on the host: host-acks-first).
DC_SET_PORTS = {
    "droptail": {},
    "ecn": {"ecn_mark_bytes": DC_ECN_MARK_BYTES},
    "ecn-ackprio": {"ecn_mark_bytes": DC_ECN_MARK_BYTES, "ack_priority": True},
}


def data_center(iterations=100, repeats=10, ports=None, algorithms=None,
                buffer_bytes=DC_BUFFER_BYTES):
    """The data-center points: 2, 3, 4 and 8 exchanging jobs whose
    fractions sum to 0.8, from synchronized and from random starts, on each
    of DC_SET_PORTS (or ports). Every job's phase spans DC_SET_PHASE_RTTS
    base RTTs whatever the number of jobs: the period grows with it (12.5 ms
    a job at 10 us), so the jobs' fractions, not their phases, shrink. The
    algorithms are DC_ALGORITHMS, and DCTCP's where the port marks, unless
    given."""
    out = []
    phase_ms = DC_SET_PHASE_RTTS * DC_SET_RTT_MS
    for count in (2, 3, 4, 8):
        fraction = DC_SET_LOAD / count
        period_ms = phase_ms / fraction
        for start in ("sync", "random"):
            for port, keys in (ports or DC_SET_PORTS).items():
                jobs = identical_jobs(count, fraction, period_ms, DC_RATE_MBIT, "exchange")
                extra = dict(DC_TCP, start="random" if start == "random" else "given", **keys)
                algs = algorithms or (DC_ECN_ALGORITHMS if "ecn_mark_bytes" in keys
                                      else DC_ALGORITHMS)
                cfg = sim_point("dc%d-%s-%s" % (count, start, port), jobs, DC_RATE_MBIT,
                                DC_SET_RTT_MS, buffer_bytes, iterations, repeats, algs,
                                period_ms=period_ms, line=SIM_SET_LINE, **extra)
                # The detector's idle gap below the shortest compute phase
                # (15 ms, two jobs) and far above any pause inside a phase.
                cfg["default_params"] = dict(cfg["default_params"], idle_gap_us="2000")
                out.append(cfg)
    return out


# DCQCN's switch: its RED-like ramp on the instantaneous
# queue (Zhu et al., SIGCOMM'15: Kmin 5 KB, Kmax 200 KB, Pmax 1%). RoCE's
# fabrics pause (PFC) rather than drop; ours drop, so the port has room for
# what builds while the first marks travel back: flows starting together at
# line rate fill about Kmax per flow before their CNPs arrive (at 10 Gbit/s
# two exchanging jobs overflowed 400 kB at phase starts, and not 2 MB), so
# 2 MB, ten times Kmax, a congested port's share of a
# shared-buffer switch. DCQCN plain and with MLTCP's F scaling its rate
# increase (mode "ai"), beside md-restart and DCTCP on the same port.
DCQCN_RAMP = {"ecn_kmin_bytes": 5000, "ecn_kmax_bytes": 200000, "ecn_pmax": 0.01}
DCQCN_BUFFER_BYTES = 2000000
DCQCN_ALGORITHMS = [{"name": "dcqcn", "cc": "dcqcn"},
                    {"name": "mltcp-dcqcn", "cc": "mltcp-dcqcn"},
                    sim_set_alg("md-restart", "md-restart"),
                    {"name": "dctcp", "cc": "ns3-dctcp"}]


def dc_dcqcn(iterations=100, repeats=10):
    """The data-center points (data_center()) on DCQCN's ramp, with the
    ACKs mixed in with data or served first: plain DCQCN against DCQCN with
    MLTCP's F, beside md-restart and DCTCP."""
    return data_center(iterations, repeats,
                       ports={"dcqcn": DCQCN_RAMP,
                              # CNPs (here ECE ACKs) in the top class, as RoCE
                              # fabrics send them.
                              "dcqcn-ackprio": dict(DCQCN_RAMP, ack_priority=True)},
                       algorithms=DCQCN_ALGORITHMS, buffer_bytes=DCQCN_BUFFER_BYTES)


# The regime map's window: one BDP of the data-center point (10 Gbit/s x 20
# us), in full frames, and a queue of two.
REGIME_BDP_BYTES = DC_RATE_MBIT * 1e6 / 8 * DC_RTT_MS / 1e3
REGIME_PHASE_RTTS = (10, 30, 100, 300, 1000, 3000, 10000)


def regime_map(iterations=100, repeats=5):
    """How efficiency depends on the number of base RTTs in a communication
    phase (the regime map): two jobs (fraction 0.4, 50 ms ideal period)
    pushing one way, where only the number of base RTTs in a communication
    phase changes, from 10 to 10^4: the RTT is the phase over that number and
    the rate keeps the BDP (and the 2-BDP drop-tail queue) at the
    data-center point's, so that the window, the queue in windows, the
    fraction and the jitter stay as they are. A run's cost is its packets:
    at 10^4 RTTs (100 Gbit/s, 2 us) ten times the 1000-RTT point's."""
    out = []
    phase_ms = 0.4 * DC_PERIOD_MS
    for rtts in REGIME_PHASE_RTTS:
        rtt_ms = phase_ms / rtts
        rate_mbit = round(REGIME_BDP_BYTES * 8 / (rtt_ms / 1e3) / 1e6, 3)
        solo = [a for a in DC_ALGORITHMS if a["name"] in ("cubic", "md-restart")]
        for count, suffix, algs in ((1, "-solo", solo),
                                    (2, "", DC_ALGORITHMS)):
            # A lone job first: what the window itself costs at this
            # number of RTTs, with no contest.
            jobs = identical_jobs(count, 0.4, DC_PERIOD_MS, rate_mbit, "push")
            out.append(sim_point("regime-%drtts%s" % (rtts, suffix), jobs, rate_mbit, rtt_ms,
                                 int(2 * REGIME_BDP_BYTES), iterations,
                                 1 if count == 1 else repeats, algs, line=SIM_SET_LINE,
                                 **DC_TCP))
    return out


def sim_exchange_noise(iterations=100, repeats=5):
    """What keeps exchanging jobs from staying apart, in the simulator: the
    host pair (two jobs of fraction 0.4, 200 Mbit/s, 256 KiB, no added
    delay, Linux's TCP defaults) exchanging and pushing, with compute jitter
    from none to 10% of the 200 ms period, exchanging with pure ACKs served
    first at the bottleneck, exchanging with ECN marks at 20 packets keeping
    the queue short, and exchanging with a 10 ms minimum RTO (tail losses
    recovered about as fast as Linux's tail loss probe would): cubic and
    md-restart. Drift and diffusion (python3 -m bench regime) tell a rule
    that does not separate the jobs from jitter that throws them back; ACKs
    first tells whether the reverse path does."""
    algs = candidates("cubic", "md-restart")
    # Exchanging, then exchanging with pure ACKs first at the bottleneck
    # (the reverse-path test), then pushing.
    variants = (("exchange", "", {}), ("exchange", "-ackprio", {"ack_priority": True}),
                # The control for ACKs first: the same queue disc, one band.
                ("exchange", "-port", {"port_queue": True}),
                ("push", "", {}),
                # The queue kept short by ECN marks (20 packets) instead.
                ("exchange", "-ecn", {"ecn_mark_bytes": 20 * 1514}),
                # Tail losses recovered within about 10 ms instead of the
                # 200 ms minimum RTO: a crude stand-in for Linux's TLP,
                # which ns-3 3.37 lacks.
                ("exchange", "-rto10ms", {"min_rto_ms": 10}))
    return host_pair_sim("diag", variants, (0, 5, 10, 20), algs, iterations, repeats,
                          SIM_SET_LINE)


def sim_reverse_rate(iterations=100, repeats=5):
    """Whether exchange's noise comes from its reverse direction, in the
    simulator: the host pair exchanging at +-5 ms of compute jitter, the
    bottleneck's reverse direction (worker 1 to worker 0) at the forward
    rate, twice it and five times it, beside the pair pushing one way; cubic
    and md-restart. A
    faster reverse direction shortens its contest and the queue the forward
    flows' ACKs wait in: if exchange's noise comes from the two contests or
    the ACKs, it falls towards the push's as the reverse grows faster."""
    variants = (("exchange", "", {}),
                ("exchange", "-rev2x", {"reverse_rate_mbit": 2 * HOST_RATE_MBIT}),
                ("exchange", "-rev5x", {"reverse_rate_mbit": 5 * HOST_RATE_MBIT}),
                ("push", "", {}))
    return host_pair_sim("asym", variants, (5,), candidates("cubic", "md-restart"),
                         iterations, repeats, REVERSE_RATE_LINE)


def host_pair_sim(prefix, variants, jitters_ms, algs, iterations, repeats, line):
    """The host pair (two jobs of 0.4, 200 Mbit/s, 256 KiB, no added
    delay) in the simulator, per variant (collective, name suffix, extra
    keys) and compute jitter: "<prefix>-<collective><suffix>-jitter<N>ms",
    every MLTCP rule at line (the one the set was measured at)."""
    out = []
    for collective, suffix, extra in variants:
        for jitter_ms in jitters_ms:
            jobs = identical_jobs(2, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT, collective)
            out.append(sim_point("%s-%s%s-jitter%dms" % (prefix, collective, suffix, jitter_ms),
                                 jobs, HOST_RATE_MBIT, 0, 262144, iterations,
                                 # Without jitter the simulation is deterministic.
                                 repeats if jitter_ms else 1, at_line(algs, line),
                                 jitter=jitter_ms / HOST_PERIOD_MS, period_ms=HOST_PERIOD_MS,
                                 line=line, **extra))
    return out


# Cluster scale: 10 Gbit/s hosts and fabric, 20 us of base
# RTT, a 10 ms ideal period (phases of 100 base RTTs at fraction 0.2: a
# cheaper regime, so that 64 jobs fit the machine), 8 hosts a leaf, 4 spines.
CLUSTER_PERIOD_MS = 10
CLUSTER_HOSTS_PER_LEAF, CLUSTER_SPINES = 8, 4


def cluster_point(count, fraction, iterations, repeats, seed=1):
    """count exchanging jobs of this fraction on a leaf-spine fabric with a
    host for each worker, placed by a seeded random draw (python3 -m bench
    regime reports the per-link sums of fractions the fabric's routes give,
    bench.metrics.link_loads())."""
    hosts = 2 * count
    leaves = -(-hosts // CLUSTER_HOSTS_PER_LEAF)
    order = list(range(leaves * CLUSTER_HOSTS_PER_LEAF))
    random.Random(seed).shuffle(order)
    jobs = identical_jobs(count, fraction, CLUSTER_PERIOD_MS, DC_RATE_MBIT, "exchange")
    for j, job in enumerate(jobs):
        job["hosts"] = order[2 * j:2 * j + 2]
    cfg = sim_point("cluster%d-a%g" % (count, fraction), jobs, DC_RATE_MBIT, DC_RTT_MS,
                    DC_BUFFER_BYTES, iterations, repeats,
                    [a for a in DC_ALGORITHMS if a["name"] in ("cubic", "ai", "md-restart")],
                    period_ms=CLUSTER_PERIOD_MS, line=SIM_SET_LINE, **DC_TCP)
    cfg["topology"] = {"kind": "leaf-spine", "leaves": leaves, "spines": CLUSTER_SPINES,
                       "hosts_per_leaf": CLUSTER_HOSTS_PER_LEAF}
    # The detector's idle gap below the 8 ms compute phase.
    cfg["default_params"] = dict(cfg["default_params"], idle_gap_us="4000")
    return cfg


def cluster(iterations=100, repeats=1):
    """How the rules do at cluster scale: 16, 32 and 64 exchanging jobs on a
    leaf-spine fabric, at fraction 0.2 (sparse: most links' sums within 1)
    and 0.4 (dense: many beyond), cubic, ai (the data-center set's most
    efficient rule) and md-restart."""
    return [cluster_point(count, fraction, iterations, repeats)
            for count in (16, 32, 64) for fraction in (0.2, 0.4)]


def host_acks_first(iterations=100, repeats=5):
    """Whether serving pure ACKs first holds exchanging jobs apart (the
    reverse-path test), on the host kernel (BPF twin) at the host points
    (two jobs of 0.4 at 256 and 128 KiB, three of 0.3 at 256 KiB): the
    bottleneck shaped by tbf as in host-rules, by htb serving pure ACKs
    first (testbed.topology.Shaping), and at the first point by htb with one
    FIFO (the control: htb for tbf); cubic and md-restart."""
    two = identical_jobs(2, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT)
    three = identical_jobs(3, 0.3, HOST_PERIOD_MS, HOST_RATE_MBIT)
    algs = candidates("cubic", "md-restart")
    out = []
    shapers = (("tbf", {}), ("htb", {"shaper": "htb"}),
               ("htb-ackprio", ACK_PRIORITY))
    # The other two host points: tbf against ACKs first.
    for name, jobs, buf, kinds in (("acks2-buf256k", two, 262144, shapers),
                                   ("acks2-buf128k", two, 131072, shapers[::2]),
                                   ("acks3-buf256k", three, 262144, shapers[::2])):
        for suffix, extra in kinds:
            cfg = host_point(name + "-" + suffix, json.loads(json.dumps(jobs)), buf,
                             iterations, repeats, algs)
            cfg.update(extra)
            out.append(cfg)
    return out


def host_ack_marking(iterations=100, repeats=5):
    """Whether the hosts' own ACK marker (mltcpctl ackmark) does what the
    emulated switch's size classifier does, on the host kernel (BPF twin)
    at the first host point (two jobs of 0.4, 256 KiB): htb serving first
    the packets the hosts marked EF, and htb serving first TCP packets under
    128 bytes (host-acks-first's classifier); cubic and md-restart."""
    two = identical_jobs(2, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT)
    out = []
    for suffix, kind in (("dscp", "dscp"), ("size", "size")):
        cfg = host_point("ackmark2-buf256k-htb-" + suffix, json.loads(json.dumps(two)), 262144,
                         iterations, repeats, candidates("cubic", "md-restart"))
        cfg.update(ACK_PRIORITY, ack_priority=kind)
        out.append(cfg)
    return out


def sim_start_gate(iterations=100, repeats=5):
    """What the start gate (md-gate) does in the simulator, at
    sim-exchange-noise's point (the host pair, 200 Mbit/s, 256 KiB,
    synchronized start): exchanging, exchanging with pure ACKs first, and
    pushing, with compute jitter of none, 5 and 20 ms; cubic, md-restart and
    md-gate."""
    variants = (("exchange", "", {}), ("exchange", "-ackprio", {"ack_priority": True}),
                ("push", "", {}))
    return host_pair_sim("gate", variants, (0, 5, 20),
                         candidates("cubic", "md-restart", "md-gate"), iterations, repeats,
                         SIM_SET_LINE)


def host_start_gate(iterations=100, repeats=10):
    """What the start gate (md-gate) does on the host kernel (BPF twin) at
    the host points (two jobs of 0.4 at 256 and 128 KiB, three of 0.3 at
    256 KiB) with pure ACKs first (htb, testbed.topology.Shaping), and the
    first point under host-rules' tbf; cubic, md-restart and md-gate."""
    two = identical_jobs(2, 0.4, HOST_PERIOD_MS, HOST_RATE_MBIT)
    three = identical_jobs(3, 0.3, HOST_PERIOD_MS, HOST_RATE_MBIT)
    algs = candidates("cubic", "md-restart", "md-gate")
    ackprio = ACK_PRIORITY
    out = []
    for name, jobs, buf, extra in (("gate2-buf256k-htb-ackprio", two, 262144, ackprio),
                                   ("gate2-buf128k-htb-ackprio", two, 131072, ackprio),
                                   ("gate3-buf256k-htb-ackprio", three, 262144, ackprio),
                                   ("gate2-buf256k-tbf", two, 262144, {})):
        cfg = host_point(name, json.loads(json.dumps(jobs)), buf, iterations, repeats, algs)
        cfg.update(extra)
        out.append(cfg)
    return out


def host_overload(iterations=100, repeats=10):
    """Whether the rules are no worse than cubic where communication
    fractions sum above 1 (two jobs of 0.6: no interleaving exists). The
    host kernel (BPF twin), 256 KiB, pure ACKs first as in host-start-gate."""
    jobs = identical_jobs(2, 0.6, HOST_PERIOD_MS, HOST_RATE_MBIT)
    cfg = host_point("gate2x0.6-buf256k-htb-ackprio", jobs, 262144, iterations, repeats,
                     candidates("cubic", "md-restart", "md-gate"))
    cfg.update(ACK_PRIORITY)
    return [cfg]


def guest_start_gate(iterations=100, repeats=3):
    """What the start gate (md-gate) does on the module in the guest: the
    guest demo's pair (fraction 0.4, 1 s ideal period, 50 Mbit/s, 4 ms RTT,
    exchanging) with 4 BDPs of buffer (100 kB: the gate's threshold is a 32
    KiB queue, which the demo's 1.5 BDPs barely exceed) and pure ACKs first
    (htb); cubic, md-restart and md-gate."""
    jobs = identical_jobs(2, 0.4, GUEST_PERIOD_MS, RATE_MBIT)
    cfg = point("gate-guest-buf4bdp-htb-ackprio", jobs, buffer_bdp=4, iterations=iterations,
                repeats=repeats, algorithms=candidates("cubic", "md-restart", "md-gate"))
    cfg.update(ACK_PRIORITY)
    return [cfg]


def yardstick(**kwargs):
    """bench/yardstick.py's set (it builds on this module's)."""
    from bench import yardstick as yard
    return yard.yardstick(**kwargs)


def yardstick_quick(**kwargs):
    """bench/yardstick.py's quick subset."""
    from bench import yardstick as yard
    return yard.yardstick_quick(**kwargs)


SETS = {
    "pair": pair, "guest-bulk-share": guest_bulk_share, "smoke": smoke,
    "guest-rules": guest_rules, "guest-start-gate": guest_start_gate, "torch": torch_ddp,
    "host-rules": host_rules, "host-window-restart": host_window_restart,
    "host-bulk-share": host_bulk_share, "host-gbit": host_gbit, "host-push-rate": host_push_rate,
    "host-acks-first": host_acks_first, "host-ack-marking": host_ack_marking,
    "host-start-gate": host_start_gate, "host-overload": host_overload,
    "sim-smoke": sim_smoke, "sim-exchange-noise": sim_exchange_noise,
    "sim-reverse-rate": sim_reverse_rate, "sim-start-gate": sim_start_gate,
    "dc": data_center, "dc-dcqcn": dc_dcqcn, "regime-map": regime_map, "cluster": cluster,
    "yardstick": yardstick, "yardstick-quick": yardstick_quick,
}
# Sets renamed to the question they answer, and sets deleted because they
# never ran: only for `bench run`'s refusal of the old name.
RETIRED = {
    "fairness": "guest-bulk-share", "study-guest": "guest-rules", "gate-guest": "guest-start-gate",
    "study": "host-rules", "study-restart": "host-window-restart",
    "study-fairness": "host-bulk-share", "study-push": "host-push-rate",
    "diag-host-acks": "host-acks-first", "ackmark-host": "host-ack-marking",
    "gate-host": "host-start-gate", "gate-overload": "host-overload",
    "diag-exchange": "sim-exchange-noise", "diag-asym": "sim-reverse-rate",
    "gate-sim": "sim-start-gate",
    "regimes": None, "offsets": None, "jobs": None, "sweep": None, "models": None,
}
