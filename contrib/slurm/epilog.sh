#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Slurm epilog (slurm.conf: Epilog=/etc/slurm/epilog.d/mltcp.sh): removes
# the MLTCP job the prolog made for this Slurm job, and only that: a job of
# the same id whose cgroup is not the one the prolog recorded is someone
# else's and stays. Nothing recorded (the prolog failed, or ran elsewhere)
# or the job already gone is not an error.
set -eu

conf=${MLTCP_SLURM_CONF:-/etc/mltcp/slurm.conf}
MLTCPCTL=mltcpctl
MLTCPCTL_OPTIONS=
STATE_DIR=/run/mltcp/slurm
# shellcheck disable=SC1090
[ -r "$conf" ] && . "$conf"

[ -n "${SLURM_JOB_ID:-}" ] || { echo "mltcp epilog: SLURM_JOB_ID is not set" >&2; exit 1; }
case $SLURM_JOB_ID in *[!0-9]*) echo "mltcp epilog: SLURM_JOB_ID is not a number" >&2; exit 1 ;; esac

state=$STATE_DIR/$SLURM_JOB_ID
[ -r "$state" ] || exit 0
recorded=$(cat "$state")
rm -f "$state"
# shellcheck disable=SC2086
current=$("$MLTCPCTL" $MLTCPCTL_OPTIONS -j job show "$SLURM_JOB_ID" 2>/dev/null |
	sed -n 's/.*"cgroup_id":\([0-9]*\).*/\1/p')
[ -n "$current" ] && [ "$current" = "$recorded" ] || exit 0
# shellcheck disable=SC2086
if ! out=$("$MLTCPCTL" $MLTCPCTL_OPTIONS job del "$SLURM_JOB_ID" 2>&1); then
	case $out in
	*"no such job"*) exit 0 ;;
	*) echo "mltcp epilog: job $SLURM_JOB_ID: $out" >&2; exit 1 ;;
	esac
fi
