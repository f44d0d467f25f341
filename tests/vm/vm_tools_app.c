// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest workload for 41_tools.sh: an application as neuron-ls and
 * neuron-monitor see it. nrt_init (every device; it reserves the
 * NeuronCores NEURON_RT_VISIBLE_CORES names, every one without it, as in
 * the SDK: the suites name the one it runs on), then <jobs> jobs on
 * NeuronCore <nc> of <device>; prints one line per job's NRT_STATUS and
 * "ready <pid>", then holds the devices until stdin reaches EOF, so the
 * tools can list and read it while it runs; then [after] more jobs, each
 * status printed the same way (the NeuronCore may have been taken back).
 *   vm_tools_app <device> <nc> <jobs> [after]
 * Exit 0 when every job ran (whatever its status), 1 when libnrt failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <nrt/nrt.h>

int main(int argc, char **argv)
{
	unsigned long dev, nc, jobs, after = 0, i;
	NRT_STATUS st;
	char buf[64];

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: vm_tools_app <device> <nc> <jobs> [after]\n");
		return 2;
	}
	if (argc == 5)
		after = strtoul(argv[4], NULL, 0);
	dev = strtoul(argv[1], NULL, 0);
	nc = strtoul(argv[2], NULL, 0);
	jobs = strtoul(argv[3], NULL, 0);
	st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL);
	if (st != NRT_SUCCESS) {
		fprintf(stderr, "vm_tools_app: nrt_init: %d\n", (int)st);
		return 1;
	}
	for (i = 0; i < jobs; i++) {
		st = nrt_sim_execute((uint32_t)dev, (uint32_t)nc, 1000);
		printf("status %d\n", (int)st);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < after; i++) {
		st = nrt_sim_execute((uint32_t)dev, (uint32_t)nc, 1000);
		printf("status %d\n", (int)st);
	}
	nrt_close();
	return 0;
}
