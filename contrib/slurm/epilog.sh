#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Slurm epilog (slurm.conf: Epilog=/etc/slurm/epilog.d/mltcp.sh): removes
# the MLTCP job the prolog made for this Slurm job. A job that is already
# gone is not an error (the prolog may have failed, or run twice).
set -eu

conf=${MLTCP_SLURM_CONF:-/etc/mltcp/slurm.conf}
MLTCPCTL=mltcpctl
MLTCPCTL_OPTIONS=
# shellcheck disable=SC1090
[ -r "$conf" ] && . "$conf"

[ -n "${SLURM_JOB_ID:-}" ] || { echo "mltcp epilog: SLURM_JOB_ID is not set" >&2; exit 1; }

# shellcheck disable=SC2086
if ! out=$("$MLTCPCTL" $MLTCPCTL_OPTIONS job del "$SLURM_JOB_ID" 2>&1); then
	case $out in
	*"no such job"*) exit 0 ;;
	*) echo "mltcp epilog: job $SLURM_JOB_ID: $out" >&2; exit 1 ;;
	esac
fi
