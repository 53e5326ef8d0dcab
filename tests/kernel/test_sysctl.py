# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Each network namespace has its own net.mltcp.* defaults: the module
parameters until the namespace sets its own; out-of-range values are
refused and change nothing; new flows of a namespace latch its defaults
(overridden by their job). "mltcpctl defaults" reads and writes them: the
namespace's sysctls, or with "global" the module parameters."""
import errno

import pytest

from testbed.topology import Netns
from netlab import write_file
from nl_ctl import NOBODY, Pair, clear_jobs, ctl, ctl_json, error_line, in_netns

SYSCTL = "/proc/sys/net/mltcp/"
PARAMS = "/sys/module/tcp_mltcp/parameters/"
DEFAULTS = {"slope": "1.600", "intercept": "0.700", "idle_gap_us": "20000", "base": "cubic"}
BAD = [
    ("slope", "16.001"), ("slope", "17"), ("slope", "-1"), ("slope", "abc"), ("slope", "1."),
    ("slope", ""), ("slope", "0x2"), ("slope", "1.5 "), ("slope", "1" * 30),
    ("intercept", "16.5"), ("intercept", "1.1234567"),
    ("idle_gap_us", "999"), ("idle_gap_us", "60000001"), ("idle_gap_us", "-5"),
    ("idle_gap_us", "20ms"), ("idle_gap_us", "99999999999"),
    ("base", "bbr"), ("base", ""), ("base", "RENO"),
]


def read(name):
    with open(SYSCTL + name) as f:
        return f.read().strip()


def param(name):
    with open(PARAMS + name) as f:
        return f.read().strip()


def everything(ns_name):
    """Every default the module has: the namespace's sysctls and the parameters."""
    with in_netns(ns_name):
        own = {k: read(k) for k in DEFAULTS}
    return own, {k: param(k) for k in list(DEFAULTS) + ["mode"]}


@pytest.fixture
def ns():
    n = Netns("mtsysctl")
    yield n
    n.close()


def test_defaults_come_from_the_module_parameters():
    assert {k: read(k) for k in DEFAULTS} == DEFAULTS


@pytest.mark.parametrize("name,value", BAD)
def test_bad_value_is_refused_and_changes_nothing(ns, name, value):
    with in_netns(ns.name):
        before = read(name)
        with pytest.raises(OSError) as err:
            write_file(SYSCTL + name, value + "\n")
        assert err.value.errno == errno.EINVAL
        assert read(name) == before


def test_idle_gap_takes_a_leading_plus(ns):
    """net.mltcp.idle_gap_us is a decimal integer (kstrtou32, base 10):
    a leading "+" is accepted, hex is not."""
    with in_netns(ns.name):
        write_file(SYSCTL + "idle_gap_us", "+5000\n")
        assert read("idle_gap_us") == "5000"
        with pytest.raises(OSError) as err:
            write_file(SYSCTL + "idle_gap_us", "0x4e20\n")
        assert err.value.errno == errno.EINVAL
        assert read("idle_gap_us") == "5000"


def test_sysctl_tool_reports_the_refusal(ns):
    proc = ns.run("sysctl", "-w", "net.mltcp.slope=20", check=False)
    assert proc.returncode != 0 and "Invalid argument" in proc.stderr
    ns.run("sysctl", "-w", "net.mltcp.base=reno")
    assert ns.run("sysctl", "-n", "net.mltcp.base").stdout.strip() == "reno"


def test_each_namespace_has_its_own_defaults(ns):
    other = Netns("mtsysctl2")
    try:
        with in_netns(ns.name):
            write_file(SYSCTL + "slope", "1.25\n")
            write_file(SYSCTL + "intercept", "0.125\n")
            write_file(SYSCTL + "idle_gap_us", "5000\n")
            write_file(SYSCTL + "base", "reno\n")
            assert read("slope") == "1.250" and read("base") == "reno"
            pair = Pair(7150)
            try:
                flow = pair.flow()
                assert flow["slope"] == 1.25 and flow["intercept"] == 0.125
                assert flow["idle_gap_us"] == 5000 and flow["base"] == "reno"
                # A job overrides only what it sets.
                ctl("job", "add", 1, "dport", 7151, "slope", "2")
                jobbed = Pair(7151)
                try:
                    f = jobbed.flow()
                    assert f["slope"] == 2.0 and f["intercept"] == 0.125 and f["base"] == "reno"
                finally:
                    jobbed.close()
                clear_jobs()
            finally:
                pair.close()
        with in_netns(other.name):
            assert {k: read(k) for k in DEFAULTS} == DEFAULTS
        assert {k: read(k) for k in DEFAULTS} == DEFAULTS
    finally:
        other.close()


def test_module_parameters_are_the_default_until_a_namespace_sets_its_own(ns):
    saved = open(PARAMS + "slope").read().strip()
    try:
        with in_netns(ns.name):
            write_file(SYSCTL + "slope", "1.5\n")  # this namespace tunes its own
        write_file(PARAMS + "slope", "2.75\n")
        fresh = Netns("mtsysctl3")
        try:
            with in_netns(fresh.name):
                assert read("slope") == "2.750"  # seeded from the parameter
        finally:
            fresh.close()
        assert read("slope") == "2.750"  # never set here: follows the parameter
        pair = Pair(7152)
        try:
            assert pair.flow()["slope"] == 2.75
        finally:
            pair.close()
        with in_netns(ns.name):
            assert read("slope") == "1.500"
    finally:
        write_file(PARAMS + "slope", saved + "\n")
    assert read("slope") == "1.600"


# ---- mltcpctl defaults ----


def test_mltcpctl_sets_a_namespace_and_sysctl_reads_it_back(ns):
    other = Netns("mtsysctl4")
    try:
        ctl("-n", ns.name, "defaults", "set", "slope", "1.25", "intercept", "0.125", "idle-gap",
            "5ms", "base", "reno")
        assert ns.run("sysctl", "-n", "net.mltcp.slope").stdout.strip() == "1.250"
        with in_netns(ns.name):
            assert {k: read(k) for k in DEFAULTS} == {
                "slope": "1.250", "intercept": "0.125", "idle_gap_us": "5000", "base": "reno"}
        assert ctl_json("-n", ns.name, "defaults", "show") == {
            "backend": "kmod", "scope": "netns", "slope": 1.25, "intercept": 0.125,
            "idle_gap_us": 5000, "base": "reno", "mode": param("mode"),
            "prio": {"classes": 0, "dscp": [], "none_dscp": 0}}
        assert ctl("-n", ns.name, "defaults", "show").stdout == (
            "slope 1.25 intercept 0.125 idle-gap 5ms base reno mode %s\n" % param("mode"))
        # Through "ip netns exec" too, and nowhere else.
        assert ctl_json("defaults", "show", netns=ns.name)["slope"] == 1.25
        assert ctl_json("-n", other.name, "defaults", "show")["slope"] == 1.6
        assert {k: read(k) for k in DEFAULTS} == DEFAULTS
        assert param("slope") == "1.600"
        # The exact value typed reaches the kernel, which rounds it as mltcpctl did.
        ctl("-n", ns.name, "defaults", "set", "slope", "0.0625")
        # 64/1024 reads back as itself, not as "0.063" (65/1024 when written back).
        assert ns.run("sysctl", "-n", "net.mltcp.slope").stdout.strip() == "0.0625"
        ns.run("sysctl", "-q", "-w", "net.mltcp.slope=%s" % ns.run(
            "sysctl", "-n", "net.mltcp.slope").stdout.strip())
        with in_netns(ns.name):
            pair = Pair(7153)
            try:
                assert pair.flow()["slope"] == 0.0625
            finally:
                pair.close()
    finally:
        other.close()


def test_mltcpctl_sets_the_global_defaults(ns):
    saved = {k: param(k) for k in list(DEFAULTS) + ["mode"]}
    try:
        with in_netns(ns.name):
            write_file(SYSCTL + "intercept", "0.5\n")  # this namespace tunes its own
        ctl("defaults", "set", "global", "slope", "2.75", "intercept", "0.3", "mode", "md")
        assert param("slope") == "2.750" and param("intercept") == "0.300"
        assert param("mode") == "md"
        assert ctl_json("defaults", "show", "global") == {
            "backend": "kmod", "scope": "global", "slope": 2.75, "intercept": 0.3,
            "idle_gap_us": 20000, "base": "cubic", "mode": "md"}
        # Namespaces that did not set their own value follow; the tuned one keeps it.
        assert ctl_json("defaults", "show")["slope"] == 2.75
        own = ctl_json("-n", ns.name, "defaults", "show")
        assert (own["slope"], own["intercept"], own["mode"]) == (2.75, 0.5, "md")
        pair = Pair(7154)
        try:
            flow = pair.flow()
            assert (flow["slope"], flow["intercept"], flow["mode"]) == (2.75, 0.3, "md")
        finally:
            pair.close()
    finally:
        for k, v in saved.items():
            write_file(PARAMS + k, v + "\n")
    assert {k: param(k) for k in saved} == saved


@pytest.mark.parametrize("args,message", [
    (("defaults", "set", "slope", "1", "mode", "md"),
     "mode: global only (defaults set global mode MODE)"),
    (("defaults", "set", "slope", "16.001"), "slope 16.001: out of range (allowed 0 to 16)"),
    (("defaults", "set", "intercept", "-1"), 'intercept "-1": not a decimal number'),
    (("defaults", "set", "idle-gap", "999us"), "idle-gap 999us: out of range"),
    (("defaults", "set", "idle-gap", "20000"), 'idle-gap "20000": not a duration'),
    (("defaults", "set", "base", "bbr"), 'unknown base "bbr"'),
    (("defaults", "set", "global", "mode", "fast"), 'unknown mode "fast"'),
    (("defaults", "set", "global", "slope", "2", "base", "RENO"), 'unknown base "RENO"'),
    (("defaults", "set"), "defaults set needs a setting"),
])
def test_mltcpctl_refusals_change_nothing(ns, args, message):
    before = everything(ns.name)
    line = error_line(ctl("-n", ns.name, *args, check=False))
    assert line.startswith("mltcpctl: ") and message in line, line
    assert everything(ns.name) == before


def test_mltcpctl_unprivileged_writes_are_refused(ns):
    before = everything(ns.name)
    for args in (("defaults", "set", "slope", "2", "base", "reno"),
                 ("defaults", "set", "global", "slope", "2")):
        proc = ctl(*args, user=NOBODY, check=False)
        assert proc.returncode == 1
        assert error_line(proc) == ("mltcpctl: permission denied: changing the defaults "
                                    "needs CAP_NET_ADMIN")
    assert everything(ns.name) == before
    # Reading is not privileged.
    assert ctl_json("defaults", "show", user=NOBODY)["slope"] == 1.6
    assert ctl_json("defaults", "show", "global", user=NOBODY)["mode"] == param("mode")


# ---- progress priority ----

PRIO_DEFAULTS = {"prio_classes": "0", "prio_dscp": "8 16 24 32 40 48 56", "prio_none_dscp": "0"}
PRIO_BAD = [
    ("prio_classes", "8"), ("prio_classes", "-1"), ("prio_classes", "+4"),
    ("prio_classes", "4x"), ("prio_classes", ""), ("prio_classes", "256"),
    ("prio_dscp", "64"), ("prio_dscp", "8 16 "), ("prio_dscp", "8;16"), ("prio_dscp", ""),
    ("prio_dscp", "1 2 3 4 5 6 7 8"), ("prio_dscp", "8  16"), ("prio_dscp", "1" * 40),
    ("prio_none_dscp", "64"), ("prio_none_dscp", "-1"), ("prio_none_dscp", "x"),
]


def prio():
    return {k: read(k) for k in PRIO_DEFAULTS}


def test_prio_is_off_with_class_selector_codes():
    assert prio() == PRIO_DEFAULTS


@pytest.mark.parametrize("name,value", PRIO_BAD)
def test_prio_bad_value_is_refused_and_changes_nothing(ns, name, value):
    with in_netns(ns.name):
        write_file(SYSCTL + "prio_classes", "4\n")
        before = prio()
        with pytest.raises(OSError) as err:
            write_file(SYSCTL + name, value + "\n")
        assert err.value.errno == errno.EINVAL
        assert prio() == before


def test_prio_configuration_is_checked_whole(ns):
    """Two classes in use sharing a code, or a class sharing the code a flow
    gets back without one, cannot be told apart on the wire: refused,
    whichever of the three writes would make it."""
    with in_netns(ns.name):
        write_file(SYSCTL + "prio_dscp", "10 12 10\n")  # class 2's code is class 0's...
        write_file(SYSCTL + "prio_classes", "2\n")      # ... harmless while K is 2
        with pytest.raises(OSError) as err:
            write_file(SYSCTL + "prio_classes", "3\n")
        assert err.value.errno == errno.EINVAL
        with pytest.raises(OSError) as err:
            write_file(SYSCTL + "prio_none_dscp", "12\n")
        assert err.value.errno == errno.EINVAL
        with pytest.raises(OSError) as err:
            write_file(SYSCTL + "prio_dscp", "12,12\n")
        assert err.value.errno == errno.EINVAL
        assert prio() == {"prio_classes": "2", "prio_dscp": "10 12 10 32 40 48 56",
                          "prio_none_dscp": "0"}
        # A comma list is taken too; what is read back is spaced.
        write_file(SYSCTL + "prio_dscp", "1,2,3,4,5,6,7\n")
        write_file(SYSCTL + "prio_classes", "7\n")
        assert read("prio_dscp") == "1 2 3 4 5 6 7"


def test_prio_is_each_namespaces_own(ns):
    other = Netns("mtsysctl5")
    try:
        with in_netns(ns.name):
            write_file(SYSCTL + "prio_classes", "4\n")
            write_file(SYSCTL + "prio_none_dscp", "1\n")
        ns.run("sysctl", "-q", "-w", "net.mltcp.prio_dscp=9 17 25 33")
        assert ns.run("sysctl", "-n", "net.mltcp.prio_dscp").stdout.strip() == \
            "9 17 25 33 40 48 56"
        with in_netns(other.name):
            assert prio() == PRIO_DEFAULTS
        assert prio() == PRIO_DEFAULTS
    finally:
        other.close()
