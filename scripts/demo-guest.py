#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest half of scripts/demo: two on-off flows through a bottleneck, with the
module's view of each (iterations found, bytes learned, r and F) sampled from
debugfs every 100 ms."""
import os
import platform
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "kernel"))
from netlab import Dumbbell, onoff, start_server  # noqa: E402

FLOWS = "/sys/kernel/debug/tcp_mltcp/flows"
NBYTES, IDLE_MS, ITERATIONS = 2_000_000, 300, 8


def flows():
    with open(FLOWS) as f:
        return [dict(kv.split("=", 1) for kv in line.split()) for line in f]


def main():
    print("guest kernel", platform.release())
    print(subprocess.run(["modinfo", "-F", "parm", "tcp_mltcp.ko"],
                         capture_output=True, text=True).stdout)
    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        print("available:", f.read().strip())
    net = Dumbbell(senders=2, rate_mbit=100, delay_ms=5)
    try:
        start_server(net.receiver, 6000)
        jobs = []
        for i, host in enumerate(net.senders):
            t = threading.Thread(target=lambda h=host: jobs.append(
                onoff(h, net.receiver.addr, 6000, "mltcp", NBYTES, IDLE_MS, ITERATIONS)))
            t.start()
            jobs.append(t)
            time.sleep(0.15 * (i + 1))
        print("\n  time   flow               iter  learned B   r      F")
        t0 = time.time()
        last = {}
        while any(isinstance(j, threading.Thread) and j.is_alive() for j in jobs):
            for fl in flows():
                state = (fl["iterations"], fl["r"])
                if fl["dst"].endswith(":6000") and last.get(fl["src"]) != state:
                    last[fl["src"]] = state
                    print("%6.1fs  %-18s %4s  %9s  %s  %s" % (
                        time.time() - t0, fl["src"], fl["iterations"],
                        fl["iter_bytes"], fl["r"], fl["f"]))
            time.sleep(0.1)
        print("\nper flow: iterations found / learned bytes per iteration (sent %d)" % NBYTES)
        for res in (j for j in jobs if isinstance(j, dict)):
            m = res["module"]
            print("  port %d: %s iterations, %s bytes, comm times %s s" % (
                res["local_port"], m["iterations"], m["iter_bytes"],
                " ".join("%.2f" % c for c in res["comm_s"])))
        print("\nThe interleaving experiment (iteration times against cubic and the"
              " ideal schedule) is not built yet; see the README's status section.")
    finally:
        net.close()


if __name__ == "__main__":
    main()
