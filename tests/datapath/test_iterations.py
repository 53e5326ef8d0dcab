# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""On-off flows are recognised as iterations, counted exactly, their bytes
per iteration learned within 5%; pauses shorter than the idle gap are not
iterations.

Moved here from tests/kernel/test_03_iterations.py (test_onoff_flow_is_learned)
and tests/bpf/test_bpf_host.py (test_on_off_flow_iterations_are_detected,
test_pauses_shorter_than_the_gap_are_not_iterations). The flow is read with
`mltcpctl -j flow show` on both backends."""
import pytest

from dp import NAMES

BASES = {"mltcp": "cubic", "mltcp_reno": "reno", "mltcp_cubic": "cubic"}


@pytest.mark.parametrize("name", NAMES)
def test_onoff_flow_is_learned(backend, net, name):
    nbytes, count = backend.profile.onoff_bytes, backend.profile.onoff_count
    before = backend.stats()
    flow, ss = net.onoff_flow(nbytes, count, idle_ms=100, cc=name)
    after = backend.stats()
    print(name, flow)
    assert flow["ca"] == name and flow["base"] == BASES[name]
    assert flow["mode"] == "md-restart"
    # The first burst follows the handshake, not an idle gap: count - 1 starts.
    assert flow["iterations"] == count - 1, flow
    assert abs(flow["iter_bytes"] - nbytes) <= 0.05 * nbytes, flow
    assert after["iterations"] - before["iterations"] == count - 1
    assert after["flows_started"] - before["flows_started"] == 1
    assert name in ss.split(), ss


def test_pauses_shorter_than_the_gap_are_not_iterations(backend, net):
    before = backend.stats()
    flow, _ = net.onoff_flow(1 << 20, 5, idle_ms=5)
    after = backend.stats()
    assert flow["iterations"] == 0 and flow["iter_bytes"] == 0 and flow["f"] == 1.0
    # At least the 4 pauses; the sender may also stall inside a burst on a
    # shared machine long enough to drain the pipe (another short gap).
    assert after["tx_start_short_gap"] - before["tx_start_short_gap"] >= 4
    assert after["iterations"] == before["iterations"]
