# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the test bed finds this checkout's programs. The checkout has the
same path in the test guest (scripts/vm-run shares the host's root file
system), so these hold on both sides."""
import os

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLTCPCTL = os.path.join(TOP, "build", "userspace", "mltcpctl", "mltcpctl")
TRAINSIM = os.path.join(TOP, "build", "userspace", "trainsim", "mltcp-trainsim")
