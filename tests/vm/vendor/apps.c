// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: processes. */
#include "vendor.h"

/* ==== 8. processes ========================================================= */

static pid_t app_pid(int fd)
{
	__s32 pid = -1;

	return xioctl(fd, VND_DEVICE_APP_PID, &pid) ? -1 : pid;
}

/*
 * DEVICE_APP_PID: the process that has had the device open longest among
 * those that have it open now, whoever asks.
 */
static int app_pid_oldest_opener_body(void)
{
	struct agent a, b;
	__s32 pid;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(app_pid(fd) == a.pid, "DEVICE_APP_PID %d, expected A %d", app_pid(fd), a.pid);
	pid = -1;
	r = ag_ioctl(&b, 0, VND_DEVICE_APP_PID, &pid, sizeof(pid));
	VT_ASSERT(r == 0 && pid == a.pid, "B's DEVICE_APP_PID: %s, %d", err(r), pid);
	VT_ASSERT(ag_close(&a, 0) == 0, "A closes");
	VT_ASSERT(app_pid(fd) == b.pid, "after A's close: %d, expected B %d", app_pid(fd), b.pid);
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0, "A opens again");
	VT_ASSERT(app_pid(fd) == b.pid, "after A's new open: %d, expected B %d", app_pid(fd),
		  b.pid);
	VT_ASSERT(ag_exit(&b), "B did not exit");
	VT_ASSERT(app_pid(fd) == getpid(), "after B's exit: %d, expected this process %d",
		  app_pid(fd), getpid());
	close(fd);
	return 0;
}
ISOLATED(app_pid_oldest_opener)

static int record_zeroes(const struct vnd_app_info *e)
{
	const unsigned char *raw = (const unsigned char *)e;

	return all_bytes(e->uuid_data, sizeof(e->uuid_data), 0) && all_bytes(raw + 133, 3, 0);
}

/*
 * DEVICE_GET_ALL_APPS_INFO: every opener (an O_WRONLY one too) in open
 * order with its pid, size = records written, capacity honoured to the
 * byte, unknown flags -EINVAL, nc_lock_map only with flag 1, uuid_data
 * and padding 0.
 */
static int all_apps_info_list_body(void)
{
	static struct vnd_apps_buf vb;
	const unsigned char *rec1 = (const unsigned char *)&vb.app[1];
	struct agent a, b;
	unsigned int i;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_WRONLY) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");

	memset(vb.app, 0xAA, sizeof(vb.app));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 3, "flag 1, capacity 16: %s, size %u, expected 3",
		  err(r), vb.hdr.size);
	VT_ASSERT(vb.app[0].pid == a.pid && vb.app[1].pid == b.pid && vb.app[2].pid == getpid(),
		  "pids %d %d %d, expected A %d, B (O_WRONLY) %d, this process %d", vb.app[0].pid,
		  vb.app[1].pid, vb.app[2].pid, a.pid, b.pid, getpid());
	VT_ASSERT(vb.app[0].nc_lock_map == 0x1 && vb.app[1].nc_lock_map == 0 &&
		  vb.app[2].nc_lock_map == 0, "nc_lock_map %#x %#x %#x, expected 0x1 0 0",
		  vb.app[0].nc_lock_map, vb.app[1].nc_lock_map, vb.app[2].nc_lock_map);
	for (i = 0; i < 3; i++) {
		VT_ASSERT(record_zeroes(&vb.app[i]), "record %u: uuid_data or padding not 0", i);
		VT_ASSERT(vb.app[i].host_mem_size == 0 && vb.app[i].device_mem_size == 0,
			  "record %u: memory %llu/%llu without flag 2", i,
			  (unsigned long long)vb.app[i].host_mem_size,
			  (unsigned long long)vb.app[i].device_mem_size);
	}
	VT_ASSERT(all_bytes(&vb.app[3], sizeof(vb.app[3]), 0xAA), "a fourth record was written");

	/* capacity 1: the oldest only, the next record's bytes untouched */
	memset(vb.app, 0xAA, sizeof(vb.app));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, 1, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 1, "capacity 1: %s, size %u", err(r), vb.hdr.size);
	VT_ASSERT(vb.app[0].pid == a.pid && vb.app[0].nc_lock_map == 0x1 &&
		  record_zeroes(&vb.app[0]) && vb.app[0].host_mem_size == 0 &&
		  vb.app[0].device_mem_size == 0,
		  "capacity 1: record pid %d map %#x, not a whole zeroed record of A",
		  vb.app[0].pid, vb.app[0].nc_lock_map);
	for (i = 0; i < sizeof(vb.app[1]); i++)
		VT_ASSERT(rec1[i] == 0xAA, "capacity 1 wrote byte %u of the second record", i);

	/* capacity 0: nothing */
	memset(vb.app, 0xAA, sizeof(vb.app));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, 0, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 0, "capacity 0: %s, size %u", err(r), vb.hdr.size);
	VT_ASSERT(all_bytes(vb.app, sizeof(vb.app), 0xAA), "capacity 0 wrote a record");

	/* flags */
	r = vnd_apps(fd, 0x10, VND_APPS_MAX, &vb);
	VT_ASSERT(r == -EINVAL, "flags 0x10: %s, expected EINVAL", err(r));
	r = vnd_apps(fd, 0x8000, VND_APPS_MAX, &vb);
	VT_ASSERT(r == -EINVAL, "flags 0x8000: %s, expected EINVAL", err(r));
	r = vnd_apps(fd, VND_APPS_FLAG_ALL, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 3 && vb.app[0].nc_lock_map == 0x1,
		  "flags 0xF: %s, size %u, map %#x", err(r), vb.hdr.size, vb.app[0].nc_lock_map);
	r = vnd_apps(fd, VND_APPS_FLAG_MEM, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 3 && vb.app[0].pid == a.pid &&
		  vb.app[0].nc_lock_map == 0,
		  "flag 2 alone: %s, size %u, A's map %#x (expected 0 without flag 1)", err(r),
		  vb.hdr.size, vb.app[0].nc_lock_map);

	/* B asks through its O_WRONLY fd: the same list */
	memset(&vb, 0, sizeof(vb));
	vb.hdr.apps_info_flags = VND_APPS_FLAG_NC_LOCK;
	vb.hdr.capacity = 4;
	r = ag_ioctl(&b, 0, VND_DEVICE_GET_ALL_APPS_INFO, &vb,
		     sizeof(vb.hdr) + 4 * sizeof(vb.app[0]));
	VT_ASSERT(r == 0 && vb.hdr.size == 3 && vb.app[0].pid == a.pid &&
		  vb.app[0].nc_lock_map == 0x1,
		  "B through O_WRONLY: %s, size %u, first pid %d", err(r), vb.hdr.size,
		  vb.app[0].pid);
	close(fd);
	return 0;
}
ISOLATED(all_apps_info_list)

/* flag 2: a process's host memory from MEM_ALLOC; 0 without the flag. */
static int all_apps_info_host_memory_body(void)
{
	static struct vnd_apps_buf vb;
	struct neuron_mem_alloc ma;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&ma, 0, sizeof(ma));
	ma.size = sizeof(ma);
	ma.location = NEURON_MEM_LOC_HOST;
	ma.category = NEURON_MEM_CAT_TENSORS;
	ma.bytes = 8192;
	r = xioctl(fd, NEURON_IOCTL_MEM_ALLOC, &ma);
	VT_ASSERT(r == 0, "MEM_ALLOC host 8192: %s", err(r));
	r = vnd_apps(fd, VND_APPS_FLAG_MEM, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 1 && vb.app[0].pid == getpid(),
		  "flag 2: %s, size %u, pid %d", err(r), vb.hdr.size, vb.app[0].pid);
	VT_ASSERT(vb.app[0].host_mem_size == 8192 && vb.app[0].device_mem_size == 0,
		  "flag 2: host %llu device %llu, expected 8192 and 0",
		  (unsigned long long)vb.app[0].host_mem_size,
		  (unsigned long long)vb.app[0].device_mem_size);
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.app[0].host_mem_size == 0, "flag 1 alone: %s, host %llu", err(r),
		  (unsigned long long)vb.app[0].host_mem_size);
	close(fd);
	return 0;
}
ISOLATED(all_apps_info_host_memory)
