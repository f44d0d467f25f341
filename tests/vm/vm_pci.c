// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest helper of the PCI suite (tests/pci/, scripts/pci-vm.sh): one
 * ioctl-level action per run against /dev/neuron<N>, for the shell suites
 * to judge. Not part of scripts/vm.sh's suites.
 *
 *   vm_pci info N             GET_INFO: "index=I nc=C backend=B abi=A"
 *   vm_pci fwread N ADDR...   NEURON_IOCTL_FW_READ: one 0x%08x value per line;
 *                             on failure "fwread: <errno name> <ms> ms" on
 *                             stdout and status 1 (the time is printed on
 *                             success too, on stderr)
 *   vm_pci power N PROFILE    NEURON_IOCTL_FW_POWER_PROFILE, same reporting
 *   vm_pci hold N DIR         open, acquire and map the NDS slab, map an
 *                             ERROR ring (if the device has one), create
 *                             DIR/ready; wait for DIR/gone (the device was
 *                             removed): every operation on the old file is
 *                             ENODEV, the slab mapping still reads; create
 *                             DIR/checked; wait for DIR/release, close, exit.
 *                             Status 0 when every check held; the failing
 *                             check on stdout otherwise.
 *   vm_pci ndsver N RT FW FAL POSTS
 *                             open, acquire and map the NDS slab, write the
 *                             ND versions RT (0), FW (1), FAL (2) (u64s,
 *                             strtoull base 0) into it, then post the
 *                             metrics POSTS times (debugfs fw/post_now) while
 *                             alive, and exit (the last close releases the
 *                             slab). "ndsver: ok", or the failing step.
 *   vm_pci ncreset N MAP      reserve the NeuronCores of MAP (CORE_RESERVE),
 *                             then the vendor's NC_RESET of MAP and
 *                             NC_RESET_READY of its id: "ncreset: result R",
 *                             or the failing step with its errno name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>
#include <neuron/neuron_vendor_ioctl.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_dev(const char *n)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/neuron%s", n);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		printf("open %s: %s\n", path, strerror(errno));
	return fd;
}

static int get_info(int fd, struct neuron_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, NEURON_IOCTL_GET_INFO, info);
}

static const char *errname(int e)
{
	switch (e) {
	case EIO: return "EIO";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINTR: return "EINTR";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EBUSY: return "EBUSY";
	default: return strerror(e);
	}
}

static int cmd_info(char **argv)
{
	struct neuron_info info;
	int fd = open_dev(argv[0]);

	if (fd < 0)
		return 1;
	if (get_info(fd, &info)) {
		printf("GET_INFO: %s\n", errname(errno));
		return 1;
	}
	printf("index=%u nc=%u backend=%u abi=%u\n", info.device_index, info.nc_count,
	       info.backend, info.abi_version);
	close(fd);
	return 0;
}

static int cmd_fwread(int argc, char **argv)
{
	struct neuron_fw_read r;
	long t0, ms;
	int fd, i, ret, err;

	if (argc < 2 || argc - 1 > NEURON_FW_READ_MAX) {
		fprintf(stderr, "vm_pci fwread N ADDR...\n");
		return 2;
	}
	fd = open_dev(argv[0]);
	if (fd < 0)
		return 1;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.count = argc - 1;
	for (i = 1; i < argc; i++)
		r.addr[i - 1] = strtoull(argv[i], NULL, 0);
	t0 = now_ms();
	ret = ioctl(fd, NEURON_IOCTL_FW_READ, &r);
	err = errno;
	ms = now_ms() - t0;
	close(fd);
	if (ret) {
		printf("fwread: %s %ld ms\n", errname(err), ms);
		return 1;
	}
	for (i = 0; i < (int)r.count; i++)
		printf("0x%08x\n", r.value[i]);
	fprintf(stderr, "fwread: %ld ms\n", ms);
	return 0;
}

static int cmd_power(char **argv)
{
	struct neuron_fw_power_profile p;
	long t0;
	int fd, ret, err;

	fd = open_dev(argv[0]);
	if (fd < 0)
		return 1;
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.profile = strtoul(argv[1], NULL, 0);
	t0 = now_ms();
	ret = ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p);
	err = errno;
	close(fd);
	if (ret) {
		printf("power: %s %ld ms\n", errname(err), now_ms() - t0);
		return 1;
	}
	return 0;
}

static int exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

static int create(const char *dir, const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* wait for DIR/NAME, at most 120 s (the shell side bounds its own steps) */
static int wait_file(const char *dir, const char *name)
{
	long t0 = now_ms();

	while (!exists(dir, name)) {
		if (now_ms() - t0 > 120000) {
			printf("hold: %s/%s never appeared\n", dir, name);
			return -1;
		}
		usleep(10000);
	}
	return 0;
}

#define HOLD_CHECK(cond, ...)                  \
	do {                                   \
		if (!(cond)) {                 \
			printf("hold: " __VA_ARGS__); \
			printf("\n");          \
			return 1;              \
		}                              \
	} while (0)

static int cmd_hold(char **argv)
{
	struct neuron_nds_acquire a, b;
	struct neuron_nq_init q;
	struct neuron_info info;
	volatile uint64_t *slab;
	void *ring = MAP_FAILED, *m;
	const char *dir = argv[1];
	char buf[8];
	int fd;

	fd = open_dev(argv[0]);
	if (fd < 0)
		return 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	HOLD_CHECK(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a) == 0, "NDS_ACQUIRE: %s", strerror(errno));
	slab = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	HOLD_CHECK(slab != MAP_FAILED, "slab mmap: %s", strerror(errno));
	slab[0] = 42;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.nc = 0;
	q.nq_type = NEURON_NQ_TYPE_ERROR;
	q.ring_size = 4096;
	if (ioctl(fd, NEURON_IOCTL_NQ_INIT, &q) == 0) {
		ring = mmap(NULL, q.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    q.mmap_offset);
		HOLD_CHECK(ring != MAP_FAILED, "ring mmap: %s", strerror(errno));
	}
	printf("hold: slab mapped, ring %s\n", ring == MAP_FAILED ? "none" : "mapped");
	fflush(stdout);
	HOLD_CHECK(create(dir, "ready") == 0, "cannot create %s/ready", dir);
	if (wait_file(dir, "gone"))
		return 1;
	HOLD_CHECK(get_info(fd, &info) == -1 && errno == ENODEV, "GET_INFO after removal: %s",
		   strerror(errno));
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	HOLD_CHECK(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &b) == -1 && errno == ENODEV,
		   "NDS_ACQUIRE after removal: %s", strerror(errno));
	HOLD_CHECK(read(fd, buf, sizeof(buf)) == -1 && errno == ENODEV, "read after removal: %s",
		   strerror(errno));
	m = mmap(NULL, a.mmap_size, PROT_READ, MAP_SHARED, fd, a.mmap_offset);
	HOLD_CHECK(m == MAP_FAILED && errno == ENODEV, "mmap after removal: %s", strerror(errno));
	HOLD_CHECK(slab[0] == 42, "the old slab mapping reads %llu", (unsigned long long)slab[0]);
	HOLD_CHECK(create(dir, "checked") == 0, "cannot create %s/checked", dir);
	if (wait_file(dir, "release"))
		return 1;
	/* still the removed device's file, even with a new device at the same N */
	HOLD_CHECK(get_info(fd, &info) == -1 && errno == ENODEV, "GET_INFO on the old file: %s",
		   strerror(errno));
	HOLD_CHECK(munmap((void *)slab, a.mmap_size) == 0, "munmap slab");
	if (ring != MAP_FAILED)
		HOLD_CHECK(munmap(ring, q.mmap_size) == 0, "munmap ring");
	HOLD_CHECK(close(fd) == 0, "close: %s", strerror(errno));
	printf("hold: ok\n");
	return 0;
}

static int cmd_ndsver(char **argv)
{
	struct neuron_nds_acquire a;
	volatile uint64_t *slab;
	char post[96];
	int fd, n, i;

	fd = open_dev(argv[0]);
	if (fd < 0)
		return 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &a)) {
		printf("ndsver: NDS_ACQUIRE: %s\n", errname(errno));
		return 1;
	}
	slab = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	if (slab == MAP_FAILED) {
		printf("ndsver: mmap: %s\n", errname(errno));
		return 1;
	}
	for (i = 0; i < 3; i++)
		slab[neuron_nds_nd_offset(NDS_ND_COUNTER_RUNTIME_VERSION + i) / 8] =
			strtoull(argv[1 + i], NULL, 0);
	n = atoi(argv[4]);
	snprintf(post, sizeof(post), "/sys/kernel/debug/neuron/neuron%s/fw/post_now", argv[0]);
	for (i = 0; i < n; i++) {
		int pfd = open(post, O_WRONLY | O_CLOEXEC);

		if (pfd < 0 || write(pfd, "1", 1) != 1) {
			printf("ndsver: post %d: %s\n", i, errname(errno));
			return 1;
		}
		close(pfd);
	}
	munmap((void *)slab, a.mmap_size);
	close(fd);
	printf("ndsver: ok\n");
	return 0;
}

static int cmd_ncreset(char **argv)
{
	struct neuron_ioctl_device_reset rq;
	struct neuron_ioctl_device_ready rd;
	struct neuron_core_reserve cr;
	unsigned long map = strtoul(argv[1], NULL, 0);
	unsigned int nc;
	int fd;

	fd = open_dev(argv[0]);
	if (fd < 0)
		return 1;
	for (nc = 0; nc < 32; nc++) {
		if (!(map & (1ul << nc)))
			continue;
		memset(&cr, 0, sizeof(cr));
		cr.size = sizeof(cr);
		cr.nc = nc;
		if (ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr)) {
			printf("ncreset: reserve %u: %s\n", nc, errname(errno));
			return 1;
		}
	}
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = (uint32_t)map;
	if (ioctl(fd, NEURON_IOCTL_NC_RESET, &rq)) {
		printf("ncreset: NC_RESET: %s\n", errname(errno));
		return 1;
	}
	memset(&rd, 0, sizeof(rd));
	rd.request_id = rq.request_id;
	if (ioctl(fd, NEURON_IOCTL_NC_RESET_READY, &rd)) {
		printf("ncreset: NC_RESET_READY: %s\n", errname(errno));
		return 1;
	}
	close(fd);
	printf("ncreset: result %d\n", rd.result);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "info"))
		return cmd_info(argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "fwread"))
		return cmd_fwread(argc - 2, argv + 2);
	if (argc == 4 && !strcmp(argv[1], "power"))
		return cmd_power(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return cmd_hold(argv + 2);
	if (argc == 7 && !strcmp(argv[1], "ndsver"))
		return cmd_ndsver(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "ncreset"))
		return cmd_ncreset(argv + 2);
	fprintf(stderr, "usage: vm_pci info|fwread|power|hold|ndsver|ncreset ... (see the source)\n");
	return 2;
}
