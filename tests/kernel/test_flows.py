# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Flows get the settings of the job they match when they select MLTCP, a
change of the job reaches its live flows at once, and `flow show` reports
what the module does with each flow."""
import os
import socket
import struct
import subprocess
import sys
import time

import pytest

from testbed.topology import Netns, sh
from nl_ctl import NOBODY, Pair, TOP, binary, clear_jobs, ctl, ctl_json, flows, in_netns, jobs, \
    wait_for
from nl_mltcp import C, NLM_F_ACK, NLM_F_DUMP, NLM_F_REQUEST, NLMSG_DONE, NLMSG_ERROR, Genl, \
    Mltcp, u32

MIB = 1 << 20


@pytest.fixture(autouse=True)
def no_jobs_left():
    clear_jobs()
    yield
    clear_jobs()


@pytest.fixture
def pairs():
    opened = []

    def open_pair(*args, **kw):
        pair = Pair(*args, **kw)
        opened.append(pair)
        return pair

    yield open_pair
    for pair in opened:
        pair.close()


def test_job_counts_its_flows(pairs):
    """The module's per-job counters. (What a matching flow latches, F from a
    fixed iteration size, and the defaults of the others: tests/datapath/test_jobs.py.)"""
    ctl("job", "add", 1, "dport", "7101-7102", "slope", "2.5", "iter-bytes", "64M")
    matched = pairs(7101)
    pairs(7103)
    matched.send(200000)
    flow = wait_for(lambda: matched.flow())
    assert flow["job"] == 1
    job = ctl_json("job", "show", 1)[0]
    assert job["flows"] == 1 and job["flows_total"] == 1


def test_job_change_reaches_the_live_flow(pairs):
    ctl("job", "add", 2, "dport", 7104, "slope", "2.5", "iter-bytes", "1M")
    pair = pairs(7104)
    cubic = pairs(7105, cc="mltcp_cubic")
    ctl("job", "set", 2, "dport", "7104-7105")  # criteria: new flows only
    assert cubic.flow()["job"] is None
    pair.send(100000)
    assert pair.flow()["slope"] == 2.5

    ctl("job", "set", 2, "slope", "0.5", "intercept", "1", "iter-bytes", "4M",
        "idle-gap", "7ms", "base", "reno")
    flow = pair.flow()  # no traffic needed: the change is applied under the socket lock
    assert flow["job"] == 2
    assert flow["slope"] == 0.5 and flow["intercept"] == 1.0
    assert flow["iter_bytes"] == 4 * MIB and flow["iter_fixed"] is True
    assert flow["idle_gap_us"] == 7000 and flow["base"] == "reno"
    # The datapath computes with the new numbers while the flow runs: 2 MB
    # of the 4M iteration, r about 1/2.
    pair.burst(2000000, 0)
    flow = pair.flow()
    assert 0.45 < flow["r"] < 0.55, flow
    assert abs(flow["f"] - (1.0 + 0.5 * flow["r"])) <= 0.002, flow

    ctl("job", "set", 2, "slope", "default", "iter-bytes", "default", "exempt")
    flow = pair.flow()
    assert flow["exempt"] is True and flow["f"] == 1.0 and flow["iter_fixed"] is False

    ctl("job", "del", 2)
    flow = pair.flow()
    assert flow["job"] is None and flow["exempt"] is False
    assert flow["slope"] == 1.6 and flow["intercept"] == 0.7 and flow["base"] == "cubic"
    assert flow["idle_gap_us"] == 20000


def job_of(pair):
    """The job of the pair's client flow; on failure the message shows every
    flow and job, so a flake in CI can be read from its log alone."""
    flow = pair.flow()
    assert flow is not None, ("no flow with cookie %d (sport %d)" % (pair.cookie, pair.sport),
                              flows(), jobs())
    return flow["job"]


def test_criteria_and_first_match(pairs):
    ctl("job", "add", 10, "mark", "0x5/0xf")
    ctl("job", "add", 20, "peer", "127.0.0.0/8", "dport", "7110-7119")
    ctl("job", "add", 30)  # no criteria: every flow
    ctl("job", "add", 40, "sport", "7301")
    marked = pairs(7111, mark=0x25)
    by_peer = pairs(7112)
    v6 = pairs(7113, family=socket.AF_INET6, host="::1")
    other = pairs(7200)
    assert job_of(marked) == 10, flows()  # 20 and 30 match too: the lowest id wins
    assert job_of(by_peer) == 20, flows()
    assert job_of(v6) == 30, flows()  # an IPv4 prefix never matches an IPv6 peer
    assert job_of(other) == 30, flows()
    ctl("job", "del", 30)
    assert job_of(other) is None, flows()
    ctl("job", "add", 25, "peer", "::1/128", "slope", "3")
    assert job_of(v6) is None, flows()  # matched only when it chose MLTCP
    v6b = pairs(7114, family=socket.AF_INET6, host="::1")
    assert job_of(v6b) == 25 and v6b.flow()["slope"] == 3.0, flows()
    by_sport = pairs(7300, sport=7301)
    assert job_of(by_sport) == 40, flows()
    counts = {j["id"]: j["flows"] for j in ctl_json("job", "show")}
    assert counts == {10: 1, 20: 1, 25: 1, 40: 1}, (counts, flows())


def test_job_counters(pairs):
    ctl("job", "add", 5, "dport", 7120, "idle-gap", "5ms")
    pair = pairs(7120)
    sent = 0
    for _ in range(6):
        pair.burst(150000, 0.05)
        sent += 150000
    job = ctl_json("job", "show", 5)[0]
    assert job["flows"] == 1
    assert job["iterations"] >= 5, job  # each burst after the first starts one
    assert 5 * 150000 <= job["bytes"] <= sent
    pair.close()
    job = wait_for(lambda: (lambda j: j if j["flows"] == 0 else None)(ctl_json("job", "show", 5)[0]))
    assert job["flows"] == 0 and job["flows_total"] == 1
    assert sent <= job["bytes"] <= sent + 1  # the rest counted at close (+1: the FIN)


def test_flows_of_a_namespace_with_a_private_hash():
    """Flows are found in the namespace's own established hash too."""
    sh("sysctl", "-w", "net.ipv4.tcp_child_ehash_entries=256")
    try:
        ns = Netns("mtnlpriv")
    finally:
        sh("sysctl", "-w", "net.ipv4.tcp_child_ehash_entries=0")
    try:
        ctl("-n", ns.name, "job", "add", 1, "dport", 7130, "slope", "1.5")
        with in_netns(ns.name):
            pair = Pair(7130)
            try:
                flow = pair.flow()
                assert flow["job"] == 1 and flow["slope"] == 1.5
                ctl("job", "set", 1, "slope", "1.25")
                assert pair.flow()["slope"] == 1.25
            finally:
                pair.close()
        assert flows() == [] or all(f["sport"] != pair.sport for f in flows())
    finally:
        ns.close()


def test_monitor_refreshes_r_and_f(pairs):
    ctl("job", "add", 6, "dport", 7140, "iter-bytes", "1M")
    pair = pairs(7140)
    pair.send(300000)
    out = ctl("-j", "monitor", "job", 6, "interval", "50ms", "count", 3).stdout.splitlines()
    assert len(out) == 3
    import json
    for line in out:
        snapshot = json.loads(line)
        assert len(snapshot) == 1 and snapshot[0]["job"] == 6
        assert set(snapshot[0]) >= {"r", "f", "cwnd", "src", "dst", "sport", "dport"}
    text = ctl("monitor", "count", 1).stdout
    assert "r 0." in text and " F " in text
    assert len(jobs()) == 1


LOCKHOLDER = os.path.join(TOP, "tests", "kernel", "tools", "lockholder.py")


class LockHolder:
    """An MLTCP flow of no job whose socket lock a blocked send() holds
    (tools/lockholder.py) until release()."""

    def __init__(self, port):
        self.proc = subprocess.Popen([sys.executable, LOCKHOLDER, "--port", str(port)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        assert line[:1] == ["held"], "lockholder: %r" % line
        self.sport, self.cookie = int(line[1]), int(line[2])

    def release(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def test_a_held_socket_of_another_flow_blocks_no_job_command(pairs):
    """A job change locks only its own flows' sockets: a process holding the
    lock of another MLTCP socket (here a send() faulting on a userfaultfd
    page, which sleeps with the socket owned) delays neither the change nor
    the namespace's other job commands."""
    ctl("job", "add", 1, "dport", 7150, "slope", "2")
    mine = pairs(7150)
    assert mine.flow()["slope"] == 2.0
    holder = LockHolder(7151)
    cmds = {}
    try:
        start = time.monotonic()
        cmds["job set"] = subprocess.Popen([binary(), "job", "set", "1", "slope", "3"])
        time.sleep(1)
        cmds["job show"] = subprocess.Popen([binary(), "job", "show"], stdout=subprocess.DEVNULL)
        cmds["job add"] = subprocess.Popen([binary(), "job", "add", "2", "dport", "7152"])
        deadline = start + 20
        while time.monotonic() < deadline and any(p.poll() is None for p in cmds.values()):
            time.sleep(0.1)
        elapsed = time.monotonic() - start
        stuck = [name for name, p in cmds.items() if p.poll() is None]
    finally:
        # Whatever waits on the lock (uninterruptibly) finishes once it goes.
        holder.release()
        for p in cmds.values():
            p.wait(timeout=60)
    assert not stuck, "%s still blocked after %.1f s by a held socket of no job" % (stuck, elapsed)
    assert all(p.returncode == 0 for p in cmds.values())
    assert mine.flow()["slope"] == 3.0


def test_a_job_change_keeps_what_is_not_the_jobs():
    """A job change re-latches on live flows only the settings it names:
    a live mltcp flow keeps the base and idle gap it took from the
    namespace's defaults when those change later (a switch of base would
    restart its CUBIC state), and the mode."""
    ns = Netns("mtnlkeep")
    try:
        ctl("-n", ns.name, "job", "add", 1, "dport", 7160, "slope", "1.25")
        with in_netns(ns.name):
            pair = Pair(7160)
            try:
                flow = pair.flow()
                assert (flow["slope"], flow["base"], flow["idle_gap_us"]) == (1.25, "cubic", 20000)
                ns.run("sysctl", "-w", "net.mltcp.base=reno", "net.mltcp.idle_gap_us=5000",
                       "net.mltcp.intercept=0.4")
                ctl("job", "set", 1, "slope", "1.5")
                flow = pair.flow()
                assert flow["slope"] == 1.5, flow
                # Not the job's: kept. The line is re-latched whole, its
                # intercept from today's defaults (what the set was checked over).
                assert flow["base"] == "cubic" and flow["idle_gap_us"] == 20000, flow
                assert flow["intercept"] == 0.4, flow
                # Named by a change: the job's value, or today's default.
                ctl("job", "set", 1, "idle-gap", "default")
                assert pair.flow()["idle_gap_us"] == 5000 and pair.flow()["base"] == "cubic"
                ctl("job", "set", 1, "idle-gap", "9ms")
                assert pair.flow()["idle_gap_us"] == 9000
                # Deleting the job returns what it set to today's defaults.
                ctl("job", "del", 1)
                flow = pair.flow()
                assert flow["job"] is None and flow["slope"] == 1.6, flow
                assert flow["idle_gap_us"] == 5000 and flow["base"] == "cubic", flow
                assert flow["mode"] == ctl_json("defaults", "show", "global")["mode"]
            finally:
                pair.close()
    finally:
        ns.close()


NLM_F_DUMP_INTR = 0x10
DUMP_RECV = 8192


def dump_in_steps(fid, cmd, attrs, between):
    """A dump read one datagram at a time on a fresh socket (so the kernel
    fills small ones: NLMSG_GOODSIZE, then our buffer), calling between()
    after the first; returns (messages, whether any was flagged
    NLM_F_DUMP_INTR, done included)."""
    g = Genl()
    try:
        g.sock.send(g.message(fid, C["MLTCP_CMD_" + cmd], attrs,
                              flags=NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP))
        count, intr, first = 0, False, True
        while True:
            data = g.sock.recv(DUMP_RECV)
            off = 0
            while off + 16 <= len(data):
                length, mtype, mflags, _seq, _pid = struct.unpack_from("IHHII", data, off)
                off += (length + 3) & ~3
                intr |= bool(mflags & NLM_F_DUMP_INTR)
                assert mtype != NLMSG_ERROR
                if mtype == NLMSG_DONE:
                    return count, intr
                count += 1
            if first:
                first = False
                between()
    finally:
        g.close()


def test_dumps_that_race_with_a_job_change_are_flagged():
    """A dump whose parts straddle a change of the job table carries
    NLM_F_DUMP_INTR: the job dump for any change; the flow dump too, since
    its records then mix the job's old and new settings."""
    ns = Netns("mtnlintr")
    pairs = []
    try:
        with in_netns(ns.name):
            with Mltcp() as m:
                for i in range(1, 301):
                    m.cmd("JOB_ADD", u32(C["MLTCP_JOB_A_ID"], i))
                pairs = [Pair(7170 + i) for i in range(40)]
                quiet = dump_in_steps(m.fid, "JOB_GET", b"", lambda: None)
                changed = dump_in_steps(m.fid, "JOB_GET", b"", lambda: m.cmd(
                    "JOB_SET", u32(C["MLTCP_JOB_A_ID"], 300) + u32(C["MLTCP_JOB_A_SLOPE"], 1536)))
                assert quiet == (300, False) and changed == (300, True), (quiet, changed)
                quiet = dump_in_steps(m.fid, "FLOW_GET", b"", lambda: None)
                changed = dump_in_steps(m.fid, "FLOW_GET", b"", lambda: m.cmd(
                    "JOB_SET", u32(C["MLTCP_JOB_A_ID"], 1) + u32(C["MLTCP_JOB_A_SLOPE"], 1024)))
                assert quiet == (40, False) and changed == (40, True), (quiet, changed)
    finally:
        for pair in pairs:
            pair.close()
        ns.close()


def test_reading_needs_no_privilege(pairs):
    """Jobs and flows of a namespace are readable by any of its processes,
    as its routes, rules (fwmark included) and sockets (ss) are; no socket
    mark is reported, as inet_diag reports one only to CAP_NET_ADMIN."""
    ctl("job", "add", 3, "dport", 7180, "mark", "0x5/0xf", "peer", "127.0.0.0/8")
    pair = pairs(7180, mark=0x25)
    as_root = {f["cookie"]: f for f in flows()}
    as_nobody = {f["cookie"]: f for f in ctl_json("flow", "show", user=NOBODY)}
    assert pair.cookie in as_nobody and as_nobody[pair.cookie]["job"] == 3
    assert set(as_nobody) == set(as_root)
    assert "mark" not in as_nobody[pair.cookie]
    assert ctl_json("job", "show", user=NOBODY) == ctl_json("job", "show")
