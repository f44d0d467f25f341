/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * ndl: the thin device layer of libnrt. Opens /dev/neuron<N> and asks the
 * driver what it is. ndl_device_t and the signatures follow the public
 * SDK's ndl.h (fields, types and order) for the subset implemented here;
 * what only this library reports is in ndl_device_info_t, reached with
 * ndl_device_get_info().
 *
 * Return convention (differs from the SDK's bare -1): 0 on success, a
 * negative errno on failure, so callers can tell "no such device"
 * (-ENOENT) from "driver refused" (-EINVAL, -EACCES, ...).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "neuron_driver_shared.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NEURON_DEVICE_PREFIX "/dev/neuron"
#define MAX_NEURON_DEVICE_COUNT 64
#define NEURON_MAX_DEVICES MAX_NEURON_DEVICE_COUNT
#define MAX_NC_PER_DEVICE 8
#define MAX_HBM_PER_DEVICE 4
#define DRIVER_VERSION_MAX_SIZE 32

/*
 * ndl_device_t.device_type: the hardware generation, as the SDK's
 * "V1, V2, ..." (from info/architecture/arch_type "NDv<k>"). A simulated
 * device models a v3 part (4 HBM channels, HBM repair state) and reports 3.
 */
#define NDL_DEVICE_TYPE_V1 1
#define NDL_DEVICE_TYPE_V2 2
#define NDL_DEVICE_TYPE_V3 3
#define NDL_DEVICE_TYPE_V4 4

/* ndl_device_info_t.backend: the driver's backend (ours). */
#define NDL_BACKEND_SIM 1
#define NDL_BACKEND_PCI 2

typedef struct ndl_device_init_param {
	bool initialize_device;	/* accepted for SDK compatibility; unused */
	int num_dram_regions;	/* accepted for SDK compatibility; unused */
	bool map_hbm;		/* accepted for SDK compatibility; unused */
} ndl_device_init_param_t;

/* Copy buffer per NeuronCore (SDK layout); this library leaves them empty. */
typedef struct ndl_copy_buf {
	uint64_t mem_handle;
	void *mmap_va;
	pthread_mutex_t lock;
} ndl_copy_buf_t;

/*
 * The SDK's device struct. Filled here: device_index, device_type,
 * connected_device_count and connected_devices (the driver's
 * connected_devices file), and hbm_size: the device memory in bytes
 * (GET_INFO's hbm_size; 0 on a device without any). device_revision,
 * csr_*, cpy_bufs and the other hbm_* fields stay zero: this driver maps
 * no BARs and never the whole HBM into processes (each device allocation
 * on its own, NEURON_CAP_MEM_MMAP, which libnrt uses for tensor copies).
 * @context is the library's: it starts with an ndl_device_info_t.
 */
typedef struct ndl_device {
	uint8_t device_index;			/* N of /dev/neuron<N> */
	uint8_t device_type;			/* NDL_DEVICE_TYPE_V* */
	uint16_t device_revision;
	uint8_t connected_device_count;
	uint8_t connected_devices[MAX_NEURON_DEVICE_COUNT];
	uint64_t csr_base[2];
	uint64_t csr_size[2];
	ndl_copy_buf_t cpy_bufs[MAX_NC_PER_DEVICE];
	void *hbm_va[MAX_HBM_PER_DEVICE];
	size_t hbm_size;
	uint32_t hbm_va_cnt;
	uint32_t shift_hbm_size;
	uint64_t hbm_offset[MAX_HBM_PER_DEVICE];
	uint8_t context[];			/* library reserved */
} ndl_device_t;

/* What this library reports beyond the SDK's fields (ours). */
typedef struct ndl_device_info {
	uint32_t backend;		/* NDL_BACKEND_* */
	uint32_t nc_count;		/* NeuronCores on the device */
	uint32_t abi_version;		/* driver ioctl ABI version */
	uint32_t reserved0;
	uint64_t capabilities;		/* NEURON_CAP_* from the driver */
	char driver_version[DRIVER_VERSION_MAX_SIZE];
} ndl_device_info_t;

/* The library's view of an open device (in its context area); NULL on NULL. */
const ndl_device_info_t *ndl_device_get_info(const ndl_device_t *device);

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

/*
 * The processes using the device (NEURON_IOCTL_APPS_INFO): *@info is a
 * malloc()ed array of *@count entries the caller free()s (NULL when 0).
 * @apps_info_flags: APP_INFO_* (bits outside APP_INFO_ALL -EINVAL). Processes in
 * another pid namespace are not listed. -ENOTTY: a driver without the
 * call.
 */
int ndl_get_all_apps_info(ndl_device_t *device, struct neuron_app_info **info, size_t *count,
			  uint16_t apps_info_flags);

#ifdef __cplusplus
}
#endif
