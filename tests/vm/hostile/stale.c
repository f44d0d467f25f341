// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: stale views, and the helper processes the operations
 * across processes fork.
 *
 * A read-only view kept across its owner's exit and the slot's next claim,
 * by a process of a new pid namespace where this one may make one: the view
 * shows its owner, then zeros, never the next owner. The owners mark the
 * slab's unused tail (never folded, so no count moves).
 */
#include "hostile.h"

/*
 * In a stale-view helper process: close every fd but stdio, @a and @b at
 * once, so that it holds neither the worker's device files (their cores
 * and slabs) nor the pipes of helpers other threads fork meanwhile (which
 * could keep each other waiting for ever once the worker is killed).
 */
void stale_keep_fds(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		syscall(SYS_close_range, 3U, (unsigned int)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned int)lo + 1, (unsigned int)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned int)hi + 1, ~0U, 0U);
}

/* A stale-view helper: a slab of device @d marked @mark, held until released. */
static void stale_owner(int d, uint64_t mark, int rfd, int hfd)
{
	struct neuron_nds_acquire q = { .size = sizeof(q) };
	uint8_t *p = MAP_FAILED;
	char c = 'n';
	size_t off;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	fd = open_index(g_dev_index[d], O_RDWR);
	if (fd >= 0 && !ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)q.mmap_offset);
	if (p != MAP_FAILED) {
		for (off = NEURON_NDS_USED_END; off < NEURON_NDS_SIZE; off += 8)
			*(uint64_t *)(p + off) = mark;
		c = 'r';
	}
	/* a helper's own exit status is not judged: it always exits 0 */
	if (write(rfd, &c, 1) == 1)
		/* hold the slab until released ('x') or the worker is gone (EOF) */
		while (read(hfd, &c, 1) < 0 && errno == EINTR)
			;
	_exit(0);
}

/*
 * Fork a helper process running @fn(@arg, ready, hold): it says 'r' (and
 * what else it reports) on the ready pipe, and holds what it made until
 * released (stale_release()) or its hold pipe reaches EOF.
 */
int helper_spawn(struct stale_proc *sp, void (*fn)(void *, int, int), void *arg)
{
	int r[2], h[2];

	if (pipe(r))
		return -1;
	if (pipe(h)) {
		close(r[0]);
		close(r[1]);
		return -1;
	}
	sp->pid = fork();
	if (sp->pid == 0) {
		g_in_child = 1;
		fn(arg, r[1], h[0]);
		_exit(0);
	}
	close(r[1]);
	close(h[0]);
	sp->rd = r[0];
	sp->hold = h[1];
	if (sp->pid < 0) {
		close(sp->rd);
		close(sp->hold);
		return -1;
	}
	return 0;
}

/* the helper's first byte ('r': ready), within 20 s; 0 when none came */
char helper_word(struct stale_proc *sp)
{
	struct pollfd pfd = { .fd = sp->rd, .events = POLLIN };
	char c = 0;

	if (poll(&pfd, 1, 20000) != 1 || read(sp->rd, &c, 1) != 1)
		return 0;
	return c;
}

struct stale_arg {
	int d, pidns;
	uint64_t mark;
};

/* The stale-view helper: as pid 1 of a new pid namespace where it may make one */
static void stale_main(void *arg, int rfd, int hfd)
{
	const struct stale_arg *a = arg;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	if (a->pidns && unshare(CLONE_NEWPID) == 0) {
		pid_t g = fork();

		if (g == 0)
			stale_owner(a->d, a->mark, rfd, hfd);	/* pid 1 there */
		if (g > 0)
			while (waitpid(g, NULL, 0) < 0 && errno == EINTR)
				;
		else if (write(rfd, "n", 1) != 1)
			_exit(0);
		_exit(0);
	}
	stale_owner(a->d, a->mark, rfd, hfd);
}

/*
 * Fork an owner of a slab of device @d marked @mark: 1 when it holds one,
 * 0 when it does not (release it all the same), -1 when none was forked.
 */
static int stale_spawn(struct stale_proc *sp, int d, uint64_t mark, int pidns)
{
	struct stale_arg a = { d, pidns, mark };

	if (helper_spawn(sp, stale_main, &a))
		return -1;
	return helper_word(sp) == 'r';
}

void stale_release(struct stale_proc *sp)
{
	if (write(sp->hold, "x", 1) != 1)
		kill(sp->pid, SIGKILL);
	while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(sp->rd);
	close(sp->hold);
}

/* words of the view's tail that hold @mark */
static size_t stale_marked(const uint8_t *view, uint64_t mark)
{
	size_t off, n = 0;

	for (off = NEURON_NDS_USED_END; off < NEURON_NDS_SIZE; off += 8)
		n += *(const volatile uint64_t *)(view + off) == mark;
	return n;
}

int op_stale_view(struct ts *t)
{
	int d = below(t, g_ndev), fd = g_base[d];
	uint64_t ma = rnd(t) | 1, mb = ~ma;
	struct neuron_nds_acquire q;
	struct stale_proc a, b;
	uint8_t *view;
	size_t n;
	int got;

	if (fd < 0)
		return 0;
	got = stale_spawn(&a, d, ma, 0);
	if (got < 0)
		return 0;
	if (!got)
		goto out_a;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.pid = a.pid;
	if (ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		goto out_a;
	view = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	if (view == MAP_FAILED)
		goto out_a;
	judged(V_MMAP);
	n = stale_marked(view, ma);
	if (n != (NEURON_NDS_SIZE - NEURON_NDS_USED_END) / 8)
		viol(t, V_MMAP, "a read-only view of slab %u showed %zu words of its owner's", q.slot, n);
	stale_release(&a);
	got = stale_spawn(&b, d, mb, 1);
	if (got > 0) {
		judged(V_MMAP);
		n = stale_marked(view, mb);
		if (n)
			viol(t, V_MMAP, "a read-only view of slab %u kept across its owner's exit showed the next owner (%zu words)",
			     q.slot, n);
	}
	if (got >= 0)
		stale_release(&b);
	munmap(view, NEURON_NDS_SIZE);
	return 1;
out_a:
	stale_release(&a);
	return 0;
}
