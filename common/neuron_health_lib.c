// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Health of a device and of its NeuronCores from the driver's own facts
 * (neuron_health_lib.h). No state: the same inputs always give the same answer.
 */
#include "neuron_health_lib.h"
#include "neuron_names.h"

static const char *const neuron_health_states[NEURON_HEALTH_MAX + 1] = {
	[NEURON_HEALTH_OK] = "ok",
	[NEURON_HEALTH_DEGRADED] = "degraded",
	[NEURON_HEALTH_NEEDS_RESET] = "needs_reset",
	[NEURON_HEALTH_FAILED] = "failed",
};

static const char *const neuron_health_reasons[NEURON_HEALTH_REASON_MAX + 1] = {
	[NEURON_HEALTH_REASON_NONE] = "none",
	[NEURON_HEALTH_REASON_RESET_IN_PROGRESS] = "reset_in_progress",
	[NEURON_HEALTH_REASON_FW_NOT_ANSWERING] = "fw_not_answering",
	[NEURON_HEALTH_REASON_NC_UNRECOVERABLE] = "nc_unrecoverable",
	[NEURON_HEALTH_REASON_HBM_UNCORRECTABLE] = "hbm_uncorrectable",
	[NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE] = "sram_uncorrectable",
	[NEURON_HEALTH_REASON_RESET_FAILED] = "reset_failed",
};

const char *const neuron_component_names[NEURON_COMPONENT_COUNT] = {
	[NEURON_COMPONENT_HBM] = "hbm",
	[NEURON_COMPONENT_SRAM] = "sram",
	[NEURON_COMPONENT_FW_SERVICE_API] = "firmware_service_api",
	[NEURON_COMPONENT_FW_SERVICE_PROCESSOR] = "firmware_service_processor",
	[NEURON_COMPONENT_LINK_INTRASERVER] = "link_intraserver",
	[NEURON_COMPONENT_LINK_HOST] = "link_host",
	[NEURON_COMPONENT_LINK_EFA] = "link_efa",
	[NEURON_COMPONENT_LINK_INTERSERVER] = "link_interserver",
	[NEURON_COMPONENT_LINK_SWITCH] = "link_switch",
	[NEURON_COMPONENT_AXI_FABRIC] = "axi_fabric",
};

const struct neuron_health_map neuron_health_maps[NEURON_HEALTH_REASON_MAX + 1] = {
	[NEURON_HEALTH_REASON_NONE] = { -1, "healthy" },
	[NEURON_HEALTH_REASON_RESET_IN_PROGRESS] = { -1, "unknown" },
	[NEURON_HEALTH_REASON_FW_NOT_ANSWERING] = { NEURON_COMPONENT_FW_SERVICE_API, "unhealthy" },
	[NEURON_HEALTH_REASON_NC_UNRECOVERABLE] = { -1, "unhealthy" },
	[NEURON_HEALTH_REASON_HBM_UNCORRECTABLE] = { NEURON_COMPONENT_HBM, "unhealthy" },
	[NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE] = { NEURON_COMPONENT_SRAM, "unhealthy" },
	[NEURON_HEALTH_REASON_RESET_FAILED] = { NEURON_COMPONENT_FW_SERVICE_PROCESSOR,
						"unhealthy" },
};

static u32 neuron_health_component_of(u32 reason)
{
	s8 c = neuron_health_maps[reason].component;

	return c < 0 ? 0 : 1u << c;
}

u32 neuron_health_components(const struct neuron_health_in *in)
{
	u32 bits = 0;

	if (in->reset_failed)
		bits |= neuron_health_component_of(NEURON_HEALTH_REASON_RESET_FAILED);
	if (in->fw_unanswered)
		bits |= neuron_health_component_of(NEURON_HEALTH_REASON_FW_NOT_ANSWERING);
	if (in->sram_ue)
		bits |= neuron_health_component_of(NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE);
	if (in->hbm_ue)
		bits |= neuron_health_component_of(NEURON_HEALTH_REASON_HBM_UNCORRECTABLE);
	if (in->nc_unrecoverable)
		bits |= neuron_health_component_of(NEURON_HEALTH_REASON_NC_UNRECOVERABLE);
	return bits & NEURON_COMPONENTS_KNOWN;
}

const char *neuron_health_observer(struct neuron_health h)
{
	return h.reason <= NEURON_HEALTH_REASON_MAX ? neuron_health_maps[h.reason].observer :
						       "unknown";
}

static struct neuron_health neuron_health_make(u32 state, u32 reason)
{
	struct neuron_health h = { .state = state, .reason = reason };

	return h;
}

struct neuron_health neuron_health_device(const struct neuron_health_in *in)
{
	if (in->reset_failed)
		return neuron_health_make(NEURON_HEALTH_FAILED, NEURON_HEALTH_REASON_RESET_FAILED);
	/* while a reset runs the device's words mean nothing yet */
	if (in->resetting)
		return neuron_health_make(NEURON_HEALTH_DEGRADED,
					  NEURON_HEALTH_REASON_RESET_IN_PROGRESS);
	if (in->sram_ue)
		return neuron_health_make(NEURON_HEALTH_NEEDS_RESET,
					  NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE);
	if (in->hbm_ue)
		return neuron_health_make(NEURON_HEALTH_NEEDS_RESET,
					  NEURON_HEALTH_REASON_HBM_UNCORRECTABLE);
	if (in->nc_unrecoverable)
		return neuron_health_make(NEURON_HEALTH_NEEDS_RESET,
					  NEURON_HEALTH_REASON_NC_UNRECOVERABLE);
	if (in->fw_unanswered)
		return neuron_health_make(NEURON_HEALTH_DEGRADED,
					  NEURON_HEALTH_REASON_FW_NOT_ANSWERING);
	return neuron_health_make(NEURON_HEALTH_OK, NEURON_HEALTH_REASON_NONE);
}

struct neuron_health neuron_health_core(const struct neuron_health_in *in, u32 nc)
{
	if (nc < 32 && (in->nc_unrecoverable & (1u << nc)))
		return neuron_health_make(NEURON_HEALTH_NEEDS_RESET,
					  NEURON_HEALTH_REASON_NC_UNRECOVERABLE);
	return neuron_health_make(NEURON_HEALTH_OK, NEURON_HEALTH_REASON_NONE);
}

u32 neuron_health_since(u32 now, u32 base)
{
	return now > base ? now - base : 0;
}

const char *neuron_health_state_name(u32 state)
{
	if (state > NEURON_HEALTH_MAX)
		return "unknown";
	return neuron_health_states[state];
}

const char *neuron_health_reason_name(u32 reason)
{
	if (reason > NEURON_HEALTH_REASON_MAX)
		return "unknown";
	return neuron_health_reasons[reason];
}

u32 neuron_health_action_id(struct neuron_health h)
{
	switch (h.state) {
	case NEURON_HEALTH_OK:
		return NEURON_ACTION_NONE;
	case NEURON_HEALTH_DEGRADED:
		return h.reason == NEURON_HEALTH_REASON_RESET_IN_PROGRESS ? NEURON_ACTION_NONE :
									     NEURON_ACTION_RESET_DEVICE;
	case NEURON_HEALTH_NEEDS_RESET:
		return NEURON_ACTION_RESET_DEVICE;
	default:
		return NEURON_ACTION_TERMINATE_INSTANCE;
	}
}

const char *neuron_health_action(struct neuron_health h)
{
	return neuron_action_name(neuron_health_action_id(h));
}
