// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter id -> sysfs attribute / CloudWatch id tables. The status list is
 * the driver's creation order (24 attributes since 2.23); the CloudWatch
 * ids are the NMETRIC_CW_ID values the metrics poster uses.
 */
#include "neuron_counters.h"

struct neuron_nc_counter_desc {
	const char *name;
	s32 cw_id;
};

static const struct neuron_nc_counter_desc neuron_nc_counters[NEURON_NC_COUNTER_NAMED] = {
	[0] = { "TIME_IN_USE", NEURON_CW_ID_NONE },
	[1] = { "INFER_COMPLETED", 200 },
	[2] = { "INFER_COMPLETED_WITH_ERR", 214 },
	[3] = { "INFER_COMPLETED_WITH_NUM_ERR", 213 },
	[4] = { "INFER_TIMED_OUT", 205 },
	[5] = { "INFER_INCORRECT_INPUT", 212 },
	[6] = { "INFER_FAILED_TO_QUEUE", 207 },
	[7] = { "ERR_GENERIC", 219 },
	[8] = { "ERR_NUMERICAL", 215 },
	[9] = { "ERR_MODEL", 216 },
	[10] = { "ERR_TRANSIENT", 217 },
	[11] = { "ERR_HW", 206 },
	[12] = { "ERR_RT", 218 },
	[13] = { "LATENCY_DEVICE", NEURON_CW_ID_NONE },
	[14] = { "LATENCY_TOTAL", NEURON_CW_ID_NONE },
	[15] = { "NC_TIME", NEURON_CW_ID_NONE },
	[16] = { "GENERIC_FAIL", 201 },
	[17] = { "ERR_RESOURCE", 204 },
	[18] = { "ERR_RESOURCE_NC", 208 },
	[19] = { "ERR_INVALID", 202 },
	[20] = { "ERR_UNSUPPORTED_NEFF_VERSION", 209 },
	[21] = { "CC_TIME", NEURON_CW_ID_NONE },
	[22] = { "MEM_USAGE_CODE_DEVICE", NEURON_CW_ID_NONE },
	[23] = { "MEM_USAGE_TENSORS_DEVICE", NEURON_CW_ID_NONE },
	[24] = { "MEM_USAGE_CONSTANTS_DEVICE", NEURON_CW_ID_NONE },
	[25] = { "MEM_USAGE_SCRATCHPAD_DEVICE", NEURON_CW_ID_NONE },
	[26] = { "MEM_USAGE_MISC_DEVICE", NEURON_CW_ID_NONE },
	[27] = { "MODEL_LOAD_COUNT", NEURON_CW_ID_NONE },
	[28] = { "INFERENCE_COUNT", NEURON_CW_ID_NONE },
	[29] = { "MAC_COUNT", NEURON_CW_ID_NONE },
	[30] = { "OOB", 220 },
	[31] = { "HW_ERR_COLLECTIVES", 221 },
	[32] = { "HW_ERR_HBM_UE", 222 },
	[33] = { "HW_ERR_NC_UE", 223 },
	[34] = { "HW_ERR_DMA_ABORT", 224 },
	[35] = { "ERR_SW_NQ_OVERFLOW", 253 },
	[36] = { "ERR_SW_SEMAPHORE_ERROR", 225 },
	[37] = { "ERR_SW_EVENT_ERROR", 226 },
	[38] = { "ERR_SW_PSUM_COLLISION", 227 },
	[39] = { "ERR_SW_SEQUENCER_FATAL", 228 },
	[40] = { "HW_ERR_REPAIRABLE_HBM_UE", 229 },
};

const struct neuron_status_attr neuron_status_attrs[NEURON_STATUS_ATTR_COUNT] = {
	{ "success", 1, 200 },
	{ "failure", 16, 201 },
	{ "timeout", 4, 205 },
	{ "exec_bad_input", 5, 212 },
	{ "hw_error", 11, 206 },
	{ "execute_completed_with_error", 2, 214 },
	{ "execute_completed_with_num_error", 3, 213 },
	{ "generic_error", 7, 219 },
	{ "resource_error", 17, 204 },
	{ "resource_nc_error", 18, 208 },
	{ "execute_failed_to_queue", 6, 207 },
	{ "invalid_error", 19, 202 },
	{ "unsupported_neff_version", 20, 209 },
	{ "oob_error", 30, 220 },
	{ "hw_collectives_error", 31, 221 },
	{ "hw_hbm_ue_error", 32, 222 },
	{ "hw_nc_ue_error", 33, 223 },
	{ "hw_dma_abort_error", 34, 224 },
	{ "execute_sw_nq_overflow", 35, 253 },
	{ "execute_sw_semaphore_error", 36, 225 },
	{ "execute_sw_event_error", 37, 226 },
	{ "execute_sw_psum_collision", 38, 227 },
	{ "execute_sw_sequencer_fatal", 39, 228 },
	{ "hw_repairable_hbm_ue_error", 40, 229 },
};

const struct neuron_other_attr neuron_other_attrs[NEURON_OTHER_ATTR_COUNT] = {
	{ "model_load_count", 27, 1 },
	{ "reset_req_count", NEURON_COUNTER_DRIVER, 1 },
	{ "reset_fail_count", NEURON_COUNTER_DRIVER, 1 },
	{ "inference_count", 28, 1 },
	{ "flop_count", 29, 2 },	/* MAC_COUNT: two flops per MAC */
	{ "nc_time_in_use", 0, 1 },
};

/* No libc here: the file also builds into the module. */
static bool neuron_counters_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

u32 neuron_status_attr_count(void)
{
	return NEURON_STATUS_ATTR_COUNT;
}

const struct neuron_status_attr *neuron_status_attr_by_counter(u32 id)
{
	u32 i;

	for (i = 0; i < NEURON_STATUS_ATTR_COUNT; i++)
		if (neuron_status_attrs[i].counter == id)
			return &neuron_status_attrs[i];
	return NULL;
}

const struct neuron_status_attr *neuron_status_attr_by_name(const char *name)
{
	u32 i;

	if (!name)
		return NULL;
	for (i = 0; i < NEURON_STATUS_ATTR_COUNT; i++)
		if (neuron_counters_streq(neuron_status_attrs[i].name, name))
			return &neuron_status_attrs[i];
	return NULL;
}

u32 neuron_other_attr_count(void)
{
	return NEURON_OTHER_ATTR_COUNT;
}

const struct neuron_other_attr *neuron_other_attr_by_counter(u32 id)
{
	u32 i;

	for (i = 0; i < NEURON_OTHER_ATTR_COUNT; i++)
		if (neuron_other_attrs[i].counter >= 0 &&
		    (u32)neuron_other_attrs[i].counter == id)
			return &neuron_other_attrs[i];
	return NULL;
}

const struct neuron_other_attr *neuron_other_attr_by_name(const char *name)
{
	u32 i;

	if (!name)
		return NULL;
	for (i = 0; i < NEURON_OTHER_ATTR_COUNT; i++)
		if (neuron_counters_streq(neuron_other_attrs[i].name, name))
			return &neuron_other_attrs[i];
	return NULL;
}

const char *neuron_nc_counter_name(u32 id)
{
	if (id >= NEURON_NC_COUNTER_NAMED)
		return NULL;
	return neuron_nc_counters[id].name;
}

s32 neuron_nc_counter_cw_id(u32 id)
{
	if (id >= NEURON_NC_COUNTER_NAMED)
		return NEURON_CW_ID_NONE;
	return neuron_nc_counters[id].cw_id;
}
