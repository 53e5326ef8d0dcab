# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Jobs that match by cgroup (v2): the flows of sockets created in the
cgroup or below it, connected or accepted, whatever their ports. Training
frameworks open their gradient connections on ports the kernel picks, so
this is how an operator tags them (issue 15). The other criteria, settings
and the listing are test_jobs.py's."""
import os
import re
import signal
import subprocess
import time

import pytest

from dp import ONOFF, OTHER_PORT, PYTHON, TOOL
from testbed import topology

SERVE_PORT = 5310


def cgroup2_mount():
    try:
        return topology.cgroup2_mount()
    except RuntimeError as exc:
        pytest.fail(str(exc))


def wait_until(predicate, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


class Cgroups:
    """Fresh cgroups under one directory of the cgroup2 mount, removed at
    the end (after the flows started in them have closed)."""

    def __init__(self):
        self.mount = cgroup2_mount()
        self.top = "mltcp-test-%d" % os.getpid()
        self.made = []
        self.make(self.top)

    def make(self, relative):
        path = os.path.join(self.mount, relative)
        os.mkdir(path)
        self.made.append(path)
        return "/" + relative

    def path(self, relative):
        return os.path.join(self.mount, relative.lstrip("/"))

    def inode(self, relative):
        return os.stat(self.path(relative)).st_ino

    def close(self):
        for path in reversed(self.made):
            os.rmdir(path)


@pytest.fixture
def cgroups():
    c = Cgroups()
    yield c
    c.close()


pytestmark = pytest.mark.usefixtures("no_jobs")


@pytest.fixture
def opened():
    flows = []
    yield flows
    for f in flows:
        f.close()


def test_cgroup_matches_connected_and_accepted_flows(backend, net, cgroups, opened):
    a = cgroups.make(cgroups.top + "/a")
    b = cgroups.make(cgroups.top + "/b")
    a_child = cgroups.make(cgroups.top + "/a/rank0")
    backend.job("add", 1, "cgroup", a, "slope", 2)
    # Under the mount as an absolute path, as an operator may give it.
    backend.job("add", 2, "cgroup", cgroups.path(b), "slope", 3)

    def onoff(cgroup=None):
        opened.append(net.onoff(256 << 10, 1, 1, port=OTHER_PORT,
                                cgroup=cgroups.path(cgroup) if cgroup else None))
        return opened[-1]

    in_a, in_child, in_b, outside = onoff(a), onoff(a_child), onoff(b), onoff()
    opened.append(net.served(256 << 10, 1, 1, SERVE_PORT, cgroup=cgroups.path(a_child)))
    accepted = opened[-1]

    assert len({f.sport for f in (in_a, in_child, in_b, outside)}) == 4, "ephemeral ports"
    assert in_a.show()["job"] == 1 and in_a.show()["slope"] == 2.0
    assert in_child.show()["job"] == 1, "a descendant of the job's cgroup"
    assert in_b.show()["job"] == 2 and in_b.show()["slope"] == 3.0
    assert outside.show()["job"] is None
    assert accepted.show()["job"] == 1, "an accepted socket has its listener's cgroup"
    assert accepted.show()["dport"] != SERVE_PORT and accepted.show()["sport"] == SERVE_PORT

    shown = {j["id"]: j for j in backend.jobs()}
    assert shown[1]["cgroup"] == a and shown[1]["cgroup_id"] == cgroups.inode(a)
    assert shown[2]["cgroup"] == b, "the path relative to the mount, however it was given"
    text = backend.job("show", 1).stdout
    assert "cgroup %s" % a in text, text


def test_cgroup_can_be_changed_and_dropped(backend, net, cgroups, opened):
    a = cgroups.make(cgroups.top + "/a")
    b = cgroups.make(cgroups.top + "/b")
    backend.job("add", 1, "cgroup", a)
    backend.job("set", 1, "cgroup", b)
    opened.append(net.onoff(256 << 10, 1, 1, cgroup=cgroups.path(a)))
    assert opened[-1].show()["job"] is None, "a criterion matches new flows only"
    backend.job("set", 1, "cgroup", "any")
    assert "cgroup" not in backend.jobs(1)[0]
    opened.append(net.onoff(256 << 10, 1, 1, cgroup=cgroups.path(a)))
    assert opened[-1].show()["job"] == 1


def test_a_removed_cgroup_is_shown_by_id(backend, cgroups):
    gone = cgroups.make(cgroups.top + "/gone")
    inode = cgroups.inode(gone)
    backend.job("add", 1, "cgroup", gone)
    os.rmdir(cgroups.path(gone))
    cgroups.made.remove(cgroups.path(gone))
    job = backend.jobs(1)[0]
    assert job["cgroup"] is None and job["cgroup_id"] == inode
    assert "cgroup-id %d" % inode in backend.job("show", 1).stdout


@pytest.mark.parametrize("path, reason", [
    ("/mltcp-no-such-cgroup", "No such file or directory"),
    ("/cgroup.procs", "not a cgroup"),
    ("", "empty path"),
])
def test_bad_cgroup_is_refused_and_changes_nothing(backend, path, reason):
    before = backend.jobs()
    proc = backend.job("add", 9, "cgroup", path, check=False)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0], proc.stderr
    assert backend.jobs() == before
    backend.job("add", 9, "slope", 2)
    proc = backend.job("set", 9, "cgroup", path, check=False)
    assert proc.returncode != 0 and reason in proc.stderr
    assert "cgroup" not in backend.jobs(9)[0]


def start_run(backend, net, *run_args, command):
    """mltcpctl run RUN_ARGS -- COMMAND, COMMAND in the sender's namespace
    (kmod: the job in its table, -n; bpf: the host's one table)."""
    argv = [TOOL, "-b", backend.name, *backend.jobs_ns_args(), "run", *run_args, "--",
            "ip", "netns", "exec", net.snd.name, *command]
    # A shell's background job starts with SIGINT ignored, and the command
    # would inherit that (as under nohup): the tests want the default.
    return subprocess.Popen([str(a) for a in argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def run_cgroup_dir(proc):
    """Where mltcpctl run (pid) makes its cgroup: under the caller's own."""
    with open("/proc/self/cgroup") as f:
        own = [line[3:].strip() for line in f if line.startswith("0::")][0]
    return os.path.join(cgroup2_mount() + own.rstrip("/"), "mltcp-run-%d" % proc.pid)


def test_run_tags_the_command_and_removes_job_and_cgroup(backend, net):
    proc = start_run(backend, net, "job", 7, "slope", 2,
                     command=[PYTHON, ONOFF, "send", net.rcv.addr, OTHER_PORT, "mltcp",
                              256 << 10, 1, 1])
    try:
        line = proc.stdout.readline().split()
        assert line and line[0] == "sport", proc.stderr.read()
        assert proc.stdout.readline().strip() == "done"
        job = backend.jobs(7)[0]
        assert job["slope"] == 2.0
        assert os.path.isdir(run_cgroup_dir(proc))
        assert job["cgroup"].endswith("/mltcp-run-%d" % proc.pid), job
        flow = net.flow_by_sport(int(line[1]))
        assert flow["job"] == 7 and flow["slope"] == 2.0, "an ephemeral port, tagged"
    finally:
        proc.stdin.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert backend.jobs() == []
    assert not os.path.exists(run_cgroup_dir(proc))


def test_run_passes_status_and_environment_and_picks_a_free_id(backend, net):
    backend.job("add", 1, "slope", 2)
    proc = start_run(backend, net, command=["sh", "-c", 'echo "$MLTCP_JOB $MLTCP_CGROUP"; exit 3'])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    job_id, cgroup = out.split()
    assert job_id == "2", "the lowest free id"
    assert cgroup.endswith("/mltcp-run-%d" % proc.pid)
    assert [j["id"] for j in backend.jobs()] == [1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run_cleans_up_on_a_signal(backend, net, sig):
    proc = start_run(backend, net, "job", 8, command=["sleep", "60"])
    wait_until(lambda: backend.jobs() != [])
    assert os.path.isdir(run_cgroup_dir(proc))
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == 128 + sig, proc.stderr.read()
    assert backend.jobs() == []
    assert not os.path.exists(run_cgroup_dir(proc))


def test_run_waits_for_its_command_with_sigchld_ignored(backend, net):
    """A launcher that ignores SIGCHLD: mltcpctl still sees its command end."""
    argv = [TOOL, "-b", backend.name, *backend.jobs_ns_args(), "run", "job", 8, "--",
            "sh", "-c", "exit 4"]
    proc = subprocess.Popen([str(a) for a in argv], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
    assert proc.wait(timeout=30) == 4, proc.stderr.read()
    assert backend.jobs() == []


def test_run_kills_what_the_command_leaves_behind(backend, net):
    proc = start_run(backend, net, "job", 8,
                     command=["sh", "-c", "sleep 300 & echo $!"])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    left = int(out.split()[0])
    wait_until(lambda: not os.path.exists("/proc/%d" % left) or
               open("/proc/%d/stat" % left).read().split()[2] == "Z")
    assert not os.path.exists(run_cgroup_dir(proc))


def test_run_refuses_a_job_id_in_use_and_leaves_nothing(backend, net):
    backend.job("add", 9, "slope", 2)
    proc = start_run(backend, net, "job", 9, command=["true"])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err.strip().splitlines() == ["mltcpctl: job 9: already exists"], err
    assert not os.path.exists(run_cgroup_dir(proc))
    assert [j["id"] for j in backend.jobs()] == [9]



# A user database of the test's own, bind-mounted over /etc/passwd and
# /etc/group in a mount namespace of mltcpctl's alone: a user with two
# supplementary groups, whatever this machine's (or the guest's read-only)
# /etc holds.
TEST_USER, TEST_UID, TEST_GID = "mltcp-run-test", 4242, 4242
GROUP_A, GID_A, GROUP_B, GID_B = "mltcp-run-a", 4243, "mltcp-run-b", 4244
TEST_HOME = "/nonexistent/mltcp-run-test"


@pytest.fixture
def users(tmp_path):
    passwd, group = tmp_path / "passwd", tmp_path / "group"
    with open("/etc/passwd") as f:
        passwd.write_text(f.read() + "%s:x:%d:%d::%s:/bin/sh\n" %
                          (TEST_USER, TEST_UID, TEST_GID, TEST_HOME))
    with open("/etc/group") as f:
        group.write_text(f.read() + "%s:x:%d:\n%s:x:%d:%s\n%s:x:%d:other,%s\n" %
                         (TEST_USER, TEST_GID, GROUP_A, GID_A, TEST_USER, GROUP_B, GID_B,
                          TEST_USER))
    # unshare and sh exec mltcpctl in the end: its pid is the Popen's.
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            'mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/group && shift 2 && '
            'exec "$@"', "sh", str(passwd), str(group)]


# What COMMAND reports of itself: ids, capability sets, cgroup, environment.
WHOAMI = ('echo "uid=$(id -u)"; echo "gid=$(id -g)"; echo "groups=$(id -G)"; '
          'grep -E "^(CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs):" /proc/self/status; '
          'grep "^0::" /proc/self/cgroup; '
          'echo "home=${HOME-}"; echo "user=${USER-}"; echo "job=$MLTCP_JOB"; '
          'echo "cgroup=$MLTCP_CGROUP"; ')


def whoami(text):
    """WHOAMI's lines as a dict (uid, gid, groups, CapEff, ..., in (the
    cgroup), home, ...)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("0::"):
            out["in"] = line[3:]
        elif re.match(r"^[a-z]+=", line):
            key, value = line.split("=", 1)
            out[key] = value
        elif ":" in line:
            key, value = line.split(":", 1)
            out[key] = value.strip()
    return out


def uid_of_child(pid):
    """The uid of a child of pid, if it has one."""
    for entry in os.listdir("/proc"):
        try:
            with open("/proc/%s/status" % entry) as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except (OSError, ValueError):
            continue
        if fields.get("PPid", "").strip() == str(pid):
            return int(fields["Uid"].split()[0])
    return None


def start_run_as(backend, users, *run_args, command):
    """mltcpctl run RUN_ARGS -- sh -c COMMAND, with the test's user database.
    COMMAND runs where mltcpctl does (kmod: -n, the sender's namespace): an
    unprivileged COMMAND could not "ip netns exec"."""
    argv = [*users, TOOL, "-b", backend.name, *backend.jobs_ns_args(), "run", *run_args,
            "--", "sh", "-c", command]
    return subprocess.Popen([str(a) for a in argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


NO_CAPS = {"CapInh": "0" * 16, "CapPrm": "0" * 16, "CapEff": "0" * 16, "CapAmb": "0" * 16,
           "NoNewPrivs": "1"}


@pytest.mark.parametrize("who, uid, gid, groups, home", [
    # A name: its entry's gid, and the groups that list it (initgroups).
    (("user", TEST_USER), TEST_UID, TEST_GID, {TEST_GID, GID_A, GID_B}, TEST_HOME),
    # group changes the primary gid; the supplementary groups stay the user's.
    (("user", TEST_USER, "group", GROUP_B), TEST_UID, GID_B, {TEST_GID, GID_A, GID_B},
     TEST_HOME),
    # A uid its entry's; a gid with no entry at all.
    (("user", TEST_UID, "group", 4999), TEST_UID, 4999, {TEST_GID, GID_A, GID_B, 4999},
     TEST_HOME),
    # A uid with no entry: that gid, no supplementary groups, the caller's HOME.
    (("user", 4998, "group", GID_A), 4998, GID_A, {GID_A}, None),
])
def test_run_as_a_user_in_the_jobs_cgroup(backend, net, users, who, uid, gid, groups, home):
    """COMMAND has the uid, gid and groups asked, no capability in any set,
    no_new_privs, is born in the job's cgroup, and cannot delete its job."""
    delete = "%s -b %s job del $MLTCP_JOB 2>&1; echo del=$?; " % (TOOL, backend.name)
    proc = start_run_as(backend, users, "job", 7, *who,
                        command=WHOAMI + delete + "echo ready; read x; exit 5")
    try:
        lines = []
        while not lines or lines[-1] != "ready":
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line.strip())
        got = whoami("\n".join(lines[:-1]))
        assert (int(got["uid"]), int(got["gid"])) == (uid, gid), got
        assert {int(g) for g in got["groups"].split()} == groups, got
        assert {k: got[k] for k in NO_CAPS} == NO_CAPS
        cgroup_dir = run_cgroup_dir(proc)
        assert os.path.isdir(cgroup_dir)
        job = backend.jobs(7)[0]
        assert got["in"] == got["cgroup"] == job["cgroup"], (got, job)
        assert cgroup_dir.endswith(job["cgroup"])
        assert job["cgroup_id"] == os.stat(cgroup_dir).st_ino, "the cgroup COMMAND is in"
        assert got["job"] == "7"
        assert got["del"] != "0", "an unprivileged COMMAND cannot change jobs"
        if home:
            assert (got["home"], got["user"]) == (home, TEST_USER), got
        else:
            assert (got["home"], got["user"]) == \
                (os.environ.get("HOME", ""), os.environ.get("USER", "")), "no entry: the caller's"
    finally:
        proc.stdin.close()
    assert proc.wait(timeout=60) == 5, proc.stderr.read()
    assert backend.jobs() == []
    assert not os.path.exists(run_cgroup_dir(proc))


def test_run_with_group_alone_changes_the_gid_only(backend, net, users):
    proc = start_run_as(backend, users, "group", GROUP_A, command=WHOAMI)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    got = whoami(out)
    assert (got["uid"], got["gid"]) == ("0", str(GID_A)), got
    assert got["CapEff"] != "0" * 16 and got["NoNewPrivs"] == "0", "still root"


def test_run_as_a_user_passes_on_a_signal(backend, net, users):
    proc = start_run_as(backend, users, "job", 8, "user", TEST_USER, command="exec sleep 60")
    wait_until(lambda: backend.jobs() != [])
    wait_until(lambda: uid_of_child(proc.pid) == TEST_UID)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM, proc.stderr.read()
    assert backend.jobs() == []
    assert not os.path.exists(run_cgroup_dir(proc))


@pytest.mark.parametrize("who, message", [
    (("user", "mltcp-no-such-user"), "run: user mltcp-no-such-user: no such user"),
    (("group", "mltcp-no-such-group"), "run: group mltcp-no-such-group: no such group"),
    (("user", TEST_USER, "group", "mltcp-no-such-group"),
     "run: group mltcp-no-such-group: no such group"),
    (("user", 4000000123), "run: user 4000000123: not in the user database, so it has no "
                           "group: give group GID too"),
    (("user", "root"), "run: user root: uid 0 would keep root's privileges (leave user out "
                       "to run COMMAND as the caller)"),
])
def test_run_with_an_unknown_user_or_group_leaves_nothing(backend, net, users, tmp_path, who,
                                                          message):
    ran = tmp_path / "ran"
    proc = start_run_as(backend, users, *who, command="touch %s" % ran)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err.strip().splitlines() == ["mltcpctl: " + message], err
    assert not ran.exists()
    assert backend.jobs() == []
    assert not os.path.exists(run_cgroup_dir(proc))
