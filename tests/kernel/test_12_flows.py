# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Flows get the settings of the job they match when they select MLTCP, a
change of the job reaches its live flows at once, and `flow show` reports
what the module does with each flow."""
import socket

import pytest

from bench.topology import Netns, sh
from nl_ctl import Pair, clear_jobs, ctl, ctl_json, flows, in_netns, jobs, wait_for

MIB = 1 << 20


@pytest.fixture(autouse=True)
def no_jobs_left():
    clear_jobs()
    yield
    clear_jobs()


@pytest.fixture
def pairs():
    opened = []

    def open_pair(*args, **kw):
        pair = Pair(*args, **kw)
        opened.append(pair)
        return pair

    yield open_pair
    for pair in opened:
        pair.close()


def test_job_counts_its_flows(pairs):
    """The module's per-job counters. (What a matching flow latches, F from a
    fixed iteration size, and the defaults of the others: tests/datapath/test_jobs.py.)"""
    ctl("job", "add", 1, "dport", "7101-7102", "slope", "2.5", "iter-bytes", "64M")
    matched = pairs(7101)
    pairs(7103)
    matched.send(200000)
    flow = wait_for(lambda: matched.flow())
    assert flow["job"] == 1
    job = ctl_json("job", "show", 1)[0]
    assert job["flows"] == 1 and job["flows_total"] == 1


def test_job_change_reaches_the_live_flow(pairs):
    ctl("job", "add", 2, "dport", 7104, "slope", "2.5", "iter-bytes", "1M")
    pair = pairs(7104)
    cubic = pairs(7105, cc="mltcp_cubic")
    ctl("job", "set", 2, "dport", "7104-7105")  # criteria: new flows only
    assert cubic.flow()["job"] is None
    pair.send(100000)
    assert pair.flow()["slope"] == 2.5

    ctl("job", "set", 2, "slope", "0.5", "intercept", "1", "iter-bytes", "4M",
        "idle-gap", "7ms", "base", "reno")
    flow = pair.flow()  # no traffic needed: the change is applied under the socket lock
    assert flow["job"] == 2
    assert flow["slope"] == 0.5 and flow["intercept"] == 1.0
    assert flow["iter_bytes"] == 4 * MIB and flow["iter_fixed"] is True
    assert flow["idle_gap_us"] == 7000 and flow["base"] == "reno"
    # The datapath computes with the new numbers while the flow runs: 2 MB
    # of the 4M iteration, r about 1/2.
    pair.burst(2000000, 0)
    flow = pair.flow()
    assert 0.45 < flow["r"] < 0.55, flow
    assert abs(flow["f"] - (1.0 + 0.5 * flow["r"])) <= 0.002, flow

    ctl("job", "set", 2, "slope", "default", "iter-bytes", "default", "exempt")
    flow = pair.flow()
    assert flow["exempt"] is True and flow["f"] == 1.0 and flow["iter_fixed"] is False

    ctl("job", "del", 2)
    flow = pair.flow()
    assert flow["job"] is None and flow["exempt"] is False
    assert flow["slope"] == 1.6 and flow["intercept"] == 0.2 and flow["base"] == "cubic"
    assert flow["idle_gap_us"] == 20000


def job_of(pair):
    """The job of the pair's client flow; on failure the message shows every
    flow and job, so a flake in CI can be read from its log alone."""
    flow = pair.flow()
    assert flow is not None, ("no flow with cookie %d (sport %d)" % (pair.cookie, pair.sport),
                              flows(), jobs())
    return flow["job"]


def test_criteria_and_first_match(pairs):
    ctl("job", "add", 10, "mark", "0x5/0xf")
    ctl("job", "add", 20, "peer", "127.0.0.0/8", "dport", "7110-7119")
    ctl("job", "add", 30)  # no criteria: every flow
    ctl("job", "add", 40, "sport", "7301")
    marked = pairs(7111, mark=0x25)
    by_peer = pairs(7112)
    v6 = pairs(7113, family=socket.AF_INET6, host="::1")
    other = pairs(7200)
    assert job_of(marked) == 10, flows()  # 20 and 30 match too: the lowest id wins
    assert job_of(by_peer) == 20, flows()
    assert job_of(v6) == 30, flows()  # an IPv4 prefix never matches an IPv6 peer
    assert job_of(other) == 30, flows()
    ctl("job", "del", 30)
    assert job_of(other) is None, flows()
    ctl("job", "add", 25, "peer", "::1/128", "slope", "3")
    assert job_of(v6) is None, flows()  # matched only when it chose MLTCP
    v6b = pairs(7114, family=socket.AF_INET6, host="::1")
    assert job_of(v6b) == 25 and v6b.flow()["slope"] == 3.0, flows()
    by_sport = pairs(7300, sport=7301)
    assert job_of(by_sport) == 40, flows()
    counts = {j["id"]: j["flows"] for j in ctl_json("job", "show")}
    assert counts == {10: 1, 20: 1, 25: 1, 40: 1}, (counts, flows())


def test_job_counters(pairs):
    ctl("job", "add", 5, "dport", 7120, "idle-gap", "5ms")
    pair = pairs(7120)
    sent = 0
    for _ in range(6):
        pair.burst(150000, 0.05)
        sent += 150000
    job = ctl_json("job", "show", 5)[0]
    assert job["flows"] == 1
    assert job["iterations"] >= 5, job  # each burst after the first starts one
    assert 5 * 150000 <= job["bytes"] <= sent
    pair.close()
    job = wait_for(lambda: (lambda j: j if j["flows"] == 0 else None)(ctl_json("job", "show", 5)[0]))
    assert job["flows"] == 0 and job["flows_total"] == 1
    assert sent <= job["bytes"] <= sent + 1  # the rest counted at close (+1: the FIN)


def test_flows_of_a_namespace_with_a_private_hash():
    """Flows are found in the namespace's own established hash too."""
    sh("sysctl", "-w", "net.ipv4.tcp_child_ehash_entries=256")
    try:
        ns = Netns("mtnlpriv")
    finally:
        sh("sysctl", "-w", "net.ipv4.tcp_child_ehash_entries=0")
    try:
        ctl("-n", ns.name, "job", "add", 1, "dport", 7130, "slope", "4")
        with in_netns(ns.name):
            pair = Pair(7130)
            try:
                flow = pair.flow()
                assert flow["job"] == 1 and flow["slope"] == 4.0
                ctl("job", "set", 1, "slope", "5")
                assert pair.flow()["slope"] == 5.0
            finally:
                pair.close()
        assert flows() == [] or all(f["sport"] != pair.sport for f in flows())
    finally:
        ns.close()


def test_monitor_refreshes_r_and_f(pairs):
    ctl("job", "add", 6, "dport", 7140, "iter-bytes", "1M")
    pair = pairs(7140)
    pair.send(300000)
    out = ctl("-j", "monitor", "job", 6, "interval", "50ms", "count", 3).stdout.splitlines()
    assert len(out) == 3
    import json
    for line in out:
        snapshot = json.loads(line)
        assert len(snapshot) == 1 and snapshot[0]["job"] == 6
        assert set(snapshot[0]) >= {"r", "f", "cwnd", "src", "dst", "sport", "dport"}
    text = ctl("monitor", "count", 1).stdout
    assert "r 0." in text and " F " in text
    assert len(jobs()) == 1
