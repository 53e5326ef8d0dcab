# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcpctl for the in-guest tests: where the binary is, running it (in a
namespace, as another user), and small helpers around its JSON output and
the flows the tests open."""
import json
import os
import socket
import subprocess
import threading
import time

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CANDIDATES = [os.environ.get("MLTCP_MLTCPCTL", ""),
              os.path.join(TOP, "build", "userspace", "mltcpctl", "mltcpctl")]
NOBODY = 65534


def binary():
    for path in CANDIDATES:
        if path and os.access(path, os.X_OK):
            return path
    pytest.fail("mltcpctl is not built: cmake -S . -B build && cmake --build build "
                "(or set MLTCP_MLTCPCTL)")


def ctl(*args, netns=None, user=None, check=True, timeout=120):
    """Run mltcpctl; return the CompletedProcess. netns: run it inside with
    "ip netns exec" (the tests of -n use the option instead)."""
    cmd = []
    if netns:
        cmd += ["ip", "netns", "exec", netns]
    if user is not None:
        cmd += ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"]
    cmd += [binary()] + [str(a) for a in args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("mltcpctl %s failed (%d): %s"
                             % (" ".join(map(str, args)), proc.returncode, proc.stderr.strip()))
    return proc


def ctl_json(*args, **kw):
    return json.loads(ctl("-j", *args, **kw).stdout)


def jobs(netns=None):
    return {j["id"]: j for j in ctl_json("job", "show", netns=netns)}


def flows(job=None, netns=None):
    args = ["flow", "show"] + (["job", job] if job else [])
    return ctl_json(*args, netns=netns)


def clear_jobs(netns=None):
    for job_id in jobs(netns):
        ctl("job", "del", job_id, netns=netns)


def error_line(proc):
    """The single line a failing mltcpctl prints."""
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


class Pair:
    """A loopback connection whose client uses an MLTCP algorithm; the server
    side drains. send() keeps the client's ACK clock running."""

    def __init__(self, port, cc="mltcp", mark=None, family=socket.AF_INET, host="127.0.0.1",
                 sport=None):
        self.lsock = socket.socket(family)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind((host, port))
        self.lsock.listen(4)
        self.client = socket.socket(family)
        self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        if mark is not None:
            self.client.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
        if sport is not None:
            self.client.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.client.bind((host, sport))
        self.client.connect((host, port))
        self.server, _ = self.lsock.accept()
        self.sport = self.client.getsockname()[1]
        self.cookie = cookie(self.client)
        self.received = 0
        self.stop = False
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self):
        while not self.stop:
            try:
                data = self.server.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            self.received += len(data)

    def send(self, nbytes):
        self.client.sendall(b"m" * nbytes)

    def burst(self, nbytes, idle_s):
        """One iteration: send, wait until all is acked, stay idle."""
        self.send(nbytes)
        deadline = time.time() + 30
        while outq(self.client) and time.time() < deadline:
            time.sleep(0.001)
        time.sleep(idle_s)

    def flow(self, netns=None):
        """This connection's client side as mltcpctl lists it. Found by its
        socket cookie: an ephemeral port may be shared by connections to
        different peers, and lingering sockets of earlier tests keep theirs."""
        for f in flows(netns=netns):
            if f["cookie"] == self.cookie:
                return f
        return None

    def close(self):
        self.stop = True
        for s in (self.client, self.server, self.lsock):
            try:
                s.close()
            except OSError:
                pass


SO_COOKIE = 57


def cookie(sock):
    """The socket's cookie, as sock_diag and mltcpctl report it."""
    import struct
    return struct.unpack("Q", sock.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8))[0]


def outq(sock):
    import fcntl
    import struct
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), 0x5411, b"\0" * 4))[0]


def wait_for(predicate, timeout=10.0, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


CLONE_NEWNET = 0x40000000


class in_netns:
    """Run the calling thread (and the sockets and processes it creates) in
    a named network namespace for the duration of a with block."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        import ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.old = os.open("/proc/self/ns/net", os.O_RDONLY)
        fd = os.open("/run/netns/" + self.name, os.O_RDONLY)
        try:
            if self.libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + self.name)
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        self.libc.setns(self.old, CLONE_NEWNET)
        os.close(self.old)


def module_objects():
    """Jobs and job configurations the module has allocated (debugfs)."""
    with open("/sys/kernel/debug/tcp_mltcp/stats") as f:
        return dict(line.split() for line in f)["job_objects"]
