# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Progress priority on the wire: with `mltcpctl defaults set prio 4`, each
data segment of a training flow leaves with its class's DSCP (CS1..CS4),
class 0 at an iteration's first segment and never lower within it, up to
the top class by its end (mltcp_prio_class()), each move up only once the
data sent before it is acknowledged but for one segment (mltcp_prio_move()), and the counts of
those holds (prio_held, prio_released, prio_reduced: debugfs "stats" /
`mltcpctl bpf status`, and `mltcpctl export`) say so; a flow whose size
is not known or not yet trusted, a cubic flow, and every flow while prio is
off, leave with DSCP 0.
Captured on the sender's device (tests/bpf/capture.py)."""
import pytest

from dp import exported_events
from testbed.paths import TRUST_ITERS

CLASSES = (8, 16, 24, 32)  # CS1..CS4, the defaults' first four
TCP_SYN, TCP_ACK = 0x02, 0x10
HOLDS = ("prio_held", "prio_released", "prio_reduced")


@pytest.fixture
def prio(backend, net):
    backend.ctl("-n", net.snd.name, "defaults", "set", "prio", "4")
    yield
    backend.ctl("-n", net.snd.name, "defaults", "set", "prio", "0")


def flow_packets(net, cc, count=8, listed=None):
    """The flow's packets on the sender's device, both ways, in the kernel's
    order; listed (a list) gets how flow show lists the flow after its last
    burst."""
    packets = []
    with net.captured(packets):
        f = net.onoff(net.backend.profile.onoff_bytes, count, idle_ms=100, cc=cc)
        try:
            if listed is not None:
                listed.append(net.flow_by_sport(f.sport))
        finally:
            f.close()
    return [p for p in packets if f.sport in (p["sport"], p["dport"])]


def dscps(net, cc, count=8, listed=None):
    """The DSCPs of the flow's data segments on the wire, in order."""
    return [p["dscp"] for p in flow_packets(net, cc, count, listed)
            if p["dir"] == "out" and p["payload"] > 0]


def iterations(seq):
    """The sequence cut where the DSCP falls: one run per iteration once a
    class is set (a fall is only ever an iteration's start)."""
    runs, run = [], []
    for d in seq:
        if run and d < run[-1]:
            runs.append(run)
            run = []
        run.append(d)
    return runs + [run] if run else runs


def test_classes_rise_through_each_iteration(backend, net, prio):
    count = 8 + TRUST_ITERS
    listed = []
    seq = dscps(net, "mltcp", count, listed)
    text = " ".join(map(str, seq)) + "\n" + str(listed)
    assert seq and set(seq) <= {0} | set(CLASSES), text
    # Before the size is known and trusted (the first iteration teaches it,
    # TRUST_ITERS more agree; an idle inside a burst may take more) the flow
    # has no class; once it has one, never none again.
    first = next(i for i, d in enumerate(seq) if d)
    assert 0 not in seq[first:], text
    runs = iterations(seq[first:])
    # Every iteration after the first with a class: class 0 first, up to the top.
    whole = runs[1:]
    assert len(whole) >= count - 4 - TRUST_ITERS, text
    # Each starts in class 0 and rises. How far is up to the window: a class
    # shows only on segments sent after the ACKs that carried r past its
    # threshold, so a window above a quarter of the iteration can send the
    # last quarter before r reaches 3/4 (seen on the host, 4 MB at 1 Gbit/s).
    for run in whole:
        assert run[0] == CLASSES[0] and run[-1] > CLASSES[0], text
    # The top class itself may show on no segment there (7 runs of 4 MB on
    # the host's 1 Gbit/s, seen once in five); the one below it always
    # does, and the socket ends each iteration in the top class (below).
    assert any(run[-1] >= CLASSES[-2] for run in whole), text
    # flow show gives the socket's DSCP and its class: at least the last one
    # on the wire (the ACKs after the last segment may have raised it).
    (flow,) = listed
    assert flow["iter_trusted"] is True, text
    if flow["r"] == 1.0:
        assert flow["dscp"] == CLASSES[-1], text
    assert flow["dscp"] in CLASSES and flow["dscp"] >= seq[-1], text
    assert flow["class"] == CLASSES.index(flow["dscp"]), text


def test_no_class_for_cubic_or_when_off(backend, net, prio):
    assert set(dscps(net, "cubic", 4)) == {0}
    backend.ctl("-n", net.snd.name, "defaults", "set", "prio", "0")
    assert set(dscps(net, "mltcp", 4)) == {0}


def exported_holds(backend, net):
    """The holds' counts in `mltcpctl -n SENDER export`, by their debugfs
    names."""
    return exported_events(backend, net.snd, "mltcp_prio_hold_total", "prio_", HOLDS)


def test_a_move_up_waits_for_the_data_in_flight(backend, net, prio):
    """A class's first segment in an iteration leaves only once everything
    sent before it is acknowledged but for one segment, whose ACK a
    receiver may delay (mltcp_prio_move()): sent with data in
    flight, it would overtake that data where the fabric serves its class
    first, and the receiver's SACKs would have it retransmitted. Read on
    the sender's device: the last ACK in before each move up covers every
    byte out before it but one segment's. The counters say the flow held its moves up, and
    that each hold ended (each burst is acknowledged whole before the next
    and before the close: none is left on); export says the same."""
    before, exported = backend.stats(), exported_holds(backend, net)
    listed = []
    packets = flow_packets(net, "mltcp", 10 + TRUST_ITERS, listed)
    d = {k: backend.stats()[k] - before[k] for k in HOLDS}
    exported = {k: v - exported[k] for k, v in exported_holds(backend, net).items()}
    (syn,) = [p for p in packets if p["dir"] == "out" and p["flags"] & TCP_SYN]
    isn = syn["seq"]
    sent = acked = segment = 0
    cls, moves, early = None, 0, []
    for p in packets:
        if p["dir"] == "in":
            if p["flags"] & TCP_ACK:
                acked = max(acked, (p["ack"] - isn - 1) % (1 << 32))
            continue
        if p["payload"] <= 0:
            continue
        offset = (p["seq"] - isn - 1) % (1 << 32)
        if offset < sent:
            continue  # a retransmission
        new_cls = CLASSES.index(p["dscp"]) if p["dscp"] in CLASSES else None
        segment = max(segment, p["payload"])
        if cls is not None and new_cls is not None and new_cls > cls:
            moves += 1
            # One segment may be left: its ACK a receiver delays
            # (MLTCP_PRIO_DELACK_SEGS).
            if sent - acked > segment:
                early.append((offset, p["dscp"], sent - acked))
        cls, sent = new_cls, offset + p["payload"]
    # Moves up with data in flight would be most of them: the window is
    # full while an iteration's bytes are being sent. A few iterations may
    # pass before the size is trusted (an idle inside a burst on a loaded
    # host: 1 run in 20 had 3 moves in 8 iterations).
    assert moves >= 4, moves
    assert not early, (moves, early[:5])
    # Moves up with data in flight are most of them (above), so most were
    # held; one released at the drain shows on no segment (the next
    # iteration starts in class 0), so there may be more holds than moves.
    assert d["prio_held"] >= 1, (d, moves)
    assert d["prio_held"] == d["prio_released"] + d["prio_reduced"], d
    assert exported == d, (exported, d)
    # Listed after its last burst, all of it acknowledged: not holding.
    (flow,) = listed
    assert flow["prio_held"] is False, flow
