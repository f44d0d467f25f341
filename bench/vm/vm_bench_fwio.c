// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark: one FW-IO mailbox round trip (NEURON_IOCTL_FW_READ of
 * one MiscRAM word, answered by the simulated firmware's work item) against
 * the cheapest ioctl (NEURON_IOCTL_GET_INFO), in the same run, same fd.
 *
 *   vm_bench_fwio [N] [device]     (N round trips per pass, default 2000)
 *
 * Needs the module loaded with sim_devices >= 1 and root (FW_READ requires
 * CAP_SYS_ADMIN). Prints ns/op of each (best of 5 passes) and the ratio.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#define PASSES 5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fw_read_one(int fd)
{
	struct neuron_fw_read r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.count = 1;
	r.addr[0] = 0x000;	/* API_VERSION */
	return ioctl(fd, NEURON_IOCTL_FW_READ, &r) ? -errno : (r.value[0] ? 0 : -EIO);
}

static int get_info(int fd)
{
	struct neuron_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	return ioctl(fd, NEURON_IOCTL_GET_INFO, &info) ? -errno : 0;
}

/* best-of-PASSES ns/op, or a negative errno */
static double bench(int (*op)(int), int fd, unsigned int n)
{
	double best = 0;
	int p;

	for (p = 0; p < PASSES; p++) {
		uint64_t t0 = now_ns();
		unsigned int i;
		double ns;

		for (i = 0; i < n; i++) {
			int ret = op(fd);

			if (ret)
				return ret;
		}
		ns = (double)(now_ns() - t0) / n;
		if (!p || ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 2000;
	int dev = argc > 2 ? atoi(argv[2]) : 0;
	double fw, info;
	char path[32];
	int fd;

	if (!n)
		n = 1;
	snprintf(path, sizeof(path), "/dev/neuron%d", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vm_bench_fwio: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* warm up both paths (workqueue threads, caches) */
	bench(fw_read_one, fd, n / 10 + 1);
	bench(get_info, fd, n / 10 + 1);

	fw = bench(fw_read_one, fd, n);
	info = bench(get_info, fd, n);
	close(fd);
	if (fw < 0 || info < 0) {
		fprintf(stderr, "vm_bench_fwio: ioctl failed: %s\n",
			strerror((int)-(fw < 0 ? fw : info)));
		return 1;
	}
	printf("bench_fwio: %u round trips x %d passes, best pass\n", n, PASSES);
	printf("%-32s %12s\n", "operation", "ns/op");
	printf("%-32s %12.0f\n", "FW_READ (1 word, mailbox)", fw);
	printf("%-32s %12.0f\n", "GET_INFO (no firmware)", info);
	printf("%-32s %12.1f\n", "ratio FW_READ / GET_INFO", fw / info);
	return 0;
}
