// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters slope, intercept, idle_gap_us, base and mode: the
 * global defaults of new flows. They are read and written as text by the
 * policy (mltcp_param_parse(), mltcp_param_format()), the same forms as
 * net.mltcp.* and mltcpctl; out-of-range values are refused with -EINVAL,
 * at load time and through /sys/module/tcp_mltcp/parameters/, and so is a
 * slope or intercept that would leave both 0 (mltcp_f_line_check()). Only
 * the initial user namespace's root writes them: they are unbounded.
 * Slope and intercept are also the bound of containers' lines: a store of
 * either brings the live flows of bounded namespaces under the line it
 * makes when it lowers either (mltcp_defaults_on_line_lowered()).
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "mltcp_defaults.h"

/* Indexed by enum mltcp_param; each value is written whole by its setter. */
static u32 mltcp_default_values[MLTCP_NR_PARAMS] __read_mostly = {
	[MLTCP_PARAM_SLOPE] = MLTCP_DEFAULT_SLOPE,
	[MLTCP_PARAM_INTERCEPT] = MLTCP_DEFAULT_INTERCEPT,
	[MLTCP_PARAM_IDLE_GAP] = MLTCP_DEFAULT_IDLE_GAP_US,
	[MLTCP_PARAM_BASE] = MLTCP_BASE_CUBIC,
	[MLTCP_PARAM_MODE] = MLTCP_MODE_MD | MLTCP_MODE_RESTART,
};

u32 mltcp_default(enum mltcp_param which)
{
	return READ_ONCE(mltcp_default_values[which]);
}

static void (*mltcp_line_lowered)(void);

void mltcp_defaults_on_line_lowered(void (*fn)(void))
{
	WRITE_ONCE(mltcp_line_lowered, fn);
}

/* Each parameter's arg is its slot in mltcp_default_values. */
static enum mltcp_param mltcp_param_of(const struct kernel_param *kp)
{
	return (u32 *)kp->arg - mltcp_default_values;
}

static int mltcp_param_store(const char *val, const struct kernel_param *kp)
{
	enum mltcp_param which = mltcp_param_of(kp);
	void (*lowered_hook)(void);
	bool lowered;
	u32 value;

	/*
	 * idle_gap_us has always been a uint parameter and keeps accepting
	 * what kstrtouint() does (0x.. and 0.. prefixes, a leading '+'), with
	 * its errors; the range is the core's, as in mltcp_param_parse().
	 */
	if (which == MLTCP_PARAM_IDLE_GAP)
		return param_set_uint_minmax(val, kp, MLTCP_IDLE_GAP_MIN_US,
					     MLTCP_IDLE_GAP_MAX_US);
	if (mltcp_param_parse(which, val, &value))
		return -EINVAL;
	/* Writers are serialised by kernel_param_lock(), or run at load time. */
	if (which == MLTCP_PARAM_SLOPE &&
	    mltcp_f_line_check(value, mltcp_default(MLTCP_PARAM_INTERCEPT), NULL))
		return -EINVAL;
	if (which == MLTCP_PARAM_INTERCEPT &&
	    mltcp_f_line_check(mltcp_default(MLTCP_PARAM_SLOPE), value, NULL))
		return -EINVAL;
	lowered = (which == MLTCP_PARAM_SLOPE || which == MLTCP_PARAM_INTERCEPT) &&
		  value < mltcp_default(which);
	WRITE_ONCE(mltcp_default_values[which], value);
	/* The bound of every container's flows: bring the live ones under it. */
	lowered_hook = READ_ONCE(mltcp_line_lowered);
	if (lowered && lowered_hook)
		lowered_hook();
	return 0;
}

static int mltcp_param_show(char *buffer, const struct kernel_param *kp)
{
	enum mltcp_param which = mltcp_param_of(kp);
	char text[MLTCP_PARAM_TEXT];

	if (mltcp_param_format(which, mltcp_default(which), text, sizeof(text)) < 0)
		return -EINVAL;
	return sysfs_emit(buffer, "%s\n", text);
}

static const struct kernel_param_ops mltcp_param_ops = {
	.set = mltcp_param_store,
	.get = mltcp_param_show,
};

module_param_cb(slope, &mltcp_param_ops, &mltcp_default_values[MLTCP_PARAM_SLOPE], 0644);
MODULE_PARM_DESC(slope, "F(r) = slope * r + intercept: slope, decimal in [0, 16] (default 1.6)");
module_param_cb(intercept, &mltcp_param_ops, &mltcp_default_values[MLTCP_PARAM_INTERCEPT], 0644);
MODULE_PARM_DESC(intercept, "F(r) = slope * r + intercept: intercept, decimal in [0, 16] (default 0.7)");
module_param_cb(idle_gap_us, &mltcp_param_ops, &mltcp_default_values[MLTCP_PARAM_IDLE_GAP], 0644);
MODULE_PARM_DESC(idle_gap_us, "idle time that starts a new iteration, us in [1000, 60000000] (default 20000)");
module_param_cb(base, &mltcp_param_ops, &mltcp_default_values[MLTCP_PARAM_BASE], 0644);
MODULE_PARM_DESC(base, "base algorithm of \"mltcp\": reno or cubic (default cubic)");
module_param_cb(mode, &mltcp_param_ops, &mltcp_default_values[MLTCP_PARAM_MODE], 0644);
MODULE_PARM_DESC(mode, "where F acts: ai (additive increase), md (multiplicative decrease) or both; with -restart the window also restarts at each iteration (default md-restart)");
