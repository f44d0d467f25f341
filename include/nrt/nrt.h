/*
 * libnrt public API (the subset this project implements). Signatures follow
 * the public SDK's nrt.h where an equivalent exists.
 *
 * Lifecycle guards: every call below that needs the runtime returns
 * NRT_UNINITIALIZED (13) before nrt_init() and NRT_CLOSED (14) after
 * nrt_close(). nrt_get_total_nc_count() and nrt_get_version_string() work
 * in any state.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nrt_framework_type {
	NRT_FRAMEWORK_TYPE_INVALID = 0,
	NRT_FRAMEWORK_TYPE_NO_FW = 1,
	NRT_FRAMEWORK_TYPE_TENSORFLOW = 2,
	NRT_FRAMEWORK_TYPE_PYTORCH = 3,
	NRT_FRAMEWORK_TYPE_MXNET = 4,
} nrt_framework_type_t;

/* libnrt's version string, e.g. "0.1.0". */
const char *nrt_get_version_string(void);

/*
 * Open every Neuron device, acquire this process's NDS slab on each (the
 * counter bridge writes there) and record the runtime, framework and FAL
 * versions ("major.minor.build", may be NULL) in it. Reads
 * NEURON_FAIL_ON_NAN / NEURON_RT_NUMERICAL_ERRORS_VERBOSITY (numerical
 * errors armed or not) and NEURON_RT_EXEC_TIMEOUT (seconds, default 2).
 * Errors: NRT_INVALID (already initialized, bad framework type or version
 * string), NRT_RESOURCE (no device, or no free NDS slab), or the open/ioctl
 * errno mapped per call site.
 */
NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version, const char *fal_version);

/* Release everything nrt_init() acquired. Later calls return NRT_CLOSED. */
void nrt_close(void);

/* NeuronCores on every device present (any state; NRT_INVALID on NULL). */
NRT_STATUS nrt_get_total_nc_count(uint32_t *nc_count);

/*
 * NeuronCores this process may use: all of them, or those listed in
 * NEURON_RT_VISIBLE_CORES ("2", "0-3", "1,4,6") that exist.
 */
NRT_STATUS nrt_get_visible_nc_count(uint32_t *nc_count);

/* ---- simulated execution ----------------------------------------------- */

typedef struct nrt_sim_exec_opts {
	uint64_t duration_us;	/* how long the job runs */
	uint64_t timeout_us;	/* 0: NEURON_RT_EXEC_TIMEOUT or the default */
	uint32_t account;	/* 1: apply the counter bridge (default), 0: skip */
	uint32_t reserved;	/* 0 */
} nrt_sim_exec_opts_t;

typedef struct nrt_sim_exec_result {
	NRT_STATUS status;		/* what nrt_sim_execute() returns */
	NRT_STATUS exec_status;		/* the job ioctl's errno mapped for the exec site */
	int exec_errno;			/* that errno (0 on success) */
	uint32_t entries;		/* error entries drained */
	uint64_t dropped;		/* entries the ring dropped during the job */
	nrt_infer_errors_t errors;	/* what the entries said */
} nrt_sim_exec_result_t;

/*
 * Run one job on NeuronCore @nc_index of simulated device @device_index:
 * reserve the core on first use, run, drain the core's ERROR ring, decode
 * every entry (TPB error -> sunda_error_subtypes -> INFER_ERROR_SUBTYPE ->
 * flags -> status), fold the job's and the ring's statuses by
 * nrt_get_status_priority, apply the counter bridge and the execution
 * outcome counters to this process's NDS slab, and return the status.
 * Ioctl errno per this site: -EBUSY -> NRT_EXEC_NC_BUSY, -ETIMEDOUT ->
 * NRT_TIMEOUT, -EINVAL -> NRT_INVALID, -ENOMEM -> NRT_RESOURCE, ...
 */
NRT_STATUS nrt_sim_execute(uint32_t device_index, uint32_t nc_index, uint64_t duration_us);

/* nrt_sim_execute() with options (@opts may be NULL) and details (@result may be NULL). */
NRT_STATUS nrt_sim_execute_ex(uint32_t device_index, uint32_t nc_index,
			      const nrt_sim_exec_opts_t *opts, nrt_sim_exec_result_t *result);

#ifdef __cplusplus
}
#endif
