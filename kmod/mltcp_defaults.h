/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module parameters: the global defaults of new flows. Namespaces follow
 * them until they set their own (mltcp_sysctl.c); the mode is global.
 */
#ifndef MLTCP_DEFAULTS_H
#define MLTCP_DEFAULTS_H

#include "mltcp_policy.h"

/* The parameter's current value, in the policy's storage units; any context. */
u32 mltcp_default(enum mltcp_param which);

/*
 * fn (NULL: none) is called, under the parameters' lock and without
 * sleeping, after a store lowers slope or intercept: the host's line, the
 * bound of containers' flows, went down. Set by module init and exit; a
 * higher layer's hook, so that this file calls nothing above it.
 */
void mltcp_defaults_on_line_lowered(void (*fn)(void));

#endif /* MLTCP_DEFAULTS_H */
