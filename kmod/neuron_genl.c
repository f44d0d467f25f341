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

/*
 * A notification of @cmd for the "errors" group with room for @len bytes of
 * attributes, or NULL when nobody listens or there is no memory (*@hdr set).
 */
static struct sk_buff *neuron_genl_event_new(u8 cmd, size_t len, void **hdr)
{
	struct sk_buff *msg;

	if (neuron_vendor_only() ||
	    !genl_has_listeners(&neuron_genl_family, &init_net, NEURON_GENL_MCGRP_ERRORS_IDX))
		return NULL;
	msg = genlmsg_new(len, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &neuron_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Stamp, close and send a notification; @failed: an attribute did not fit. */
static void neuron_genl_event_send(struct sk_buff *msg, void *hdr, bool failed)
{
	if (failed || nla_put_u64_64bit(msg, NEURON_GENL_A_TIMESTAMP_NS, ktime_get_ns(),
					NEURON_GENL_A_PAD)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	/* -ESRCH when the last listener left meanwhile: nothing to do */
	genlmsg_multicast(&neuron_genl_family, msg, 0, NEURON_GENL_MCGRP_ERRORS_IDX,
			  GFP_KERNEL);
}

/* room for five u32 attributes, the simulated flag and the timestamp */
#define NEURON_GENL_EVENT_LEN \
	(5 * nla_total_size(sizeof(u32)) + nla_total_size(0) + nla_total_size_64bit(sizeof(u64)))

void neuron_genl_error_event(struct neuron_device *nd, u32 nc, u32 kind, u32 code,
			     u32 count)
{
	struct sk_buff *msg;
	void *hdr;

	might_sleep();
	if (!count)
		return;
	msg = neuron_genl_event_new(NEURON_GENL_CMD_ERROR_EVENT, NEURON_GENL_EVENT_LEN, &hdr);
	if (!msg)
		return;
	neuron_genl_event_send(msg, hdr,
			       nla_put_u32(msg, NEURON_GENL_A_DEVICE, nd->index) ||
			       nla_put_u32(msg, NEURON_GENL_A_NC, nc) ||
			       nla_put_u32(msg, NEURON_GENL_A_EVENT_KIND, kind) ||
			       nla_put_u32(msg, NEURON_GENL_A_ERROR_CODE, code) ||
			       nla_put_u32(msg, NEURON_GENL_A_COUNT, count) ||
			       (nd->ops->simulated && nla_put_flag(msg, NEURON_GENL_A_SIMULATED)));
}

void neuron_genl_health_event(struct neuron_device *nd, s32 nc, u32 prev, u32 state,
			      u32 reason)
{
	struct sk_buff *msg;
	void *hdr;

	might_sleep();
	msg = neuron_genl_event_new(NEURON_GENL_CMD_HEALTH_EVENT, NEURON_GENL_EVENT_LEN, &hdr);
	if (!msg)
		return;
	neuron_genl_event_send(msg, hdr,
			       nla_put_u32(msg, NEURON_GENL_A_DEVICE, nd->index) ||
			       (nc >= 0 && nla_put_u32(msg, NEURON_GENL_A_NC, nc)) ||
			       nla_put_u32(msg, NEURON_GENL_A_HEALTH, state) ||
			       nla_put_u32(msg, NEURON_GENL_A_HEALTH_REASON, reason) ||
			       nla_put_u32(msg, NEURON_GENL_A_HEALTH_PREV, prev) ||
			       (nd->ops->simulated && nla_put_flag(msg, NEURON_GENL_A_SIMULATED)));
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
