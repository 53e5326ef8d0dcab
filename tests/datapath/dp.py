# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the datapath suite needs from a backend, and its network.

A Backend runs mltcpctl with "-b kmod|bpf", reads the datapath's event
counters (the module's debugfs stats or "mltcpctl bpf status") and carries
the bottleneck and thresholds of where it runs:

  guest (QEMU, scripts/vm-run: the module, or the twin on 6.1 and 6.12):
       100 Mbit/s tbf, 1.5 BDP of queue, 5 ms netem delay on the ACK path,
       as in the measured rig recipe (TCG forwards about 200 Mbit/s);
  host (the twin; the host has no netem): 1 Gbit/s tbf, 2 MB of queue, RTT
       from queueing only.

The network is testbed/topology.py's dumbbell; traffic is onoff.py (which
keeps the socket open after its last burst, so mltcpctl can list the flow)
and iperf3.
"""
import contextlib
import dataclasses
import json
import os
import re
import subprocess
import time

from prometheus_client.parser import text_string_to_metric_families

from testbed import bulk, mltcpctl
from testbed.dmesg_plugin import in_guest
from testbed.topology import Dumbbell, Shaping, queue_limit

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
ONOFF = os.path.join(HERE, "onoff.py")
CAPTURE = os.path.join(TOP, "tests", "bpf", "capture.py")
PYTHON = "/usr/bin/python3"
TOOL = os.environ.get("MLTCPCTL_TOOL") or os.environ.get("MLTCP_MLTCPCTL") or \
    os.path.join(TOP, "build", "userspace", "mltcpctl", "mltcpctl")
BACKENDS = ("kmod", "bpf")
NAMES = ("mltcp", "mltcp_reno", "mltcp_cubic")
JOB_PORT, OTHER_PORT = 5301, 9000
# The shipped defaults, as "defaults show" prints them and as set takes them.
DEFAULTS = ("slope", "1.6", "intercept", "0.7", "idle-gap", "20ms", "base", "cubic", "mode",
            "md-restart")
DEFAULT_SETTINGS = {"slope": 1.6, "intercept": 0.7, "idle_gap_us": 20000}


@dataclasses.dataclass(frozen=True)
class Profile:
    """A backend's bottleneck, traffic sizes and pass thresholds."""
    forward: Shaping
    reverse: Shaping
    bulk_seconds: int
    bulk_omit: int
    bulk_ref_vs_rate: float   # the base's goodput > this x rate: the bottleneck limits it
    bulk_vs_rate: float       # the variant's goodput >= this x rate
    bulk_vs_base: float       # the variant's goodput >= this x the base's
    onoff_bytes: int
    onoff_count: int

    @property
    def rate_mbit(self):
        return self.forward.rate_mbit


PROFILES = {
    # The module in a TCG guest: about 200 Mbit/s forwarded in all, so 100 Mbit/s.
    "guest": Profile(
        forward=Shaping(rate_mbit=100, burst_bytes=64 * 1024,
                        limit_bytes=queue_limit(100, 5, 1.5)),
        reverse=Shaping(delay_ms=5),
        bulk_seconds=5, bulk_omit=1, bulk_ref_vs_rate=0.75, bulk_vs_rate=0.0,
        bulk_vs_base=0.95, onoff_bytes=1_000_000, onoff_count=12),
    # The BPF twin on the host kernel: 1 Gbit/s one way.
    "host": Profile(
        forward=Shaping(rate_mbit=1000, burst_bytes=256 * 1024, limit_bytes=2 * 1024 * 1024),
        reverse=Shaping(),
        bulk_seconds=3, bulk_omit=0, bulk_ref_vs_rate=0.75, bulk_vs_rate=0.8,
        bulk_vs_base=0.9, onoff_bytes=4 << 20, onoff_count=8),
}


def run(*args, check=True, timeout=120, **kw):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, **kw)
    if check and proc.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(str(a) for a in args),
                                                     proc.returncode, proc.stderr.strip()))
    return proc


class Backend:
    def __init__(self, name):
        self.name = name
        self.profile = PROFILES["guest" if in_guest() else "host"]
        self.jobs_netns = None  # kmod: jobs are per namespace (set by Net); bpf: one table
        self.loaded = None  # bpf: what "bpf load -j" printed

    # ---- mltcpctl ----

    def ctl(self, *args, check=True):
        return run(TOOL, "-b", self.name, *args, check=check)

    def ctl_json(self, *args):
        return json.loads(self.ctl("-j", *args).stdout)

    def jobs_ns_args(self):
        """mltcpctl's options for the table jobs go in (kmod: -n the sender)."""
        return ["-n", self.jobs_netns] if self.name == "kmod" and self.jobs_netns else []

    def job(self, *args, check=True):
        """mltcpctl job ... in the table the sender's new flows match against
        (kmod: the sender namespace's; bpf: the host's one table)."""
        return self.ctl(*self.jobs_ns_args(), "job", *[str(a) for a in args], check=check)

    def jobs(self, *args):
        return self.ctl_json(*self.jobs_ns_args(), "job", "show", *[str(a) for a in args])

    def clear_jobs(self):
        for j in self.jobs():
            self.job("del", j["id"])

    def defaults(self):
        return self.ctl_json("defaults", "show", "global")

    def set_defaults(self, *words):
        return self.ctl("defaults", "set", "global", *[str(w) for w in words])

    def stats(self):
        """The datapath's event counters: iterations, tx_start_*, flows_started,
        gate_* (as the bench reads them, testbed.mltcpctl.counters())."""
        counts = mltcpctl.counters("module" if self.name == "kmod" else "bpf", TOOL)
        assert counts, "no %s counters to read" % self.name
        return counts

    # ---- making it ready ----

    def setup(self):
        assert os.geteuid() == 0, "the datapath suite needs root"
        assert os.access(TOOL, os.X_OK), "%s is not built" % TOOL
        if self.name == "kmod":
            assert os.path.isdir("/sys/module/tcp_mltcp"), \
                "tcp_mltcp is not loaded: scripts/vm-run should have loaded it"
            self.unbound_netns()
        else:
            assert os.path.exists("/sys/kernel/btf/vmlinux"), "this kernel has no BTF"
            assert "BPF backend" in run(TOOL, "-V").stdout, \
                "mltcpctl was built without the BPF backend"
            assert not os.path.isdir("/sys/module/tcp_mltcp"), \
                "the bpf backend's tests expect no tcp_mltcp module"
            run(TOOL, "bpf", "unload", check=False)  # a killed run may have left it
            available = open("/proc/sys/net/ipv4/tcp_available_congestion_control").read()
            assert not set(NAMES) & set(available.split()), \
                "mltcp names registered by something else"
            self.loaded = json.loads(run(TOOL, "-j", "bpf", "load").stdout)
        assert self.ctl("defaults", "show", "global").stdout.split() == list(DEFAULTS), \
            "the suite expects the shipped defaults"

    def unbound_netns(self):
        """The sender's namespace ("ip netns add") stands for a host of its
        own, whose root sets its jobs: the host's opt-out from the bound of
        namespaces of the initial user namespace (bound_netns=0,
        tcp_mltcp(7) "TRUST MODEL"). The module is loaded again with it and
        its other parameters as they were; restore_module() puts it back."""
        params = "/sys/module/tcp_mltcp/parameters/"
        if not os.path.exists(params + "bound_netns") or \
                open(params + "bound_netns").read().strip() != "Y":
            return
        self.module_params = ["%s=%s" % (name, open(params + name).read().strip())
                              for name in sorted(os.listdir(params))]
        run("rmmod", "tcp_mltcp")
        run("insmod", os.environ["MLTCP_KO"],
            *[p for p in self.module_params if not p.startswith("bound_netns=")],
            "bound_netns=0")

    def restore_module(self):
        """The module as the suite found it: the suites after this one in
        the same guest (scripts/test runs tests/kernel next) test the
        shipped bound. Sockets that used it may take a moment to close."""
        params = getattr(self, "module_params", None)
        if params is None:
            return
        deadline = time.time() + 10
        while run("rmmod", "tcp_mltcp", check=False).returncode != 0:
            assert time.time() < deadline, \
                "tcp_mltcp cannot be unloaded to restore %s" % " ".join(params)
            time.sleep(0.2)
        run("insmod", os.environ["MLTCP_KO"], *params)
        self.module_params = None

    def teardown(self):
        self.ctl("defaults", "set", "global", *DEFAULTS, check=False)
        if self.name == "bpf":
            run(TOOL, "bpf", "unload", check=False)
        self.restore_module()


class Net:
    """A dumbbell with one sender (`snd`) and one receiver (`rcv`), shaped
    as the backend's profile says, with on-off sinks on the receiver."""

    def __init__(self, backend):
        p = backend.profile
        self.backend = backend
        self.bell = Dumbbell(["s1"], ["r"], forward=p.forward, reverse=p.reverse,
                             prefix="dp%d" % (os.getpid() % 100000))
        self.snd, self.rcv = self.bell.left[0], self.bell.right[0]
        backend.jobs_netns = self.snd.name
        try:
            for port in (JOB_PORT, OTHER_PORT):
                sink = self.rcv.spawn(PYTHON, ONOFF, "sink", str(port), stdin=subprocess.PIPE)
                assert sink.stdout.readline().strip() == "listening", sink.stderr.read()
        except BaseException:
            self.close()
            raise

    def close(self):
        self.bell.close()

    def flows(self, *filter_args):
        return self.backend.ctl_json("-n", self.snd.name, "flow", "show", *filter_args)

    def flow_by_sport(self, sport):
        found = [f for f in self.flows() if f["sport"] == sport]
        assert len(found) == 1, "flow with sport %d not listed once: %s" % (sport, self.flows())
        return found[0]

    def onoff(self, nbytes, count, idle_ms, cc="mltcp", port=OTHER_PORT, trace=False,
              cgroup=None):
        """Starts an on-off flow and waits for its last burst; it stays open
        until closed. trace: keep the window at each burst's start (.trace).
        cgroup: the sender's cgroup v2 directory."""
        return OnOff(self, nbytes, count, idle_ms, cc, port, trace, cgroup)

    def served(self, nbytes, count, idle_ms, port, cc="mltcp", cgroup=None):
        """As onoff(), from an accepted socket: the sender listens on port
        (in cgroup), the receiver connects."""
        return Served(self, nbytes, count, idle_ms, cc, port, cgroup)

    @contextlib.contextmanager
    def captured(self, out):
        """The TCP packets on the sender's device while the block runs,
        both ways, in the kernel's order, appended to out (capture.py)."""
        proc = self.snd.spawn(PYTHON, CAPTURE, "eth0", stdin=subprocess.PIPE)
        try:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
            yield
        finally:
            stdout, _ = proc.communicate("", timeout=60)
        out.extend(json.loads(stdout))

    @contextlib.contextmanager
    def route_initcwnd(self, segments):
        """The sender's route to the receiver sets initcwnd (ip route ...
        initcwnd N) for the connections opened meanwhile."""
        route = ["route", "add", self.rcv.addr + "/32", "dev", "eth0", "initcwnd", str(segments)]
        self.snd.run("ip", *route)
        try:
            yield
        finally:
            self.snd.run("ip", "route", "del", self.rcv.addr + "/32", check=False)

    def onoff_flow(self, nbytes, count, idle_ms, cc="mltcp"):
        """Runs an on-off flow to its end; returns how flow show lists it then,
        and the sender's `ss -tin` line of it."""
        f = self.onoff_run(nbytes, count, idle_ms, cc)
        return f.flow, f.ss_text

    def onoff_run(self, nbytes, count, idle_ms, cc="mltcp"):
        """As onoff_flow(), the closed OnOff with .flow and .ss_text."""
        f = self.onoff(nbytes, count, idle_ms, cc)
        try:
            f.flow, f.ss_text = f.show(), f.ss()
            return f
        finally:
            f.close()

    def iperf(self, cc, port=5201):
        """A bulk flow with cc: (goodput in Mbit/s, the sender's algorithm as
        iperf3 reports it, whether `ss -ti` showed cc mid-flow)."""
        p = self.backend.profile
        end, ss = bulk.iperf3(self.snd, self.rcv, cc, p.bulk_seconds, omit=p.bulk_omit,
                              port=port, midway=lambda: self.snd.run(
                                  "ss", "-tin", "dst", self.rcv.addr).stdout)
        return (bulk.goodput_bps(end) / 1e6, end["sender_tcp_congestion"],
                re.search(r"^\s+%s\s" % re.escape(cc), ss, re.M) is not None)


class OnOff:
    """onoff.py send: count bursts of nbytes, each acknowledged, idle_ms apart."""

    def __init__(self, net, nbytes, count, idle_ms, cc, port, trace=False, cgroup=None):
        self.net = net
        self.proc = net.snd.spawn(PYTHON, ONOFF, "send", net.rcv.addr, str(port), cc,
                                  str(nbytes), str(count), str(idle_ms),
                                  *(["trace"] if trace else []), "pauses", stdin=subprocess.PIPE,
                                  cgroup=cgroup)
        line = self.proc.stdout.readline().split()
        assert line and line[0] == "sport", self.proc.stderr.read()
        self.sport = int(line[1])
        self.read_bursts()

    def read_bursts(self):
        self.trace = []  # per burst: {"before": tcp_info, "after": tcp_info}
        self.pauses = []  # per burst: the sender's pauses inside it (onoff.py's Writer)
        self.idles = []  # per burst: the idle before it at its longest, ms (None: the first)
        line = self.proc.stdout.readline()
        while line.startswith(("trace ", "burst ")):
            kind, text = line.split(" ", 1)
            if kind == "trace":
                self.trace.append(json.loads(text))
            else:
                burst = json.loads(text)
                self.pauses.append(burst["pauses"])
                self.idles.append(burst["idle_ms"])
            line = self.proc.stdout.readline()
        assert line.strip() == "done", self.proc.stderr.read()

    def idles_inside(self, idle_gap_us):
        """The sender's pauses inside bursts that the datapath may take for
        a compute phase: at least the idle gap, after which the socket had
        nothing unsent or unacked (a guest not run that long on a busy
        host). Each can start an iteration where no size is known yet (the
        first burst) or past the first 1/8 of one."""
        return [(j, p) for j, pauses in enumerate(self.pauses) for p in pauses
                if p["drained"] and p["ms"] * 1000 >= idle_gap_us]

    def long_idles(self, idle_gap_us):
        """The bursts whose idle before them may have lasted the idle gap
        (a sender not run for that long)."""
        return [j for j, ms in enumerate(self.idles) if ms is not None and ms * 1000 >= idle_gap_us]

    def check_iterations(self, flow, count, verdicts=None):
        """One iteration start per burst after the first, and at most one
        more per idle inside a burst (idles_inside()). verdicts: the
        backend's counters' changes meanwhile (one flow ran). A burst that
        begins while the last one's tail is still unacknowledged (lost,
        awaiting an RTO: on a starved host the RTO outlasts the idle)
        begins with data outstanding, which is no start: the detector
        merges the two. Each such burst has at least one retransmission
        sent with nothing else in flight, a tx_start_in_recovery verdict, so
        at most that many starts may be missing."""
        idles = self.idles_inside(flow["idle_gap_us"])
        merged = (verdicts or {}).get("tx_start_in_recovery", 0)
        assert count - 1 - merged <= flow["iterations"] <= count - 1 + len(idles), (
            "%d bursts, %d iterations; pauses inside the bursts: %s; idles before them "
            "(ms, at most): %s; counters: %s; flow: %s"
            % (count, flow["iterations"], self.pauses, self.idles, verdicts, flow))
        if idles:
            print("idles inside bursts (each may start an iteration):", idles)
        return len(idles)

    def show(self, *filter_args):
        mine = [f for f in self.net.flows(*filter_args) if f["sport"] == self.sport]
        assert len(mine) == 1, mine
        return mine[0]

    def ss(self):
        return self.net.snd.run("ss", "-tin", "sport", "= :%d" % self.sport).stdout

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class Served(OnOff):
    """onoff.py serve on the sender, fetched by the receiver: an accepted
    flow, whose local port (sport) is the listening port."""

    def __init__(self, net, nbytes, count, idle_ms, cc, port, cgroup=None):
        self.net = net
        self.sport = port
        self.proc = net.snd.spawn(PYTHON, ONOFF, "serve", str(port), cc, str(nbytes),
                                  str(count), str(idle_ms), stdin=subprocess.PIPE, cgroup=cgroup)
        assert self.proc.stdout.readline().strip() == "listening", self.proc.stderr.read()
        net.rcv.spawn(PYTHON, ONOFF, "fetch", net.snd.addr, str(port))
        self.read_bursts()


def exported_events(backend, ns, metric, prefix, names):
    """The samples of counter family metric (labelled "event") in
    `mltcpctl -n NS export`, keyed prefix + event: the namespace's (kmod)
    or the host's, without a netns label (bpf); every one of names, and
    nothing else."""
    labels = {"backend": backend.name}
    if backend.name == "kmod":
        labels["netns"] = ns.name
    text = backend.ctl("-n", ns.name, "export").stdout
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            rest = {k: v for k, v in s.labels.items() if k != "event"}
            if s.name == metric and rest == labels:
                out[prefix + s.labels["event"]] = s.value
    assert set(out) == set(names), text
    return out
