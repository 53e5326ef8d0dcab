#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Slurm prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/mltcp.sh, with
# PrologFlags=Contain so that the job's cgroup exists when it runs): an
# MLTCP job with the Slurm job's id that matches the job's cgroup, so the
# flows of every step (and their ranks' gradient connections, on whatever
# ports) get MLTCP's settings. The epilog removes it.
#
# The job is recorded as this prolog's (the cgroup's id in $STATE_DIR/ID):
# the epilog deletes only a job it finds recorded, and an MLTCP job of that
# id made by someone else is neither replaced nor, later, deleted. Running
# the prolog twice is harmless.
#
# Configuration: /etc/mltcp/slurm.conf (MLTCP_SLURM_CONF overrides the path).
# Exit status non-zero with one line on stderr if the job cannot be made;
# Slurm then drains the node, so a missing module shows at once.
set -eu

conf=${MLTCP_SLURM_CONF:-/etc/mltcp/slurm.conf}
MLTCPCTL=mltcpctl
MLTCPCTL_OPTIONS=
MLTCP_JOB_SETTINGS=
SLURM_CGROUP_ROOT=/system.slice/slurmstepd.scope
STATE_DIR=/run/mltcp/slurm
# shellcheck disable=SC1090
[ -r "$conf" ] && . "$conf"

fail() {
	echo "mltcp prolog: job ${SLURM_JOB_ID:-?}: $*" >&2
	exit 1
}

# The cgroup id a job reports (mltcpctl -j job show ID), empty if none.
job_cgroup_id() {
	# shellcheck disable=SC2086
	"$MLTCPCTL" $MLTCPCTL_OPTIONS -j job show "$1" 2>/dev/null |
		sed -n 's/.*"cgroup_id":\([0-9]*\).*/\1/p'
}

[ -n "${SLURM_JOB_ID:-}" ] || fail "SLURM_JOB_ID is not set (run as Slurm's Prolog)"
case $SLURM_JOB_ID in '' | *[!0-9]*) fail "SLURM_JOB_ID \"$SLURM_JOB_ID\" is not a number" ;; esac

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

existing=$(job_cgroup_id "$SLURM_JOB_ID")
# shellcheck disable=SC2086
if [ -n "$existing" ] || "$MLTCPCTL" $MLTCPCTL_OPTIONS job show "$SLURM_JOB_ID" >/dev/null 2>&1; then
	[ "$existing" = "$id" ] && exit 0 # this prolog's, from an earlier run
	fail "MLTCP job $SLURM_JOB_ID exists for another cgroup; not replaced"
fi
# shellcheck disable=SC2086
"$MLTCPCTL" $MLTCPCTL_OPTIONS job add "$SLURM_JOB_ID" cgroup "${dir#"$mount"}" $MLTCP_JOB_SETTINGS
mkdir -p "$STATE_DIR"
echo "$id" >"$STATE_DIR/$SLURM_JOB_ID"
