# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Stalls that are not compute phases (zero-window, RTO) never start an
iteration; a compute phase that a peer without SACK spends in Recovery does. (On-off flows learned with the exact iteration count are in
tests/datapath/test_iterations.py, for both backends.) These need netem
loss and a receiver that stops reading, with the module's debugfs view:
the guest's rig.

On-off flows are mltcp-trainsim's, except in the zero-window test: that one
needs a receiver that stops reading, which trainsim's is not (flowgen.py).

Each runs with progress priority off and with four classes: a class's move
up holds the window until the flow's queue has drained
(mltcp_prio_move()), and a stall, an RTO or a recovery in the middle of a
hold must not merge or split iterations."""
import threading
import time

import pytest

from testbed.topology import TO_LEFT
from netlab import explain_starts, onoff, read_module_stats, start_server, trainsim_onoff

ITERATIONS = 12
NBYTES = 1_000_000
IDLE_MS = 100


@pytest.fixture(params=[0, 4], ids=["prio-off", "prio-4"])
def classes(request, dumbbell):
    """Progress priority's K in the sender's namespace."""
    dumbbell.left[0].run("sysctl", "-q", "-w", "net.mltcp.prio_classes=%d" % request.param)
    return request.param


def check_learned(result, nbytes, iterations):
    flow = result["module"]
    assert flow is not None, "flow not listed in debugfs"
    assert result["cc"] == flow["ca"]
    # The first burst is iteration 0; each later burst starts one. flowgen's
    # flows say where else one started: only after an idle of the sender's
    # inside a burst (netlab.explain_starts()); trainsim's do not.
    extra = 0
    if "starts" in result:
        extra, problems, text = explain_starts(result)
        assert not problems, "%s\n%s" % ("\n".join(problems), text)
        if extra:
            print(text)
    assert int(flow["iterations"]) == iterations - 1 + extra, flow
    learned = int(flow["iter_bytes"])
    assert abs(learned - nbytes) <= 0.05 * nbytes, flow
    return flow


def test_zero_window_stalls_do_not_start_iterations(dumbbell, classes):
    """The receiver stops reading for 200 ms (ten idle gaps) four times per
    iteration; the sender's pipe drains with data queued each time."""
    snd, rcv = dumbbell.left[0], dumbbell.right[0]
    nbytes = 2_000_000
    start_server(rcv, 6001, "--rcvbuf", "131072", "--stall-after", "500000",
                 "--stall-ms", "200")
    before = read_module_stats()
    result = onoff(snd, rcv.addr, 6001, "mltcp", nbytes, IDLE_MS, 6)
    after = read_module_stats()
    check_learned(result, nbytes, 6)
    # The stalls happened and were judged "not idle".
    assert after["tx_start_not_idle"] - before["tx_start_not_idle"] >= 6


def test_retransmission_timeouts_do_not_start_iterations(dumbbell, classes, tmp_path):
    """All ACKs are dropped for 1.5 s (more than one iteration), forcing RTOs."""
    snd, rcv = dumbbell.left[0], dumbbell.right[0]
    nbytes = 2_000_000
    before = read_module_stats()

    def blackhole():
        time.sleep(2.0)
        dumbbell.set_loss(TO_LEFT, 100)
        time.sleep(1.5)
        dumbbell.set_loss(TO_LEFT, 0)

    t = threading.Thread(target=blackhole)
    t.start()
    result = trainsim_onoff(snd, rcv, 6002, "mltcp", nbytes, IDLE_MS, 10, tmp_path)
    t.join()
    after = read_module_stats()
    check_learned(result, nbytes, 10)
    rejected = sum(after[k] - before[k]
                   for k in ("tx_start_in_recovery", "tx_start_data_outstanding"))
    assert rejected >= 1, (before, after)


def test_recovery_held_without_sack_does_not_merge_iterations(dumbbell, classes):
    """Without SACK, NewReno holds Recovery (or Loss) after an iteration's
    last retransmission is acknowledged until an ACK above high_seq, which
    only the next iteration's data brings (RFC 6582; tcp_try_undo_recovery()).
    2% of the data packets are lost on the link to the receiver, so that
    some iterations start in that state (with 1% and 20 bursts, one CI run
    had none): each is still one iteration, and the size learned is the
    application's burst, not two bursts merged."""
    snd, rcv = dumbbell.left[0], dumbbell.right[0]
    iterations = 30
    snd.run("sysctl", "-q", "-w", "net.ipv4.tcp_sack=0")
    dumbbell.switch.run("tc", "qdisc", "add", "dev", dumbbell.port(rcv), "root", "netem",
                        "loss", "2%")
    start_server(rcv, 6003)
    result = onoff(snd, rcv.addr, 6003, "mltcp", NBYTES, IDLE_MS, iterations, trace=True)
    states = [t["before"]["ca_state"] for t in result["trace"]]
    print("CA state at each burst's start:", states, "module:", result["module"])
    assert result["end"]["total_retrans"] > 0
    # The rig did what it is for: some iterations started in Recovery or Loss.
    assert any(state >= 3 for state in states[1:]), states
    check_learned(result, NBYTES, iterations)
