/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "mltcp" generic netlink family: jobs and flows of each namespace.
 */
#ifndef MLTCP_GENL_H
#define MLTCP_GENL_H

int mltcp_genl_init(void);
void mltcp_genl_exit(void);

#endif /* MLTCP_GENL_H */
