# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The experiment driver: runs one point, in the test guest (scripts/vm-run)
or on the host.

    python3 -m bench driver POINT_DIR

Reads POINT_DIR/config.json and writes POINT_DIR/raw/ (bench/rundir.py).
Builds a dumbbell (testbed/topology.py): job j has worker 0 on host Lj and
worker 1 on host Rj, on either side of the bottleneck, and each bulk flow
has its own pair of hosts. Each direction of the bottleneck gets netem for
half the base RTT and tbf beneath it (rate, queue limit in bandwidth-delay
products); Mininet's TCLink was measured at 73 of 100 Mbit/s under emulation
where a plain tbf held 95%, so the shaping is our own. On the host kernel
(`"backend": "bpf"`, the BPF twin loaded) there is no netem: with `rtt_ms`
0 the bottleneck is tbf alone and the RTT comes from queueing only. A point's
`buffer_bytes`, where given, is the queue in bytes (rather than
`buffer_bdp`). `"shaper": "htb"` shapes with htb instead, and with
`"ack_priority"` serves pure ACKs first (testbed.topology.Shaping); with
`"ack_priority": "dscp"` the bottleneck knows them by the DSCP that every
host's own marker gives them (`mltcpctl ackmark add dev eth0 dscp ef`).
`"shaper": "prio"` is the emulated switch of progress priority (issue 37):
EF first, then the training classes of "prio_dscp" (CS1..CS7 by default)
in strict priority, beside best effort assured "be_share" of the rate
(testbed.topology.Shaping.prio_tree()). `"loss_pct"` drops that percentage
of the frames entering the bottleneck either way at random (an nftables
rule in the switch namespace; every offload of the path off).

An algorithm whose params (or the point's default_params) set "prio" K
turns progress priority on for its runs (`mltcpctl defaults set global prio
K`, with "prio_dscp" and "prio_none" where given); at such a point every
rule sets its K (0 where it names none, as the BPF twin's defaults outlive
a run), every host marks its pure ACKs EF during a run with K > 0 (where
the point does not mark them throughout) and unmarks them after, and the
point ends with prio 0. Such a rule needs the emulated switch.

For the run it adds the congestion controls the point selects to
net.ipv4.tcp_allowed_congestion_control, and takes them out after
(allowed_ccs()): a namespace may select only an allowed one as its default.
A Ctrl-C or a SIGTERM unwinds the run, undoing that (terminate_as_exit());
bench run waits for it (run_child()).

For each repeat and each algorithm (same start offsets for all), it sets the
algorithm's parameters (mltcpctl's global defaults, on either backend),
starts every worker of every job (mltcp-trainsim) with a common absolute
start time, samples the bytes each job sends into the bottleneck every
`sample_ms`, and records the bottleneck's drops and each host's RTO count.

A job's "collective" is passed to mltcp-trainsim as --collective (default:
trainsim's own, exchange for two workers). With "push" worker 0 (Lj) sends the
job's bytes to worker 1 (Rj) and nothing comes back. A trainsim job with
"ranks" above 2 runs trainsim's ring all-reduce, its ranks placed as a torch
job's are (below): even ranks on Lj, odd on Rj, each listening on its own
port (ring_port()), every hop across the bottleneck; trainsim's --bytes is
the job's bytes / (ranks - 1), so that each direction carries the job's
"bytes", as for two workers.

A trainsim job's "pattern" (burst, the default; ddp; nccl), "sockets",
"bucket_bytes" and "first_bucket_bytes" go to trainsim's --pattern,
--sockets, --bucket and --first-bucket (pattern_argv(); docs/trainsim.md,
"Patterns"): a ddp job sends bucket collectives overlapped with its compute,
an nccl job chunks over "sockets" flows per connection, so a host then holds
several flows of one job. trainsim's parser checks them first
(check_trainsim_jobs()).

A job with "workload": "torch" runs real PyTorch DDP training instead
(bench/torch_worker.py: gloo on the CPU, its compute padded to "compute_ms",
"bucket_mb" and "first_bucket_mb" as DDP's bucket sizes (defaults 25 and 1,
DDP's), "backward_share" of the compute spent in
the backward pass, overlapping the all-reduces). Its "ranks" (default 2)
alternate sides, even ranks on Lj and odd on Rj, so that every hop of gloo's
ring crosses the bottleneck: each direction carries (ranks - 1) times the
gradient bytes per step, and the job's "bytes" (per direction, as for
trainsim) give the model's gradients as bytes / (ranks - 1). Gloo
picks its own sockets, so the algorithm reaches them as the default of the
job's two host namespaces (net.ipv4.tcp_congestion_control), as a user
without mltcpctl would select it. An algorithm with "marked": true also
gives each torch job a marked MLTCP job (id: the job's index + 1) in both
hosts' job tables (once in the BPF backend's, the host's), whose ranks mark
their steps (torch_worker.py --mark-steps), and each trainsim job likewise,
whose ranks mark each iteration before its first byte (mltcp-trainsim
--mark, through libmltcp as the DDP hook). The job matches the cgroup v2
its ranks run in (one per job and run, under the cgroup mount's root), so
it holds only its own ranks' flows; the ranks enter their hosts' network
namespaces alone (nsenter), where `ip netns exec`'s private sysfs would hide
the BPF twin's pins from their mltcpctl or libmltcp. After each run, failed
or interrupted too, its jobs and cgroups are removed (drop_marked_jobs()).
A rank whose marking stopped (torch) or failed (trainsim: at once) exits
non-zero: the run's failures say why.

Under an mltcp algorithm, torch jobs' ranks linger after their last step
while the driver lists each host's mltcp flows (`mltcpctl flow show`, module
backend): meta.json's "flows", by host role (L1, R1, ...), is what the
detector learned of each job.
"""
import contextlib
import errno
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import traceback
import zlib

from bench import matrix, metrics, paths, rundir
from testbed import mltcpctl, topology

# Job j's rank r listens on ring_port(JOB_PORT + j, r) (JOB_PORT + j for ranks
# 0 and 1); bulk flow b's iperf3 on BULK_PORT + b, on hosts of its own.
JOB_PORT, BULK_PORT = 7100, 7200
# How long torch ranks stay connected after their last step, for list_flows().
FLOW_LIST_LINGER_S = 5
# The host namespaces' socket buffer limits: what Mininet set in the root
# namespace (which new namespaces copy) when it built the topology, and so
# what every result before testbed/topology.py was measured with.
HOST_SYSCTLS = {"net.ipv4.tcp_rmem": "10240 87380 16777216",
                "net.ipv4.tcp_wmem": "10240 87380 16777216"}
# Mininet also raised the per-CPU backlog that veth delivers into (global).
NETDEV_MAX_BACKLOG = 5000


class Sampler(threading.Thread):
    """Calls read() every period; keeps (time, read()) pairs in .samples."""

    def __init__(self, read, period_s):
        super().__init__(daemon=True)
        self.read = read
        self.period = period_s
        self.samples = []
        self.stop = threading.Event()

    def run(self):
        next_t = time.time()
        while not self.stop.is_set():
            # Read, then stamp: the order the Mininet driver sampled in, kept
            # so that "busy" utilization stays comparable with its results.
            counters = self.read()
            self.samples.append((time.time(), counters))
            next_t += self.period
            delay = next_t - time.time()
            if delay > 0:
                time.sleep(delay)
            else:
                next_t = time.time()


def bottleneck_limit(cfg):
    """The bottleneck's queue limit in bytes: buffer_bytes, or buffer_bdp of
    the rate times the RTT. The simulator's ports take the same."""
    if "buffer_bytes" in cfg or not cfg["rtt_ms"]:
        return int(cfg["buffer_bytes"])
    return topology.queue_limit(cfg["rate_mbit"], cfg["rtt_ms"], cfg["buffer_bdp"])


def bottleneck_shaping(cfg):
    """One direction's Shaping (both are alike) and the tbf queue limit."""
    rtt_ms = cfg["rtt_ms"]
    shaper = cfg.get("shaper", "tbf")
    if shaper not in topology.SHAPERS:
        raise SystemExit("driver: shaper %r: %s" % (
            shaper, ", ".join('"%s"' % s for s in topology.SHAPERS)))
    priority = cfg.get("ack_priority", False)
    # bool, not 0 or 1: JSON's true and false.
    if not (isinstance(priority, bool) or
            isinstance(priority, str) and priority in topology.ACK_PRIORITIES):
        raise SystemExit("driver: ack_priority %r: true, false, \"size\" or \"dscp\""
                         % cfg.get("ack_priority"))
    if cfg.get("ack_priority") and shaper == "tbf":
        raise SystemExit("driver: ack_priority needs \"shaper\": \"htb\" or \"prio\" here")
    switch = {key: cfg[key] for key in SWITCH_KEYS if key in cfg}
    if switch and shaper != "prio":
        raise SystemExit("driver: %s: the emulated switch's (\"shaper\": \"prio\")"
                         % ", ".join(switch))
    if "prio_dscp" in switch:
        switch["prio_dscp"] = tuple(switch["prio_dscp"]) \
            if isinstance(switch["prio_dscp"], list) else switch["prio_dscp"]
    limit = bottleneck_limit(cfg)
    shaping = topology.Shaping(rate_mbit=cfg["rate_mbit"], limit_bytes=limit,
                               burst_bytes=cfg.get("burst_bytes", 32 * 1024),
                               delay_ms=rtt_ms / 2, shaper=shaper,
                               ack_priority=cfg.get("ack_priority", False), **switch)
    try:
        shaping.check()
    except SystemExit as exc:
        raise SystemExit("driver: %s" % exc.code)
    return shaping, limit


# A point's keys for the emulated switch (testbed.topology.Shaping): the
# training classes' DSCPs, class 0 first, and best effort's share.
SWITCH_KEYS = ("prio_dscp", "be_share")


def loss_percent(cfg):
    """The point's "loss_pct": random loss on the bottleneck, in percent of
    the frames entering it either way (testbed.topology.Dumbbell.random_loss();
    offloads off); 0 without."""
    loss = cfg.get("loss_pct", 0)
    if isinstance(loss, bool) or not isinstance(loss, (int, float)) or \
            not (loss == 0 or 0.01 <= loss < 100):
        raise SystemExit("driver: loss_pct %r: a percentage, 0.01 to below 100 (0: none)"
                         % (loss,))
    return loss


# The most classes progress priority has (MLTCP_PRIO_CLASSES_MAX), and so
# the emulated switch's training classes (testbed.topology.PRIO_DSCP).
PRIO_CLASSES_MAX = len(topology.PRIO_DSCP)
# The hosts' TCP counters a repeat records (summed over its namespaces):
# retransmissions and what the senders learned of reordering, e.g. a
# progress-priority move up's packets overtaking the flow's own (spurious
# retransmissions come back as DSACKs).
TCP_COUNTERS = ("TcpExtTCPFastRetrans", "TcpExtTCPSlowStartRetrans", "TcpExtTCPLossProbes",
                "TcpExtTCPTimeouts", "TcpExtTCPSpuriousRTOs", "TcpExtTCPSACKReorder",
                "TcpExtTCPTSReorder", "TcpExtTCPDSACKRecv", "TcpExtTCPDSACKUndo")


def prio_classes(cfg, alg):
    """The progress-priority classes K an algorithm's run sets (its params'
    or the point's default "prio"), 0 for none; SystemExit for a K that is
    not 0..PRIO_CLASSES_MAX."""
    k = matrix.algorithm_params(cfg, alg).get("prio", 0)
    if isinstance(k, bool) or str(k) not in [str(n) for n in range(PRIO_CLASSES_MAX + 1)]:
        raise SystemExit("driver: %s: prio %r: 0 (off) to %d classes"
                         % (alg["name"], k, PRIO_CLASSES_MAX))
    return int(k)


def uses_prio(cfg):
    """Whether any algorithm of the point turns progress priority on."""
    return any(prio_classes(cfg, alg) for alg in cfg.get("algorithms", []))


def raise_netdev_backlog():
    with open("/proc/sys/net/core/netdev_max_backlog", "r+") as f:
        if int(f.read()) < NETDEV_MAX_BACKLOG:
            f.seek(0)
            f.write("%d\n" % NETDEV_MAX_BACKLOG)


class Experiment:
    """A point's topology, its jobs and bulk flows, and how to run them."""

    def __init__(self, cfg, point):
        sim_only = [key for key in ("ecn_mark_bytes", "ecn_kmin_bytes", "ecn_kmax_bytes",
                                    "ecn_pmax", "topology", "port_queue", "reverse_rate_mbit")
                    if cfg.get(key)]
        if sim_only:
            raise SystemExit("driver: %s: the simulator's only (bench run --sim)"
                             % ", ".join(sim_only))
        for job in cfg["jobs"]:
            ranks = job.get("ranks", 2)
            if not isinstance(ranks, int) or ranks < 2 or ranks % 2:
                # Ranks alternate sides: only an even ring crosses at every hop.
                raise SystemExit("driver: job %s: ranks %r: an even number, at least 2"
                                 % (job["name"], ranks))
        # Refused before anything changes on the machine.
        check_trainsim_jobs(cfg)
        self.shaping, self.limit = bottleneck_shaping(cfg)
        self.loss_pct = loss_percent(cfg)
        if uses_prio(cfg) and self.shaping.shaper != "prio":
            # The classes would meet one FIFO: the run would measure nothing of them.
            raise SystemExit("driver: %s set prio: progress priority needs the emulated "
                             "switch (\"shaper\": \"prio\")" % ", ".join(
                                 a["name"] for a in cfg["algorithms"] if prio_classes(cfg, a)))
        self.cfg = cfg
        self.point = point
        self.backend = cfg.get("backend", "module")
        self.defaults = mltcpctl.defaults_for(
            self.backend, paths.in_tree(cfg.get("mltcpctl", paths.MLTCPCTL)))
        self.jobs = cfg["jobs"]
        self.bulks = cfg.get("bulk", [])
        left = ["L%d" % (j + 1) for j in range(len(self.jobs))] + \
            ["B%dL" % (b + 1) for b in range(len(self.bulks))]
        right = ["R%d" % (j + 1) for j in range(len(self.jobs))] + \
            ["B%dR" % (b + 1) for b in range(len(self.bulks))]
        raise_netdev_backlog()
        self.net = topology.Dumbbell(left, right, forward=self.shaping, reverse=self.shaping,
                                     host_sysctls=HOST_SYSCTLS, loss_pct=self.loss_pct)
        # Whether every host marks its pure ACKs EF for the whole point
        # (else only for a progress-priority run: run_once()).
        self.acks_marked = self.shaping.ack_priority == "dscp"
        if self.acks_marked:
            self.mark_acks()
        self.marked = []  # (job table, job id) of the run's marked jobs
        self.cgroups = []  # their ranks' cgroup directories
        # (job or bulk flow, its left host, its right host)
        self.pairs = list(zip(self.jobs + self.bulks, self.net.left, self.net.right))

    def mark_acks(self):
        """Every host's pure ACKs leave with topology.ACK_DSCP (the hosts'
        marker; it goes with their namespaces)."""
        tool = paths.in_tree(self.cfg.get("mltcpctl", paths.MLTCPCTL))
        for host in self.net.hosts.values():
            subprocess.run([tool, "-n", host.name, "ackmark", "add", "dev", "eth0", "dscp",
                            str(topology.ACK_DSCP)], check=True)

    def unmark_acks(self):
        """mark_acks() undone: the next rule's ACKs travel as they were."""
        tool = paths.in_tree(self.cfg.get("mltcpctl", paths.MLTCPCTL))
        for host in self.net.hosts.values():
            subprocess.run([tool, "-n", host.name, "ackmark", "del", "dev", "eth0"],
                           check=True, stdout=subprocess.DEVNULL)

    @contextlib.contextmanager
    def prio_run(self, classes):
        """Around a run whose rule sets progress priority (classes > 0): every
        host marks its pure ACKs EF, the top of the switch (progress
        priority needs them above the training classes), unless the point
        marks them throughout; undone after, on failure too."""
        mark = classes > 0 and not self.acks_marked
        if mark:
            self.mark_acks()
        try:
            yield
        finally:
            if mark:
                self.unmark_acks()

    def prio_off(self):
        """Progress priority off in the backend's defaults, where the point
        turned it on: it outlives the driver on the BPF twin."""
        if uses_prio(self.cfg):
            self.defaults.set({"prio": 0})

    def close(self):
        self.net.close()

    def deadline(self, start_at):
        """When workers that have not finished are declared hung."""
        worst = max(j["compute_ms"] for j in self.jobs) / 1e3 + \
            sum(j["bytes"] for j in self.jobs) * 8 / (self.cfg["rate_mbit"] * 1e6) * 2
        return start_at + self.cfg["iterations"] * worst * 3 + 60

    def lists_flows(self, alg):
        return alg["cc"].startswith("mltcp") and self.backend == "module" and \
            any(is_torch(job) for job in self.jobs)

    def list_flows(self, alg, rep, workers, deadline):
        """Each torch job's hosts' mltcp flows, listed as soon as the job's
        rank 0 has logged its last step (its ranks then linger for
        FLOW_LIST_LINGER_S): {host role: [flow]}, or None if a worker exited
        or the deadline passed before every job was listed."""
        tool = paths.in_tree(self.cfg.get("mltcpctl", paths.MLTCPCTL))
        waiting = {j: self.point.worker_log(alg["name"], rep, job["name"], 0)
                   for j, job in enumerate(self.jobs) if is_torch(job)}
        flows = {}
        while waiting:
            for j, log in list(waiting.items()):
                if logged_steps(log) < self.cfg["iterations"]:
                    continue
                _, left, right = self.pairs[j]
                for role, host in (("L%d" % (j + 1), left), ("R%d" % (j + 1), right)):
                    out = subprocess.run([tool, "-n", host.name, "-j", "flow", "show"],
                                         capture_output=True, text=True)
                    flows[role] = json.loads(out.stdout) if out.returncode == 0 else \
                        {"error": out.stderr.strip()}
                del waiting[j]
            if not waiting:
                break
            # Listed jobs' ranks exit after their linger; a waiting job's may not.
            names = {self.jobs[j]["name"] for j in waiting}
            if time.time() > deadline or any(proc.poll() is not None
                                             for name, _, proc in workers if name in names):
                return None
            time.sleep(0.2)
        return flows

    def marked_job(self, hosts, job_id, workload):
        """A marked job for one job's ranks, in the hosts' job tables (once
        in the BPF backend's, which is the host's), matching only the flows
        of the ranks' own cgroup v2, made here: another job's flows, or a
        later run's, never match it. drop_marked_jobs() removes both.
        Returns the cgroup's directory, to start the ranks in, and the
        workload's ("torch" or "trainsim") options to mark the job."""
        tool = paths.in_tree(self.cfg.get("mltcpctl", paths.MLTCPCTL))
        relative = "/" + MARK_CGROUP % (os.getpid(), job_id)
        directory = topology.cgroup2_mount() + relative
        os.makedirs(directory, exist_ok=True)
        self.cgroups.append(directory)
        for table in mltcpctl.job_tables(self.backend, [host.name for host in hosts]):
            subprocess.run(mltcpctl.job_argv(tool, self.backend, table, "add", job_id,
                                             "marked", "cgroup", relative),
                           check=True, capture_output=True, text=True)
            self.marked.append((table, job_id))
        if workload == "torch":
            return directory, ["--mark-steps", str(job_id), "--mltcpctl", tool]
        return directory, ["--mark", str(job_id)]

    def drop_marked_jobs(self):
        """After a marked run, failed or interrupted too: its jobs out of
        their tables and its cgroups removed, so that the next algorithm's
        flows match no job (a marked job nobody marks would hold their
        iterations still) and nothing is left in the BPF backend's table,
        which outlives the driver. Idempotent: a job already gone is no
        error; one that stays is said on stderr, and the rest still go."""
        tool = paths.in_tree(self.cfg.get("mltcpctl", paths.MLTCPCTL))
        marked, self.marked = self.marked, []
        for table, job_id in marked:
            out = subprocess.run(mltcpctl.job_argv(tool, self.backend, table, "del", job_id),
                                 capture_output=True, text=True)
            if out.returncode == 0:
                continue
            ids = mltcpctl.job_ids(tool, self.backend, table)
            if ids is None or job_id in ids:
                print("driver: warning: job %d left in %s: %s" % (
                    job_id, "the host's table" if table is None else table,
                    out.stderr.strip()), file=sys.stderr, flush=True)
        cgroups, self.cgroups = self.cgroups, []
        for directory in cgroups:
            remove_cgroup(directory)

    def run_once(self, alg, rep):
        params = matrix.algorithm_params(self.cfg, alg)
        if uses_prio(self.cfg):
            # Every rule of such a point says its K: a rule without one runs
            # with priority off, whatever ran before it.
            params.setdefault("prio", 0)
        if params:
            self.defaults.set(params)
        with self.prio_run(prio_classes(self.cfg, alg)):
            return self.measure(alg, rep)

    def measure(self, alg, rep):
        cfg, net = self.cfg, self.net
        tag = "%s/rep%d" % (alg["name"], rep)
        default_params = cfg.get("default_params", {})
        defaults = self.defaults.show()
        lost_before = net.random_drops()

        before = {name: host.netstat() for name, host in net.hosts.items()}
        q_before = net.qdisc_stats()
        classes_before = net.class_bytes()
        cc_before = mltcpctl.counters(self.backend, self.defaults.tool)
        start_at = time.time() + cfg.get("setup_s", 4.0 + 1.5 * len(self.jobs))
        workers = []
        list_flows = self.lists_flows(alg)
        offsets = start_offsets(cfg, rep)
        if "slots" in alg:
            # The oracle (bench/oracle.py): its schedule's starts, whatever
            # the point's.
            offsets = {job: us / 1e3 for job, us in alg["slots"]["offsets_us"].items()}
        for j, (job, left, right) in enumerate(self.pairs[:len(self.jobs)]):
            job = dict(job, offset_ms=offsets[job["name"]])
            torch = is_torch(job)
            ranks = job.get("ranks", 2)
            if torch:
                for host in (left, right):
                    host.run("sysctl", "-q", "-w",
                             "net.ipv4.tcp_congestion_control=" + alg["cc"])
            marking, cgroup = [], None
            if alg.get("marked"):
                cgroup, marking = self.marked_job((left, right), j + 1,
                                                  "torch" if torch else "trainsim")
            for rank in range(ranks):
                host, peer = (left, right) if rank % 2 == 0 else (right, left)
                log = self.point.worker_log(alg["name"], rep, job["name"], rank)
                env = None
                if torch:
                    # gloo would pick its interface from the host name; the
                    # host's link to the bottleneck is eth0 (testbed.topology).
                    env = dict(os.environ, GLOO_SOCKET_IFNAME="eth0")
                    argv = torch_argv(cfg, job, rank, ranks, JOB_PORT + j, left.addr,
                                      start_at, tag, log) + marking
                    if list_flows:
                        argv += ["--linger", "%gs" % FLOW_LIST_LINGER_S]
                else:
                    argv = trainsim_argv(cfg, job, alg, rank, JOB_PORT + j, peer.addr, start_at,
                                         tag, log) + marking
                # A marking rank enters its host's network namespace alone:
                # `ip netns exec`'s private sysfs would hide the BPF twin's
                # pins from its mltcpctl or libmltcp (topology.Netns.enter_argv()). Its
                # stderr goes to a file beside its log, not to a pipe nobody
                # drains while it runs: a worker that says more than a pipe
                # holds would block, and one that hangs leaves its last words.
                with open(worker_stderr(log), "wb") as err:
                    workers.append((job["name"], rank,
                                    host.spawn(*argv, stdout=subprocess.DEVNULL, stderr=err,
                                               text=False, env=env, cgroup=cgroup,
                                               host_mounts=cgroup is not None)))
        bulk_procs = []
        for b, (bulk, left, right) in enumerate(self.pairs[len(self.jobs):]):
            port = BULK_PORT + b
            bulk_procs.append(right.spawn("iperf3", "-s", "-p", str(port),
                                          stdout=subprocess.DEVNULL))
            # Started at the jobs' start time, stopped when the jobs are done.
            bulk_procs.append(left.spawn(
                "sh", "-c", "sleep %.3f; exec iperf3 -c %s -p %d -t 86400 -C %s >/dev/null" % (
                    max(0, start_at - time.time()), right.addr, port, bulk["cc"])))

        counters = net.port_counters([left for (_, left, _) in self.pairs])
        sampler = Sampler(counters, cfg.get("sample_ms", 10) / 1e3)
        sampler.start()
        deadline = self.deadline(start_at)
        flows = self.list_flows(alg, rep, workers, deadline) if list_flows else None
        failures = []
        for name, rank, proc in workers:
            err = worker_stderr(self.point.worker_log(alg["name"], rep, name, rank))
            try:
                proc.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                where = threads_waiting(proc.pid)
                proc.kill()
                proc.wait()
                failures.append("%s rank %d timed out (%s)%s" % (name, rank, where,
                                                                last_words(err, ": ")))
                continue
            if proc.returncode != 0:
                failures.append("%s rank %d exited %d%s" % (name, rank, proc.returncode,
                                                            last_words(err, ": ")))
        sampler.stop.set()
        sampler.join()
        counters.close()
        for proc in bulk_procs:
            proc.kill()
            proc.wait()

        after = {name: host.netstat() for name, host in net.hosts.items()}
        q_after = net.qdisc_stats()
        classes_after = net.class_bytes()
        cc_counts = mltcpctl.counter_deltas(cc_before,
                                            mltcpctl.counters(self.backend, self.defaults.tool))
        rtos = {h: after[h].get("TcpExtTCPTimeouts", 0) - before[h].get("TcpExtTCPTimeouts", 0)
                for h in after}
        tcp_counters = {c: sum(after[h].get(c, 0) - before[h].get(c, 0) for h in after)
                        for c in TCP_COUNTERS}
        drops = {dev: {kind: (q_after[dev][kind]["drops"] or 0) -
                       (q_before[dev][kind]["drops"] or 0) for kind in q_after[dev]}
                 for dev in q_after}
        meta = {"algorithm": alg, "backend": self.backend, "defaults": defaults,
                "start_at": start_at, "rtos": rtos, "drops": drops, "failures": failures,
                "tcp_counters": tcp_counters,
                # Bytes each class of the bottleneck's htb sent (under "prio",
                # the emulated switch's: 1:10 EF, 1:21.. the training
                # classes from class 0, 1:30 best effort).
                "class_bytes": {dev: {c: n - classes_before[dev].get(c, 0)
                                      for c, n in classes.items()}
                                for dev, classes in classes_after.items()},
                # Frames the random loss dropped (not the queues': "drops").
                "random_drops": (net.random_drops() - lost_before
                                 if lost_before is not None else None),
                "cc_counters": cc_counts,
                "tag": tag, "sample_jobs": [flow["name"] for (flow, _, _) in self.pairs],
                "bulk": [bulk["name"] for bulk in self.bulks]}
        if flows is not None:
            meta["flows"] = flows
        self.point.write_repeat(alg["name"], rep, meta, sampler.samples)
        if default_params:
            self.defaults.set(default_params)
        return meta


# A marked job's cgroup, under the cgroup v2 mount's root: the
# driver's pid and the job's id.
MARK_CGROUP = "mltcp-bench-%d-job%d"
# How long the processes left in a cgroup get to die once killed.
CGROUP_KILL_S = 5


def remove_cgroup(directory):
    """Kill what is left in a cgroup v2 (cgroup.kill, 5.14+), then remove
    it; said on stderr if it stays. Gone already is no error."""
    if not os.path.isdir(directory):
        return
    try:
        fd = os.open(os.path.join(directory, "cgroup.kill"), os.O_WRONLY)
        try:
            os.write(fd, b"1\n")
        finally:
            os.close(fd)
    except OSError:
        pass  # emptied or gone meanwhile; rmdir says if not
    deadline = time.monotonic() + CGROUP_KILL_S
    while True:
        try:
            os.rmdir(directory)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                print("driver: warning: cgroup %s left behind: %s" % (directory, exc.strerror),
                      file=sys.stderr, flush=True)
                return
        time.sleep(0.01)


def start_offsets(cfg, rep):
    """Each job's start offset (ms) in repeat rep. The configuration's own
    ("offset_ms"), or for a point with "start": "random", one drawn uniformly
    over the job's ideal period: reproducible, and the same for every
    algorithm of the repeat, so that algorithms are compared from the same
    starts. The simulator's workers take the same (bench.run).

    The draw is seeded by the point's "start_seed" (a string or a number)
    and the repeat; a point without one is seeded by its name, as every
    point was before the key (issue 37 item 6), so that renaming such a
    point changes its starts and a point given a start_seed keeps its starts
    under any name. start_seed equal to the name draws what the name did."""
    start = cfg.get("start", "given")
    if start == "given":
        return {job["name"]: job.get("offset_ms", 0) for job in cfg["jobs"]}
    if start != "random":
        raise SystemExit("bench: start %r: \"given\" or \"random\"" % start)
    seed = cfg.get("start_seed", cfg.get("name", "point"))
    draw = random.Random(zlib.crc32(("%s/rep%d" % (seed, rep)).encode()))
    offsets = {}
    for job in cfg["jobs"]:
        period_s, _ = metrics.ideal_iteration(job["compute_ms"] / 1e3, job["bytes"],
                                              cfg["rate_mbit"] * 1e6)
        offsets[job["name"]] = round(draw.uniform(0, period_s * 1e3), 3)
    return offsets


def worker_seed(tag, job, rank):
    """A worker's compute-time seed (mltcp-trainsim's --seed), per run (tag:
    "<algorithm>/rep<k>") and worker, reproducible; the simulator's workers
    take the same (bench.run passes them to mltcp-sim)."""
    return zlib.crc32(("%s/%s/%d" % (tag, job, rank)).encode())


def trainsim_path(cfg):
    return paths.in_tree(cfg.get("trainsim", paths.TRAINSIM))


RING_PORT_STRIDE = 100


def ring_port(base, rank):
    """Where a rank listens: ranks on one host (rank, rank + 2, ...) apart by
    RING_PORT_STRIDE, ranks 0 and 1 on the job's base port. The simulator's
    workers listen alike (sim/main.cc)."""
    return base + RING_PORT_STRIDE * (rank // 2)


# A job's keys for how an iteration goes out, and the mltcp-trainsim options
# they stand for (docs/trainsim.md, "Patterns"); the simulator takes the same
# keys (sim/point.cc).
PATTERN_OPTIONS = (("pattern", "--pattern"), ("sockets", "--sockets"),
                   ("bucket_bytes", "--bucket"), ("first_bucket_bytes", "--first-bucket"))


def pattern_argv(job):
    """mltcp-trainsim's options for a job's pattern keys (none: burst)."""
    return [word for key, option in PATTERN_OPTIONS if key in job
            for word in (option, str(job[key]))]


def check_trainsim_jobs(cfg):
    """The command line of every trainsim job with pattern keys checked by
    mltcp-trainsim's own parser (--check) before anything changes on the
    machine: SystemExit with its one line for a bad value."""
    for job in cfg["jobs"]:
        if is_torch(job) or not any(key in job for key, _ in PATTERN_OPTIONS):
            continue
        argv = trainsim_argv(dict(cfg, iterations=cfg.get("iterations", 1)), job,
                             {"cc": "cubic"}, 0, JOB_PORT, "10.0.0.1", 0, "check", "-")
        argv.append("--check")
        run = subprocess.run(argv, capture_output=True, text=True)
        if run.returncode != 0:
            line = (run.stderr.strip().splitlines() or ["exit %d" % run.returncode])[-1]
            raise SystemExit("driver: job %s: %s" % (
                job["name"], line.replace("mltcp-trainsim: ", "", 1)))


def trainsim_argv(cfg, job, alg, rank, port, peer_ip, start_at, tag, log):
    """Command line of one worker of a job of job.get("ranks", 2) workers:
    it listens on ring_port(port, rank) and connects to the next rank's on
    peer_ip (the other side's host).

    A job's "collective" (default exchange) goes to --collective: "push" loads
    only the L->R direction, so a host that cannot forward both directions of
    every job at the bottleneck rate can still run the set. An algorithm's
    "slots" (the oracle, bench/oracle.py) give --slot-period.
    """
    world = job.get("ranks", 2)
    argv = [trainsim_path(cfg), "--job", job["name"], "--rank", str(rank),
            "--world", str(world), "--listen", str(ring_port(port, rank)),
            "--next", "%s:%d" % (peer_ip, ring_port(port, (rank + 1) % world)),
            "--bytes", str(job["bytes"] // (world - 1)),
            "--compute", "%gms" % job["compute_ms"],
            "--jitter", "%gms" % job.get("jitter_ms", 0),
            "--iterations", str(cfg["iterations"]), "--cc", alg["cc"],
            "--start-at", "%.6f" % start_at,
            "--offset", "%gms" % job.get("offset_ms", 0),
            "--seed", str(worker_seed(tag, job["name"], rank)),
            "--log", log]
    if "collective" in job:
        argv += ["--collective", job["collective"]]
    argv += pattern_argv(job)
    if "slots" in alg:
        argv += ["--slot-period", "%dus" % alg["slots"]["period_us"]]
    return argv


def is_torch(job):
    return job.get("workload", "trainsim") == "torch"


def logged_steps(log):
    try:
        with open(log) as f:
            return sum('"type":"iteration"' in line for line in f)
    except FileNotFoundError:
        return 0


def worker_stderr(log):
    """Where a worker's stderr goes: beside its log (NAME.jsonl: NAME.stderr)."""
    return os.path.splitext(log)[0] + ".stderr"


def threads_waiting(pid):
    """What a hung process's threads are doing, for its failure: their
    states and kernel wait channels (R running, S futex_do_wait...), each
    with how many threads share it, the main thread's first."""
    seen = {}
    try:
        tids = sorted(os.listdir("/proc/%d/task" % pid), key=int)
    except OSError:
        return "gone"
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open("/proc/%d/task/%s/wchan" % (pid, tid)) as f:
                wchan = f.read().strip()
        except OSError:
            continue
        where = state + ("" if wchan in ("", "0") else " " + wchan)
        seen[where] = seen.get(where, 0) + 1
    return "threads: " + ", ".join("%s x%d" % item for item in seen.items())


def last_words(path, prefix):
    """prefix and the last line a worker wrote to its stderr file, or ""."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode(errors="replace").strip().splitlines()
    except FileNotFoundError:
        return ""
    return prefix + lines[-1].strip() if lines else ""


def torch_argv(cfg, job, rank, world, port, master_ip, start_at, tag, log):
    """Command line of one rank of a PyTorch DDP job of `world` ranks; rank 0
    (on Lj) holds the rendezvous."""
    return [paths.SYSTEM_PYTHON, os.path.join(paths.TOP, "bench", "torch_worker.py"),
            "--job", job["name"],
            "--rank", str(rank), "--world", str(world),
            "--master", "%s:%d" % (master_ip, port),
            "--bytes", str(job["bytes"] // (world - 1)),
            "--compute", "%gms" % job["compute_ms"],
            "--backward-share", "%g" % job.get("backward_share", 0),
            "--iterations", str(cfg["iterations"]),
            "--bucket-mb", "%g" % job.get("bucket_mb", 25),
            "--first-bucket-mb", "%g" % job.get("first_bucket_mb", 1),
            "--start-at", "%.6f" % start_at, "--offset", "%gms" % job.get("offset_ms", 0),
            "--seed", str(worker_seed(tag, job["name"], rank)),
            "--log", log]


def add_arguments(parser):
    parser.add_argument("point", metavar="POINT_DIR")


# Where a point runs, by its backend, as failures name it.
WHERE = {"bpf": "host", "ns-3": "sim", "module": "guest"}


def where(cfg):
    backend = cfg.get("backend", "module")
    return WHERE.get(backend, backend)


def failure_reason(exc):
    """One line saying why the driver failed: a command's exit and the last
    line it wrote to stderr, or the exception's type and first line."""
    if isinstance(exc, subprocess.CalledProcessError):
        cmd = exc.cmd if isinstance(exc.cmd, str) else " ".join(str(a) for a in exc.cmd)
        err = exc.stderr or b""
        err = err.decode(errors="replace") if isinstance(err, bytes) else err
        last = [line for line in err.strip().splitlines() if line.strip()]
        return "`%s` exited %d%s" % (cmd, exc.returncode, ": " + last[-1].strip() if last else "")
    first = str(exc).strip().splitlines()
    return "%s%s" % (type(exc).__name__, ": " + first[0] if first else "")


def main(args):
    """Run the point; on an exception, its reason on one line of stderr and
    in the point's driver-failure.txt (rundir.DRIVER_FAILURE) with the
    traceback, for bench run to report, and exit 2."""
    point = rundir.Point(args.point)
    cfg = point.config()
    try:
        trainsim = trainsim_path(cfg)
        if not os.access(trainsim, os.X_OK):
            sys.exit("driver: %s is not built" % trainsim)
        with terminate_as_exit():
            return run_point(cfg, point)
    except KeyboardInterrupt:
        # What the run changed is undone by now (the finally blocks ran).
        print("driver (%s): interrupted" % where(cfg), file=sys.stderr, flush=True)
        return 128 + signal.SIGINT
    except SystemExit as exc:
        # A refusal (one line already): kept for bench run as well.
        if isinstance(exc.code, str):
            with open(point.file(rundir.DRIVER_FAILURE), "w") as f:
                f.write(exc.code + "\n")
        raise
    except Exception as exc:
        reason = failure_reason(exc)
        with open(point.file(rundir.DRIVER_FAILURE), "w") as f:
            f.write(reason + "\n\n" + traceback.format_exc())
        print("driver (%s): %s (traceback in %s)" % (
            where(cfg), reason, point.file(rundir.DRIVER_FAILURE)),
            file=sys.stderr, flush=True)
        return 2


@contextlib.contextmanager
def terminate_as_exit():
    """A SIGTERM (a timeout's) unwinds as an exit does, and a SIGINT (Ctrl-C)
    as KeyboardInterrupt, so that what the run changed on the machine
    (allowed_ccs(), the dumbbell, the prio defaults) is undone; a second
    Ctrl-C while that runs is ignored, lest it cut the undoing short (a
    SIGTERM or SIGKILL still stops it). The previous handlers are back
    afterwards."""
    def interrupt(*_):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    previous_int = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


# How long bench run waits for an interrupted driver to undo its changes
# before it terminates it, and again before it kills it (run_child()).
UNWIND_S = 60


def run_child(argv, unwind_s=UNWIND_S, **kw):
    """subprocess.run(argv, **kw) for the driver, but on Ctrl-C: the
    terminal's SIGINT reached the driver too, and it is undoing what it
    changed on the machine (net.ipv4.tcp_allowed_congestion_control, the
    namespaces); subprocess.run would SIGKILL it 0.25 s later, leaving
    them. Wait for it to exit, then terminate it (a SIGTERM unwinds as an
    exit too), then kill it, unwind_s apart; then the KeyboardInterrupt
    goes on."""
    proc = subprocess.Popen(argv, **kw)
    try:
        return subprocess.CompletedProcess(argv, proc.wait())
    except KeyboardInterrupt:
        try:
            proc.wait(timeout=unwind_s)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=unwind_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        raise


ALLOWED_CCS = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
AVAILABLE_CCS = "/proc/sys/net/ipv4/tcp_available_congestion_control"


def read_sysctl(path):
    with open(path) as f:
        return f.read()


def write_sysctl(path, value):
    with open(path, "w") as f:
        f.write(value + "\n")


def point_ccs(cfg):
    """The congestion controls a point's runs select: its algorithms' and
    its bulk flows', in their order."""
    ccs = [alg["cc"] for alg in cfg.get("algorithms", [])] + \
        [bulk["cc"] for bulk in cfg.get("bulk", []) if "cc" in bulk]
    return list(dict.fromkeys(ccs))


@contextlib.contextmanager
def allowed_ccs(ccs, read=None, write=None):
    """For the run, ccs in net.ipv4.tcp_allowed_congestion_control (global):
    a namespace other than the first may select only an allowed one as its
    default, and on a host whose default is bbr cubic is not (issue 37 item
    6). Only those the kernel has (tcp_available_congestion_control) are
    added: it refuses the whole write for one it lacks. Afterwards, on
    failure too, those added are taken out again, leaving the value as it
    was. Yields the list added."""
    if not ccs:
        yield []
        return
    read, write = read or read_sysctl, write or write_sysctl
    before = read(ALLOWED_CCS).split()
    available = read(AVAILABLE_CCS).split()
    added = [cc for cc in ccs if cc in available and cc not in before]
    if added:
        try:
            write(ALLOWED_CCS, " ".join(before + added))
        except OSError as exc:
            # Sockets that select their CC as root (trainsim) need no entry;
            # a namespace's default (torch jobs) will say so if it does.
            print("driver: warning: could not allow %s (%s): %s"
                  % (" ".join(added), ALLOWED_CCS, exc.strerror), file=sys.stderr, flush=True)
            added = []
    try:
        yield added
    finally:
        if added:
            # What is there now, less what was added: another change made
            # meanwhile stays.
            restored = " ".join(cc for cc in read(ALLOWED_CCS).split() if cc not in added)
            try:
                write(ALLOWED_CCS, restored)
            except OSError as exc:
                # The run's own outcome stands; the operator is told what to undo.
                print("driver: warning: could not restore %s to \"%s\": %s"
                      % (ALLOWED_CCS, restored, exc.strerror), file=sys.stderr, flush=True)


def run_point(cfg, point):
    with allowed_ccs(point_ccs(cfg)) as added:
        if added:
            print("driver: %s allowed for the run (net.ipv4.tcp_allowed_congestion_control)"
                  % " ".join(added), flush=True)
        return run_experiment(cfg, point)


def run_experiment(cfg, point):
    t0 = time.time()
    exp = Experiment(cfg, point)
    try:
        print("driver: dumbbell up in %.1f s: %d jobs, %d Mbit/s, RTT %g ms, %s limit %d B%s%s"
              % (time.time() - t0, len(exp.jobs), cfg["rate_mbit"], cfg["rtt_ms"],
                 exp.shaping.shaper, exp.limit,
                 ", pure ACKs first" if exp.shaping.ack_priority else "",
                 ", random loss %g%%" % exp.loss_pct if exp.loss_pct else ""), flush=True)
        for rep in rundir.repeat_indices(cfg):
            for alg in cfg["algorithms"]:
                t1 = time.time()
                try:
                    meta = exp.run_once(alg, rep)
                finally:
                    # The BPF backend's job table is the host's: it outlives the driver.
                    exp.drop_marked_jobs()
                print("driver: %-24s %.1f s, RTOs %d, drops %s%s" % (
                    meta["tag"], time.time() - t1, sum(meta["rtos"].values()),
                    sum(sum(d.values()) for d in meta["drops"].values()),
                    ", FAILED: " + "; ".join(meta["failures"]) if meta["failures"] else ""),
                    flush=True)
    finally:
        try:
            exp.prio_off()
        finally:
            exp.close()
    return 0
