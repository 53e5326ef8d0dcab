#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Interleaving experiment driver: runs inside the test guest (scripts/vm-run).

Builds a dumbbell with Mininet's Python API: job j has worker 0 on host Lj
behind switch s1 and worker 1 on host Rj behind switch s2; s1-s2 is the
bottleneck. The switches are Linux bridges (no controller, no OVS daemon to
start under emulation) and the bottleneck is shaped with our own qdiscs on
both switch ports of the s1-s2 link: netem for half the base RTT as root and
tbf (rate, queue limit in bandwidth-delay products) beneath it. Mininet's
TCLink was measured at 73 of 100 Mbit/s under emulation where a plain tbf
held 95%, so TCLink is not used. Host links are unshaped veth pairs.

It also runs on the host kernel with the BPF backend (`"backend": "bpf"`,
mltcp-bpf loaded): the host has no netem, so with `rtt_ms` 0 the bottleneck
is tbf alone and the RTT comes from queueing only.

For each repeat and each algorithm (same start offsets for all), it sets the
algorithm's parameters (module parameters, or the BPF backend's map), starts
every worker of every job (mltcp-trainsim) with a common absolute start time, samples each job's bytes into the bottleneck every
`sample_ms`, and records the bottleneck's drops and each host's RTO count.

A job's "collective" is passed to mltcp-trainsim as --collective (default:
trainsim's own, exchange for two workers). With "push" worker 0 (Lj) sends the
job's bytes to worker 1 (Rj) and nothing comes back.

    driver.py CONFIG.json OUTDIR
"""
import json
import os
import subprocess
import sys
import threading
import time
import zlib

PARAMS = "/sys/module/tcp_mltcp/parameters/"
PORT_BASE = 7100


def read_netstat(host):
    """TcpExt counters of a host's namespace."""
    lines = host.cmd("cat /proc/net/netstat").splitlines()
    counters = {}
    for head, vals in zip(lines[0::2], lines[1::2]):
        keys, values = head.split()[1:], vals.split()[1:]
        prefix = head.split(":")[0]
        counters.update({"%s%s" % (prefix, k): int(v) for k, v in zip(keys, values)})
    return counters


def set_params(cfg, params):
    if cfg.get("backend", "module") == "bpf":
        argv = [cfg["mltcp_bpf"], "set"]
        for key, value in params.items():
            argv += [key, str(value)]
        subprocess.run(argv, check=True)
        return
    for key, value in params.items():
        with open(PARAMS + key, "w") as f:
            f.write("%s\n" % value)


def read_params(cfg):
    if cfg.get("backend", "module") == "bpf":
        out = subprocess.run([cfg["mltcp_bpf"], "-j", "status"], capture_output=True,
                             text=True, check=True).stdout
        return json.loads(out).get("params") or {}
    if not os.path.isdir(PARAMS):
        return {}
    return {k: open(PARAMS + k).read().strip() for k in sorted(os.listdir(PARAMS))}


class Sampler(threading.Thread):
    """Reads per-job byte counters every period; appends (t, [bytes...])."""

    def __init__(self, counters, period_s):
        super().__init__(daemon=True)
        self.counters = counters
        self.period = period_s
        self.samples = []
        self.stop = threading.Event()

    def run(self):
        files = [open(path, "rb") for path in self.counters]
        next_t = time.time()
        while not self.stop.is_set():
            row = []
            for f in files:
                f.seek(0)
                row.append(int(f.read()))
            self.samples.append((time.time(), row))
            next_t += self.period
            delay = next_t - time.time()
            if delay > 0:
                time.sleep(delay)
            else:
                next_t = time.time()
        for f in files:
            f.close()


def build_net(cfg):
    from mininet.link import Link
    from mininet.log import setLogLevel
    from mininet.net import Mininet
    from mininet.nodelib import LinuxBridge

    setLogLevel("error")
    net = Mininet(switch=LinuxBridge, controller=None, link=Link, autoSetMacs=True,
                  waitConnected=False)
    s1, s2 = net.addSwitch("s1"), net.addSwitch("s2")
    pairs = []
    for j, job in enumerate(cfg["jobs"]):
        left, right = net.addHost("L%d" % (j + 1)), net.addHost("R%d" % (j + 1))
        lport = net.addLink(left, s1).intf2.name
        net.addLink(right, s2)
        pairs.append((job, left, right, lport))
    # Bulk flows (iperf3, a fixed algorithm) share the bottleneck with the jobs.
    bulks = []
    for b, bulk in enumerate(cfg.get("bulk", [])):
        left, right = net.addHost("B%dL" % (b + 1)), net.addHost("B%dR" % (b + 1))
        lport = net.addLink(left, s1).intf2.name
        net.addLink(right, s2)
        bulks.append((bulk, left, right, lport))
    cfg["_bulks"] = bulks
    bottleneck = net.addLink(s1, s2)
    net.start()

    rate = cfg["rate_mbit"]
    rtt_ms = cfg["rtt_ms"]
    bdp = rate * 1e6 / 8 * rtt_ms / 1e3
    limit = max(int(cfg["buffer_bdp"] * bdp), 4 * 1514)
    if not rtt_ms:
        limit = int(cfg["buffer_bytes"])
    for intf in (bottleneck.intf1.name, bottleneck.intf2.name):
        tbf = "tbf rate %dmbit burst %d limit %d" % (rate, cfg.get("burst_bytes", 32 * 1024),
                                                     limit)
        if rtt_ms:
            cmds = ("tc qdisc add dev %s root handle 1: netem delay %.3fms limit 100000"
                    % (intf, rtt_ms / 2), "tc qdisc add dev %s parent 1: handle 2: %s"
                    % (intf, tbf))
        else:
            cmds = ("tc qdisc add dev %s root handle 1: %s" % (intf, tbf),)
        for cmd in cmds:
            if os.system(cmd) != 0:
                raise RuntimeError("failed: " + cmd)
    return net, pairs, bottleneck, limit


def qdisc_stats(intf):
    out = os.popen("tc -s -j qdisc show dev %s" % intf).read()
    stats = {}
    for q in json.loads(out):
        stats[q["kind"]] = {k: q.get(k) for k in ("bytes", "packets", "drops", "overlimits")}
    return stats


def trainsim_argv(cfg, job, alg, rank, port, peer_ip, start_at, tag, log):
    """Command line of one worker of a two-worker job.

    A job's "collective" (default exchange) goes to --collective: "push" loads
    only the L->R direction, so a host that cannot forward both directions of
    every job at the bottleneck rate can still run the set.
    """
    argv = [cfg["trainsim"], "--job", job["name"], "--rank", str(rank),
            "--world", "2", "--listen", str(port),
            "--next", "%s:%d" % (peer_ip, port),
            "--bytes", str(job["bytes"]), "--compute", "%gms" % job["compute_ms"],
            "--jitter", "%gms" % job.get("jitter_ms", 0),
            "--iterations", str(cfg["iterations"]), "--cc", alg["cc"],
            "--start-at", "%.6f" % start_at,
            "--offset", "%gms" % job.get("offset_ms", 0),
            "--seed", str(zlib.crc32(("%s/%s/%d" % (tag, job["name"], rank)).encode())),
            "--log", log]
    if "collective" in job:
        argv += ["--collective", job["collective"]]
    return argv


def run_once(cfg, net, pairs, bottleneck, alg, outdir, tag):
    os.makedirs(outdir, exist_ok=True)
    default_params = cfg.get("default_params", {})
    params = dict(default_params, **alg.get("params", {}))
    if params:
        set_params(cfg, params)
    module_params = read_params(cfg)

    before = {h.name: read_netstat(h) for h in net.hosts}
    q_before = {i: qdisc_stats(i) for i in (bottleneck.intf1.name, bottleneck.intf2.name)}
    n_jobs = len(pairs)
    start_at = time.time() + cfg.get("setup_s", 4.0 + 1.5 * n_jobs)
    procs = []
    for j, (job, left, right, _) in enumerate(pairs):
        port = PORT_BASE + j
        for rank, host, peer in ((0, left, right), (1, right, left)):
            log = os.path.join(outdir, "%s-r%d.jsonl" % (job["name"], rank))
            argv = trainsim_argv(cfg, job, alg, rank, port, peer.IP(), start_at, tag, log)
            procs.append((job["name"], rank, host.popen(argv)))
    bulk_procs = []
    for b, (bulk, left, right, _) in enumerate(cfg["_bulks"]):
        port = PORT_BASE + 100 + b
        bulk_procs.append(right.popen(["iperf3", "-s", "-p", str(port)]))
        # Started at the jobs' start time, stopped when the jobs are done.
        bulk_procs.append(left.popen(["sh", "-c", "sleep %.3f; exec iperf3 -c %s -p %d -t 86400 "
                                      "-C %s >/dev/null" % (max(0, start_at - time.time()),
                                                            right.IP(), port, bulk["cc"])]))

    sampler = Sampler(["/sys/class/net/%s/statistics/rx_bytes" % lport
                       for (_, _, _, lport) in pairs + cfg["_bulks"]],
                      cfg.get("sample_ms", 10) / 1e3)
    sampler.start()
    worst = max(j["compute_ms"] for j in cfg["jobs"]) / 1e3 + \
        sum(j["bytes"] for j in cfg["jobs"]) * 8 / (cfg["rate_mbit"] * 1e6) * 2
    deadline = start_at + cfg["iterations"] * worst * 3 + 60
    failures = []
    for name, rank, proc in procs:
        try:
            proc.wait(timeout=max(1, deadline - time.time()))
        except Exception:
            proc.kill()
            proc.wait()
            failures.append("%s rank %d timed out" % (name, rank))
            continue
        if proc.returncode != 0:
            err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
            failures.append("%s rank %d exited %d: %s" % (name, rank, proc.returncode, err))
    sampler.stop.set()
    sampler.join()
    for proc in bulk_procs:
        proc.kill()
        proc.wait()

    after = {h.name: read_netstat(h) for h in net.hosts}
    q_after = {i: qdisc_stats(i) for i in (bottleneck.intf1.name, bottleneck.intf2.name)}
    rtos = {h: after[h].get("TcpExtTCPTimeouts", 0) - before[h].get("TcpExtTCPTimeouts", 0)
            for h in after}
    drops = {i: {k: (q_after[i][k]["drops"] or 0) - (q_before[i][k]["drops"] or 0)
                 for k in q_after[i]} for i in q_after}
    meta = {"algorithm": alg, "backend": cfg.get("backend", "module"),
            "module_params": module_params, "start_at": start_at,
            "rtos": rtos, "drops": drops, "failures": failures, "tag": tag,
            "sample_jobs": [job["name"] for (job, _, _, _) in pairs + cfg["_bulks"]],
            "bulk": [bulk["name"] for (bulk, _, _, _) in cfg["_bulks"]]}
    with open(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    with open(os.path.join(outdir, "samples.json"), "w") as f:
        json.dump(sampler.samples, f)
    if default_params:
        set_params(cfg, default_params)
    return meta


def main():
    cfg_path, out = sys.argv[1], sys.argv[2]
    with open(cfg_path) as f:
        cfg = json.load(f)
    cfg["trainsim"] = os.path.abspath(cfg["trainsim"])
    if cfg.get("backend", "module") == "bpf":
        cfg["mltcp_bpf"] = os.path.abspath(cfg.get("mltcp_bpf",
                                                   "build/userspace/bpf/mltcp-bpf"))
    if not os.access(cfg["trainsim"], os.X_OK):
        sys.exit("driver: %s is not built" % cfg["trainsim"])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    t0 = time.time()
    net, pairs, bottleneck, limit = build_net(cfg)
    print("driver: dumbbell up in %.1f s: %d jobs, %d Mbit/s, RTT %g ms, tbf limit %d B"
          % (time.time() - t0, len(pairs), cfg["rate_mbit"], cfg["rtt_ms"], limit), flush=True)
    try:
        for rep in range(cfg.get("repeats", 1)):
            for alg in cfg["algorithms"]:
                tag = "%s/rep%d" % (alg["name"], rep)
                t1 = time.time()
                meta = run_once(cfg, net, pairs, bottleneck, alg,
                                os.path.join(out, alg["name"], "rep%d" % rep), tag)
                print("driver: %-24s %.1f s, RTOs %d, drops %s%s" % (
                    tag, time.time() - t1, sum(meta["rtos"].values()),
                    sum(sum(d.values()) for d in meta["drops"].values()),
                    ", FAILED: " + "; ".join(meta["failures"]) if meta["failures"] else ""),
                    flush=True)
    finally:
        net.stop()


if __name__ == "__main__":
    main()
