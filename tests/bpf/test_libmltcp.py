# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""libmltcp (userspace/libmltcp/mltcp.h) and its Python binding (`mltcp`)
against the BPF twin on this machine's own kernel: a mark reaches the
twin's job table (the count `mltcpctl job show` reads), a step marked
again counts once, a missing job, no backend and an unprivileged process
are refused with their errno and mltcpctl's one-line message, and
StepMarker reports a failed mark once and stops marking.

Needs root. The library is $MLTCP_LIBRARY, else the checkout's build.
Run: tests/bpf/run.sh
"""
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostnet import run

TOP = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
PYTHON_DIR = TOP / "userspace/libmltcp/python"
sys.path.insert(0, str(PYTHON_DIR))
import mltcp  # noqa: E402

# A criterion no flow of this host has (TEST-NET-1), so the job captures none.
NOWHERE = ("peer", "192.0.2.1/32")


def ctl(*args, check=True):
    return run(TOOL, *args, check=check)


def marks(job):
    [shown] = json.loads(ctl("-j", "job", "show", "id", job).stdout)
    return shown["marks"]


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """The BPF backend loaded through mltcpctl; unloaded at the end."""
    assert os.geteuid() == 0, "the BPF host tests need root"
    assert not Path("/sys/module/tcp_mltcp").exists(), "these tests expect no tcp_mltcp module"
    ctl("bpf", "unload", check=False)
    ctl("bpf", "load")
    yield
    ctl("bpf", "unload", check=False)


@pytest.fixture
def job():
    """Job 9, marked, matching no flow; deleted after the test."""
    ctl("job", "add", 9, *NOWHERE, "marked")
    yield 9
    ctl("job", "del", 9, check=False)


def test_marks_reach_the_twins_table(job):
    with mltcp.Marker(job, "bpf") as m:
        m.mark(1)
        m.mark(2)
        assert marks(job) == 2
        m.mark(2)  # a rank sharing the host marks the same step: counted once
        assert marks(job) == 2
        m.mark()  # unnumbered: always counted
        assert marks(job) == 3
    with mltcp.Marker(job) as m:  # auto picks the twin on this host
        m.mark(3)
    assert marks(job) == 4


def test_a_missing_job_is_enoent_with_mltcpctls_message():
    with mltcp.Marker(77, "bpf") as m:
        with pytest.raises(mltcp.MarkError) as e:
            m.mark(1)
    assert e.value.errno == errno.ENOENT and e.value.strerror == "job 77: no such job"


def test_a_bad_job_id_or_backend_is_einval():
    with pytest.raises(mltcp.MarkError) as e:
        mltcp.Marker(0, "bpf")
    assert e.value.errno == errno.EINVAL and "job ID 0" in e.value.strerror, e.value
    with pytest.raises(mltcp.MarkError) as e:
        mltcp.Marker(1, "twin")
    assert e.value.errno == errno.EINVAL


def test_no_backend_is_enodev():
    ctl("bpf", "unload")
    try:
        with pytest.raises(mltcp.MarkError) as e:
            mltcp.Marker(9, "auto")
        assert e.value.errno == errno.ENODEV and "no MLTCP backend" in e.value.strerror
        with pytest.raises(mltcp.MarkError) as e:
            mltcp.Marker(9, "kmod")
        assert e.value.errno == errno.ENODEV and "tcp_mltcp module" in e.value.strerror
    finally:
        ctl("bpf", "load")


def test_unprivileged_marks_are_refused(job):
    # The twin's maps are root's: a process without CAP_BPF/CAP_NET_ADMIN
    # is refused at the mark (it may see the pin directory but not the map).
    code = ("import mltcp, sys\n"
            "try:\n"
            "    mltcp.Marker(%d, 'bpf').mark(1)\n"
            "except mltcp.MarkError as e:\n"
            "    print(e.errno, e.strerror); sys.exit(0)\n"
            "sys.exit('marked')\n" % job)
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR)))
    assert r.returncode == 0, (r.stdout, r.stderr)
    err, message = r.stdout.split(" ", 1)
    assert int(err) in (errno.EPERM, errno.EACCES) and "permission denied" in message, r.stdout
    assert marks(job) == 0


def test_step_marker_reports_a_failed_mark_once_and_stops(job, capsys):
    marker = mltcp.StepMarker(job=job, backend="bpf")
    marker.mark()
    assert marker.failed is None and marker.mark_s > 0 and marks(job) == 1
    ctl("job", "del", job)
    for _ in range(3):
        marker.mark()
    assert marker.step == 4
    assert marker.failed == "job 9: no such job" and marker.error.errno == errno.ENOENT
    err = capsys.readouterr().err
    assert err.count("marking stopped") == 1 and "no such job" in err, err


def test_a_marker_follows_its_job_to_another_slot(job):
    # A marker reads the slot it found its job in last: after the job is
    # deleted and another takes that slot, the job's marks still reach it alone.
    with mltcp.Marker(job, "bpf") as m:
        m.mark(1)
        ctl("job", "del", job)
        ctl("job", "add", 8, *NOWHERE, "marked")  # the first free slot: job 9's
        try:
            ctl("job", "add", job, *NOWHERE, "marked")
            m.mark(1)
            assert marks(job) == 1 and marks(8) == 0
        finally:
            ctl("job", "del", 8, check=False)
