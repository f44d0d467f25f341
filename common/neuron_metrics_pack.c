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
	case NEURON_CW_ID_PERF_PROFILE:
		return NEURON_METRIC_TICK_0;
	case NEURON_CW_ID_RT_VERSION:
	case NEURON_CW_ID_RT_VERSION + 1:
		return NEURON_METRIC_TICK_ALWAYS;
	case NEURON_CW_ID_FW_VERSION ... NEURON_CW_ID_FW_VERSION + 3:
	case NEURON_CW_ID_FAL_VERSION:
	case NEURON_CW_ID_FAL_VERSION + 1:
		return NEURON_METRIC_TICK_1;
	}
	if (cw_id >= NEURON_CW_ID_RESET &&
	    cw_id < NEURON_CW_ID_RESET + NEURON_METRIC_RESET_FIELDS * NEURON_METRIC_RESET_KINDS)
		return NEURON_METRIC_TICK_1;
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

/* @v in decimal at @buf, no terminator; returns the length (1..20). */
static u32 neuron_metric_dec(u64 v, char *buf)
{
	char tmp[20];
	u32 n = 0, i;

	do {
		tmp[n++] = '0' + (char)(v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* A record @id whose @len text bytes are in place: no slot, no group. */
static void neuron_metric_rec_init(struct neuron_metric_rec *r, u8 id, u32 len)
{
	r->id = id;
	r->len = (u8)len;
	r->slot = NEURON_METRIC_SLOT_NONE;
	r->group = NEURON_METRIC_GRP_NONE;
	r->snap = 0;
}

void neuron_metric_rec_u64(struct neuron_metric_rec *r, u8 id, u64 v)
{
	neuron_metric_rec_init(r, id, neuron_metric_dec(v, r->text));
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
	neuron_metric_rec_init(r, id, n);
}

/* ---- version histograms and strings --------------------------------------- */

void neuron_metric_hist_add(struct neuron_metric_hist *h, u64 v, u32 count)
{
	u32 i, pick = 0;

	if (!v || !count)
		return;
	for (i = 0; i < NEURON_METRIC_HIST_SLOTS; i++) {
		if (h->count[i] && h->value[i] == v) {
			h->count[i] = h->count[i] > 0xFFFFFFFFu - count ? 0xFFFFFFFFu : h->count[i] + count;
			return;
		}
	}
	/* a free slot (count 0) is the least used of all */
	for (i = 1; i < NEURON_METRIC_HIST_SLOTS; i++)
		if (h->count[i] < h->count[pick])
			pick = i;
	h->value[pick] = v;
	h->count[pick] = count;
}

void neuron_metric_hist_merge(struct neuron_metric_hist *h, const struct neuron_metric_hist *src)
{
	u32 i;

	for (i = 0; i < NEURON_METRIC_HIST_SLOTS; i++)
		neuron_metric_hist_add(h, src->value[i], src->count[i]);
}

void neuron_metric_hist_sub(struct neuron_metric_hist *h, const struct neuron_metric_hist *done)
{
	u32 i, k;

	for (k = 0; k < NEURON_METRIC_HIST_SLOTS; k++) {
		if (!done->count[k])
			continue;
		for (i = 0; i < NEURON_METRIC_HIST_SLOTS; i++) {
			if (!h->count[i] || h->value[i] != done->value[k])
				continue;
			h->count[i] = h->count[i] > done->count[k] ? h->count[i] - done->count[k] : 0;
			if (!h->count[i])
				h->value[i] = 0;
			break;
		}
	}
}

/* Does slot @a of @h rank before slot @b (more used; equal: higher value)? */
static bool neuron_metric_hist_before(const struct neuron_metric_hist *h, u32 a, u32 b)
{
	if (h->count[a] != h->count[b])
		return h->count[a] > h->count[b];
	return h->value[a] > h->value[b];
}

u32 neuron_metric_hist_top(const struct neuron_metric_hist *h,
			   u64 top[NEURON_METRIC_VERSION_TOP])
{
	u32 used = 0, n, i;

	for (n = 0; n < NEURON_METRIC_VERSION_TOP; n++) {
		s32 best = -1;

		for (i = 0; i < NEURON_METRIC_HIST_SLOTS; i++) {
			if (!h->count[i] || !h->value[i] || (used & (1u << i)))
				continue;
			if (best < 0 || neuron_metric_hist_before(h, i, (u32)best))
				best = (s32)i;
		}
		if (best < 0)
			break;
		used |= 1u << best;
		top[n] = h->value[best];
	}
	return n;
}

u32 neuron_metric_version_str(u64 v, char *buf)
{
	u32 len;

	len = neuron_metric_dec((v >> 40) & 0xFF, buf);
	buf[len++] = '.';
	len += neuron_metric_dec((v >> 32) & 0xFF, buf + len);
	buf[len++] = '.';
	len += neuron_metric_dec((u32)v, buf + len);
	return len;
}

/* ---- driver (reset) metrics ------------------------------------------------- */

void neuron_metric_reset_sample(struct neuron_metric_reset_window *w, u64 ms)
{
	if (ms > w->max_ms)
		w->max_ms = ms;
	w->total_ms += ms;
	w->count++;
}

void neuron_metric_reset_failure(struct neuron_metric_reset_window *w)
{
	w->failures++;
}

void neuron_metric_reset_merge(struct neuron_metric_reset_window *w,
			       const struct neuron_metric_reset_window *src)
{
	if (src->max_ms > w->max_ms)
		w->max_ms = src->max_ms;
	w->total_ms += src->total_ms;
	w->count += src->count;
	w->failures += src->failures;
}

u64 neuron_metric_reset_avg(const struct neuron_metric_reset_window *w)
{
	return w->count ? w->total_ms / w->count : 0;
}

void neuron_metric_reset_clear(struct neuron_metric_reset_window *w, u32 field)
{
	switch (field) {
	case NEURON_METRIC_RESET_MAX:
		w->max_ms = 0;
		break;
	case NEURON_METRIC_RESET_AVG:
		w->total_ms = 0;
		w->count = 0;
		break;
	case NEURON_METRIC_RESET_FAIL:
		w->failures = 0;
		break;
	}
}

static u64 neuron_metric_reset_value(const struct neuron_metric_reset_window *w, u32 field)
{
	switch (field) {
	case NEURON_METRIC_RESET_MAX:
		return w->max_ms;
	case NEURON_METRIC_RESET_AVG:
		return neuron_metric_reset_avg(w);
	default:
		return w->failures;
	}
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

/* Version metric @ver (ND counter id) starts at this CloudWatch id. */
static const u8 neuron_metric_version_cw[NEURON_METRIC_VERSIONS] = {
	NEURON_CW_ID_RT_VERSION, NEURON_CW_ID_FW_VERSION, NEURON_CW_ID_FAL_VERSION,
};

/* Only the framework version (ND 1) carries a type, in the id after its value. */
static bool neuron_metric_version_typed(u32 ver)
{
	return ver == 1;
}

static u8 neuron_metric_version_ticks(u32 ver)
{
	return ver ? NEURON_METRIC_TICK_1 : NEURON_METRIC_TICK_ALWAYS;
}

/*
 * The records of version metric @ver: per top value, its string at the
 * value's id and, for the framework, a non-zero type digit at the next id
 * (ids 2 apart per value). A value zero apart from its type posts the type
 * alone; a value with neither posts nothing.
 */
static u32 neuron_metric_add_version(const struct neuron_metric_hist *h, u32 ver,
				     struct neuron_metric_rec *recs, u32 n, u32 max)
{
	bool typed = neuron_metric_version_typed(ver);
	u64 top[NEURON_METRIC_VERSION_TOP];
	u32 k, cnt = neuron_metric_hist_top(h, top);

	for (k = 0; k < cnt; k++) {
		u8 id = neuron_metric_version_cw[ver] + (u8)(typed ? 2 * k : k);
		u32 type = neuron_metric_version_type(top[k]);

		if (!neuron_metric_version_bare(top[k]) && n < max) {
			neuron_metric_rec_init(&recs[n], id,
					       neuron_metric_version_str(top[k], recs[n].text));
			recs[n++].group = NEURON_METRIC_GRP_VER(ver);
		}
		if (typed && type && n < max) {
			neuron_metric_rec_u64(&recs[n], id + 1, type);
			recs[n++].group = NEURON_METRIC_GRP_VER(ver);
		}
	}
	return n;
}

/* The six driver metrics, 50..55, in id order; 0 included. */
static u32 neuron_metric_add_resets(const struct neuron_metric_input *in,
				    struct neuron_metric_rec *recs, u32 n, u32 max)
{
	u32 field, kind;

	for (field = 0; field < NEURON_METRIC_RESET_FIELDS; field++) {
		for (kind = 0; kind < NEURON_METRIC_RESET_KINDS && n < max; kind++) {
			neuron_metric_rec_u64(&recs[n], NEURON_CW_ID_RESET +
					      field * NEURON_METRIC_RESET_KINDS + kind,
					      neuron_metric_reset_value(&in->reset[kind], field));
			recs[n++].group = NEURON_METRIC_GRP_RESET(kind, field);
		}
	}
	return n;
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
	if (t0 && n < max)
		neuron_metric_rec_u64(&recs[n++], NEURON_CW_ID_PERF_PROFILE, in->perf_profile);
	for (i = 0; in->versions && i < NEURON_METRIC_VERSIONS; i++)
		if (neuron_metric_due(neuron_metric_version_ticks(i), tick))
			n = neuron_metric_add_version(&in->versions[i], i, recs, n, max);

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
	if (t1)
		n = neuron_metric_add_resets(in, recs, n, max);
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

u32 neuron_metric_delivered(const struct neuron_metric_rec *recs, u32 n, const u8 *packed,
			    u32 tick)
{
	u32 done = 0, left = 0, i;

	for (i = 0; i < NEURON_METRIC_VERSIONS; i++)
		if (neuron_metric_due(neuron_metric_version_ticks(i), tick))
			done |= NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(i));
	for (i = 0; i < n; i++) {
		u8 g = recs[i].group;

		if (g == NEURON_METRIC_GRP_NONE)
			continue;
		if (!packed[i])
			left |= NEURON_METRIC_GRP_BIT(g);
		else if (g > NEURON_METRIC_VERSIONS)
			done |= NEURON_METRIC_GRP_BIT(g);
	}
	/* a driver metric counts only when its own record went out */
	return done & ~left;
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

static bool neuron_metric_decimal(const u8 *val, u8 vlen)
{
	u64 v;

	return !neuron_metric_parse_u64(val, vlen, &v);
}

/* "a.b.c", each part decimal: a and b at most 255, c at most U32_MAX. */
static bool neuron_metric_version_ok(const u8 *val, u8 vlen)
{
	static const u64 part_max[3] = { 0xFF, 0xFF, 0xFFFFFFFFULL };
	u32 part = 0, start = 0, i;

	for (i = 0; i <= vlen; i++) {
		u64 v;

		if (i < vlen && val[i] != '.')
			continue;
		if (part >= 3 || i == start ||
		    neuron_metric_parse_u64(val + start, (u8)(i - start), &v) || v > part_max[part])
			return false;
		part++;
		start = i + 1;
	}
	return part == 3;
}

bool neuron_metric_value_ok(u8 cw_id, const u8 *val, u8 vlen)
{
	u8 i;

	if (!vlen)
		return false;
	switch (cw_id) {
	case NEURON_CW_ID_RT_VERSION:
	case NEURON_CW_ID_RT_VERSION + 1:
	case NEURON_CW_ID_FW_VERSION:
	case NEURON_CW_ID_FW_VERSION + 2:
	case NEURON_CW_ID_FAL_VERSION:
	case NEURON_CW_ID_FAL_VERSION + 1:
		return neuron_metric_version_ok(val, vlen);
	case NEURON_CW_ID_FW_VERSION + 1:
	case NEURON_CW_ID_FW_VERSION + 3:
		return vlen == 1 && val[0] >= '1' && val[0] <= '9';
	case NEURON_CW_ID_INSTANCE_ID:
	case NEURON_CW_ID_DRIVER_VERSION:
		break;
	default:
		if (neuron_metric_id_ticks(cw_id))
			return neuron_metric_decimal(val, vlen);
		break;
	}
	for (i = 0; i < vlen; i++)
		if (val[i] < 0x20 || val[i] > 0x7E)
			return false;
	return true;
}
