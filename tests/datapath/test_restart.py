# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""At each iteration start (md-restart, the default) the window restarts
from the initial window of the flow's route, as the kernel's own restart
does (tcp_cwnd_restart() with tcp_init_cwnd()): with `ip route ...
initcwnd 20` that is 20 segments, not the default 10. Read at the socket:
TCP_INFO just before and just after each burst's first write, before any
ACK of the burst can arrive (onoff.py send ... trace). Issue 12, finding 9."""

INITCWND = 20


def test_restart_resumes_from_the_routes_initcwnd(backend, net):
    nbytes, count = backend.profile.onoff_bytes, 8
    with net.route_initcwnd(INITCWND):
        f = net.onoff(nbytes, count, idle_ms=100, trace=True)
        try:
            flow = f.show()
        finally:
            f.close()
    text = "\n".join("%2d %s -> %s" % (i, t["before"], t["after"])
                     for i, t in enumerate(f.trace))
    print(text)
    f.check_iterations(flow, count)
    # The first burst follows the handshake: it starts from the route's
    # initcwnd (the kernel's initial window); each later one is an
    # iteration start, and the size is known from the second on.
    assert f.trace[0]["before"]["snd_cwnd"] == INITCWND, text
    # Where an ACK of the first write came before the window was read after
    # it (the sender not run for a round trip), the entry shows the ACK's
    # work too and tells nothing of the restart.
    starts = [t for t in f.trace[1:] if t["after"]["bytes_acked"] == t["before"]["bytes_acked"]]
    for t in starts:
        b, a = t["before"], t["after"]
        assert b["ca_state"] in (0, 1), "not Open or Disorder:\n" + text
        assert a["snd_cwnd"] == min(b["snd_cwnd"], INITCWND), text
        assert a["snd_ssthresh"] == max(b["snd_ssthresh"], b["snd_cwnd"] - b["snd_cwnd"] // 4), \
            text
    # The window each iteration left was above the route's initcwnd, so
    # each start tells 20 from 10.
    assert all(t["before"]["snd_cwnd"] > INITCWND for t in starts), text
