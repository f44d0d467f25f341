// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_names.h"

const char *const neuron_tpb_error_names[NEURON_TPB_ERROR_COUNT] = {
	[NEURON_TPB_ERROR_FP_UNDERFLOW] = "FP_UNDERFLOW",
	[NEURON_TPB_ERROR_FP_NAN] = "FP_NAN",
	[NEURON_TPB_ERROR_FP_INF] = "FP_INF",
	[NEURON_TPB_ERROR_FP_OVERFLOW] = "FP_OVERFLOW",
	[NEURON_TPB_ERROR_MEMORY_ERROR] = "MEMORY_ERROR",
	[NEURON_TPB_ERROR_FAKE_ERROR] = "FAKE_ERROR",
	[NEURON_TPB_ERROR_SEMAPHORE_ERROR] = "SEMAPHORE_ERROR",
	[NEURON_TPB_ERROR_EVENT_ERROR] = "EVENT_ERROR",
	[NEURON_TPB_ERROR_PSUM_COLLISION] = "PSUM_COLLISION",
	[NEURON_TPB_ERROR_SEQUENCER_NONFATAL] = "SEQUENCER_NONFATAL",
	[NEURON_TPB_ERROR_SEQUENCER_FATAL] = "SEQUENCER_FATAL",
};

const char *const neuron_hw_fault_words[NEURON_NQ_HW_COUNT] = {
	[NEURON_NQ_HW_COLLECTIVES] = "collectives",
	[NEURON_NQ_HW_HBM_UE] = "hbm_ue",
	[NEURON_NQ_HW_NC_UE] = "nc_ue",
	[NEURON_NQ_HW_DMA_ABORT] = "dma_abort",
	[NEURON_NQ_HW_REPAIRABLE_HBM_UE] = "repairable_hbm_ue",
};

const char *const neuron_action_names[NEURON_ACTION_MAX + 1] = {
	[NEURON_ACTION_NONE] = "NONE",
	[NEURON_ACTION_RESTART_JOB] = "RESTART_JOB",
	[NEURON_ACTION_RESET_DEVICE] = "RESET_DEVICE",
	[NEURON_ACTION_REBOOT_INSTANCE] = "REBOOT_INSTANCE",
	[NEURON_ACTION_TERMINATE_INSTANCE] = "TERMINATE_INSTANCE",
};

const char *neuron_action_name(u32 action)
{
	return action <= NEURON_ACTION_MAX ? neuron_action_names[action] : "UNKNOWN";
}

const u8 neuron_tpb_error_actions[NEURON_TPB_ERROR_COUNT] = {
	[NEURON_TPB_ERROR_FP_UNDERFLOW] = NEURON_ACTION_NONE,
	[NEURON_TPB_ERROR_FP_NAN] = NEURON_ACTION_NONE,
	[NEURON_TPB_ERROR_FP_INF] = NEURON_ACTION_NONE,
	[NEURON_TPB_ERROR_FP_OVERFLOW] = NEURON_ACTION_NONE,
	[NEURON_TPB_ERROR_MEMORY_ERROR] = NEURON_ACTION_RESTART_JOB,
	[NEURON_TPB_ERROR_FAKE_ERROR] = NEURON_ACTION_RESTART_JOB,
	[NEURON_TPB_ERROR_SEMAPHORE_ERROR] = NEURON_ACTION_RESTART_JOB,
	[NEURON_TPB_ERROR_EVENT_ERROR] = NEURON_ACTION_RESTART_JOB,
	[NEURON_TPB_ERROR_PSUM_COLLISION] = NEURON_ACTION_RESTART_JOB,
	[NEURON_TPB_ERROR_SEQUENCER_NONFATAL] = NEURON_ACTION_NONE,
	[NEURON_TPB_ERROR_SEQUENCER_FATAL] = NEURON_ACTION_RESTART_JOB,
};

const u8 neuron_hw_fault_actions[NEURON_NQ_HW_COUNT] = {
	[0] = NEURON_ACTION_NONE,
	[NEURON_NQ_HW_COLLECTIVES] = NEURON_ACTION_RESTART_JOB,
	[NEURON_NQ_HW_HBM_UE] = NEURON_ACTION_TERMINATE_INSTANCE,
	[NEURON_NQ_HW_NC_UE] = NEURON_ACTION_TERMINATE_INSTANCE,
	[NEURON_NQ_HW_DMA_ABORT] = NEURON_ACTION_RESTART_JOB,
	[NEURON_NQ_HW_REPAIRABLE_HBM_UE] = NEURON_ACTION_REBOOT_INSTANCE,
};

#ifndef __KERNEL__
#include <pthread.h>

/* the longest word, with its NUL */
#define HW_FAULT_NAME_MAX	32

static char hw_fault_names[NEURON_NQ_HW_COUNT][HW_FAULT_NAME_MAX];
static pthread_once_t hw_fault_names_once = PTHREAD_ONCE_INIT;

static void hw_fault_names_fill(void)
{
	unsigned int f;
	size_t i;

	for (f = 1; f < NEURON_NQ_HW_COUNT; f++)
		for (i = 0; neuron_hw_fault_words[f][i] && i + 1 < HW_FAULT_NAME_MAX; i++)
			hw_fault_names[f][i] = (char)(neuron_hw_fault_words[f][i] >= 'a' &&
						      neuron_hw_fault_words[f][i] <= 'z' ?
						      neuron_hw_fault_words[f][i] - 'a' + 'A' :
						      neuron_hw_fault_words[f][i]);
}

const char *neuron_hw_fault_name(u32 fault)
{
	if (!fault || fault >= NEURON_NQ_HW_COUNT)
		return "UNKNOWN";
	pthread_once(&hw_fault_names_once, hw_fault_names_fill);
	return hw_fault_names[fault];
}
#endif
