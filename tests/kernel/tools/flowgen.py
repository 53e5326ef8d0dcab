#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Traffic for the zero-window test: an on-off sender and a receiver that can
stop reading (the suite's other on-off flows are mltcp-trainsim's, whose
receiver always drains).

  flowgen.py server --port P [--stall-after BYTES --stall-ms MS] [--rcvbuf BYTES]
  flowgen.py onoff --dst IP --port P --cc NAME --bytes N --idle-ms M --iterations K [--trace]

The on-off sender writes N bytes, waits until the socket has nothing unsent
or unacked (SIOCOUTQ == 0), sleeps M ms and repeats: the shape of a training
job's communication phases. Before closing it captures its own socket as the
module sees it (debugfs) and as ss sees it, and prints one JSON object.

With --trace, each iteration starts with one small write and the socket's
TCP_INFO is read just before it (the end of the idle time) and just after
it: the window the congestion control left at the iteration start, before
any ACK of the new iteration can arrive.

The writes are non-blocking and timed ("bursts"), so that a burst the
sender (or the guest under it) paused inside shows: a pause of at least the
idle gap after which the socket had nothing unsent or unacked is an idle
to the module like a compute phase, and starts an iteration
(CLOCK_MONOTONIC, as tracefs's mono clock; see netlab.explain_starts()).
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

# Run as a script (in a namespace): the checkout's top, for testbed.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
from testbed.writer import TimedWriter, unacked  # noqa: E402

FLOWS = "/sys/kernel/debug/tcp_mltcp/flows"


# struct tcp_info (include/uapi/linux/tcp.h): the fields --trace reports.
TCP_INFO_FIELDS = {"ca_state": (1, "B"), "snd_ssthresh": (76, "I"), "snd_cwnd": (80, "I"),
                   "total_retrans": (100, "I"), "bytes_acked": (120, "Q"),
                   "delivered_ce": (196, "I")}


def tcp_info(sock):
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    return {k: struct.unpack_from(fmt, raw, off)[0] for k, (off, fmt) in TCP_INFO_FIELDS.items()}


class BurstWriter(TimedWriter):
    """testbed's timed writes, reported per burst as this tool prints them:
    the writer's "first", "pauses" and "sent", with when the burst began
    ("t0") and when it was all acknowledged ("acked")."""

    def begin(self):
        self.reset()
        self.t0 = time.monotonic()

    def end(self):
        return {"t0": self.t0, "first": self.first, "pauses": self.pauses, "sent": self.sent,
                "acked": time.monotonic()}


def module_view(local_port):
    """The debugfs line of the flow whose source port is local_port, as a dict."""
    if not os.path.exists(FLOWS):
        # "ip netns exec" gives us a private mount namespace with a fresh
        # /sys and no debugfs; mounting it here affects only this process.
        subprocess.run(["mount", "-t", "debugfs", "debugfs", "/sys/kernel/debug"],
                       check=False)
    try:
        with open(FLOWS) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        fields = dict(kv.split("=", 1) for kv in line.split())
        if fields.get("src", "").endswith(":%d" % local_port):
            return fields
    return None


def ss_view(local_port):
    out = subprocess.run(["ss", "-tin", "sport = :%d" % local_port],
                         capture_output=True, text=True, check=True).stdout
    return out


def serve_conn(conn, args):
    received = 0
    since_stall = 0
    with conn:
        while True:
            data = conn.recv(1 << 16)
            if not data:
                return
            received += len(data)
            since_stall += len(data)
            if args.stall_after and since_stall >= args.stall_after:
                since_stall = 0
                time.sleep(args.stall_ms / 1000.0)


def server(args):
    lsock = socket.socket(socket.AF_INET6 if ":" in args.bind else socket.AF_INET)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.rcvbuf:
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    lsock.bind((args.bind, args.port))
    lsock.listen(64)
    print("listening", flush=True)
    while True:
        conn, _ = lsock.accept()
        threading.Thread(target=serve_conn, args=(conn, args), daemon=True).start()


def onoff(args):
    sock = socket.socket(socket.AF_INET6 if ":" in args.dst else socket.AF_INET)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    sock.connect((args.dst, args.port))
    payload = b"\x5a" * args.bytes
    durations = []
    trace = []
    bursts = []
    writer = BurstWriter(sock)
    for _ in range(args.iterations):
        start = time.monotonic()
        writer.begin()
        if args.trace:
            before = tcp_info(sock)
            writer.write(payload[:1000])
            trace.append({"before": before, "after": tcp_info(sock)})
            writer.write(memoryview(payload)[1000:])
        else:
            writer.write(payload)
        while unacked(sock) > 0:
            time.sleep(0.001)
        durations.append(time.monotonic() - start)
        bursts.append(writer.end())
        time.sleep(args.idle_ms / 1000.0)
    port = sock.getsockname()[1]
    result = {
        "cc": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
              .rstrip(b"\0").decode(),
        "local_port": port,
        "iterations": args.iterations,
        "bytes": args.bytes,
        "comm_s": durations,
        "bursts": bursts,
        "module": module_view(port),
        "ss": ss_view(port),
    }
    if args.trace:
        result["trace"] = trace
        result["end"] = tcp_info(sock)
    sock.close()
    json.dump(result, sys.stdout)
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("server")
    sp.add_argument("--bind", default="0.0.0.0")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--rcvbuf", type=int, default=0)
    sp.add_argument("--stall-after", type=int, default=0,
                    help="pause reading after this many bytes (0: never)")
    sp.add_argument("--stall-ms", type=int, default=0)
    op = sub.add_parser("onoff")
    op.add_argument("--dst", required=True)
    op.add_argument("--port", type=int, required=True)
    op.add_argument("--cc", required=True)
    op.add_argument("--bytes", type=int, required=True)
    op.add_argument("--idle-ms", type=int, required=True)
    op.add_argument("--iterations", type=int, required=True)
    op.add_argument("--trace", action="store_true",
                    help="TCP_INFO just before and after each iteration's first write")
    args = ap.parse_args()
    server(args) if args.cmd == "server" else onoff(args)


if __name__ == "__main__":
    main()
