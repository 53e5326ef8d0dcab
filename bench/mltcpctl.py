# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The mltcpctl command lines the bench runs: the algorithms' defaults and
the BPF backend's registration, in one grammar for both backends.

A configuration names parameters as the module does (`"default_params"`
and each algorithm's `"params"`: slope, intercept, idle_gap_us, base,
mode); SETTINGS turns them into mltcpctl's words and is the only place that
does. A configuration's "backend" is "module" (the default) or "bpf".
"""
import json
import os
import subprocess

from bench import paths

# A configuration's "backend" -> mltcpctl's -b.
BACKENDS = {"module": "kmod", "bpf": "bpf"}

# Configuration key -> (mltcpctl SETTING word, its value as mltcpctl reads it).
SETTINGS = {
    "slope": ("slope", str),
    "intercept": ("intercept", str),
    "idle_gap_us": ("idle-gap", lambda us: "%dus" % int(us)),
    "base": ("base", str),
    "mode": ("mode", str),
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
        """{"backend": "kmod", "scope": "global", "slope": 1.6, "intercept": 0.2,
        "idle_gap_us": 20000, "base": "cubic", "mode": "md-restart"}"""
        out = subprocess.run(defaults_show_argv(self.tool, self.backend), check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out)


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
