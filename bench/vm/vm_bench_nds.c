// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark, NDS: a counter update through the mapped slab against
 * the counter-add ioctl, and a sysfs "total" read with 16 live slabs against
 * 1, measured side by side in one run.
 *
 *   vm_bench_nds [updates] [reads]
 *
 * Needs the module loaded with sim_devices >= 1. Prints ns/op and ratios.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <nrt/nds/neuron_ds.h>

#include "vmbench.h"

int main(int argc, char **argv)
{
	int updates = argc > 1 ? atoi(argv[1]) : 200000;
	int reads = argc > 2 ? atoi(argv[2]) : 2000;
	ndl_device_t *dev = NULL;
	nds_instance_t *inst = NULL;
	struct neuron_nds_counter_add add;
	int go[2], hold[2], i, k;
	double mapped, ioc, one, sixteen;
	uint64_t t0, v = 0;
	pid_t kids[15];
	char c;

	if (ndl_open_device(0, NULL, &dev) || nds_open(dev, 0, &inst)) {
		fprintf(stderr, "vm_bench_nds: cannot open neuron0's slab\n");
		return 1;
	}

	/* best of 3 passes each, interleaved */
	mapped = ioc = 1e18;
	for (k = 0; k < 3; k++) {
		double m, x;

		t0 = now_ns();
		for (i = 0; i < updates; i++)
			nds_increment_nc_counter(inst, 0, NDS_NC_COUNTER_INFER_COMPLETED, 1);
		m = (double)(now_ns() - t0) / updates;
		memset(&add, 0, sizeof(add));
		add.size = sizeof(add);
		add.id = NDS_NC_COUNTER_INFER_COMPLETED;
		add.delta = 1;
		t0 = now_ns();
		for (i = 0; i < updates / 10; i++)
			if (ioctl(ndl_device_fd(dev), NEURON_IOCTL_NDS_COUNTER_ADD, &add)) {
				perror("counter add");
				return 1;
			}
		x = (double)(now_ns() - t0) / (updates / 10);
		mapped = m < mapped ? m : mapped;
		ioc = x < ioc ? x : ioc;
	}
	nds_get_nc_counter(inst, 0, NDS_NC_COUNTER_INFER_COMPLETED, &v);
	if (v != (uint64_t)3 * (updates + updates / 10)) {
		fprintf(stderr, "vm_bench_nds: counter %llu, expected %llu\n",
			(unsigned long long)v, (unsigned long long)3 * (updates + updates / 10));
		return 1;
	}
	printf("nds update, mapped slab:       %10.1f ns/op\n", mapped);
	printf("nds update, counter-add ioctl: %10.1f ns/op\n", ioc);
	printf("ratio ioctl/mapped: %.2f\n", ioc / mapped);

	one = read_total_ns(reads);
	if (pipe(go) || pipe(hold))
		return 1;
	for (i = 0; i < 15; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			ndl_device_t *d = NULL;
			nds_instance_t *s = NULL;

			close(hold[1]);
			if (ndl_open_device(0, NULL, &d) || nds_open(d, 0, &s))
				_exit(1);
			nds_increment_nc_counter(s, 0, NDS_NC_COUNTER_INFER_COMPLETED, 1);
			if (write(go[1], "g", 1) != 1)
				_exit(1);
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(hold[0]);
	close(go[1]);
	for (i = 0; i < 15; i++)
		if (read(go[0], &c, 1) != 1) {
			fprintf(stderr, "vm_bench_nds: a slab holder failed\n");
			return 1;
		}
	sixteen = read_total_ns(reads);
	close(hold[1]);
	for (i = 0; i < 15; i++)
		waitpid(kids[i], NULL, 0);
	/* 1 live slab measured before and after the 16, averaged */
	one = (one + read_total_ns(reads)) / 2;
	printf("sysfs total read, 1 live slab:   %10.1f ns/read\n", one);
	printf("sysfs total read, 16 live slabs: %10.1f ns/read\n", sixteen);
	printf("ratio 16slabs/1slab: %.2f\n", sixteen / one);
	nds_close(inst);
	ndl_close_device(dev);
	return 0;
}
