# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The host tests' network: two namespaces joined by a veth, with on-off sinks
(tests/datapath/onoff.py) listening in the receiver. Shared by
test_bpf_host.py and test_mltcpctl_bpf.py; the datapath suite builds its own
with testbed/topology.py."""
import contextlib
import subprocess
from pathlib import Path

ONOFF = Path(__file__).resolve().parents[2] / "tests/datapath/onoff.py"


def run(*args, check=True):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, check=check,
                          timeout=60)


def ns_popen(name, *args):
    return subprocess.Popen(["ip", "netns", "exec", name, *[str(a) for a in args]],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def dual_stack_veth(ns_a, ns_b, dev_a, dev_b, addr):
    """The commands that join namespaces ns_a and ns_b by a veth (dev_a,
    dev_b), each end given addr[4][i]/24 and addr[6][i]/64 (no DAD), up,
    loopback up: the wire tests' network, IPv4 and IPv6."""
    cmds = [["ip", "netns", "add", ns_a], ["ip", "netns", "add", ns_b],
            ["ip", "link", "add", dev_a, "netns", ns_a, "type", "veth", "peer", "name", dev_b,
             "netns", ns_b]]
    for ns, dev, i in ((ns_a, dev_a, 0), (ns_b, dev_b, 1)):
        cmds += [["ip", "-n", ns, "addr", "add", addr[4][i] + "/24", "dev", dev],
                 ["ip", "-n", ns, "addr", "add", addr[6][i] + "/64", "dev", dev, "nodad"],
                 ["ip", "-n", ns, "link", "set", dev, "up"],
                 ["ip", "-n", ns, "link", "set", "lo", "up"]]
    return cmds


@contextlib.contextmanager
def veth_pair(prefix, send, recv, sink_ports, tbf_mbit=None):
    """Namespaces send=(name, ip) and recv=(name, ip) on a /24 veth, loopback
    up, a tbf of tbf_mbit on the sender's side if given, and a sink on each
    of sink_ports; everything removed on exit."""
    (ns_a, ip_a), (ns_b, ip_b) = send, recv
    veth_a, veth_b = prefix + "x", prefix + "y"
    cmds = [
        ["ip", "netns", "add", ns_a],
        ["ip", "netns", "add", ns_b],
        ["ip", "link", "add", veth_a, "netns", ns_a, "type", "veth", "peer", "name", veth_b,
         "netns", ns_b],
    ]
    for ns, dev, ip in ((ns_a, veth_a, ip_a), (ns_b, veth_b, ip_b)):
        cmds += [["ip", "-n", ns, "addr", "add", ip + "/24", "dev", dev],
                 ["ip", "-n", ns, "link", "set", dev, "up"],
                 ["ip", "-n", ns, "link", "set", "lo", "up"]]
    if tbf_mbit:
        cmds.append(["tc", "-n", ns_a, "qdisc", "add", "dev", veth_a, "root", "tbf", "rate",
                     f"{tbf_mbit}mbit", "burst", "256kb", "limit", "2mb"])
    sinks = []
    try:
        for cmd in cmds:
            run(*cmd)
        for port in sink_ports:
            sink = ns_popen(ns_b, "/usr/bin/python3", ONOFF, "sink", port)
            sinks.append(sink)
            assert sink.stdout.readline().strip() == "listening", sink.stderr.read()
        yield
    finally:
        for sink in sinks:
            sink.kill()
            sink.wait()
        for name in (ns_a, ns_b):
            run("ip", "netns", "del", name, check=False)
