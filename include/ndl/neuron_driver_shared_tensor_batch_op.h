/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * One operation of a batched tensor read or write (nrt_tensor_read_batch,
 * nrt_tensor_write_batch in <nrt/nrt.h>): @size bytes at @offset of the
 * batch's tensor, from or into @buffer. The public SDK keeps this type in
 * a header of its own that its driver shares, under this name; names,
 * field types and order follow it (24 bytes under LP64: offset 0, size 8,
 * buffer 16).
 */
#ifndef NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H
#define NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef __u64 nrt_tensor_batch_offset_t;
typedef __u64 nrt_tensor_batch_size_t;
#else
#include <stdint.h>
typedef uint64_t nrt_tensor_batch_offset_t;
typedef uint64_t nrt_tensor_batch_size_t;
#endif

typedef struct nrt_tensor_batch_op {
	nrt_tensor_batch_offset_t offset;	/* bytes into the tensor */
	nrt_tensor_batch_size_t size;		/* bytes to move */
	void *buffer;				/* the caller's memory */
} nrt_tensor_batch_op_t;

#endif /* NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H */
