# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Progress priority in the BPF twin on this machine's kernel, seen on the
wire: with "prio 4" an iterated sender's data segments carry the DSCPs of
the classes of its progress (class 0's at an iteration's first segment once
the size is known, never lower later in the iteration), with the ECN bits
kept; a cubic flow, a bulk flow (no size) and any flow with prio off carry
DSCP 0; an application's own DSCP is left alone while no class applies;
"flow show" reports the socket's DSCP and class, and whether a move up is
held; the twin's counters (bpf status) count the held moves up. IPv4 and
IPv6.

The sender's send buffer is small (64 KiB), so most of an iteration is sent
after ACKs have moved its progress on: every class shows on data. A tbf of
200 Mbit/s on the sender's veth gives each iteration of 1 MiB about 40 ms.

Needs root. The tool is $MLTCPCTL_TOOL, else build/userspace/mltcpctl/mltcpctl.
Run: tests/bpf/run.sh
"""
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostnet import dual_stack_veth, run
from testbed import topology as topology_mod

TOP = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
CAPTURE = Path(__file__).resolve().parent / "capture.py"
PIN_DIR = Path("/sys/fs/bpf/mltcp")
PREFIX = f"pq{os.getpid()}"
NS_A, NS_B = PREFIX + "a", PREFIX + "b"
DEV_A, DEV_B = PREFIX + "x", PREFIX + "y"
ADDR = {4: ("10.234.0.1", "10.234.0.2"), 6: ("fd00:234::1", "fd00:234::2")}
PORT = 5302
CLASSES = [8, 16, 24, 32]  # the defaults for K = 4: CS1..CS4, class 0 first
AF11 = 10
SIZE = 1 << 20
COUNT = 6
ECT0 = 2
TCP_SYN = 0x02

SINK = """
import socket, sys, threading
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", int(sys.argv[1]))); s.listen(8); print("listening", flush=True)
def drain(c):
    while c.recv(1 << 16):
        pass
    c.close()
while True:
    threading.Thread(target=drain, args=(s.accept()[0],), daemon=True).start()
"""

# One connection: COUNT times send SIZE bytes, wait until all are
# acknowledged (SIOCOUTQ 0), stay idle IDLE_MS. DSCP: the application's own
# (IP_TOS or IPV6_TCLASS) before connecting, -1 for none. SNDBUF: the send
# buffer, 0 for the kernel's autotuning. Prints "sport N", then "done", and
# closes at a line on stdin.
SENDER = """
import fcntl, socket, struct, sys, time
host, port, cc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
size, count, idle_ms, dscp, sndbuf = (int(a) for a in sys.argv[4:9])
family = socket.AF_INET6 if ":" in host else socket.AF_INET
s = socket.socket(family, socket.SOCK_STREAM)
if sndbuf:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
if dscp >= 0:
    if family == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, dscp << 2)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, dscp << 2)
s.connect((host, port))
print("sport", s.getsockname()[1], flush=True)
for _ in range(count):
    s.sendall(b"x" * size)
    while struct.unpack("i", fcntl.ioctl(s, 0x5411, b"\\0" * 4))[0]:  # SIOCOUTQ
        time.sleep(0.001)
    time.sleep(idle_ms / 1000)
print("done", flush=True)
sys.stdin.readline()
s.close()
"""


def tool(*args, check=True):
    return run(TOOL, *args, check=check)


HOLDS = ("prio_held", "prio_released", "prio_reduced")


def holds():
    """The twin's counts of held moves up (host-wide), by their debugfs names."""
    stats = json.loads(tool("-j", "bpf", "status").stdout)["stats"]
    return {k: stats[k] for k in HOLDS}


@contextlib.contextmanager
def topology():
    """Sender A and receiver B on a veth, IPv4 and IPv6, ECN on, a sink in
    B, 200 Mbit/s tbf on A's side; the twin loaded with prio 4."""
    cmds = dual_stack_veth(NS_A, NS_B, DEV_A, DEV_B, ADDR)
    cmds += [["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.tcp_ecn=1"]
             for ns in (NS_A, NS_B)]
    cmds.append(["tc", "-n", NS_A, "qdisc", "add", "dev", DEV_A, "root", "tbf", "rate",
                 "200mbit", "burst", "64kb", "limit", "4mb"])
    sink = None
    tool("bpf", "unload", check=False)
    try:
        for cmd in cmds:
            run(*cmd)
        sink = subprocess.Popen(["ip", "netns", "exec", NS_B, sys.executable, "-c", SINK,
                                 str(PORT)], stdout=subprocess.PIPE, text=True)
        assert sink.stdout.readline().strip() == "listening"
        tool("bpf", "load", "prio", "4")
        yield
    finally:
        tool("bpf", "unload", check=False)
        if sink:
            sink.kill()
            sink.wait()
        for ns in (NS_A, NS_B):
            run("ip", "netns", "del", ns, check=False)


@pytest.fixture(scope="module")
def pair():
    with topology():
        yield


def send(family, cc="mltcp", size=SIZE, count=COUNT, idle_ms=60, dscp=-1, show=False,
         sndbuf=65536):
    """Runs the sender in A while capturing A's device: its data segments in
    the order they left it, as (iteration, dscp, ecn, retransmitted, offset
    in the stream), and, with show, its entry of "mltcpctl -j flow show"
    once the last iteration is over.
    A bulk send (count 1) gets the kernel's send buffer: with a small one
    the pipe can drain while the sender waits for the CPU, and a long
    enough stall is an iteration boundary to the detector."""
    cap = subprocess.Popen(["ip", "netns", "exec", NS_A, "/usr/bin/python3", CAPTURE, DEV_A],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert cap.stdout.readline().strip() == "ready"
    proc = subprocess.Popen(["ip", "netns", "exec", NS_A, sys.executable, "-c", SENDER,
                             ADDR[family][1], str(PORT), cc, str(size), str(count),
                             str(idle_ms), str(dscp), str(0 if count == 1 else sndbuf)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    flow = None
    try:
        sport = int(proc.stdout.readline().split()[1])
        assert proc.stdout.readline().strip() == "done"
        if show:
            flows = json.loads(tool("-n", NS_A, "-j", "flow", "show").stdout)
            flow = [f for f in flows if f["sport"] == sport]
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    finally:
        proc.kill()
        out, _ = cap.communicate("", timeout=60)
    packets = [p for p in json.loads(out) if p["dir"] == "out" and p["sport"] == sport]
    syn = [p for p in packets if p["flags"] & TCP_SYN]
    assert len(syn) == 1, syn
    isn = syn[0]["seq"]
    segments, seen = [], set()
    for p in packets:
        if p["payload"] <= 0:
            continue
        offset = (p["seq"] - isn - 1) % (1 << 32)
        segments.append((offset // size, p["dscp"], p["ecn"], offset in seen, offset))
        seen.add(offset)
    assert sum(1 for s in segments if not s[3]) > 0
    return segments, flow


def by_iteration(segments):
    iters = {}
    for it, dscp, *_ in segments:
        iters.setdefault(it, []).append(dscp)
    return [iters[i] for i in sorted(iters)]


@pytest.mark.parametrize("family", [4, 6])
def test_data_carry_the_class_of_their_progress(pair, family):
    segments, flow = send(family, show=True)
    iters = by_iteration(segments)
    assert len(iters) == COUNT, [len(i) for i in iters]
    assert {d for i in iters for d in i} <= set(CLASSES) | {0}, iters
    # Learning: no class (the socket's DSCP 0) until the size is known;
    # from then on every iteration has its classes.
    known = [n for n, dscps in enumerate(iters) if set(dscps) & set(CLASSES)]
    assert known and known == list(range(known[0], COUNT)), iters
    assert all(set(dscps) == {0} for dscps in iters[:known[0]]), iters
    for n in known:
        dscps = iters[n]
        assert dscps[0] == CLASSES[0], (n, dscps[:10])
        assert 0 not in dscps, (n, dscps)
        assert dscps == sorted(dscps), (n, dscps)
    # Every class reaches the wire (the send buffer keeps most of an
    # iteration unsent until progress has moved on).
    assert {d for n in known for d in iters[n]} == set(CLASSES), iters
    # The kernel's ECT(0) on new data is kept under the class's DSCP.
    assert all(ecn == ECT0 for _, _, ecn, retx, _ in segments if not retx), segments
    # At the end of an iteration everything is acknowledged: r = 1, the top class,
    # and no move up is waiting.
    assert len(flow) == 1 and flow[0]["dscp"] == CLASSES[3] and flow[0]["class"] == 3, flow
    assert flow[0]["prio_held"] is False, flow


@pytest.mark.parametrize("family", [4, 6])
def test_no_class_for_cubic_bulk_or_prio_off(pair, family):
    segments, _ = send(family, cc="cubic")
    assert {s[1] for s in segments} == {0}
    # One 4 MiB send: the size of an iteration is never known.
    segments, flow = send(family, size=4 << 20, count=1, show=True)
    assert {s[1] for s in segments} == {0}
    assert flow[0]["dscp"] == 0 and flow[0]["class"] is None, flow
    tool("defaults", "set", "global", "prio", "0")
    try:
        segments, _ = send(family)
    finally:
        tool("defaults", "set", "global", "prio", "4")
    assert {s[1] for s in segments} == {0}


@pytest.mark.parametrize("family", [4, 6])
def test_an_applications_dscp_is_left_while_no_class_applies(pair, family):
    segments, flow = send(family, size=4 << 20, count=1, dscp=AF11, show=True)
    assert {s[1] for s in segments} == {AF11}
    assert flow[0]["dscp"] == AF11 and flow[0]["class"] is None, flow
    # Iterated: its own DSCP while learning, then the classes'.
    iters = by_iteration(send(family, dscp=AF11)[0])
    assert set(iters[0]) == {AF11}, iters[0]
    assert iters[-1][0] == CLASSES[0] and set(iters[-1]) <= set(CLASSES), iters[-1]


def test_a_move_up_waits_for_the_data_in_flight(pair):
    """On a bottleneck that serves the classes in strict priority (the
    emulated switch: testbed's shaper "prio"), segments sent after a move up
    would overtake the flow's own still queued in the class below, and the
    receiver's SACKs would have them retransmitted. A move up with data in
    flight waits, the window held, until that data is acknowledged
    (mltcp_prio_move()): new data leave in the order of the stream, and
    every class still reaches the wire. IPv4: the emulated switch's filters
    match IPv4. The twin counts each hold begun, and each ended: every
    iteration is acknowledged whole before the next and before the close,
    so none is left on."""
    shaping = topology_mod.Shaping(rate_mbit=200, limit_bytes=4 << 20, shaper="prio",
                                   prio_dscp=tuple(CLASSES))
    run("tc", "-n", NS_A, "qdisc", "del", "dev", DEV_A, "root")
    try:
        for cmd in shaping.qdisc_commands(DEV_A):
            run("tc", "-n", NS_A, *cmd)
        before = holds()
        segments, _ = send(4)
        d = {k: v - before[k] for k, v in holds().items()}
    finally:
        run("tc", "-n", NS_A, "qdisc", "del", "dev", DEV_A, "root", check=False)
        run("tc", "-n", NS_A, "qdisc", "add", "dev", DEV_A, "root", "tbf", "rate", "200mbit",
            "burst", "64kb", "limit", "4mb")
    iters = by_iteration(segments)
    assert {d for dscps in iters for d in dscps} == set(CLASSES) | {0}, iters
    new_data = [(offset, dscp) for _, dscp, _, retx, offset in segments if not retx]
    overtaken = [(before, after) for before, after in zip(new_data, new_data[1:])
                 if after[0] < before[0]]
    assert not overtaken, overtaken[:5]
    # With a send buffer of 64 KiB in flight at each threshold, moves up wait.
    assert d["prio_held"] >= 1, d
    assert d["prio_held"] == d["prio_released"] + d["prio_reduced"], d


def test_defaults_prio_round_trips_and_refusals_change_nothing(pair):
    def prio():
        return json.loads(tool("-j", "defaults", "show").stdout)["prio"]

    assert prio() == {"classes": 4, "dscp": CLASSES, "none_dscp": 0}
    try:
        tool("defaults", "set", "global", "prio", "2", "prio-dscp", "cs3,af41", "prio-none", "4")
        assert prio() == {"classes": 2, "dscp": [24, 34], "none_dscp": 4}
        words = tool("defaults", "show").stdout.split()
        assert words[-6:] == ["prio", "2", "prio-dscp", "24,34", "prio-none", "4"], words
        before = prio()
        for args, code, message in [
            (["prio", "8"], 2, "prio 8: out of range (allowed 0 to 7)"),
            (["prio-dscp", "8,16,24"], 1, "prio-dscp: 3 values for 2 classes"),
            (["prio-dscp", "8,8"], 1, "each class needs a DSCP of its own"),
            (["prio-none", "24"], 1, "each class needs a DSCP of its own"),
            (["prio-dscp", "8,64"], 2, "prio-dscp 64: out of range (allowed 0 to 63)"),
            (["slope", "2", "prio-dscp", "8"], 1, "prio-dscp: 1 value for 2 classes"),
        ]:
            r = tool("defaults", "set", "global", *args, check=False)
            assert r.returncode == code and r.stdout == "", (args, r)
            assert r.stderr.count("\n") == 1 and message in r.stderr, (args, r.stderr)
            assert prio() == before
        # Nothing written: not the slope either.
        assert json.loads(tool("-j", "defaults", "show").stdout)["slope"] == 1.6
        tool("defaults", "set", "global", *words)
        assert tool("defaults", "show").stdout.split() == words
    finally:
        tool("defaults", "set", "global", "prio", "4", "prio-dscp", "8,16,24,32", "prio-none",
             "0")
    assert prio() == {"classes": 4, "dscp": CLASSES, "none_dscp": 0}
