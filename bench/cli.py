# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`python3 -m bench COMMAND ...`: one command per module of the package."""
import argparse
import importlib

# command -> (module, one line of help)
COMMANDS = {
    "run": ("bench.run", "run bench sets or one configuration, then analyze them"),
    "driver": ("bench.driver", "run one point here (inside the guest, or on the host)"),
    "analyze": ("bench.analyze", "summary.json, report.md and plots of a point directory"),
    "collect": ("bench.collect", "point directories gathered into one results directory"),
    "merge": ("bench.merge", "a point measured in parts (bench run --first-repeat) joined"),
    "study-table": ("bench.study_table", "tables of results directories against the targets"),
    "yardstick-table": ("bench.yardstick", "the yardstick's table (issue 37) of results "
                        "directories"),
    "regime": ("bench.regime", "the simulator's regime map, shift map and data-center table"),
    "tail-overlap": ("bench.tail_overlap", "how close a point's algorithms came to stable"),
    "soak": ("bench.soak", "fault soak of the module (inside the guest: scripts/soak)"),
    "throughput": ("bench.throughput", "one CPU-bound bulk flow, no bottleneck: mltcp vs cubic"),
    "fidelity": ("bench.fidelity", "mltcp_cubic against the kernel's cubic, bulk goodput"),
}


def parser():
    top = argparse.ArgumentParser(prog="python3 -m bench",
                                  description="mltcp's interleaving experiment.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, summary) in COMMANDS.items():
        module = importlib.import_module(module_name)
        sub = commands.add_parser(name, help=summary, description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(main=module.main)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    return args.main(args)
