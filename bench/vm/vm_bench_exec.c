// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark: simulated jobs per second through nrt_sim_execute_ex()
 * with the error accounting (nrt_sim_exec_opts_t.account: the counter
 * bridge into the NDS slab, the time counters and latency histograms, and
 * the job time the driver answers with) on and off, in the same run, in
 * short alternating blocks, the best block of each (vm_bench_app.c says
 * why). Both drain and decode the error ring and fold the status.
 *
 *   vm_bench_exec [jobs per block] [rounds]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <nrt/nrt.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double jobs_per_s(int jobs, uint32_t account)
{
	nrt_sim_exec_opts_t o = { .duration_us = 0, .timeout_us = 0, .account = account };
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < jobs; i++) {
		NRT_STATUS st = nrt_sim_execute_ex(0, 0, &o, NULL);

		if (st != NRT_SUCCESS) {
			fprintf(stderr, "vm_bench_exec: job %d returned %s\n", i,
				nrt_get_status_as_str(st));
			exit(1);
		}
	}
	return jobs / ((double)(now_ns() - t0) / 1e9);
}

int main(int argc, char **argv)
{
	int jobs = argc > 1 ? atoi(argv[1]) : 250;
	int rounds = argc > 2 ? atoi(argv[2]) : 24;
	double on = 0, off = 0;
	int k;

	if (jobs < 1 || rounds < 1) {
		fprintf(stderr, "vm_bench_exec: jobs and rounds must be at least 1\n");
		return 2;
	}
	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS) {
		fprintf(stderr, "vm_bench_exec: nrt_init failed\n");
		return 1;
	}
	jobs_per_s(100, 1);	/* warm up: ring and slab mapped */
	for (k = 0; k < rounds; k++) {
		double a = jobs_per_s(jobs, 1), b = jobs_per_s(jobs, 0);

		on = a > on ? a : on;
		off = b > off ? b : off;
	}
	printf("jobs/s, error accounting on:  %10.0f\n", on);
	printf("jobs/s, error accounting off: %10.0f\n", off);
	printf("ratio on/off: %.2f\n", on / off);
	nrt_close();
	return 0;
}
