# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""debugfs's flow list is a parsed interface (tests/kernel/tools/flowgen.py,
users' scripts): each line must stay exactly as the module has always
printed it. The expected line is rebuilt here, with that format, from the
same flow's netlink record; the flow is idle, so the two reads agree."""
import ipaddress
import os
import socket

import pytest

from nl_ctl import Pair, outq, wait_for
from nl_mltcp import C, Mltcp, get_u, u8, u16, u32, u64

FLOWS = "/sys/kernel/debug/tcp_mltcp/flows"
BASES = {0: "reno", 1: "cubic"}
MODES = {1: "ai", 2: "md", 3: "both", 4: "restart", 5: "ai-restart", 6: "md-restart",
         7: "both-restart", 12: "gate", 13: "ai-gate", 14: "md-gate", 15: "both-gate"}
J = {k[len("MLTCP_JOB_A_"):].lower(): v for k, v in C.items() if k.startswith("MLTCP_JOB_A_")}


def milli(raw):
    """A fixed-point attribute as "%u.%03u" of thousandths, rounded."""
    m = (get_u(raw) * 1000 + 512) >> 10
    return "%d.%03d" % (m // 1000, m % 1000)


def addr(family, raw):
    text = str(ipaddress.ip_address(raw))
    return "[%s]" % text if family == socket.AF_INET6 else text


def expected_line(f):
    family = get_u(f["family"])
    return ("netns=%d src=%s:%d dst=%s:%d ca=%s base=%s mode=%s cwnd=%d ssthresh=%d"
            " iterations=%d iter_bytes=%d fixed=%d bytes_this_iter=%d last_iter_us=%d"
            " r=%s f=%s slope=%s intercept=%s trusted=%d held=%d") % (
        os.stat("/proc/self/ns/net").st_ino,
        addr(family, f["saddr"]), get_u(f["sport"]), addr(family, f["daddr"]), get_u(f["dport"]),
        f["ca"].rstrip(b"\0").decode(), BASES[get_u(f["base"])], MODES[get_u(f["mode"])],
        get_u(f["cwnd"]), get_u(f["ssthresh"]), get_u(f["iterations"]),
        get_u(f["iter_bytes"]), get_u(f["iter_fixed"]), get_u(f["bytes_this_iter"]),
        get_u(f["last_iter_us"]), milli(f["r"]), milli(f["f"]), milli(f["slope"]),
        milli(f["intercept"]), get_u(f["iter_trusted"]), get_u(f["prio_held"]))


@pytest.fixture
def mltcp():
    m = Mltcp()
    for job_id in m.jobs():
        m.cmd("JOB_DEL", u32(J["id"], job_id))
    yield m
    for job_id in m.jobs():
        m.cmd("JOB_DEL", u32(J["id"], job_id))
    m.close()


CASES = [  # (cc, family, host, in the job)
    ("mltcp", socket.AF_INET, "127.0.0.1", True),
    ("mltcp_cubic", socket.AF_INET6, "::1", True),
    ("mltcp_reno", socket.AF_INET, "127.0.0.1", False),
    ("mltcp", socket.AF_INET6, "::1", False),
]


@pytest.mark.parametrize("cc,family,host,jobbed", CASES,
                         ids=["%s-v%d-%s" % (c[0], 4 if c[1] == socket.AF_INET else 6,
                                             "job" if c[3] else "nojob") for c in CASES])
def test_debugfs_line_is_the_flow_record(mltcp, cc, family, host, jobbed):
    port = 7160 + CASES.index((cc, family, host, jobbed))
    if jobbed:
        mltcp.cmd("JOB_ADD", u32(J["id"], 1) + u16(J["dport_min"], port)
                  + u16(J["dport_max"], port) + u32(J["slope"], 2560)
                  + u32(J["intercept"], 128) + u64(J["iter_bytes"], 1 << 20)
                  + u8(J["base"], 0))
    pair = Pair(port, cc=cc, family=family, host=host)
    try:
        pair.send(300000)
        assert wait_for(lambda: outq(pair.client) == 0)
        record = [f for f in mltcp.flows() if get_u(f["sport"]) == pair.sport]
        assert len(record) == 1, record
        with open(FLOWS) as fd:
            lines = [line for line in fd.read().splitlines()
                     if " src=%s:%d " % (addr(family, socket.inet_pton(family, host)),
                                         pair.sport) in line]
        assert lines == [expected_line(record[0])]
        if jobbed:
            assert " fixed=1 " in lines[0] and " slope=2.500 intercept=0.125 " in lines[0]
            assert lines[0].endswith(" trusted=1 held=0"), "a fixed size is trusted"
            assert (" base=cubic " if cc == "mltcp_cubic" else " base=reno ") in lines[0]
        else:
            assert lines[0].endswith(" trusted=0 held=0"), "no size: nothing to trust"
    finally:
        pair.close()
