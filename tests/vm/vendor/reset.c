// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: resets. */
#include "vendor.h"

/* ==== 10. resets =========================================================== */

static uint64_t req_count(int dev, int nc)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "neuron_core%d/stats/other_info/reset_req_count/total", nc);
	return vt_sys_u64(dev, rel);
}

static uint64_t fail_count(int dev, int nc)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "neuron_core%d/stats/other_info/reset_fail_count/total", nc);
	return vt_sys_u64(dev, rel);
}

/*
 * NC_RESET of a core the caller holds: request_id is the caller's pid,
 * NC_RESET_READY answers 0 (completed) once and ENOENT after; the core's
 * reset_req_count moves by one and no other core's; its rings are gone
 * (the offset maps nothing), and the core stays the caller's. While one
 * of its rings is mapped: EBUSY, nothing reset.
 */
static int nc_reset_held_core_body(void)
{
	struct vnd_device_reset rq;
	struct vnd_device_ready rd;
	struct vnd_nq_init_v2 a;
	uint64_t req1, req0;
	void *p;
	int fd = open_dev(1, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	nq_v2(&a, 1, NQ_ERROR, 0, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
	VT_ASSERT(r == 0, "INIT_V2: %s", err(r));
	req0 = req_count(1, 0);
	req1 = req_count(1, 1);
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = 0x2;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p != MAP_FAILED, "mmap: %s", strerror(errno));
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == -EBUSY && req_count(1, 1) == req1,
		  "NC_RESET of a core with a mapped ring: %s, expected EBUSY", err(r));
	munmap(p, 4096);
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == 0 && rq.request_id == (uint32_t)getpid(), "NC_RESET 0x2: %s, id %u (pid %d)",
		  err(r), rq.request_id, getpid());
	memset(&rd, 0, sizeof(rd));
	rd.request_id = rq.request_id;
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 0, "NC_RESET_READY: %s, result %d", err(r), rd.result);
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == -ENOENT, "NC_RESET_READY again: %s, expected ENOENT", err(r));
	VT_ASSERT(req_count(1, 1) == req1 + 1 && req_count(1, 0) == req0,
		  "reset_req_count: nc1 %llu -> %llu, nc0 %llu -> %llu",
		  (unsigned long long)req1, (unsigned long long)req_count(1, 1),
		  (unsigned long long)req0, (unsigned long long)req_count(1, 0));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == ENOENT, "the reset core's ring still maps: %s",
		  p == MAP_FAILED ? strerror(errno) : "mapped");
	VT_ASSERT(own_nc_map(1, getpid()) == 0x2, "the core after its reset: %#x",
		  own_nc_map(1, getpid()));
	close(fd);
	return 0;
}
ISOLATED(nc_reset_held_core)

static int nc_reset_unprivileged_child(void *unused)
{
	struct vnd_device_reset rq;
	int fd;
	long r;

	(void)unused;
	VT_ASSERT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
		  "cannot become nobody: %s", strerror(errno));
	fd = open_dev(1, O_RDWR);
	VT_ASSERT(fd >= 0, "nobody cannot open /dev/neuron1: %s", strerror(errno));
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EPERM, "DEVICE_RESET as nobody: %s, expected EPERM", err(r));
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = 0xFFFFFFFFu;
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == -EPERM, "NC_RESET of the device as nobody: %s, expected EPERM", err(r));
	close(fd);
	return 0;
}

/*
 * What NC_RESET refuses: an empty map or a core the device lacks
 * (EINVAL), a core nobody holds or another process's (EACCES: the vendor
 * resets anyone's cores); the whole device without CAP_SYS_ADMIN (EPERM)
 * or while another process has it open (EBUSY). Nothing is counted.
 */
static int nc_reset_refusals_body(void)
{
	static const struct {
		uint32_t map;
		long want;
		const char *what;
	} bad[] = {
		{ 0, -EINVAL, "empty map" },
		{ 1u << NC_COUNT, -EINVAL, "a core past the device's" },
		{ 0x1, -EACCES, "a core nobody holds" },
		{ 0x4, -EACCES, "another process's core" },
		{ 0x6, -EACCES, "the caller's and another's" },
		{ 0xFFFFFFFFu, -EBUSY, "the device, another process having it open" },
	};
	struct vnd_device_reset rq;
	struct neuron_core_reserve cr;
	uint64_t req[NC_COUNT];
	struct agent b;
	unsigned int i;
	int fd = open_dev(1, O_RDWR), nc;
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 1, O_RDWR) == 0, "agent");
	VT_ASSERT(ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2) == 0, "B reserves core 2");
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.nc = 1;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr) == 0, "reserve core 1");
	for (nc = 0; nc < NC_COUNT; nc++)
		req[nc] = req_count(1, nc);
	for (i = 0; i < VT_COUNT(bad); i++) {
		memset(&rq, 0, sizeof(rq));
		rq.nc_map = bad[i].map;
		r = xioctl(fd, VND_NC_RESET, &rq);
		VT_ASSERT(r == bad[i].want, "NC_RESET %#x (%s): %s, expected %s", bad[i].map,
			  bad[i].what, err(r), err(bad[i].want));
	}
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EBUSY, "DEVICE_RESET with B open: %s, expected EBUSY", err(r));
	for (nc = 0; nc < NC_COUNT; nc++)
		VT_ASSERT(req_count(1, nc) == req[nc], "a refused reset counted on nc%d", nc);
	VT_ASSERT(run_sub(nc_reset_unprivileged_child, NULL) == 0, "%s", sub_why);
	close(fd);
	return 0;
}
ISOLATED(nc_reset_refusals)

/*
 * NC_RESET makes a core that took an uncorrectable error usable again,
 * and only that core; a reset that fails (inject/reset_fail) still
 * answers a request id, NC_RESET_READY says 1 and reset_fail_count moves.
 */
static int nc_reset_revives_core_body(void)
{
	struct vnd_device_reset rq;
	struct vnd_device_ready rd;
	struct neuron_core_reserve cr;
	uint32_t written, dropped;
	uint64_t fail0;
	int fd = open_dev(1, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(vt_inject(1, "nc_unrecoverable", "3") == 0, "nc_unrecoverable");
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == -ENOTRECOVERABLE, "job on the broken core: %s", err(r));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.nc = 3;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr) == 0, "reserve core 3");

	VT_ASSERT(vt_dbg_write(1, "inject/reset_fail", "1") == 0, "reset_fail");
	fail0 = fail_count(1, 3);
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = 0x8;
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == 0, "NC_RESET (to fail): %s", err(r));
	rd.request_id = rq.request_id;
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 1, "NC_RESET_READY of the failed reset: %s, result %d",
		  err(r), rd.result);
	VT_ASSERT(fail_count(1, 3) == fail0 + 1, "reset_fail_count %llu -> %llu",
		  (unsigned long long)fail0, (unsigned long long)fail_count(1, 3));
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == -ENOTRECOVERABLE, "job after the failed reset: %s", err(r));

	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == 0, "NC_RESET: %s", err(r));
	rd.request_id = rq.request_id;
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 0, "NC_RESET_READY: %s, result %d", err(r), rd.result);
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == 0, "job after the reset: %s", err(r));
	close(fd);
	return 0;
}
ISOLATED(nc_reset_revives_core)

/*
 * DEVICE_RESET by root with nobody else on the device: refused (EBUSY,
 * nothing counted) while an allocation of device memory is mapped, or
 * was and is not freed (the reset discards device memory); then the
 * whole device is reset (every core's reset_req_count moves),
 * DEVICE_READY reads 1 after, and NC_RESET_READY of the caller's pid
 * answers 0.
 */
static int device_reset_alone_body(void)
{
	struct vnd_device_ready rd;
	struct neuron_mem_alloc ma;
	struct neuron_mem_free mf;
	uint64_t req[NC_COUNT];
	__u8 ready = 0;
	int fd = open_dev(1, O_RDWR), nc;
	void *p;
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&ma, 0, sizeof(ma));
	ma.size = sizeof(ma);
	ma.location = NEURON_MEM_LOC_DEVICE;
	ma.bytes = 8192;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_MEM_ALLOC, &ma) == 0, "MEM_ALLOC");
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)NEURON_MEM_MMAP_OFFSET(ma.device_addr));
	VT_ASSERT(p != MAP_FAILED, "mmap of device memory: %s", strerror(errno));
	((volatile char *)p)[0] = 1;
	req[1] = req_count(1, 1);
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EBUSY && req_count(1, 1) == req[1],
		  "DEVICE_RESET with device memory mapped: %s, expected EBUSY", err(r));
	munmap(p, 8192);
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EBUSY, "DEVICE_RESET with a mapped allocation not freed: %s, expected EBUSY",
		  err(r));
	memset(&mf, 0, sizeof(mf));
	mf.size = sizeof(mf);
	mf.handle = ma.handle;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_MEM_FREE, &mf) == 0, "MEM_FREE");
	for (nc = 0; nc < NC_COUNT; nc++)
		req[nc] = req_count(1, nc);
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == 0, "DEVICE_RESET: %s", err(r));
	for (nc = 0; nc < NC_COUNT; nc++)
		VT_ASSERT(req_count(1, nc) == req[nc] + 1, "nc%d reset_req_count %llu -> %llu", nc,
			  (unsigned long long)req[nc], (unsigned long long)req_count(1, nc));
	r = xioctl(fd, VND_DEVICE_READY, &ready);
	VT_ASSERT(r == 0 && ready == 1, "DEVICE_READY: %s, %u", err(r), ready);
	rd.request_id = (uint32_t)getpid();
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 0, "NC_RESET_READY(pid): %s, result %d", err(r),
		  rd.result);
	close(fd);
	return 0;
}
ISOLATED(device_reset_alone)
