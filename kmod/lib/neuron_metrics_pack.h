/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The metrics post to firmware ("CloudWatch" over FW-IO POST_TO_CW):
 * metric definitions, aggregation arithmetic (deltas against the last
 * successful post) and the blob format. Pure logic, shared by neuron.ko
 * (neuron_metrics.c builds and posts, sim/neuron_sim_fw.c decodes and
 * validates) and the host tests.
 *
 * Blob: records [u8 cw_id][u8 len][len ASCII bytes], back to back, no
 * terminator, at most NEURON_METRIC_BLOB_MAX bytes. Records that do not
 * fit go to the next blob, in order; none is dropped.
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

/* COUNTER definitions: NDS NC/EXT counter ids, in posting order. */
#define NEURON_METRIC_COUNTERS		28
extern const u8 neuron_metric_counter_ids[NEURON_METRIC_COUNTERS];

/* The CloudWatch id counter definition @slot is posted as (0 if none). */
u8 neuron_metric_counter_cw_id(u32 slot);

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
 * Build this post's records in definition order: 12, 13, the counters
 * with a positive delta (11 between the first 17 counters and the rest,
 * as in the reference table), 250 and 252 when non-zero. Returns the
 * number of records written to @recs (at most @max).
 */
u32 neuron_metric_build(const struct neuron_metric_input *in,
			const struct neuron_metric_state *st,
			struct neuron_metric_rec *recs, u32 max);

/* A record was delivered: move its slot's baseline. */
void neuron_metric_commit(struct neuron_metric_state *st, const struct neuron_metric_rec *r);

/*
 * Pack records @recs[*pos..@n) into @blob (capacity @cap, at most
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
