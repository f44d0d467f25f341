/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The 24 status/ attributes of a NeuronCore's sysfs counters, in creation
 * order (common/neuron_counters.c), for the guest programs that walk them.
 */
#ifndef VMSTATUS_H
#define VMSTATUS_H

static const char *const vt_status_attrs[] = {
	"success", "failure", "timeout", "exec_bad_input", "hw_error",
	"execute_completed_with_error", "execute_completed_with_num_error", "generic_error",
	"resource_error", "resource_nc_error", "execute_failed_to_queue", "invalid_error",
	"unsupported_neff_version", "oob_error", "hw_collectives_error", "hw_hbm_ue_error",
	"hw_nc_ue_error", "hw_dma_abort_error", "execute_sw_nq_overflow",
	"execute_sw_semaphore_error", "execute_sw_event_error", "execute_sw_psum_collision",
	"execute_sw_sequencer_fatal", "hw_repairable_hbm_ue_error",
};

#define VT_NSTATUS_ATTRS (sizeof(vt_status_attrs) / sizeof(vt_status_attrs[0]))

#endif /* VMSTATUS_H */
