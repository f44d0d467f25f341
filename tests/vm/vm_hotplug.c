// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: simulated devices added and removed at run time through the
 * neuron_sim bus, and removal while the device is in use. Expects the
 * module loaded with sim_devices=0 fwio_timeout_ms=5000 fwio_retries=3 and
 * no simulated device left by the shell suite; every case removes what it
 * added. Usage: vm_hotplug <path of neuron-monitor>
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <glob.h>
#include <linux/capability.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include "vmdev.h"

#define BUS		VT_SIM_BUS
#define SYSFS_DEV	VT_SYSFS_DEV
#define RING_BYTES	4096

static const char *monitor;

/* ---- helpers ------------------------------------------------------------- */

static int get_info(int fd, struct neuron_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, NEURON_IOCTL_GET_INFO, info);
}

static int nds_acquire(int fd, struct neuron_nds_acquire *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	return ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, a);
}

/* NDS_READ of @pid's slab, its first 8 bytes into @buf */
static int nds_read(int fd, int pid, void *buf)
{
	struct neuron_nds_read r = { .size = sizeof(r), .pid = pid, .bytes = 8 };

	r.user_ptr = (uintptr_t)buf;
	return ioctl(fd, NEURON_IOCTL_NDS_READ, &r);
}

static int nq_init(int fd, int nc, struct neuron_nq_init *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->nc = nc;
	a->nq_type = NEURON_NQ_TYPE_ERROR;
	a->ring_size = RING_BYTES;
	return ioctl(fd, NEURON_IOCTL_NQ_INIT, a);
}

static int sim_exec(int fd, int nc, uint64_t duration_us, uint64_t timeout_us,
		    struct neuron_sim_exec *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->nc = nc;
	a->duration_us = duration_us;
	a->timeout_us = timeout_us;
	return ioctl(fd, NEURON_IOCTL_SIM_EXEC, a);
}

static int counter_add(int fd, int nc, int id, uint64_t delta)
{
	struct neuron_nds_counter_add a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.nc = nc;
	a.id = id;
	a.delta = delta;
	return ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a);
}

/* The waitpid status of @pid, reaped; -1 on error. */
static int reap(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid ? st : -1;
}

static int exited_ok(int st)
{
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The kernel log from the line @marker on (malloc'd; NULL if not found). */
static char *log_since(const char *marker)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p, *out;

	if (len <= 0)
		return NULL;
	buf = malloc(len + 1);
	if (!buf)
		return NULL;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	p = NULL;
	for (char *q = strstr(buf, marker); q; q = strstr(q + 1, marker))
		p = q;
	out = p ? strdup(p) : NULL;
	free(buf);
	return out;
}

static void log_mark(char *marker, size_t len, const char *what)
{
	snprintf(marker, len, "vm_hotplug-mark %s %ld", what, vt_now_ms());
	vt_write_file("/dev/kmsg", marker);
}

/* Poll @cond for up to @bound_ms: 1 when it came true. */
#define WAIT_FOR(cond, bound_ms) ({					\
	long t0_ = vt_now_ms();						\
	int ok_ = 0;							\
	for (;;) {							\
		if (cond) { ok_ = 1; break; }				\
		if (vt_now_ms() - t0_ > (bound_ms))			\
			break;						\
		usleep(2000);						\
	}								\
	ok_;								\
})

/* ---- cases ----------------------------------------------------------------- */

/* Every file operation on an fd of a removed device: -ENODEV; close works. */
static int open_fd_gets_enodev(void)
{
	struct neuron_info info;
	struct neuron_nds_acquire a, b;
	char buf[16];
	void *m;
	int fd, idx;

	VT_ASSERT(vt_sim_new(10, 2) == 0, "new_device 10");
	idx = vt_sim_index(10);
	VT_ASSERT(idx >= 0, "no neuron_index");
	fd = vt_open_dev(idx);
	VT_ASSERT(fd >= 0, "open /dev/neuron%d: %s", idx, strerror(errno));
	VT_ASSERT(get_info(fd, &info) == 0 && info.device_index == (uint32_t)idx &&
		  info.nc_count == 2 && info.backend == NEURON_BACKEND_SIM, "GET_INFO before");
	VT_ASSERT_ERRNO(read(fd, buf, sizeof(buf)), EINVAL);
	VT_ASSERT(nds_acquire(fd, &a) == 0, "NDS_ACQUIRE before");

	VT_ASSERT(vt_sim_del(10) == 0, "del_device 10");
	VT_ASSERT_ERRNO(get_info(fd, &info), ENODEV);
	VT_ASSERT_ERRNO(nds_acquire(fd, &b), ENODEV);
	VT_ASSERT_ERRNO(nds_read(fd, 0, buf), ENODEV);
	VT_ASSERT_ERRNO(read(fd, buf, sizeof(buf)), ENODEV);
	VT_ASSERT_ERRNO(write(fd, "x", 1), ENODEV);
	errno = 0;
	m = mmap(NULL, a.mmap_size, PROT_READ, MAP_SHARED, fd, a.mmap_offset);
	VT_ASSERT(m == MAP_FAILED && errno == ENODEV, "mmap after removal: %s", strerror(errno));
	VT_ASSERT(vt_sim_index(10) < 0, "neuron_sim10 still on the bus");
	snprintf(buf, sizeof(buf), "%d", idx);
	VT_ASSERT(vt_open_dev(idx) < 0 && errno == ENOENT, "/dev/neuron%s still there", buf);
	VT_ASSERT(close(fd) == 0, "close");
	return 0;
}

/*
 * A process holds a mapped NDS slab and a mapped ring with an entry in it,
 * and has counted; the device goes. The mappings stay readable and
 * writable (no SIGBUS, no SIGSEGV: the child would die), the entry and the
 * counts are still there, and what it counted is in the kernel log.
 */
static int mappings_survive_removal(void)
{
	struct neuron_nds_acquire a;
	struct neuron_nq_init q;
	struct neuron_sim_exec x;
	char marker[96], *log, want[128];
	volatile uint64_t *slab;
	volatile uint8_t *ring;
	int fd, idx, st;
	pid_t pid;

	VT_ASSERT(vt_sim_new(11, 2) == 0, "new_device 11");
	idx = vt_sim_index(11);
	VT_ASSERT(idx >= 0, "no neuron_index");
	log_mark(marker, sizeof(marker), "mappings");
	pid = fork();
	if (pid == 0) {
		struct neuron_nq_entry *e;

		fd = vt_open_dev(idx);
		if (fd < 0 || nds_acquire(fd, &a) || nq_init(fd, 1, &q))
			_exit(10);
		slab = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    a.mmap_offset);
		ring = mmap(NULL, q.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    q.mmap_offset);
		if (slab == MAP_FAILED || ring == MAP_FAILED)
			_exit(11);
		/* counted through the ioctl and through the mapping */
		if (counter_add(fd, 1, NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR, 5))
			_exit(12);
		slab[neuron_nds_nc_offset(1, NDS_NC_COUNTER_INFER_COMPLETED) / 8] += 7;
		if (vt_dbg_write(idx, "inject/tpb_error", "1 EVENT_ERROR") ||
		    sim_exec(fd, 1, 0, 0, &x) || x.entries != 1)
			_exit(13);
		close(fd);	/* the mappings keep the file */
		if (vt_sim_del(11))
			_exit(14);
		/* after removal: the memory is still there and still ours */
		e = (struct neuron_nq_entry *)(ring + NEURON_NQ_RING_OFFSET);
		if ((e->header & NEURON_NQ_HDR_TYPE_MASK) != NEURON_NQ_NOTIFIC_TPB_ERROR ||
		    e->error_id != NEURON_TPB_ERROR_EVENT_ERROR)
			_exit(15);
		slab[neuron_nds_nc_offset(1, NDS_NC_COUNTER_INFER_COMPLETED) / 8] += 1;
		if (slab[neuron_nds_nc_offset(1, NDS_NC_COUNTER_INFER_COMPLETED) / 8] != 8 ||
		    slab[neuron_nds_nc_offset(1, NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR) / 8] != 5)
			_exit(16);
		ring[100] = 0x5a;
		if (ring[100] != 0x5a)
			_exit(17);
		if (munmap((void *)slab, a.mmap_size) || munmap((void *)ring, q.mmap_size))
			_exit(18);
		_exit(0);
	}
	st = reap(pid);
	VT_ASSERT(exited_ok(st), "child: %s %d", WIFSIGNALED(st) ? "killed by signal" : "exit",
		  WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	log = log_since(marker);
	VT_ASSERT(log, "kernel log unreadable");
	snprintf(want, sizeof(want), "neuron%d: removed: nc1 totals:", idx);
	VT_ASSERT(strstr(log, want), "no '%s' line", want);
	VT_ASSERT(strstr(strstr(log, want), "execute_sw_semaphore_error=5") &&
		  strstr(strstr(log, want), "success=7"), "counts missing: %.300s", strstr(log, want));
	snprintf(want, sizeof(want), "neuron%d: removed with 1 process holding an NDS slab", idx);
	VT_ASSERT(strstr(log, want), "no '%s' line", want);
	free(log);
	return 0;
}

/* Jobs sleeping in their ioctl (one hung, one long) end with -ENODEV at once. */
static int job_in_flight_ends(void)
{
	struct neuron_sim_exec x;
	char path[96], buf[512];
	pid_t hung, busy;
	long t0, ms;
	int idx, st;

	VT_ASSERT(vt_sim_new(12, 2) == 0, "new_device 12");
	idx = vt_sim_index(12);
	VT_ASSERT(idx >= 0, "no neuron_index");
	VT_ASSERT(vt_dbg_write(idx, "inject/hang", "0") == 0, "arm hang");
	hung = fork();
	if (hung == 0) {
		int fd = vt_open_dev(idx);

		if (fd < 0)
			_exit(10);
		/* a hung job waits out its timeout: a minute */
		if (sim_exec(fd, 0, 0, NEURON_EXEC_MAX_TIMEOUT_US, &x) == 0 || errno != ENODEV)
			_exit(11);
		_exit(0);
	}
	busy = fork();
	if (busy == 0) {
		int fd = vt_open_dev(idx);

		if (fd < 0)
			_exit(10);
		if (sim_exec(fd, 1, NEURON_EXEC_MAX_DURATION_US, 0, &x) == 0 || errno != ENODEV)
			_exit(11);
		_exit(0);
	}
	/* both jobs run: nc0's hang was taken (hang 0), both cores are held */
	snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/inject/armed", idx);
	VT_ASSERT(WAIT_FOR(!vt_read_file(path, buf, sizeof(buf)) && strstr(buf, "hang 0") &&
			   !strstr(buf, "hang 1") && !strstr(buf, "owner 0 "), 10000),
		  "jobs never started: %s", buf);
	t0 = vt_now_ms();
	VT_ASSERT(vt_sim_del(12) == 0, "del_device 12");
	st = reap(hung);
	VT_ASSERT(exited_ok(st), "hung job: status %#x", st);
	st = reap(busy);
	VT_ASSERT(exited_ok(st), "running job: status %#x", st);
	ms = vt_now_ms() - t0;
	printf("vm_hotplug: removal with two jobs in flight: %ld ms\n", ms);
	VT_ASSERT(ms < 5000, "removal and the jobs' return took %ld ms", ms);
	return 0;
}

/*
 * A new_device whose creation fails after its node appeared (at the end of
 * the sysfs setup, armed through sim_create_fault; the failure waits for a
 * job on the new device). A process that opened the node, holds a slab,
 * turned on counter notification and runs a job and counter updates sees
 * its job end with -ENODEV at once and its updates end with -ENODEV;
 * closing works and no kernel report follows (before: the sysfs state its
 * updates walk was freed before the device was marked gone, and the failed
 * creation waited out the job).
 */
#define CREATE_FAULT	"/sys/kernel/debug/neuron/sim_create_fault"
#define FAILED_ID	21

static atomic_int adds_errno;
static atomic_long adds_done;

/* Count until the device refuses (bounded: ETIMEDOUT after 20 s). */
static void *opener_adder(void *arg)
{
	long t0 = vt_now_ms();
	int fd = *(int *)arg;

	for (;;) {
		if (counter_add(fd, 0, NDS_NC_COUNTER_ERR_HW, 1)) {
			atomic_store(&adds_errno, errno);
			break;
		}
		atomic_fetch_add(&adds_done, 1);
		if (vt_now_ms() - t0 > 20000) {
			atomic_store(&adds_errno, ETIMEDOUT);
			break;
		}
	}
	return NULL;
}

/* The early opener: its verdict is its exit status (0: all as expected). */
static int early_opener(int idx)
{
	struct neuron_nds_acquire a;
	struct neuron_sim_exec x;
	char path[128];
	pthread_t th;
	long t0, ms;
	int fd = -1, ret, err;

	if (!WAIT_FOR((fd = vt_open_dev(idx)) >= 0, 10000))
		return 10;
	if (nds_acquire(fd, &a))
		return 11;
	snprintf(path, sizeof(path), SYSFS_DEV "/info/notify_delay", idx);
	if (!WAIT_FOR(vt_write_file(path, "0") == 0, 10000))
		return 12;
	if (pthread_create(&th, NULL, opener_adder, &fd))
		return 13;
	t0 = vt_now_ms();
	ret = sim_exec(fd, 0, NEURON_EXEC_MAX_DURATION_US, 0, &x);	/* 10 s */
	err = errno;
	ms = vt_now_ms() - t0;
	pthread_join(th, NULL);
	printf("vm_hotplug: early opener: job %s after %ld ms, %ld counter updates, then %s\n",
	       ret ? vt_err_name(-err) : "completed", ms, atomic_load(&adds_done),
	       vt_err_name(-atomic_load(&adds_errno)));
	fflush(stdout);
	if (ret == 0 || err != ENODEV)
		return 14;	/* the failed creation waited for the job */
	if (atomic_load(&adds_errno) != ENODEV)
		return 15;
	if (counter_add(fd, 0, NDS_NC_COUNTER_ERR_HW, 1) == 0 || errno != ENODEV)
		return 16;
	return close(fd) ? 17 : 0;
}

static int failed_create_fences_openers(void)
{
	char path[96], buf[64], marker[96], *log;
	pid_t opener;
	long t0, ms;
	int idx, ret, st;

	/* the new device would take the lowest free index */
	for (idx = 0; idx < 64; idx++) {
		snprintf(path, sizeof(path), "/dev/neuron%d", idx);
		if (access(path, F_OK))
			break;
	}
	VT_ASSERT(vt_write_file(CREATE_FAULT, "sysfs") == 0, "arm sim_create_fault");
	VT_ASSERT(vt_read_file(CREATE_FAULT, buf, sizeof(buf)) == 0 && !strcmp(buf, "sysfs\n"),
		  "armed reads '%s'", buf);
	log_mark(marker, sizeof(marker), "failed-create");
	opener = fork();
	if (opener == 0)
		_exit(early_opener(idx));
	t0 = vt_now_ms();
	ret = vt_sim_new(FAILED_ID, 2);
	ms = vt_now_ms() - t0;
	st = reap(opener);
	printf("vm_hotplug: failed new_device returned %s after %ld ms\n", vt_err_name(ret), ms);
	VT_ASSERT(ret == -ENOMEM, "new_device: %s, expected ENOMEM", vt_err_name(ret));
	VT_ASSERT(exited_ok(st), "early opener: status %#x (10 no node, 11 no slab, 12 notify, 14 the job was waited for, 15/16 updates not ENODEV, 17 close)",
		  st);
	VT_ASSERT(access(path, F_OK) && errno == ENOENT, "the node stayed");
	snprintf(path, sizeof(path), BUS "/devices/neuron_sim%d", FAILED_ID);
	VT_ASSERT(access(path, F_OK) && errno == ENOENT, "the bus device stayed");
	VT_ASSERT(vt_read_file(CREATE_FAULT, buf, sizeof(buf)) == 0 && !strcmp(buf, "none\n"),
		  "one-shot: reads '%s' after", buf);
	log = log_since(marker);
	VT_ASSERT(log && strstr(log, "cannot create the sysfs tree") &&
		  strstr(log, "rejected: new_device: cannot create device 21"),
		  "the failure was not logged: %s", log ? log : "(no log)");
	free(log);
	/* the simulator still works: the same id now succeeds */
	VT_ASSERT(vt_sim_new(FAILED_ID, 2) == 0, "new_device after the failure");
	VT_ASSERT(vt_sim_del(FAILED_ID) == 0, "del_device");
	return 0;
}

/*
 * A FW-IO exchange in flight against a hung firmware (5 s x 3 attempts)
 * ends with -ENODEV at removal, long before its own timeout.
 */
static int fw_exchange_in_flight_ends(void)
{
	uint64_t req0;
	long t0, ms;
	int idx, st;
	pid_t pid;

	VT_ASSERT(vt_sim_new(13, 1) == 0, "new_device 13");
	idx = vt_sim_index(13);
	VT_ASSERT(idx >= 0, "no neuron_index");
	VT_ASSERT(vt_dbg_write(idx, "fw/fault", "timeout 0") == 0, "arm hung firmware");
	req0 = vt_dbg_kv(idx, "fw/sim_stats", "requests");
	VT_ASSERT(req0 != UINT64_MAX, "fw/sim_stats");
	pid = fork();
	if (pid == 0) {
		struct neuron_fw_read r;
		int fd = vt_open_dev(idx);

		if (fd < 0)
			_exit(10);
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.count = 1;
		if (ioctl(fd, NEURON_IOCTL_FW_READ, &r) == 0 || errno != ENODEV)
			_exit(11);
		_exit(0);
	}
	/* in flight: the firmware saw the request (and will never answer it) */
	VT_ASSERT(WAIT_FOR(vt_dbg_kv(idx, "fw/sim_stats", "requests") > req0, 10000),
		  "the exchange never reached the firmware");
	t0 = vt_now_ms();
	VT_ASSERT(vt_sim_del(13) == 0, "del_device 13");
	st = reap(pid);
	ms = vt_now_ms() - t0;
	printf("vm_hotplug: removal with a FW-IO exchange in flight: %ld ms\n", ms);
	VT_ASSERT(exited_ok(st), "FW_READ: status %#x (expected -ENODEV)", st);
	VT_ASSERT(ms < 1000, "removal took %ld ms with an exchange in flight", ms);
	return 0;
}

/* sysfs files held open: reads after removal fail with -ENODEV. */
static int sysfs_open_gets_enodev(void)
{
	char path[160], buf[32];
	int idx, fd1, fd2;

	VT_ASSERT(vt_sim_new(14, 2) == 0, "new_device 14");
	idx = vt_sim_index(14);
	VT_ASSERT(idx >= 0, "no neuron_index");
	snprintf(path, sizeof(path), SYSFS_DEV "/core_count", idx);
	fd1 = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), SYSFS_DEV "/neuron_core1/stats/status/success/total", idx);
	fd2 = open(path, O_RDONLY | O_CLOEXEC);
	VT_ASSERT(fd1 >= 0 && fd2 >= 0, "open sysfs files");
	VT_ASSERT(pread(fd1, buf, sizeof(buf), 0) == 2 && buf[0] == '2', "core_count before");
	VT_ASSERT(pread(fd2, buf, sizeof(buf), 0) == 2 && buf[0] == '0', "total before");
	VT_ASSERT(vt_sim_del(14) == 0, "del_device 14");
	VT_ASSERT_ERRNO(pread(fd1, buf, sizeof(buf), 0), ENODEV);
	VT_ASSERT_ERRNO(pread(fd2, buf, sizeof(buf), 0), ENODEV);
	close(fd1);
	close(fd2);
	return 0;
}

/*
 * debugfs files held open across their device's removal: reads fail with
 * EIO and closing them touches nothing the removal freed (the knobs'
 * release once read the knob's freed record: an oops on 6.1-rt, whose
 * slab poison made its index 0x6b6b6b6b, seen in the hostile fuzzer).
 */
static int debugfs_open_across_removal(void)
{
	static const struct {
		const char *file;
		int flags;
	} files[] = {
		{ "inject/armed", O_RDONLY },	/* a knob with a reader (seq_file) */
		{ "fw/fault", O_RDWR },		/* read and write */
		{ "inject/hw_error", O_WRONLY },	/* write only */
		{ "fw/sim_stats", O_RDONLY },
		{ "fw/slow_ms", O_RDWR },	/* a typed attribute */
	};
	char path[160], buf[256];
	int fds[VT_COUNT(files)], idx;
	size_t i;

	VT_ASSERT(vt_sim_new(13, 2) == 0, "new_device 13");
	idx = vt_sim_index(13);
	VT_ASSERT(idx >= 0, "no neuron_index");
	for (i = 0; i < VT_COUNT(files); i++) {
		snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/%s", idx, files[i].file);
		fds[i] = open(path, files[i].flags | O_CLOEXEC);
		VT_ASSERT(fds[i] >= 0, "open %s: %s", path, strerror(errno));
	}
	VT_ASSERT(read(fds[0], buf, sizeof(buf)) > 0, "inject/armed before");
	VT_ASSERT(vt_sim_del(13) == 0, "del_device 13");
	VT_ASSERT_ERRNO(read(fds[1], buf, sizeof(buf)), EIO);
	VT_ASSERT_ERRNO(write(fds[2], "0 nc_ue", 7), EIO);
	for (i = 0; i < VT_COUNT(files); i++)
		VT_ASSERT(close(fds[i]) == 0, "close %s", files[i].file);
	return 0;
}

/*
 * /dev/neuron<N> of a removed device is reused only once nothing of it is
 * left: not while an fd is open, not while a mapping is.
 */
struct uffd_ioctl {
	int fd;
	void *arg;
	int ret, err;
};

static void *uffd_ioctl_thread(void *p)
{
	struct uffd_ioctl *u = p;

	errno = 0;
	u->ret = ioctl(u->fd, NEURON_IOCTL_GET_INFO, u->arg);
	u->err = errno;
	return NULL;
}

/*
 * An ioctl whose argument sits on a page nobody provides (userfaultfd,
 * never answered until the end) must not hold up device removal, nor an
 * open of another device: the dispatcher copies the argument in before it
 * takes the device's gone_sem. The removal runs in a child bounded to 5 s
 * (before that fix it waited for the fault forever). Once the fault is
 * answered, the ioctl finds the device gone: ENODEV.
 */
static int removal_not_blocked_by_user_fault(void)
{
	struct vt_uffd uf;
	struct uffd_ioctl u = { .ret = 0 };
	pthread_t th;
	int idx, idx2, st = 0;
	pid_t pid;
	long ms;

	if (vt_uffd_open(&uf))
		return -1;

	VT_ASSERT(vt_sim_new(14, 1) == 0 && vt_sim_new(15, 1) == 0, "new_device 14, 15");
	idx = vt_sim_index(14);
	idx2 = vt_sim_index(15);
	u.fd = vt_open_dev(idx);
	VT_ASSERT(u.fd >= 0, "open");
	u.arg = uf.mem;
	VT_ASSERT(pthread_create(&th, NULL, uffd_ioctl_thread, &u) == 0, "pthread_create");
	/* the fault message proves the ioctl is inside the copy */
	VT_ASSERT(vt_uffd_faulted(&uf, 5000), "the ioctl never faulted on the page");

	pid = fork();
	if (pid == 0) {
		int fd = vt_open_dev(idx2);

		_exit(fd >= 0 && close(fd) == 0 && vt_sim_del(14) == 0 ? 0 : 1);
	}
	ms = vt_wait_bounded(pid, &st, 5000);
	/* answer the fault whatever happened, so nothing stays blocked */
	vt_uffd_answer(&uf);
	pthread_join(th, NULL);
	if (ms >= 5000) {
		waitpid(pid, &st, 0);
		VT_ASSERT(0, "removal (or an open of another device) blocked behind the faulting ioctl");
	}
	VT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "open of neuron%d or del_device 14 failed", idx2);
	VT_ASSERT(u.ret == -1 && u.err == ENODEV, "the faulting ioctl returned %d/%s, expected ENODEV",
		  u.ret, strerror(u.err));
	close(u.fd);
	vt_uffd_close(&uf);
	VT_ASSERT(vt_sim_del(15) == 0, "del_device 15");
	return 0;
}

struct uffd_nds_read {
	int fd;
	void *buf;
	int ret, err;
};

static void *uffd_nds_read_thread(void *p)
{
	struct uffd_nds_read *u = p;

	errno = 0;
	u->ret = nds_read(u->fd, 0, u->buf);
	u->err = errno;
	return NULL;
}

/*
 * Under gone_sem and the NDS lock NDS_READ writes to the user only with
 * page faults disabled; a destination page that is not present and
 * writable sends the copy through a kernel buffer, to the user after
 * both. So a page nobody provides (userfaultfd) holds up neither the
 * owner's own acquire and mapping of its slab nor device removal (in a
 * child bounded to 5 s). Once the fault is answered the read completes:
 * what it copied was read before.
 */
static int removal_not_blocked_by_nds_read_fault(void)
{
	struct uffd_nds_read u = { .ret = 0 };
	struct neuron_nds_acquire a;
	struct vt_uffd uf;
	pthread_t th;
	int idx, st = 0;
	pid_t pid;
	long ms;
	void *m;

	if (vt_uffd_open(&uf))
		return -1;
	VT_ASSERT(vt_sim_new(17, 1) == 0, "new_device 17");
	idx = vt_sim_index(17);
	u.fd = vt_open_dev(idx);
	VT_ASSERT(u.fd >= 0, "open");
	VT_ASSERT(nds_acquire(u.fd, &a) == 0, "NDS_ACQUIRE");
	u.buf = uf.mem;
	VT_ASSERT(pthread_create(&th, NULL, uffd_nds_read_thread, &u) == 0, "pthread_create");
	VT_ASSERT(vt_uffd_faulted(&uf, 5000), "NDS_READ never faulted on the page");

	/* the NDS lock is free: the owner's acquire and map go through */
	VT_ASSERT(nds_acquire(u.fd, &a) == 0, "NDS_ACQUIRE while the read faults: %s",
		  strerror(errno));
	m = mmap(NULL, a.mmap_size, PROT_READ, MAP_SHARED, u.fd, a.mmap_offset);
	VT_ASSERT(m != MAP_FAILED, "map while the read faults: %s", strerror(errno));
	munmap(m, a.mmap_size);
	pid = fork();
	if (pid == 0)
		_exit(vt_sim_del(17) == 0 ? 0 : 1);
	ms = vt_wait_bounded(pid, &st, 5000);
	vt_uffd_answer(&uf);
	pthread_join(th, NULL);
	if (ms >= 5000) {
		waitpid(pid, &st, 0);
		VT_ASSERT(0, "removal blocked behind the faulting NDS_READ");
	}
	VT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "del_device 17 failed");
	VT_ASSERT(u.ret == 0, "the faulting NDS_READ returned %d/%s, expected 0", u.ret,
		  strerror(u.err));
	close(u.fd);
	vt_uffd_close(&uf);
	return 0;
}

static int index_reused_after_release(void)
{
	struct neuron_nds_acquire a;
	int fd, first, idx;
	void *m;

	VT_ASSERT(vt_sim_new(20, 1) == 0, "new_device 20");
	first = vt_sim_index(20);
	VT_ASSERT(first == 0, "the first device is neuron%d, expected neuron0", first);
	fd = vt_open_dev(first);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(vt_sim_del(20) == 0, "del_device 20");
	VT_ASSERT(vt_sim_new(21, 1) == 0, "new_device 21");
	idx = vt_sim_index(21);
	VT_ASSERT(idx == 1, "with neuron0's fd open the next device is neuron%d", idx);
	VT_ASSERT(close(fd) == 0, "close");
	VT_ASSERT(vt_sim_new(22, 1) == 0, "new_device 22");
	idx = vt_sim_index(22);
	VT_ASSERT(idx == 0, "after the last close the next device is neuron%d", idx);

	/* the same with a mapping instead of an fd */
	fd = vt_open_dev(idx);
	VT_ASSERT(fd >= 0 && nds_acquire(fd, &a) == 0, "open, NDS_ACQUIRE");
	m = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	VT_ASSERT(m != MAP_FAILED, "mmap");
	close(fd);
	VT_ASSERT(vt_sim_del(22) == 0, "del_device 22");
	VT_ASSERT(vt_sim_new(23, 1) == 0, "new_device 23");
	VT_ASSERT(vt_sim_index(23) == 2, "with neuron0 mapped the next device is neuron%d",
		  vt_sim_index(23));
	VT_ASSERT(munmap(m, a.mmap_size) == 0, "munmap");
	VT_ASSERT(vt_sim_new(24, 1) == 0, "new_device 24");
	VT_ASSERT(vt_sim_index(24) == 0, "after munmap the next device is neuron%d",
		  vt_sim_index(24));
	VT_ASSERT(vt_sim_del(21) == 0 && vt_sim_del(23) == 0 && vt_sim_del(24) == 0, "cleanup");
	return 0;
}

/* Only root: others cannot open the files, root without CAP_SYS_ADMIN gets -EPERM. */
static int non_root_refused(void)
{
	int st;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (open(BUS "/new_device", O_WRONLY) >= 0 || errno != EACCES)
			_exit(11);
		if (open(BUS "/del_device", O_WRONLY) >= 0 || errno != EACCES)
			_exit(12);
		_exit(0);
	}
	st = reap(pid);
	VT_ASSERT(exited_ok(st), "uid 65534: status %#x", st);

	pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];

		if (syscall(SYS_capget, &h, d))
			_exit(10);
		d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
		if (syscall(SYS_capset, &h, d))
			_exit(11);
		if (vt_write_file(BUS "/new_device", "30 1") != -EPERM)
			_exit(12);
		if (vt_write_file(BUS "/del_device", "30") != -EPERM)
			_exit(13);
		_exit(0);
	}
	st = reap(pid);
	VT_ASSERT(exited_ok(st), "root without CAP_SYS_ADMIN: status %#x", st);
	VT_ASSERT(vt_sim_index(30) < 0, "a device was added");
	return 0;
}

/* ---- add/remove cycles under load ---------------------------------------- */

/* 100 unless VM_HOTPLUG_CYCLES says otherwise (the debug kernel runs fewer) */
#define STRESS_CYCLES_DEFAULT	100
#define STRESS_STATIC	41	/* a device that stays for the whole run */
#define STRESS_CYCLING	40	/* the one added and removed */

static volatile int *stop_flag;

static int allowed(int err, const int *ok, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (err == ok[i])
			return 1;
	return 0;
}

#define ALLOW(...) ({ const int ok_[] = { __VA_ARGS__ }; allowed(errno, ok_, VT_COUNT(ok_)); })

/*
 * Open every device there is and use it: info, a mapped slab counted
 * through, a mapped ring, a job. Any errno but those a removal explains
 * is a failure (exit status names the step).
 */
static int worker_devices(void)
{
	unsigned long rounds = 0;

	while (!*stop_flag) {
		for (int n = 0; n < 6; n++) {
			struct neuron_nds_acquire a;
			struct neuron_nq_init q;
			struct neuron_sim_exec x;
			struct neuron_info info;
			int fd = vt_open_dev(n);

			if (fd < 0) {
				if (!ALLOW(ENOENT, ENXIO, ENODEV))
					return 20;
				continue;
			}
			if (get_info(fd, &info) && !ALLOW(ENODEV))
				return 21;
			if (nds_acquire(fd, &a) == 0) {
				volatile uint64_t *s = mmap(NULL, a.mmap_size,
							    PROT_READ | PROT_WRITE, MAP_SHARED,
							    fd, a.mmap_offset);

				if (s == MAP_FAILED) {
					if (!ALLOW(ENODEV))
						return 22;
				} else {
					s[neuron_nds_nc_offset(0, NDS_NC_COUNTER_INFER_COMPLETED) / 8]++;
					munmap((void *)s, a.mmap_size);
				}
			} else if (!ALLOW(ENODEV)) {
				return 23;
			}
			if (nq_init(fd, 0, &q) == 0) {
				void *r = mmap(NULL, q.mmap_size, PROT_READ, MAP_SHARED, fd,
					       q.mmap_offset);

				if (r == MAP_FAILED && !ALLOW(ENODEV))
					return 24;
				if (r != MAP_FAILED)
					munmap(r, q.mmap_size);
			} else if (!ALLOW(ENODEV, EBUSY)) {
				return 25;
			}
			if (sim_exec(fd, 0, 200, 0, &x) && !ALLOW(ENODEV, EBUSY))
				return 26;
			close(fd);
		}
		rounds++;
	}
	return rounds ? 0 : 27;
}

/* Read counter files of whatever devices there are. */
static int worker_sysfs(void)
{
	unsigned long rounds = 0;
	char buf[32];

	while (!*stop_flag) {
		glob_t g;
		size_t i;

		if (glob("/sys/class/neuron_device/neuron*/neuron_core0/stats/status/success/total",
			 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				int r = vt_read_file(g.gl_pathv[i], buf, sizeof(buf));

				if (r && r != -ENOENT && r != -ENODEV)
					return 30;
			}
			globfree(&g);
		}
		rounds++;
	}
	return rounds ? 0 : 31;
}

/* Counter dumps over netlink: every one must succeed. */
static int worker_netlink(void)
{
	unsigned long rounds = 0;

	while (!*stop_flag) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execl(monitor, monitor, "--counters", (char *)NULL);
			_exit(127);
		}
		st = reap(pid);
		if (!exited_ok(st))
			return 40;
		rounds++;
	}
	return rounds ? 0 : 41;
}

static int stress_add_remove_under_load(void)
{
	int (*const workers[])(void) = { worker_devices, worker_devices, worker_sysfs,
					 worker_netlink };
	pid_t pid[VT_COUNT(workers)];
	size_t i;
	long t0;
	int c, st, failed = 0, cycles = STRESS_CYCLES_DEFAULT;
	const char *env = getenv("VM_HOTPLUG_CYCLES");

	if (env && atoi(env) > 0)
		cycles = atoi(env);
	stop_flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(stop_flag != MAP_FAILED, "mmap");
	*stop_flag = 0;
	VT_ASSERT(vt_sim_new(STRESS_STATIC, 2) == 0, "new_device static");
	for (i = 0; i < VT_COUNT(workers); i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(workers[i]());
	}
	t0 = vt_now_ms();
	for (c = 0; c < cycles; c++) {
		int a = vt_sim_new(STRESS_CYCLING, 1 + c % 4);
		int d = a ? a : vt_sim_del(STRESS_CYCLING);

		if (a || d) {
			failed = c + 1;
			break;
		}
	}
	*stop_flag = 1;
	for (i = 0; i < VT_COUNT(workers); i++) {
		st = reap(pid[i]);
		VT_ASSERT(exited_ok(st), "worker %zu: %s %d", i,
			  WIFSIGNALED(st) ? "killed by signal" : "exit",
			  WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	printf("vm_hotplug: %d add/remove cycles under load in %ld ms\n", c, vt_now_ms() - t0);
	VT_ASSERT(!failed, "cycle %d failed", failed - 1);
	VT_ASSERT(vt_sim_del(STRESS_STATIC) == 0, "del_device static");
	/* nothing leaked: a new device gets neuron0 again */
	VT_ASSERT(vt_sim_new(STRESS_CYCLING, 1) == 0 && vt_sim_index(STRESS_CYCLING) == 0,
		  "after the run the first free index is %d", vt_sim_index(STRESS_CYCLING));
	VT_ASSERT(vt_sim_del(STRESS_CYCLING) == 0, "cleanup");
	munmap((void *)stop_flag, 4096);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(non_root_refused),
		VT_CASE(open_fd_gets_enodev),
		VT_CASE(mappings_survive_removal),
		VT_CASE(job_in_flight_ends),
		VT_CASE(failed_create_fences_openers),
		VT_CASE(fw_exchange_in_flight_ends),
		VT_CASE(sysfs_open_gets_enodev),
		VT_CASE(debugfs_open_across_removal),
		VT_CASE(removal_not_blocked_by_user_fault),
		VT_CASE(removal_not_blocked_by_nds_read_fault),
		VT_CASE(index_reused_after_release),
		VT_CASE(stress_add_remove_under_load),
	};

	monitor = argc > 1 ? argv[1] : "/tests/neuron-monitor";
	setvbuf(stdout, NULL, _IOLBF, 0);
	return vt_run("hotplug", cases, VT_COUNT(cases));
}
