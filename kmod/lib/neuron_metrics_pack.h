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

/* 2 constants + 28 counters + FW-IO errors + bitmap + cluster id. */
#define NEURON_METRIC_MAX_RECS		33

/**
 * struct neuron_metric_rec - one record of a post
 * @id:		CloudWatch metric id (never 0)
 * @len:	bytes of @text used (1..NEURON_METRIC_TEXT_MAX)
 * @slot:	aggregation slot this record advances when posted, or
 *		NEURON_METRIC_SLOT_NONE
 * @snap:	the slot's new baseline once this record is posted
 * @text:	the value, ASCII, not NUL-terminated
 */
struct neuron_metric_rec {
	u8 id;
	u8 len;
	s8 slot;
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
 */
struct neuron_metric_input {
	const u64 *nc_total;
	u32 nc_ids;
	u64 feature_bitmap;
	u64 cluster_id;
	u64 fw_io_err;
	const char *instance_id;
	const char *driver_version;
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
 * definition order: 12, 13 (every tick); on tick 0 the first 17 counters,
 * 11, then 220 (NC 30); on tick 1 the EXT counters 221..229 and 253, 250
 * and 252 when non-zero. Counters and 11 only with a positive delta.
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
