# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""rmmod refuses while sockets use the algorithm, succeeds after they close,
and load/unload cycles with traffic in between leave nothing behind."""
import socket
import threading

from testbed.topology import sh
from conftest import NAMES, load_module, module_loaded, unload_module


def transfer(cc, nbytes=1 << 20):
    """Send nbytes over loopback with the given CC; return the CC used."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    received = []

    def sink():
        conn, _ = lsock.accept()
        total = 0
        while True:
            data = conn.recv(1 << 16)
            if not data:
                break
            total += len(data)
        received.append(total)
        conn.close()

    t = threading.Thread(target=sink)
    t.start()
    c = socket.socket()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    c.connect(lsock.getsockname())
    c.sendall(b"m" * nbytes)
    used = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    c.close()
    t.join()
    lsock.close()
    assert received == [nbytes]
    return used


def test_rmmod_refused_while_in_use(fresh_module):
    assert load_module().returncode == 0
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
    proc = sh("rmmod", "tcp_mltcp", check=False)
    assert proc.returncode != 0
    assert "in use" in proc.stderr, proc.stderr
    assert module_loaded()
    s.close()
    assert unload_module().returncode == 0
    assert not module_loaded()


def test_twenty_load_unload_cycles_with_traffic(fresh_module):
    for cycle in range(20):
        proc = load_module()
        assert proc.returncode == 0, "cycle %d: %s" % (cycle, proc.stderr)
        name = NAMES[cycle % len(NAMES)]
        assert transfer(name) == name
        proc = unload_module()
        assert proc.returncode == 0, "cycle %d: %s" % (cycle, proc.stderr)
        with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
            assert not set(NAMES) & set(f.read().split())
