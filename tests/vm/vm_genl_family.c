// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the "neuron" family the module registers is the one its YNL spec
 * describes (docs/netlink/neuron.yaml; scripts/ynl-check.py ties the spec
 * to <neuron/neuron_genl.h>, which this program is built against): the
 * controller's answer for the family gives its version, its highest
 * attribute, one operation (COUNTERS_GET, with do and dump, unprivileged)
 * and one multicast group ("errors"). Expects the module loaded.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <neuron/neuron_genl.h>

#include "nlraw.h"
#include "vmtest.h"

static struct nlraw_msg req, rep;

/* The controller's GETFAMILY answer for "neuron": its attributes, or NULL. */
static const unsigned char *family(size_t *len)
{
	int fd = nlraw_open();
	ssize_t n;

	if (fd < 0)
		return NULL;
	nlraw_init(&req, GENL_ID_CTRL, NLM_F_REQUEST, 1, CTRL_CMD_GETFAMILY, 1);
	nlraw_put(&req, CTRL_ATTR_FAMILY_NAME, NEURON_GENL_FAMILY_NAME,
		  sizeof(NEURON_GENL_FAMILY_NAME));
	if (nlraw_send(fd, &req, req.len)) {
		close(fd);
		return NULL;
	}
	n = recv(fd, rep.u.buf, sizeof(rep.u.buf), 0);
	close(fd);
	if (n < (ssize_t)(NLMSG_HDRLEN + GENL_HDRLEN) || rep.u.nlh.nlmsg_type == NLMSG_ERROR ||
	    rep.u.nlh.nlmsg_len > (size_t)n)
		return NULL;
	*len = rep.u.nlh.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return rep.u.buf + NLMSG_HDRLEN + GENL_HDRLEN;
}

static uint32_t u32_of(const unsigned char *p, size_t len, uint16_t type, uint32_t none)
{
	const struct nlattr *a = nlraw_find(p, len, type);

	return a ? *(const uint32_t *)nlraw_data(a) : none;
}

static int version_and_attributes(void)
{
	size_t len = 0;
	const unsigned char *p = family(&len);

	VT_ASSERT(p, "the controller does not know family \"%s\"", NEURON_GENL_FAMILY_NAME);
	VT_ASSERT(u32_of(p, len, CTRL_ATTR_VERSION, 0) == NEURON_GENL_VERSION, "version %u",
		  u32_of(p, len, CTRL_ATTR_VERSION, 0));
	VT_ASSERT(u32_of(p, len, CTRL_ATTR_MAXATTR, 0) == NEURON_GENL_A_MAX,
		  "highest attribute %u, the spec's %u", u32_of(p, len, CTRL_ATTR_MAXATTR, 0),
		  NEURON_GENL_A_MAX);
	return 0;
}

/* Walk a nested list attribute @type: @fn on each entry's attributes. */
static int each(const unsigned char *p, size_t len, uint16_t type,
		int (*fn)(const unsigned char *e, size_t elen, void *arg), void *arg)
{
	const struct nlattr *list = nlraw_find(p, len, type);
	const unsigned char *q;
	size_t left;
	int n = 0;

	if (!list)
		return 0;
	q = nlraw_data(list);
	left = list->nla_len - NLA_HDRLEN;
	while (left >= NLA_HDRLEN) {
		const struct nlattr *e = (const struct nlattr *)q;
		size_t el = e->nla_len;

		if (el < NLA_HDRLEN || el > left)
			return -1;
		if (fn(q + NLA_HDRLEN, el - NLA_HDRLEN, arg))
			return -1;
		n++;
		el = NLA_ALIGN(el);
		if (el >= left)
			break;
		q += el;
		left -= el;
	}
	return n;
}

static int op_entry(const unsigned char *e, size_t len, void *arg)
{
	uint32_t *ops = arg;

	ops[0] = u32_of(e, len, CTRL_ATTR_OP_ID, 0);
	ops[1] = u32_of(e, len, CTRL_ATTR_OP_FLAGS, 0);
	return 0;
}

static int operations(void)
{
	uint32_t op[2] = { 0, 0 };
	uint32_t want = GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP;
	size_t len = 0;
	const unsigned char *p = family(&len);
	int n;

	VT_ASSERT(p, "no family");
	n = each(p, len, CTRL_ATTR_OPS, op_entry, op);
	VT_ASSERT(n == 1, "%d operations, the spec has one request (counters-get)", n);
	VT_ASSERT(op[0] == NEURON_GENL_CMD_COUNTERS_GET, "operation %u", op[0]);
	VT_ASSERT((op[1] & (want | GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM)) == want,
		  "counters-get flags %#x: do and dump, unprivileged", op[1]);
	return 0;
}

static int group_entry(const unsigned char *e, size_t len, void *arg)
{
	const struct nlattr *name = nlraw_find(e, len, CTRL_ATTR_MCAST_GRP_NAME);

	if (!name || strcmp(nlraw_data(name), NEURON_GENL_MCGRP_ERRORS))
		return -1;
	(*(int *)arg)++;
	return 0;
}

static int groups(void)
{
	size_t len = 0;
	const unsigned char *p = family(&len);
	int found = 0, n;

	VT_ASSERT(p, "no family");
	n = each(p, len, CTRL_ATTR_MCAST_GROUPS, group_entry, &found);
	VT_ASSERT(n == 1 && found == 1, "%d groups (%d named \"%s\"), the spec has one", n, found,
		  NEURON_GENL_MCGRP_ERRORS);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(version_and_attributes),
		VT_CASE(operations),
		VT_CASE(groups),
	};

	return vt_run("genl-family", cases, VT_COUNT(cases));
}
