// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * common/neuron_fw_model.c: the firmware side of an FW-IO exchange that
 * the simulated firmware and the emulated PCI device share. Every command,
 * every rejection and every fault that changes an answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "neuron_fw_model.h"
#include "neuron_fwio_frame.h"
#include "neuron_metrics_pack.h"
#include "neuron_miscram_reg.h"

#define MAX_SIZE	(NEURON_FWIO_REQ_HDR_SIZE + NEURON_FWIO_MAX_PAYLOAD)

/* What the commands did to the fake device. */
struct fake {
	unsigned int reads;
	unsigned int posts;
	u8 blob[256];
	u32 blob_len;
	int profile;
};

static u32 fake_read(void *ctx, u64 addr)
{
	struct fake *f = ctx;

	f->reads++;
	/* a recognisable word per address; one address the device does not serve */
	return addr == 0x999 ? NEURON_MISCRAM_BAD_READ : (u32)(0x10000000u + addr);
}

static void fake_posted(void *ctx, const u8 *blob, u32 len)
{
	struct fake *f = ctx;

	f->posts++;
	memcpy(f->blob, blob, len);
	f->blob_len = len;
}

static void fake_profile(void *ctx, u8 profile)
{
	((struct fake *)ctx)->profile = profile;
}

static struct neuron_fw_model_dev dev_of(struct fake *f)
{
	struct neuron_fw_model_dev d = {
		.read_word = fake_read,
		.posted = fake_posted,
		.power_profile = fake_profile,
		.ctx = f,
	};

	memset(f, 0, sizeof(*f));
	f->profile = -1;
	return d;
}

/* Serve a well-formed request (right size, right CRC) of @cmd with @p. */
static void serve(struct fake *f, u8 seq, u8 cmd, const u8 *p, u32 len,
		  enum neuron_fw_model_fault fault, u8 code, struct neuron_fw_model_answer *a)
{
	struct neuron_fw_model_dev d = dev_of(f);
	u32 dw0 = neuron_fwio_req_dw0(seq, cmd, (u16)(NEURON_FWIO_REQ_HDR_SIZE + len));

	memset(a, 0x5A, sizeof(*a));
	neuron_fw_model_serve(&d, dw0, neuron_fwio_req_crc_sw(dw0, p, len), p, len, MAX_SIZE,
			      fault, code, a);
}

static void put_le64(u8 *p, u64 v)
{
	int k;

	for (k = 0; k < 8; k++)
		p[k] = (u8)(v >> (8 * k));
}

static u32 le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static void assert_answer(const struct neuron_fw_model_answer *a, u8 seq, u8 code, u32 len)
{
	assert_int_equal(a->code, code);
	assert_int_equal(a->len, len);
	assert_int_equal(a->resp_dw0, neuron_fwio_resp_dw0(seq, code,
							   (u16)(NEURON_FWIO_RESP_HDR_SIZE + len)));
}

static void read_words(void **state)
{
	struct neuron_fw_model_answer a;
	struct fake f;
	u8 p[24];

	(void)state;
	put_le64(p, 0x3C);
	put_le64(p + 8, 0x999);
	put_le64(p + 16, 1ull << 40);
	serve(&f, 7, NEURON_FWIO_CMD_READ, p, sizeof(p), NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 7, NEURON_FWIO_SUCCESS, 12);
	assert_int_equal(f.reads, 3);
	assert_int_equal(le32(a.data), 0x1000003C);
	assert_int_equal(le32(a.data + 4), NEURON_MISCRAM_BAD_READ);
	assert_int_equal(le32(a.data + 8), 0x10000000u);	/* addr truncated to u32 by fake */
	assert_false(a.crc_error);
	assert_false(a.bad_post);
}

static void read_bad_lengths(void **state)
{
	struct neuron_fw_model_answer a;
	struct fake f;
	u8 p[16] = { 0 };

	(void)state;
	serve(&f, 1, NEURON_FWIO_CMD_READ, p, 0, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 1, NEURON_FWIO_FAIL, 0);
	serve(&f, 2, NEURON_FWIO_CMD_READ, p, 7, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 2, NEURON_FWIO_FAIL, 0);
	serve(&f, 3, NEURON_FWIO_CMD_READ, p, 12, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 3, NEURON_FWIO_FAIL, 0);
	assert_int_equal(f.reads, 0);
}

/*
 * The legacy path's largest READ (128 addresses) is served, and made larger
 * by the OVERSIZE fault as any other; one more address is not served.
 */
static void read_largest(void **state)
{
	struct neuron_fw_model_dev d;
	struct neuron_fw_model_answer a;
	static u8 p[8 * (NEURON_FW_MODEL_READ_MAX + 1)];
	u32 n, dw0, max = NEURON_FWIO_REQ_HDR_SIZE + sizeof(p);
	struct fake f;

	(void)state;
	for (n = 0; n <= NEURON_FW_MODEL_READ_MAX; n++)
		put_le64(p + 8 * n, 4 * n);
	d = dev_of(&f);
	dw0 = neuron_fwio_req_dw0(9, NEURON_FWIO_CMD_READ,
				  NEURON_FWIO_REQ_HDR_SIZE + 8 * NEURON_FW_MODEL_READ_MAX);
	neuron_fw_model_serve(&d, dw0, neuron_fwio_req_crc_sw(dw0, p, 8 * NEURON_FW_MODEL_READ_MAX),
			      p, sizeof(p), max, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 9, NEURON_FWIO_SUCCESS, NEURON_FW_MODEL_RESP_MAX);
	assert_int_equal(le32(a.data + NEURON_FW_MODEL_RESP_MAX - 4),
			 0x10000000u + 4 * (NEURON_FW_MODEL_READ_MAX - 1));
	neuron_fw_model_serve(&d, dw0, neuron_fwio_req_crc_sw(dw0, p, 8 * NEURON_FW_MODEL_READ_MAX),
			      p, sizeof(p), max, NEURON_FW_MODEL_OVERSIZE, 0, &a);
	assert_answer(&a, 9, NEURON_FWIO_SUCCESS,
		      NEURON_FW_MODEL_RESP_MAX + NEURON_FW_MODEL_OVERSIZE_EXTRA);
	for (n = 0; n < NEURON_FW_MODEL_OVERSIZE_EXTRA; n++)
		assert_int_equal(a.data[NEURON_FW_MODEL_RESP_MAX + n], 0xA5);
	d = dev_of(&f);
	dw0 = neuron_fwio_req_dw0(10, NEURON_FWIO_CMD_READ, (u16)max);
	neuron_fw_model_serve(&d, dw0, neuron_fwio_req_crc_sw(dw0, p, sizeof(p)), p, sizeof(p),
			      max, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 10, NEURON_FWIO_FAIL, 0);
	assert_int_equal(f.reads, 0);
}

/* Size below the header, above the transport's, beyond what was read; bad CRC. */
static void framing_rejected(void **state)
{
	struct neuron_fw_model_answer a;
	struct neuron_fw_model_dev d;
	struct fake f;
	u8 p[8] = { 0 };
	u32 dw0;

	(void)state;
	d = dev_of(&f);
	dw0 = neuron_fwio_req_dw0(4, NEURON_FWIO_CMD_READ, NEURON_FWIO_REQ_HDR_SIZE - 1);
	neuron_fw_model_serve(&d, dw0, 0, p, 8, MAX_SIZE, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 4, NEURON_FWIO_FAIL, 0);
	assert_false(a.crc_error);

	dw0 = neuron_fwio_req_dw0(5, NEURON_FWIO_CMD_READ, MAX_SIZE + 8);
	neuron_fw_model_serve(&d, dw0, 0, p, 8, MAX_SIZE, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 5, NEURON_FWIO_FAIL, 0);

	/* 16 bytes of payload announced, 8 readable */
	dw0 = neuron_fwio_req_dw0(6, NEURON_FWIO_CMD_READ, NEURON_FWIO_REQ_HDR_SIZE + 16);
	neuron_fw_model_serve(&d, dw0, 0, p, 8, MAX_SIZE, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 6, NEURON_FWIO_FAIL, 0);

	dw0 = neuron_fwio_req_dw0(7, NEURON_FWIO_CMD_READ, NEURON_FWIO_REQ_HDR_SIZE + 8);
	neuron_fw_model_serve(&d, dw0, neuron_fwio_req_crc_sw(dw0, p, 8) ^ 1, p, 8, MAX_SIZE,
			      NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 7, NEURON_FWIO_FAIL, 0);
	assert_true(a.crc_error);
	assert_int_equal(f.reads, 0);
}

static void post_blob(void **state)
{
	static const u8 good[] = { 12, 3, '1', '2', '3', 13, 1, '9' };
	static const u8 id_zero[] = { 0, 1, '1' };
	static const u8 overrun[] = { 12, 5, '1' };
	/* well-formed records, a value not in its metric's format (a version) */
	static const u8 bad_value[] = { 13, 1, '9', 180, 3, '1', '.', '2' };
	struct neuron_fw_model_answer a;
	u8 big[NEURON_METRIC_BLOB_MAX + 1];	/* 43 records of 3 bytes */
	struct fake f;
	u32 i;

	(void)state;
	serve(&f, 11, NEURON_FWIO_CMD_POST_TO_CW, good, sizeof(good), NEURON_FW_MODEL_NONE, 0,
	      &a);
	assert_answer(&a, 11, NEURON_FWIO_SUCCESS, 0);
	assert_int_equal(f.posts, 1);
	assert_int_equal(f.blob_len, sizeof(good));
	assert_memory_equal(f.blob, good, sizeof(good));
	assert_false(a.bad_post);

	serve(&f, 12, NEURON_FWIO_CMD_POST_TO_CW, id_zero, sizeof(id_zero), NEURON_FW_MODEL_NONE,
	      0, &a);
	assert_answer(&a, 12, NEURON_FWIO_FAIL, 0);
	assert_true(a.bad_post);
	assert_int_equal(f.posts, 0);

	serve(&f, 13, NEURON_FWIO_CMD_POST_TO_CW, overrun, sizeof(overrun), NEURON_FW_MODEL_NONE,
	      0, &a);
	assert_answer(&a, 13, NEURON_FWIO_FAIL, 0);
	assert_true(a.bad_post);

	serve(&f, 16, NEURON_FWIO_CMD_POST_TO_CW, bad_value, sizeof(bad_value),
	      NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 16, NEURON_FWIO_FAIL, 0);
	assert_true(a.bad_post);
	assert_int_equal(f.posts, 0);

	serve(&f, 14, NEURON_FWIO_CMD_POST_TO_CW, good, 0, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 14, NEURON_FWIO_FAIL, 0);
	assert_true(a.bad_post);

	/* well-formed records, but more than the firmware's 128 bytes */
	for (i = 0; i + 3 <= sizeof(big); i += 3) {
		big[i] = 12;
		big[i + 1] = 1;
		big[i + 2] = '7';
	}
	assert_int_equal(i, sizeof(big));
	{
		struct neuron_fw_model_dev d = dev_of(&f);
		u32 dw0 = neuron_fwio_req_dw0(15, NEURON_FWIO_CMD_POST_TO_CW,
					      NEURON_FWIO_REQ_HDR_SIZE + sizeof(big));

		neuron_fw_model_serve(&d, dw0, neuron_fwio_req_crc_sw(dw0, big, sizeof(big)), big,
				      sizeof(big), NEURON_FWIO_REQ_HDR_SIZE + sizeof(big),
				      NEURON_FW_MODEL_NONE, 0, &a);
	}
	assert_answer(&a, 15, NEURON_FWIO_FAIL, 0);
	assert_true(a.bad_post);
	assert_int_equal(f.posts, 0);
}

static void power_profile(void **state)
{
	struct neuron_fw_model_answer a;
	struct fake f;
	u8 p[9] = { 0, 0, 0, 0, 2, 0, 0, 0, 0 };

	(void)state;
	serve(&f, 20, NEURON_FWIO_CMD_SET_POWER_PROFILE, p, 8, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 20, NEURON_FWIO_SUCCESS, 0);
	assert_int_equal(f.profile, 2);

	p[4] = NEURON_FW_MODEL_PROFILE_MAX + 1;
	serve(&f, 21, NEURON_FWIO_CMD_SET_POWER_PROFILE, p, 8, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 21, NEURON_FWIO_FAIL, 0);
	assert_int_equal(f.profile, -1);

	p[4] = 1;
	p[0] = 1;	/* reserved word */
	serve(&f, 22, NEURON_FWIO_CMD_SET_POWER_PROFILE, p, 8, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 22, NEURON_FWIO_FAIL, 0);
	p[0] = 0;
	p[6] = 1;	/* frequency */
	serve(&f, 23, NEURON_FWIO_CMD_SET_POWER_PROFILE, p, 8, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 23, NEURON_FWIO_FAIL, 0);
	p[6] = 0;
	serve(&f, 24, NEURON_FWIO_CMD_SET_POWER_PROFILE, p, 9, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 24, NEURON_FWIO_FAIL, 0);
	assert_int_equal(f.profile, -1);
}

static void unknown_command(void **state)
{
	struct neuron_fw_model_answer a;
	struct fake f;
	u8 p[8] = { 0 };

	(void)state;
	serve(&f, 30, 0, p, 8, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 30, NEURON_FWIO_UNKNOWN_COMMAND, 0);
	serve(&f, 31, NEURON_FWIO_CMD_MAX, p, 8, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 31, NEURON_FWIO_UNKNOWN_COMMAND, 0);
	serve(&f, 32, 0xff, p, 0, NEURON_FW_MODEL_NONE, 0, &a);
	assert_answer(&a, 32, NEURON_FWIO_UNKNOWN_COMMAND, 0);
	assert_int_equal(f.reads, 0);
}

/* Each fault: what it answers, and whether the command ran. */
static void faults(void **state)
{
	struct neuron_fw_model_answer a;
	struct fake f;
	u8 p[8];
	u32 i;

	(void)state;
	put_le64(p, 0x40);
	serve(&f, 40, NEURON_FWIO_CMD_READ, p, 8, NEURON_FW_MODEL_BAD_CRC, 0, &a);
	assert_answer(&a, 40, NEURON_FWIO_FAIL, 0);
	assert_true(a.crc_error);
	assert_int_equal(f.reads, 0);

	serve(&f, 41, NEURON_FWIO_CMD_READ, p, 8, NEURON_FW_MODEL_ERROR, 9, &a);
	assert_answer(&a, 41, 9, 0);
	assert_false(a.crc_error);
	assert_int_equal(f.reads, 0);

	serve(&f, 42, NEURON_FWIO_CMD_READ, p, 8, NEURON_FW_MODEL_UNKNOWN_COMMAND, 0, &a);
	assert_answer(&a, 42, NEURON_FWIO_UNKNOWN_COMMAND, 0);
	assert_int_equal(f.reads, 0);

	/* another number, the command executed all the same */
	serve(&f, 43, NEURON_FWIO_CMD_READ, p, 8, NEURON_FW_MODEL_WRONG_SEQ, 0, &a);
	assert_answer(&a, 43 ^ 0x80, NEURON_FWIO_SUCCESS, 4);
	assert_int_equal(f.reads, 1);
	serve(&f, 0x80, NEURON_FWIO_CMD_READ, p, 8, NEURON_FW_MODEL_WRONG_SEQ, 0, &a);
	assert_answer(&a, 0x55, NEURON_FWIO_SUCCESS, 4);

	serve(&f, 44, NEURON_FWIO_CMD_READ, p, 8, NEURON_FW_MODEL_OVERSIZE, 0, &a);
	assert_answer(&a, 44, NEURON_FWIO_SUCCESS, 8);
	assert_int_equal(le32(a.data), 0x10000040u);
	for (i = 4; i < 8; i++)
		assert_int_equal(a.data[i], 0xA5);
	/* a failed answer is not made larger */
	serve(&f, 45, NEURON_FWIO_CMD_READ, p, 4, NEURON_FW_MODEL_OVERSIZE, 0, &a);
	assert_answer(&a, 45, NEURON_FWIO_FAIL, 0);
}

static void sequence_accounting(void **state)
{
	static const u8 seqs[] = { 1, 2, 3, 5, 0, 6, 255, 1, 1 };
	struct neuron_fw_model_seq s = { 0 };
	u32 i;

	(void)state;
	for (i = 0; i < sizeof(seqs); i++)
		neuron_fw_model_account_seq(&s, seqs[i]);
	/* 3 -> 5 and 6 -> 255 and 1 -> 1 are gaps; 255 -> 1 is the wrap, 6 -> 255 none */
	assert_int_equal(s.zero_seq, 1);
	assert_int_equal(s.seq_gaps, 3);
	assert_int_equal(s.seq_wraps, 1);
	assert_int_equal(s.last_seq, 1);
	assert_true(s.seq_seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_words),
		cmocka_unit_test(read_bad_lengths),
		cmocka_unit_test(read_largest),
		cmocka_unit_test(framing_rejected),
		cmocka_unit_test(post_blob),
		cmocka_unit_test(power_profile),
		cmocka_unit_test(unknown_command),
		cmocka_unit_test(faults),
		cmocka_unit_test(sequence_accounting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
