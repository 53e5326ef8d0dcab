# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A single bulk flow through a 100 Mbit/s bottleneck (1.5 BDP of buffer, 5 ms
of netem delay) gets at least 95% of what the same flow gets with the base
algorithm: a flow with no iteration structure is its base algorithm."""
import pytest

from netlab import iperf3

SECONDS = 8
# (variant, its base) -- "mltcp" runs over the default base, cubic.
PAIRS = [("mltcp_reno", "reno"), ("mltcp_cubic", "cubic"), ("mltcp", "cubic")]


@pytest.mark.parametrize("variant,base", PAIRS)
def test_bulk_flow_matches_its_base(dumbbell, variant, base):
    snd, rcv = dumbbell.left[0], dumbbell.right[0]
    ref = iperf3(snd, rcv, base, SECONDS)
    got = iperf3(snd, rcv, variant, SECONDS)
    print("%s %.1f Mbit/s (retr %d) vs %s %.1f Mbit/s (retr %d)"
          % (variant, got["bps"] / 1e6, got["retransmits"],
             base, ref["bps"] / 1e6, ref["retransmits"]))
    assert ref["cc"] == base and got["cc"] == variant
    # The bottleneck, not the emulator, limits the reference flow.
    assert ref["bps"] > 0.75 * dumbbell.forward.rate_mbit * 1e6
    assert got["bps"] >= 0.95 * ref["bps"]
