# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mltcp's interleaving experiment, run as `python3 -m bench COMMAND` from the
top of the checkout (scripts/demo and scripts/bench do).

  cli        the commands: run, driver, analyze, study-table, tail-overlap
  run        points in the guest or on the host, results directories
  driver     one point: topology, workers, sampling (in the guest or on the host)
  rundir     the one reader and writer of point and results directories
  matrix     the named sets of configurations
  metrics    iteration metrics from trainsim logs (pure)
  analyze    summary, report and plots of a point
  study_table, tail_overlap   tables of results directories (the host sets)
  yardstick  issue 37's yardstick: its set (matrix's yardstick, yardstick-quick)
             and its table (yardstick-table)
  paths      where the checkout's programs and results are
"""
