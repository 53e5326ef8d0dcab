/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-namespace defaults of new flows: the net.mltcp.* sysctls.
 */
#ifndef MLTCP_SYSCTL_H
#define MLTCP_SYSCTL_H

#include <net/net_namespace.h>

#include "mltcp_policy.h"

/*
 * The parameters a new flow of net latches before its job's settings: the
 * namespace's net.mltcp.* values, which follow the module parameters until
 * the namespace writes its own, and the global mode. Any context.
 */
void mltcp_net_defaults(const struct net *net, struct mltcp_params *p);

/*
 * The namespace's flows are bounded (mltcp_f_line_check()): it is owned by
 * a user namespace other than the initial one, whose root can write its
 * sysctls and jobs. Fixed for the namespace's life; any context.
 */
bool mltcp_net_bounded(const struct net *net);

int mltcp_sysctl_init(void);
void mltcp_sysctl_exit(void);

#endif /* MLTCP_SYSCTL_H */
