# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/k8s (issue 15, item 5): a pod's network namespace, set up as the
container runtime sets it from pod-example.yaml's securityContext.sysctls,
gives the pod's flows MLTCP with the pod's settings; the DaemonSet holds
privileges only in a one-shot init container, those it needs and no more,
and its node setup reports the datapath it loaded, run with just those."""
import os
import re
import socket
import subprocess
import threading

import pytest
import yaml

from testbed.topology import Netns
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


@pytest.mark.parametrize("order", ["as listed", "reversed"])
def test_pod_sysctls_give_its_flows_mltcp_and_its_settings(pod, order):
    """The pod's namespace is bounded (bound_netns, the default): each write
    is checked with the values the others have then, and the runtime writes
    them in either order (the OCI spec holds them in a map)."""
    sysctls = load("pod-example.yaml")["spec"]["securityContext"]["sysctls"]
    # As runc applies them: written under /proc/sys inside the pod's namespace.
    for s in (sysctls if order == "as listed" else sysctls[::-1]):
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


# What the node setup needs: SYS_MODULE for modprobe; BPF, PERFMON and
# NET_ADMIN for mltcpctl bpf load (daemonset.yaml says why each).
NODE_CAPABILITIES = {"SYS_MODULE", "BPF", "PERFMON", "NET_ADMIN"}
DIGEST = re.compile(r"^[^@\s]+@sha256:[0-9a-f]{64}$")


def daemonset():
    ds = load("daemonset.yaml")
    assert ds["kind"] == "DaemonSet"
    return ds["spec"]["template"]["spec"]


def test_the_pods_line_is_within_the_bound_on_its_own():
    """Not only under the host's line, which a node may lower: mean F at
    most 1 counting the overhang (tcp_mltcp(7), TRUST MODEL)."""
    sysctls = load("pod-example.yaml")["spec"]["securityContext"]["sysctls"]
    want = {s["name"]: float(s["value"]) for s in sysctls if s["name"].startswith("net.mltcp.")}
    assert 5 * want["net.mltcp.slope"] + 9 * want["net.mltcp.intercept"] <= 9, want


def test_daemonset_holds_privileges_only_in_a_one_shot_init_container():
    spec = daemonset()
    assert not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC")
    assert spec.get("hostUsers") is not False, "capabilities in a user namespace load nothing"
    inits, containers = spec["initContainers"], spec["containers"]
    assert [c["name"] for c in inits] == ["load"]
    for c in inits + containers:
        assert DIGEST.match(c["image"]), "%s: not pinned by digest: %s" % (c["name"], c["image"])
        sc = c["securityContext"]
        assert not sc.get("privileged"), c["name"]
        assert sc["allowPrivilegeEscalation"] is False, c["name"]
        assert sc["readOnlyRootFilesystem"] is True, c["name"]
        assert sc["capabilities"]["drop"] == ["ALL"], c["name"]
    load_sc = inits[0]["securityContext"]
    assert load_sc["appArmorProfile"] == {"type": "Unconfined"}, "runtimes' profiles deny /sys"
    for c in containers:
        assert "appArmorProfile" not in c["securityContext"], c["name"]
    assert set(load_sc["capabilities"]["add"]) == NODE_CAPABILITIES
    assert len(load_sc["capabilities"]["add"]) == len(NODE_CAPABILITIES)
    assert load_sc["runAsUser"] == 0, "added capabilities are effective for root only"
    for c in containers:
        sc = c["securityContext"]
        assert "add" not in sc["capabilities"], c["name"]
        assert sc["runAsNonRoot"] is True and sc["runAsUser"] != 0, c["name"]
        assert not c.get("volumeMounts"), "%s: mounts nothing of the host's" % c["name"]
    # Writable host paths: the module's parameters and bpffs, nothing else.
    host = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v}
    writable = {host[m["name"]] for m in inits[0]["volumeMounts"] if not m.get("readOnly")}
    assert writable == {"/sys/module", "/sys/fs/bpf"}
    assert spec["tolerations"], "the training nodes' taints"
    for t in spec["tolerations"]:
        assert t.get("key"), "a blanket toleration: %s" % t
        assert t.get("effect") in ("NoSchedule", "PreferNoSchedule"), t


def test_a_tag_is_not_a_digest():
    for image in ("registry.example/mltcp-tools:0.1.0", "registry.example/mltcp-tools",
                  "registry.example/mltcp-tools@sha256:abc",
                  "registry.example/mltcp-tools:0.1.0@sha256:" + "g" * 64):
        assert not DIGEST.match(image), image


def run_as_init_container(argv, env):
    """argv with the init container's capabilities only, as root."""
    caps = daemonset()["initContainers"][0]["securityContext"]["capabilities"]["add"]
    bounding = "-all," + ",".join("+" + c.lower() for c in caps)
    return subprocess.run(["setpriv", "--bounding-set", bounding, "--inh-caps", "-all",
                           "--no-new-privs", "--"] + argv,
                          env=env, capture_output=True, text=True, timeout=60)


def test_node_agent_reports_the_module_and_the_defaults():
    container = daemonset()["initContainers"][0]
    assert container["command"] == ["/usr/sbin/mltcp-node"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["MLTCP_DEFAULTS"] == "", "the DaemonSet ships the module's defaults, not a copy"
    before = ctl_json("defaults", "show", "global")

    def agent(defaults):
        return run_as_init_container([os.path.join(K8S, "mltcp-node.sh")],
                                     env=dict(os.environ, MLTCPCTL=binary(),
                                              MLTCP_DEFAULTS=defaults))
    try:
        done = agent("slope 1.7 idle-gap 10ms")
        assert done.returncode == 0, done.stderr
        assert "mltcp-node: datapath: tcp_mltcp module" in done.stdout
        assert "mltcp-node: slope 1.7 intercept %g idle-gap 10ms" % before["intercept"] \
            in done.stdout, "the defaults it set: " + done.stdout
        assert ctl_json("defaults", "show", "global")["slope"] == 1.7
    finally:
        assert agent("slope %g idle-gap %dus" % (before["slope"], before["idle_gap_us"])) \
            .returncode == 0
    # The shipped value sets nothing and reports the defaults.
    done = agent(env["MLTCP_DEFAULTS"])
    assert done.returncode == 0, done.stderr
    assert "mltcp-node: slope %g intercept %g" % (before["slope"], before["intercept"]) \
        in done.stdout, done.stdout
    assert ctl_json("defaults", "show", "global") == before, "the shipped defaults again"
