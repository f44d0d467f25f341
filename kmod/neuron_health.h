/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Health of a device and of its NeuronCores (neuron_health.c): sysfs
 * health/health_reason, and one NEURON_HW_ERR line and one netlink
 * HEALTH_EVENT per change.
 */
#ifndef NEURON_HEALTH_H
#define NEURON_HEALTH_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "neuron_backend.h"
#include "neuron_health_lib.h"
#include "neuron_miscram_reg.h"

struct neuron_device;

/* .../neuron<N>/health, health_reason (the device; neuron_sysfs.c has the cores') */
extern struct device_attribute dev_attr_health;
extern struct device_attribute dev_attr_health_reason;

/**
 * struct neuron_health_track - what health needs besides the driver's facts
 * @lock:	serializes checks and rebases; protects @last_*, and the
 *		baselines' writers (readers use READ_ONCE)
 * @sram_base:	uncorrected SRAM count at the last reset (or registration)
 * @hbm_base:	the same per HBM channel
 * @sram_seen:	the most uncorrected SRAM errors a check of the ready device
 *		counted since the baseline: a count the device later reads
 *		lower (its word cleared or toggled) keeps the health it
 *		caused until a reset
 * @hbm_seen:	the same for the sum over the HBM channels
 * @last_dev:	the device's health as last reported (not a second source:
 *		only what a change is detected against)
 * @last_nc:	the same per NeuronCore
 * @checks:	health checks run (the poller's and the reset file's): the
 *		health_status/healthcheck_heartbeat file
 */
struct neuron_health_track {
	struct mutex lock;
	u32 sram_base;
	u32 hbm_base[NEURON_MISCRAM_HBM_CHANNELS];
	u32 sram_seen;
	u32 hbm_seen;
	struct neuron_health last_dev;
	struct neuron_health last_nc[NEURON_MAX_NC];
	atomic64_t checks;
};

/* Before anything can read the health: the ECC counts now are the baseline. */
void neuron_health_init(struct neuron_device *nd);
/* The vendor's components unhealthy now (bit per enum neuron_component). Any time. */
u32 neuron_health_components_now(struct neuron_device *nd);
/* Health checks run since the device registered. Any time. */
u64 neuron_health_heartbeat(struct neuron_device *nd);
/* The health now of the device (@nc < 0) or of NeuronCore @nc. Any time. */
struct neuron_health neuron_health_get(struct neuron_device *nd, s32 nc);
/* A reset completed: the ECC counts now are the new baseline. */
void neuron_health_rebase(struct neuron_device *nd);
/*
 * Report every change since the last report: one NEURON_HW_ERR line and
 * one netlink event each. Process context, may sleep; no device lock held
 * but gone_sem for read, at most.
 */
void neuron_health_check(struct neuron_device *nd);

#endif /* NEURON_HEALTH_H */
