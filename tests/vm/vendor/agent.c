// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_vendor: agents, other processes of a case, each with its own
 * opens of the devices, and range marks through them.
 */
#include "vendor.h"

static int write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void agent_serve(int rfd, int wfd)
{
	static struct ag_req q;
	static struct ag_resp r;
	int fds[AG_SLOTS];
	void *maps[AG_SLOTS];
	size_t lens[AG_SLOTS];
	int i;

	for (i = 0; i < AG_SLOTS; i++) {
		fds[i] = -1;
		maps[i] = MAP_FAILED;
		lens[i] = 0;
	}
	while (read_full(rfd, &q, sizeof(q)) == 0) {
		memset(&r, 0, sizeof(r));
		if (q.slot < 0 || q.slot >= AG_SLOTS || q.mslot < 0 || q.mslot >= AG_SLOTS) {
			r.ret = -EBADF;
			goto answer;
		}
		switch (q.op) {
		case AG_OPEN:
			fds[q.slot] = open_dev(q.dev, q.flags);
			r.ret = fds[q.slot] < 0 ? -errno : 0;
			break;
		case AG_CLOSE:
			r.ret = close(fds[q.slot]) ? -errno : 0;
			fds[q.slot] = -1;
			break;
		case AG_IOCTL:
			memcpy(r.arg, q.arg, sizeof(r.arg));
			r.ret = xioctl(fds[q.slot], q.cmd, q.len ? r.arg : NULL);
			break;
		case AG_MMAP:
			maps[q.mslot] = mmap(NULL, q.len, q.prot, MAP_SHARED, fds[q.slot],
					     (off_t)q.off);
			lens[q.mslot] = q.len;
			r.ret = maps[q.mslot] == MAP_FAILED ? -errno : 0;
			break;
		case AG_PEEK:
		case AG_POKE:
			if (maps[q.mslot] == MAP_FAILED || q.off + 8 > lens[q.mslot]) {
				r.ret = -EINVAL;
				break;
			}
			if (q.op == AG_PEEK)
				r.val = *(volatile uint64_t *)((char *)maps[q.mslot] + q.off);
			else
				*(volatile uint64_t *)((char *)maps[q.mslot] + q.off) = q.val;
			break;
		case AG_EXIT:
			/* no unmark, no close: what the exit does is under test */
			_exit(0);
		default:
			r.ret = -EINVAL;
		}
answer:
		if (write_full(wfd, &r, sizeof(r)))
			break;
	}
	_exit(0);
}

/* Fork an agent; it keeps no file of the case but its own pipe ends. */
int ag_start(struct agent *a, const char *name)
{
	int req[2], resp[2], fd;

	a->name = name;
	if (pipe(req) || pipe(resp))
		return -1;
	fflush(stdout);
	a->pid = fork();
	if (a->pid < 0)
		return -1;
	if (a->pid == 0) {
		for (fd = 3; fd < 1024; fd++)
			if (fd != req[0] && fd != resp[1])
				close(fd);
		agent_serve(req[0], resp[1]);
	}
	close(req[0]);
	close(resp[1]);
	a->req = req[1];
	a->resp = resp[0];
	return 0;
}

static struct ag_req ag_q;
static struct ag_resp ag_r;

/* Send ag_q, answer in ag_r: its ret, or -EPIPE when the agent is gone. */
static long ag_call(struct agent *a)
{
	if (write_full(a->req, &ag_q, sizeof(ag_q)) || read_full(a->resp, &ag_r, sizeof(ag_r)))
		return -EPIPE;
	return ag_r.ret;
}

static void ag_prep(int op, int slot)
{
	memset(&ag_q, 0, sizeof(ag_q));
	ag_q.op = op;
	ag_q.slot = slot;
}

long ag_open(struct agent *a, int slot, int dev, int flags)
{
	ag_prep(AG_OPEN, slot);
	ag_q.dev = dev;
	ag_q.flags = flags;
	return ag_call(a);
}

long ag_close(struct agent *a, int slot)
{
	ag_prep(AG_CLOSE, slot);
	return ag_call(a);
}

/* ioctl @cmd on the agent's fd @slot with a copy of @arg (@len bytes), copied back */
long ag_ioctl(struct agent *a, int slot, unsigned long cmd, void *arg, size_t len)
{
	long r;

	if (len > AG_ARG_MAX)
		return -E2BIG;
	ag_prep(AG_IOCTL, slot);
	ag_q.cmd = cmd;
	ag_q.len = len;
	if (len)
		memcpy(ag_q.arg, arg, len);
	r = ag_call(a);
	if (r != -EPIPE && len)
		memcpy(arg, ag_r.arg, len);
	return r;
}

long ag_mmap(struct agent *a, int slot, int mslot, uint64_t len, int prot, uint64_t off)
{
	ag_prep(AG_MMAP, slot);
	ag_q.mslot = mslot;
	ag_q.len = len;
	ag_q.prot = prot;
	ag_q.off = off;
	return ag_call(a);
}

long ag_peek(struct agent *a, int mslot, uint64_t off, uint64_t *v)
{
	long r;

	ag_prep(AG_PEEK, 0);
	ag_q.mslot = mslot;
	ag_q.off = off;
	r = ag_call(a);
	*v = r ? UINT64_MAX : ag_r.val;
	return r;
}

long ag_poke(struct agent *a, int mslot, uint64_t off, uint64_t v)
{
	ag_prep(AG_POKE, 0);
	ag_q.mslot = mslot;
	ag_q.off = off;
	ag_q.val = v;
	return ag_call(a);
}

/* The agent exits as it stands (nothing released first): true once reaped. */
int ag_exit(struct agent *a)
{
	int st;

	ag_prep(AG_EXIT, 0);
	write_full(a->req, &ag_q, sizeof(ag_q));
	close(a->req);
	close(a->resp);
	return waitpid(a->pid, &st, 0) == a->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int ag_kill(struct agent *a)
{
	int st;

	kill(a->pid, SIGKILL);
	close(a->req);
	close(a->resp);
	return waitpid(a->pid, &st, 0) == a->pid && WIFSIGNALED(st);
}

/* ---- range marks through an agent ---------------------------------------- */

void map_init(struct vnd_nc_map *m, uint32_t count, uint32_t start, uint32_t end)
{
	memset(m, 0, sizeof(*m));
	m->nc_count = count;
	m->start_nc_index = start;
	m->end_nc_index = end;
	/* outputs preset, so a copy back shows */
	m->max_nc_available = 0xFFFFFFFFu;
	m->bitmap = 0xFFFFFFFF00000000ULL;
}

long ag_mark(struct agent *a, int slot, uint32_t count, uint32_t start, uint32_t end,
		    struct vnd_nc_map *m)
{
	map_init(m, count, start, end);
	return ag_ioctl(a, slot, VND_CRWL_NC_RANGE_MARK, m, sizeof(*m));
}

long ag_unmark(struct agent *a, int slot, uint64_t bitmap)
{
	struct vnd_nc_map m;

	memset(&m, 0, sizeof(m));
	m.bitmap = bitmap;
	return ag_ioctl(a, slot, VND_CRWL_NC_RANGE_UNMARK, &m, sizeof(m));
}

long ag_core(struct agent *a, int slot, unsigned long cmd, uint32_t nc)
{
	struct neuron_core_reserve r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = nc;
	return ag_ioctl(a, slot, cmd, &r, sizeof(r));
}
