// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest test: who holds each NeuronCore (NEURON_IOCTL_CORE_HOLDERS) and
 * root taking one back (NEURON_IOCTL_CORE_TAKE_BACK), on neuron0 (two
 * NeuronCores, nobody else using it).
 *
 * The cases run in order and share two processes:
 * - the child of a dead reserver: R reserves NeuronCore 1, forks C and
 *   exits; C keeps R's file, so the core stays held with R gone;
 * - a stuck holder S on NeuronCore 0: it reserved the core, counted on it,
 *   has a ring mapped, and waits for a word from this process.
 * The last cases take NeuronCore 1, free by then, from a process while its
 * job runs, from one looping jobs on three threads and from one whose
 * name carries a newline, and walk a file table of 2^20 slots shared by
 * 1000 threads. Every wait is on a pipe or a child's exit, never on time.
 *
 * vm_holders fork-hold <device> <nc>: the first setup alone, for the tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include "vmtest.h"
#include "vmdev.h"

#define DEV	0
#define FAIL_ID	16	/* NDS GENERIC_FAIL: sysfs stats/status/failure */

static pid_t r_pid, c_pid, s_pid;
static int c_hold = -1;		/* write end: closing it lets C exit */
static int s_cmd = -1, s_done = -1;
static uint64_t r_before_ns, r_after_ns;
static uint64_t fail_base;	/* neuron0 core 0 failure total before S counted */

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int holders(int fd, unsigned int nc, struct neuron_core_holders *h)
{
	memset(h, 0, sizeof(*h));
	h->size = sizeof(*h);
	h->nc = nc;
	return ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, h);
}

static int core_ioctl(int fd, unsigned long cmd, unsigned int nc)
{
	struct neuron_core_reserve a = { .size = sizeof(a), .nc = nc };

	return ioctl(fd, cmd, &a);
}

static int sim_exec(int fd, unsigned int nc)
{
	struct neuron_sim_exec e = { .size = sizeof(e), .nc = nc, .duration_us = 10 };

	return ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e);
}

static int counter_add(int fd, unsigned int nc, unsigned int id, uint64_t delta)
{
	struct neuron_nds_counter_add a = { .size = sizeof(a), .nc = nc, .id = id,
					    .delta = delta };

	return ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a);
}

static int nds_acquire(int fd)
{
	struct neuron_nds_acquire q = { .size = sizeof(q) };

	return ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q);
}

/*
 * Fork a child that runs @fn(@out, @in) and exits with its result: @out is
 * the write end of a pipe whose read end goes to *@from_child, @in the read
 * end of one whose write end goes to *@to_child. The child's pid, or -1.
 */
static pid_t spawn(int (*fn)(int out, int in), int *from_child, int *to_child)
{
	int up[2], down[2];
	pid_t pid;

	if (pipe2(up, O_CLOEXEC))
		return -1;
	if (pipe2(down, O_CLOEXEC)) {
		close(up[0]);
		close(up[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		_exit(fn(up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	if (pid < 0) {
		close(up[0]);
		close(down[1]);
		return -1;
	}
	*from_child = up[0];
	*to_child = down[1];
	return pid;
}

/* spawn(), then the child's first word on *@from_child: its pid, or -1. */
static pid_t spawn_started(int (*fn)(int out, int in), int *from_child, int *to_child)
{
	pid_t pid = spawn(fn, from_child, to_child);
	char ch;

	if (pid < 0 || read(*from_child, &ch, 1) != 1)
		return -1;
	return pid;
}

/* R: reserve NeuronCore 1, fork C (which keeps the file), report C, exit */
static int reserver(int report, int hold)
{
	int fd = vt_open_dev(DEV);
	pid_t c;
	char ch;

	if (fd < 0 || core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 1))
		return 1;
	c = fork();
	if (c < 0)
		return 1;
	if (c == 0) {
		close(report);
		/* C: hold R's file until the test closes the pipe */
		while (read(hold, &ch, 1) > 0)
			;
		_exit(0);
	}
	return write(report, &c, sizeof(c)) == sizeof(c) ? 0 : 1;
}

static int forked_child_keeps_core(void)
{
	struct neuron_core_holders h;
	int report, st, fd;

	r_before_ns = boot_ns();
	r_pid = spawn(reserver, &report, &c_hold);
	VT_ASSERT(r_pid >= 0, "fork");
	VT_ASSERT(read(report, &c_pid, sizeof(c_pid)) == sizeof(c_pid), "R reported no child");
	close(report);
	VT_ASSERT(waitpid(r_pid, &st, 0) == r_pid && WIFEXITED(st) && !WEXITSTATUS(st),
		  "R failed: %#x", st);
	r_after_ns = boot_ns();

	fd = vt_open_dev(DEV);
	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	VT_ASSERT(holders(fd, 1, &h) == 0, "CORE_HOLDERS: %s", strerror(errno));
	close(fd);
	VT_ASSERT(h.state == NEURON_CORE_HELD, "state %u", h.state);
	VT_ASSERT(h.owner_pid == r_pid && h.owner_flags == NEURON_CORE_OWNER_EXITED,
		  "owner %d flags %#x (R %d)", h.owner_pid, h.owner_flags, r_pid);
	VT_ASSERT(h.count == 1 && h.total == 1 && h.hidden == 0 && h.pid[0] == c_pid,
		  "holders count %u total %u hidden %u pid %d (C %d)", h.count, h.total, h.hidden,
		  h.pid[0], c_pid);
	VT_ASSERT(h.since_ns >= r_before_ns && h.since_ns <= r_after_ns,
		  "since %llu not in [%llu, %llu]", (unsigned long long)h.since_ns,
		  (unsigned long long)r_before_ns, (unsigned long long)r_after_ns);
	return 0;
}

static int free_core_reads_free(void)
{
	struct neuron_core_holders h;
	int fd = vt_open_dev(DEV);
	int r;

	VT_ASSERT(fd >= 0, "open");
	r = holders(fd, 0, &h);
	close(fd);
	VT_ASSERT(r == 0, "CORE_HOLDERS: %s", strerror(errno));
	VT_ASSERT(h.state == NEURON_CORE_FREE && !h.owner_pid && !h.owner_flags && !h.since_ns &&
		  !h.count && !h.total && !h.hidden && !h.pid[0],
		  "state %u owner %d flags %#x since %llu count %u total %u", h.state, h.owner_pid,
		  h.owner_flags, (unsigned long long)h.since_ns, h.count, h.total);
	return 0;
}

/* K: shares the test's file table (CLONE_FILES, not a thread) until EOF on @arg's pipe */
static int shared_table_child(void *arg)
{
	char ch;

	while (read(*(int *)arg, &ch, 1) > 0)
		;
	return 0;
}

/*
 * Two processes sharing one file table (clone(CLONE_FILES) without
 * CLONE_THREAD) both hold the file that reserved NeuronCore 0: both are
 * listed, though the table is one.
 */
static int shared_file_table_listed(void)
{
	const size_t stack_size = 64 * 1024;
	struct neuron_core_holders h;
	int fd = vt_open_dev(DEV), p[2] = { -1, -1 }, r = -1, st = 0, err;
	int me = 0, kid = 0;
	char *stack = malloc(stack_size);
	unsigned int i;
	pid_t k = -1;

	VT_ASSERT(fd >= 0 && stack, "open, stack");
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 0) == 0, "reserve: %s", strerror(errno));
	if (!pipe2(p, O_CLOEXEC))
		k = clone(shared_table_child, stack + stack_size, CLONE_FILES | SIGCHLD, &p[0]);
	if (k > 0)
		r = holders(fd, 0, &h);
	err = errno;
	/* the table is shared: this close is the child's too, which then sees EOF */
	if (p[1] >= 0)
		close(p[1]);
	if (k > 0 && waitpid(k, &st, 0) != k)
		st = -1;
	if (p[0] >= 0)
		close(p[0]);
	free(stack);
	core_ioctl(fd, NEURON_IOCTL_CORE_RELEASE, 0);
	close(fd);
	VT_ASSERT(k > 0, "pipe or clone: %s", strerror(err));
	VT_ASSERT(WIFEXITED(st) && !WEXITSTATUS(st), "K: status %#x", st);
	VT_ASSERT(r == 0, "CORE_HOLDERS: %s", strerror(err));
	for (i = 0; i < h.count && i < NEURON_CORE_HOLDERS_MAX; i++) {
		me += h.pid[i] == getpid();
		kid += h.pid[i] == k;
	}
	VT_ASSERT(h.total == 2 && h.count == 2 && !h.hidden && me == 1 && kid == 1,
		  "total %u count %u hidden %u: this process listed %d times, K (%d) %d times",
		  h.total, h.count, h.hidden, me, (int)k, kid);
	return 0;
}

/* Q, pid 1 of a new pid namespace: what does it see of NeuronCore 1? */
static int hidden_query(void)
{
	struct neuron_core_holders h;
	int fd = vt_open_dev(DEV);

	if (fd < 0 || holders(fd, 1, &h))
		return 10;
	if (h.state != NEURON_CORE_HELD)
		return 11;
	if (h.owner_pid != 0 ||
	    h.owner_flags != (NEURON_CORE_OWNER_EXITED | NEURON_CORE_OWNER_HIDDEN))
		return 12;
	if (h.count != 0 || h.pid[0] != 0)
		return 13;	/* a pid of the parent namespace leaked */
	if (h.total != 1 || h.hidden != 1)
		return 14;
	return 0;
}

static int hidden_from_child_pidns(void)
{
	pid_t m, q;
	int st;

	m = fork();
	VT_ASSERT(m >= 0, "fork");
	if (m == 0) {
		if (unshare(CLONE_NEWPID))
			_exit(20);
		q = fork();
		if (q < 0)
			_exit(21);
		if (q == 0)
			_exit(hidden_query());
		if (waitpid(q, &st, 0) != q || !WIFEXITED(st))
			_exit(22);
		_exit(WEXITSTATUS(st));
	}
	VT_ASSERT(waitpid(m, &st, 0) == m && WIFEXITED(st), "namespace child died: %#x", st);
	VT_ASSERT(WEXITSTATUS(st) == 0,
		  "inside a new pid namespace: check %d failed (10 open, 11 state, 12 owner shown, 13 holder pid shown, 14 counts)",
		  WEXITSTATUS(st));
	return 0;
}

static int bad_arguments_einval(void)
{
	struct neuron_core_holders h;
	struct neuron_core_reserve a;
	int fd = vt_open_dev(DEV);

	VT_ASSERT(fd >= 0, "open");
	memset(&h, 0, sizeof(h));
	h.size = sizeof(h);
	h.nc = 2;	/* neuron0 has two */
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h), EINVAL);
	memset(&h, 0, sizeof(h));
	h.size = sizeof(h);
	h.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h), EINVAL);
	memset(&h, 0, sizeof(h));
	h.size = sizeof(h);
	h.pid[NEURON_CORE_HOLDERS_MAX - 1] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h), EINVAL);
	memset(&h, 0, sizeof(h));
	h.size = sizeof(h);
	h.since_ns = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h), EINVAL);
	memset(&h, 0, sizeof(h));
	h.size = sizeof(h) - 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h), EINVAL);
	VT_ASSERT_ERRNO(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 2), EINVAL);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.nc = 1;
	a.reserved[1] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, &a), EINVAL);
	a.reserved[1] = 0;
	a.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, &a), EINVAL);
	close(fd);
	return 0;
}

static int take_back_needs_admin(void)
{
	struct neuron_core_holders h;
	pid_t u;
	int st, fd;

	u = fork();
	VT_ASSERT(u >= 0, "fork");
	if (u == 0) {
		fd = vt_open_dev(DEV);
		if (fd < 0)
			_exit(1);
		/* the file stays open: only the capability is gone */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		if (core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1) != -1 || errno != EPERM)
			_exit(3);
		/* listing needs nothing */
		_exit(holders(fd, 1, &h) || h.state != NEURON_CORE_HELD ? 4 : 0);
	}
	VT_ASSERT(waitpid(u, &st, 0) == u && WIFEXITED(st), "child died: %#x", st);
	VT_ASSERT(WEXITSTATUS(st) == 0,
		  "as uid 65534: check %d failed (1 open, 2 setresuid, 3 TAKE_BACK not EPERM, 4 CORE_HOLDERS)",
		  WEXITSTATUS(st));
	fd = vt_open_dev(DEV);
	VT_ASSERT(fd >= 0 && holders(fd, 1, &h) == 0, "CORE_HOLDERS");
	close(fd);
	VT_ASSERT(h.state == NEURON_CORE_HELD && h.owner_pid == r_pid, "the core moved: state %u",
		  h.state);
	return 0;
}

/*
 * S: reserve NeuronCore 0, count 5 failures on it, map an error ring on
 * it, report ready; on the word, try every use of the core (each must be
 * -ECANCELED), count 7 more, read the old ring mapping, and exit with the
 * number of the first check that failed.
 */
static int stuck_holder(int done, int cmd)
{
	struct neuron_nq_init n = { .size = sizeof(n), .nc = 0, .nq_type = NEURON_NQ_TYPE_ERROR,
				    .ring_size = 4096 };
	volatile uint32_t *ring;
	int fd = vt_open_dev(DEV);
	char ch = 'r';
	uint32_t v;

	if (fd < 0 || core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 0) || nds_acquire(fd) ||
	    counter_add(fd, 0, FAIL_ID, 5) || ioctl(fd, NEURON_IOCTL_NQ_INIT, &n))
		return 30;
	ring = mmap(NULL, n.mmap_size, PROT_READ, MAP_SHARED, fd, (off_t)n.mmap_offset);
	if (ring == MAP_FAILED)
		return 31;
	if (write(done, &ch, 1) != 1 || read(cmd, &ch, 1) != 1)
		return 32;
	if (sim_exec(fd, 0) != -1 || errno != ECANCELED)
		return 33;
	if (core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 0) != -1 || errno != ECANCELED)
		return 34;
	if (ioctl(fd, NEURON_IOCTL_NQ_INIT, &n) != -1 || errno != ECANCELED)
		return 35;
	/* the other core is held by C's file, as before: busy, not canceled */
	if (core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 1) != -1 || errno != EBUSY)
		return 36;
	if (counter_add(fd, 0, FAIL_ID, 7))
		return 37;
	/* the freed ring's pages stay readable through the old mapping */
	v = ring[0];
	(void)v;
	return write(done, &ch, 1) == 1 ? 0 : 38;
}

static int stuck_holder_ready(void)
{
	char ch;

	fail_base = vt_status_total(DEV, 0, "failure");
	VT_ASSERT(fail_base != UINT64_MAX, "no failure total");
	s_pid = spawn(stuck_holder, &s_done, &s_cmd);
	VT_ASSERT(s_pid >= 0, "fork");
	VT_ASSERT(read(s_done, &ch, 1) == 1, "S failed before it was ready");
	return 0;
}

/* Does the kernel log, read from @fd on, have a record containing @want? */
static int take_back_from_stuck_holder(void)
{
	struct neuron_core_holders h;
	uint64_t fail0;
	char want[160];
	int fd, kmsg, st, found;
	char ch = 'g';

	fd = vt_open_dev(DEV);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(holders(fd, 0, &h) == 0 && h.state == NEURON_CORE_HELD && h.owner_pid == s_pid &&
		  !h.owner_flags && h.count == 1 && h.pid[0] == s_pid,
		  "before: state %u owner %d flags %#x count %u", h.state, h.owner_pid, h.owner_flags,
		  h.count);
	fail0 = vt_status_total(DEV, 0, "failure");
	VT_ASSERT(fail0 == fail_base + 5, "failure total %llu, base %llu: S's 5 not counted",
		  (unsigned long long)fail0, (unsigned long long)fail_base);
	kmsg = vt_kmsg_open();
	VT_ASSERT(kmsg >= 0, "/dev/kmsg: %s", strerror(errno));

	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 0) == 0, "TAKE_BACK: %s",
		  strerror(errno));
	snprintf(want, sizeof(want), "NeuronCore 0 taken back from pid %d (vm_holders) by pid %d (vm_holders) (uid 0)",
		 (int)s_pid, (int)getpid());
	found = vt_kmsg_count(kmsg, want, 1);
	close(kmsg);
	VT_ASSERT(found, "no kernel log line '%s'", want);
	VT_ASSERT(holders(fd, 0, &h) == 0 && h.state == NEURON_CORE_FREE, "after: state %u",
		  h.state);
	/* the core is free for anyone else now */
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 0) == 0, "reserve after: %s",
		  strerror(errno));
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_RELEASE, 0) == 0, "release: %s",
		  strerror(errno));

	VT_ASSERT(write(s_cmd, &ch, 1) == 1, "S gone");
	/* S's last word, or EOF if it stopped early: its status says which */
	if (read(s_done, &ch, 1) != 1)
		ch = 0;
	close(s_cmd);
	close(s_done);
	VT_ASSERT(waitpid(s_pid, &st, 0) == s_pid && WIFEXITED(st), "S died: %#x", st);
	VT_ASSERT(WEXITSTATUS(st) == 0,
		  "S: check %d failed (33 exec, 34 reserve, 35 nq_init not ECANCELED, 36 other core not EBUSY, 37 count, 38 report)",
		  WEXITSTATUS(st));
	/* counted before: in the totals; counted after, and S's exit: not */
	VT_ASSERT(vt_status_total(DEV, 0, "failure") == fail0, "failure total %llu, was %llu",
		  (unsigned long long)vt_status_total(DEV, 0, "failure"),
		  (unsigned long long)fail0);
	close(fd);
	return 0;
}

static int take_back_from_dead_reserver(void)
{
	struct neuron_core_holders h;
	int fd = vt_open_dev(DEV);

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1) == 0, "TAKE_BACK: %s",
		  strerror(errno));
	VT_ASSERT(holders(fd, 1, &h) == 0 && h.state == NEURON_CORE_FREE && !h.count,
		  "after: state %u count %u", h.state, h.count);
	/* nobody holds it now */
	VT_ASSERT_ERRNO(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1), ENOENT);
	close(fd);
	/* C (R's child, reaped by init) may go now */
	close(c_hold);
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;	/* only to end J's job early: no SA_RESTART */
}

/* J's state, shared by its two threads */
struct j_state {
	int fd;
	int job_ret, job_errno;
};

/*
 * J's job thread: the longest job there is, until SIGUSR1 ends it (EINTR).
 * Its wait is the longest too: with the default (2 s) a slow guest's
 * steps could outlast it, and the job would end ETIMEDOUT before them.
 */
static void *j_job(void *arg)
{
	struct j_state *js = arg;
	struct neuron_sim_exec e = { .size = sizeof(e), .nc = 1,
				     .duration_us = NEURON_EXEC_MAX_DURATION_US,
				     .timeout_us = NEURON_EXEC_MAX_TIMEOUT_US };

	js->job_ret = ioctl(js->fd, NEURON_IOCTL_SIM_EXEC, &e);
	js->job_errno = errno;
	return NULL;
}

/*
 * J: runs its longest job on NeuronCore 1 on a thread (the job reserves
 * the core); on its main thread (SIGUSR1 blocked, so the signal reaches
 * the job) it says 'r' once CORE_RELEASE answers EBUSY rather than ENOENT
 * (the job runs), then runs short
 * jobs, each EBUSY beside the long one, until one is refused with
 * ECANCELED (a TAKE_BACK waits) and says 'w';
 * after a word on @go its next job must find the core taken back.
 * Exits 0, or the failed step.
 */
static int job_then_cancelled(int done, int go)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct j_state js = { .fd = vt_open_dev(DEV) };
	sigset_t usr1;
	pthread_t t;
	char ch;
	int r;

	if (js.fd < 0 || sigaction(SIGUSR1, &sa, NULL))
		return 40;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (pthread_create(&t, NULL, j_job, &js))
		return 42;
	if (pthread_sigmask(SIG_BLOCK, &usr1, NULL))
		return 42;
	/* ENOENT until the job holds the core, EBUSY while it runs */
	while ((r = core_ioctl(js.fd, NEURON_IOCTL_CORE_RELEASE, 1)) != 0 && errno == ENOENT)
		;
	if (r == 0 || errno != EBUSY)
		return 44;	/* released, or refused otherwise: the job never ran */
	ch = 'r';
	if (write(done, &ch, 1) != 1)
		return 45;
	/* EBUSY beside the long job (one job per core), ECANCELED once a TAKE_BACK waits */
	while (sim_exec(js.fd, 1) != 0 && errno == EBUSY)
		;
	if (errno != ECANCELED)
		return 46;
	ch = 'w';
	if (write(done, &ch, 1) != 1)
		return 45;
	pthread_join(t, NULL);
	if (js.job_ret != -1 || js.job_errno != EINTR)
		return 47;
	if (read(go, &ch, 1) != 1)
		return 45;
	if (sim_exec(js.fd, 1) != -1 || errno != ECANCELED)
		return 48;
	return 0;
}

struct taker {
	int fd;
	unsigned int nc;
	_Atomic int done;
	int ret, err;
};

static void *take_back_thread(void *arg)
{
	struct taker *tk = arg;

	tk->ret = core_ioctl(tk->fd, NEURON_IOCTL_CORE_TAKE_BACK, tk->nc);
	tk->err = errno;
	atomic_store(&tk->done, 1);
	return NULL;
}

/*
 * TAKE_BACK waits for the running job and refuses the holder's new ones
 * meanwhile: J's long job runs ('r'), a TAKE_BACK starts on a thread, J's
 * next short job is refused with ECANCELED ('w', so the TAKE_BACK is
 * waiting, not done), and only once J's job has ended (our signal) does TAKE_BACK
 * return, with the core taken, which J's next job then finds gone
 * (ECANCELED). Every step waits on the state that proves the one before.
 */
static int take_back_waits_for_job(void)
{
	struct neuron_core_holders h;
	struct taker tk = { .nc = 1 };
	int done, go, st = 0;
	char ch = 'g';
	pthread_t t;
	pid_t j;

	tk.fd = vt_open_dev(DEV);
	VT_ASSERT(tk.fd >= 0, "open");
	VT_ASSERT(holders(tk.fd, 1, &h) == 0 && h.state == NEURON_CORE_FREE, "before: state %u",
		  h.state);
	j = spawn(job_then_cancelled, &done, &go);
	VT_ASSERT(j >= 0, "fork");
	VT_ASSERT(read(done, &ch, 1) == 1 && ch == 'r', "J's job never ran: see J's status");
	VT_ASSERT(pthread_create(&t, NULL, take_back_thread, &tk) == 0, "thread");
	VT_ASSERT(read(done, &ch, 1) == 1 && ch == 'w', "J's jobs were never refused");
	VT_ASSERT(!atomic_load(&tk.done), "TAKE_BACK returned (%d, %s) while J's job ran", tk.ret,
		  strerror(tk.err));
	VT_ASSERT(kill(j, SIGUSR1) == 0, "kill: %s", strerror(errno));
	pthread_join(t, NULL);
	VT_ASSERT(tk.ret == 0, "TAKE_BACK after the job: %s", strerror(tk.err));
	VT_ASSERT(write(go, &ch, 1) == 1, "J gone");
	close(go);
	close(done);
	VT_ASSERT(waitpid(j, &st, 0) == j && WIFEXITED(st) && !WEXITSTATUS(st),
		  "J: status %#x (exit 40 open, 42 thread, 44 no job, 45 pipe, 46 short job not ECANCELED, 47 long job not EINTR, 48 next job not ECANCELED)",
		  st);
	VT_ASSERT(holders(tk.fd, 1, &h) == 0 && h.state == NEURON_CORE_FREE, "after: state %u",
		  h.state);
	close(tk.fd);
	return 0;
}

static int loop_fd = -1;
static _Atomic int loop_jobs_done;

/* L's threads: 20 ms jobs on NeuronCore 1 (EBUSY beside each other) until one is refused */
static void *loop_jobs(void *arg)
{
	struct neuron_sim_exec e = { .size = sizeof(e), .nc = 1, .duration_us = 20000 };
	int r;

	(void)arg;
	while ((r = ioctl(loop_fd, NEURON_IOCTL_SIM_EXEC, &e)) == 0 || errno == EBUSY)
		if (!r)
			atomic_fetch_add(&loop_jobs_done, 1);
	return (void *)(intptr_t)errno;
}

#define LOOPERS	3

/*
 * L: three threads loop 20 ms jobs on NeuronCore 1 (one of them always
 * running, most of the time); says 'l' once a job has run, and once
 * every thread's job was refused with ECANCELED and the test closed @go,
 * exits 0. It holds the core until then: an exit would release the core
 * under a TAKE_BACK still on its way to take it (ENOENT, "released
 * meanwhile").
 */
static int job_looper(int done, int go)
{
	pthread_t t[LOOPERS];
	int i, bad = 0;
	void *e;
	char ch = 'l';

	loop_fd = vt_open_dev(DEV);
	if (loop_fd < 0 || core_ioctl(loop_fd, NEURON_IOCTL_CORE_RESERVE, 1))
		return 50;
	for (i = 0; i < LOOPERS; i++)
		if (pthread_create(&t[i], NULL, loop_jobs, NULL))
			return 51;
	/* the loop is going: one job has run to its end, the next ones follow */
	while (!atomic_load(&loop_jobs_done))
		sched_yield();
	if (write(done, &ch, 1) != 1)
		return 52;
	for (i = 0; i < LOOPERS; i++) {
		pthread_join(t[i], &e);
		bad |= (intptr_t)e != ECANCELED;
	}
	while (read(go, &ch, 1) > 0)
		;
	return bad ? 53 : 0;
}

/*
 * Root always wins: against three threads looping jobs, the first
 * TAKE_BACK takes the core (it stops new jobs and waits for the running
 * one), and every thread's next job is ECANCELED.
 */
static int take_back_beats_job_loop(void)
{
	struct neuron_core_holders h;
	int done, go, st = 0, fd = vt_open_dev(DEV);
	pid_t l;

	VT_ASSERT(fd >= 0, "open");
	l = spawn_started(job_looper, &done, &go);
	VT_ASSERT(l >= 0, "L did not start");
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1) == 0,
		  "TAKE_BACK against looping jobs: %s", strerror(errno));
	close(go);
	VT_ASSERT(waitpid(l, &st, 0) == l && WIFEXITED(st) && !WEXITSTATUS(st),
		  "L: status %#x (exit 50 open/reserve, 51 threads, 52 pipe, 53 a job not ECANCELED)",
		  st);
	close(done);
	VT_ASSERT(holders(fd, 1, &h) == 0 && h.state == NEURON_CORE_FREE, "after: state %u",
		  h.state);
	close(fd);
	return 0;
}

/* the holder's name: a newline and the token Node Problem Detector acts on */
#define FORGED_NAME	"\nNEURON_HW_ERR="

/* N: named FORGED_NAME, reserves NeuronCore 1, says so, waits for EOF on @in */
static int forged_holder(int done, int in)
{
	int fd = vt_open_dev(DEV);
	char ch = 'n';

	if (fd < 0 || prctl(PR_SET_NAME, FORGED_NAME) ||
	    core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 1))
		return 60;
	if (write(done, &ch, 1) != 1)
		return 61;
	while (read(in, &ch, 1) > 0)
		;
	return 0;
}

/*
 * The name of the process a core is taken back from is logged escaped:
 * the record shows "\x0a" as the four characters (which /dev/kmsg shows
 * as "\x5cx0a"), never a newline (which it shows as "\x0a").
 */
static int take_back_logs_name_escaped(void)
{
	char want[96], raw[96];
	int done, in, fd, kmsg, found, forged, st = 0;
	pid_t n;

	fd = vt_open_dev(DEV);
	VT_ASSERT(fd >= 0, "open");
	n = spawn_started(forged_holder, &done, &in);
	VT_ASSERT(n >= 0, "N did not start");
	kmsg = vt_kmsg_open();
	VT_ASSERT(kmsg >= 0, "/dev/kmsg: %s", strerror(errno));
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1) == 0, "TAKE_BACK: %s",
		  strerror(errno));
	snprintf(want, sizeof(want), "taken back from pid %d (\\x5cx0aNEURON_HW_ERR=) by pid",
		 (int)n);
	snprintf(raw, sizeof(raw), "taken back from pid %d (\\x0aNEURON_HW_ERR=", (int)n);
	found = vt_kmsg_count(kmsg, want, 1);
	close(kmsg);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	forged = kmsg >= 0 && vt_kmsg_count(kmsg, raw, 1);
	if (kmsg >= 0)
		close(kmsg);
	close(in);
	close(done);
	VT_ASSERT(waitpid(n, &st, 0) == n && WIFEXITED(st) && !WEXITSTATUS(st),
		  "N: status %#x (exit 60 setup, 61 pipe)", st);
	close(fd);
	VT_ASSERT(!forged, "the holder's name reached the log unescaped: '%s'", raw);
	VT_ASSERT(found, "no kernel log line with '%s'", want);
	return 0;
}

/* ---- the holders' walk schedules ---------------------------------------- */

#define WALK_THREADS	1000
#define WALK_FD		((1 << 20) - 1)	/* the default nr_open's last slot */

static int walk_release = -1;	/* W's threads wait for EOF on it */

static void *walk_sleeper(void *arg)
{
	char ch;

	(void)arg;
	while (read(walk_release, &ch, 1) > 0)
		;
	return NULL;
}

static _Atomic int walk_keeper_state;	/* 1: its own table, 2: unshare failed */

/* W's last thread: a copy of the table of its own, the one with the device file */
static void *walk_keeper(void *arg)
{
	char ch;

	(void)arg;
	atomic_store(&walk_keeper_state, unshare(CLONE_FILES) ? 2 : 1);
	while (read(walk_release, &ch, 1) > 0)
		;
	return NULL;
}

/*
 * W: NeuronCore 1 reserved, and three file tables of 2^20 slots (the last
 * one holds the release pipe): WALK_THREADS - 1 threads share one without
 * the device file, W's main thread has a copy of that, and W's last
 * thread the only one with the device file. A walk that skips only the
 * threads sharing their leader's table (the main thread's) scans the
 * first table once per thread before it finds the last. Says 'w' when all
 * run, exits at EOF on @in.
 */
static int walker_target(int done, int in)
{
	struct rlimit rl = { WALK_FD + 1, WALK_FD + 1 };
	pthread_attr_t a;
	pthread_t t;
	int fd = vt_open_dev(DEV), i;
	char ch = 'w';

	if (fd < 0 || setrlimit(RLIMIT_NOFILE, &rl) || dup2(in, WALK_FD) != WALK_FD)
		return 70;
	if (core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, 1))
		return 71;
	walk_release = in;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	for (i = 0; i < WALK_THREADS - 1; i++)
		if (pthread_create(&t, &a, walk_sleeper, NULL) || pthread_detach(t))
			return 72;
	if (pthread_create(&t, &a, walk_keeper, NULL) || pthread_detach(t))
		return 72;
	while (!atomic_load(&walk_keeper_state))
		sched_yield();
	/* the shared table loses the device file, then the main thread copies it */
	if (atomic_load(&walk_keeper_state) != 1 || close(fd) || unshare(CLONE_FILES))
		return 74;
	if (write(done, &ch, 1) != 1)
		return 73;
	while (read(in, &ch, 1) > 0)
		;
	return 0;
}

static int pin_cpu0(pthread_t t)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return pthread_setaffinity_np(t, sizeof(set), &set);
}

/*
 * CORE_HOLDERS over W (1000 threads, three file tables of 2^20 slots):
 * the answer is right (one holder), and the walk lets the caller's CPU
 * run others: a thread spinning on the same CPU is kept off it for less
 * than 200 ms, or, where something else slowed the call that much, the
 * caller was switched out (a walk that schedules is, at every slice the
 * spinning thread waits for). Scanning the shared table once per thread
 * holds the CPU for seconds, switched out once, on the way back.
 */
static int holders_walk_schedules(void)
{
	struct neuron_core_holders h;
	struct vt_ticker tk = { 0 };
	int done, in, st = 0, r, fd = vt_open_dev(DEV);
	long sw0, sw1;
	uint64_t t0, t1;
	pthread_t t;
	pid_t w;

	VT_ASSERT(fd >= 0, "open");
	w = spawn_started(walker_target, &done, &in);
	VT_ASSERT(w >= 0, "W did not start");
	VT_ASSERT(pin_cpu0(pthread_self()) == 0, "pin to CPU 0");
	VT_ASSERT(pthread_create(&t, NULL, vt_ticker_main, &tk) == 0 && pin_cpu0(t) == 0, "ticker");
	/* the ticker shares the CPU with this thread from here on */
	while (!atomic_load(&tk.running))
		sched_yield();
	sw0 = vt_thread_switches();
	t0 = vt_now_ns();
	r = holders(fd, 1, &h);
	t1 = vt_now_ns();
	sw1 = vt_thread_switches();
	atomic_store(&tk.stop, 1);
	pthread_join(t, NULL);
	close(in);
	close(done);
	VT_ASSERT(waitpid(w, &st, 0) == w && WIFEXITED(st) && !WEXITSTATUS(st),
		  "W: status %#x (exit 70 table, 71 reserve, 72 threads, 73 pipe, 74 tables)", st);
	printf("# CORE_HOLDERS over %d threads on 2^20-slot tables: %llu ms, the longest the CPU's other thread waited %llu ms, the caller switched out %ld times\n",
	       WALK_THREADS, (unsigned long long)((t1 - t0) / 1000000),
	       (unsigned long long)(tk.max_gap / 1000000), sw1 - sw0);
	VT_ASSERT(sw0 >= 0 && sw1 >= 0, "getrusage(RUSAGE_THREAD): %s", strerror(errno));
	VT_ASSERT(r == 0, "CORE_HOLDERS: %s", strerror(errno));
	VT_ASSERT(h.state == NEURON_CORE_HELD && h.owner_pid == w && h.count == 1 && h.pid[0] == w,
		  "state %u owner %d count %u", h.state, h.owner_pid, h.count);
	/* a walk that schedules leaves the ticker short gaps, or is switched out while slow */
	VT_ASSERT(tk.max_gap < 200000000ull || sw1 - sw0 > 2,
		  "the walk kept its CPU for %llu ms of %llu ms, switched out %ld times",
		  (unsigned long long)(tk.max_gap / 1000000),
		  (unsigned long long)((t1 - t0) / 1000000), sw1 - sw0);
	close(fd);
	return 0;
}

/*
 * vm_holders fork-hold <device> <nc>: reserve the NeuronCore, fork a child
 * that keeps the file until its stdin reaches EOF, print "child <pid>" and
 * exit: a core held by the forked child of a dead process, for the tools.
 */
static int fork_hold(const char *dev, const char *nc)
{
	int fd = vt_open_dev(atoi(dev));
	char ch;
	pid_t c;

	if (fd < 0 || core_ioctl(fd, NEURON_IOCTL_CORE_RESERVE, (unsigned int)atoi(nc))) {
		perror("vm_holders fork-hold");
		return 1;
	}
	fflush(stdout);
	c = fork();
	if (c < 0)
		return 1;
	if (c == 0) {
		while (read(0, &ch, 1) > 0)
			;
		_exit(0);
	}
	printf("child %d\n", (int)c);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(forked_child_keeps_core),
		VT_CASE(free_core_reads_free),
		VT_CASE(shared_file_table_listed),
		VT_CASE(hidden_from_child_pidns),
		VT_CASE(bad_arguments_einval),
		VT_CASE(take_back_needs_admin),
		VT_CASE(stuck_holder_ready),
		VT_CASE(take_back_from_stuck_holder),
		VT_CASE(take_back_from_dead_reserver),
		VT_CASE(take_back_waits_for_job),
		VT_CASE(take_back_beats_job_loop),
		VT_CASE(take_back_logs_name_escaped),
		VT_CASE(holders_walk_schedules),
	};

	if (argc == 4 && !strcmp(argv[1], "fork-hold"))
		return fork_hold(argv[2], argv[3]);
	signal(SIGPIPE, SIG_IGN);
	return vt_run("holders", cases, VT_COUNT(cases));
}
