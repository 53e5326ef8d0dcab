# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One bulk TCP flow measured by iperf3, between two namespaces of a
topology (anything with run() and spawn(), as testbed.topology.Netns).

The benches (fidelity, throughput) and the test suites (tests/kernel,
tests/datapath) all run it this way: a one-shot server, waited for until
it listens, then a client with -J whose report is parsed. iperf3's "end"
section is returned whole, so each caller takes what it measures.
"""
import json
import time

PORT = 5201


def listen(rcv, port=PORT, prefix=(), timeout=10.0):
    """Start a one-shot iperf3 server in rcv; return it once it listens."""
    srv = rcv.spawn(*prefix, "iperf3", "-s", "-1", "-p", str(port))
    deadline = time.time() + timeout
    while "LISTEN" not in rcv.run("ss", "-Hltn", "sport = :%d" % port).stdout:
        if srv.poll() is not None or time.time() > deadline:
            srv.kill()
            raise RuntimeError("iperf3 server on port %d did not start: %s"
                               % (port, srv.communicate()[1].strip()))
        time.sleep(0.05)
    return srv


def iperf3(snd, rcv, cc, seconds, omit=1, port=PORT, prefix=(), midway=None):
    """Run one flow from snd to rcv with congestion control cc for omit +
    seconds (the first omit seconds not counted).

    Returns (end, seen): iperf3's "end" section, and what midway() returned
    when called halfway through the counted seconds (None without midway).
    Raises RuntimeError if iperf3 fails or ran another algorithm than cc."""
    srv = listen(rcv, port, prefix)
    cli = snd.spawn(*prefix, "iperf3", "-c", rcv.addr, "-p", str(port), "-t", str(seconds),
                    "-O", str(omit), "-C", cc, "-J")
    seen = None
    try:
        if midway is not None:
            time.sleep(omit + seconds / 2)
            seen = midway()
        out, err = cli.communicate(timeout=omit + seconds + 60)
    finally:
        if cli.poll() is None:
            cli.kill()
    if cli.returncode != 0:
        # The one-shot server may wait for a client that never came.
        srv.kill()
        srv.wait()
        raise RuntimeError("iperf3 -C %s failed: %s" % (cc, err.strip() or out[-500:]))
    srv.wait(timeout=30)
    end = json.loads(out)["end"]
    if end["sender_tcp_congestion"] != cc:
        raise RuntimeError("asked iperf3 for %s, it ran %s" % (cc, end["sender_tcp_congestion"]))
    return end, seen


def goodput_bps(end):
    """Goodput at the receiver, bit/s."""
    return end["sum_received"]["bits_per_second"]


def retransmits(end):
    """The sender's retransmissions (0 where iperf3 does not report them)."""
    return end["sum_sent"].get("retransmits", 0)
