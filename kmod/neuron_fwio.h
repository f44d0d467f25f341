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

int neuron_metrics_start(struct neuron_device *nd);
void neuron_metrics_stop(struct neuron_device *nd);

#endif /* NEURON_FWIO_H */
