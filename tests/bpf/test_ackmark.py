# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The pure-ACK marker (bpf/ackmark.bpf.c, "mltcpctl ackmark") on this
machine's kernel: what it marks and what it leaves, over IPv4 and IPv6,
seen on the wire by a packet socket on the peer; the ECN bits and the IPv4
header checksum of a marked packet; a filter after it still sees every
packet; its counters; add, del and show, with the refusals that change
nothing.

Needs root. The tool is $MLTCPCTL_TOOL, else build/userspace/mltcpctl/mltcpctl.
Run: tests/bpf/run.sh
"""
import contextlib
import json
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from hostnet import dual_stack_veth, run

TOP = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
CAPTURE = Path(__file__).resolve().parent / "capture.py"
# The object tc attaches as a second filter: beside the twin's (run.sh).
ACKMARK_OBJECT = Path(os.environ.get("MLTCP_BPF_OBJECT",
                                     TOP / "build/bpf/mltcp.bpf.o")).parent / "ackmark.bpf.o"
PREFIX = f"am{os.getpid()}"
NS_A, NS_B = PREFIX + "a", PREFIX + "b"
DEV_A, DEV_B = PREFIX + "x", PREFIX + "y"
ADDR = {4: ("10.233.0.1", "10.233.0.2"), 6: ("fd00:233::1", "fd00:233::2")}
PORT = 5301
EF = 46
TCP_SYN, TCP_FIN, TCP_RST, TCP_ACK = 0x02, 0x01, 0x04, 0x10

# One connection from A to B: A sends BYTES, then both close. B's side
# only acknowledges, so its segments are the handshake, pure ACKs and FIN.
SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", int(sys.argv[1]))); s.listen(4); print("listening", flush=True)
while True:
    c, _ = s.accept()
    while c.recv(1 << 16):
        pass
    c.close()
"""
CLIENT = """
import socket, sys
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = socket.create_connection((host, port)); c.sendall(b"x" * size)
c.shutdown(socket.SHUT_WR); c.recv(1); c.close()
"""


def ctl(*args, check=True, netns=NS_B):
    return run(TOOL, "-n", netns, *args, check=check)


def refused(*args, code=1):
    """mltcpctl's one-line refusal (exit 1; 2 for a command line it cannot parse)."""
    r = run(TOOL, *args, check=False)
    assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("mltcpctl: "), r.stderr
    return r.stderr


UNPRIVILEGED = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def in_ns_unprivileged(netns, *args):
    return run("ip", "netns", "exec", netns, *UNPRIVILEGED, TOOL, *args, check=False)


def refused_in(netns, *args):
    """An unprivileged mltcpctl's one-line refusal, run inside netns."""
    r = in_ns_unprivileged(netns, *args)
    assert r.returncode == 1 and r.stdout == "" and r.stderr.count("\n") == 1, r
    assert r.stderr.startswith("mltcpctl: "), r.stderr
    return r.stderr


def markers(netns=NS_B):
    return json.loads(ctl("-j", "ackmark", "show", netns=netns).stdout)


def tc_filters(netns, dev):
    return json.loads(run("tc", "-n", netns, "-s", "-j", "filter", "show", "dev", dev,
                          "egress").stdout)


@pytest.fixture(scope="module")
def pair():
    cmds = dual_stack_veth(NS_A, NS_B, DEV_A, DEV_B, ADDR)
    server = None
    try:
        for cmd in cmds:
            run(*cmd)
        server = subprocess.Popen(["ip", "netns", "exec", NS_B, sys.executable, "-c", SERVER,
                                   str(PORT)], stdout=subprocess.PIPE, text=True)
        assert server.stdout.readline().strip() == "listening"
        yield
    finally:
        if server:
            server.kill()
            server.wait()
        for ns in (NS_A, NS_B):
            run("ip", "netns", "del", ns, check=False)


@pytest.fixture
def marked(pair):
    """The marker on both ends' egress, removed after the test."""
    ctl("ackmark", "add", "dev", DEV_A, "dscp", "ef", netns=NS_A)
    ctl("ackmark", "add", "dev", DEV_B, "dscp", str(EF))
    try:
        yield
    finally:
        ctl("ackmark", "del", "dev", DEV_A, check=False, netns=NS_A)
        ctl("ackmark", "del", "dev", DEV_B, check=False)


@contextlib.contextmanager
def capture(netns, dev, out):
    """Packets on dev (in netns) while the block runs, appended to out."""
    proc = subprocess.Popen(["ip", "netns", "exec", netns, sys.executable, CAPTURE, dev],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        yield
    finally:
        stdout, _ = proc.communicate("", timeout=30)
    out.extend(json.loads(stdout))


def transfer(family, size=2 << 20):
    run("ip", "netns", "exec", NS_A, sys.executable, "-c", CLIENT, ADDR[family][1], PORT, size)


def is_pure_ack(p):
    return p["payload"] == 0 and p["flags"] & (TCP_SYN | TCP_FIN | TCP_RST | TCP_ACK) == TCP_ACK


@pytest.mark.parametrize("family", [4, 6])
def test_pure_acks_marked_data_left(marked, family):
    """Seen on A's device: B's pure ACKs (incoming) and A's (the handshake's
    last) carry EF; every data segment, SYN and FIN carries what it had (0);
    the rewritten IPv4 headers' checksums are right, or A's kernel would have
    dropped B's ACKs and the transfer would not have finished."""
    packets = []
    with capture(NS_A, DEV_A, packets):
        transfer(family)
    tcp = [p for p in packets if p["family"] == family and PORT in (p["sport"],)
           or p["family"] == family and p["dir"] == "out"]
    acks_in = [p for p in tcp if p["dir"] == "in" and is_pure_ack(p)]
    data_out = [p for p in tcp if p["dir"] == "out" and p["payload"] > 0]
    others = [p for p in tcp if not is_pure_ack(p)]
    assert len(acks_in) >= 10 and data_out, (len(acks_in), len(data_out))
    assert {p["dscp"] for p in acks_in} == {EF}
    assert any(p["dir"] == "out" and is_pure_ack(p) and p["dscp"] == EF for p in tcp)
    assert {p["dscp"] for p in others} == {0}, others[:5]
    assert any(p["flags"] & TCP_SYN for p in others) and any(p["flags"] & TCP_FIN
                                                              for p in others)
    if family == 4:
        assert all(p["checksum_ok"] for p in tcp)
    [mark_b] = markers()
    assert mark_b["dev"] == DEV_B and mark_b["ours"] and mark_b["dscp"] == EF
    assert mark_b["marked"] >= len(acks_in) and mark_b["left"] >= 2


def tcp_header(flags, payload):
    return struct.pack("!HHIIBBHHH", PORT, 40000, 1, 1, 5 << 4, flags, 1000, 0, 0) + payload


def raw_ipv4_tcp(tos, flags, payload=b"", frag_off=0, options=b""):
    """An IPv4 TCP segment from B to A (IP_HDRINCL: the kernel fills the
    header checksum; the TCP checksum is not checked on the way out)."""
    tcp = tcp_header(flags, payload)
    src, dst = (socket.inet_aton(a) for a in reversed(ADDR[4]))
    ihl = 5 + len(options) // 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + len(tcp), 0, frag_off, 64, 6,
                     0, src, dst)
    return ip + options + tcp


def raw_ipv6_tcp(tclass, flow, flags, payload=b""):
    tcp = tcp_header(flags, payload)
    src, dst = (socket.inet_pton(socket.AF_INET6, a) for a in reversed(ADDR[6]))
    first = (6 << 28) | (tclass << 20) | flow
    return struct.pack("!IHBB16s16s", first, len(tcp), 6, 64, src, dst) + tcp


SEND_RAW = """
import socket, sys
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(family, socket.SOCK_RAW, socket.IPPROTO_RAW)
for hexed in sys.argv[2:]:
    s.sendto(bytes.fromhex(hexed), (sys.argv[1], 0))
"""


def send_raw(family, packets):
    """What A's device receives of these segments, sent raw by B."""
    got = []
    with capture(NS_A, DEV_A, got):
        run("ip", "netns", "exec", NS_B, sys.executable, "-c", SEND_RAW, ADDR[family][0],
            *[p.hex() for p in packets])
    return [p for p in got if p["dir"] == "in" and p["sport"] == PORT and p["family"] == family]


def test_ecn_bits_kept_and_crafted_segments(marked):
    """IPv4 segments B sends by a raw socket: a pure ACK with ECT(1) leaves
    with EF and ECT(1), its header checksum right; with CE, CE; with 4
    bytes of IP options, EF and a right checksum; a segment with a byte of
    data, a SYN, an RST and a fragment keep TOS 0x01."""
    cases = [raw_ipv4_tcp(0x01, TCP_ACK), raw_ipv4_tcp(0x03, TCP_ACK),
             raw_ipv4_tcp(0x01, TCP_ACK, options=b"\x01\x01\x01\x00"),
             raw_ipv4_tcp(0x01, TCP_ACK, b"x"), raw_ipv4_tcp(0x01, TCP_SYN),
             raw_ipv4_tcp(0x01, TCP_RST | TCP_ACK), raw_ipv4_tcp(0x01, TCP_ACK, frag_off=0x2000)]
    got = [(p["dscp"], p["ecn"], p["checksum_ok"]) for p in send_raw(4, cases)]
    # The fragment is decoded as a segment too (its header is all there).
    assert got == [(EF, 1, True), (EF, 3, True), (EF, 1, True), (0, 1, True), (0, 1, True),
                   (0, 1, True), (0, 1, True)], got


def test_ipv6_traffic_class_and_flow_label(marked):
    """IPv6: the DSCP goes into the traffic class across its two bytes, the
    ECN bits and the 20-bit flow label stay; data keeps its class."""
    cases = [raw_ipv6_tcp(0x01, 0xabcde, TCP_ACK), raw_ipv6_tcp(0xff, 0xfffff, TCP_ACK),
             raw_ipv6_tcp(0x03, 0x12345, TCP_ACK, b"x")]
    got = [(p["dscp"], p["ecn"], p["flow"]) for p in send_raw(6, cases)]
    assert got == [(EF, 1, 0xabcde), (EF, 3, 0xfffff), (0, 3, 0x12345)], got


def bpf_filter_stats(netns, dev, pref):
    """The counters of the ackmark program that tc attached at pref, read
    through bpftool (mltcpctl shows only the filter at its own place)."""
    [f] = [f for f in tc_filters(netns, dev) if f.get("pref") == pref and "options" in f]
    prog = json.loads(run("bpftool", "-j", "prog", "show", "id", f["options"]["prog"]["id"]).stdout)
    for map_id in prog["map_ids"]:
        info = json.loads(run("bpftool", "-j", "map", "show", "id", map_id).stdout)
        if info["name"] == "ackmark_stats":
            dump = json.loads(run("bpftool", "-j", "map", "dump", "id", map_id).stdout)
            return {("marked", "left")[e["formatted"]["key"]]:
                    sum(v["value"] for v in e["formatted"]["values"]) for e in dump}
    raise AssertionError("no ackmark_stats map")


def test_later_filters_still_run(marked):
    """The marker passes every packet on (TC_ACT_UNSPEC): a second instance of
    the program, attached by tc after ours on B's hook, sees every pure ACK
    and every other segment ours saw."""
    run("tc", "-n", NS_B, "filter", "add", "dev", DEV_B, "egress", "pref", "10", "bpf", "da",
        "obj", ACKMARK_OBJECT, "sec", "tc")
    try:
        transfer(4, size=256 << 10)
        later = bpf_filter_stats(NS_B, DEV_B, 10)
        [ours] = markers()
        assert ours["marked"] >= 5 and ours["left"] >= 2, ours
        assert later == {"marked": ours["marked"], "left": ours["left"]}, (later, ours)
    finally:
        run("tc", "-n", NS_B, "filter", "del", "dev", DEV_B, "egress", "pref", "10")


def test_add_show_del_and_refusals(pair):
    """add twice, del twice, a loopback and a missing device, a DSCP out of
    range, no privilege: each a one-line refusal that changes nothing; del
    leaves the clsact qdisc and other filters."""
    assert markers() == []
    ctl("ackmark", "add", "dev", DEV_B, "dscp", "cs6")
    try:
        assert "a filter is already at the marker's place" in refused(
            "-n", NS_B, "ackmark", "add", "dev", DEV_B, "dscp", "ef")
        [m] = markers()
        assert m["dscp"] == 48, m
        text = ctl("ackmark", "show", "dev", DEV_B).stdout
        assert text.startswith(f"dev {DEV_B} prog id {m['prog_id']} dscp 48 marked "), text
        assert "not an Ethernet device" in refused("-n", NS_B, "ackmark", "add", "dev", "lo",
                                                   "dscp", "ef")
        assert "no such device" in refused("-n", NS_B, "ackmark", "add", "dev", "nosuch0",
                                           "dscp", "ef")
        assert "out of range (allowed 0 to 63)" in refused("-n", NS_B, "ackmark", "add", "dev",
                                                           DEV_B, "dscp", "64", code=2)
        assert "not a DSCP" in refused("-n", NS_B, "ackmark", "add", "dev", DEV_B, "dscp",
                                       "af44", code=2)
        assert "needs dscp DSCP" in refused("-n", NS_B, "ackmark", "add", "dev", DEV_B, code=2)
        # Unprivileged, inside the namespace (setns itself would need the
        # capability): refused by ackmark's own checks; show still lists
        # the marker (the filter dump), without what only CAP_SYS_ADMIN
        # reads (its maps).
        assert "permission denied: ackmark add needs CAP_BPF and CAP_NET_ADMIN" in \
            refused_in(NS_B, "ackmark", "add", "dev", DEV_B, "dscp", "ef")
        assert "permission denied: ackmark del needs CAP_NET_ADMIN" in \
            refused_in(NS_B, "ackmark", "del", "dev", DEV_B)
        shown = in_ns_unprivileged(NS_B, "-j", "ackmark", "show")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout) == [{"dev": DEV_B, "ifindex": m["ifindex"],
                                             "prog_id": m["prog_id"], "ours": True,
                                             "dscp": None}]
        assert [x["prog_id"] for x in markers()] == [m["prog_id"]]
    finally:
        ctl("ackmark", "del", "dev", DEV_B)
    assert markers() == []
    assert "no ACK marker" in refused("-n", NS_B, "ackmark", "del", "dev", DEV_B)
    qdiscs = json.loads(run("tc", "-n", NS_B, "-j", "qdisc", "show", "dev", DEV_B).stdout)
    assert any(q["kind"] == "clsact" for q in qdiscs), qdiscs


def test_foreign_filter_left_alone(pair):
    """Another kind of filter at the marker's priority: show names it, add
    and del refuse, and it stays."""
    run("tc", "-n", NS_B, "qdisc", "replace", "dev", DEV_B, "clsact")
    run("tc", "-n", NS_B, "filter", "add", "dev", DEV_B, "egress", "pref", "1", "protocol",
        "all", "u32", "match", "u32", "0", "0", "flowid", "1:1")
    try:
        assert "already at the marker's place" in refused("-n", NS_B, "ackmark", "add", "dev",
                                                          DEV_B, "dscp", "ef")
        assert "not the marker (a filter of another kind); left alone" in refused(
            "-n", NS_B, "ackmark", "del", "dev", DEV_B)
        [other] = markers()
        assert other["prog_id"] == 0 and other["ours"] is False and other["dscp"] is None
        assert "(a filter of another kind)" in ctl("ackmark", "show").stdout
        assert any(f.get("kind") == "u32" for f in tc_filters(NS_B, DEV_B))
    finally:
        run("tc", "-n", NS_B, "filter", "del", "dev", DEV_B, "egress", "pref", "1",
            check=False)


def test_ingress_qdisc_refused(pair):
    """A device with an ingress qdisc (at clsact's place, ffff:) is refused:
    the filter would land on ingress and mark the peer's ACKs instead."""
    run("tc", "-n", NS_B, "qdisc", "del", "dev", DEV_B, "clsact", check=False)
    run("tc", "-n", NS_B, "qdisc", "add", "dev", DEV_B, "ingress")
    try:
        err = refused("-n", NS_B, "ackmark", "add", "dev", DEV_B, "dscp", "ef")
        assert "has an ingress qdisc where clsact would go" in err, err
        assert markers() == []
        filters = run("tc", "-n", NS_B, "filter", "show", "dev", DEV_B, "ingress").stdout
        assert filters.strip() == "", filters
    finally:
        run("tc", "-n", NS_B, "qdisc", "del", "dev", DEV_B, "ingress", check=False)
