# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Marks a training job's steps for MLTCP from inside the job, through
libmltcp (ctypes): no helper process, one call per step.

Where idles do not separate steps (a ring all-reduce that waits for a
slower rank in the middle of the step, several gradient buckets, backward
overlapping communication), the job is made "marked" and the application
says where each step starts. With PyTorch DDP, two lines of train.py:

    mltcpctl run job 7 marked -- torchrun --nproc-per-node 2 train.py

    from mltcp import StepMarker
    ddp.register_comm_hook(None, StepMarker().wrap(default_hooks.allreduce_hook))

The hook marks the step before the step's first bucket is reduced, with
the step's number, so that the ranks sharing a host (one job table) count
each step once between them; the mark returns once the datapath has it,
so it precedes the step's first packet. With the module, a process in the
job's cgroup needs no privilege to mark it (the BPF backend's maps are
root's). A mark that fails (the job was deleted, say) is reported once on
stderr, kept in `failed` (and `error`), and marking stops; training goes on.
"""
import ctypes
import errno
import os
import sys
import time

__all__ = ["Marker", "MarkError", "StepMarker"]

SONAME = "libmltcp.so.0"
BACKENDS = {"auto": 0, "kmod": 1, "bpf": 2}  # enum mltcp_backend (mltcp.h)

# A checkout's build (python/mltcp/ lies in userspace/libmltcp/), used
# before the installed library so that a checkout tests its own.
_BUILT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                      os.pardir, os.pardir, "build", "userspace", "libmltcp", SONAME)
_lib = None


class MarkError(OSError):
    """A failure of libmltcp: errno and libmltcp's one-line message."""


def library(path=None):
    """libmltcp, loaded once: path, else $MLTCP_LIBRARY, else a checkout's
    build, else the installed libmltcp.so.0."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    path = path or os.environ.get("MLTCP_LIBRARY") or (
        os.path.normpath(_BUILT) if os.path.exists(_BUILT) else SONAME)
    lib = ctypes.CDLL(path)
    lib.mltcp_marker_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint32,
                                      ctypes.c_int]
    lib.mltcp_marker_open.restype = ctypes.c_int
    lib.mltcp_mark.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.mltcp_mark.restype = ctypes.c_int
    lib.mltcp_marker_close.argtypes = [ctypes.c_void_p]
    lib.mltcp_marker_close.restype = None
    lib.mltcp_error.argtypes = []
    lib.mltcp_error.restype = ctypes.c_char_p
    _lib = lib
    return lib


def _u32(what, value):
    """value as a C uint32_t, which ctypes would otherwise wrap; the
    library says what a valid one is."""
    value = int(value)
    if not 0 <= value < 2**32:
        raise MarkError(errno.EINVAL, "%s %d: out of range (0-4294967295)" % (what, value))
    return value


class Marker:
    """One job's marker (mltcp_marker_open()): mark(step) per step; raises
    MarkError."""

    def __init__(self, job, backend="auto", path=None):
        if backend not in BACKENDS:
            raise MarkError(errno.EINVAL,
                            "backend %r: not a backend (auto, kmod or bpf)" % (backend,))
        self._lib = library(path)
        self._handle = ctypes.c_void_p()
        self._check(self._lib.mltcp_marker_open(ctypes.byref(self._handle),
                                                _u32("job", job), BACKENDS[backend]))

    def _check(self, ret):
        if ret < 0:
            raise MarkError(-ret, self._lib.mltcp_error().decode(errors="replace"))

    def mark(self, step=0):
        """A step starts (step 0: unnumbered); returns once the datapath has it."""
        if not self._handle:
            raise MarkError(errno.EBADF, "marker closed")
        self._check(self._lib.mltcp_mark(self._handle, _u32("step", step)))

    def close(self):
        if self._handle:
            self._lib.mltcp_marker_close(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self):
        if getattr(self, "_handle", None):
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class StepMarker:
    """The marks of one MLTCP job's steps, from a DDP communication hook."""

    def __init__(self, job=None, backend="auto", library=None):
        job = job if job is not None else os.environ.get("MLTCP_JOB")
        if not job:
            raise RuntimeError("no MLTCP job: run under `mltcpctl run` (MLTCP_JOB) or pass job=")
        self.job = int(job)
        self.step = 0
        self.failed = None  # the message of the failure that stopped marking
        self.error = None  # and its MarkError (errno)
        self.mark_s = 0.0  # how long the last mark took
        self._first_bucket = True
        self._marker = None
        try:
            self._marker = Marker(self.job, backend, library)
        except MarkError as e:
            self._stop(e)

    def _stop(self, e):
        self.error, self.failed = e, e.strerror
        print("mltcp: job %d: marking stopped: %s" % (self.job, self.failed), file=sys.stderr)
        self.close()

    def mark(self):
        """The next step starts: returns once the datapath has the mark, or
        at once if marking failed before."""
        self.step += 1
        if self.failed:
            return
        began = time.perf_counter()
        try:
            self._marker.mark(self.step)
        except MarkError as e:
            self._stop(e)
            return
        self.mark_s = time.perf_counter() - began

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
        if self._marker is not None:
            self._marker.close()
            self._marker = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
