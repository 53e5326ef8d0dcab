#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Traffic for the datapath suite (and the BPF host tests), run inside a
network namespace. mltcp-trainsim closes its connections when it ends; this
keeps them open after the last burst, so mltcpctl can list the flow.

  onoff.py sink PORT
      Accepts connections and discards what they send. Prints "listening".
  onoff.py send HOST PORT CC BYTES COUNT IDLE_MS [trace] [pauses]
      One connection using congestion control CC: COUNT times, send BYTES,
      wait until everything is acknowledged (SIOCOUTQ == 0), stay idle for
      IDLE_MS. Prints "sport N" once connected and "done" at the end, then
      keeps the socket open until a line (or EOF) arrives on stdin. With
      "trace", each burst starts with a write of 1000 bytes and prints
      "trace JSON": the socket's window (TCP_INFO) just before and just
      after that write, the window the congestion control left at the
      burst's start, before any ACK of it can arrive. With "pauses", prints
      "burst JSON" after each burst: the sender's pauses inside it and the
      longest the idle before it can have been (Writer).
  onoff.py serve PORT CC BYTES COUNT IDLE_MS
      The sending side as a server: listens on PORT with CC set on the
      listener (accepted sockets inherit it), prints "listening", accepts
      one connection and sends to it as send does, printing "done".
  onoff.py fetch HOST PORT
      The client of serve: connects and discards what arrives until EOF.
  onoff.py steps HOST PORT CC
      One connection; for each line N read from stdin, send N bytes, wait
      until they are acknowledged and print "sent". Prints "sport N" once
      connected; closes at EOF.
  onoff.py hold HOST PORT CC
      Like send with a bulk transfer that runs until stdin gets a line, so a
      test can act while the flow is live. Prints "sport N", then "sent N"
      for each line it reads, and closes at EOF.
"""
import json
import os
import socket
import struct
import sys
import threading
import time

# Run as a script (in a namespace): the checkout's top, for testbed.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from testbed.writer import TimedWriter, unacked  # noqa: E402


def drain(conn):
    with conn:
        while conn.recv(1 << 20):
            pass


def sink(port):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(64)
    print("listening", flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=drain, args=(conn,), daemon=True).start()


def connect(host, port, cc):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    sock.connect((host, port))
    print("sport", sock.getsockname()[1], flush=True)
    return sock


# struct tcp_info (include/uapi/linux/tcp.h): the fields a trace reports.
TCP_INFO_FIELDS = {"ca_state": (1, "B"), "snd_ssthresh": (76, "I"), "snd_cwnd": (80, "I"),
                   "bytes_acked": (120, "Q")}


def tcp_info(sock):
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 128)
    return {k: struct.unpack_from(fmt, raw, off)[0] for k, (off, fmt) in TCP_INFO_FIELDS.items()}


def send(host, port, cc, nbytes, count, idle_ms, trace=False, pauses=False):
    bursts(connect(host, port, cc), nbytes, count, idle_ms, trace, pauses)


def serve(port, cc, nbytes, count, idle_ms):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    print("listening", flush=True)
    sock, _ = srv.accept()
    srv.close()
    bursts(sock, nbytes, count, idle_ms)


def fetch(host, port):
    drain(socket.create_connection((host, port)))


CHUNK = b"\0" * (1 << 20)


class Writer(TimedWriter):
    """testbed's timed writes, reported per burst as this tool prints them:
    each pause in ms from the call of one write that took data to the call
    of the next ("ms"), with the bytes written before ("sent") and whether
    the socket had nothing unsent or unacked just before the next
    ("drained"); and the idle before the burst at its longest."""

    def __init__(self, sock):
        super().__init__(sock)
        self.busy_until = None

    def burst(self, busy_until):
        """The burst that ended: its pauses, and the idle before it at its
        longest ("idle_ms": from the last moment the previous burst was seen
        unacknowledged to this one's first write). The next write begins a
        burst; busy_until is when this one was last seen unacknowledged."""
        idle_ms = None
        if self.first is not None and self.busy_until is not None:
            idle_ms = round((self.first[0] - self.busy_until) * 1000.0, 1)
        out = {"pauses": [{"ms": round((p["to"] - p["from"]) * 1000.0, 1), "sent": p["sent"],
                           "drained": p["drained"]} for p in self.pauses],
               "idle_ms": idle_ms}
        self.reset()
        self.busy_until = busy_until
        return out


def send_acked(sock, nbytes, writer=None):
    """Sends nbytes and waits until every byte is acknowledged; returns the
    last time before that at which some were not (a bound on the drain)."""
    while nbytes:
        n = min(nbytes, len(CHUNK))
        nbytes -= writer.write(memoryview(CHUNK)[:n]) if writer else sock.send(CHUNK[:n])
    busy = writer.last_call if writer else time.monotonic()
    deadline = time.monotonic() + 30
    while True:
        now = time.monotonic()
        if not unacked(sock):
            return busy
        busy = now
        if now > deadline:
            sys.exit("data not acknowledged within 30 s")
        time.sleep(0.0005)


def bursts(sock, nbytes, count, idle_ms, trace=False, pauses=False):
    writer = Writer(sock)
    for _ in range(count):
        left = nbytes
        if trace:
            before = tcp_info(sock)
            left -= writer.write(CHUNK[:1000])
            after = tcp_info(sock)
        busy_until = send_acked(sock, left, writer)
        if trace:
            print("trace", json.dumps({"before": before, "after": after}), flush=True)
        burst = writer.burst(busy_until)
        if pauses:
            print("burst", json.dumps(burst), flush=True)
        time.sleep(idle_ms / 1000.0)
    print("done", flush=True)
    sys.stdin.readline()
    sock.close()


def steps(host, port, cc):
    sock = connect(host, port, cc)
    for line in sys.stdin:
        send_acked(sock, int(line))
        print("sent", flush=True)
    sock.close()


def hold(host, port, cc):
    sock = connect(host, port, cc)
    sent = [0]
    stop = threading.Event()

    def pump():
        chunk = b"\0" * (1 << 16)
        while not stop.is_set():
            try:
                sent[0] += sock.send(chunk)
            except OSError:
                return

    threading.Thread(target=pump, daemon=True).start()
    for _ in sys.stdin:
        print("sent", sent[0], flush=True)
    stop.set()
    sock.close()


def main():
    cmd = sys.argv[1]
    if cmd == "sink":
        sink(int(sys.argv[2]))
    elif cmd == "send":
        host, port, cc, nbytes, count, idle_ms = sys.argv[2:8]
        send(host, int(port), cc, int(nbytes), int(count), float(idle_ms),
             "trace" in sys.argv[8:], "pauses" in sys.argv[8:])
    elif cmd == "serve":
        port, cc, nbytes, count, idle_ms = sys.argv[2:7]
        serve(int(port), cc, int(nbytes), int(count), float(idle_ms))
    elif cmd == "fetch":
        fetch(sys.argv[2], int(sys.argv[3]))
    elif cmd == "hold":
        host, port, cc = sys.argv[2:5]
        hold(host, int(port), cc)
    elif cmd == "steps":
        host, port, cc = sys.argv[2:5]
        steps(host, int(port), cc)
    else:
        sys.exit("usage: onoff.py sink|send|serve|fetch|steps|hold ...")


if __name__ == "__main__":
    main()
