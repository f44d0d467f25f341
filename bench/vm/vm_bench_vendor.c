// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark, the vendor's ioctl ABI against this driver's own, side
 * by side in one run (paired, medians: vmbench.h):
 *  - an NDS counter update through the mapping ACQUIRE_NEURON_DS hands
 *    out, against one through NDS_ACQUIRE's (the same slab);
 *  - a NeuronCore reservation and its release: CRWL_NC_RANGE_MARK and
 *    _UNMARK of one core, against CORE_RESERVE and CORE_RELEASE;
 *  - a job on a NeuronCore marked through the vendor's ABI, against one on
 *    a NeuronCore reserved through this driver's.
 * Each ratio is vendor/ours; the target is at most 1.05 (docs/performance.md).
 *
 *   vm_bench_vendor [pairs]
 *
 * Needs the module loaded with sim_devices >= 1 and 3 NeuronCores or more.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_vendor_ioctl.h>

#include "vmbench.h"

/* counter updates per timed job: one update is a few ns, the clock's read more */
#define UPDATES	64

struct ctx {
	int fd;
	_Atomic uint64_t *vendor_ctr, *own_ctr;
	unsigned int nc_vendor, nc_own;	/* the job pair's cores */
	unsigned int nc_free;		/* the reservation pair's core */
};

static int updates(_Atomic uint64_t *c)
{
	int i;

	for (i = 0; i < UPDATES; i++)
		atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
	return 0;
}

static int upd_vendor(void *p)
{
	return updates(((struct ctx *)p)->vendor_ctr);
}

static int upd_own(void *p)
{
	return updates(((struct ctx *)p)->own_ctr);
}

static int reserve_vendor(void *p)
{
	struct ctx *c = p;
	struct neuron_ioctl_crwl_nc_map m = {
		.nc_count = 1, .start_nc_index = c->nc_free, .end_nc_index = c->nc_free,
	};

	if (ioctl(c->fd, NEURON_IOCTL_CRWL_NC_RANGE_MARK, &m) || m.bitmap != 1ULL << c->nc_free) {
		perror("range mark");
		return 1;
	}
	if (ioctl(c->fd, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK, &m)) {
		perror("range unmark");
		return 1;
	}
	return 0;
}

static int reserve_own(void *p)
{
	struct ctx *c = p;
	struct neuron_core_reserve r = { .size = sizeof(r), .nc = c->nc_free };

	if (ioctl(c->fd, NEURON_IOCTL_CORE_RESERVE, &r) || ioctl(c->fd, NEURON_IOCTL_CORE_RELEASE, &r)) {
		perror("core reserve/release");
		return 1;
	}
	return 0;
}

static int job_on(int fd, unsigned int nc)
{
	struct neuron_sim_exec e = { .size = sizeof(e), .nc = nc };

	if (ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e)) {
		perror("SIM_EXEC");
		return 1;
	}
	return 0;
}

static int job_vendor(void *p)
{
	return job_on(((struct ctx *)p)->fd, ((struct ctx *)p)->nc_vendor);
}

static int job_own(void *p)
{
	return job_on(((struct ctx *)p)->fd, ((struct ctx *)p)->nc_own);
}

static void *map_slab(int fd, uint64_t off)
{
	void *m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);

	return m == MAP_FAILED ? NULL : m;
}

/* One pair of kinds: print both medians and the ratio; 0 or 1. */
static int measure(const char *what, int pairs, int (*vendor)(void *), int (*own)(void *),
		   struct ctx *c)
{
	struct vb_pairs p;
	double v, o;

	vb_pairs_init(&p, pairs);
	if (vb_pairs_run(&p, vendor, own, c))
		return 1;
	v = vb_median_ns(&p, p.a);
	o = vb_median_ns(&p, p.b);
	printf("%-28s vendor %10.1f ns   ours %10.1f ns   ratio vendor/ours %.3f (target <= 1.05)\n",
	       what, v, o, v / o);
	vb_pairs_free(&p);
	return 0;
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 20000;
	struct neuron_ioctl_neuron_ds_info ds = { 0 };
	struct neuron_nds_acquire own = { .size = sizeof(own) };
	struct neuron_ioctl_crwl_nc_map m = { .nc_count = 1, .start_nc_index = 0, .end_nc_index = 0 };
	struct neuron_core_reserve r = { .size = sizeof(r), .nc = 1 };
	struct ctx c = { .nc_vendor = 0, .nc_own = 1, .nc_free = 2 };
	uint8_t *vs, *os;
	uint64_t want;
	int rc = 0, i;

	if (pairs < 2) {
		fprintf(stderr, "vm_bench_vendor: at least 2 pairs\n");
		return 2;
	}
	c.fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);
	if (c.fd < 0) {
		perror("vm_bench_vendor: /dev/neuron0");
		return 1;
	}
	/* the same slab through both acquires, each mapped on its own */
	if (ioctl(c.fd, NEURON_IOCTL_ACQUIRE_NEURON_DS, &ds) || ioctl(c.fd, NEURON_IOCTL_NDS_ACQUIRE, &own)) {
		perror("vm_bench_vendor: acquire");
		return 1;
	}
	vs = map_slab(c.fd, ds.mmap_offset);
	os = map_slab(c.fd, own.mmap_offset);
	if (!vs || !os) {
		perror("vm_bench_vendor: mmap");
		return 1;
	}
	c.vendor_ctr = (_Atomic uint64_t *)(vs + neuron_nds_nc_offset(0, 0));
	c.own_ctr = (_Atomic uint64_t *)(os + neuron_nds_nc_offset(0, 0));
	/* core 0 marked through the vendor's ABI, core 1 reserved through ours */
	if (ioctl(c.fd, NEURON_IOCTL_CRWL_NC_RANGE_MARK, &m) || ioctl(c.fd, NEURON_IOCTL_CORE_RESERVE, &r)) {
		perror("vm_bench_vendor: reserve cores 0 and 1 (3 NeuronCores or more?)");
		return 1;
	}
	for (i = 0; i < 200; i++)	/* warm up: rings and caches */
		if (job_vendor(&c) || job_own(&c))
			return 1;

	rc |= measure("nds counter update x64", pairs, upd_vendor, upd_own, &c);
	want = 2ULL * UPDATES * (uint64_t)pairs;
	if (*c.own_ctr != want) {
		fprintf(stderr, "vm_bench_vendor: the slab counts %llu, expected %llu: not one slab\n",
			(unsigned long long)*c.own_ctr, (unsigned long long)want);
		rc = 1;
	}
	rc |= measure("core reserve + release", pairs / 4, reserve_vendor, reserve_own, &c);
	rc |= measure("job (empty)", pairs / 4, job_vendor, job_own, &c);
	munmap(vs, NEURON_NDS_SIZE);
	munmap(os, NEURON_NDS_SIZE);
	close(c.fd);
	return rc;
}
