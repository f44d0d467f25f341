// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-architecture firmware contract (neuron_fw_profile.h). Every
 * number below is the vendor's (aws-neuronx-dkms 2.25, src/), as recorded
 * in the project's fact sheet; the "vendor" string of a row names the
 * function that states it.
 */
#include "neuron_fw_profile.h"
#include "neuron_miscram_reg.h"

/* Vendor constants (neuron_fw_io.h, 2.25). */
#define FW_RD_TIMEOUT_MS	1000	/* FW_IO_RD_TIMEOUT */
#define FW_RD_RETRY		30	/* FW_IO_RD_RETRY (15 before 2.25) */
#define FW_POWER_TIMEOUT_MS	60000	/* new framework, SET_POWER_PROFILE */
#define FW_POWER_ATTEMPTS	3

#define LEGACY_READ "neuron_fw_io.c: fw_io_read() -> fw_io_execute_request()"
#define LEGACY_POST "neuron_fw_io.c: fw_io_post_metric() -> fw_io_execute_request()"
#define NEW_POWER "neuron_fw_io.c: fw_io_set_power_profile() -> fw_io_execute_request_new()"
#define V2_POWER "v2/neuron_dhal_v2.c: perf_set_profile is a no-op; neuron_cdev.c POWER_PROFILE"
#define OTHER "neuron_fw_io.c: no caller sends ids >= 4 (new framework default 1 s x 30)"

/* READ and POST_TO_CW: the legacy host-memory path on every architecture. */
#define ROW_LEGACY(src) { NEURON_FW_XPORT_HOSTMEM, NEURON_FW_RESP_FIT, FW_RD_RETRY, \
			  FW_RD_TIMEOUT_MS, src }
#define ROW_NONE(src)	{ NEURON_FW_XPORT_NONE, NEURON_FW_RESP_EXACT, 0, 0, src }

static const struct neuron_fw_cmd_profile neuron_fw_profiles[NEURON_FW_ARCH_COUNT]
							    [NEURON_FW_PROFILE_CMDS] = {
	[NEURON_FW_ARCH_SIM] = {
		/* the lenient simulator: register-only, module parameters, exact READ/power sizes */
		{ NEURON_FW_XPORT_REGS, NEURON_FW_RESP_EXACT, 0, 0, "(simulator only)" },
		/* a POST answer may carry up to the blob's length, as on the vendor's */
		{ NEURON_FW_XPORT_REGS, NEURON_FW_RESP_FIT, 0, 0, "(simulator only)" },
		{ NEURON_FW_XPORT_REGS, NEURON_FW_RESP_EXACT, 0, 0, "(simulator only)" },
		ROW_NONE("(simulator only)"),
	},
	[NEURON_FW_ARCH_V2] = {
		ROW_LEGACY(LEGACY_READ),
		ROW_LEGACY(LEGACY_POST),
		ROW_NONE(V2_POWER),
		ROW_NONE(OTHER),
	},
	[NEURON_FW_ARCH_V3] = {
		ROW_LEGACY(LEGACY_READ),
		ROW_LEGACY(LEGACY_POST),
		{ NEURON_FW_XPORT_REGS, NEURON_FW_RESP_ANY, FW_POWER_ATTEMPTS,
		  FW_POWER_TIMEOUT_MS, NEW_POWER },
		ROW_NONE(OTHER),
	},
	[NEURON_FW_ARCH_V4] = {
		/* v4 registers the whole v3 HAL first (neuron_dhal_init) */
		ROW_LEGACY(LEGACY_READ),
		ROW_LEGACY(LEGACY_POST),
		{ NEURON_FW_XPORT_REGS, NEURON_FW_RESP_ANY, FW_POWER_ATTEMPTS,
		  FW_POWER_TIMEOUT_MS, NEW_POWER },
		ROW_NONE(OTHER),
	},
};

const struct neuron_fw_cmd_profile *neuron_fw_profile(unsigned int arch, unsigned int cmd)
{
	if (arch >= NEURON_FW_ARCH_COUNT)
		return NULL;
	/* READ 1, POST_TO_CW 2, SET_POWER_PROFILE 3; 0 and >= 4: the last slot */
	if (cmd < 1 || cmd >= NEURON_FW_PROFILE_CMDS)
		cmd = NEURON_FW_PROFILE_CMDS;
	return &neuron_fw_profiles[arch][cmd - 1];
}

const char *neuron_fw_arch_name(unsigned int arch)
{
	static const char *const names[NEURON_FW_ARCH_COUNT] = { "sim", "v2", "v3", "v4" };

	return arch < NEURON_FW_ARCH_COUNT ? names[arch] : "?";
}

const char *neuron_fw_transport_name(unsigned int t)
{
	switch (t) {
	case NEURON_FW_XPORT_NONE:
		return "none";
	case NEURON_FW_XPORT_REGS:
		return "regs";
	case NEURON_FW_XPORT_HOSTMEM:
		return "hostmem";
	}
	return "?";
}

const char *neuron_fw_resp_name(unsigned int r)
{
	switch (r) {
	case NEURON_FW_RESP_EXACT:
		return "exact";
	case NEURON_FW_RESP_FIT:
		return "fit";
	case NEURON_FW_RESP_ANY:
		return "any";
	}
	return "?";
}

u32 neuron_fw_reset_max_ms(unsigned int arch)
{
	switch (arch) {
	case NEURON_FW_ARCH_V2:
		return 120000;
	case NEURON_FW_ARCH_V3:
	case NEURON_FW_ARCH_V4:
		return 480000;
	}
	return 0;
}

u64 neuron_fw_miscram_dev_addr(unsigned int arch)
{
	switch (arch) {
	case NEURON_FW_ARCH_V3:
	case NEURON_FW_ARCH_V4:
		return 0x00008006C84000ULL;
	}
	return 0x000FFFF0FA0000ULL;
}

bool neuron_fw_identity_word(unsigned int arch, u64 addr)
{
	u64 base = neuron_fw_miscram_dev_addr(arch);

	return addr == base + NEURON_MISCRAM_API_VERSION || addr == base + NEURON_MISCRAM_DEVICE_ID ||
	       addr == base + NEURON_MISCRAM_SERIAL_LO || addr == base + NEURON_MISCRAM_SERIAL_HI;
}

/* Trn1: per group of 16 routing ids (v2/neuron_dhal_v2.c, get_device_id). */
static const u8 neuron_fw_route_trn1[16] = {
	0, 4, 1, 5, 3, 7, 2, 6, 12, 8, 13, 9, 15, 11, 14, 10,
};

/* Trn2 torus (v3/neuron_dhal_v3.c, get_device_id); no per-16 offset. */
static const u8 neuron_fw_route_trn2[16] = {
	0, 3, 4, 7, 12, 15, 8, 11, 1, 2, 5, 6, 13, 14, 9, 10,
};

int neuron_fw_route_index(unsigned int route, u32 routing_id, u32 max_devices, u32 *index)
{
	u32 i;

	switch (route) {
	case NEURON_FW_ROUTE_IDENTITY:
		i = routing_id;
		break;
	case NEURON_FW_ROUTE_TRN1:
		if (routing_id >= max_devices)
			return -EINVAL;
		i = neuron_fw_route_trn1[routing_id % 16] + 16 * (routing_id / 16);
		break;
	case NEURON_FW_ROUTE_TRN2:
		/*
		 * 2.25 on v3/v4 outside a PDS platform: routing id mod 16
		 * through the torus map (no per-16 offset, unlike Trn1), so
		 * two routing ids 16 apart name one index (a duplicate)
		 */
		if (routing_id == NEURON_MISCRAM_BAD_READ || routing_id == NEURON_MISCRAM_GONE)
			return -EINVAL;	/* not a routing id: nothing answered */
		i = neuron_fw_route_trn2[routing_id % 16];
		break;
	default:
		return -EINVAL;
	}
	if (i >= max_devices)
		return -EINVAL;
	*index = i;
	return 0;
}
