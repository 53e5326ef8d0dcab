# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The BPF twin on the kernel it runs on (docs/bpf.md, "Kernels"): `bpf
load` probes whether a BPF congestion control may write
tp->snd_cwnd_stamp (6.10 and later) and sets the object's read-only flag
before loading; where it may not, the verifier removes the store from
the loaded programs instead of refusing them. Run on 6.1 and 6.12 in the
guests (scripts/test) and on the host's kernel (tests/bpf/run.sh)."""
import os
import re

from dp import run

def upstream_version():
    return tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", os.uname().release).groups())


def test_the_stamp_is_written_where_the_kernel_allows_it(backend):
    assert backend.name == "bpf", "collected for the BPF twin only (conftest.BACKEND_ONLY)"
    expected = upstream_version() >= (6, 10)
    assert backend.loaded["cwnd_stamp"] is expected, (os.uname().release, backend.loaded)
    # The restart's store, with its line info, is in the loaded program
    # exactly when the flag let the verifier keep it.
    xlated = run("bpftool", "prog", "dump", "xlated", "name", "mltcp_cwnd_evt").stdout
    assert ("snd_cwnd_stamp" in xlated) is expected, xlated
