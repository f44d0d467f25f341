// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The decode chain: TPB error type -> INFER_ERROR_SUBTYPE -> flags ->
 * NRT_STATUS, hardware faults, overflow, malformed entries and the
 * numerical arming policy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <nrt/nrt_error_model.h>
#include <neuron/neuron_nq.h>

/* sunda_error_subtypes, as the seed gives it. */
static const int remap[12] = { 0, 1, 0, 0, 3, 4, 5, 6, 7, 2, 8, 0 };

/* Per TPB type: status when numerical is disarmed / armed. */
static const NRT_STATUS tpb_status_disarmed[11] = {
	NRT_SUCCESS,			/* FP_UNDERFLOW -> NONE */
	NRT_SUCCESS,			/* FP_NAN -> NUMERICAL, disarmed */
	NRT_SUCCESS,			/* FP_INF -> NONE */
	NRT_SUCCESS,			/* FP_OVERFLOW -> NONE */
	NRT_EXEC_COMPLETED_WITH_ERR,	/* MEMORY_ERROR */
	NRT_EXEC_COMPLETED_WITH_ERR,	/* FAKE_ERROR */
	NRT_EXEC_COMPLETED_WITH_ERR,	/* SEMAPHORE_ERROR */
	NRT_EXEC_COMPLETED_WITH_ERR,	/* EVENT_ERROR */
	NRT_EXEC_COMPLETED_WITH_ERR,	/* PSUM_COLLISION */
	NRT_SUCCESS,			/* SEQUENCER_NONFATAL -> TRANSIENT */
	NRT_EXEC_COMPLETED_WITH_ERR,	/* SEQUENCER_FATAL */
};

static const NRT_STATUS hw_status[6] = {
	NRT_SUCCESS, NRT_EXEC_HW_ERR_COLLECTIVES, NRT_EXEC_HW_ERR_HBM_UE,
	NRT_EXEC_HW_ERR_NC_UE, NRT_EXEC_HW_ERR_DMA_ABORT, NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE,
};

static const nrt_decode_config_t armed = { true };
static const nrt_decode_config_t disarmed = { false };

static struct neuron_nq_entry entry(uint8_t header, uint8_t error_id)
{
	struct neuron_nq_entry e;

	memset(&e, 0, sizeof(e));
	e.header = header;
	e.error_id = error_id;
	e.metadata_hi = 0xdeadbeef;
	e.timestamp_ps = 123456789;
	return e;
}

static void assert_flags_only(const nrt_infer_errors_t *e, int subtype)
{
	int i;

	for (i = 0; i < NRT_INFER_ERROR_SUBTYPE_MAX; i++)
		assert_int_equal(e->infer_error_flags[i], i == subtype);
}

static void layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(nrt_infer_errors_t), 24);
	assert_int_equal(offsetof(nrt_infer_errors_t, infer_error_flags), 0);
	assert_int_equal(offsetof(nrt_infer_errors_t, nq_overflow), 9);
	assert_int_equal(offsetof(nrt_infer_errors_t, hw_error_flags), 10);
	assert_int_equal(offsetof(nrt_infer_errors_t, entries), 16);
	assert_int_equal(offsetof(nrt_infer_errors_t, malformed), 20);
	assert_int_equal(NRT_INFER_ERROR_SUBTYPE_MAX, 9);
	assert_int_equal(NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR, 8);
	assert_int_equal(NRT_HW_FAULT_SLOTS, NEURON_NQ_HW_COUNT);
}

static void remap_entries(void **state)
{
	uint32_t i;

	(void)state;
	for (i = 0; i < 12; i++)
		assert_int_equal(nrt_decode_tpb_subtype(i), remap[i]);
	assert_int_equal(nrt_decode_tpb_subtype(12), -1);
	assert_int_equal(nrt_decode_tpb_subtype(255), -1);
	assert_int_equal(nrt_decode_tpb_subtype(UINT32_MAX), -1);
}

static void each_tpb_type(void **state)
{
	uint32_t t;

	(void)state;
	for (t = 0; t < NEURON_TPB_ERROR_COUNT; t++) {
		nrt_infer_errors_t e;
		struct neuron_nq_entry ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR, (uint8_t)t);
		NRT_STATUS want_armed = t == NEURON_TPB_ERROR_FP_NAN ?
			NRT_EXEC_COMPLETED_WITH_NUM_ERR : tpb_status_disarmed[t];

		/* through the accumulate call */
		memset(&e, 0xa5, sizeof(e));
		nrt_infer_errors_clear(&e);
		assert_int_equal(nrt_infer_errors_add_tpb(&e, t), 0);
		assert_flags_only(&e, remap[t]);
		assert_int_equal(e.entries, 1);
		assert_int_equal(e.malformed, 0);
		assert_int_equal(e.nq_overflow, 0);
		assert_int_equal(nrt_infer_errors_status(&e, &disarmed), tpb_status_disarmed[t]);
		assert_int_equal(nrt_infer_errors_status(&e, NULL), tpb_status_disarmed[t]);
		assert_int_equal(nrt_infer_errors_status(&e, &armed), want_armed);

		/* through a raw ring entry */
		nrt_infer_errors_clear(&e);
		assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
		assert_flags_only(&e, remap[t]);
		assert_int_equal(e.entries, 1);
		assert_int_equal(nrt_infer_errors_status(&e, &armed), want_armed);
	}
}

static void named_types(void **state)
{
	nrt_infer_errors_t e;

	(void)state;
	/* the enum names line up with the seed's lists */
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_FP_NAN),
			 NRT_INFER_ERROR_SUBTYPE_NUMERICAL);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_MEMORY_ERROR),
			 NRT_INFER_ERROR_SUBTYPE_MEMORY_ERROR);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_FAKE_ERROR),
			 NRT_INFER_ERROR_SUBTYPE_SW_FAKE_ERROR);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_SEMAPHORE_ERROR),
			 NRT_INFER_ERROR_SUBTYPE_SW_SEMAPHORE_ERROR);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_EVENT_ERROR),
			 NRT_INFER_ERROR_SUBTYPE_SW_EVENT_ERROR);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_PSUM_COLLISION),
			 NRT_INFER_ERROR_SUBTYPE_SW_PSUM_COLLISION_ERROR);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_SEQUENCER_NONFATAL),
			 NRT_INFER_ERROR_SUBTYPE_TRANSIENT);
	assert_int_equal(nrt_decode_tpb_subtype(NEURON_TPB_ERROR_SEQUENCER_FATAL),
			 NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR);

	/* TRANSIENT never fails the execution, armed or not */
	nrt_infer_errors_clear(&e);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_SEQUENCER_NONFATAL);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_SEQUENCER_NONFATAL);
	assert_int_equal(e.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_TRANSIENT], 1);
	assert_int_equal(e.entries, 2);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_SUCCESS);
}

static void hw_faults(void **state)
{
	uint32_t h;

	(void)state;
	for (h = NEURON_NQ_HW_COLLECTIVES; h < NEURON_NQ_HW_COUNT; h++) {
		nrt_infer_errors_t e;
		struct neuron_nq_entry ne = entry(NEURON_NQ_NOTIFIC_ERROR, (uint8_t)h);
		NRT_STATUS s = NRT_SUCCESS;
		uint32_t k;

		assert_true(nrt_decode_hw_error(h, &s));
		assert_int_equal(s, hw_status[h]);
		assert_true(nrt_decode_hw_error(h, NULL));

		nrt_infer_errors_clear(&e);
		assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
		for (k = 0; k < NRT_HW_FAULT_SLOTS; k++)
			assert_int_equal(e.hw_error_flags[k], k == h);
		assert_flags_only(&e, -1);
		assert_int_equal(e.entries, 1);
		assert_int_equal(nrt_infer_errors_status(&e, &disarmed), hw_status[h]);
		assert_int_equal(nrt_infer_errors_status(&e, &armed), hw_status[h]);

		nrt_infer_errors_clear(&e);
		assert_int_equal(nrt_infer_errors_add_hw(&e, h), 0);
		assert_int_equal(nrt_infer_errors_status(&e, NULL), hw_status[h]);
	}
	{
		NRT_STATUS s = NRT_TIMEOUT;

		assert_false(nrt_decode_hw_error(0, &s));
		assert_false(nrt_decode_hw_error(NEURON_NQ_HW_COUNT, &s));
		assert_false(nrt_decode_hw_error(UINT32_MAX, &s));
		assert_int_equal(s, NRT_TIMEOUT);
	}
}

static void overflow(void **state)
{
	nrt_infer_errors_t e;
	struct neuron_nq_entry ne;

	(void)state;
	/* overflow bit on an otherwise harmless entry */
	nrt_infer_errors_clear(&e);
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR | NEURON_NQ_HDR_SW_OVERFLOW,
		   NEURON_TPB_ERROR_FP_UNDERFLOW);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
	assert_int_equal(e.nq_overflow, 1);
	assert_int_equal(nrt_infer_errors_status(&e, &disarmed), NRT_EXEC_SW_NQ_OVERFLOW);

	/* 1204 (2) beats armed NaN 1003 (1) */
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_FP_NAN);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_EXEC_SW_NQ_OVERFLOW);
	/* and loses to 1004 (3) */
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_EVENT_ERROR);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_EXEC_COMPLETED_WITH_ERR);

	/* on a hardware-fault entry */
	nrt_infer_errors_clear(&e);
	ne = entry(NEURON_NQ_NOTIFIC_ERROR | NEURON_NQ_HDR_SW_OVERFLOW, NEURON_NQ_HW_DMA_ABORT);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
	assert_int_equal(e.nq_overflow, 1);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_HW_ERR_DMA_ABORT);

	/* recorded directly by the drainer */
	nrt_infer_errors_clear(&e);
	nrt_infer_errors_add_overflow(&e);
	nrt_infer_errors_add_overflow(NULL);
	assert_int_equal(e.nq_overflow, 1);
	assert_int_equal(e.entries, 0);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_SW_NQ_OVERFLOW);

	/* HW-overflow and phase bits are not interpreted */
	nrt_infer_errors_clear(&e);
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR | NEURON_NQ_HDR_HW_OVERFLOW | NEURON_NQ_HDR_PHASE,
		   NEURON_TPB_ERROR_FP_INF);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
	assert_int_equal(e.nq_overflow, 0);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_SUCCESS);
}

static void malformed(void **state)
{
	static const uint8_t bad_types[] = { 0x00, 0x01, NEURON_NQ_NOTIFIC_DMA, 0x04, 0x05,
					     0x10, 0x1e };
	nrt_infer_errors_t e;
	struct neuron_nq_entry ne;
	size_t i;

	(void)state;
	nrt_infer_errors_clear(&e);
	for (i = 0; i < sizeof(bad_types); i++) {
		ne = entry(bad_types[i] | NEURON_NQ_HDR_SW_OVERFLOW, NEURON_TPB_ERROR_MEMORY_ERROR);
		assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	}
	/* TPB error ids past the remap table (11 is in it), hardware ids 0 and past 5 */
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR | NEURON_NQ_HDR_SW_OVERFLOW, NRT_TPB_REMAP_COUNT);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR, 255);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	ne = entry(NEURON_NQ_NOTIFIC_ERROR, 0);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	ne = entry(NEURON_NQ_NOTIFIC_ERROR, NEURON_NQ_HW_COUNT);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	ne = entry(NEURON_NQ_NOTIFIC_ERROR | NEURON_NQ_HDR_SW_OVERFLOW, 200);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	/* an all-zero entry (type 0) */
	memset(&ne, 0, sizeof(ne));
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), -1);
	/* NULL entry is counted too */
	assert_int_equal(nrt_decode_nq_entry(&e, NULL), -1);
	assert_int_equal(e.malformed, sizeof(bad_types) + 7);

	/* a malformed entry contributes nothing else, not even its overflow bit */
	assert_int_equal(e.entries, 0);
	assert_int_equal(e.nq_overflow, 0);
	assert_flags_only(&e, -1);
	for (i = 0; i < NRT_HW_FAULT_SLOTS; i++)
		assert_int_equal(e.hw_error_flags[i], 0);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_SUCCESS);

	/* the accumulate calls count the same way */
	assert_int_equal(nrt_infer_errors_add_tpb(&e, NRT_TPB_REMAP_COUNT), -1);
	assert_int_equal(nrt_infer_errors_add_hw(&e, 0), -1);
	assert_int_equal(nrt_infer_errors_add_hw(&e, 6), -1);
	assert_int_equal(e.malformed, sizeof(bad_types) + 10);

	/* NULL accumulators */
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR, 1);
	assert_int_equal(nrt_decode_nq_entry(NULL, &ne), -1);
	assert_int_equal(nrt_infer_errors_add_tpb(NULL, 1), -1);
	assert_int_equal(nrt_infer_errors_add_hw(NULL, 1), -1);
	nrt_infer_errors_clear(NULL);
	assert_int_equal(nrt_infer_errors_status(NULL, &armed), NRT_SUCCESS);
}

/* The remap table's 12th entry: TPB error id 11 maps to NONE, so an entry
 * carrying it is accepted (counted, its overflow bit honoured) and sets no
 * flag: not malformed (seed table; docs/error-model.md). */
static void tpb_id_11_is_none(void **state)
{
	static const nrt_decode_config_t cfg = { true };
	nrt_infer_errors_t e;
	struct neuron_nq_entry ne;

	(void)state;
	nrt_infer_errors_clear(&e);
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR, 11);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
	assert_int_equal(e.entries, 1);
	assert_int_equal(e.malformed, 0);
	assert_int_equal(e.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_NONE], 1);
	assert_int_equal(nrt_infer_errors_status(&e, &cfg), NRT_SUCCESS);
	ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR | NEURON_NQ_HDR_SW_OVERFLOW, 11);
	assert_int_equal(nrt_decode_nq_entry(&e, &ne), 0);
	assert_int_equal(e.nq_overflow, 1);
	assert_int_equal(nrt_infer_errors_add_tpb(&e, 11), 0);
	assert_int_equal(e.entries, 3);
	assert_int_equal(e.malformed, 0);
}

static void saturation(void **state)
{
	nrt_infer_errors_t e;

	(void)state;
	nrt_infer_errors_clear(&e);
	e.entries = UINT32_MAX - 1;
	e.malformed = UINT32_MAX;
	nrt_infer_errors_add_tpb(&e, 4);
	nrt_infer_errors_add_tpb(&e, 4);
	nrt_infer_errors_add_tpb(&e, 99);
	assert_int_equal(e.entries, UINT32_MAX);
	assert_int_equal(e.malformed, UINT32_MAX);
	assert_int_equal(e.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_MEMORY_ERROR], 1);
}

/* Independent model of the collapse: hardware faults by slot order, then
 * 1004, then 1204, then armed 1003. */
static NRT_STATUS model_collapse(uint32_t tpb_mask, uint32_t hw_mask, int ovf, int is_armed)
{
	uint32_t h;

	for (h = 1; h <= 5; h++)
		if (hw_mask & (1u << h))
			return hw_status[h];
	if (tpb_mask & ((1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 10)))
		return NRT_EXEC_COMPLETED_WITH_ERR;
	if (ovf)
		return NRT_EXEC_SW_NQ_OVERFLOW;
	if (is_armed && (tpb_mask & (1u << 1)))
		return NRT_EXEC_COMPLETED_WITH_NUM_ERR;
	return NRT_SUCCESS;
}

static void combinations(void **state)
{
	uint32_t combo;

	(void)state;
	/* every subset of 11 TPB types x 5 faults x overflow, in ring order */
	for (combo = 0; combo < (1u << 17); combo++) {
		uint32_t tpb_mask = combo & 0x7ff;
		uint32_t hw_mask = ((combo >> 11) & 0x1f) << 1;
		int ovf = (combo >> 16) & 1;
		nrt_infer_errors_t e;
		uint32_t t, h, n = 0;

		nrt_infer_errors_clear(&e);
		for (h = 5; h >= 1; h--) {	/* reverse order: result must not care */
			if (hw_mask & (1u << h)) {
				struct neuron_nq_entry ne = entry(NEURON_NQ_NOTIFIC_ERROR, (uint8_t)h);

				nrt_decode_nq_entry(&e, &ne);
				n++;
			}
		}
		for (t = 0; t < 11; t++) {
			if (tpb_mask & (1u << t)) {
				struct neuron_nq_entry ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR, (uint8_t)t);

				nrt_decode_nq_entry(&e, &ne);
				n++;
			}
		}
		if (ovf)
			nrt_infer_errors_add_overflow(&e);
		assert_int_equal(e.entries, n);
		if (nrt_infer_errors_status(&e, &armed) != model_collapse(tpb_mask, hw_mask, ovf, 1) ||
		    nrt_infer_errors_status(&e, &disarmed) != model_collapse(tpb_mask, hw_mask, ovf, 0))
			fail_msg("collapse mismatch tpb=%#x hw=%#x ovf=%d", tpb_mask, hw_mask, ovf);
	}
}

static void collapse_examples(void **state)
{
	nrt_infer_errors_t e;

	(void)state;
	/* a specific hardware fault beats the generic 1004 at equal rank */
	nrt_infer_errors_clear(&e);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_MEMORY_ERROR);
	nrt_infer_errors_add_hw(&e, NEURON_NQ_HW_HBM_UE);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_HW_ERR_HBM_UE);
	/* lowest fault code first: unrepairable before repairable HBM */
	nrt_infer_errors_add_hw(&e, NEURON_NQ_HW_REPAIRABLE_HBM_UE);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_HW_ERR_HBM_UE);
	nrt_infer_errors_clear(&e);
	nrt_infer_errors_add_hw(&e, NEURON_NQ_HW_REPAIRABLE_HBM_UE);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_FAKE_ERROR);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE);
	/* armed NaN with a memory error -> 1004 */
	nrt_infer_errors_clear(&e);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_FP_NAN);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_MEMORY_ERROR);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_EXEC_COMPLETED_WITH_ERR);
	/* disarmed NaN: flag set, status unchanged */
	nrt_infer_errors_clear(&e);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_FP_NAN);
	assert_int_equal(e.infer_error_flags[NRT_INFER_ERROR_SUBTYPE_NUMERICAL], 1);
	assert_int_equal(nrt_infer_errors_status(&e, &disarmed), NRT_SUCCESS);
	/* nothing at all */
	nrt_infer_errors_clear(&e);
	assert_int_equal(nrt_infer_errors_status(&e, &armed), NRT_SUCCESS);
}

/* ---- arming policy ---------------------------------------------------- */

static void set_or_unset(const char *name, const char *value)
{
	if (value)
		assert_int_equal(setenv(name, value, 1), 0);
	else
		assert_int_equal(unsetenv(name), 0);
}

static void arming_env(void **state)
{
	static const struct {
		const char *fail_on_nan;
		const char *verbosity;
		bool armed;
	} rows[] = {
		{ NULL, NULL, false },		/* default: disarmed */
		{ NULL, "error", false },
		{ "1", NULL, true },
		{ "1", "error", true },
		{ "1", "none", false },
		{ "1", "NONE", false },
		{ "1", "None", false },
		{ "1", "", true },
		{ "1", "non\xd0\xb5", true },	/* Cyrillic e: not "none" */
		{ "1", "none ", true },
		{ "2", NULL, true },
		{ "-1", NULL, true },
		{ "+3", NULL, true },
		{ "007", NULL, true },
		{ "0", NULL, false },
		{ "00", NULL, false },
		{ "-0", NULL, false },
		{ "", NULL, false },
		{ "+", NULL, false },
		{ "true", NULL, false },
		{ "yes", NULL, false },
		{ "1x", NULL, false },
		{ " 1", NULL, false },
		{ "1 ", NULL, false },
		{ "0x1", NULL, false },
		{ "99999999999999999999999", NULL, true },
		{ "0", "none", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		nrt_decode_config_t c;

		set_or_unset("NEURON_FAIL_ON_NAN", rows[i].fail_on_nan);
		set_or_unset("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", rows[i].verbosity);
		c = nrt_decode_config_from_env();
		if (c.numerical_armed != rows[i].armed)
			fail_msg("row %zu: FAIL_ON_NAN=%s VERBOSITY=%s armed=%d", i,
				 rows[i].fail_on_nan ? rows[i].fail_on_nan : "(unset)",
				 rows[i].verbosity ? rows[i].verbosity : "(unset)",
				 c.numerical_armed);
		c = nrt_decode_config_parse(rows[i].fail_on_nan, rows[i].verbosity);
		assert_int_equal(c.numerical_armed, rows[i].armed);
	}
	unsetenv("NEURON_FAIL_ON_NAN");
	unsetenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY");
}

static void arming_end_to_end(void **state)
{
	nrt_infer_errors_t e;
	struct neuron_nq_entry ne = entry(NEURON_NQ_NOTIFIC_TPB_ERROR, NEURON_TPB_ERROR_FP_NAN);
	nrt_decode_config_t c;

	(void)state;
	nrt_infer_errors_clear(&e);
	nrt_decode_nq_entry(&e, &ne);

	unsetenv("NEURON_FAIL_ON_NAN");
	unsetenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY");
	c = nrt_decode_config_from_env();
	assert_int_equal(nrt_infer_errors_status(&e, &c), NRT_SUCCESS);

	setenv("NEURON_FAIL_ON_NAN", "1", 1);
	c = nrt_decode_config_from_env();
	assert_int_equal(nrt_infer_errors_status(&e, &c), NRT_EXEC_COMPLETED_WITH_NUM_ERR);

	setenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", "none", 1);
	c = nrt_decode_config_from_env();
	assert_int_equal(nrt_infer_errors_status(&e, &c), NRT_SUCCESS);

	unsetenv("NEURON_FAIL_ON_NAN");
	unsetenv("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout),
		cmocka_unit_test(remap_entries),
		cmocka_unit_test(each_tpb_type),
		cmocka_unit_test(named_types),
		cmocka_unit_test(hw_faults),
		cmocka_unit_test(overflow),
		cmocka_unit_test(malformed),
		cmocka_unit_test(tpb_id_11_is_none),
		cmocka_unit_test(saturation),
		cmocka_unit_test(combinations),
		cmocka_unit_test(collapse_examples),
		cmocka_unit_test(arming_env),
		cmocka_unit_test(arming_end_to_end),
	};
	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
