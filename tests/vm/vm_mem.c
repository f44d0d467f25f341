// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: device memory and its accounting.
 * MEM_ALLOC/FREE/READ/WRITE/SET on device (HBM) and host memory, every
 * validation failure with otherwise-valid input, handles of another file
 * and of another process, exhaustion (-ENOMEM), release on exit, the
 * memory_usage sysfs counters moved by exactly each allocation, the
 * SIM_EXEC_MODEL operations, and a NeuronCore made unusable by an
 * uncorrectable error until the device's reset; mappings of device
 * allocations: coherent with the ioctls, bounded, the owner's only, and
 * revoked (SIGBUS) on free and removal, never reachable through
 * get_user_pages() (vmsplice, process_vm_readv, /proc/<pid>/mem), and
 * never showing a freed page's next owner to its previous one.
 *
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=2
 * sim_hbm_mb=16 and nothing else using the devices.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include "vmdev.h"

#define HBM		(16ULL << 20)
#define NCS		2
#define DEV_SYSFS	VT_SYSFS_DEV
#define PARAM_HOST_MAX	"/sys/module/neuron/parameters/mem_host_proc_max_mb"
#define HBM_BLOCKS	"/sys/kernel/debug/neuron/neuron0/hbm_blocks"

static const char *const dev_cats[NEURON_MEM_CAT_COUNT] = {
	"uncategorized", "model_code", "tensors", "constants", "model_shared_scratchpad",
	"runtime_memory", "driver_memory", "collectives", "nonshared_scratchpad",
	"notifications", "dma_rings",
};

/* root host_mem/<name> of each category (SCRATCHPAD and friends: uncategorized) */
static const char *const host_cats[NEURON_MEM_CAT_COUNT] = {
	"uncategorized", "dma_buffers", "tensors", "constants", "uncategorized",
	"application_memory", "driver_memory", "uncategorized", "uncategorized",
	"notifications", "dma_rings",
};

static const char *const root_cats[] = {
	"dma_buffers", "tensors", "constants", "application_memory", "driver_memory",
	"notifications", "dma_rings", "uncategorized",
};

#define ROOT_CATS	8
#define CELLS		(ROOT_CATS + NCS * (2 + NEURON_MEM_CAT_COUNT))

/* Path of memory cell @i of device @dev: root categories, then per core host, device, 11. */
static void cell_path(char *p, size_t len, int dev, int i, const char *field)
{
	int n = snprintf(p, len, DEV_SYSFS, dev);

	if (i < ROOT_CATS) {
		snprintf(p + n, len - n, "/stats/memory_usage/host_mem/%s/%s", root_cats[i], field);
		return;
	}
	i -= ROOT_CATS;
	if (i % 13 == 0)
		snprintf(p + n, len - n, "/neuron_core%d/stats/memory_usage/host_mem/%s", i / 13,
			 field);
	else if (i % 13 == 1)
		snprintf(p + n, len - n, "/neuron_core%d/stats/memory_usage/device_mem/%s", i / 13,
			 field);
	else
		snprintf(p + n, len - n, "/neuron_core%d/stats/memory_usage/device_mem/%s/%s",
			 i / 13, dev_cats[i % 13 - 2], field);
}

static int cells_read(int dev, uint64_t *v, const char *field)
{
	char p[256];
	int i;

	for (i = 0; i < CELLS; i++) {
		cell_path(p, sizeof(p), dev, i, field);
		if (vt_read_u64(p, &v[i]))
			return -1;
	}
	return 0;
}

static int cell_root(const char *name)
{
	int i;

	for (i = 0; i < ROOT_CATS; i++)
		if (!strcmp(root_cats[i], name))
			return i;
	return -1;
}

static int cell_host(int nc) { return ROOT_CATS + nc * 13; }
static int cell_dev(int nc) { return ROOT_CATS + nc * 13 + 1; }
static int cell_dev_cat(int nc, int cat) { return ROOT_CATS + nc * 13 + 2 + cat; }

static void alloc_init(struct neuron_mem_alloc *a, uint32_t nc, uint32_t loc, uint32_t cat,
		       uint64_t bytes)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->nc = nc;
	a->location = loc;
	a->category = cat;
	a->bytes = bytes;
}

static int mem_alloc(int fd, uint32_t nc, uint32_t loc, uint32_t cat, uint64_t bytes,
		     uint64_t *handle)
{
	struct neuron_mem_alloc a;

	*handle = 0;
	alloc_init(&a, nc, loc, cat, bytes);
	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a))
		return -errno;
	*handle = a.handle;
	return 0;
}

static int mem_free(int fd, uint64_t handle)
{
	struct neuron_mem_free f = { .size = sizeof(f), .handle = handle };

	return ioctl(fd, NEURON_IOCTL_MEM_FREE, &f) ? -errno : 0;
}

static void rw_init(struct neuron_mem_rw *r, uint64_t handle, uint64_t off, uint64_t bytes,
		    void *buf)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->handle = handle;
	r->offset = off;
	r->bytes = bytes;
	r->user_ptr = (uintptr_t)buf;
}

static int mem_rw(int fd, unsigned long cmd, uint64_t handle, uint64_t off, uint64_t bytes,
		  void *buf)
{
	struct neuron_mem_rw r;

	rw_init(&r, handle, off, bytes, buf);
	return ioctl(fd, cmd, &r) ? -errno : 0;
}

static int mem_set(int fd, uint64_t handle, uint64_t off, uint64_t bytes, uint32_t value)
{
	struct neuron_mem_rw r;

	rw_init(&r, handle, off, bytes, NULL);
	r.value = value;
	return ioctl(fd, NEURON_IOCTL_MEM_SET, &r) ? -errno : 0;
}

static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* ---- cases ------------------------------------------------------------------ */

static int info_reports_hbm(void)
{
	struct neuron_info info;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO: %s", strerror(errno));
	VT_ASSERT(info.capabilities & NEURON_CAP_MEM, "no NEURON_CAP_MEM");
	VT_ASSERT(info.hbm_size == HBM, "hbm_size %llu", (unsigned long long)info.hbm_size);
	close(fd);
	return 0;
}

/* Write, read back, set, at offsets, on one location. */
static int rw_roundtrip(uint32_t loc)
{
	static uint8_t in[100000], out[100000];
	uint64_t h, h2;
	size_t i;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 1, loc, NEURON_MEM_CAT_TENSORS, sizeof(in), &h) == 0, "alloc");
	VT_ASSERT(h != 0, "zero handle");
	/* a new allocation reads as zeros */
	memset(out, 0xee, sizeof(out));
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 0, sizeof(out), out) == 0, "read");
	VT_ASSERT(all_bytes(out, sizeof(out), 0), "new allocation not zero");
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_WRITE, h, 0, sizeof(in), in) == 0, "write");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 0, sizeof(out), out) == 0, "read");
	VT_ASSERT(!memcmp(in, out, sizeof(in)), "read back differs");
	/* at an offset, to the last byte */
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 99990, 10, out) == 0, "read tail");
	VT_ASSERT(!memcmp(in + 99990, out, 10), "tail differs");
	VT_ASSERT(mem_set(fd, h, 5000, 70000, 0x5a) == 0, "set");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 0, sizeof(out), out) == 0, "read");
	VT_ASSERT(!memcmp(in, out, 5000) && all_bytes(out + 5000, 70000, 0x5a) &&
		  !memcmp(in + 75000, out + 75000, 25000), "set range wrong");
	/* zeros over whole and partial 4 KiB blocks (the sparse HBM frees the whole ones) */
	VT_ASSERT(mem_set(fd, h, 1000, 30000, 0) == 0, "set 0");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 0, sizeof(out), out) == 0, "read");
	VT_ASSERT(!memcmp(in, out, 1000) && all_bytes(out + 1000, 30000, 0) &&
		  all_bytes(out + 31000, 44000, 0x5a) && !memcmp(in + 75000, out + 75000, 25000),
		  "zeroed range wrong");
	/* freed memory is zero for the next owner */
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	VT_ASSERT(mem_alloc(fd, 1, loc, NEURON_MEM_CAT_TENSORS, sizeof(in), &h2) == 0, "alloc 2");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h2, 0, sizeof(out), out) == 0, "read 2");
	VT_ASSERT(all_bytes(out, sizeof(out), 0), "reused memory not zero");
	VT_ASSERT(mem_free(fd, h2) == 0, "free 2");
	close(fd);
	return 0;
}

static int device_rw_roundtrip(void) { return rw_roundtrip(NEURON_MEM_LOC_DEVICE); }
static int host_rw_roundtrip(void) { return rw_roundtrip(NEURON_MEM_LOC_HOST); }

static int device_addresses_distinct(void)
{
	struct neuron_mem_alloc a, b;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	alloc_init(&a, 0, NEURON_MEM_LOC_DEVICE, NEURON_MEM_CAT_CODE, 5000);
	alloc_init(&b, 0, NEURON_MEM_LOC_DEVICE, NEURON_MEM_CAT_CODE, 5000);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a) == 0, "alloc a");
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &b) == 0, "alloc b");
	VT_ASSERT(a.handle != b.handle, "same handle");
	VT_ASSERT(a.device_addr + 5000 <= b.device_addr || b.device_addr + 5000 <= a.device_addr,
		  "overlap %llx %llx", (unsigned long long)a.device_addr,
		  (unsigned long long)b.device_addr);
	VT_ASSERT(a.device_addr < HBM && b.device_addr < HBM, "outside HBM");
	alloc_init(&a, 0, NEURON_MEM_LOC_HOST, NEURON_MEM_CAT_CODE, 5000);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a) == 0, "alloc host");
	VT_ASSERT(a.device_addr == 0, "host allocation with a device address");
	close(fd);	/* frees all three */
	return 0;
}

static int hbm_exhaustion_enomem(void)
{
	uint64_t h[17], big;
	int fd = vt_open_dev(0), i, n = 0;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, HBM + 1, &big) == -ENOMEM,
		  "larger than HBM");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, UINT64_MAX, &big) == -ENOMEM,
		  "UINT64_MAX");
	for (i = 0; i < 17; i++) {
		int r = mem_alloc(fd, i % NCS, NEURON_MEM_LOC_DEVICE, 2, 1 << 20, &h[i]);

		if (r) {
			VT_ASSERT(r == -ENOMEM, "alloc %d: %s", i, strerror(-r));
			break;
		}
		n++;
	}
	VT_ASSERT(n == 16, "%d MiB allocations fit in 16 MiB", n);
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 1, &big) == -ENOMEM, "1 byte more");
	/* a hole of 1 MiB takes 1 MiB, not a byte more */
	VT_ASSERT(mem_free(fd, h[5]) == 0, "free");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, (1 << 20) + 1, &big) == -ENOMEM,
		  "1 MiB + 1 in a 1 MiB hole");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 1 << 20, &h[5]) == 0, "refill");
	close(fd);
	/* everything came back with the file */
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "reopen");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, HBM, &big) == 0, "all of HBM");
	close(fd);
	return 0;
}

static int host_cap_enomem(void)
{
	uint64_t h, h2;
	int fd = vt_open_dev(0), fd2 = vt_open_dev(0), r;

	VT_ASSERT(fd >= 0 && fd2 >= 0, "open");
	VT_ASSERT(vt_write_file(PARAM_HOST_MAX, "4") == 0, "set the cap");
	r = mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 5, (4 << 20) + 1, &h);
	VT_ASSERT(r == -ENOMEM, "over the cap at once: %d", r);
	r = mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 5, 3 << 20, &h);
	VT_ASSERT(r == 0, "3 MiB: %d", r);
	/* the cap is the process's, across its files, page-rounded */
	r = mem_alloc(fd2, 1, NEURON_MEM_LOC_HOST, 5, (1 << 20) + 1, &h2);
	VT_ASSERT(r == -ENOMEM, "second file past the cap: %d", r);
	r = mem_alloc(fd2, 1, NEURON_MEM_LOC_HOST, 5, 1 << 20, &h2);
	VT_ASSERT(r == 0, "second file to the cap: %d", r);
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 5, 1, &h2) == -ENOMEM, "1 byte more");
	/* device memory is not host memory */
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 5, 1 << 20, &h2) == 0, "device still");
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 5, 3 << 20, &h) == 0, "again after free");
	VT_ASSERT(vt_write_file(PARAM_HOST_MAX, "256") == 0, "restore the cap");
	close(fd);
	close(fd2);
	return 0;
}

static int alloc_bad_args_einval(void)
{
	struct neuron_mem_alloc a;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
#define BAD_ALLOC(stmt, err)                                                    \
	do {                                                                    \
		alloc_init(&a, 0, NEURON_MEM_LOC_DEVICE, 2, 64);                \
		stmt;                                                           \
		VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a), err);    \
	} while (0)
	BAD_ALLOC(a.size = sizeof(a) - 8, EINVAL);
	BAD_ALLOC(a.flags = 1, EINVAL);
	BAD_ALLOC(a.reserved0 = 1, EINVAL);
	BAD_ALLOC(a.reserved[0] = 1, EINVAL);
	BAD_ALLOC(a.reserved[1] = 1ULL << 63, EINVAL);
	BAD_ALLOC(a.nc = NCS, EINVAL);
	BAD_ALLOC(a.location = 2, EINVAL);
	BAD_ALLOC(a.category = NEURON_MEM_CAT_COUNT, EINVAL);
	BAD_ALLOC(a.bytes = 0, EINVAL);
#undef BAD_ALLOC
	/* and the same with everything valid works */
	alloc_init(&a, 0, NEURON_MEM_LOC_DEVICE, 2, 64);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a) == 0, "valid: %s", strerror(errno));
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, (void *)8), EFAULT);
	close(fd);
	return 0;
}

static int rw_bad_args_einval(void)
{
	struct neuron_mem_rw r;
	struct neuron_mem_free f;
	uint8_t buf[256];
	uint64_t h, hh;
	int fd = vt_open_dev(0);
	void *ro;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 256, &h) == 0, "alloc");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 2, 256, &hh) == 0, "alloc host");
#define BAD_RW(cmd, stmt, err)                                  \
	do {                                                    \
		rw_init(&r, h, 0, 16, buf);                     \
		if (cmd == NEURON_IOCTL_MEM_SET)                \
			r.user_ptr = 0;                         \
		stmt;                                           \
		VT_ASSERT_ERRNO(ioctl(fd, cmd, &r), err);       \
	} while (0)
	BAD_RW(NEURON_IOCTL_MEM_READ, r.size = 8, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.flags = 2, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.reserved0 = 1, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.reserved[1] = 1, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.value = 1, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_WRITE, r.value = 1, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_SET, r.value = 256, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_SET, r.user_ptr = (uintptr_t)buf, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.bytes = 0, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.offset = 241, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_WRITE, r.bytes = 257, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_SET, r.offset = 257; r.bytes = 1, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.offset = UINT64_MAX; r.bytes = 2, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_WRITE, r.offset = 8; r.bytes = UINT64_MAX - 4, EINVAL);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.user_ptr = 16, EFAULT);
	BAD_RW(NEURON_IOCTL_MEM_WRITE, r.user_ptr = 16, EFAULT);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.handle = hh; r.user_ptr = 16, EFAULT);
	BAD_RW(NEURON_IOCTL_MEM_WRITE, r.handle = hh; r.user_ptr = 16, EFAULT);
	/* a read into a read-only buffer faults */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(ro != MAP_FAILED, "mmap");
	BAD_RW(NEURON_IOCTL_MEM_READ, r.user_ptr = (uintptr_t)ro, EFAULT);
	BAD_RW(NEURON_IOCTL_MEM_READ, r.handle = hh; r.user_ptr = (uintptr_t)ro, EFAULT);
	munmap(ro, 4096);
#undef BAD_RW
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.handle = h;
	f.reserved[0] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_FREE, &f), EINVAL);
	f.reserved[0] = 0;
	f.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_FREE, &f), EINVAL);
	/* valid calls work: the refusals changed nothing */
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 240, 16, buf) == 0, "valid read");
	VT_ASSERT(all_bytes(buf, 16, 0), "contents changed");
	VT_ASSERT(mem_free(fd, h) == 0, "valid free");
	close(fd);
	return 0;
}

static int bad_handles_enoent(void)
{
	uint64_t h, other, freed;
	uint8_t buf[16];
	int fd = vt_open_dev(0), fd2 = vt_open_dev(0), fd3 = vt_open_dev(1);

	VT_ASSERT(fd >= 0 && fd2 >= 0 && fd3 >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 64, &h) == 0, "alloc");
	VT_ASSERT(mem_alloc(fd2, 0, NEURON_MEM_LOC_DEVICE, 2, 64, &other) == 0, "alloc other");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 2, 64, &freed) == 0, "alloc 3");
	VT_ASSERT(mem_free(fd, freed) == 0, "free");
	VT_ASSERT(mem_free(fd, 0) == -ENOENT, "handle 0");
	VT_ASSERT(mem_free(fd, freed) == -ENOENT, "double free");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, freed, 0, 16, buf) == -ENOENT, "freed read");
	VT_ASSERT(mem_free(fd, h + 1000) == -ENOENT, "unused index");
	VT_ASSERT(mem_free(fd, h ^ (1ULL << 40)) == -ENOENT, "another tag");
	/* another file's handle, of the same process, also on another device */
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, other, 0, 16, buf) == -ENOENT, "foreign read");
	VT_ASSERT(mem_set(fd, other, 0, 16, 1) == -ENOENT, "foreign set");
	VT_ASSERT(mem_free(fd, other) == -ENOENT, "foreign free");
	VT_ASSERT(mem_free(fd3, h) == -ENOENT, "other device");
	VT_ASSERT(mem_rw(fd2, NEURON_IOCTL_MEM_READ, other, 0, 16, buf) == 0, "owner reads");
	close(fd2);
	VT_ASSERT(mem_free(fd, other) == -ENOENT, "closed file's handle");
	VT_ASSERT(mem_free(fd, h) == 0, "own handle still works");
	close(fd);
	close(fd3);
	return 0;
}

static int child_uses_parent_fd_eacces(void)
{
	uint64_t h;
	int fd = vt_open_dev(0);
	pid_t pid;
	int st;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 64, &h) == 0, "alloc");
	pid = fork();
	if (pid == 0) {
		uint8_t buf[16];
		uint64_t x;

		if (mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 64, &x) != -EACCES)
			_exit(1);
		if (mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 0, 16, buf) != -EACCES)
			_exit(2);
		if (mem_free(fd, h) != -EACCES)
			_exit(3);
		_exit(0);
	}
	VT_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child");
	VT_ASSERT(WEXITSTATUS(st) == 0, "child step %d not EACCES", WEXITSTATUS(st));
	VT_ASSERT(mem_free(fd, h) == 0, "parent frees");
	close(fd);
	return 0;
}

/* Every cell's total unchanged, except @a and @b which moved by @delta. */
static int cells_moved(const uint64_t *before, const uint64_t *after, int a, int b,
		       int64_t delta, char *why, size_t len)
{
	int i;

	for (i = 0; i < CELLS; i++) {
		int64_t want = (i == a || i == b) ? delta : 0;

		if ((int64_t)(after[i] - before[i]) != want) {
			char p[256];

			cell_path(p, sizeof(p), 0, i, "total");
			snprintf(why, len, "%s moved by %lld, expected %lld", p,
				 (long long)(after[i] - before[i]), (long long)want);
			return -1;
		}
	}
	return 0;
}

static int accounting_exact(void)
{
	uint64_t before[CELLS], after[CELLS], present[CELLS], peak[CELLS], h;
	char why[300];
	int fd = vt_open_dev(0), nc, cat, loc;

	VT_ASSERT(fd >= 0, "open");
	for (loc = 0; loc < 2; loc++) {
		for (nc = 0; nc < NCS; nc++) {
			for (cat = 0; cat < NEURON_MEM_CAT_COUNT; cat++) {
				uint64_t n = 1000 + 4096 * cat + 17 * nc + loc;
				int a, b;

				if (loc == NEURON_MEM_LOC_DEVICE) {
					a = cell_dev(nc);
					b = cell_dev_cat(nc, cat);
				} else {
					a = cell_host(nc);
					b = cell_root(host_cats[cat]);
				}
				VT_ASSERT(cells_read(0, before, "total") == 0, "read cells");
				VT_ASSERT(mem_alloc(fd, nc, loc, cat, n, &h) == 0, "alloc");
				VT_ASSERT(cells_read(0, after, "total") == 0, "read cells");
				VT_ASSERT(cells_moved(before, after, a, b, (int64_t)n, why,
						      sizeof(why)) == 0,
					  "alloc loc %d nc %d cat %d: %s", loc, nc, cat, why);
				VT_ASSERT(cells_read(0, present, "present") == 0, "present");
				VT_ASSERT(cells_read(0, peak, "peak") == 0, "peak");
				VT_ASSERT(present[a] == n && present[b] == n, "present after alloc");
				VT_ASSERT(peak[a] >= after[a] && peak[b] >= after[b], "peak");
				VT_ASSERT(mem_free(fd, h) == 0, "free");
				VT_ASSERT(cells_read(0, after, "total") == 0, "read cells");
				VT_ASSERT(cells_moved(before, after, -1, -1, 0, why, sizeof(why)) == 0,
					  "free loc %d nc %d cat %d: %s", loc, nc, cat, why);
				VT_ASSERT(cells_read(0, present, "present") == 0, "present");
				VT_ASSERT(present[a] == n && present[b] == n,
					  "present after free is the freed size");
			}
		}
	}
	close(fd);
	return 0;
}

static int peak_and_clear(void)
{
	char p[256];
	uint64_t h1, h2, v;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	snprintf(p, sizeof(p), DEV_SYSFS "/neuron_core1/stats/memory_usage/device_mem/constants/peak", 0);
	VT_ASSERT(vt_write_file(p, "0") == 0, "clear peak");
	VT_ASSERT(vt_read_u64(p, &v) == 0 && v == 0, "peak cleared: %llu", (unsigned long long)v);
	VT_ASSERT(mem_alloc(fd, 1, NEURON_MEM_LOC_DEVICE, 3, 3000, &h1) == 0, "alloc 1");
	VT_ASSERT(mem_alloc(fd, 1, NEURON_MEM_LOC_DEVICE, 3, 5000, &h2) == 0, "alloc 2");
	VT_ASSERT(mem_free(fd, h1) == 0 && mem_free(fd, h2) == 0, "free");
	VT_ASSERT(vt_read_u64(p, &v) == 0 && v == 8000, "peak %llu, expected 8000",
		  (unsigned long long)v);
	snprintf(p, sizeof(p), DEV_SYSFS "/neuron_core1/stats/memory_usage/device_mem/constants/total", 0);
	VT_ASSERT(vt_read_u64(p, &v) == 0 && v == 0, "total back to 0");
	close(fd);
	return 0;
}

static int rings_and_slab_accounted(void)
{
	uint64_t before[CELLS], after[CELLS];
	struct neuron_nq_init q;
	struct neuron_nq_release rel;
	struct neuron_nds_acquire acq;
	char why[300];
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.nc = 1;
	q.nq_type = NEURON_NQ_TYPE_ERROR;
	q.ring_size = 65536;
	VT_ASSERT(cells_read(0, before, "total") == 0, "read");
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &q) == 0, "NQ_INIT: %s", strerror(errno));
	VT_ASSERT(cells_read(0, after, "total") == 0, "read");
	/* the mapping's bytes: control page + ring */
	VT_ASSERT(cells_moved(before, after, cell_host(1), cell_root("notifications"),
			      (int64_t)(q.mmap_size + 4095) / 4096 * 4096, why, sizeof(why)) == 0,
		  "ring: %s", why);
	memset(&rel, 0, sizeof(rel));
	rel.size = sizeof(rel);
	rel.nc = 1;
	rel.nq_type = NEURON_NQ_TYPE_ERROR;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &rel) == 0, "NQ_RELEASE");
	VT_ASSERT(cells_read(0, after, "total") == 0, "read");
	VT_ASSERT(cells_moved(before, after, -1, -1, 0, why, sizeof(why)) == 0, "release: %s", why);
	/* the first slab of a fresh device is driver memory of core 0 */
	memset(&acq, 0, sizeof(acq));
	acq.size = sizeof(acq);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &acq) == 0, "NDS_ACQUIRE");
	VT_ASSERT(cells_read(0, after, "total") == 0, "read");
	VT_ASSERT(cells_moved(before, after, cell_host(0), cell_root("driver_memory"),
			      NEURON_NDS_SIZE, why, sizeof(why)) == 0, "slab: %s", why);
	close(fd);
	/*
	 * the slab is its owner's alone (docs/RELIABILITY.md, stale NDS views):
	 * freed with the owner's last close, the next owner gets a new one
	 */
	VT_ASSERT(cells_read(0, after, "total") == 0, "read");
	VT_ASSERT(cells_moved(before, after, -1, -1, 0, why, sizeof(why)) == 0,
		  "slab after close: %s", why);
	return 0;
}

static int child_allocs_and_dies(struct vt_child *c, void *arg)
{
	uint64_t h;
	int fd = vt_open_dev(0), i;

	(void)arg;
	if (fd < 0)
		return 1;
	for (i = 0; i < 20; i++) {
		if (mem_alloc(fd, i % NCS, i % 2, i % NEURON_MEM_CAT_COUNT, 10000 + i, &h))
			return 2;
		if (mem_set(fd, h, 0, 10000, 0xab))
			return 3;
	}
	/* a second file, not closed either */
	fd = vt_open_dev(0);
	if (fd < 0 || mem_alloc(fd, 1, NEURON_MEM_LOC_DEVICE, 1, 8 << 20, &h))
		return 4;
	vt_child_hold(c);
	return 0;
}

static int exit_frees_everything(void)
{
	uint64_t before[CELLS], during[CELLS], after[CELLS], h, blocks;
	struct vt_child c;
	char why[300];
	int st, fd, i, moved = 0;

	VT_ASSERT(cells_read(0, before, "total") == 0, "read");
	VT_ASSERT(vt_child_start(&c, child_allocs_and_dies, NULL) == 0, "child");
	VT_ASSERT(cells_read(0, during, "total") == 0, "read");
	for (i = 0; i < CELLS; i++)
		moved += during[i] != before[i];
	VT_ASSERT(moved > 10, "the child's memory is visible (%d cells moved)", moved);
	VT_ASSERT(vt_read_u64(HBM_BLOCKS, &blocks) == 0 && blocks >= 20 / 2 * 3,
		  "the child's HBM writes hold %llu blocks", (unsigned long long)blocks);
	kill(c.pid, SIGKILL);
	VT_ASSERT(waitpid(c.pid, &st, 0) == c.pid && WIFSIGNALED(st), "killed");
	close(c.hold_fd);
	close(c.ready_fd);
	VT_ASSERT(cells_read(0, after, "total") == 0, "read");
	VT_ASSERT(cells_moved(before, after, -1, -1, 0, why, sizeof(why)) == 0, "after exit: %s",
		  why);
	/* the simulated HBM gave every block back */
	VT_ASSERT(vt_read_u64(HBM_BLOCKS, &blocks) == 0 && blocks == 0, "%llu HBM blocks left",
		  (unsigned long long)blocks);
	/* and the HBM is free again: all of it fits */
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, HBM, &h) == 0, "all of HBM");
	close(fd);
	return 0;
}

#define CG VT_CGROUP

static int charged_child(void)
{
	uint64_t before, after, h;
	int fd, i;

	fd = vt_open_dev(0);
	if (fd < 0 || vt_read_u64(CG "/memtest/memory.current", &before))
		return 11;
	for (i = 0; i < 8; i++)
		if (mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, NEURON_MEM_CAT_TENSORS, 1 << 20, &h))
			return 12;
	if (vt_read_u64(CG "/memtest/memory.current", &after))
		return 13;
	printf("# memory.current %llu -> %llu with 8 MiB of host allocations\n",
	       (unsigned long long)before, (unsigned long long)after);
	fflush(stdout);
	return after > before && after - before >= (8ULL << 20) - VT_MEMCG_STOCK_BYTES ? 0 : 14;
}

/* Host allocations are charged to the memory cgroup of the process that made them. */
static int host_memory_charged_to_cgroup(void)
{
	int status;

	if (vt_memcg_run(CG "/memtest", "64M", charged_child, &status))
		return -1;
	VT_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "8 MiB of host allocations were not charged to the cgroup (child status %d)",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* ---- SIM_EXEC_MODEL ---------------------------------------------------------- */

static void model_init(struct neuron_sim_exec_model *m, uint32_t nc, uint32_t op, uint64_t in,
		       uint64_t out, uint64_t bytes)
{
	memset(m, 0, sizeof(*m));
	m->size = sizeof(*m);
	m->nc = nc;
	m->op = op;
	m->in_handle = in;
	m->out_handle = out;
	m->bytes = bytes;
}

#define WORDS 5000	/* 20000 bytes: several 4 KiB steps and a partial one */

static int model_ops_correct(void)
{
	static uint32_t in[WORDS], out[WORDS];
	struct neuron_sim_exec_model m;
	uint64_t hin, hout, hhost;
	size_t i;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < WORDS; i++)
		in[i] = (uint32_t)(i * 2654435761u);
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, sizeof(in), &hin) == 0, "alloc in");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, sizeof(out) + 64, &hout) == 0, "out");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 2, sizeof(out), &hhost) == 0, "host");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_WRITE, hin, 0, sizeof(in), in) == 0, "write in");

	model_init(&m, 0, NEURON_SIM_OP_COPY, hin, hout, sizeof(in));
	m.out_offset = 64;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "copy: %s", strerror(errno));
	VT_ASSERT(m.entries == 0 && m.dropped == 0, "entries");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, hout, 64, sizeof(out), out) == 0, "read");
	VT_ASSERT(!memcmp(in, out, sizeof(in)), "copy wrong");

	model_init(&m, 0, NEURON_SIM_OP_AFFINE_U32, hin, hhost, sizeof(in));
	m.arg0 = 3;
	m.arg1 = 0x12345678;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "affine: %s", strerror(errno));
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, hhost, 0, sizeof(out), out) == 0, "read");
	for (i = 0; i < WORDS; i++)
		VT_ASSERT(out[i] == in[i] * 3u + 0x12345678u, "affine word %zu", i);

	/* host in, device out, then in place */
	{
		uint8_t src[1001], got[1001];

		model_init(&m, 1, NEURON_SIM_OP_XOR_U8, hhost, hout, 1001);
		m.arg0 = 0xa5;
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "xor: %s", strerror(errno));
		VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, hhost, 0, 1001, src) == 0, "src");
		VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, hout, 0, 1001, got) == 0, "got");
		for (i = 0; i < 1001; i++)
			VT_ASSERT(got[i] == (uint8_t)(src[i] ^ 0xa5), "xor byte %zu", i);
		model_init(&m, 1, NEURON_SIM_OP_XOR_U8, hout, hout, 1001);
		m.arg0 = 0xa5;
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "in place");
		VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, hout, 0, 1001, got) == 0, "got");
		VT_ASSERT(!memcmp(got, src, 1001), "xor twice is not the identity");
	}
	/* OP_NONE runs without data */
	model_init(&m, 1, NEURON_SIM_OP_NONE, 0, 0, 0);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "none: %s", strerror(errno));
	close(fd);
	return 0;
}

static int model_bad_args(void)
{
	struct neuron_sim_exec_model m;
	uint64_t a, b, other;
	int fd = vt_open_dev(0), fd2 = vt_open_dev(0);

	VT_ASSERT(fd >= 0 && fd2 >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_DEVICE, 2, 4096, &a) == 0, "a");
	VT_ASSERT(mem_alloc(fd, 0, NEURON_MEM_LOC_HOST, 2, 4096, &b) == 0, "b");
	VT_ASSERT(mem_alloc(fd2, 0, NEURON_MEM_LOC_DEVICE, 2, 4096, &other) == 0, "other");
#define BAD_MODEL(stmt, err)                                                    \
	do {                                                                    \
		model_init(&m, 0, NEURON_SIM_OP_COPY, a, b, 4096);              \
		stmt;                                                           \
		VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m), err); \
	} while (0)
	BAD_MODEL(m.size = 8, EINVAL);
	BAD_MODEL(m.flags = 1, EINVAL);
	BAD_MODEL(m.reserved[0] = 1, EINVAL);
	BAD_MODEL(m.entries = 1, EINVAL);
	BAD_MODEL(m.op = 4, EINVAL);
	BAD_MODEL(m.nc = NCS, EINVAL);
	BAD_MODEL(m.bytes = 0, EINVAL);
	BAD_MODEL(m.bytes = 4097, EINVAL);
	BAD_MODEL(m.in_offset = 1, EINVAL);
	BAD_MODEL(m.out_offset = UINT64_MAX, EINVAL);
	BAD_MODEL(m.arg0 = 1, EINVAL);
	BAD_MODEL(m.op = NEURON_SIM_OP_AFFINE_U32; m.bytes = 4094, EINVAL);
	BAD_MODEL(m.op = NEURON_SIM_OP_XOR_U8; m.arg0 = 256, EINVAL);
	BAD_MODEL(m.op = NEURON_SIM_OP_NONE, EINVAL);
	BAD_MODEL(m.out_handle = a; m.bytes = 100; m.out_offset = 50, EINVAL);
	BAD_MODEL(m.in_handle = 0, ENOENT);
	BAD_MODEL(m.out_handle = other, ENOENT);
	BAD_MODEL(m.duration_us = NEURON_EXEC_MAX_DURATION_US + 1, EINVAL);
#undef BAD_MODEL
	model_init(&m, 0, NEURON_SIM_OP_COPY, a, b, 4096);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "valid: %s", strerror(errno));
	close(fd);
	close(fd2);
	return 0;
}

struct job_arg {
	int fd;
	struct neuron_sim_exec_model m;
	int ret;
	int done;	/* set (release) once the job has returned */
};

static void *job_thread(void *p)
{
	struct job_arg *j = p;

	j->ret = ioctl(j->fd, NEURON_IOCTL_SIM_EXEC_MODEL, &j->m) ? -errno : 0;
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;	/* only to end a job early: no SA_RESTART */
}

/* The core's line in inject/armed names this process as its holder. */
static int core_held_by_me(int nc)
{
	char line[256], want[64];
	FILE *f = fopen("/sys/kernel/debug/neuron/neuron0/inject/armed", "r");
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "nc%d owner %d ", nc, (int)getpid());
	while (fgets(line, sizeof(line), f))
		found |= !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

/*
 * MEM_FREE while a model job uses the memory: the free succeeds at once,
 * the memory stays (and stays accounted) until the job is done, then goes.
 * The job (10 s, the longest) runs until the test signals its thread
 * (EINTR): it is known to run once releasing its core is refused (EBUSY),
 * and it took both allocations before it took the core.
 */
static int free_during_job(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	uint64_t a, b, v, before;
	struct neuron_core_reserve rel = { .size = sizeof(rel), .nc = 1 };
	struct job_arg j = { 0 };
	pthread_t t;
	char p[256];
	int fd = vt_open_dev(0), r, e;

	VT_ASSERT(fd >= 0, "open");
	snprintf(p, sizeof(p), DEV_SYSFS "/neuron_core1/stats/memory_usage/device_mem/total", 0);
	VT_ASSERT(vt_read_u64(p, &before) == 0, "read");
	VT_ASSERT(mem_alloc(fd, 1, NEURON_MEM_LOC_DEVICE, 2, 8192, &a) == 0, "a");
	VT_ASSERT(mem_alloc(fd, 1, NEURON_MEM_LOC_HOST, 2, 8192, &b) == 0, "b");
	VT_ASSERT(mem_set(fd, a, 0, 8192, 7) == 0, "set");
	VT_ASSERT(!core_held_by_me(1), "core 1 held before the job");
	j.fd = fd;
	model_init(&j.m, 1, NEURON_SIM_OP_COPY, a, b, 8192);
	j.m.duration_us = NEURON_EXEC_MAX_DURATION_US;	/* until the signal below */
	VT_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	VT_ASSERT(pthread_create(&t, NULL, job_thread, &j) == 0, "thread");
	/* ENOENT until the job holds the core, EBUSY while it runs */
	do {
		r = ioctl(fd, NEURON_IOCTL_CORE_RELEASE, &rel);
		e = errno;
		VT_ASSERT(r != 0, "core released before the job was seen running");
		VT_ASSERT(e == ENOENT || e == EBUSY, "release during the job: %s", strerror(e));
		VT_ASSERT(!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) || e == EBUSY,
			  "the job returned before it was seen running: %s", strerror(-j.ret));
	} while (e != EBUSY);
	VT_ASSERT(mem_free(fd, a) == 0 && mem_free(fd, b) == 0, "free during the job");
	VT_ASSERT(mem_free(fd, a) == -ENOENT, "the handle is gone at once");
	VT_ASSERT(vt_read_u64(p, &v) == 0 && v == before + 8192, "memory went while in use: %llu",
		  (unsigned long long)v);
	VT_ASSERT(pthread_kill(t, SIGUSR1) == 0, "pthread_kill");
	pthread_join(t, NULL);
	VT_ASSERT(j.ret == -EINTR, "job: %s, expected EINTR", strerror(-j.ret));
	VT_ASSERT(vt_read_u64(p, &v) == 0 && v == before, "not freed after the job: %llu",
		  (unsigned long long)v);
	close(fd);
	return 0;
}

/* ---- concurrency ------------------------------------------------------------------- */

#define STRESS_THREADS	4
#define STRESS_OPS	400
#define STRESS_SLOTS	8

struct stress {
	int fd;
	unsigned int seed;
	uint64_t h[STRESS_SLOTS];	/* shared: any thread may use or free any slot */
	int bad;
};

static struct stress st_shared;

static void *stress_thread(void *p)
{
	unsigned int seed = (unsigned int)(uintptr_t)p, i;
	struct stress *s = &st_shared;
	static __thread uint8_t buf[70000];

	for (i = 0; i < STRESS_OPS; i++) {
		unsigned int slot = rand_r(&seed) % STRESS_SLOTS, op = rand_r(&seed) % 6;
		uint64_t h = __atomic_load_n(&s->h[slot], __ATOMIC_RELAXED), nh;
		int r = 0;

		switch (op) {
		case 0:
			r = mem_alloc(s->fd, rand_r(&seed) % NCS, rand_r(&seed) % 2,
				      rand_r(&seed) % NEURON_MEM_CAT_COUNT, 1 + rand_r(&seed) % 70000, &nh);
			if (r == 0 && !__atomic_compare_exchange_n(&s->h[slot], &h, nh, 0,
								   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				r = mem_free(s->fd, nh);
			break;
		case 1:
			if (h && __atomic_compare_exchange_n(&s->h[slot], &h, 0, 0, __ATOMIC_RELAXED,
							     __ATOMIC_RELAXED))
				r = mem_free(s->fd, h);
			break;
		case 2:
			r = mem_rw(s->fd, NEURON_IOCTL_MEM_WRITE, h, 0, 1, buf);
			break;
		case 3:
			r = mem_rw(s->fd, NEURON_IOCTL_MEM_READ, h, 0, 1, buf);
			break;
		case 4:
			r = mem_set(s->fd, h, 0, 1, 0x11);
			break;
		default: {
			struct neuron_sim_exec_model m;
			uint64_t h2 = __atomic_load_n(&s->h[(slot + 1) % STRESS_SLOTS], __ATOMIC_RELAXED);

			model_init(&m, rand_r(&seed) % NCS, NEURON_SIM_OP_COPY, h, h2, 1);
			r = ioctl(s->fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) ? -errno : 0;
			/* a concurrent job on the same core is EBUSY */
			if (r == -EBUSY)
				r = 0;
			break;
		}
		}
		/* a handle another thread freed meanwhile is ENOENT; nothing else may fail */
		if (r && r != -ENOENT && r != -ENOMEM)
			__atomic_store_n(&s->bad, r, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Threads of one process allocate, free, read, write, set and run model
 * jobs on shared handles at once: every call succeeds or fails with the
 * documented ENOENT (freed by another thread) or ENOMEM, and closing the
 * file brings every counter back.
 */
static int concurrent_use(void)
{
	uint64_t before[CELLS], after[CELLS];
	pthread_t th[STRESS_THREADS];
	char why[300];
	int i;

	VT_ASSERT(cells_read(0, before, "total") == 0, "read");
	memset(&st_shared, 0, sizeof(st_shared));
	st_shared.fd = vt_open_dev(0);
	VT_ASSERT(st_shared.fd >= 0, "open");
	for (i = 0; i < STRESS_THREADS; i++)
		VT_ASSERT(pthread_create(&th[i], NULL, stress_thread, (void *)(uintptr_t)(i + 1)) == 0,
			  "thread");
	for (i = 0; i < STRESS_THREADS; i++)
		pthread_join(th[i], NULL);
	VT_ASSERT(st_shared.bad == 0, "a call failed with %s", strerror(-st_shared.bad));
	close(st_shared.fd);
	VT_ASSERT(cells_read(0, after, "total") == 0, "read");
	VT_ASSERT(cells_moved(before, after, -1, -1, 0, why, sizeof(why)) == 0, "after close: %s", why);
	return 0;
}

/* ---- user faults and removal ---------------------------------------------------- */

struct uffd_write {
	int fd;
	uint64_t handle;
	void *buf;
	int ret;
};

static void *uffd_write_thread(void *p)
{
	struct uffd_write *u = p;

	u->ret = mem_rw(u->fd, NEURON_IOCTL_MEM_WRITE, u->handle, 0, 4096, u->buf);
	return NULL;
}

/*
 * A MEM_WRITE whose user buffer sits on a page nobody provides
 * (userfaultfd) must not hold up device removal: the buffer is copied
 * outside gone_sem. Removal runs in a child bounded to 5 s; once the fault
 * is answered, the write finds the device gone: ENODEV.
 */
static int removal_not_blocked_by_mem_write_fault(void)
{
	struct vt_uffd uf;
	struct uffd_write u = { .ret = 0 };
	pthread_t th;
	int idx, st = 0;
	pid_t pid;
	long ms;

	if (vt_uffd_open(&uf))
		return -1;

	VT_ASSERT(vt_sim_new(7, 1) == 0, "new_device 7");
	idx = vt_sim_index(7);
	VT_ASSERT(idx >= 0, "neuron_index");
	u.fd = vt_open_dev(idx);
	VT_ASSERT(u.fd >= 0, "open");
	VT_ASSERT(mem_alloc(u.fd, 0, NEURON_MEM_LOC_DEVICE, 2, 4096, &u.handle) == 0, "alloc");
	u.buf = uf.mem;
	VT_ASSERT(pthread_create(&th, NULL, uffd_write_thread, &u) == 0, "pthread_create");
	/* the fault message proves the write is inside the user copy */
	VT_ASSERT(vt_uffd_faulted(&uf, 5000), "the write never faulted on the page");

	pid = fork();
	if (pid == 0)
		_exit(vt_sim_del(7) == 0 ? 0 : 1);
	ms = vt_wait_bounded(pid, &st, 5000);
	/* answer the fault whatever happened, so nothing stays blocked */
	vt_uffd_answer(&uf);
	pthread_join(th, NULL);
	if (ms >= 5000) {
		waitpid(pid, &st, 0);
		VT_ASSERT(0, "removal blocked behind the faulting MEM_WRITE");
	}
	VT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "del_device 7 failed");
	VT_ASSERT(u.ret == -ENODEV, "the faulting write returned %d, expected -ENODEV", u.ret);
	/* the allocation goes with the file, after the device */
	VT_ASSERT(mem_free(u.fd, u.handle) == -ENODEV, "free after removal");
	close(u.fd);
	vt_uffd_close(&uf);
	return 0;
}

/* ---- uncorrectable NeuronCore error and reset ---------------------------------- */

static int sim_exec(int fd, uint32_t nc)
{
	struct neuron_sim_exec e;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.nc = nc;
	return ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) ? -errno : 0;
}

static int nc_unrecoverable_until_reset(void)
{
	struct neuron_sim_exec_model m;
	char reset[128], req[160], fail[160];
	uint64_t state, req0, req1, fail0, fail1, present;
	int fd = vt_open_dev(1), r;

	VT_ASSERT(fd >= 0, "open");
	snprintf(reset, sizeof(reset), DEV_SYSFS "/reset", 1);
	snprintf(req, sizeof(req), DEV_SYSFS "/neuron_core1/stats/other_info/reset_req_count/total", 1);
	snprintf(fail, sizeof(fail), DEV_SYSFS "/neuron_core0/stats/other_info/reset_fail_count/total", 1);
	VT_ASSERT(vt_read_u64(req, &req0) == 0 && vt_read_u64(fail, &fail0) == 0, "reset counters");
	VT_ASSERT(vt_read_u64(reset, &state) == 0 && state == 1, "READY before");
	VT_ASSERT(sim_exec(fd, 1) == 0, "works before");
	VT_ASSERT(vt_inject(1, "nc_unrecoverable", "1") == 0, "inject");
	VT_ASSERT((r = sim_exec(fd, 1)) == -ENOTRECOVERABLE, "exec: %d", r);
	VT_ASSERT((r = sim_exec(fd, 1)) == -ENOTRECOVERABLE, "exec again: %d", r);
	model_init(&m, 1, NEURON_SIM_OP_NONE, 0, 0, 0);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m), ENOTRECOVERABLE);
	VT_ASSERT(sim_exec(fd, 0) == 0, "the other core still works");
	/* a reset needs the device closed */
	VT_ASSERT(vt_write_file(reset, "1") == -EBUSY, "reset while open");
	VT_ASSERT(sim_exec(fd, 1) == -ENOTRECOVERABLE, "still broken");
	close(fd);
	VT_ASSERT(vt_read_u64(req, &req1) == 0 && req1 == req0, "a refused reset counted");
	VT_ASSERT(vt_write_file(reset, "1") == 0, "reset");
	VT_ASSERT(vt_read_u64(reset, &state) == 0 && state == 1, "READY after");
	/* one request on every core, no failure */
	VT_ASSERT(vt_read_u64(req, &req1) == 0 && req1 == req0 + 1, "reset_req_count %llu -> %llu",
		  (unsigned long long)req0, (unsigned long long)req1);
	req[strlen(req) - strlen("total")] = '\0';
	strcat(req, "present");
	VT_ASSERT(vt_read_u64(req, &present) == 0 && present == 1, "reset_req_count present");
	VT_ASSERT(vt_read_u64(fail, &fail1) == 0 && fail1 == fail0, "reset_fail_count moved");
	fd = vt_open_dev(1);
	VT_ASSERT(fd >= 0, "reopen");
	VT_ASSERT(sim_exec(fd, 1) == 0, "works after the reset: %s", strerror(errno));
	model_init(&m, 1, NEURON_SIM_OP_NONE, 0, 0, 0);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &m) == 0, "model after reset");
	close(fd);
	return 0;
}

/* ---- mappings of device allocations --------------------------------------------- */

#define PG	4096UL

/* MEM_ALLOC of device memory on NeuronCore 0: handle and device address. */
static int dev_alloc(int fd, uint64_t bytes, uint64_t *handle, uint64_t *addr)
{
	struct neuron_mem_alloc a;

	alloc_init(&a, 0, NEURON_MEM_LOC_DEVICE, NEURON_MEM_CAT_TENSORS, bytes);
	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a))
		return -errno;
	*handle = a.handle;
	*addr = a.device_addr;
	return 0;
}

/* mmap at the allocation @addr (+@skip bytes): the mapping, or NULL with errno. */
static uint8_t *mem_map(int fd, uint64_t addr, uint64_t skip, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)(NEURON_MEM_MMAP_OFFSET(addr) + skip));

	return p == MAP_FAILED ? NULL : p;
}

static sigjmp_buf probe_jmp;

static void probe_handler(int sig)
{
	siglongjmp(probe_jmp, sig);
}

/*
 * Touch @p (read, or write @v when @write): 0 when the access completed,
 * else the signal it raised (SIGBUS, SIGSEGV). *@got: the byte read.
 */
static int probe(volatile uint8_t *p, int write, uint8_t v, uint8_t *got)
{
	struct sigaction sa, obus, osegv;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	sig = sigsetjmp(probe_jmp, 1);
	if (!sig) {
		if (write)
			*p = v;
		else if (got)
			*got = *p;
		else
			(void)*p;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return sig;
}

/*
 * The capability, and data through the mapping and through the ioctls are
 * the same bytes, both ways, on every page and the partial last one.
 */
static int map_coherent_with_ioctls(void)
{
	const uint64_t bytes = 3 * PG + 100;
	struct neuron_info info;
	uint8_t *m, *buf;
	uint64_t h, addr, i;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO");
	VT_ASSERT(info.capabilities & NEURON_CAP_MEM_MMAP, "no NEURON_CAP_MEM_MMAP");
	VT_ASSERT(dev_alloc(fd, bytes, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 0, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap of the whole allocation: %s", strerror(errno));
	buf = malloc(bytes);
	VT_ASSERT(buf, "malloc");
	VT_ASSERT(all_bytes(m, 4 * PG, 0), "a new mapping is not zero");
	for (i = 0; i < bytes; i++)
		m[i] = (uint8_t)(i * 7 + 1);
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, 0, bytes, buf) == 0, "MEM_READ");
	for (i = 0; i < bytes; i++)
		VT_ASSERT(buf[i] == (uint8_t)(i * 7 + 1), "MEM_READ byte %llu differs from the mapping",
			  (unsigned long long)i);
	for (i = 0; i < bytes; i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_WRITE, h, 0, bytes, buf) == 0, "MEM_WRITE");
	VT_ASSERT(!memcmp(m, buf, bytes), "the mapping misses a MEM_WRITE");
	VT_ASSERT(mem_set(fd, h, PG, PG, 0) == 0, "MEM_SET 0 of a whole page");
	VT_ASSERT(all_bytes(m + PG, PG, 0), "the mapping misses a MEM_SET to zero");
	m[PG + 9] = 0x77;
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h, PG + 9, 1, buf) == 0 && buf[0] == 0x77,
		  "a write through the mapping after MEM_SET 0 is lost");
	free(buf);
	munmap(m, 4 * PG);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	close(fd);
	return 0;
}

/* Offsets, lengths and flags outside one whole allocation are refused. */
static int map_bounds_and_flags(void)
{
	uint64_t ha, hb, a, b;
	uint8_t buf[PG];
	uint8_t *m;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(dev_alloc(fd, 2 * PG - 1, &ha, &a) == 0, "alloc a");
	VT_ASSERT(dev_alloc(fd, PG, &hb, &b) == 0, "alloc b");
	VT_ASSERT(b == a + 2 * PG, "b right after a (first fit): a %llx b %llx",
		  (unsigned long long)a, (unsigned long long)b);
	errno = 0;
	VT_ASSERT(!mem_map(fd, a, 0, 3 * PG, PROT_READ, MAP_SHARED) && errno == EINVAL,
		  "a length past the allocation: %s", strerror(errno));
	errno = 0;
	VT_ASSERT(!mem_map(fd, a, PG, PG, PROT_READ, MAP_SHARED) && errno == EINVAL,
		  "an offset inside the allocation: %s", strerror(errno));
	errno = 0;
	VT_ASSERT(!mem_map(fd, a, 0, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE) && errno == EINVAL,
		  "MAP_PRIVATE: %s", strerror(errno));
	errno = 0;
	VT_ASSERT(!mem_map(fd, a, 0, PG, PROT_READ | PROT_EXEC, MAP_SHARED) && errno == EPERM,
		  "PROT_EXEC: %s", strerror(errno));
	errno = 0;
	VT_ASSERT(!mem_map(fd, HBM, 0, PG, PROT_READ, MAP_SHARED) && errno == EINVAL,
		  "past the HBM: %s", strerror(errno));
	errno = 0;
	VT_ASSERT(!mem_map(fd, a + 8 * PG, 0, PG, PROT_READ, MAP_SHARED) && errno == EINVAL,
		  "no allocation there: %s", strerror(errno));
	/* a shorter mapping is fine; it never grows */
	m = mem_map(fd, a, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap of the first page: %s", strerror(errno));
	VT_ASSERT(mremap(m, PG, 3 * PG, MREMAP_MAYMOVE) == MAP_FAILED, "mremap grew the mapping");
	munmap(m, PG);
	/* the whole span: the padding past 2 * PG - 1 is a's own, b stays untouched */
	m = mem_map(fd, a, 0, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap of the whole allocation: %s", strerror(errno));
	memset(m, 0xee, 2 * PG);
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, hb, 0, PG, buf) == 0 && all_bytes(buf, PG, 0),
		  "writing all of a's mapping changed b");
	munmap(m, 2 * PG);
	VT_ASSERT(mem_free(fd, ha) == 0 && mem_free(fd, hb) == 0, "free");
	close(fd);
	return 0;
}

/* Only the owner, through the file that made the allocation; never across fork. */
static int map_other_file_or_process_refused(void)
{
	uint64_t h, addr;
	uint8_t *m;
	pid_t pid;
	int fd = vt_open_dev(0), fd2 = vt_open_dev(0), st = 0;

	VT_ASSERT(fd >= 0 && fd2 >= 0, "open");
	VT_ASSERT(dev_alloc(fd, PG, &h, &addr) == 0, "alloc");
	errno = 0;
	VT_ASSERT(!mem_map(fd2, addr, 0, PG, PROT_READ, MAP_SHARED) && errno == EINVAL,
		  "another file of the same process mapped it: %s", strerror(errno));
	m = mem_map(fd, addr, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap: %s", strerror(errno));
	m[0] = 0x42;
	pid = fork();
	if (pid == 0) {
		int own = vt_open_dev(0);
		void *p;

		/* the parent's mapping is not in the child */
		if (probe(m, 0, 0, NULL) != SIGSEGV)
			_exit(10);
		/* the parent's file: not the opener */
		p = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, (off_t)NEURON_MEM_MMAP_OFFSET(addr));
		if (p != MAP_FAILED || errno != EACCES)
			_exit(11);
		/* its own file: not its allocation */
		p = mmap(NULL, PG, PROT_READ, MAP_SHARED, own, (off_t)NEURON_MEM_MMAP_OFFSET(addr));
		if (own < 0 || p != MAP_FAILED || errno != EINVAL)
			_exit(12);
		_exit(0);
	}
	VT_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
	VT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %d (10: parent's mapping inherited, 11: parent's file, 12: own file)",
		  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	VT_ASSERT(m[0] == 0x42, "the parent's mapping changed");
	munmap(m, PG);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	close(fd2);
	close(fd);
	return 0;
}

/*
 * MEM_FREE revokes: the old mapping faults (SIGBUS), also once the same
 * granules belong to a new allocation with data in it; its pages go back.
 */
static int map_use_after_free_sigbus(void)
{
	uint64_t h, addr, h2, addr2, blocks0, blocks1;
	uint8_t *m, buf[PG];
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(vt_read_u64(HBM_BLOCKS, &blocks0) == 0, "hbm_blocks");
	VT_ASSERT(dev_alloc(fd, 2 * PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 0, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap: %s", strerror(errno));
	memset(m, 0x33, 2 * PG);
	VT_ASSERT(vt_read_u64(HBM_BLOCKS, &blocks1) == 0 && blocks1 == blocks0 + 2,
		  "hbm_blocks %llu -> %llu", (unsigned long long)blocks0, (unsigned long long)blocks1);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	VT_ASSERT(probe(m, 0, 0, NULL) == SIGBUS, "read after free: no SIGBUS");
	VT_ASSERT(probe(m + PG, 1, 1, NULL) == SIGBUS, "write after free: no SIGBUS");
	VT_ASSERT(vt_read_u64(HBM_BLOCKS, &blocks1) == 0 && blocks1 == blocks0,
		  "the freed pages stayed: hbm_blocks %llu -> %llu", (unsigned long long)blocks0,
		  (unsigned long long)blocks1);
	/* the same granules, someone else's data now */
	VT_ASSERT(dev_alloc(fd, 2 * PG, &h2, &addr2) == 0 && addr2 == addr, "realloc at %llx",
		  (unsigned long long)addr);
	memset(buf, 0x99, sizeof(buf));
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_WRITE, h2, 0, PG, buf) == 0, "MEM_WRITE new");
	VT_ASSERT(probe(m, 0, 0, NULL) == SIGBUS, "the old mapping reaches the new allocation");
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_READ, h2, PG, PG, buf) == 0 && all_bytes(buf, PG, 0),
		  "the new allocation holds the old data");
	munmap(m, 2 * PG);
	VT_ASSERT(mem_free(fd, h2) == 0, "free new");
	close(fd);
	return 0;
}

/* Removal revokes: SIGBUS, and munmap and close still work. */
static int map_removal_sigbus(void)
{
	uint64_t h, addr;
	uint8_t *m, got = 0;
	int fd, idx;

	VT_ASSERT(vt_sim_new(8, 1) == 0, "new_device 8");
	idx = vt_sim_index(8);
	VT_ASSERT(idx >= 0, "neuron_index");
	fd = vt_open_dev(idx);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(dev_alloc(fd, PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap: %s", strerror(errno));
	m[5] = 0x5c;
	VT_ASSERT(probe(m + 5, 0, 0, &got) == 0 && got == 0x5c, "read back");
	VT_ASSERT(vt_sim_del(8) == 0, "del_device 8");
	VT_ASSERT(probe(m + 5, 0, 0, NULL) == SIGBUS, "read after removal: no SIGBUS");
	errno = 0;
	VT_ASSERT(!mem_map(fd, addr, 0, PG, PROT_READ, MAP_SHARED) && errno == ENODEV,
		  "mmap after removal: %s", strerror(errno));
	VT_ASSERT(munmap(m, PG) == 0, "munmap");
	close(fd);
	return 0;
}

/*
 * A reset needs every file closed; a mapping holds its file, so the reset
 * is refused while it lives, even with the descriptor closed, and the data
 * stays. After munmap the reset goes through.
 */
static int map_blocks_reset(void)
{
	char reset[128];
	uint64_t h, addr;
	uint8_t *m, got = 0;
	int fd = vt_open_dev(1);

	VT_ASSERT(fd >= 0, "open");
	snprintf(reset, sizeof(reset), DEV_SYSFS "/reset", 1);
	VT_ASSERT(dev_alloc(fd, PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap: %s", strerror(errno));
	m[0] = 0xa5;
	close(fd);
	VT_ASSERT(vt_write_file(reset, "1") == -EBUSY, "reset with a live mapping");
	VT_ASSERT(probe(m, 0, 0, &got) == 0 && got == 0xa5, "the mapping after a refused reset");
	VT_ASSERT(munmap(m, PG) == 0, "munmap");
	VT_ASSERT(vt_write_file(reset, "1") == 0, "reset after munmap");
	return 0;
}

/*
 * No get_user_pages() route reaches device memory: its PTEs are special
 * (VM_PFNMAP), so vmsplice, process_vm_readv/writev (as the remote side,
 * from the process itself and from a sibling) and /proc/<pid>/mem are
 * refused with EFAULT (/proc/<pid>/mem: EIO), on every kernel, while
 * loads, stores and read()/write() with the mapping as the buffer work.
 * O_DIRECT, where the guest's /tmp takes it, either copies the owner's
 * bytes or is refused; nothing else.
 */
static int map_gup_routes_refused(void)
{
	struct iovec local, remote;
	uint64_t h, addr;
	uint8_t *m, buf[PG];
	char path[64];
	int fd = vt_open_dev(0), p[2], mfd, st = 0, dfd;
	pid_t self = getpid(), pid;
	ssize_t r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(dev_alloc(fd, PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	VT_ASSERT(m, "mmap: %s", strerror(errno));
	memset(m, 0x5a, PG);
	VT_ASSERT(pipe(p) == 0, "pipe");

	local.iov_base = m;
	local.iov_len = PG;
	errno = 0;
	r = vmsplice(p[1], &local, 1, 0);
	VT_ASSERT(r < 0 && errno == EFAULT, "vmsplice of device memory: %zd (%s)", r,
		  strerror(errno));
	errno = 0;
	r = vmsplice(p[1], &local, 1, SPLICE_F_GIFT);
	VT_ASSERT(r < 0 && errno == EFAULT, "vmsplice (gift) of device memory: %zd (%s)", r,
		  strerror(errno));

	/* ordinary copies through the mapping work both ways */
	VT_ASSERT(write(p[1], m, 64) == 64, "write() from the mapping: %s", strerror(errno));
	VT_ASSERT(read(p[0], buf, 64) == 64 && all_bytes(buf, 64, 0x5a), "pipe read back");
	memset(buf, 0x6b, 64);
	VT_ASSERT(write(p[1], buf, 64) == 64, "pipe write");
	VT_ASSERT(read(p[0], m, 64) == 64 && all_bytes(m, 64, 0x6b),
		  "read() into the mapping: %s", strerror(errno));

	local.iov_base = buf;
	local.iov_len = 64;
	remote.iov_base = m;
	remote.iov_len = 64;
	/*
	 * EFAULT, or ENOSYS where the kernel does not offer the call (once
	 * on sid's 7.2, whose configuration has CROSS_MEMORY_ATTACH): no
	 * copy either way
	 */
	errno = 0;
	r = process_vm_readv(self, &local, 1, &remote, 1, 0);
	VT_ASSERT(r < 0 && (errno == EFAULT || errno == ENOSYS),
		  "process_vm_readv of own device memory: %zd (%s)", r, strerror(errno));
	if (errno == ENOSYS)
		printf("# process_vm_readv: ENOSYS on this kernel\n");
	errno = 0;
	r = process_vm_writev(self, &local, 1, &remote, 1, 0);
	VT_ASSERT(r < 0 && (errno == EFAULT || errno == ENOSYS),
		  "process_vm_writev to own device memory: %zd (%s)", r, strerror(errno));

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)self);
	mfd = open(path, O_RDWR);
	VT_ASSERT(mfd >= 0, "open %s", path);
	errno = 0;
	r = pread(mfd, buf, 64, (off_t)(uintptr_t)m);
	VT_ASSERT(r < 0 && (errno == EIO || errno == EFAULT), "/proc/self/mem read: %zd (%s)", r,
		  strerror(errno));
	errno = 0;
	r = pwrite(mfd, buf, 64, (off_t)(uintptr_t)m);
	VT_ASSERT(r < 0 && (errno == EIO || errno == EFAULT), "/proc/self/mem write: %zd (%s)", r,
		  strerror(errno));
	close(mfd);

	/* a sibling (same user) reading the mapping from outside */
	pid = fork();
	if (pid == 0) {
		struct iovec l = { buf, 64 }, rm = { m, 64 };

		errno = 0;
		if (process_vm_readv(self, &l, 1, &rm, 1, 0) >= 0)
			_exit(10);
		_exit(errno == EFAULT || errno == ENOSYS ? 0 : 11);
	}
	VT_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
	VT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "sibling's process_vm_readv: status %d (10: it read device memory, 11: neither EFAULT nor ENOSYS)",
		  WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	/* O_DIRECT where /tmp takes it: the owner's bytes, or refused */
	dfd = open("/tmp/vm_mem_odirect", O_CREAT | O_TRUNC | O_RDWR | O_DIRECT, 0600);
	if (dfd >= 0) {
		memset(m, 0x7c, PG);
		r = pwrite(dfd, m, PG, 0);
		VT_ASSERT(r == (ssize_t)PG || (r < 0 && errno == EFAULT),
			  "O_DIRECT write from device memory: %zd (%s)", r, strerror(errno));
		if (r == (ssize_t)PG) {
			memset(m, 0, PG);
			r = pread(dfd, m, PG, 0);
			VT_ASSERT(r == (ssize_t)PG || (r < 0 && errno == EFAULT),
				  "O_DIRECT read into device memory: %zd (%s)", r, strerror(errno));
		}
		close(dfd);
		unlink("/tmp/vm_mem_odirect");
	} else {
		VT_ASSERT(errno == EINVAL, "open O_DIRECT: %s", strerror(errno));
		printf("# O_DIRECT: /tmp does not take it on this kernel\n");
	}

	close(p[0]);
	close(p[1]);
	munmap(m, PG);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	close(fd);
	return 0;
}

#define VICTIM_SECRET	"VICTIM secret: hunter2"
#define NO_ADDR		UINT64_MAX	/* the first owner stopped before its free */

/* Drop to @uid (the device is opened first: the node is root's). */
static int become(uid_t uid)
{
	return setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ? -1 : 0;
}

/*
 * The next owner: a process of another user allocates the granule that
 * was freed, writes its secret through the ioctl and its own mapping, and
 * waits to be released.
 */
static int next_owner(struct vt_child *c, void *arg)
{
	uint64_t want = *(uint64_t *)arg, h, addr;
	int fd = vt_open_dev(0);
	uint8_t *m;

	if (fd < 0 || become(65533))
		return 20;
	if (dev_alloc(fd, PG, &h, &addr))
		return 21;
	if (addr != want) {
		printf("# next owner: granule %#llx, the freed one %#llx\n",
		       (unsigned long long)addr, (unsigned long long)want);
		return 22;	/* first fit gives the freed granule back */
	}
	if (mem_rw(fd, NEURON_IOCTL_MEM_WRITE, h, 0, sizeof(VICTIM_SECRET), (void *)VICTIM_SECRET))
		return 23;
	m = mem_map(fd, addr, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!m)
		return 24;
	memcpy(m + 2048, VICTIM_SECRET, sizeof(VICTIM_SECRET));
	if (vt_child_hold(c))
		return 25;
	munmap(m, PG);
	mem_free(fd, h);
	close(fd);
	return 0;
}

/* What the first owner reports to the test. */
struct first_owner_report {
	int step;		/* the last step reached (5: all) */
	int splice_errno;	/* 0: vmsplice took the page */
	ssize_t spliced;
	ssize_t got;		/* bytes still in its pipe after the free */
	int leaked;		/* they hold the next owner's secret */
};

/*
 * The first owner (uid 65534): map, touch, vmsplice into a pipe, unmap,
 * free, close; tell the test the address (@up); once the test says the
 * next owner wrote (@down), drain the pipe and report.
 */
static void first_owner(int up, int down)
{
	struct first_owner_report rep = { 0 };
	static uint8_t buf[4 * PG];
	uint64_t h, addr = 0;
	struct iovec iov;
	int fd, p[2];
	uint8_t *m;
	char ch;

	fd = vt_open_dev(0);
	if (fd < 0 || become(65534))
		goto out;
	rep.step = 1;
	if (dev_alloc(fd, PG, &h, &addr))
		goto out;
	m = mem_map(fd, addr, 0, PG, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!m || pipe2(p, O_NONBLOCK))
		goto out;
	rep.step = 2;
	memset(m, 'a', PG);
	iov.iov_base = m;
	iov.iov_len = PG;
	errno = 0;
	rep.spliced = vmsplice(p[1], &iov, 1, 0);
	rep.splice_errno = rep.spliced < 0 ? errno : 0;
	if (munmap(m, PG) || mem_free(fd, h))
		goto out;
	close(fd);
	rep.step = 3;
	if (write(up, &addr, sizeof(addr)) != sizeof(addr) || read(down, &ch, 1) != 1)
		goto out;
	rep.step = 4;
	rep.got = read(p[0], buf, sizeof(buf));
	if (rep.got > 0)
		rep.leaked = memmem(buf, (size_t)rep.got, VICTIM_SECRET, strlen(VICTIM_SECRET)) != NULL;
	rep.step = 5;
out:
	if (rep.step < 3)
		addr = NO_ADDR;
	if (rep.step < 3 && write(up, &addr, sizeof(addr)) != sizeof(addr))
		_exit(1);
	if (rep.step < 4 && read(down, &ch, 1) < 0)
		_exit(1);
	_exit(write(up, &rep, sizeof(rep)) == sizeof(rep) ? 0 : 1);
}

/*
 * Freed device memory never shows the next owner's data: a process (uid
 * 65534) maps an allocation, touches it, tries to vmsplice its page into
 * a pipe, unmaps, frees and closes; another user's process gets the same
 * granule and writes a secret; whatever the first process still holds
 * (its pipe) never shows the secret, and the splice itself was refused.
 */
static int map_freed_page_never_next_owner(void)
{
	struct first_owner_report rep;
	int up[2], down[2], st = 0, bst = 0, ok, started;
	struct vt_child b = { 0 };
	uint64_t addr = NO_ADDR;
	pid_t a;

	VT_ASSERT(pipe(up) == 0 && pipe(down) == 0, "pipe");
	a = fork();
	if (a == 0) {
		close(up[0]);
		close(down[1]);
		first_owner(up[1], down[0]);
	}
	VT_ASSERT(a > 0, "fork");
	close(up[1]);
	close(down[0]);
	VT_ASSERT(read(up[0], &addr, sizeof(addr)) == sizeof(addr), "the first owner's word");
	/* the next owner, once the granule is free; then the first owner drains its pipe */
	started = addr != NO_ADDR && vt_child_start(&b, next_owner, &addr) == 0;
	VT_ASSERT(write(down[1], "w", 1) == 1, "word to the first owner");
	VT_ASSERT(read(up[0], &rep, sizeof(rep)) == sizeof(rep), "the first owner's report");
	ok = -1;
	if (addr != NO_ADDR && b.pid > 0) {
		if (started) {
			close(b.hold_fd);
			close(b.ready_fd);
		}
		if (waitpid(b.pid, &bst, 0) == b.pid && WIFEXITED(bst))
			ok = WEXITSTATUS(bst);
	}
	VT_ASSERT(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "first owner: status 0x%x", st);
	close(up[0]);
	close(down[1]);
	VT_ASSERT(rep.step == 5, "the first owner stopped at step %d", rep.step);
	VT_ASSERT(!ok,
		  "the next owner failed: %d (20 open, 21 alloc, 22 another granule than the freed one, 23 write, 24 mmap, 25 pipe)",
		  ok);
	VT_ASSERT(!rep.leaked, "data crossed processes: the first owner's pipe (%zd bytes, spliced %zd) holds the next owner's secret",
		  rep.got, rep.spliced);
	VT_ASSERT(rep.spliced < 0 && rep.splice_errno == EFAULT,
		  "vmsplice of device memory took the page (%zd, %s)", rep.spliced,
		  strerror(rep.splice_errno));
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(info_reports_hbm),
		VT_CASE(rings_and_slab_accounted),
		VT_CASE(device_rw_roundtrip),
		VT_CASE(host_rw_roundtrip),
		VT_CASE(device_addresses_distinct),
		VT_CASE(hbm_exhaustion_enomem),
		VT_CASE(host_cap_enomem),
		VT_CASE(alloc_bad_args_einval),
		VT_CASE(rw_bad_args_einval),
		VT_CASE(bad_handles_enoent),
		VT_CASE(child_uses_parent_fd_eacces),
		VT_CASE(accounting_exact),
		VT_CASE(peak_and_clear),
		VT_CASE(exit_frees_everything),
		VT_CASE(host_memory_charged_to_cgroup),
		VT_CASE(model_ops_correct),
		VT_CASE(model_bad_args),
		VT_CASE(free_during_job),
		VT_CASE(concurrent_use),
		VT_CASE(removal_not_blocked_by_mem_write_fault),
		VT_CASE(nc_unrecoverable_until_reset),
		VT_CASE(map_coherent_with_ioctls),
		VT_CASE(map_bounds_and_flags),
		VT_CASE(map_other_file_or_process_refused),
		VT_CASE(map_use_after_free_sigbus),
		VT_CASE(map_removal_sigbus),
		VT_CASE(map_blocks_reset),
		VT_CASE(map_gup_routes_refused),
		VT_CASE(map_freed_page_never_next_owner),
	};

	return vt_run("vm_mem", cases, VT_COUNT(cases));
}
