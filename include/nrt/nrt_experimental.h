/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libnrt's experimental API (the subset this project implements), with the
 * SDK's names, types, enum values and struct layouts (tests/unit/
 * test_sdk_abi.c checks the layouts). Differences: docs/sdk-compat.md.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a NEFF uses a tensor. */
typedef enum nrt_tensor_usage {
	NRT_TENSOR_USAGE_INPUT = 0,
	NRT_TENSOR_USAGE_OUTPUT = 1,
} nrt_tensor_usage_t;

#define NRT_TENSOR_NAME_MAX 256	/* bytes of nrt_tensor_info_t.name, NUL included */

typedef struct nrt_tensor_info {
	char name[NRT_TENSOR_NAME_MAX];	/* NUL-terminated */
	nrt_tensor_usage_t usage;
	size_t size;			/* bytes */
	nrt_dtype_t dtype;
	uint32_t *shape;		/* @ndim dimensions, owned by the array */
	uint32_t ndim;
} nrt_tensor_info_t;

typedef struct nrt_tensor_info_array {
	uint64_t tensor_count;			/* inputs then outputs */
	nrt_tensor_info_t tensor_array[];
} nrt_tensor_info_array_t;

/*
 * The inputs (in the NEFF's order) then the outputs of @model, in one
 * allocation that nrt_free_model_tensor_info() frees. Works on any live
 * model handle (NRT_INVALID_HANDLE otherwise); NRT_INVALID on a NULL
 * @tensor_info; NRT_FAIL_HOST_MEM_ALLOC.
 */
NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model, nrt_tensor_info_array_t **tensor_info);

/*
 * How many threads may usefully call nrt_execute() on @model at once: 1.
 * Executions of one model run one at a time on its first NeuronCore here
 * (copies staged with nrt_load's vnc_count are not scheduled), so more
 * threads only queue. Deprecated in the SDK. Works on any live model
 * handle (NRT_INVALID_HANDLE otherwise, also once unloaded); NRT_INVALID on
 * a NULL @instance_count.
 */
NRT_STATUS nrt_get_model_instance_count(nrt_model_t *model, uint32_t *instance_count);

/* Free what nrt_get_model_tensor_info() returned (NULL: nothing, NRT_SUCCESS). */
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info);

/* Grows at its end only; callers pass the size they were compiled with. */
typedef struct nrt_model_info {
	uint32_t vnc;	/* the model's first NeuronCore, a visible index as nrt_load()'s */
} nrt_model_info_t;

/*
 * Write up to @info_size_in bytes of what this library knows of @model
 * into @info and the count written into *@info_size_out. NRT_INVALID on a
 * NULL pointer or an @info_size_in that does not hold the first field.
 */
NRT_STATUS nrt_get_model_info(const nrt_model_t *model, nrt_model_info_t *info, size_t info_size_in,
			      size_t *info_size_out);

/*
 * Copy @size bytes from @src to @dest, an address in this process's
 * mapping of a device tensor's memory (nrt_tensor_get_va of a device
 * tensor, plus an offset): all of [@dest, @dest + @size) must lie in one
 * live allocation. NRT_INVALID for any other destination (nothing is
 * copied), a NULL pointer, or a @src that cannot be read (nothing is
 * copied, but on kernels before 5.14 part of it may be); 0 bytes is
 * NRT_SUCCESS.
 */
NRT_STATUS nrt_memcpy_to_device(void *dest, const void *src, size_t size);

#ifdef __cplusplus
}
#endif
