// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark of the application API, ratios from one run:
 *   - nrt_execute() of an empty model (no tensors, run time 0) on
 *     NeuronCore 0 (NEURON_RT_VISIBLE_CORES=0) vs the raw job ioctl
 *     (NEURON_IOCTL_SIM_EXEC, duration 0, the ioctl nrt_execute() makes
 *     for a model without data) on NeuronCore 1, in pairs, each job
 *     timed on its own, the median of each (vmbench.h); beside them, in
 *     short blocks (the best of each), the raw SIM_EXEC_MODEL ioctl (a
 *     model with data) and the cost of one clock read (what timing a job
 *     in the library would cost: a vDSO call on the TSC, a system call
 *     and an HPET read in a TCG guest booted without tsc=reliable; libnrt
 *     takes the job's time from the driver instead);
 *   - the floors, in pairs on NeuronCore 1 (vmfloor.h): a compare-and-swap
 *     lock, the raw job, the ring's two control words and the
 *     accounting's five atomic adds against the raw job alone (the best
 *     nrt_execute/raw ratio any library that locks the NeuronCore and
 *     counts exactly can reach here), and the raw job against itself
 *     (the median noise of the pairs when both sides are the same);
 *   - device tensor write + read (nrt_tensor_write/read: through the
 *     allocation's mapping), and the MEM_WRITE/READ ioctls of the same
 *     size (a system call and a copy through the driver per access), both
 *     against memcpy of the same bytes there and back.
 *
 *   vm_bench_app [NEFF] [pairs] [rounds]
 *
 * Without NEFF it packs an empty model with the neff-pack beside it.
 * Expects the module loaded with a simulated device.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <nrt/nrt.h>

#include "vmbench.h"
#include "vmfloor.h"

#define TENSOR_BYTES (1u << 20)
#define ROUNDS 64
#define JOB_PAIRS 20000
/*
 * The two informational figures: blocks of JOB_BLOCK, JOB_ROUNDS of each
 * in turn, the best block of each.
 */
#define JOB_BLOCK 250
#define JOB_ROUNDS 24

/* the two sides of the pairs: the model, and the raw job (vmfloor.h) */
struct jobs {
	nrt_model_t *m;
	struct vf_ctx raw;
};

static int job_api(void *ctx)
{
	struct jobs *j = ctx;
	NRT_STATUS st = nrt_execute(j->m, NULL, NULL);

	if (st != NRT_SUCCESS)
		fprintf(stderr, "vm_bench_app: nrt_execute: %s\n", nrt_get_status_as_str(st));
	return st != NRT_SUCCESS;
}

static int job_raw(void *ctx)
{
	struct jobs *j = ctx;

	return vf_raw(&j->raw);
}

static int die(const char *what, NRT_STATUS st)
{
	fprintf(stderr, "vm_bench_app: %s: %s\n", what, nrt_get_status_as_str(st));
	return 1;
}

int main(int argc, char **argv)
{
	const char *neff = argc > 1 ? argv[1] : NULL;
	int pairs = argc > 2 ? atoi(argv[2]) : JOB_PAIRS, jobs = JOB_BLOCK;
	int rounds = argc > 3 ? atoi(argv[3]) : ROUNDS;
	char packed[] = "/tmp/vm_bench_app.neff", cmd[512];
	struct neuron_sim_exec raw = { .size = sizeof(raw), .nc = 1 };
	nrt_tensor_t *t = NULL;
	nrt_model_t *m = NULL;
	struct neuron_sim_exec_model rawm = { .size = sizeof(rawm), .nc = 1 };
	double api_ns = 1e30, raw_ns = 1e30, rawm_ns = 1e30, clk_ns = 1e30, api_mbs = 0, cpy_mbs = 0;
	double ioctl_mbs = 0, floor_ns = 0, floor_raw_ns = 1, self_a_ns = 0, self_b_ns = 1;
	struct neuron_mem_alloc alloc = { 0 };
	struct neuron_mem_rw rw = { 0 };
	char clocksource[32] = "?";
	FILE *cs;
	uint8_t *buf, *back, *host;
	size_t size = 0;
	NRT_STATUS st;
	void *bytes;
	int fd, i, k;

	if (pairs < 2 || rounds < 1) {
		fprintf(stderr, "vm_bench_app: at least 2 pairs and 1 round\n");
		return 2;
	}
	if (!neff) {
		char self[256];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			return 1;
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(cmd, sizeof(cmd), "%s/neff-pack -o %s --name empty", self, packed);
		if (system(cmd) != 0) {
			fprintf(stderr, "vm_bench_app: '%s' failed\n", cmd);
			return 1;
		}
		neff = packed;
	}
	bytes = vb_slurp(neff, &size);
	if (!bytes) {
		fprintf(stderr, "vm_bench_app: cannot read %s\n", neff);
		return 1;
	}
	/*
	 * libnrt gets NeuronCore 0 only, as an SDK user gives a runtime its
	 * cores (without the variable nrt_init() reserves every NeuronCore);
	 * NeuronCore 1 is the raw path's, reserved by its first job.
	 */
	setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
	st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL);
	if (st != NRT_SUCCESS)
		return die("nrt_init", st);
	st = nrt_load(bytes, size, 0, -1, &m);
	free(bytes);
	if (st != NRT_SUCCESS)
		return die("nrt_load", st);
	fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("vm_bench_app: /dev/neuron0");
		return 1;
	}

	/* warm up both paths (error ring mapped, core reserved) */
	for (i = 0; i < 50; i++)
		if (nrt_execute(m, NULL, NULL) != NRT_SUCCESS || ioctl(fd, NEURON_IOCTL_SIM_EXEC, &raw))
			return die("warm-up", NRT_FAILURE);
	/*
	 * nrt_execute against the raw ioctl, in pairs; then on the raw path's
	 * NeuronCore the floor (vmfloor.h), and raw against raw
	 */
	{
		struct jobs j = { .m = m };

		if (vf_open(&j.raw, fd, 1))
			return 1;
		if (vb_pair_medians(pairs, job_api, job_raw, &j, &api_ns, &raw_ns))
			return 1;
		for (i = 0; i < 50; i++)
			if (vf_locked(&j.raw))
				return die("warm-up", NRT_FAILURE);
		if (vb_pair_medians(pairs, vf_locked, vf_raw, &j.raw, &floor_ns, &floor_raw_ns) ||
		    vb_pair_medians(pairs, vf_raw, vf_raw, &j.raw, &self_a_ns, &self_b_ns))
			return 1;
		vf_close(&j.raw);
	}
	/* alternating blocks, the best of JOB_ROUNDS of each */
	for (k = 0; k < JOB_ROUNDS; k++) {
		uint64_t t2 = now_ns();

		/* the job ioctl of a model with data, and one clock read */
		for (i = 0; i < jobs; i++) {
			rawm.entries = rawm.dropped = 0;
			if (ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &rawm)) {
				perror("vm_bench_app: SIM_EXEC_MODEL");
				return 1;
			}
		}
		uint64_t t3 = now_ns();

		for (i = 0; i < jobs; i++)
			now_ns();
		uint64_t t4 = now_ns();

		if ((double)(t3 - t2) / jobs < rawm_ns)
			rawm_ns = (double)(t3 - t2) / jobs;
		if ((double)(t4 - t3) / jobs < clk_ns)
			clk_ns = (double)(t4 - t3) / jobs;
	}
	cs = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (cs) {
		if (fscanf(cs, "%31s", clocksource) != 1)
			strcpy(clocksource, "?");
		fclose(cs);
	}

	buf = malloc(TENSOR_BYTES);
	back = malloc(TENSOR_BYTES);
	host = malloc(TENSOR_BYTES);
	if (!buf || !back || !host)
		return 1;
	memset(buf, 0x5a, TENSOR_BYTES);
	st = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, TENSOR_BYTES, "bench", &t);
	if (st != NRT_SUCCESS)
		return die("nrt_tensor_allocate", st);
	/* the MEM_WRITE/READ ioctl path, on an allocation of its own */
	alloc.size = sizeof(alloc);
	alloc.location = NEURON_MEM_LOC_DEVICE;
	alloc.category = NEURON_MEM_CAT_TENSORS;
	alloc.bytes = TENSOR_BYTES;
	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &alloc)) {
		perror("vm_bench_app: MEM_ALLOC");
		return 1;
	}
	rw.size = sizeof(rw);
	rw.handle = alloc.handle;
	rw.bytes = TENSOR_BYTES;
	for (k = 0; k < 3; k++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < rounds; i++) {
			rw.user_ptr = (uintptr_t)buf;
			if (ioctl(fd, NEURON_IOCTL_MEM_WRITE, &rw))
				return die("MEM_WRITE", NRT_FAILURE);
			rw.user_ptr = (uintptr_t)back;
			if (ioctl(fd, NEURON_IOCTL_MEM_READ, &rw))
				return die("MEM_READ", NRT_FAILURE);
		}
		uint64_t t1 = now_ns();
		double mb = 2.0 * rounds * TENSOR_BYTES / 1e6;

		if (mb / ((double)(t1 - t0) / 1e9) > ioctl_mbs)
			ioctl_mbs = mb / ((double)(t1 - t0) / 1e9);
	}
	for (k = 0; k < 3; k++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < rounds; i++) {
			if ((st = nrt_tensor_write(t, buf, 0, TENSOR_BYTES)) != NRT_SUCCESS)
				return die("nrt_tensor_write", st);
			if ((st = nrt_tensor_read(t, back, 0, TENSOR_BYTES)) != NRT_SUCCESS)
				return die("nrt_tensor_read", st);
		}
		uint64_t t1 = now_ns();

		for (i = 0; i < rounds; i++) {
			memcpy(host, buf, TENSOR_BYTES);
			__asm__ volatile("" ::"r"(host) : "memory");
			memcpy(back, host, TENSOR_BYTES);
			__asm__ volatile("" ::"r"(back) : "memory");
		}
		uint64_t t2 = now_ns();
		double mb = 2.0 * rounds * TENSOR_BYTES / 1e6;

		if (mb / ((double)(t1 - t0) / 1e9) > api_mbs)
			api_mbs = mb / ((double)(t1 - t0) / 1e9);
		if (mb / ((double)(t2 - t1) / 1e9) > cpy_mbs)
			cpy_mbs = mb / ((double)(t2 - t1) / 1e9);
	}
	if (memcmp(buf, back, TENSOR_BYTES)) {
		fprintf(stderr, "vm_bench_app: tensor read back differs\n");
		return 1;
	}

	printf("nrt_execute, empty model:   %10.2f us/job (median of %d)\n", api_ns / 1e3, pairs);
	printf("raw SIM_EXEC ioctl:         %10.2f us/job (median of %d, in pairs with the above)\n",
	       raw_ns / 1e3, pairs);
	printf("raw SIM_EXEC_MODEL ioctl:   %10.1f us/job (a model with data; empty ones use SIM_EXEC)\n",
	       rawm_ns / 1e3);
	printf("clock_gettime(MONOTONIC):   %10.1f us (clocksource %s; libnrt takes the driver's job time)\n",
	       clk_ns / 1e3, clocksource);
	printf("ratio nrt_execute/raw ioctl (time per job): %.3f\n", api_ns / raw_ns);
	printf("lock + raw job + ring check + five atomic adds + unlock: %.2f us/job (against %.2f raw)\n",
	       floor_ns / 1e3, floor_raw_ns / 1e3);
	printf("ratio nrt_execute/raw floor (a locked, exactly counted raw job / raw job, time per job): %.3f\n",
	       floor_ns / floor_raw_ns);
	printf("ratio raw/raw (the same job on both sides of the pairs: their median noise): %.3f\n",
	       self_a_ns / self_b_ns);
	printf("ratio clock read/raw ioctl (the price of timing a job): %.2f\n", clk_ns / raw_ns);
	printf("tensor write+read, 1 MiB:   %10.0f MB/s\n", api_mbs);
	printf("memcpy there and back:      %10.0f MB/s\n", cpy_mbs);
	printf("ratio tensor write+read/memcpy (throughput): %.3f\n", api_mbs / cpy_mbs);
	printf("MEM_WRITE+MEM_READ ioctls:  %10.0f MB/s\n", ioctl_mbs);
	printf("ratio MEM_WRITE+READ ioctls/memcpy (throughput; tensor I/O by system call): %.3f\n",
	       ioctl_mbs / cpy_mbs);
	nrt_tensor_free(&t);
	nrt_unload(m);
	nrt_close();
	close(fd);
	free(buf);
	free(back);
	free(host);
	return 0;
}
