// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest test: dma-buf export of device memory (the vendor's DMABUF_FD on a
 * mapping of an allocation) and its import by a second simulated device
 * (MEM_DMABUF_READ), against the UAPI. Run by tests/vm/22_dmabuf.sh with
 * two simulated devices of 2 NeuronCores and 16 MiB of HBM each.
 *
 * What it checks: another process that gets the descriptor maps it and
 * sees (and writes) the allocation's bytes; the memory outlives MEM_FREE,
 * the exporter's mapping and its file, and is given back (sysfs
 * accounting, simulated HBM blocks) when the last holder goes; the second
 * device attaches, maps and copies from it, at offsets; every bad argument
 * is refused without a descriptor leaking; a device reset is refused while
 * a dma-buf lives; the device's removal revokes the dma-buf's mappings
 * (SIGBUS) and fails new attachments.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_vendor_ioctl.h>

#include "vmdev.h"

#define PG		4096UL
#define NC_TOTAL(d, nc)	"/sys/devices/virtual/neuron_device/neuron" #d \
			"/neuron_core" #nc "/stats/memory_usage/device_mem/total"
#define HBM_BLOCKS(d)	"/sys/kernel/debug/neuron/neuron" #d "/hbm_blocks"

static int mem_alloc(int fd, uint32_t nc, uint64_t bytes, uint64_t *handle, uint64_t *addr)
{
	struct neuron_mem_alloc a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.nc = nc;
	a.location = NEURON_MEM_LOC_DEVICE;
	a.category = NEURON_MEM_CAT_TENSORS;
	a.bytes = bytes;
	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a))
		return -errno;
	*handle = a.handle;
	if (addr)
		*addr = a.device_addr;
	return 0;
}

static int mem_free(int fd, uint64_t handle)
{
	struct neuron_mem_free f = { .size = sizeof(f), .handle = handle };

	return ioctl(fd, NEURON_IOCTL_MEM_FREE, &f) ? -errno : 0;
}

static int mem_rw(int fd, unsigned long cmd, uint64_t handle, uint64_t off, uint64_t bytes,
		  void *buf)
{
	struct neuron_mem_rw r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.handle = handle;
	r.offset = off;
	r.bytes = bytes;
	r.user_ptr = (uintptr_t)buf;
	return ioctl(fd, cmd, &r) ? -errno : 0;
}

static uint8_t *mem_map(int fd, uint64_t addr, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)NEURON_MEM_MMAP_OFFSET(addr));

	return p == MAP_FAILED ? NULL : p;
}

/* DMABUF_FD on any device file: the descriptor, or -errno. */
static int export_fd(int fd, const void *va, uint64_t size)
{
	struct neuron_ioctl_dmabuf_fd a;
	int32_t out = -1;

	memset(&a, 0, sizeof(a));
	a.va = (uintptr_t)va;
	a.size = size;
	a.fd = (uintptr_t)&out;
	if (ioctl(fd, NEURON_IOCTL_DMABUF_FD, &a))
		return -errno;
	return out;
}

static int import_read(int fd, int dbuf, uint64_t handle, uint64_t off, uint64_t src_off,
		       uint64_t bytes)
{
	struct neuron_mem_dmabuf_read r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.fd = dbuf;
	r.handle = handle;
	r.offset = off;
	r.src_offset = src_off;
	r.bytes = bytes;
	return ioctl(fd, NEURON_IOCTL_MEM_DMABUF_READ, &r) ? -errno : 0;
}

static void pattern(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

static int open_fds(void)
{
	char path[64];
	int n = 0, i;

	for (i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", i);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* ---- cases ------------------------------------------------------------------- */

/*
 * Whether the kernel has the dma-buf API (DMABUF_KERNEL=1 from the suite,
 * which sees /sys/kernel/debug/dma_buf): Debian's 5.10 cloud kernel does
 * not, and there every case checks the refusal instead.
 */
static int kernel_dmabuf(void)
{
	const char *v = getenv("DMABUF_KERNEL");

	return !v || strcmp(v, "0");
}

/*
 * Without the dma-buf API: no capability, no DRIVER_INFO feature, and
 * DMABUF_FD on a real mapping and MEM_DMABUF_READ are -EOPNOTSUPP.
 */
static int refused_without_dmabuf(void)
{
	struct neuron_ioctl_device_driver_info di;
	struct neuron_info info;
	uint64_t h = 0, addr = 0;
	int fd = vt_open_dev(0);
	uint8_t *m;

	VT_ASSERT(fd >= 0, "open");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO");
	VT_ASSERT(!(info.capabilities & NEURON_CAP_MEM_DMABUF),
		  "NEURON_CAP_MEM_DMABUF on a kernel without the dma-buf API");
	VT_ASSERT(info.capabilities & NEURON_CAP_MEM_MMAP, "no NEURON_CAP_MEM_MMAP");
	memset(&di, 0, sizeof(di));
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_DRIVER_INFO_GET, &di) == 0, "DRIVER_INFO");
	VT_ASSERT(di.feature_flags1 == 0, "feature_flags1 0x%llx",
		  (unsigned long long)di.feature_flags1);
	VT_ASSERT(mem_alloc(fd, 0, PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, PG);
	VT_ASSERT(m, "mmap");
	VT_ASSERT(export_fd(fd, m, PG) == -EOPNOTSUPP, "DMABUF_FD without the dma-buf API");
	VT_ASSERT(import_read(fd, 0, h, 0, 0, 1) == -EOPNOTSUPP,
		  "MEM_DMABUF_READ without the dma-buf API");
	munmap(m, PG);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	close(fd);
	return 0;
}

static int caps(void)
{
	struct neuron_ioctl_device_driver_info di;
	struct neuron_info info;
	int fd;

	if (!kernel_dmabuf())
		return refused_without_dmabuf();
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO");
	VT_ASSERT(info.capabilities & NEURON_CAP_MEM_DMABUF, "no NEURON_CAP_MEM_DMABUF");
	memset(&di, 0, sizeof(di));
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_DRIVER_INFO_GET, &di) == 0, "DRIVER_INFO");
	VT_ASSERT(di.feature_flags1 == NEURON_DRIVER_FEATURE_DMABUF,
		  "feature_flags1 0x%llx", (unsigned long long)di.feature_flags1);
	close(fd);
	return 0;
}

/*
 * Child: receive a dma-buf, map it, check the pattern of @seed over
 * @bytes, sync, write 0xA5 at byte 1, report 0 or a line number.
 */
static int peer(int sock, size_t bytes, unsigned int seed)
{
	struct dma_buf_sync s = { DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	uint8_t *want = malloc(bytes), *m;
	int fd = vt_recv_fd(sock);
	int r = 0;

	if (fd < 0 || !want)
		return __LINE__;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return __LINE__;
	pattern(want, bytes, seed);
	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
		r = __LINE__;
	else if (memcmp(m, want, bytes))
		r = __LINE__;
	m[1] = 0xA5;
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	if (!r && ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
		r = __LINE__;
	/* a private or executable mapping is refused */
	if (!r && mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED)
		r = __LINE__;
	if (!r && mmap(NULL, PG, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) != MAP_FAILED)
		r = __LINE__;
	/* past its size */
	if (!r && mmap(NULL, bytes + PG, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED)
		r = __LINE__;
	munmap(m, bytes);
	close(fd);
	free(want);
	return r;
}

/*
 * Another process gets the descriptor over a socket, maps it and sees the
 * exported range's bytes (a range that starts a page into the allocation);
 * its write is the allocation's.
 */
static int second_process_maps(void)
{
	const uint64_t bytes = 4 * PG;
	uint8_t *buf = malloc(bytes), *m;
	uint64_t h = 0, addr = 0;
	int sv[2], fd, dbuf, status;
	pid_t pid;
	if (!kernel_dmabuf())
		return refused_without_dmabuf();

	VT_ASSERT(buf, "malloc");
	VT_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	pid = fork();
	VT_ASSERT(pid >= 0, "fork");
	if (!pid) {
		close(sv[0]);
		_exit(peer(sv[1], 2 * PG, 7));
	}
	close(sv[1]);
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 1, bytes, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, bytes);
	VT_ASSERT(m, "mmap");
	/* bytes PG..3PG carry the pattern the peer expects at its 0..2PG */
	pattern(buf, 2 * PG, 7);
	VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_WRITE, h, PG, 2 * PG, buf) == 0, "write");
	dbuf = export_fd(fd, m + PG, 2 * PG);
	VT_ASSERT(dbuf >= 0, "DMABUF_FD: %s", strerror(-dbuf));
	VT_ASSERT(fcntl(dbuf, F_GETFD) == FD_CLOEXEC, "descriptor not close-on-exec");
	VT_ASSERT(vt_send_fd(sv[0], dbuf) == 0, "send");
	close(dbuf);
	VT_ASSERT(waitpid(pid, &status, 0) == pid, "wait");
	VT_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "peer failed at vm_dmabuf.c:%d", WEXITSTATUS(status));
	VT_ASSERT(m[PG + 1] == 0xA5, "the peer's write is not in the allocation (0x%x)", m[PG + 1]);
	munmap(m, bytes);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	close(fd);
	close(sv[0]);
	free(buf);
	return 0;
}

/*
 * The dma-buf holds the memory past MEM_FREE, the exporter's mapping and
 * its file: still mapped, still the same bytes, still accounted; given
 * back (accounting and HBM blocks) when its last mapping and descriptor go.
 */
static int outlives_free_and_file(void)
{
	const uint64_t bytes = 2 * PG;
	uint64_t h = 0, addr = 0, blocks0 = 0, total = 0;
	uint8_t *m, *dm, want[2 * PG];
	int fd, dbuf;
	if (!kernel_dmabuf())
		return refused_without_dmabuf();

	VT_ASSERT(vt_read_u64(HBM_BLOCKS(0), &blocks0) == 0, "hbm_blocks");
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, bytes, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, bytes);
	VT_ASSERT(m, "mmap");
	pattern(m, bytes, 3);
	dbuf = export_fd(fd, m, bytes);
	VT_ASSERT(dbuf >= 0, "DMABUF_FD: %s", strerror(-dbuf));
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	VT_ASSERT(vt_probe_read(m) == SIGBUS, "the exporter's own mapping is revoked by MEM_FREE");
	munmap(m, bytes);
	/* the granules stay the dma-buf's: a new allocation gets others */
	{
		uint64_t h2 = 0, a2 = 0;
		uint8_t ones[2 * PG];

		VT_ASSERT(mem_alloc(fd, 0, bytes, &h2, &a2) == 0, "alloc after free");
		VT_ASSERT(a2 != addr, "the freed granules were given again while a dma-buf holds them");
		memset(ones, 0xFF, sizeof(ones));
		VT_ASSERT(mem_rw(fd, NEURON_IOCTL_MEM_WRITE, h2, 0, bytes, ones) == 0, "write new");
		dm = mmap(NULL, bytes, PROT_READ, MAP_SHARED, dbuf, 0);
		VT_ASSERT(dm != MAP_FAILED, "mmap of the dma-buf");
		pattern(want, bytes, 3);
		VT_ASSERT(memcmp(dm, want, bytes) == 0, "the new owner's write reached the dma-buf");
		munmap(dm, bytes);
		VT_ASSERT(mem_free(fd, h2) == 0, "free new");
	}
	close(fd);

	dm = mmap(NULL, bytes, PROT_READ, MAP_SHARED, dbuf, 0);
	VT_ASSERT(dm != MAP_FAILED, "mmap of the dma-buf after free: %s", strerror(errno));
	pattern(want, bytes, 3);
	VT_ASSERT(memcmp(dm, want, bytes) == 0, "bytes changed after free");
	VT_ASSERT(vt_read_u64(NC_TOTAL(0, 0), &total) == 0 && total == bytes,
		  "accounted %llu while the dma-buf holds it", (unsigned long long)total);
	close(dbuf);
	/* the mapping alone keeps it */
	VT_ASSERT(memcmp(dm, want, bytes) == 0, "bytes changed after the descriptor closed");
	munmap(dm, bytes);
	VT_ASSERT(vt_read_u64(NC_TOTAL(0, 0), &total) == 0 && total == 0,
		  "still accounted %llu after the last holder", (unsigned long long)total);
	VT_ASSERT(vt_read_u64(HBM_BLOCKS(0), &total) == 0 && total == blocks0,
		  "HBM blocks %llu, %llu before", (unsigned long long)total,
		  (unsigned long long)blocks0);
	return 0;
}

/*
 * The second device attaches the dma-buf, maps it for DMA and copies from
 * it into its own allocation, at offsets; the bytes are the exporter's.
 */
static int second_device_imports(void)
{
	const uint64_t bytes = 5 * PG + 100;
	uint8_t *m, *got = malloc(bytes), *want = malloc(bytes);
	uint64_t h0 = 0, a0 = 0, h1 = 0;
	int fd0, fd1, dbuf;
	if (!kernel_dmabuf())
		return refused_without_dmabuf();

	VT_ASSERT(got && want, "malloc");
	fd0 = vt_open_dev(0);
	fd1 = vt_open_dev(1);
	VT_ASSERT(fd0 >= 0 && fd1 >= 0, "open");
	VT_ASSERT(mem_alloc(fd0, 1, bytes, &h0, &a0) == 0, "alloc 0");
	VT_ASSERT(mem_alloc(fd1, 0, bytes, &h1, NULL) == 0, "alloc 1");
	m = mem_map(fd0, a0, 6 * PG);
	VT_ASSERT(m, "mmap");
	pattern(want, bytes, 11);
	memcpy(m, want, bytes);
	/* the exporter's device file or the other's: any of the caller's serves */
	dbuf = export_fd(fd1, m, bytes);
	VT_ASSERT(dbuf >= 0, "DMABUF_FD: %s", strerror(-dbuf));
	VT_ASSERT(import_read(fd1, dbuf, h1, 0, 0, bytes) == 0, "import: %s", strerror(errno));
	VT_ASSERT(mem_rw(fd1, NEURON_IOCTL_MEM_READ, h1, 0, bytes, got) == 0, "read");
	VT_ASSERT(memcmp(got, want, bytes) == 0, "imported bytes differ");
	/* a range across pages, from an offset to another */
	memset(got, 0, bytes);
	VT_ASSERT(mem_rw(fd1, NEURON_IOCTL_MEM_WRITE, h1, 0, bytes, got) == 0, "clear");
	VT_ASSERT(import_read(fd1, dbuf, h1, 10, PG - 3, 2 * PG + 7) == 0, "import range");
	VT_ASSERT(mem_rw(fd1, NEURON_IOCTL_MEM_READ, h1, 0, bytes, got) == 0, "read");
	VT_ASSERT(memcmp(got + 10, want + PG - 3, 2 * PG + 7) == 0, "imported range differs");
	VT_ASSERT(got[9] == 0 && got[10 + 2 * PG + 7] == 0, "bytes outside the range written");
	/* the exporter's own device imports too (attaching to itself), into another page */
	VT_ASSERT(import_read(fd0, dbuf, h0, 4 * PG, 0, PG) == 0, "self import");
	VT_ASSERT(memcmp(m + 4 * PG, want, PG) == 0, "self-imported bytes differ");
	close(dbuf);
	munmap(m, 6 * PG);
	VT_ASSERT(mem_free(fd0, h0) == 0 && mem_free(fd1, h1) == 0, "free");
	close(fd0);
	close(fd1);
	free(got);
	free(want);
	return 0;
}

static int bad_arguments(void)
{
	const uint64_t bytes = 2 * PG + 10;
	struct neuron_mem_dmabuf_read r;
	struct neuron_ioctl_dmabuf_fd a;
	uint64_t h = 0, addr = 0, hh = 0;
	int fd, before, dbuf, p[2];
	uint8_t *m, *anon;
	pid_t pid;
	int status;
	if (!kernel_dmabuf())
		return refused_without_dmabuf();

	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	before = open_fds();
	VT_ASSERT(mem_alloc(fd, 0, bytes, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 3 * PG);
	VT_ASSERT(m, "mmap");
	anon = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(anon != MAP_FAILED, "anon");

	VT_ASSERT(export_fd(fd, m + 1, PG) == -EINVAL, "unaligned va");
	VT_ASSERT(export_fd(fd, m, 0) == -EINVAL, "size 0");
	/*
	 * Up to the mapping's last page, never past it (a mapping never
	 * exceeds its allocation's pages); a shorter mapping bounds it too.
	 */
	VT_ASSERT(export_fd(fd, m, 3 * PG + 1) == -EINVAL, "past the mapping");
	VT_ASSERT(export_fd(fd, m + 2 * PG, 2 * PG) == -EINVAL, "past the mapping (offset)");
	{
		uint8_t *first = mem_map(fd, addr, PG);

		VT_ASSERT(first, "mmap of the first page");
		VT_ASSERT(export_fd(fd, first, 2 * PG) == -EINVAL, "past a one-page mapping");
		dbuf = export_fd(fd, first, PG);
		VT_ASSERT(dbuf >= 0, "the one-page mapping's page");
		close(dbuf);
		munmap(first, PG);
	}
	VT_ASSERT(export_fd(fd, m, UINT64_MAX) == -EINVAL, "huge size");
	VT_ASSERT(export_fd(fd, anon, PG) == -EINVAL, "anonymous memory");
	VT_ASSERT(export_fd(fd, (void *)(uintptr_t)PG, PG) == -EINVAL, "unmapped address");
	memset(&a, 0, sizeof(a));
	a.va = (uintptr_t)m;
	a.size = PG;
	a.fd = 8;	/* an address nobody maps */
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_DMABUF_FD, &a), EFAULT);
	VT_ASSERT(open_fds() == before, "a descriptor leaked (%d, %d before)", open_fds(), before);
	/* a forked child has no mapping of the parent's (not inherited) */
	pid = fork();
	VT_ASSERT(pid >= 0, "fork");
	if (!pid)
		_exit(export_fd(fd, m, PG) == -EINVAL ? 0 : 1);
	VT_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 0, "a forked child exported its parent's memory");

	/* the importer */
	dbuf = export_fd(fd, m, PG);
	VT_ASSERT(dbuf >= 0, "DMABUF_FD");
	VT_ASSERT(import_read(fd, dbuf, h, 0, 0, 0) == -EINVAL, "bytes 0");
	VT_ASSERT(import_read(fd, dbuf, h, 0, 1, PG) == -EINVAL, "past the dma-buf");
	VT_ASSERT(import_read(fd, dbuf, h, bytes - 1, 0, 2) == -EINVAL, "past the allocation");
	VT_ASSERT(import_read(fd, dbuf, h + 1000, 0, 0, 1) == -ENOENT, "bad handle");
	VT_ASSERT(pipe(p) == 0, "pipe");
	VT_ASSERT(import_read(fd, p[0], h, 0, 0, 1) == -EINVAL, "not a dma-buf");
	VT_ASSERT(import_read(fd, -1, h, 0, 0, 1) == -EINVAL, "negative fd");
	close(p[0]);
	close(p[1]);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.fd = dbuf;
	r.handle = h;
	r.bytes = 1;
	r.reserved[1] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_DMABUF_READ, &r), EINVAL);
	r.reserved[1] = 0;
	r.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_DMABUF_READ, &r), EINVAL);
	r.flags = 0;
	r.reserved0 = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_MEM_DMABUF_READ, &r), EINVAL);
	/* a host allocation is no DMA target here */
	{
		struct neuron_mem_alloc ha;

		memset(&ha, 0, sizeof(ha));
		ha.size = sizeof(ha);
		ha.location = NEURON_MEM_LOC_HOST;
		ha.bytes = PG;
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &ha) == 0, "host alloc");
		hh = ha.handle;
		VT_ASSERT(import_read(fd, dbuf, hh, 0, 0, 1) == -EINVAL, "host target");
		VT_ASSERT(mem_free(fd, hh) == 0, "free host");
	}
	close(dbuf);
	munmap(anon, PG);
	munmap(m, 3 * PG);
	VT_ASSERT(mem_free(fd, h) == 0, "free");
	close(fd);
	return 0;
}

/* A device reset is refused while a dma-buf of its memory lives. */
static int reset_refused_while_exported(void)
{
	uint64_t h = 0, addr = 0;
	int fd, dbuf;
	uint8_t *m;
	if (!kernel_dmabuf())
		return refused_without_dmabuf();

	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, PG);
	VT_ASSERT(m, "mmap");
	dbuf = export_fd(fd, m, PG);
	VT_ASSERT(dbuf >= 0, "DMABUF_FD");
	munmap(m, PG);
	close(fd);	/* no file and no mapping: only the dma-buf */
	VT_ASSERT(vt_writef("/sys/devices/virtual/neuron_device/neuron0/reset", "1\n") == -EBUSY,
		  "reset not refused while a dma-buf lives");
	/* the vendor's whole-device NC_RESET, by the only process with the device open */
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	{
		struct neuron_ioctl_device_reset r = { .nc_map = 0xFFFFFFFFu };

		VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NC_RESET, &r), EBUSY);
	}
	close(fd);
	close(dbuf);
	VT_ASSERT(vt_writef("/sys/devices/virtual/neuron_device/neuron0/reset", "1\n") == 0,
		  "reset refused once the dma-buf is gone");
	return 0;
}

/*
 * Removal of the exporting device: the dma-buf's mappings fault (SIGBUS),
 * cpu access and new attachments fail with -ENODEV, and closing it is clean.
 */
static int removal_revokes(void)
{
	struct dma_buf_sync s = { DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	uint64_t h = 0, addr = 0, h0 = 0;
	int idx, fd, fd0, dbuf;
	uint8_t *m, *dm;
	if (!kernel_dmabuf())
		return refused_without_dmabuf();

	VT_ASSERT(vt_sim_new(7, 1) == 0, "new device");
	idx = vt_sim_index(7);
	VT_ASSERT(idx >= 0, "index");
	fd = vt_open_dev(idx);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(mem_alloc(fd, 0, 2 * PG, &h, &addr) == 0, "alloc");
	m = mem_map(fd, addr, 2 * PG);
	VT_ASSERT(m, "mmap");
	m[0] = 0x5A;
	dbuf = export_fd(fd, m, 2 * PG);
	VT_ASSERT(dbuf >= 0, "DMABUF_FD");
	dm = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, dbuf, 0);
	VT_ASSERT(dm != MAP_FAILED && dm[0] == 0x5A, "dma-buf mapping");
	munmap(m, 2 * PG);
	close(fd);
	VT_ASSERT(vt_sim_del(7) == 0, "remove the device");
	VT_ASSERT(vt_probe_read(dm) == SIGBUS, "the dma-buf's mapping still reaches removed memory");
	VT_ASSERT_ERRNO(ioctl(dbuf, DMA_BUF_IOCTL_SYNC, &s), ENODEV);
	fd0 = vt_open_dev(0);
	VT_ASSERT(fd0 >= 0, "open 0");
	VT_ASSERT(mem_alloc(fd0, 0, PG, &h0, NULL) == 0, "alloc 0");
	VT_ASSERT(import_read(fd0, dbuf, h0, 0, 0, 1) == -ENODEV, "attach after removal");
	VT_ASSERT(mem_free(fd0, h0) == 0, "free 0");
	close(fd0);
	munmap(dm, 2 * PG);
	close(dbuf);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(caps),
		VT_CASE(second_process_maps),
		VT_CASE(outlives_free_and_file),
		VT_CASE(second_device_imports),
		VT_CASE(bad_arguments),
		VT_CASE(reset_refused_while_exported),
		VT_CASE(removal_revokes),
	};

	return vt_run("dmabuf", cases, sizeof(cases) / sizeof(cases[0]));
}
