/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * NDS ("neuron datastore"): the per-process counter slab shared by the
 * runtime (writer, through mmap) and the kernel (aggregator).
 *
 * Byte layout, identical to the vendor driver's 2.19+ slab. All counters
 * are little-endian u64.
 *
 *   0      header: 'n','d','s',0 then a u32 format version (runtime-owned)
 *   8      ND counters, ids 0..30                     (31 x 8 = 248 B)
 *   256    NC counters, NC 0..3 x ids 0..30            (NC n at 256 + 248n)
 *   1248   runtime-private area (not interpreted by the kernel)
 *   55936  EXT NC counters, NC 0..3 x ids 31..94       (NC n at 55936 + 512n)
 *   57984  NC 4..15, ids 0..94 + 1 pad slot            (NC m at 57984 + 768(m-4))
 *   67200  unused tail up to 262144
 */
#ifndef _UAPI_NEURON_NDS_H
#define _UAPI_NEURON_NDS_H

#include <linux/types.h>

#define NEURON_NDS_SIZE			262144	/* bytes per slab */
#define NEURON_NDS_PER_DEVICE		16	/* slabs (processes) per device */
#define NEURON_NDS_MAX_NC		16	/* NeuronCores a slab describes */

#define NEURON_NDS_HEADER_OFF		0
#define NEURON_NDS_SIGNATURE		"nds"	/* 4 bytes with the NUL */
#define NEURON_NDS_ND_OFF		8
#define NEURON_NDS_ND_COUNT		31	/* ND ids 0..30 */
#define NEURON_NDS_NC_OFF		256
#define NEURON_NDS_NC_BASE_COUNT	4	/* NCs in the original sections */
#define NEURON_NDS_NC_COUNT		31	/* NC ids 0..30 */
#define NEURON_NDS_EXT_OFF		55936
#define NEURON_NDS_EXT_COUNT		64	/* EXT ids 31..94 */
#define NEURON_NDS_XNC_OFF		57984	/* NCs 4..15 */
#define NEURON_NDS_XNC_SLOTS		96	/* 95 ids + 1 pad per NC */
#define NEURON_NDS_ID_COUNT		95	/* ids 0..94 per NC */
#define NEURON_NDS_USED_END		67200

/* ND (device-level) counter ids; offset 8 + 8 * id. */
enum neuron_nds_nd_counter {
	NDS_ND_COUNTER_RUNTIME_VERSION = 0,
	NDS_ND_COUNTER_FRAMEWORK_VERSION = 1,
	NDS_ND_COUNTER_FAL_VERSION = 2,
	NDS_ND_COUNTER_FEATURE_BITMAP = 3,
	NDS_ND_COUNTER_MIN_NEFF_VERSION = 4,
	NDS_ND_COUNTER_MAX_NEFF_VERSION = 5,
	NDS_ND_COUNTER_MEM_USAGE_CODE_HOST = 6,
	NDS_ND_COUNTER_MEM_USAGE_TENSORS_HOST = 7,
	NDS_ND_COUNTER_MEM_USAGE_CONSTANTS_HOST = 8,
	NDS_ND_COUNTER_MEM_USAGE_SCRATCHPAD_HOST = 9,
	NDS_ND_COUNTER_MEM_USAGE_MISC_HOST = 10,
	NDS_ND_COUNTER_DYNAMIC_SYSFS_METRIC_BITMAP = 11,
	NDS_ND_COUNTER_DEVICE_CLUSTER_ID = 12,
	/* 13..30 reserved */
	NDS_ND_COUNTER_COUNT = NEURON_NDS_ND_COUNT,
};

/*
 * NC counter ids 0..30. Ids 7..12 are positional (the runtime indexes them
 * by error class), so their order is ABI.
 */
enum neuron_nds_nc_counter {
	NDS_NC_COUNTER_TIME_IN_USE = 0,
	NDS_NC_COUNTER_INFER_COMPLETED = 1,
	NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR = 2,
	NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR = 3,
	NDS_NC_COUNTER_INFER_TIMED_OUT = 4,
	NDS_NC_COUNTER_INFER_INCORRECT_INPUT = 5,
	NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE = 6,
	NDS_NC_COUNTER_ERR_GENERIC = 7,
	NDS_NC_COUNTER_ERR_NUMERICAL = 8,
	NDS_NC_COUNTER_ERR_MODEL = 9,
	NDS_NC_COUNTER_ERR_TRANSIENT = 10,
	NDS_NC_COUNTER_ERR_HW = 11,
	NDS_NC_COUNTER_ERR_RT = 12,
	NDS_NC_COUNTER_LATENCY_DEVICE = 13,
	NDS_NC_COUNTER_LATENCY_TOTAL = 14,
	NDS_NC_COUNTER_NC_TIME = 15,
	NDS_NC_COUNTER_GENERIC_FAIL = 16,
	NDS_NC_COUNTER_ERR_RESOURCE = 17,
	NDS_NC_COUNTER_ERR_RESOURCE_NC = 18,
	NDS_NC_COUNTER_ERR_INVALID = 19,
	NDS_NC_COUNTER_ERR_UNSUPPORTED_NEFF_VERSION = 20,
	NDS_NC_COUNTER_CC_TIME = 21,
	NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE = 22,
	NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE = 23,
	NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE = 24,
	NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE = 25,
	NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE = 26,
	NDS_NC_COUNTER_MODEL_LOAD_COUNT = 27,
	NDS_NC_COUNTER_INFERENCE_COUNT = 28,
	NDS_NC_COUNTER_MAC_COUNT = 29,
	NDS_NC_COUNTER_OOB = 30,
	NDS_NC_COUNTER_COUNT = NEURON_NDS_NC_COUNT,
};

/*
 * Extended NC counter ids 31..40 (41..94 reserved). A 1:1 mirror of the
 * NRT 1200-band plus the four SW error subtypes: the runtime computes
 * some of these by offset, so the order is ABI.
 */
enum neuron_nds_ext_nc_counter {
	NDS_EXT_NC_COUNTER_HW_ERR_COLLECTIVES = 31,
	NDS_EXT_NC_COUNTER_HW_ERR_HBM_UE = 32,
	NDS_EXT_NC_COUNTER_HW_ERR_NC_UE = 33,
	NDS_EXT_NC_COUNTER_HW_ERR_DMA_ABORT = 34,
	NDS_EXT_NC_COUNTER_ERR_SW_NQ_OVERFLOW = 35,
	NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR = 36,
	NDS_EXT_NC_COUNTER_ERR_SW_EVENT_ERROR = 37,
	NDS_EXT_NC_COUNTER_ERR_SW_PSUM_COLLISION = 38,
	NDS_EXT_NC_COUNTER_ERR_SW_SEQUENCER_FATAL = 39,
	NDS_EXT_NC_COUNTER_HW_ERR_REPAIRABLE_HBM_UE = 40,
	NDS_EXT_NC_COUNTER_LAST = 41,		/* first reserved id */
	NDS_EXT_NC_COUNTER_MAX = NEURON_NDS_ID_COUNT,	/* ids end at 94 */
};

/*
 * The offset helpers below are constant expressions in C++14 and later,
 * so a C++ user can build a table from them at compile time (libnrt
 * does). C++11's constexpr functions cannot hold their if statements.
 */
#if defined(__cplusplus) && __cplusplus >= 201402L
#define NEURON_NDS_CONST_FN constexpr
#else
#define NEURON_NDS_CONST_FN
#endif

/*
 * Byte offset of NC counter @id of NeuronCore @nc in a slab, or -1 when
 * (@nc, @id) names no counter. The three regions of the 2.19+ layout.
 */
static inline NEURON_NDS_CONST_FN __s64 neuron_nds_nc_offset(__u32 nc, __u32 id)
{
	if (nc >= NEURON_NDS_MAX_NC || id >= NEURON_NDS_ID_COUNT)
		return -1;
	if (nc < NEURON_NDS_NC_BASE_COUNT) {
		if (id < NEURON_NDS_NC_COUNT)
			return NEURON_NDS_NC_OFF +
			       8 * (NEURON_NDS_NC_COUNT * nc + id);
		return NEURON_NDS_EXT_OFF +
		       8 * (NEURON_NDS_EXT_COUNT * nc + (id - NEURON_NDS_NC_COUNT));
	}
	return NEURON_NDS_XNC_OFF +
	       8 * (NEURON_NDS_XNC_SLOTS * (nc - NEURON_NDS_NC_BASE_COUNT) + id);
}

/* Byte offset of ND counter @id, or -1. */
static inline NEURON_NDS_CONST_FN __s64 neuron_nds_nd_offset(__u32 id)
{
	if (id >= NEURON_NDS_ND_COUNT)
		return -1;
	return NEURON_NDS_ND_OFF + 8 * id;
}

#ifdef __cplusplus
#define NEURON_NDS_ASSERT(c, m) static_assert(c, m)
#else
#define NEURON_NDS_ASSERT(c, m) _Static_assert(c, m)
#endif

NEURON_NDS_ASSERT(NEURON_NDS_ND_OFF + 8 * NEURON_NDS_ND_COUNT == NEURON_NDS_NC_OFF,
		  "ND counters end where NC counters start");
NEURON_NDS_ASSERT(NEURON_NDS_NC_OFF + 8 * NEURON_NDS_NC_COUNT * NEURON_NDS_NC_BASE_COUNT == 1248,
		  "NC 0..3 end at 1248");
NEURON_NDS_ASSERT(NEURON_NDS_EXT_OFF == ((44588 + 11296 + 63) / 64) * 64,
		  "EXT section is the 64-aligned end of the legacy area");
NEURON_NDS_ASSERT(NEURON_NDS_XNC_OFF ==
		  ((NEURON_NDS_EXT_OFF + 8 * NEURON_NDS_EXT_COUNT * NEURON_NDS_NC_BASE_COUNT + 63) / 64) * 64,
		  "extra-NC section is the 64-aligned end of EXT");
NEURON_NDS_ASSERT(NEURON_NDS_XNC_OFF + 8 * NEURON_NDS_XNC_SLOTS *
		  (NEURON_NDS_MAX_NC - NEURON_NDS_NC_BASE_COUNT) == NEURON_NDS_USED_END,
		  "extra-NC section ends at 67200");
NEURON_NDS_ASSERT(NEURON_NDS_USED_END <= NEURON_NDS_SIZE, "layout fits the slab");
NEURON_NDS_ASSERT(NEURON_NDS_NC_COUNT + NEURON_NDS_EXT_COUNT == NEURON_NDS_ID_COUNT,
		  "95 ids per NC");

#endif /* _UAPI_NEURON_NDS_H */
