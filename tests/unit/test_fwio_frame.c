// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * common/neuron_fwio_frame.c and neuron_metrics_pack.c: FW-IO framing,
 * CRC-32C, sequence numbers, the per-attempt rules and the call-site
 * collapse; metric records, blob packing and the delta arithmetic.
 *
 * Expected values come from the protocol description (facts sheet), not
 * from the code: the CRC is recomputed bit by bit here, the CloudWatch ids
 * are the reference's definition table written out again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "neuron_fwio_frame.h"
#include "neuron_metrics_pack.h"

/* Bit-at-a-time reflected CRC-32C: the independent model. */
static uint32_t crc32c_bitwise(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t crc = 0xFFFFFFFFu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= b[i];
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return ~crc;
}

/* ---- CRC ------------------------------------------------------------------- */

static void crc_check_value(void **state)
{
	(void)state;
	assert_int_equal(neuron_crc32c("123456789", 9), 0xE3069283u);
	assert_int_equal(crc32c_bitwise("123456789", 9), 0xE3069283u);
	assert_int_equal(neuron_crc32c("", 0), 0);
	/* RFC 3720 B.4: 32 bytes of zeros, of 0xFF, and 0..31 ascending */
	{
		uint8_t z[32] = { 0 }, f[32], inc[32];
		int i;

		for (i = 0; i < 32; i++) {
			f[i] = 0xFF;
			inc[i] = (uint8_t)i;
		}
		assert_int_equal(neuron_crc32c(z, 32), 0x8A9136AAu);
		assert_int_equal(neuron_crc32c(f, 32), 0x62A8AB43u);
		assert_int_equal(neuron_crc32c(inc, 32), 0x46DD794Eu);
	}
}

static void crc_matches_bitwise_model(void **state)
{
	uint8_t buf[300];
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (len = 0; len <= sizeof(buf); len++)
		assert_int_equal(neuron_crc32c(buf, len), crc32c_bitwise(buf, len));
	/* every single byte value (checks the whole table) */
	for (i = 0; i < 256; i++) {
		uint8_t b = (uint8_t)i;

		assert_int_equal(neuron_crc32c(&b, 1), crc32c_bitwise(&b, 1));
	}
}

static void crc_chains(void **state)
{
	uint8_t buf[136];
	size_t split, i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0xA5 ^ i);
	for (split = 0; split <= sizeof(buf); split++) {
		uint32_t c = neuron_crc32c_update(~0u, buf, split);

		c = neuron_crc32c_update(c, buf + split, sizeof(buf) - split);
		assert_int_equal(~c, neuron_crc32c(buf, sizeof(buf)));
	}
}

/* ---- headers ------------------------------------------------------------- */

static void header_layout(void **state)
{
	uint8_t hdr[8];
	uint32_t dw0;

	(void)state;
	dw0 = neuron_fwio_req_dw0(0x12, NEURON_FWIO_CMD_POST_TO_CW, 0x0088);
	assert_int_equal(dw0, 0x00880212u);
	assert_int_equal(neuron_fwio_dw0_seq(dw0), 0x12);
	assert_int_equal(neuron_fwio_dw0_code(dw0), 2);
	assert_int_equal(neuron_fwio_dw0_size(dw0), 0x88);
	neuron_fwio_hdr_bytes(dw0, hdr);
	assert_int_equal(hdr[0], 0x12);
	assert_int_equal(hdr[1], 0x02);
	assert_int_equal(hdr[2], 0x88);
	assert_int_equal(hdr[3], 0x00);
	assert_int_equal(hdr[4] | hdr[5] | hdr[6] | hdr[7], 0);

	dw0 = neuron_fwio_resp_dw0(0xFE, NEURON_FWIO_UNKNOWN_COMMAND, 4);
	assert_int_equal(dw0, 0x000402FEu);
	assert_int_equal(neuron_fwio_dw0_seq(dw0), 0xFE);
	assert_int_equal(neuron_fwio_dw0_code(dw0), 2);
	assert_int_equal(neuron_fwio_dw0_size(dw0), 4);
	/* the largest request: 8 + 128 */
	dw0 = neuron_fwio_req_dw0(255, 3, 136);
	assert_int_equal(neuron_fwio_dw0_size(dw0), 136);
}

static void request_crc(void **state)
{
	uint8_t payload[16] = { 0x38, 0, 0, 0, 0, 0, 0, 0, 0x3C, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t whole[8 + 16];
	uint32_t dw0 = neuron_fwio_req_dw0(2, NEURON_FWIO_CMD_READ, 24);

	(void)state;
	/* over the header with crc = 0, then the payload */
	whole[0] = 2;
	whole[1] = 1;
	whole[2] = 24;
	whole[3] = 0;
	memset(whole + 4, 0, 4);
	memcpy(whole + 8, payload, sizeof(payload));
	assert_int_equal(neuron_fwio_req_crc_sw(dw0, payload, sizeof(payload)),
			 crc32c_bitwise(whole, sizeof(whole)));
	/* header only (no payload) */
	assert_int_equal(neuron_fwio_req_crc_sw(dw0, NULL, 0), crc32c_bitwise(whole, 8));
	/* any change to seq changes the CRC */
	assert_int_not_equal(neuron_fwio_req_crc_sw(neuron_fwio_req_dw0(3, 1, 24), payload, 16),
			     neuron_fwio_req_crc_sw(dw0, payload, 16));
}

static void sequence_step(void **state)
{
	unsigned int seen[256] = { 0 };
	uint8_t s = 1;
	int i;

	(void)state;
	assert_int_equal(neuron_fwio_seq_next(1), 2);	/* first request uses 2 */
	assert_int_equal(neuron_fwio_seq_next(254), 255);
	assert_int_equal(neuron_fwio_seq_next(255), 1);	/* 0 is skipped */
	assert_int_equal(neuron_fwio_seq_next(0), 1);
	for (i = 0; i < 255 * 4; i++) {
		s = neuron_fwio_seq_next(s);
		assert_int_not_equal(s, 0);
		seen[s]++;
	}
	/* a period of 255: every non-zero value equally often */
	assert_int_equal(seen[0], 0);
	for (i = 1; i < 256; i++)
		assert_int_equal(seen[i], 4);
}

static void data_words(void **state)
{
	uint8_t in[128], out[128];
	uint32_t words[32];
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i + 1);
	for (len = 0; len <= 128; len++) {
		uint32_t n;

		memset(words, 0xEE, sizeof(words));
		n = neuron_fwio_pack_words(in, len, words);
		assert_int_equal(n, (len + 3) / 4);
		if (len % 4) {
			/* the tail is zero-padded */
			uint32_t last = words[n - 1];

			assert_int_equal(last >> (8 * (len % 4)), 0);
		}
		memset(out, 0, sizeof(out));
		neuron_fwio_unpack_words(words, len, out);
		assert_memory_equal(in, out, len);
	}
	/* little-endian */
	neuron_fwio_pack_words("\x01\x02\x03\x04\x05", 5, words);
	assert_int_equal(words[0], 0x04030201u);
	assert_int_equal(words[1], 0x00000005u);
}

/* ---- attempts, outcomes, collapse ------------------------------------------ */

static void classify_attempts(void **state)
{
	(void)state;
	assert_int_equal(neuron_fwio_classify(false, 5, 0, 0), NEURON_FWIO_ATT_TIMEOUT);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0, 4), 0),
			 NEURON_FWIO_ATT_OK);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0, 12), 8),
			 NEURON_FWIO_ATT_OK);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(6, 0, 4), 0),
			 NEURON_FWIO_ATT_BAD_SEQ);
	/* the "cleared" response (seq 0) is a mismatch too */
	assert_int_equal(neuron_fwio_classify(true, 5, 0, 0), NEURON_FWIO_ATT_BAD_SEQ);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 1, 4), 0),
			 NEURON_FWIO_ATT_FW_FAIL);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 2, 4), 0),
			 NEURON_FWIO_ATT_FW_UNKNOWN);
	/* codes the driver does not know are failures */
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 3, 4), 0),
			 NEURON_FWIO_ATT_FW_FAIL);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0xFF, 4), 0),
			 NEURON_FWIO_ATT_FW_FAIL);
	/* oversize and short responses */
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0, 8), 0),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0, 16), 8),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0, 8), 8),
			 NEURON_FWIO_ATT_BAD_SIZE);
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 0, 0), 0),
			 NEURON_FWIO_ATT_BAD_SIZE);
	/* an error response's size does not matter */
	assert_int_equal(neuron_fwio_classify(true, 5, neuron_fwio_resp_dw0(5, 1, 100), 0),
			 NEURON_FWIO_ATT_FW_FAIL);
}

static void attempt_rules(void **state)
{
	static const struct {
		enum neuron_fwio_attempt a;
		bool retry, err, tmo;
		enum neuron_fwio_outcome out;
	} rows[] = {
		{ NEURON_FWIO_ATT_OK, false, false, false, NEURON_FWIO_OUT_OK },
		/* the reference: FAIL counts and retries, UNKNOWN counts and stops */
		{ NEURON_FWIO_ATT_FW_FAIL, true, true, false, NEURON_FWIO_OUT_FW_FAIL },
		{ NEURON_FWIO_ATT_FW_UNKNOWN, false, true, false, NEURON_FWIO_OUT_FW_UNKNOWN },
		/* ours: no answer counts in timeout_count, never in err_count */
		{ NEURON_FWIO_ATT_TIMEOUT, true, false, true, NEURON_FWIO_OUT_TIMEOUT },
		{ NEURON_FWIO_ATT_BAD_SEQ, true, false, true, NEURON_FWIO_OUT_TIMEOUT },
		{ NEURON_FWIO_ATT_BAD_SIZE, false, false, true, NEURON_FWIO_OUT_BAD_SIZE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct neuron_fwio_step s = neuron_fwio_attempt_step(rows[i].a);

		assert_int_equal(s.retry, rows[i].retry);
		assert_int_equal(s.err_count, rows[i].err);
		assert_int_equal(s.timeout_count, rows[i].tmo);
		assert_int_equal(neuron_fwio_attempt_outcome(rows[i].a), rows[i].out);
	}
}

static void collapse_and_errno(void **state)
{
	static const struct {
		enum neuron_fwio_outcome o;
		int site, err;
	} rows[] = {
		{ NEURON_FWIO_OUT_OK, 0, 0 },
		{ NEURON_FWIO_OUT_FW_FAIL, -1, -EIO },
		{ NEURON_FWIO_OUT_FW_UNKNOWN, -1, -EOPNOTSUPP },
		/* exhausted retries never collapse to 0 (the reference's new-framework bug) */
		{ NEURON_FWIO_OUT_TIMEOUT, -1, -ETIMEDOUT },
		{ NEURON_FWIO_OUT_BAD_SIZE, -1, -EIO },
		{ NEURON_FWIO_OUT_OLD_API, -524, -EOPNOTSUPP },
		{ NEURON_FWIO_OUT_TOO_BIG, -E2BIG, -E2BIG },
		{ NEURON_FWIO_OUT_INTR, -EINTR, -EINTR },
	};
	size_t i;

	(void)state;
	assert_int_equal(ENOTSUPP, 524);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int e = neuron_fwio_outcome_errno(rows[i].o);

		assert_int_equal(neuron_fwio_outcome_collapse(rows[i].o), rows[i].site);
		assert_int_equal(e, rows[i].err);
		/* never -1 (reads as EPERM) nor -ENOTSUPP at the edge */
		assert_int_not_equal(e, -1);
		assert_int_not_equal(e, -ENOTSUPP);
		assert_true(e <= 0 && e > -200);
	}
}

/*
 * A whole exchange through the driver's own loop (neuron_fwio_loop(), the
 * one neuron_fwio_exchange() runs): a scripted firmware produces the
 * attempt results; the loop's counts and final value are checked.
 */
struct run_result {
	int site;
	unsigned int attempts, err, tmo;
};

struct script {
	const enum neuron_fwio_attempt *res;
	unsigned int n, next;
	int intr_at;		/* attempt index that returns -EINTR, or -1 */
	struct run_result r;
};

static int script_attempt(void *ctx)
{
	struct script *sc = ctx;
	unsigned int i = sc->next++;

	if ((int)i == sc->intr_at)
		return -EINTR;
	sc->r.attempts++;
	return i < sc->n ? (int)sc->res[i] : (int)NEURON_FWIO_ATT_OK;
}

static void script_count(void *ctx, const struct neuron_fwio_step *step)
{
	struct script *sc = ctx;

	sc->r.err += step->err_count;
	sc->r.tmo += step->timeout_count;
}

static const struct neuron_fwio_loop_ops script_ops = {
	.attempt = script_attempt,
	.count = script_count,
};

static struct run_result run_script_intr(const enum neuron_fwio_attempt *res, unsigned int n,
					 unsigned int max_attempts, int intr_at)
{
	struct script sc = { res, n, 0, intr_at, { 0, 0, 0, 0 } };

	sc.r.site = neuron_fwio_outcome_collapse(neuron_fwio_loop(max_attempts, &script_ops, &sc));
	return sc.r;
}

static struct run_result run_script(const enum neuron_fwio_attempt *res, unsigned int n,
				    unsigned int max_attempts)
{
	return run_script_intr(res, n, max_attempts, -1);
}

static void exchange_scripts(void **state)
{
	const enum neuron_fwio_attempt fail3[] = {
		NEURON_FWIO_ATT_FW_FAIL, NEURON_FWIO_ATT_FW_FAIL, NEURON_FWIO_ATT_FW_FAIL };
	const enum neuron_fwio_attempt fail1[] = { NEURON_FWIO_ATT_FW_FAIL };
	const enum neuron_fwio_attempt unk[] = { NEURON_FWIO_ATT_FW_UNKNOWN };
	const enum neuron_fwio_attempt tmo3[] = {
		NEURON_FWIO_ATT_TIMEOUT, NEURON_FWIO_ATT_TIMEOUT, NEURON_FWIO_ATT_TIMEOUT };
	const enum neuron_fwio_attempt mixed[] = {
		NEURON_FWIO_ATT_BAD_SEQ, NEURON_FWIO_ATT_FW_FAIL, NEURON_FWIO_ATT_TIMEOUT };
	const enum neuron_fwio_attempt big[] = { NEURON_FWIO_ATT_BAD_SIZE };
	struct run_result r;

	(void)state;
	r = run_script(fail3, 3, 3);
	assert_int_equal(r.site, -1);
	assert_int_equal(r.attempts, 3);
	assert_int_equal(r.err, 3);
	assert_int_equal(r.tmo, 0);

	r = run_script(fail1, 1, 3);	/* recovers on the retry */
	assert_int_equal(r.site, 0);
	assert_int_equal(r.attempts, 2);
	assert_int_equal(r.err, 1);

	r = run_script(unk, 1, 3);
	assert_int_equal(r.site, -1);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.err, 1);

	r = run_script(tmo3, 3, 3);
	assert_int_equal(r.site, -1);
	assert_int_equal(r.attempts, 3);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.tmo, 3);

	r = run_script(mixed, 3, 3);
	assert_int_equal(r.site, -1);
	assert_int_equal(r.err, 1);
	assert_int_equal(r.tmo, 2);

	r = run_script(big, 1, 3);
	assert_int_equal(r.site, -1);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.tmo, 1);

	/* one attempt allowed: a failure is final */
	r = run_script(fail1, 1, 1);
	assert_int_equal(r.site, -1);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.err, 1);

	/* the caller is killed during the second attempt: -EINTR, no more tries */
	r = run_script_intr(tmo3, 3, 3, 1);
	assert_int_equal(r.site, -EINTR);
	assert_int_equal(r.attempts, 1);
	assert_int_equal(r.tmo, 1);

	/* thirty attempts, all timing out, then the budget ends it */
	{
		enum neuron_fwio_attempt all_tmo[30];
		unsigned int i;

		for (i = 0; i < 30; i++)
			all_tmo[i] = NEURON_FWIO_ATT_TIMEOUT;
		r = run_script(all_tmo, 30, 30);
		assert_int_equal(r.site, -1);
		assert_int_equal(r.attempts, 30);
		assert_int_equal(r.tmo, 30);
	}
}

/* ---- metric records and blobs ------------------------------------------- */

static const uint8_t expected_counter_cw[NEURON_METRIC_COUNTERS] = {
	200, 201, 205, 212, 215, 216, 217, 206, 218, 214, 213, 219, 204, 208, 207, 202, 209,
	220, 221, 222, 223, 224, 253, 225, 226, 227, 228, 229,
};
static const uint8_t expected_counter_nc[NEURON_METRIC_COUNTERS] = {
	1, 16, 4, 5, 8, 9, 10, 11, 12, 2, 3, 7, 17, 18, 6, 19, 20,
	30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
};

static void def_table(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < NEURON_METRIC_COUNTERS; i++) {
		assert_int_equal(neuron_metric_counter_ids[i], expected_counter_nc[i]);
		assert_int_equal(neuron_metric_counter_cw_id(i), expected_counter_cw[i]);
	}
	assert_int_equal(neuron_metric_counter_cw_id(NEURON_METRIC_COUNTERS), 0);
}

static void record_format(void **state)
{
	struct neuron_metric_rec r;
	char long_str[100];

	(void)state;
	neuron_metric_rec_u64(&r, 200, 0);
	assert_int_equal(r.len, 1);
	assert_memory_equal(r.text, "0", 1);
	neuron_metric_rec_u64(&r, 200, 7);
	assert_memory_equal(r.text, "7", 1);
	neuron_metric_rec_u64(&r, 201, 1234567890ULL);
	assert_int_equal(r.len, 10);
	assert_memory_equal(r.text, "1234567890", 10);
	neuron_metric_rec_u64(&r, 11, UINT64_MAX);
	assert_int_equal(r.id, 11);
	assert_int_equal(r.len, 20);
	assert_memory_equal(r.text, "18446744073709551615", 20);
	assert_int_equal(r.slot, NEURON_METRIC_SLOT_NONE);

	neuron_metric_rec_str(&r, 13, "2.0.1");
	assert_int_equal(r.len, 5);
	assert_memory_equal(r.text, "2.0.1", 5);
	memset(long_str, 'x', sizeof(long_str) - 1);
	long_str[sizeof(long_str) - 1] = '\0';
	neuron_metric_rec_str(&r, 12, long_str);
	assert_int_equal(r.len, 63);
	neuron_metric_rec_str(&r, 12, "");
	assert_int_equal(r.len, 1);
	assert_memory_equal(r.text, "0", 1);
	neuron_metric_rec_str(&r, 12, NULL);
	assert_int_equal(r.len, 1);
}

/* Pack everything, decode every blob, check order, bounds and content. */
static void check_packing(const struct neuron_metric_rec *recs, uint32_t n,
			  uint32_t *blobs_out)
{
	uint8_t blob[NEURON_METRIC_BLOB_MAX + 16];
	uint32_t pos = 0, seen = 0, blobs = 0;

	while (pos < n) {
		uint32_t before = pos, off = 0, len;
		const uint8_t *val;
		uint8_t id, vlen;
		int r;

		memset(blob, 0xCC, sizeof(blob));
		len = neuron_metric_pack(recs, n, &pos, blob, NEURON_METRIC_BLOB_MAX);
		assert_true(len > 0);
		assert_true(len <= NEURON_METRIC_BLOB_MAX);
		assert_true(pos > before);
		/* nothing written past the blob */
		assert_int_equal(blob[NEURON_METRIC_BLOB_MAX], 0xCC);
		/* the next record would not have fitted: blobs are packed greedily */
		if (pos < n)
			assert_true(len + 2u + recs[pos].len > NEURON_METRIC_BLOB_MAX);
		while ((r = neuron_metric_next(blob, len, &off, &id, &val, &vlen)) > 0) {
			assert_true(seen < n);
			assert_int_not_equal(id, 0);
			assert_int_equal(id, recs[seen].id);
			assert_int_equal(vlen, recs[seen].len);
			assert_memory_equal(val, recs[seen].text, vlen);
			seen++;
		}
		assert_int_equal(r, 0);
		assert_int_equal(off, len);
		blobs++;
	}
	/* every record delivered, none dropped */
	assert_int_equal(seen, n);
	*blobs_out = blobs;
}

static void pack_all_ids_split(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_state st;
	uint64_t totals[95];
	struct neuron_metric_input in = {
		.nc_total = totals,
		.nc_ids = 95,
		.feature_bitmap = UINT64_MAX,
		.cluster_id = UINT64_MAX - 1,
		.fw_io_err = UINT64_MAX,
		.instance_id = "i-0123456789abcdef0-with-a-long-asset-tag-to-fill-the-63-bytes",
		.driver_version = "2.99.1234567",
		.perf_profile = 3,
		.reset = { { UINT64_MAX, UINT64_MAX, 1, UINT64_MAX },
			   { UINT64_MAX, UINT64_MAX, 1, UINT64_MAX } },
	};
	struct neuron_metric_hist ver[NEURON_METRIC_VERSIONS];
	uint32_t n, blobs, i, total = 0;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 95; i++)
		totals[i] = UINT64_MAX;
	memset(ver, 0, sizeof(ver));
	for (i = 0; i < NEURON_METRIC_VERSIONS; i++) {
		neuron_metric_hist_add(&ver[i], UINT64_MAX, 2);
		neuron_metric_hist_add(&ver[i], UINT64_MAX - 1, 1);
	}
	in.versions = ver;
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	/*
	 * 12, 13, 56, 8 version records, 28 counters, 11, 250, 252, 50..55:
	 * every id non-zero and present
	 */
	assert_int_equal(n, NEURON_METRIC_MAX_RECS);
	for (i = 0; i < n; i++) {
		assert_int_not_equal(recs[i].id, 0);
		total += 2u + recs[i].len;
	}
	assert_true(total > 4 * NEURON_METRIC_BLOB_MAX);
	check_packing(recs, n, &blobs);
	assert_true(blobs >= (total + NEURON_METRIC_BLOB_MAX - 1) / NEURON_METRIC_BLOB_MAX);
}

static void pack_bounds(void **state)
{
	struct neuron_metric_rec recs[5];
	uint8_t blob[NEURON_METRIC_BLOB_MAX];
	uint32_t pos = 0, len, blobs;
	int i;

	(void)state;
	/* two records of 63 + 2 = 65 bytes cannot share a blob (130 > 128) */
	for (i = 0; i < 2; i++) {
		memset(recs[i].text, 'a' + i, sizeof(recs[i].text));
		recs[i].id = (uint8_t)(20 + i);
		recs[i].len = 63;
		recs[i].slot = NEURON_METRIC_SLOT_NONE;
	}
	check_packing(recs, 2, &blobs);
	assert_int_equal(blobs, 2);

	/* exactly 128: 64 + 64 */
	recs[0].len = 62;
	recs[1].len = 62;
	len = neuron_metric_pack(recs, 2, &pos, blob, sizeof(blob));
	assert_int_equal(len, 128);
	assert_int_equal(pos, 2);

	/* a smaller capacity is honoured; a record that never fits is skipped */
	pos = 0;
	len = neuron_metric_pack(recs, 2, &pos, blob, 10);
	assert_int_equal(len, 0);
	assert_int_equal(pos, 2);

	/* nothing to pack */
	pos = 0;
	assert_int_equal(neuron_metric_pack(recs, 0, &pos, blob, sizeof(blob)), 0);
}

static void unpack_rejects(void **state)
{
	const uint8_t good[] = { 200, 1, '5', 13, 3, '1', '.', '2' };
	const uint8_t zero_id[] = { 0, 1, '5' };
	const uint8_t zero_len[] = { 200, 0 };
	const uint8_t truncated[] = { 200, 3, '1', '2' };
	const uint8_t half_hdr[] = { 200, 1, '5', 13 };
	uint8_t big[NEURON_METRIC_BLOB_MAX + 1];
	const uint8_t *val;
	uint32_t off = 0;
	uint8_t id, vlen;
	uint64_t v;

	(void)state;
	assert_int_equal(neuron_metric_next(good, sizeof(good), &off, &id, &val, &vlen), 1);
	assert_int_equal(id, 200);
	assert_int_equal(neuron_metric_parse_u64(val, vlen, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(neuron_metric_next(good, sizeof(good), &off, &id, &val, &vlen), 1);
	assert_int_equal(id, 13);
	assert_int_equal(neuron_metric_parse_u64(val, vlen, &v), -EINVAL);
	assert_int_equal(neuron_metric_next(good, sizeof(good), &off, &id, &val, &vlen), 0);

	off = 0;
	assert_int_equal(neuron_metric_next(zero_id, sizeof(zero_id), &off, &id, &val, &vlen),
			 -EINVAL);
	off = 0;
	assert_int_equal(neuron_metric_next(zero_len, sizeof(zero_len), &off, &id, &val, &vlen),
			 -EINVAL);
	off = 0;
	assert_int_equal(neuron_metric_next(truncated, sizeof(truncated), &off, &id, &val, &vlen),
			 -EINVAL);
	off = 0;
	assert_int_equal(neuron_metric_next(half_hdr, sizeof(half_hdr), &off, &id, &val, &vlen),
			 1);
	assert_int_equal(neuron_metric_next(half_hdr, sizeof(half_hdr), &off, &id, &val, &vlen),
			 -EINVAL);
	memset(big, '1', sizeof(big));
	big[0] = 200;
	big[1] = 126;
	off = 0;
	assert_int_equal(neuron_metric_next(big, sizeof(big), &off, &id, &val, &vlen), -EINVAL);

	assert_int_equal(neuron_metric_parse_u64((const uint8_t *)"18446744073709551615", 20, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(neuron_metric_parse_u64((const uint8_t *)"18446744073709551616", 20, &v),
			 -EINVAL);
	assert_int_equal(neuron_metric_parse_u64((const uint8_t *)"", 0, &v), -EINVAL);
}

/* ---- aggregation ------------------------------------------------------------ */

static int find_rec(const struct neuron_metric_rec *recs, uint32_t n, uint8_t id, uint64_t *v)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (recs[i].id == id)
			return neuron_metric_parse_u64((const uint8_t *)recs[i].text, recs[i].len, v) ? -2 : (int)i;
	return -1;
}

static void commit_all(struct neuron_metric_state *st, const struct neuron_metric_rec *recs,
		       uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		neuron_metric_commit(st, &recs[i]);
}

/*
 * Records of neuron_metric_build() that go out even at 0: 56 (tick 0) after
 * 12 and 13, and the driver metrics 50..55 (tick 1) last.
 */
#define ZERO_RECS	7

static void aggregation_deltas(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_state st;
	uint64_t totals[95] = { 0 };
	struct neuron_metric_input in = {
		.nc_total = totals, .nc_ids = 95,
		.instance_id = "sim", .driver_version = "1.2.3",
	};
	uint64_t v;
	uint32_t n, i;

	(void)state;
	memset(&st, 0, sizeof(st));

	/* nothing happened: only the constants, 56 and the driver metrics, all 0 */
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 2 + ZERO_RECS);
	assert_int_equal(recs[0].id, 12);
	assert_memory_equal(recs[0].text, "sim", 3);
	assert_int_equal(recs[1].id, 13);
	assert_memory_equal(recs[1].text, "1.2.3", 5);
	assert_int_equal(recs[2].id, 56);
	assert_int_equal(recs[2].len, 1);
	assert_memory_equal(recs[2].text, "0", 1);
	for (i = 0; i < 6; i++) {
		assert_int_equal(recs[3 + i].id, 50 + i);
		assert_int_equal(recs[3 + i].len, 1);
		assert_memory_equal(recs[3 + i].text, "0", 1);
	}

	/* counter k gets k + 1 events; each posts exactly its delta */
	for (i = 0; i < NEURON_METRIC_COUNTERS; i++)
		totals[expected_counter_nc[i]] = i + 1;
	totals[0] = 999;	/* TIME_IN_USE: not a posted counter */
	totals[13] = 999;	/* LATENCY_DEVICE: idem */
	in.fw_io_err = 4;
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 2 + ZERO_RECS + NEURON_METRIC_COUNTERS + 1);
	for (i = 0; i < NEURON_METRIC_COUNTERS; i++) {
		assert_true(find_rec(recs, n, expected_counter_cw[i], &v) >= 0);
		assert_int_equal(v, i + 1);
	}
	/* 11 after the first 17 counters, before OOB (220) */
	assert_int_equal(find_rec(recs, n, 11, &v), 3 + 17);
	assert_int_equal(v, 4);
	assert_int_equal(recs[3].id, 200);
	assert_int_equal(recs[3 + 18].id, 220);
	commit_all(&st, recs, n);

	/* a second post with no new events: constants only */
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 2 + ZERO_RECS);

	/* new events on two counters and the FW-IO errors */
	totals[2] += 10;	/* -> 214 */
	totals[36] += 3;	/* -> 225 */
	in.fw_io_err = 6;
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 5 + ZERO_RECS);
	assert_true(find_rec(recs, n, 214, &v) >= 0);
	assert_int_equal(v, 10);
	assert_true(find_rec(recs, n, 225, &v) >= 0);
	assert_int_equal(v, 3);
	assert_true(find_rec(recs, n, 11, &v) >= 0);
	assert_int_equal(v, 2);

	/* delivery failed for everything but 214: the rest carries over, summed */
	neuron_metric_commit(&st, &recs[find_rec(recs, n, 214, &v)]);
	totals[36] += 1;
	in.fw_io_err = 7;
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 4 + ZERO_RECS);
	assert_int_equal(find_rec(recs, n, 214, &v), -1);
	assert_true(find_rec(recs, n, 225, &v) >= 0);
	assert_int_equal(v, 4);
	assert_true(find_rec(recs, n, 11, &v) >= 0);
	assert_int_equal(v, 3);
	commit_all(&st, recs, n);

	/* a total that goes backwards is not reported (no wrap to 2^64 - x) */
	totals[1] -= 1;
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 2 + ZERO_RECS);
	assert_int_equal(neuron_metric_delta(5, 7), 0);
	assert_int_equal(neuron_metric_delta(7, 5), 2);
	assert_true(neuron_metric_delta(UINT64_MAX, 0) == UINT64_MAX);

	/* bitmap and cluster id: posted when non-zero, as values */
	in.feature_bitmap = 0x15;
	in.cluster_id = 77;
	n = neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS);
	assert_int_equal(n, 4 + ZERO_RECS);
	assert_int_equal(recs[3].id, 250);
	assert_memory_equal(recs[3].text, "21", 2);
	assert_int_equal(recs[4].id, 252);
	assert_memory_equal(recs[4].text, "77", 2);
	/* never the vendor's duplicate of the bitmap under id 0, nor 251 */
	assert_int_equal(find_rec(recs, n, 0, &v), -1);
	assert_int_equal(find_rec(recs, n, 251, &v), -1);
}

/*
 * The reference's tick sets (nds-sysfs-metrics.md 3.2, written out again):
 * 12 and 13 on every tick (and 180/181 when a runtime version is known);
 * on tick 0 56, the first 17 counters, 11, then 220; on tick 1 the EXT
 * counters, 250, 252 and the driver metrics 50..55.
 */
static const uint8_t tick0_ids[] = {
	12, 13, 56,
	200, 201, 205, 212, 215, 216, 217, 206, 218, 214, 213, 219, 204, 208, 207, 202, 209,
	11, 220,
};
static const uint8_t tick1_ids[] = {
	12, 13, 221, 222, 223, 224, 253, 225, 226, 227, 228, 229, 250, 252,
	50, 51, 52, 53, 54, 55,
};
/* the same with every version metric holding two typed values */
static const uint8_t tick0_ver_ids[] = {
	12, 13, 56, 180, 181,
	200, 201, 205, 212, 215, 216, 217, 206, 218, 214, 213, 219, 204, 208, 207, 202, 209,
	11, 220,
};
static const uint8_t tick1_ver_ids[] = {
	12, 13, 180, 181, 190, 191, 192, 193, 195, 196,
	221, 222, 223, 224, 253, 225, 226, 227, 228, 229, 250, 252,
	50, 51, 52, 53, 54, 55,
};

#define VER(type, maj, min, build) \
	((uint64_t)(type) << 48 | (uint64_t)(maj) << 40 | (uint64_t)(min) << 32 | (build))

/* Every version metric with two values, the framework's typed. */
static void fill_versions(struct neuron_metric_hist *ver)
{
	memset(ver, 0, NEURON_METRIC_VERSIONS * sizeof(*ver));
	neuron_metric_hist_add(&ver[0], VER(0, 2, 25, 1000), 2);
	neuron_metric_hist_add(&ver[0], VER(0, 2, 24, 9), 1);
	neuron_metric_hist_add(&ver[1], VER(13, 1, 13, 7), 1);
	neuron_metric_hist_add(&ver[1], VER(2, 2, 1, 0), 3);
	neuron_metric_hist_add(&ver[2], VER(0, 1, 0, 1), 1);
	neuron_metric_hist_add(&ver[2], VER(0, 1, 0, 2), 1);
}

static void fill_everything(struct neuron_metric_input *in, uint64_t *totals, uint64_t v)
{
	uint32_t i;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < 95; i++)
		totals[i] = v;
	in->nc_total = totals;
	in->nc_ids = 95;
	in->fw_io_err = 7;
	in->feature_bitmap = 5;
	in->cluster_id = 9;
	in->instance_id = "sim";
	in->driver_version = "1.2.3";
}

static void tick_sets(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_state st;
	struct neuron_metric_input in;
	uint64_t totals[95];
	static const uint8_t never[] = { 0, 1, 49, 57, 179, 182, 189, 194, 197, 203, 251, 255 };
	struct neuron_metric_hist ver[NEURON_METRIC_VERSIONS];
	uint32_t n, i;

	(void)state;
	memset(&st, 0, sizeof(st));
	fill_everything(&in, totals, 3);
	for (i = 0; i < sizeof(tick0_ids); i++)
		assert_int_equal(neuron_metric_id_ticks(tick0_ids[i]),
				 i < 2 ? NEURON_METRIC_TICK_ALWAYS : NEURON_METRIC_TICK_0);
	for (i = 2; i < sizeof(tick1_ids); i++)
		assert_int_equal(neuron_metric_id_ticks(tick1_ids[i]), NEURON_METRIC_TICK_1);
	for (i = 0; i < sizeof(never); i++)
		assert_int_equal(neuron_metric_id_ticks(never[i]), 0);
	assert_int_equal(neuron_metric_id_ticks(180), NEURON_METRIC_TICK_ALWAYS);
	assert_int_equal(neuron_metric_id_ticks(181), NEURON_METRIC_TICK_ALWAYS);
	for (i = 190; i <= 196; i++)
		assert_int_equal(neuron_metric_id_ticks((uint8_t)i), i == 194 ? 0 : NEURON_METRIC_TICK_1);

	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 0);
	assert_int_equal(n, sizeof(tick0_ids));
	for (i = 0; i < n; i++)
		assert_int_equal(recs[i].id, tick0_ids[i]);
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	assert_int_equal(n, sizeof(tick1_ids));
	for (i = 0; i < n; i++)
		assert_int_equal(recs[i].id, tick1_ids[i]);
	/* the two sets share only the constants and cover every definition */
	assert_int_equal(neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS),
			 sizeof(tick0_ids) + sizeof(tick1_ids) - 2);
	/* an out-of-range tick selects nothing */
	assert_int_equal(neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 2), 0);

	/* with versions: 180/181 on both ticks, 190..196 on tick 1, in table order */
	fill_versions(ver);
	in.versions = ver;
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 0);
	assert_int_equal(n, sizeof(tick0_ver_ids));
	for (i = 0; i < n; i++)
		assert_int_equal(recs[i].id, tick0_ver_ids[i]);
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	assert_int_equal(n, sizeof(tick1_ver_ids));
	for (i = 0; i < n; i++)
		assert_int_equal(recs[i].id, tick1_ver_ids[i]);
	assert_int_equal(neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS),
			 sizeof(tick0_ver_ids) + sizeof(tick1_ver_ids) - 4);
}

static void pack_one_leaves_out(void **state)
{
	/* bytes: 60, 60, 9 (no room), 3, 6 (no room), 5: 60+60+3+5 = 128 */
	static const uint8_t lens[6] = { 58, 58, 7, 1, 4, 3 };
	static const uint8_t want[6] = { 1, 1, 0, 1, 0, 1 };
	struct neuron_metric_rec recs[6];
	uint8_t blob[NEURON_METRIC_BLOB_MAX + 8], packed[6];
	uint32_t len, off = 0, i, k = 0;
	const uint8_t *val;
	uint8_t id, vlen;
	int r;

	(void)state;
	for (i = 0; i < 6; i++) {
		memset(recs[i].text, '0' + (int)i, sizeof(recs[i].text));
		recs[i].id = (uint8_t)(100 + i);
		recs[i].len = lens[i];
		recs[i].slot = NEURON_METRIC_SLOT_NONE;
	}
	memset(blob, 0xCC, sizeof(blob));
	memset(packed, 0xEE, sizeof(packed));
	len = neuron_metric_pack_one(recs, 6, blob, NEURON_METRIC_BLOB_MAX, packed);
	assert_int_equal(len, 128);
	assert_memory_equal(packed, want, 6);
	assert_int_equal(blob[NEURON_METRIC_BLOB_MAX], 0xCC);
	while ((r = neuron_metric_next(blob, len, &off, &id, &val, &vlen)) > 0) {
		while (!want[k])
			k++;
		assert_int_equal(id, recs[k].id);
		assert_int_equal(vlen, recs[k].len);
		assert_memory_equal(val, recs[k].text, vlen);
		k++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(k, 6);
	/* a capacity above 128 is clamped; nothing fits in 2 bytes */
	len = neuron_metric_pack_one(recs, 6, blob, 1000, packed);
	assert_true(len <= NEURON_METRIC_BLOB_MAX);
	assert_int_equal(neuron_metric_pack_one(recs, 6, blob, 2, packed), 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(packed[i], 0);
	assert_int_equal(neuron_metric_pack_one(recs, 0, blob, 128, packed), 0);
}

/*
 * Posts as the driver makes them: one blob a tick, ticks alternating, only
 * the records in a delivered blob advance. With every value 19 digits long
 * a tick's blob holds 5 counters; nothing is lost or posted twice, a record
 * goes out only on its tick, and an event between two tick-0 posts waits
 * for the next tick 0.
 */
static void ticks_carry_over(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_state st;
	struct neuron_metric_input in;
	uint64_t totals[95];
	uint8_t blob[NEURON_METRIC_BLOB_MAX], packed[NEURON_METRIC_MAX_RECS];
	uint32_t seen[256] = { 0 };
	uint32_t post, n, i, len;
	const uint64_t big = 1000000000000000000ull;

	(void)state;
	memset(&st, 0, sizeof(st));
	fill_everything(&in, totals, big);
	in.cluster_id = 0;
	in.feature_bitmap = 0;
	for (post = 0; post < 16; post++) {
		uint32_t tick = post % 2, counters = 0, resets = 0;

		n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, tick);
		len = neuron_metric_pack_one(recs, n, blob, sizeof(blob), packed);
		assert_true(len > 0 && len <= NEURON_METRIC_BLOB_MAX);
		for (i = 0; i < n; i++) {
			assert_true(neuron_metric_id_ticks(recs[i].id) & (1u << tick));
			if (!packed[i])
				continue;
			neuron_metric_commit(&st, &recs[i]);
			seen[recs[i].id]++;
			if (recs[i].slot >= 0 && recs[i].slot < NEURON_METRIC_COUNTERS)
				counters++;
			if (recs[i].id >= 50 && recs[i].id <= 55)
				resets++;
		}
		/*
		 * tick 0: 12, 13, 56 (5 + 7 + 3 bytes), then 5 x 21 bytes: 120,
		 * and 11 (3) fits too; tick 1: 12, 13, 5 x 21: 117, and 3 of
		 * the 3-byte driver metrics
		 */
		if (post < 5)
			assert_int_equal(counters, 5);
		if (post < 5 && tick)
			assert_int_equal(resets, 3);
	}
	for (i = 0; i < sizeof(tick0_ids); i++)
		assert_int_equal(seen[tick0_ids[i]], i < 3 ? 16 - 8 * (i == 2) : 1);
	for (i = 2; i < sizeof(tick1_ids) - 8; i++)
		assert_int_equal(seen[tick1_ids[i]], 1);
	/* a new FW-IO error: not on tick 1, then once on tick 0 */
	in.fw_io_err = 8;
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	assert_int_equal(n, 2 + 6);
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 0);
	assert_int_equal(n, 4);
	assert_int_equal(recs[3].id, 11);
	assert_memory_equal(recs[3].text, "1", 1);
}

static void build_respects_max(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_state st;
	uint64_t totals[95];
	struct neuron_metric_input in = {
		.nc_total = totals, .nc_ids = 95, .fw_io_err = 1,
		.feature_bitmap = 1, .cluster_id = 1,
		.instance_id = "sim", .driver_version = "1",
	};
	struct neuron_metric_hist ver[NEURON_METRIC_VERSIONS];
	uint32_t m;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (m = 0; m < 95; m++)
		totals[m] = 5;
	fill_versions(ver);
	in.versions = ver;
	for (m = 0; m <= NEURON_METRIC_MAX_RECS; m++)
		assert_int_equal(neuron_metric_build(&in, &st, recs, m), m);
	/* short totals array: ids past it read as 0 */
	in.nc_ids = 31;
	assert_int_equal(neuron_metric_build(&in, &st, recs, NEURON_METRIC_MAX_RECS),
			 2 + 1 + 8 + 18 + 1 + 2 + 6);
}

/* ---- version metrics, driver metrics ---------------------------------------- */

static void version_histogram(void **state)
{
	struct neuron_metric_hist h, copy;
	uint64_t top[NEURON_METRIC_VERSION_TOP];
	uint32_t i;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(neuron_metric_hist_top(&h, top), 0);
	/* zero is no version */
	neuron_metric_hist_add(&h, 0, 5);
	assert_int_equal(neuron_metric_hist_top(&h, top), 0);
	/* a repeat counts up; the most used first */
	neuron_metric_hist_add(&h, 7, 1);
	neuron_metric_hist_add(&h, 9, 1);
	neuron_metric_hist_add(&h, 9, 1);
	assert_int_equal(neuron_metric_hist_top(&h, top), 2);
	assert_true(top[0] == 9 && top[1] == 7);
	neuron_metric_hist_add(&h, 7, 2);
	assert_int_equal(neuron_metric_hist_top(&h, top), 2);
	assert_true(top[0] == 7 && top[1] == 9);
	/* equal counts: the higher value first, whatever the slot */
	neuron_metric_hist_add(&h, 8, 2);
	neuron_metric_hist_add(&h, 9, 1);
	assert_int_equal(neuron_metric_hist_top(&h, top), 2);
	assert_true(top[0] == 9 && top[1] == 7);

	/* 8 slots: a ninth value replaces the least used (the first of equals) */
	memset(&h, 0, sizeof(h));
	for (i = 0; i < NEURON_METRIC_HIST_SLOTS; i++)
		neuron_metric_hist_add(&h, 100 + i, 2 + (i != 3));
	neuron_metric_hist_add(&h, 500, 1);
	for (i = 0; i < NEURON_METRIC_HIST_SLOTS; i++)
		assert_true(h.value[i] != 103);
	assert_true(h.value[3] == 500 && h.count[3] == 1);
	neuron_metric_hist_add(&h, 501, 1);	/* replaces 500, now the least used */
	assert_true(h.value[3] == 501);

	/* sub: what was delivered goes, what came since stays */
	memset(&h, 0, sizeof(h));
	neuron_metric_hist_add(&h, 7, 2);
	neuron_metric_hist_add(&h, 8, 1);
	copy = h;
	neuron_metric_hist_add(&h, 7, 1);
	neuron_metric_hist_add(&h, 6, 1);
	neuron_metric_hist_sub(&h, &copy);
	assert_int_equal(neuron_metric_hist_top(&h, top), 2);
	assert_true(top[0] == 7 && top[1] == 6);
	neuron_metric_hist_sub(&h, &h);
	assert_int_equal(neuron_metric_hist_top(&h, top), 0);
	/* merge adds counts */
	neuron_metric_hist_add(&h, 4, 1);
	neuron_metric_hist_add(&copy, 4, 3);
	neuron_metric_hist_merge(&h, &copy);
	assert_int_equal(neuron_metric_hist_top(&h, top), 2);
	assert_true(top[0] == 4 && top[1] == 7);
}

static int rec_is(const struct neuron_metric_rec *r, uint8_t id, const char *text)
{
	return r->id == id && r->len == strlen(text) && !memcmp(r->text, text, r->len);
}

static void version_records(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_hist ver[NEURON_METRIC_VERSIONS];
	struct neuron_metric_state st;
	uint64_t totals[95] = { 0 };
	struct neuron_metric_input in = {
		.nc_total = totals, .nc_ids = 95,
		.instance_id = "sim", .driver_version = "1",
		.versions = ver,
	};
	char buf[NEURON_METRIC_VERSION_LEN];
	uint32_t n;

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(neuron_metric_version_str(VER(7, 2, 25, 1000), buf), 9);
	assert_memory_equal(buf, "2.25.1000", 9);
	assert_int_equal(neuron_metric_version_str(VER(0xFFFF, 255, 255, 4294967295u), buf),
			 NEURON_METRIC_VERSION_LEN);
	assert_memory_equal(buf, "255.255.4294967295", NEURON_METRIC_VERSION_LEN);
	assert_int_equal(neuron_metric_version_str(0, buf), 5);
	assert_memory_equal(buf, "0.0.0", 5);
	assert_int_equal(neuron_metric_version_type(VER(13, 1, 0, 0)), 3);
	assert_int_equal(neuron_metric_version_type(VER(20, 1, 0, 0)), 0);
	assert_true(neuron_metric_version_bare(VER(4, 0, 0, 0)));
	assert_false(neuron_metric_version_bare(VER(4, 0, 0, 1)));

	fill_versions(ver);
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	/* 12, 13, then 180/181, 190..193, 195/196, then 50..55 */
	assert_int_equal(n, 2 + 8 + 6);
	assert_true(rec_is(&recs[2], 180, "2.25.1000"));	/* seen twice */
	assert_true(rec_is(&recs[3], 181, "2.24.9"));
	assert_true(rec_is(&recs[4], 190, "2.1.0"));		/* seen 3 times, type 2 */
	assert_true(rec_is(&recs[5], 191, "2"));
	assert_true(rec_is(&recs[6], 192, "1.13.7"));		/* type 13 % 10 */
	assert_true(rec_is(&recs[7], 193, "3"));
	assert_true(rec_is(&recs[8], 195, "1.0.2"));		/* equal counts: higher first */
	assert_true(rec_is(&recs[9], 196, "1.0.1"));
	assert_int_equal(recs[2].group, NEURON_METRIC_GRP_VER(0));
	assert_int_equal(recs[5].group, NEURON_METRIC_GRP_VER(1));
	assert_int_equal(recs[9].group, NEURON_METRIC_GRP_VER(2));
	assert_int_equal(recs[9].slot, NEURON_METRIC_SLOT_NONE);

	/*
	 * framework: type 0 posts no type; a version zero apart from its type
	 * posts the type alone (at its value's id + 1); the runtime and FAL
	 * never post a type, and nothing for a value with no version part
	 */
	memset(ver, 0, sizeof(ver));
	neuron_metric_hist_add(&ver[1], VER(10, 3, 0, 5), 2);
	neuron_metric_hist_add(&ver[1], VER(4, 0, 0, 0), 1);
	neuron_metric_hist_add(&ver[0], VER(5, 1, 2, 3), 1);
	neuron_metric_hist_add(&ver[2], VER(5, 0, 0, 0), 1);
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	assert_int_equal(n, 2 + 3 + 6);
	assert_true(rec_is(&recs[2], 180, "1.2.3"));
	assert_true(rec_is(&recs[3], 190, "3.0.5"));
	assert_true(rec_is(&recs[4], 193, "4"));
	assert_int_equal(recs[5].id, 50);
	/* tick 0: the runtime's only */
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 0);
	assert_int_equal(n, 4);
	assert_true(rec_is(&recs[2], 56, "0"));
	assert_true(rec_is(&recs[3], 180, "1.2.3"));
	in.perf_profile = 2;
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 0);
	assert_true(rec_is(&recs[2], 56, "2"));
}

static void reset_window(void **state)
{
	struct neuron_metric_reset_window w, w2;
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_state st;
	uint64_t totals[95] = { 0 };
	struct neuron_metric_input in = {
		.nc_total = totals, .nc_ids = 95,
		.instance_id = "sim", .driver_version = "1",
	};
	uint32_t n;

	(void)state;
	memset(&st, 0, sizeof(st));
	memset(&w, 0, sizeof(w));
	assert_int_equal(neuron_metric_reset_avg(&w), 0);
	neuron_metric_reset_sample(&w, 300);
	neuron_metric_reset_sample(&w, 500);
	neuron_metric_reset_sample(&w, 401);
	neuron_metric_reset_failure(&w);
	assert_true(w.max_ms == 500 && w.count == 3 && w.failures == 1);
	assert_int_equal(neuron_metric_reset_avg(&w), 400);
	memset(&w2, 0, sizeof(w2));
	neuron_metric_reset_sample(&w2, 900);
	neuron_metric_reset_failure(&w2);
	neuron_metric_reset_merge(&w2, &w);
	assert_true(w2.max_ms == 900 && w2.count == 4 && w2.total_ms == 2101 && w2.failures == 2);

	in.reset[NEURON_METRIC_RESET_DEV] = w2;
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	assert_int_equal(n, 8);
	assert_true(rec_is(&recs[2], 50, "900"));
	assert_true(rec_is(&recs[3], 51, "0"));
	assert_true(rec_is(&recs[4], 52, "525"));
	assert_true(rec_is(&recs[5], 53, "0"));
	assert_true(rec_is(&recs[6], 54, "2"));
	assert_true(rec_is(&recs[7], 55, "0"));
	assert_int_equal(recs[6].group,
			 NEURON_METRIC_GRP_RESET(NEURON_METRIC_RESET_DEV, NEURON_METRIC_RESET_FAIL));

	neuron_metric_reset_clear(&w2, NEURON_METRIC_RESET_MAX);
	assert_true(w2.max_ms == 0 && w2.count == 4);
	neuron_metric_reset_clear(&w2, NEURON_METRIC_RESET_AVG);
	assert_true(w2.total_ms == 0 && w2.count == 0 && w2.failures == 2);
	neuron_metric_reset_clear(&w2, NEURON_METRIC_RESET_FAIL);
	assert_true(w2.failures == 0);
}

static void delivered_groups(void **state)
{
	struct neuron_metric_rec recs[NEURON_METRIC_MAX_RECS];
	struct neuron_metric_hist ver[NEURON_METRIC_VERSIONS];
	struct neuron_metric_state st;
	uint64_t totals[95] = { 0 };
	struct neuron_metric_input in = {
		.nc_total = totals, .nc_ids = 95,
		.instance_id = "sim", .driver_version = "1",
		.versions = ver,
	};
	uint8_t packed[NEURON_METRIC_MAX_RECS];
	uint32_t n, all_ver = 0, all_reset = 0, k, f, d;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (k = 0; k < NEURON_METRIC_VERSIONS; k++)
		all_ver |= NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(k));
	for (k = 0; k < NEURON_METRIC_RESET_KINDS; k++)
		for (f = 0; f < NEURON_METRIC_RESET_FIELDS; f++)
			all_reset |= NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_RESET(k, f));
	assert_int_equal(all_ver & all_reset, 0);

	fill_versions(ver);
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	memset(packed, 1, sizeof(packed));
	assert_int_equal(neuron_metric_delivered(recs, n, packed, 1), all_ver | all_reset);
	/* 192 left out: the framework's values are not delivered, 51 not either */
	packed[6] = 0;
	packed[11] = 0;
	d = neuron_metric_delivered(recs, n, packed, 1);
	assert_int_equal(d & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(1)), 0);
	assert_int_not_equal(d & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(0)), 0);
	assert_int_not_equal(d & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(2)), 0);
	assert_int_equal(recs[11].id, 51);
	assert_int_equal(d & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_RESET(1, 0)), 0);
	assert_int_not_equal(d & NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_RESET(0, 0)), 0);

	/* tick 0: only the runtime's versions are due; no driver metric */
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 0);
	memset(packed, 1, sizeof(packed));
	assert_int_equal(neuron_metric_delivered(recs, n, packed, 0),
			 NEURON_METRIC_GRP_BIT(NEURON_METRIC_GRP_VER(0)));
	/* a due metric with no record (nothing to post) is delivered with the blob */
	memset(ver, 0, sizeof(ver));
	n = neuron_metric_build_tick(&in, &st, recs, NEURON_METRIC_MAX_RECS, 1);
	memset(packed, 1, sizeof(packed));
	assert_int_equal(neuron_metric_delivered(recs, n, packed, 1), all_ver | all_reset);
}

static void value_formats(void **state)
{
	static const struct {
		uint8_t id;
		const char *v;
		bool ok;
	} cases[] = {
		{ 180, "2.25.1000", true }, { 181, "255.255.4294967295", true },
		{ 190, "0.0.0", true }, { 192, "1.2.3", true }, { 195, "1.0.2", true },
		{ 196, "1.0.2", true },
		{ 180, "256.0.1", false }, { 180, "1.2", false }, { 180, "1.2.3.4", false },
		{ 180, "1..3", false }, { 180, "1.2.4294967296", false }, { 180, "12", false },
		{ 195, "a.b.c", false }, { 190, ".1.2", false }, { 190, "1.2.", false },
		{ 191, "3", true }, { 193, "9", true }, { 191, "0", false }, { 191, "12", false },
		{ 193, "x", false },
		{ 50, "0", true }, { 52, "18446744073709551615", true }, { 55, "-1", false },
		{ 56, "2", true }, { 56, "2.0", false }, { 200, "17", true }, { 200, "1.2.3", false },
		{ 11, "4", true }, { 250, "21", true }, { 252, "x", false },
		{ 12, "i-0123 abc", true }, { 13, "2.1.0", true }, { 12, "a\tb", false },
		{ 99, "anything", true },
	};
	uint32_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(neuron_metric_value_ok(cases[i].id, (const uint8_t *)cases[i].v,
							(uint8_t)strlen(cases[i].v)),
				 cases[i].ok);
	assert_false(neuron_metric_value_ok(50, (const uint8_t *)"", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc_check_value),
		cmocka_unit_test(crc_matches_bitwise_model),
		cmocka_unit_test(crc_chains),
		cmocka_unit_test(header_layout),
		cmocka_unit_test(request_crc),
		cmocka_unit_test(sequence_step),
		cmocka_unit_test(data_words),
		cmocka_unit_test(classify_attempts),
		cmocka_unit_test(attempt_rules),
		cmocka_unit_test(collapse_and_errno),
		cmocka_unit_test(exchange_scripts),
		cmocka_unit_test(def_table),
		cmocka_unit_test(record_format),
		cmocka_unit_test(pack_all_ids_split),
		cmocka_unit_test(pack_bounds),
		cmocka_unit_test(unpack_rejects),
		cmocka_unit_test(aggregation_deltas),
		cmocka_unit_test(build_respects_max),
		cmocka_unit_test(tick_sets),
		cmocka_unit_test(pack_one_leaves_out),
		cmocka_unit_test(ticks_carry_over),
		cmocka_unit_test(version_histogram),
		cmocka_unit_test(version_records),
		cmocka_unit_test(reset_window),
		cmocka_unit_test(delivered_groups),
		cmocka_unit_test(value_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
