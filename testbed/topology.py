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
either alone; or with htb, or the emulated switch of progress priority
(Shaping's shaper "prio"). Random loss without netem: Dumbbell's loss_pct.

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
import re
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

    def enter_argv(self, host_mounts=False):
        """The command prefix that runs a program in the namespace: `ip netns
        exec`, which also gives it a private sysfs of the namespace's
        devices; or with host_mounts, nsenter into the network namespace
        alone, the caller's mounts kept: the private sysfs hides the BPF
        twin's pins (/sys/fs/bpf) and the cgroup2 mount, which a process
        that marks its job's steps on the BPF backend needs."""
        if host_mounts:
            return ("nsenter", "--net=/run/netns/" + self.name, "--")
        return ("ip", "netns", "exec", self.name)

    def spawn(self, *cmd, cgroup=None, host_mounts=False, **kw):
        """Start a process in the namespace; close() kills it. Output is
        piped as text unless the caller says otherwise. cgroup: a cgroup v2
        directory to start it in (joined before `ip netns exec`, whose
        private /sys has no cgroup mount). host_mounts: see enter_argv()."""
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("stderr", subprocess.PIPE)
        kw.setdefault("text", True)
        argv = self.enter_argv(host_mounts) + tuple(cmd)
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


def cgroup2_mount():
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or
    /sys/fs/cgroup/unified on a hybrid host); RuntimeError if it is not."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            if right.split()[0] == "cgroup2":
                return left.split()[4]
    raise RuntimeError("no cgroup2 mount on this machine")


# The DSCP the hosts give their pure ACKs with ack_priority "dscp" (EF).
ACK_DSCP = 46
ACK_PRIORITIES = (False, True, "size", "dscp")  # the classifier: see Shaping
SHAPERS = ("tbf", "htb", "prio")
# The emulated switch's training classes (shaper "prio"), class 0 lowest:
# CS1..CS7, the DSCPs progress priority writes by default
# (mltcp_prio_config_default() in kmod/mltcp_core.c). Seven, as many as
# MLTCP_PRIO_CLASSES_MAX, so that a rule of any K from 1 to 7 finds its
# classes in order, whatever its K: the switch is the fabric's, not a rule's.
PRIO_DSCP = (8, 16, 24, 32, 40, 48, 56)
# The share of the rate assured to best effort under shaper "prio" while
# training traffic is backlogged too; either takes the whole rate alone.
BE_SHARE = 0.5


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
    ack_priority it is the control: one FIFO, as tbf.

    shaper "prio" is the emulated switch of progress priority (issue 37,
    docs/research/progress-priority-design.md section 5), built from htb
    alone (prio_tree()): pure ACKs (ACK_DSCP) first; then the training
    classes, prio_dscp[c] for class c (class 0 lowest), each served
    strictly before the classes below it; beside them best effort (any
    other DSCP), which keeps be_share of the rate while both are
    backlogged and takes all of it alone. A byte FIFO of limit_bytes per
    class. The switch is the fabric's: traffic of DSCP 0 (cubic, bulk
    flows, a rule without priority) is best effort in one FIFO, as under
    "htb" without ack_priority. ack_priority True (or "size") also puts
    short TCP packets in the ACK class, as under "htb"; "dscp" adds
    nothing here (the ACK class always takes EF), it tells the driver to
    mark every host's pure ACKs."""
    rate_mbit: int = None
    limit_bytes: int = None
    burst_bytes: int = 32 * 1024
    delay_ms: float = 0
    shaper: str = "tbf"
    ack_priority: object = False  # False, True or "size", "dscp"
    prio_dscp: tuple = PRIO_DSCP
    be_share: float = BE_SHARE

    def qdisc_commands(self, dev):
        """tc commands (without "tc") that shape egress of dev."""
        # The delay line holds a BDP of packets, not the bottleneck queue:
        # make it long enough never to drop.
        netem = ["netem", "delay", "%.3fms" % self.delay_ms, "limit", "100000"]
        tbf = ["tbf", "rate", "%dmbit" % self.rate_mbit, "burst", str(self.burst_bytes),
               "limit", str(self.limit_bytes)] if self.rate_mbit else None
        add = ["qdisc", "add", "dev", dev]
        if self.shaper == "prio" and self.rate_mbit:
            if self.delay_ms:
                return [add + ["root", "handle", "1:"] + netem] + self.prio_tree(dev, "1:", "2")
            return self.prio_tree(dev, "root", "1")
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


    def prio_tree(self, dev, parent, major):
        """shaper "prio" as tc commands. This host's kernel (6.18, built
        without sch_ets and sch_prio) has htb, so the tree is htb's own:
        a class takes its assured rate before any class borrows, and
        classes that borrow are served by their htb prio, lowest first.

          M:1   the rate
            M:10  EF (pure ACKs): assured the whole rate, so it never
                  borrows and goes before everything that does
            M:2   training, assured (1 - be_share) of the rate
              M:21 .. M:2N  class 0 .. N-1: a token rate each (nothing
                  assured), prio N-1 .. 0, so that while they borrow
                  from M:2 the highest class with a packet goes first
            M:30  best effort (the default), assured be_share, prio 7

        Not exact: the token rate lets a training class send one frame
        ahead of its turn every 12 s; and while training and best effort
        both take their assured rates, the ACK class comes on top of them
        (by its ACKs' size, about 2% of the data they acknowledge)."""
        rate = "%dmbit" % self.rate_mbit
        burst = ["burst", str(self.burst_bytes), "cburst", str(self.burst_bytes)]
        quantum = ["quantum", "1514"]
        fifo = ["bfifo", "limit", str(self.limit_bytes)]
        add = ["qdisc", "add", "dev", dev]
        klass = ["class", "add", "dev", dev]
        kbit = self.rate_mbit * 1000

        def leaf(parent_id, minor, rate_spec, prio, leaf_burst=burst):
            return [klass + ["parent", parent_id, "classid", "%s:%s" % (major, minor), "htb",
                             "rate", rate_spec, "ceil", rate, "prio", str(prio)] +
                    leaf_burst + quantum,
                    add + ["parent", "%s:%s" % (major, minor), "handle",
                           "%s%s:" % (minor, major)] + fifo]

        def to(minor, match, prio):
            return ["filter", "add", "dev", dev, "parent", major + ":", "protocol", "ip",
                    "prio", str(prio), "u32"] + match + ["flowid", "%s:%s" % (major, minor)]

        def dsfield(dscp):
            # The DSCP in the upper six bits of the TOS byte, ECN bits ignored.
            return ["match", "ip", "dsfield", "0x%02x" % (dscp << 2), "0xfc"]

        classes = len(self.prio_dscp)
        cmds = [add + ([parent] if parent == "root" else ["parent", parent]) +
                ["handle", major + ":", "htb", "default", "30"],
                klass + ["parent", major + ":", "classid", major + ":1", "htb", "rate", rate,
                         "ceil", rate] + burst + quantum]
        cmds += leaf(major + ":1", "10", rate, 0)
        cmds.append(klass + ["parent", major + ":1", "classid", major + ":2", "htb", "rate",
                             "%dkbit" % round(kbit * (1 - self.be_share)), "ceil", rate] +
                    burst + quantum)
        for c in range(classes):
            cmds += leaf(major + ":2", "2%d" % (c + 1), "1kbit", classes - 1 - c,
                         ["burst", "1514", "cburst", str(self.burst_bytes)])
        cmds += leaf(major + ":1", "30", "%dkbit" % round(kbit * self.be_share), 7)
        cmds.append(to("10", dsfield(ACK_DSCP), 1))
        if self.ack_priority in (True, "size"):
            cmds.append(to("10", ["match", "ip", "protocol", "6", "0xff",
                                  "match", "u16", "0x0000", "0xff80", "at", "2"], 1))
        cmds += [to("2%d" % (c + 1), dsfield(dscp), 2) for c, dscp in enumerate(self.prio_dscp)]
        return cmds

    def check(self):
        """Refuse what tc would take but the tree cannot mean; SystemExit."""
        if self.shaper not in SHAPERS:
            raise SystemExit("shaper %r: %s" % (self.shaper, ", ".join(
                '"%s"' % s for s in SHAPERS)))
        if self.shaper == "prio":
            dscp = list(self.prio_dscp)
            if not 1 <= len(dscp) <= len(PRIO_DSCP) or len(set(dscp)) != len(dscp) or \
                    any(not isinstance(d, int) or isinstance(d, bool) or not 0 < d < 64 or
                        d == ACK_DSCP for d in dscp):
                raise SystemExit("prio_dscp %r: 1 to %d distinct DSCPs, 1..63, not EF (%d)"
                                 % (self.prio_dscp, len(PRIO_DSCP), ACK_DSCP))
            if not (isinstance(self.be_share, (int, float)) and 0 < self.be_share < 1):
                raise SystemExit("be_share %r: a fraction of the rate, above 0 and below 1"
                                 % (self.be_share,))


def queue_limit(rate_mbit, rtt_ms, buffer_bdp):
    """A tbf queue of buffer_bdp bandwidth-delay products, at least 4 frames."""
    bdp = rate_mbit * 1e6 / 8 * rtt_ms / 1e3
    return max(int(buffer_bdp * bdp), 4 * 1514)


# Bottleneck ends, named after the direction their egress carries.
TO_RIGHT, TO_LEFT = "to-right", "to-left"
# The switch namespace's nftables table of Dumbbell.random_loss().
LOSS_TABLE = "mltcp_loss"


class Dumbbell:
    """Hosts `left` and `right` (names, unique, at most 12 characters) on
    either side of a bottleneck shaped by `forward` (left to right) and
    `reverse` (right to left).

    Host i (left ones first) gets 10.0.0.<i+1>/24 on eth0, as `.addr`.
    `host_sysctls` (name -> value) are set in every host namespace.
    `loss_pct`: random loss, that percentage of the frames entering the
    bottleneck either way dropped (random_loss()), with every offload of
    the path off so that a frame is a segment.
    """

    def __init__(self, left, right, forward=Shaping(), reverse=Shaping(), prefix=None,
                 host_sysctls=None, loss_pct=0):
        self.prefix = prefix or "mb%d" % (os.getpid() % 100000)
        self.forward, self.reverse = forward, reverse
        self.switch = None
        self.hosts = {}
        self._ports = {}  # host namespace name -> its switch port
        self.loss_pct = 0
        try:
            self._build(left, right, host_sysctls or {})
            if loss_pct:
                self.offloads_off()
                self.random_loss(loss_pct)
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

    def class_bytes(self):
        """Per bottleneck end, bytes each htb class has sent ({"1:10": n,
        ...}; {} under tbf): under shaper "prio", what each class of the
        emulated switch carried. From tc's text (iproute2 6.1 prints htb's
        class statistics in no JSON)."""
        out = {}
        for dev in (TO_RIGHT, TO_LEFT):
            text = sh("tc", "-n", self.switch.name, "-s", "class", "show", "dev", dev).stdout
            out[dev] = {m.group(1): int(m.group(2)) for m in re.finditer(
                r"^class htb (\S+) .*\n Sent (\d+) bytes", text, re.M)}
        return out

    def set_loss(self, end, percent):
        """Drop percent of the packets leaving a bottleneck end (its netem;
        the direction must have a delay)."""
        shaping = self.forward if end == TO_RIGHT else self.reverse
        assert shaping.delay_ms, "no netem on %s" % end
        sh("tc", "-n", self.switch.name, "qdisc", "change", "dev", end, "root", "handle", "1:",
           "netem", "delay", "%.3fms" % shaping.delay_ms, "loss", "%g%%" % percent)

    def offloads_off(self):
        """Segmentation and receive offloads off on every device of the path
        (hosts' eth0, the switch's ports and the bottleneck ends): a frame
        is then one TCP segment, and a drop loses one, not 45."""
        off = ["tso", "off", "gso", "off", "gro", "off"]
        for host in self.hosts.values():
            host.run("ethtool", "-K", "eth0", *off)
        for dev in list(self._ports.values()) + [TO_RIGHT, TO_LEFT]:
            self.switch.run("ethtool", "-K", dev, *off)

    def random_loss(self, percent):
        """Drop `percent` (0.01 steps, below 100) of the frames the switch
        forwards into the bottleneck, either way, at random: an nftables
        rule on the bridges' forward hook (numgen random; this host's kernel
        has no netem). It goes before the bottleneck's queue, as netem's
        loss goes before tbf; counted by random_drops()."""
        per_10k = round(percent * 100)
        if not 0 < per_10k < 10000:
            raise ValueError("loss %r%%: above 0 and below 100, in steps of 0.01" % percent)
        rules = ("table bridge %s {\n"
                 " chain forward {\n"
                 "  type filter hook forward priority 0; policy accept;\n"
                 '  oifname { "%s", "%s" } numgen random mod 10000 < %d counter drop\n'
                 " }\n"
                 "}\n" % (LOSS_TABLE, TO_RIGHT, TO_LEFT, per_10k))
        self.switch.run("nft", "-f", "-", input=rules)
        self.loss_pct = per_10k / 100

    def random_drops(self):
        """Frames random_loss() has dropped so far (None without it)."""
        if not self.loss_pct:
            return None
        out = self.switch.run("nft", "-j", "list", "table", "bridge", LOSS_TABLE).stdout
        for item in json.loads(out)["nftables"]:
            for expr in item.get("rule", {}).get("expr", []):
                if "counter" in expr:
                    return expr["counter"]["packets"]
        raise RuntimeError("no counter in nft table %s" % LOSS_TABLE)

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
