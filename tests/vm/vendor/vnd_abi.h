/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Guest vm_vendor (vendor.h): the vendor's ioctl ABI, typed here from the
 * vendor's layouts (magic 'N', x86_64, pointer-sized commands encoded with
 * size 8), never taken from this project's header of the vendor's
 * commands; the compile-time checks pin every number, size and offset.
 */
#ifndef VND_ABI_H
#define VND_ABI_H

#include <stddef.h>
#include <sys/ioctl.h>

#include <linux/types.h>

#include <neuron/neuron_ioctl.h>

/* ---- the vendor's encoding and command values ---------------------------- */

#define VND_MAGIC	0x4Eu	/* 'N' */
#define VND_DIR_NONE	0u
#define VND_DIR_W	1u
#define VND_DIR_R	2u
#define VND_DIR_RW	3u

/* dir << 30 | size << 16 | 'N' << 8 | nr; size is 14 bits */
#define VND_CMD(dir, nr, size) \
	((unsigned long)(((unsigned int)(dir) << 30) | ((unsigned int)(size) << 16) | \
			 (VND_MAGIC << 8) | (unsigned int)(nr)))

#define VND_DEVICE_READY		0x80014E02UL	/* u8 */
#define VND_DEVICE_INFO			0x80084E03UL	/* ptr -> device_info */
#define VND_DEVICE_INIT			0x80084E04UL	/* ptr, retired */
#define VND_DEVICE_RELEASE		0x00004E05UL	/* retired */
#define VND_DEVICE_APP_PID		0x80044E06UL	/* s32 */
#define VND_DEVICE_GET_ALL_APPS_INFO	0x80084E07UL	/* ptr -> get_apps_info */
#define VND_DEVICE_RESET		0x00004E01UL	/* no argument */
#define VND_NOTIFICATIONS_INIT_V1	0x80084E33UL	/* ptr -> nq_init_v1 */
#define VND_NOTIFICATIONS_DESTROY_V1	0x80084E34UL	/* ptr, retired */
#define VND_NOTIFICATIONS_INIT_V2	0x80084E35UL	/* ptr -> nq_init_v2 */
#define VND_NOTIFICATIONS_INIT_REALLOC	0x80084E36UL	/* ptr -> nq_init_realloc */
#define VND_NC_RESET			0x80084E67UL	/* ptr -> device_reset */
#define VND_NC_RESET_READY		0x80084E68UL	/* ptr -> device_ready */
#define VND_NOTIFICATIONS_QUEUE_INFO	0x80084E3AUL	/* ptr, retired */
#define VND_POST_METRIC			0x40084E0DUL	/* ptr -> post_metric */
#define VND_READ_HW_COUNTERS		0x80084E3DUL	/* ptr -> read_hw_counters */
#define VND_ACQUIRE_NEURON_DS		0x80084E47UL	/* ptr -> ds_info */
#define VND_RELEASE_NEURON_DS		0x80084E48UL	/* ptr -> ds_info */
#define VND_CRWL_NC_RANGE_MARK		0x40084E55UL	/* ptr -> nc_map (24) */
#define VND_CRWL_NC_RANGE_MARK_EXT0	0xC0504E55UL	/* nc_map_ext (80) */
#define VND_CRWL_NC_RANGE_UNMARK	0x40084E56UL	/* ptr -> nc_map (24) */
#define VND_CRWL_NC_RANGE_UNMARK_EXT0	0x40504E56UL	/* nc_map_ext (80) */
#define VND_COMPATIBLE_VERSION		0x40084E5DUL	/* ptr -> compatible_version */
#define VND_DEVICE_BASIC_INFO		0x40084E64UL	/* ptr -> device_basic_info */
#define VND_DEVICE_BDF			0x80084E65UL	/* ptr -> device_bdf */
#define VND_DEVICE_RESET_STATUS		0x80014E6AUL	/* u8 */
#define VND_DEVICE_BDF_EXT		0x80084E6AUL	/* ptr -> device_bdf_ext */
#define VND_DRIVER_INFO_GET		0x80184E6EUL	/* driver_info (24) */
#define VND_DRIVER_INFO_SET		0x40184E6EUL	/* driver_info (24) */
#define VND_HOST_DEVICE_ID		0x80044E72UL	/* host_device_id (4) */
#define VND_DMABUF_FD			0x80084E6BUL	/* ptr -> dmabuf_fd (24) */
/* not answered here: the vendor's BAR_READ, a pointer-sized _IOR */
#define VND_BAR_READ			VND_CMD(VND_DIR_R, 11, 8)

#define VND_CHECK_CMD(cmd, dir, nr, size) \
	_Static_assert((cmd) == VND_CMD(dir, nr, size), \
		       #cmd " is not dir " #dir ", nr " #nr ", size " #size)

VND_CHECK_CMD(VND_DEVICE_READY, VND_DIR_R, 2, 1);
VND_CHECK_CMD(VND_DEVICE_INFO, VND_DIR_R, 3, 8);
VND_CHECK_CMD(VND_DEVICE_INIT, VND_DIR_R, 4, 8);
VND_CHECK_CMD(VND_DEVICE_RELEASE, VND_DIR_NONE, 5, 0);
VND_CHECK_CMD(VND_DEVICE_APP_PID, VND_DIR_R, 6, 4);
VND_CHECK_CMD(VND_DEVICE_GET_ALL_APPS_INFO, VND_DIR_R, 7, 8);
VND_CHECK_CMD(VND_DEVICE_RESET, VND_DIR_NONE, 1, 0);
VND_CHECK_CMD(VND_NOTIFICATIONS_INIT_V1, VND_DIR_R, 51, 8);
VND_CHECK_CMD(VND_NOTIFICATIONS_DESTROY_V1, VND_DIR_R, 52, 8);
VND_CHECK_CMD(VND_NOTIFICATIONS_INIT_V2, VND_DIR_R, 53, 8);
VND_CHECK_CMD(VND_NOTIFICATIONS_INIT_REALLOC, VND_DIR_R, 54, 8);
VND_CHECK_CMD(VND_NC_RESET, VND_DIR_R, 103, 8);
VND_CHECK_CMD(VND_NC_RESET_READY, VND_DIR_R, 104, 8);
VND_CHECK_CMD(VND_NOTIFICATIONS_QUEUE_INFO, VND_DIR_R, 58, 8);
VND_CHECK_CMD(VND_READ_HW_COUNTERS, VND_DIR_R, 61, 8);
VND_CHECK_CMD(VND_ACQUIRE_NEURON_DS, VND_DIR_R, 71, 8);
VND_CHECK_CMD(VND_RELEASE_NEURON_DS, VND_DIR_R, 72, 8);
VND_CHECK_CMD(VND_CRWL_NC_RANGE_MARK, VND_DIR_W, 85, 8);
VND_CHECK_CMD(VND_CRWL_NC_RANGE_MARK_EXT0, VND_DIR_RW, 85, 80);
VND_CHECK_CMD(VND_CRWL_NC_RANGE_UNMARK, VND_DIR_W, 86, 8);
VND_CHECK_CMD(VND_CRWL_NC_RANGE_UNMARK_EXT0, VND_DIR_W, 86, 80);
VND_CHECK_CMD(VND_COMPATIBLE_VERSION, VND_DIR_W, 93, 8);
VND_CHECK_CMD(VND_DEVICE_BASIC_INFO, VND_DIR_W, 100, 8);
VND_CHECK_CMD(VND_DEVICE_BDF, VND_DIR_R, 101, 8);
VND_CHECK_CMD(VND_DEVICE_RESET_STATUS, VND_DIR_R, 106, 1);
VND_CHECK_CMD(VND_DEVICE_BDF_EXT, VND_DIR_R, 106, 8);
VND_CHECK_CMD(VND_DRIVER_INFO_GET, VND_DIR_R, 110, 24);
VND_CHECK_CMD(VND_DRIVER_INFO_SET, VND_DIR_W, 110, 24);
VND_CHECK_CMD(VND_HOST_DEVICE_ID, VND_DIR_R, 114, 4);
VND_CHECK_CMD(VND_DMABUF_FD, VND_DIR_R, 107, 8);
VND_CHECK_CMD(VND_POST_METRIC, VND_DIR_W, 13, 8);
_Static_assert(VND_BAR_READ == 0x80084E0BUL, "BAR_READ encoding");
/* every vendor number sits below this driver's own commands */
_Static_assert(_IOC_NR(NEURON_IOCTL_GET_INFO) == 0xC0, "own commands start at 0xC0");

/* ---- the vendor's argument layouts (x86_64) -------------------------------
 * Pointers and the bitmaps (unsigned long there) are declared as 64-bit
 * fields, so the layout is the same whatever the build.
 */
#define VND_MAX_CONNECTED	8
#define VND_APPS_FLAG_NC_LOCK	0x1
#define VND_APPS_FLAG_MEM	0x2
#define VND_APPS_FLAG_ALL	0xF
#define VND_APPS_MAX		16
#define VND_NDS_SIZE		262144u
#define VND_NC_MAP_EXT_WORDS	8

struct vnd_device_basic_info {
	__u32 architecture;
	__u32 revision;
};

struct vnd_device_info {
	__u32 architecture;
	__u32 revision;
	__u32 connected_device_count;
	__u32 connected_devices[VND_MAX_CONNECTED];
	/* 4 bytes of implicit padding at 44 */
	__aligned_u64 bar_address[2];
	__aligned_u64 bar_size[2];
};

struct vnd_device_bdf {
	__u32 bus_number;
	__u8 slot;
	__u8 func;
};

struct vnd_device_bdf_ext {
	__u32 nd_index;
	__u32 domain;
	__u32 bus_number;
	__u8 slot;
	__u8 func;
};

struct vnd_host_device_id {
	__u32 host_device_id;
};

struct vnd_compatible_version {
	__u32 max;
	__u32 min;
};

/* DRIVER_INFO feature_flags1 bit 0 */
#define VND_FEATURE_DMABUF		0x1ULL

/* va u64 @0; size u64 @8; fd s32* @16 */
struct vnd_dmabuf_fd {
	__aligned_u64 va;
	__aligned_u64 size;
	__aligned_u64 fd;
};
_Static_assert(sizeof(struct vnd_dmabuf_fd) == 24, "dmabuf_fd");

struct vnd_driver_info {
	__u32 architecture;
	__u32 revision;
	__u32 version;
	__u32 size;
	__aligned_u64 feature_flags1;
};

struct vnd_nc_map {
	__u32 nc_count;
	__u32 start_nc_index;
	__u32 end_nc_index;
	__u32 max_nc_available;
	__aligned_u64 bitmap;
};

struct vnd_nc_map_ext {
	__u32 nc_count;
	__u32 start_nc_index;
	__u32 end_nc_index;
	__u32 max_nc_available;
	__aligned_u64 bitmap[VND_NC_MAP_EXT_WORDS];
};

struct vnd_ds_info {
	__s32 pid;
	/* 4 bytes of implicit padding */
	__aligned_u64 mmap_offset;
	__u32 size;
	/* 4 bytes of implicit padding */
};

struct vnd_nq_init_v1 {
	__u32 nc_id;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__aligned_u64 mmap_offset;
};

struct vnd_nq_init_v2 {
	__u32 nq_dev_id;
	__u32 nq_dev_type;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u32 on_host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__aligned_u64 mmap_offset;
	__aligned_u64 mem_handle;
};

struct vnd_nq_init_realloc {
	__u32 nq_dev_id;
	__u32 nq_dev_type;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u32 on_host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 force_alloc_mem;
	/* 4 bytes of implicit padding */
	__aligned_u64 mmap_offset;
	__aligned_u64 mem_handle;
};

struct vnd_device_reset {
	__u32 nc_map;
	__u32 request_id;
};

struct vnd_device_ready {
	__u32 request_id;
	__s32 result;
};

struct vnd_notifications_destroy {
	__aligned_u64 mmap_offset;
};

struct vnd_notifications_queue_info {
	__u8 nq_dev_id;
	__u8 nq_dev_type;
	__u8 nq_type;
	__u8 engine_index;
	__u32 head;
	__u32 phase_bit;
};

struct vnd_read_hw_counters {
	__aligned_u64 address;	/* user pointer to count u64 device addresses */
	__aligned_u64 data;	/* user pointer to count u32 values */
	__u32 count;
};

struct vnd_post_metric {
	__aligned_u64 data;	/* user pointer to the blob */
	__u32 data_size;
};

struct vnd_app_info {
	__s32 pid;
	__u8 nc_lock_map;
	__u8 uuid_data[4][32];
	/* 3 bytes of implicit padding at 133 */
	__aligned_u64 host_mem_size;
	__aligned_u64 device_mem_size;
};

/* the 16-byte header of DEVICE_GET_ALL_APPS_INFO; the records follow it */
struct vnd_apps_hdr {
	__u16 apps_info_flags;
	__u32 capacity;
	__u32 size;
} __attribute__((aligned(8)));

struct vnd_apps_buf {
	struct vnd_apps_hdr hdr;
	struct vnd_app_info app[VND_APPS_MAX];
};

#define VND_SIZE(type, size, align)                                                   \
	_Static_assert(sizeof(struct type) == (size), #type " is " #size " bytes");  \
	_Static_assert(_Alignof(struct type) == (align), #type " aligns to " #align)
#define VND_OFF(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " at " #off)

VND_SIZE(vnd_device_basic_info, 8, 4);
VND_OFF(vnd_device_basic_info, revision, 4);
VND_SIZE(vnd_device_info, 80, 8);
VND_OFF(vnd_device_info, revision, 4);
VND_OFF(vnd_device_info, connected_device_count, 8);
VND_OFF(vnd_device_info, connected_devices, 12);
VND_OFF(vnd_device_info, bar_address, 48);
VND_OFF(vnd_device_info, bar_size, 64);
VND_SIZE(vnd_device_bdf, 8, 4);
VND_OFF(vnd_device_bdf, slot, 4);
VND_OFF(vnd_device_bdf, func, 5);
VND_SIZE(vnd_device_bdf_ext, 16, 4);
VND_OFF(vnd_device_bdf_ext, domain, 4);
VND_OFF(vnd_device_bdf_ext, bus_number, 8);
VND_OFF(vnd_device_bdf_ext, slot, 12);
VND_OFF(vnd_device_bdf_ext, func, 13);
VND_SIZE(vnd_host_device_id, 4, 4);
VND_SIZE(vnd_compatible_version, 8, 4);
VND_OFF(vnd_compatible_version, min, 4);
VND_SIZE(vnd_driver_info, 24, 8);
VND_OFF(vnd_driver_info, version, 8);
VND_OFF(vnd_driver_info, size, 12);
VND_OFF(vnd_driver_info, feature_flags1, 16);
VND_SIZE(vnd_nc_map, 24, 8);
VND_OFF(vnd_nc_map, start_nc_index, 4);
VND_OFF(vnd_nc_map, end_nc_index, 8);
VND_OFF(vnd_nc_map, max_nc_available, 12);
VND_OFF(vnd_nc_map, bitmap, 16);
VND_SIZE(vnd_nc_map_ext, 80, 8);
VND_OFF(vnd_nc_map_ext, max_nc_available, 12);
VND_OFF(vnd_nc_map_ext, bitmap, 16);
VND_SIZE(vnd_ds_info, 24, 8);
VND_OFF(vnd_ds_info, mmap_offset, 8);
VND_OFF(vnd_ds_info, size, 16);
VND_SIZE(vnd_nq_init_v1, 24, 8);
VND_OFF(vnd_nq_init_v1, size, 12);
VND_OFF(vnd_nq_init_v1, mmap_offset, 16);
VND_SIZE(vnd_nq_init_v2, 48, 8);
VND_OFF(vnd_nq_init_v2, nq_type, 8);
VND_OFF(vnd_nq_init_v2, on_host_memory, 20);
VND_OFF(vnd_nq_init_v2, dram_region, 28);
VND_OFF(vnd_nq_init_v2, mmap_offset, 32);
VND_OFF(vnd_nq_init_v2, mem_handle, 40);
VND_SIZE(vnd_nq_init_realloc, 56, 8);
VND_OFF(vnd_nq_init_realloc, force_alloc_mem, 32);
VND_OFF(vnd_nq_init_realloc, mmap_offset, 40);
VND_OFF(vnd_nq_init_realloc, mem_handle, 48);
VND_SIZE(vnd_device_reset, 8, 4);
VND_OFF(vnd_device_reset, request_id, 4);
VND_SIZE(vnd_device_ready, 8, 4);
VND_OFF(vnd_device_ready, result, 4);
VND_SIZE(vnd_notifications_destroy, 8, 8);
VND_SIZE(vnd_notifications_queue_info, 12, 4);
VND_OFF(vnd_notifications_queue_info, engine_index, 3);
VND_OFF(vnd_notifications_queue_info, head, 4);
VND_OFF(vnd_notifications_queue_info, phase_bit, 8);
VND_SIZE(vnd_read_hw_counters, 24, 8);
VND_OFF(vnd_read_hw_counters, data, 8);
VND_OFF(vnd_read_hw_counters, count, 16);
VND_SIZE(vnd_post_metric, 16, 8);
VND_OFF(vnd_post_metric, data_size, 8);
VND_SIZE(vnd_app_info, 152, 8);
VND_OFF(vnd_app_info, nc_lock_map, 4);
VND_OFF(vnd_app_info, uuid_data, 5);
VND_OFF(vnd_app_info, host_mem_size, 136);
VND_OFF(vnd_app_info, device_mem_size, 144);
VND_SIZE(vnd_apps_hdr, 16, 8);
VND_OFF(vnd_apps_hdr, capacity, 4);
VND_OFF(vnd_apps_hdr, size, 8);
VND_OFF(vnd_apps_buf, app, 16);
/* the sizes the vendor's non-pointer macros encode */
_Static_assert(_IOC_SIZE(VND_CRWL_NC_RANGE_MARK_EXT0) == sizeof(struct vnd_nc_map_ext), "EXT0");
_Static_assert(_IOC_SIZE(VND_DRIVER_INFO_GET) == sizeof(struct vnd_driver_info), "DRIVER_INFO");
_Static_assert(_IOC_SIZE(VND_HOST_DEVICE_ID) == sizeof(struct vnd_host_device_id),
	       "HOST_DEVICE_ID");

#endif /* VND_ABI_H */
