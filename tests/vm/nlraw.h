/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw generic netlink for guest test programs (no libnl): resolve a family
 * and its multicast groups through the controller, build requests, read
 * replies and netlink errors. Header-only; used by the fuzzer
 * (tests/vm/hostile/), vm_perms.c and vm_genl_events.c. No allocation: a
 * forked child of a threaded program may use it.
 */
#ifndef NLRAW_H
#define NLRAW_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#define NLRAW_BUF 8192

struct nlraw_msg {
	size_t len;
	union {
		struct nlmsghdr nlh;
		unsigned char buf[NLRAW_BUF];
	} u;
};

static inline int nlraw_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Start a generic netlink message: nlmsghdr + genlmsghdr. */
static inline void nlraw_init(struct nlraw_msg *m, uint16_t type, uint16_t flags, uint32_t seq,
			      uint8_t cmd, uint8_t version)
{
	struct genlmsghdr *g;

	memset(m->u.buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	m->u.nlh.nlmsg_type = type;
	m->u.nlh.nlmsg_flags = flags;
	m->u.nlh.nlmsg_seq = seq;
	g = (struct genlmsghdr *)(m->u.buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = version;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	m->u.nlh.nlmsg_len = (uint32_t)m->len;
}

/* Append an attribute (nla_len as given when @lie_len is nonzero). */
static inline int nlraw_put_raw(struct nlraw_msg *m, uint16_t type, const void *data,
				uint16_t len, uint16_t lie_len)
{
	struct nlattr *a;
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (m->len + total > sizeof(m->u.buf))
		return -1;
	a = (struct nlattr *)(m->u.buf + m->len);
	a->nla_type = type;
	a->nla_len = lie_len ? lie_len : (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	memset((unsigned char *)a + NLA_HDRLEN + len, 0, total - NLA_HDRLEN - len);
	m->len += total;
	m->u.nlh.nlmsg_len = (uint32_t)m->len;
	return 0;
}

static inline int nlraw_put(struct nlraw_msg *m, uint16_t type, const void *data, uint16_t len)
{
	return nlraw_put_raw(m, type, data, len, 0);
}

static inline int nlraw_put_u32(struct nlraw_msg *m, uint16_t type, uint32_t v)
{
	return nlraw_put(m, type, &v, sizeof(v));
}

static inline int nlraw_send(int fd, const struct nlraw_msg *m, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, m->u.buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* Find attribute @type among the attributes at @p..@p+@len; NULL if absent. */
static inline const struct nlattr *nlraw_find(const unsigned char *p, size_t len, uint16_t type)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t al = a->nla_len;

		if (al < NLA_HDRLEN || al > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		al = NLA_ALIGN(al);
		if (al >= len)
			break;
		p += al;
		len -= al;
	}
	return NULL;
}

static inline const void *nlraw_data(const struct nlattr *a)
{
	return (const unsigned char *)a + NLA_HDRLEN;
}

/*
 * Resolve family @name: its id and the id of multicast group @group (0 if
 * @group is NULL or absent). 0, or -errno (-ENOENT: no such family).
 */
static inline int nlraw_resolve(int fd, const char *name, const char *group, uint16_t *id,
				uint32_t *grp)
{
	static __thread struct nlraw_msg m, r;
	const struct nlattr *a, *groups;
	ssize_t n;

	nlraw_init(&m, GENL_ID_CTRL, NLM_F_REQUEST, 1, CTRL_CMD_GETFAMILY, 1);
	nlraw_put(&m, CTRL_ATTR_FAMILY_NAME, name, (uint16_t)(strlen(name) + 1));
	if (nlraw_send(fd, &m, m.len))
		return -errno;
	n = recv(fd, r.u.buf, sizeof(r.u.buf), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < NLMSG_HDRLEN)
		return -EIO;
	if (r.u.nlh.nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(&r.u.nlh);

		return e->error ? e->error : -EIO;
	}
	if (r.u.nlh.nlmsg_len > (size_t)n || r.u.nlh.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EIO;
	a = nlraw_find(r.u.buf + NLMSG_HDRLEN + GENL_HDRLEN,
		       r.u.nlh.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, CTRL_ATTR_FAMILY_ID);
	if (!a)
		return -EIO;
	*id = *(const uint16_t *)nlraw_data(a);
	if (grp)
		*grp = 0;
	if (!group || !grp)
		return 0;
	groups = nlraw_find(r.u.buf + NLMSG_HDRLEN + GENL_HDRLEN,
			    r.u.nlh.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, CTRL_ATTR_MCAST_GROUPS);
	if (groups) {
		const unsigned char *p = nlraw_data(groups);
		size_t len = groups->nla_len - NLA_HDRLEN;

		while (len >= NLA_HDRLEN) {
			const struct nlattr *g = (const struct nlattr *)p;
			const struct nlattr *gn, *gi;
			size_t gl = g->nla_len;

			if (gl < NLA_HDRLEN || gl > len)
				break;
			gn = nlraw_find(p + NLA_HDRLEN, gl - NLA_HDRLEN, CTRL_ATTR_MCAST_GRP_NAME);
			gi = nlraw_find(p + NLA_HDRLEN, gl - NLA_HDRLEN, CTRL_ATTR_MCAST_GRP_ID);
			if (gn && gi && !strcmp((const char *)nlraw_data(gn), group))
				*grp = *(const uint32_t *)nlraw_data(gi);
			gl = NLA_ALIGN(gl);
			if (gl >= len)
				break;
			p += gl;
			len -= gl;
		}
	}
	return 0;
}

/*
 * Read replies to one request until NLMSG_DONE, an NLMSG_ERROR or (for a
 * plain request without NLM_F_ACK) the first data message. Counts data
 * messages in *@msgs. Returns the netlink error (0 for an ACK or DONE with
 * 0), or -errno of recv. Blocking; the caller sets a receive timeout.
 */
static inline int nlraw_collect(int fd, uint32_t seq, int until_done, unsigned int *msgs)
{
	static __thread struct nlraw_msg r;

	*msgs = 0;
	for (;;) {
		ssize_t n = recv(fd, r.u.buf, sizeof(r.u.buf), 0);
		const unsigned char *p = r.u.buf;
		size_t left;

		if (n < 0)
			return -errno;
		left = (size_t)n;
		while (left >= NLMSG_HDRLEN) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)p;

			if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > left)
				return -EIO;
			if (h->nlmsg_seq == seq) {
				if (h->nlmsg_type == NLMSG_ERROR) {
					const struct nlmsgerr *e = NLMSG_DATA(h);

					return e->error;
				}
				if (h->nlmsg_type == NLMSG_DONE) {
					int err = 0;

					if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
						memcpy(&err, NLMSG_DATA(h), sizeof(int));
					return err;
				}
				(*msgs)++;
				if (!until_done)
					return 0;
			}
			if (NLMSG_ALIGN(h->nlmsg_len) >= left)
				break;
			left -= NLMSG_ALIGN(h->nlmsg_len);
			p += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
}

#endif /* NLRAW_H */
