// SPDX-License-Identifier: GPL-2.0
/*
 * The "neuron" generic netlink family (<neuron/neuron_genl.h>):
 * COUNTERS_GET reads the 24 status counters of every NeuronCore with their
 * live totals (what stats/status/<name>/total shows), and the "errors"
 * group carries one ERROR_EVENT per fault kind a job writes (neuron_job.c)
 * and one HEALTH_EVENT per health change (neuron_health.c).
 *
 * Nothing here is privileged: counters are world-readable in sysfs too, and
 * the group has no admin flag. The family stays in the initial network
 * namespace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <net/genetlink.h>

#include <neuron/neuron_genl.h>

#include "neuron_compat.h"
#include "neuron_core.h"
#include "neuron_device.h"
#include "neuron_counters.h"
#include "neuron_genl_priv.h"
#include "neuron_main.h"
#include "neuron_nds_priv.h"

enum neuron_genl_mcgrp {
	NEURON_GENL_MCGRP_ERRORS_IDX,
};

static const struct genl_multicast_group neuron_genl_mcgrps[] = {
	[NEURON_GENL_MCGRP_ERRORS_IDX] = { .name = NEURON_GENL_MCGRP_ERRORS },
};

/*
 * Requests carry only DEVICE and NC; the rest describe what replies and
 * notifications carry, so a request that sends one gets a type check, not
 * a silent accept of garbage.
 */
static const struct nla_policy neuron_genl_policy[NEURON_GENL_A_MAX + 1] = {
	[NEURON_GENL_A_PAD] = { .type = NLA_REJECT },
	[NEURON_GENL_A_DEVICE] = { .type = NLA_U32 },
	[NEURON_GENL_A_NC] = { .type = NLA_U32 },
	[NEURON_GENL_A_COUNTER] = { .type = NLA_NESTED },
	[NEURON_GENL_A_COUNTER_NAME] = { .type = NLA_NUL_STRING, .len = 64 },
	[NEURON_GENL_A_COUNTER_ID] = { .type = NLA_U32 },
	[NEURON_GENL_A_TOTAL] = { .type = NLA_U64 },
	[NEURON_GENL_A_EVENT_KIND] = NLA_POLICY_RANGE(NLA_U32, 1, NEURON_GENL_EVENT_MAX),
	[NEURON_GENL_A_ERROR_CODE] = { .type = NLA_U32 },
	[NEURON_GENL_A_TIMESTAMP_NS] = { .type = NLA_U64 },
	[NEURON_GENL_A_COUNT] = { .type = NLA_U32 },
	[NEURON_GENL_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, NEURON_HEALTH_MAX),
	[NEURON_GENL_A_HEALTH_REASON] = NLA_POLICY_MAX(NLA_U32, NEURON_HEALTH_REASON_MAX),
	[NEURON_GENL_A_HEALTH_PREV] = NLA_POLICY_MAX(NLA_U32, NEURON_HEALTH_MAX),
	[NEURON_GENL_A_SIMULATED] = { .type = NLA_FLAG },
	[NEURON_GENL_A_ACTION] = NLA_POLICY_MAX(NLA_U32, NEURON_ACTION_MAX),
	[NEURON_GENL_A_PID] = { .type = NLA_U32 },
	[NEURON_GENL_A_COMM] = { .type = NLA_NUL_STRING, .len = TASK_COMM_LEN - 1 },
	[NEURON_GENL_A_SEQ] = { .type = NLA_U64 },
	[NEURON_GENL_A_DROPPED] = { .type = NLA_U64 },
};

static struct genl_family neuron_genl_family;

/* One COUNTERS_GET reply: the status counters of NeuronCore @nc. */
static int neuron_genl_fill_counters(struct sk_buff *skb, struct neuron_device *nd, u32 nc,
				     u32 portid, u32 seq, int flags)
{
	const struct neuron_status_attr *a;
	struct nlattr *nest;
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &neuron_genl_family, flags,
			  NEURON_GENL_CMD_COUNTERS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NEURON_GENL_A_DEVICE, nd->index) ||
	    nla_put_u32(skb, NEURON_GENL_A_NC, nc) ||
	    (nd->ops->simulated && nla_put_flag(skb, NEURON_GENL_A_SIMULATED)))
		goto cancel;
	for (i = 0; i < neuron_status_attr_count(); i++) {
		a = &neuron_status_attrs[i];
		nest = nla_nest_start(skb, NEURON_GENL_A_COUNTER);
		if (!nest)
			goto cancel;
		if (nla_put_string(skb, NEURON_GENL_A_COUNTER_NAME, a->name) ||
		    nla_put_u32(skb, NEURON_GENL_A_COUNTER_ID, a->counter) ||
		    nla_put_u64_64bit(skb, NEURON_GENL_A_TOTAL,
				      neuron_nds_total(nd, nc, a->counter), NEURON_GENL_A_PAD))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int neuron_genl_counters_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct neuron_device *nd;
	struct sk_buff *msg;
	u32 index, nc;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, NEURON_GENL_A_DEVICE) ||
	    GENL_REQ_ATTR_CHECK(info, NEURON_GENL_A_NC))
		return -EINVAL;
	index = nla_get_u32(info->attrs[NEURON_GENL_A_DEVICE]);
	nc = nla_get_u32(info->attrs[NEURON_GENL_A_NC]);

	nd = neuron_device_get(index);
	if (!nd) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NEURON_GENL_A_DEVICE],
				    "no such Neuron device");
		return -ENODEV;
	}
	if (nc >= nd->nc_count) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NEURON_GENL_A_NC],
				    "no such NeuronCore on this device");
		ret = -ENOENT;
		goto out;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = neuron_genl_fill_counters(msg, nd, nc, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG(info->extack, "counters do not fit one message");
		goto out;
	}
	ret = genlmsg_reply(msg, info);
out:
	put_device(&nd->dev);
	return ret;
}

/*
 * Dump state in cb->args: [0] next device index, [1] next NeuronCore on
 * it, [2] device filter + 1 (0: every device), [3] set after the first
 * call. A dump resumed after a full skb starts at exactly the (device,
 * NeuronCore) that did not fit. The filter is checked here rather than in
 * a ->start() callback because only dump callbacks can attach extack text
 * on every kernel we build for (it travels in NLMSG_DONE).
 */
static int neuron_genl_counters_dump_first(struct netlink_callback *cb)
{
	struct nlattr **attrs = neuron_genl_dump_attrs(cb);
	struct nlattr *attr = attrs ? attrs[NEURON_GENL_A_DEVICE] : NULL;
	struct neuron_device *nd;

	cb->args[3] = 1;
	if (!attr)
		return 0;
	nd = neuron_device_get(nla_get_u32(attr));
	if (!nd) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attr, "no such Neuron device");
		return -ENODEV;
	}
	cb->args[0] = nd->index;
	cb->args[2] = (long)nd->index + 1;
	put_device(&nd->dev);
	return 0;
}

static int neuron_genl_counters_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct neuron_device *nd;
	u32 nc;
	int ret;

	if (!cb->args[3]) {
		ret = neuron_genl_counters_dump_first(cb);
		if (ret)
			return ret;
	}
	while ((nd = neuron_device_get_next(cb->args[0]))) {
		if (cb->args[2] && nd->index != cb->args[2] - 1) {
			put_device(&nd->dev);
			break;
		}
		if (nd->index != cb->args[0]) {
			/* the device we stopped at went away: start the next one at nc 0 */
			cb->args[0] = nd->index;
			cb->args[1] = 0;
		}
		for (nc = cb->args[1]; nc < nd->nc_count; nc++) {
			ret = neuron_genl_fill_counters(skb, nd, nc,
							NETLINK_CB(cb->skb).portid,
							cb->nlh->nlmsg_seq, NLM_F_MULTI);
			if (ret) {
				cb->args[1] = nc;
				put_device(&nd->dev);
				return skb->len;
			}
		}
		cb->args[0] = nd->index + 1;
		cb->args[1] = 0;
		put_device(&nd->dev);
	}
	return skb->len;
}

static const struct genl_ops neuron_genl_ops[] = {
	{
		.cmd = NEURON_GENL_CMD_COUNTERS_GET,
		.doit = neuron_genl_counters_doit,
		.dumpit = neuron_genl_counters_dumpit,
	},
};

static struct genl_family neuron_genl_family __ro_after_init = {
	.name = NEURON_GENL_FAMILY_NAME,
	.version = NEURON_GENL_VERSION,
	.maxattr = NEURON_GENL_A_MAX,
	.policy = neuron_genl_policy,
	.module = THIS_MODULE,
	.ops = neuron_genl_ops,
	.n_ops = ARRAY_SIZE(neuron_genl_ops),
	.mcgrps = neuron_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(neuron_genl_mcgrps),
	/* every command: strict attribute and header validation */
	NEURON_GENL_RESV_START_OP(NEURON_GENL_CMD_MAX + 1)
};

/* room for seven u32 attributes, the simulated flag, a name and three u64 */
#define NEURON_GENL_EVENT_LEN							\
	(7 * nla_total_size(sizeof(u32)) + nla_total_size(0) +			\
	 nla_total_size(TASK_COMM_LEN) + 3 * nla_total_size_64bit(sizeof(u64)))

/*
 * A notification of @cmd for the "errors" group of @nd: the device's next
 * sequence number in *@seq, and the message (with room for the attributes)
 * or NULL when nobody listens, the family is hidden, or there is no memory
 * (a drop). *@hdr set with the message.
 */
static struct sk_buff *neuron_genl_event_new(struct neuron_device *nd, u8 cmd, u64 *seq,
					     void **hdr)
{
	struct sk_buff *msg;

	*seq = atomic64_inc_return(&nd->events.seq);
	if (neuron_vendor_only() ||
	    !genl_has_listeners(&neuron_genl_family, &init_net, NEURON_GENL_MCGRP_ERRORS_IDX))
		return NULL;
	msg = genlmsg_new(NEURON_GENL_EVENT_LEN, GFP_KERNEL);
	if (msg) {
		*hdr = genlmsg_put(msg, 0, 0, &neuron_genl_family, 0, cmd);
		if (*hdr)
			return msg;
		nlmsg_free(msg);
	}
	atomic64_inc(&nd->events.dropped);
	return NULL;
}

/*
 * What every event carries after its own attributes: the action, the
 * process (@tgid, NULL: none known) and its name, the device's simulated
 * flag, the sequence number, the drops so far and the time. Nonzero when
 * one did not fit.
 */
static int neuron_genl_event_common(struct sk_buff *msg, struct neuron_device *nd, u32 action,
				    struct pid *tgid, u64 seq)
{
	struct neuron_comm comm;

	if (nla_put_u32(msg, NEURON_GENL_A_ACTION, action) ||
	    (nd->ops->simulated && nla_put_flag(msg, NEURON_GENL_A_SIMULATED)) ||
	    nla_put_u64_64bit(msg, NEURON_GENL_A_SEQ, seq, NEURON_GENL_A_PAD) ||
	    nla_put_u64_64bit(msg, NEURON_GENL_A_DROPPED, atomic64_read(&nd->events.dropped),
			      NEURON_GENL_A_PAD) ||
	    nla_put_u64_64bit(msg, NEURON_GENL_A_TIMESTAMP_NS, ktime_get_ns(), NEURON_GENL_A_PAD))
		return -EMSGSIZE;
	if (tgid && neuron_pid_comm(tgid, &comm) &&
	    (nla_put_u32(msg, NEURON_GENL_A_PID, pid_nr(tgid)) ||
	     nla_put_string(msg, NEURON_GENL_A_COMM, comm.s)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Close and send a notification; @failed: an attribute did not fit. A
 * message not built, or one a listener that asked for delivery errors
 * could not take (-ENOBUFS), is a drop; -ESRCH (the last listener left
 * meanwhile) is not.
 */
static void neuron_genl_event_send(struct neuron_device *nd, struct sk_buff *msg, void *hdr,
				   bool failed)
{
	if (failed) {
		nlmsg_free(msg);
		atomic64_inc(&nd->events.dropped);
		return;
	}
	genlmsg_end(msg, hdr);
	if (genlmsg_multicast(&neuron_genl_family, msg, 0, NEURON_GENL_MCGRP_ERRORS_IDX,
			      GFP_KERNEL) == -ENOBUFS)
		atomic64_inc(&nd->events.dropped);
}

void neuron_genl_error_event(struct neuron_device *nd, u32 nc, u32 kind, u32 code,
			     u32 count, u32 action, struct pid *tgid)
{
	struct sk_buff *msg;
	void *hdr;
	u64 seq;

	might_sleep();
	if (!count)
		return;
	msg = neuron_genl_event_new(nd, NEURON_GENL_CMD_ERROR_EVENT, &seq, &hdr);
	if (!msg)
		return;
	neuron_genl_event_send(nd, msg, hdr,
			       nla_put_u32(msg, NEURON_GENL_A_DEVICE, nd->index) ||
			       nla_put_u32(msg, NEURON_GENL_A_NC, nc) ||
			       nla_put_u32(msg, NEURON_GENL_A_EVENT_KIND, kind) ||
			       nla_put_u32(msg, NEURON_GENL_A_ERROR_CODE, code) ||
			       nla_put_u32(msg, NEURON_GENL_A_COUNT, count) ||
			       neuron_genl_event_common(msg, nd, action, tgid, seq));
}

void neuron_genl_health_event(struct neuron_device *nd, s32 nc, u32 prev, u32 state,
			      u32 reason, u32 action, struct pid *tgid)
{
	struct sk_buff *msg;
	void *hdr;
	u64 seq;

	might_sleep();
	msg = neuron_genl_event_new(nd, NEURON_GENL_CMD_HEALTH_EVENT, &seq, &hdr);
	if (!msg)
		return;
	neuron_genl_event_send(nd, msg, hdr,
			       nla_put_u32(msg, NEURON_GENL_A_DEVICE, nd->index) ||
			       (nc >= 0 && nla_put_u32(msg, NEURON_GENL_A_NC, nc)) ||
			       nla_put_u32(msg, NEURON_GENL_A_HEALTH, state) ||
			       nla_put_u32(msg, NEURON_GENL_A_HEALTH_REASON, reason) ||
			       nla_put_u32(msg, NEURON_GENL_A_HEALTH_PREV, prev) ||
			       neuron_genl_event_common(msg, nd, action, tgid, seq));
}

/* no family at all with vendor_only: the vendor's driver has none */
int __init neuron_genl_init(void)
{
	return neuron_vendor_only() ? 0 : genl_register_family(&neuron_genl_family);
}

void neuron_genl_exit(void)
{
	if (!neuron_vendor_only())
		genl_unregister_family(&neuron_genl_family);
}
