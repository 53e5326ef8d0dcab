#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the libFuzzer targets of mltcpctl (its argument parser, its decoder
# of kernel replies and of the BPF iterator's records) with clang, AddressSanitizer and UBSan, and run
# each for a bounded time from seeds made by the real encoders and from the
# inputs that once failed (tests/fuzz/regressions/). Fails if a
# target finds a crash, a leak, undefined behaviour or a timeout.
#
#   tests/fuzz/run.sh [TOTAL_SECONDS]     (default 60, split between targets)
#
# $FUZZ_OUT keeps the build, corpora and any crash reproducers (default: a
# temporary directory, removed when nothing was found).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
total=${1:-60}
targets=(fuzz_args fuzz_decode)
per_target=$((total / ${#targets[@]}))
((per_target >= 1)) || per_target=1

out=${FUZZ_OUT:-$(mktemp -d /tmp/mltcp-fuzz.XXXXXX)}
mkdir -p "$out"
keep=${FUZZ_OUT:+1}

cxx=${CXX_FUZZ:-clang++}
cc=${CC_FUZZ:-clang}
command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (apt-get install clang)" >&2; exit 1; }

san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1)
inc=(-I"$top/userspace/mltcpctl" -I"$top/userspace/common" -I"$top/kmod" -I"$top/bpf")
# What CMake gives the build: the version "mltcpctl -V" prints.
inc+=(-DMLTCPCTL_VERSION='"fuzz"')
# The parser is the objects' (their table links their commands too), built
# without the BPF backend (no libbpf) as a build without libbpf-dev is.
src=("$top"/userspace/mltcpctl/{mltcpctl,job,flow,monitor,defaults,bpf,export,run,ackmark}.cc
     "$top"/userspace/mltcpctl/{args,backend,cgroup,message,netlink,output,bpf_jobs}.cc
     "$top/userspace/common/units.cc")

echo "fuzz: building in $out"
# Each source compiled once, two at a time, for the three programs.
cxxflags=(-std=c++17 -Wall -Wextra -Werror "${san[@]}" "${inc[@]}")
objs=()
for c in mltcp_core mltcp_policy; do
	rm -f "$out/$c.o"
	"$cc" "${san[@]}" -fsanitize=fuzzer-no-link "${inc[@]}" -c "$top/kmod/$c.c" -o "$out/$c.o" &
	objs+=("$out/$c.o")
done
wait
for s in "${src[@]}"; do
	o=$out/$(basename "$s" .cc).o
	rm -f "$o"
	(($(jobs -pr | wc -l) < 2)) || wait -n
	"$cxx" "${cxxflags[@]}" -fsanitize=fuzzer-no-link -c "$s" -o "$o" &
	objs+=("$o")
done
wait
# A compiler that failed left no object (and said why).
for o in "${objs[@]}"; do
	[[ -f $o ]] || { echo "fuzz: could not build $o" >&2; exit 1; }
done
for t in "${targets[@]}"; do
	"$cxx" "${cxxflags[@]}" -fsanitize=fuzzer "$top/tests/fuzz/$t.cc" "${objs[@]}" -lmnl -o "$out/$t"
done
"$cxx" "${cxxflags[@]}" -fsanitize=fuzzer-no-link "$top/tests/fuzz/fuzz_seeds.cc" "${objs[@]}" \
	-lmnl -o "$out/fuzz_seeds"

mkdir -p "$out/corpus/args" "$out/corpus/decode" "$out/seeds/args" "$out/seeds/decode"
"$out/fuzz_seeds" "$out/seeds"

status=0
for t in "${targets[@]}"; do
	name=${t#fuzz_}
	dict=()
	[[ -f $top/tests/fuzz/$name.dict ]] && dict=(-dict="$top/tests/fuzz/$name.dict")
	regressions=()
	[[ -d $top/tests/fuzz/regressions/$name ]] && regressions=("$top/tests/fuzz/regressions/$name")
	echo "fuzz: $t for ${per_target}s"
	if ! (cd "$out" && "./$t" "${dict[@]}" -max_total_time="$per_target" -timeout=10 \
		-rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/$t-" \
		"corpus/$name" "seeds/$name" "${regressions[@]}" >"$out/$t.log" 2>&1); then
		echo "fuzz: $t FOUND A PROBLEM; log and reproducer in $out:" >&2
		grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$out/$t.log" >&2 || tail -20 "$out/$t.log" >&2
		status=1
		keep=1
	else
		grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$out/$t.log" |
			sed "s/^/fuzz: $t: /"
	fi
done
[[ -n $keep ]] || rm -rf "$out"
exit $status
