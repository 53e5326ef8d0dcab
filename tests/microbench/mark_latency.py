#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How long a step's mark takes, per mark, as a training process sees it:
StepMarker.mark() over libmltcp (the hook today), against the `mltcpctl job
mark ID follow` process the hook used to keep per rank (a line written, "ok"
read back) and against a `mltcpctl job mark ID step N` process per mark.
Prints the median, p99 and max of each, in microseconds.

A measurement, not a test. Needs root and a backend: on the BPF backend it
loads the twin if none is loaded (and unloads only the one it loaded),
holding the host lock the bench and tests/bpf/run.sh take. The job it marks
matches no flow (peer 192.0.2.1/32) and is deleted at the end.

    /usr/bin/python3 tests/microbench/mark_latency.py [--marks N] [--process-marks N]
        [--backend bpf|kmod]
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [TOP, os.path.join(TOP, "userspace", "libmltcp", "python")]

from bench import metrics, paths  # noqa: E402
from bench.run import host_lock  # noqa: E402
import mltcp  # noqa: E402

JOB = 4000038  # beside the bench's and the tests' ids


def ctl(tool, *args, check=True):
    """mltcpctl; with check, its failure ends the measurement with its one line."""
    done = subprocess.run([tool, *[str(a) for a in args]], capture_output=True, text=True,
                          timeout=60)
    if check and done.returncode != 0:
        sys.exit("mark_latency: %s" % done.stderr.strip())
    return done


def twin(tool):
    """The loaded twin's struct_ops ids (which tell one load from another), or None."""
    status = json.loads(ctl(tool, "-j", "bpf", "status", check=False).stdout)
    return sorted(s["id"] for s in status["struct_ops"]) if status["loaded"] else None


def summary(name, seconds):
    us = [s * 1e6 for s in seconds]
    return "%-34s %6d marks  median %8.1f us  p99 %8.1f us  max %8.1f us" % (
        name, len(us), metrics.percentile(us, 50), metrics.percentile(us, 99), max(us))


def library_marks(backend, n):
    marker = mltcp.StepMarker(job=JOB, backend=backend)
    took = []
    for _ in range(n):
        began = time.perf_counter()
        marker.mark()
        took.append(time.perf_counter() - began)
    marker.close()
    if marker.failed:
        sys.exit("mark_latency: libmltcp: %s" % marker.failed)
    return took


def follow_marks(tool, backend, n):
    proc = subprocess.Popen([tool, "-b", backend, "job", "mark", str(JOB), "follow"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    took = []
    for step in range(1, n + 1):
        began = time.perf_counter()
        proc.stdin.write("%d\n" % step)
        proc.stdin.flush()
        if proc.stdout.readline().strip() != "ok":
            sys.exit("mark_latency: mltcpctl job mark follow failed")
        took.append(time.perf_counter() - began)
    proc.stdin.close()
    proc.wait(timeout=10)
    return took


def process_marks(tool, backend, n):
    took = []
    for step in range(1, n + 1):
        began = time.perf_counter()
        ctl(tool, "-b", backend, "job", "mark", JOB, "step", step)
        took.append(time.perf_counter() - began)
    return took


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--marks", type=int, default=5000, help="marks per way (default 5000)")
    p.add_argument("--backend", choices=("bpf", "kmod"), default="bpf")
    p.add_argument("--process-marks", type=int,
                   help="marks by a process each (default --marks / 10; 0: none)")
    p.add_argument("--mltcpctl", default=paths.MLTCPCTL)
    args = p.parse_args()
    if args.marks < 100:
        p.error("--marks: at least 100 (a p99 needs them)")
    by_process = args.marks // 10 if args.process_marks is None else args.process_marks
    if by_process < 0:
        p.error("--process-marks: 0 or more")
    tool = args.mltcpctl
    # The twin is the host's, shared with the bench and tests/bpf; the module's jobs are this
    # namespace's.
    with host_lock() if args.backend == "bpf" else contextlib.nullcontext():
        loaded_here = None
        if args.backend == "bpf" and twin(tool) is None:
            ctl(tool, "bpf", "load")
            loaded_here = twin(tool)
        try:
            ctl(tool, "-b", args.backend, "job", "add", JOB, "peer", "192.0.2.1/32", "marked")
            try:
                print("backend %s, job %d, %s" % (args.backend, JOB, os.uname().release))
                print(summary("StepMarker.mark() (libmltcp)", library_marks(args.backend,
                                                                          args.marks)))
                print(summary("mltcpctl job mark follow (line)", follow_marks(
                    tool, args.backend, args.marks)))
                if by_process:
                    print(summary("mltcpctl job mark (a process)", process_marks(
                        tool, args.backend, by_process)))
            finally:
                ctl(tool, "-b", args.backend, "job", "del", JOB, check=False)
        finally:
            # Only the twin loaded here: not one another user loaded since.
            if loaded_here and twin(tool) == loaded_here:
                ctl(tool, "bpf", "unload", check=False)


if __name__ == "__main__":
    main()
