/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NRT_STATUS: the return code of every nrt_* entry point.
 *
 * Values, names and the band partitioning follow the runtime's DWARF enum
 * (28 enumerators, 4 bytes, unsigned). The gaps (8, 12, 16..100, 102..1001,
 * 1007..1099, 1101..1199) are deliberate band boundaries, not missing codes.
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * In C++ the enum gets its reference underlying type (uint32_t), so every
 * 32-bit value is a valid NRT_STATUS there too (an unknown code is not
 * undefined behaviour when loaded); in C it is a 4-byte unsigned enum.
 */
typedef enum
#ifdef __cplusplus
	: uint32_t
#endif
{
	/* 0..15: general / lifecycle core */
	NRT_SUCCESS = 0,
	NRT_FAILURE = 1,			/* non-specific failure */
	NRT_INVALID = 2,			/* invalid argument, NEFF, tensor... */
	NRT_INVALID_HANDLE = 3,			/* invalid handle passed */
	NRT_RESOURCE = 4,			/* failed to allocate a resource */
	NRT_TIMEOUT = 5,			/* operation timed out */
	NRT_HW_ERROR = 6,			/* hardware failure */
	NRT_QUEUE_FULL = 7,			/* execution input queue full */
	NRT_LOAD_NOT_ENOUGH_NC = 9,		/* not enough NeuronCores to load */
	NRT_UNSUPPORTED_NEFF_VERSION = 10,	/* NEFF version not supported */
	NRT_FAIL_HOST_MEM_ALLOC = 11,		/* host memory allocation failed */
	NRT_UNINITIALIZED = 13,			/* called before nrt_init() */
	NRT_CLOSED = 14,			/* called after nrt_close() */
	NRT_QUEUE_EMPTY = 15,			/* accessed a queue with no data */

	/* 101: exec-unit band */
	NRT_EXEC_UNIT_UNRECOVERABLE = 101,	/* execution unit cannot continue */

	/* 1002..1006: per-inference execution */
	NRT_EXEC_BAD_INPUT = 1002,		/* invalid input submitted to exec */
	NRT_EXEC_COMPLETED_WITH_NUM_ERR = 1003,	/* completed with a NaN (TPB FP_INF maps to NONE) */
	NRT_EXEC_COMPLETED_WITH_ERR = 1004,	/* completed with other errors */
	NRT_EXEC_NC_BUSY = 1005,		/* NeuronCore owned by another process */
	NRT_EXEC_OOB = 1006,			/* indirect copy / embedding OOB */

	/* 1100: collectives pending (a retry signal, not a failure) */
	NRT_COLL_PENDING = 1100,

	/* 1200..1206: hardware-execution subcategories */
	NRT_EXEC_HW_ERR_COLLECTIVES = 1200,	/* stuck collective */
	NRT_EXEC_HW_ERR_HBM_UE = 1201,		/* unrepairable HBM UE */
	NRT_EXEC_HW_ERR_NC_UE = 1202,		/* NeuronCore SRAM parity */
	NRT_EXEC_HW_ERR_DMA_ABORT = 1203,	/* DMA engine abort */
	NRT_EXEC_SW_NQ_OVERFLOW = 1204,		/* error notification ring overflow */
	NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE = 1205, /* repairable HBM UE */
	NRT_NETWORK_PROXY_FAILURE = 1206,	/* network proxy failure */
} NRT_STATUS;

#ifdef __cplusplus
static_assert(sizeof(NRT_STATUS) == 4, "NRT_STATUS is 4 bytes");
#else
_Static_assert(sizeof(NRT_STATUS) == 4, "NRT_STATUS is 4 bytes");
#endif

/*
 * The bare identifier of @status ("NRT_EXEC_SW_NQ_OVERFLOW"), or "UNKNOWN"
 * for any value that is not one of the 28 codes. Never NULL.
 */
const char *nrt_get_status_as_str(NRT_STATUS status);

/*
 * Severity rank 0..3 of @status, used to pick one status when several race
 * (3 wins). The vendor runtime's value gates, reproduced verbatim and
 * defined for every 32-bit value (compared unsigned):
 *   0 -> 0; 5, 6 -> 2; 1004 -> 3; 1200..1203, 1205 -> 3; 1204, 1206 -> 2;
 *   everything else (other codes, gaps, unknown values) -> 1.
 * The rank is not monotonic in the value: 1004 (3) outranks 1206 (2).
 * See nrt_status_fold() in <nrt/nrt_error_model.h>.
 */
int nrt_get_status_priority(NRT_STATUS status);

#ifdef __cplusplus
}
#endif
