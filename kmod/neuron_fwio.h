/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FW-IO mailbox (transport + typed commands) and the metrics post.
 *
 * Contract used by the rest of the module (device core, sysfs, cdev):
 *  - neuron_fwio_init/exit bracket the device's life (before the char
 *    device appears / after it is gone);
 *  - neuron_metrics_start/stop bracket the periodic post worker (started
 *    last, stopped first; stop never blocks on a hung firmware);
 *  - the getters below back sysfs files and never sleep for longer than one
 *    bounded exchange.
 */
#ifndef NEURON_FWIO_H
#define NEURON_FWIO_H

#include <linux/types.h>

struct neuron_device;

int neuron_fwio_init(struct neuron_device *nd);
void neuron_fwio_exit(struct neuron_device *nd);

/* Firmware-reported error responses (the vendor's fw_io_err_count). */
u64 neuron_fwio_err_count(struct neuron_device *nd);
/* Timeouts, sequence mismatches, oversize responses (not in the vendor driver). */
u64 neuron_fwio_timeout_count(struct neuron_device *nd);
/* MiscRAM reads for sysfs info/: 0 or a negative errno. */
int neuron_fwio_serial_number(struct neuron_device *nd, u64 *serial);
int neuron_fwio_api_version(struct neuron_device *nd, u32 *version);

/* The device is being removed: abort exchanges in progress, refuse new ones. */
void neuron_fwio_quiesce(struct neuron_device *nd);

int neuron_metrics_start(struct neuron_device *nd);
void neuron_metrics_stop(struct neuron_device *nd);

/* ---- below: used by the FW-IO files, the sim firmware and neuron_cdev.c -- */

#include "neuron_fwio_frame.h"

struct dentry;
struct neuron_file;

/* Module parameters (neuron_main.c), read at the start of every exchange/post. */
unsigned int neuron_param_fwio_timeout_ms(void);
unsigned int neuron_param_fwio_retries(void);
unsigned int neuron_param_nmetric_post_delay_ms(void);

/**
 * struct neuron_fwio_xfer - one request/response exchange
 * @cmd:	NEURON_FWIO_CMD_*
 * @req:	request payload (@req_len bytes, <= NEURON_FWIO_MAX_PAYLOAD)
 * @resp:	response payload buffer
 * @resp_len:	the exact response payload size the command implies; a
 *		SUCCESS response of any other size is a protocol error
 * @abort:	optional; the exchange gives up (NEURON_FWIO_OUT_INTR) as soon
 *		as it reads true, so a stopping worker is never held up
 * @outcome:	out: why the exchange ended
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
 * Transport (neuron_fwio.c): run one exchange, all attempts, holding the
 * device's mailbox mutex. Returns the collapsed call-site value of
 * @x->outcome (neuron_fwio_outcome_collapse): 0, -1, -ENOTSUPP, -E2BIG or
 * -EINTR. Sleeps; process context only.
 */
int neuron_fwio_exchange(struct neuron_device *nd, struct neuron_fwio_xfer *x);

/* fw/ under the device's debugfs directory (may be NULL or an error pointer). */
struct dentry *neuron_fwio_debugfs_dir(const struct neuron_device *nd);

/*
 * Typed messages (neuron_fwio_msg.c), the reference's call sites. Each
 * returns the collapsed value (0 / -1 / -ENOTSUPP, -E2BIG on an oversized
 * argument, -EINTR) and, through @why when not NULL, the outcome the
 * ioctl/debugfs edge turns into an errno with neuron_fwio_outcome_errno().
 */
int neuron_fwio_read(struct neuron_device *nd, const u64 *addr, u32 n, u32 *val,
		     enum neuron_fwio_outcome *why);
int neuron_fwio_post_metric(struct neuron_device *nd, const void *blob, u32 len,
			    const bool *abort, enum neuron_fwio_outcome *why);
int neuron_fwio_set_power_profile(struct neuron_device *nd, u8 profile,
				  enum neuron_fwio_outcome *why);

/* ioctl handlers (neuron_cdev.c table): NEURON_IOCTL_FW_READ, _FW_POWER_PROFILE. */
long neuron_fwio_ioctl_read(struct neuron_file *nf, void __user *uarg);
long neuron_fwio_ioctl_power_profile(struct neuron_file *nf, void __user *uarg);

/* Post the metrics now (neuron_metrics.c); 0 or an errno (edge values). */
int neuron_metrics_post_now(struct neuron_device *nd);

#endif /* NEURON_FWIO_H */
