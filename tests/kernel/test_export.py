# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcpctl export against the module: its text is what Prometheus's own
parser (Debian's python3-prometheus-client) reads, its counters grow
between two scrapes while an on-off job runs and agree with "job show" once
the job is idle, the iteration detector's verdicts and the start gate's
counts are reported per network namespace (the genl stats command), and
"--output" with "--interval" replaces a node_exporter textfile atomically
(the gate's holds themselves: tests/datapath/test_gate.py)."""
import os
import stat
import subprocess
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from netlab import idles_inside, onoff_py_pauses
from nl_ctl import binary, ctl, ctl_json, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
ONOFF = os.path.join(HERE, "..", "datapath", "onoff.py")
PYTHON = "/usr/bin/python3"
PORT = 7300
NBYTES = 300_000
IDLE_MS = 60       # above the 20 ms idle gap: every burst after the first starts an iteration
BURSTS = 60


def scrape(netns):
    """{(metric name, frozenset of labels): value}, and the families' types,
    as prometheus_client parses one scrape."""
    text = ctl("-n", netns, "export").stdout
    samples, types = {}, {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for s in family.samples:
            key = (s.name, frozenset(s.labels.items()))
            assert key not in samples, key
            samples[key] = s.value
    return samples, types


def value(samples, name, **labels):
    return samples[(name, frozenset(labels.items()))]


def job_metric(samples, name, netns, job=1):
    return value(samples, name, job=str(job), netns=netns, backend="kmod")


def verdict(samples, netns, which="iterations"):
    return value(samples, "mltcp_iteration_verdicts_total", verdict=which, netns=netns,
                 backend="kmod")


@pytest.fixture
def onoff_job(dumbbell):
    """Job 1 in the sender's namespace matching the on-off flow, the sink on
    the receiver; yields (sender, receiver, the sender process), which
    keeps its socket open after its last burst until stdin closes."""
    snd, rcv = dumbbell.left[0], dumbbell.right[0]
    ctl("-n", snd.name, "job", "add", 1, "dport", PORT)
    sink = rcv.spawn(PYTHON, ONOFF, "sink", str(PORT))
    assert sink.stdout.readline().strip() == "listening"
    sender = snd.spawn(PYTHON, ONOFF, "send", rcv.addr, str(PORT), "mltcp", str(NBYTES),
                       str(BURSTS), str(IDLE_MS), "pauses", stdin=subprocess.PIPE)
    try:
        yield snd, rcv, sender
    finally:
        sender.kill()
        sink.kill()
        sender.wait()
        sink.wait()


def job_iterations(netns):
    return ctl_json("-n", netns, "job", "show", 1)[0]["iterations"]


def test_counters_grow_between_two_scrapes_of_a_running_job(onoff_job):
    snd, rcv, sender = onoff_job
    ns = snd.name
    assert wait_for(lambda: job_iterations(ns) >= 3, timeout=60), ctl("job", "show").stdout
    first, types = scrape(ns)
    seen = job_iterations(ns)
    assert wait_for(lambda: job_iterations(ns) >= seen + 3, timeout=60)
    second, _ = scrape(ns)
    assert sender.poll() is None, "the job ended before the second scrape"

    # The families and their types, with HELP: what a scraper keys on.
    assert types == {"mltcp_flows": "gauge", "mltcp_flows_untrusted": "gauge",
                     "mltcp_flows_prio_held": "gauge", "mltcp_job_flows": "gauge",
                     "mltcp_job_flows_matched": "counter", "mltcp_job_iterations": "counter",
                     "mltcp_job_bytes": "counter", "mltcp_job_f": "gauge",
                     "mltcp_iteration_verdicts": "counter", "mltcp_gate": "counter",
                     "mltcp_prio_hold": "counter", "mltcp_prio_class_flows": "gauge"}
    for name in ("mltcp_job_iterations_total", "mltcp_job_bytes_total"):
        assert job_metric(second, name, ns) > job_metric(first, name, ns) > 0, name
    assert verdict(second, ns) > verdict(first, ns) > 0
    for s in (first, second):
        assert job_metric(s, "mltcp_job_flows", ns) == 1
        assert job_metric(s, "mltcp_job_flows_matched_total", ns) == 1
        assert value(s, "mltcp_flows", netns=ns, backend="kmod") == 1
        # F of the default line (slope 1.6, intercept 0.7) once the size is learned.
        assert 0.69 <= job_metric(s, "mltcp_job_f", ns) <= 2.31

    # Idle after its last burst, the flow is still open: the export and the
    # job's own counters agree exactly, and every iteration the namespace
    # counted is this flow's.
    assert sender.stdout.readline().strip().startswith("sport")
    idles = idles_inside(onoff_py_pauses(sender), snd)
    idle, _ = scrape(ns)
    job = ctl_json("-n", ns, "job", "show", 1)[0]
    # One per burst after the first, and one more for each idle of the
    # sender's inside a burst (a guest not run for the idle gap).
    assert BURSTS - 1 <= job["iterations"] <= BURSTS - 1 + len(idles), (job, idles)
    assert job_metric(idle, "mltcp_job_iterations_total", ns) == job["iterations"]
    assert job_metric(idle, "mltcp_job_bytes_total", ns) == job["bytes"]
    assert verdict(idle, ns) == job["iterations"]


def test_verdicts_are_counted_per_namespace(onoff_job):
    snd, rcv, sender = onoff_job
    assert sender.stdout.readline().strip().startswith("sport")
    idles = idles_inside(onoff_py_pauses(sender), snd)
    mine, _ = scrape(snd.name)
    theirs, _ = scrape(rcv.name)
    assert BURSTS - 1 <= verdict(mine, snd.name) <= BURSTS - 1 + len(idles), idles
    # The receiver's namespace has no MLTCP flow: nothing of the sender's is counted there.
    for which in ("iterations", "tx_start_in_recovery", "tx_start_data_outstanding",
                  "tx_start_not_idle", "tx_start_short_gap", "tx_start_fragment"):
        assert verdict(theirs, rcv.name, which) == 0, which
    assert value(theirs, "mltcp_flows", netns=rcv.name, backend="kmod") == 0
    # Each namespace reports the gate's counts; in md-restart nothing is held.
    for ns, samples in ((snd.name, mine), (rcv.name, theirs)):
        for event in ("held", "opened", "ran_out", "reduced"):
            assert value(samples, "mltcp_gate_total", event=event, netns=ns,
                         backend="kmod") == 0, (ns, event)


def test_output_file_is_replaced_atomically_every_interval(onoff_job, tmp_path):
    snd, _, _ = onoff_job
    # The guest's /tmp is private to it; tmp_path is fine (the test reads it here).
    out = tmp_path / "mltcp.prom"
    proc = subprocess.run([binary(), "-n", snd.name, "export", "--output", str(out),
                           "--interval", "200ms", "--count", "3"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert os.listdir(tmp_path) == ["mltcp.prom"]  # no temporary file left
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644
    names = {f.name for f in text_string_to_metric_families(out.read_text())}
    assert "mltcp_job_iterations" in names and "mltcp_iteration_verdicts" in names

    # While a loop runs, a reader only ever sees whole scrapes.
    loop = subprocess.Popen([binary(), "-n", snd.name, "export", "output", str(out),
                             "interval", "10ms"], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 3
        reads = 0
        while time.time() < deadline:
            text = out.read_text()
            assert text.endswith("\n") and "mltcp_iteration_verdicts_total{" in text
            list(text_string_to_metric_families(text))
            reads += 1
        assert reads > 10
    finally:
        loop.terminate()
        loop.wait(timeout=10)
    # SIGTERM ends the loop between scrapes: cleanly, no temporary file left.
    assert loop.returncode == 0, loop.stderr.read()
    assert os.listdir(tmp_path) == ["mltcp.prom"]


def test_export_errors_are_one_line(tmp_path):
    """An export's errors are mltcpctl's one-line errors (here: a directory
    that does not exist)."""
    proc = subprocess.run([binary(), "export", "output", str(tmp_path / "no" / "m.prom")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and \
        proc.stderr.startswith("mltcpctl: export: cannot create a file beside "), proc.stderr
