#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Slurm epilog (slurm.conf: Epilog=/etc/slurm/epilog.d/mltcp.sh): removes
# the MLTCP job the prolog made for this Slurm job (id 2147483648 +
# SLURM_JOB_ID, prolog.sh), and only that: a job of the same id whose
# cgroup is not the one the prolog recorded is someone else's and stays.
# Nothing recorded (the prolog failed, or ran elsewhere) or the job already
# gone is not an error. The record goes only once the job is gone: if
# mltcpctl fails otherwise, the epilog fails (Slurm drains the node) and a
# later run still knows the job, which would else stay in the table for
# good, towards its limit of jobs.
#
# Configuration: /etc/mltcp/slurm.conf, as for the prolog.
set -eu

MLTCPCTL=mltcpctl
MLTCPCTL_OPTIONS=
STATE_DIR=/run/mltcp/slurm
# shellcheck disable=SC1091
[ -r /etc/mltcp/slurm.conf ] && . /etc/mltcp/slurm.conf

fail() {
	echo "mltcp epilog: job ${SLURM_JOB_ID:-?}: $*" >&2
	exit 1
}

[ -n "${SLURM_JOB_ID:-}" ] || fail "SLURM_JOB_ID is not set"
case $SLURM_JOB_ID in
'' | *[!0-9]* | 0*) fail "SLURM_JOB_ID \"$SLURM_JOB_ID\" is not a job id" ;;
esac

state=$STATE_DIR/$SLURM_JOB_ID
[ -r "$state" ] || exit 0
recorded=$(cat "$state")
job=$((2147483648 + SLURM_JOB_ID))

# mltcpctl fails with status 1 whatever the reason; only this message says
# the job does not exist.
gone() {
	case $1 in
	*"job $job: no such job"*) rm -f "$state" ;;
	*) fail "$1" ;;
	esac
}

# shellcheck disable=SC2086
if ! out=$("$MLTCPCTL" $MLTCPCTL_OPTIONS -j job show "$job" 2>&1); then
	gone "$out"
	exit 0
fi
current=$(printf '%s\n' "$out" | sed -n 's/.*"cgroup_id":\([0-9]*\).*/\1/p')
# A reply without a cgroup id is not read as someone else's job.
[ -n "$current" ] || fail "cannot read MLTCP job $job's cgroup: $out"
if [ "$current" != "$recorded" ]; then
	# Ours went, and someone else's took its id.
	rm -f "$state"
	exit 0
fi
# shellcheck disable=SC2086
if ! out=$("$MLTCPCTL" $MLTCPCTL_OPTIONS job del "$job" 2>&1); then
	gone "$out"
	exit 0
fi
rm -f "$state"
