/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The names of what the error notification rings carry (enum
 * neuron_tpb_error and enum neuron_nq_hw_error of <neuron/neuron_nq.h>),
 * and the recovery actions (enum neuron_recovery_action of
 * <neuron/neuron_genl.h>) with the one action of each error class, one
 * table each: the module's log lines, events and knobs, libnrt's traces
 * and the tools all print and parse these. docs/recovery.md gives each
 * action's reasons.
 */
#ifndef NEURON_NAMES_H
#define NEURON_NAMES_H

#include "neuron_pure.h"

#include <neuron/neuron_genl.h>
#include <neuron/neuron_nq.h>

/* "FP_UNDERFLOW" .. "SEQUENCER_FATAL", by TPB error type */
extern const char *const neuron_tpb_error_names[NEURON_TPB_ERROR_COUNT];

/*
 * "collectives" .. "repairable_hbm_ue", by hardware fault; [0] (no fault)
 * is NULL. The fault's name in upper case is the same word upper-cased
 * ("HBM_UE").
 */
extern const char *const neuron_hw_fault_words[NEURON_NQ_HW_COUNT];

/* "NONE" .. "TERMINATE_INSTANCE", by enum neuron_recovery_action */
extern const char *const neuron_action_names[NEURON_ACTION_MAX + 1];
/* The name of @action; "UNKNOWN" past the table. */
const char *neuron_action_name(u32 action);

/*
 * The action of each error class (enum neuron_recovery_action):
 *  - a TPB error entry, by type: what its status says (NONE for the
 *    numerical and transient types, whose job completed; RESTART_JOB for
 *    the others, whose output cannot be trusted);
 *  - a hardware fault entry, by fault ([0] NONE);
 *  - a rise of the device's uncorrected SRAM or HBM ECC count;
 *  - a flood of entries (armed nq_flood): NONE, it is a test.
 * A health change's action follows its state (neuron_health_action()).
 */
extern const u8 neuron_tpb_error_actions[NEURON_TPB_ERROR_COUNT];
extern const u8 neuron_hw_fault_actions[NEURON_NQ_HW_COUNT];
#define NEURON_ECC_UE_ACTION	NEURON_ACTION_TERMINATE_INSTANCE
#define NEURON_NQ_FLOOD_ACTION	NEURON_ACTION_NONE

#ifndef __KERNEL__
/*
 * Userspace: the hardware fault's name, its word upper-cased ("HBM_UE"),
 * or "UNKNOWN" for no fault or one past the table. Thread-safe; the
 * string lives as long as the process.
 */
const char *neuron_hw_fault_name(u32 fault);
#endif

#endif /* NEURON_NAMES_H */
