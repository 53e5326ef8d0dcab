# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The BPF twin on this machine's own kernel, no VM, where it differs from the
module: mltcpctl bpf load (registration, pins, line info from the core's
sources, privileges), the host-wide defaults in the config map (initial
values at load, refusals, exact round trip), unload with live sockets,
repeated load/unload. What both backends do alike (bulk goodput, iterations,
defaults reaching new flows) is in tests/datapath, run with --backend bpf.

Needs root and a kernel with BTF and BPF TCP congestion control. The tool is
$MLTCPCTL_TOOL, else build/userspace/mltcpctl/mltcpctl; the BPF object
$MLTCP_BPF_OBJECT, else build/bpf/mltcp.bpf.o.

Run: tests/bpf/run.sh
"""
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hostnet import ONOFF, ns_popen, veth_pair

TOP = Path(__file__).resolve().parents[2]
NAMES = ["mltcp", "mltcp_reno", "mltcp_cubic"]
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
ALLOWED = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
PIN_DIR = Path("/sys/fs/bpf/mltcp")
PREFIX = f"mb{os.getpid()}"
NS_SEND, NS_RECV = PREFIX + "a", PREFIX + "b"
SEND_IP, RECV_IP = "10.231.0.1", "10.231.0.2"
SINK_PORT = 9000
RATE_MBIT = 1000


TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
OBJECT = Path(os.environ.get("MLTCP_BPF_OBJECT", TOP / "build/bpf/mltcp.bpf.o"))
DEFAULTS = ("slope", "1.6", "intercept", "0.7", "idle-gap", "20ms", "base", "cubic", "mode",
            "md-restart")
# Progress priority as "bpf load" leaves it: off (defaults show prints it in JSON only).
PRIO_OFF = {"classes": 0, "dscp": [], "none_dscp": 0}


@pytest.fixture(autouse=True)
def prerequisites():
    """Missing prerequisites fail the suite: a skipped test must not pass CI."""
    assert os.geteuid() == 0, "the BPF host tests need root"
    assert Path("/sys/kernel/btf/vmlinux").exists(), "this kernel has no BTF"
    assert TOOL.exists(), f"{TOOL} is not built"
    assert "BPF backend" in run(TOOL, "-V").stdout, \
        "mltcpctl was built without the BPF backend (is pkg-config/libbpf-dev installed?)"


def run(*args, check=True, **kw):
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, check=check, timeout=120, **kw
    )


def tool(*args, check=True):
    return run(TOOL, *args, check=check)


def tool_json(*args):
    return json.loads(tool("-j", *args).stdout)


def available():
    return AVAILABLE.read_text().split()


def status():
    # The JSON either way; exit status 0 when loaded, 1 when not (as
    # systemctl is-active).
    done = tool("-j", "bpf", "status", check=False)
    st = json.loads(done.stdout)
    assert done.returncode == (0 if st["loaded"] else 1), (done.returncode, st)
    return st


def ns(name, *args, **kw):
    return run("ip", "netns", "exec", name, *args, **kw)


def wait_until(pred, timeout=5.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def unload_quietly():
    tool("bpf", "unload", check=False)


def our_programs():
    progs = json.loads(run("bpftool", "-j", "prog", "show").stdout)
    ours = {
        "mltcp_init", "mltcp_init_r", "mltcp_init_c", "mltcp_cong_avd", "mltcp_ssthresh",
        "mltcp_set_state", "mltcp_cwnd_evt", "mltcp_acked", "mltcp_undo", "mltcp_flows",
    }
    return [p for p in progs if p.get("name") in ours]


def our_maps():
    maps = json.loads(run("bpftool", "-j", "map", "show").stdout)
    ours = set(NAMES) | {"mltcp_config", "mltcp_stats", "mltcp_jobs", "mltcp_prio"}
    return [m for m in maps if m.get("name") in ours]


@pytest.fixture(scope="module")
def netns_pair():
    """Sender and receiver namespaces joined by a veth, tbf 1 Gbit/s on the sender side."""
    with veth_pair(PREFIX, (NS_SEND, SEND_IP), (NS_RECV, RECV_IP), [SINK_PORT],
                   tbf_mbit=RATE_MBIT):
        yield


@pytest.fixture(scope="module", autouse=True)
def clean_slate():
    """Start with MLTCP unregistered (a previous run may have been killed); end the same way."""
    unload_quietly()
    assert not set(NAMES) & set(available()), "mltcp names registered by something else"
    yield
    tool("defaults", "set", "global", *DEFAULTS, check=False)
    unload_quietly()


@pytest.fixture
def loaded():
    if not PIN_DIR.exists():
        tool("bpf", "load")
    yield


def start_onoff(nbytes, count, idle_ms, cc="mltcp"):
    proc = ns_popen(NS_SEND, "/usr/bin/python3", ONOFF, "send", RECV_IP, SINK_PORT, cc, nbytes,
                    count, idle_ms)
    line = proc.stdout.readline().split()
    assert line and line[0] == "sport", proc.stderr.read()
    return proc, int(line[1])


def finish(proc):
    assert proc.stdout.readline().strip() == "done", proc.stderr.read()


def close(proc):
    proc.stdin.close()
    proc.wait(timeout=30)


# ---- registration ----


def test_load_registers_the_three_names():
    out = tool("bpf", "load")
    assert "loaded mltcp mltcp_reno mltcp_cubic" in out.stdout
    for name in NAMES:
        assert name in available()
        # Non-restricted, like the module: unprivileged sockets may select them.
        assert name in ALLOWED.read_text().split()
    st = status()
    assert st["loaded"] and st["backend"] == "bpf" and st["flows"]
    assert sorted(m["name"] for m in st["struct_ops"] if m["state"] == "inuse") == sorted(NAMES)
    assert st["params"] == {
        "slope": 1.6, "slope_fixed": 1638, "intercept": 0.7, "intercept_fixed": 717,
        "idle_gap_us": 20000, "base": "cubic", "mode": "md-restart",
    }
    assert st["prio"] == PRIO_OFF
    for pin in ("mltcp", "mltcp_reno", "mltcp_cubic", "config", "stats", "flows", "jobs", "prio"):
        assert (PIN_DIR / pin).exists()


def test_loaded_code_comes_from_the_core_source(loaded):
    """The kernel's line info for the running programs names kmod/mltcp_core.c
    (the per-ACK arithmetic) and kmod/mltcp_policy.c (matching and latching)."""
    out = run("bpftool", "prog", "dump", "xlated", "name", "mltcp_cong_avd", "linum").stdout
    files = set(re.findall(r"\[file:(\S+) line_num:", out))
    assert str(TOP / "kmod/mltcp_core.c") in files, files
    assert not any(f.endswith("tcp_mltcp.c") for f in files)
    out = run("bpftool", "prog", "dump", "xlated", "name", "mltcp_init", "linum").stdout
    files = set(re.findall(r"\[file:(\S+) line_num:", out))
    assert str(TOP / "kmod/mltcp_policy.c") in files, files


def test_second_load_is_refused(loaded):
    r = tool("bpf", "load", check=False)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "already loaded" in r.stderr
    assert set(NAMES) <= set(available())


def test_unprivileged_socket_may_select_it(loaded):
    code = ("import socket; s = socket.socket(); "
            "s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b'mltcp_reno'); "
            "print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b'\\0').decode())")
    r = run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
            "-c", code)
    assert r.stdout.strip() == "mltcp_reno"


def test_missing_privileges_are_named(loaded):
    before = status()["params"]
    for cmd in (["bpf", "load"], ["bpf", "unload"], ["-b", "bpf", "defaults", "set", "global",
                                                     "slope", "1"],
                ["bpf", "status"], ["-b", "bpf", "defaults", "show"]):
        r = run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", TOOL, *cmd,
                check=False)
        assert r.returncode == 1, cmd
        assert r.stderr.count("\n") == 1, r.stderr
        assert "CAP_BPF" in r.stderr and "root" in r.stderr, r.stderr
    assert set(NAMES) <= set(available())
    assert status()["params"] == before


# ---- parameters through the config map ----


@pytest.mark.parametrize("args,message", [
    (["slope", "16.001"], "slope 16.001: out of range (allowed 0 to 16)"),
    (["intercept", "-1"], "intercept \"-1\": not a decimal number"),
    (["idle-gap", "999us"], "idle-gap 999us: out of range (allowed 1ms to 60s)"),
    (["idle-gap", "20000"], "idle-gap \"20000\": not a duration"),
    (["base", "bbr"], "unknown base \"bbr\""),
    (["mode", "fast"], "unknown mode \"fast\""),
    (["slope", "2", "mode", "fast"], "unknown mode \"fast\""),
])
def test_out_of_range_values_are_refused(loaded, args, message):
    before = status()["params"]
    r = tool("defaults", "set", "global", *args, check=False)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert status()["params"] == before


def test_load_takes_initial_values():
    unload_quietly()
    out = tool_json("bpf", "load", "slope", "2", "intercept", "0", "mode", "both", "idle-gap",
                    "5ms")
    assert out["params"]["slope"] == 2.0 and out["params"]["mode"] == "both"
    assert status()["params"]["idle_gap_us"] == 5000
    unload_quietly()
    r = tool("bpf", "load", "slope", "99", check=False)
    assert r.returncode == 2 and "slope" in r.stderr and r.stderr.count("\n") == 1
    assert not set(NAMES) & set(available()) and not PIN_DIR.exists()


# ---- defaults: one set for the host ----


def test_defaults_show_is_global_either_way(netns_pair, loaded):
    want = {"backend": "bpf", "scope": "global", "slope": 1.6, "intercept": 0.7,
            "idle_gap_us": 20000, "base": "cubic", "mode": "md-restart", "prio": PRIO_OFF}
    assert tool_json("defaults", "show") == want
    assert tool_json("defaults", "show", "global") == want
    assert tool_json("-b", "bpf", "-n", NS_SEND, "defaults", "show") == want
    assert tool("defaults", "show").stdout == (
        "slope 1.6 intercept 0.7 idle-gap 20ms base cubic mode md-restart\n")


def test_defaults_set_global_round_trips_exactly(netns_pair, loaded):
    try:
        tool("defaults", "set", "global", "slope", "0.0625", "intercept", "1.1", "idle-gap",
             "1.5s", "base", "reno", "mode", "both-restart")
        st = status()["params"]
        assert (st["slope_fixed"], st["intercept_fixed"]) == (64, 1126)
        assert tool_json("defaults", "show") == {
            "backend": "bpf", "scope": "global", "slope": 0.0625, "intercept": 1.1,
            "idle_gap_us": 1500000, "base": "reno", "mode": "both-restart", "prio": PRIO_OFF}
        # What show prints, set takes back.
        words = tool("defaults", "show").stdout.split()
        tool("defaults", "set", "global", *words)
        assert tool("defaults", "show").stdout.split() == words
        assert status()["params"]["slope_fixed"] == 64
        # -n changes nothing for the host-wide set.
        tool("-n", NS_SEND, "defaults", "set", "global", "slope", "2")
        assert status()["params"]["slope_fixed"] == 2048
    finally:
        tool("defaults", "set", "global", *DEFAULTS)
    assert tool("defaults", "show").stdout.split() == list(DEFAULTS)


@pytest.mark.parametrize("args,code,message", [
    (["defaults", "set", "slope", "2"], 1,
     "the BPF backend's defaults are one set for the host, not per network namespace"),
    (["-n", "x", "defaults", "set", "intercept", "1"], 1, "one set for the host"),
    (["defaults", "set", "slope", "2", "mode", "md"], 2, "mode: global only"),
    (["defaults", "set", "global"], 2, "defaults set needs a setting"),
    (["-b", "kmod", "defaults", "set", "global", "slope", "2"], 1,
     "tcp_mltcp module is not loaded"),
    (["-n", "x", "bpf", "load"], 2, "the BPF backend is loaded for the whole host"),
])
def test_defaults_refusals_change_nothing(netns_pair, loaded, args, code, message):
    before = status()["params"]
    if "x" in args:
        run("ip", "netns", "add", "x")
    try:
        r = tool(*args, check=False)
    finally:
        if "x" in args:
            run("ip", "netns", "del", "x")
    assert r.returncode == code, (r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert status()["params"] == before


# ---- unload ----


def test_unload_with_a_live_socket(netns_pair, loaded):
    """The kernel's behaviour: unregistering removes the names at once; sockets
    that selected the algorithm keep running it (they hold a reference to the
    struct_ops map) until they close, then the map and its programs go."""
    proc = ns_popen(NS_SEND, "/usr/bin/python3", ONOFF, "hold", RECV_IP, SINK_PORT, "mltcp")
    try:
        line = proc.stdout.readline().split()
        assert line[0] == "sport", proc.stderr.read()
        sport = int(line[1])
        time.sleep(0.3)
        old_id = [m["id"] for m in status()["struct_ops"] if m["name"] == "mltcp"]

        out = tool_json("bpf", "unload")
        assert sorted(out["unloaded"]) == sorted(NAMES)
        assert out["in_use"] == [{"name": "mltcp", "id": old_id[0], "state": "tobefree"}]
        assert not set(NAMES) & set(available())
        assert not PIN_DIR.exists()

        # New sockets can no longer choose it ...
        r = ns(NS_SEND, "/usr/bin/python3", "-c",
               "import socket; socket.socket().setsockopt(socket.IPPROTO_TCP, "
               "socket.TCP_CONGESTION, b'mltcp')", check=False)
        assert "No such file or directory" in r.stderr
        # ... but the live one still runs it and keeps sending.
        proc.stdin.write("\n")
        proc.stdin.flush()
        sent1 = int(proc.stdout.readline().split()[1])
        time.sleep(0.5)
        proc.stdin.write("\n")
        proc.stdin.flush()
        sent2 = int(proc.stdout.readline().split()[1])
        assert sent2 - sent1 > 10 << 20
        ss = ns(NS_SEND, "ss", "-tin", "sport", f"= :{sport}").stdout
        assert re.search(r"^\s+mltcp\s", ss, re.M), ss

        # Loading again while the old socket lives gives new, separate maps.
        tool("bpf", "load")
        ids = {m["id"]: m["state"] for m in status()["struct_ops"]}
        assert ids[old_id[0]] == "tobefree" and list(ids.values()).count("inuse") == 3
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    wait_until(lambda: all(m["state"] == "inuse" for m in status()["struct_ops"]),
               what="the retired map to be freed after its socket closed")


def test_unload_while_a_namespace_default_uses_it(netns_pair, loaded):
    """A namespace whose default is an MLTCP name holds it too: after unload its
    new sockets still get the unregistered algorithm until the default changes."""
    ns(NS_SEND, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=mltcp_reno")
    try:
        out = tool_json("bpf", "unload")
        assert [m["name"] for m in out["in_use"]] == ["mltcp_reno"]
        code = ("import socket; print(socket.socket().getsockopt(socket.IPPROTO_TCP, "
                "socket.TCP_CONGESTION, 16).rstrip(b'\\0').decode())")
        assert ns(NS_SEND, "/usr/bin/python3", "-c", code).stdout.strip() == "mltcp_reno"
    finally:
        ns(NS_SEND, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=reno")
    wait_until(lambda: status()["struct_ops"] == [], what="the default to release the map")


def test_unload_finds_registrations_without_pins():
    """E.g. "bpftool struct_ops register": unload finds them by name."""
    unload_quietly()
    run("bpftool", "struct_ops", "register", OBJECT)
    try:
        assert set(NAMES) <= set(available())
        r = tool("bpf", "load", check=False)
        assert r.returncode == 1 and "already registered" in r.stderr
        out = tool_json("bpf", "unload")
        assert sorted(out["unloaded"]) == sorted(NAMES)
    finally:
        for name in NAMES:
            run("bpftool", "struct_ops", "unregister", "name", name, check=False)
    assert not set(NAMES) & set(available())


FOREIGN = Path(__file__).resolve().parent / "foreign_mltcp.bpf.c"


def test_unload_leaves_another_loaders_struct_ops_alone(tmp_path):
    """Without pins, unload takes only struct_ops whose programs are this
    object's (by program tag), not another loader's that is named "mltcp"."""
    unload_quietly()
    clang = shutil.which("clang-14") or shutil.which("clang")
    obj = tmp_path / "foreign_mltcp.bpf.o"
    run(clang, "-target", "bpf", "-O2", "-g", "-D__TARGET_ARCH_x86", "-I", OBJECT.parent,
        "-c", FOREIGN, "-o", obj)
    run("bpftool", "struct_ops", "register", obj)
    try:
        assert "mltcp" in available()
        maps = [m for m in status()["struct_ops"] if m["name"] == "mltcp"]
        assert len(maps) == 1, maps
        r = tool("bpf", "unload", check=False)
        assert r.returncode == 1 and r.stdout == "", r
        assert r.stderr == ("mltcpctl: not loaded by this mltcpctl: mltcp (map id %d) runs other "
                            "programs; left registered (bpftool struct_ops unregister id ID "
                            "removes one)\n" % maps[0]["id"]), r.stderr
        assert "mltcp" in available()
    finally:
        run("bpftool", "struct_ops", "unregister", "name", "mltcp", check=False)
    assert "mltcp" not in available()


def test_repeated_load_unload_leaves_nothing(netns_pair):
    unload_quietly()
    for i in range(10):
        tool("bpf", "load")
        assert set(NAMES) <= set(available()), i
        proc, _ = start_onoff(256 << 10, 2, idle_ms=30, cc=NAMES[i % 3])
        finish(proc)
        close(proc)
        tool("bpf", "unload")
        assert not set(NAMES) & set(available()), i
    assert not PIN_DIR.exists()
    assert status()["struct_ops"] == []
    wait_until(lambda: not our_programs() and not our_maps(),
               what="programs and maps to be freed")
    r = tool("bpf", "unload", check=False)
    assert r.returncode == 1 and "not loaded" in r.stderr
    r = tool("bpf", "status", check=False)
    assert r.returncode == 1 and "loaded no" in r.stdout.splitlines(), r
