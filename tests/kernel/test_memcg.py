# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Jobs are charged to the memory cgroup of whoever adds them (issue 12,
finding 6): a namespace's root can add MLTCP_GENL_JOBS_MAX jobs in each of
as many namespaces as it can create, so the memory is the adder's, as for
other objects a user allocates in the kernel at will (GFP_KERNEL_ACCOUNT)."""
import json
import os
import subprocess
import textwrap

import pytest

from nl_ctl import module_objects, wait_for

CGROUP = "/sys/fs/cgroup"
TESTS = os.path.dirname(os.path.abspath(__file__))
JOBS = 1024  # MLTCP_GENL_JOBS_MAX, in each of two namespaces

# Joins the cgroup, then in each of two fresh network namespaces adds JOBS
# jobs over raw netlink; prints the cgroup's slab bytes after creating each
# namespace (before its jobs) and after its jobs, each once the kernel has
# flushed the cgroup's statistics.
ADDER = textwrap.dedent("""
    import ctypes, json, os, sys, time
    sys.path.insert(0, sys.argv[2])
    from nl_mltcp import Mltcp, C, u32
    cg = sys.argv[1]
    with open(cg + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))

    def slab():
        # memory.stat is flushed from the per-CPU counters every 2 s.
        time.sleep(3)
        with open(cg + "/memory.stat") as f:
            stat = dict(line.split() for line in f)
        return int(stat["slab"])

    grown = 0
    for _ in range(2):
        if ctypes.CDLL(None, use_errno=True).unshare(0x40000000) != 0:  # CLONE_NEWNET
            sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
        nl = Mltcp()
        before = slab()
        for i in range(1, %d + 1):
            nl.cmd("JOB_ADD", u32(C["MLTCP_JOB_A_ID"], i))
        grown += slab() - before
        nl.close()
    print(json.dumps({"grown": grown}))
""" % JOBS)


@pytest.fixture
def cgroup():
    with open(os.path.join(CGROUP, "cgroup.controllers")) as f:
        if "memory" not in f.read().split():
            pytest.fail("no memory controller in the guest's cgroup2")
    with open(os.path.join(CGROUP, "cgroup.subtree_control"), "w") as f:
        f.write("+memory")
    path = os.path.join(CGROUP, "mltcp-memcg-%d" % os.getpid())
    os.mkdir(path)
    yield path
    os.rmdir(path)


def test_jobs_are_charged_to_the_adders_memory_cgroup(cgroup):
    objects0 = int(module_objects())
    proc = subprocess.run(["/usr/bin/python3", "-c", ADDER, cgroup, TESTS],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    grown = json.loads(proc.stdout)["grown"]
    print("slab charged to the cgroup by %d jobs: %d bytes" % (2 * JOBS, grown))
    # A job and its configuration are about 96 bytes each in kmalloc-cg-96,
    # plus the key xarray's nodes: 2 * 1024 jobs are well over 256 KiB.
    assert grown >= 256 << 10, "the cgroup's slab grew by %d bytes only" % grown
    # The namespaces went with the process, and their jobs with them.
    assert wait_for(lambda: int(module_objects()) == objects0, timeout=60), module_objects()
