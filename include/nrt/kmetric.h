/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The runtime -> kernel counter bridge: persist an execution's result into
 * the caller's NDS slab, where the kernel folds it into sysfs and the
 * metrics post. Which counters move is decided by the pure maps of
 * <nrt/nrt_error_model.h> (one source of truth); these functions only
 * apply them. 0 or a negative errno (-EINVAL bad instance/NeuronCore,
 * -EPERM read-only instance); nothing is written on error.
 */
#pragma once

#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* kmetric_update_nds_generic_status: CSWTCH.6 for the 1..10 band. */
int kmetric_update_nds_generic_status(nds_instance_t *inst, int nc, NRT_STATUS status);

/*
 * kmetric_update_nds_error_stats: SW subtypes 5..8 of @errs -> EXT 36..39,
 * and @times (may be NULL) -> latency/CC-time counters 13, 14, 15, 21 (us).
 */
int kmetric_update_nds_error_stats(nds_instance_t *inst, int nc,
				   const nrt_infer_errors_t *errs,
				   const nrt_exec_times_t *times);

/*
 * One execution's full accounting: every counter
 * nrt_bridge_counters_for_execution() lists, INFERENCE_COUNT (28), and the
 * time counters of @times (may be NULL).
 */
int kmetric_record_execution(nds_instance_t *inst, int nc, NRT_STATUS final_status,
			     const nrt_infer_errors_t *errs,
			     const nrt_exec_times_t *times);

#ifdef __cplusplus
}
#endif
