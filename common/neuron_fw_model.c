// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The firmware side of an FW-IO exchange (neuron_fw_model.h): shared by the
 * simulated firmware and the emulated PCI device's.
 */
#include "neuron_fw_model.h"
#include "neuron_metrics_pack.h"
#include "neuron_miscram_reg.h"

static u64 neuron_fw_model_le64(const u8 *p)
{
	u64 v = 0;
	int k;

	for (k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* Execute a request whose size and CRC were good: its error code. */
static u8 neuron_fw_model_execute(const struct neuron_fw_model_dev *dev, u8 cmd,
				  const u8 *p, u32 len, struct neuron_fw_model_answer *a)
{
	const u8 *val;
	u32 i, off = 0;
	u8 id, vlen;
	int r;

	switch (cmd) {
	case NEURON_FWIO_CMD_READ:
		if (!len || len % 8 || len / 8 > NEURON_FW_MODEL_READ_MAX)
			return NEURON_FWIO_FAIL;
		for (i = 0; i < len / 8; i++) {
			u32 v = dev->read_word(dev->ctx, neuron_fw_model_le64(p + 8 * i));

			a->data[4 * i] = v & 0xff;
			a->data[4 * i + 1] = (v >> 8) & 0xff;
			a->data[4 * i + 2] = (v >> 16) & 0xff;
			a->data[4 * i + 3] = v >> 24;
		}
		a->len = 4 * (len / 8);
		return NEURON_FWIO_SUCCESS;

	case NEURON_FWIO_CMD_POST_TO_CW:
		if (!len || len > NEURON_METRIC_BLOB_MAX) {
			a->bad_post = true;
			return NEURON_FWIO_FAIL;
		}
		/* each value in its metric's format: versions "a.b.c", counts decimal */
		while ((r = neuron_metric_next(p, len, &off, &id, &val, &vlen)) > 0) {
			if (!neuron_metric_value_ok(id, val, vlen)) {
				r = -EINVAL;
				break;
			}
		}
		if (r < 0) {
			a->bad_post = true;
			return NEURON_FWIO_FAIL;
		}
		dev->posted(dev->ctx, p, len);
		return NEURON_FWIO_SUCCESS;

	case NEURON_FWIO_CMD_SET_POWER_PROFILE:
		/* u32 reserved 0, u8 profile, u8 voltage margin, frequency, ocw (0) */
		if (len != NEURON_FWIO_POWER_PAYLOAD || p[0] || p[1] || p[2] || p[3] ||
		    p[5] || p[6] || p[7] || p[4] > NEURON_FW_MODEL_PROFILE_MAX)
			return NEURON_FWIO_FAIL;
		dev->power_profile(dev->ctx, p[4]);
		return NEURON_FWIO_SUCCESS;

	default:
		return NEURON_FWIO_UNKNOWN_COMMAND;
	}
}

void neuron_fw_model_serve(const struct neuron_fw_model_dev *dev, u32 dw0, u32 dw1,
			   const u8 *payload, u32 avail, u32 max_size,
			   enum neuron_fw_model_fault fault, u8 fault_code,
			   struct neuron_fw_model_answer *a)
{
	u8 seq = neuron_fwio_dw0_seq(dw0);
	u16 size = neuron_fwio_dw0_size(dw0);
	u32 plen, i;

	a->len = 0;
	a->crc_error = false;
	a->bad_post = false;
	if (size < NEURON_FWIO_REQ_HDR_SIZE || size > max_size ||
	    (u32)(size - NEURON_FWIO_REQ_HDR_SIZE) > avail) {
		a->code = NEURON_FWIO_FAIL;
	} else {
		plen = size - NEURON_FWIO_REQ_HDR_SIZE;
		if (fault == NEURON_FW_MODEL_BAD_CRC ||
		    neuron_fwio_req_crc_sw(dw0, payload, plen) != dw1) {
			a->crc_error = true;
			a->code = NEURON_FWIO_FAIL;
		} else if (fault == NEURON_FW_MODEL_ERROR) {
			a->code = fault_code;
		} else if (fault == NEURON_FW_MODEL_UNKNOWN_COMMAND) {
			a->code = NEURON_FWIO_UNKNOWN_COMMAND;
		} else {
			a->code = neuron_fw_model_execute(dev, neuron_fwio_dw0_code(dw0),
							  payload, plen, a);
		}
	}
	if (a->code != NEURON_FWIO_SUCCESS)
		a->len = 0;
	if (fault == NEURON_FW_MODEL_WRONG_SEQ)
		seq = (seq ^ 0x80) ? (seq ^ 0x80) : 0x55;
	/* a successful answer is at most NEURON_FW_MODEL_RESP_MAX bytes: room for these */
	if (fault == NEURON_FW_MODEL_OVERSIZE && a->code == NEURON_FWIO_SUCCESS) {
		for (i = 0; i < NEURON_FW_MODEL_OVERSIZE_EXTRA; i++)
			a->data[a->len + i] = 0xA5;
		a->len += NEURON_FW_MODEL_OVERSIZE_EXTRA;
	}
	a->resp_dw0 = neuron_fwio_resp_dw0(seq, a->code, NEURON_FWIO_RESP_HDR_SIZE + a->len);
}

void neuron_fw_model_account_seq(struct neuron_fw_model_seq *s, u8 seq)
{
	if (!seq) {
		s->zero_seq++;
		return;
	}
	if (s->seq_seen && seq != neuron_fwio_seq_next(s->last_seq))
		s->seq_gaps++;
	if (s->seq_seen && seq < s->last_seq)
		s->seq_wraps++;
	s->last_seq = seq;
	s->seq_seen = true;
}
