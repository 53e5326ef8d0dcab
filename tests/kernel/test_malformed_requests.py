# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Raw malformed requests (wrong types, out of range, oversized, missing
required attributes, unknown commands and attributes, bad headers) are
refused with a clear errno and, where the kernel gives one, an extended-ack
message; the job table is unchanged after every one."""
import errno
import os
import socket
import struct

import pytest

from nl_mltcp import C, NLM_F_ACK, NLM_F_REQUEST, Mltcp, NetlinkError, nla, u8, u16, u32, u64

J = {k[len("MLTCP_JOB_A_"):].lower(): v for k, v in C.items() if k.startswith("MLTCP_JOB_A_")}
ID = u32(J["id"], 40)

# (name, command, attributes, expected errno, words the extack message must contain)
CASES = [
    # wrong types
    ("slope as u16", "JOB_ADD", ID + u16(J["slope"], 2), errno.EINVAL, "length"),
    ("id as u8", "JOB_ADD", u8(J["id"], 41), errno.EINVAL, "length"),
    ("iter-bytes as u32", "JOB_ADD", ID + u32(J["iter_bytes"], 1 << 20), errno.EINVAL, "length"),
    ("peer-v4 of 5 bytes", "JOB_ADD", ID + nla(J["peer_v4"], b"\x0a\0\0\0\0"), errno.ERANGE, ""),
    ("peer-v6 of 4 bytes", "JOB_ADD", ID + nla(J["peer_v6"], socket.inet_aton("10.0.0.1")),
     errno.ERANGE, ""),
    # out of range
    ("id 0", "JOB_ADD", u32(J["id"], 0), errno.ERANGE, "range"),
    ("slope 16.001", "JOB_ADD", ID + u32(J["slope"], 16385), errno.ERANGE, "range"),
    ("intercept", "JOB_ADD", ID + u32(J["intercept"], 1 << 31), errno.ERANGE, "range"),
    ("idle gap 999 us", "JOB_ADD", ID + u32(J["idle_gap_us"], 999), errno.ERANGE, "range"),
    ("idle gap 61 s", "JOB_ADD", ID + u32(J["idle_gap_us"], 61000000), errno.ERANGE, "range"),
    ("iter-bytes 0", "JOB_ADD", ID + u64(J["iter_bytes"], 0), errno.ERANGE, "range"),
    ("iter-bytes 1T+1", "JOB_ADD", ID + u64(J["iter_bytes"], (1 << 40) + 1), errno.ERANGE, "range"),
    ("base 2", "JOB_ADD", ID + u8(J["base"], 2), errno.ERANGE, "range"),
    ("exempt 2", "JOB_ADD", ID + u8(J["exempt"], 2), errno.ERANGE, "range"),
    ("prefixlen 129", "JOB_ADD", ID + nla(J["peer_v6"], b"\xfd" + b"\0" * 15)
     + u8(J["peer_prefixlen"], 129), errno.ERANGE, "range"),
    ("v4 prefixlen 33", "JOB_ADD", ID + nla(J["peer_v4"], socket.inet_aton("10.0.0.0"))
     + u8(J["peer_prefixlen"], 33), errno.ERANGE, "above 32"),
    ("clear unknown bit", "JOB_SET", u32(J["id"], 1) + u32(J["clear"], 1 << 12), errno.EINVAL, ""),
    ("marked 2", "JOB_ADD", ID + u8(J["marked"], 2), errno.ERANGE, "range"),
    ("cgroup 0", "JOB_ADD", ID + u64(J["cgroup"], 0), errno.ERANGE, "range"),
    ("cgroup as u32", "JOB_ADD", ID + u32(J["cgroup"], 1), errno.EINVAL, "length"),
    ("no such cgroup", "JOB_ADD", ID + u64(J["cgroup"], (1 << 62) + 12345), errno.ENOENT,
     "no such cgroup"),
    ("mark step 0", "JOB_MARK", u32(J["id"], 1) + u32(J["step"], 0), errno.ERANGE, "range"),
    ("mark step as u64", "JOB_MARK", u32(J["id"], 1) + u64(J["step"], 1), errno.EINVAL, "length"),
    ("marks in mark", "JOB_MARK", u32(J["id"], 1) + u64(J["marks"], 1), errno.EINVAL,
     "a reply's attribute"),
    ("slope in mark", "JOB_MARK", u32(J["id"], 1) + u32(J["slope"], 1), errno.EINVAL,
     "Unsupported"),
    ("mark without id", "JOB_MARK", b"", errno.EINVAL, None),
    # combinations the policy cannot express
    ("dport min only", "JOB_ADD", ID + u16(J["dport_min"], 80), errno.EINVAL, "both"),
    ("dport max < min", "JOB_ADD", ID + u16(J["dport_min"], 90) + u16(J["dport_max"], 80),
     errno.EINVAL, "below"),
    ("two peers", "JOB_ADD", ID + nla(J["peer_v4"], b"\x0a\0\0\0") + nla(J["peer_v6"], b"\0" * 16),
     errno.EINVAL, "not both"),
    ("prefixlen alone", "JOB_ADD", ID + u8(J["peer_prefixlen"], 8), errno.EINVAL, "without"),
    ("mask alone", "JOB_ADD", ID + u32(J["mark_mask"], 0xff), errno.EINVAL, "without"),
    ("cleared and set", "JOB_SET", u32(J["id"], 1) + u32(J["slope"], 100)
     + u32(J["clear"], C["MLTCP_JOB_F_SLOPE"]), errno.EINVAL, "cleared and set"),
    # oversized
    ("64 KiB binary", "JOB_ADD", ID + nla(J["peer_v6"], b"\0" * 60000), errno.ERANGE, ""),
    ("64 KiB unknown", "JOB_ADD", ID + nla(200, b"\xff" * 60000), errno.EINVAL, "Unknown"),
    ("trailing bytes", "JOB_ADD", ID + b"\x01\x02\x03\x04\x05\x06", errno.EINVAL, ""),
    # missing required attributes
    ("add without id", "JOB_ADD", u32(J["slope"], 100), errno.EINVAL, None),
    ("set without id", "JOB_SET", u32(J["slope"], 100), errno.EINVAL, None),
    ("del without id", "JOB_DEL", b"", errno.EINVAL, None),
    ("get without id", "JOB_GET", b"", errno.EINVAL, None),
    # unknown attributes: never seen, reply-only, or not for this command
    ("attribute 99", "JOB_ADD", ID + u32(99, 1), errno.EINVAL, "Unknown"),
    ("attribute 0", "JOB_ADD", ID + u32(0, 1), errno.EINVAL, ""),
    ("pad attribute", "JOB_ADD", ID + u32(J["pad"], 0), errno.EINVAL, ""),
    ("clear in add", "JOB_ADD", ID + u32(J["clear"], 1), errno.EINVAL, "job-set only"),
    ("flows in set", "JOB_SET", u32(J["id"], 1) + u32(J["flows"], 5), errno.EINVAL,
     "a reply's attribute"),
    ("marks in add", "JOB_ADD", ID + u64(J["marks"], 1), errno.EINVAL, "a reply's attribute"),
    ("step in set", "JOB_SET", u32(J["id"], 1) + u32(J["step"], 1), errno.EINVAL, "Unknown"),
    ("slope in del", "JOB_DEL", u32(J["id"], 1) + u32(J["slope"], 5), errno.EINVAL, "Unknown"),
    ("attribute in stats", "STATS_GET", u64(C["MLTCP_STATS_A_ITERATIONS"], 1), errno.EINVAL,
     "Unknown"),
    ("pad in stats", "STATS_GET", u32(C["MLTCP_STATS_A_PAD"], 0), errno.EINVAL, ""),
]


SYSCTL = "/proc/sys/net/mltcp/"


def state(m):
    """What a request could change: every job with all its attributes (the
    marks count included) and the namespace's defaults."""
    return m.jobs(), {name: open(SYSCTL + name).read() for name in sorted(os.listdir(SYSCTL))}


@pytest.fixture
def mltcp():
    """Jobs present that each kind of request could touch: 1 a port job
    (a set or a mark names it), 2 a marked job with a fixed size."""
    m = Mltcp()
    for job_id in m.jobs():
        m.cmd("JOB_DEL", u32(J["id"], job_id))
    m.cmd("JOB_ADD", u32(J["id"], 1) + u16(J["dport_min"], 80) + u16(J["dport_max"], 80)
          + u32(J["slope"], 2048))
    m.cmd("JOB_ADD", u32(J["id"], 2) + u8(J["marked"], 1) + u64(J["iter_bytes"], 1 << 20)
          + u32(J["intercept"], 512))
    m.cmd("JOB_MARK", u32(J["id"], 2) + u32(J["step"], 7))
    yield m
    for job_id in m.jobs():
        m.cmd("JOB_DEL", u32(J["id"], job_id))
    m.close()


@pytest.mark.parametrize("name,cmd,attrs,err,words", CASES, ids=[c[0] for c in CASES])
def test_malformed_request_is_refused(mltcp, name, cmd, attrs, err, words):
    before = state(mltcp)
    with pytest.raises(NetlinkError) as e:
        mltcp.cmd(cmd, attrs)
    assert e.value.errno == err, (name, e.value)
    if words is None:
        assert e.value.missing == J["id"], e.value  # names the missing attribute
    else:
        assert e.value.msg, "no extack message: %s" % e.value
        assert words in e.value.msg, e.value.msg
    assert state(mltcp) == before


def test_out_of_range_reports_the_policy(mltcp):
    with pytest.raises(NetlinkError) as e:
        mltcp.cmd("JOB_ADD", ID + u32(J["idle_gap_us"], 5))
    assert e.value.policy["min"] == 1000 and e.value.policy["max"] == 60000000
    assert e.value.offset is not None


@pytest.mark.parametrize("cmd", [0, C["MLTCP_CMD_MAX"] + 1, 99, 255])
def test_unknown_command(mltcp, cmd):
    before = state(mltcp)
    with pytest.raises(NetlinkError) as e:
        mltcp.request(mltcp.fid, cmd, ID)
    assert e.value.errno == errno.EOPNOTSUPP
    assert state(mltcp) == before


def test_wrong_kind_of_request(mltcp):
    before = state(mltcp)
    with pytest.raises(NetlinkError) as e:  # JOB_ADD has no dump
        mltcp.cmd("JOB_ADD", ID, dump=True)
    assert e.value.errno == errno.EOPNOTSUPP
    with pytest.raises(NetlinkError) as e:  # FLOW_GET is a dump only
        mltcp.cmd("FLOW_GET")
    assert e.value.errno == errno.EOPNOTSUPP
    assert state(mltcp) == before


def test_bad_headers(mltcp):
    before = state(mltcp)
    with pytest.raises(NetlinkError) as e:
        mltcp.cmd("JOB_ADD", ID, reserved=1)
    assert e.value.errno == errno.EINVAL and "reserved" in e.value.msg
    with pytest.raises(NetlinkError) as e:  # NLM_F_REPLACE on a do request
        mltcp.cmd("JOB_ADD", ID, flags=NLM_F_REQUEST | NLM_F_ACK | 0x100)
    assert e.value.errno == errno.EINVAL and "flags" in e.value.msg
    # A message shorter than its generic netlink header.
    mltcp.seq += 1
    mltcp.send_raw(struct.pack("IHHII", 18, mltcp.fid, NLM_F_REQUEST | NLM_F_ACK, mltcp.seq, 0)
                   + b"\x01\x01" + b"\0\0")
    with pytest.raises(NetlinkError) as e:
        mltcp.collect()
    assert e.value.errno == errno.EINVAL
    assert state(mltcp) == before


def test_garbage_burst_leaves_table_and_kernel_intact(mltcp):
    """Random bytes after a valid header, for every command: each one,
    refused or a read, leaves every job and the defaults as they were."""
    import random
    rnd = random.Random(5)
    before = state(mltcp)
    for cmd in range(0, 8):
        for _ in range(40):
            body = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 200)))
            dump = rnd.random() < 0.3
            try:
                mltcp.request(mltcp.fid, cmd, body, dump=dump)
            except NetlinkError:
                pass
            assert state(mltcp) == before, (cmd, dump, body.hex())
