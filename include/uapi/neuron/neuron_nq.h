/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Notification queues: the ring entry format the device writes and the
 * runtime drains. The kernel allocates and exposes rings; it never
 * classifies entries.
 */
#ifndef _UAPI_NEURON_NQ_H
#define _UAPI_NEURON_NQ_H

#include <linux/types.h>

/* NQ types (per NeuronCore, per engine index). */
enum neuron_nq_type {
	NEURON_NQ_TYPE_TRACE = 0,	/* implicit, per instruction */
	NEURON_NQ_TYPE_NOTIFY = 1,	/* explicit instruction */
	NEURON_NQ_TYPE_EVENT = 2,	/* event set/clear */
	NEURON_NQ_TYPE_ERROR = 3,	/* errors: what libnrt decodes */
	NEURON_NQ_TYPE_TRACE_DMA = 4,	/* DMA generated */
	NEURON_NQ_TYPE_THROTTLE = 5,	/* throttling */
	NEURON_NQ_TYPE_MAX = 6,
};

/*
 * One ring entry, 16 bytes.
 *  byte 0      error_id (TPB_ERROR: enum neuron_tpb_error_type;
 *              ERROR: enum neuron_nq_hw_error)
 *  bytes 1-2   metadata_lo
 *  byte 3      header: [4:0] notific_type, bit5 SW overflow (entries were
 *              dropped before this one because the ring was full), bit6 HW
 *              overflow, bit7 phase (flips on each wrap of the ring)
 *  bytes 4-7   metadata_hi
 *  bytes 8-15  timestamp, picoseconds
 */
struct neuron_nq_entry {
	__u8 error_id;
	__u8 metadata_lo[2];
	__u8 header;
	__u32 metadata_hi;
	__aligned_u64 timestamp_ps;
};

#define NEURON_NQ_ENTRY_SIZE		16
#define NEURON_NQ_HDR_TYPE_MASK		0x1f
#define NEURON_NQ_HDR_SW_OVERFLOW	0x20
#define NEURON_NQ_HDR_HW_OVERFLOW	0x40
#define NEURON_NQ_HDR_PHASE		0x80

/* notific_type values (header bits [4:0]). */
#define NEURON_NQ_NOTIFIC_DMA		0x02
#define NEURON_NQ_NOTIFIC_ERROR		0x03	/* hardware fault, see below */
#define NEURON_NQ_NOTIFIC_TPB_ERROR	0x1f	/* TPB execution error */

/* NEURON_ISA_TPB_ERROR_TYPE: error_id of a TPB_ERROR entry. */
enum neuron_tpb_error_type {
	NEURON_TPB_ERROR_FP_UNDERFLOW = 0,
	NEURON_TPB_ERROR_FP_NAN = 1,
	NEURON_TPB_ERROR_FP_INF = 2,
	NEURON_TPB_ERROR_FP_OVERFLOW = 3,
	NEURON_TPB_ERROR_MEMORY_ERROR = 4,
	NEURON_TPB_ERROR_FAKE_ERROR = 5,
	NEURON_TPB_ERROR_SEMAPHORE_ERROR = 6,
	NEURON_TPB_ERROR_EVENT_ERROR = 7,
	NEURON_TPB_ERROR_PSUM_COLLISION = 8,
	NEURON_TPB_ERROR_SEQUENCER_NONFATAL = 9,
	NEURON_TPB_ERROR_SEQUENCER_FATAL = 10,
	NEURON_TPB_ERROR_COUNT = 11,
};

/*
 * error_id of an ERROR (0x03) entry: the hardware faults the runtime maps
 * to the NRT 1200-band. These codes are this driver's own (the vendor
 * encoding is not public); 0 is never used so a zeroed entry is invalid.
 */
enum neuron_nq_hw_error {
	NEURON_NQ_HW_COLLECTIVES = 1,		/* -> NRT_EXEC_HW_ERR_COLLECTIVES */
	NEURON_NQ_HW_HBM_UE = 2,		/* -> NRT_EXEC_HW_ERR_HBM_UE */
	NEURON_NQ_HW_NC_UE = 3,			/* -> NRT_EXEC_HW_ERR_NC_UE */
	NEURON_NQ_HW_DMA_ABORT = 4,		/* -> NRT_EXEC_HW_ERR_DMA_ABORT */
	NEURON_NQ_HW_REPAIRABLE_HBM_UE = 5,	/* -> NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE */
	NEURON_NQ_HW_COUNT = 6,
};

/*
 * A ring as mapped by NEURON_IOCTL_NQ_INIT's mmap_offset: this control
 * area at offset 0 of the mapping, the entries at NEURON_NQ_RING_OFFSET.
 *
 * Indexes are free-running u32 entry counts (wrap modulo 2^32); the slot of
 * index i is i & (entries - 1). Entry i carries phase bit
 * (((i / entries) + 1) & 1): 1 on the first lap, so a zeroed ring reads as
 * empty, and flipping on every wrap. A consumer reads the entry at its head
 * while its phase bit is the one expected for the head's lap, then
 * publishes the new head. Entries become visible header last.
 *
 * When the ring is full (tail - head >= entries, or a head that is not
 * within the last lap) the producer drops the entry, counts it in @dropped
 * and sets NEURON_NQ_HDR_SW_OVERFLOW on the next entry it writes.
 */
struct neuron_nq_ctrl {
	__u32 head;		/* consumer index; written by userspace only */
	__u32 pad0;		/* zero */
	__u32 tail;		/* producer index; written by the device only */
	__u32 entries;		/* ring capacity in entries; constant */
	__aligned_u64 dropped;		/* entries dropped on a full ring; device */
	__aligned_u64 written;		/* entries written since init; device */
	__aligned_u64 reserved[4];	/* zero */
};

/* The phase bit entry @index carries in a ring of @entries (a power of two). */
static inline __u8 neuron_nq_phase(__u32 index, __u32 entries)
{
	return ((index / entries) + 1) & 1 ? NEURON_NQ_HDR_PHASE : 0;
}

#define NEURON_NQ_RING_OFFSET	4096	/* entries start one page into the map */
#define NEURON_NQ_MIN_SIZE	256	/* ring bytes: 16 entries */
#define NEURON_NQ_MAX_SIZE	(1U << 20)	/* ring bytes: 65536 entries */
#define NEURON_NQ_MAX_ENGINE	16	/* engine index 0..15 */

#endif /* _UAPI_NEURON_NQ_H */
