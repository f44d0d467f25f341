// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: what every netlink error event carries besides its fault (the
 * "errors" group of the "neuron" family, docs/recovery.md): the error
 * class's recovery action, the job's process (pid and name), the
 * device's sequence number, and the count of events not delivered, in
 * the stream itself; and the device's count of them in sysfs, which wakes
 * a poll()er. Runs its own jobs (SIM_EXEC) on NeuronCore 0 of
 * device 0 after arming faults through debugfs; expects the module loaded
 * with simulated devices and nothing else running jobs there.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <neuron/neuron_genl.h>
#include <neuron/neuron_ioctl.h>

#include "nlraw.h"
#include "vmdev.h"
#include "vmtest.h"

#ifndef NETLINK_BROADCAST_ERROR
#define NETLINK_BROADCAST_ERROR	4
#endif

/* one event as received */
struct ev {
	uint32_t kind, code, count, action, pid;
	int has_pid;
	char comm[16];
	uint64_t seq, dropped;
};

/* A listener on the "errors" group; @rcvbuf 0: the default buffer. */
static int listen_errors(int rcvbuf)
{
	uint16_t id;
	uint32_t grp;
	int fd = nlraw_open(), one = 1;
	struct timeval tv = { .tv_sec = 10 };

	if (fd < 0)
		return -1;
	if (nlraw_resolve(fd, NEURON_GENL_FAMILY_NAME, NEURON_GENL_MCGRP_ERRORS, &id, &grp) ||
	    !grp || setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_BROADCAST_ERROR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))) {
		close(fd);
		return -1;
	}
	return fd;
}

static uint64_t u64_attr(const unsigned char *p, size_t len, uint16_t type, int *missing)
{
	const struct nlattr *a = nlraw_find(p, len, type);
	uint64_t v = 0;

	if (!a || a->nla_len != NLA_HDRLEN + 8) {
		(*missing)++;
		return 0;
	}
	memcpy(&v, nlraw_data(a), sizeof(v));
	return v;
}

static uint32_t u32_attr(const unsigned char *p, size_t len, uint16_t type, int *missing)
{
	const struct nlattr *a = nlraw_find(p, len, type);
	uint32_t v = 0;

	if (!a || a->nla_len != NLA_HDRLEN + 4) {
		(*missing)++;
		return 0;
	}
	memcpy(&v, nlraw_data(a), sizeof(v));
	return v;
}

/*
 * The next ERROR_EVENT on @fd into @e: 1, 0 when the receive timed out,
 * -ENOBUFS when the socket overran (the caller reads on), -1 on a
 * malformed event (an attribute every event carries is missing), -2 on a
 * HEALTH_EVENT (it takes a number of the device's sequence too: nothing
 * here changes a device's health, so one means the test's premise broke).
 */
static int next_event(int fd, struct ev *e)
{
	static struct nlraw_msg r;
	const unsigned char *p;
	const struct nlattr *a;
	struct genlmsghdr *g;
	int missing = 0;
	size_t len;
	ssize_t n;

	for (;;) {
		n = recv(fd, r.u.buf, sizeof(r.u.buf), 0);
		if (n < 0)
			return errno == ENOBUFS ? -ENOBUFS : 0;
		if ((size_t)n < NLMSG_HDRLEN + GENL_HDRLEN || r.u.nlh.nlmsg_len > (size_t)n)
			return -1;
		g = (struct genlmsghdr *)(r.u.buf + NLMSG_HDRLEN);
		if (g->cmd == NEURON_GENL_CMD_HEALTH_EVENT)
			return -2;
		if (g->cmd == NEURON_GENL_CMD_ERROR_EVENT)
			break;
	}
	p = r.u.buf + NLMSG_HDRLEN + GENL_HDRLEN;
	len = r.u.nlh.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	memset(e, 0, sizeof(*e));
	e->kind = u32_attr(p, len, NEURON_GENL_A_EVENT_KIND, &missing);
	e->code = u32_attr(p, len, NEURON_GENL_A_ERROR_CODE, &missing);
	e->count = u32_attr(p, len, NEURON_GENL_A_COUNT, &missing);
	e->action = u32_attr(p, len, NEURON_GENL_A_ACTION, &missing);
	e->seq = u64_attr(p, len, NEURON_GENL_A_SEQ, &missing);
	e->dropped = u64_attr(p, len, NEURON_GENL_A_DROPPED, &missing);
	a = nlraw_find(p, len, NEURON_GENL_A_PID);
	if (a) {
		e->has_pid = 1;
		e->pid = u32_attr(p, len, NEURON_GENL_A_PID, &missing);
	}
	a = nlraw_find(p, len, NEURON_GENL_A_COMM);
	if (a && a->nla_len > NLA_HDRLEN)
		snprintf(e->comm, sizeof(e->comm), "%.*s", (int)(a->nla_len - NLA_HDRLEN),
			 (const char *)nlraw_data(a));
	return missing ? -1 : 1;
}

/* Arm @what on NeuronCore 0 of device 0 (debugfs) and run one job there. */
static int arm_and_run(int dev, const char *knob, const char *what)
{
	struct neuron_sim_exec x;

	if (vt_dbg_write(0, knob, what))
		return -1;
	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.nc = 0;
	return ioctl(dev, NEURON_IOCTL_SIM_EXEC, &x);
}

/*
 * One job with three fault kinds: three events in the job's order (TPB
 * types by number, then hardware faults), each with its class's action,
 * this process, and consecutive sequence numbers; nothing dropped between.
 */
static int fields(void)
{
	int fd = listen_errors(0), dev = vt_open_dev(0), i;
	static const struct {
		uint32_t kind, code, count, action;
	} want[] = {
		{ NEURON_GENL_EVENT_TPB_ERROR, 1 /* FP_NAN */, 1, NEURON_ACTION_NONE },
		{ NEURON_GENL_EVENT_TPB_ERROR, 6 /* SEMAPHORE_ERROR */, 2, NEURON_ACTION_RESTART_JOB },
		{ NEURON_GENL_EVENT_HW_ERROR, 5 /* repairable_hbm_ue */, 1,
		  NEURON_ACTION_REBOOT_INSTANCE },
	};
	struct ev e[3];

	VT_ASSERT(fd >= 0 && dev >= 0, "listener %d, device %d: %s", fd, dev, strerror(errno));
	VT_ASSERT(!vt_dbg_write(0, "inject/tpb_error", "0 SEMAPHORE_ERROR 2") &&
		  !vt_dbg_write(0, "inject/hw_error", "0 repairable_hbm_ue"),
		  "arm: %s", strerror(errno));
	VT_ASSERT(arm_and_run(dev, "inject/tpb_error", "0 FP_NAN") == 0, "job: %s",
		  strerror(errno));
	for (i = 0; i < 3; i++) {
		int r = next_event(fd, &e[i]);

		VT_ASSERT(r == 1, "event %d of 3: %s", i,
			  r == -2 ? "a health event came between" : "missing or malformed");
		VT_ASSERT(e[i].kind == want[i].kind && e[i].code == want[i].code &&
			  e[i].count == want[i].count,
			  "event %d: kind %u code %u count %u, want %u %u %u", i, e[i].kind,
			  e[i].code, e[i].count, want[i].kind, want[i].code, want[i].count);
		VT_ASSERT(e[i].action == want[i].action, "event %d: action %u, want %u", i,
			  e[i].action, want[i].action);
		VT_ASSERT(e[i].has_pid && e[i].pid == (uint32_t)getpid() &&
			  !strcmp(e[i].comm, "vm_genl_events"),
			  "event %d: pid %u comm '%s', want %d vm_genl_events", i, e[i].pid,
			  e[i].comm, (int)getpid());
		VT_ASSERT(i == 0 || (e[i].seq == e[i - 1].seq + 1 && e[i].dropped == e[0].dropped),
			  "event %d: seq %llu dropped %llu after seq %llu dropped %llu", i,
			  (unsigned long long)e[i].seq, (unsigned long long)e[i].dropped,
			  (unsigned long long)e[i - 1].seq, (unsigned long long)e[0].dropped);
	}
	/* no more events lost than the device had before this one */
	VT_ASSERT(e[0].dropped < e[0].seq, "dropped %llu before seq %llu",
		  (unsigned long long)e[0].dropped, (unsigned long long)e[0].seq);
	close(fd);
	close(dev);
	return 0;
}

#define DROP_JOBS	64

/*
 * A listener that asked for delivery errors, with the smallest receive
 * buffer, reads nothing while DROP_JOBS jobs each send one event: some
 * are not delivered. Read back, the events it got have rising sequence
 * numbers with gaps; one more event afterwards says, in "dropped", exactly
 * how many the gaps add up to.
 */
static int drops_in_stream(void)
{
	int fd = listen_errors(1), dev = vt_open_dev(0), got = 0, overruns = 0, r, i;
	uint64_t first = 0, last = 0, dropped0 = 0, missing;
	struct ev e;

	VT_ASSERT(fd >= 0 && dev >= 0, "listener %d, device %d: %s", fd, dev, strerror(errno));
	for (i = 0; i < DROP_JOBS; i++)
		VT_ASSERT(arm_and_run(dev, "inject/tpb_error", "0 FP_INF") == 0, "job %d: %s", i,
			  strerror(errno));
	/* what the buffer kept: the short receive timeout ends the read */
	{
		struct timeval tv = { .tv_usec = 200000 };

		VT_ASSERT(!setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "timeout");
	}
	while ((r = next_event(fd, &e)) != 0) {
		if (r == -ENOBUFS) {
			overruns++;
			continue;
		}
		VT_ASSERT(r == 1, "%s", r == -2 ? "a health event came between" : "malformed event");
		VT_ASSERT(!got || e.seq > last, "seq %llu after %llu", (unsigned long long)e.seq,
			  (unsigned long long)last);
		if (!got) {
			first = e.seq;
			dropped0 = e.dropped;
		}
		last = e.seq;
		got++;
	}
	VT_ASSERT(got > 0 && got < DROP_JOBS,
		  "%d of %d events delivered: the buffer should keep some, not all", got, DROP_JOBS);
	VT_ASSERT(overruns > 0, "no ENOBUFS on the overrun socket");
	/* the buffer is empty: the next event arrives, and counts the others */
	VT_ASSERT(arm_and_run(dev, "inject/tpb_error", "0 FP_INF") == 0, "last job: %s",
		  strerror(errno));
	{
		struct timeval tv = { .tv_sec = 10 };

		VT_ASSERT(!setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "timeout");
	}
	r = next_event(fd, &e);
	VT_ASSERT(r == 1, "the event after the drain: %s",
		  r == -2 ? "a health event came between" : "missing or malformed");
	missing = (e.seq - first + 1) - (uint64_t)(got + 1);
	VT_ASSERT(e.seq == first + DROP_JOBS, "last seq %llu, first %llu, %d jobs after it",
		  (unsigned long long)e.seq, (unsigned long long)first, DROP_JOBS);
	VT_ASSERT(e.dropped - dropped0 == missing,
		  "dropped went %llu -> %llu, the sequence is missing %llu",
		  (unsigned long long)dropped0, (unsigned long long)e.dropped,
		  (unsigned long long)missing);
	close(fd);
	close(dev);
	return 0;
}

/*
 * stats/hardware/health_status/hw_error_events counts the device's
 * NEURON_HW_ERR events and wakes a poll()er on each: a job's DMA abort is
 * one more.
 */
static int hw_error_events_notify(void)
{
	char path[256], buf[32];
	int fd, dev = vt_open_dev(0), ret;
	unsigned long long before, after;
	struct pollfd pfd;

	snprintf(path, sizeof(path), VT_SYSFS_DEV "/stats/hardware/health_status/hw_error_events",
		 0);
	fd = open(path, O_RDONLY);
	VT_ASSERT(fd >= 0 && dev >= 0, "open %s: %s", path, strerror(errno));
	memset(buf, 0, sizeof(buf));
	VT_ASSERT(read(fd, buf, sizeof(buf) - 1) > 0, "prime read");
	before = strtoull(buf, NULL, 10);
	VT_ASSERT(arm_and_run(dev, "inject/hw_error", "0 dma_abort") == 0, "job: %s",
		  strerror(errno));
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI | POLLERR };
	ret = poll(&pfd, 1, 10000);
	VT_ASSERT(ret == 1 && (pfd.revents & (POLLPRI | POLLERR)), "poll: %d revents %x", ret,
		  pfd.revents);
	memset(buf, 0, sizeof(buf));
	VT_ASSERT(pread(fd, buf, sizeof(buf) - 1, 0) > 0, "read after");
	after = strtoull(buf, NULL, 10);
	VT_ASSERT(after == before + 1, "hw_error_events %llu -> %llu for one DMA abort", before,
		  after);
	close(fd);
	close(dev);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(fields),
		VT_CASE(drops_in_stream),
		VT_CASE(hw_error_events_notify),
	};

	return vt_run("genl-events", cases, VT_COUNT(cases));
}
