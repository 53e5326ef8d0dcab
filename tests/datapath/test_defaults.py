# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`mltcpctl defaults set global` reaches new flows (slope, intercept, base,
idle gap, mode); flows already running keep what they latched.

On kmod, "global" is the
module parameters, which the dumbbell's namespaces follow (they set none of
their own)."""
from dp import DEFAULTS


def test_set_changes_the_defaults_of_new_flows(backend, net):
    old = net.onoff(1 << 20, 1, idle_ms=1)
    try:
        out = backend.set_defaults("slope", "3.2", "intercept", "0.4", "base", "reno")
        assert out.stdout == ""
        assert backend.ctl("defaults", "show", "global").stdout.strip() == (
            "slope 3.2 intercept 0.4 idle-gap 20ms base reno mode md-restart")
        new = net.onoff(1 << 20, 1, idle_ms=1)
        try:
            fresh, latched = new.show(), old.show()
        finally:
            new.close()
    finally:
        old.close()
        backend.set_defaults(*DEFAULTS)
    assert (fresh["slope"], fresh["intercept"], fresh["base"]) == (3.2, 0.4, "reno")
    # Latched when the flow chose MLTCP.
    assert (latched["slope"], latched["intercept"], latched["base"]) == (1.6, 0.7, "cubic")


def test_idle_gap_set_globally_takes_effect(backend, net):
    backend.set_defaults("idle-gap", "60s")
    try:
        assert backend.defaults()["idle_gap_us"] == 60000000
        before = backend.stats()
        flow, _ = net.onoff_flow(1 << 20, 4, idle_ms=100)
        after = backend.stats()
    finally:
        backend.set_defaults("idle-gap", "20ms")
    # 100 ms pauses, detected with the default 20 ms gap, are short of 60 s.
    assert flow["idle_gap_us"] == 60000000
    assert flow["iterations"] == 0
    assert after["tx_start_short_gap"] - before["tx_start_short_gap"] >= 3
    assert after["iterations"] == before["iterations"]


def test_mode_set_globally_reaches_new_flows(backend, net):
    backend.set_defaults("mode", "md")
    try:
        flow, _ = net.onoff_flow(256 << 10, 1, idle_ms=1)
    finally:
        backend.set_defaults("mode", "md-restart")
    assert flow["mode"] == "md"
