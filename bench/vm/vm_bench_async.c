// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark of the asynchronous API (<nrt/nrt_async.h>), a ratio
 * from one run: jobs per second of executions scheduled on two queues, the
 * COMPUTE units of two NeuronCores (nrta_execute_schedule, each queue's
 * worker running its requests through nrt_execute, both queues' last
 * requests waited for with poll() on their completion handles), against
 * one caller making the same executions with nrt_execute, one after the
 * other, on one NeuronCore. The model copies 64 bytes and its execution
 * takes RUN_US on the simulated NeuronCore (milliseconds, as a model's
 * execution does), so the ratio says how much of two NeuronCores' time
 * the queues keep busy (2.0: both, all the time). Blocks of each in turn,
 * the best of ROUNDS blocks of each.
 *
 *   vm_bench_async [jobs per block] [rounds] [device time per execution, us]
 *
 * Packs its model with the neff-pack beside it. Expects the module loaded
 * with a simulated device of at least two NeuronCores; uses NeuronCores 0
 * and 1 (NEURON_RT_VISIBLE_CORES).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_async.h>

#include "vmbench.h"

#define RUN_US 5000
#define JOBS 60
#define ROUNDS 5
#define BYTES 64

struct lnc {
	nrt_model_t *m;
	nrt_tensor_t *in, *out;
	nrt_tensor_set_t *in_set, *out_set;
	nrta_error_tracker_t *err;
};

static int die(const char *what, NRT_STATUS st)
{
	fprintf(stderr, "vm_bench_async: %s: %s\n", what, nrt_get_status_as_str(st));
	return 1;
}

static NRT_STATUS setup(struct lnc *l, int vnc, const void *neff, size_t size)
{
	NRT_STATUS st;

	if ((st = nrt_load(neff, size, vnc, -1, &l->m)) != NRT_SUCCESS ||
	    (st = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, BYTES, "in", &l->in)) != NRT_SUCCESS ||
	    (st = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, BYTES, "out", &l->out)) != NRT_SUCCESS ||
	    (st = nrt_allocate_tensor_set(&l->in_set)) != NRT_SUCCESS ||
	    (st = nrt_allocate_tensor_set(&l->out_set)) != NRT_SUCCESS ||
	    (st = nrt_add_tensor_to_tensor_set(l->in_set, "in", l->in)) != NRT_SUCCESS ||
	    (st = nrt_add_tensor_to_tensor_set(l->out_set, "out", l->out)) != NRT_SUCCESS)
		return st;
	return nrta_error_tracker_create((uint32_t)vnc, &l->err);
}

/* @jobs executions on each of the two queues; 0 when all succeeded. */
static int async_block(struct lnc *l, int jobs)
{
	nrta_seq_t last[2];
	struct pollfd p[2];
	const nrta_error_t *errs;
	size_t n;
	int i, k, ready = 0;

	for (k = 0; k < jobs; k++)
		for (i = 0; i < 2; i++) {
			NRT_STATUS st = nrta_execute_schedule(l[i].m, l[i].in_set, l[i].out_set, 0, l[i].err,
							      &last[i]);
			if (st != NRT_SUCCESS)
				return die("nrta_execute_schedule", st);
		}
	for (i = 0; i < 2; i++) {
		p[i].events = POLLIN;
		p[i].revents = 0;
		if (nrta_get_completion_handle(last[i], &p[i].fd) != NRT_SUCCESS)
			return die("nrta_get_completion_handle", NRT_FAILURE);
	}
	while (ready < 2) {
		if (poll(p, 2, 60000) <= 0 && errno != EINTR) {
			fprintf(stderr, "vm_bench_async: the queues did not complete\n");
			return 1;
		}
		ready = !!(p[0].revents & POLLIN) + !!(p[1].revents & POLLIN);
	}
	close(p[0].fd);
	close(p[1].fd);
	for (i = 0; i < 2; i++) {
		if (nrta_error_tracker_get_list(l[i].err, &errs, &n) != NRT_SUCCESS || n) {
			fprintf(stderr, "vm_bench_async: %zu executions failed on NeuronCore %d\n", n, i);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int jobs = argc > 1 ? atoi(argv[1]) : JOBS, rounds = argc > 2 ? atoi(argv[2]) : ROUNDS;
	int run_us = argc > 3 ? atoi(argv[3]) : RUN_US;
	char packed[] = "/tmp/vm_bench_async.neff", cmd[512], self[256];
	struct lnc l[2] = { 0 };
	double sync_ns = 1e30, async_ns = 1e30;
	uint8_t buf[BYTES];
	size_t size = 0;
	ssize_t n;
	void *neff;
	int i, k;

	if (jobs < 1 || rounds < 1 || run_us < 0) {
		fprintf(stderr, "vm_bench_async: at least 1 job and 1 round, a device time of 0 or more\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "%s/neff-pack -o %s --name async --op copy --input in:%d --output out:%d --run-us %d",
		 self, packed, BYTES, BYTES, run_us);
	if (system(cmd) != 0) {
		fprintf(stderr, "vm_bench_async: '%s' failed\n", cmd);
		return 1;
	}
	neff = vb_slurp(packed, &size);
	if (!neff)
		return 1;
	setenv("NEURON_RT_VISIBLE_CORES", "0,1", 1);
	NRT_STATUS st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL);
	if (st != NRT_SUCCESS)
		return die("nrt_init", st);
	for (i = 0; i < 2; i++)
		if ((st = setup(&l[i], i, neff, size)) != NRT_SUCCESS)
			return die("setup", st);
	free(neff);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < 2; i++)
		if ((st = nrt_tensor_write(l[i].in, buf, 0, BYTES)) != NRT_SUCCESS)
			return die("nrt_tensor_write", st);
	/* warm up both paths (error rings mapped, workers started) */
	for (i = 0; i < 5; i++)
		if ((st = nrt_execute(l[0].m, l[0].in_set, l[0].out_set)) != NRT_SUCCESS)
			return die("nrt_execute", st);
	if (async_block(l, 5))
		return 1;

	for (k = 0; k < rounds; k++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < jobs; i++)
			if ((st = nrt_execute(l[0].m, l[0].in_set, l[0].out_set)) != NRT_SUCCESS)
				return die("nrt_execute", st);
		uint64_t t1 = now_ns();

		if (async_block(l, jobs))
			return 1;
		uint64_t t2 = now_ns();

		/* time per job: one caller's, and the two queues' together */
		if ((double)(t1 - t0) / jobs < sync_ns)
			sync_ns = (double)(t1 - t0) / jobs;
		if ((double)(t2 - t1) / (2.0 * jobs) < async_ns)
			async_ns = (double)(t2 - t1) / (2.0 * jobs);
	}
	for (i = 0; i < 2; i++) {
		uint8_t out[BYTES];

		if (nrt_tensor_read(l[i].out, out, 0, BYTES) != NRT_SUCCESS || memcmp(out, buf, BYTES)) {
			fprintf(stderr, "vm_bench_async: NeuronCore %d's output differs\n", i);
			return 1;
		}
	}
	printf("nrt_execute, one caller:        %10.1f us/job (%d us on the device; best of %d blocks of %d)\n",
	       sync_ns / 1e3, run_us, rounds, jobs);
	printf("nrta_execute_schedule, 2 queues: %9.1f us/job (both queues' jobs; %d on each)\n", async_ns / 1e3,
	       jobs);
	printf("ratio async jobs/s on two queues of two NeuronCores/one synchronous caller: %.3f\n",
	       sync_ns / async_ns);
	for (i = 0; i < 2; i++) {
		nrta_error_tracker_destroy(l[i].err);
		nrt_destroy_tensor_set(&l[i].in_set);
		nrt_destroy_tensor_set(&l[i].out_set);
		nrt_tensor_free(&l[i].in);
		nrt_tensor_free(&l[i].out);
		nrt_unload(l[i].m);
	}
	nrt_close();
	return 0;
}
