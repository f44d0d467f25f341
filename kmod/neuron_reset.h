/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's sysfs reset file (neuron_reset.c), with the vendor's
 * semantics: read the device state, write to reset the whole device.
 */
#ifndef NEURON_RESET_H
#define NEURON_RESET_H

#include <linux/device.h>
#include <linux/types.h>

#include <linux/spinlock.h>

#include "neuron_backend.h"
#include "neuron_metrics_pack.h"

struct neuron_file;

struct neuron_device;

/* device states, as the vendor's reset file reads (facts: fwio-nq-cdev-dkms 3.5) */
#define NEURON_DEVICE_STATE_RESET	0
#define NEURON_DEVICE_STATE_READY	1
#define NEURON_DEVICE_STATE_INVALID	2

extern struct device_attribute dev_attr_reset;
/* .../neuron<N>/state: the same state as a word (ready, reset, invalid) */
extern struct device_attribute dev_attr_state;

/*
 * The device's reset did not complete (at probe, or a reset file write):
 * no firmware exchange, ECC poll or metrics post touches it until a reset
 * succeeds.
 */
bool neuron_device_invalid(const struct neuron_device *nd);

/**
 * struct neuron_reset_counts - other_info/reset_req_count and reset_fail_count
 * (facts: nds-sysfs-metrics 2.3d), {total, present} per NeuronCore slot
 * @req:	+1 on every slot (all NEURON_MAX_NC, present or not) per reset
 * @fail:	+1 on every present NeuronCore per failed reset
 * @count_lock: protects @req and @fail; a leaf (taken under procs_lock
 *		by the resets that hold it), so a read of the files never
 *		waits for a reset in progress (minutes on a device whose
 *		firmware is slow)
 * @window_lock: protects @window (taken alone, never with another lock held)
 * @window:	per NEURON_METRIC_RESET_DEV/NC, the resets since the metrics
 *		post last took them (neuron_reset_take_window())
 */
struct neuron_reset_counts {
	u64 req[NEURON_MAX_NC][2];
	u64 fail[NEURON_MAX_NC][2];
	spinlock_t count_lock;
	spinlock_t window_lock;
	struct neuron_metric_reset_window window[NEURON_METRIC_RESET_KINDS];
};

/*
 * A reset of @kind (NEURON_METRIC_RESET_DEV or _NC) ended: @ret 0, it
 * completed in @ms (a sample of metrics 50 and 52 or 51 and 53); else it
 * failed (metric 54 or 55).
 */
void neuron_reset_record(struct neuron_device *nd, u32 kind, int ret, u64 ms);
/* The metrics post: fold the resets recorded so far into @w[kind], forget them. */
void neuron_reset_take_window(struct neuron_device *nd,
			      struct neuron_metric_reset_window w[NEURON_METRIC_RESET_KINDS]);

/*
 * The driver counter @name ("reset_req_count" or "reset_fail_count") of
 * NeuronCore @nc: its total (@total) or present value, cleared when @clear.
 */
u64 neuron_reset_counter(struct neuron_device *nd, s32 nc, const char *name, bool total,
			 bool clear);

/* neuron_device_nc_reset(): the whole device */
#define NEURON_RESET_MAP_DEVICE	0xFFFFFFFFu

/*
 * The vendor's NC_RESET (and DEVICE_RESET, @nc_map NEURON_RESET_MAP_DEVICE)
 * through @nf, for its opener (the caller), run before it returns:
 *  - NeuronCores (bit n = core n, only cores the device has, not none:
 *    -EINVAL): each must be the caller's (-EACCES; -ECANCELED when root
 *    took it back) with no job running and no ring mapped when the reset
 *    starts (-EBUSY), on a READY device (-EIO); their rings are freed,
 *    each counts in reset_req_count, and the backend resets them
 *    (ops->nc_reset; -EOPNOTSUPP without) with no firmware exchange in
 *    flight and without holding up opens and closes of the device;
 *  - the device: CAP_SYS_ADMIN (-EPERM); no other process has the device
 *    open, no allocation of device memory is mapped, no job or mapped
 *    ring is on a core the caller holds (-EBUSY): the caller's rings are
 *    freed and the device is reset as through the sysfs reset file.
 * 0 when the reset ran, *@failed telling whether it failed (counted in
 * reset_fail_count; a failed device reset leaves it INVALID); -EINTR when
 * killed, -ENODEV when removal began, before the backend's reset started.
 * Sleeps.
 */
int neuron_device_nc_reset(struct neuron_file *nf, u32 nc_map, bool *failed);

#endif /* NEURON_RESET_H */
