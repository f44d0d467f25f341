/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The metrics post to firmware ("CloudWatch" over FW-IO POST_TO_CW):
 * metric definitions, aggregation arithmetic (deltas against the last
 * successful post) and the blob format. Pure logic, shared by neuron.ko
 * (neuron_metrics.c builds and posts, sim/neuron_sim_fw.c decodes and
 * validates) and the host tests.
 *
 * Blob: records [u8 cw_id][u8 len][len ASCII bytes], back to back, no
 * terminator, at most NEURON_METRIC_BLOB_MAX bytes.
 *
 * Cadence (the reference's): each post is one tick and sends one blob.
 * Ticks alternate 0, 1, 0, ...; a definition is due on tick 0, on tick 1
 * or on every tick (NEURON_METRIC_TICK_*). A due record that does not fit
 * in the blob is left out (later, smaller ones may still fit); unlike the
 * reference, its baseline does not move, so its delta goes out with the
 * next post of its tick.
 */
#ifndef NEURON_METRICS_PACK_H
#define NEURON_METRICS_PACK_H

#include "neuron_pure.h"

#define NEURON_METRIC_BLOB_MAX		128	/* bytes; the DATA window */
#define NEURON_METRIC_TEXT_MAX		63	/* longest value string */

/* NMETRIC_CW_ID values that are not NDS counters. */
#define NEURON_CW_ID_FW_IO_ERROR_COUNT	11
#define NEURON_CW_ID_INSTANCE_ID	12
#define NEURON_CW_ID_DRIVER_VERSION	13
#define NEURON_CW_ID_FEATURE_BITMAP	250
#define NEURON_CW_ID_DEVICE_CLUSTER_ID	252
/* driver (reset) metrics 50..55: NEURON_CW_ID_RESET + NEURON_METRIC_RESET_* */
#define NEURON_CW_ID_RESET		50
#define NEURON_CW_ID_PERF_PROFILE	56
/* version metrics: first id of ND 0 (runtime), ND 1 (framework), ND 2 (FAL) */
#define NEURON_CW_ID_RT_VERSION		180
#define NEURON_CW_ID_FW_VERSION		190
#define NEURON_CW_ID_FAL_VERSION	195

/* Ticks: which posts a definition goes out on (a bit per tick). */
#define NEURON_METRIC_TICKS		2	/* ticks alternate 0, 1, 0, ... */
#define NEURON_METRIC_TICK_0		0x1
#define NEURON_METRIC_TICK_1		0x2
#define NEURON_METRIC_TICK_ALWAYS	(NEURON_METRIC_TICK_0 | NEURON_METRIC_TICK_1)
/* neuron_metric_build_tick(): every definition regardless of tick */
#define NEURON_METRIC_TICK_ALL		0xFF

/* COUNTER definitions: NDS NC/EXT counter ids, in posting order. */
#define NEURON_METRIC_COUNTERS		28
extern const u8 neuron_metric_counter_ids[NEURON_METRIC_COUNTERS];

/* The CloudWatch id counter definition @slot is posted as (0 if none). */
u8 neuron_metric_counter_cw_id(u32 slot);

/*
 * The ticks (NEURON_METRIC_TICK_* mask) a CloudWatch id is posted on; 0 for
 * an id this driver never posts.
 */
u8 neuron_metric_id_ticks(u8 cw_id);

/* Aggregation state: slots 0..27 are the counter defs, 28 the FW-IO errors. */
#define NEURON_METRIC_SLOT_FW_IO_ERR	NEURON_METRIC_COUNTERS
#define NEURON_METRIC_SLOTS		(NEURON_METRIC_COUNTERS + 1)
#define NEURON_METRIC_SLOT_NONE		(-1)

/*
 * 3 constants + 8 version records (2 + 4 + 2) + 28 counters + FW-IO errors +
 * bitmap + cluster id + 6 driver metrics.
 */
#define NEURON_METRIC_MAX_RECS		48

/* ---- version metrics (ND counters 0, 1, 2) ------------------------------ */

#define NEURON_METRIC_VERSIONS		3	/* ND 0 runtime, 1 framework, 2 FAL */
#define NEURON_METRIC_HIST_SLOTS	8
#define NEURON_METRIC_VERSION_TOP	2	/* values posted per version metric */
/* longest version string: "255.255.4294967295" */
#define NEURON_METRIC_VERSION_LEN	18

/**
 * struct neuron_metric_hist - the values one version metric saw, by use
 * @value:	a version (ND counter value); 0 marks a free slot
 * @count:	how many times @value was seen
 */
struct neuron_metric_hist {
	u64 value[NEURON_METRIC_HIST_SLOTS];
	u32 count[NEURON_METRIC_HIST_SLOTS];
};

/*
 * Count @v @count times: a value already there adds to its count; a new
 * one takes a free slot, else replaces the least used (the first of equal
 * counts). 0 (no version) is ignored, as is @count 0.
 */
void neuron_metric_hist_add(struct neuron_metric_hist *h, u64 v, u32 count);
/* Add every slot of @src to @h. */
void neuron_metric_hist_merge(struct neuron_metric_hist *h, const struct neuron_metric_hist *src);
/*
 * Take @done (an earlier copy of @h, delivered) out of @h: each value's
 * count drops by its count in @done; a slot reaching 0 is freed. What was
 * added to @h since the copy stays. A value @h no longer has is skipped.
 */
void neuron_metric_hist_sub(struct neuron_metric_hist *h, const struct neuron_metric_hist *done);
/*
 * The up to NEURON_METRIC_VERSION_TOP most used values of @h, highest
 * count first (equal counts: the higher value first) in @top. Returns how
 * many.
 */
u32 neuron_metric_hist_top(const struct neuron_metric_hist *h,
			   u64 top[NEURON_METRIC_VERSION_TOP]);

/*
 * The version encoding (nds-sysfs-metrics.md 1.5): bits 40-47 major, 32-39
 * minor, 0-31 build; bits 48-63 carry the framework type, posted as
 * (bits 48-63) % 10.
 */
static inline u32 neuron_metric_version_type(u64 v)
{
	return (u32)((v >> 48) % 10);
}

/* True when @v has no major, minor or build (only, perhaps, a type). */
static inline bool neuron_metric_version_bare(u64 v)
{
	return !(v & 0xFFFFFFFFFFFFULL);
}

/*
 * "major.minor.build" of @v into @buf (at least NEURON_METRIC_VERSION_LEN
 * bytes, not NUL-terminated). Returns the length.
 */
u32 neuron_metric_version_str(u64 v, char *buf);

/* ---- driver (reset) metrics, CW 50..55 ----------------------------------- */

/* What the device (0) and NeuronCore (1) resets are posted as: the CW ids. */
#define NEURON_METRIC_RESET_KINDS	2	/* device, NeuronCore (TPB) */
#define NEURON_METRIC_RESET_DEV		0
#define NEURON_METRIC_RESET_NC		1
/* offset from NEURON_CW_ID_RESET: field * 2 + kind */
#define NEURON_METRIC_RESET_MAX		0
#define NEURON_METRIC_RESET_AVG		1
#define NEURON_METRIC_RESET_FAIL	2
#define NEURON_METRIC_RESET_FIELDS	3

/**
 * struct neuron_metric_reset_window - resets of one kind over a window
 * @max_ms:	the longest reset that completed
 * @total_ms:	sum of the completed resets' durations
 * @count:	resets that completed
 * @failures:	resets that failed (did not complete)
 */
struct neuron_metric_reset_window {
	u64 max_ms;
	u64 total_ms;
	u64 count;
	u64 failures;
};

/* A reset completed in @ms. */
void neuron_metric_reset_sample(struct neuron_metric_reset_window *w, u64 ms);
/* A reset failed. */
void neuron_metric_reset_failure(struct neuron_metric_reset_window *w);
/* Fold @src into @w (max of the maxima, sums of the rest). */
void neuron_metric_reset_merge(struct neuron_metric_reset_window *w,
			       const struct neuron_metric_reset_window *src);
/* Average ms of the completed resets, rounded down; 0 with none. */
u64 neuron_metric_reset_avg(const struct neuron_metric_reset_window *w);
/* Zero what field @field (NEURON_METRIC_RESET_*) of @w posts. */
void neuron_metric_reset_clear(struct neuron_metric_reset_window *w, u32 field);

/*
 * Record groups: what must be marked delivered besides the counter
 * baselines. A record's @group is 0 (none), NEURON_METRIC_GRP_VER(i) for
 * version metric i, NEURON_METRIC_GRP_RESET(kind, field) for a driver
 * metric. neuron_metric_delivered() answers with bit (group - 1).
 */
#define NEURON_METRIC_GRP_NONE		0
#define NEURON_METRIC_GRP_VER(i)	(1 + (i))
#define NEURON_METRIC_GRP_RESET(kind, field) \
	(1 + NEURON_METRIC_VERSIONS + (field) * NEURON_METRIC_RESET_KINDS + (kind))
#define NEURON_METRIC_GRP_BIT(g)	(1u << ((g) - 1))

/**
 * struct neuron_metric_rec - one record of a post
 * @id:		CloudWatch metric id (never 0)
 * @len:	bytes of @text used (1..NEURON_METRIC_TEXT_MAX)
 * @slot:	aggregation slot this record advances when posted, or
 *		NEURON_METRIC_SLOT_NONE
 * @group:	NEURON_METRIC_GRP_*: what else a delivery of it clears
 * @snap:	the slot's new baseline once this record is posted
 * @text:	the value, ASCII, not NUL-terminated
 */
struct neuron_metric_rec {
	u8 id;
	u8 len;
	s8 slot;
	u8 group;
	u64 snap;
	char text[NEURON_METRIC_TEXT_MAX];
};

/**
 * struct neuron_metric_input - one sample of everything that is posted
 * @nc_total:	per NC counter id, the monotonic total over every NeuronCore
 *		and every process (live and exited)
 * @nc_ids:	entries in @nc_total
 * @feature_bitmap: ND FEATURE_BITMAP, OR over processes; posted when non-zero
 * @cluster_id:	ND DEVICE_CLUSTER_ID; posted when non-zero
 * @fw_io_err:	the device's cumulative FW-IO error-response count
 * @instance_id: metric 12 (NUL-terminated, truncated to 63 bytes)
 * @driver_version: metric 13 (NUL-terminated, truncated to 63 bytes)
 * @perf_profile: metric 56, the performance profile last set (0: none)
 * @versions:	NULL (no version records), or per version metric (ND 0, 1,
 *		2) the values of the live processes and of those that exited
 *		since the metric was last delivered
 * @reset:	per NEURON_METRIC_RESET_DEV/NC, the resets since each driver
 *		metric was last delivered
 */
struct neuron_metric_input {
	const u64 *nc_total;
	u32 nc_ids;
	u64 feature_bitmap;
	u64 cluster_id;
	u64 fw_io_err;
	const char *instance_id;
	const char *driver_version;
	u32 perf_profile;
	const struct neuron_metric_hist *versions;
	struct neuron_metric_reset_window reset[NEURON_METRIC_RESET_KINDS];
};

/* Baselines: the value of each slot at its last successful post. */
struct neuron_metric_state {
	u64 prev[NEURON_METRIC_SLOTS];
};

/* Record helpers: decimal u64 / string (truncated to NEURON_METRIC_TEXT_MAX). */
void neuron_metric_rec_u64(struct neuron_metric_rec *r, u8 id, u64 v);
void neuron_metric_rec_str(struct neuron_metric_rec *r, u8 id, const char *s);

/*
 * The delta a slot posts: @cur - @prev when positive, else 0 (no record).
 * Totals are monotonic, so "not positive" only happens with no new events
 * (or a total that went backwards, which is not reported either).
 */
u64 neuron_metric_delta(u64 cur, u64 prev);

/*
 * Build the records due on @tick (0 or 1, or NEURON_METRIC_TICK_ALL) in
 * definition order (nds-sysfs-metrics.md 3.2): 12, 13 (every tick), 56
 * (tick 0), 180/181 (every tick), 190..193 and 195/196 (tick 1); on tick 0
 * the first 17 counters, 11, then 220 (NC 30); on tick 1 the EXT counters
 * 221..229 and 253, 250 and 252 when non-zero, then 50..55 (always, 0
 * included). Counters and 11 only with a positive delta. The vendor's
 * second bitmap (CW 0) and 251 are never built.
 * Returns the number of records written to @recs (at most @max).
 */
u32 neuron_metric_build_tick(const struct neuron_metric_input *in,
			     const struct neuron_metric_state *st,
			     struct neuron_metric_rec *recs, u32 max, u32 tick);

/* Every definition, whatever its tick (neuron_metric_build_tick ..._ALL). */
u32 neuron_metric_build(const struct neuron_metric_input *in,
			const struct neuron_metric_state *st,
			struct neuron_metric_rec *recs, u32 max);

/*
 * One tick's blob, the reference's way: records @recs[0..@n) in order,
 * each that still fits in @cap (at most NEURON_METRIC_BLOB_MAX) bytes
 * appended, each that does not left out (a later, smaller one may fit).
 * @packed[i] is set to 1 for a record in the blob, 0 for one left out.
 * Returns the blob's length (0: nothing fits or nothing to send).
 */
u32 neuron_metric_pack_one(const struct neuron_metric_rec *recs, u32 n,
			   u8 *blob, u32 cap, u8 *packed);

/* A record was delivered: move its slot's baseline. */
void neuron_metric_commit(struct neuron_metric_state *st, const struct neuron_metric_rec *r);

/*
 * After a delivered blob of @tick built as @recs[0..@n) and packed per
 * @packed: the NEURON_METRIC_GRP_BIT()s of the groups delivered whole. A
 * version metric due on @tick counts when none of its records was left
 * out (also when it had none: its values posted nothing); a driver metric
 * when its record is in the blob.
 */
u32 neuron_metric_delivered(const struct neuron_metric_rec *recs, u32 n, const u8 *packed,
			    u32 tick);

/*
 * Firmware side: is @val (@vlen bytes) a well-formed value for @cw_id?
 * Decimal for counters, 11, 50..56, 250, 252; "major.minor.build" for the
 * version ids 180, 181, 190, 192, 195, 196; one digit 1..9 for the
 * framework types 191, 193; printable ASCII for 12, 13 and any other id.
 */
bool neuron_metric_value_ok(u8 cw_id, const u8 *val, u8 vlen);

/*
 * (Host tests and fuzzing; the driver posts one blob a tick.) Pack records
 * @recs[*pos..@n) into @blob (capacity @cap, at most
 * NEURON_METRIC_BLOB_MAX) while they fit, advancing *pos past them.
 * Returns the blob's length. A record larger than @cap on its own is
 * skipped (cannot happen with NEURON_METRIC_TEXT_MAX + 2 <= @cap).
 */
u32 neuron_metric_pack(const struct neuron_metric_rec *recs, u32 n, u32 *pos,
		       u8 *blob, u32 cap);

/*
 * Iterate the records of a blob: returns 1 with the next record in @id,
 * @val, @vlen and @off advanced past it, 0 at the end, -EINVAL when the
 * blob is malformed (id 0, length 0, a record running past @len, or
 * @len > 128).
 */
int neuron_metric_next(const u8 *blob, u32 len, u32 *off, u8 *id,
		       const u8 **val, u8 *vlen);

/* Parse an unsigned decimal record value; -EINVAL if not all digits or overflow. */
int neuron_metric_parse_u64(const u8 *val, u8 vlen, u64 *out);

#endif /* NEURON_METRICS_PACK_H */
