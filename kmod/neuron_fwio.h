/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FW-IO transport (neuron_fwio.c): the register-only MiscRAM mailbox of one
 * device, one exchange in flight, its counters and debugfs fw/ directory.
 *
 * neuron_fwio_init/exit bracket the device's life (before the char device
 * appears / after it is gone). Every function returns 0 or a plain negative
 * errno; the reference driver's 0/-1/-ENOTSUPP collapse of the same
 * outcomes is the pure table neuron_fwio_outcome_collapse()
 * (common/neuron_fwio_frame.c), which only the host tests apply.
 */
#ifndef NEURON_FWIO_H
#define NEURON_FWIO_H

#include <linux/types.h>

#include "neuron_fwio_frame.h"

struct dentry;
struct neuron_device;

int neuron_fwio_init(struct neuron_device *nd);
void neuron_fwio_exit(struct neuron_device *nd);

/* Firmware-reported error responses (the vendor's fw_io_err_count). */
u64 neuron_fwio_err_count(struct neuron_device *nd);
/* Timeouts, sequence mismatches, oversize responses (not in the vendor driver). */
u64 neuron_fwio_timeout_count(struct neuron_device *nd);
/*
 * The last exchange that reached firmware got no answer at all (every
 * attempt timed out); false again after any answer or a completed reset.
 */
bool neuron_fwio_unanswered(struct neuron_device *nd);
/*
 * A reset rings the same doorbell as an exchange: between these two no
 * exchange is in flight or starts (fw->lock). 0, -EINTR (killed while
 * waiting for the exchange in flight), -ENODEV (removal began). Sleeps.
 */
int neuron_fwio_reset_lock(struct neuron_device *nd);
void neuron_fwio_reset_unlock(struct neuron_device *nd);
/*
 * The performance (power) profile a SET_POWER_PROFILE last set on the
 * device (0 until one succeeded): posted as metric 56.
 */
u32 neuron_fwio_power_profile(struct neuron_device *nd);
void neuron_fwio_power_profile_set(struct neuron_device *nd, u8 profile);
/* A device reset completed: the firmware restarted, its silence is past. */
void neuron_fwio_reset_done(struct neuron_device *nd);
/* Firmware words read directly for sysfs info/: 0, -EIO (unreadable), -ENODEV. */
int neuron_fwio_serial_number(struct neuron_device *nd, u64 *serial);
int neuron_fwio_api_version(struct neuron_device *nd, u32 *version);

/*
 * The device is being removed: exchanges in progress give up at their next
 * poll step and new ones fail, both with -ENODEV.
 */
void neuron_fwio_quiesce(struct neuron_device *nd);

/* fw/ under the device's debugfs directory (NULL without debugfs). */
struct dentry *neuron_fwio_debugfs_dir(const struct neuron_device *nd);

/**
 * struct neuron_fwio_xfer - one request/response exchange
 * @cmd:	NEURON_FWIO_CMD_*
 * @req:	request payload (@req_len bytes, <= NEURON_FWIO_MAX_PAYLOAD)
 * @resp:	response payload buffer
 * @resp_len:	the exact response payload size the command implies; a
 *		SUCCESS response of any other size is a protocol error
 * @abort:	optional; the exchange gives up (-EINTR) as soon as it reads
 *		true, so a stopping worker is never held up
 * @outcome:	out: why the exchange ended (logs, tests)
 * @attempts:	out: attempts made
 */
struct neuron_fwio_xfer {
	u8 cmd;
	const void *req;
	u16 req_len;
	void *resp;
	u16 resp_len;
	const bool *abort;
	enum neuron_fwio_outcome outcome;
	u32 attempts;
};

/*
 * Run one exchange, all attempts, holding the device's mailbox mutex.
 * 0, or the errno of the outcome (neuron_fwio_outcome_errno: -EIO,
 * -ETIMEDOUT, -EOPNOTSUPP, -E2BIG, -EINTR), or -ENODEV when the device is
 * being removed. Sleeps; process context only.
 */
int neuron_fwio_exchange(struct neuron_device *nd, struct neuron_fwio_xfer *x);

#endif /* NEURON_FWIO_H */
