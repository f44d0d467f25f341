// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: a worker process, its threads, the operation each
 * runs, and the children they fork.
 */
#include "hostile.h"

static int pick_kind(struct ts *t, int allow_fork)
{
	unsigned int r, k;

	for (;;) {
		r = below(t, 1000);
		for (k = 0; k < K_MAX; k++) {
			if (r < kind_weight[k])
				break;
			r -= kind_weight[k];
		}
		if (k >= K_MAX)
			continue;
		/* a forked child does not own the worker's files: none of these */
		if (((k == K_FORK || k == K_STALE_VIEW || k == K_DEVMEM || k == K_FDTABLE ||
		      k == K_FORGED) && !allow_fork) || !g_kind_on[k])
			continue;
		return (int)k;
	}
}

static int op_fork(struct ts *t);

static void run_op(struct ts *t, int k)
{
	uint64_t t0 = now_us();
	int ok = 0;

	atomic_fetch_add(&sh->started[k], 1);
	switch (k) {
	case K_IOCTL_VALID: ok = op_ioctl_valid(t); break;
	case K_IOCTL_MUTATED: ok = op_ioctl_mutated(t); break;
	case K_IOCTL_BADPTR: ok = op_ioctl_badptr(t); break;
	case K_IOCTL_RANDOM: ok = op_ioctl_random(t); break;
	case K_MMAP: ok = op_mmap(t); break;
	case K_MUNMAP: ok = op_munmap(t); break;
	case K_MREMAP: ok = op_mremap(t); break;
	case K_MPROTECT: ok = op_mprotect(t); break;
	case K_MADVISE: ok = op_madvise(t); break;
	case K_TOUCH: ok = op_touch(t); break;
	case K_OPENCLOSE: ok = op_openclose(t); break;
	case K_SYSFS_READ: ok = op_file_read(t, F_SYSFS); break;
	case K_SYSFS_WRITE: ok = op_file_write(t, F_SYSFS); break;
	case K_DEBUGFS_READ: ok = op_file_read(t, F_DEBUGFS); break;
	case K_DEBUGFS_WRITE: ok = op_file_write(t, F_DEBUGFS); break;
	case K_PARAM: ok = chance(t, 500) ? op_file_read(t, F_PARAM) : op_file_write(t, F_PARAM); break;
	case K_GENL: ok = op_genl(t); break;
	case K_GENL_MCAST: ok = op_genl_mcast(t); break;
	case K_FORK: ok = op_fork(t); break;
	case K_STALE_VIEW: ok = op_stale_view(t); break;
	case K_DEVMEM: ok = op_devmem_cross(t); break;
	case K_FDTABLE: ok = op_fdtable_walk(t); break;
	case K_FORGED: ok = op_forged_name(t); break;
	case K_VENDOR: ok = op_vendor(t); break;
	}
	atomic_fetch_add(&sh->usec[k], now_us() - t0);
	atomic_fetch_add(&sh->done[k], 1);
	if (ok)
		atomic_fetch_add(&sh->ok[k], 1);
}

static int claim(void)
{
	return atomic_fetch_add(&sh->issued, 1) < g_ops;
}

/* A forked child: a few operations with what it inherited, then an end. */
static void child_main(struct ts *t)
{
	int d, i, n;

	g_in_child = 1;
	t->rng = mix(t->rng, 0xC41D);
	/*
	 * No device mapping of the parent's is here, whatever madvise() it
	 * tried (MADV_DOFORK is refused: the mappings are VM_IO)
	 */
	for (i = 0; i < t->nmp; i++) {
		unsigned char v;

		judged(V_MMAP);
		if (mincore(t->mp[i].addr, PAGE, &v) == 0 || errno != ENOMEM)
			viol(t, V_MMAP, "a %s device mapping of %zu bytes reached a forked child",
			     t->mp[i].may_write ? "writable" : "read-only", t->mp[i].len);
	}
	t->nmp = 0;
	for (i = 0; i < NFD; i++)
		t->fd_own[i] = 0;
	if (t->nl >= 0)
		close(t->nl);
	t->nl = -1;
	for (d = 0; d < g_ndev; d++) {
		atomic_store(&g_own_slot[d], -1);
		for (i = 0; i < RING_WORDS; i++)
			atomic_store(&g_own_ring[d][i], 0);
	}
	n = 1 + (int)below(t, 20);
	for (d = 0; d < K_MAX && (d == K_FORK || !g_kind_on[d]); d++)
		;
	if (d == K_MAX)
		n = 0;	/* --kinds fork alone: nothing else to run here */
	for (i = 0; i < n && claim(); i++) {
		t->opno++;
		run_op(t, pick_kind(t, 0));
	}
	switch (below(t, 3)) {
	case 0:
		atomic_fetch_add(&sh->child_selfkill, 1);
		raise(SIGKILL);
		break;
	case 1:
		for (i = 0; i < NFD; i++)
			if (t->fd[i] >= 0)
				close(t->fd[i]);
		break;
	}
	atomic_fetch_add(&sh->child_exit, 1);
	_exit(0);
}

static int op_fork(struct ts *t)
{
	pid_t p = fork();
	int st;

	if (p < 0)
		return 0;
	if (p == 0)
		child_main(t);
	atomic_fetch_add(&sh->forks, 1);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	judged(V_DEATH);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)) {
		viol(t, V_DEATH, "forked child %d ended with %s %d", (int)p,
		     WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	return 1;
}

static void *thread_main(void *arg)
{
	struct ts *t = arg;
	int i;

	while (claim()) {
		t->opno++;
		run_op(t, pick_kind(t, 1));
	}
	for (i = 0; i < t->nmp; i++)
		munmap(t->mp[i].addr, t->mp[i].len);
	for (i = 0; i < NFD; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	if (t->nl >= 0)
		close(t->nl);
	return NULL;
}

static struct ts *new_ts(int tidx)
{
	struct ts *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *pages;
	int i;

	if (t == MAP_FAILED)
		return NULL;
	pages = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return NULL;
	/* [straddle RW][PROT_NONE][read-only][PROT_NONE] */
	mprotect(pages + PAGE, PAGE, PROT_NONE);
	mprotect(pages + 3 * PAGE, PAGE, PROT_NONE);
	t->straddle = pages;
	t->none = pages + PAGE;
	t->ro = pages + 2 * PAGE;
	t->tidx = tidx;
	t->rng = mix(mix(mix(g_seed, (uint64_t)g_widx + 1), (uint64_t)g_gen + 1), (uint64_t)tidx + 1);
	for (i = 0; i < NFD; i++)
		t->fd[i] = -1;
	t->nl = -1;
	return t;
}

int worker_main(void)
{
	pthread_t th[MAXT];
	pthread_attr_t at;
	int d, i, n = 0;

	uint64_t t0 = now_us();

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	install_fault_guard();
	/*
	 * The devices and files are the parent's list, rescanned by the
	 * parent after each removal or re-add (removal_step). A worker used
	 * to rescan at its start: 1.5 s of sysfs walking under TCG, against
	 * a SIGKILL every few hundred ms, so most workers died scanning.
	 */
	for (d = 0; d < g_ndev; d++) {
		g_base[d] = open_index(g_dev_index[d], O_RDWR);
		if (g_base[d] < 0 && !g_removal)
			return 3;
		atomic_store(&g_own_slot[d], -1);
	}
	atomic_fetch_add(&sh->start_us, now_us() - t0);
	atomic_fetch_add(&sh->starts, 1);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 << 10);
	for (i = 0; i < g_threads; i++) {
		struct ts *t = new_ts(i);

		if (!t || pthread_create(&th[i], &at, thread_main, t))
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return n == g_threads ? 0 : 4;
}
