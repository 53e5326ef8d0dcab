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
`bench` imports.
"""
import os

import pytest

import dp


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


def pytest_report_header(config):
    return ["datapath backend: %s" % chosen(config)]


@pytest.fixture(scope="session")
def backend(request):
    """The backend, ready: prerequisites checked, loaded (bpf), defaults as shipped."""
    b = dp.Backend(chosen(request.config))
    b.setup()
    yield b
    b.teardown()


@pytest.fixture(scope="session")
def net(backend):
    """The backend's dumbbell (bench/topology.py), one sender and one
    receiver, with on-off sinks on the receiver's JOB_PORT and OTHER_PORT."""
    n = dp.Net(backend)
    yield n
    n.close()


@pytest.fixture
def no_jobs(backend, net):
    """An empty job table before and after the test (pytestmark = usefixtures)."""
    backend.clear_jobs()
    yield
    backend.clear_jobs()
