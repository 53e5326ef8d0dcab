#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bash completion of mltcpctl (dist/bash-completion/mltcpctl): COMPREPLY for
# typed lines, job ids from a stand-in mltcpctl (which records how it was
# asked), and the completion's word lists against mltcpctl's own grammar
# tables (userspace/mltcpctl/*.cc, kmod/mltcp_policy.c).
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[[ -r /usr/share/bash-completion/bash_completion ]] ||
	{ echo "FAIL: bash-completion is not installed"; exit 1; }
# shellcheck source=/dev/null
. /usr/share/bash-completion/bash_completion
# shellcheck source=../../../dist/bash-completion/mltcpctl
. "$top/dist/bash-completion/mltcpctl"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/mltcpctl" <<'FAKE'
#!/bin/bash
printf '%s\n' "$*" >>"$(dirname "$0")/asked"
[[ ${*: -2} == "job show" ]] && printf 'job 3 dport 5201 slope 2\njob 17 peer 10.0.0.0/8 exempt on\n'
exit 0
FAKE
chmod +x "$tmp/mltcpctl"
PATH=$tmp:$PATH

# The sorted COMPREPLY for a line typed up to its end, as bash would ask.
complete_line() {
	local COMP_LINE=$1 COMP_POINT=${#1} COMP_WORDS COMP_CWORD
	read -r -a COMP_WORDS <<<"$COMP_LINE"
	[[ $COMP_LINE == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_mltcpctl mltcpctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | xargs
}

expect() {
	local got
	got=$(complete_line "$1")
	[[ $got == "$2" ]] || fail "\"$1\": got \"$got\", expected \"$2\""
}

job_words="base cgroup dport exempt idle-gap intercept iter-bytes mark marked peer slope sport"
expect "mltcpctl " "ackmark bpf defaults export flow help job monitor run"
expect "mltcpctl j" "job"
expect "mltcpctl -" "-Version -backend -debug -help -json -netns -pretty"
expect "mltcpctl -b " "auto bpf kmod"
expect "mltcpctl -j " "ackmark bpf defaults export flow help job monitor run"
expect "mltcpctl job " "add del help mark set show"
expect "mltcpctl job add " ""
expect "mltcpctl job add 5 " "$job_words"
expect "mltcpctl job add 5 dport 80 " "$job_words"
expect "mltcpctl job add 5 dport " ""
expect "mltcpctl job set 3 base " "cubic reno"
expect "mltcpctl job add 5 exempt " "$(xargs -n1 <<<"on off $job_words" | sort | xargs)"
expect "mltcpctl job del " "17 3"
expect "mltcpctl job set 1" "17"
expect "mltcpctl jo sh " "17 3"
# A prefix of two spellings of one command is that command (mltcpctl's match).
expect "mltcpctl job de " "17 3"
expect "mltcpctl job ch 3 base " "cubic reno"
expect "mltcpctl job li " "17 3"
expect "mltcpctl job ls " "17 3"
expect "mltcpctl job l " "17 3"
expect "mltcpctl flow ls job " "17 3"
expect "mltcpctl ackmark ls " "dev"
expect "mltcpctl defaults ls " "global"
expect "mltcpctl ackmark de " "dev"
expect "mltcpctl defaults l " "global"
expect "mltcpctl defaults ch " "base global idle-gap intercept mode prio prio-dscp prio-none slope"
# "s" is still set or show: ambiguous, nothing offered.
expect "mltcpctl job s 3 base " ""
# bpf's "show" is its status: no "global" there.
expect "mltcpctl bpf show " ""
expect "mltcpctl flow " "help show"
expect "mltcpctl flow show job " "17 3"
expect "mltcpctl monitor " "count help interval job"
expect "mltcpctl monitor interval " ""
expect "mltcpctl defaults " "help set show"
expect "mltcpctl defaults show " "global"
expect "mltcpctl defaults set " "base global idle-gap intercept mode prio prio-dscp prio-none slope"
expect "mltcpctl defaults set global mode md" "md md-gate md-restart"
expect "mltcpctl defaults set global base " "cubic reno"
expect "mltcpctl bpf " "help load status unload"
expect "mltcpctl bpf load " "base idle-gap intercept mode prio prio-dscp prio-none slope"
expect "mltcpctl defaults set global prio " "0 1 2 3 4 5 6 7"
expect "mltcpctl bpf unload " ""
expect "mltcpctl help " "ackmark bpf defaults export flow job monitor run"
expect "mltcpctl ackmark " "add del help show"
expect "mltcpctl ackmark add " "dev dscp"
expect "mltcpctl ackmark del " "dev"
expect "mltcpctl ackmark add dev eth0 dscp c" "cs0 cs1 cs2 cs3 cs4 cs5 cs6 cs7"
expect "mltcpctl ackmark add dev eth0 " "dscp"
expect "mltcpctl ackmark add dscp ef " "dev"
expect "mltcpctl ackmark add dscp ef dev eth0 " ""
expect "mltcpctl ackmark add ds e" "ef"
expect "mltcpctl ackmark del dev eth0 " ""
expect "mltcpctl ackmark del d " ""
expect "mltcpctl ackmark show " "dev"
expect "mltcpctl ackmark del dscp " ""
expect "mltcpctl -n h1 ackmark add dscp ef " "dev"
expect "mltcpctl ackmark add dev " "$(ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort | xargs)"
expect "mltcpctl run " "$(xargs -n1 <<<"-- job parent user group ${job_words/cgroup /}" | sort | xargs)"
expect "mltcpctl run user " "$(compgen -u | sort | xargs)"
expect "mltcpctl run job 3 group " "$(compgen -g | sort | xargs)"
expect "mltcpctl run user nob" "nobody"
expect "mltcpctl run user nobody g" "group"
expect "mltcpctl export " "count help interval output"
expect "mltcpctl export output /tmp/x interval 10s " "count help interval output"
expect "mltcpctl export interval " ""

# The ids are asked of the namespace and backend the line names.
: >"$tmp/asked"
expect "mltcpctl -n h1 -b kmod job del " "17 3"
[[ $(<"$tmp/asked") == "-n h1 -b kmod job show" ]] ||
	fail "job ids asked as \"$(<"$tmp/asked")\", expected \"-n h1 -b kmod job show\""

# The lists are mltcpctl's: its match tables, less the second spellings
# (change, delete, list, ls) and help where the completion offers it as a word.
words_of() { sed -n "$1" "$top/$2" | grep -o '"[a-zA-Z-]*"' | tr -d '"' | sort -u | xargs; }
same() {
	[[ $2 == "$3" ]] || fail "$1: completion has \"$2\", mltcpctl \"$3\""
}
same "job words" "$job_words" \
	"$(words_of '/kJobKeys = {/,/^};/p' userspace/mltcpctl/job.cc)"
same "default words" "$(xargs -n1 <<<"$_mltcpctl_default_words" | sort | xargs)" \
	"$(words_of '/kDefaultKeys = {/,/^};/p' userspace/mltcpctl/defaults.cc)"
same "modes" "$(xargs -n1 <<<"$_mltcpctl_modes" | sort | xargs)" \
	"$(words_of '/mltcp_mode_names\[.*\] = {/,/^};/p' kmod/mltcp_policy.c)"
# Each object's name is the first line of its definition (object.h).
same "objects" "ackmark bpf defaults export flow help job monitor run" \
	"$(cat "$top"/userspace/mltcpctl/*.cc | sed -n '/^const Object [a-z]*_object = {$/{n;p}' |
		grep -o '"[a-z]*"' | tr -d '"' | sed '$a help' | sort | xargs)"
same "options" "Version backend debug help json netns pretty version" \
	"$(words_of '/kOptions = {/,/^};/p' userspace/mltcpctl/mltcpctl.cc)"

if ((fails)); then
	echo "completion_test: $fails failed"
	exit 1
fi
echo "completion_test: all passed"
