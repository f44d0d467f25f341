/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Health of a device and of each of its NeuronCores, computed from what the
 * driver already knows (kmod/neuron_health.c gathers it): pure, so the host tests
 * cover every combination. The states and reasons are the UAPI's
 * (<neuron/neuron_genl.h>), so netlink, sysfs and the log say the same.
 */
#ifndef NEURON_HEALTH_LIB_H
#define NEURON_HEALTH_LIB_H

#include "neuron_pure.h"

#include <neuron/neuron_genl.h>

/**
 * struct neuron_health_in - what the health is derived from
 * @reset_failed:	the device's last reset did not complete (INVALID)
 * @resetting:		a reset is in progress (RESET)
 * @fw_unanswered:	the last FW-IO exchange got no answer from firmware
 * @sram_ue:		uncorrectable SRAM ECC errors since the last reset
 * @hbm_ue:		uncorrectable HBM ECC errors since the last reset
 * @nc_unrecoverable:	bit K: NeuronCore K refuses jobs until a reset
 */
struct neuron_health_in {
	bool reset_failed;
	bool resetting;
	bool fw_unanswered;
	u32 sram_ue;
	u32 hbm_ue;
	u32 nc_unrecoverable;
};

/**
 * struct neuron_health - a health and why
 * @state:	enum neuron_health_state
 * @reason:	enum neuron_health_reason
 */
struct neuron_health {
	u32 state;
	u32 reason;
};

/*
 * The device: the worst of, in order, a failed reset (failed), a reset in
 * progress (degraded), uncorrectable SRAM then HBM ECC errors, an
 * unrecoverable NeuronCore (needs_reset), firmware not answering
 * (degraded); else ok.
 */
struct neuron_health neuron_health_device(const struct neuron_health_in *in);
/*
 * NeuronCore @nc on its own: needs_reset while it is unrecoverable, else
 * ok. The device's health covers the device-wide causes.
 */
struct neuron_health neuron_health_core(const struct neuron_health_in *in, u32 nc);
/* Errors counted since @base, a count read at the last reset (0 when it went down). */
u32 neuron_health_since(u32 now, u32 base);

/* "ok", "degraded", "needs_reset", "failed"; "unknown" out of range. */
const char *neuron_health_state_name(u32 state);
/* "none", "sram_uncorrectable", ...; "unknown" out of range. */
const char *neuron_health_reason_name(u32 reason);
/*
 * The recovery action of a health (enum neuron_recovery_action): NONE
 * (ok, a reset in progress), RESET_DEVICE (degraded, needs_reset),
 * TERMINATE_INSTANCE (failed); and its name, the action= word of the
 * NEURON_HW_ERR=HEALTH line.
 */
u32 neuron_health_action_id(struct neuron_health h);
const char *neuron_health_action(struct neuron_health h);

/*
 * The vendor's component names of stats/hardware/health_status/
 * unhealthy_components (driver 2.30.2), in its order. This driver knows
 * the first four from its own facts; the links and the fabric it cannot
 * see (docs/ABI/sysfs-devices-neuron says so), and never reports them.
 */
enum neuron_component {
	NEURON_COMPONENT_HBM,
	NEURON_COMPONENT_SRAM,
	NEURON_COMPONENT_FW_SERVICE_API,
	NEURON_COMPONENT_FW_SERVICE_PROCESSOR,
	NEURON_COMPONENT_LINK_INTRASERVER,
	NEURON_COMPONENT_LINK_HOST,
	NEURON_COMPONENT_LINK_EFA,
	NEURON_COMPONENT_LINK_INTERSERVER,
	NEURON_COMPONENT_LINK_SWITCH,
	NEURON_COMPONENT_AXI_FABRIC,
	NEURON_COMPONENT_COUNT,
};
extern const char *const neuron_component_names[NEURON_COMPONENT_COUNT];
#define NEURON_COMPONENTS_KNOWN							\
	((1u << NEURON_COMPONENT_HBM) | (1u << NEURON_COMPONENT_SRAM) |		\
	 (1u << NEURON_COMPONENT_FW_SERVICE_API) |				\
	 (1u << NEURON_COMPONENT_FW_SERVICE_PROCESSOR))

/*
 * The one table from this driver's health onto the vendor's and Neuron
 * Observer's vocabularies: each health reason's component (-1: none of
 * the ten) and Observer's device state ("healthy", "unhealthy",
 * "unknown"). NeuronCore unrecoverable has no component of the vendor's
 * list (it names no NeuronCore); a reset in progress is "unknown".
 */
struct neuron_health_map {
	s8 component;
	const char *observer;
};
extern const struct neuron_health_map neuron_health_maps[NEURON_HEALTH_REASON_MAX + 1];

/*
 * Bit C: component C is unhealthy by @in, every cause counted (not only
 * the worst, which the health's reason names). Only known components.
 */
u32 neuron_health_components(const struct neuron_health_in *in);
/* Observer's state of a health; "unknown" for a reason out of range. */
const char *neuron_health_observer(struct neuron_health h);

#endif /* NEURON_HEALTH_LIB_H */
