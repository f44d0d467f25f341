// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark: simulated jobs through nrt_sim_execute_ex() with the
 * error accounting (nrt_sim_exec_opts_t.account: the counter bridge into
 * the NDS slab, the time counters and latency histograms, and the job
 * time the driver answers with) on and off, in pairs, each job timed on
 * its own (vmbench.h says why), the median of each. Both drain and
 * decode the error ring and fold the status.
 *
 * Then, on the same NeuronCore after nrt_close(), the floors (vmfloor.h):
 * what the raw job ioctl followed by the accounting's five atomic adds
 * costs more than the raw job alone, in pairs, and the on/off ratio the
 * jobs above would read if their accounting cost that and nothing else
 * (the best exact counters can give here); the same for the adds
 * without atomics.
 *
 *   vm_bench_exec [pairs]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <nrt/nrt.h>

#include "vmbench.h"
#include "vmfloor.h"

static int job(uint32_t account)
{
	nrt_sim_exec_opts_t o = { .duration_us = 0, .timeout_us = 0, .account = account };
	NRT_STATUS st = nrt_sim_execute_ex(0, 0, &o, NULL);

	if (st != NRT_SUCCESS) {
		fprintf(stderr, "vm_bench_exec: a job returned %s\n", nrt_get_status_as_str(st));
		return 1;
	}
	return 0;
}

static int job_on(void *ctx)
{
	(void)ctx;
	return job(1);
}

static int job_off(void *ctx)
{
	(void)ctx;
	return job(0);
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 20000;
	struct vf_ctx f;
	double on_ns, off_ns, raw_ns, adds_ns, extra_ns;
	int i;

	if (pairs < 2) {
		fprintf(stderr, "vm_bench_exec: at least 2 pairs\n");
		return 2;
	}
	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS) {
		fprintf(stderr, "vm_bench_exec: nrt_init failed\n");
		return 1;
	}
	for (i = 0; i < 500; i++)	/* warm up: ring and slab mapped */
		if (job(1))
			return 1;
	if (vb_pair_medians(pairs, job_on, job_off, NULL, &on_ns, &off_ns))
		return 1;
	printf("jobs/s, error accounting on:  %10.0f (median job %.2f us, %d pairs)\n", 1e9 / on_ns,
	       on_ns / 1e3, pairs);
	printf("jobs/s, error accounting off: %10.0f (median job %.2f us)\n", 1e9 / off_ns,
	       off_ns / 1e3);
	printf("ratio on/off: %.3f\n", off_ns / on_ns);
	nrt_close();

	/* the floors, on NeuronCore 0 now that the runtime let it go */
	if (vf_open(&f, -1, 0))
		return 1;
	for (i = 0; i < 500; i++)
		if (vf_adds(&f) || vf_plain(&f))
			return 1;
	if (vb_pair_medians(pairs, vf_adds, vf_raw, &f, &adds_ns, &raw_ns))
		return 1;
	extra_ns = adds_ns > raw_ns ? adds_ns - raw_ns : 0;
	printf("raw job ioctl:                %8.0f ns (median, %d pairs)\n", raw_ns, pairs);
	printf("  + five atomic adds:         %8.0f ns (%.0f ns more)\n", adds_ns, extra_ns);
	printf("ratio on/off floor, atomic adds (off / off + what five atomic adds add to a raw job, jobs/s): %.3f\n",
	       off_ns / (off_ns + extra_ns));
	if (vb_pair_medians(pairs, vf_plain, vf_raw, &f, &adds_ns, &raw_ns))
		return 1;
	extra_ns = adds_ns > raw_ns ? adds_ns - raw_ns : 0;
	printf("  + five plain adds:          %8.0f ns (%.0f ns more than %.0f ns)\n", adds_ns, extra_ns,
	       raw_ns);
	printf("ratio on/off floor, plain adds (off / off + what five plain adds add to a raw job, jobs/s): %.3f\n",
	       off_ns / (off_ns + extra_ns));
	vf_close(&f);
	return 0;
}
