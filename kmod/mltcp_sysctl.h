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
 * The bound of net's flows, for mltcp_f_line_check(): NULL for init_net
 * (and, with the module parameter bound_netns=0, for every namespace the
 * initial user namespace owns); else host, filled with the host's line as
 * it is now (the module parameters slope and intercept), for a namespace
 * whose own root can write its sysctls and jobs. Which of the two is fixed
 * for the namespace's life; any context.
 */
const struct mltcp_line *mltcp_net_bound(const struct net *net, struct mltcp_line *host);

/*
 * net's progress priority (net.mltcp.prio_*) copied into *pc; false, and
 * pc untouched, while it is off (no classes). Any context; per ACK.
 */
bool mltcp_net_prio(const struct net *net, struct mltcp_prio_config *pc);

int mltcp_sysctl_init(void);
void mltcp_sysctl_exit(void);

#endif /* MLTCP_SYSCTL_H */
