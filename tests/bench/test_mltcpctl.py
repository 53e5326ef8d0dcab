# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The mltcpctl command lines the bench runs (the defaults and the BPF
backend), built from configurations, and run against a stand-in tool."""
import glob
import json
import os
import re
import subprocess

import pytest

from bench import matrix, paths
from testbed import mltcpctl

TOOL = "/opt/mltcpctl"
PARAMS = {"slope": "1.6", "intercept": "0.2", "mode": "md-restart", "base": "cubic"}


def test_defaults_set_on_the_module():
    assert mltcpctl.defaults_set_argv(TOOL, "module", PARAMS) == [
        TOOL, "-b", "kmod", "defaults", "set", "global", "slope", "1.6", "intercept", "0.2",
        "mode", "md-restart", "base", "cubic"]


def test_defaults_set_on_bpf_is_the_same_but_for_the_backend():
    module = mltcpctl.defaults_set_argv(TOOL, "module", PARAMS)
    bpf = mltcpctl.defaults_set_argv(TOOL, "bpf", PARAMS)
    assert bpf[:3] == [TOOL, "-b", "bpf"] and bpf[3:] == module[3:]


def test_idle_gap_is_a_duration_and_numbers_are_decimals():
    assert mltcpctl.setting_words({"idle_gap_us": 20000, "slope": 0, "intercept": 1.5}) == [
        "idle-gap", "20000us", "slope", "0", "intercept", "1.5"]
    assert mltcpctl.setting_words({"idle_gap_us": "5000"}) == ["idle-gap", "5000us"]


def test_defaults_show():
    assert mltcpctl.defaults_show_argv(TOOL, "module") == [
        TOOL, "-b", "kmod", "-j", "defaults", "show", "global"]
    assert mltcpctl.defaults_show_argv(TOOL, "bpf")[1:3] == ["-b", "bpf"]


def test_bpf_load_and_unload():
    assert mltcpctl.bpf_load_argv(TOOL) == [TOOL, "bpf", "load"]
    assert mltcpctl.bpf_load_argv(TOOL, {"mode": "ai", "idle_gap_us": 1000}) == [
        TOOL, "bpf", "load", "mode", "ai", "idle-gap", "1000us"]
    assert mltcpctl.bpf_unload_argv(TOOL) == [TOOL, "bpf", "unload"]


def test_unknown_parameters_and_backends_are_refused():
    with pytest.raises(ValueError, match="idle_gap"):
        mltcpctl.setting_words({"idle_gap": 1})
    with pytest.raises(ValueError, match="kmod"):
        mltcpctl.defaults_show_argv(TOOL, "kmod")


def every_configuration():
    for make in matrix.SETS.values():
        yield from make()
    for path in glob.glob(os.path.join(paths.TOP, "bench", "configs", "*.json")):
        with open(path) as f:
            yield json.load(f)


def test_every_configuration_maps_onto_mltcpctl():
    for cfg in every_configuration():
        backend = cfg.get("backend", "module")
        if backend == "ns-3":
            # mltcp-sim reads the same parameters (with the policy's
            # parser); they must still be words mltcpctl knows.
            backend = "module"
        mltcpctl.defaults_set_argv(TOOL, backend, cfg.get("default_params", {}))
        for alg in cfg["algorithms"]:
            mltcpctl.defaults_set_argv(TOOL, backend, alg.get("params", {}))


SHOWN = {"backend": "kmod", "scope": "global", "slope": 1.6, "intercept": 0.2,
         "idle_gap_us": 20000, "base": "cubic", "mode": "md-restart"}


def fake_tool(tmp_path, script):
    tool = tmp_path / "mltcpctl"
    tool.write_text("#!/bin/sh\necho \"$@\" >> %s\n%s\n" % (tmp_path / "calls", script))
    tool.chmod(0o755)
    return str(tool)


def calls(tmp_path):
    return (tmp_path / "calls").read_text().splitlines()


def test_defaults_run_the_tool_and_read_its_json(tmp_path):
    tool = fake_tool(tmp_path, "echo '%s'" % json.dumps(SHOWN))
    defaults = mltcpctl.defaults_for("module", tool)
    assert isinstance(defaults, mltcpctl.Defaults)
    defaults.set({"slope": "0", "intercept": "1"})
    assert defaults.show() == SHOWN
    assert calls(tmp_path) == ["-b kmod -j defaults show global",
                               "-b kmod defaults set global slope 0 intercept 1",
                               "-b kmod -j defaults show global"]


def test_a_refused_setting_stops_the_run(tmp_path):
    tool = fake_tool(tmp_path, 'case "$*" in *set*) echo "mltcpctl: slope: out of range" >&2;'
                               ' exit 1;; esac; echo "{}"')
    with pytest.raises(subprocess.CalledProcessError):
        mltcpctl.defaults_for("bpf", tool).set({"slope": "17"})


def test_a_backend_that_is_not_there_stops_the_run_at_once(tmp_path):
    tool = fake_tool(tmp_path, 'echo \'mltcpctl: the tcp_mltcp module is not loaded (no generic '
                               'netlink family "mltcp")\' >&2; exit 1')
    with pytest.raises(RuntimeError, match="not loaded"):
        mltcpctl.defaults_for("module", tool)
    assert calls(tmp_path) == ["-b kmod -j defaults show global"]


def test_a_missing_tool_is_named(tmp_path):
    with pytest.raises(RuntimeError, match="not built"):
        mltcpctl.defaults_for("module", str(tmp_path / "mltcpctl"))


def test_job_argv_names_the_hosts_table_on_the_module_only():
    assert mltcpctl.job_argv("t", "module", "h1", "add", 1, "marked") == \
        ["t", "-b", "kmod", "-n", "h1", "job", "add", "1", "marked"]
    assert mltcpctl.job_argv("t", "bpf", "h1", "del", 2) == ["t", "-b", "bpf", "job", "del", "2"]


def test_module_counters_are_read_from_debugfs_lines():
    text = "flows_started 4\njob_objects 2\niterations 200\ngate_held 12\nbogus\n"
    assert mltcpctl.parse_module_stats(text) == {
        "flows_started": 4, "job_objects": 2, "iterations": 200, "gate_held": 12}


def test_bpf_counters_come_from_the_status_json(tmp_path):
    status = {"backend": "bpf", "loaded": True,
              "stats": {"flows_started": 3, "gate_held": 5, "gate_opened": 4}}
    tool = fake_tool(tmp_path, "echo '%s'" % json.dumps(status))
    assert mltcpctl.counters("bpf", tool) == status["stats"]
    assert calls(tmp_path) == ["-j bpf status"]


def test_counters_are_empty_where_there_are_none(tmp_path):
    tool = fake_tool(tmp_path, 'echo "mltcpctl: bpf status: not loaded" >&2; exit 1')
    assert mltcpctl.counters("bpf", tool) == {}


def test_counter_deltas_leave_out_gauges_and_counters_read_once():
    before = {"flows_started": 3, "job_objects": 1, "gate_held": 5}
    after = {"flows_started": 7, "job_objects": 4, "gate_held": 9, "gate_opened": 2}
    assert mltcpctl.counter_deltas(before, after) == {"flows_started": 4, "gate_held": 4}


def test_a_counter_that_went_down_was_reset_and_is_left_out():
    assert mltcpctl.counter_deltas({"gate_held": 9, "iterations": 4},
                                   {"gate_held": 2, "iterations": 10}) == {"iterations": 6}


def test_output_that_is_not_json_reads_as_no_counters(tmp_path):
    tool = fake_tool(tmp_path, "echo 'not json'")
    assert mltcpctl.counters("bpf", tool) == {}


def test_module_counters_come_from_debugfs(tmp_path, monkeypatch):
    stats = tmp_path / "stats"
    stats.write_text("flows_started 2\niterations 7\ngate_held 1\n")
    monkeypatch.setattr(mltcpctl, "MODULE_STATS", str(stats))
    assert mltcpctl.counters("module") == {"flows_started": 2, "iterations": 7, "gate_held": 1}
    monkeypatch.setattr(mltcpctl, "MODULE_STATS", str(tmp_path / "absent"))
    assert mltcpctl.counters("module") == {}


def test_the_bench_default_line_is_the_shipped_one():
    """matrix.DEFAULT_PARAMS is what configurations set as the defaults: the
    line kmod/mltcp_core.h compiles in, to the 1/1024 unit."""
    with open(os.path.join(paths.TOP, "kmod", "mltcp_core.h")) as f:
        header = f.read()

    def fixed(name):
        return int(re.search(r"#define %s\s+(\d+)U" % name, header).group(1))

    for key, name in (("slope", "MLTCP_DEFAULT_SLOPE"), ("intercept", "MLTCP_DEFAULT_INTERCEPT")):
        assert round(float(matrix.DEFAULT_PARAMS[key]) * 1024) == fixed(name), key
    assert matrix.DEFAULT_PARAMS["mode"] == "md-restart"
