# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcpctl against the BPF backend on this machine's own kernel, no VM, where
it differs from the module: backend selection, the one host-wide job table
(64 slots, gone at unload, no re-latch of live flows), refusals that change
nothing, privileges, "mltcpctl bpf status", and what "mltcpctl export"
reports there. Job matching and flow show alike on both backends are in
tests/datapath/test_jobs.py.

This host cannot load modules, so the tcp_mltcp family never resolves here
and auto-selection must pick the BPF backend.

Needs root. The tool is $MLTCPCTL_TOOL, else build/userspace/mltcpctl/mltcpctl.
Run: tests/bpf/run.sh
"""
import contextlib
import json
import os
import struct
from pathlib import Path

import pytest

from hostnet import ONOFF, ns_popen, run, veth_pair
from testbed.paths import TRUST_ITERS

TOP = Path(__file__).resolve().parents[2]
PIN_DIR = Path("/sys/fs/bpf/mltcp")
PREFIX = f"mc{os.getpid()}"
NS_SEND, NS_RECV = PREFIX + "a", PREFIX + "b"
SEND_IP, RECV_IP = "10.232.0.1", "10.232.0.2"
JOB_PORT, OTHER_PORT = 5201, 9000
TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
DEFAULTS = {"slope": 1.6, "intercept": 0.7, "idle_gap_us": 20000}


def ctl(*args, check=True):
    return run(TOOL, *args, check=check)


def ctl_json(*args):
    return json.loads(ctl("-j", *args).stdout)


def refused(*args, code=1, user=None):
    """Runs mltcpctl expecting a one-line error; returns it."""
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if user else []
    r = run(*prefix, TOOL, *args, check=False)
    assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("mltcpctl: "), r.stderr
    return r.stderr


@pytest.fixture(scope="module")
def pair():
    """Two namespaces on a veth; sinks on the job's port and on another one."""
    with veth_pair(PREFIX, (NS_SEND, SEND_IP), (NS_RECV, RECV_IP), [JOB_PORT, OTHER_PORT]):
        yield


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """The BPF backend loaded through mltcpctl itself; unloaded at the end."""
    assert os.geteuid() == 0, "the BPF host tests need root"
    assert TOOL.exists(), f"{TOOL} is not built"
    assert not Path("/sys/module/tcp_mltcp").exists(), "these tests expect no tcp_mltcp module"
    ctl("bpf", "unload", check=False)
    out = ctl_json("bpf", "load")
    assert out["loaded"] and out["backend"] == "bpf"
    yield
    ctl("bpf", "unload", check=False)


@pytest.fixture(autouse=True)
def no_jobs():
    for job in ctl_json("-b", "bpf", "job", "show"):
        ctl("job", "del", job["id"])
    yield


class Flow:
    """An on-off connection from NS_SEND, open until closed."""

    def __init__(self, port, cc="mltcp"):
        self.proc = ns_popen(NS_SEND, "/usr/bin/python3", ONOFF, "send", RECV_IP, port, cc,
                             256 << 10, 1, 1)
        line = self.proc.stdout.readline().split()
        assert line and line[0] == "sport", self.proc.stderr.read()
        self.sport = int(line[1])
        assert self.proc.stdout.readline().strip() == "done", self.proc.stderr.read()

    def show(self, *filter_args):
        flows = ctl_json("-n", NS_SEND, "flow", "show", *filter_args)
        mine = [f for f in flows if f["sport"] == self.sport]
        assert len(mine) == 1, flows
        return mine[0]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def settings(flow):
    return {k: flow[k] for k in ("slope", "intercept", "idle_gap_us")}


# ---- backend selection ----


def test_auto_picks_bpf_without_the_module():
    assert ctl_json("job", "show") == []
    assert ctl_json("-b", "auto", "job", "show") == []


def test_kmod_override_fails_with_one_line():
    err = refused("-b", "kmod", "job", "show")
    assert "tcp_mltcp module is not loaded" in err
    err = refused("-b", "kmod", "flow", "show")
    assert "tcp_mltcp module is not loaded" in err


def test_nothing_loaded_names_both_backends():
    ctl("bpf", "unload")
    try:
        err = refused("job", "show")
        assert "tcp_mltcp module is not loaded" in err and "BPF backend is not loaded" in err
        err = refused("-b", "bpf", "flow", "show")
        assert "BPF backend is not loaded" in err
    finally:
        ctl("bpf", "load")


def test_bpf_status():
    st = ctl_json("bpf", "status")
    assert st["loaded"] and st["backend"] == "bpf"
    assert set(st) == {"backend", "loaded", "pin_dir", "pinned", "registered", "flows",
                       "params", "prio", "stats", "struct_ops"}
    assert (PIN_DIR / "jobs").exists()
    text = ctl("bpf", "status").stdout.splitlines()
    assert text[:4] == ["backend bpf", f"loaded yes (pinned in {PIN_DIR})",
                        "registered mltcp mltcp_reno mltcp_cubic",
                        "defaults slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode "
                        "md-restart"], text
    assert text[4].startswith("stats flows_started ") and text[5].startswith("struct_ops mltcp ")
    assert ctl("bpf").stdout.splitlines() == text
    err = refused("bpf", "frobnicate", code=2)
    assert "unknown bpf command" in err


# ---- jobs and flows ----


def test_job_round_trip():
    ctl("job", "add", 1, "dport", JOB_PORT, "slope", 2, "intercept", 0.5)
    ctl("job", "add", 4, "peer", "10.232.0.0/16", "mark", "0x10/0xf0", "sport", "1000-2000",
        "idle-gap", "30ms", "iter-bytes", "64M", "base", "reno", "exempt")
    jobs = ctl_json("job", "show")
    assert jobs == [
        {"id": 1, "dport": {"min": JOB_PORT, "max": JOB_PORT}, "slope": 2.0, "intercept": 0.5,
         "exempt": False, "marked": False},
        {"id": 4, "sport": {"min": 1000, "max": 2000}, "peer": "10.232.0.0/16", "mark": 0x10,
         "mark_mask": 0xf0, "idle_gap_us": 30000, "iter_bytes": 64 << 20, "base": "reno",
         "exempt": True, "marked": False},
    ]
    assert ctl_json("job", "show", 4) == [jobs[1]]
    assert ctl("job", "show", 1).stdout == (
        f"job 1 dport {JOB_PORT} slope 2 intercept 0.5\n")


def test_job_set_changes_later_flows(pair):
    with contextlib.ExitStack() as opened:
        def flows(port):
            flow = Flow(port)
            opened.callback(flow.close)
            return flow

        ctl("job", "add", 1, "dport", JOB_PORT, "slope", 2, "intercept", 0.5)
        before = flows(JOB_PORT)
        ctl("job", "set", 1, "slope", 3, "intercept", "default", "idle-gap", "50ms")
        assert ctl_json("job", "show", 1)[0] == {
            "id": 1, "dport": {"min": JOB_PORT, "max": JOB_PORT}, "slope": 3.0,
            "idle_gap_us": 50000, "exempt": False, "marked": False}
        after = flows(JOB_PORT)
        assert settings(after.show()) == {"slope": 3.0, "intercept": 0.7, "idle_gap_us": 50000}
        # Latched at init: the BPF backend cannot re-latch live flows.
        assert settings(before.show()) == {"slope": 2.0, "intercept": 0.5, "idle_gap_us": 20000}
        ctl("job", "set", 1, "dport", "any")
        assert flows(OTHER_PORT).show()["job"] == 1


def test_syn_sent_sockets_are_not_listed(pair):
    """A connection still in SYN_SENT (to a peer that never answers) has not
    run its init either; the listing skips it and still succeeds."""
    code = ("import socket, sys; s = socket.socket(); "
            "s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b'mltcp'); "
            "s.setblocking(False); s.connect_ex(('10.232.0.99', 7778)); "
            "print(s.getsockname()[1], flush=True); sys.stdin.readline()")
    proc = ns_popen(NS_SEND, "/usr/bin/python3", "-c", code)
    try:
        sport = int(proc.stdout.readline())
        ss = run("ip", "netns", "exec", NS_SEND, "ss", "-tni", "state", "syn-sent",
                 "sport", f"= :{sport}").stdout
        assert "mltcp" in ss, ss
        assert [f for f in ctl_json("-n", NS_SEND, "flow", "show") if f["sport"] == sport] == []
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


# struct mltcp_bpf_job_slot: lock, marks; the spec (id, fields, ports, family,
# prefix length, base, exempt, peer, mark and mask, slope and intercept,
# idle gap, marked and padding, alignment, iter_bytes, cgroup_id); last_step, pad.
SLOT = struct.Struct("<II" "II" "HHHH" "BBBB" "4I" "II" "II" "I" "BBBB" "I" "Q" "Q" "II")
F_DPORT, F_SLOPE = 1 << 0, 1 << 4


def write_slot(index, job_id, slope):
    """A job slot written raw, as something other than mltcpctl could."""
    value = SLOT.pack(0, 0, job_id, F_DPORT | F_SLOPE, JOB_PORT, JOB_PORT, 0, 0, 0, 0, 0, 0,
                      0, 0, 0, 0, 0, 0, slope, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    run("bpftool", "map", "update", "pinned", PIN_DIR / "jobs",
        "key", *[str(b) for b in struct.pack("<I", index)],
        "value", *[str(b) for b in value])


def test_slope_out_of_range_in_a_raw_slot_is_not_truncated(pair):
    """The policy checks a slot's slope before narrowing it to the flow's
    u16: 65536 + 2048 is not taken as 2.0; the flow latches the defaults and
    has no job. The same slot with 2048 is taken."""
    assert SLOT.size == 96
    with contextlib.ExitStack() as opened:
        def flow():
            f = Flow(JOB_PORT)
            opened.callback(f.close)
            return f.show()

        write_slot(0, 7, 65536 + 2048)
        f = flow()
        assert f["job"] is None and settings(f) == DEFAULTS
        write_slot(0, 7, 2048)
        f = flow()
        assert f["job"] == 7 and f["slope"] == 2.0


FLOWGEN = TOP / "tests/kernel/tools/flowgen.py"


def traced_onoff(iterations=5):
    """An on-off flow to the job's port, with TCP_INFO just before and after
    each iteration's first write (the guest suite's flowgen --trace)."""
    out = run("ip", "netns", "exec", NS_SEND, "/usr/bin/python3", FLOWGEN, "onoff", "--dst",
              RECV_IP, "--port", JOB_PORT, "--cc", "mltcp", "--bytes", 4 << 20, "--idle-ms",
              100, "--iterations", iterations, "--trace").stdout
    return json.loads(out)["trace"]


def test_exempt_flows_never_restart(pair):
    """The twin latches exempt as the module does: no restart at iteration
    starts nor at the drains before them (here the ACK of the first write
    may already have grown a restarted window by one or two segments: no
    bottleneck, microsecond RTT)."""
    # Restarts begin once the size is learned (the second burst) and
    # trusted (TRUST_ITERS more agreed): from burst `first` on.
    first, iterations = 1 + TRUST_ITERS, 4 + TRUST_ITERS
    ctl("job", "add", 1, "dport", JOB_PORT, "exempt")
    trace = traced_onoff(iterations)
    for t in trace[1:]:
        assert t["before"]["snd_cwnd"] > 20, trace
        assert t["after"]["snd_cwnd"] >= t["before"]["snd_cwnd"], trace
    ctl("job", "set", 1, "exempt", "off")
    trace = traced_onoff(iterations)
    # The first start with a trusted size restarts there; the later ones
    # were restarted at the drain before them (mltcp_restart_at_drain()).
    for t in trace[1:first + 1]:
        assert t["before"]["snd_cwnd"] > 20, trace
    for t in trace[first:]:
        assert t["after"]["snd_cwnd"] <= 12, trace
    for t in trace[first + 1:]:
        assert t["before"]["snd_cwnd"] <= 12, trace


def test_table_holds_64_jobs_and_refuses_the_65th():
    for i in range(1, 65):
        ctl("job", "add", i, "sport", i)
    err = refused("job", "add", 65, "sport", 65)
    assert "job table full (at most 64 jobs" in err
    assert len(ctl_json("job", "show")) == 64


# ---- refusals change nothing ----


@pytest.mark.parametrize("args,code,message", [
    (["job", "add", 2, "dport", 70000], 2, "dport 70000: out of range"),
    (["job", "add", 2, "slope", "16.5"], 2, "slope 16.5: out of range"),
    (["job", "add", 2, "idle-gap", "10us"], 2, "idle-gap 10us: out of range"),
    (["job", "add", 0], 2, "job ID 0: out of range"),
    (["job", "add", 2, "frobs", 1], 2, "unknown job argument"),
    (["job", "set", 2, "slope", 1], 1, "job 2: no such job"),
    (["job", "del", 2], 1, "job 2: no such job"),
    (["job", "show", 2], 1, "job 2: no such job"),
    (["flow", "show", "job", 2], 1, "job 2: no such job"),
    (["job", "add", 1, "slope", 1], 1, "job 1: already exists"),
    (["-n", "x", "job", "add", 2], 1, "-n: the BPF backend's jobs are one table for the host"),
])
def test_bad_input_changes_nothing(args, code, message):
    ctl("job", "add", 1, "dport", JOB_PORT, "slope", 2, "intercept", 0.5)
    before = ctl_json("job", "show")
    if args[0] == "-n":
        run("ip", "netns", "add", "x")
    try:
        err = refused(*args, code=code)
    finally:
        if args[0] == "-n":
            run("ip", "netns", "del", "x")
    assert message in err, err
    assert ctl_json("job", "show") == before


def test_unprivileged_writes_and_reads_are_refused():
    ctl("job", "add", 1, "dport", JOB_PORT)
    before = ctl_json("job", "show")
    err = refused("-b", "bpf", "job", "add", 2, "dport", 1, user=True)
    assert "permission denied" in err and "CAP_NET_ADMIN" in err
    err = refused("-b", "bpf", "job", "del", 1, user=True)
    assert "permission denied" in err
    err = refused("-b", "bpf", "job", "show", user=True)
    assert "permission denied" in err and "CAP_BPF" in err
    err = refused("job", "show", user=True)
    assert "only root" in err
    assert ctl_json("job", "show") == before


def test_unload_takes_the_jobs_with_it():
    ctl("job", "add", 1, "dport", JOB_PORT)
    ctl("bpf", "unload")
    ctl("bpf", "load")
    assert ctl_json("job", "show") == []


# ---- export ----


def scrape(netns):
    """{(name, frozenset of labels): value} of one export, as Prometheus's
    own parser (python3-prometheus-client) reads it."""
    from prometheus_client.parser import text_string_to_metric_families

    out = {}
    for family in text_string_to_metric_families(ctl("-n", netns, "export").stdout):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def test_export_has_what_the_twin_counts(pair):
    """The twin keeps no job counters (left out, not exported as zeros) and
    counts verdicts, the gate's holds and progress priority's held moves up
    for the whole host (no netns label);
    live flows and F per job come from the flow records of the exporter's
    namespace."""
    ctl("job", "add", 1, "dport", JOB_PORT)
    verdict = ("mltcp_iteration_verdicts_total",
               frozenset({"verdict": "iterations", "backend": "bpf"}.items()))
    before = scrape(NS_SEND)
    bursts = 6
    proc = ns_popen(NS_SEND, "/usr/bin/python3", ONOFF, "send", RECV_IP, JOB_PORT, "mltcp",
                    256 << 10, bursts, 40)
    try:
        assert proc.stdout.readline().startswith("sport"), proc.stderr.read()
        assert proc.stdout.readline().strip() == "done", proc.stderr.read()
        after = scrape(NS_SEND)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    labels = frozenset({"job": "1", "netns": NS_SEND, "backend": "bpf"}.items())
    assert after[("mltcp_job_flows", labels)] == 1
    assert 0.69 <= after[("mltcp_job_f", labels)] <= 2.31  # the default line, 0.7 to 2.3
    assert after[("mltcp_flows", frozenset({"netns": NS_SEND, "backend": "bpf"}.items()))] >= 1
    # Host-wide: other flows may add to it, never less than this one's iterations.
    assert after[verdict] - before[verdict] >= bursts - 1
    assert not [k for k in after if k[0] in ("mltcp_job_iterations_total",
                                             "mltcp_job_bytes_total",
                                             "mltcp_job_flows_matched_total")]
    assert all(dict(k[1]).get("netns") is None for k in after
               if k[0] in ("mltcp_iteration_verdicts_total", "mltcp_gate_total",
                           "mltcp_prio_hold_total"))
    assert {dict(k[1])["event"] for k in after if k[0] == "mltcp_gate_total"} == \
        {"held", "opened", "ran_out", "reduced"}
    assert {dict(k[1])["event"] for k in after if k[0] == "mltcp_prio_hold_total"} == \
        {"held", "released", "reduced"}
