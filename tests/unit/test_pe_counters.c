// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * common/neuron_pe_counters.c: the tensor engine's PE activity counters of
 * v2 and v3 at the vendor's BAR0 offsets, read in the vendor's order (the
 * high word of each counter first; per row group matmul, on v3 the
 * weight-load counter, the four fast weight-load counters, idle), and the
 * values pe_cntrs prints.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "neuron_fw_profile.h"
#include "neuron_pe_counters.h"

#define MAX_READS 128

struct fake_bar {
	uint64_t off[MAX_READS];
	unsigned int n;
	int fail_at;		/* the read that fails (-EIO), -1: none */
};

/* Every word reads as its own offset's low 24 bits (high words with a tag). */
static int fake_read(void *ctx, uint64_t off, uint32_t *val)
{
	struct fake_bar *b = ctx;

	if ((int)b->n == b->fail_at)
		return -EIO;
	if (b->n < MAX_READS)
		b->off[b->n] = off;
	b->n++;
	*val = (uint32_t)(off & 0xFFFFFF) | ((off & 4) ? 0x01000000u : 0);
	return 0;
}

static uint64_t fake_value(uint64_t lsb)
{
	return ((uint64_t)(((lsb + 4) & 0xFFFFFF) | 0x01000000u) << 32) | (lsb & 0xFFFFFF);
}

static void layouts(void **state)
{
	(void)state;
	assert_non_null(neuron_pe_layout_of(NEURON_FW_ARCH_V2));
	assert_non_null(neuron_pe_layout_of(NEURON_FW_ARCH_V3));
	assert_null(neuron_pe_layout_of(NEURON_FW_ARCH_V4));
	assert_null(neuron_pe_layout_of(NEURON_FW_ARCH_SIM));
}

/* v2 NeuronCore 0: 48 words, 12 a row group 0x140 apart, from 0x305B1108 to 0x305B15D4 */
static void v2_order(void **state)
{
	static const uint64_t rg0[12] = {
		0x305B1204, 0x305B1200,	/* mm */
		0x305B110C, 0x305B1108, 0x305B114C, 0x305B1148,	/* fast wl c0, c1 */
		0x305B118C, 0x305B1188, 0x305B11CC, 0x305B11C8,	/* fast wl c2, c3 */
		0x305B1214, 0x305B1210,	/* idle */
	};
	const struct neuron_pe_layout *l = neuron_pe_layout_of(NEURON_FW_ARCH_V2);
	uint64_t out[NEURON_PE_ROW_GROUPS][NEURON_PE_FIELDS], lo = ~0ull, hi = 0;
	struct fake_bar b = { .fail_at = -1 };
	unsigned int i, rg;

	(void)state;
	assert_int_equal(neuron_pe_read(l, 0, fake_read, &b, out), 0);
	assert_int_equal(b.n, 48);
	for (rg = 0; rg < 4; rg++)
		for (i = 0; i < 12; i++)
			assert_true(b.off[rg * 12 + i] == rg0[i] + rg * 0x140);
	for (i = 0; i < b.n; i++) {
		lo = b.off[i] < lo ? b.off[i] : lo;
		hi = b.off[i] > hi ? b.off[i] : hi;
	}
	assert_true(lo == 0x305B1108 && hi == 0x305B15D4);
	/* the values: mm and idle one counter each, wl the four fast ones summed */
	assert_true(out[0][NEURON_PE_MM] == fake_value(0x305B1200));
	assert_true(out[0][NEURON_PE_WL] == fake_value(0x305B1108) + fake_value(0x305B1148) +
					       fake_value(0x305B1188) + fake_value(0x305B11C8));
	assert_true(out[3][NEURON_PE_IDLE] == fake_value(0x305B1210 + 3 * 0x140));
	/* NeuronCore 1 at 0x30CB1100; there is no NeuronCore 2 */
	b.n = 0;
	assert_int_equal(neuron_pe_read(l, 1, fake_read, &b, out), 0);
	assert_true(b.off[0] == 0x30CB1204);
	assert_int_equal(neuron_pe_read(l, 2, fake_read, &b, out), -EINVAL);
}

/* v3: 56 words a NeuronCore, 14 a row group 0x1B0 apart: 0x06141108..0x0614179C */
static void v3_order(void **state)
{
	static const uint64_t rg0[14] = {
		0x061411C4, 0x061411C0,	/* mm */
		0x0614128C, 0x06141288,	/* wl (register group 8) */
		0x0614110C, 0x06141108, 0x0614113C, 0x06141138,	/* fast wl c0, c1 */
		0x0614116C, 0x06141168, 0x0614119C, 0x06141198,	/* fast wl c2, c3 */
		0x061411D4, 0x061411D0,	/* idle */
	};
	static const uint64_t base[8] = { 0x06141100, 0x062C1100, 0x06541100, 0x066C1100,
					  0x46141100, 0x462C1100, 0x46541100, 0x466C1100 };
	const struct neuron_pe_layout *l = neuron_pe_layout_of(NEURON_FW_ARCH_V3);
	uint64_t out[NEURON_PE_ROW_GROUPS][NEURON_PE_FIELDS], lo, hi;
	struct fake_bar b = { .fail_at = -1 };
	unsigned int i, rg, nc;

	(void)state;
	assert_int_equal(neuron_pe_read(l, 0, fake_read, &b, out), 0);
	assert_int_equal(b.n, 56);
	for (rg = 0; rg < 4; rg++)
		for (i = 0; i < 14; i++)
			assert_true(b.off[rg * 14 + i] == rg0[i] + rg * 0x1B0);
	assert_true(out[0][NEURON_PE_WL] == fake_value(0x06141288) + fake_value(0x06141108) +
					       fake_value(0x06141138) + fake_value(0x06141168) +
					       fake_value(0x06141198));
	for (nc = 0; nc < 8; nc++) {
		b.n = 0;
		assert_int_equal(neuron_pe_read(l, nc, fake_read, &b, out), 0);
		lo = ~0ull;
		hi = 0;
		for (i = 0; i < b.n; i++) {
			lo = b.off[i] < lo ? b.off[i] : lo;
			hi = b.off[i] > hi ? b.off[i] : hi;
		}
		assert_true(lo == base[nc] + 0x8 && hi == base[nc] + 0x69C);
	}
}

/* A failed read ends the read with its error. */
static void read_error(void **state)
{
	uint64_t out[NEURON_PE_ROW_GROUPS][NEURON_PE_FIELDS];
	struct fake_bar b = { .fail_at = 13 };

	(void)state;
	assert_int_equal(neuron_pe_read(neuron_pe_layout_of(NEURON_FW_ARCH_V2), 0, fake_read, &b,
					out), -EIO);
	assert_int_equal(b.n, 13);
}

/* Which BAR0 words are counters (and whose low word), and which are not. */
static void is_counter(void **state)
{
	const struct neuron_pe_layout *v2 = neuron_pe_layout_of(NEURON_FW_ARCH_V2);
	const struct neuron_pe_layout *v3 = neuron_pe_layout_of(NEURON_FW_ARCH_V3);
	uint64_t lsb = 0;

	(void)state;
	assert_true(neuron_pe_is_counter(v2, 0x305B1204, &lsb) && lsb == 0x305B1200);
	assert_true(neuron_pe_is_counter(v2, 0x305B1210, &lsb) && lsb == 0x305B1210);
	assert_true(neuron_pe_is_counter(v2, 0x305B1100, &lsb) && lsb == 0x305B1100);
	assert_false(neuron_pe_is_counter(v2, 0x305B1118, &lsb));	/* past idle */
	assert_false(neuron_pe_is_counter(v2, 0x305B1202, &lsb));	/* unaligned */
	assert_false(neuron_pe_is_counter(v2, 0x305B10FC, &lsb));
	assert_false(neuron_pe_is_counter(v2, 0x305B1600, &lsb));	/* past row group 3 */
	assert_true(neuron_pe_is_counter(v2, 0x305B15D4, &lsb) && lsb == 0x305B15D0);
	assert_true(neuron_pe_is_counter(v3, 0x4614179C, &lsb) && lsb == 0x46141798);
	assert_false(neuron_pe_is_counter(v3, 0x305B1200, &lsb));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(v2_order),
		cmocka_unit_test(v3_order),
		cmocka_unit_test(read_error),
		cmocka_unit_test(is_counter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
