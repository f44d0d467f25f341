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

char *neuron_hw_fault_name(u32 fault, char *buf, size_t len)
{
	const char *w = fault < NEURON_NQ_HW_COUNT ? neuron_hw_fault_words[fault] : NULL;
	size_t i;

	if (!len)
		return buf;
	if (!w)
		w = "unknown";
	for (i = 0; w[i] && i + 1 < len; i++)
		buf[i] = w[i] >= 'a' && w[i] <= 'z' ? (char)(w[i] - 'a' + 'A') : w[i];
	buf[i] = 0;
	return buf;
}
