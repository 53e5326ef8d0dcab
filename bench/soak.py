# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A fault soak of the module: minutes of everything that can go wrong at once,
then a check that the kernel is as it was.

Runs inside the test guest (scripts/soak boots it with slub_debug=FZPU, so
the slab allocator poisons freed objects, checks red zones and records who
allocated each object). Round after round, until the time is up:

  - a dumbbell (2 senders, 1 receiver, 100 Mbit/s, 2+2 ms) with 1-5 % loss
    on the data path, and once per round a 1.5 s blackout (every packet
    lost) that ends in retransmission timeouts;
  - on-off MLTCP flows of two jobs, an MLTCP bulk flow and a cubic bulk
    flow, with the jobs' settings changed every few seconds and the flows
    listed (netlink dump and debugfs) while they change;
  - namespace churn: a namespace with a job and live MLTCP loopback flows
    is deleted while its process still sends, then the process is killed;
  - every third round a module reload under load: rmmod with an MLTCP flow
    open must be refused, then the MLTCP flows end, the module is removed
    and inserted again while the cubic bulk flow keeps running.

At the end, with every flow, job and namespace gone: no slab object
allocated by tcp_mltcp is left (slub's alloc_traces), unreclaimable slab
is back near its baseline, the kernel printed no warning, and no round
stalled. The verdict and the figures go to soak.json and soak.md in --out.
"""
import glob
import json
import os
import random
import re
import signal
import subprocess
import time

from bench import paths
from testbed.topology import TO_RIGHT, Dumbbell, Netns, Shaping, queue_limit, sh

FORMAT = 1
FLOWGEN = os.path.join(paths.TOP, "tests", "kernel", "tools", "flowgen.py")
DEBUGFS = "/sys/kernel/debug"
SLAB_TRACES = os.path.join(DEBUGFS, "slab", "*", "alloc_traces")
ROUND_S = 60
# A round that takes this much longer than planned is a stall.
STALL_S = 90
# Kernel messages that fail the soak. (The module's own taint notice at load
# and the qdiscs' notes are not among them.)
BAD_DMESG = re.compile(r"WARNING|BUG|Oops|general protection|hung_task|blocked for more|"
                       r"soft lockup|rcu.*stall|refcount_t|leak|use-after-free|Poison|"
                       r"Redzone|Object padding|list_add corruption|list_del corruption",
                       re.IGNORECASE)
# Unreclaimable slab may grow a little for reasons of its own (per-CPU
# caches, sockets' RCU frees still pending); more than this is reported.
SUNRECLAIM_SLACK_KB = 4096


def add_arguments(parser):
    parser.add_argument("--minutes", type=float, default=30.0,
                        help="how long to soak (default 30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ko", default=os.path.join(paths.TOP, "tcp_mltcp.ko"),
                        help="the module to re-insert after each rmmod")
    parser.add_argument("--out", default=os.environ.get("MLTCP_RESULTS", "."),
                        help="where soak.json and soak.md go (default $MLTCP_RESULTS)")


def ctl(*args, check=True):
    return sh(paths.MLTCPCTL, *map(str, args), check=check)


def meminfo_kb(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def settle_memory():
    """Let deferred frees run (RCU, TIME_WAIT is off by then) and shrink caches."""
    time.sleep(3)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    time.sleep(2)


TRACE_HEADER = re.compile(r"^\s*(\d+) (\S+)")


def mltcp_slab_objects():
    """Live slab objects whose allocation stack passes through tcp_mltcp:
    {"cache: allocating function": count}. A record of alloc_traces is a
    header line (count, caller, ...) and the stack, one frame a line."""
    found = {}
    for path in glob.glob(SLAB_TRACES):
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        cache = os.path.basename(os.path.dirname(path))
        header = None
        for line in lines + [""]:
            match = TRACE_HEADER.match(line)
            if match or not line.strip():
                header = match and (cache + ": " + match.group(2), int(match.group(1)))
                ours = False
                continue
            if header and not ours and "[tcp_mltcp]" in line:
                ours = True
                found[header[0]] = found.get(header[0], 0) + header[1]
    return found


def leaked(baseline, end):
    """What the module allocated and did not free: objects beyond those it
    held at the start (its per-namespace sysctl tables, say)."""
    return {key: count - baseline.get(key, 0) for key, count in end.items()
            if count > baseline.get(key, 0)}


def dmesg_lines():
    return sh("dmesg").stdout.splitlines()


def module_loaded():
    return os.path.exists("/sys/module/tcp_mltcp")


class Round:
    """One round's network and traffic."""

    def __init__(self, index, rng, log):
        self.index, self.rng, self.log = index, rng, log
        self.net = None
        self.onoff = []
        self.mltcp_bulk = None
        self.cubic_bulk = None

    def build(self):
        rate, delay = 100, 2.0
        forward = Shaping(rate_mbit=rate, delay_ms=delay, burst_bytes=64 * 1024,
                          limit_bytes=queue_limit(rate, 2 * delay, 1.0))
        self.net = Dumbbell(["s1", "s2"], ["r"], forward=forward,
                            reverse=Shaping(delay_ms=delay), prefix="sk%d" % (self.index % 1000))
        self.loss = self.rng.choice([1, 2, 3, 5])
        self.net.set_loss(TO_RIGHT, self.loss)
        r = self.net.right[0]
        for port in (5301, 5302):
            r.spawn("iperf3", "-s", "-p", str(port), stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL)
        for port in (7401, 7402):
            r.spawn("/usr/bin/python3", FLOWGEN, "server", "--port", str(port),
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.readline()
        time.sleep(0.5)

    def start_traffic(self):
        s1, s2 = self.net.left
        dst = self.net.right[0].addr
        for job, (host, port) in enumerate(((s1, 7401), (s2, 7402)), start=1):
            ctl("-n", host.name, "job", "add", job, "dport", port, "idle-gap", "5ms")
            self.onoff.append(host.spawn(
                "/usr/bin/python3", FLOWGEN, "onoff", "--dst", dst, "--port", str(port),
                "--cc", "mltcp", "--bytes", str(self.rng.choice([200000, 500000, 1000000])),
                "--idle-ms", str(self.rng.choice([10, 30, 60])), "--iterations", "100000",
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.mltcp_bulk = s1.spawn("iperf3", "-c", dst, "-p", "5301", "-t", "86400", "-C",
                                   "mltcp_cubic", stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        self.cubic_bulk = s2.spawn("iperf3", "-c", dst, "-p", "5302", "-t", "86400", "-C",
                                   "cubic", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop_mltcp_traffic(self):
        for proc in self.onoff + [self.mltcp_bulk]:
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()
        self.onoff, self.mltcp_bulk = [], None

    def poke(self, stats):
        """One of the changes made while the traffic runs."""
        host = self.rng.choice(self.net.left)
        job = 1 if host is self.net.left[0] else 2
        what = self.rng.randrange(4)
        if what == 0:
            ctl("-n", host.name, "job", "set", job,
                "slope", "%.1f" % self.rng.uniform(0, 1.6),
                "intercept", "%.1f" % self.rng.uniform(0.1, 0.7))
            stats["job_changes"] += 1
        elif what == 1:
            ctl("-n", host.name, "job", "set", job,
                "iter-bytes", self.rng.choice(["default", "1M", "256K"]),
                "base", self.rng.choice(["reno", "cubic"]))
            stats["job_changes"] += 1
        elif what == 2:
            json.loads(ctl("-n", host.name, "-j", "flow", "show").stdout)
            with open(os.path.join(DEBUGFS, "tcp_mltcp", "flows")) as f:
                f.read()
            stats["dumps"] += 1
        else:
            ctl("-n", host.name, "-j", "monitor", "interval", "20ms", "count", "3")
            stats["dumps"] += 1

    def blackout(self, stats):
        """Every packet lost for 1.5 s: the flows time out and retransmit."""
        self.net.set_loss(TO_RIGHT, 100)
        time.sleep(1.5)
        self.net.set_loss(TO_RIGHT, self.loss)
        stats["blackouts"] += 1

    def rtos(self):
        return sum(h.netstat().get("TcpExtTCPTimeouts", 0) for h in self.net.left)

    def close(self):
        if self.net:
            self.net.close()
            self.net = None


def churn_namespace(index, stats):
    """A namespace with a job and live MLTCP loopback flows, deleted while
    its process sends; then the process is killed, which ends the flows as
    the namespace is dismantled."""
    ns = Netns("skchurn%d" % index)
    ctl("-n", ns.name, "job", "add", 1, "slope", "1.5")
    sender = ns.spawn("/usr/bin/python3", "-c", CHURN_SENDER, stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL)
    ready = sender.stdout.readline().strip()
    sh("ip", "netns", "del", ns.name)
    time.sleep(0.3)
    sender.send_signal(signal.SIGKILL)
    sender.wait()
    stats["namespaces"] += 1
    stats["churned_flows"] += int(ready or 0)


# Opens MLTCP loopback connections, prints how many, and keeps them busy.
CHURN_SENDER = r"""
import socket, sys, threading
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(16)
pairs = []
for _ in range(8):
    c = socket.socket()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
    c.connect(ls.getsockname()); s, _ = ls.accept(); pairs.append((c, s))
def drain(s):
    while s.recv(65536):
        pass
for c, s in pairs:
    threading.Thread(target=drain, args=(s,), daemon=True).start()
print(len(pairs), flush=True)
while True:
    for c, _ in pairs:
        c.send(b"x" * 65536)
"""


def reload_module(rnd, ko, stats, log):
    """rmmod with MLTCP flows open is refused; with them gone it succeeds,
    while cubic traffic keeps running; then the module comes back."""
    refused = sh("rmmod", "tcp_mltcp", check=False)
    if refused.returncode == 0:
        raise AssertionError("rmmod succeeded with MLTCP flows open")
    stats["refused_unloads"] += 1
    rnd.stop_mltcp_traffic()
    for host in rnd.net.left:
        for job in (1, 2):
            ctl("-n", host.name, "job", "del", job, check=False)
    deadline = time.monotonic() + 60
    while True:
        if sh("rmmod", "tcp_mltcp", check=False).returncode == 0:
            break
        if time.monotonic() > deadline:
            raise AssertionError("tcp_mltcp still in use 60 s after its flows ended")
        time.sleep(0.5)
    sh("insmod", ko)
    stats["reloads"] += 1
    log("  module reloaded under cubic load")
    rnd.start_traffic()


def soak(args, log):
    rng = random.Random(args.seed)
    sh("mount", "-t", "debugfs", "debugfs", DEBUGFS, check=False)
    sh("sysctl", "-q", "-w", "kernel.hung_task_timeout_secs=30")
    if not module_loaded():
        sh("insmod", args.ko)
    slab_traced = bool(glob.glob(SLAB_TRACES))
    failures = []
    # The leak check must see the module's allocations: a job is one.
    before = sum(mltcp_slab_objects().values())
    ctl("job", "add", 4242, "dport", 1)
    with_job = sum(mltcp_slab_objects().values())
    ctl("job", "del", 4242)
    if with_job <= before:
        failures.append("the leak check does not see a job's allocation (%d, then %d objects)"
                        % (before, with_job))
    settle_memory()
    baseline = {"sunreclaim_kb": meminfo_kb("SUnreclaim"), "mltcp_objects": mltcp_slab_objects()}
    dmesg_start = len(dmesg_lines())
    stats = dict(rounds=0, job_changes=0, dumps=0, blackouts=0, rtos=0, namespaces=0,
                 churned_flows=0, reloads=0, refused_unloads=0, stalls=0, longest_round_s=0.0,
                 slowest_action_s=0.0, slowest_action="")
    deadline = time.monotonic() + args.minutes * 60
    while time.monotonic() < deadline:
        index = stats["rounds"]
        rnd = Round(index, rng, log)
        started = time.monotonic()
        try:
            rnd.build()
            rnd.start_traffic()
            log("round %d: loss %d%%" % (index, rnd.loss))
            end = started + min(ROUND_S, max(deadline - started, 10))
            blackout_at = started + rng.uniform(10, 40)
            churn_at = started + rng.uniform(5, 50)
            reload_at = started + rng.uniform(20, 45) if index % 3 == 2 else None
            log("  built in %.1f s" % (time.monotonic() - started))
            while time.monotonic() < end:
                now = time.monotonic()
                if blackout_at and now >= blackout_at:
                    action = "blackout"
                    rnd.blackout(stats)
                    blackout_at = None
                elif churn_at and now >= churn_at:
                    action = "namespace churn"
                    churn_namespace(index, stats)
                    churn_at = None
                elif reload_at and now >= reload_at:
                    action = "reload"
                    reload_module(rnd, args.ko, stats, log)
                    reload_at = None
                else:
                    action = "change or dump"
                    rnd.poke(stats)
                took = time.monotonic() - now
                if took > stats["slowest_action_s"]:
                    stats["slowest_action_s"] = round(took, 1)
                    stats["slowest_action"] = action
                time.sleep(rng.uniform(0.2, 1))
            stats["rtos"] += rnd.rtos()
        except (AssertionError, RuntimeError, subprocess.SubprocessError) as e:
            failures.append("round %d: %s" % (index, e))
            log("  FAILED: %s" % e)
        finally:
            rnd.close()
        took = time.monotonic() - started
        stats["longest_round_s"] = max(stats["longest_round_s"], round(took, 1))
        if took > ROUND_S + STALL_S:
            stats["stalls"] += 1
            failures.append("round %d took %.0f s" % (index, took))
        stats["rounds"] += 1
        if failures and len(failures) >= 3:
            break

    for ns in sh("ip", "netns", "list").stdout.split():
        if ns.startswith("sk"):
            sh("ip", "netns", "del", ns, check=False)
    time.sleep(2)
    settle_memory()
    end = {"sunreclaim_kb": meminfo_kb("SUnreclaim"), "mltcp_objects": mltcp_slab_objects()}
    bad = [line for line in dmesg_lines()[dmesg_start:] if BAD_DMESG.search(line)]
    if bad:
        failures.append("kernel messages: %d, first: %s" % (len(bad), bad[0]))
    left = leaked(baseline["mltcp_objects"], end["mltcp_objects"])
    if left:
        failures.append("slab objects allocated by tcp_mltcp left: %s" % left)
    grown = end["sunreclaim_kb"] - baseline["sunreclaim_kb"]
    if grown > SUNRECLAIM_SLACK_KB:
        failures.append("unreclaimable slab grew by %d kB" % grown)
    if not slab_traced:
        failures.append("no slab allocation traces (boot with slub_debug=U): leaks not checked")
    return {"format": FORMAT, "minutes": args.minutes, "seed": args.seed,
            "kernel": os.uname().release, "cmdline": open("/proc/cmdline").read().strip(),
            "stats": stats, "baseline": baseline, "end": end, "sunreclaim_grown_kb": grown,
            "leaked": left,
            "bad_dmesg": bad[:20], "failures": failures, "passed": not failures}


def report_md(result):
    s = result["stats"]
    lines = ["# Fault soak: %s" % ("passed" if result["passed"] else "FAILED"), "",
             "%.1f minutes, seed %d, kernel %s (`%s`)." % (result["minutes"], result["seed"],
                                                         result["kernel"], result["cmdline"]),
             "", "| what | count |", "|---|---|"]
    lines += ["| %s | %s |" % (k.replace("_", " "), v) for k, v in s.items()]
    lines += ["", "Unreclaimable slab: %d kB before, %d kB after (%+d kB; slack %d kB)." % (
        result["baseline"]["sunreclaim_kb"], result["end"]["sunreclaim_kb"],
        result["sunreclaim_grown_kb"], SUNRECLAIM_SLACK_KB),
        "Slab objects allocated by tcp_mltcp: %d at the start, %d at the end, %d leaked." % (
            sum(result["baseline"]["mltcp_objects"].values()),
            sum(result["end"]["mltcp_objects"].values()), sum(result["leaked"].values())), ""]
    lines += ["Failures:"] + ["- " + f for f in result["failures"]] if result["failures"] else \
        ["No failures: no kernel warning, no leaked object, no stalled round."]
    return "\n".join(lines) + "\n"


def main(args):
    if os.geteuid() != 0 or not os.environ.get("MLTCP_IN_VM"):
        raise SystemExit("soak: runs as root inside the test guest: scripts/soak")

    def log(text):
        print(time.strftime("%H:%M:%S ") + text, flush=True)

    result = soak(args, log)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "soak.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "soak.md"), "w") as f:
        f.write(report_md(result))
    print(report_md(result))
    return 0 if result["passed"] else 1
