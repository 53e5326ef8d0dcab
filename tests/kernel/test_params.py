# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Out-of-range parameters are refused, at load time and through sysfs, and
refusing them changes nothing."""
import errno
import os

import pytest

from conftest import load_module, module_loaded

PARAMS = "/sys/module/tcp_mltcp/parameters/"

BAD = [
    "slope=16.001", "slope=17", "slope=-1", "slope=abc", "slope=1.", "slope=0x2",
    "intercept=16.5", "intercept=1.1234567",
    "idle_gap_us=999", "idle_gap_us=60000001", "idle_gap_us=-5", "idle_gap_us=20ms",
    "base=bbr", "base=", "mode=fast", "mode=AI ", "mode=md+restart",
]


@pytest.mark.parametrize("param", BAD)
def test_bad_value_is_refused_at_load(fresh_module, param):
    proc = load_module(param)
    assert proc.returncode != 0
    assert "Invalid" in proc.stderr or "invalid" in proc.stderr, proc.stderr
    assert not module_loaded()


def test_good_values_load_and_read_back(fresh_module):
    proc = load_module("slope=2.5", "intercept=0", "idle_gap_us=5000", "base=reno",
                       "mode=both")
    assert proc.returncode == 0, proc.stderr
    expect = {"slope": "2.500", "intercept": "0.000", "idle_gap_us": "5000",
              "base": "reno", "mode": "both"}
    for name, value in expect.items():
        with open(PARAMS + name) as f:
            assert f.read().strip() == value


def write_param(name, value):
    fd = os.open(PARAMS + name, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def read_param(name):
    with open(PARAMS + name) as f:
        return f.read().strip()


@pytest.mark.parametrize("param", BAD)
def test_bad_value_is_refused_through_sysfs(param):
    name, value = param.split("=", 1)
    before = read_param(name)
    with pytest.raises(OSError) as err:
        write_param(name, value + "\n")
    assert err.value.errno == errno.EINVAL
    assert read_param(name) == before


def test_good_values_through_sysfs():
    saved = {n: read_param(n) for n in ("slope", "intercept", "base", "mode")}
    try:
        write_param("slope", "3.25\n")
        write_param("intercept", "0.125\n")
        write_param("base", "reno\n")
        write_param("mode", "md\n")
        assert read_param("slope") == "3.250"
        assert read_param("intercept") == "0.125"
        assert read_param("base") == "reno"
        assert read_param("mode") == "md"
        for mode in ("ai", "md", "both", "restart", "ai-restart", "md-restart", "both-restart",
                     "gate", "ai-gate", "md-gate", "both-gate"):
            write_param("mode", mode + "\n")
            assert read_param("mode") == mode
    finally:
        for name, value in saved.items():
            write_param(name, value + "\n")
    assert {n: read_param(n) for n in saved} == saved


def test_idle_gap_keeps_the_kernels_integer_syntax():
    """idle_gap_us has always been a uint parameter (kstrtouint, base 0):
    "0x" hex and a leading "+" are accepted, and the value reads back in
    decimal."""
    saved = read_param("idle_gap_us")
    try:
        write_param("idle_gap_us", "0x4e20\n")
        assert read_param("idle_gap_us") == "20000"
        write_param("idle_gap_us", "+5000\n")
        assert read_param("idle_gap_us") == "5000"
    finally:
        write_param("idle_gap_us", saved + "\n")
    assert read_param("idle_gap_us") == saved
