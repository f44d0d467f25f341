/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The names of what the error notification rings carry (enum
 * neuron_tpb_error and enum neuron_nq_hw_error of <neuron/neuron_nq.h>),
 * one table each: the module's knobs and debugfs, libnrt's traces and
 * the tools all print and parse these.
 */
#ifndef NEURON_NAMES_H
#define NEURON_NAMES_H

#include "neuron_pure.h"

#include <neuron/neuron_nq.h>

/* "FP_UNDERFLOW" .. "SEQUENCER_FATAL", by TPB error type */
extern const char *const neuron_tpb_error_names[NEURON_TPB_ERROR_COUNT];

/*
 * "collectives" .. "repairable_hbm_ue", by hardware fault; [0] (no fault)
 * is NULL. The fault's name in upper case is the same word upper-cased
 * ("HBM_UE").
 */
extern const char *const neuron_hw_fault_words[NEURON_NQ_HW_COUNT];

#ifndef __KERNEL__
/*
 * Userspace: the hardware fault's name, its word upper-cased ("HBM_UE"),
 * or "UNKNOWN" for no fault or one past the table. Thread-safe; the
 * string lives as long as the process.
 */
const char *neuron_hw_fault_name(u32 fault);
#endif

#endif /* NEURON_NAMES_H */
