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
