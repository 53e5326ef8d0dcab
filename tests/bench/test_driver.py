# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The driver's command line for mltcp-trainsim (no namespaces needed)."""
from bench import driver

CFG = {"trainsim": "/bin/trainsim", "iterations": 20}
ALG = {"name": "mltcp", "cc": "mltcp"}


def argv(job, rank=0):
    return driver.trainsim_argv(CFG, job, ALG, rank, 7100, "10.0.0.2", 1763790000.25,
                                "mltcp/rep0", "/tmp/j-r%d.jsonl" % rank)


def option(args, name):
    return args[args.index(name) + 1] if name in args else None


def test_exchange_job_line_is_unchanged():
    args = argv({"name": "j1", "bytes": 1048576, "compute_ms": 600, "offset_ms": 100})
    assert args[0] == "/bin/trainsim"
    assert option(args, "--collective") is None
    assert option(args, "--world") == "2"
    assert option(args, "--next") == "10.0.0.2:7100"
    assert option(args, "--bytes") == "1048576"
    assert option(args, "--compute") == "600ms"
    assert option(args, "--jitter") == "0ms"
    assert option(args, "--offset") == "100ms"
    assert option(args, "--start-at") == "1763790000.250000"
    assert option(args, "--cc") == "mltcp"


def test_push_job_passes_the_collective_to_both_ranks():
    job = {"name": "j1", "bytes": 1048576, "compute_ms": 600, "collective": "push"}
    for rank in (0, 1):
        args = argv(job, rank)
        assert option(args, "--collective") == "push"
        assert option(args, "--rank") == str(rank)
    # Same seed and timing options as the exchange job of the same name.
    plain = {k: v for k, v in job.items() if k != "collective"}
    assert argv(job)[:len(argv(plain))] == argv(plain)
