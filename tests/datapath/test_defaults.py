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



PRIO_OFF = {"classes": 0, "dscp": [], "none_dscp": 0}


def test_prio_is_the_namespaces_on_kmod_and_the_hosts_on_bpf(backend, net):
    """`defaults set prio ...` without global sets progress priority on either
    backend: the sender namespace's net.mltcp.prio_* on the module, the
    host's prio map on the BPF twin; checked whole before anything is
    written. `global` is the module's refusal (it has no module parameter)."""
    ns = ["-n", net.snd.name]

    def prio():
        return backend.ctl_json(*ns, "defaults", "show")["prio"]

    assert prio() == PRIO_OFF
    try:
        backend.ctl(*ns, "defaults", "set", "prio", "2", "prio-dscp", "24,8", "prio-none", "4")
        want = {"classes": 2, "dscp": [24, 8], "none_dscp": 4}
        assert prio() == want
        # A class's code for prio-none: refused whole, nothing written.
        r = backend.ctl(*ns, "defaults", "set", "prio-none", "24", "prio", "3", check=False)
        assert r.returncode == 1 and r.stdout == "" and r.stderr.count("\n") == 1, r
        assert "each class needs a DSCP of its own" in r.stderr, r.stderr
        assert prio() == want
        # Swapping a class's code with prio-none's needs the module's sysctls
        # written through "off" (no order of the three is valid at each step).
        backend.ctl(*ns, "defaults", "set", "prio-dscp", "4,8", "prio-none", "24")
        assert prio() == {"classes": 2, "dscp": [4, 8], "none_dscp": 24}
        r = backend.ctl(*ns, "defaults", "set", "global", "prio-none", "0", check=False)
        if backend.name == "kmod":
            assert r.returncode == 1 and r.stderr.count("\n") == 1, r
            assert "not global" in r.stderr, r.stderr
            assert "prio" not in backend.defaults()
        else:
            assert r.returncode == 0, r
            assert prio()["none_dscp"] == 0
    finally:
        backend.ctl(*ns, "defaults", "set", "prio", "7", "prio-dscp", "8,16,24,32,40,48,56",
                    "prio-none", "0")
        backend.ctl(*ns, "defaults", "set", "prio", "0")
    assert prio() == PRIO_OFF
