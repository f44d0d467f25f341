/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the guest benchmarks share: the clock and the sysfs `total` read
 * both vm_bench_nds and vm_bench_scale time.
 */
#ifndef VMBENCH_H
#define VMBENCH_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* neuron0's NeuronCore 0 success total: a counter sysfs folds on each read */
#define VMBENCH_TOTAL \
	"/sys/devices/virtual/neuron_device/neuron0/neuron_core0/stats/status/success/total"

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds one open + read + close of VMBENCH_TOTAL takes, over @reads. */
static inline double read_total_ns(int reads)
{
	char buf[64];
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < reads; i++) {
		int fd = open(VMBENCH_TOTAL, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) {
			perror("read " VMBENCH_TOTAL);
			exit(1);
		}
		close(fd);
	}
	return (double)(now_ns() - t0) / reads;
}

#endif /* VMBENCH_H */
