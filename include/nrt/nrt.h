/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libnrt public API (the subset this project implements). Signatures follow
 * the public SDK's nrt.h where an equivalent exists.
 *
 * Lifecycle guards: every call below that needs the runtime returns
 * NRT_UNINITIALIZED (13) before nrt_init() and NRT_CLOSED (14) after
 * nrt_close(). The NeuronCore counts (nrt_get_total_nc_count(),
 * nrt_get_visible_nc_count() and their _vnc_ names) and
 * nrt_get_version_string() work in any state. What differs from the SDK's
 * runtime, call by call: docs/sdk-compat.md.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The SDK runtime API version this header follows (the SDK's own numbers). */
#define NRT_MAJOR_VERSION 2
#define NRT_MINOR_VERSION 0

typedef enum nrt_framework_type {
	NRT_FRAMEWORK_TYPE_INVALID = 0,
	NRT_FRAMEWORK_TYPE_NO_FW = 1,
	NRT_FRAMEWORK_TYPE_TENSORFLOW = 2,
	NRT_FRAMEWORK_TYPE_PYTORCH = 3,
	NRT_FRAMEWORK_TYPE_MXNET = 4,
	NRT_FRAMEWORK_TYPE_PRECHECK = 5,	/* Neuron node precheck */
} nrt_framework_type_t;

/*
 * Element types, with the SDK's values (not in declaration order: the
 * values are the hardware's type codes). UNKNOWN and INVALID are one value.
 */
typedef enum nrt_dtype {
	NRT_DTYPE_UNKNOWN = 0x0,
	NRT_DTYPE_INVALID = 0x0,
	NRT_DTYPE_UINT64 = 0x1,
	NRT_DTYPE_INT8 = 0x2,
	NRT_DTYPE_UINT8 = 0x3,
	NRT_DTYPE_INT16 = 0x4,
	NRT_DTYPE_UINT16 = 0x5,
	NRT_DTYPE_BFLOAT16 = 0x6,
	NRT_DTYPE_FLOAT16 = 0x7,
	NRT_DTYPE_INT32 = 0x8,
	NRT_DTYPE_UINT32 = 0x9,
	NRT_DTYPE_FLOAT32 = 0xA,
	NRT_DTYPE_FP32R = 0xB,
	NRT_DTYPE_INT64 = 0xC,
	NRT_DTYPE_FP8_E3 = 0xD,
	NRT_DTYPE_FP8_E4 = 0xE,
	NRT_DTYPE_FP8_E5 = 0xF,
} nrt_dtype_t;

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

/*
 * Release everything nrt_init() acquired: models are unloaded, the device
 * memory of every device tensor still allocated is freed and the devices
 * are closed (once calls in flight have returned; a call made concurrently
 * with nrt_close() is a caller bug, as in the SDK, that may keep a device
 * open but never crashes). Later calls return NRT_CLOSED. Tensor handles
 * stay valid until nrt_tensor_free(): a host tensor keeps its data, a
 * device tensor answers NRT_CLOSED to every read, write, copy, memset or
 * execution whose other arguments are valid.
 */
void nrt_close(void);

/*
 * NeuronCores on every device present (any state; NRT_INVALID on NULL).
 * The _vnc_ name is the SDK's current one; both answer the same (one
 * simulated NeuronCore is one virtual NeuronCore here).
 */
NRT_STATUS nrt_get_total_nc_count(uint32_t *nc_count);
NRT_STATUS nrt_get_total_vnc_count(uint32_t *vnc_count);

/*
 * NeuronCores this process may use, in any state (before nrt_init() too):
 * all of them, or those NEURON_RT_VISIBLE_CORES names ("2", "0-3",
 * "1,2,3", "1-2,3": one contiguous ascending run of existing NeuronCores;
 * anything else is NRT_INVALID here and from nrt_init()). NeuronCore
 * indexes of nrt_load(), nrt_tensor_allocate() etc. count from the first
 * of them: with NEURON_RT_VISIBLE_CORES=3,4, index 0 is NeuronCore 3.
 * nrt_init() reserves them for this process until nrt_close() or exit, as
 * the SDK does: every NeuronCore present when neither variable is set (or
 * NEURON_RT_NUM_CORES is 0), exactly those NEURON_RT_VISIBLE_CORES names,
 * or the first run of NEURON_RT_NUM_CORES free ones. When another process
 * holds one of the first two kinds (or no such run is free), nrt_init()
 * fails with NRT_RESOURCE, holds nothing and says why on stderr; processes
 * sharing the machine each name their own NeuronCores with
 * NEURON_RT_VISIBLE_CORES.
 */
NRT_STATUS nrt_get_visible_nc_count(uint32_t *nc_count);
NRT_STATUS nrt_get_visible_vnc_count(uint32_t *vnc_count);

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
 * Run one job on NeuronCore @nc_index of simulated device @device_index
 * (the device's own index, not a visible one): a NeuronCore nrt_init() did
 * not reserve (outside NEURON_RT_VISIBLE_CORES) is reserved on first use
 * until nrt_close() (NRT_EXEC_NC_BUSY when another process holds it); run,
 * drain the core's ERROR ring, decode every entry (TPB error ->
 * sunda_error_subtypes -> INFER_ERROR_SUBTYPE -> flags -> status), fold
 * the job's and the ring's statuses by nrt_get_status_priority, apply the
 * counter bridge and the execution outcome counters to this process's NDS
 * slab, and return the status.
 * Ioctl errno per this site: -EBUSY -> NRT_EXEC_NC_BUSY, -ETIMEDOUT ->
 * NRT_TIMEOUT, -EINVAL -> NRT_INVALID, -ENOMEM -> NRT_RESOURCE, ...
 */
NRT_STATUS nrt_sim_execute(uint32_t device_index, uint32_t nc_index, uint64_t duration_us);

/* nrt_sim_execute() with options (@opts may be NULL) and details (@result may be NULL). */
NRT_STATUS nrt_sim_execute_ex(uint32_t device_index, uint32_t nc_index,
			      const nrt_sim_exec_opts_t *opts, nrt_sim_exec_result_t *result);

/* ---- the application API (SDK names, signatures and types) -------------
 *
 * Handles are opaque and checked: a NULL, freed or never-issued model,
 * tensor or tensor set (or one of another kind) is NRT_INVALID_HANDLE (3),
 * never a crash; a freed handle's value is not issued again. nrt_load,
 * nrt_unload, nrt_get_model_nc_count, nrt_execute* and nrt_tensor_allocate
 * need the runtime (13 before nrt_init(), 14 after nrt_close(), which
 * unloads every model); the calls on an existing tensor or tensor set work
 * on any live handle, except a device tensor's data after nrt_close() (14). Status producers and counters: docs/error-model.md.
 */

typedef struct nrt_model nrt_model_t;
typedef struct nrt_tensor nrt_tensor_t;

typedef enum {
	NRT_TENSOR_PLACEMENT_DEVICE,	/* the NeuronCore's HBM (MEM_ALLOC) */
	NRT_TENSOR_PLACEMENT_HOST,	/* process memory */
	NRT_TENSOR_PLACEMENT_VIRTUAL,	/* not supported: NRT_INVALID */
} nrt_tensor_placement_t;

/* A container of named tensors. */
typedef void nrt_tensor_set_t;

/*
 * Load a NEFF (docs/neff.md) onto visible NeuronCore @vnc (-1: the first
 * run of visible NeuronCores that fits on one device) on the NeuronCores it
 * needs, which nrt_init() reserved for this process (models may share
 * them). @vnc_count is deprecated in the SDK: -1 stages
 * the model once on the NeuronCores it needs; a positive multiple of that
 * number places it on that many NeuronCores (the SDK's replicas; executions
 * run on the first copy here). Errors: NRT_INVALID (NULL, truncated or
 * corrupt NEFF, @vnc past the visible NeuronCores, @vnc_count 0, below -1
 * or not a multiple of what the model needs), NRT_UNSUPPORTED_NEFF_VERSION,
 * NRT_LOAD_NOT_ENOUGH_NC (the NeuronCores asked for do not exist on one
 * device from @vnc on), NRT_FAIL_HOST_MEM_ALLOC.
 */
NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count, nrt_model_t **model);

/*
 * nrt_load() for a NEFF with collective operations. @ctx_device_id is this
 * worker's rank among the @ctx_device_count devices taking part. Only the
 * single-worker case exists here (no communicator to other processes or
 * hosts): @ctx_device_count 1 and @ctx_device_id 0 load like nrt_load();
 * @ctx_device_count 0 or @ctx_device_id >= @ctx_device_count is
 * NRT_INVALID; more than one worker is NRT_FAILURE.
 */
NRT_STATUS nrt_load_collectives(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
				uint32_t ctx_device_id, uint32_t ctx_device_count, nrt_model_t **model);

/* Unload @model (its NeuronCores stay this process's until nrt_close(), as in the SDK). */
NRT_STATUS nrt_unload(nrt_model_t *model);

/* NeuronCores @model was placed on (its @vnc_count at load); both names answer the same. */
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t *model, uint32_t *vnc_count);
NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t *model, uint32_t *vnc_count);

NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t **result);
void nrt_destroy_tensor_set(nrt_tensor_set_t **tensor_set);

/* Add or replace @tensor under @tensor_name; the set does not own it. */
NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name, nrt_tensor_t *tensor);
NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name, nrt_tensor_t **tensor);

/*
 * Run @model once: every input the model declares must be in @input_set
 * with its declared size (else NRT_EXEC_BAD_INPUT), likewise every output
 * in @output_set. The status folds the job's result and the NeuronCore's
 * error ring (nrt_sim_execute()), and the execution is counted in sysfs.
 */
NRT_STATUS nrt_execute(nrt_model_t *model, const nrt_tensor_set_t *input_set, nrt_tensor_set_t *output_set);

/* nrt_execute() @repeat_count (>= 1) times; stops at the first failure. */
NRT_STATUS nrt_execute_repeat(nrt_model_t *model, const nrt_tensor_set_t *input_set, nrt_tensor_set_t *output_set, int repeat_count);

/*
 * A tensor of @size bytes: DEVICE placement in the HBM of visible NeuronCore @vnc
 * (NRT_RESOURCE when it is full), HOST placement in process memory (@vnc
 * ignored, NRT_FAIL_HOST_MEM_ALLOC when that fails). @name may be NULL.
 */
NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t tensor_placement, int vnc, size_t size, const char *name, nrt_tensor_t **tensor);

/* Free *@tensor and set it to NULL (NULL or an unknown handle: nothing). */
void nrt_tensor_free(nrt_tensor_t **tensor);

/* Offsets and sizes past the end of the tensor are NRT_INVALID. */
NRT_STATUS nrt_tensor_read(const nrt_tensor_t *tensor, void *buf, size_t offset, size_t size);
NRT_STATUS nrt_tensor_write(nrt_tensor_t *tensor, const void *buf, size_t offset, size_t size);
NRT_STATUS nrt_tensor_copy(const nrt_tensor_t *src, size_t src_offset, nrt_tensor_t *dst, size_t dst_offset, size_t size);

/* The tensor's size in bytes, 0 for an invalid handle. */
size_t nrt_tensor_get_size(const nrt_tensor_t *tensor);

/* Set @size bytes from @offset to (uint8_t)@value. */
NRT_STATUS nrt_tensor_memset(nrt_tensor_t *tensor, uint64_t offset, int value, size_t size);

/*
 * A tensor without storage (size 0; reads and writes of any byte are
 * NRT_INVALID) until nrt_tensor_attach_buffer(). Works in any state, like
 * every call on host memory. @name may be NULL.
 */
NRT_STATUS nrt_tensor_allocate_empty(const char *name, nrt_tensor_t **tensor);

/*
 * Make @buffer (@size bytes, the caller's, which must outlive the tensor)
 * the tensor's storage: it becomes a host tensor of @size bytes. Storage
 * the tensor owned before is released (a device tensor's HBM is freed;
 * slices made from it keep theirs). NRT_INVALID on a NULL @buffer or a
 * zero @size.
 */
NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t *tensor, void *buffer, size_t size);

/*
 * A tensor of @size bytes that is bytes [@offset, @offset + @size) of
 * @tensor_source: no copy, the same memory (host or HBM); the memory stays
 * alive while either tensor does. NRT_INVALID when the range is outside
 * the source or @size is 0.
 */
NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t *tensor_source, size_t offset, size_t size,
				     const char *name, nrt_tensor_t **tensor_slice);

/*
 * The address of a tensor's bytes in this process: a host tensor's (its
 * own memory, an attached buffer, or its source's for a slice), a device
 * tensor's in the mapping of its device memory (the same bytes
 * nrt_tensor_read/write see; valid until the tensor's memory is freed:
 * nrt_tensor_free of it and of every slice of it, or nrt_close()). NULL
 * for an invalid handle, an empty tensor, and a device tensor whose memory
 * this process cannot map (a driver without mappable device memory, a
 * forked child).
 */
void *nrt_tensor_get_va(const nrt_tensor_t *tensor);

#ifdef __cplusplus
}
#endif
