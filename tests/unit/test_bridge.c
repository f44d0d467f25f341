// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Result -> NDS counter ids: generic, hardware, outcome, error stats, the
 * per-execution list, time counters and counter naming. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <nrt/nrt_error_model.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

/* CSWTCH.6 extended to the whole 0..15 band: -1 = no counter. */
static const int generic_low[16] = {
	-1,		/* 0 */
	16, 19, -1, 17, /* 1..4 */
	-1, -1, -1, -1, /* 5..8 */
	18, 20,		/* 9, 10 */
	-1, -1, -1, -1, -1, /* 11..15 */
};

static void generic_status(void **state)
{
	static const uint32_t others[] = { 16, 100, 101, 1002, 1003, 1004, 1005, 1006, 1100,
					   1200, 1204, 1206, 0x80000000u, UINT32_MAX };
	uint32_t s;
	size_t i;

	(void)state;
	for (s = 0; s < 16; s++)
		if (nrt_bridge_generic_status_counter((NRT_STATUS)s) != generic_low[s])
			fail_msg("generic(%u) = %d, want %d", s,
				 nrt_bridge_generic_status_counter((NRT_STATUS)s), generic_low[s]);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_int_equal(nrt_bridge_generic_status_counter((NRT_STATUS)others[i]), -1);
	/* names of the ids */
	assert_int_equal(nrt_bridge_generic_status_counter(NRT_FAILURE), NDS_NC_COUNTER_GENERIC_FAIL);
	assert_int_equal(nrt_bridge_generic_status_counter(NRT_INVALID), NDS_NC_COUNTER_ERR_INVALID);
	assert_int_equal(nrt_bridge_generic_status_counter(NRT_RESOURCE), NDS_NC_COUNTER_ERR_RESOURCE);
	assert_int_equal(nrt_bridge_generic_status_counter(NRT_LOAD_NOT_ENOUGH_NC),
			 NDS_NC_COUNTER_ERR_RESOURCE_NC);
	assert_int_equal(nrt_bridge_generic_status_counter(NRT_UNSUPPORTED_NEFF_VERSION),
			 NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION);
}

static void hw_status(void **state)
{
	static const struct {
		uint32_t s;
		int id;
	} rows[] = {
		{ 1199, -1 }, { 1200, 31 }, { 1201, 32 }, { 1202, 33 }, { 1203, 34 },
		{ 1204, 35 }, { 1205, 40 }, { 1206, -1 }, { 1207, -1 },
		{ 0, -1 }, { 6, -1 }, { 1004, -1 }, { UINT32_MAX, -1 },
	};
	size_t i;
	uint32_t s;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(nrt_bridge_hw_status_counter((NRT_STATUS)rows[i].s), rows[i].id);
	for (s = 0; s < 16; s++)
		assert_int_equal(nrt_bridge_hw_status_counter((NRT_STATUS)s), -1);
	assert_int_equal(nrt_bridge_hw_status_counter(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE),
			 NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE);
	assert_int_equal(nrt_bridge_hw_status_counter(NRT_EXEC_SW_NQ_OVERFLOW),
			 NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW);
}

static const struct {
	uint32_t s;
	int id;
} outcome_rows[] = {
	{ 0, 1 }, { 1, -1 }, { 2, -1 }, { 3, -1 }, { 4, -1 }, { 5, 4 }, { 6, 11 }, { 7, 6 },
	{ 8, -1 }, { 9, -1 }, { 10, -1 }, { 11, -1 }, { 12, -1 }, { 13, -1 }, { 14, -1 },
	{ 15, -1 }, { 16, -1 }, { 101, -1 }, { 1002, 5 }, { 1003, 3 }, { 1004, 2 },
	{ 1005, -1 }, { 1006, 30 }, { 1100, -1 }, { 1199, -1 }, { 1200, 2 }, { 1201, 2 },
	{ 1202, 2 }, { 1203, 2 }, { 1204, 2 }, { 1205, 2 }, { 1206, -1 }, { 1207, -1 },
	{ UINT32_MAX, -1 },
};

static void outcome(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(outcome_rows) / sizeof(outcome_rows[0]); i++)
		if (nrt_bridge_outcome_counter((NRT_STATUS)outcome_rows[i].s) != outcome_rows[i].id)
			fail_msg("outcome(%u) = %d, want %d", outcome_rows[i].s,
				 nrt_bridge_outcome_counter((NRT_STATUS)outcome_rows[i].s),
				 outcome_rows[i].id);
	assert_int_equal(nrt_bridge_outcome_counter(NRT_SUCCESS), NDS_NC_COUNTER_INFER_COMPLETED);
	assert_int_equal(nrt_bridge_outcome_counter(NRT_QUEUE_FULL),
			 NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE);
	assert_int_equal(nrt_bridge_outcome_counter(NRT_EXEC_OOB), NDS_NC_COUNTER_OOB);
	assert_int_equal(nrt_bridge_outcome_counter(NRT_HW_ERROR), NDS_NC_COUNTER_ERR_HW);
}

static void error_stats(void **state)
{
	nrt_infer_errors_t e;
	uint32_t ids[8];
	uint32_t sub;

	(void)state;
	for (sub = 0; sub < NRT_INFER_ERROR_SUBTYPE_MAX; sub++) {
		int n;

		memset(&e, 0, sizeof(e));
		e.infer_error_flags[sub] = 1;
		memset(ids, 0xff, sizeof(ids));
		n = nrt_bridge_error_stats_counters(&e, ids, 8);
		if (sub >= 5 && sub <= 8) {
			assert_int_equal(n, 1);
			assert_int_equal(ids[0], sub + 31);
		} else {
			assert_int_equal(n, 0);
			assert_int_equal(ids[0], UINT32_MAX);
		}
	}
	memset(&e, 0, sizeof(e));
	for (sub = 0; sub < NRT_INFER_ERROR_SUBTYPE_MAX; sub++)
		e.infer_error_flags[sub] = 1;
	assert_int_equal(nrt_bridge_error_stats_counters(&e, ids, 8), 4);
	assert_int_equal(ids[0], NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR);
	assert_int_equal(ids[1], NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR);
	assert_int_equal(ids[2], NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION);
	assert_int_equal(ids[3], NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL);
	/* short buffer: full count returned, only cap written */
	memset(ids, 0, sizeof(ids));
	assert_int_equal(nrt_bridge_error_stats_counters(&e, ids, 2), 4);
	assert_int_equal(ids[1], 37);
	assert_int_equal(ids[2], 0);
	assert_int_equal(nrt_bridge_error_stats_counters(&e, NULL, 0), 4);
	assert_int_equal(nrt_bridge_error_stats_counters(NULL, ids, 8), -1);
}

static size_t exec_ids(NRT_STATUS s, const nrt_infer_errors_t *e, uint32_t *ids)
{
	size_t n;

	memset(ids, 0xff, sizeof(uint32_t) * NRT_BRIDGE_MAX_EXEC_COUNTERS);
	n = nrt_bridge_counters_for_execution(s, e, ids, NRT_BRIDGE_MAX_EXEC_COUNTERS);
	assert_true(n <= NRT_BRIDGE_MAX_EXEC_COUNTERS);
	return n;
}

#define EXPECT_IDS(s, e, ...) do { \
	static const uint32_t want_[] = { __VA_ARGS__ }; \
	uint32_t got_[NRT_BRIDGE_MAX_EXEC_COUNTERS]; \
	size_t n_ = exec_ids((s), (e), got_), k_; \
	assert_int_equal(n_, sizeof(want_) / sizeof(want_[0])); \
	for (k_ = 0; k_ < n_; k_++) \
		assert_int_equal(got_[k_], want_[k_]); \
} while (0)

static void for_execution_status_only(void **state)
{
	uint32_t ids[NRT_BRIDGE_MAX_EXEC_COUNTERS];
	size_t i;

	(void)state;
	EXPECT_IDS(NRT_SUCCESS, NULL, 1);
	EXPECT_IDS(NRT_EXEC_COMPLETED_WITH_ERR, NULL, 2);
	EXPECT_IDS(NRT_EXEC_COMPLETED_WITH_NUM_ERR, NULL, 3);
	EXPECT_IDS(NRT_TIMEOUT, NULL, 4);
	EXPECT_IDS(NRT_EXEC_BAD_INPUT, NULL, 5);
	EXPECT_IDS(NRT_QUEUE_FULL, NULL, 6);
	EXPECT_IDS(NRT_HW_ERROR, NULL, 11);
	EXPECT_IDS(NRT_FAILURE, NULL, 16);
	EXPECT_IDS(NRT_RESOURCE, NULL, 17);
	EXPECT_IDS(NRT_LOAD_NOT_ENOUGH_NC, NULL, 18);
	EXPECT_IDS(NRT_INVALID, NULL, 19);
	EXPECT_IDS(NRT_UNSUPPORTED_NEFF_VERSION, NULL, 20);
	EXPECT_IDS(NRT_EXEC_OOB, NULL, 30);
	EXPECT_IDS(NRT_EXEC_HW_ERR_COLLECTIVES, NULL, 2, 31);
	EXPECT_IDS(NRT_EXEC_HW_ERR_HBM_UE, NULL, 2, 32);
	EXPECT_IDS(NRT_EXEC_HW_ERR_NC_UE, NULL, 2, 33);
	EXPECT_IDS(NRT_EXEC_HW_ERR_DMA_ABORT, NULL, 2, 34);
	EXPECT_IDS(NRT_EXEC_SW_NQ_OVERFLOW, NULL, 2, 35);
	EXPECT_IDS(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, NULL, 2, 40);
	/* no counter at all */
	{
		static const uint32_t none[] = { 3, 8, 11, 12, 13, 14, 15, 101, 1005, 1100,
						 1206, 5000, UINT32_MAX };

		for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			assert_int_equal(exec_ids((NRT_STATUS)none[i], NULL, ids), 0);
	}
	/* with errs present but empty: the same as NULL */
	{
		nrt_infer_errors_t e;
		uint32_t s;

		memset(&e, 0, sizeof(e));
		for (s = 0; s < 1300; s++) {
			uint32_t a[NRT_BRIDGE_MAX_EXEC_COUNTERS], b[NRT_BRIDGE_MAX_EXEC_COUNTERS];
			size_t na = exec_ids((NRT_STATUS)s, NULL, a);
			size_t nb = exec_ids((NRT_STATUS)s, &e, b);

			assert_int_equal(na, nb);
			assert_memory_equal(a, b, na * sizeof(uint32_t));
		}
	}
}

static void for_execution_with_errors(void **state)
{
	nrt_infer_errors_t e;
	uint32_t ids[4];

	(void)state;
	/* disarmed NaN: success, but ERR_NUMERICAL counts it */
	memset(&e, 0, sizeof(e));
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_FP_NAN);
	EXPECT_IDS(nrt_infer_errors_status(&e, NULL), &e, 1, 8);
	/* armed NaN */
	{
		const nrt_decode_config_t armed = { true };

		EXPECT_IDS(nrt_infer_errors_status(&e, &armed), &e, 3, 8);
	}
	/* TRANSIENT: success plus ERR_TRANSIENT */
	memset(&e, 0, sizeof(e));
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_SEQUENCER_NONFATAL);
	EXPECT_IDS(nrt_infer_errors_status(&e, NULL), &e, 1, 10);
	/* SW subtypes */
	memset(&e, 0, sizeof(e));
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_SEQUENCER_FATAL);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_PSUM_COLLISION);
	EXPECT_IDS(nrt_infer_errors_status(&e, NULL), &e, 2, 38, 39);
	/* memory / fake errors have no counter of their own */
	memset(&e, 0, sizeof(e));
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_MEMORY_ERROR);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_FAKE_ERROR);
	EXPECT_IDS(nrt_infer_errors_status(&e, NULL), &e, 2);
	/* a fault, an overflow and a semaphore error in one execution */
	memset(&e, 0, sizeof(e));
	nrt_infer_errors_add_hw(&e, NEURON_NQ_HW_HBM_UE);
	nrt_infer_errors_add_overflow(&e);
	nrt_infer_errors_add_tpb(&e, NEURON_TPB_ERROR_SEMAPHORE_ERROR);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_HW_ERR_HBM_UE);
	EXPECT_IDS(NRT_EXEC_HW_ERR_HBM_UE, &e, 2, 32, 35, 36);
	/* two faults: both counted, the final one once */
	memset(&e, 0, sizeof(e));
	nrt_infer_errors_add_hw(&e, NEURON_NQ_HW_REPAIRABLE_HBM_UE);
	nrt_infer_errors_add_hw(&e, NEURON_NQ_HW_DMA_ABORT);
	EXPECT_IDS(nrt_infer_errors_status(&e, NULL), &e, 2, 34, 40);
	/* everything */
	memset(&e, 0xff, sizeof(e));
	memset(&e, 1, offsetof(nrt_infer_errors_t, entries));
	EXPECT_IDS(NRT_EXEC_HW_ERR_COLLECTIVES, &e, 2, 8, 10, 31, 32, 33, 34, 35, 36, 37, 38, 39,
		   40);
	/* short buffer */
	memset(ids, 0, sizeof(ids));
	assert_int_equal(nrt_bridge_counters_for_execution(NRT_EXEC_HW_ERR_COLLECTIVES, &e, ids, 3),
			 13);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[2], 10);
	assert_int_equal(ids[3], 0);
	assert_int_equal(nrt_bridge_counters_for_execution(NRT_EXEC_HW_ERR_COLLECTIVES, &e, NULL, 0),
			 13);
}

static void end_to_end(void **state)
{
	struct neuron_nq_entry ring[3];
	nrt_infer_errors_t e;
	uint32_t ids[NRT_BRIDGE_MAX_EXEC_COUNTERS];
	size_t i, n;

	(void)state;
	memset(ring, 0, sizeof(ring));
	ring[0].header = NEURON_NQ_NOTIFIC_TPB_ERROR;
	ring[0].error_id = NEURON_TPB_ERROR_EVENT_ERROR;
	ring[1].header = NEURON_NQ_NOTIFIC_TPB_ERROR | NEURON_NQ_HDR_SW_OVERFLOW;
	ring[1].error_id = NEURON_TPB_ERROR_FP_NAN;
	ring[2].header = 0x07;	/* malformed */
	nrt_infer_errors_clear(&e);
	for (i = 0; i < 3; i++)
		nrt_decode_nq_entry(&e, &ring[i]);
	assert_int_equal(e.entries, 2);
	assert_int_equal(e.malformed, 1);
	assert_int_equal(nrt_infer_errors_status(&e, NULL), NRT_EXEC_COMPLETED_WITH_ERR);
	n = nrt_bridge_counters_for_execution(nrt_infer_errors_status(&e, NULL), &e, ids,
					      NRT_BRIDGE_MAX_EXEC_COUNTERS);
	assert_int_equal(n, 4);
	assert_int_equal(ids[0], NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR);
	assert_int_equal(ids[1], NDS_NC_COUNTER_ERR_NUMERICAL);
	assert_int_equal(ids[2], NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW);
	assert_int_equal(ids[3], NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR);
	/* every id lands inside the slab layout */
	for (i = 0; i < n; i++)
		assert_true(neuron_nds_nc_offset(0, ids[i]) > 0);
}

static void time_counters(void **state)
{
	nrt_exec_times_t t = { 1499, 1500, 2000000, UINT64_MAX };
	nrt_counter_add_t out[5];

	(void)state;
	memset(out, 0xee, sizeof(out));
	assert_int_equal(nrt_bridge_time_counters(&t, out, 5), NRT_BRIDGE_TIME_COUNTERS);
	assert_int_equal(out[0].id, NDS_NC_COUNTER_LATENCY_DEVICE);
	assert_int_equal(out[0].value, 1);
	assert_int_equal(out[1].id, NDS_NC_COUNTER_LATENCY_TOTAL);
	assert_int_equal(out[1].value, 2);
	assert_int_equal(out[2].id, NDS_NC_COUNTER_NC_TIME);
	assert_int_equal(out[2].value, 2000);
	assert_int_equal(out[3].id, NDS_NC_COUNTER_CC_TIME);
	assert_int_equal(out[3].value, UINT64_MAX / 1000 + 1);
	assert_int_equal(out[0].reserved, 0);
	assert_int_equal(out[3].reserved, 0);
	assert_int_equal(out[4].id, 0xeeeeeeeeu);
	assert_int_equal(out[0].id, 13);
	assert_int_equal(out[1].id, 14);
	assert_int_equal(out[2].id, 15);
	assert_int_equal(out[3].id, 21);

	memset(out, 0, sizeof(out));
	assert_int_equal(nrt_bridge_time_counters(&t, out, 1), 4);
	assert_int_equal(out[1].id, 0);
	assert_int_equal(nrt_bridge_time_counters(&t, NULL, 0), 4);
	assert_int_equal(nrt_bridge_time_counters(NULL, out, 5), 0);
	{
		nrt_exec_times_t z = { 0, 499, 500, 999 };

		nrt_bridge_time_counters(&z, out, 4);
		assert_int_equal(out[0].value, 0);
		assert_int_equal(out[1].value, 0);
		assert_int_equal(out[2].value, 1);
		assert_int_equal(out[3].value, 1);
	}
}

static void counter_info(void **state)
{
	nrt_counter_info_t ci;
	uint32_t id;

	(void)state;
	for (id = 0; id < NDS_EXT_NC_COUNTER_LAST; id++) {
		memset(&ci, 0, sizeof(ci));
		assert_true(nrt_bridge_counter_info(id, &ci));
		assert_int_equal(ci.id, id);
		assert_non_null(ci.name);
	}
	assert_false(nrt_bridge_counter_info(NDS_EXT_NC_COUNTER_LAST, &ci));
	assert_false(nrt_bridge_counter_info(UINT32_MAX, &ci));
	assert_false(nrt_bridge_counter_info(1, NULL));

	assert_true(nrt_bridge_counter_info(NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW, &ci));
	assert_string_equal(ci.name, "ERR_SW_NQ_OVERFLOW");
	assert_string_equal(ci.sysfs_group, "status");
	assert_string_equal(ci.sysfs_attr, "execute_sw_nq_overflow");
	assert_int_equal(ci.cw_id, 253);

	assert_true(nrt_bridge_counter_info(NDS_NC_COUNTER_MAC_COUNT, &ci));
	assert_string_equal(ci.sysfs_group, "other_info");
	assert_string_equal(ci.sysfs_attr, "flop_count");
	assert_int_equal(ci.cw_id, -1);

	assert_true(nrt_bridge_counter_info(NDS_NC_COUNTER_ERR_NUMERICAL, &ci));
	assert_string_equal(ci.name, "ERR_NUMERICAL");
	assert_null(ci.sysfs_group);
	assert_null(ci.sysfs_attr);
	assert_int_equal(ci.cw_id, 215);

	assert_true(nrt_bridge_counter_info(NDS_NC_COUNTER_LATENCY_DEVICE, &ci));
	assert_null(ci.sysfs_attr);
	assert_int_equal(ci.cw_id, -1);

	/* every id an execution can produce has a name */
	{
		uint32_t s;

		for (s = 0; s < 1300; s++) {
			int ids[3] = {
				nrt_bridge_outcome_counter((NRT_STATUS)s),
				nrt_bridge_generic_status_counter((NRT_STATUS)s),
				nrt_bridge_hw_status_counter((NRT_STATUS)s),
			};
			int k;

			for (k = 0; k < 3; k++) {
				if (ids[k] < 0)
					continue;
				assert_true(nrt_bridge_counter_info((uint32_t)ids[k], &ci));
				/* and every one of them is a sysfs status file */
				assert_string_equal(ci.sysfs_group, "status");
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(generic_status),
		cmocka_unit_test(hw_status),
		cmocka_unit_test(outcome),
		cmocka_unit_test(error_stats),
		cmocka_unit_test(for_execution_status_only),
		cmocka_unit_test(for_execution_with_errors),
		cmocka_unit_test(end_to_end),
		cmocka_unit_test(time_counters),
		cmocka_unit_test(counter_info),
	};
	return cmocka_run_group_tests_name("bridge", tests, NULL, NULL);
}
