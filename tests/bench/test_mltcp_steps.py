# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/torch/mltcp_steps.py without torch or a kernel: a fake mltcpctl
records the marks. The hook marks each step once, at its first bucket,
with the step's number, before the bucket's all-reduce; a failing mltcpctl
stops marking without stopping training."""
import os
import sys

from bench import paths

sys.path.insert(0, os.path.join(paths.TOP, "contrib", "torch"))
from mltcp_steps import StepMarker  # noqa: E402


class Bucket:
    def __init__(self, last):
        self.last = last

    def is_last(self):
        return self.last


def fake_tool(tmp_path, body):
    tool = tmp_path / "mltcpctl"
    tool.write_text("#!/bin/sh\necho \"$@\" > %s/argv\n%s\n" % (tmp_path, body))
    tool.chmod(0o755)
    return str(tool)


def test_each_step_is_marked_once_before_its_first_bucket(tmp_path):
    log = tmp_path / "marks"
    tool = fake_tool(tmp_path, 'while read -r step; do echo "$step" >> %s; echo ok; done' % log)
    events = []
    marker = StepMarker(job=7, mltcpctl=tool)

    def allreduce(state, bucket):
        events.append(("reduce", marker.step))
        return "future"

    hook = marker.wrap(allreduce)
    for _ in range(3):  # three steps of two buckets
        assert hook(None, Bucket(False)) == "future"
        assert hook(None, Bucket(True)) == "future"
    marker.close()
    assert (tmp_path / "argv").read_text().split() == ["job", "mark", "7", "follow"]
    assert log.read_text().split() == ["1", "2", "3"]
    assert events == [("reduce", 1), ("reduce", 1), ("reduce", 2), ("reduce", 2),
                      ("reduce", 3), ("reduce", 3)]


def test_the_job_comes_from_mltcpctl_run(tmp_path, monkeypatch):
    tool = fake_tool(tmp_path, "while read -r step; do echo ok; done")
    monkeypatch.setenv("MLTCP_JOB", "12")
    with StepMarker(mltcpctl=tool) as marker:
        marker.mark()
    assert (tmp_path / "argv").read_text().split() == ["job", "mark", "12", "follow"]


def test_a_failing_mark_stops_marking_not_training(tmp_path, capsys):
    tool = fake_tool(tmp_path, 'echo "mltcpctl: job 7: no such job" >&2; exit 1')
    marker = StepMarker(job=7, mltcpctl=tool)
    hook = marker.wrap(lambda state, bucket: "future")
    for _ in range(3):
        assert hook(None, Bucket(True)) == "future"
    marker.close()
    err = capsys.readouterr().err
    assert err.count("marking stopped") == 1 and "no such job" in err, err
    assert marker.step == 3
