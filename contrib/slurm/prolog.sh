#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Slurm prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/mltcp.sh, with
# PrologFlags=Contain so that the job's cgroup exists when it runs): an
# MLTCP job that matches the Slurm job's cgroup, so the flows of every step
# (and their ranks' gradient connections, on whatever ports) get MLTCP's
# settings. The epilog removes it.
#
# The MLTCP job's id is 2147483648 + SLURM_JOB_ID: ids from 2^31 up are
# Slurm's, so that a Slurm job never meets the ids mltcpctl run picks (the
# lowest free, from 1) or an operator's. Slurm's own ids stay below 2^26
# (MaxJobId); a federation's carry the cluster in bits 26-31 and fit up to
# cluster 31. A job's processes find their id as MLTCP_JOB would give it
# (python3-mltcp: mltcp.StepMarker(job=2147483648 + SLURM_JOB_ID)).
#
# The job is recorded as this prolog's (the cgroup's id in $STATE_DIR/ID)
# before it is added: the epilog deletes only a job it finds recorded (and
# forgets a record whose job does not exist), so a prolog killed between the
# two steps leaves nothing the epilog cannot clean up. An MLTCP job of that
# id made by someone else is neither replaced nor, later, deleted. Running
# the prolog twice is harmless.
#
# Configuration: /etc/mltcp/slurm.conf, sourced as root, so root's file and
# no other (no environment variable names another).
# Exit status non-zero with one line on stderr if the job cannot be made;
# Slurm then drains the node, so a missing module shows at once.
set -eu

MLTCPCTL=mltcpctl
MLTCPCTL_OPTIONS=
MLTCP_JOB_SETTINGS=
SLURM_CGROUP_ROOT=/system.slice/slurmstepd.scope
STATE_DIR=/run/mltcp/slurm
# shellcheck disable=SC1091
[ -r /etc/mltcp/slurm.conf ] && . /etc/mltcp/slurm.conf

fail() {
	echo "mltcp prolog: job ${SLURM_JOB_ID:-?}: $*" >&2
	exit 1
}

[ -n "${SLURM_JOB_ID:-}" ] || fail "SLURM_JOB_ID is not set (run as Slurm's Prolog)"
case $SLURM_JOB_ID in
'' | *[!0-9]* | 0*) fail "SLURM_JOB_ID \"$SLURM_JOB_ID\" is not a job id" ;;
esac
if [ ${#SLURM_JOB_ID} -gt 10 ] || [ "$SLURM_JOB_ID" -gt 2147483647 ]; then
	fail "SLURM_JOB_ID above 2147483647 has no MLTCP job id (2147483648 + SLURM_JOB_ID)"
fi
job=$((2147483648 + SLURM_JOB_ID))

mount=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$mount" ] || fail "no cgroup2 filesystem mounted (Slurm's cgroup/v2 plugin needs one)"

dir=$mount${SLURM_CGROUP_ROOT:+/${SLURM_CGROUP_ROOT#/}}/job_$SLURM_JOB_ID
if [ ! -d "$dir" ]; then
	# Only where slurmstepd keeps jobs, and only root's: not a directory
	# of that name that a user made in a subtree delegated to them.
	dir=$(find "$mount" -maxdepth 6 -type d -user root \
		-path "*slurmstepd.scope/job_$SLURM_JOB_ID" -print -quit 2>/dev/null)
	[ -n "$dir" ] || fail "no cgroup job_$SLURM_JOB_ID under $mount (is PrologFlags=Contain set?)"
fi
id=$(stat -c %i "$dir")

# mltcpctl fails with status 1 whatever the reason; only this message says
# the job does not exist, and any other failure is not taken for that.
# shellcheck disable=SC2086
if out=$("$MLTCPCTL" $MLTCPCTL_OPTIONS -j job show "$job" 2>&1); then
	existing=$(printf '%s\n' "$out" | sed -n 's/.*"cgroup_id":\([0-9]*\).*/\1/p')
	[ "$existing" = "$id" ] || fail "MLTCP job $job exists for another cgroup; not replaced"
	# This prolog's, from an earlier run that may have stopped before the
	# record was written.
	mkdir -p "$STATE_DIR"
	echo "$id" >"$STATE_DIR/$SLURM_JOB_ID"
	exit 0
fi
case $out in
*"job $job: no such job"*) ;;
*) fail "$out" ;;
esac
mkdir -p "$STATE_DIR"
echo "$id" >"$STATE_DIR/$SLURM_JOB_ID"
# shellcheck disable=SC2086
"$MLTCPCTL" $MLTCPCTL_OPTIONS job add "$job" cgroup "${dir#"$mount"}" $MLTCP_JOB_SETTINGS
