# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The Python binding of libmltcp (`mltcp`, userspace/libmltcp/python)
without torch or a kernel: the DDP hook marks each step once, at its first
bucket, with the step's number, before the bucket's all-reduce; a failing
mark is reported once, kept in `failed` and `error`, and stops marking
without stopping training; bad input is refused by the library itself.
Marks reaching the BPF twin: tests/bpf/test_libmltcp.py."""
import errno
import os
import sys

import pytest

from bench import paths

sys.path.insert(0, os.path.join(paths.TOP, "userspace", "libmltcp", "python"))
import mltcp  # noqa: E402


class Bucket:
    def __init__(self, last):
        self.last = last

    def is_last(self):
        return self.last


class FakeMarker:
    """mltcp.Marker's interface, recording the marks (fail_at: the mark
    that raises, as libmltcp would for a deleted job)."""
    made = []

    def __init__(self, job, backend="auto", path=None, fail_at=None):
        self.job, self.backend, self.marks, self.fail_at = job, backend, [], fail_at
        FakeMarker.made.append(self)

    def mark(self, step=0):
        if self.fail_at is not None and len(self.marks) + 1 >= self.fail_at:
            raise mltcp.MarkError(errno.ENOENT, "job %d: no such job" % self.job)
        self.marks.append(step)

    def close(self):
        self.closed = True


@pytest.fixture
def fake(monkeypatch):
    FakeMarker.made = []
    monkeypatch.setattr(mltcp, "Marker", FakeMarker)
    return FakeMarker.made


def test_each_step_is_marked_once_before_its_first_bucket(fake):
    events = []
    marker = mltcp.StepMarker(job=7)

    def allreduce(state, bucket):
        events.append(("reduce", fake[0].marks[-1]))
        return "future"

    hook = marker.wrap(allreduce)
    for _ in range(3):  # three steps of two buckets
        assert hook(None, Bucket(False)) == "future"
        assert hook(None, Bucket(True)) == "future"
    marker.close()
    assert fake[0].job == 7 and fake[0].marks == [1, 2, 3] and fake[0].closed
    assert events == [("reduce", 1), ("reduce", 1), ("reduce", 2), ("reduce", 2),
                      ("reduce", 3), ("reduce", 3)]
    assert marker.failed is None and marker.mark_s > 0


def test_the_job_comes_from_mltcpctl_run(fake, monkeypatch):
    monkeypatch.setenv("MLTCP_JOB", "12")
    with mltcp.StepMarker(backend="bpf") as marker:
        marker.mark()
    assert (fake[0].job, fake[0].backend, fake[0].marks) == (12, "bpf", [1])


def test_no_job_is_an_error(monkeypatch):
    monkeypatch.delenv("MLTCP_JOB", raising=False)
    with pytest.raises(RuntimeError, match="no MLTCP job"):
        mltcp.StepMarker()


def test_a_failing_mark_stops_marking_not_training(monkeypatch, capsys):
    monkeypatch.setattr(mltcp, "Marker",
                        lambda job, backend, path: FakeMarker(job, fail_at=2))
    marker = mltcp.StepMarker(job=7)
    hook = marker.wrap(lambda state, bucket: "future")
    for _ in range(4):
        assert hook(None, Bucket(True)) == "future"
    err = capsys.readouterr().err
    assert err.count("marking stopped") == 1 and "job 7: no such job" in err, err
    assert marker.step == 4 and marker.failed == "job 7: no such job"
    assert marker.error.errno == errno.ENOENT


def test_a_marker_that_cannot_open_is_a_failure_seen_by_the_caller(capsys):
    marker = mltcp.StepMarker(job=7, backend="twin")
    marker.mark()
    assert marker.error.errno == errno.EINVAL and "not a backend" in marker.failed
    assert capsys.readouterr().err.count("marking stopped") == 1


def test_the_library_refuses_bad_input():
    # The checkout's libmltcp, through ctypes: its own rules and words.
    with pytest.raises(mltcp.MarkError) as e:
        mltcp.Marker(0)
    assert e.value.errno == errno.EINVAL
    assert e.value.strerror == "job ID 0: out of range (allowed 1 to 4294967295)"
    with pytest.raises(mltcp.MarkError) as e:
        mltcp.Marker(2**32)
    assert e.value.errno == errno.EINVAL
