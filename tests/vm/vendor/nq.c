// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: notification rings. */
#include "vendor.h"

/* ==== 9. notification rings =============================================== */

void nq_v2(struct vnd_nq_init_v2 *a, uint32_t nc, uint32_t type, uint32_t engine,
		  uint32_t size)
{
	memset(a, 0, sizeof(*a));
	a->nq_dev_id = nc;
	a->nq_dev_type = 0;	/* NeuronCore */
	a->nq_type = type;
	a->engine_index = engine;
	a->size = size;
	a->on_host_memory = 1;
}

/* One job on @nc through this driver's SIM_EXEC: its entries written and dropped. */
long sim_job(int fd, uint32_t nc, uint32_t *written, uint32_t *dropped)
{
	struct neuron_sim_exec e;
	long r;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.nc = nc;
	e.timeout_us = 10000000;
	r = xioctl(fd, NEURON_IOCTL_SIM_EXEC, &e);
	*written = e.entries;
	*dropped = e.dropped;
	return r;
}

/*
 * NOTIFICATIONS_INIT_V2: a host ring whose mapping (at mmap_offset, the
 * size rounded to a page) holds the entries from offset 0; the device
 * writes on around it, each entry's phase bit telling its lap: 300
 * entries into 256 slots leave slots 0..43 on the second lap (phase 0)
 * and 44..255 on the first (phase 1), none dropped. The same init again
 * is the same ring; V1 names it too; another size is EBUSY.
 */
static int nq_v2_ring_entries_body(void)
{
	struct vnd_nq_init_v2 a, b;
	struct vnd_nq_init_v1 v1;
	const uint8_t *ring;
	uint32_t written, dropped, i;
	int fd = open_dev(0, O_RDWR);
	void *big;
	long r;

	VT_ASSERT(fd >= 0, "open");
	nq_v2(&a, 1, NQ_ERROR, 0, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
	VT_ASSERT(r == 0, "INIT_V2: %s", err(r));
	VT_ASSERT(a.mem_handle != 0 && a.mmap_offset % 4096 == 0, "handle %llu, offset %#llx",
		  (unsigned long long)a.mem_handle, (unsigned long long)a.mmap_offset);
	VT_ASSERT(own_nc_map(0, getpid()) == 0x2, "the ring's core is the caller's: %#x",
		  own_nc_map(0, getpid()));
	big = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(big == MAP_FAILED && errno == EINVAL, "a map of 8192 bytes of a 4096-byte ring: %s",
		  big == MAP_FAILED ? strerror(errno) : "mapped");
	ring = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(ring != MAP_FAILED, "mmap: %s", strerror(errno));
	VT_ASSERT(all_bytes(ring, 4096, 0), "a new ring is not zeroed");

	VT_ASSERT(vt_inject(0, "nq_flood", "1 300") == 0, "nq_flood");
	r = sim_job(fd, 1, &written, &dropped);
	VT_ASSERT(r == 0 && written == 300 && dropped == 0, "job: %s, %u written, %u dropped",
		  err(r), written, dropped);
	for (i = 0; i < 256; i++) {
		uint8_t h = ring[i * 16 + 3];
		uint8_t want = i < 300 - 256 ? 0 : NQ_HDR_PHASE;

		VT_ASSERT((h & NQ_HDR_TYPE) == NQ_TPB_ERROR && (h & NQ_HDR_PHASE) == want,
			  "slot %u: header %#x, expected type %#x phase %#x", i, h, NQ_TPB_ERROR,
			  want);
	}

	b = a;
	b.mmap_offset = 0;
	b.mem_handle = 0;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &b);
	VT_ASSERT(r == 0 && b.mmap_offset == a.mmap_offset && b.mem_handle == a.mem_handle,
		  "the same INIT_V2 again: %s, %#llx", err(r), (unsigned long long)b.mmap_offset);
	VT_ASSERT(ring[3] == (NQ_TPB_ERROR | 0), "the same ring again lost its entries");
	memset(&v1, 0, sizeof(v1));
	v1.nc_id = 1;
	v1.nq_type = NQ_ERROR;
	v1.size = 4096;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V1, &v1);
	VT_ASSERT(r == 0 && v1.mmap_offset == a.mmap_offset, "INIT_V1 of the ring: %s, %#llx",
		  err(r), (unsigned long long)v1.mmap_offset);
	nq_v2(&b, 1, NQ_ERROR, 0, 8192);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &b);
	VT_ASSERT(r == -EBUSY, "INIT_V2 of the ring with another size: %s, expected EBUSY",
		  err(r));
	munmap((void *)ring, 4096);
	close(fd);
	return 0;
}
ISOLATED(nq_v2_ring_entries)

/*
 * The arguments: a TOP_SP and a device-memory ring are not provided
 * (EOPNOTSUPP); another device type, a core past the device's (no
 * truncation to 8 bits: 256 is not core 0), a type past THROTTLE, an
 * engine past 15, a size not a power of two in 256..1 MiB: EINVAL.
 * An argument refused leaves nothing: the core stays free.
 */
static int nq_init_refusals_body(void)
{
	static const struct {
		uint32_t dev_type, nc, type, engine, size, host;
		long want;
		const char *what;
	} bad[] = {
		{ 1, 0, NQ_ERROR, 0, 4096, 1, -EOPNOTSUPP, "TOP_SP" },
		{ 2, 0, NQ_ERROR, 0, 4096, 1, -EINVAL, "device type 2" },
		{ 0, 0, NQ_ERROR, 0, 4096, 0, -EOPNOTSUPP, "device memory" },
		{ 0, NC_COUNT, NQ_ERROR, 0, 4096, 1, -EINVAL, "core past the device's" },
		{ 0, 256, NQ_ERROR, 0, 4096, 1, -EINVAL, "core 256" },
		{ 0, 0, 6, 0, 4096, 1, -EINVAL, "type 6" },
		{ 0, 0, 16 + NQ_ERROR, 0, 4096, 1, -EINVAL, "type 19" },
		{ 0, 0, NQ_ERROR, 16, 4096, 1, -EINVAL, "engine 16" },
		{ 0, 0, NQ_ERROR, 0, 0, 1, -EINVAL, "size 0" },
		{ 0, 0, NQ_ERROR, 0, 3000, 1, -EINVAL, "size 3000" },
		{ 0, 0, NQ_ERROR, 0, 128, 1, -EINVAL, "size 128" },
		{ 0, 0, NQ_ERROR, 0, 2u << 20, 1, -EINVAL, "size 2 MiB" },
	};
	struct vnd_nq_init_realloc ra;
	struct vnd_nq_init_v2 a;
	unsigned int i;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < VT_COUNT(bad); i++) {
		nq_v2(&a, bad[i].nc, bad[i].type, bad[i].engine, bad[i].size);
		a.nq_dev_type = bad[i].dev_type;
		a.on_host_memory = bad[i].host;
		r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
		VT_ASSERT(r == bad[i].want, "%s: %s, expected %s", bad[i].what, err(r),
			  err(bad[i].want));
	}
	VT_ASSERT(own_nc_map(0, getpid()) == 0, "a refused init left cores %#x",
		  own_nc_map(0, getpid()));
	/*
	 * the padding after force_alloc_mem is implicit in the vendor's
	 * struct: its callers leave it unset, and neither driver reads it
	 */
	memset(&ra, 0, sizeof(ra));
	ra.nq_type = NQ_ERROR;
	ra.size = 4096;
	ra.on_host_memory = 1;
	((uint32_t *)&ra)[9] = 0xdeadbeef;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == 0 && ra.mmap_offset, "REALLOC with its padding unset: %s", err(r));
	close(fd);
	return 0;
}
ISOLATED(nq_init_refusals)

/*
 * One table behind both ABIs: a vendor ring reserves its core (busy for
 * another process's ring and CORE_RESERVE); this driver's NQ_INIT of the
 * same ring is EBUSY (a ring is of one kind); CORE_RELEASE frees the core
 * and its ring, after which the other process gets both.
 */
static int nq_one_table_body(void)
{
	struct vnd_nq_init_v2 a;
	struct neuron_core_reserve cr;
	struct neuron_nq_init own;
	struct agent b;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "agent");
	nq_v2(&a, 2, NQ_ERROR, 0, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
	VT_ASSERT(r == 0, "INIT_V2: %s", err(r));
	memset(&own, 0, sizeof(own));
	own.size = sizeof(own);
	own.nc = 2;
	own.nq_type = NQ_ERROR;
	own.ring_size = 4096;
	r = xioctl(fd, NEURON_IOCTL_NQ_INIT, &own);
	VT_ASSERT(r == -EBUSY, "NQ_INIT of the vendor's ring: %s, expected EBUSY", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == -EBUSY, "B CORE_RESERVE of the ring's core: %s, expected EBUSY", err(r));
	nq_v2(&a, 2, NQ_ERROR, 1, 4096);
	r = ag_ioctl(&b, 0, VND_NOTIFICATIONS_INIT_V2, &a, sizeof(a));
	VT_ASSERT(r == -EBUSY, "B INIT_V2 on the core: %s, expected EBUSY", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RELEASE, 2);
	VT_ASSERT(r == -ENOENT, "B CORE_RELEASE of the caller's core: %s", err(r));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.nc = 2;
	r = xioctl(fd, NEURON_IOCTL_CORE_RELEASE, &cr);
	VT_ASSERT(r == 0, "CORE_RELEASE of the ring's core: %s", err(r));
	nq_v2(&a, 2, NQ_ERROR, 0, 8192);
	r = ag_ioctl(&b, 0, VND_NOTIFICATIONS_INIT_V2, &a, sizeof(a));
	VT_ASSERT(r == 0, "B INIT_V2 after the release: %s", err(r));
	VT_ASSERT(own_nc_map(0, b.pid) == 0x4 && own_nc_map(0, getpid()) == 0,
		  "cores: B %#x, caller %#x", own_nc_map(0, b.pid), own_nc_map(0, getpid()));
	close(fd);
	return 0;
}
ISOLATED(nq_one_table)

/*
 * WITH_REALLOC_V2, force_alloc_mem 1: refused while the old ring is
 * mapped (EBUSY, the old ring untouched); once unmapped, a new ring (any
 * size) replaces it at the same offset, zeroed, and gets the next job's
 * entries.
 */
static int nq_realloc_replaces_body(void)
{
	struct vnd_nq_init_realloc ra;
	const uint8_t *old, *neu;
	uint32_t written, dropped;
	int fd = open_dev(0, O_RDWR);
	uint64_t off;
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&ra, 0, sizeof(ra));
	ra.nq_dev_id = 3;
	ra.nq_type = NQ_ERROR;
	ra.size = 4096;
	ra.on_host_memory = 1;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == 0, "REALLOC (force 0): %s", err(r));
	off = ra.mmap_offset;
	old = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)off);
	VT_ASSERT(old != MAP_FAILED, "mmap: %s", strerror(errno));
	VT_ASSERT(vt_inject(0, "nq_flood", "3 5") == 0, "nq_flood");
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == 0 && written == 5, "job: %s, %u written", err(r), written);

	ra.force_alloc_mem = 1;
	ra.size = 8192;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == -EBUSY, "REALLOC (force 1) of a mapped ring: %s, expected EBUSY", err(r));
	VT_ASSERT(old[4 * 16 + 3] == (NQ_TPB_ERROR | NQ_HDR_PHASE) && old[5 * 16 + 3] == 0,
		  "the refused REALLOC changed the ring: slot 4 %#x, slot 5 %#x", old[4 * 16 + 3],
		  old[5 * 16 + 3]);
	munmap((void *)old, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == 0 && ra.mmap_offset == off, "REALLOC (force 1): %s, %#llx", err(r),
		  (unsigned long long)ra.mmap_offset);
	neu = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)off);
	VT_ASSERT(neu != MAP_FAILED, "mmap of the new ring: %s", strerror(errno));
	VT_ASSERT(all_bytes(neu, 8192, 0), "the new ring is not zeroed");
	VT_ASSERT(vt_inject(0, "nq_flood", "3 7") == 0, "nq_flood");
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == 0 && written == 7, "job: %s, %u written", err(r), written);
	VT_ASSERT(neu[6 * 16 + 3] == (NQ_TPB_ERROR | NQ_HDR_PHASE) && neu[7 * 16 + 3] == 0,
		  "the new ring: slot 6 %#x, slot 7 %#x", neu[6 * 16 + 3], neu[7 * 16 + 3]);
	munmap((void *)neu, 8192);
	close(fd);
	return 0;
}
ISOLATED(nq_realloc_replaces)
