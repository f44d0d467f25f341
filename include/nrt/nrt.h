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

#include <ndl/neuron_driver_shared_tensor_batch_op.h>
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

/*
 * Instance families and sizes (nrt_instance_info_t), the SDK's values.
 * Append only: the values are shared with programs built against the SDK.
 */
enum {
	NRT_INSTANCE_UNKNOWN = 0,
	NRT_INSTANCE_INF1 = 1,
	NRT_INSTANCE_TRN1 = 2,
	NRT_INSTANCE_TRN1N = 3,
	NRT_INSTANCE_INF2 = 4,
	NRT_INSTANCE_TRN2 = 5,
	NRT_INSTANCE_TRN2N = 6,
	NRT_INSTANCE_INF2E = 7,
	NRT_INSTANCE_TRN2P = 8,
	NRT_INSTANCE_TRN2U = 9,
	NRT_INSTANCE_TRN2E = 10,
	NRT_INSTANCE_TRN2EU = 11,
	NRT_INSTANCE_TRN2AC = 12,
	NRT_INSTANCE_TRN2UAC = 13,
	NRT_INSTANCE_TRN3 = 14,
	NRT_INSTANCE_TRN3PDS98 = 15
};

enum {
	NRT_INSTANCE_SIZE_1XL,		/* 0: xlarge */
	NRT_INSTANCE_SIZE_2XL,
	NRT_INSTANCE_SIZE_4XL,
	NRT_INSTANCE_SIZE_6XL,
	NRT_INSTANCE_SIZE_8XL,
	NRT_INSTANCE_SIZE_24XL,
	NRT_INSTANCE_SIZE_32XL,
	NRT_INSTANCE_SIZE_48XL,
	NRT_INSTANCE_SIZE_3XL,		/* 8 */
	NRT_INSTANCE_SIZE_UNKNOWN,	/* 9 */
	NRT_INSTANCE_SIZE_NUM = NRT_INSTANCE_SIZE_UNKNOWN,
};

/* Grows at its end only; callers pass the size they were compiled with. */
typedef struct nrt_instance_info {
	uint32_t family;		/* NRT_INSTANCE_* */
	uint32_t size;			/* NRT_INSTANCE_SIZE_* */
	char arch_name[16];		/* the family's name: "trn1", "inf2", "trn2", "trn3" */
	char device_revision[8];	/* the device's architecture: "NDv3", "NDsim" */
} nrt_instance_info_t;

/*
 * What machine this is (any state, before nrt_init() too). The family is
 * the Neuron devices' (the first present: its sysfs
 * info/architecture/instance_type; a simulated device models a Trainium2,
 * NRT_INSTANCE_TRN2), refined by the EC2 instance type the DMI product
 * name gives when it is one of that family's ("trn1n.32xlarge" ->
 * NRT_INSTANCE_TRN1N); the size comes from that instance type only, else
 * NRT_INSTANCE_SIZE_UNKNOWN. No device and no such DMI name: UNKNOWN,
 * UNKNOWN, NRT_SUCCESS. Writes at most @instance_info_len bytes (callers
 * built against the SDK's older 8-byte struct keep their stack);
 * NRT_INVALID on NULL or a length below 8 (family and size).
 */
NRT_STATUS nrt_get_instance_info(nrt_instance_info_t *info, size_t instance_info_len);

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
 * device from @vnc on), NRT_FAIL_HOST_MEM_ALLOC, NRT_FAILURE (a forked
 * child's inherited runtime: the parent's NeuronCores).
 */
NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count, nrt_model_t **model);

/*
 * nrt_load() for a NEFF with collective operations. @ctx_device_id is this
 * worker's rank among the @ctx_device_count workers taking part, one
 * process each. @ctx_device_count 1 and @ctx_device_id 0 load like
 * nrt_load(). More workers meet at the load under NEURON_RT_ROOT_COMM_ID
 * (HOST:PORT; processes of one host): the load returns once all of them
 * are there, NRT_TIMEOUT when they are not within the bound, NRT_INVALID
 * when rank 0 refuses the worker (its rank taken, another count, another
 * model) or the name is malformed. @ctx_device_count 0 or above 1024, or
 * @ctx_device_id >= @ctx_device_count, is NRT_INVALID (docs/sdk-compat.md).
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

/*
 * A dma-buf of the device memory at [@va, @va + @size): @va an address
 * nrt_tensor_get_va gave for a device tensor (or inside one, on a page
 * boundary), the range inside that tensor's allocation. The descriptor
 * (close-on-exec) goes to *@fd; the dma-buf starts at @va's byte. The
 * memory stays while the descriptor, or any mapping or attachment of the
 * dma-buf, lives, even after the tensor is freed. NRT_INVALID for NULL
 * @fd, @size 0, an address that is not mapped device memory of this
 * process, a range past the allocation, @va not on a page, a driver that
 * does not export dma-bufs, or a forked child; NRT_RESOURCE when the
 * process is out of descriptors or memory.
 */
NRT_STATUS nrt_get_dmabuf_fd(uint64_t va, uint64_t size, int *fd);

/* One tensor's operations in a batch (nrt_tensor_read_batch/write_batch). */
typedef struct nrt_tensor_batch {
	const nrt_tensor_t *tensor;
	const nrt_tensor_batch_op_t *ops;	/* @num_ops operations on @tensor */
	uint32_t num_ops;
} nrt_tensor_batch_t;

/*
 * Every operation of @num_batches batches, in order: each op reads
 * (write_batch: writes) op.size bytes at op.offset of its batch's tensor
 * into (from) op.buffer, exactly as nrt_tensor_read (nrt_tensor_write)
 * with the same arguments. Every handle and range is checked before any
 * byte moves: a bad one is its nrt_tensor_read/write status
 * (NRT_INVALID_HANDLE, NRT_INVALID, NRT_CLOSED) with nothing done; a
 * buffer that faults is NRT_INVALID at its op (the ops before it are
 * done). NRT_INVALID for NULL @batches (with @num_batches > 0) or NULL
 * ops (with num_ops > 0). @unsafe (the SDK skips its tensor tracking) is
 * accepted and changes nothing: there is no tracking to skip.
 */
NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches, bool unsafe);
NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches, bool unsafe);

typedef struct nrt_tensor_device_allocation_info {
	uint64_t physical_address;	/* the tensor's first byte in device memory */
	size_t size;			/* the allocation's bytes from there on (>= the tensor's) */
	int hbm_index;			/* which HBM: 0, the simulated device has one address space */
} nrt_tensor_device_allocation_info_t;

/*
 * Where a device tensor lies in its device's memory: the driver's device
 * address of the tensor's first byte (a slice's: its source's plus its
 * offset, so two tensors' addresses differ by what their
 * nrt_tensor_get_va addresses differ by), and how many bytes of its
 * allocation follow it. NRT_INVALID_HANDLE for an invalid handle,
 * NRT_INVALID for NULL @alloc_info or a tensor with no device memory (host,
 * attached, empty), NRT_CLOSED once nrt_close() freed its memory.
 */
NRT_STATUS nrt_tensor_get_device_allocation_info(const nrt_tensor_t *tensor,
						 nrt_tensor_device_allocation_info_t *alloc_info);

/* Grows at its end only; callers pass the size they were compiled with. */
typedef struct nrt_vnc_memory_stats {
	size_t bytes_used;	/* device memory allocated on the NeuronCore now */
	size_t bytes_limit;	/* its device's memory, which its NeuronCores share */
} nrt_vnc_memory_stats_t;

/*
 * Device memory of visible NeuronCore @vnc (an index as nrt_load()'s):
 * bytes_used is the driver's count for that NeuronCore (its sysfs
 * neuron_core<K>/stats/memory_usage/device_mem/total: every allocation on
 * it, tensors, staging buffers), bytes_limit the device's memory size.
 * Writes at most @stats_size_in bytes and the count written into
 * *@stats_size_out. Needs the runtime (13/14); NRT_INVALID for NULL
 * pointers, a size that does not hold bytes_used, or @vnc not visible;
 * NRT_FAILURE when the count cannot be read.
 */
NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t *stats, size_t stats_size_in,
				    size_t *stats_size_out);

/* ---- out-of-NEFF collectives: the SDK's types (nrta_cc_* in <nrt/nrt_async.h>) ---- */

typedef enum nrt_op_type {
	NRT_OP_ADD = 0x0,
	NRT_OP_FMA = 0x1,
	NRT_OP_MAX = 0x2,
	NRT_OP_MIN = 0x3,
	NRT_OP_INVALID = 0xF,
} nrt_op_type_t;

typedef enum nrt_cc_op_type {
	NRT_CC_ALLGATHER,
	NRT_CC_ALLREDUCE,
	NRT_CC_REDUCESCATTER
} nrt_cc_op_type_t;

typedef struct nrt_cc_context nrt_cc_context_t;

/* A replica group and this worker's place in it. */
typedef struct nrt_cc_comm {
	uint32_t *replica_group;	/* the participants */
	uint32_t rank;			/* this worker's rank in replica_group */
	uint32_t rank_n;		/* the size of replica_group */
	uint32_t ctx_device_id;
	uint32_t ctx_device_count;
	uint32_t vnc;
} nrt_cc_comm_t;

typedef struct nrt_tensor_list {
	nrt_tensor_t **tensors;
	size_t num_tensors;
} nrt_tensor_list_t;

#ifdef __cplusplus
}
#endif
