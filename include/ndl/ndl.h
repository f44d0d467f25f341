/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * ndl: the thin device layer of libnrt. Opens /dev/neuron<N> and asks the
 * driver what it is. Signatures follow the public SDK's ndl.h for the
 * subset implemented here.
 *
 * Return convention (differs from the SDK's bare -1): 0 on success, a
 * negative errno on failure, so callers can tell "no such device"
 * (-ENOENT) from "driver refused" (-EINVAL, -EACCES, ...).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NEURON_DEVICE_PREFIX "/dev/neuron"
#define MAX_NEURON_DEVICE_COUNT 64
#define MAX_NC_PER_DEVICE 8
#define DRIVER_VERSION_MAX_SIZE 32

/* Backend kinds (device_type), as the driver reports them. */
#define NDL_DEVICE_TYPE_SIM 1
#define NDL_DEVICE_TYPE_PCI 2

typedef struct ndl_device_init_param {
	bool initialize_device;	/* accepted for SDK compatibility; unused */
	int num_dram_regions;	/* accepted for SDK compatibility; unused */
	bool map_hbm;		/* accepted for SDK compatibility; unused */
} ndl_device_init_param_t;

typedef struct ndl_device {
	uint8_t device_index;		/* N of /dev/neuron<N> */
	uint8_t device_type;		/* NDL_DEVICE_TYPE_* */
	uint16_t device_revision;	/* 0: not reported by this driver */
	uint32_t nc_count;		/* NeuronCores on the device */
	uint32_t abi_version;		/* driver ioctl ABI version */
	uint32_t reserved0;
	uint64_t capabilities;		/* NEURON_CAP_* from the driver */
	char driver_version[DRIVER_VERSION_MAX_SIZE];
} ndl_device_t;

/*
 * Fill @device_indexes with the indexes of the present /dev/neuron<N>
 * nodes, ascending, at most @device_indexes_size of them. Returns how many
 * devices exist (which may exceed @device_indexes_size); @device_indexes may
 * be NULL when @device_indexes_size is 0.
 */
int ndl_available_devices(int *device_indexes, int device_indexes_size);

/*
 * Open /dev/neuron<device_index> and query it (GET_INFO). @params may be
 * NULL. On success *@device owns an fd until ndl_close_device().
 * Errors: -EINVAL bad argument, -ENOENT no such device, -ENOMEM, or the
 * errno of open()/ioctl().
 */
int ndl_open_device(int device_index, ndl_device_init_param_t *params, ndl_device_t **device);

/* Close a device opened by ndl_open_device(). -EINVAL on NULL. */
int ndl_close_device(ndl_device_t *device);

/* The device's file descriptor (for mmap), or -EINVAL. */
int ndl_device_fd(const ndl_device_t *device);

#ifdef __cplusplus
}
#endif
