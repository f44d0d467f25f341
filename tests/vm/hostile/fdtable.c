// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile, the holders' walk: an operation with a judge, run by
 * workers' threads (not by their forked children, which do not own the
 * worker's files).
 *
 * fdtable-walk (at most FDTABLE_RUNS times a run): a process whose
 * FDTABLE_THREADS threads share a file table of FDTABLE_SLOTS slots (its
 * main thread has a copy of its own); a prober process (not killed with
 * its worker) calls CORE_HOLDERS of a held NeuronCore (one it takes when
 * it can) with a thread spinning on its CPU. A walk that keeps that
 * thread off the CPU for 500 ms without the caller being switched out,
 * twice in a row, did not schedule ("sched"; walk_kept_cpu()).
 */
#include "hostile.h"

struct fdtable_arg {
	uint32_t slots, threads;
};

static void *fdtable_idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* One timed CORE_HOLDERS. */
struct walk_time {
	uint64_t dur, gap;	/* ns: the call, the longest the spinning thread was kept off */
	long switches;		/* the caller's context switches during the call */
	uint32_t state;		/* the NeuronCore's, as the call returned it */
};


/*
 * CORE_HOLDERS on NeuronCore @nc of @fd with a thread spinning on this
 * thread's CPU: 0 with *@w, or -1 with errno (-2: no measurement could be
 * set up).
 */
static int holders_timed(int fd, uint32_t nc, struct walk_time *w)
{
	struct neuron_core_holders h = { .size = sizeof(h), .nc = nc };
	struct vt_ticker tk = { 0 };
	cpu_set_t old, one;
	long sw0, sw1;
	uint64_t t0;
	pthread_t th;
	int cpu = sched_getcpu(), r, e;

	if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return -2;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
		return -2;
	if (pthread_create(&th, NULL, vt_ticker_main, &tk)) {
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
		return -2;
	}
	pthread_setaffinity_np(th, sizeof(one), &one);
	while (!atomic_load(&tk.running))
		sched_yield();
	sw0 = vt_thread_switches();
	t0 = vt_now_ns();
	r = ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h);
	e = errno;
	w->dur = vt_now_ns() - t0;
	sw1 = vt_thread_switches();
	atomic_store(&tk.stop, 1);
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	w->gap = tk.max_gap;
	w->switches = sw0 < 0 || sw1 < 0 ? -1 : sw1 - sw0;
	w->state = h.state;
	errno = e;
	return r ? -1 : (sw0 < 0 || sw1 < 0 ? -2 : 0);
}

#define FDTABLE_RUNS	8
#define FDTABLE_SLOTS	(1U << 19)
#define FDTABLE_THREADS	256

/*
 * A walk that did not schedule: it kept the spinning thread off its CPU
 * for 500 ms while the caller was switched out at most twice (once is
 * the return from a call that held the CPU: the scheduler then gives the
 * spinning thread about as long again). One scan of a 2^19-slot table
 * takes a few ms under TCG (a few times that with KASAN); a scan per
 * thread of 256 threads over a second. A walk that schedules, even one
 * made slow by everything else the fuzzer runs (6.1: the spinning thread
 * kept off up to 216 ms), is switched out at every slice the spinning
 * thread waits for.
 */
static int walk_kept_cpu(const struct walk_time *w)
{
	return w->gap >= 500000000ull && w->switches <= 2;
}

/*
 * The walked process: a file table grown to @slots slots, shared by
 * @threads threads, while the main thread has a copy of its own
 * (unshare(CLONE_FILES)): a walk that skips only the threads sharing their
 * leader's table scans this one once per thread. Says 'r', then holds
 * until released.
 */
static void fdtable_main(void *arg, int rfd, int hfd)
{
	const struct fdtable_arg *a = arg;
	struct rlimit rl = { a->slots, a->slots };
	pthread_attr_t at;
	pthread_t th;
	uint32_t i;
	char c = 'r';

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	if (setrlimit(RLIMIT_NOFILE, &rl) || dup2(rfd, (int)a->slots - 1) < 0)
		c = 'n';
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 << 10);
	for (i = 0; c == 'r' && i < a->threads; i++)
		if (pthread_create(&th, &at, fdtable_idle, NULL))
			break;
	if (c == 'r' && unshare(CLONE_FILES))
		c = 'n';
	if (write(rfd, &c, 1) != 1)
		_exit(0);
	while (read(hfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * The prober (a process of its own, not killed with its worker, so that a
 * walk that keeps the CPU for seconds is still judged): its own file of
 * device @d, a free NeuronCore of it taken where there is one (else one
 * another holds), the walked process beside it, CORE_HOLDERS timed.
 */
static void fdtable_probe(struct ts *t, int d)
{
	struct neuron_core_reserve cr = { .size = sizeof(cr) };
	struct fdtable_arg a = { FDTABLE_SLOTS, FDTABLE_THREADS };
	struct walk_time w1, w2;
	struct stale_proc c;
	uint64_t prev;
	uint32_t nc;
	int fd, r;

	syscall(SYS_close_range, 3U, ~0U, 0U);
	fd = open_index(g_dev_index[d], O_RDWR);
	if (fd < 0 || helper_spawn(&c, fdtable_main, &a))
		_exit(0);
	if (helper_word(&c) != 'r') {
		stale_release(&c);
		_exit(0);
	}
	nc = below(t, g_nc[d]);
	for (cr.nc = 0; cr.nc < g_nc[d]; cr.nc++)
		if (!ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr)) {
			nc = cr.nc;
			break;
		}
	r = holders_timed(fd, nc, &w1);
	if (r == -1) {
		judged(V_IOCTL);
		if (errno != ENODEV)
			viol(t, V_IOCTL, "CORE_HOLDERS beside a %u-thread process: %s", a.threads, ename(errno));
	} else if (r == 0 && w1.state == NEURON_CORE_HELD) {
		judged(V_SCHED);
		atomic_fetch_add(&sh->fdtable_walks, 1);
		for (prev = atomic_load(&sh->fdtable_gap_max); w1.gap > prev;)
			if (atomic_compare_exchange_weak(&sh->fdtable_gap_max, &prev, w1.gap))
				break;
		/*
		 * Twice in a row: a host that stalled the guest does not
		 * repeat itself. A device removed meanwhile (such a walk
		 * takes seconds) leaves the first measurement to judge.
		 */
		w2 = w1;
		r = walk_kept_cpu(&w1) ? holders_timed(fd, nc, &w2) : 0;
		if (r == -1 && errno == ENODEV)
			w2 = w1;
		if (walk_kept_cpu(&w1) && r != -2 && walk_kept_cpu(&w2))
			viol(t, V_SCHED, "CORE_HOLDERS beside %u threads sharing a %u-slot file table kept its CPU %" PRIu64 " ms (%ld switches), then %" PRIu64 " ms (%ld) of %" PRIu64 " ms",
			     a.threads, a.slots, w1.gap / 1000000, w1.switches, w2.gap / 1000000,
			     w2.switches, w2.dur / 1000000);
	}
	stale_release(&c);
	_exit(0);
}

int op_fdtable_walk(struct ts *t)
{
	int d = below(t, g_ndev), st;
	pid_t p;

	/*
	 * FDTABLE_RUNS walks timed a run (each costs a second or two of a
	 * CPU), in at most 4 x FDTABLE_RUNS tries (a removed device ends one)
	 */
	if (g_base[d] < 0 || atomic_load(&sh->fdtable_walks) >= FDTABLE_RUNS ||
	    atomic_fetch_add(&sh->fdtable_runs, 1) >= 4 * FDTABLE_RUNS)
		return 0;
	p = fork();
	if (p < 0)
		return 0;
	if (p == 0) {
		g_in_child = 1;
		fdtable_probe(t, d);
	}
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	judged(V_DEATH);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		viol(t, V_DEATH, "the walk's prober %d ended with %s %d", (int)p,
		     WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	return 1;
}
