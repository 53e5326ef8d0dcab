# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/k8s's node setup (mltcp-node.sh) where tcp_mltcp cannot load, on
this machine's kernel: with the DaemonSet's init container's capabilities
and nothing else, it loads the BPF twin and sets its defaults, and run
again (a pod's restart) finds it loaded. tests/kernel/test_k8s.py does
the same where the module loads.

bpffs is mounted at /sys/fs/bpf as a node's systemd mounts it (the init
container may not mount it), in a mount namespace of the test's own.

Run: tests/bpf/run.sh
"""
import os
import re
import subprocess
from pathlib import Path

import yaml

TOP = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("MLTCPCTL_TOOL", TOP / "build/userspace/mltcpctl/mltcpctl"))
NODE = TOP / "contrib/k8s/mltcp-node.sh"
NAMES = {"mltcp", "mltcp_reno", "mltcp_cubic"}
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
# $1 the bounding set, $2 mltcpctl, $3 the node setup; each run's output
# after a line of its own.
SETUP_TWICE = """
mount -t bpf bpf /sys/fs/bpf -o mode=0700 || exit 90
for run in first second; do
	echo "== $run"
	setpriv --bounding-set "$1" --inh-caps -all --no-new-privs -- "$3" || echo "== failed $?"
done
echo "== available $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
"$2" bpf unload >/dev/null || echo "== unload failed"
"""


def init_container():
    with open(TOP / "contrib/k8s/daemonset.yaml") as f:
        spec = yaml.safe_load(f)["spec"]["template"]["spec"]
    return spec["initContainers"][0]


def test_node_setup_loads_the_twin_with_the_init_containers_capabilities():
    assert os.geteuid() == 0 and Path("/sys/kernel/btf/vmlinux").exists()
    assert not Path("/sys/module/tcp_mltcp").exists(), "this test is for hosts without the module"
    subprocess.run([TOOL, "bpf", "unload"], capture_output=True, timeout=60)
    assert not NAMES & set(AVAILABLE.read_text().split()), "mltcp names registered already"
    container = init_container()
    caps = container["securityContext"]["capabilities"]["add"]
    env = {e["name"]: e["value"] for e in container["env"]}
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", SETUP_TWICE, "sh",
         "-all," + ",".join("+" + c.lower() for c in caps), str(TOOL), str(NODE)],
        env=dict(os.environ, MLTCPCTL=str(TOOL), MLTCP_DEFAULTS=env["MLTCP_DEFAULTS"]),
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    runs = {}
    for part in done.stdout.split("== ")[1:]:
        name, _, text = part.partition("\n")
        runs[name.split()[0]] = (name, text)
    assert "failed" not in runs and "unload" not in runs, done.stdout + done.stderr
    for run in ("first", "second"):
        text = runs[run][1]
        assert "mltcp-node: datapath: BPF twin (the module could not load)" in text, text
        # The DaemonSet sets no line: the agent reports the twin's defaults.
        assert re.search(r"^mltcp-node: slope [0-9.]+ intercept [0-9.]+ idle-gap \S+ "
                         r"base cubic mode md-restart$", text, re.M), text
    assert NAMES <= set(runs["available"][0].split()[1:]), "the twin was registered"
    assert not NAMES & set(AVAILABLE.read_text().split()), "and unloaded at the end"
