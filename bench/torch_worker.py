# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One rank of a real data-parallel training job: PyTorch DDP over gloo, on
the CPU, logging one line per step in mltcp-trainsim's format (docs/trainsim.md)
so that `bench analyze` reads a framework's run like an emulated one.

    python3 bench/torch_worker.py --job NAME --rank I --world N --master HOST:PORT
        --bytes SIZE --compute DURATION --iterations N [--bucket-mb MB]
        [--backward-share FRACTION]
        [--start-at T] [--offset DURATION] [--seed S] [--log FILE] [--linger DURATION]
        [--mark-steps JOB [--mltcpctl PATH]]

The model is a multi-layer perceptron sized so that its gradients are
--bytes (float32). Each step is a real forward and backward pass on a random
batch, and DDP's all-reduce of the gradients. So that runs compare, the
compute phase is padded to --compute: the worker runs the forward pass,
sleeps until step start + compute, then runs the backward pass, whose
gradients DDP reduces.

DDP reduces in buckets of up to --bucket-mb, except that from the second
step on the bucket reduced first (the last layers') holds at most
--first-bucket-mb (DDP's default: 1 MB). With both above the model's size a
step is one all-reduce, after the backward pass. With --backward-share, that
fraction of the compute is spent in the backward pass instead, in equal
sleeps as each layer's weight gradient is computed (a tensor hook), last
layer first: the buckets are then ready one after another while the
backward pass goes on, and DDP's all-reduces overlap it, as on a GPU.

A communication hook (the default all-reduce, timed) stamps comm_start when
the first bucket is ready; end is when backward returns, which DDP holds
until every bucket is reduced.

With --mark-steps, the hook also marks each step for MLTCP job JOB
(the package mltcp's StepMarker, over libmltcp: no mltcpctl process), whose flows
then count iterations by step (a "marked" job); a record's mark_s is how
long the step's mark took (part of comm_s), null for a step that made no
mark. A mark that fails stops marking (the hook's rule) but is no silent
0: the step's record says "mark_error", the summary "marks" (how many were
made) and "marking" (the error), the reason goes to stderr, and the worker
exits MARKING_FAILED once its steps are done, so that the run is failed.

Gloo opens its own connections: their congestion control is the namespace's
default (net.ipv4.tcp_congestion_control), which the driver sets per
algorithm. The record's "cc" is that default, read when the step ends.
bytes_sent and bytes_received are the ring all-reduce's payload per rank,
2 (N - 1) / N of the gradient bytes, as gloo moves them (not measured).
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
# The exit status of a worker whose marking stopped (its training went on).
MARKING_FAILED = 3


def duration(text):
    for unit in ("us", "ms", "s"):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * UNITS[unit]
    raise argparse.ArgumentTypeError("%r: a duration needs a unit (us, ms, s)" % text)


def size(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1] in scale:
        return int(float(text[:-1]) * scale[text[-1]])
    return int(text)


def parser():
    p = argparse.ArgumentParser(prog="torch_worker.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--job", required=True)
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="HOST:PORT of rank 0's rendezvous")
    p.add_argument("--bytes", type=size, required=True, help="gradient bytes per step")
    p.add_argument("--compute", type=duration, required=True)
    p.add_argument("--iterations", type=int, required=True)
    p.add_argument("--bucket-mb", type=float, default=25.0)
    p.add_argument("--first-bucket-mb", type=float,
                   help="limit of the bucket reduced first (default: DDP's, 1 MB)")
    p.add_argument("--backward-share", type=float, default=0.0,
                   help="fraction of --compute spent in the backward pass (0 to 1)")
    p.add_argument("--start-at", type=float)
    p.add_argument("--offset", type=duration, default=0.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log", default="-")
    p.add_argument("--timeout", type=duration, default=120.0)
    p.add_argument("--linger", type=duration, default=0.0,
                   help="stay connected this long after the last step (to list the flows)")
    p.add_argument("--mark-steps", type=int, metavar="JOB",
                   help="mark each step for this MLTCP job (a marked job)")
    p.add_argument("--mltcpctl", default="mltcpctl",
                   help="unused since the marks go through libmltcp (the driver still passes it)")
    return p


def mlp_for(grad_bytes, width=512):
    """Layers of width x width (+ bias) until the parameters reach
    grad_bytes / 4 floats; the last layer takes the rest."""
    import torch
    params = max(grad_bytes // 4, 2 * width)
    layers, left = [], params
    while left > width * width + width:
        layers.append(torch.nn.Linear(width, width))
        layers.append(torch.nn.ReLU())
        left -= width * width + width
    out = max(left // (width + 1), 1)
    layers.append(torch.nn.Linear(width, out))
    return torch.nn.Sequential(*layers), width


def step_mark(marker, marked_before):
    """A step's record of its mark: {"mark_s": seconds} for a mark made;
    {"mark_s": None, "mark_error": why} once marking has stopped (the
    hook's StepMarker.failed); {"mark_s": None} for no mark asked (without
    --mark-steps, or no bucket). marked_before: marker.step before the step."""
    if marker is not None and marker.failed:
        return {"mark_s": None, "mark_error": marker.failed}
    if marker is None or marker.step == marked_before:
        return {"mark_s": None}
    return {"mark_s": round(marker.mark_s, 6)}


def namespace_cc():
    with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
        return f.read().strip()


def main(argv=None):
    args = parser().parse_args(argv)
    if not 0 <= args.backward_share <= 1:
        parser().error("--backward-share %g: a fraction from 0 to 1" % args.backward_share)
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    out = sys.stdout if args.log == "-" else open(args.log, "w")

    def emit(record):
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        out.flush()

    dist.init_process_group("gloo", init_method="tcp://" + args.master, rank=args.rank,
                            world_size=args.world,
                            timeout=datetime.timedelta(seconds=args.timeout))
    model, width = mlp_for(args.bytes)
    grad_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    weights = [m.weight for m in model if isinstance(m, torch.nn.Linear)]
    backward_s = args.compute * args.backward_share
    for weight in weights:
        weight.register_hook(lambda grad: time.sleep(backward_s / len(weights)))
    if args.first_bucket_mb is not None:
        dist._DEFAULT_FIRST_BUCKET_BYTES = int(args.first_bucket_mb * 2**20)
    ddp = DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb)
    buckets = []  # when each bucket of this step was ready

    allreduce, marker = default_hooks.allreduce_hook, None
    if args.mark_steps:
        sys.path.insert(0, os.path.join(TOP, "userspace", "libmltcp", "python"))
        from mltcp import StepMarker
        marker = StepMarker(args.mark_steps)
        allreduce = marker.wrap(allreduce)

    def timed(state, bucket):
        """Stamps the bucket ready, before a mark: the mark's time is communication's."""
        buckets.append(time.time())
        return allreduce(state, bucket)

    ddp.register_comm_hook(None, timed)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-4)
    batch = torch.randn(8, width)
    payload = 2 * (args.world - 1) * grad_bytes // args.world
    dist.barrier()
    start = max((args.start_at or time.time()) + args.offset, time.time())
    iter_s, comm_s = [], []
    marks = 0
    for step in range(args.iterations):
        marked_before = marker.step if marker else 0
        delay = start - time.time()
        if delay > 0:
            time.sleep(delay)
        buckets.clear()
        optimizer.zero_grad()
        loss = ddp(batch).square().mean()
        pad = start + args.compute - backward_s - time.time()
        if pad > 0:
            time.sleep(pad)
        loss.backward()
        end = time.time()
        optimizer.step()
        began = buckets[0] if buckets else end
        mark = step_mark(marker, marked_before)
        marks += mark["mark_s"] is not None
        emit({"type": "iteration", "job": args.job, "rank": args.rank, "world": args.world,
              "iteration": step, "start": round(start, 6), "comm_start": round(began, 6),
              "end": round(end, 6), "compute_s": round(began - start, 6),
              "comm_s": round(end - began, 6), "compute_target_s": round(args.compute, 6),
              "bytes_sent": payload, "bytes_received": payload, "cc": namespace_cc(),
              "retrans": 0, "grad_bytes": grad_bytes, "buckets": len(buckets),
              **mark})
        iter_s.append(end - start)
        comm_s.append(end - began)
        start = end
    time.sleep(args.linger)
    dist.barrier()
    dist.destroy_process_group()
    ordered = sorted(iter_s)
    emit({"type": "summary", "job": args.job, "rank": args.rank, "world": args.world,
          "collective": "ring" if args.world > 2 else "exchange", "status": "complete",
          "iterations": len(iter_s),
          "mean_iter_s": round(sum(iter_s) / len(iter_s), 6) if iter_s else None,
          "p50_iter_s": round(ordered[(len(ordered) + 1) // 2 - 1], 6) if iter_s else None,
          "p99_iter_s": round(ordered[-(-99 * len(ordered) // 100) - 1], 6) if iter_s else None,
          "mean_comm_s": round(sum(comm_s) / len(comm_s), 6) if comm_s else None,
          "bytes_sent": payload * len(iter_s), "bytes_received": payload * len(iter_s),
          "total_retrans": 0, "cc": namespace_cc(), "workload": "torch",
          "torch": torch.__version__,
          **({"marks": marks, "marking": marker.failed or "ok"} if marker else {})})
    if marker and marker.failed:
        print("torch_worker: job %s rank %d: marking stopped after %d of %d steps: %s"
              % (args.job, args.rank, marks, len(iter_s), marker.failed),
              file=sys.stderr, flush=True)
        return MARKING_FAILED
    return 0


if __name__ == "__main__":
    try:
        status = main()
    except SystemExit as exc:  # argparse's errors, with its status
        status = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: B902 (said on stderr; the run sees the status)
        traceback.print_exc()
        status = 1
    # Its records are written and flushed: leave without the interpreter's
    # teardown, in which one of torch's threads once spun for minutes after
    # the summary (a host run, job2 rank 1 of 4, until the driver's timeout).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
