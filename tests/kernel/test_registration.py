# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The three algorithms are registered and reachable every way users choose a CC."""
import socket
import time

import pytest

from testbed.topology import Netns, sh
from conftest import NAMES, py_in

GET_CC = """
import socket
s = socket.socket()
print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\\0").decode())
"""

SET_CC = """
import socket, sys
s = socket.socket()
try:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[1].encode())
except OSError as e:
    print("error", e.errno)
else:
    print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\\0").decode())
"""


def read(path):
    with open(path) as f:
        return f.read().strip()


def test_names_are_available():
    available = read("/proc/sys/net/ipv4/tcp_available_congestion_control").split()
    for name in NAMES:
        assert name in available


def test_parameters_show_their_defaults():
    params = "/sys/module/tcp_mltcp/parameters/"
    assert read(params + "slope") == "1.600"
    assert read(params + "intercept") == "0.700"
    assert read(params + "idle_gap_us") == "20000"
    assert read(params + "base") == "cubic"
    assert read(params + "mode") == "md-restart"


def test_sysctl_default_applies_to_new_sockets():
    path = "/proc/sys/net/ipv4/tcp_congestion_control"
    before = read(path)
    try:
        sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=mltcp")
        assert py_in(None, GET_CC).stdout.strip() == "mltcp"
    finally:
        sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=" + before)
    assert py_in(None, GET_CC).stdout.strip() == before


def test_sysctl_default_in_a_fresh_namespace():
    # A restricted algorithm would get EPERM here; ours are non-restricted.
    ns = Netns("mtdefault")
    try:
        for name in NAMES:
            ns.run("sysctl", "-w", "net.ipv4.tcp_congestion_control=" + name)
            assert py_in(ns.name, GET_CC).stdout.strip() == name
    finally:
        ns.close()


@pytest.mark.parametrize("name", NAMES)
def test_setsockopt_selects_each_name(name):
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())
    got = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    s.close()
    assert got == name


def test_unprivileged_sockets_may_choose_mltcp():
    sh("modprobe", "tcp_vegas")  # a restricted algorithm, as a control
    nobody = 65534
    for name in NAMES:
        out = py_in(None, SET_CC.replace("sys.argv[1]", repr(name)), user=nobody)
        assert out.stdout.strip() == name
    denied = py_in(None, SET_CC.replace("sys.argv[1]", "'vegas'"), user=nobody)
    assert denied.stdout.strip() == "error 1"  # EPERM: the control is really unprivileged
    allowed = read("/proc/sys/net/ipv4/tcp_allowed_congestion_control").split()
    for name in NAMES:
        assert name in allowed


def connect_pair(client, server, port):
    srv = server.spawn("/usr/bin/python3", "-c", (
        "import socket,time\n"
        "l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
        "l.bind(('0.0.0.0', %d)); l.listen(1); print('up', flush=True)\n"
        "c,_=l.accept(); time.sleep(30)\n" % port))
    assert srv.stdout.readline().strip() == "up"
    return srv


def test_route_congctl_selects_mltcp():
    a, b = Netns("mtroutea"), Netns("mtrouteb")
    try:
        sh("ip", "link", "add", "eth0", "netns", a.name, "type", "veth",
           "peer", "name", "eth0", "netns", b.name)
        for ns, addr in ((a, "10.78.0.1"), (b, "10.78.0.2")):
            ns.run("ip", "addr", "add", addr + "/24", "dev", "eth0")
            ns.run("ip", "link", "set", "eth0", "up")
        a.run("ip", "route", "add", "10.78.0.2/32", "dev", "eth0", "congctl", "mltcp")
        connect_pair(a, b, 7000)
        out = py_in(a.name, (
            "import socket\n"
            "s=socket.create_connection(('10.78.0.2', 7000))\n"
            "print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)"
            ".rstrip(b'\\0').decode())\n")).stdout.strip()
        assert out == "mltcp"
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("name", NAMES)
def test_ss_shows_the_name_on_live_sockets(name):
    ns = Netns("mtss")
    try:
        connect_pair(ns, ns, 7001)
        client = ns.spawn("/usr/bin/python3", "-c", (
            "import socket,time\n"
            "s=socket.socket()\n"
            "s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, %r)\n"
            "s.connect(('127.0.0.1', 7001)); s.sendall(b'x'*100000)\n"
            "print('sent', flush=True); time.sleep(30)\n" % name.encode()))
        assert client.stdout.readline().strip() == "sent"
        deadline = time.time() + 10
        out = ""
        while time.time() < deadline:
            out = ns.run("ss", "-tin", "dport = :7001").stdout
            if name in out.split():
                break
            time.sleep(0.2)
        assert name in out.split(), out
    finally:
        ns.close()
