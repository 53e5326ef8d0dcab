# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The network the experiment and the in-guest tests run on: a dumbbell of
named network namespaces, built with iproute2.

    left hosts --eth0-- [ bridge "left" ] ==bottleneck== [ bridge "right" ] --eth0-- right hosts
                        \\______________ switch namespace ______________/

Every host is a named namespace with one interface, eth0, whose peer is a
port of a bridge; both bridges live in one switch namespace and are joined
by a veth pair, the bottleneck. Each end of the bottleneck is shaped on
egress, so each direction has its own queue: the end named `to-right` carries
left-to-right traffic, `to-left` the other direction. A direction is shaped
with netem (delay) as root and tbf (rate, queue limit) beneath it, or with
either alone.

Why named namespaces and not Mininet's API (which built the driver's
topology before): the tools address a namespace by name (`ip netns exec`,
`tc -n`, `mltcpctl -n`) and Mininet's hosts have none; Mininet puts its
switches in the root namespace under fixed names (s1, s1-eth1), which
collide between two runs on a shared host and outlive a crashed run; and it
took 15-20 s to start under emulation. Here nothing is created outside the
namespaces, every name carries a per-process prefix, and closing deletes
everything. tests/kernel/test_mininet.py still checks that MLTCP works
under Mininet itself.

Runs as root, in the test guest or on the host (the host has no netem: a
direction with no delay has no netem qdisc).
"""
import dataclasses
import json
import os
import subprocess
import time


def sh(*cmd, check=True, **kw):
    """Run a command; on failure raise with its stderr in the message."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), proc.returncode,
                                                    proc.stderr.strip()))
    return proc


def ip_batch(netns, commands):
    """Run `ip` commands (argument lists, without "ip") in one process, in
    netns (None: the caller's). One process instead of one per command
    matters under emulation, where starting a process takes a good part of
    a second."""
    sh("ip", *(["-n", netns] if netns else []), "-batch", "-",
       input="".join(" ".join(cmd) + "\n" for cmd in commands))


class Netns:
    """A named network namespace and the processes started in it."""

    def __init__(self, name):
        self.name = name
        self.addr = None
        self.procs = []
        self._anchor = None
        sh("ip", "netns", "add", name)
        sh("ip", "-n", name, "link", "set", "lo", "up")

    def run(self, *cmd, check=True, **kw):
        return sh("ip", "netns", "exec", self.name, *cmd, check=check, **kw)

    def spawn(self, *cmd, cgroup=None, **kw):
        """Start a process in the namespace; close() kills it. Output is
        piped as text unless the caller says otherwise. cgroup: a cgroup v2
        directory to start it in (joined before `ip netns exec`, whose
        private /sys has no cgroup mount)."""
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("stderr", subprocess.PIPE)
        kw.setdefault("text", True)
        argv = ("ip", "netns", "exec", self.name) + tuple(cmd)
        if cgroup:
            argv = ("sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup) + argv
        proc = subprocess.Popen(argv, **kw)
        self.procs.append(proc)
        return proc

    def proc_net(self, name):
        """Path of the namespace's /proc/net/<name>, readable from outside it.

        /proc/PID/net shows the network namespace of process PID, so a
        process parked in the namespace lets the caller read its counters
        with a plain open(), without starting a process per read."""
        if self._anchor is None:
            anchor = self.spawn("sleep", "infinity", stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
            # `ip netns exec` enters the namespace and execs in the same
            # process: until it has, /proc/PID/net is the caller's.
            ns = os.stat("/run/netns/" + self.name)
            deadline = time.monotonic() + 10
            while os.stat("/proc/%d/ns/net" % anchor.pid).st_ino != ns.st_ino:
                if anchor.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("could not start a process in " + self.name)
                time.sleep(0.001)
            self._anchor = anchor
        return "/proc/%d/net/%s" % (self._anchor.pid, name)

    def netstat(self):
        """The namespace's TcpExt/IpExt/... counters, e.g. "TcpExtTCPTimeouts"."""
        with open(self.proc_net("netstat")) as f:
            lines = f.read().splitlines()
        counters = {}
        for head, values in zip(lines[0::2], lines[1::2]):
            prefix = head.split(":")[0]
            counters.update({prefix + key: int(value)
                             for key, value in zip(head.split()[1:], values.split()[1:])})
        return counters

    def close(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        sh("ip", "netns", "del", self.name, check=False)


# The DSCP the hosts give their pure ACKs with ack_priority "dscp" (EF).
ACK_DSCP = 46
ACK_PRIORITIES = (False, True, "size", "dscp")  # the classifier: see Shaping


@dataclasses.dataclass(frozen=True)
class Shaping:
    """How one direction of the bottleneck is shaped.

    rate_mbit: tbf rate (None: no rate limit); limit_bytes: tbf queue limit;
    burst_bytes: tbf bucket; delay_ms: one-way netem delay (0: no netem).

    shaper "htb" shapes with htb instead (issue 14's reverse-path test): a
    class at the rate with two leaves, a byte FIFO of limit_bytes each, data
    in one; with ack_priority, pure ACKs in the other, guaranteed the whole
    rate and so served first, as a switch with a strict-priority class for
    ACKs serves them. Which packets are ACKs: with ack_priority True (or
    "size"), TCP over IPv4 in packets under 128 bytes (no data segment of
    the experiment is that short but a burst's tail); with "dscp", those
    whose DSCP is ACK_DSCP, which the hosts' own marker sets on their pure
    ACKs (mltcpctl ackmark: the deployment a fabric would see). Both match
    IPv4 only, as the experiment's hosts speak. Without
    ack_priority it is the control: one FIFO, as tbf."""
    rate_mbit: int = None
    limit_bytes: int = None
    burst_bytes: int = 32 * 1024
    delay_ms: float = 0
    shaper: str = "tbf"
    ack_priority: object = False  # False, True or "size", "dscp"

    def qdisc_commands(self, dev):
        """tc commands (without "tc") that shape egress of dev."""
        # The delay line holds a BDP of packets, not the bottleneck queue:
        # make it long enough never to drop.
        netem = ["netem", "delay", "%.3fms" % self.delay_ms, "limit", "100000"]
        tbf = ["tbf", "rate", "%dmbit" % self.rate_mbit, "burst", str(self.burst_bytes),
               "limit", str(self.limit_bytes)] if self.rate_mbit else None
        add = ["qdisc", "add", "dev", dev]
        if self.shaper == "htb" and self.rate_mbit:
            if self.delay_ms:
                return [add + ["root", "handle", "1:"] + netem] + self._htb(dev, "1:", "2")
            return self._htb(dev, "root", "1")
        if self.delay_ms and tbf:
            return [add + ["root", "handle", "1:"] + netem,
                    add + ["parent", "1:", "handle", "2:"] + tbf]
        if tbf:
            return [add + ["root", "handle", "1:"] + tbf]
        if self.delay_ms:
            return [add + ["root", "handle", "1:"] + netem]
        return []


    def _htb(self, dev, parent, major):
        rate = "%dmbit" % self.rate_mbit
        burst = ["burst", str(self.burst_bytes), "cburst", str(self.burst_bytes)]
        fifo = ["bfifo", "limit", str(self.limit_bytes)]
        add = ["qdisc", "add", "dev", dev]
        klass = ["class", "add", "dev", dev]
        cmds = [add + ([parent] if parent == "root" else ["parent", parent]) +
                ["handle", major + ":", "htb", "default", "20"],
                klass + ["parent", major + ":", "classid", major + ":1", "htb", "rate", rate,
                         "ceil", rate] + burst,
                # Data: a token rate, the rest borrowed; ACKs: the whole rate,
                # so never borrowing and always served first.
                klass + ["parent", major + ":1", "classid", major + ":20", "htb", "rate",
                         "1mbit", "ceil", rate, "prio", "1"] + burst,
                add + ["parent", major + ":20", "handle", "20" + major + ":"] + fifo]
        if self.ack_priority:
            if self.ack_priority == "dscp":
                # The DSCP in the upper six bits of the TOS byte.
                match = ["match", "ip", "dsfield", "0x%02x" % (ACK_DSCP << 2), "0xfc"]
            else:
                match = ["match", "ip", "protocol", "6", "0xff",
                         "match", "u16", "0x0000", "0xff80", "at", "2"]
            cmds += [klass + ["parent", major + ":1", "classid", major + ":10", "htb", "rate",
                              rate, "ceil", rate, "prio", "0"] + burst,
                     add + ["parent", major + ":10", "handle", "10" + major + ":"] + fifo,
                     ["filter", "add", "dev", dev, "parent", major + ":", "protocol", "ip",
                      "prio", "1", "u32"] + match + ["flowid", major + ":10"]]
        return cmds


def queue_limit(rate_mbit, rtt_ms, buffer_bdp):
    """A tbf queue of buffer_bdp bandwidth-delay products, at least 4 frames."""
    bdp = rate_mbit * 1e6 / 8 * rtt_ms / 1e3
    return max(int(buffer_bdp * bdp), 4 * 1514)


# Bottleneck ends, named after the direction their egress carries.
TO_RIGHT, TO_LEFT = "to-right", "to-left"


class Dumbbell:
    """Hosts `left` and `right` (names, unique, at most 12 characters) on
    either side of a bottleneck shaped by `forward` (left to right) and
    `reverse` (right to left).

    Host i (left ones first) gets 10.0.0.<i+1>/24 on eth0, as `.addr`.
    `host_sysctls` (name -> value) are set in every host namespace.
    """

    def __init__(self, left, right, forward=Shaping(), reverse=Shaping(), prefix=None,
                 host_sysctls=None):
        self.prefix = prefix or "mb%d" % (os.getpid() % 100000)
        self.forward, self.reverse = forward, reverse
        self.switch = None
        self.hosts = {}
        self._ports = {}  # host namespace name -> its switch port
        try:
            self._build(left, right, host_sysctls or {})
        except BaseException:
            self.close()
            raise
        self.left = [self.hosts[name] for name in left]
        self.right = [self.hosts[name] for name in right]

    def _build(self, left, right, host_sysctls):
        self.switch = sw = Netns(self.prefix + "-sw")
        bridge_of = dict([(name, "left") for name in left] + [(name, "right") for name in right])
        port_of = {name: "p-" + name for name in bridge_of}
        for name in bridge_of:
            host = self.hosts[name] = Netns("%s-%s" % (self.prefix, name))
            self._ports[host.name] = port_of[name]
        # Each host's link is created inside its two namespaces at once: no
        # name ever exists in the caller's namespace, where it could collide.
        ip_batch(None, [["link", "add", "eth0", "netns", self.hosts[name].name, "type", "veth",
                         "peer", "name", port_of[name], "netns", sw.name] for name in bridge_of])
        switch = [["link", "add", bridge, "type", "bridge"] for bridge in ("left", "right")]
        switch.append(["link", "add", TO_RIGHT, "type", "veth", "peer", "name", TO_LEFT])
        switch += [["link", "set", port, "master", bridge] for port, bridge in
                   [(TO_RIGHT, "left"), (TO_LEFT, "right")] +
                   [(port_of[name], bridge) for name, bridge in bridge_of.items()]]
        switch += [["link", "set", dev, "up"]
                   for dev in ["left", "right", TO_RIGHT, TO_LEFT] + list(port_of.values())]
        ip_batch(sw.name, switch)
        for i, name in enumerate(bridge_of):
            host = self.hosts[name]
            host.addr = "10.0.0.%d" % (i + 1)
            ip_batch(host.name, [["addr", "add", host.addr + "/24", "dev", "eth0"],
                                 ["link", "set", "eth0", "up"]])
            if host_sysctls:
                host.run("sysctl", "-q", "-w",
                         *["%s=%s" % (key, value) for key, value in host_sysctls.items()])
        for dev, shaping in ((TO_RIGHT, self.forward), (TO_LEFT, self.reverse)):
            for cmd in shaping.qdisc_commands(dev):
                sh("tc", "-n", sw.name, *cmd)

    def port(self, host):
        """The switch's interface toward a host (a Netns of this dumbbell)."""
        return self._ports[host.name]

    @property
    def nodes(self):
        return list(self.hosts.values()) + ([self.switch] if self.switch else [])

    def qdisc_stats(self):
        """Per bottleneck end, per qdisc kind: bytes, packets, drops, overlimits."""
        stats = {}
        for dev in (TO_RIGHT, TO_LEFT):
            out = sh("tc", "-n", self.switch.name, "-s", "-j", "qdisc", "show", "dev", dev).stdout
            # Per kind, summed; htb counts its leaves' (bfifo) drops itself.
            qdiscs = json.loads(out)
            if any(q["kind"] == "htb" for q in qdiscs):
                qdiscs = [q for q in qdiscs if q["kind"] != "bfifo"]
            kinds = {}
            for q in qdiscs:
                into = kinds.setdefault(q["kind"], {})
                for k in ("bytes", "packets", "drops", "overlimits"):
                    if q.get(k) is not None:
                        into[k] = into.get(k, 0) + q[k]
                    else:
                        into.setdefault(k, None)
            stats[dev] = kinds
        return stats

    def set_loss(self, end, percent):
        """Drop percent of the packets leaving a bottleneck end (its netem;
        the direction must have a delay)."""
        shaping = self.forward if end == TO_RIGHT else self.reverse
        assert shaping.delay_ms, "no netem on %s" % end
        sh("tc", "-n", self.switch.name, "qdisc", "change", "dev", end, "root", "handle", "1:",
           "netem", "delay", "%.3fms" % shaping.delay_ms, "loss", "%g%%" % percent)

    def port_counters(self, hosts):
        """A reader of the bytes each host (a Netns of this dumbbell) sent
        into the switch: calling it returns [received bytes of port(host) for
        host in hosts], from one read of the switch's /proc/net/dev."""
        return PortCounters(self.switch.proc_net("dev"), [self.port(h) for h in hosts])

    def close(self):
        for node in self.nodes:
            node.close()
        self.hosts = {}
        self.switch = None


class PortCounters:
    """Received bytes of some interfaces, read from a /proc/net/dev file kept open."""

    def __init__(self, path, interfaces):
        self.interfaces = interfaces
        self.file = open(path, "rb")

    def __call__(self):
        self.file.seek(0)
        rx = {}
        for line in self.file.read().splitlines()[2:]:
            name, fields = line.split(b":", 1)
            rx[name.strip().decode()] = int(fields.split()[0])
        return [rx[name] for name in self.interfaces]

    def close(self):
        self.file.close()
