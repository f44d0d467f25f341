// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Metrics post: definitions, deltas and blob packing (see
 * neuron_metrics_pack.h). The CloudWatch id of each counter comes from the
 * shared counter table (neuron_counters.c); this file only fixes the order
 * in which they are posted, which is the reference driver's definition
 * order (facts: nds-sysfs-metrics.md section 3.2).
 */
#include "neuron_metrics_pack.h"
#include "neuron_counters.h"

/*
 * Posting order. The first 17 are the reference's TICK_0 counters, then
 * the FW-IO error count (CW 11) sits between them and OOB (NC 30); EXT
 * 31..40 follow.
 */
const u8 neuron_metric_counter_ids[NEURON_METRIC_COUNTERS] = {
	1, 16, 4, 5, 8, 9, 10, 11, 12, 2, 3, 7, 17, 18, 6, 19, 20,
	30,
	31, 32, 33, 34,
	35,
	36, 37, 38, 39,
	40,
};

/* Counter defs posted before metric 11. */
#define NEURON_METRIC_FIRST_GROUP	17
/* Counter defs due on tick 0 (the first group and NC 30); the rest on tick 1. */
#define NEURON_METRIC_TICK0_COUNTERS	18

static u8 neuron_metric_counter_ticks(u32 slot)
{
	return slot < NEURON_METRIC_TICK0_COUNTERS ? NEURON_METRIC_TICK_0 : NEURON_METRIC_TICK_1;
}

u8 neuron_metric_id_ticks(u8 cw_id)
{
	u32 i;

	switch (cw_id) {
	case NEURON_CW_ID_INSTANCE_ID:
	case NEURON_CW_ID_DRIVER_VERSION:
		return NEURON_METRIC_TICK_ALWAYS;
	case NEURON_CW_ID_FW_IO_ERROR_COUNT:
		return NEURON_METRIC_TICK_0;
	case NEURON_CW_ID_FEATURE_BITMAP:
	case NEURON_CW_ID_DEVICE_CLUSTER_ID:
		return NEURON_METRIC_TICK_1;
	}
	for (i = 0; cw_id && i < NEURON_METRIC_COUNTERS; i++)
		if (neuron_metric_counter_cw_id(i) == cw_id)
			return neuron_metric_counter_ticks(i);
	return 0;
}

u8 neuron_metric_counter_cw_id(u32 slot)
{
	s32 cw;

	if (slot >= NEURON_METRIC_COUNTERS)
		return 0;
	cw = neuron_nc_counter_cw_id(neuron_metric_counter_ids[slot]);
	return cw > 0 && cw <= 255 ? (u8)cw : 0;
}

void neuron_metric_rec_u64(struct neuron_metric_rec *r, u8 id, u64 v)
{
	char tmp[20];
	u32 n = 0;

	do {
		tmp[n++] = '0' + (char)(v % 10);
		v /= 10;
	} while (v);
	r->id = id;
	r->len = (u8)n;
	r->slot = NEURON_METRIC_SLOT_NONE;
	r->snap = 0;
	while (n--)
		r->text[r->len - 1 - n] = tmp[n];
}

void neuron_metric_rec_str(struct neuron_metric_rec *r, u8 id, const char *s)
{
	u32 n = 0;

	while (s && s[n] && n < NEURON_METRIC_TEXT_MAX) {
		r->text[n] = s[n];
		n++;
	}
	if (!n)
		r->text[n++] = '0';	/* never an empty record */
	r->id = id;
	r->len = (u8)n;
	r->slot = NEURON_METRIC_SLOT_NONE;
	r->snap = 0;
}

u64 neuron_metric_delta(u64 cur, u64 prev)
{
	return cur > prev ? cur - prev : 0;
}

static u32 neuron_metric_add_slot(struct neuron_metric_rec *recs, u32 n, u32 max,
				  u8 id, s8 slot, u64 cur, u64 prev)
{
	u64 d = neuron_metric_delta(cur, prev);

	if (!d || !id || n >= max)
		return n;
	neuron_metric_rec_u64(&recs[n], id, d);
	recs[n].slot = slot;
	recs[n].snap = cur;
	return n + 1;
}

static bool neuron_metric_due(u8 ticks, u32 tick)
{
	return tick == NEURON_METRIC_TICK_ALL || (tick < NEURON_METRIC_TICKS && (ticks >> tick) & 1);
}

u32 neuron_metric_build_tick(const struct neuron_metric_input *in,
			     const struct neuron_metric_state *st,
			     struct neuron_metric_rec *recs, u32 max, u32 tick)
{
	bool t0 = neuron_metric_due(NEURON_METRIC_TICK_0, tick);
	bool t1 = neuron_metric_due(NEURON_METRIC_TICK_1, tick);
	u32 n = 0;
	u32 i;

	if (!t0 && !t1)
		return 0;
	if (n < max)
		neuron_metric_rec_str(&recs[n++], NEURON_CW_ID_INSTANCE_ID, in->instance_id);
	if (n < max)
		neuron_metric_rec_str(&recs[n++], NEURON_CW_ID_DRIVER_VERSION, in->driver_version);

	for (i = 0; i < NEURON_METRIC_COUNTERS; i++) {
		u32 id = neuron_metric_counter_ids[i];
		u64 cur = id < in->nc_ids ? in->nc_total[id] : 0;

		if (i == NEURON_METRIC_FIRST_GROUP && t0)
			n = neuron_metric_add_slot(recs, n, max, NEURON_CW_ID_FW_IO_ERROR_COUNT,
						   NEURON_METRIC_SLOT_FW_IO_ERR, in->fw_io_err,
						   st->prev[NEURON_METRIC_SLOT_FW_IO_ERR]);
		if (!neuron_metric_due(neuron_metric_counter_ticks(i), tick))
			continue;
		n = neuron_metric_add_slot(recs, n, max, neuron_metric_counter_cw_id(i),
					   (s8)i, cur, st->prev[i]);
	}

	if (t1 && in->feature_bitmap && n < max)
		neuron_metric_rec_u64(&recs[n++], NEURON_CW_ID_FEATURE_BITMAP, in->feature_bitmap);
	if (t1 && in->cluster_id && n < max)
		neuron_metric_rec_u64(&recs[n++], NEURON_CW_ID_DEVICE_CLUSTER_ID, in->cluster_id);
	return n;
}

u32 neuron_metric_build(const struct neuron_metric_input *in,
			const struct neuron_metric_state *st,
			struct neuron_metric_rec *recs, u32 max)
{
	return neuron_metric_build_tick(in, st, recs, max, NEURON_METRIC_TICK_ALL);
}

u32 neuron_metric_pack_one(const struct neuron_metric_rec *recs, u32 n,
			   u8 *blob, u32 cap, u8 *packed)
{
	u32 len = 0;
	u32 i;

	if (cap > NEURON_METRIC_BLOB_MAX)
		cap = NEURON_METRIC_BLOB_MAX;
	for (i = 0; i < n; i++) {
		const struct neuron_metric_rec *r = &recs[i];
		u32 need = 2u + r->len;

		packed[i] = 0;
		if (need > cap - len)
			continue;	/* left out; a later, smaller one may fit */
		blob[len] = r->id;
		blob[len + 1] = r->len;
		memcpy(blob + len + 2, r->text, r->len);
		len += need;
		packed[i] = 1;
	}
	return len;
}

void neuron_metric_commit(struct neuron_metric_state *st, const struct neuron_metric_rec *r)
{
	if (r->slot >= 0 && r->slot < NEURON_METRIC_SLOTS)
		st->prev[r->slot] = r->snap;
}

u32 neuron_metric_pack(const struct neuron_metric_rec *recs, u32 n, u32 *pos,
		       u8 *blob, u32 cap)
{
	u32 len = 0;

	if (cap > NEURON_METRIC_BLOB_MAX)
		cap = NEURON_METRIC_BLOB_MAX;
	while (*pos < n) {
		const struct neuron_metric_rec *r = &recs[*pos];
		u32 need = 2u + r->len;

		if (need > cap) {
			/* can never fit anywhere: skip rather than loop */
			(*pos)++;
			continue;
		}
		if (len + need > cap)
			break;
		blob[len] = r->id;
		blob[len + 1] = r->len;
		memcpy(blob + len + 2, r->text, r->len);
		len += need;
		(*pos)++;
	}
	return len;
}

int neuron_metric_next(const u8 *blob, u32 len, u32 *off, u8 *id,
		       const u8 **val, u8 *vlen)
{
	u32 o = *off;

	if (len > NEURON_METRIC_BLOB_MAX)
		return -EINVAL;
	if (o >= len)
		return 0;
	if (len - o < 2 || blob[o] == 0 || blob[o + 1] == 0 ||
	    len - o - 2 < blob[o + 1])
		return -EINVAL;
	*id = blob[o];
	*vlen = blob[o + 1];
	*val = blob + o + 2;
	*off = o + 2 + blob[o + 1];
	return 1;
}

int neuron_metric_parse_u64(const u8 *val, u8 vlen, u64 *out)
{
	u64 v = 0;
	u8 i;

	if (!vlen)
		return -EINVAL;
	for (i = 0; i < vlen; i++) {
		u64 d;

		if (val[i] < '0' || val[i] > '9')
			return -EINVAL;
		d = val[i] - '0';
		if (v > (~0ULL - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}
