# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The trust boundary and the line F(r) = slope * r + intercept (issue 12,
findings 2 and 7; issue 35, item 1).

A network namespace other than the host's, whether a user namespace of
its own owns it (a container: "unshare -Urn", here as nobody) or the
initial one does ("ip netns add", a Kubernetes pod with hostUsers: true),
may not make its flows more aggressive than their base algorithm on
average or than the host's line anywhere: its net.mltcp.* sysctls and its
jobs are refused a line whose mean over an iteration that runs to the end
of the overhang (F stays F(1) up to 9/8 of the size), 5 slope + 9
intercept over 9, is above 1 and that also rises above the host's (the
module parameters) at r = 0 or r = 1, with a one-line reason, and nothing changes; a sequence of accepted writes that
ends above the bound latches the base (slope 0, intercept 1). The host's
namespace keeps the full range, and with the module parameter
bound_netns=0 so do the namespaces of the initial user namespace. Slope
and intercept both 0 (F = 0) are refused everywhere.

The host's line is pinned for every test (1.6, 0.2 unless a test says
otherwise: mean 1 over [0, 1], 1.09 with the overhang), so that what is
tested does not move with the compiled-in default."""
import errno
import json
import os
import subprocess
import textwrap

import pytest

from testbed.topology import Netns
from conftest import load_module, unload_module
from netlab import write_file
from nl_ctl import NOBODY, binary, clear_jobs, ctl, ctl_json, error_line, jobs, wait_for

SYSCTL = "/proc/sys/net/mltcp/"
PARAMS = "/sys/module/tcp_mltcp/parameters/"
BOUND = "mean F above 1 and F above the host's line: allowed only in the host's network namespace"
F_ZERO = "slope and intercept may not both be 0 (F would be 0)"


def bound_netns():
    return open(PARAMS + "bound_netns").read().strip()


def reload_module(*params):
    """The module loaded again with params (no MLTCP socket may be open)."""
    proc = unload_module()
    assert proc.returncode == 0, proc.stderr
    proc = load_module(*params)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(autouse=True)
def no_jobs_left():
    clear_jobs()
    yield
    clear_jobs()


def set_host_line(slope, intercept):
    """The module parameters, through a line that is always allowed."""
    write_file(PARAMS + "intercept", "1\n")
    write_file(PARAMS + "slope", "%s\n" % slope)
    write_file(PARAMS + "intercept", "%s\n" % intercept)


@pytest.fixture(autouse=True)
def host_line():
    """The host's line pinned at (1.6, 0.2) for the test, then put back."""
    saved = {k: open(PARAMS + k).read().strip() for k in ("slope", "intercept")}
    set_host_line("1.6", "0.2")
    yield
    set_host_line(saved["slope"], saved["intercept"])


def container(script, check=False, **env):
    """Run a shell script as nobody in a fresh user and network namespace,
    with $CTL (mltcpctl), $PY (python3) and env in its environment."""
    probe = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                            "--clear-groups", "unshare", "-Urn", "true"], capture_output=True)
    assert probe.returncode == 0, "unprivileged user namespaces are disabled: %s" % probe.stderr
    proc = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                           "--clear-groups", "unshare", "-Urn", "sh", "-c",
                           "set -e\n" + textwrap.dedent(script)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CTL=binary(), PY="/usr/bin/python3", **env))
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def read(name):
    with open(SYSCTL + name) as f:
        return f.read().strip()


# ---- inside a container ----


def test_container_job_above_the_bound_is_refused_and_changes_nothing():
    proc = container("""
        "$CTL" job add 1 intercept 16 2>&1 || echo "refused $?"
        "$CTL" -j job show
    """, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "mltcpctl: job 1: " + BOUND
    assert lines[1] == "refused 1"
    assert json.loads(lines[2]) == []


def test_container_sysctl_above_the_bound_is_refused_and_changes_nothing():
    proc = container("""
        sysctl -w net.mltcp.intercept=16 2>&1 || echo "refused $?"
        sysctl -n net.mltcp.intercept
        # The same through the file, for the errno.
        $PY -c 'import os
        fd = os.open("/proc/sys/net/mltcp/slope", os.O_WRONLY)
        try:
            os.write(fd, b"3\\n")
        except OSError as e:
            print("errno", e.errno)'
        sysctl -n net.mltcp.slope
    """, check=True)
    lines = proc.stdout.splitlines()
    assert "Operation not permitted" in lines[0]
    assert lines[1].startswith("refused")
    assert lines[2] == "0.200"
    assert lines[3] == "errno %d" % errno.EPERM
    assert lines[4] == "1.600"


def test_container_mltcpctl_defaults_above_the_bound_is_refused_in_one_line():
    proc = container("""
        "$CTL" defaults set intercept 16 2>&1 || echo "refused $?"
        "$CTL" defaults set slope 1 intercept 0.6 2>&1 || echo "refused $?"
        "$CTL" -j defaults show
    """, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "mltcpctl: intercept 16: " + BOUND
    assert lines[1] == "refused 1"
    assert lines[2] == "mltcpctl: slope 1 intercept 0.6: " + BOUND
    assert lines[3] == "refused 1"
    shown = json.loads(lines[4])
    assert (shown["slope"], shown["intercept"]) == (1.6, 0.2)


def test_container_within_the_bound_succeeds():
    proc = container("""
        "$CTL" job add 1 slope 1.8 intercept 0
        "$CTL" job add 2 slope 1.6
        "$CTL" job add 3 intercept 1 slope 0
        "$CTL" job add 4 exempt intercept 16
        "$CTL" job set 2 slope 1.5 intercept 0.15
        # Mean 1 over [0, 1] but 1.11 with the overhang, and above the host's at r = 1.
        "$CTL" job add 5 slope 2 intercept 0 2>/dev/null || echo "refused 5"
        sysctl -q -w net.mltcp.slope=1
        sysctl -q -w net.mltcp.intercept=0.4
        # From (1, 0.4) to (1.8, 0): the intercept must go first, mltcpctl orders it.
        "$CTL" defaults set slope 1.8 intercept 0
        "$CTL" -j job show
        sysctl -n net.mltcp.slope net.mltcp.intercept
    """, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "refused 5"
    shown = {j["id"]: j for j in json.loads(lines[1])}
    assert sorted(shown) == [1, 2, 3, 4]
    assert (shown[1]["slope"], shown[1]["intercept"]) == (1.8, 0.0)
    assert (shown[2]["slope"], shown[2]["intercept"]) == (1.5, 0.15)
    assert (shown[3]["slope"], shown[3]["intercept"]) == (0.0, 1.0)
    assert shown[4]["exempt"] is True
    assert lines[2:] == ["1.800", "0.000"]


def test_container_job_change_is_checked_as_a_whole():
    proc = container("""
        "$CTL" job add 5 slope 1 intercept 0
        "$CTL" job set 5 intercept 1 2>&1 || echo "refused $?"
        "$CTL" job add 6 intercept 0.2
        # Over the namespace's slope 1.6: 0.8 + 0.2 is the most, 0.8 + 0.21 > 1.
        "$CTL" job add 7 intercept 0.21 2>&1 || echo "refused $?"
        "$CTL" job add 8 exempt slope 4
        "$CTL" job set 8 exempt off 2>&1 || echo "refused $?"
        "$CTL" -j job show
    """, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "mltcpctl: job 5: " + BOUND and lines[1] == "refused 1"
    assert lines[2] == "mltcpctl: job 7: " + BOUND and lines[3] == "refused 1"
    assert lines[4] == "mltcpctl: job 8: " + BOUND and lines[5] == "refused 1"
    shown = {j["id"]: j for j in json.loads(lines[6])}
    assert sorted(shown) == [5, 6, 8]
    assert shown[5]["intercept"] == 0.0 and shown[8]["exempt"] is True


FLOW = """
import json, socket, subprocess, sys
l = socket.socket(); l.bind(("127.0.0.1", 7170)); l.listen(1)
c = socket.socket()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
c.connect(("127.0.0.1", 7170)); s, _ = l.accept()
out = subprocess.run([sys.argv[1], "-j", "flow", "show"], capture_output=True, text=True,
                     check=True).stdout
print(json.dumps([(f["slope"], f["intercept"]) for f in json.loads(out)
                  if f["dport"] == 7170]))
"""


def test_container_writes_accepted_one_by_one_never_latch_above_the_bound():
    """A job accepted over intercept 0, then the namespace's intercept rises:
    each write was within the bound alone; the job's new flows latch the base."""
    proc = container("""
        ip link set lo up
        sysctl -q -w net.mltcp.intercept=0
        "$CTL" job add 1 dport 7170 slope 1.8
        $PY -c "$FLOW" "$CTL"
        sysctl -q -w net.mltcp.intercept=0.2
        $PY -c "$FLOW" "$CTL"
    """, check=True, FLOW=FLOW)
    before, after = (json.loads(line) for line in proc.stdout.splitlines())
    assert before == [[1.8, 0.0]]
    assert after == [[0.0, 1.0]]


def test_container_under_a_host_line_above_a_mean_of_one():
    """Where the host's line is above a mean of 1 (1.6, 0.8), a container
    inherits it and its flows latch it; it may write any line under it, or
    any with a mean of 1, and is refused one that is above a mean of 1 and
    crosses it."""
    set_host_line("1.6", "0.8")
    proc = container("""
        ip link set lo up
        sysctl -n net.mltcp.intercept
        $PY -c "$FLOW" "$CTL"
        "$CTL" job add 1 slope 2 intercept 0.25
        "$CTL" job add 2 slope 0 intercept 1
        "$CTL" job add 3 slope 1.6 intercept 0.81 2>&1 || echo "refused $?"
        "$CTL" job add 4 slope 0 intercept 1.2 2>&1 || echo "refused $?"
        sysctl -q -w net.mltcp.slope=2.4 2>/dev/null || echo "refused"
        sysctl -q -w net.mltcp.intercept=0.5
        # In 1/1024: 1.9 + 0.5 is 1946 + 512, one above the host's 1638 + 819;
        # 1.899 is 1945, the host's F(1) exactly.
        sysctl -q -w net.mltcp.slope=1.9 2>/dev/null || echo "refused"
        sysctl -q -w net.mltcp.slope=1.899
        "$CTL" -j job show
        sysctl -n net.mltcp.slope net.mltcp.intercept
    """, check=True, FLOW=FLOW)
    lines = proc.stdout.splitlines()
    assert lines[0] == "0.800"
    assert json.loads(lines[1]) == [[1.6, 0.8]]
    assert lines[2] == "mltcpctl: job 3: " + BOUND and lines[3] == "refused 1"
    assert lines[4] == "mltcpctl: job 4: " + BOUND and lines[5] == "refused 1"
    assert lines[6] == lines[7] == "refused"
    shown = {j["id"]: j for j in json.loads(lines[8])}
    assert sorted(shown) == [1, 2]
    assert (shown[1]["slope"], shown[1]["intercept"]) == (2.0, 0.25)
    assert lines[9:] == ["1.899", "0.500"]


class HeldContainer:
    """A network namespace owned by nobody's user namespace, held open by a
    sleeping process, that the host's root enters (nsenter, mltcpctl -n)."""

    def __init__(self):
        self.holder = subprocess.Popen(["setpriv", "--reuid=%d" % NOBODY,
                                        "--regid=%d" % NOBODY, "--clear-groups",
                                        "unshare", "-Urn", "sleep", "60"])
        self.path = "/proc/%d/ns/net" % self.holder.pid
        try:
            for _ in range(100):
                if os.stat(self.path).st_ino != os.stat("/proc/self/ns/net").st_ino:
                    break
                subprocess.run(["sleep", "0.05"])
            else:
                raise AssertionError("the holder never left the host's network namespace")
        except BaseException:
            self.__exit__()
            raise

    def run(self, *argv, **kw):
        return subprocess.run(["nsenter", "--net=" + self.path] + list(argv),
                              capture_output=True, text=True, **kw)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.holder.kill()
        self.holder.wait()


def test_host_line_lowered_under_a_containers_latches_the_base():
    """A container's job accepted under the host's line (1.6, 0.8), above a
    mean of 1: once the host lowers its line below the job's, the job's new
    flows latch the base."""
    set_host_line("1.6", "0.8")
    with HeldContainer() as c:
        c.run("ip", "link", "set", "lo", "up", check=True)
        ctl("-n", c.path, "job", "add", 1, "dport", 7170, "slope", 2, "intercept", "0.25")
        flow = c.run("/usr/bin/python3", "-c", FLOW, binary(), check=True).stdout
        assert json.loads(flow) == [[2.0, 0.25]]
        set_host_line("1.6", "0.2")
        flow = c.run("/usr/bin/python3", "-c", FLOW, binary(), check=True).stdout
        assert json.loads(flow) == [[0.0, 1.0]]


HOLD = """
import socket, sys
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 7170)); l.listen(1)
c = socket.socket()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
c.connect(("127.0.0.1", 7170)); s, _ = l.accept()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
print("up", flush=True)
sys.stdin.read()
"""


def rebound_count():
    """Live flows a lowered host's line gave a new line (debugfs)."""
    with open("/sys/kernel/debug/tcp_mltcp/relatch") as f:
        return int(dict(line.split() for line in f)["rebound"])


def held_lines(path=None):
    """The held pair's lines (HOLD): the connecting side's, whose job is
    dport 7170, then the accepted side's, which follows the namespace's
    defaults; in the namespace at path (None: the host's)."""
    out = ctl_json(*(["-n", path] if path else []), "flow", "show")
    return ([[f["slope"], f["intercept"]] for f in out if f["dport"] == 7170] +
            [[f["slope"], f["intercept"]] for f in out if f["sport"] == 7170])


def start_hold(*prefix):
    proc = subprocess.Popen(list(prefix) + ["/usr/bin/python3", "-c", HOLD],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if line != "up":
        proc.kill()
        proc.wait()
        raise AssertionError("the held pair did not come up (%r)" % line)
    return proc


def stop_hold(proc):
    proc.stdin.close()
    proc.wait(timeout=30)


def test_host_line_lowered_under_a_containers_live_flows_bounds_them():
    """The host's line lowered below a container's live flows' lines
    reaches them (a work item, within moments): each latches its line again
    as a new flow would, the job's line over the namespace's defaults (here
    beyond the new bound: the base's, slope 0, intercept 1) or the defaults,
    which follow the host's line. Flows of the initial user namespace keep
    theirs, and raising the host's line again gives nothing back: a flow
    takes a line only when it latches."""
    set_host_line("1.6", "0.8")
    ctl("job", "add", 1, "dport", 7170, "slope", 2, "intercept", "0.25")
    host_pair = start_hold()
    try:
        with HeldContainer() as c:
            c.run("ip", "link", "set", "lo", "up", check=True)
            ctl("-n", c.path, "job", "add", 1, "dport", 7170, "slope", 2, "intercept", "0.25")
            pair = start_hold("nsenter", "--net=" + c.path)
            try:
                assert held_lines(c.path) == [[2.0, 0.25], [1.6, 0.8]]
                assert held_lines() == [[2.0, 0.25], [1.6, 0.8]]
                before = rebound_count()
                set_host_line("1.6", "0.2")
                assert wait_for(lambda: held_lines(c.path) == [[0.0, 1.0], [1.6, 0.2]]), \
                    held_lines(c.path)
                assert rebound_count() - before >= 2
                assert held_lines() == [[2.0, 0.25], [1.6, 0.8]]
                set_host_line("1.6", "0.8")
                subprocess.run(["sleep", "0.5"])
                assert held_lines(c.path) == [[0.0, 1.0], [1.6, 0.2]]
            finally:
                stop_hold(pair)
    finally:
        stop_hold(host_pair)


# ---- the host's namespace, and those of "ip netns add" ----


def test_the_hosts_namespace_keeps_the_full_range():
    ctl("job", "add", 1, "intercept", 16)
    assert jobs()[1]["intercept"] == 16.0
    # The host's own sysctls are not written: a namespace that writes one
    # stops following the module parameter for good, which would change
    # what every later test's flows latch.


def test_a_namespace_of_the_initial_user_namespace_is_bounded():
    """"ip netns add" (as a Kubernetes pod with hostUsers: true, or a
    container given NET_ADMIN): owned by the initial user namespace, and
    bounded as a container's, through its sysctls, its jobs and mltcpctl."""
    assert bound_netns() == "Y"
    ns = Netns("mttrust")
    try:
        proc = ns.run("sysctl", "-w", "net.mltcp.intercept=16", check=False)
        assert proc.returncode != 0 and "Operation not permitted" in proc.stderr
        out = ns.run("/usr/bin/python3", "-c", textwrap.dedent("""
            import os
            fd = os.open("/proc/sys/net/mltcp/slope", os.O_WRONLY)
            try:
                os.write(fd, b"3\\n")
            except OSError as e:
                print("errno", e.errno)""")).stdout.strip()
        assert out == "errno %d" % errno.EPERM
        assert ns.run("sysctl", "-n", "net.mltcp.slope", "net.mltcp.intercept").stdout.split() == \
            ["1.600", "0.200"]
        line = error_line(ctl("-n", ns.name, "job", "add", 2, "intercept", 16, check=False))
        assert line == "mltcpctl: job 2: " + BOUND
        line = error_line(ctl("-n", ns.name, "job", "add", 3, "slope", 16, "intercept", 16,
                              check=False))
        assert line == "mltcpctl: job 3: " + BOUND
        line = error_line(ctl("-n", ns.name, "defaults", "set", "slope", 16, check=False))
        assert line == "mltcpctl: slope 16: " + BOUND
        assert ctl_json("-n", ns.name, "job", "show") == []
        # Within the bound: the host's line, a lower one, a mean of 1.
        ctl("-n", ns.name, "job", "add", 4, "intercept", "0.2")
        ctl("-n", ns.name, "job", "add", 5, "slope", 1, "intercept", "0.4")
        ns.run("sysctl", "-q", "-w", "net.mltcp.slope=1")
        assert sorted(j["id"] for j in ctl_json("-n", ns.name, "job", "show")) == [4, 5]
    finally:
        ns.close()


def test_bound_netns_off_leaves_the_initial_user_namespaces_unbounded():
    """The host's opt-out (bound_netns=0, at load): "ip netns add" keeps the
    full range, as before; a container's namespace is bounded still."""
    reload_module("bound_netns=0")
    try:
        bound_netns_off()
    finally:
        reload_module()


def bound_netns_off():
    assert bound_netns() == "N"
    with pytest.raises(OSError) as err:
        write_file(PARAMS + "bound_netns", "Y\n")
    assert err.value.errno == errno.EACCES  # 0444: load time only
    set_host_line("1.6", "0.2")
    ns = Netns("mtunbound")
    try:
        ns.run("sysctl", "-q", "-w", "net.mltcp.intercept=16")
        assert ns.run("sysctl", "-n", "net.mltcp.intercept").stdout.strip() == "16.000"
        ctl("-n", ns.name, "job", "add", 2, "slope", 16, "intercept", 16)
        ctl("-n", ns.name, "defaults", "set", "slope", "16")
        assert ns.run("sysctl", "-n", "net.mltcp.slope").stdout.strip() == "16.000"
    finally:
        ns.close()
    with HeldContainer() as c:
        proc = c.run("sysctl", "-w", "net.mltcp.intercept=16")
        assert proc.returncode != 0 and "Operation not permitted" in proc.stderr
        line = error_line(ctl("-n", c.path, "job", "add", 1, "intercept", 16, check=False))
        assert line == "mltcpctl: job 1: " + BOUND


def test_a_containers_namespace_is_bounded_for_the_host_too():
    """The bound is the namespace's: what the host writes into a container's
    namespace is bounded like the container's own writes, since the
    container's root can combine its writes with them."""
    with HeldContainer() as c:
        proc = c.run("sysctl", "-w", "net.mltcp.intercept=16")
        assert proc.returncode != 0 and "Operation not permitted" in proc.stderr
        line = error_line(ctl("-n", c.path, "job", "add", 1, "intercept", 16, check=False))
        assert line == "mltcpctl: job 1: " + BOUND
        ctl("-n", c.path, "job", "add", 1, "intercept", "0.2")


# ---- F = 0, everywhere ----


UNPRIVILEGED_FLOW = """
import socket, sys
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(1)
c = socket.socket()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
c.connect(l.getsockname())
s, _ = l.accept()
print(c.getsockname()[1], flush=True)
sys.stdin.read()
"""


def unprivileged_flow_line(netns=None):
    """The line a flow latches that a process without any privilege (nobody,
    no groups, no capabilities) opened with setsockopt("mltcp")."""
    prefix = ["ip", "netns", "exec", netns] if netns else []
    proc = subprocess.Popen(prefix + ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                                      "--clear-groups", "--inh-caps=-all",
                                      "/usr/bin/python3", "-c", UNPRIVILEGED_FLOW],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        sport = int(proc.stdout.readline())
        out = ctl_json(*(["-n", netns] if netns else []), "flow", "show")
        return [[f["slope"], f["intercept"]] for f in out if f["sport"] == sport]
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_an_unprivileged_socket_gets_its_namespaces_line():
    """tcp_mltcp(7), TRUST MODEL: any process may select mltcp and latches
    the line of its namespace: the host's in the host's, the bounded one
    its root set in another."""
    assert unprivileged_flow_line() == [[1.6, 0.2]]
    ns = Netns("mtnobody")
    try:
        ns.run("ip", "link", "set", "lo", "up")
        ns.run("sysctl", "-q", "-w", "net.mltcp.slope=1")
        ns.run("sysctl", "-q", "-w", "net.mltcp.intercept=0.4")
        assert unprivileged_flow_line(ns.name) == [[1.0, 0.4]]
    finally:
        ns.close()


def test_f_zero_is_refused_everywhere():
    line = error_line(ctl("job", "add", 1, "slope", 0, "intercept", 0, check=False))
    assert line == "mltcpctl: invalid intercept: " + F_ZERO
    ctl("job", "add", 1, "slope", 1)
    line = error_line(ctl("job", "set", 1, "slope", 0, "intercept", 0, check=False))
    assert line == "mltcpctl: invalid intercept: " + F_ZERO
    assert jobs()[1]["slope"] == 1.0

    ns = Netns("mtfzero")
    try:
        ns.run("sysctl", "-q", "-w", "net.mltcp.slope=0")
        proc = ns.run("sysctl", "-w", "net.mltcp.intercept=0", check=False)
        assert proc.returncode != 0 and "Invalid argument" in proc.stderr
        assert ns.run("sysctl", "-n", "net.mltcp.intercept").stdout.strip() == "0.200"
        # A job's intercept 0 over the namespace's slope 0.
        line = error_line(ctl("-n", ns.name, "job", "add", 2, "intercept", 0, check=False))
        assert line == "mltcpctl: invalid intercept: " + F_ZERO
        line = error_line(ctl("-n", ns.name, "defaults", "set", "intercept", 0, check=False))
        assert line == "mltcpctl: intercept 0: " + F_ZERO
    finally:
        ns.close()

    write_file(PARAMS + "slope", "0\n")
    with pytest.raises(OSError) as err:
        write_file(PARAMS + "intercept", "0\n")
    assert err.value.errno == errno.EINVAL
    assert open(PARAMS + "intercept").read().strip() == "0.200"
    line = error_line(ctl("defaults", "set", "global", "intercept", 0, check=False))
    assert line == "mltcpctl: intercept 0: " + F_ZERO
