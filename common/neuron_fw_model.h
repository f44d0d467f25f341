/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The firmware side of an FW-IO exchange, once: what a firmware that
 * follows the vendor's contract does with a request it has latched. It
 * checks the request's size and CRC-32C, executes READ, POST_TO_CW and
 * SET_POWER_PROFILE, answers any other command UNKNOWN_COMMAND, and builds
 * the response header. It also accounts the requests' sequence numbers.
 *
 * Two firmwares serve the driver and both use this file: the in-kernel
 * simulated firmware (kmod/sim/neuron_sim_fw.c, simulated devices) and the
 * emulated PCI function's firmware (pciemu/src/firmware.cpp, the PCI
 * backend under QEMU). Each keeps what differs between them: how the
 * request reaches it (MiscRAM words or guest memory), its clock, its
 * timing and its fault knobs. So the driver is checked against one reading
 * of the contract.
 *
 * Pure: built into neuron.ko, into the host test library (tests/unit/
 * test_fw_model.c) and into neuron-pciemu.
 */
#ifndef NEURON_FW_MODEL_H
#define NEURON_FW_MODEL_H

#include "neuron_pure.h"
#include "neuron_fwio_frame.h"

/* SET_POWER_PROFILE: the highest profile the firmware accepts. */
#define NEURON_FW_MODEL_PROFILE_MAX	3
/*
 * The largest READ the firmware serves: 128 addresses (the legacy path's
 * request buffer; the driver sends at most NEURON_FWIO_READ_MAX), so the
 * largest answer is 512 bytes.
 */
#define NEURON_FW_MODEL_READ_MAX	128
#define NEURON_FW_MODEL_RESP_MAX	(4 * NEURON_FW_MODEL_READ_MAX)
/* The bytes the OVERSIZE fault adds to a successful answer, whatever its size. */
#define NEURON_FW_MODEL_OVERSIZE_EXTRA	4

/* The faults that change what a request is answered (not when). */
enum neuron_fw_model_fault {
	NEURON_FW_MODEL_NONE = 0,
	/* the request arrives corrupted: answered FAIL, counted as a CRC error */
	NEURON_FW_MODEL_BAD_CRC,
	/* answered with @code of the fault without executing */
	NEURON_FW_MODEL_ERROR,
	/* answered UNKNOWN_COMMAND without executing */
	NEURON_FW_MODEL_UNKNOWN_COMMAND,
	/* executed, answered with another sequence number */
	NEURON_FW_MODEL_WRONG_SEQ,
	/* executed; a successful answer carries NEURON_FW_MODEL_OVERSIZE_EXTRA bytes more */
	NEURON_FW_MODEL_OVERSIZE,
};

/**
 * struct neuron_fw_model_dev - what the commands reach on the device
 * @read_word:	READ of device address @addr; the firmware's answer for a
 *		word it does not serve is NEURON_MISCRAM_BAD_READ
 * @posted:	POST_TO_CW accepted @blob (decoded, at most
 *		NEURON_METRIC_BLOB_MAX bytes)
 * @power_profile: SET_POWER_PROFILE accepted @profile
 * @ctx:	the firmware's, passed to each
 */
struct neuron_fw_model_dev {
	u32 (*read_word)(void *ctx, u64 addr);
	void (*posted)(void *ctx, const u8 *blob, u32 len);
	void (*power_profile)(void *ctx, u8 profile);
	void *ctx;
};

/**
 * struct neuron_fw_model_answer - what the firmware answers a request
 * @resp_dw0:	the response header (sequence, code, size)
 * @code:	the error code in it (NEURON_FWIO_*)
 * @len:	response payload bytes in @data (0 unless SUCCESS)
 * @crc_error:	the request's CRC did not match (or the BAD_CRC fault)
 * @bad_post:	a POST_TO_CW blob that did not decode
 * @data:	the response payload
 */
struct neuron_fw_model_answer {
	u32 resp_dw0;
	u8 code;
	u32 len;
	bool crc_error;
	bool bad_post;
	u8 data[NEURON_FW_MODEL_RESP_MAX + NEURON_FW_MODEL_OVERSIZE_EXTRA];
};

/**
 * neuron_fw_model_serve() - check, execute and answer one latched request
 * @dev:	the device the commands reach
 * @dw0:	the request header's first word (sequence, command, size)
 * @dw1:	its second word, the CRC-32C
 * @payload:	the request payload as the firmware read it
 * @avail:	bytes readable at @payload
 * @max_size:	the largest request (header included) the transport carries
 * @fault:	enum neuron_fw_model_fault of this exchange
 * @fault_code:	NEURON_FW_MODEL_ERROR: the code to answer
 * @a:		the answer
 *
 * A request whose size is below the header's, above @max_size or beyond
 * @avail is answered FAIL, as one whose CRC does not match. Payload rules:
 * READ, a non-empty multiple of 8 bytes (little-endian u64 addresses; the
 * answer is one u32 a word); POST_TO_CW, a non-empty blob of at most
 * NEURON_METRIC_BLOB_MAX bytes that decodes (neuron_metric_next()) with
 * every value in its metric's format (neuron_metric_value_ok());
 * SET_POWER_PROFILE, NEURON_FWIO_POWER_PAYLOAD bytes, zero but byte 4,
 * the profile, at most NEURON_FW_MODEL_PROFILE_MAX. Anything else FAIL.
 * The answer's payload is at most NEURON_FW_MODEL_RESP_MAX bytes and at
 * most half of (@max_size - header) (READ), each plus
 * NEURON_FW_MODEL_OVERSIZE_EXTRA with the OVERSIZE fault.
 */
void neuron_fw_model_serve(const struct neuron_fw_model_dev *dev, u32 dw0, u32 dw1,
			   const u8 *payload, u32 avail, u32 max_size,
			   enum neuron_fw_model_fault fault, u8 fault_code,
			   struct neuron_fw_model_answer *a);

/**
 * struct neuron_fw_model_seq - the requests' sequence numbers as seen
 * @zero_seq:	requests numbered 0 (the driver never uses 0)
 * @seq_gaps:	numbers that were not the one after the previous
 * @seq_wraps:	times the number went down (255 -> 1)
 * @last_seq:	the last non-zero number, valid when @seq_seen
 * @seq_seen:	a request with a non-zero number has arrived
 */
struct neuron_fw_model_seq {
	u64 zero_seq;
	u64 seq_gaps;
	u64 seq_wraps;
	u8 last_seq;
	bool seq_seen;
};

/* Account request number @seq in @s. */
void neuron_fw_model_account_seq(struct neuron_fw_model_seq *s, u8 seq);

#endif /* NEURON_FW_MODEL_H */
