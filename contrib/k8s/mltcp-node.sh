#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The MLTCP node agent of the DaemonSet (daemonset.yaml), run privileged in
# the host's network namespace: loads the tcp_mltcp module, or the BPF twin
# where modules cannot load (e.g. a node without the DKMS package or with
# lockdown), sets the host's defaults, then waits so that the pod shows
# the node's state. Pods choose MLTCP and tune it in their own network
# namespace through securityContext.sysctls (pod-example.yaml).
#
#   MLTCP_DEFAULTS    mltcpctl "defaults set global" words (e.g. "slope 1.6")
#   MLTCP_HOST_CC     the host's net.ipv4.tcp_congestion_control, if set
#   MLTCP_NODE_ONCE   if set, exit after the setup (for tests)
set -eu

MLTCPCTL=${MLTCPCTL:-mltcpctl}

say() { echo "mltcp-node: $*"; }

if [ -d /sys/module/tcp_mltcp ] || modprobe tcp_mltcp 2>/dev/null; then
	say "datapath: tcp_mltcp module"
else
	"$MLTCPCTL" bpf status >/dev/null 2>&1 || "$MLTCPCTL" bpf load >/dev/null
	say "datapath: BPF twin (the module could not load)"
fi
if [ -n "${MLTCP_DEFAULTS:-}" ]; then
	# shellcheck disable=SC2086
	"$MLTCPCTL" defaults set global $MLTCP_DEFAULTS
fi
if [ -n "${MLTCP_HOST_CC:-}" ]; then
	sysctl -q -w net.ipv4.tcp_congestion_control="$MLTCP_HOST_CC"
fi
say "$("$MLTCPCTL" defaults show global)"
[ -n "${MLTCP_NODE_ONCE:-}" ] && exit 0
# Runs until the pod is deleted; what was loaded stays (sockets may use it).
exec sleep infinity
