// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: generic netlink requests (dumps, judged do-requests,
 * unknown commands, random attributes, malformed headers) and multicast
 * joins.
 */
#include "hostile.h"

static int nl_sock(struct ts *t)
{
	int one = 1;

	if (t->nl >= 0)
		return t->nl;
	t->nl = nlraw_open();
	t->nl_small = 0;
	t->nl_joined = 0;
	if (t->nl < 0)
		return -1;
	if (chance(t, 100)) {
		int sz = 256 + (int)below(t, 2048);

		setsockopt(t->nl, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		t->nl_small = 1;
	}
	if (chance(t, 300))
		setsockopt(t->nl, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (chance(t, 200))
		setsockopt(t->nl, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return t->nl;
}

static void nl_drain(struct ts *t, int max)
{
	int i;

	for (i = 0; i < max; i++)
		if (recv(t->nl, t->io, sizeof(t->io), MSG_DONTWAIT) < 0 && errno != ENOBUFS)
			break;
}

/*
 * The answer to request @seq, already queued (generic netlink answers in
 * the sender's context): 0 and its error in *@err, -1 if nothing came, -2
 * if the socket overran (no judgement possible).
 */
static int nl_answer(struct ts *t, uint32_t seq, int *err, unsigned int *data)
{
	int i;

	*data = 0;
	for (i = 0; i < 64; i++) {
		ssize_t n = recv(t->nl, t->io, sizeof(t->io), MSG_DONTWAIT);
		const unsigned char *p = t->io;
		size_t left;

		if (n < 0)
			return errno == ENOBUFS ? -2 : -1;
		left = (size_t)n;
		while (left >= NLMSG_HDRLEN) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)p;

			if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > left)
				break;
			if (h->nlmsg_seq == seq) {
				if (h->nlmsg_type == NLMSG_ERROR) {
					*err = -((const struct nlmsgerr *)NLMSG_DATA(h))->error;
					return 0;
				}
				(*data)++;
			}
			if (NLMSG_ALIGN(h->nlmsg_len) >= left)
				break;
			left -= NLMSG_ALIGN(h->nlmsg_len);
			p += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
	return -1;
}

static int dev_present(uint32_t idx)
{
	int d;

	for (d = 0; d < g_ndev; d++)
		if ((uint32_t)g_dev_index[d] == idx)
			return d;
	return -1;
}

int op_genl(struct ts *t)
{
	struct nlraw_msg *m = &t->nm;
	uint32_t seq = ++t->nlseq, dev, nc;
	int fd = nl_sock(t), exp = -1, err = 0, r, i, dump, has_dev, has_nc, d;
	unsigned int data;
	char what[96];

	if (fd < 0)
		return 0;
	if (!g_family)
		return 0;
	switch (below(t, 8)) {
	case 0:	/* dump, maybe filtered, read partly (the rest stays in progress) */
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_DUMP, seq, NEURON_GENL_CMD_COUNTERS_GET, 1);
		if (chance(t, 400))
			nlraw_put_u32(m, NEURON_GENL_A_DEVICE, chance(t, 800) ? (uint32_t)g_dev_index[below(t, g_ndev)] : below(t, 100));
		r = nlraw_send(fd, m, m->len);
		nl_drain(t, below(t, 4));
		return r == 0;
	case 1:	/* do: documented errors */
		has_dev = chance(t, 850);
		has_nc = chance(t, 850);
		dev = chance(t, 700) ? (uint32_t)g_dev_index[below(t, g_ndev)] :
				      (chance(t, 500) ? 63 + below(t, 100) : 0xffffffffu);
		d = dev_present(dev);
		nc = chance(t, 700) && d >= 0 ? below(t, g_nc[d]) : (chance(t, 500) ? 8 : 0xffffffffu);
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_ACK, seq, NEURON_GENL_CMD_COUNTERS_GET,
			   (uint8_t)below(t, 3));
		if (has_nc && chance(t, 500))
			nlraw_put_u32(m, NEURON_GENL_A_NC, nc);
		if (has_dev)
			nlraw_put_u32(m, NEURON_GENL_A_DEVICE, dev);
		if (has_nc && !nlraw_find(m->u.buf + NLMSG_HDRLEN + GENL_HDRLEN, m->len - NLMSG_HDRLEN - GENL_HDRLEN, NEURON_GENL_A_NC))
			nlraw_put_u32(m, NEURON_GENL_A_NC, nc);
		if (!has_dev || !has_nc)
			exp = EINVAL;
		else if (d < 0)
			exp = ENODEV;
		else if (nc >= g_nc[d])
			exp = ENOENT;
		else
			exp = 0;
		snprintf(what, sizeof(what), "COUNTERS_GET do%s%s device %u nc %u", has_dev ? "" : " without DEVICE",
			 has_nc ? "" : " without NC", dev, nc);
		break;
	case 2:	/* no such command: nothing to clear, nothing else to call */
		i = (int)below(t, 4);
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_ACK, seq,
			   (uint8_t)(i == 0 ? NEURON_GENL_CMD_UNSPEC : i == 1 ? NEURON_GENL_CMD_ERROR_EVENT :
				     3 + below(t, 253)), 1);
		if (chance(t, 500))
			nlraw_put_u32(m, NEURON_GENL_A_DEVICE, 0);
		exp = EOPNOTSUPP;
		snprintf(what, sizeof(what), "command %u", ((struct genlmsghdr *)(m->u.buf + NLMSG_HDRLEN))->cmd);
		break;
	case 3: {	/* random attributes, answered one way or another */
		int na = (int)below(t, 7);

		dump = chance(t, 300);
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0), seq,
			   chance(t, 800) ? NEURON_GENL_CMD_COUNTERS_GET : (uint8_t)below(t, 256),
			   (uint8_t)below(t, 256));
		for (i = 0; i < na; i++) {
			uint16_t type = (uint16_t)below(t, NEURON_GENL_A_MAX + 4);
			uint16_t len = (uint16_t)(chance(t, 500) ? 4 * below(t, 3) : below(t, 80));
			unsigned char v[80];
			uint32_t j;

			if (chance(t, 100))
				type |= NLA_F_NESTED;
			for (j = 0; j < len; j++)
				v[j] = (unsigned char)rnd(t);
			if (chance(t, 50))
				nlraw_put_raw(m, type, v, len, (uint16_t)below(t, 200));
			else
				nlraw_put(m, type, v, len);
		}
		if (dump) {
			r = nlraw_send(fd, m, m->len);
			nl_drain(t, 200);
			return r == 0;
		}
		exp = -2;	/* any answer */
		snprintf(what, sizeof(what), "request with %d random attributes", na);
		break;
	}
	case 4: {	/* a malformed header: length lies, flags random */
		size_t len = NLMSG_HDRLEN + below(t, 64);

		nlraw_init(m, chance(t, 800) ? g_family : GENL_ID_CTRL, (uint16_t)rnd(t), seq,
			   (uint8_t)below(t, 8), 1);
		for (i = NLMSG_HDRLEN; i < (int)len; i++)
			m->u.buf[i] = (unsigned char)rnd(t);
		m->u.nlh.nlmsg_len = chance(t, 500) ? (uint32_t)len : (uint32_t)below(t, 300);
		r = nlraw_send(fd, m, len);
		nl_drain(t, 50);
		return r == 0;
	}
	case 5: {	/* the controller describes our policy (dump) */
		uint16_t fam = g_family;

		nlraw_init(m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP, seq,
			   chance(t, 700) ? CTRL_CMD_GETPOLICY : CTRL_CMD_GETFAMILY, 1);
		if (chance(t, 800))
			nlraw_put(m, CTRL_ATTR_FAMILY_ID, &fam, sizeof(fam));
		r = nlraw_send(fd, m, m->len);
		nl_drain(t, 500);
		return r == 0;
	}
	case 6:	/* close the socket, possibly in the middle of a dump */
		close(fd);
		t->nl = -1;
		return 1;
	default:	/* a plain valid dump, read to its end */
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_DUMP, seq, NEURON_GENL_CMD_COUNTERS_GET, 1);
		r = nlraw_send(fd, m, m->len);
		nl_drain(t, 500);
		return r == 0;
	}

	/* a judged request: nothing else queued first */
	nl_drain(t, 10000);
	if (nlraw_send(fd, m, m->len))
		return 0;
	r = nl_answer(t, seq, &err, &data);
	if (r == -2 || t->nl_small)
		return r == 0;
	judged(V_GENL);
	if (r < 0) {
		viol(t, V_GENL, "%s: no answer", what);
		return 0;
	}
	/* with devices coming and going, which ones exist is not known here */
	if (g_removal && exp != EINVAL && exp != EOPNOTSUPP && exp != -2 &&
	    (err == 0 || err == ENODEV || err == ENOENT))
		exp = err;
	if (exp >= 0 && err != exp)
		viol(t, V_GENL, "%s: got %s, documented %s", what, ename(err), ename(exp));
	if (exp == 0 && err == 0 && data != 1)
		viol(t, V_GENL, "%s: %u replies, expected 1", what, data);
	return err == 0;
}

int op_genl_mcast(struct ts *t)
{
	int fd = nl_sock(t);
	uint32_t grp = g_errors_grp;

	if (fd < 0)
		return 0;
	if (chance(t, 100))
		grp = chance(t, 500) ? 0xffff : below(t, 64);
	if (!t->nl_joined || grp != g_errors_grp) {
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
			return 0;
		t->nl_joined = grp == g_errors_grp;
		return 1;
	}
	if (chance(t, 300)) {
		t->nl_joined = 0;
		return setsockopt(fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &grp, sizeof(grp)) == 0;
	}
	nl_drain(t, 16);
	return 1;
}
