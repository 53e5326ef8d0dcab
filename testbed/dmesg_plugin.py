# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The kernel log's check as the in-guest suites' session finalizer.

tests/kernel/conftest.py and tests/datapath/conftest.py register it
(register(config)); it is registered once however many of them a session
loads. In the test guest (scripts/vm-run sets MLTCP_IN_VM=1), after the
last test, it reads the whole kernel log (the guest booted for this run)
and reports one more test, "kernel log (dmesg) after the session", passed
or failed with the offending lines: a failure counts as a failed test, so
pytest exits non-zero. Outside the guest (tests/bpf/run.sh runs
tests/datapath on the host, whose log is not the run's own) it does not run,
and the report header says so.
"""
import os

import pytest

from testbed import dmesg

NAME = "testbed-dmesg"
NODEID = "kernel log (dmesg) after the session"


def in_guest():
    return os.environ.get("MLTCP_IN_VM") == "1"


def register(config):
    if not config.pluginmanager.has_plugin(NAME):
        config.pluginmanager.register(Finalizer(), NAME)


class Finalizer:
    def pytest_report_header(self, config):
        if in_guest():
            return ["kernel log check: the whole log, after the last test"]
        return ["kernel log check: off (not in the test guest: MLTCP_IN_VM is not 1)"]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session):
        outcome = yield
        # Stopped by -x or --maxfail (session.Failed), the log is read all
        # the same; only an interrupt (^C, a timeout's signal) goes unread.
        if outcome.excinfo is not None and issubclass(outcome.excinfo[0], KeyboardInterrupt):
            return
        if not in_guest() or session.config.option.collectonly or not session.testscollected:
            return
        try:
            bad = dmesg.reports(dmesg.read())
            longrepr = None
            if bad:
                longrepr = ("the kernel log holds %d report line(s) (testbed/dmesg.py's markers):\n%s"
                            % (len(bad), "\n".join(bad)))
        except RuntimeError as e:
            longrepr = "the kernel log could not be read: %s" % e
        report = pytest.TestReport(NODEID, (NODEID, None, NODEID), {}, "failed" if longrepr else "passed",
                            longrepr, "call")
        session.config.hook.pytest_runtest_logreport(report=report)
