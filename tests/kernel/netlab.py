# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Network namespaces, a rate-limited bottleneck and the processes on them.

The integration tests run as root inside the test guest. Everything here is
plain iproute2: namespaces joined by veth pairs to a bridge in a "switch"
namespace, a tbf bottleneck on the switch port toward the receiver, and netem
delay on the receiver's egress (the ACK path), as in the measured rig recipe.
"""
import json
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FLOWGEN = os.path.join(HERE, "tools", "flowgen.py")
PYTHON = "/usr/bin/python3"


def sh(*cmd, check=True, **kw):
    """Run a command; on failure raise with its stderr in the message."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), proc.returncode,
                                                    proc.stderr.strip()))
    return proc


class Netns:
    def __init__(self, name):
        self.name = name
        self.procs = []
        sh("ip", "netns", "add", name)
        self.run("ip", "link", "set", "lo", "up")

    def run(self, *cmd, check=True, **kw):
        return sh("ip", "netns", "exec", self.name, *cmd, check=check, **kw)

    def spawn(self, *cmd, **kw):
        proc = subprocess.Popen(("ip", "netns", "exec", self.name) + cmd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, **kw)
        self.procs.append(proc)
        return proc

    def close(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        sh("ip", "netns", "del", self.name, check=False)


class Dumbbell:
    """k senders and one receiver joined by a bridge; the bottleneck is the
    switch port toward the receiver.

    rate_mbit and delay_ms set the bottleneck; buffer_bdp sizes the tbf queue
    in bandwidth-delay products of the base RTT (the netem delay).
    """

    def __init__(self, senders=1, rate_mbit=100, delay_ms=5, buffer_bdp=1.5):
        tag = "mt%d" % (os.getpid() % 100000)
        self.rate_mbit = rate_mbit
        self.delay_ms = delay_ms
        self.switch = Netns(tag + "sw")
        self.senders = [Netns("%ss%d" % (tag, i + 1)) for i in range(senders)]
        self.receiver = Netns(tag + "r")
        self.switch.run("ip", "link", "add", "br0", "type", "bridge")
        self.switch.run("ip", "link", "set", "br0", "up")
        hosts = self.senders + [self.receiver]
        for i, host in enumerate(hosts):
            port = "p%d" % i
            sh("ip", "link", "add", "eth0", "netns", host.name, "type", "veth",
               "peer", "name", port, "netns", self.switch.name)
            self.switch.run("ip", "link", "set", port, "master", "br0")
            self.switch.run("ip", "link", "set", port, "up")
            host.addr = "10.77.0.%d" % (i + 1)
            host.run("ip", "addr", "add", host.addr + "/24", "dev", "eth0")
            host.run("ip", "link", "set", "eth0", "up")
        bottleneck = "p%d" % len(self.senders)
        bdp = rate_mbit * 1e6 / 8 * delay_ms / 1e3
        limit = max(int(buffer_bdp * bdp), 3 * 1514)
        self.switch.run("tc", "qdisc", "add", "dev", bottleneck, "root", "tbf",
                        "rate", "%dmbit" % rate_mbit, "burst", "64kb",
                        "limit", str(limit))
        self.receiver.run("tc", "qdisc", "add", "dev", "eth0", "root", "netem",
                          "delay", "%dms" % delay_ms, "limit", "10000")
        self.bottleneck = bottleneck

    @property
    def nodes(self):
        return self.senders + [self.receiver, self.switch]

    def bottleneck_stats(self):
        out = self.switch.run("tc", "-j", "-s", "qdisc", "show", "dev",
                              self.bottleneck).stdout
        return json.loads(out)[0]

    def close(self):
        for node in self.nodes:
            node.close()


def start_server(host, port, *extra):
    proc = host.spawn(PYTHON, FLOWGEN, "server", "--port", str(port), *extra)
    line = proc.stdout.readline()
    if line.strip() != "listening":
        raise RuntimeError("flowgen server failed: " + proc.stderr.read())
    return proc


def onoff(host, dst, port, cc, nbytes, idle_ms, iterations, timeout=300, trace=False):
    out = host.run(PYTHON, FLOWGEN, "onoff", "--dst", dst, "--port", str(port),
                   "--cc", cc, "--bytes", str(nbytes), "--idle-ms", str(idle_ms),
                   "--iterations", str(iterations), *(["--trace"] if trace else []),
                   timeout=timeout).stdout
    return json.loads(out)


def iperf3(client, server, cc, seconds, port=5201, omit=1):
    """Goodput of one bulk flow in bit/s, as iperf3 reports at the receiver."""
    srv = server.spawn("iperf3", "-s", "-1", "-p", str(port))
    deadline = time.time() + 10
    while time.time() < deadline:
        if server.run("ss", "-ltn", "sport = :%d" % port).stdout.count("\n") > 1:
            break
        time.sleep(0.1)
    out = client.run("iperf3", "-c", server.addr, "-p", str(port), "-t", str(seconds),
                     "-O", str(omit), "-C", cc, "-J", timeout=seconds + 60).stdout
    srv.wait(timeout=30)
    report = json.loads(out)
    return {
        "cc": report["end"]["sender_tcp_congestion"],
        "bps": report["end"]["sum_received"]["bits_per_second"],
        "retransmits": report["end"]["sum_sent"].get("retransmits", 0),
    }


def write_file(path, value):
    """One write(2) of value, as sysctl and sysfs handlers expect; raises
    OSError with the handler's errno."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def read_module_stats():
    with open("/sys/kernel/debug/tcp_mltcp/stats") as f:
        return {k: int(v) for k, v in (line.split() for line in f)}
