# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Marks a PyTorch DDP job's training steps for MLTCP, so that its flows
count iterations by step rather than by idle (issue 15).

Where idles do not separate steps (a ring all-reduce that waits for a
slower rank in the middle of the step, several gradient buckets, backward
overlapping communication), the job is made "marked" and the application
says where each step starts:

    mltcpctl run job 7 marked -- torchrun --nproc-per-node 2 train.py

    # train.py
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from mltcp_steps import StepMarker

    marker = StepMarker()                       # the job: $MLTCP_JOB, set by mltcpctl run
    ddp.register_comm_hook(None, marker.wrap(default_hooks.allreduce_hook))

The hook marks the step before the step's first bucket is reduced, with
the step's number, so the ranks that share a host (one job table) count
each step once between them. One `mltcpctl job mark ID follow` process per
rank serves its whole run; each mark is acknowledged before the bucket is
sent, so the mark precedes the step's first packet. With the module, a
process in the job's cgroup needs no privilege to mark it (the BPF
backend's maps are root's). A mark that fails (the job was deleted, say)
is reported once on stderr and marking stops; training goes on.
"""
import os
import subprocess
import sys
import time


class StepMarker:
    """The marks of one MLTCP job, made through mltcpctl."""

    def __init__(self, job=None, mltcpctl="mltcpctl", options=()):
        job = job if job is not None else os.environ.get("MLTCP_JOB")
        if not job:
            raise RuntimeError("no MLTCP job: run under `mltcpctl run` (MLTCP_JOB) or pass job=")
        self.job = int(job)
        self.step = 0
        self.failed = None
        self.mark_s = 0.0  # how long the last mark took
        self._first_bucket = True
        self._proc = subprocess.Popen([mltcpctl, *options, "job", "mark", str(self.job), "follow"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)

    def mark(self):
        """The next step starts: returns once the kernel has the mark, or
        at once if marking failed before."""
        self.step += 1
        if self.failed:
            return
        began = time.monotonic()
        try:
            self._proc.stdin.write("%d\n" % self.step)
            self._proc.stdin.flush()
            if self._proc.stdout.readline().strip() == "ok":
                self.mark_s = time.monotonic() - began
                return
        except OSError:
            pass
        self._proc.kill()
        self._proc.wait(timeout=10)
        self.failed = self._proc.stderr.read().strip() or "mltcpctl exited"
        print("mltcp_steps: job %d: marking stopped: %s" % (self.job, self.failed),
              file=sys.stderr)

    def wrap(self, hook):
        """A DDP communication hook: marks a step at its first bucket, then
        runs hook (e.g. default_hooks.allreduce_hook)."""
        def marked(state, bucket):
            if self._first_bucket:
                self.mark()
                self._first_bucket = False
            if bucket.is_last():
                self._first_bucket = True
            return hook(state, bucket)
        return marked

    def close(self):
        if self._proc.poll() is None and not self.failed:
            self._proc.stdin.close()
            self._proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
