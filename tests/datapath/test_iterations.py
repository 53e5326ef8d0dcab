# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""On-off flows are recognised as iterations, counted exactly, their bytes
per iteration learned within 5%; pauses shorter than the idle gap are not
iterations.

The flow is read with `mltcpctl -j flow show` on both backends."""
import pytest

from dp import NAMES

BASES = {"mltcp": "cubic", "mltcp_reno": "reno", "mltcp_cubic": "cubic"}


@pytest.mark.parametrize("name", NAMES)
def test_onoff_flow_is_learned(backend, net, name):
    nbytes, count = backend.profile.onoff_bytes, backend.profile.onoff_count
    before = backend.stats()
    f = net.onoff_run(nbytes, count, idle_ms=100, cc=name)
    after = backend.stats()
    flow, ss = f.flow, f.ss_text
    print(name, flow)
    assert flow["ca"] == name and flow["base"] == BASES[name]
    assert flow["mode"] == "md-restart"
    # The first burst follows the handshake, not an idle gap: count - 1
    # starts, and one more for each idle of the sender's inside a burst.
    f.check_iterations(flow, count, {k: after[k] - before[k] for k in after
                                     if after[k] != before.get(k)})
    assert abs(flow["iter_bytes"] - nbytes) <= 0.05 * nbytes, flow
    assert after["iterations"] - before["iterations"] == flow["iterations"]
    assert after["flows_started"] - before["flows_started"] == 1
    assert name in ss.split(), ss


def test_pauses_shorter_than_the_gap_are_not_iterations(backend, net):
    before = backend.stats()
    f = net.onoff_run(1 << 20, 5, idle_ms=5)
    after = backend.stats()
    flow = f.flow
    # Unless the sender was not run for the idle gap, in a pause or inside
    # a burst on a shared machine (each measured).
    long_idles = f.long_idles(flow["idle_gap_us"]) + f.idles_inside(flow["idle_gap_us"])
    if long_idles:
        print("the sender idled for the gap:", long_idles, f.idles, f.pauses)
    assert flow["iterations"] <= len(long_idles), (flow, f.idles, f.pauses)
    assert flow["iterations"] or (flow["iter_bytes"] == 0 and flow["f"] == 1.0), flow
    # At least the 4 pauses; the sender may also stall inside a burst on a
    # shared machine long enough to drain the pipe (another short gap).
    assert after["tx_start_short_gap"] - before["tx_start_short_gap"] >= 4 - len(long_idles)
    assert after["iterations"] - before["iterations"] == flow["iterations"]
