/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Types the public SDK's ndl.h takes from its neuron_driver_shared.h, for
 * the calls libnrt implements (ndl_get_all_apps_info). Field names, types
 * and order follow the SDK, and so do the values.
 */
#pragma once

#include <linux/types.h>
#include <stddef.h>

#include "neuron_driver_shared_tensor_batch_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NeuronCores an application's model uuids are reported for. */
#define APP_INFO_MAX_MODELS_PER_DEVICE 4

/*
 * ndl_get_all_apps_info() flags, the SDK's values. APP_INFO_ALL is the
 * SDK's 0xF: its two upper bits name nothing in the SDK either, and a
 * caller may pass them; they select nothing more.
 */
#define APP_INFO_PID_NC_LOCK_INFO	(1 << 0)	/* fill nc_lock_map */
#define APP_INFO_PID_MEM_USAGE		(1 << 1)	/* fill the memory sizes */
#define APP_INFO_ALL			(0xF)

struct neuron_uuid {
	__u8 value[32];
};

/*
 * One process using a device. @nc_lock_map: bit K, the process holds
 * NeuronCore K. @uuid_data: the model loaded per NeuronCore; this driver
 * has no model loads, so all zero. @host_mem_size, @device_mem_size: not
 * reported by this driver yet, 0.
 */
struct neuron_app_info {
	__s32 pid;
	__u8 nc_lock_map;
	struct neuron_uuid uuid_data[APP_INFO_MAX_MODELS_PER_DEVICE];
	size_t host_mem_size;
	size_t device_mem_size;
};

#ifdef __cplusplus
}
#endif
