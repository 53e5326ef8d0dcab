# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/k8s (issue 15, item 5): a pod's network namespace, set up as the
container runtime sets it from pod-example.yaml's securityContext.sysctls,
gives the pod's flows MLTCP with the pod's settings; the DaemonSet's node
agent reports the datapath it loaded."""
import os
import socket
import subprocess
import threading

import pytest
import yaml

from bench.topology import Netns
from nl_ctl import TOP, binary, ctl_json, in_netns

K8S = os.path.join(TOP, "contrib", "k8s")
PORT = 7240


def load(name):
    with open(os.path.join(K8S, name)) as f:
        return yaml.safe_load(f)


@pytest.fixture
def pod():
    ns = Netns("pod-%d" % os.getpid())
    yield ns
    ns.close()


def test_pod_sysctls_give_its_flows_mltcp_and_its_settings(pod):
    sysctls = load("pod-example.yaml")["spec"]["securityContext"]["sysctls"]
    # As runc applies them: written under /proc/sys inside the pod's namespace.
    for s in sysctls:
        pod.run("sh", "-c", 'echo "$1" > "/proc/sys/$0"', s["name"].replace(".", "/"),
                s["value"])
    want = {s["name"]: s["value"] for s in sysctls}
    with in_netns(pod.name):
        srv = socket.create_server(("127.0.0.1", PORT))
        client = socket.create_connection(("127.0.0.1", PORT))  # no TCP_CONGESTION: the pod's
        conn, _ = srv.accept()
        threading.Thread(target=lambda: [None for _ in iter(lambda: conn.recv(1 << 16), b"")],
                         daemon=True).start()
        client.sendall(b"x" * (1 << 20))
        cc = client.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    try:
        assert cc.rstrip(b"\0").decode() == want["net.ipv4.tcp_congestion_control"] == "mltcp"
        flow = [f for f in ctl_json("-n", pod.name, "flow", "show")
                if f["sport"] == client.getsockname()[1]][0]
        assert flow["slope"] == float(want["net.mltcp.slope"])
        assert flow["intercept"] == float(want["net.mltcp.intercept"])
        assert flow["idle_gap_us"] == int(want["net.mltcp.idle_gap_us"])
        host = ctl_json("defaults", "show")
        assert host["slope"] != flow["slope"], "the host's defaults are its own"
    finally:
        client.close()
        conn.close()
        srv.close()


def test_node_agent_reports_the_module_and_the_defaults():
    ds = load("daemonset.yaml")
    spec = ds["spec"]["template"]["spec"]
    container = spec["containers"][0]
    assert ds["kind"] == "DaemonSet" and spec["hostNetwork"] is True
    assert container["securityContext"]["privileged"] is True
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["MLTCP_DEFAULTS"].split()[:2] == ["slope", "1.6"]
    before = ctl_json("defaults", "show", "global")

    def agent(defaults):
        return subprocess.run([os.path.join(K8S, "mltcp-node.sh")],
                              env=dict(os.environ, MLTCPCTL=binary(), MLTCP_NODE_ONCE="1",
                                       MLTCP_DEFAULTS=defaults),
                              capture_output=True, text=True, timeout=60)
    try:
        done = agent(env["MLTCP_DEFAULTS"].replace("slope 1.6", "slope 1.7"))
        assert done.returncode == 0, done.stderr
        assert "mltcp-node: datapath: tcp_mltcp module" in done.stdout
        assert "slope 1.7 intercept 0.7 idle-gap 20ms" in done.stdout, "the defaults it set"
        assert ctl_json("defaults", "show", "global")["slope"] == 1.7
    finally:
        assert agent(env["MLTCP_DEFAULTS"]).returncode == 0
    assert ctl_json("defaults", "show", "global") == before, "the shipped defaults again"
