/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * FW-IO mailbox framing: request/response headers, the sequence-number
 * step, a software CRC-32C, the per-attempt classification of a response,
 * the errno of an exchange's outcome and the reference driver's
 * per-call-site collapse of it (a table the host tests compare against the
 * reference; the module returns the errno). The registers are in
 * neuron_miscram_reg.h. Pure logic: built into neuron.ko and into the host
 * test library (tests/unit/test_fwio_frame.c).
 *
 * The protocol is the register-only mailbox ("new framework", firmware API
 * >= 7): the payload travels in the MiscRAM DATA window, the request header
 * in two MiscRAM words, the response header is read back from the first of
 * them, and the firmware clears TRIGGER when the response is in place.
 * Nothing lives in host memory. docs/fwio.md has the full description.
 */
#ifndef NEURON_FWIO_FRAME_H
#define NEURON_FWIO_FRAME_H

#include "neuron_miscram_reg.h"
#include "neuron_pure.h"

/*
 * -ENOTSUPP is the kernel-internal 524: it is what the reference driver's
 * call sites return for "firmware API too old" (the collapse table). The
 * module never returns it (see neuron_fwio_outcome_errno).
 */
#ifndef ENOTSUPP
#define ENOTSUPP	524
#endif

/* The mailbox registers are MiscRAM words (neuron_miscram_reg.h). */
#define NEURON_FWIO_DATA_SIZE		NEURON_MISCRAM_DATA_SIZE

/* Lowest API_VERSION whose firmware speaks the register-only mailbox. */
#define NEURON_FWIO_MIN_API_VERSION	7

/* ---- messages ----------------------------------------------------------- */
#define NEURON_FWIO_REQ_HDR_SIZE	8
#define NEURON_FWIO_RESP_HDR_SIZE	4
#define NEURON_FWIO_MAX_PAYLOAD		NEURON_FWIO_DATA_SIZE

enum neuron_fwio_cmd {
	NEURON_FWIO_CMD_READ = 1,		/* N x u64 address -> N x u32 value */
	NEURON_FWIO_CMD_POST_TO_CW = 2,		/* metric blob, <= 128 bytes */
	NEURON_FWIO_CMD_SET_POWER_PROFILE = 3,	/* 8-byte payload, no response data */
	NEURON_FWIO_CMD_MAX = 4,
};

/* READ: a request holds at most this many addresses (8 bytes each). */
#define NEURON_FWIO_READ_MAX		(NEURON_FWIO_DATA_SIZE / 8)
/* SET_POWER_PROFILE payload size. */
#define NEURON_FWIO_POWER_PAYLOAD	8

/* Response error_code byte. */
enum neuron_fwio_code {
	NEURON_FWIO_SUCCESS = 0,
	NEURON_FWIO_FAIL = 1,
	NEURON_FWIO_UNKNOWN_COMMAND = 2,
};

/* Request header dw0: seq [7:0], command [15:8], size [31:16]. */
static inline u32 neuron_fwio_req_dw0(u8 seq, u8 cmd, u16 size)
{
	return (u32)seq | (u32)cmd << 8 | (u32)size << 16;
}

/* Response header dw0: seq [7:0], error_code [15:8], size [31:16]. */
static inline u32 neuron_fwio_resp_dw0(u8 seq, u8 code, u16 size)
{
	return (u32)seq | (u32)code << 8 | (u32)size << 16;
}

static inline u8 neuron_fwio_dw0_seq(u32 dw0)
{
	return dw0 & 0xff;
}

/* Command of a request dw0, error_code of a response dw0. */
static inline u8 neuron_fwio_dw0_code(u32 dw0)
{
	return (dw0 >> 8) & 0xff;
}

static inline u16 neuron_fwio_dw0_size(u32 dw0)
{
	return dw0 >> 16;
}

/* The 8 header bytes as the CRC sees them (crc field 0), little-endian. */
void neuron_fwio_hdr_bytes(u32 dw0, u8 out[NEURON_FWIO_REQ_HDR_SIZE]);

/*
 * Sequence numbers: u8, one counter per device, advanced before every
 * attempt (retries included). 0 is never used: it would be
 * indistinguishable from a cleared response.
 */
static inline u8 neuron_fwio_seq_next(u8 seq)
{
	seq++;
	return seq ? seq : 1;
}

/*
 * Software CRC-32C (Castagnoli, reflected, polynomial 0x82F63B78).
 * neuron_crc32c_update() works on the raw register (no pre/post inversion),
 * like the kernel's __crc32c_le(); neuron_crc32c() is the standard check
 * value: ~update(~0, p, len). "123456789" -> 0xE3069283.
 */
u32 neuron_crc32c_update(u32 crc, const void *p, size_t len);
u32 neuron_crc32c(const void *p, size_t len);

/* CRC of a request: over the header with the crc field 0, then the payload. */
u32 neuron_fwio_req_crc_sw(u32 dw0, const void *payload, size_t len);

/*
 * Payload <-> DATA window words, little-endian; the last word is
 * zero-padded. Returns the number of words (ceil(len / 4)).
 */
u32 neuron_fwio_pack_words(const void *p, size_t len, u32 *words);
void neuron_fwio_unpack_words(const u32 *words, size_t len, void *p);

/* ---- one attempt -------------------------------------------------------- */

/* What a single attempt came to, as the transport sees it. */
enum neuron_fwio_attempt {
	NEURON_FWIO_ATT_OK = 0,		/* SUCCESS, expected size */
	NEURON_FWIO_ATT_FW_FAIL,	/* error_code FAIL (or any code >= 3) */
	NEURON_FWIO_ATT_FW_UNKNOWN,	/* error_code UNKNOWN_COMMAND */
	NEURON_FWIO_ATT_TIMEOUT,	/* TRIGGER still set at the deadline */
	NEURON_FWIO_ATT_BAD_SEQ,	/* response for another sequence number */
	NEURON_FWIO_ATT_BAD_SIZE,	/* SUCCESS with a size we did not ask for */
};

/*
 * Classify the response of an attempt. @done: TRIGGER read 0 before the
 * deadline; @seq: the request's sequence number; @dw0: the response
 * header; @expect: the exact response payload size the command implies.
 */
enum neuron_fwio_attempt neuron_fwio_classify(bool done, u8 seq, u32 dw0, u16 expect);

/*
 * The same under a response-size rule of the firmware profile (enum
 * neuron_fw_resp_rule, neuron_fw_profile.h): EXACT is neuron_fwio_classify();
 * FIT accepts a payload of at most @expect bytes; ANY ignores the size.
 */
enum neuron_fwio_attempt neuron_fwio_classify_rule(bool done, u8 seq, u32 dw0, u16 expect,
						   unsigned int rule);

/* Payload bytes of a SUCCESS response @dw0 to copy into a buffer of @cap bytes. */
u16 neuron_fwio_resp_copy_len(u32 dw0, u16 cap);

/* Per attempt: what to count and whether to try again. */
struct neuron_fwio_step {
	bool retry;		/* another attempt may fix it */
	bool err_count;		/* fw_io_err_count++ (firmware said error) */
	bool timeout_count;	/* fw_io_timeout_count++ (no usable answer) */
};

struct neuron_fwio_step neuron_fwio_attempt_step(enum neuron_fwio_attempt a);

/* ---- a whole exchange --------------------------------------------------- */

/* Why an exchange ended; the collapse and the errno derive from it. */
enum neuron_fwio_outcome {
	NEURON_FWIO_OUT_OK = 0,
	NEURON_FWIO_OUT_FW_FAIL,	/* last attempt: FAIL */
	NEURON_FWIO_OUT_FW_UNKNOWN,	/* UNKNOWN_COMMAND (never retried) */
	NEURON_FWIO_OUT_TIMEOUT,	/* last attempt: timeout or wrong seq */
	NEURON_FWIO_OUT_BAD_SIZE,	/* response of the wrong size (not retried) */
	NEURON_FWIO_OUT_OLD_API,	/* API_VERSION < 7 or unreadable */
	NEURON_FWIO_OUT_TOO_BIG,	/* request larger than the window */
	NEURON_FWIO_OUT_INTR,		/* caller killed / device going away */
};

/* The outcome of an exchange whose last attempt ended with @a. */
enum neuron_fwio_outcome neuron_fwio_attempt_outcome(enum neuron_fwio_attempt a);

/*
 * The exchange loop the transport runs (neuron_fwio_exchange()): up to
 * @max_attempts calls of @attempt, each returning an enum
 * neuron_fwio_attempt (or a negative errno: the caller was killed or the
 * device is going away, which ends the loop with NEURON_FWIO_OUT_INTR).
 * After each attempt @count gets its per-attempt rule, as it happens; the
 * loop stops at the first attempt the rules do not retry. Returns the
 * exchange's outcome. Shared with the host tests, which script @attempt.
 */
struct neuron_fwio_loop_ops {
	int (*attempt)(void *ctx);
	void (*count)(void *ctx, const struct neuron_fwio_step *step);
};

enum neuron_fwio_outcome neuron_fwio_loop(unsigned int max_attempts,
					  const struct neuron_fwio_loop_ops *ops, void *ctx);

/*
 * The value the reference driver's call sites see: 0, -1 (every firmware
 * or transport failure, including exhausted retries, never 0), -ENOTSUPP
 * (API too old), -E2BIG (request too big), -EINTR. A reference table for
 * the tests; the module returns neuron_fwio_outcome_errno() instead.
 */
int neuron_fwio_outcome_collapse(enum neuron_fwio_outcome o);

/*
 * The errno of an exchange, what every FW-IO function of the module
 * returns: 0, -EIO (firmware failed or answered wrongly), -ETIMEDOUT,
 * -EOPNOTSUPP (unknown command, API too old), -E2BIG, -EINTR. Never -1 and
 * never -ENOTSUPP.
 */
int neuron_fwio_outcome_errno(enum neuron_fwio_outcome o);

#endif /* NEURON_FWIO_FRAME_H */
