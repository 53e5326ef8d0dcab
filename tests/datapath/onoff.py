#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Traffic for the datapath suite (and the BPF host tests), run inside a
network namespace. mltcp-trainsim closes its connections when it ends; this
keeps them open after the last burst, so mltcpctl can list the flow.

  onoff.py sink PORT
      Accepts connections and discards what they send. Prints "listening".
  onoff.py send HOST PORT CC BYTES COUNT IDLE_MS
      One connection using congestion control CC: COUNT times, send BYTES,
      wait until everything is acknowledged (SIOCOUTQ == 0), stay idle for
      IDLE_MS. Prints "sport N" once connected and "done" at the end, then
      keeps the socket open until a line (or EOF) arrives on stdin.
  onoff.py hold HOST PORT CC
      Like send with a bulk transfer that runs until stdin gets a line, so a
      test can act while the flow is live. Prints "sport N", then "sent N"
      for each line it reads, and closes at EOF.
"""
import fcntl
import socket
import struct
import sys
import termios
import threading
import time


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


def unacked(sock):
    buf = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0))
    return struct.unpack("i", buf)[0]


def send(host, port, cc, nbytes, count, idle_ms):
    sock = connect(host, port, cc)
    chunk = b"\0" * (1 << 20)
    for _ in range(count):
        left = nbytes
        while left:
            left -= sock.send(chunk[: min(left, len(chunk))])
        deadline = time.monotonic() + 30
        while unacked(sock):
            if time.monotonic() > deadline:
                sys.exit("data not acknowledged within 30 s")
            time.sleep(0.0005)
        time.sleep(idle_ms / 1000.0)
    print("done", flush=True)
    sys.stdin.readline()
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
        send(host, int(port), cc, int(nbytes), int(count), float(idle_ms))
    elif cmd == "hold":
        host, port, cc = sys.argv[2:5]
        hold(host, int(port), cc)
    else:
        sys.exit("usage: onoff.py sink|send|hold ...")


if __name__ == "__main__":
    main()
