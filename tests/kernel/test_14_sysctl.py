# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Each network namespace has its own net.mltcp.* defaults: the module
parameters until the namespace sets its own; out-of-range values are
refused and change nothing; new flows of a namespace latch its defaults
(overridden by their job)."""
import errno
import os

import pytest

from bench.topology import Netns
from nl_ctl import Pair, clear_jobs, ctl, in_netns

SYSCTL = "/proc/sys/net/mltcp/"
PARAMS = "/sys/module/tcp_mltcp/parameters/"
DEFAULTS = {"slope": "1.600", "intercept": "0.200", "idle_gap_us": "20000", "base": "cubic"}
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


def write(path, value):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


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
            write(SYSCTL + name, value + "\n")
        assert err.value.errno == errno.EINVAL
        assert read(name) == before


def test_sysctl_tool_reports_the_refusal(ns):
    proc = ns.run("sysctl", "-w", "net.mltcp.slope=20", check=False)
    assert proc.returncode != 0 and "Invalid argument" in proc.stderr
    ns.run("sysctl", "-w", "net.mltcp.base=reno")
    assert ns.run("sysctl", "-n", "net.mltcp.base").stdout.strip() == "reno"


def test_each_namespace_has_its_own_defaults(ns):
    other = Netns("mtsysctl2")
    try:
        with in_netns(ns.name):
            write(SYSCTL + "slope", "3.25\n")
            write(SYSCTL + "intercept", "0.125\n")
            write(SYSCTL + "idle_gap_us", "5000\n")
            write(SYSCTL + "base", "reno\n")
            assert read("slope") == "3.250" and read("base") == "reno"
            pair = Pair(7150)
            try:
                flow = pair.flow()
                assert flow["slope"] == 3.25 and flow["intercept"] == 0.125
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
            write(SYSCTL + "slope", "3\n")  # this namespace tunes its own
        write(PARAMS + "slope", "2.75\n")
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
            assert read("slope") == "3.000"
    finally:
        write(PARAMS + "slope", saved + "\n")
    assert read("slope") == "1.600"
