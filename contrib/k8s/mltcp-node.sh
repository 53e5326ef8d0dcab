#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The MLTCP node setup of the DaemonSet (daemonset.yaml), run once by its
# init container with the capabilities listed there and no more: loads the
# tcp_mltcp module, or the BPF twin where modules cannot load (e.g. a node
# without the DKMS package or with lockdown), sets the host's defaults and
# exits; what it loaded stays (sockets may use it). Running it again finds
# either already loaded. Pods choose MLTCP and tune it in their own network
# namespace through securityContext.sysctls (pod-example.yaml).
#
#   MLTCP_DEFAULTS    mltcpctl "defaults set global" words (e.g. "slope 1.6")
set -eu

MLTCPCTL=${MLTCPCTL:-mltcpctl}

say() { echo "mltcp-node: $*"; }

# modprobe's reason (e.g. "Key was rejected by service" under Secure Boot)
# is printed: the twin is the fallback, not a silence.
if [ -d /sys/module/tcp_mltcp ] || modprobe tcp_mltcp; then
	say "datapath: tcp_mltcp module"
else
	# bpf status says whether the twin is loaded (and exits 1 when not).
	if ! "$MLTCPCTL" -j bpf status 2>/dev/null | grep -q '"loaded":true'; then
		"$MLTCPCTL" bpf load >/dev/null
	fi
	say "datapath: BPF twin (the module could not load)"
fi
if [ -n "${MLTCP_DEFAULTS:-}" ]; then
	# shellcheck disable=SC2086
	"$MLTCPCTL" defaults set global $MLTCP_DEFAULTS
fi
say "$("$MLTCPCTL" defaults show global)"
