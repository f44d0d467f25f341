// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest helper for 40_genl.sh: run one simulated job through libnrt, so
 * the counter bridge folds what the job's error ring said.
 *   vm_genl_job <device> <nc>
 * Prints the job's NRT_STATUS; exits 0 when the job ran (whatever its
 * status), 1 when libnrt could not start.
 */
#include <stdio.h>
#include <stdlib.h>

#include <nrt/nrt.h>

int main(int argc, char **argv)
{
	NRT_STATUS st;

	if (argc != 3) {
		fprintf(stderr, "usage: vm_genl_job <device> <nc>\n");
		return 2;
	}
	st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL);
	if (st != NRT_SUCCESS) {
		fprintf(stderr, "vm_genl_job: nrt_init: %d\n", (int)st);
		return 1;
	}
	st = nrt_sim_execute((uint32_t)strtoul(argv[1], NULL, 0),
			     (uint32_t)strtoul(argv[2], NULL, 0), 0);
	printf("status %d\n", (int)st);
	nrt_close();
	return 0;
}
