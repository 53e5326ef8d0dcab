# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the test bed finds this checkout's programs. The checkout has the
same path in the test guest (scripts/vm-run shares the host's root file
system), so these hold on both sides."""
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLTCPCTL = os.path.join(TOP, "build", "userspace", "mltcpctl", "mltcpctl")
TRAINSIM = os.path.join(TOP, "build", "userspace", "trainsim", "mltcp-trainsim")


def core_constant(name):
    """A number the pure-C core #defines (kmod/mltcp_core.h), so that tests
    and benches follow the rule's own constants rather than copies."""
    with open(os.path.join(TOP, "kmod", "mltcp_core.h")) as f:
        m = re.search(r"^#define[ \t]+%s[ \t]+(\d+)U?\b" % re.escape(name), f.read(), re.M)
    if not m:
        raise KeyError("kmod/mltcp_core.h defines no number %s" % name)
    return int(m.group(1))


# Iterations after the first that must agree with a learned size before the
# flow acts on it (do no harm, mltcp_iter_trusted()).
TRUST_ITERS = core_constant("MLTCP_TRUST_ITERS")
# ... each also within 1/2^this of the period before it.
TRUST_PERIOD_SHIFT = core_constant("MLTCP_TRUST_PERIOD_SHIFT")


def trusted_after_starts(starts):
    """Whether a flow's size is trusted after each of its iteration starts,
    replayed from the starts' tracepoint events (iteration, duration_us:
    the period of the iteration each ended) for a flow whose every
    completed iteration agreed in size with the first: the first start
    learns the size; each later one adds trust if its period is within
    1/2^TRUST_PERIOD_SHIFT of the one before (the second's is no
    reference), up to TRUST_ITERS (mltcp_trust_learn())."""
    agreed, before, out = 0, None, []
    for e in starts:
        period = e["duration_us"]
        if e["iteration"] > 1 and (e["iteration"] == 2 or
                                   abs(period - before) <= before >> TRUST_PERIOD_SHIFT):
            agreed = min(agreed + 1, TRUST_ITERS)
        out.append(agreed >= TRUST_ITERS)
        before = period
    return out
