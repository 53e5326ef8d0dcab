# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How the dumbbell's bottleneck is shaped, as tc commands (building the
namespaces needs root: tests/kernel does that in the guest)."""
import json
import os

import pytest

from bench import driver, paths
from testbed import topology

ADD = ["qdisc", "add", "dev", "to-right"]


def test_delay_and_rate_put_tbf_beneath_netem():
    shaping = topology.Shaping(rate_mbit=50, limit_bytes=37500, delay_ms=2)
    assert shaping.qdisc_commands("to-right") == [
        ADD + ["root", "handle", "1:", "netem", "delay", "2.000ms", "limit", "100000"],
        ADD + ["parent", "1:", "handle", "2:", "tbf", "rate", "50mbit", "burst", "32768",
               "limit", "37500"]]


def test_rate_alone_is_tbf_at_the_root():
    shaping = topology.Shaping(rate_mbit=1000, limit_bytes=1310720)
    assert shaping.qdisc_commands("to-right") == [
        ADD + ["root", "handle", "1:", "tbf", "rate", "1000mbit", "burst", "32768",
               "limit", "1310720"]]


def test_delay_alone_is_netem_at_the_root():
    assert topology.Shaping(delay_ms=5).qdisc_commands("to-right") == [
        ADD + ["root", "handle", "1:", "netem", "delay", "5.000ms", "limit", "100000"]]
    assert topology.Shaping().qdisc_commands("to-right") == []


def test_queue_limit_in_bandwidth_delay_products():
    assert topology.queue_limit(50, 4, 1.5) == 37500
    assert topology.queue_limit(100, 5, 1.5) == 93750
    assert topology.queue_limit(1, 1, 0.5) == 4 * 1514


def demo_config(name):
    with open(os.path.join(paths.TOP, "bench", "configs", name)) as f:
        return json.load(f)


def test_the_demo_bottleneck():
    """The host demo: the emulated switch of progress priority, 256 KiB a
    class, the hosts' pure ACKs in the data's FIFO (a point with headroom),
    no netem."""
    shaping, limit = driver.bottleneck_shaping(demo_config("demo.json"))
    assert limit == 262144
    assert shaping == topology.Shaping(rate_mbit=200, limit_bytes=262144, burst_bytes=32768,
                                       delay_ms=0, shaper="prio")


def test_the_guest_demo_bottleneck():
    shaping, limit = driver.bottleneck_shaping(demo_config("demo-guest.json"))
    assert limit == 37500
    assert shaping == topology.Shaping(rate_mbit=50, limit_bytes=37500, burst_bytes=32768,
                                       delay_ms=2)


def test_a_host_bottleneck_has_no_netem():
    cfg = {"rate_mbit": 200, "rtt_ms": 0, "buffer_bdp": 0, "buffer_bytes": 262144}
    shaping, limit = driver.bottleneck_shaping(cfg)
    assert limit == 262144 and not shaping.delay_ms
    assert [cmd[4:7] for cmd in shaping.qdisc_commands("to-left")] == [["root", "handle", "1:"]]


def test_port_counters_parse_proc_net_dev(tmp_path):
    dev = tmp_path / "dev"
    dev.write_text(
        "Inter-|   Receive                            |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes ...\n"
        "    lo:       0       0    0    0    0     0          0         0        0\n"
        "  p-L1: 1234567    900    0    0    0     0          0         0      777\n"
        "p-B1L:42 1 0 0 0 0 0 0 5\n")
    counters = topology.PortCounters(str(dev), ["p-B1L", "p-L1"])
    assert counters() == [42, 1234567]
    dev.write_text(dev.read_text().replace("1234567", "2234567"))
    assert counters() == [42, 2234567]
    counters.close()


def test_htb_with_acks_first_serves_short_tcp_packets_from_their_own_class():
    shaping = topology.Shaping(rate_mbit=200, limit_bytes=262144, shaper="htb",
                               ack_priority=True)
    cmds = [" ".join(c) for c in shaping.qdisc_commands("to-left")]
    assert cmds[0] == "qdisc add dev to-left root handle 1: htb default 20"
    # Data borrows from a token rate; the ACK class holds the whole rate.
    assert any("classid 1:20 htb rate 1mbit ceil 200mbit prio 1" in c for c in cmds)
    assert any("classid 1:10 htb rate 200mbit ceil 200mbit prio 0" in c for c in cmds)
    assert sum("bfifo limit 262144" in c for c in cmds) == 2
    assert cmds[-1].endswith("match ip protocol 6 0xff match u16 0x0000 0xff80 at 2 "
                             "flowid 1:10")


def test_htb_without_acks_first_is_one_fifo_under_netem_too():
    shaping = topology.Shaping(rate_mbit=50, limit_bytes=37500, delay_ms=2, shaper="htb")
    cmds = [" ".join(c) for c in shaping.qdisc_commands("to-right")]
    assert cmds[0].startswith("qdisc add dev to-right root handle 1: netem delay 2.000ms")
    assert cmds[1] == "qdisc add dev to-right parent 1: handle 2: htb default 20"
    assert sum("bfifo" in c for c in cmds) == 1 and not any("filter" in c for c in cmds)


def test_htb_with_acks_marked_by_the_hosts_serves_their_dscp_first():
    """ack_priority "dscp": the ACK class takes what the hosts' marker set
    (EF in the TOS byte's upper six bits), whatever its size."""
    shaping = topology.Shaping(rate_mbit=200, limit_bytes=262144, shaper="htb",
                               ack_priority="dscp")
    cmds = [" ".join(c) for c in shaping.qdisc_commands("to-left")]
    assert topology.ACK_DSCP == 46
    assert cmds[-1].endswith("prio 1 u32 match ip dsfield 0xb8 0xfc flowid 1:10")
    assert any("classid 1:10 htb rate 200mbit ceil 200mbit prio 0" in c for c in cmds)


def test_the_emulated_switch_is_htb_acks_first_training_classes_in_order_then_best_effort():
    shaping = topology.Shaping(rate_mbit=200, limit_bytes=262144, shaper="prio")
    cmds = [" ".join(c) for c in shaping.qdisc_commands("to-right")]
    assert cmds[0] == "qdisc add dev to-right root handle 1: htb default 30"
    # EF: assured the whole rate, so never borrowing: first.
    assert any("classid 1:10 htb rate 200mbit ceil 200mbit prio 0" in c for c in cmds)
    # Training assured half, best effort half (BE_SHARE).
    assert any("classid 1:2 htb rate 100000kbit ceil 200mbit" in c for c in cmds)
    assert any("classid 1:30 htb rate 100000kbit ceil 200mbit prio 7" in c for c in cmds)
    # Seven training classes borrowing from 1:2, the highest class at prio 0.
    for c, dscp in enumerate(topology.PRIO_DSCP):
        assert any("parent 1:2 classid 1:2%d htb rate 1kbit ceil 200mbit prio %d"
                   % (c + 1, 6 - c) in x for x in cmds)
        assert cmds.count("filter add dev to-right parent 1: protocol ip prio 2 u32 match ip "
                          "dsfield 0x%02x 0xfc flowid 1:2%d" % (dscp << 2, c + 1)) == 1
    assert "filter add dev to-right parent 1: protocol ip prio 1 u32 match ip dsfield 0xb8 " \
        "0xfc flowid 1:10" in cmds
    assert sum("bfifo limit 262144" in c for c in cmds) == 9


def test_the_emulated_switch_under_netem_and_with_its_own_classes():
    shaping = topology.Shaping(rate_mbit=50, limit_bytes=37500, delay_ms=2, shaper="prio",
                               prio_dscp=(10, 20), be_share=0.25, ack_priority="size")
    cmds = [" ".join(c) for c in shaping.qdisc_commands("to-left")]
    assert cmds[0].startswith("qdisc add dev to-left root handle 1: netem delay 2.000ms")
    assert cmds[1] == "qdisc add dev to-left parent 1: handle 2: htb default 30"
    assert any("classid 2:30 htb rate 12500kbit" in c for c in cmds)
    assert [c.split("flowid ")[1] for c in cmds if "dsfield" in c] == ["2:10", "2:21", "2:22"]
    # Short TCP packets are ACKs too with ack_priority "size".
    assert sum(c.endswith("flowid 2:10") for c in cmds) == 2
    shaping.check()
    with pytest.raises(SystemExit, match="not EF"):
        topology.Shaping(shaper="prio", prio_dscp=(46,)).check()
