/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The firmware contract per device architecture, as the vendor's driver
 * (aws-neuronx-dkms 2.25) speaks it: for every FW-IO command, which
 * transport carries it, how long one attempt waits, how many attempts an
 * exchange makes and what a SUCCESS response may look like. Also the
 * probe-time constants (readiness wait) and the routing id -> device index
 * maps. The FW-IO transport (neuron_fwio.c) follows this table and nothing
 * else; docs/fwio.md prints it with the vendor source location of each row.
 *
 * Pure: built into neuron.ko and into the host test library
 * (tests/unit/test_fw_profile.c checks every row).
 */
#ifndef NEURON_FW_PROFILE_H
#define NEURON_FW_PROFILE_H

#include "neuron_pure.h"

/*
 * The architecture whose contract a device follows. SIM is the lenient
 * simulated firmware of the test suites: register-only for every command,
 * timeout and attempts from the fwio_timeout_ms / fwio_retries module
 * parameters. V2..V4 are the vendor's, for PCI devices and for simulated
 * devices in strict mode.
 */
enum neuron_fw_arch {
	NEURON_FW_ARCH_SIM = 0,
	NEURON_FW_ARCH_V2,	/* Trn1, Inf2 */
	NEURON_FW_ARCH_V3,	/* Trn2 */
	NEURON_FW_ARCH_V4,	/* Trn3 */
	NEURON_FW_ARCH_COUNT,
};

/* How a command travels. */
enum neuron_fw_transport {
	/* the vendor never sends it on this architecture: nor do we (-EOPNOTSUPP) */
	NEURON_FW_XPORT_NONE = 0,
	/* "new framework": header and payload in MiscRAM, TRIGGER cleared on completion */
	NEURON_FW_XPORT_REGS,
	/* legacy: request/response in host memory (DMA), completion = response seq */
	NEURON_FW_XPORT_HOSTMEM,
};

/* What the size of a SUCCESS response may be (payload = size - header). */
enum neuron_fw_resp_rule {
	/* exactly the payload the command implies, else an error, no retry */
	NEURON_FW_RESP_EXACT = 0,
	/* at most the caller's buffer (copied; the rest stays zero), else error, no retry */
	NEURON_FW_RESP_FIT,
	/* size ignored: at most the caller's buffer is copied */
	NEURON_FW_RESP_ANY,
};

/* Command slots of the table: READ, POST_TO_CW, SET_POWER_PROFILE, any id >= 4. */
#define NEURON_FW_PROFILE_CMDS	4

/**
 * struct neuron_fw_cmd_profile - one command on one architecture
 * @transport:	enum neuron_fw_transport
 * @timeout_ms:	one attempt's wait; 0 = the fwio_timeout_ms parameter (SIM)
 * @attempts:	attempts per exchange, the first included; 0 = fwio_retries (SIM)
 * @resp:	enum neuron_fw_resp_rule
 * @vendor:	where the vendor's driver states it (docs/fwio.md)
 */
struct neuron_fw_cmd_profile {
	u8 transport;
	u8 resp;
	u16 attempts;
	u32 timeout_ms;
	const char *vendor;
};

/*
 * The row of @cmd (NEURON_FWIO_CMD_*; 0 and ids >= 4 share the "other"
 * row) on @arch; NULL for an architecture out of range.
 */
const struct neuron_fw_cmd_profile *neuron_fw_profile(unsigned int arch, unsigned int cmd);

/* "sim", "v2", "v3", "v4"; "?" out of range. */
const char *neuron_fw_arch_name(unsigned int arch);
const char *neuron_fw_transport_name(unsigned int t);
const char *neuron_fw_resp_name(unsigned int r);

/*
 * Readiness at probe (vendor: neuron_pci_probe -> the HAL's get_device_id
 * -> fw_io_read_csr_array(..., operational = false)): DEVICE_ID is read up
 * to NEURON_FW_READY_TRIES times, NEURON_FW_READY_SLEEP_MS apart; each
 * read re-reads every millisecond while the word is 0xDEADBEEF, for up to
 * NEURON_FW_READY_READ_MS.
 */
#define NEURON_FW_READY_TRIES		20
#define NEURON_FW_READY_SLEEP_MS	1000
#define NEURON_FW_READY_READ_MS		30000	/* FW_IO_RD_RETRY (30) x FW_IO_RD_TIMEOUT (1 s) */

/* The longest readiness wait the vendor allows, in ms (about 10 minutes). */
static inline u32 neuron_fw_ready_bound_ms(void)
{
	return NEURON_FW_READY_TRIES * (NEURON_FW_READY_READ_MS + NEURON_FW_READY_SLEEP_MS);
}

/*
 * Device reset at probe (vendor: the reset kthread's first request, id
 * 0xFFFFFFFF -> nr_initiate_reset_via_fw, then nr_wait_for_reset_completion):
 * write 1 (device reset) to RESET, ring TRIGGER; every
 * NEURON_FW_RESET_POLL_MS read RESET until firmware clears it (accepted),
 * ringing again every NEURON_FW_RESET_REISSUE_MS, for at most
 * neuron_fw_reset_max_ms(); then read FW_STATUS until its busy bit clears,
 * NEURON_FW_RESET_DONE_TRIES times, sleeping NEURON_FW_RESET_DONE_STEP_MS x
 * the try's index (from 0, as the vendor's loop: 0, 100, 200, 300 ms) in
 * between.
 */
#define NEURON_FW_RESET_POLL_MS		100
#define NEURON_FW_RESET_REISSUE_MS	30000
/* a TPB (NeuronCore) reset: RESET_TPB_MAP, then RESET = 2; rung again every 10 s */
#define NEURON_FW_RESET_TPB_REISSUE_MS	10000
#define NEURON_FW_RESET_DONE_TRIES	5
#define NEURON_FW_RESET_DONE_STEP_MS	100

/* initiate_max_wait_time: v2 120 s, v3 and v4 480 s; 0 for the lenient simulator (no reset). */
u32 neuron_fw_reset_max_ms(unsigned int arch);

/*
 * The device address of MiscRAM, as firmware reads it (the vendor's
 * READ_HW_COUNTERS addresses): v2 0x000FFFF0FA0000, v3 and v4
 * 0x00008006C84000; the simulated contract answers at v2's.
 */
u64 neuron_fw_miscram_dev_addr(unsigned int arch);

/* MiscRAM words any process may read through the vendor's READ_HW_COUNTERS */
bool neuron_fw_identity_word(unsigned int arch, u64 addr);

/* Which routing id -> device index map a product uses (vendor: the HAL's get_device_id). */
enum neuron_fw_route {
	NEURON_FW_ROUTE_IDENTITY = 0,	/* Inf2; the simulated device */
	NEURON_FW_ROUTE_TRN1,		/* v2 Trn1 */
	NEURON_FW_ROUTE_TRN2,		/* v3 Trn2 torus; v4 keeps the v3 HAL entry */
};

/*
 * The device index (N of /dev/neuron<N>) the vendor gives the device whose
 * firmware reports @routing_id: 0 and *@index set, or -EINVAL for a routing
 * id the map does not cover (the vendor fails the probe).
 * @max_devices: indexes available (64).
 */
int neuron_fw_route_index(unsigned int route, u32 routing_id, u32 max_devices, u32 *index);

#endif /* NEURON_FW_PROFILE_H */
