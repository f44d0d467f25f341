// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: NDS slabs, the counter bridge, and the sysfs counter tree.
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=8.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>
#include <nrt/kmetric.h>
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt_error_model.h>

#include "vmdev.h"

#define NC_COUNT 8
#define SYSFS_DEV VT_SYSFS_DEV

/* neuron<dev>/neuron_core<nc>/stats/<group>/<name>/<field> as a number; ~0 on error */
static uint64_t counter_file(int dev, int nc, const char *group, const char *name,
			     const char *field)
{
	char path[256];

	snprintf(path, sizeof(path), SYSFS_DEV "/neuron_core%d/stats/%s/%s/%s", dev, nc,
		 group, name, field);
	return vt_u64(path);
}

static uint64_t status_total(int dev, int nc, const char *name)
{
	return counter_file(dev, nc, "status", name, "total");
}

static int write_counter_file(int dev, int nc, const char *name, const char *field)
{
	char path[256];

	snprintf(path, sizeof(path), SYSFS_DEV "/neuron_core%d/stats/status/%s/%s", dev, nc,
		 name, field);
	return vt_write_file(path, "1\n");
}

/* A child process that runs @fn and reports through its exit status. */
static pid_t spawn(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg) ? 1 : 0);
	return pid;
}

static ndl_device_t *open_ndl(int index)
{
	ndl_device_t *dev = NULL;

	if (ndl_open_device(index, NULL, &dev))
		return NULL;
	return dev;
}

/* ---- validation ----------------------------------------------------------- */

static void acq_init(struct neuron_nds_acquire *a, int pid)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->pid = pid;
}

static int acquire_validation(void)
{
	struct neuron_nds_acquire a;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	acq_init(&a, 0);
	a.size -= 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a), EINVAL);
	acq_init(&a, 0);
	a.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a), EINVAL);
	acq_init(&a, 0);
	a.reserved0 = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a), EINVAL);
	acq_init(&a, 0);
	a.reserved[1] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a), EINVAL);
	acq_init(&a, -1);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a), EINVAL);
	acq_init(&a, 999999);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a), ENOENT);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, NULL), EFAULT);
	close(fd);
	return 0;
}

static int own_slab(void)
{
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *a = NULL, *b = NULL;
	const uint8_t *raw;

	VT_ASSERT(dev, "ndl_open_device");
	VT_ASSERT(nds_open(dev, 0, &a) == 0 && a, "nds_open");
	VT_ASSERT(nds_is_writable(a), "own slab writable");
	VT_ASSERT(nds_open(dev, 0, &b) == 0 && b, "second nds_open");
	VT_ASSERT(nds_slot(a) == nds_slot(b), "same process, same slot: %d %d", nds_slot(a),
		  nds_slot(b));
	raw = nds_raw_slab(a);
	VT_ASSERT(raw[0] == 'n' && raw[1] == 'd' && raw[2] == 's' && raw[3] == 0, "header");
	VT_ASSERT(nds_increment_nc_counter(a, 2, NDS_NC_COUNTER_ERR_GENERIC, 5) == 0, "inc");
	{
		uint64_t v = 0;

		VT_ASSERT(nds_get_nc_counter(b, 2, NDS_NC_COUNTER_ERR_GENERIC, &v) == 0 && v == 5,
			  "shared mapping sees it: %llu", (unsigned long long)v);
	}
	nds_close(b);
	nds_close(a);
	ndl_close_device(dev);
	return 0;
}

static int api_bounds_write_nothing(void)
{
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *a = NULL;
	static uint8_t before[NEURON_NDS_SIZE];
	uint64_t v = 1;

	VT_ASSERT(dev && nds_open(dev, 0, &a) == 0, "open");
	memcpy(before, nds_raw_slab(a), NEURON_NDS_SIZE);
	VT_ASSERT(nds_increment_nc_counter(a, NC_COUNT, 1, 1) == -EINVAL, "nc == count");
	VT_ASSERT(nds_increment_nc_counter(a, -1, 1, 1) == -EINVAL, "nc -1");
	VT_ASSERT(nds_increment_nc_counter(a, 0, NEURON_NDS_ID_COUNT, 1) == -EINVAL, "id 95");
	VT_ASSERT(nds_set_nc_counter(a, 0, 200, &v) == -EINVAL, "set id 200");
	VT_ASSERT(nds_decrement_nc_counter(a, 9, 0, 1) == -EINVAL, "dec nc 9");
	VT_ASSERT(nds_increment_nd_counter(a, NEURON_NDS_ND_COUNT, 1) == -EINVAL, "nd 31");
	VT_ASSERT(nds_or_nd_counter(a, 3, 64) == -EINVAL, "bit 64");
	VT_ASSERT(nds_set_nd_counter(a, 40, &v) == -EINVAL, "nd set 40");
	VT_ASSERT(nds_increment_nc_counter(NULL, 0, 1, 1) == -EINVAL, "NULL");
	VT_ASSERT(kmetric_record_execution(a, NC_COUNT, NRT_SUCCESS, NULL, NULL) == -EINVAL,
		  "kmetric bad nc");
	VT_ASSERT(memcmp(before, nds_raw_slab(a), NEURON_NDS_SIZE) == 0, "slab changed");
	nds_close(a);
	ndl_close_device(dev);
	return 0;
}

static void add_init(struct neuron_nds_counter_add *a, uint32_t nc, uint32_t id, uint64_t d)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->nc = nc;
	a->id = id;
	a->delta = d;
}

static int counter_add_child(void *unused)
{
	struct neuron_nds_counter_add a;
	struct neuron_nds_acquire q;
	const uint64_t *slab;
	int fd = vt_open_dev(1);

	(void)unused;
	VT_ASSERT(fd >= 0, "open");
	add_init(&a, 0, 1, 1);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), ENOENT);
	acq_init(&q, 0);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "acquire");
	VT_ASSERT(q.access == NEURON_NDS_ACCESS_RW && q.mmap_size == NEURON_NDS_SIZE, "acq out");
	add_init(&a, NC_COUNT, 1, 1);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);
	add_init(&a, 0, NEURON_NDS_ID_COUNT, 1);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);
	add_init(&a, 1, 3, 1);
	a.flags = NEURON_NDS_ADD_ND;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);
	add_init(&a, 0, NEURON_NDS_ND_COUNT, 1);
	a.flags = NEURON_NDS_ADD_ND;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);
	add_init(&a, 0, 1, 1);
	a.flags = 2;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);
	add_init(&a, 0, 1, 1);
	a.reserved[0] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);
	add_init(&a, 0, 1, 1);
	a.size = 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EINVAL);

	slab = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(slab != MAP_FAILED, "mmap: %s", strerror(errno));
	add_init(&a, 5, 40, 7);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a) == 0, "valid add");
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a) == 0, "valid add 2");
	VT_ASSERT(slab[neuron_nds_nc_offset(5, 40) / 8] == 14, "mapping sees the add");
	add_init(&a, 0, NDS_ND_COUNTER_FEATURE_BITMAP, 2);
	a.flags = NEURON_NDS_ADD_ND;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a) == 0, "nd add");
	VT_ASSERT(slab[neuron_nds_nd_offset(3) / 8] == 2, "nd add visible");
	munmap((void *)slab, NEURON_NDS_SIZE);
	close(fd);
	return 0;
}

static int counter_add_validation(void)
{
	VT_ASSERT(vt_wait_ok(spawn(counter_add_child, NULL)), "child checks failed (see its exit)");
	return 0;
}

static int mmap_validation(void)
{
	struct neuron_nds_acquire q;
	void *p;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	acq_init(&q, 0);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "acquire");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == EINVAL, "partial map: %p %s", p, strerror(errno));
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset + 4096);
	VT_ASSERT(p == MAP_FAILED && errno == EINVAL, "unaligned cookie");
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	VT_ASSERT(p == MAP_FAILED && errno == EINVAL, "offset 0");
	/* a free slot (the last one is unused at this point) */
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd,
		 (off_t)(q.mmap_offset - (uint64_t)q.slot * NEURON_NDS_SIZE +
			 (uint64_t)(NEURON_NDS_PER_DEVICE - 1) * NEURON_NDS_SIZE));
	VT_ASSERT(p == MAP_FAILED && errno == ENOENT, "unowned slot: %s", strerror(errno));
	VT_ASSERT(q.mmap_offset < (1ULL << 32), "cookie looks like an address: 0x%llx",
		  (unsigned long long)q.mmap_offset);
	close(fd);
	return 0;
}

/* ---- exact totals under concurrency ---------------------------------------- */

#define PROCS 16
#define THREADS 4
#define ITERS 5000

struct worker {
	nds_instance_t *inst;
	int nc;
	int t;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < ITERS; i++) {
		nds_increment_nc_counter(w->inst, w->nc, NDS_NC_COUNTER_INFER_COMPLETED, 1);
		if (i % 20 == 0)
			nds_increment_nc_counter(w->inst, w->nc,
						 NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR,
						 (uint64_t)w->t + 1);
	}
	return NULL;
}

struct proc_arg {
	int index;
	int done_fd;	/* write one byte when the increments are done */
	int exit_fd;	/* read EOF: time to exit */
};

static int proc_fn(void *arg)
{
	struct proc_arg *p = arg;
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *inst = NULL;
	pthread_t th[THREADS];
	struct worker w[THREADS];
	char c = 'd';
	int t;

	if (!dev || nds_open(dev, 0, &inst))
		return 1;
	for (t = 0; t < THREADS; t++) {
		w[t] = (struct worker){ inst, p->index % NC_COUNT, t };
		pthread_create(&th[t], NULL, worker_fn, &w[t]);
	}
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	if (write(p->done_fd, &c, 1) != 1)
		return 1;
	while (read(p->exit_fd, &c, 1) > 0)
		;
	nds_close(inst);
	ndl_close_device(dev);
	return 0;
}

static int reader_fn(void *arg)
{
	int stop_fd = *(int *)arg;
	uint64_t last[NC_COUNT] = { 0 };
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
	int nc;

	for (;;) {
		for (nc = 0; nc < NC_COUNT; nc++) {
			uint64_t v = status_total(0, nc, "success");

			if (v == UINT64_MAX || v < last[nc])
				return 1;	/* a total went backwards */
			last[nc] = v;
		}
		if (poll(&pfd, 1, 0) > 0)
			return 0;
	}
}

static int concurrent_totals_exact(void)
{
	uint64_t base_ok[NC_COUNT], base_sem[NC_COUNT];
	int done[2], ex[2], stop[2];
	pid_t kids[PROCS], reader;
	struct proc_arg pa[PROCS];
	int i, nc;
	char c;

	for (nc = 0; nc < NC_COUNT; nc++) {
		base_ok[nc] = status_total(0, nc, "success");
		base_sem[nc] = status_total(0, nc, "execute_sw_semaphore_error");
	}
	/* the reader must not inherit the children's pipes, or they never see EOF */
	VT_ASSERT(pipe(stop) == 0, "pipe");
	reader = spawn(reader_fn, &stop[0]);
	VT_ASSERT(pipe(done) == 0 && pipe(ex) == 0, "pipe");
	for (i = 0; i < PROCS; i++) {
		pa[i] = (struct proc_arg){ i, done[1], ex[0] };
		kids[i] = fork();
		if (kids[i] == 0) {
			close(ex[1]);
			_exit(proc_fn(&pa[i]));
		}
	}
	close(ex[0]);
	close(done[1]);	/* a child that dies early then reads as EOF, not a hang */
	for (i = 0; i < PROCS; i++)
		VT_ASSERT(read(done[0], &c, 1) == 1, "child %d died", i);

	/* every process is still alive: the totals come from live slabs */
	for (nc = 0; nc < NC_COUNT; nc++) {
		uint64_t ok = status_total(0, nc, "success") - base_ok[nc];
		uint64_t sem = status_total(0, nc, "execute_sw_semaphore_error") - base_sem[nc];
		uint64_t procs = PROCS / NC_COUNT;

		VT_ASSERT(ok == procs * THREADS * ITERS, "live nc%d success %llu", nc,
			  (unsigned long long)ok);
		VT_ASSERT(sem == procs * (ITERS / 20) * (1 + 2 + 3 + 4), "live nc%d sem %llu", nc,
			  (unsigned long long)sem);
	}
	close(ex[1]);
	for (i = 0; i < PROCS; i++)
		VT_ASSERT(vt_wait_ok(kids[i]), "child %d failed", i);
	VT_ASSERT(write(stop[1], "s", 1) == 1, "stop reader");
	VT_ASSERT(vt_wait_ok(reader), "a sysfs total went backwards under concurrent updates");

	/* after exit: folded exactly once */
	for (nc = 0; nc < NC_COUNT; nc++) {
		uint64_t ok = status_total(0, nc, "success") - base_ok[nc];

		VT_ASSERT(ok == (PROCS / NC_COUNT) * THREADS * ITERS, "exited nc%d success %llu",
			  nc, (unsigned long long)ok);
		/* live reads fold partial deltas: present is the last one, never more
		 * than one process's work (exact values are checked where no reader runs) */
		{
			uint64_t pr = counter_file(0, nc, "status", "success", "present");

			VT_ASSERT(pr > 0 && pr <= THREADS * ITERS, "present %llu",
				  (unsigned long long)pr);
		}
	}
	close(done[0]);
	close(stop[0]);
	close(stop[1]);
	return 0;
}

/* ---- lifecycle ----------------------------------------------------------- */

static int killed_child(void *arg)
{
	int ready_fd = *(int *)arg;
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *inst = NULL;
	int i;

	if (!dev || nds_open(dev, 0, &inst))
		return 1;
	for (i = 0; i < 12345; i++)
		nds_increment_nc_counter(inst, 3, NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE, 1);
	if (write(ready_fd, "r", 1) != 1)
		return 1;
	for (;;)
		pause();
}

static int sigkill_keeps_counts(void)
{
	uint64_t base = status_total(0, 3, "hw_hbm_ue_error");
	int ready[2];
	pid_t pid;
	char c;
	int st;

	VT_ASSERT(pipe(ready) == 0, "pipe");
	pid = spawn(killed_child, &ready[1]);
	close(ready[1]);	/* a child that fails early reads as EOF */
	VT_ASSERT(read(ready[0], &c, 1) == 1, "child never got ready");
	VT_ASSERT(kill(pid, SIGKILL) == 0, "kill");
	VT_ASSERT(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st), "not killed");
	VT_ASSERT(status_total(0, 3, "hw_hbm_ue_error") - base == 12345, "after SIGKILL: %llu",
		  (unsigned long long)(status_total(0, 3, "hw_hbm_ue_error") - base));
	close(ready[0]);
	return 0;
}

static int holder_fn(void *arg)
{
	int *fds = arg;
	ndl_device_t *dev = open_ndl(1);
	nds_instance_t *inst = NULL;
	char c = 'h';

	if (!dev || nds_open(dev, 0, &inst))
		return 1;
	if (write(fds[0], &c, 1) != 1)
		return 1;
	while (read(fds[1], &c, 1) > 0)
		;
	return 0;
}

static int seventeenth_gets_resource(void)
{
	int held[2], ex[2], fds[2], i, ret;
	pid_t kids[NEURON_NDS_PER_DEVICE];
	ndl_device_t *dev = open_ndl(1);
	nds_instance_t *inst = NULL;
	char c;

	VT_ASSERT(dev, "open");
	VT_ASSERT(pipe(held) == 0 && pipe(ex) == 0, "pipe");
	fds[0] = held[1];
	fds[1] = ex[0];
	for (i = 0; i < NEURON_NDS_PER_DEVICE; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			close(ex[1]);
			_exit(holder_fn(fds));
		}
	}
	close(ex[0]);
	close(held[1]);	/* a holder that fails early reads as EOF */
	for (i = 0; i < NEURON_NDS_PER_DEVICE; i++)
		VT_ASSERT(read(held[0], &c, 1) == 1, "holder %d failed", i);
	ret = nds_open(dev, 0, &inst);
	VT_ASSERT(ret == -ENOSPC, "17th nds_open: %d", ret);
	VT_ASSERT(inst == NULL, "no instance");
	VT_ASSERT(nrt_status_from_errno(NRT_SITE_NDS_ACQUIRE, ret) == NRT_RESOURCE,
		  "maps to %u", nrt_status_from_errno(NRT_SITE_NDS_ACQUIRE, ret));
	close(ex[1]);
	for (i = 0; i < NEURON_NDS_PER_DEVICE; i++)
		VT_ASSERT(vt_wait_ok(kids[i]), "holder %d", i);
	VT_ASSERT(nds_open(dev, 0, &inst) == 0, "a slot is free again");
	nds_close(inst);
	ndl_close_device(dev);
	close(held[0]);
	return 0;
}

static int owner_fn(struct vt_child *self, void *arg)
{
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *inst = NULL;
	uint64_t v = 4242;

	(void)arg;
	if (!dev || nds_open(dev, 0, &inst))
		return 1;
	nds_set_nc_counter(inst, 1, NDS_NC_COUNTER_ERR_HW, &v);
	if (vt_child_hold(self))
		return 1;
	v = 0;
	/* the monitor's attempts must not have changed it */
	nds_get_nc_counter(inst, 1, NDS_NC_COUNTER_ERR_HW, &v);
	return v == 4242 ? 0 : 1;
}

static int monitor_reads_not_writes(void)
{
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *mon = NULL;
	struct neuron_nds_acquire q;
	uint64_t v = 0, one = 1;
	struct vt_child ch;
	void *p;
	pid_t pid;
	int fd;

	VT_ASSERT(dev, "open");
	VT_ASSERT(vt_child_start(&ch, owner_fn, NULL) == 0, "owner failed");
	pid = ch.pid;

	VT_ASSERT(nds_open(dev, pid, &mon) == 0, "monitor open");
	VT_ASSERT(!nds_is_writable(mon), "monitor instance is read-only");
	VT_ASSERT(nds_get_nc_counter(mon, 1, NDS_NC_COUNTER_ERR_HW, &v) == 0 && v == 4242,
		  "monitor reads %llu", (unsigned long long)v);
	VT_ASSERT(nds_set_nc_counter(mon, 1, NDS_NC_COUNTER_ERR_HW, &one) == -EPERM, "set");
	VT_ASSERT(nds_increment_nc_counter(mon, 1, NDS_NC_COUNTER_ERR_HW, 1) == -EPERM, "inc");
	VT_ASSERT(nds_or_nd_counter(mon, 3, 1) == -EPERM, "or");

	/* and the kernel enforces it for raw mappings */
	fd = vt_open_dev(0);
	acq_init(&q, pid);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "lookup");
	VT_ASSERT(q.access == NEURON_NDS_ACCESS_RO, "access %u", q.access);
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == EACCES, "writable map of another's slab: %s",
		  strerror(errno));
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(p != MAP_FAILED, "read-only map: %s", strerror(errno));
	VT_ASSERT(mprotect(p, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE) == -1 && errno == EACCES,
		  "mprotect to writable");
	/* data, never code: no executable map, and none later through mprotect */
	VT_ASSERT(mprotect(p, NEURON_NDS_SIZE, PROT_READ | PROT_EXEC) == -1 && errno == EACCES,
		  "mprotect to executable");
	munmap(p, NEURON_NDS_SIZE);
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == EPERM, "executable map: %s", strerror(errno));
	close(fd);

	/* a file no acquire handed the slab to cannot map it, even read-only */
	fd = vt_open_dev(0);
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == EACCES, "map without an acquire: %s", strerror(errno));
	close(fd);

	nds_close(mon);
	VT_ASSERT(vt_child_finish(&ch), "owner saw its counter change");
	ndl_close_device(dev);
	return 0;
}

/* value written to (nc, id) by the layout test */
static uint64_t pattern(uint32_t nc, uint32_t id)
{
	return 0x0102030405060000ULL ^ ((uint64_t)nc << 8) ^ (id + 1) ^ ((uint64_t)id << 40);
}

static int layout_writer(struct vt_child *self, void *arg)
{
	(void)arg;
	struct neuron_nds_counter_add a;
	struct neuron_nds_acquire q;
	uint32_t nc, id;
	int fd = vt_open_dev(0);

	acq_init(&q, 0);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 1;
	/* the header is the runtime's: write it the way libnrt does */
	{
		uint8_t *m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				  (off_t)q.mmap_offset);
		if (m == MAP_FAILED)
			return 1;
		memcpy(m, "nds", 4);
		m[4] = 1;
		munmap(m, NEURON_NDS_SIZE);
	}
	for (id = 0; id < NEURON_NDS_ND_COUNT; id++) {
		add_init(&a, 0, id, 0xAB00000000000000ULL | id);
		a.flags = NEURON_NDS_ADD_ND;
		if (ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
			return 1;
	}
	for (nc = 0; nc < NC_COUNT; nc++)
		for (id = 0; id < NEURON_NDS_ID_COUNT; id++) {
			add_init(&a, nc, id, pattern(nc, id));
			if (ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
				return 1;
		}
	if (vt_child_hold(self))
		return 1;
	return 0;
}

static uint64_t le64_at(const uint8_t *p, size_t off)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[off + (size_t)i];
	return v;
}

static int raw_layout_bytes(void)
{
	struct vt_child ch;
	int fd;
	struct neuron_nds_acquire q;
	const uint8_t *m;
	uint32_t nc, id;
	size_t off;
	pid_t pid;

	VT_ASSERT(vt_child_start(&ch, layout_writer, NULL) == 0, "writer failed");
	pid = ch.pid;
	fd = vt_open_dev(0);
	acq_init(&q, pid);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "lookup");
	m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(m != MAP_FAILED, "map");

	VT_ASSERT(m[0] == 'n' && m[1] == 'd' && m[2] == 's' && m[3] == 0 && m[4] == 1, "header");
	/* offsets computed here independently of neuron_nds.h's helpers */
	for (id = 0; id < 31; id++)
		VT_ASSERT(le64_at(m, 8 + 8 * id) == (0xAB00000000000000ULL | id), "ND %u", id);
	for (nc = 0; nc < 4; nc++) {
		for (id = 0; id < 31; id++) {
			off = 256 + 248 * nc + 8 * id;
			VT_ASSERT(le64_at(m, off) == pattern(nc, id), "NC%u id%u at %zu", nc, id, off);
		}
		for (id = 31; id < 95; id++) {
			off = 55936 + 512 * nc + 8 * (id - 31);
			VT_ASSERT(le64_at(m, off) == pattern(nc, id), "NC%u ext%u at %zu", nc, id, off);
		}
	}
	for (nc = 4; nc < NC_COUNT; nc++) {
		for (id = 0; id < 95; id++) {
			off = 57984 + 768 * (nc - 4) + 8 * id;
			VT_ASSERT(le64_at(m, off) == pattern(nc, id), "NC%u id%u at %zu", nc, id, off);
		}
		VT_ASSERT(le64_at(m, 57984 + 768 * (nc - 4) + 8 * 95) == 0, "pad slot NC%u", nc);
	}
	/* the runtime-private and legacy areas stay untouched */
	for (off = 1248; off < 55936; off++)
		VT_ASSERT(m[off] == 0, "byte %zu", off);
	for (off = 57984 + 768 * (NC_COUNT - 4); off < NEURON_NDS_SIZE; off++)
		VT_ASSERT(m[off] == 0, "tail byte %zu", off);
	munmap((void *)m, NEURON_NDS_SIZE);
	close(fd);
	VT_ASSERT(vt_child_finish(&ch), "writer");
	return 0;
}

static void rd_init(struct neuron_nds_read *r, int pid, uint32_t off, uint32_t bytes, void *buf)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->pid = pid;
	r->offset = off;
	r->bytes = bytes;
	r->user_ptr = (uintptr_t)buf;
}

/* debugfs neuron<@dev>/nds_read_buffered: NDS_READ calls through a kernel buffer */
static uint64_t read_buffered(int dev)
{
	char path[128];

	snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/nds_read_buffered", dev);
	return vt_u64(path);
}

/*
 * NDS_READ copies any range of another process's slab, byte for byte what
 * a mapping of it shows, without an acquire and without making the slab
 * mappable through the reading file; it refuses every malformed argument;
 * once the owner is gone its pid reads -ENOENT. nds_read_copy() copies the
 * ranges a reader uses, and nds_open_memory() on the copy reads every
 * counter the owner wrote.
 */
static int read_copies_the_slab(void)
{
	static uint8_t copy[NEURON_NDS_SIZE] __attribute__((aligned(8)));
	struct neuron_nds_acquire q;
	struct neuron_nds_read r;
	struct neuron_info info;
	nds_instance_t *inst = NULL;
	ndl_device_t *dev;
	struct vt_child ch;
	const uint8_t *m;
	uint8_t small[32];
	uint32_t off, nc, id;
	uint64_t v;
	size_t i;
	const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t buffered;
	uint8_t *ro, *fresh;
	pid_t pid;
	int fd, mfd;

	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO");
	VT_ASSERT(info.capabilities & NEURON_CAP_NDS_READ, "NEURON_CAP_NDS_READ not set");
	VT_ASSERT(vt_child_start(&ch, layout_writer, NULL) == 0, "writer failed");
	pid = ch.pid;

	/* the whole slab in NEURON_NDS_READ_MAX steps, against a mapping */
	memset(copy, 0xEE, sizeof(copy));
	for (off = 0; off < NEURON_NDS_SIZE; off += NEURON_NDS_READ_MAX) {
		rd_init(&r, pid, off, NEURON_NDS_READ_MAX, copy + off);
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "NDS_READ at %u: %s", off,
			  strerror(errno));
	}
	/* reading granted nothing: this file still cannot map the slab */
	mfd = vt_open_dev(0);
	acq_init(&q, pid);
	VT_ASSERT(ioctl(mfd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "lookup");
	m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(m == MAP_FAILED && errno == EACCES, "map through the reading file: %s",
		  m == MAP_FAILED ? strerror(errno) : "mapped");
	m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, mfd, (off_t)q.mmap_offset);
	VT_ASSERT(m != MAP_FAILED, "map");
	for (i = 0; i < NEURON_NDS_SIZE; i++)
		VT_ASSERT(copy[i] == m[i], "byte %zu: copied %#x, mapped %#x", i, copy[i], m[i]);
	VT_ASSERT(le64_at(copy, 8 + 8 * 3) == (0xAB00000000000000ULL | 3), "ND 3 in the copy");
	munmap((void *)m, NEURON_NDS_SIZE);
	close(mfd);

	/* a range lands where it is pointed, nothing around it is touched */
	memset(small, 0xEE, sizeof(small));
	rd_init(&r, pid, 256 + 8, 16, small + 8);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "16 bytes: %s", strerror(errno));
	VT_ASSERT(le64_at(small, 8) == pattern(0, 1) && le64_at(small, 16) == pattern(0, 2),
		  "NC0 ids 1, 2");
	for (i = 0; i < sizeof(small); i++)
		if (i < 8 || i >= 24)
			VT_ASSERT(small[i] == 0xEE, "byte %zu around the range written", i);
	/* the last 8 bytes of the slab are in range */
	rd_init(&r, pid, NEURON_NDS_SIZE - 8, 8, small);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "last word: %s", strerror(errno));
	/*
	 * into pages that are not present and writable: fresh pages, the
	 * zero page a read left, and the second of two pages after the
	 * first was written. The driver reads the range again through a
	 * kernel buffer (debugfs nds_read_buffered counts those reads) and
	 * the bytes are the same as into pages that are; a read into present,
	 * written pages goes straight and is not counted. A page that cannot
	 * be written fails the read (EFAULT), after the buffered attempt.
	 */
	VT_ASSERT(2 * pg <= NEURON_NDS_READ_MAX, "pages of %zu bytes", pg);
	fresh = mmap(NULL, NEURON_NDS_READ_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	VT_ASSERT(fresh != MAP_FAILED, "fresh pages");
	buffered = read_buffered(0);
	VT_ASSERT(buffered != UINT64_MAX, "debugfs nds_read_buffered cannot be read");
	rd_init(&r, pid, 0, NEURON_NDS_READ_MAX, fresh);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "into fresh pages: %s", strerror(errno));
	VT_ASSERT(memcmp(fresh, copy, NEURON_NDS_READ_MAX) == 0, "fresh pages differ from the copy");
	VT_ASSERT(read_buffered(0) == ++buffered, "fresh pages: not read through the buffer");
	memset(fresh, 0xEE, NEURON_NDS_READ_MAX);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "into written pages: %s",
		  strerror(errno));
	VT_ASSERT(memcmp(fresh, copy, NEURON_NDS_READ_MAX) == 0, "written pages differ from the copy");
	VT_ASSERT(read_buffered(0) == buffered, "written pages: read through the buffer");
	VT_ASSERT(madvise(fresh, 2 * pg, MADV_DONTNEED) == 0, "madvise");
	VT_ASSERT(fresh[0] == 0 && fresh[pg] == 0, "the pages read back as zero");
	rd_init(&r, pid, 256, (uint32_t)(2 * pg), fresh);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "into zero pages: %s", strerror(errno));
	VT_ASSERT(memcmp(fresh, copy + 256, 2 * pg) == 0, "zero pages differ from the copy");
	VT_ASSERT(read_buffered(0) == ++buffered, "zero pages: not read through the buffer");
	memset(fresh, 0xEE, 2 * pg);
	VT_ASSERT(madvise(fresh + pg, pg, MADV_DONTNEED) == 0, "madvise");
	rd_init(&r, pid, 256, (uint32_t)(2 * pg), fresh);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_READ, &r) == 0, "into a page and a fresh one: %s",
		  strerror(errno));
	VT_ASSERT(memcmp(fresh, copy + 256, 2 * pg) == 0, "a page and a fresh one differ from the copy");
	VT_ASSERT(read_buffered(0) == ++buffered, "a fresh second page: not read through the buffer");
	VT_ASSERT(mprotect(fresh + pg, pg, PROT_NONE) == 0, "mprotect");
	rd_init(&r, pid, 256, (uint32_t)(2 * pg), fresh);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EFAULT);
	VT_ASSERT(read_buffered(0) == ++buffered, "PROT_NONE: no buffered attempt");
	munmap(fresh, NEURON_NDS_READ_MAX);

	/* malformed: nothing is written */
	memset(small, 0xEE, sizeof(small));
	rd_init(&r, pid, 0, 8, small);
	r.size -= 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0, 8, small);
	r.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0, 8, small);
	r.reserved0 = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0, 8, small);
	r.reserved[1] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, -1, 0, 8, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 4, 8, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0, 12, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0, 0, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0, NEURON_NDS_READ_MAX + 8, copy);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, NEURON_NDS_SIZE - 8, 16, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	rd_init(&r, pid, 0xFFFFFFF8u, 16, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EINVAL);
	for (i = 0; i < sizeof(small); i++)
		VT_ASSERT(small[i] == 0xEE, "a refused read wrote byte %zu", i);
	/* no such process, and one (this) without a slab */
	rd_init(&r, 999999, 0, 8, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), ENOENT);
	rd_init(&r, 0, 0, 8, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), ENOENT);
	rd_init(&r, getpid(), 0, 8, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), ENOENT);
	/* bad buffers: none, read-only memory */
	rd_init(&r, pid, 0, 8, NULL);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EFAULT);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(ro != MAP_FAILED, "read-only page");
	rd_init(&r, pid, 0, 8, ro);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), EFAULT);
	munmap(ro, 4096);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, NULL), EFAULT);

	/* the library's copy, read through an instance over it */
	dev = open_ndl(0);
	VT_ASSERT(dev, "ndl open");
	memset(copy, 0, sizeof(copy));
	VT_ASSERT(nds_read_copy(dev, pid, copy) == 0, "nds_read_copy");
	VT_ASSERT(nds_read_copy(dev, pid, copy + 4) == -EINVAL, "unaligned buffer");
	VT_ASSERT(nds_read_copy(dev, -1, copy) == -EINVAL, "pid -1");
	VT_ASSERT(nds_read_copy(dev, 999999, copy) == -ENOENT, "no such pid");
	VT_ASSERT(nds_open_memory(copy, NC_COUNT, false, &inst) == 0, "nds_open_memory");
	for (nc = 0; nc < NC_COUNT; nc++)
		for (id = 0; id < NEURON_NDS_ID_COUNT; id++) {
			v = 0;
			VT_ASSERT(nds_get_nc_counter(inst, (int)nc, id, &v) == 0 &&
					  v == pattern(nc, id),
				  "NC%u id%u reads %#llx", nc, id, (unsigned long long)v);
		}
	nds_close(inst);

	VT_ASSERT(vt_child_finish(&ch), "writer");
	/* its slab went with it */
	rd_init(&r, pid, 0, 8, small);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_READ, &r), ENOENT);
	VT_ASSERT(nds_read_copy(dev, pid, copy) == -ENOENT, "nds_read_copy of a gone owner");
	ndl_close_device(dev);
	close(fd);
	return 0;
}

static int bridge_child(void *unused)
{
	ndl_device_t *dev = open_ndl(0);
	nds_instance_t *inst = NULL;
	nrt_infer_errors_t errs;
	nrt_exec_times_t times = { 1500000, 2000000, 1000000, 0 };

	(void)unused;
	if (!dev || nds_open(dev, 0, &inst))
		return 1;
	nrt_infer_errors_clear(&errs);
	nrt_infer_errors_add_tpb(&errs, NEURON_TPB_ERROR_SEMAPHORE_ERROR);
	if (kmetric_record_execution(inst, 6, nrt_infer_errors_status(&errs, NULL), &errs, &times))
		return 1;
	if (kmetric_update_nds_generic_status(inst, 6, NRT_INVALID))
		return 1;
	return 0;
}

static int bridge_moves_sysfs(void)
{
	uint64_t err0 = status_total(0, 6, "execute_completed_with_error");
	uint64_t sem0 = status_total(0, 6, "execute_sw_semaphore_error");
	uint64_t inv0 = status_total(0, 6, "invalid_error");
	uint64_t inf0 = counter_file(0, 6, "other_info", "inference_count", "total");

	VT_ASSERT(vt_wait_ok(spawn(bridge_child, NULL)), "child");
	VT_ASSERT(status_total(0, 6, "execute_completed_with_error") - err0 == 1, "1004 outcome");
	VT_ASSERT(status_total(0, 6, "execute_sw_semaphore_error") - sem0 == 1, "semaphore");
	VT_ASSERT(status_total(0, 6, "invalid_error") - inv0 == 1, "CSWTCH 2->19");
	VT_ASSERT(counter_file(0, 6, "other_info", "inference_count", "total") - inf0 == 1,
		  "inference_count");
	return 0;
}

static int survivor_fn(void *unused)
{
	ndl_device_t *dev = open_ndl(1);
	nds_instance_t *inst = NULL;

	(void)unused;
	if (!dev || nds_open(dev, 0, &inst))
		return 1;
	nds_increment_nc_counter(inst, 7, NDS_NC_COUNTER_OOB, 77);
	return 0;	/* exit closes the last fd of neuron1 */
}

static int counts_survive_last_close(void)
{
	uint64_t base = status_total(1, 7, "oob_error");

	VT_ASSERT(vt_wait_ok(spawn(survivor_fn, NULL)), "child");
	VT_ASSERT(status_total(1, 7, "oob_error") - base == 77, "oob after last close: %llu",
		  (unsigned long long)(status_total(1, 7, "oob_error") - base));
	return 0;
}

static int unpriv_write(void *unused)
{
	char path[256];

	(void)unused;
	if (setgid(65534) || setuid(65534))
		return 2;
	snprintf(path, sizeof(path), SYSFS_DEV "/neuron_core%d/stats/status/%s/total", 1, 7,
		 "oob_error");
	if (open(path, O_WRONLY) >= 0 || errno != EACCES)
		return 1;
	/* reading stays allowed */
	return open(path, O_RDONLY) >= 0 ? 0 : 3;
}

static int write_to_clear(void)
{
	uint64_t before = status_total(1, 7, "oob_error");

	VT_ASSERT(before > 0, "nothing to clear (run after counts_survive_last_close)");
	VT_ASSERT(vt_wait_ok(spawn(unpriv_write, NULL)), "unprivileged write not refused");
	VT_ASSERT(status_total(1, 7, "oob_error") == before, "value changed");
	VT_ASSERT(write_counter_file(1, 7, "oob_error", "total") == 0, "root write");
	VT_ASSERT(status_total(1, 7, "oob_error") == 0, "total cleared");
	VT_ASSERT(counter_file(1, 7, "status", "oob_error", "present") == 77, "present kept");
	VT_ASSERT(write_counter_file(1, 7, "oob_error", "present") == 0, "root write present");
	VT_ASSERT(counter_file(1, 7, "status", "oob_error", "present") == 0, "present cleared");
	return 0;
}

static int notify_wakes_poll(void)
{
	char path[256], buf[32];
	struct pollfd pfd;
	int fd, nfd, ret;

	snprintf(path, sizeof(path), SYSFS_DEV "/info/notify_delay", 1);
	VT_ASSERT(vt_read_file(path, buf, sizeof(buf)) == 0 && atoi(buf) == -1, "default off");
	nfd = open(path, O_WRONLY);
	VT_ASSERT(nfd >= 0 && write(nfd, "5", 1) == -1 && errno == EINVAL, "5 refused");
	VT_ASSERT(write(nfd, "0", 1) == 1, "enable");
	close(nfd);

	snprintf(path, sizeof(path), SYSFS_DEV "/neuron_core7/stats/status/oob_error/total", 1);
	fd = open(path, O_RDONLY);
	VT_ASSERT(fd >= 0 && read(fd, buf, sizeof(buf)) > 0, "prime read");
	VT_ASSERT(vt_wait_ok(spawn(survivor_fn, NULL)), "child");
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI | POLLERR };
	ret = poll(&pfd, 1, 10000);
	VT_ASSERT(ret == 1 && (pfd.revents & (POLLPRI | POLLERR)), "poll: %d revents %x", ret,
		  pfd.revents);
	close(fd);
	snprintf(path, sizeof(path), SYSFS_DEV "/info/notify_delay", 1);
	nfd = open(path, O_WRONLY);
	VT_ASSERT(nfd >= 0 && write(nfd, "-1", 2) == 2, "disable");
	close(nfd);
	return 0;
}

/*
 * NDS_COUNTER_ADD changes what the status files show while the process
 * lives, so with notify_delay 0 it wakes poll() (docs/ABI): checked while
 * the adding child is still alive, so its exit's fold cannot be what woke
 * the reader. The notify is synchronous in the ioctl, so a poll with no
 * timeout after the child said "added" must already see it.
 */
static int add_pipe[2], hold_pipe[2];

static int adder_fn(void *unused)
{
	struct neuron_nds_counter_add a;
	struct neuron_nds_acquire q;
	int fd = vt_open_dev(1);
	char c = 0;

	(void)unused;
	acq_init(&q, 0);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 1;
	add_init(&a, 6, NDS_NC_COUNTER_OOB, 3);
	if (ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
		return 1;
	if (write(add_pipe[1], "a", 1) != 1)
		return 1;
	/* stay alive until the parent has polled */
	return read(hold_pipe[0], &c, 1) == 1 ? 0 : 1;
}

static int counter_add_wakes_poll(void)
{
	char path[256], buf[32], c;
	struct pollfd pfd;
	int fd, nfd, ret;
	pid_t pid;

	snprintf(path, sizeof(path), SYSFS_DEV "/info/notify_delay", 1);
	nfd = open(path, O_WRONLY);
	VT_ASSERT(nfd >= 0 && write(nfd, "0", 1) == 1, "enable");
	close(nfd);
	snprintf(path, sizeof(path), SYSFS_DEV "/neuron_core6/stats/status/oob_error/total", 1);
	fd = open(path, O_RDONLY);
	VT_ASSERT(fd >= 0 && read(fd, buf, sizeof(buf)) > 0, "prime read");
	VT_ASSERT(pipe(add_pipe) == 0 && pipe(hold_pipe) == 0, "pipes");
	pid = spawn(adder_fn, NULL);
	VT_ASSERT(read(add_pipe[0], &c, 1) == 1, "the child did not add");
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI | POLLERR };
	ret = poll(&pfd, 1, 0);
	VT_ASSERT(write(hold_pipe[1], "x", 1) == 1, "release the child");
	VT_ASSERT(vt_wait_ok(pid), "child");
	VT_ASSERT(ret == 1 && (pfd.revents & (POLLPRI | POLLERR)),
		  "no wake-up from the counter-add ioctl: poll %d revents %x", ret, pfd.revents);
	close(fd);
	close(add_pipe[0]);
	close(add_pipe[1]);
	close(hold_pipe[0]);
	close(hold_pipe[1]);
	snprintf(path, sizeof(path), SYSFS_DEV "/info/notify_delay", 1);
	nfd = open(path, O_WRONLY);
	VT_ASSERT(nfd >= 0 && write(nfd, "-1", 2) == 2, "disable");
	close(nfd);
	return 0;
}

/*
 * A child that inherited its parent's fd acquires a slab through its own fd
 * and tries to map it writable through the inherited one: refused, since
 * that mapping would pin a file counted for the parent, not for the owner,
 * and outlive the slab's release.
 */
static int inherited_child(void *arg)
{
	int inherited = *(int *)arg;
	struct neuron_nds_acquire q;
	void *p;
	int own = vt_open_dev(0);

	acq_init(&q, 0);
	if (own < 0 || ioctl(own, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 1;
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, inherited,
		 (off_t)q.mmap_offset);
	if (p != MAP_FAILED || errno != EACCES)
		return 2;
	/* acquiring through the inherited fd is refused too */
	{
		struct neuron_nds_acquire q2;

		acq_init(&q2, 0);
		if (ioctl(inherited, NEURON_IOCTL_NDS_ACQUIRE, &q2) != -1 || errno != EACCES)
			return 3;
	}
	/* through its own fd it works */
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, own,
		 (off_t)q.mmap_offset);
	return p == MAP_FAILED ? 4 : 0;
}

static int inherited_fd_cannot_map_rw(void)
{
	int fd = vt_open_dev(0);
	pid_t pid;
	int st;

	VT_ASSERT(fd >= 0, "open");
	pid = fork();
	if (pid == 0)
		_exit(inherited_child(&fd));
	VT_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	VT_ASSERT(WEXITSTATUS(st) == 0, "child step %d failed", WEXITSTATUS(st));
	close(fd);
	return 0;
}

/* ---- isolation: a mapping never reaches a later owner or another process ---- */

/* Marks in the slab's unused tail (never folded into the totals). */
#define MARK_OLD	0x0a1d0a1d0a1d0a1dULL
#define MARK_NEW	0x5eed5eed5eed5eedULL
#define TAIL_WORDS	((NEURON_NDS_SIZE - NEURON_NDS_USED_END) / 8)

static uint64_t *slab_tail(void *slab)
{
	return (uint64_t *)((uint8_t *)slab + NEURON_NDS_USED_END);
}

/* A process that claims a slab on neuron1, marks its tail and holds it. */
static int marking_owner(struct vt_child *self, void *arg)
{
	uint64_t mark = *(const uint64_t *)arg, *tail;
	struct neuron_nds_acquire q;
	int fd = vt_open_dev(1);
	void *p;
	size_t i;

	acq_init(&q, 0);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 1;
	p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)q.mmap_offset);
	if (p == MAP_FAILED)
		return 2;
	tail = slab_tail(p);
	for (i = 0; i < TAIL_WORDS; i++)
		tail[i] = mark;
	return vt_child_hold(self) ? 3 : 0;
}

/*
 * The same in a new pid namespace: a middle process unshares, its child
 * (pid 1 there) owns the slab; the middle process passes on its verdict.
 */
static int marking_owner_in_pidns(struct vt_child *self, void *arg)
{
	pid_t pid;
	int st;

	if (unshare(CLONE_NEWPID))
		return 20;
	pid = fork();
	if (pid < 0)
		return 21;
	if (pid == 0)
		_exit(getpid() == 1 ? marking_owner(self, arg) : 22);
	close(self->ready_fd);
	close(self->hold_fd);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 23;
	return WEXITSTATUS(st);
}

/* how many words of @view's tail hold @mark */
static size_t marked(const void *view, uint64_t mark)
{
	const uint64_t *tail = slab_tail((void *)view);
	size_t i, n = 0;

	for (i = 0; i < TAIL_WORDS; i++)
		n += tail[i] == mark;
	return n;
}

/*
 * A monitor keeps read-only views of every slab of neuron1 while their
 * owners exit; a process of another pid namespace then claims a slot. No
 * view may show it: a view shows the owner it was granted for, then zeros
 * (before: the slot's memory was reused, and the view of the reused slot
 * showed the new owner's counters and tag).
 */
static int stale_view_never_shows_next_owner(void)
{
	struct vt_child owners[NEURON_NDS_PER_DEVICE], next;
	void *views[NEURON_NDS_PER_DEVICE];
	struct iovec iov[NEURON_NDS_PER_DEVICE];
	uint64_t old = MARK_OLD, new = MARK_NEW;
	static uint64_t spliced[NEURON_NDS_PER_DEVICE * 4096 / 8];
	struct neuron_nds_acquire q;
	int fd = vt_open_dev(1), n = 0, i, pp[2], spliced_ok, sp_err;
	size_t k, hits = 0;
	ssize_t got, sp;

	VT_ASSERT(fd >= 0, "open");
	for (n = 0; n < NEURON_NDS_PER_DEVICE; n++)
		if (vt_child_start(&owners[n], marking_owner, &old))
			break;
	VT_ASSERT(n == NEURON_NDS_PER_DEVICE, "only %d of %d owners got a slab", n,
		  NEURON_NDS_PER_DEVICE);
	for (i = 0; i < n; i++) {
		acq_init(&q, owners[i].pid);
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "lookup %d: %s", i,
			  strerror(errno));
		VT_ASSERT(q.access == NEURON_NDS_ACCESS_RO, "access %u", q.access);
		views[i] = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd,
				(off_t)q.mmap_offset);
		VT_ASSERT(views[i] != MAP_FAILED, "view %d: %s", i, strerror(errno));
		VT_ASSERT(marked(views[i], MARK_OLD) == TAIL_WORDS, "view %d shows its owner", i);
		/* a page of the tail, referenced by a pipe (no mapping needed) */
		iov[i].iov_base = (uint8_t *)views[i] + NEURON_NDS_SIZE - 4096;
		iov[i].iov_len = 4096;
	}
	VT_ASSERT(pipe(pp) == 0, "pipe");
	/*
	 * Before 6.12 vmsplice() takes references to the pages (its fast
	 * path does not look at VM_IO); later kernels refuse them (EFAULT),
	 * and then there is nothing in the pipe to judge.
	 */
	sp = vmsplice(pp[1], iov, (unsigned long)n, 0);
	sp_err = sp < 0 ? errno : 0;
	spliced_ok = sp == (ssize_t)n * 4096;
	/* newest first: each owner holds copies of its elders' pipes */
	for (i = n - 1; i >= 0; i--)
		VT_ASSERT(vt_child_finish(&owners[i]), "owner %d failed", i);
	for (i = 0; i < n; i++)
		VT_ASSERT(marked(views[i], 0) == TAIL_WORDS, "view %d not zeroed after its owner",
			  i);

	VT_ASSERT(vt_child_start(&next, marking_owner_in_pidns, &new) == 0,
		  "the next owner (new pid namespace) got no slab");
	for (i = 0; i < n; i++)
		VT_ASSERT(marked(views[i], MARK_NEW) == 0,
			  "view %d shows the slot's next owner (%zu words), a process of another pid namespace",
			  i, marked(views[i], MARK_NEW));
	if (spliced_ok == 1) {
		got = read(pp[0], spliced, (size_t)n * 4096);
		for (k = 0; got > 0 && k < (size_t)got / 8; k++)
			hits += spliced[k] == MARK_NEW;
		VT_ASSERT(got == (ssize_t)n * 4096, "read the spliced pages: %zd", got);
		VT_ASSERT(hits == 0,
			  "pages spliced into a pipe show the slot's next owner (%zu words)", hits);
	}
	printf("# stale views: %d owners, spliced pages %s\n", n,
	       spliced_ok ? "read back without the next owner's mark" :
	       sp_err == EFAULT ? "refused by vmsplice (EFAULT)" : "not spliced");
	close(pp[0]);
	close(pp[1]);
	VT_ASSERT(vt_child_finish(&next), "the next owner failed");
	VT_ASSERT(spliced_ok || sp_err == EFAULT, "vmsplice of the views: %zd (%s)", sp,
		  strerror(sp_err));
	for (i = 0; i < n; i++)
		munmap(views[i], NEURON_NDS_SIZE);
	close(fd);
	return 0;
}

/* ---- each owner's slab is charged to that owner ---- */

#define CG_NDS		VT_CGROUP "/ndscharge"
#define CHARGERS	NEURON_NDS_PER_DEVICE

static long long cg_nds_current(void)
{
	uint64_t v;

	return vt_read_u64(CG_NDS "/memory.current", &v) ? -1 : (long long)v;
}

/*
 * In the cgroup: CHARGERS processes open neuron1 and wait; memory.current
 * is read; then each claims a slab. The claims alone must have raised it by
 * a slab each (less the per-CPU stock).
 */
static int charge_child(void)
{
	int go[2], done[2], hold[2], i, n = 0;
	long long before, after;
	pid_t kids[CHARGERS];
	char c;

	if (pipe(go) || pipe(done) || pipe(hold))
		return 11;
	for (i = 0; i < CHARGERS; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			struct neuron_nds_acquire q;
			int fd = vt_open_dev(1);

			close(go[1]);
			close(done[0]);
			close(hold[1]);
			if (fd < 0 || read(go[0], &c, 1) != 1)
				_exit(1);
			acq_init(&q, 0);
			c = ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) ? 'x' : 'c';
			if (write(done[1], &c, 1) != 1)
				_exit(2);
			/* hold the slab until the parent has read memory.current */
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(go[0]);
	close(done[1]);
	close(hold[0]);
	before = cg_nds_current();
	for (i = 0; i < CHARGERS; i++)
		if (write(go[1], "g", 1) != 1)
			return 12;
	for (i = 0; i < CHARGERS; i++)
		if (read(done[0], &c, 1) == 1 && c == 'c')
			n++;
	after = cg_nds_current();
	close(go[1]);
	close(hold[1]);
	for (i = 0; i < CHARGERS; i++)
		waitpid(kids[i], NULL, 0);
	printf("# memory.current %lld -> %lld with %d slabs claimed\n", before, after, n);
	fflush(stdout);
	if (n != CHARGERS || before < 0)
		return 13;
	return after - before >= (long long)n * NEURON_NDS_SIZE - VT_MEMCG_STOCK_BYTES ? 0 : 14;
}

static int slab_charged_to_its_owner(void)
{
	int status;

	if (vt_memcg_run(CG_NDS, "256M", charge_child, &status))
		return -1;
	VT_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "claims were not charged to the claimers' cgroup (child status %d)",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* ---- writable mappings never reach another process ---- */

/* In a forked child: 0 when none of @n ranges is mapped here. */
static int none_mapped(void *const *addr, int n)
{
	unsigned char v;
	int i;

	for (i = 0; i < n; i++)
		if (mincore(addr[i], 4096, &v) == 0 || errno != ENOMEM)
			return 1 + i;
	return 0;
}

/*
 * A process maps its slab and a ring writable, asks for them to be
 * inherited (MADV_DOFORK) and forks: the child has neither, and the
 * request is refused (before: the child got writable mappings of the
 * parent's counters and ring head).
 */
static int dofork_never_shares_mapping(void)
{
	struct neuron_nds_acquire q;
	struct neuron_nq_init r;
	int fd = vt_open_dev(0), st, ret[2], err[2];
	void *m[2];
	pid_t pid;

	VT_ASSERT(fd >= 0, "open");
	acq_init(&q, 0);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "acquire");
	m[0] = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)q.mmap_offset);
	VT_ASSERT(m[0] != MAP_FAILED, "slab map: %s", strerror(errno));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = 5;
	r.nq_type = NEURON_NQ_TYPE_ERROR;
	r.ring_size = 4096;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &r) == 0, "NQ_INIT: %s", strerror(errno));
	m[1] = mmap(NULL, r.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)r.mmap_offset);
	VT_ASSERT(m[1] != MAP_FAILED, "ring map: %s", strerror(errno));

	ret[0] = madvise(m[0], NEURON_NDS_SIZE, MADV_DOFORK);
	err[0] = errno;
	ret[1] = madvise(m[1], r.mmap_size, MADV_DOFORK);
	err[1] = errno;
	pid = fork();
	if (pid == 0)
		_exit(none_mapped(m, 2));
	VT_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	VT_ASSERT(WEXITSTATUS(st) == 0, "the child inherited the %s mapping (writable)",
		  WEXITSTATUS(st) == 1 ? "slab" : "ring");
	VT_ASSERT(none_mapped(m, 2) != 0, "the parent's mappings are there");
	VT_ASSERT(ret[0] == -1 && err[0] == EINVAL, "MADV_DOFORK on the slab: %s",
		  ret[0] ? strerror(err[0]) : "accepted");
	VT_ASSERT(ret[1] == -1 && err[1] == EINVAL, "MADV_DOFORK on the ring: %s",
		  ret[1] ? strerror(err[1]) : "accepted");
	munmap(m[1], r.mmap_size);
	munmap(m[0], NEURON_NDS_SIZE);
	close(fd);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(inherited_fd_cannot_map_rw),
		VT_CASE(acquire_validation),
		VT_CASE(own_slab),
		VT_CASE(api_bounds_write_nothing),
		VT_CASE(counter_add_validation),
		VT_CASE(mmap_validation),
		VT_CASE(concurrent_totals_exact),
		VT_CASE(sigkill_keeps_counts),
		VT_CASE(seventeenth_gets_resource),
		VT_CASE(stale_view_never_shows_next_owner),
		VT_CASE(slab_charged_to_its_owner),
		VT_CASE(dofork_never_shares_mapping),
		VT_CASE(monitor_reads_not_writes),
		VT_CASE(raw_layout_bytes),
		VT_CASE(read_copies_the_slab),
		VT_CASE(bridge_moves_sysfs),
		VT_CASE(counts_survive_last_close),
		VT_CASE(write_to_clear),
		VT_CASE(notify_wakes_poll),
		VT_CASE(counter_add_wakes_poll),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return vt_run("nds", cases, VT_COUNT(cases));
}
