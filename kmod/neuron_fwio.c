// SPDX-License-Identifier: GPL-2.0
/*
 * FW-IO mailbox: placeholder until the FW-IO issue lands. Every getter
 * reports "not available"; nothing talks to firmware yet.
 */
#include <linux/errno.h>

#include "neuron.h"
#include "neuron_fwio.h"

int neuron_fwio_init(struct neuron_device *nd)
{
	return 0;
}

void neuron_fwio_exit(struct neuron_device *nd)
{
}

u64 neuron_fwio_err_count(struct neuron_device *nd)
{
	return 0;
}

u64 neuron_fwio_timeout_count(struct neuron_device *nd)
{
	return 0;
}

int neuron_fwio_serial_number(struct neuron_device *nd, u64 *serial)
{
	return -ENODEV;
}

int neuron_fwio_api_version(struct neuron_device *nd, u32 *version)
{
	return -ENODEV;
}

int neuron_metrics_start(struct neuron_device *nd)
{
	return 0;
}

void neuron_metrics_stop(struct neuron_device *nd)
{
}
