# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The datapath suite: the same tests against either backend.

  --backend kmod   tcp_mltcp loaded by scripts/vm-run, in the guest;
  --backend bpf    the BPF twin on this kernel (the host's, or a guest's
                   booted with vm-run --no-load): "mltcpctl bpf load" before
                   the first test, "mltcpctl bpf unload" after the last.

The bottleneck is the guest's or the host's (dp.PROFILES), whichever
backend runs there.

Default: $MLTCP_BACKEND, else kmod if the module is loaded, else bpf. Run
from the top of the checkout (python3 -m pytest tests/datapath) so that
`testbed` imports.
"""
import os

import pytest

import dp
from testbed import dmesg_plugin


def pytest_configure(config):
    # The kernel log's check, after the session's last test (in the guest).
    dmesg_plugin.register(config)


def pytest_addoption(parser):
    parser.addoption("--backend", choices=dp.BACKENDS, default=None,
                     help="the datapath under test (default: $MLTCP_BACKEND, else kmod if "
                          "tcp_mltcp is loaded, else bpf)")


def chosen(config):
    name = config.getoption("--backend") or os.environ.get("MLTCP_BACKEND")
    if not name:
        name = "kmod" if os.path.isdir("/sys/module/tcp_mltcp") else "bpf"
    assert name in dp.BACKENDS, "MLTCP_BACKEND=%s: not kmod or bpf" % name
    return name


# Tests of one backend alone, not collected for the other (rather than
# skipped): each runs wherever its backend does (scripts/test).
BACKEND_ONLY = {"test_twin_kernel.py": "bpf"}


def pytest_ignore_collect(collection_path, config):
    only = BACKEND_ONLY.get(collection_path.name)
    return True if only and only != chosen(config) else None


def pytest_report_header(config):
    return ["datapath backend: %s" % chosen(config)]


# The session fixtures' ends, last made first. A session that goes on to
# another suite (scripts/test runs tests/kernel after this one in one
# pytest) must not run it with this suite's module (bound_netns=0) and
# dumbbell: they end after this suite's last test, not at the session's end.
_ends = []


def _end_suite():
    while _ends:
        _ends.pop()()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    here = os.path.dirname(os.path.abspath(__file__))
    if nextitem is None or \
            os.path.dirname(os.path.abspath(str(nextitem.fspath))) != here:
        _end_suite()


@pytest.fixture(scope="session")
def backend(request):
    """The backend, ready: prerequisites checked, loaded (bpf), defaults as
    shipped; the module as it was loaded again after the suite."""
    b = dp.Backend(chosen(request.config))
    _ends.append(b.teardown)
    b.setup()
    yield b
    _end_suite()


@pytest.fixture(scope="session")
def net(backend):
    """The backend's dumbbell (testbed/topology.py), one sender and one
    receiver, with on-off sinks on the receiver's JOB_PORT and OTHER_PORT."""
    n = dp.Net(backend)
    _ends.append(n.close)
    yield n
    _end_suite()


@pytest.fixture
def no_jobs(backend, net):
    """An empty job table before and after the test (pytestmark = usefixtures)."""
    backend.clear_jobs()
    yield
    backend.clear_jobs()
