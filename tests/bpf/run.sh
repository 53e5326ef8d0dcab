#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The BPF twin's tests on this machine's own kernel (no VM), after the build:
#   1. same source: the BPF object, its skeleton and tcp_mltcp.ko were
#      compiled from kmod/mltcp_core.c and kmod/mltcp_policy.c as they are in
#      the tree (builds the module, ~3 s, if it is missing or stale);
#   2. tests/datapath with --backend bpf (loaded with mltcpctl bpf load
#      before, unloaded after): what both datapaths do alike, through
#      testbed/topology.py's dumbbell with a 1 Gbit/s tbf: bulk goodput,
#      iterations, defaults reaching new flows, jobs and flow show;
#   3. tests/bpf/test_bpf_host.py: mltcpctl bpf load, pins, privileges, the
#      host-wide defaults, unload with live sockets, 10x load/unload;
#   4. tests/bpf/test_mltcpctl_bpf.py: backend selection, the host-wide job
#      table, refusals, bpf status, export;
#   5. tests/bpf/test_ackmark.py: the pure-ACK marker (mltcpctl ackmark) on
#      the wire, IPv4 and IPv6, and its add/del/show;
#   6. tests/bpf/test_prio_wire.py: progress priority's classes on the wire (DSCP
#      per class, never lower within an iteration, class 0 first, none for
#      cubic, bulk or prio off, an application's DSCP kept), IPv4 and IPv6,
#      and its defaults;
#   7. tests/bpf/test_libmltcp.py: libmltcp and its Python binding marking
#      the twin's job table, and their refusals;
#   8. tests/bpf/test_trainsim_marks.py: mltcp-trainsim --mark: a two-rank
#      job counting its iterations at its marks, and a mark that fails.
# pytest runs from the top of the checkout, so that `import testbed` works.
# Usage: tests/bpf/run.sh [BUILD_DIR]   (default: build). Needs root.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
cd "$top"
bpf_out=$build/bpf
tool=$build/userspace/mltcpctl/mltcpctl

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "tests/bpf: this kernel has no BTF (/sys/kernel/btf/vmlinux): cannot test the BPF twin" >&2
	exit 1
fi
if [[ ! -e $bpf_out/mltcp.bpf.o || ! -x $tool ]] || ! "$tool" -V | grep -q "BPF backend"; then
	echo "tests/bpf: $tool not built with the BPF backend (see cmake's \"BPF backend\" message)" >&2
	exit 1
fi

scripts/build-kmod >/dev/null
/usr/bin/python3 tests/bpf/check_same_core.py \
	--dwarfdump "$(command -v llvm-dwarfdump-14 || command -v llvm-dwarfdump)" \
	--source-dir "$top" --bpf-object "$bpf_out/mltcp.bpf.o" \
	--skeleton "$bpf_out/mltcp.skel.h" --module "$top/tcp_mltcp.ko"

export MLTCPCTL_TOOL=$tool MLTCP_BPF_OBJECT=$bpf_out/mltcp.bpf.o
export MLTCP_LIBRARY=$build/userspace/libmltcp/libmltcp.so.0
export MLTCP_TRAINSIM=$build/userspace/trainsim/mltcp-trainsim
# The tests load and unload the host's twin: not while a bench point on the
# host uses it (bench/paths.py: HOST_LOCK).
exec {host_lock}>/tmp/mltcp-host.lock
flock "$host_lock"
/usr/bin/python3 -m pytest -p no:cacheprovider -v -rA --backend bpf tests/datapath </dev/null
/usr/bin/python3 -m pytest -p no:cacheprovider -v -rA tests/bpf </dev/null
