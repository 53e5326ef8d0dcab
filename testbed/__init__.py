# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The test bed the product's in-guest tests and the experiment (bench/)
both run on. Test and bench code only: no package ships it.

  topology   the dumbbell of named network namespaces, veth links, shaping
  mltcpctl   mltcpctl command lines: defaults, counters, the BPF backend
  bulk       one bulk TCP flow measured by iperf3
  writer     the timed non-blocking writer of on-off traffic
  dmesg      the kernel log's check for warnings, BUGs, oopses, lockdep
  paths      where the checkout's programs are

Imported from the top of the checkout (`python3 -m pytest` and
`python3 -m bench` add it to sys.path; the traffic tools run as scripts add
it themselves). It imports nothing from bench.
"""
