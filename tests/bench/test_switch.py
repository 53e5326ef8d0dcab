# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The host bench's emulated switch (testbed.topology.Shaping, shaper
"prio") and its random loss, on this machine's kernel: two iperf3 flows of
different DSCP through a 100 Mbit/s bottleneck, counted by the switch's own
classes while both are backlogged; pings through a standing queue; frames
dropped by the nftables rule. Needs root (scripts/test runs tests/bench as
root), iperf3, ping, ethtool and nft (scripts/install-deps); a few seconds a
test."""
import os
import re
import subprocess
import time

import pytest

from testbed import topology

RATE_MBIT = 100
LIMIT = 131072  # 10.5 ms at 100 Mbit/s per class
PORT = 5301
# A flow's TOS byte for a DSCP (ECN bits 0: iperf3 -S sets the whole byte).
TOS = {dscp: dscp << 2 for dscp in range(64)}


@pytest.fixture(scope="module", autouse=True)
def as_root():
    assert os.geteuid() == 0, "the switch's tests build namespaces: they need root"


def dumbbell(hosts=2, **shaping):
    shape = topology.Shaping(rate_mbit=RATE_MBIT, limit_bytes=LIMIT, shaper="prio", **shaping)
    return topology.Dumbbell(["a%d" % i for i in range(hosts)],
                             ["b%d" % i for i in range(hosts)], forward=shape, reverse=shape,
                             prefix="sw%d" % (os.getpid() % 100000))


def class_bytes(net, dev=topology.TO_RIGHT):
    return net.class_bytes()[dev]


def flows(net, tos_list, seconds):
    """iperf3 from a<i> to b<i> with TOS tos_list[i], all started at once;
    returns the clients (running)."""
    procs = []
    for i, tos in enumerate(tos_list):
        net.right[i].spawn("iperf3", "-s", "-1", "-p", str(PORT + i),
                           stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    for i, tos in enumerate(tos_list):
        procs.append(net.left[i].spawn("iperf3", "-c", net.right[i].addr, "-p", str(PORT + i),
                                       "-t", str(seconds), "-S", str(tos), "-C", "cubic",
                                       stdout=subprocess.DEVNULL))
    return procs


def shares(tos_list, window=(1.0, 3.0), **shaping):
    """Bytes each class of the switch sent left to right over `window`
    seconds of a run of the flows, as fractions of what all sent."""
    net = dumbbell(len(tos_list), **shaping)
    try:
        procs = flows(net, tos_list, window[1] + 0.5)
        time.sleep(window[0])
        before = class_bytes(net)
        time.sleep(window[1] - window[0])
        after = class_bytes(net)
        for proc in procs:
            proc.wait(timeout=30)
            assert proc.returncode == 0, proc.stderr.read()
    finally:
        net.close()
    sent = {h: after[h] - before.get(h, 0) for h in after}
    leaves = {h: b for h, b in sent.items() if h not in ("1:1", "1:2")}
    total = sum(leaves.values())
    mbit = total * 8 / (window[1] - window[0]) / 1e6
    return {h: b / total for h, b in leaves.items()}, mbit


def test_the_higher_training_class_takes_the_link_while_both_are_backlogged():
    # Class 0 (CS1) against class 1 (CS2), and the lowest against the top (CS7).
    got, mbit = shares([TOS[8], TOS[16]])
    assert got["1:22"] >= 0.9, got
    assert got["1:21"] <= 0.1, got
    assert mbit > 0.9 * RATE_MBIT
    got, _ = shares([TOS[56], TOS[8]])
    assert got["1:27"] >= 0.9 and got["1:21"] <= 0.1, got


def test_best_effort_keeps_its_share_beside_training_traffic():
    # DSCP 0 against the top training class: best effort keeps be_share.
    got, mbit = shares([0, TOS[56]])
    assert 0.4 <= got["1:30"] <= 0.6, got
    assert mbit > 0.9 * RATE_MBIT
    got, _ = shares([0, TOS[56]], be_share=0.2)
    assert 0.12 <= got["1:30"] <= 0.28, got


def rtt_ms(host, addr, tos, count=20):
    out = host.run("ping", "-c", str(count), "-i", "0.05", "-Q", str(tos), addr).stdout
    times = [float(t) for t in re.findall(r"time=([0-9.]+) ms", out)]
    assert len(times) >= count // 2, out
    return sorted(times)[len(times) // 2]


def test_ef_goes_before_a_standing_training_queue():
    """A backlogged top-class flow keeps its bfifo full (about 10 ms at
    this rate); a ping marked EF passes it, one in the flow's class waits
    behind it."""
    net = dumbbell(1)
    try:
        procs = flows(net, [TOS[56]], 6)
        time.sleep(1.0)
        ef = rtt_ms(net.left[0], net.right[0].addr, topology.ACK_DSCP << 2)
        same = rtt_ms(net.left[0], net.right[0].addr, TOS[56])
        for proc in procs:
            proc.wait(timeout=30)
    finally:
        net.close()
    queue_ms = LIMIT * 8 / (RATE_MBIT * 1e3)
    assert same >= 0.5 * queue_ms, (ef, same)
    assert ef <= 0.2 * queue_ms, (ef, same)


def test_random_loss_drops_its_share_of_frames_with_offloads_off():
    shape = topology.Shaping(rate_mbit=RATE_MBIT, limit_bytes=LIMIT, shaper="prio")
    net = topology.Dumbbell(["a0"], ["b0"], forward=shape, reverse=shape, loss_pct=5,
                            prefix="sl%d" % (os.getpid() % 100000))
    try:
        for host in (net.left[0], net.switch):
            dev = "eth0" if host is net.left[0] else topology.TO_RIGHT
            features = host.run("ethtool", "-k", dev).stdout
            assert "tcp-segmentation-offload: off" in features
            assert "generic-segmentation-offload: off" in features
        out = net.left[0].run("ping", "-c", "1000", "-i", "0.002", "-q", net.right[0].addr,
                              check=False).stdout
        sent = int(re.search(r"(\d+) packets transmitted", out).group(1))
        received = int(re.search(r"(\d+) received", out).group(1))
        drops = net.random_drops()
    finally:
        net.close()
    # Requests and replies both cross the bottleneck: 5% each way.
    assert sent == 1000
    # Every lost ping was the rule's (it may also have dropped an ARP frame).
    assert sent - received <= drops <= sent - received + 3
    assert 50 <= drops <= 150, drops
    with pytest.raises(ValueError, match="below 100"):
        topology.Dumbbell.random_loss(None, 100)


if __name__ == "__main__":
    # The figures the tests bound, printed (docs/research/progress-priority-design.md
    # section 5): PYTHONPATH=. /usr/bin/python3 tests/bench/test_switch.py, as root, from
    # the top of the checkout.
    for tos, kw in (([TOS[8], TOS[16]], {}), ([TOS[56], TOS[8]], {}), ([0, TOS[56]], {}),
                    ([0, TOS[56]], {"be_share": 0.2})):
        got, mbit = shares(tos, **kw)
        print("DSCPs %s %s: share by class %s, %.1f Mbit/s in all" % (
            [t >> 2 for t in tos], kw, {h: round(v, 3) for h, v in sorted(got.items())
                                         if v >= 0.0005}, mbit))
    net = dumbbell(1)
    try:
        procs = flows(net, [TOS[56]], 6)
        time.sleep(1.0)
        print("ping through a standing CS7 queue: EF %.2f ms, CS7 %.2f ms (medians of 20)" % (
            rtt_ms(net.left[0], net.right[0].addr, topology.ACK_DSCP << 2),
            rtt_ms(net.left[0], net.right[0].addr, TOS[56])))
        for proc in procs:
            proc.wait(timeout=30)
    finally:
        net.close()
