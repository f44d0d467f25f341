// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark: one FW-IO mailbox round trip (NEURON_IOCTL_FW_READ of
 * one MiscRAM word, answered by the simulated firmware) against
 * the cheapest ioctl (NEURON_IOCTL_GET_INFO), in the same run, same fd.
 *
 *   vm_bench_fwio [pairs] [device]     (default 5000 pairs, neuron0)
 *
 * The two run in pairs, the order alternating, each call timed on its own
 * with the cycle counter; each side's median counts (bench/vm/vmbench.h).
 * The best of 5 passes of each side, one after the other, is printed too
 * (at most 2000 calls a pass, fewer for fewer pairs): on a shared
 * machine it moved between 8.4 and 12.7 from run to run (2026-12-02, at
 * 953f572, where a work item served the requests; docs/performance.md).
 *
 * Needs the module loaded with sim_devices >= 1 and root (FW_READ requires
 * CAP_SYS_ADMIN).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#include "vmbench.h"

#define PASSES 5
#define PASS_CALLS_MAX 2000

static int fw_read_one(void *ctx)
{
	int fd = *(int *)ctx;
	struct neuron_fw_read r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.count = 1;
	r.addr[0] = 0x000;	/* API_VERSION */
	return ioctl(fd, NEURON_IOCTL_FW_READ, &r) ? -errno : (r.value[0] ? 0 : -EIO);
}

static int get_info(void *ctx)
{
	int fd = *(int *)ctx;
	struct neuron_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	return ioctl(fd, NEURON_IOCTL_GET_INFO, &info) ? -errno : 0;
}

/* best-of-PASSES ns/op of @n calls in a row, or a negative errno */
static double best_pass(int (*op)(void *), int *fd, unsigned int n)
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

static int fail(int err)
{
	fprintf(stderr, "vm_bench_fwio: ioctl failed: %s\n", strerror(-err));
	return 1;
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 5000;
	int dev = argc > 2 ? atoi(argv[2]) : 0;
	double fw, info, fw_pass, info_pass;
	struct vb_pairs p;
	char path[32];
	unsigned int pass_calls;
	int fd, ret;

	if (pairs < 2) {
		fprintf(stderr, "vm_bench_fwio: at least 2 pairs\n");
		return 2;
	}
	pass_calls = pairs < PASS_CALLS_MAX ? (unsigned int)pairs : PASS_CALLS_MAX;
	snprintf(path, sizeof(path), "/dev/neuron%d", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vm_bench_fwio: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* warm up both paths (the firmware's first requests, caches) */
	fw_pass = best_pass(fw_read_one, &fd, pass_calls / 10 + 1);
	info_pass = best_pass(get_info, &fd, pass_calls / 10 + 1);
	if (fw_pass < 0 || info_pass < 0)
		return fail((int)(fw_pass < 0 ? fw_pass : info_pass));

	vb_pairs_init(&p, pairs);
	ret = vb_pairs_run(&p, fw_read_one, get_info, &fd);
	if (ret)
		return fail(ret);
	fw = vb_median_ns(&p, p.a);
	info = vb_median_ns(&p, p.b);
	vb_pairs_free(&p);

	fw_pass = best_pass(fw_read_one, &fd, pass_calls);
	info_pass = best_pass(get_info, &fd, pass_calls);
	close(fd);
	if (fw_pass < 0 || info_pass < 0)
		return fail((int)(fw_pass < 0 ? fw_pass : info_pass));

	printf("bench_fwio: %d pairs, median of each side; then %d passes of %d, best\n", pairs,
	       PASSES, pass_calls);
	printf("%-32s %12s %12s\n", "operation", "median ns", "best pass ns");
	printf("%-32s %12.0f %12.0f\n", "FW_READ (1 word, mailbox)", fw, fw_pass);
	printf("%-32s %12.0f %12.0f\n", "GET_INFO (no firmware)", info, info_pass);
	printf("best passes: FW_READ / GET_INFO %.1f\n", fw_pass / info_pass);
	printf("%-32s %12.1f\n", "ratio FW_READ / GET_INFO", fw / info);
	return 0;
}
