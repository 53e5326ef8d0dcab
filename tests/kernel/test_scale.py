# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""10,000 concurrent matched flows are all listed by `flow show`; after they
close and their namespace goes, the module's allocations and the kernel's
socket memory return to their baseline. A job change among 10,000 flows of
another job touches only its own."""
import json
import resource
import socket
import struct
import subprocess
import time

from testbed.topology import Netns
from nl_ctl import binary, ctl, in_netns, module_objects, wait_for

FLOWS = 10000
PORT = 7777


def tcp_slab_objects():
    """Active objects of the TCP socket caches."""
    total = 0
    with open("/proc/slabinfo") as f:
        for line in f:
            name, active = line.split()[:2]
            if name in ("TCP", "TCPv6", "request_sock_TCP", "tw_sock_TCP"):
                total += int(active)
    return total


def slab_kib():
    """Unreclaimable slab (sockets live there), after dropping what the
    kernel can reclaim on its own (dentries and inodes of /proc and /sys
    that a namespace leaves behind)."""
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("2\n")
    with open("/proc/meminfo") as f:
        return int(next(line for line in f if line.startswith("SUnreclaim:")).split()[1])


def test_ten_thousand_flows_listed_and_memory_returns():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 3 * FLOWS), max(hard, 3 * FLOWS)))
    objects0, tcp0, slab0 = module_objects(), tcp_slab_objects(), slab_kib()
    ns = Netns("mtscale")
    socks = []
    try:
        with in_netns(ns.name):
            ctl("job", "add", 1, "dport", PORT, "slope", "1.5", "iter-bytes", "1M")
            listener = socket.socket()
            listener.bind(("127.0.0.1", PORT))
            listener.listen(4096)
            start = time.time()
            for _ in range(FLOWS):
                c = socket.socket()
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
                c.connect(("127.0.0.1", PORT))
                s, _ = listener.accept()
                socks += [c, s]
            opened = time.time() - start

            start = time.time()
            out = subprocess.run([binary(), "-j", "flow", "show", "job", "1"],
                                 capture_output=True, text=True, check=True).stdout
            listed = time.time() - start
            flows = json.loads(out)
            assert len(flows) == FLOWS
            assert {f["sport"] for f in flows} == {c.getsockname()[1] for c in socks[::2]}
            assert all(f["job"] == 1 and f["slope"] == 1.5 and f["iter_bytes"] == 1 << 20
                       for f in flows)
            job = json.loads(ctl("-j", "job", "show", 1).stdout)[0]
            assert job["flows"] == FLOWS and job["flows_total"] == FLOWS
            peak = slab_kib()

            # Close with RST (no TIME_WAIT), then let the namespace go.
            linger = struct.pack("ii", 1, 0)
            for s in socks:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                s.close()
            listener.close()
            socks = []
            assert wait_for(lambda: json.loads(ctl("-j", "job", "show", 1).stdout)[0]["flows"] == 0,
                            timeout=60)
    finally:
        for s in socks:
            s.close()
        ns.close()
    assert wait_for(lambda: module_objects() == objects0, timeout=30), module_objects()
    assert wait_for(lambda: tcp_slab_objects() <= tcp0 + 200, timeout=60), (tcp0, tcp_slab_objects())
    # Namespace teardown and RCU frees finish asynchronously (slowly under
    # emulation): wait for the memory to come back rather than sample once.
    wait_for(lambda: slab_kib() - slab0 < 4096, timeout=90, step=1.0)
    slab1 = slab_kib()
    print("%d flows: opened in %.1f s, listed in %.1f s; slab %d KiB -> %d KiB peak -> %d KiB; "
          "TCP objects %d -> %d; module objects %s -> %s"
          % (FLOWS, opened, listed, slab0, peak, slab1, tcp0, tcp_slab_objects(), objects0,
             module_objects()))
    assert peak - slab0 > 20000  # the flows really took memory ...
    assert slab1 - slab0 < 4096  # ... and gave it back (4 MiB of slack for per-CPU caches)


RELATCH = "/sys/kernel/debug/tcp_mltcp/relatch"


def relatch_counters():
    with open(RELATCH) as f:
        return {k: int(v) for k, v in (line.split() for line in f)}


def linger_close(socks):
    linger = struct.pack("ii", 1, 0)
    for s in socks:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        s.close()


def test_a_job_change_locks_only_its_own_flows():
    """`job set` on a job of 10 flows, in a namespace with 10,000 MLTCP
    flows of another job: only the 10 sockets are locked (debugfs relatch),
    and two concurrent changes leave every flow with the job's final
    settings."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 3 * FLOWS), max(hard, 3 * FLOWS)))
    ns = Netns("mtwalk")
    socks, mine = [], []
    try:
        with in_netns(ns.name):
            ctl("job", "add", 1, "dport", PORT)
            ctl("job", "add", 2, "dport", PORT + 1, "slope", "1.5")
            listeners = []
            for port in (PORT, PORT + 1):
                listener = socket.socket()
                listener.bind(("127.0.0.1", port))
                listener.listen(4096)
                listeners.append(listener)
            for i in range(FLOWS + 10):
                c = socket.socket()
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"mltcp")
                c.connect(("127.0.0.1", PORT + (i >= FLOWS)))
                s, _ = listeners[i >= FLOWS].accept()
                socks += [c, s]
                if i >= FLOWS:
                    mine.append(struct.unpack("Q", c.getsockopt(socket.SOL_SOCKET, 57, 8))[0])
            assert json.loads(ctl("-j", "job", "show", 1).stdout)[0]["flows"] == FLOWS

            before = relatch_counters()
            start = time.monotonic()
            ctl("job", "set", 2, "slope", "1.25")
            took = time.monotonic() - start
            after = relatch_counters()
            locked = after["sockets_locked"] - before["sockets_locked"]
            of_job = json.loads(ctl("-j", "flow", "show", "job", 2).stdout)
            print("job set of a 10-flow job among %d flows of another: %.3f s, %d sockets locked"
                  % (FLOWS, took, locked))
            assert sorted(f["cookie"] for f in of_job) == sorted(mine)
            assert all(f["slope"] == 1.25 for f in of_job)
            assert after["changes"] - before["changes"] == 1
            assert locked == 10

            # Two writers at once: whichever change the table ends with,
            # every live flow ends with it too.
            loop = "for i in $(seq 15); do {0} job set 2 slope {1}; done"
            writers = [subprocess.Popen(["sh", "-c", loop.format(binary(), slope)])
                       for slope in ("1.1", "1.3")]
            assert all(w.wait(timeout=600) == 0 for w in writers)
            final = json.loads(ctl("-j", "job", "show", 2).stdout)[0]["slope"]
            slopes = {f["slope"] for f in json.loads(ctl("-j", "flow", "show", "job", 2).stdout)}
            assert slopes == {final}, (final, slopes)
            linger_close(socks + listeners)
            socks = []
    finally:
        for s in socks:
            s.close()
        ns.close()
