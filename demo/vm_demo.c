// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The demo workload: jobs with a fault mix on two simulated devices. Per
 * job it prints what was injected and the NRT_STATUS that came back, a live
 * sysfs counter while the process still runs, and at the end every sysfs
 * status counter that moved.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nrt/nrt.h>

#include "vmstatus.h"

#define STATUS_DIR "/sys/devices/virtual/neuron_device/neuron%d/neuron_core%d/stats/status"
#define NDEV 2
#define NNC 2

static uint64_t total(int dev, int nc, const char *attr)
{
	char path[256], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), STATUS_DIR "/%s/total", dev, nc, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strtoull(buf, NULL, 10);
}

static void inject(int dev, const char *knob, const char *what)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%d/inject/%s", dev, knob);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, what, strlen(what)) != (ssize_t)strlen(what))
		fprintf(stderr, "demo: cannot inject '%s' into %s\n", what, path);
	if (fd >= 0)
		close(fd);
}

struct job {
	int dev, nc;
	const char *knob;	/* NULL: a clean job */
	const char *arg;	/* "<nc> ..." */
	const char *knob2;	/* a second fault racing the first */
	const char *arg2;
	const char *label;
};

static const struct job jobs[] = {
	{ 0, 0, NULL, NULL, NULL, NULL, "nothing" },
	{ 0, 1, "tpb_error", "1 SEMAPHORE_ERROR", NULL, NULL, "TPB SEMAPHORE_ERROR" },
	{ 1, 0, "tpb_error", "0 FP_NAN", NULL, NULL, "TPB FP_NAN (numerical path disarmed)" },
	{ 1, 1, "hw_error", "1 hbm_ue", NULL, NULL, "HBM uncorrectable error" },
	{ 0, 0, "tpb_error", "0 MEMORY_ERROR", "hw_error", "0 nc_ue",
	  "TPB MEMORY_ERROR racing an NC SRAM UE" },
	{ 0, 1, "tpb_error", "1 SEQUENCER_NONFATAL", NULL, NULL, "TPB SEQUENCER_NONFATAL (transient)" },
	{ 1, 0, "nq_flood", "0 1500", NULL, NULL, "1500 notifications into a 1024-entry ring" },
	{ 1, 0, NULL, NULL, NULL, NULL, "nothing (the ring recovered)" },
	{ 0, 0, "hw_error", "0 dma_abort", NULL, NULL, "DMA abort" },
	{ 1, 1, "tpb_error", "1 PSUM_COLLISION", NULL, NULL, "TPB PSUM_COLLISION" },
	{ 0, 1, "hw_error", "1 repairable_hbm_ue", NULL, NULL, "repairable HBM UE" },
	{ 1, 1, "hang", "1", NULL, NULL, "a hang (timeout 300 ms)" },
	{ 0, 0, "hw_error", "0 collectives", NULL, NULL, "stuck collective" },
	{ 1, 0, "tpb_error", "0 SEQUENCER_FATAL", NULL, NULL, "TPB SEQUENCER_FATAL" },
};

int main(void)
{
	static uint64_t before[NDEV][NNC][VT_NSTATUS_ATTRS];
	nrt_sim_exec_opts_t o = { .duration_us = 20000, .timeout_us = 300000, .account = 1 };
	size_t j, a;
	int d, c;

	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0.0", NULL) != NRT_SUCCESS) {
		fprintf(stderr, "demo: nrt_init failed\n");
		return 1;
	}
	for (d = 0; d < NDEV; d++)
		for (c = 0; c < NNC; c++)
			for (a = 0; a < VT_NSTATUS_ATTRS; a++)
				before[d][c][a] = total(d, c, vt_status_attrs[a]);

	printf("%-4s %-12s %-40s %-34s %s\n", "job", "core", "injected", "NRT_STATUS",
		"live: execute_completed_with_error (all cores)");
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		const struct job *jb = &jobs[j];
		nrt_sim_exec_result_t res;
		NRT_STATUS st;
		uint64_t live = 0;
		char name[64];

		if (jb->knob)
			inject(jb->dev, jb->knob, jb->arg);
		if (jb->knob2)
			inject(jb->dev, jb->knob2, jb->arg2);
		st = nrt_sim_execute_ex(jb->dev, jb->nc, &o, &res);
		for (d = 0; d < NDEV; d++)
			for (c = 0; c < NNC; c++)
				live += total(d, c, "execute_completed_with_error");
		snprintf(name, sizeof(name), "%s (%u)", nrt_get_status_as_str(st), st);
		printf("%-4zu neuron%d/nc%d  %-40s %-34s %llu\n", j, jb->dev, jb->nc, jb->label, name,
		       (unsigned long long)live);
	}

	printf("\nsysfs status counters that moved (while this process is still alive):\n");
	for (d = 0; d < NDEV; d++)
		for (c = 0; c < NNC; c++)
			for (a = 0; a < VT_NSTATUS_ATTRS; a++) {
				uint64_t now = total(d, c, vt_status_attrs[a]);

				if (now != before[d][c][a])
					printf("  neuron%d/neuron_core%d/stats/status/%-28s +%llu\n", d, c,
					       vt_status_attrs[a],
					       (unsigned long long)(now - before[d][c][a]));
			}
	nrt_close();
	return 0;
}
