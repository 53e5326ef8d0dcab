# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The tracepoint mltcp:mltcp_iteration through tracefs, as perf and
bpftrace users get it: switching it on and off (the `tracing` fixture in
conftest.py) and parsing the events it left in the buffer."""
import os
import re
import subprocess

TRACEFS = "/sys/kernel/tracing"
EVENT = TRACEFS + "/events/mltcp/mltcp_iteration"
FIELDS = re.compile(
    r"(\d+\.\d+): mltcp_iteration: cookie=(\d+) src=\[([0-9a-f:.]+)\]:(\d+) dst=\[([0-9a-f:.]+)\]:(\d+) job=(\d+) "
    r"iteration=(\d+) bytes=(\d+) duration_us=(\d+) iter_bytes=(\d+) f=(\d+)$")
KEYS = ("ts", "cookie", "src", "sport", "dst", "dport", "job", "iteration", "bytes", "duration_us",
        "iter_bytes", "f")


def write(name, text):
    with open(os.path.join(TRACEFS, name), "w") as f:
        f.write(text)


def mount():
    if not os.path.isdir(TRACEFS + "/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)


def start():
    """Mount tracefs if needed, clear the buffer, enable the event."""
    mount()
    assert os.path.isdir(EVENT), "the module registered no mltcp:mltcp_iteration event"
    write("tracing_on", "0")
    write("trace_clock", "mono")  # timestamps comparable with time.monotonic()
    write("trace", "")
    write("events/mltcp/mltcp_iteration/enable", "1")
    write("tracing_on", "1")


def stop():
    write("events/mltcp/mltcp_iteration/enable", "0")
    write("trace", "")


def events():
    """The fields of every mltcp_iteration event in the buffer, in order;
    "ts" is its time in seconds of CLOCK_MONOTONIC."""
    out = []
    with open(os.path.join(TRACEFS, "trace")) as f:
        for line in f:
            if line.startswith("#") or "mltcp_iteration:" not in line:
                continue
            m = FIELDS.search(line.rstrip("\n"))
            assert m, "unexpected format: %r" % line
            ev = dict(zip(KEYS, m.groups()))
            out.append({k: v if k in ("src", "dst") else float(v) if k == "ts" else int(v)
                        for k, v in ev.items()})
    return out
