# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The mltcpctl command lines the bench runs: the algorithms' defaults and
the BPF backend's registration, in one grammar for both backends.

A configuration names parameters as the module does (`"default_params"`
and each algorithm's `"params"`: slope, intercept, idle_gap_us, base,
mode; and progress priority's prio, prio_dscp, prio_none); SETTINGS turns
them into mltcpctl's words and is the only place that does. A configuration's "backend" is "module" (the default) or "bpf".
"""
import json
import os
import subprocess

from testbed import paths

# A configuration's "backend" -> mltcpctl's -b.
BACKENDS = {"module": "kmod", "bpf": "bpf"}

# Configuration key -> (mltcpctl SETTING word, its value as mltcpctl reads it).
SETTINGS = {
    "slope": ("slope", str),
    "intercept": ("intercept", str),
    "idle_gap_us": ("idle-gap", lambda us: "%dus" % int(us)),
    "base": ("base", str),
    "mode": ("mode", str),
    # Progress priority (issue 37): K classes (0 off), the DSCP of each
    # (class 0 first), and the DSCP of a flow without a class.
    "prio": ("prio", lambda k: "%d" % int(k)),
    "prio_dscp": ("prio-dscp", lambda dscps: ",".join("%d" % int(d) for d in dscps)),
    "prio_none": ("prio-none", lambda dscp: "%d" % int(dscp)),
}


def setting_words(params):
    """`slope 1.6 idle-gap 20000us ...` for {"slope": "1.6", "idle_gap_us": 20000, ...}."""
    words = []
    for key, value in params.items():
        if key not in SETTINGS:
            raise ValueError("unknown parameter %r (known: %s)" % (key, ", ".join(SETTINGS)))
        word, text = SETTINGS[key]
        words += [word, text(value)]
    return words


def backend_option(backend):
    if backend not in BACKENDS:
        raise ValueError("unknown backend %r (known: %s)" % (backend, ", ".join(BACKENDS)))
    return ["-b", BACKENDS[backend]]


def defaults_set_argv(tool, backend, params):
    return [tool] + backend_option(backend) + ["defaults", "set", "global"] + \
        setting_words(params)


def defaults_show_argv(tool, backend):
    return [tool] + backend_option(backend) + ["-j", "defaults", "show", "global"]


def job_argv(tool, backend, netns, *words):
    """mltcpctl job WORDS in a host's table (the module's are per namespace)."""
    where = ["-n", netns] if BACKENDS[backend] == "kmod" else []
    return [tool] + backend_option(backend) + where + ["job"] + [str(w) for w in words]


def job_tables(backend, netns_names):
    """The job tables that jobs for processes in these namespaces go in,
    each once: the namespaces' own on the module, the host's one table
    (None) on the BPF backend, where adding or deleting a job once per
    namespace would meet the same job twice."""
    if BACKENDS[backend] == "kmod":
        return list(dict.fromkeys(netns_names))
    return [None]


def job_ids(tool, backend, netns):
    """The ids of the jobs in a table (job_tables()); None if it cannot be
    read."""
    argv = job_argv(tool, backend, netns, "show")
    out = subprocess.run(argv[:1] + ["-j"] + argv[1:], capture_output=True, text=True)
    try:
        return [job["id"] for job in json.loads(out.stdout)] if out.returncode == 0 else None
    except (ValueError, TypeError, KeyError):
        return None


def bpf_load_argv(tool, params=None):
    return [tool, "bpf", "load"] + setting_words(params or {})


def bpf_unload_argv(tool):
    return [tool, "bpf", "unload"]


class Defaults:
    """The global defaults of one backend: what a flow without a job (and,
    on the module, in a namespace without its own net.mltcp.*) starts from."""

    def __init__(self, backend, tool=paths.MLTCPCTL):
        self.backend, self.tool = backend, tool

    def set(self, params):
        subprocess.run(defaults_set_argv(self.tool, self.backend, params), check=True,
                       stdout=subprocess.DEVNULL)

    def show(self):
        """{"backend": "kmod", "scope": "global", "slope": 1.6, "intercept": 0.7,
        "idle_gap_us": 20000, "base": "cubic", "mode": "md-restart"}"""
        out = subprocess.run(defaults_show_argv(self.tool, self.backend), check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out)


# The module's counters (tcp_mltcp's debugfs "stats": a "name value" line each).
MODULE_STATS = "/sys/kernel/debug/tcp_mltcp/stats"
# Gauges among them, which a difference would not mean anything for.
GAUGES = {"job_objects"}


def bpf_status_argv(tool):
    return [tool, "-j", "bpf", "status"]


def parse_module_stats(text):
    """{"flows_started": 4, "new_iteration": 200, "gate_held": 12, ...} from debugfs' lines."""
    counts = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name and value.strip().isdigit():
            counts[name] = int(value)
    return counts


def counters(backend, tool=paths.MLTCPCTL):
    """The backend's host-wide counters as the module's debugfs names them:
    flows started, the iteration detector's verdicts, the start gate's,
    progress priority's held moves up. The
    module's from debugfs, the BPF twin's from `mltcpctl -j bpf status`;
    {} where there are none to read (debugfs not mounted, twin not loaded)."""
    if BACKENDS[backend] == "kmod":
        try:
            with open(MODULE_STATS) as f:
                return parse_module_stats(f.read())
        except OSError:
            return {}
    try:
        out = subprocess.run(bpf_status_argv(tool), capture_output=True, text=True)
        stats = json.loads(out.stdout).get("stats") if out.returncode == 0 else None
    except (OSError, ValueError, AttributeError):
        return {}
    return {k: v for k, v in (stats or {}).items() if isinstance(v, int)}


def counter_deltas(before, after):
    """What each counter read in both counted between them (gauges left out).
    A counter that went down was reset between the reads (the module or the
    BPF twin loaded again): it is left out rather than reported negative."""
    return {name: after[name] - before[name] for name in sorted(after)
            if name in before and name not in GAUGES and after[name] >= before[name]}


def defaults_for(backend, tool=paths.MLTCPCTL):
    """The backend's Defaults, once mltcpctl has shown them: a backend that
    is not there (module not loaded, BPF twin not loaded) stops the run
    before anything starts."""
    if not os.access(tool, os.X_OK):
        raise RuntimeError("%s is not built" % tool)
    probe = subprocess.run(defaults_show_argv(tool, backend), capture_output=True, text=True)
    if probe.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(defaults_show_argv(tool, backend)),
                                                   probe.returncode, probe.stderr.strip()))
    return Defaults(backend, tool)
