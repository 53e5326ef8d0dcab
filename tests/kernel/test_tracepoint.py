# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The tracepoint mltcp:mltcp_iteration, read as perf and bpftrace users
would get it through tracefs: one event per iteration boundary of an on-off
flow, whose fields agree with what mltcpctl reports for the same flow (its
socket cookie, addresses and ports, iteration count, learned size, the
job's id, iteration count and bytes)."""
import ipaddress
import os
import subprocess

from netlab import idles_inside, onoff_py_pauses
from nl_ctl import ctl, ctl_json
from tracefs import EVENT, events
from testbed.paths import TRUST_ITERS, trusted_after_starts

HERE = os.path.dirname(os.path.abspath(__file__))
ONOFF = os.path.join(HERE, "..", "datapath", "onoff.py")
PYTHON = "/usr/bin/python3"
PORT = 7310
NBYTES = 400_000
IDLE_MS = 60
BURSTS = 12


def v4(mapped):
    return str(ipaddress.ip_address(mapped).ipv4_mapped)


def test_event_format_is_described():
    with open(EVENT + "/format") as f:
        fmt = f.read()
    for field in ("u64 cookie", "u64 bytes", "u64 iter_bytes", "u32 job", "u32 iteration",
                  "u32 duration_us", "u32 f", "u16 family", "u16 sport", "u16 dport",
                  "u8 saddr[16]", "u8 daddr[16]"):
        assert field in fmt, field


def test_events_match_the_flow_and_its_job(dumbbell, tracing):
    snd, rcv = dumbbell.left[0], dumbbell.right[0]
    ctl("-n", snd.name, "job", "add", 4, "dport", PORT)
    sink = rcv.spawn(PYTHON, ONOFF, "sink", str(PORT))
    sender = None
    try:
        assert sink.stdout.readline().strip() == "listening"
        sender = snd.spawn(PYTHON, ONOFF, "send", rcv.addr, str(PORT), "mltcp", str(NBYTES),
                           str(BURSTS), str(IDLE_MS), "pauses", stdin=subprocess.PIPE)
        sport = int(sender.stdout.readline().split()[1])
        idles = idles_inside(onoff_py_pauses(sender), snd)
        # The flow is idle and still open: what mltcpctl reports now is final.
        (flow,) = ctl_json("-n", snd.name, "flow", "show", "job", 4)
        job = ctl_json("-n", snd.name, "job", "show", 4)[0]
        got = events()
    finally:
        if sender:
            sender.kill()
            sender.wait()
        sink.kill()
        sink.wait()

    assert flow["sport"] == sport
    mine = [e for e in got if e["cookie"] == flow["cookie"]]
    assert len(mine) == flow["iterations"] == job["iterations"], (flow, got)
    # One boundary per burst after the first, and one more for each idle of
    # the sender's inside a burst (a guest not run for the idle gap).
    assert BURSTS - 1 <= len(mine) <= BURSTS - 1 + len(idles), (flow, idles, got)
    # One event per boundary, in order, each naming the flow and its job.
    assert [e["iteration"] for e in mine] == list(range(1, len(mine) + 1))
    for e in mine:
        assert (v4(e["src"]), e["sport"]) == (snd.addr, sport), e
        assert (v4(e["dst"]), e["dport"]) == (rcv.addr, PORT), e
        assert e["job"] == 4, e
        assert idles or e["duration_us"] >= IDLE_MS * 1000, e
    # The bytes of each iteration are what the job was charged, to the byte.
    assert sum(e["bytes"] for e in mine) == job["bytes"]
    # From the second boundary on, every iteration was one burst, unless
    # the sender idled inside one.
    if not idles:
        assert all(e["bytes"] == NBYTES for e in mine[1:]), [e["bytes"] for e in mine]
    # The learned size after the last boundary is what flow show reports;
    # F at each boundary is the new iteration's F at r = 0: the intercept
    # (0.7, 717/1024) once a size is known and trusted (TRUST_ITERS more
    # iterations agreed with the first, in size and period: replayed from
    # the events' own periods), exactly 1.0 before.
    assert mine[-1]["iter_bytes"] == flow["iter_bytes"]
    for e in mine:
        assert e["f"] in (717, 1024) and (e["iter_bytes"] or e["f"] == 1024), e
    if not idles:
        trusted = trusted_after_starts(mine)
        assert any(trusted), (mine, TRUST_ITERS)
        for e, acted in zip(mine, trusted):
            assert e["f"] == (717 if acted else 1024), (e, trusted)
    assert flow["iter_trusted"] == (mine[-1]["f"] == 717), (flow, mine[-1])
