// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device-memory granule allocator (common/neuron_mem_range.c):
 * first fit, exhaustion is -ENOMEM and changes nothing, frees of runs that
 * are not allocated are refused, partial last words, and a randomised run
 * against a shadow array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "neuron_mem_range.h"

#define MAXG 1000

static uint64_t bits[(MAXG + 63) / 64];

static void test_granules(void **state)
{
	(void)state;
	assert_int_equal(neuron_mem_range_granules(0), 0);
	assert_int_equal(neuron_mem_range_granules(1), 1);
	assert_int_equal(neuron_mem_range_granules(4096), 1);
	assert_int_equal(neuron_mem_range_granules(4097), 2);
	assert_int_equal(neuron_mem_range_granules(UINT64_MAX), 0);
	assert_int_equal(neuron_mem_range_granules((uint64_t)UINT32_MAX * 4096), UINT32_MAX);
	assert_int_equal(neuron_mem_range_granules((uint64_t)UINT32_MAX * 4096 + 1), 0);
}

static void test_first_fit_and_exhaustion(void **state)
{
	struct neuron_mem_range r;
	uint32_t a, b, c, d;

	(void)state;
	neuron_mem_range_init(&r, bits, 100);
	assert_int_equal(r.free, 100);
	assert_int_equal(neuron_mem_range_alloc(&r, 10, &a), 0);
	assert_int_equal(a, 0);
	assert_int_equal(neuron_mem_range_alloc(&r, 20, &b), 0);
	assert_int_equal(b, 10);
	assert_int_equal(neuron_mem_range_alloc(&r, 70, &c), 0);
	assert_int_equal(c, 30);
	assert_int_equal(r.free, 0);
	assert_int_equal(neuron_mem_range_alloc(&r, 1, &d), -ENOMEM);
	/* a hole of 20 takes 20, not 21 */
	assert_int_equal(neuron_mem_range_free(&r, b, 20), 0);
	assert_int_equal(neuron_mem_range_alloc(&r, 21, &d), -ENOMEM);
	assert_int_equal(r.free, 20);
	assert_int_equal(neuron_mem_range_alloc(&r, 5, &d), 0);
	assert_int_equal(d, 10);
	assert_int_equal(neuron_mem_range_alloc(&r, 15, &d), 0);
	assert_int_equal(d, 15);
	assert_int_equal(neuron_mem_range_alloc(&r, 0, &d), -ENOMEM);
}

static void test_bad_frees(void **state)
{
	struct neuron_mem_range r;
	uint32_t a;

	(void)state;
	neuron_mem_range_init(&r, bits, 130);
	assert_int_equal(neuron_mem_range_alloc(&r, 10, &a), 0);
	assert_int_equal(neuron_mem_range_free(&r, 0, 11), -EINVAL);	/* granule 10 is free */
	assert_int_equal(neuron_mem_range_free(&r, 5, 0), -EINVAL);
	assert_int_equal(neuron_mem_range_free(&r, 130, 1), -EINVAL);
	assert_int_equal(neuron_mem_range_free(&r, 129, 2), -EINVAL);
	assert_int_equal(neuron_mem_range_free(&r, 1, UINT32_MAX), -EINVAL);
	assert_int_equal(r.free, 120);
	assert_int_equal(neuron_mem_range_free(&r, 0, 10), 0);
	assert_int_equal(neuron_mem_range_free(&r, 0, 10), -EINVAL);	/* double free */
	assert_int_equal(r.free, 130);
	/* the tail of the last word is never handed out */
	assert_int_equal(neuron_mem_range_alloc(&r, 131, &a), -ENOMEM);
	assert_int_equal(neuron_mem_range_alloc(&r, 130, &a), 0);
	assert_int_equal(a, 0);
}

static void test_random_against_shadow(void **state)
{
	struct neuron_mem_range r;
	static uint8_t shadow[MAXG];
	struct { uint32_t start, n; } live[400];
	unsigned int nlive = 0, iter, i;
	uint32_t s, free_count = MAXG;

	(void)state;
	srand(1234);
	memset(shadow, 0, sizeof(shadow));
	neuron_mem_range_init(&r, bits, MAXG);
	for (iter = 0; iter < 20000; iter++) {
		if (nlive < 400 && (rand() % 2 || !nlive)) {
			uint32_t n = 1 + rand() % 40, run = 0, expect = UINT32_MAX;

			for (i = 0; i < MAXG; i++) {
				run = shadow[i] ? 0 : run + 1;
				if (run == n) {
					expect = i + 1 - n;
					break;
				}
			}
			if (expect == UINT32_MAX) {
				assert_int_equal(neuron_mem_range_alloc(&r, n, &s), -ENOMEM);
				continue;
			}
			assert_int_equal(neuron_mem_range_alloc(&r, n, &s), 0);
			assert_int_equal(s, expect);
			memset(shadow + s, 1, n);
			live[nlive].start = s;
			live[nlive++].n = n;
			free_count -= n;
		} else {
			i = rand() % nlive;
			assert_int_equal(neuron_mem_range_free(&r, live[i].start, live[i].n), 0);
			memset(shadow + live[i].start, 0, live[i].n);
			free_count += live[i].n;
			live[i] = live[--nlive];
		}
		assert_int_equal(r.free, free_count);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_granules),
		cmocka_unit_test(test_first_fit_and_exhaustion),
		cmocka_unit_test(test_bad_frees),
		cmocka_unit_test(test_random_against_shadow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
