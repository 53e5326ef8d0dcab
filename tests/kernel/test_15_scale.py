# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""10,000 concurrent matched flows are all listed by `flow show`; after they
close and their namespace goes, the module's allocations and the kernel's
socket memory return to their baseline."""
import json
import resource
import socket
import struct
import subprocess
import time

from bench.topology import Netns
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
            ctl("job", "add", 1, "dport", PORT, "slope", "2", "iter-bytes", "1M")
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
            assert all(f["job"] == 1 and f["slope"] == 2.0 and f["iter_bytes"] == 1 << 20
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
