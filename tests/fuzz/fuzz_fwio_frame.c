// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FW-IO framing and the metrics blob (common/neuron_fwio_frame.h,
 * neuron_metrics_pack.h) on arbitrary bytes:
 *   - the input as a POST_TO_CW blob through neuron_metric_next and
 *     neuron_metric_parse_u64, against a reference walker;
 *   - pack/unpack of DATA-window words (round trip, zero padding);
 *   - CRC-32C against a bit-by-bit reference, incremental == one shot,
 *     and the request CRC over the header bytes;
 *   - response classification against the documented rules, and the
 *     step/outcome/collapse/errno maps for any enum value;
 *   - a metrics post built from fuzzed totals, baselines, version
 *     histograms and reset windows, packed into blobs of a fuzzed capacity
 *     and parsed back record by record; every value the firmware's format
 *     check accepts (neuron_metric_value_ok, also run on the raw input);
 *   - the shared firmware model (neuron_fw_model.h) serving a fuzzed
 *     request with a fuzzed fault: the answer stays in bounds and its
 *     header agrees with it, and only a good request reaches the device.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "neuron_fw_model.h"
#include "neuron_fwio_frame.h"
#include "neuron_metrics_pack.h"

#define CHECK(c)                        \
	do {                            \
		if (!(c))               \
			__builtin_trap(); \
	} while (0)

/* A cursor over the input that yields zeros once it runs out. */
struct src {
	const uint8_t *p;
	size_t n, off;
};

static uint8_t take8(struct src *s)
{
	return s->off < s->n ? s->p[s->off++] : 0;
}

static uint64_t take64(struct src *s)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)take8(s) << (8 * i);
	return v;
}

static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t len)
{
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
	}
	return crc;
}

static void blob_walk(const uint8_t *blob, size_t size)
{
	uint32_t len = size > 200 ? 200 : (uint32_t)size;
	uint32_t off = 0, roff = 0;
	int r, records = 0;

	for (;;) {
		uint8_t id = 0, vlen = 0;
		const uint8_t *val = NULL;
		uint32_t before = off;
		int want;

		/* reference: the documented malformed cases */
		if (len > NEURON_METRIC_BLOB_MAX)
			want = -EINVAL;
		else if (roff >= len)
			want = 0;
		else if (len - roff < 2 || blob[roff] == 0 || blob[roff + 1] == 0 ||
			 blob[roff + 1] > len - roff - 2)
			want = -EINVAL;
		else
			want = 1;

		r = neuron_metric_next(blob, len, &off, &id, &val, &vlen);
		CHECK(r == want);
		if (r != 1) {
			CHECK(off == before);
			break;
		}
		CHECK(id == blob[roff] && vlen == blob[roff + 1] && val == blob + roff + 2);
		(void)neuron_metric_value_ok(id, val, vlen);	/* any bytes: no fault */
		roff += 2u + vlen;
		CHECK(off == roff && off <= len);
		records++;
		CHECK(records <= NEURON_METRIC_BLOB_MAX / 3 + 1);
		{
			uint64_t v = 7, ref = 0;
			int ok = 1, k;
			unsigned __int128 acc = 0;

			for (k = 0; k < vlen; k++) {
				if (val[k] < '0' || val[k] > '9') {
					ok = 0;
					break;
				}
				acc = acc * 10 + (val[k] - '0');
				if (acc > UINT64_MAX) {
					ok = 0;
					break;
				}
			}
			ref = (uint64_t)acc;
			r = neuron_metric_parse_u64(val, vlen, &v);
			CHECK(r == (ok ? 0 : -EINVAL));
			CHECK(ok ? v == ref : v == 7);
		}
	}
}

static void words_and_crc(const uint8_t *data, size_t size)
{
	uint32_t words[NEURON_FWIO_DATA_SIZE / 4];
	uint8_t back[NEURON_FWIO_DATA_SIZE], hdr[NEURON_FWIO_REQ_HDR_SIZE], ref_hdr[8];
	size_t len = size > NEURON_FWIO_DATA_SIZE ? NEURON_FWIO_DATA_SIZE : size, split, i;
	uint32_t nw, dw0 = 0, crc;

	nw = neuron_fwio_pack_words(data, len, words);
	CHECK(nw == (len + 3) / 4);
	for (i = len; i < (size_t)nw * 4; i++)	/* zero padding */
		CHECK(((words[i / 4] >> (8 * (i % 4))) & 0xff) == 0);
	memset(back, 0xcc, sizeof(back));
	neuron_fwio_unpack_words(words, len, back);
	CHECK(memcmp(back, data, len) == 0);
	for (i = len; i < sizeof(back); i++)
		CHECK(back[i] == 0xcc);

	crc = neuron_crc32c(data, size);
	CHECK(crc == ~ref_crc32c(~0u, data, size));
	split = size ? data[0] % (size + 1) : 0;
	CHECK(crc == ~neuron_crc32c_update(neuron_crc32c_update(~0u, data, split), data + split,
					     size - split));

	if (size >= 4)
		dw0 = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
		      (uint32_t)data[3] << 24;
	neuron_fwio_hdr_bytes(dw0, hdr);
	for (i = 0; i < 4; i++)
		ref_hdr[i] = (uint8_t)(dw0 >> (8 * i));
	memset(ref_hdr + 4, 0, 4);
	CHECK(memcmp(hdr, ref_hdr, 8) == 0);
	CHECK(neuron_fwio_req_crc_sw(dw0, data, len) ==
	      ~ref_crc32c(ref_crc32c(~0u, ref_hdr, 8), data, len));
	/* the dw0 field helpers invert the builders */
	CHECK(neuron_fwio_req_dw0(neuron_fwio_dw0_seq(dw0), neuron_fwio_dw0_code(dw0),
				  neuron_fwio_dw0_size(dw0)) == dw0);
	CHECK(neuron_fwio_resp_dw0(neuron_fwio_dw0_seq(dw0), neuron_fwio_dw0_code(dw0),
				   neuron_fwio_dw0_size(dw0)) == dw0);
	CHECK(neuron_fwio_seq_next((uint8_t)dw0) != 0);
}

static void classify(struct src *s)
{
	int done = take8(s) & 1;
	uint8_t seq = take8(s);
	uint32_t dw0 = (uint32_t)take64(s);
	uint16_t expect = (uint16_t)take64(s);
	enum neuron_fwio_attempt a = neuron_fwio_classify(done, seq, dw0, expect), want;
	struct neuron_fwio_step st;
	enum neuron_fwio_outcome o;
	int c, e;

	if (!done)
		want = NEURON_FWIO_ATT_TIMEOUT;
	else if ((dw0 & 0xff) != seq)
		want = NEURON_FWIO_ATT_BAD_SEQ;
	else if (((dw0 >> 8) & 0xff) == 2)
		want = NEURON_FWIO_ATT_FW_UNKNOWN;
	else if (((dw0 >> 8) & 0xff) != 0)
		want = NEURON_FWIO_ATT_FW_FAIL;
	else if ((dw0 >> 16) != 4u + expect)
		want = NEURON_FWIO_ATT_BAD_SIZE;
	else
		want = NEURON_FWIO_ATT_OK;
	CHECK(a == want);

	st = neuron_fwio_attempt_step(a);
	CHECK(!(st.err_count && st.timeout_count));
	CHECK(a != NEURON_FWIO_ATT_OK || (!st.retry && !st.err_count && !st.timeout_count));
	o = neuron_fwio_attempt_outcome(a);
	CHECK((o == NEURON_FWIO_OUT_OK) == (a == NEURON_FWIO_ATT_OK));

	/* any value of either enum, including ones outside it */
	st = neuron_fwio_attempt_step((enum neuron_fwio_attempt)take8(s));
	(void)st;
	o = neuron_fwio_attempt_outcome((enum neuron_fwio_attempt)take8(s));
	CHECK(o <= NEURON_FWIO_OUT_INTR);
	o = (enum neuron_fwio_outcome)take8(s);
	c = neuron_fwio_outcome_collapse(o);
	e = neuron_fwio_outcome_errno(o);
	CHECK(c == 0 || c == -1 || c == -ENOTSUPP || c == -E2BIG || c == -EINTR);
	CHECK(e == 0 || e == -EIO || e == -ETIMEDOUT || e == -EOPNOTSUPP || e == -E2BIG ||
	      e == -EINTR);
	CHECK((c == 0) == (e == 0));
}

static void metrics(struct src *s)
{
	uint64_t totals[64];
	struct neuron_metric_state st;
	struct neuron_metric_input in;
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	char inst_id[80], drv[80];
	uint8_t blob[NEURON_METRIC_BLOB_MAX + 16];
	uint8_t packed[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_hist ver[NEURON_METRIC_VERSIONS];
	uint32_t n, pos, i, k, cap, seen, tick, nt, plen, eff, used, poff, always, vrecs, done;
	size_t j;

	memset(&in, 0, sizeof(in));
	memset(ver, 0, sizeof(ver));
	for (j = 0; j < NEURON_METRIC_VERSIONS; j++) {
		uint32_t adds = take8(s) % 12;

		while (adds--)
			neuron_metric_hist_add(&ver[j], take8(s) & 1 ? take64(s) : take8(s) % 4,
					       take8(s) % 3);
	}
	in.versions = take8(s) & 1 ? ver : NULL;
	in.perf_profile = take8(s);
	for (j = 0; j < NEURON_METRIC_RESET_KINDS; j++) {
		uint32_t ev = take8(s) % 6;

		while (ev--) {
			if (take8(s) & 1)
				neuron_metric_reset_failure(&in.reset[j]);
			else
				neuron_metric_reset_sample(&in.reset[j], take64(s) >> (take8(s) % 64));
		}
		CHECK(neuron_metric_reset_avg(&in.reset[j]) <= in.reset[j].max_ms);
	}

	for (j = 0; j < 64; j++)
		totals[j] = take8(s) & 1 ? take64(s) : take8(s);
	for (j = 0; j < NEURON_METRIC_SLOTS; j++)
		st.prev[j] = take8(s) & 1 ? take64(s) : take8(s);
	for (j = 0; j < sizeof(inst_id); j++)
		inst_id[j] = (char)take8(s);
	inst_id[take8(s) % sizeof(inst_id)] = '\0';
	inst_id[sizeof(inst_id) - 1] = '\0';
	for (j = 0; j < sizeof(drv); j++)
		drv[j] = (char)take8(s);
	drv[take8(s) % sizeof(drv)] = '\0';
	drv[sizeof(drv) - 1] = '\0';
	in.nc_total = totals;
	in.nc_ids = take8(s) % 65;
	in.feature_bitmap = take8(s) & 1 ? take64(s) : 0;
	in.cluster_id = take8(s) & 1 ? take64(s) : 0;
	in.fw_io_err = take64(s);
	in.instance_id = take8(s) & 1 ? inst_id : NULL;
	in.driver_version = drv;

	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	CHECK(n >= 2 && n <= NEURON_METRIC_MAX_RECS);
	always = 2;
	vrecs = 0;
	for (i = 0; i < n; i++) {
		CHECK(recs[i].id != 0 && recs[i].id != 251);
		CHECK(recs[i].len >= 1 && recs[i].len <= NEURON_METRIC_TEXT_MAX);
		CHECK(neuron_metric_id_ticks(recs[i].id) != 0);
		/* 12, 13 are the fuzzed strings; everything else in its format */
		if (recs[i].id != 12 && recs[i].id != 13)
			CHECK(neuron_metric_value_ok(recs[i].id, (const uint8_t *)recs[i].text,
						     recs[i].len));
		if (recs[i].id == 180 || recs[i].id == 181)
			always++;
		if (recs[i].group && recs[i].group <= NEURON_METRIC_VERSIONS)
			vrecs++;
	}
	CHECK(vrecs <= 8 && (in.versions || !vrecs));
	/* a smaller @max truncates, never overruns */
	k = take8(s) % (n + 1);
	CHECK(neuron_metric_build(&in, &st, recs, k) == k);
	CHECK(neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS) == n);

	/* pack into blobs and read every record back, in order */
	cap = take8(s) % 2 ? NEURON_METRIC_BLOB_MAX + 16 : 2 + take8(s) % 127;
	pos = 0;
	seen = 0;
	while (pos < n) {
		uint32_t before = pos, len, off = 0;
		uint8_t id, vlen;
		const uint8_t *val;

		memset(blob, 0xee, sizeof(blob));
		len = neuron_metric_pack(recs, n, &pos, blob, cap);
		CHECK(pos > before);	/* progress every call */
		CHECK(len <= cap && len <= NEURON_METRIC_BLOB_MAX);
		for (j = len; j < sizeof(blob); j++)
			CHECK(blob[j] == 0xee);
		for (i = before; i < pos; i++) {
			uint32_t eff = cap > NEURON_METRIC_BLOB_MAX ? NEURON_METRIC_BLOB_MAX : cap;

			if (2u + recs[i].len > eff)
				continue;	/* skipped: can never fit */
			CHECK(neuron_metric_next(blob, len, &off, &id, &val, &vlen) == 1);
			CHECK(id == recs[i].id && vlen == recs[i].len);
			CHECK(memcmp(val, recs[i].text, vlen) == 0);
			seen++;
		}
		CHECK(neuron_metric_next(blob, len, &off, &id, &val, &vlen) == 0);
	}
	CHECK(seen <= n);

	/*
	 * One tick: only that tick's ids; the two ticks share only 12, 13 and
	 * 180/181 and together make every definition. Its blob: records in
	 * order, each left out only when it did not fit in what was left.
	 */
	tick = take8(s) % 2;
	nt = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1 - tick);
	CHECK(neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, tick) + nt ==
	      n + always);
	nt = n + always - nt;
	for (i = 0; i < nt; i++)
		CHECK(neuron_metric_id_ticks(recs[i].id) & (1u << tick));
	memset(blob, 0xee, sizeof(blob));
	plen = neuron_metric_pack_one(recs, nt, blob, cap, packed);
	eff = cap > NEURON_METRIC_BLOB_MAX ? NEURON_METRIC_BLOB_MAX : cap;
	CHECK(plen <= eff);
	for (j = plen; j < sizeof(blob); j++)
		CHECK(blob[j] == 0xee);
	used = 0;
	poff = 0;
	for (i = 0; i < nt; i++) {
		uint8_t id, vlen;
		const uint8_t *val;

		if (!packed[i]) {
			CHECK(used + 2u + recs[i].len > eff);
			continue;
		}
		CHECK(packed[i] == 1);
		CHECK(neuron_metric_next(blob, plen, &poff, &id, &val, &vlen) == 1);
		CHECK(id == recs[i].id && vlen == recs[i].len);
		CHECK(memcmp(val, recs[i].text, vlen) == 0);
		used += 2u + recs[i].len;
	}
	CHECK(used == plen && poff == plen);
	/* a group is delivered only with none of its records left out */
	done = neuron_metric_delivered(recs, nt, packed, tick);
	for (i = 0; i < nt; i++)
		if (recs[i].group && !packed[i])
			CHECK(!(done & NEURON_METRIC_GRP_BIT(recs[i].group)));
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);

	/*
	 * after committing every record, only the unconditional ones remain:
	 * 12, 13, 56, the versions, the bitmap and cluster id, 50..55
	 */
	for (i = 0; i < n; i++)
		neuron_metric_commit(&st, &recs[i]);
	CHECK(neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS) ==
	      2u + 1u + vrecs + (in.feature_bitmap != 0) + (in.cluster_id != 0) + 6u);
}

/* The firmware model's device: counts what reached it, checks what it got. */
struct fw_seen {
	unsigned int reads, posts, profiles;
};

static u32 fw_read(void *ctx, u64 addr)
{
	((struct fw_seen *)ctx)->reads++;
	return (u32)addr ^ 0xA5A5A5A5u;
}

static void fw_posted(void *ctx, const u8 *blob, u32 len)
{
	u32 off = 0;
	const u8 *val;
	u8 id, vlen;
	int r;

	((struct fw_seen *)ctx)->posts++;
	CHECK(len >= 1 && len <= NEURON_METRIC_BLOB_MAX);
	while ((r = neuron_metric_next(blob, len, &off, &id, &val, &vlen)) > 0)
		CHECK(neuron_metric_value_ok(id, val, vlen));
	CHECK(r == 0);
}

static void fw_profile(void *ctx, u8 profile)
{
	((struct fw_seen *)ctx)->profiles++;
	CHECK(profile <= NEURON_FW_MODEL_PROFILE_MAX);
}

static void firmware(struct src *s)
{
	static u8 payload[8 * NEURON_FW_MODEL_READ_MAX + 16];
	struct fw_seen seen = { 0 };
	const struct neuron_fw_model_dev dev = {
		.read_word = fw_read, .posted = fw_posted, .power_profile = fw_profile, .ctx = &seen,
	};
	struct neuron_fw_model_answer a;
	u8 cmd = take8(s) % 6, fault = take8(s) % 7, code = take8(s), seq = take8(s);
	u32 plen = (take8(s) | (u32)take8(s) << 8) % sizeof(payload);
	u32 avail = (take8(s) | (u32)take8(s) << 8) % (sizeof(payload) + 1);
	u32 max_size = NEURON_FWIO_REQ_HDR_SIZE + (take8(s) & 1 ? sizeof(payload) :
						   NEURON_FWIO_MAX_PAYLOAD);
	bool good_crc = take8(s) & 1;
	u32 dw0, dw1, i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = take8(s);
	if (avail > sizeof(payload))
		avail = sizeof(payload);
	dw0 = neuron_fwio_req_dw0(seq, cmd, (u16)(NEURON_FWIO_REQ_HDR_SIZE + plen));
	dw1 = good_crc ? neuron_fwio_req_crc_sw(dw0, payload, plen) : take8(s);
	neuron_fw_model_serve(&dev, dw0, dw1, payload, avail, max_size,
			      (enum neuron_fw_model_fault)fault, code, &a);
	CHECK(a.len <= NEURON_FW_MODEL_RESP_MAX +
		      (fault == NEURON_FW_MODEL_OVERSIZE ? NEURON_FW_MODEL_OVERSIZE_EXTRA : 0));
	CHECK(a.code == NEURON_FWIO_SUCCESS || a.len == 0);
	CHECK(neuron_fwio_dw0_size(a.resp_dw0) == NEURON_FWIO_RESP_HDR_SIZE + a.len);
	CHECK(neuron_fwio_dw0_code(a.resp_dw0) == a.code);
	if (fault != NEURON_FW_MODEL_WRONG_SEQ)
		CHECK(neuron_fwio_dw0_seq(a.resp_dw0) == seq);
	else
		CHECK(neuron_fwio_dw0_seq(a.resp_dw0) != seq);
	/* a request that is too large, cut short, corrupt or faulted reaches nothing */
	if (NEURON_FWIO_REQ_HDR_SIZE + plen > max_size || plen > avail || a.crc_error ||
	    fault == NEURON_FW_MODEL_BAD_CRC || fault == NEURON_FW_MODEL_ERROR ||
	    fault == NEURON_FW_MODEL_UNKNOWN_COMMAND)
		CHECK(seen.reads + seen.posts + seen.profiles == 0);
	if (a.crc_error)
		CHECK(a.code == NEURON_FWIO_FAIL);
	if (cmd == NEURON_FWIO_CMD_READ && a.code == NEURON_FWIO_SUCCESS &&
	    fault != NEURON_FW_MODEL_ERROR)
		CHECK(seen.reads == plen / 8 &&
		      a.len == 4 * plen / 8 + (fault == NEURON_FW_MODEL_OVERSIZE ?
					       NEURON_FW_MODEL_OVERSIZE_EXTRA : 0));
	CHECK(seen.posts + seen.profiles <= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { data, size, 0 };

	blob_walk(data, size);
	words_and_crc(data, size);
	classify(&s);
	s.off = 0;
	metrics(&s);
	s.off = 0;
	firmware(&s);
	return 0;
}
