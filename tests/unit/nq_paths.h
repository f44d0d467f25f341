/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ring tests' runs once per drain path (test_nq_equiv.c,
 * test_nq_ring.c). Include after <cmocka.h> and <nrt/nrt_nq.h>.
 */
#ifndef NQ_PATHS_H
#define NQ_PATHS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuron/neuron_nq.h>

/*
 * The drain's paths (LIBNRT_NQ_ISA, read when a queue is attached): the
 * suite runs once per path the CPU has, so the scalar code and each vector
 * code are checked alike.
 */
static int isa_runs(const char *isa)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (!strcmp(isa, "avx2"))
		return __builtin_cpu_supports("avx2");
	if (!strcmp(isa, "avx512"))
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
	return !strcmp(isa, "scalar");
}

/* Whether a queue attached now (16-byte aligned) takes path @isa. */
static int path_is(const char *isa)
{
	size_t map_size = NEURON_NQ_RING_OFFSET + 16 * NEURON_NQ_ENTRY_SIZE;
	uint8_t *map = aligned_alloc(64, map_size);
	nrt_nq_t *q = NULL;
	int ok = 0;

	if (!map)
		return 0;
	memset(map, 0, map_size);
	((struct neuron_nq_ctrl *)map)->entries = 16;
	if (nrt_nq_attach_memory(map, map_size, &q) == 0) {
		ok = !strcmp(nrt_nq_path(q), isa);
		nrt_nq_close(q);
	}
	free(map);
	return ok;
}

static int run_per_isa(const char *suite, const struct CMUnitTest *tests, size_t n)
{
	static const char *const isas[] = { "scalar", "avx2", "avx512" };
	char name[64];
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
		if (!isa_runs(isas[i])) {
			print_message("# %s: this CPU has no %s; that path is not run here\n", suite,
				      isas[i]);
			continue;
		}
		setenv("LIBNRT_NQ_ISA", isas[i], 1);
		snprintf(name, sizeof(name), "%s_%s", suite, isas[i]);
		if (!path_is(isas[i])) {
			print_message("not ok - %s: a queue attached now takes another path\n", name);
			rc = 1;
			continue;
		}
		rc |= _cmocka_run_group_tests(name, tests, n, NULL, NULL);
	}
	return rc;
}

#endif /* NQ_PATHS_H */
