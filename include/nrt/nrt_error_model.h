/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The Neuron error model beyond the bare NRT_STATUS enum: classification
 * and aggregation of statuses, errno -> NRT_STATUS per syscall site, the
 * decode of error-notification ring entries into a status, and the maps
 * from a result to the NDS NeuronCore counters it increments.
 *
 * Everything here is pure: no allocation, no I/O (except
 * nrt_decode_config_from_env(), which reads two environment variables),
 * no global state. Valid C11 and C++. The decisions behind each table are
 * in docs/error-model.md.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * L1: the status space
 * ==================================================================== */

/* Number of assigned NRT_STATUS codes. */
#define NRT_STATUS_CODE_COUNT	28

/*
 * The band a code belongs to. Only the 28 assigned codes have a band:
 * unassigned values inside a band's numeric range (8, 12, 1007, ...) are
 * NRT_STATUS_BAND_UNKNOWN, like every value outside all ranges.
 */
typedef enum nrt_status_band {
	NRT_STATUS_BAND_UNKNOWN = 0,
	NRT_STATUS_BAND_GENERAL = 1,		/* 0..15 */
	NRT_STATUS_BAND_EXEC_UNIT = 2,		/* 101 */
	NRT_STATUS_BAND_EXEC = 3,		/* 1002..1006 */
	NRT_STATUS_BAND_COLL_PENDING = 4,	/* 1100 */
	NRT_STATUS_BAND_HW_EXEC = 5,		/* 1200..1206 */
} nrt_status_band_t;

nrt_status_band_t nrt_status_band(NRT_STATUS status);

/* "general", "exec_unit", "exec", "coll_pending", "hw_exec", "unknown". */
const char *nrt_status_band_name(nrt_status_band_t band);

/* True when @status is one of the 28 assigned codes. */
bool nrt_status_is_valid(NRT_STATUS status);

/*
 * True only for NRT_COLL_PENDING: the operation has not finished and the
 * caller should poll again. It is not a failure.
 */
bool nrt_status_is_retry(NRT_STATUS status);

/*
 * Look a code up by name. Case-insensitive; the "NRT_" prefix is optional
 * ("NRT_EXEC_OOB", "exec_oob"). "UNKNOWN" is not a name. Returns false and
 * leaves *@out untouched when nothing matches or an argument is NULL.
 */
bool nrt_status_from_name(const char *name, NRT_STATUS *out);

/*
 * The @index-th assigned code in ascending order (0 <= index < 28).
 * Returns false for an index past the end.
 */
bool nrt_status_code_at(size_t index, NRT_STATUS *out);

/*
 * Keep the highest-priority status of @statuses[0..@n) by
 * nrt_get_status_priority(). Tie rule: among equal priority the first one
 * in array order wins, so the result never depends on anything but the
 * input order. n == 0 -> NRT_SUCCESS; statuses == NULL with n > 0 ->
 * NRT_INVALID. Unknown values take part with priority 1.
 */
NRT_STATUS nrt_status_fold(const NRT_STATUS *statuses, size_t n);

/* nrt_status_fold() of {@a, @b}: @a wins a tie. */
NRT_STATUS nrt_status_merge(NRT_STATUS a, NRT_STATUS b);

/* ======================================================================
 * Kernel errno -> NRT_STATUS, per syscall site
 * ==================================================================== */

/*
 * The places where libnrt turns a failed syscall into an NRT_STATUS. Each
 * has its own table; the same errno can mean different things at
 * different sites. Values are stable; new sites are appended.
 */
typedef enum nrt_syscall_site {
	NRT_SITE_OPEN = 0,		/* open("/dev/neuronN") */
	NRT_SITE_GET_INFO = 1,		/* NEURON_IOCTL_GET_INFO */
	NRT_SITE_NDS_ACQUIRE = 2,	/* acquire an NDS counter slab */
	NRT_SITE_NDS_MMAP = 3,		/* mmap of the NDS slab */
	NRT_SITE_COUNTER_ADD = 4,	/* add to an NDS counter */
	NRT_SITE_NQ_INIT = 5,		/* set up a notification queue */
	NRT_SITE_NQ_MMAP = 6,		/* mmap of a notification ring */
	NRT_SITE_CORE_RESERVE = 7,	/* reserve NeuronCores */
	NRT_SITE_EXEC = 8,		/* submit / wait for an execution */
	NRT_SITE_MEM = 9,		/* device/host memory: MEM_ALLOC/FREE/READ/WRITE/SET */
	NRT_SITE_COUNT = 10,
} nrt_syscall_site_t;

/* The kernel-internal "operation not supported" (not in userspace errno.h). */
#define NRT_ENOTSUPP	524

typedef struct nrt_errno_row {
	int32_t err;		/* positive errno */
	NRT_STATUS status;
} nrt_errno_row_t;

/*
 * Map @err (positive errno, or the negative value an ioctl wrapper
 * returns) seen at @site. 0 -> NRT_SUCCESS at every site. An errno the
 * site's table does not list gets the site's default. An unknown @site
 * -> NRT_FAILURE.
 */
NRT_STATUS nrt_status_from_errno(nrt_syscall_site_t site, int err);

/* The status an unlisted errno gets at @site (NRT_FAILURE for a bad site). */
NRT_STATUS nrt_errno_map_default(nrt_syscall_site_t site);

/*
 * Copy up to @cap rows of @site's table (ascending errno) into @rows.
 * Returns the table's row count (0 for a bad site); @rows may be NULL
 * when @cap is 0.
 */
size_t nrt_errno_map_rows(nrt_syscall_site_t site, nrt_errno_row_t *rows, size_t cap);

/* "open", "get_info", ...; "unknown" for a bad site. Never NULL. */
const char *nrt_syscall_site_name(nrt_syscall_site_t site);

/*
 * Site by name, case-insensitive, with or without the "NRT_SITE_" prefix
 * ("exec", "NRT_SITE_EXEC"). False when nothing matches.
 */
bool nrt_syscall_site_from_name(const char *name, nrt_syscall_site_t *out);

/* "EBUSY" for 16 or -16, "ENOTSUPP" for 524; NULL when not known. */
const char *nrt_errno_name(int err);

/*
 * Positive errno for a name ("EBUSY", case-insensitive; the aliases
 * EWOULDBLOCK and ENOTSUP are accepted), or 0 when not known.
 */
int nrt_errno_from_name(const char *name);

/* ======================================================================
 * L3 -> L2 -> L1: error-notification decode
 * ==================================================================== */

/* INFER_ERROR_SUBTYPE: the runtime's classification of a TPB error. */
typedef enum nrt_infer_error_subtype {
	NRT_INFER_ERROR_SUBTYPE_NONE = 0,
	NRT_INFER_ERROR_SUBTYPE_NUMERICAL = 1,
	NRT_INFER_ERROR_SUBTYPE_TRANSIENT = 2,
	NRT_INFER_ERROR_SUBTYPE_MEMORY_ERROR = 3,
	NRT_INFER_ERROR_SUBTYPE_SW_FAKE_ERROR = 4,
	NRT_INFER_ERROR_SUBTYPE_SW_SEMAPHORE_ERROR = 5,
	NRT_INFER_ERROR_SUBTYPE_SW_EVENT_ERROR = 6,
	NRT_INFER_ERROR_SUBTYPE_SW_PSUM_COLLISION_ERROR = 7,
	NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR = 8,
	NRT_INFER_ERROR_SUBTYPE_MAX = 9,
} nrt_infer_error_subtype_t;

/* Entries of the TPB error type -> subtype remap table. */
#define NRT_TPB_REMAP_COUNT	12
/* Slots of nrt_infer_errors_t.hw_error_flags (enum neuron_nq_hw_error). */
#define NRT_HW_FAULT_SLOTS	6

/*
 * What one execution's error entries said. Zero it (or call
 * nrt_infer_errors_clear()) before the first entry. Every flag byte is 0
 * or 1; the counts saturate at UINT32_MAX. 24 bytes.
 */
typedef struct nrt_infer_errors {
	/* [subtype]: an entry of that INFER_ERROR_SUBTYPE was seen */
	uint8_t infer_error_flags[NRT_INFER_ERROR_SUBTYPE_MAX];
	/* an accepted entry carried the SW-overflow header bit */
	uint8_t nq_overflow;
	/* [enum neuron_nq_hw_error]: that hardware fault was seen; [0] unused */
	uint8_t hw_error_flags[NRT_HW_FAULT_SLOTS];
	uint32_t entries;	/* entries accepted */
	uint32_t malformed;	/* entries rejected: unknown type or error_id */
} nrt_infer_errors_t;

/*
 * Whether a NaN (the NUMERICAL subtype; FP_INF remaps to NONE) fails an execution with
 * NRT_EXEC_COMPLETED_WITH_NUM_ERR. When disarmed the flag is still set
 * and counted, but the status is unaffected.
 */
typedef struct nrt_decode_config {
	bool numerical_armed;
} nrt_decode_config_t;

/*
 * Arming policy from the two knobs' values (NULL = unset): armed iff
 * @fail_on_nan is a decimal integer other than 0 (optional sign, nothing
 * else) and @verbosity is not "none" (case-insensitive; unset counts as
 * not "none").
 */
nrt_decode_config_t nrt_decode_config_parse(const char *fail_on_nan, const char *verbosity);

/* nrt_decode_config_parse() of NEURON_FAIL_ON_NAN and
 * NEURON_RT_NUMERICAL_ERRORS_VERBOSITY. */
nrt_decode_config_t nrt_decode_config_from_env(void);

/*
 * The sunda_error_subtypes remap: TPB error type (index 0..11) ->
 * INFER_ERROR_SUBTYPE, table {0,1,0,0,3,4,5,6,7,2,8,0}. -1 past index 11.
 */
int nrt_decode_tpb_subtype(uint32_t tpb_type);

/*
 * Hardware fault (enum neuron_nq_hw_error, 1..5) -> its 1200-band status.
 * False for any other value.
 */
bool nrt_decode_hw_error(uint32_t hw_error, NRT_STATUS *status);

void nrt_infer_errors_clear(nrt_infer_errors_t *errs);

/*
 * Accumulate one TPB error type (0..10). 0 when accepted; -1 when out of
 * range (counted in ->malformed) or @errs is NULL.
 */
int nrt_infer_errors_add_tpb(nrt_infer_errors_t *errs, uint32_t tpb_type);

/* Accumulate one hardware fault (1..5); same return as above. */
int nrt_infer_errors_add_hw(nrt_infer_errors_t *errs, uint32_t hw_error);

/* Record that the ring overflowed (entries were lost). */
void nrt_infer_errors_add_overflow(nrt_infer_errors_t *errs);

struct neuron_nq_entry;

/*
 * Decode one 16-byte error-ring entry (struct neuron_nq_entry,
 * <neuron/neuron_nq.h>) into @errs. Header bits [4:0] select the type:
 * 0x1f TPB_ERROR (error_id = TPB error type 0..10) or 0x03 ERROR
 * (error_id = hardware fault 1..5). Bit 5 (SW overflow) of an accepted
 * entry sets ->nq_overflow. Anything else is malformed: counted in
 * ->malformed, contributing nothing else; returns -1. 0 when accepted.
 * Bits 6 (HW overflow) and 7 (phase) are not interpreted here.
 */
int nrt_decode_nq_entry(nrt_infer_errors_t *errs, const struct neuron_nq_entry *entry);

/*
 * Collapse @errs into one status. Candidates, in this fixed order:
 * hardware faults 1200, 1201, 1202, 1203, 1205; 1004 for any of subtypes
 * MEMORY_ERROR..SW_SEQUENCER_ERROR; 1204 for overflow; 1003 for NUMERICAL
 * when @cfg arms it (@cfg NULL = disarmed). TRANSIENT and NONE add no
 * candidate. The candidates are folded (nrt_status_fold), so a hardware
 * fault beats 1004 at equal priority. Nothing (or @errs NULL) ->
 * NRT_SUCCESS.
 */
NRT_STATUS nrt_infer_errors_status(const nrt_infer_errors_t *errs,
				   const nrt_decode_config_t *cfg);

/* ======================================================================
 * L1 -> L5: NDS NeuronCore counter bridge (ids of <neuron/neuron_nds.h>)
 * ==================================================================== */

/* Upper bound of ids nrt_bridge_counters_for_execution() returns. */
#define NRT_BRIDGE_MAX_EXEC_COUNTERS	16

/*
 * The generic-status map of the 1..10 core band:
 * 1->16, 2->19, 4->17, 9->18, 10->20; -1 (no counter) for everything else.
 */
int nrt_bridge_generic_status_counter(NRT_STATUS status);

/*
 * 1200..1205 -> EXT counters 31, 32, 33, 34, 35, 40; -1 otherwise
 * (1206 has no counter).
 */
int nrt_bridge_hw_status_counter(NRT_STATUS status);

/*
 * The per-execution outcome counter: 0->1, 1004->2, 1003->3, 5->4,
 * 1002->5, 7->6, 6->11, 1006->30, 1200..1205->2; -1 otherwise.
 */
int nrt_bridge_outcome_counter(NRT_STATUS status);

/*
 * EXT counters of the SW subtypes set in @errs: subtype 5..8 -> 36..39,
 * ascending. Writes up to @cap ids; returns how many there are (may
 * exceed @cap), or -1 when @errs is NULL.
 */
int nrt_bridge_error_stats_counters(const nrt_infer_errors_t *errs,
				    uint32_t out_ids[], size_t cap);

/*
 * Every NC/EXT counter id one execution with result @final_status (and
 * ring errors @errs, may be NULL) increments by one: the outcome,
 * generic and hardware counters of @final_status, plus from @errs the
 * hardware-fault and overflow counters (31..35, 40), the SW subtype
 * counters (36..39), ERR_NUMERICAL (8) and ERR_TRANSIENT (10). Each id at
 * most once, ascending. Writes up to @cap ids, returns the full count
 * (<= NRT_BRIDGE_MAX_EXEC_COUNTERS).
 */
size_t nrt_bridge_counters_for_execution(NRT_STATUS final_status,
					 const nrt_infer_errors_t *errs,
					 uint32_t out_ids[], size_t cap);

/* Durations of one execution, nanoseconds (a monotonic clock: libnrt's execution paths take the driver's job_ns). */
typedef struct nrt_exec_times {
	uint64_t device_ns;	/* -> LATENCY_DEVICE (13) */
	uint64_t total_ns;	/* -> LATENCY_TOTAL (14) */
	uint64_t nc_ns;		/* -> NC_TIME (15) */
	uint64_t cc_ns;		/* -> CC_TIME (21) */
} nrt_exec_times_t;

typedef struct nrt_counter_add {
	uint32_t id;		/* NC counter id */
	uint32_t reserved;	/* 0 */
	uint64_t value;		/* amount to add */
} nrt_counter_add_t;

#define NRT_BRIDGE_TIME_COUNTERS	4

/*
 * The time counters one execution adds to: 13, 14, 15, 21 in that order,
 * each the duration in microseconds (u64, rounded to nearest). Writes up
 * to @cap entries; returns 4, or 0 when @times is NULL.
 */
size_t nrt_bridge_time_counters(const nrt_exec_times_t *times,
				nrt_counter_add_t out[], size_t cap);

/* What the kernel side shows for one NC/EXT counter id. */
typedef struct nrt_counter_info {
	uint32_t id;
	int32_t cw_id;			/* CloudWatch metric id, -1 if none */
	const char *name;		/* "ERR_SW_NQ_OVERFLOW" */
	const char *sysfs_group;	/* "status", "other_info" or NULL */
	const char *sysfs_attr;		/* file under neuron_coreK/stats/<group>/ */
} nrt_counter_info_t;

/* Fill @out for counter @id (0..40); false for an unnamed id. */
bool nrt_bridge_counter_info(uint32_t id, nrt_counter_info_t *out);

#ifdef __cplusplus
}
#endif
