#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Hold the socket lock of an MLTCP flow for as long as asked.

  lockholder.py --port P [--cc mltcp]

Opens a loopback connection to a listener of its own on port P, the client
with the given congestion control, and calls send() on the client from a
buffer whose page is registered with userfaultfd and never filled.
tcp_sendmsg() takes the socket lock (lock_sock()) and then copies from the
buffer: the copy faults and waits for the userfaultfd, which nobody serves,
so the send sleeps with the socket owned. (A send on a full buffer would
not do: sk_stream_wait_memory() releases the lock while it waits.)

Prints "held SPORT COOKIE" once the fault is pending, i.e. once the lock is
held, then waits for its standard input to close and exits; exiting ends
the send (the fault fails) and releases the lock. Needs root (userfaultfd
for faults in kernel mode).
"""
import argparse
import ctypes
import mmap
import os
import select
import socket
import struct
import sys
import threading

SYS_USERFAULTFD = 323  # x86_64
UFFD_API = 0xAA
UFFDIO_API = 0xC018AA3F         # _IOWR(0xAA, 0x3F, struct uffdio_api)
UFFDIO_REGISTER = 0xC020AA00    # _IOWR(0xAA, 0x00, struct uffdio_register)
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
SO_COOKIE = 57
PAGE = mmap.PAGESIZE


def userfaultfd(libc):
    fd = libc.syscall(SYS_USERFAULTFD, os.O_CLOEXEC | os.O_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "userfaultfd")
    api = ctypes.create_string_buffer(struct.pack("QQQ", UFFD_API, 0, 0), 24)
    if libc.ioctl(fd, UFFDIO_API, api) != 0:
        raise OSError(ctypes.get_errno(), "UFFDIO_API")
    return fd


def register(libc, fd, addr, length):
    reg = ctypes.create_string_buffer(
        struct.pack("QQQQ", addr, length, UFFDIO_REGISTER_MODE_MISSING, 0), 32)
    if libc.ioctl(fd, UFFDIO_REGISTER, reg) != 0:
        raise OSError(ctypes.get_errno(), "UFFDIO_REGISTER")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--cc", default="mltcp")
    args = ap.parse_args()

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", args.port))
    lsock.listen(1)
    client = socket.socket()
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    client.connect(("127.0.0.1", args.port))
    server, _ = lsock.accept()
    # Before the send: getsockname() may itself take the socket lock.
    sport = client.getsockname()[1]
    cookie = struct.unpack("Q", client.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8))[0]

    uffd = userfaultfd(libc)
    area = mmap.mmap(-1, PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    # The address only: nothing here reads or writes the page.
    addr = ctypes.addressof(ctypes.c_char.from_buffer(area))
    register(libc, uffd, addr, PAGE)
    view = memoryview(area)
    threading.Thread(target=client.send, args=(view,), daemon=True).start()

    poll = select.poll()
    poll.register(uffd, select.POLLIN)
    if not poll.poll(10000):
        sys.exit("lockholder: send() did not fault on the registered page")
    event = os.read(uffd, 32)
    if event[0] != UFFD_EVENT_PAGEFAULT:
        sys.exit("lockholder: unexpected userfaultfd event %#x" % event[0])
    print("held %d %d" % (sport, cookie), flush=True)
    sys.stdin.read()
    # The sending thread cannot be joined; exiting the process ends it.
    server.close()
    os._exit(0)


if __name__ == "__main__":
    main()
