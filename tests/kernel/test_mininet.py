# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The design card's test driver: a Mininet topology built with its Python
API, traffic with each variant through it, and the algorithm checked on each
socket both as iperf3 reports it and as ss sees the live socket."""
import json
import time

from conftest import NAMES


def test_mininet_flows_use_each_variant():
    from mininet.link import TCLink
    from mininet.net import Mininet
    from mininet.nodelib import LinuxBridge

    net = Mininet(switch=LinuxBridge, controller=None, link=TCLink,
                  autoSetMacs=True, waitConnected=False)
    h1, h2 = net.addHost("h1"), net.addHost("h2")
    s1 = net.addSwitch("s1")
    net.addLink(h1, s1, bw=50, delay="2ms")
    net.addLink(h2, s1)
    net.start()
    try:
        for i, name in enumerate(NAMES):
            port = 5301 + i
            h2.cmd("iperf3 -s -1 -D -p %d" % port)
            time.sleep(0.5)
            h1.cmd("iperf3 -c %s -p %d -t 3 -C %s -J > /tmp/mn_%s.json &"
                   % (h2.IP(), port, name, name))
            live = ""
            for _ in range(30):
                time.sleep(0.2)
                live = h1.cmd("ss -tin dport = :%d" % port)
                if name in live.split():
                    break
            assert name in live.split(), live
            h1.cmd("wait")
            with open("/tmp/mn_%s.json" % name) as f:
                report = json.load(f)
            assert report["end"]["sender_tcp_congestion"] == name
            assert report["end"]["sum_received"]["bytes"] > 0
    finally:
        net.stop()
