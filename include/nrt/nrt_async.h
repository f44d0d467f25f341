/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libnrt's asynchronous API: tensor copies and model executions scheduled
 * on queues, their sequence numbers, completion (polled, or through a
 * file descriptor poll() works on) and error trackers. Names, types, enum
 * values, struct layouts and the 13 signatures are the SDK's
 * <nrt/nrt_async.h>; what differs from the SDK's runtime, call by call,
 * is in docs/sdk-compat.md ("Asynchronous execution").
 *
 * A queue is one (logical NeuronCore, execution unit, queue index); each
 * runs its requests in the order they were scheduled, one at a time, on a
 * thread of its own, so queues of different NeuronCores run side by side.
 * A request that fails leaves its NRT_STATUS in the error tracker it was
 * scheduled with, in the order the requests completed.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nrt/nrt.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Execution units: each logical NeuronCore has one of each kind. */
typedef enum {
	NRTA_XU_TENSOR_READ = 0,
	NRTA_XU_TENSOR_WRITE,
	NRTA_XU_TENSOR_OP,	/* tensor operations other than read and write */
	NRTA_XU_COMPUTE,
	NRTA_XU_COLLECTIVES,

	NRTA_XU_TYPE_NUM	/* new kinds go above this one */
} nrta_xu_t;

/*
 * A request's sequence id: the execution unit's id in the top 16 bits,
 * the request's sequence number within that queue (1, 2, ..., strictly
 * increasing) in the low 48.
 */
typedef uint64_t nrta_seq_t;
typedef uint16_t nrta_xu_id_t;

#define NRTA_SEQ_NUM_MAX		((1ull << 48) - 1)
#define NRTA_SEQ_NUM_MASK		NRTA_SEQ_NUM_MAX
#define NRTA_SEQ_GET_SEQ_NUM(seq_id)	((seq_id) & NRTA_SEQ_NUM_MASK)
#define NRTA_SEQ_GET_XU_ID(seq_id)	((seq_id) >> 48)

/* One failed request: its sequence id and its status (an NRT_STATUS). */
typedef struct nrta_error {
	nrta_seq_t seq_id;
	uint64_t error_code;
} nrta_error_t;

#ifdef __cplusplus
static_assert(sizeof(nrta_error_t) == 16, "nrta_error_t must be of size 16");
#else
_Static_assert(sizeof(nrta_error_t) == 16, "nrta_error_t must be of size 16");
#endif

/* Where the failed requests of one logical NeuronCore are kept. */
typedef struct nrta_error_tracker nrta_error_tracker_t;

/*
 * Schedule a write of @size bytes from @buf to device tensor @tensor at
 * @offset, on queue @queue of the TENSOR_WRITE unit of the tensor's
 * logical NeuronCore. @buf must stay valid until the request completes.
 * *@req_sequence: the request's sequence id.
 */
NRT_STATUS nrta_tensor_write(nrt_tensor_t *tensor, const void *buf, uint64_t offset, uint64_t size,
			     int queue, nrta_error_tracker_t *err, nrta_seq_t *req_sequence);

/* Schedule a read of @size bytes at @offset of device tensor @tensor into @buf (TENSOR_READ). */
NRT_STATUS nrta_tensor_read(void *buf, nrt_tensor_t *tensor, uint64_t offset, uint64_t size,
			    int queue, nrta_error_tracker_t *err, nrta_seq_t *req_sequence);

/*
 * Schedule a copy of @size bytes between two device tensors of one logical
 * NeuronCore (TENSOR_OP). Both must stay allocated until it completes.
 */
NRT_STATUS nrta_tensor_copy(nrt_tensor_t *src, uint64_t src_offset, nrt_tensor_t *dst,
			    uint64_t dst_offset, uint64_t size, int queue,
			    nrta_error_tracker_t *err, nrta_seq_t *req_sequence);

/*
 * Schedule an execution of @model with @input and @output (as nrt_execute()
 * takes them) on the COMPUTE unit of the model's logical NeuronCore;
 * @queue must be 0.
 */
NRT_STATUS nrta_execute_schedule(nrt_model_t *model, const nrt_tensor_set_t *input,
				 nrt_tensor_set_t *output, int queue, nrta_error_tracker_t *err,
				 nrta_seq_t *req_sequence);

/* Prepare a host-driven collective operation (see docs/sdk-compat.md). */
NRT_STATUS nrta_cc_prepare(nrt_cc_comm_t *comm, nrt_tensor_list_t *input, nrt_tensor_list_t *output,
			   nrt_dtype_t dtype, nrt_op_type_t op, nrt_cc_op_type_t cc_op,
			   nrt_cc_context_t **cc_ctx);

/* Schedule a prepared collective operation; @queue must be 0. */
NRT_STATUS nrta_cc_schedule(nrt_cc_context_t **cc_ctx, int queue, nrta_error_tracker_t *err,
			    nrta_seq_t *req_sequence);

/*
 * Whether request @seq completed (*@is_completed). NRT_SUCCESS for any
 * request that was scheduled, NRT_INVALID for a sequence id that names
 * none.
 */
NRT_STATUS nrta_is_completed(nrta_seq_t seq, bool *is_completed);

/*
 * The sequence id of the last completed request of queue @queue of
 * execution unit @xu of logical NeuronCore @lnc (sequence number 0: none
 * yet).
 */
NRT_STATUS nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t *seq);

/*
 * A file descriptor that becomes readable (poll(), POLLIN) once request
 * @seq completed. Use it only with poll()/select()/epoll and close(); the
 * caller closes it.
 */
NRT_STATUS nrta_get_completion_handle(nrta_seq_t seq, int *fd);

/* A new error tracker for requests on logical NeuronCore @lnc_idx. */
NRT_STATUS nrta_error_tracker_create(uint32_t lnc_idx, nrta_error_tracker_t **error_tracker);

/* Free an error tracker (NULL: nothing). */
void nrta_error_tracker_destroy(nrta_error_tracker_t *error_tracker);

/*
 * The errors the tracker collected since the previous call, oldest first:
 * *@list (valid until the next call on this tracker or its destruction)
 * and *@error_count.
 */
NRT_STATUS nrta_error_tracker_get_list(nrta_error_tracker_t *error_tracker, const nrta_error_t **list,
				       size_t *error_count);

#ifdef __cplusplus
}
#endif
