/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The MiscRAM register map: every word the driver, the firmware and the
 * simulated device agree on, each written once. Byte offsets from the start
 * of MiscRAM; "FW" words are written by firmware, "driver" words by the
 * driver. docs/fwio.md has the table. Pure: used by the core (FW-IO
 * transport, sysfs), the simulated device and the host tests.
 */
#ifndef NEURON_MISCRAM_REG_H
#define NEURON_MISCRAM_REG_H

#include "neuron_pure.h"

/* the bytes of MiscRAM any word below lies in (a page) */
#define NEURON_MISCRAM_SIZE		0x1000

#define NEURON_MISCRAM_API_VERSION	0x000	/* FW: firmware API version */
#define NEURON_MISCRAM_DEVICE_ID	0x024	/* FW: routing id */
#define NEURON_MISCRAM_SERIAL_LO	0x038	/* FW: serial number bits 31..0 */
#define NEURON_MISCRAM_SERIAL_HI	0x03C	/* FW: serial number bits 63..32 */
#define NEURON_MISCRAM_SRAM_ECC		0x040	/* FW: ECC counts, NEURON_MISCRAM_ECC_* */
#define NEURON_MISCRAM_HBM_CHANNELS	4	/* HBM ECC words the map has room for */
#define NEURON_MISCRAM_HBM_ECC(ch)	(0x044 + 4 * (ch))	/* FW: channel ch, same split */
#define NEURON_MISCRAM_POWER(die)	(0x054 + 4 * (die))	/* FW: [15:0] util, [31:16] sample */
#define NEURON_MISCRAM_REPAIR_STATE	0x064	/* FW: [1:0] enum neuron_hbm_repair */
#define NEURON_MISCRAM_ACK		0x0F0	/* driver: 1 before every doorbell */
#define NEURON_MISCRAM_DATA		0x100	/* both: FW-IO payload window */
#define NEURON_MISCRAM_DATA_SIZE	128	/* bytes in the window */
#define NEURON_MISCRAM_RESET_TPB_MAP	0x1D8	/* driver: TPB reset map (vendor reset only) */
#define NEURON_MISCRAM_RESET		0x1EC	/* driver: reset type 1 device, 2 TPB; FW: 0 = accepted */
/*
 * 0x1F0..0x1FC: the legacy path's host buffer addresses (HIGH at the lower
 * address, written LOW then HIGH); the register-only path reuses 0x1F0 and
 * 0x1F4 for the request header and writes 0 to the response address.
 */
#define NEURON_MISCRAM_HDR0		0x1F0	/* driver: request dw0; FW: response dw0 */
#define NEURON_MISCRAM_HDR1		0x1F4	/* driver: request dw1 (CRC-32C) */
#define NEURON_MISCRAM_REQ_HI		0x1F0	/* driver (legacy): request address [63:32] */
#define NEURON_MISCRAM_REQ_LO		0x1F4	/* driver (legacy): request address [31:0] */
#define NEURON_MISCRAM_RESP_HI		0x1F8	/* driver: response address [63:32]; 0 register-only */
#define NEURON_MISCRAM_RESP_LO		0x1FC	/* driver: response address [31:0]; 0 register-only */
/*
 * The doorbell of FW-IO requests and resets. The driver only ever writes 1;
 * firmware clears it (register-only path: when the response is in place).
 */
#define NEURON_MISCRAM_TRIGGER		0x800
#define NEURON_MISCRAM_FW_STATUS	0x808	/* FW (v2+): bit 3 set = reset in progress */
#define NEURON_MISCRAM_FW_STATUS_BUSY	0x8

/* A word a backend could not read reads as this (as on the hardware). */
#define NEURON_MISCRAM_BAD_READ		0xDEADBEEFu
/* what every read returns once no function answers (surprise removal, link down) */
#define NEURON_MISCRAM_GONE		0xFFFFFFFFu

/* ECC words: 16-bit counts, corrected in the upper half. */
static inline u32 neuron_miscram_ecc_uncorrected(u32 w)
{
	return w & 0xffff;
}

static inline u32 neuron_miscram_ecc_corrected(u32 w)
{
	return w >> 16;
}

static inline u32 neuron_miscram_ecc_word(u32 uncorrected, u32 corrected)
{
	return corrected << 16 | (uncorrected & 0xffff);
}

/* REPAIR_STATE [1:0]. */
enum neuron_hbm_repair {
	NEURON_HBM_REPAIR_NONE = 0,
	NEURON_HBM_REPAIR_PENDING = 1,
	NEURON_HBM_REPAIR_FAILED = 2,
};

#define NEURON_MISCRAM_REPAIR_MASK	0x3

#endif /* NEURON_MISCRAM_REG_H */
