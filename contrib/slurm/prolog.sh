#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Slurm prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/mltcp.sh, with
# PrologFlags=Contain so that the job's cgroup exists when it runs): an
# MLTCP job with the Slurm job's id that matches the job's cgroup, so the
# flows of every step (and their ranks' gradient connections, on whatever
# ports) get MLTCP's settings. The epilog removes it.
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
# shellcheck disable=SC1090
[ -r "$conf" ] && . "$conf"

fail() {
	echo "mltcp prolog: job ${SLURM_JOB_ID:-?}: $*" >&2
	exit 1
}

[ -n "${SLURM_JOB_ID:-}" ] || fail "SLURM_JOB_ID is not set (run as Slurm's Prolog)"
case $SLURM_JOB_ID in *[!0-9]*) fail "SLURM_JOB_ID \"$SLURM_JOB_ID\" is not a number" ;; esac

mount=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$mount" ] || fail "no cgroup2 filesystem mounted (Slurm's cgroup/v2 plugin needs one)"

root=$mount${SLURM_CGROUP_ROOT:+/${SLURM_CGROUP_ROOT#/}}
dir=$root/job_$SLURM_JOB_ID
if [ ! -d "$dir" ]; then
	dir=$(find "$mount" -maxdepth 6 -type d -name "job_$SLURM_JOB_ID" -print -quit 2>/dev/null)
	[ -n "$dir" ] || fail "no cgroup job_$SLURM_JOB_ID under $mount (is PrologFlags=Contain set?)"
fi

# shellcheck disable=SC2086
exec "$MLTCPCTL" $MLTCPCTL_OPTIONS job add "$SLURM_JOB_ID" cgroup "${dir#"$mount"}" $MLTCP_JOB_SETTINGS
