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
 * The last case takes NeuronCore 1, free by then, from a process while its
 * job runs. Every wait is on a pipe or a child's exit, never on time.
 *
 * vm_holders fork-hold <device> <nc>: the first setup alone, for the tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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
static int kmsg_has(int fd, const char *want)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			return 0;
		rec[n] = '\0';
		if (strstr(rec, want))
			return 1;
	}
}

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
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	VT_ASSERT(kmsg >= 0 && lseek(kmsg, 0, SEEK_END) >= 0, "/dev/kmsg: %s", strerror(errno));

	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 0) == 0, "TAKE_BACK: %s",
		  strerror(errno));
	snprintf(want, sizeof(want), "NeuronCore 0 taken back from pid %d (vm_holders) by pid %d (vm_holders) (uid 0)",
		 (int)s_pid, (int)getpid());
	found = kmsg_has(kmsg, want);
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

/*
 * J: its first job (10 s, the longest there is) takes NeuronCore 1 and
 * runs until the parent, having seen it run, signals J (the job ends
 * with EINTR); J says so on @done, and after a word on @go its next job
 * must find the core taken back. Exits 0, or the failed step.
 */
static int job_then_cancelled(int done, int go)
{
	struct neuron_sim_exec e = { .size = sizeof(e), .nc = 1,
				     .duration_us = NEURON_EXEC_MAX_DURATION_US };
	struct sigaction sa = { .sa_handler = on_usr1 };
	int fd = vt_open_dev(DEV);
	char ch = 'd';

	if (fd < 0 || sigaction(SIGUSR1, &sa, NULL))
		return 40;
	if (ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) && errno != EINTR)
		return 41;
	if (write(done, &ch, 1) != 1 || read(go, &ch, 1) != 1)
		return 43;
	if (sim_exec(fd, 1) != -1 || errno != ECANCELED)
		return 42;
	return 0;
}

/*
 * TAKE_BACK waits for the job: before J's job holds NeuronCore 1 there
 * is nothing to take (ENOENT), while it runs TAKE_BACK is refused
 * (EBUSY), and once it has ended (J's signal, J's word) TAKE_BACK takes
 * the core, which J's next job then finds gone (ECANCELED). A job of the
 * holder takes only its core's own lock, which TAKE_BACK holds while it
 * checks for jobs and frees the core. Every step waits on the state that
 * proves the one before: J's job runs until it is told to stop.
 */
static int take_back_waits_for_job(void)
{
	struct neuron_core_holders h;
	int done, go, r, e, st = 0;
	char ch = 'g';
	pid_t j;
	int fd = vt_open_dev(DEV);

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(holders(fd, 1, &h) == 0 && h.state == NEURON_CORE_FREE, "before: state %u",
		  h.state);
	j = spawn(job_then_cancelled, &done, &go);
	VT_ASSERT(j >= 0, "fork");
	do {
		r = core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1);
		e = errno;
		VT_ASSERT(r != 0, "TAKE_BACK took the core before J's job was seen running");
		VT_ASSERT(e == ENOENT || e == EBUSY, "TAKE_BACK before and during the job: %s",
			  strerror(e));
		VT_ASSERT(waitpid(j, &st, WNOHANG) == 0,
			  "J ended before its job was seen: status %#x (exit 40 open, 41 its job)", st);
	} while (e != EBUSY);
	/* J is in its job: end it, and wait for J to say it returned */
	VT_ASSERT(kill(j, SIGUSR1) == 0, "kill: %s", strerror(errno));
	VT_ASSERT(read(done, &ch, 1) == 1, "J ended without its word");
	VT_ASSERT(core_ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, 1) == 0, "TAKE_BACK after the job: %s",
		  strerror(errno));
	VT_ASSERT(write(go, &ch, 1) == 1, "J gone");
	close(go);
	close(done);
	VT_ASSERT(waitpid(j, &st, 0) == j && WIFEXITED(st) && !WEXITSTATUS(st),
		  "J: status %#x (exit 42: the next job not ECANCELED, 43: pipe)", st);
	VT_ASSERT(holders(fd, 1, &h) == 0 && h.state == NEURON_CORE_FREE, "after: state %u",
		  h.state);
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
		VT_CASE(hidden_from_child_pidns),
		VT_CASE(bad_arguments_einval),
		VT_CASE(take_back_needs_admin),
		VT_CASE(stuck_holder_ready),
		VT_CASE(take_back_from_stuck_holder),
		VT_CASE(take_back_from_dead_reserver),
		VT_CASE(take_back_waits_for_job),
	};

	if (argc == 4 && !strcmp(argv[1], "fork-hold"))
		return fork_hold(argv[2], argv[3]);
	signal(SIGPIPE, SIG_IGN);
	return vt_run("holders", cases, VT_COUNT(cases));
}
