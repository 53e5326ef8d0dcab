# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The timed writer of on-off traffic (tests/datapath/onoff.py and
tests/kernel/tools/flowgen.py send their bursts through it).

A burst is written with non-blocking writes, each timed, so that a burst
the sender (or the guest under it) paused inside shows: a pause of at least
the idle gap after which the socket had nothing unsent or unacked is an
idle to the datapath like a compute phase, and may start an iteration
inside the burst. Times are CLOCK_MONOTONIC, as tracefs's mono clock.
"""
import fcntl
import select
import struct
import time

SIOCOUTQ = 0x5411  # = TIOCOUTQ: bytes unsent or unacknowledged
# Pauses between two writes of a burst at least this long are reported.
PAUSE_REPORT_S = 0.005


def unacked(sock):
    """Bytes the socket holds unsent or unacknowledged (SIOCOUTQ)."""
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, b"\0" * 4))[0]


class TimedWriter:
    """Non-blocking writes of one burst, each timed: the burst's first write
    that took data ("first": [called, returned]) and every pause of
    PAUSE_REPORT_S or more from the call of one write that took data to the
    call of the next ("pauses": "from", "to", "to_ret": when that next write
    returned, "sent": bytes written before it, "drained": whether the socket
    had nothing unsent or unacked just before it). A pause counts from the
    call, not the return: the queue may run dry while the sender is
    descheduled inside a write as well as while it waits to be run after
    the socket took more. reset() begins the next burst."""

    def __init__(self, sock):
        self.sock = sock
        sock.setblocking(False)
        self.reset()

    def reset(self):
        self.first = None
        self.pauses = []
        self.sent = 0
        self.last_call = None

    def write(self, data):
        """Writes all of data (waiting for room as needed); returns its length."""
        view = memoryview(data)
        while view:
            drained = None
            if self.last_call is not None and time.monotonic() - self.last_call >= PAUSE_REPORT_S:
                drained = unacked(self.sock) == 0
            t_call = time.monotonic()
            try:
                n = self.sock.send(view)
            except BlockingIOError:
                select.select([], [self.sock], [])
                continue
            t_ret = time.monotonic()
            if self.first is None:
                self.first = [t_call, t_ret]
            elif t_call - self.last_call >= PAUSE_REPORT_S:
                self.pauses.append({"from": self.last_call, "to": t_call, "to_ret": t_ret,
                                    "sent": self.sent, "drained": drained})
            self.last_call = t_call
            self.sent += n
            view = view[n:]
        return len(data)
