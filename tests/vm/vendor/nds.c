// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: NDS slabs. */
#include "vendor.h"

/* ==== 6. NDS slabs ========================================================= */

static long ag_ds(struct agent *a, int slot, unsigned long cmd, pid_t pid, struct vnd_ds_info *d)
{
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	d->size = 0xFFFFFFFFu;
	d->mmap_offset = UINT64_MAX;
	return ag_ioctl(a, slot, cmd, d, sizeof(*d));
}

static long ag_own_acquire(struct agent *a, int slot, pid_t pid, struct neuron_nds_acquire *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->pid = pid;
	return ag_ioctl(a, slot, NEURON_IOCTL_NDS_ACQUIRE, q, sizeof(*q));
}

static long ag_counter_add(struct agent *a, int slot, uint32_t nc, uint32_t id, uint64_t delta)
{
	struct neuron_nds_counter_add c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.nc = nc;
	c.id = id;
	c.delta = delta;
	return ag_ioctl(a, slot, NEURON_IOCTL_NDS_COUNTER_ADD, &c, sizeof(c));
}

static long vnd_ds(int fd, unsigned long cmd, pid_t pid, struct vnd_ds_info *d)
{
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	d->size = 0xFFFFFFFFu;
	d->mmap_offset = UINT64_MAX;
	return xioctl(fd, cmd, d);
}

/*
 * ACQUIRE_NEURON_DS pid 0 gives the slab and mmap cookie NDS_ACQUIRE
 * gives the same process, size 262144, whichever ABI asks first; two
 * processes get two slabs.
 */
static int nds_same_slab_both_abis_body(void)
{
	struct neuron_nds_acquire q;
	struct vnd_ds_info d;
	struct agent a, b;
	uint64_t off_a;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	/* the vendor's first */
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.size == VND_NDS_SIZE, "A ACQUIRE_NEURON_DS: %s, size %u", err(r),
		  d.size);
	off_a = d.mmap_offset;
	r = ag_own_acquire(&a, 0, 0, &q);
	VT_ASSERT(r == 0 && q.mmap_offset == off_a && q.mmap_size == NEURON_NDS_SIZE &&
		  q.access == NEURON_NDS_ACCESS_RW,
		  "A NDS_ACQUIRE: %s, offset %#llx (vendor's %#llx), size %llu, access %u", err(r),
		  (unsigned long long)q.mmap_offset, (unsigned long long)off_a,
		  (unsigned long long)q.mmap_size, q.access);
	/* ours first */
	r = ag_own_acquire(&b, 0, 0, &q);
	VT_ASSERT(r == 0, "B NDS_ACQUIRE: %s", err(r));
	r = ag_ds(&b, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.mmap_offset == q.mmap_offset && d.size == VND_NDS_SIZE,
		  "B ACQUIRE_NEURON_DS: %s, offset %#llx (NDS_ACQUIRE's %#llx), size %u", err(r),
		  (unsigned long long)d.mmap_offset, (unsigned long long)q.mmap_offset, d.size);
	VT_ASSERT(d.mmap_offset != off_a, "A and B were given the same slab");
	/* again: the same slab */
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.mmap_offset == off_a, "A again: %s, %#llx", err(r),
		  (unsigned long long)d.mmap_offset);
	return 0;
}
ISOLATED(nds_same_slab_both_abis)

/* NC counters under test: sysfs names of ids 4 (timeout) and 1 (success) */
#define T_NC	1
#define T_ID	NDS_NC_COUNTER_INFER_TIMED_OUT
#define T_NAME	"timeout"
#define S_NC	2
#define S_ID	NDS_NC_COUNTER_INFER_COMPLETED
#define S_NAME	"success"

/*
 * NDS_COUNTER_ADD shows in the mapping of the vendor-acquired slab at the
 * place neuron_nds.h gives; a count written into that mapping shows in
 * sysfs and in a mapping of NDS_ACQUIRE's cookie.
 */
static int nds_counters_cross_body(void)
{
	uint64_t t0 = vt_status_total(0, T_NC, T_NAME), s0 = vt_status_total(0, S_NC, S_NAME);
	struct neuron_nds_acquire q;
	struct vnd_ds_info d;
	struct agent a;
	uint64_t v;
	long r;

	VT_ASSERT(t0 != UINT64_MAX && s0 != UINT64_MAX, "sysfs totals unreadable");
	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_RDWR) == 0, "agent");
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0, "ACQUIRE_NEURON_DS: %s", err(r));
	r = ag_mmap(&a, 0, 0, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset);
	VT_ASSERT(r == 0, "read-write mmap of the vendor's offset: %s", err(r));
	r = ag_counter_add(&a, 0, T_NC, T_ID, 3);
	VT_ASSERT(r == 0, "NDS_COUNTER_ADD: %s", err(r));
	VT_ASSERT(ag_peek(&a, 0, nc_off(T_NC, T_ID), &v) == 0 && v == 3,
		  "the vendor-acquired mapping at %llu reads %llu, expected 3",
		  (unsigned long long)nc_off(T_NC, T_ID), (unsigned long long)v);
	VT_ASSERT(ag_poke(&a, 0, nc_off(S_NC, S_ID), 5) == 0, "write into the mapping");
	VT_ASSERT(vt_status_total(0, T_NC, T_NAME) - t0 == 3 &&
		  vt_status_total(0, S_NC, S_NAME) - s0 == 5,
		  "sysfs moved by %llu and %llu, expected 3 and 5",
		  (unsigned long long)(vt_status_total(0, T_NC, T_NAME) - t0),
		  (unsigned long long)(vt_status_total(0, S_NC, S_NAME) - s0));
	r = ag_own_acquire(&a, 0, 0, &q);
	VT_ASSERT(r == 0 && q.mmap_offset == d.mmap_offset, "NDS_ACQUIRE: %s", err(r));
	r = ag_mmap(&a, 0, 1, q.mmap_size, PROT_READ, q.mmap_offset);
	VT_ASSERT(r == 0, "mmap of NDS_ACQUIRE's cookie: %s", err(r));
	VT_ASSERT(ag_peek(&a, 1, nc_off(S_NC, S_ID), &v) == 0 && v == 5,
		  "NDS_ACQUIRE's mapping reads %llu where the vendor's wrote 5",
		  (unsigned long long)v);
	VT_ASSERT(ag_peek(&a, 1, nc_off(T_NC, T_ID), &v) == 0 && v == 3, "and %llu for the add",
		  (unsigned long long)v);
	return 0;
}
ISOLATED(nds_counters_cross)

/*
 * Another process's ACQUIRE_NEURON_DS with the owner's pid: the same
 * offset, mappable read-only only; a pid with no slab -ENOENT; RELEASE
 * with another process's pid does nothing (0, the slab stays).
 */
static int nds_monitor_lookup_body(void)
{
	uint64_t t0 = vt_status_total(0, T_NC, T_NAME), v;
	struct neuron_nds_acquire oq;
	struct vnd_ds_info d, m;
	struct agent a, b;
	const uint64_t *view;
	void *p;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0, "A ACQUIRE_NEURON_DS: %s", err(r));
	VT_ASSERT(ag_mmap(&a, 0, 0, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset) == 0,
		  "A mmap");
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 9) == 0, "A NDS_COUNTER_ADD");

	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0 && m.mmap_offset == d.mmap_offset && m.size == VND_NDS_SIZE,
		  "ACQUIRE_NEURON_DS of A's pid: %s, offset %#llx (A's %#llx), size %u", err(r),
		  (unsigned long long)m.mmap_offset, (unsigned long long)d.mmap_offset, m.size);
	p = mmap(NULL, VND_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == EACCES, "writable map of A's slab: %s",
		  p == MAP_FAILED ? strerror(errno) : "mapped");
	view = mmap(NULL, VND_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)m.mmap_offset);
	VT_ASSERT(view != MAP_FAILED, "read-only map of A's slab: %s", strerror(errno));
	VT_ASSERT(view[nc_off(T_NC, T_ID) / 8] == 9, "the monitor reads %llu, expected 9",
		  (unsigned long long)view[nc_off(T_NC, T_ID) / 8]);
	/* this driver's lookup agrees */
	memset(&oq, 0, sizeof(oq));
	oq.size = sizeof(oq);
	oq.pid = a.pid;
	r = xioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &oq);
	VT_ASSERT(r == 0 && oq.mmap_offset == m.mmap_offset && oq.access == NEURON_NDS_ACCESS_RO,
		  "NDS_ACQUIRE of A's pid: %s, %#llx, access %u", err(r),
		  (unsigned long long)oq.mmap_offset, oq.access);

	/* pids without a slab: B (has the device open) and the suite's runner */
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, b.pid, &m);
	VT_ASSERT(r == -ENOENT, "ACQUIRE_NEURON_DS of B (no slab): %s", err(r));
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, getppid(), &m);
	VT_ASSERT(r == -ENOENT, "ACQUIRE_NEURON_DS of a process without the device: %s", err(r));

	/* RELEASE of another's slab: 0, nothing done */
	r = vnd_ds(fd, VND_RELEASE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS of A's pid by this process: %s", err(r));
	r = ag_ds(&b, 0, VND_RELEASE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS of A's pid by B: %s", err(r));
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0 && m.mmap_offset == d.mmap_offset, "A's slab after others' RELEASE: %s",
		  err(r));
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 1) == 0, "A adds after others' RELEASE");
	VT_ASSERT(ag_peek(&a, 0, nc_off(T_NC, T_ID), &v) == 0 && v == 10 &&
		  view[nc_off(T_NC, T_ID) / 8] == 10,
		  "A's counter %llu, the monitor's view %llu, expected 10", (unsigned long long)v,
		  (unsigned long long)view[nc_off(T_NC, T_ID) / 8]);
	VT_ASSERT(vt_status_total(0, T_NC, T_NAME) - t0 == 10, "sysfs moved by %llu, expected 10",
		  (unsigned long long)(vt_status_total(0, T_NC, T_NAME) - t0));
	munmap((void *)view, VND_NDS_SIZE);
	close(fd);
	return 0;
}
ISOLATED(nds_monitor_lookup)

/*
 * RELEASE_NEURON_DS (pid 0, or the caller's own pid) folds the slab into
 * the totals and frees it: the old mapping counts nothing from then on,
 * the lookup is -ENOENT, NDS_COUNTER_ADD -ENOENT, a new acquire gives a
 * new, zeroed slab, and the exit folds nothing twice.
 */
static int nds_release_folds_body(void)
{
	uint64_t t0 = vt_status_total(0, T_NC, T_NAME), s0 = vt_status_total(0, S_NC, S_NAME), v;
	struct vnd_ds_info d, m;
	struct agent a;
	int fd;
	long r;

#define TOTALS_MOVED(t, s, when)                                                              \
	VT_ASSERT(vt_status_total(0, T_NC, T_NAME) - t0 == (t) &&                             \
		  vt_status_total(0, S_NC, S_NAME) - s0 == (s),                               \
		  "%s: sysfs moved by %llu and %llu, expected %u and %u", when,               \
		  (unsigned long long)(vt_status_total(0, T_NC, T_NAME) - t0),                \
		  (unsigned long long)(vt_status_total(0, S_NC, S_NAME) - s0), (unsigned)(t), \
		  (unsigned)(s))

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_RDWR) == 0, "agent");
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0, "ACQUIRE_NEURON_DS: %s", err(r));
	VT_ASSERT(ag_mmap(&a, 0, 0, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset) == 0,
		  "mmap");
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 3) == 0, "NDS_COUNTER_ADD");
	VT_ASSERT(ag_poke(&a, 0, nc_off(S_NC, S_ID), 5) == 0, "write into the mapping");
	TOTALS_MOVED(3, 5, "live");

	r = ag_ds(&a, 0, VND_RELEASE_NEURON_DS, 0, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS pid 0: %s", err(r));
	TOTALS_MOVED(3, 5, "after RELEASE");
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == -ENOENT, "lookup of the released slab: %s, expected ENOENT", err(r));
	r = ag_counter_add(&a, 0, T_NC, T_ID, 1);
	VT_ASSERT(r == -ENOENT, "NDS_COUNTER_ADD without a slab: %s, expected ENOENT", err(r));
	/* the old mapping keeps its pages and counts nothing */
	VT_ASSERT(ag_poke(&a, 0, nc_off(S_NC, S_ID), 105) == 0, "write into the old mapping");
	TOTALS_MOVED(3, 5, "after a write into the released mapping");
	r = ag_ds(&a, 0, VND_RELEASE_NEURON_DS, 0, &m);
	VT_ASSERT(r == 0, "a second RELEASE_NEURON_DS: %s", err(r));

	/* a new slab, zeroed */
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.size == VND_NDS_SIZE, "ACQUIRE_NEURON_DS after RELEASE: %s", err(r));
	VT_ASSERT(ag_mmap(&a, 0, 1, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset) == 0,
		  "mmap of the new slab");
	VT_ASSERT(ag_peek(&a, 1, nc_off(S_NC, S_ID), &v) == 0 && v == 0 &&
		  ag_peek(&a, 1, nc_off(T_NC, T_ID), &v) == 0 && v == 0,
		  "the new slab holds %llu", (unsigned long long)v);
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 4) == 0, "add to the new slab");
	TOTALS_MOVED(7, 5, "with the new slab");
	/* RELEASE naming the caller's own pid is RELEASE of its slab */
	r = ag_ds(&a, 0, VND_RELEASE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS of its own pid: %s", err(r));
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == -ENOENT, "lookup after RELEASE by own pid: %s, expected ENOENT", err(r));
	TOTALS_MOVED(7, 5, "after RELEASE by own pid");
	VT_ASSERT(ag_exit(&a), "A did not exit");
	TOTALS_MOVED(7, 5, "after the exit");
	close(fd);
#undef TOTALS_MOVED
	return 0;
}
ISOLATED(nds_release_folds)
