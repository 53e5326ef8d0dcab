// SPDX-License-Identifier: GPL-2.0
/*
 * The net.mltcp.* sysctls: each network namespace's defaults for new flows.
 *
 *   net.mltcp.slope        decimal in [0, 16], e.g. "1.6" (stored in 1/1024)
 *   net.mltcp.intercept    decimal in [0, 16]
 *   net.mltcp.idle_gap_us  integer in [1000, 60000000]
 *   net.mltcp.base         "reno" or "cubic" (flows of "mltcp" only)
 *   net.mltcp.prio_classes progress priority's number of classes K, 0 (off) to 7
 *   net.mltcp.prio_dscp    the classes' DSCPs, class 0's first: "8 16 24 32 40 48 56"
 *   net.mltcp.prio_none_dscp the DSCP a flow gets back when it loses its class
 *
 * A namespace starts with the module parameters' values and follows them
 * until it writes its own, so a parameter change still reaches every
 * namespace that was not tuned on its own. A value out of range or malformed
 * is refused with -EINVAL and changes nothing; nothing is clamped. Like the
 * module parameters, the defaults are latched by each flow when it chooses
 * MLTCP. The mode has no sysctl: it is global.
 *
 * slope and intercept are checked as the line they make with the other one
 * (mltcp_f_line_check()): both 0 is refused with -EINVAL, as a malformed
 * value; in a bounded namespace, a line above the bound is refused with
 * -EPERM. The sysctls are writable by the namespace's own root (its
 * CAP_NET_ADMIN, as every net.* sysctl), so that is where the bound must
 * hold. -EPERM, not -EINVAL: the value is well formed and in range, and the
 * same write succeeds in the host's namespace; what is missing is the
 * privilege, and -EPERM ("Operation not permitted") says that, apart from
 * the -EACCES of the file's mode, so mltcpctl can name the reason.
 *
 * Every namespace but init_net is bounded (the trust model, tcp_mltcp(7)):
 * a namespace owned by the initial user namespace is not the host's either.
 * A Kubernetes pod (hostUsers: true, the default) or a container given
 * CAP_NET_ADMIN has one, and its root writes its net.* sysctls and jobs.
 * The parameter bound_netns=0 leaves such namespaces unbounded, for a host
 * whose namespaces of the initial user namespace are all its own.
 *
 * Progress priority (mltcp_prio_class()) is off until prio_classes is set,
 * and is the namespace's own, with no module parameter: it marks only the
 * namespace's own flows, with codes any of its sockets may set on itself
 * (IP_TOS needs no privilege), so it is not bounded. A write is checked
 * with the other two as one configuration (mltcp_prio_config_valid()):
 * duplicate codes among the classes in use, or a class sharing none_dscp's
 * code, are refused with -EINVAL. Flows read it at each ACK, under RCU.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/user_namespace.h>
#include <net/netns/generic.h>

#include "compat.h"
#include "mltcp_defaults.h"
#include "mltcp_sysctl.h"

/* The tunables a namespace has its own of: those before the mode. */
#define MLTCP_NET_DEFAULTS	MLTCP_PARAM_MODE

/* Room for any valid value and its newline; longer writes are refused. */
#define MLTCP_SYSCTL_TEXT	24

struct mltcp_sysctl_net {
	/*
	 * Indexed by enum mltcp_param, each one word: a value written through
	 * net.mltcp.*, or -1 while the namespace follows the module parameter.
	 */
	int defaults[MLTCP_NET_DEFAULTS];
	/* Not the host's namespace (mltcp_net_is_bounded()); fixed. */
	bool bounded;
	/* Serialises writes of slope and intercept, which are checked as a pair. */
	struct mutex line_lock;
	/* Progress priority; NULL until first written (off, the default codes). */
	struct mltcp_net_prio __rcu *prio;
	struct mutex prio_lock;		/* serialises its writers */
	struct ctl_table_header *header;
	struct ctl_table *table;
};

/* Replaced whole on each write, so a reader never sees half of one. */
struct mltcp_net_prio {
	struct rcu_head rcu;
	struct mltcp_prio_config config;
};

/* The sysctls of progress priority, after the defaults' in the table. */
enum mltcp_prio_knob {
	MLTCP_PRIO_KNOB_CLASSES,
	MLTCP_PRIO_KNOB_DSCP,
	MLTCP_PRIO_KNOB_NONE,
	MLTCP_NR_PRIO_KNOBS,
};

/* Room for seven codes of two digits, their separators and a newline. */
#define MLTCP_PRIO_TEXT		32

static unsigned int mltcp_sysctl_net_id __read_mostly;

/*
 * Read once per namespace, when it is created (or when the module loads,
 * for those that exist): whether a namespace is bounded is fixed for its
 * life, since what its root wrote while it was not would stay written.
 * Hence read-only after load, like a choice of the host's boot
 * configuration (modprobe.d, or tcp_mltcp.bound_netns= on the command line).
 */
static bool bound_netns = true;
module_param(bound_netns, bool, 0444);
MODULE_PARM_DESC(bound_netns, "bound the lines of network namespaces of the initial user namespace too, as every other namespace but the host's (default Y; load time only)");

static struct mltcp_sysctl_net *mltcp_sysctl_pernet(const struct net *net)
{
	return net_generic(net, mltcp_sysctl_net_id);
}

/* The namespace's own value, else the module parameter's. */
static u32 mltcp_net_default(const struct mltcp_sysctl_net *sn, enum mltcp_param which)
{
	int value = READ_ONCE(sn->defaults[which]);

	return value < 0 ? mltcp_default(which) : value;
}

void mltcp_net_defaults(const struct net *net, struct mltcp_params *p)
{
	const struct mltcp_sysctl_net *sn = mltcp_sysctl_pernet(net);

	p->slope = mltcp_net_default(sn, MLTCP_PARAM_SLOPE);
	p->intercept = mltcp_net_default(sn, MLTCP_PARAM_INTERCEPT);
	p->idle_gap_us = mltcp_net_default(sn, MLTCP_PARAM_IDLE_GAP);
	p->base = mltcp_net_default(sn, MLTCP_PARAM_BASE);
	p->mode = mltcp_default(MLTCP_PARAM_MODE);
	p->exempt = 0;
	p->marked = 0;
}

/* The bound of a bounded namespace: the host's line, the module parameters. */
static const struct mltcp_line *mltcp_host_line(struct mltcp_line *host)
{
	host->slope = mltcp_default(MLTCP_PARAM_SLOPE);
	host->intercept = mltcp_default(MLTCP_PARAM_INTERCEPT);
	return host;
}

const struct mltcp_line *mltcp_net_bound(const struct net *net, struct mltcp_line *host)
{
	return mltcp_sysctl_pernet(net)->bounded ? mltcp_host_line(host) : NULL;
}

/*
 * A sysctl's text through proc_dostring(): read, text (the caller's
 * formatting) out; write, the whole value into text, or -EINVAL for a
 * partial (non-zero offset) or oversized write, which changes nothing.
 */
static int mltcp_proc_text(int write, char *text, size_t size, void *buffer, size_t *lenp,
			   loff_t *ppos)
{
	struct ctl_table tmp = { .data = text, .maxlen = size };

	if (write) {
		if (*ppos || *lenp >= size)
			return -EINVAL;
		text[0] = '\0';
	}
	return proc_dostring(&tmp, write, buffer, lenp, ppos);
}

bool mltcp_net_prio(const struct net *net, struct mltcp_prio_config *pc)
{
	const struct mltcp_net_prio *prio;
	bool on = false;

	rcu_read_lock();
	prio = rcu_dereference(mltcp_sysctl_pernet(net)->prio);
	if (prio && prio->config.classes) {
		*pc = prio->config;
		on = true;
	}
	rcu_read_unlock();
	return on;
}

/* The namespace's configuration as it is, for a reader of the sysctls or a writer. */
static void mltcp_prio_current(struct mltcp_sysctl_net *sn, struct mltcp_prio_config *pc)
{
	const struct mltcp_net_prio *prio;

	rcu_read_lock();
	prio = rcu_dereference(sn->prio);
	if (prio)
		*pc = prio->config;
	else
		mltcp_prio_config_default(pc);
	rcu_read_unlock();
}

/* Publishes pc (checked whole) as the namespace's; 0, -EINVAL or -ENOMEM. */
static int mltcp_prio_store(struct mltcp_sysctl_net *sn, const struct mltcp_prio_config *pc)
{
	struct mltcp_net_prio *prio, *old;

	if (!mltcp_prio_config_valid(pc))
		return -EINVAL;
	prio = kzalloc(sizeof(*prio), GFP_KERNEL);
	if (!prio)
		return -ENOMEM;
	prio->config = *pc;
	old = rcu_replace_pointer(sn->prio, prio, lockdep_is_held(&sn->prio_lock));
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static int mltcp_prio_format(enum mltcp_prio_knob knob, const struct mltcp_prio_config *pc,
			     char *buf, u32 len)
{
	if (knob == MLTCP_PRIO_KNOB_DSCP)
		return mltcp_prio_dscp_format(pc, buf, len);
	return snprintf(buf, len, "%u", knob == MLTCP_PRIO_KNOB_CLASSES ?
			pc->classes : pc->none_dscp);
}

/* Text into pc: 0 or -EINVAL (malformed or out of range; checked whole later). */
static int mltcp_prio_parse(enum mltcp_prio_knob knob, const char *text,
			    struct mltcp_prio_config *pc)
{
	u8 value;

	if (knob == MLTCP_PRIO_KNOB_DSCP)
		return mltcp_prio_dscp_parse(text, pc) < 0 ? -EINVAL : 0;
	if (*text == '+' || kstrtou8(text, 10, &value))
		return -EINVAL;
	if (knob == MLTCP_PRIO_KNOB_CLASSES) {
		if (value > MLTCP_PRIO_CLASSES_MAX)
			return -EINVAL;
		pc->classes = value;
	} else {
		pc->none_dscp = value;
	}
	return 0;
}

/*
 * The handler of prio_classes, prio_dscp and prio_none_dscp: table->data is
 * the namespace's struct mltcp_sysctl_net, table->extra1 which knob. A write
 * is refused with -EINVAL, changing nothing, as mltcp_proc_default()'s are,
 * and also when the configuration it would make is not valid.
 */
static int mltcp_proc_prio(MLTCP_CTL_TABLE *table, int write, void *buffer,
			   size_t *lenp, loff_t *ppos)
{
	enum mltcp_prio_knob knob = *(int *)table->extra1;
	struct mltcp_sysctl_net *sn = table->data;
	char text[MLTCP_PRIO_TEXT];
	struct mltcp_prio_config pc;
	int err;

	if (!write) {
		mltcp_prio_current(sn, &pc);
		if (mltcp_prio_format(knob, &pc, text, sizeof(text)) < 0)
			return -EINVAL;
		return mltcp_proc_text(0, text, sizeof(text), buffer, lenp, ppos);
	}

	err = mltcp_proc_text(1, text, sizeof(text), buffer, lenp, ppos);
	if (err)
		return err;
	mutex_lock(&sn->prio_lock);
	mltcp_prio_current(sn, &pc);
	err = mltcp_prio_parse(knob, text, &pc);
	if (!err)
		err = mltcp_prio_store(sn, &pc);
	mutex_unlock(&sn->prio_lock);
	return err;
}

/*
 * Stores slope or intercept if the line it makes with the namespace's
 * other one is allowed there: 0, -EINVAL (F would be 0) or -EPERM (above
 * the bound of a bounded namespace).
 */
static int mltcp_store_line(struct mltcp_sysctl_net *sn, enum mltcp_param which, u32 value)
{
	struct mltcp_line host;
	u32 slope, intercept;
	int err = 0;

	mutex_lock(&sn->line_lock);
	slope = which == MLTCP_PARAM_SLOPE ? value : mltcp_net_default(sn, MLTCP_PARAM_SLOPE);
	intercept = which == MLTCP_PARAM_INTERCEPT ? value :
		    mltcp_net_default(sn, MLTCP_PARAM_INTERCEPT);
	switch (mltcp_f_line_check(slope, intercept, sn->bounded ? mltcp_host_line(&host) : NULL)) {
	case MLTCP_JOB_OK:
		WRITE_ONCE(sn->defaults[which], value);
		break;
	case MLTCP_JOB_E_BOUND:
		err = -EPERM;
		break;
	default:
		err = -EINVAL;
		break;
	}
	mutex_unlock(&sn->line_lock);
	return err;
}

/*
 * One handler for the four defaults; table->data points to the namespace's
 * slot, table->extra1 to which tunable it is. Text in and out in the
 * policy's forms (as the module parameters): "1.6", read back "1.600", for
 * slope and intercept, an integer for the idle gap, a name for the base. A
 * value malformed or out of range, a partial write (non-zero offset) or an
 * oversized one is refused with -EINVAL and changes nothing.
 */
static int mltcp_proc_default(MLTCP_CTL_TABLE *table, int write, void *buffer,
			      size_t *lenp, loff_t *ppos)
{
	enum mltcp_param which = *(int *)table->extra1;
	int *slot = table->data;
	struct mltcp_sysctl_net *sn = container_of(slot - which, struct mltcp_sysctl_net,
						   defaults[0]);
	char text[MLTCP_SYSCTL_TEXT];
	const char *number = text;
	u32 value;
	int err;

	if (!write) {
		if (mltcp_param_format(which, mltcp_net_default(sn, which), text,
				       sizeof(text)) < 0)
			return -EINVAL;
		return mltcp_proc_text(0, text, sizeof(text), buffer, lenp, ppos);
	}

	err = mltcp_proc_text(1, text, sizeof(text), buffer, lenp, ppos);
	if (err)
		return err;
	/* The idle gap was read with kstrtou32(), which takes a leading '+'. */
	if (which == MLTCP_PARAM_IDLE_GAP && *number == '+')
		number++;
	if (mltcp_param_parse(which, number, &value))
		return -EINVAL;
	if (which == MLTCP_PARAM_SLOPE || which == MLTCP_PARAM_INTERCEPT)
		return mltcp_store_line(sn, which, value);
	WRITE_ONCE(sn->defaults[which], value);
	return 0;
}

static int mltcp_sysctl_index[MLTCP_NET_DEFAULTS] = {
	MLTCP_PARAM_SLOPE, MLTCP_PARAM_INTERCEPT, MLTCP_PARAM_IDLE_GAP, MLTCP_PARAM_BASE,
};

static int mltcp_prio_index[MLTCP_NR_PRIO_KNOBS] = {
	MLTCP_PRIO_KNOB_CLASSES, MLTCP_PRIO_KNOB_DSCP, MLTCP_PRIO_KNOB_NONE,
};

static const char *const mltcp_prio_names[MLTCP_NR_PRIO_KNOBS] = {
	"prio_classes", "prio_dscp", "prio_none_dscp",
};

#define MLTCP_SYSCTL(which) {					\
	.maxlen = sizeof(int),					\
	.mode = 0644,						\
	.proc_handler = mltcp_proc_default,			\
	.extra1 = &mltcp_sysctl_index[which],			\
}

#define MLTCP_SYSCTL_PRIO(knob) {				\
	.maxlen = MLTCP_PRIO_TEXT,				\
	.mode = 0644,						\
	.proc_handler = mltcp_proc_prio,			\
	.extra1 = &mltcp_prio_index[knob],			\
}

#define MLTCP_NR_SYSCTLS	(MLTCP_NET_DEFAULTS + MLTCP_NR_PRIO_KNOBS)

/*
 * In enum mltcp_param order, entry i serving defaults[i], then progress
 * priority's in enum mltcp_prio_knob order; names and data set at init.
 */
static const struct ctl_table mltcp_sysctl_template[] = {
	MLTCP_SYSCTL(MLTCP_PARAM_SLOPE),
	MLTCP_SYSCTL(MLTCP_PARAM_INTERCEPT),
	MLTCP_SYSCTL(MLTCP_PARAM_IDLE_GAP),
	MLTCP_SYSCTL(MLTCP_PARAM_BASE),
	MLTCP_SYSCTL_PRIO(MLTCP_PRIO_KNOB_CLASSES),
	MLTCP_SYSCTL_PRIO(MLTCP_PRIO_KNOB_DSCP),
	MLTCP_SYSCTL_PRIO(MLTCP_PRIO_KNOB_NONE),
	{ }
};

/* Everyone's but the host's; with bound_netns=0, those of other user namespaces. */
static bool mltcp_net_is_bounded(const struct net *net)
{
	if (net_eq(net, &init_net))
		return false;
	return bound_netns || net->user_ns != &init_user_ns;
}

static int __net_init mltcp_sysctl_net_init(struct net *net)
{
	struct mltcp_sysctl_net *sn = mltcp_sysctl_pernet(net);
	struct ctl_table *table;
	int i;

	table = kmemdup(mltcp_sysctl_template, sizeof(mltcp_sysctl_template), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < MLTCP_NET_DEFAULTS; i++) {
		sn->defaults[i] = -1;	/* follow the module parameter */
		table[i].procname = mltcp_param_name(i);
		table[i].data = &sn->defaults[i];
	}
	for (i = 0; i < MLTCP_NR_PRIO_KNOBS; i++) {
		table[MLTCP_NET_DEFAULTS + i].procname = mltcp_prio_names[i];
		table[MLTCP_NET_DEFAULTS + i].data = sn;
	}
	sn->bounded = mltcp_net_is_bounded(net);
	mutex_init(&sn->line_lock);
	mutex_init(&sn->prio_lock);
	RCU_INIT_POINTER(sn->prio, NULL);
	sn->header = mltcp_register_net_sysctl(net, "net/mltcp", table, MLTCP_NR_SYSCTLS);
	if (!sn->header) {
		kfree(table);
		return -ENOMEM;
	}
	sn->table = table;
	return 0;
}

static void __net_exit mltcp_sysctl_net_exit(struct net *net)
{
	struct mltcp_sysctl_net *sn = mltcp_sysctl_pernet(net);

	struct mltcp_net_prio *prio = rcu_dereference_protected(sn->prio, true);

	unregister_net_sysctl_table(sn->header);
	kfree(sn->table);
	if (prio)
		kfree_rcu(prio, rcu);
}

static struct pernet_operations mltcp_sysctl_net_ops = {
	.init = mltcp_sysctl_net_init,
	.exit = mltcp_sysctl_net_exit,
	.id = &mltcp_sysctl_net_id,
	.size = sizeof(struct mltcp_sysctl_net),
};

int mltcp_sysctl_init(void)
{
	return register_pernet_subsys(&mltcp_sysctl_net_ops);
}

void mltcp_sysctl_exit(void)
{
	unregister_pernet_subsys(&mltcp_sysctl_net_ops);
}
