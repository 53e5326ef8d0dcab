# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The soak's leak check reads slub's allocation traces correctly."""
import os

from bench import soak

TRACES = """\
      3 mltcp_job_add+0x43/0xf0 [tcp_mltcp] waste=0/0 age=10 pid=7 cpus=0
        __kmem_cache_alloc_node+0x1/0x2
        mltcp_job_add+0x43/0xf0 [tcp_mltcp]
        genl_rcv_msg+0x1/0x2

      5 alloc_mnt_ns+0x57/0x170 waste=8/8 age=8046 pid=26 cpus=0
        kmalloc_trace+0x26/0x90
        alloc_mnt_ns+0x57/0x170

      2 __register_sysctl_table+0x61/0x600 waste=0/0 age=1 pid=1 cpus=0
        __register_sysctl_table+0x61/0x600
        mltcp_sysctl_net_init+0x43/0xf0 [tcp_mltcp]
        ops_init+0x9b/0x130
        mltcp_other_frame+0x1/0x2 [tcp_mltcp]
"""


def write_cache(root, cache, text):
    os.makedirs(os.path.join(root, cache))
    with open(os.path.join(root, cache, "alloc_traces"), "w") as f:
        f.write(text)


def test_counts_records_whose_stack_passes_through_the_module(tmp_path, monkeypatch):
    write_cache(tmp_path, "kmalloc-cg-128", TRACES)
    write_cache(tmp_path, "dentry", "      9 d_alloc+0x1/0x2 waste=0/0\n        d_alloc+0x1/0x2\n")
    monkeypatch.setattr(soak, "SLAB_TRACES", os.path.join(tmp_path, "*", "alloc_traces"))
    assert soak.mltcp_slab_objects() == {
        "kmalloc-cg-128: mltcp_job_add+0x43/0xf0": 3,
        "kmalloc-cg-128: __register_sysctl_table+0x61/0x600": 2,  # counted once
    }


def test_leaked_is_what_grew():
    baseline = {"a": 2, "b": 1}
    assert soak.leaked(baseline, {"a": 2, "b": 1}) == {}
    assert soak.leaked(baseline, {"a": 1}) == {}
    assert soak.leaked(baseline, {"a": 3, "b": 1, "c": 4}) == {"a": 1, "c": 4}
