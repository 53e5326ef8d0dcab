#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The module's files call each other one way only. Each object of kmod/ has
# a layer; every symbol an object leaves undefined and another object
# defines must come from a lower layer. Prints who calls whom (README,
# "Layout") and fails on a call that goes up or sideways, or on an object
# without a layer. Run after scripts/build-kmod.
set -euo pipefail

top=${1:-$(dirname "$0")/../..}
cd "$top/kmod"
fail() { echo "check-layers: FAIL: $*" >&2; exit 1; }

# Lower layers first: the pure core and policy, the defaults, per-namespace
# state, the flow walk, the netlink handlers and the tracepoints (which read
# flows and jobs), the CC hooks and module init.
declare -A layer=(
	[mltcp_core]=0 [mltcp_policy]=1 [mltcp_defaults]=2
	[mltcp_sysctl]=3 [mltcp_jobs]=3 [mltcp_flows]=4
	[mltcp_genl]=5 [mltcp_trace]=5 [tcp_mltcp]=6
)

objs=$(sed -n 's/^tcp_mltcp-y *:= *//; T; :a; /\\$/ { N; s/\\\n//; ba }; p' ../Kbuild)
[[ -n $objs ]] || fail "no objects listed in Kbuild"
declare -A owner
for o in $objs; do
	name=$(basename "$o" .o)
	[[ -f $name.o ]] || fail "kmod/$name.o not built"
	[[ -n ${layer[$name]:-} ]] || fail "kmod/$name.o has no layer in $0"
	for sym in $(nm --defined-only "$name.o" | awk '$2 ~ /^[TDBR]$/ { print $3 }'); do
		owner[$sym]=$name
	done
done

bad=0
for o in $objs; do
	from=$(basename "$o" .o)
	declare -A calls=()
	for sym in $(nm --undefined-only "$from.o" | awk '{ print $2 }'); do
		to=${owner[$sym]:-}
		[[ -n $to && $to != "$from" ]] || continue
		calls[$to]+=" $sym"
		if (( layer[$to] >= layer[$from] )); then
			echo "check-layers: $from (layer ${layer[$from]}) calls $sym of $to (layer ${layer[$to]})" >&2
			bad=1
		fi
	done
	for to in "${!calls[@]}"; do
		echo "$from -> $to:${calls[$to]}"
	done | sort
	unset calls
done
(( !bad )) || fail "a call goes up or sideways"
echo "ok: every call goes to a lower layer"
