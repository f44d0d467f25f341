// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* common/neuron_counters.c: sysfs status / other_info attributes and
 * CloudWatch ids of the NDS NeuronCore counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <neuron/neuron_nds.h>

#include "neuron_counters.h"

/* facts 2.3a (creation order) with 1.6/1.7 CloudWatch ids */
static const struct {
	const char *name;
	u32 counter;
	u32 cw;
} want_status[] = {
	{ "success", NDS_NC_COUNTER_INFER_COMPLETED, 200 },
	{ "failure", NDS_NC_COUNTER_GENERIC_FAIL, 201 },
	{ "timeout", NDS_NC_COUNTER_INFER_TIMED_OUT, 205 },
	{ "exec_bad_input", NDS_NC_COUNTER_INFER_INCORRECT_INPUT, 212 },
	{ "hw_error", NDS_NC_COUNTER_ERR_HW, 206 },
	{ "execute_completed_with_error", NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR, 214 },
	{ "execute_completed_with_num_error", NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR, 213 },
	{ "generic_error", NDS_NC_COUNTER_ERR_GENERIC, 219 },
	{ "resource_error", NDS_NC_COUNTER_ERR_RESOURCE, 204 },
	{ "resource_nc_error", NDS_NC_COUNTER_ERR_RESOURCE_NC, 208 },
	{ "execute_failed_to_queue", NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE, 207 },
	{ "invalid_error", NDS_NC_COUNTER_ERR_INVALID, 202 },
	{ "unsupported_neff_version", NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION, 209 },
	{ "oob_error", NDS_NC_COUNTER_OOB, 220 },
	{ "hw_collectives_error", NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES, 221 },
	{ "hw_hbm_ue_error", NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE, 222 },
	{ "hw_nc_ue_error", NDS_EXT_NC_COUNTER_HW_ERR_NC_UE, 223 },
	{ "hw_dma_abort_error", NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT, 224 },
	{ "execute_sw_nq_overflow", NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW, 253 },
	{ "execute_sw_semaphore_error", NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR, 225 },
	{ "execute_sw_event_error", NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR, 226 },
	{ "execute_sw_psum_collision", NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION, 227 },
	{ "execute_sw_sequencer_fatal", NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL, 228 },
	{ "hw_repairable_hbm_ue_error", NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE, 229 },
};

#define WANT_STATUS (sizeof(want_status) / sizeof(want_status[0]))

static void status_table(void **state)
{
	size_t i;

	(void)state;
	assert_int_equal(WANT_STATUS, 24);
	assert_int_equal(NEURON_STATUS_ATTR_COUNT, 24);
	assert_int_equal(neuron_status_attr_count(), 24);
	for (i = 0; i < WANT_STATUS; i++) {
		const struct neuron_status_attr *a = &neuron_status_attrs[i];

		assert_string_equal(a->name, want_status[i].name);
		assert_int_equal(a->counter, want_status[i].counter);
		assert_int_equal(a->cw_id, want_status[i].cw);
		assert_ptr_equal(neuron_status_attr_by_counter(a->counter), a);
		assert_ptr_equal(neuron_status_attr_by_name(a->name), a);
		/* the attribute's cw id is the counter's */
		assert_int_equal(neuron_nc_counter_cw_id(a->counter), (s32)a->cw_id);
	}
}

static void status_unique(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < NEURON_STATUS_ATTR_COUNT; i++) {
		for (j = i + 1; j < NEURON_STATUS_ATTR_COUNT; j++) {
			assert_string_not_equal(neuron_status_attrs[i].name, neuron_status_attrs[j].name);
			assert_int_not_equal(neuron_status_attrs[i].counter,
					     neuron_status_attrs[j].counter);
			assert_int_not_equal(neuron_status_attrs[i].cw_id, neuron_status_attrs[j].cw_id);
		}
		/* sysfs file names: lower case, digits, underscores */
		{
			const char *p;

			for (p = neuron_status_attrs[i].name; *p; p++)
				assert_true((*p >= 'a' && *p <= 'z') || *p == '_');
		}
	}
}

static void status_misses(void **state)
{
	static const u32 no_attr[] = { 0, 8, 9, 10, 12, 13, 14, 15, 21, 22, 26, 27, 28, 29, 41,
				       94, 95, UINT32_MAX };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(no_attr) / sizeof(no_attr[0]); i++)
		assert_null(neuron_status_attr_by_counter(no_attr[i]));
	assert_null(neuron_status_attr_by_name(NULL));
	assert_null(neuron_status_attr_by_name(""));
	assert_null(neuron_status_attr_by_name("succes"));
	assert_null(neuron_status_attr_by_name("successs"));
	assert_null(neuron_status_attr_by_name("SUCCESS"));
	assert_null(neuron_status_attr_by_name("model_load_count"));
}

static void other_info(void **state)
{
	static const struct {
		const char *name;
		s32 counter;
		u32 scale;
	} want[] = {
		{ "model_load_count", NDS_NC_COUNTER_MODEL_LOAD_COUNT, 1 },
		{ "reset_req_count", NEURON_COUNTER_DRIVER, 1 },
		{ "reset_fail_count", NEURON_COUNTER_DRIVER, 1 },
		{ "inference_count", NDS_NC_COUNTER_INFERENCE_COUNT, 1 },
		{ "flop_count", NDS_NC_COUNTER_MAC_COUNT, 2 },
		{ "nc_time_in_use", NDS_NC_COUNTER_TIME_IN_USE, 1 },
	};
	size_t i;

	(void)state;
	assert_int_equal(neuron_other_attr_count(), 6);
	assert_int_equal(NEURON_OTHER_ATTR_COUNT, 6);
	for (i = 0; i < 6; i++) {
		const struct neuron_other_attr *o = &neuron_other_attrs[i];

		assert_string_equal(o->name, want[i].name);
		assert_int_equal(o->counter, want[i].counter);
		assert_int_equal(o->scale, want[i].scale);
		assert_ptr_equal(neuron_other_attr_by_name(o->name), o);
		if (o->counter >= 0)
			assert_ptr_equal(neuron_other_attr_by_counter((u32)o->counter), o);
		/* no name shared with the status directory */
		assert_null(neuron_status_attr_by_name(o->name));
	}
	assert_null(neuron_other_attr_by_counter(1));
	assert_null(neuron_other_attr_by_counter(UINT32_MAX));	/* not the driver marker */
	assert_null(neuron_other_attr_by_name("flop"));
	assert_null(neuron_other_attr_by_name(NULL));
}

static void counter_names(void **state)
{
	static const struct {
		u32 id;
		const char *name;
		s32 cw;
	} spot[] = {
		{ NDS_NC_COUNTER_TIME_IN_USE, "TIME_IN_USE", -1 },
		{ NDS_NC_COUNTER_INFER_COMPLETED, "INFER_COMPLETED", 200 },
		{ NDS_NC_COUNTER_ERR_NUMERICAL, "ERR_NUMERICAL", 215 },
		{ NDS_NC_COUNTER_ERR_MODEL, "ERR_MODEL", 216 },
		{ NDS_NC_COUNTER_ERR_TRANSIENT, "ERR_TRANSIENT", 217 },
		{ NDS_NC_COUNTER_ERR_RT, "ERR_RT", 218 },
		{ NDS_NC_COUNTER_LATENCY_DEVICE, "LATENCY_DEVICE", -1 },
		{ NDS_NC_COUNTER_CC_TIME, "CC_TIME", -1 },
		{ NDS_NC_COUNTER_MAC_COUNT, "MAC_COUNT", -1 },
		{ NDS_NC_COUNTER_OOB, "OOB", 220 },
		{ NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES, "HW_ERR_COLLECTIVES", 221 },
		{ NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW, "ERR_SW_NQ_OVERFLOW", 253 },
		{ NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL, "ERR_SW_SEQUENCER_FATAL", 228 },
		{ NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE, "HW_ERR_REPAIRABLE_HBM_UE", 229 },
	};
	size_t i, j;

	(void)state;
	assert_int_equal(NEURON_NC_COUNTER_NAMED, NDS_EXT_NC_COUNTER_LAST);
	for (i = 0; i < sizeof(spot) / sizeof(spot[0]); i++) {
		assert_string_equal(neuron_nc_counter_name(spot[i].id), spot[i].name);
		assert_int_equal(neuron_nc_counter_cw_id(spot[i].id), spot[i].cw);
	}
	for (i = 0; i < NEURON_NC_COUNTER_NAMED; i++) {
		assert_non_null(neuron_nc_counter_name((u32)i));
		for (j = i + 1; j < NEURON_NC_COUNTER_NAMED; j++) {
			assert_string_not_equal(neuron_nc_counter_name((u32)i),
						neuron_nc_counter_name((u32)j));
			if (neuron_nc_counter_cw_id((u32)i) >= 0)
				assert_int_not_equal(neuron_nc_counter_cw_id((u32)i),
						     neuron_nc_counter_cw_id((u32)j));
		}
	}
	assert_null(neuron_nc_counter_name(NEURON_NC_COUNTER_NAMED));
	assert_null(neuron_nc_counter_name(UINT32_MAX));
	assert_int_equal(neuron_nc_counter_cw_id(NEURON_NC_COUNTER_NAMED), NEURON_CW_ID_NONE);
	/* every CloudWatch id of a counter lies in the 200..253 status range */
	for (i = 0; i < NEURON_NC_COUNTER_NAMED; i++) {
		s32 cw = neuron_nc_counter_cw_id((u32)i);

		assert_true(cw == NEURON_CW_ID_NONE || (cw >= 200 && cw <= 253));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(status_table),
		cmocka_unit_test(status_unique),
		cmocka_unit_test(status_misses),
		cmocka_unit_test(other_info),
		cmocka_unit_test(counter_names),
	};
	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
