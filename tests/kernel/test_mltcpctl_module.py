# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcpctl against the real module: jobs added, shown, changed and deleted
(JSON checked field by field), namespaces, permissions and the one-line
errors."""
import os
import subprocess

import pytest

from testbed.topology import Netns, sh
from conftest import load_module
from nl_ctl import NOBODY, binary, clear_jobs, ctl, ctl_json, error_line, jobs, wait_for


@pytest.fixture(autouse=True)
def no_jobs_left():
    clear_jobs()
    yield
    clear_jobs()


def test_add_show_set_del_round_trip():
    ctl("job", "add", 7, "dport", "5000-5010", "sport", 40000, "peer", "10.1.0.0/16",
        "mark", "0x10/0xff", "slope", "2.5", "intercept", "0.125", "idle-gap", "5ms",
        "iter-bytes", "64M", "base", "reno")
    ctl("job", "add", 3, "peer", "fd00:1::/48", "exempt")

    shown = ctl_json("job", "show")
    assert [j["id"] for j in shown] == [3, 7]  # ascending id: the match order
    job = shown[1]
    assert job["dport"] == {"min": 5000, "max": 5010}
    assert job["sport"] == {"min": 40000, "max": 40000}
    assert job["peer"] == "10.1.0.0/16"
    assert job["mark"] == 0x10 and job["mark_mask"] == 0xff
    assert job["slope"] == 2.5
    assert job["intercept"] == 0.125
    assert job["idle_gap_us"] == 5000
    assert job["iter_bytes"] == 64 << 20
    assert job["base"] == "reno"
    assert job["exempt"] is False
    assert job["flows"] == 0 and job["flows_total"] == 0
    assert job["iterations"] == 0 and job["bytes"] == 0
    assert shown[0]["peer"] == "fd00:1::/48" and shown[0]["exempt"] is True
    assert "slope" not in shown[0] and "dport" not in shown[0]

    # One job by id, in text: the same grammar the command takes.
    text = ctl("job", "show", 7).stdout.strip()
    assert text.startswith("job 7 dport 5000-5010 sport 40000 peer 10.1.0.0/16 mark 0x10/0xff "
                           "slope 2.5 intercept 0.125 idle-gap 5ms iter-bytes 64M base reno"), text

    ctl("job", "set", 7, "slope", "0.5", "dport", "any", "iter-bytes", "default", "exempt")
    job = ctl_json("job", "show", 7)[0]
    assert job["slope"] == 0.5
    assert "dport" not in job and "iter_bytes" not in job
    assert job["exempt"] is True
    assert job["intercept"] == 0.125 and job["peer"] == "10.1.0.0/16"  # untouched
    ctl("job", "set", 7, "exempt", "off", "peer", "10.2.3.4")
    job = ctl_json("job", "show", 7)[0]
    assert job["exempt"] is False and job["peer"] == "10.2.3.4/32"

    ctl("job", "del", 7)
    assert list(jobs()) == [3]
    ctl("job", "delete", 3)
    assert ctl_json("job", "show") == []


def test_prefixes_and_pretty_json():
    ctl("j", "a", 12, "dp", 9000, "sl", "1", "iter", "1.5G")  # unambiguous prefixes
    out = ctl("-j", "-p", "job", "list").stdout
    assert "\n    " in out  # indented
    job = ctl_json("job", "show")[0]
    assert job["id"] == 12 and job["dport"] == {"min": 9000, "max": 9000}
    assert job["slope"] == 1.0 and job["iter_bytes"] == 3 << 29


def test_errors_are_one_line():
    ctl("job", "add", 5, "dport", 80)
    cases = [
        (("job", "add", 5), "job 5: already exists"),
        (("job", "set", 6, "slope", "1"), "job 6: no such job"),
        (("job", "del", 6), "job 6: no such job"),
        (("job", "show", 6), "job 6: no such job"),
        (("flow", "show", "job", 6), "job 6: no such job"),
        (("job", "add", 8, "slope", "16.5"), "slope 16.5: out of range (allowed 0 to 16)"),
        (("job", "add", 8, "intercept", "99"), "intercept 99: out of range (allowed 0 to 16)"),
        (("job", "add", 8, "idle-gap", "90s"), "idle-gap 90s: out of range (allowed 1ms to 60s)"),
        (("job", "add", 8, "iter-bytes", "0"), "iter-bytes 0: out of range (allowed 1 to 1T)"),
        (("job", "add", 8, "dport", "99999"), "dport 99999: out of range (allowed 0 to 65535)"),
        (("job", "add", 0), "job ID 0: out of range (allowed 1 to 4294967295)"),
        (("job", "add", 8, "peer", "::/129"), "prefix length out of range (allowed 0 to 128)"),
        (("job", "add", 8, "frobnicate", 1), 'unknown job argument "frobnicate"'),
        (("job", "add", 8, "s", 1), '"s" is ambiguous: sport, slope'),
    ]
    for args, message in cases:
        line = error_line(ctl(*args, check=False))
        assert line.startswith("mltcpctl: "), line
        assert message in line, (args, line)
    assert list(jobs()) == [5]


def test_permission_denied_changes_nothing():
    ctl("job", "add", 5, "dport", 80, "slope", "2")
    before = ctl("-j", "job", "show").stdout
    for args in (("job", "add", 6), ("job", "set", 5, "slope", "3"), ("job", "del", 5)):
        proc = ctl(*args, user=NOBODY, check=False)
        assert error_line(proc) == "mltcpctl: permission denied: changing jobs needs CAP_NET_ADMIN"
    # Reading is not privileged.
    assert ctl("-j", "job", "show", user=NOBODY).stdout == before
    assert ctl("-j", "job", "show").stdout == before


def test_namespaces_have_their_own_jobs():
    a, b = Netns("mtnla"), Netns("mtnlb")
    try:
        ctl("-n", a.name, "job", "add", 1, "dport", 1000)
        ctl("job", "add", 1, "dport", 2000, netns=b.name)  # via ip netns exec
        ctl("job", "add", 2, "dport", 3000)
        assert [j["dport"]["min"] for j in ctl_json("-n", a.name, "job", "show")] == [1000]
        assert [j["dport"]["min"] for j in ctl_json("job", "show", netns=b.name)] == [2000]
        assert [j["dport"]["min"] for j in ctl_json("job", "show")] == [3000]
        assert list(jobs(netns=b.name)) == [1]
        assert list(jobs()) == [2]
        # By path, as for a Mininet host (a process's namespace).
        holder = a.spawn("sleep", "30")
        path = "/proc/%d/ns/net" % holder.pid
        inode = os.stat("/run/netns/" + a.name).st_ino
        assert wait_for(lambda: os.stat(path).st_ino == inode)
        ctl("-n", path, "job", "add", 9)
        assert list(jobs(netns=a.name)) == [1, 9]
        # A namespace's jobs go with it (module memory is checked in test_scale.py).
        ctl("-n", a.name, "job", "del", 1)
        ctl("-n", path, "job", "del", 9)
        assert ctl_json("-n", a.name, "job", "show") == []
    finally:
        a.close()
        b.close()


def test_root_of_a_user_namespace_manages_its_own_jobs():
    """GENL_UNS_ADMIN_PERM: CAP_NET_ADMIN over the network namespace, not the
    host, is what writes need (within the bound of test_trust.py)."""
    probe = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                            "--clear-groups", "unshare", "-Urn", "true"], capture_output=True)
    assert probe.returncode == 0, "unprivileged user namespaces are disabled: %s" % probe.stderr
    script = ("{0} job add 4 slope 1.5 && {0} -j job show && {0} job del 4".format(binary()))
    out = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                          "--clear-groups", "unshare", "-Urn", "sh", "-c", script],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"id":4' in out.stdout and '"slope":1.5' in out.stdout
    assert jobs() == {}  # the host's table was never touched


def test_help_and_man_page():
    # The top-level help: each object and option on a line; an object's help:
    # its commands.
    out = ctl("help").stdout
    for word in ("job", "flow show [job ID]", "monitor", "defaults", "bpf", "-n[etns] NAME",
                 "-j[son]", "mltcpctl OBJECT help"):
        assert word in out
    for obj, word in (("job", "job add ID"), ("job", "job set ID"), ("job", "job del ID"),
                      ("job", "job show [ID]"), ("flow", "flow show [job ID]"),
                      ("defaults", "defaults show [global]"),
                      ("defaults", "defaults set [global] DEFAULT..."),
                      ("bpf", "bpf { load [DEFAULT]... | unload | status }")):
        assert word in ctl(obj, "help").stdout, (obj, word)
    assert "dport LO[-HI]" in ctl("job", "help").stdout
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    page = sh("man", "-l", "-P", "cat", os.path.join(top, "docs", "mltcpctl.8"),
              env=dict(os.environ, MANWIDTH="100"))
    for word in ("job add", "flow show", "monitor", "defaults set", "bpf load",
                 "net.mltcp.slope", "EXAMPLES"):
        assert word in page.stdout


def test_module_not_loaded(fresh_module):
    line = error_line(ctl("job", "show", check=False))
    # Auto-selection names both backends (the guest has no BPF backend loaded).
    assert line == ('mltcpctl: no MLTCP backend: the tcp_mltcp module is not loaded '
                    '(no generic netlink family "mltcp") and the BPF backend is not loaded '
                    '(no /sys/fs/bpf/mltcp); load one: modprobe tcp_mltcp, or mltcpctl bpf load')
    line = error_line(ctl("-b", "kmod", "job", "show", check=False))
    assert line == ('mltcpctl: the tcp_mltcp module is not loaded '
                    '(no generic netlink family "mltcp")')
    assert load_module().returncode == 0
    assert ctl_json("job", "show") == []
