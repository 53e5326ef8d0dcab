# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Fixtures for the integration suite, which runs as root inside the test guest
(scripts/vm-run) with tcp_mltcp.ko already loaded."""
import os
import platform
import subprocess
import time

import pytest

import netlab
import tracefs
from testbed import dmesg_plugin
from testbed.topology import sh

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = os.environ.get("MLTCP_KO", os.path.join(TOP, "tcp_mltcp.ko"))
NAMES = ("mltcp", "mltcp_reno", "mltcp_cubic")


def pytest_configure(config):
    # The kernel log's check, after the session's last test.
    dmesg_plugin.register(config)


def pytest_report_header(config):
    info = sh("modinfo", "-F", "version", MODULE, check=False).stdout.strip()
    src = sh("modinfo", "-F", "srcversion", MODULE, check=False).stdout.strip()
    return ["guest kernel: %s" % platform.release(),
            "module: %s (version %s, srcversion %s), loaded: %s"
            % (MODULE, info, src, module_loaded())]


def module_loaded():
    return os.path.isdir("/sys/module/tcp_mltcp")


def load_module(*params):
    return sh("insmod", MODULE, *params, check=False)


def unload_module(timeout=10.0):
    """rmmod, retrying while sockets that used the module finish closing."""
    deadline = time.time() + timeout
    while True:
        proc = sh("rmmod", "tcp_mltcp", check=False)
        if proc.returncode == 0 or time.time() > deadline:
            return proc
        time.sleep(0.2)


@pytest.fixture
def fresh_module():
    """The module unloaded before the test; loaded with defaults after it."""
    if module_loaded():
        proc = unload_module()
        assert proc.returncode == 0, proc.stderr
    yield
    if module_loaded():
        unload_module()
    proc = load_module()
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(autouse=True)
def module_is_loaded():
    """Loaded, and with the shipped bound at each test's start (a test that
    loads bound_netns=0 puts the module back): a suite before this one in
    the same guest (tests/datapath loads bound_netns=0 for its run) or a
    test that left the opt-out loaded would otherwise pass or fail the
    tests here for the wrong reason."""
    assert module_loaded(), "tcp_mltcp is not loaded: vm-run should have loaded it"
    bound = open("/sys/module/tcp_mltcp/parameters/bound_netns").read().strip()
    assert bound == "Y", "tcp_mltcp was left loaded with bound_netns=%s" % bound


@pytest.fixture
def dumbbell(request):
    opts = getattr(request, "param", {})
    net = netlab.dumbbell(**opts)
    yield net
    net.close()


def py_in(netns, code, user=None, check=True):
    """Run a Python snippet in a namespace (and as another user); return stdout."""
    cmd = []
    if netns:
        cmd += ["ip", "netns", "exec", netns]
    if user is not None:
        cmd += ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"]
    cmd += ["/usr/bin/python3", "-c", code]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return proc


@pytest.fixture
def tracing():
    """The mltcp:mltcp_iteration event on, its buffer empty; off after."""
    tracefs.start()
    yield
    tracefs.stop()
