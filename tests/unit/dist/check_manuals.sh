#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The manuals are clean (groff warns about nothing) and current: tcp_mltcp(7)
# names every module parameter, sysctl and mode of the source;
# mltcp-trainsim(1) every option the program's --help lists; mltcpctl(8)
# every word of the grammar the bash completion offers (which
# completion_test.sh checks against mltcpctl's own tables).
#
#   check_manuals.sh MLTCP_TRAINSIM
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
trainsim=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for page in "$top"/docs/tcp_mltcp.7 "$top"/docs/mltcp-trainsim.1 "$top"/docs/mltcpctl.8; do
	out=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
	[[ -z $out ]] || fail "${page##*/}: $out"
	# groff takes a control character silently; a "\f" that lost its backslash is one.
	bad=$(LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f]' "$page")
	[[ -z $bad ]] || fail "${page##*/}: control characters: $bad"
done

# The rendered text, hyphens and bold/italic undone, so "idle\-gap" is idle-gap.
text() { LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$top/docs/$1" 2>/dev/null | col -b; }
mentions() {
	local page=$1 what=$2 word rendered
	rendered=$(text "$page")
	shift 2
	for word; do
		grep -qF -- "$word" <<<"$rendered" || fail "$page does not mention $what $word"
	done
}

params=$(sed -n 's/^module_param_cb(\([a-z_]*\),.*/\1/p' "$top/kmod/mltcp_defaults.c")
[[ $(wc -w <<<"$params") -ge 5 ]] || fail "found only \"$params\" as module parameters"
# shellcheck disable=SC2086
mentions tcp_mltcp.7 "parameter" $(printf '%s= ' $params)
# The sysctls are the parameters but the global mode.
# shellcheck disable=SC2086
mentions tcp_mltcp.7 "sysctl" $(printf 'net.mltcp.%s ' $params | sed 's/net.mltcp.mode //')
modes=$(sed -n '/mltcp_mode_names\[.*\] = {/,/^};/p' "$top/kmod/mltcp_policy.c" |
	grep -o '"[a-z-]*"' | tr -d '"')
# shellcheck disable=SC2086
mentions tcp_mltcp.7 "mode" $modes
mentions tcp_mltcp.7 "section" "HOW ITERATIONS ARE DETECTED" "TRUST MODEL" "SYSCTLS"

opts=$("$trainsim" --help 2>&1 | grep -o -- '--[a-z-]*' | sort -u)
[[ $(wc -w <<<"$opts") -ge 15 ]] || fail "found only \"$opts\" in mltcp-trainsim --help"
# shellcheck disable=SC2086
mentions mltcp-trainsim.1 "option" $opts

# shellcheck source=../../../dist/bash-completion/mltcpctl
complete() { :; }
. "$top/dist/bash-completion/mltcpctl"
# shellcheck disable=SC2086
mentions mltcpctl.8 "word" $_mltcpctl_job_words $_mltcpctl_default_words $_mltcpctl_modes \
	-json -pretty -netns -backend -debug -help -Version \
	add set del show monitor interval count global load unload status export output \
	ackmark dev dscp marked left user group parent initgroups no_new_privs CLONE_INTO_CGROUP \
	mltcp_flows mltcp_job_flows mltcp_job_flows_matched_total mltcp_job_iterations_total \
	mltcp_job_bytes_total mltcp_job_f mltcp_iteration_verdicts_total

if ((fails)); then
	echo "check_manuals: $fails failed"
	exit 1
fi
echo "check_manuals: all passed"
