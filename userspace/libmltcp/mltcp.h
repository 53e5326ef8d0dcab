/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmltcp: mark where a training job's steps start, from inside the job's
 * process, without a process of mltcpctl per step.
 *
 * A job made "marked" (mltcpctl job add ID ... marked) counts its
 * iterations at marks, not at idles: each flow of the job starts an
 * iteration at its first send after a mark. A marker is opened once per
 * process (e.g. per rank) in the network namespace the job's flows are in,
 * and marks each step before the step's first byte is sent; each mark
 * returns once the datapath has it.
 *
 * The backend is the one mltcpctl would pick: the tcp_mltcp module (generic
 * netlink; allowed to CAP_NET_ADMIN and to processes in the job's cgroup)
 * or else the BPF twin (its pinned job table; root's).
 *
 * Every function returns 0 or a negative errno; mltcp_error() then holds a
 * one-line message for the calling thread, as mltcpctl would print it. A
 * marker is one thread's at a time; each thread (rank) may open its own.
 */
#ifndef MLTCP_H
#define MLTCP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mltcp_marker;

enum mltcp_backend {
	MLTCP_BACKEND_AUTO = 0, /* the module if loaded, else the BPF twin */
	MLTCP_BACKEND_KMOD = 1,
	MLTCP_BACKEND_BPF = 2,
};

/*
 * Opens a marker of job (1-4294967295) on backend, in the calling thread's
 * network namespace: *marker on success. -EINVAL for a bad job id or
 * backend, -ENODEV if no backend is loaded, -EACCES or -EPERM if this
 * process may not reach it. The job need not exist yet.
 */
int mltcp_marker_open(struct mltcp_marker **marker, uint32_t job, enum mltcp_backend backend);

/*
 * A step of the job starts: returns once the datapath has the mark. step
 * is the step's number, so that the ranks sharing a host (one job table)
 * count each step once between them (the count moves unless step is the
 * one marked last); 0 marks without a number (the count always moves).
 * -ENOENT: the job does not exist (any more).
 */
int mltcp_mark(struct mltcp_marker *marker, uint32_t step);

/* Closes the marker (NULL: nothing). */
void mltcp_marker_close(struct mltcp_marker *marker);

/* The message of the calling thread's last failure ("" if none yet). */
const char *mltcp_error(void);

#ifdef __cplusplus
}
#endif

#endif /* MLTCP_H */
