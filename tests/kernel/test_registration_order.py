# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The module registers its algorithms last and unregisters them first
(issue 12, finding 5), as tcp_cubic and tcp_bbr do: once a name is
registered a socket may select it, so everything its hooks use must be in
place before, and nothing after it may fail. Observed with the function
tracer on the registration calls while insmod and rmmod run."""
import os

import pytest

from conftest import load_module, unload_module

TRACING = "/sys/kernel/tracing"
CALLS = ("register_pernet_subsys", "unregister_pernet_subsys", "genl_register_family",
         "genl_unregister_family", "tcp_register_congestion_control",
         "tcp_unregister_congestion_control")


def put(name, text):
    with open(os.path.join(TRACING, name), "w") as f:
        f.write(text)


@pytest.fixture
def tracer():
    """Traces CALLS; yields a function that returns the calls made by
    processes named comm since the last call, in order."""
    if not os.path.exists(os.path.join(TRACING, "set_ftrace_filter")):
        pytest.fail("no function tracer in the guest kernel (tracefs at %s)" % TRACING)
    put("tracing_on", "0")
    put("set_ftrace_filter", " ".join(CALLS) + "\n")
    put("current_tracer", "function")
    put("trace", "")
    put("tracing_on", "1")

    def calls(comm):
        with open(os.path.join(TRACING, "trace")) as f:
            lines = [line for line in f if not line.startswith("#")]
        put("trace", "")
        out = []
        for line in lines:
            task, _, rest = line.strip().partition(" ")
            if task.rsplit("-", 1)[0] != comm:
                continue
            fn = rest.split(":", 1)[1].split()[0] if ":" in rest else ""
            out.append(fn)
        return out

    yield calls
    put("tracing_on", "0")
    put("current_tracer", "nop")
    put("set_ftrace_filter", "\n")


def test_algorithms_registered_last_and_unregistered_first(fresh_module, tracer):
    proc = load_module()
    assert proc.returncode == 0, proc.stderr
    assert tracer("insmod") == [
        "register_pernet_subsys", "register_pernet_subsys",  # net.mltcp.*, the job tables
        "genl_register_family",
        "tcp_register_congestion_control", "tcp_register_congestion_control",
        "tcp_register_congestion_control",
    ]
    proc = unload_module()
    assert proc.returncode == 0, proc.stderr
    assert tracer("rmmod") == [
        "tcp_unregister_congestion_control", "tcp_unregister_congestion_control",
        "tcp_unregister_congestion_control",
        "genl_unregister_family",
        "unregister_pernet_subsys", "unregister_pernet_subsys",
    ]
