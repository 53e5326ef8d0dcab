# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Jobs: a flow that selects MLTCP gets the settings of the first job it
matches (ascending id) and the defaults where the job sets none; other flows
get the defaults; exempt flows run at F = 1 and a job may fix the bytes per
iteration; `flow show` lists connections, not listeners.

A fixed iteration size gives F = intercept + slope x r. Jobs are added where the sender's flows look
them up: kmod, the sender namespace's table (-n); bpf, the host's one table."""
import pytest

from dp import DEFAULT_SETTINGS, JOB_PORT, OTHER_PORT, PYTHON

MIB = 1 << 20


pytestmark = pytest.mark.usefixtures("no_jobs")


@pytest.fixture
def flows(net):
    """Opens on-off flows (one 256 KiB burst) that stay open until the test ends."""
    opened = []

    def open_flow(port, cc="mltcp"):
        opened.append(net.onoff(256 << 10, 1, 1, cc=cc, port=port))
        return opened[-1]

    yield open_flow
    for f in opened:
        f.close()


def settings(flow):
    return {k: flow[k] for k in ("slope", "intercept", "idle_gap_us")}


def test_matching_flow_gets_the_job_and_others_the_defaults(backend, net, flows):
    backend.job("add", 1, "dport", JOB_PORT, "slope", 2, "intercept", 0.5)
    match, other = flows(JOB_PORT), flows(OTHER_PORT)
    m, o = match.show(), other.show()
    assert m["job"] == 1 and m["dport"] == JOB_PORT
    assert settings(m) == {"slope": 2.0, "intercept": 0.5, "idle_gap_us": 20000}
    assert m["exempt"] is False and m["ca"] == "mltcp" and m["cookie"] > 0
    assert m["src"] == net.snd.addr and m["dst"] == net.rcv.addr and m["mode"] == "md-restart"
    assert m["base"] == "cubic" and m["iter_fixed"] is False
    assert o["job"] is None and settings(o) == DEFAULT_SETTINGS
    assert o["iter_fixed"] is False
    # The job filter, and the same fields as text.
    assert [f["sport"] for f in net.flows("job", 1)] == [match.sport]
    text = backend.ctl("-n", net.snd.name, "flow", "show", "job", "1").stdout
    assert ":%d -> %s:%d job 1 ca mltcp" % (match.sport, net.rcv.addr, JOB_PORT) in text, text
    assert "slope 2 intercept 0.5" in text, text


def test_fixed_iteration_size_sets_r_and_f(backend, net):
    """F = intercept + slope * r, r = bytes this iteration / the job's fixed size."""
    backend.job("add", 1, "dport", OTHER_PORT, "slope", "2.5", "iter-bytes", "64M")
    f = net.onoff(1 << 20, 1, 1, port=OTHER_PORT)
    try:
        flow = f.show()
        text = backend.ctl("-n", net.snd.name, "flow", "show", "job", 1).stdout
    finally:
        f.close()
    assert flow["job"] == 1 and flow["ca"] == "mltcp"
    assert flow["slope"] == 2.5 and flow["intercept"] == 0.7  # intercept: the default
    assert flow["iter_bytes"] == 64 * MIB and flow["iter_fixed"] is True
    assert flow["idle_gap_us"] == 20000 and flow["base"] == "cubic"
    r = flow["bytes_this_iter"] / (64 * MIB)
    assert abs(flow["r"] - r) <= 0.002
    assert abs(flow["f"] - (0.7 + 2.5 * flow["r"])) <= 0.002
    assert "job 1 ca mltcp base cubic" in text and "iter-bytes 64M fixed" in text, text


def test_listeners_are_not_listed(net):
    """A listener that selected MLTCP has not run its init (no parameters
    latched): flow show skips it."""
    code = ("import socket, sys; s = socket.socket(); "
            "s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b'mltcp'); "
            "s.bind(('0.0.0.0', 7777)); s.listen(); print('listening', flush=True); "
            "sys.stdin.readline()")
    import subprocess
    proc = net.snd.spawn(PYTHON, "-c", code, stdin=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == "listening", proc.stderr.read()
        ss = net.snd.run("ss", "-tlni", "sport", "= :7777").stdout
        assert "mltcp" in ss, ss
        assert [f for f in net.flows() if f["sport"] == 7777] == []
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_first_match_in_ascending_id(backend, flows):
    backend.job("add", 5, "slope", 3)  # no criteria: every flow
    backend.job("add", 2, "dport", JOB_PORT, "slope", 2)
    a, b = flows(JOB_PORT), flows(OTHER_PORT)
    assert (a.show()["job"], a.show()["slope"]) == (2, 2.0)
    assert (b.show()["job"], b.show()["slope"]) == (5, 3.0)


def test_exempt_and_fixed_iteration_bytes(backend, flows):
    backend.job("add", 3, "dport", OTHER_PORT, "exempt", "iter-bytes", "1M", "base", "reno")
    f = flows(OTHER_PORT).show()
    assert f["job"] == 3 and f["exempt"] is True
    assert (f["slope"], f["intercept"], f["f"]) == (0.0, 1.0, 1.0)
    assert f["iter_fixed"] is True and f["iter_bytes"] == 1 << 20 and f["base"] == "reno"
    # mltcp_cubic keeps its own base.
    g = flows(OTHER_PORT, cc="mltcp_cubic").show()
    assert g["job"] == 3 and g["base"] == "cubic"


def test_job_del_returns_later_flows_to_the_defaults(backend, flows):
    backend.job("add", 1, "dport", JOB_PORT, "slope", 2)
    backend.job("del", 1)
    assert backend.jobs() == []
    f = flows(JOB_PORT).show()
    assert f["job"] is None and settings(f) == DEFAULT_SETTINGS
