/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The vendor's ioctl ABI on /dev/neuron<N> (aws-neuronx-dkms), for the
 * commands this driver answers: command numbers exactly as the vendor's
 * header encodes them on x86_64, and argument structs with the vendor's
 * names and its x86_64 layout.
 *
 * The vendor's header gives most commands a pointer type, so their size
 * field is 8 whatever the struct's size, and declares pointers and
 * bitmaps as pointer-sized and long fields. This header spells each of
 * them as the 64-bit field it is on x86_64, so a 32-bit process that
 * includes it uses the same numbers and layouts as a 64-bit one (the
 * driver translates its argument pointer). A 32-bit build of the vendor's
 * own header encodes other numbers, which this driver does not know
 * (-ENOTTY), as the vendor's driver has no 32-bit entry point.
 *
 * What each command does here, and where it differs from the vendor's
 * driver: docs/vendor-abi.md. This driver's own commands
 * (<neuron/neuron_ioctl.h>, numbers 0xC0 and up) are its extension.
 */
#ifndef _UAPI_NEURON_VENDOR_IOCTL_H
#define _UAPI_NEURON_VENDOR_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NEURON_IOCTL_BASE	'N'

/* the size field of a command whose vendor macro names a pointer type */
#define NEURON_VENDOR_PTR_SIZE	8

#define _NEURON_VIO(nr)		_IOC(_IOC_NONE, NEURON_IOCTL_BASE, (nr), 0)
#define _NEURON_VIOR(nr, sz)	_IOC(_IOC_READ, NEURON_IOCTL_BASE, (nr), (sz))
#define _NEURON_VIOW(nr, sz)	_IOC(_IOC_WRITE, NEURON_IOCTL_BASE, (nr), (sz))
#define _NEURON_VIOWR(nr, sz)	_IOC(_IOC_READ | _IOC_WRITE, NEURON_IOCTL_BASE, (nr), (sz))

/* enum neuron_arch: the architecture field of the info commands */
#define NEURON_ARCH_V1		1	/* Inf1 */
#define NEURON_ARCH_V2		2	/* Trn1, Inf2 */
#define NEURON_ARCH_V3		3	/* Trn2 */
#define NEURON_ARCH_V4		4	/* Trn3 */

/* NeuronCores the range-mark bitmaps can name (64 devices x 8) */
#define NEURON_VENDOR_MAX_NC	512

struct neuron_ioctl_device_basic_info {
	__u32 architecture;	/* out: NEURON_ARCH_* */
	__u32 revision;		/* out: PCI revision id */
};

#define NEURON_IOCTL_MAX_CONNECTED_DEVICES	8
#define NEURON_MAX_BARS				2

struct neuron_ioctl_device_info {
	__u32 architecture;
	__u32 revision;
	__u32 connected_device_count;
	__u32 connected_devices[NEURON_IOCTL_MAX_CONNECTED_DEVICES];
	__u32 pad0;		/* implicit in the vendor's struct; out: 0 */
	__aligned_u64 bar_address[NEURON_MAX_BARS];	/* out: 0 (never a kernel address) */
	__aligned_u64 bar_size[NEURON_MAX_BARS];
};

struct neuron_ioctl_device_bdf {
	__u32 bus_number;
	__u8 slot;
	__u8 func;
	__u8 pad0[2];		/* out: 0 */
};

struct neuron_ioctl_device_bdf_ext {
	__u32 nd_index;		/* in: device index relative to this fd's device */
	__u32 domain;
	__u32 bus_number;
	__u8 slot;
	__u8 func;
	__u8 pad0[2];		/* out: 0 */
};

struct neuron_ioctl_host_device_id {
	__u32 host_device_id;	/* out: this device's index */
};

struct neuron_ioctl_compatible_version {
	__u32 max;		/* out: the newest runtime interface version */
	__u32 min;		/* out: the oldest */
};

#define NEURON_DEVICE_DRIVER_INFO_VERSION0	0

struct neuron_ioctl_device_driver_info {
	__u32 architecture;
	__u32 revision;
	__u32 version;		/* out: NEURON_DEVICE_DRIVER_INFO_VERSION0 */
	__u32 size;		/* out: sizeof(struct neuron_ioctl_device_driver_info) */
	__aligned_u64 feature_flags1;	/* out: NEURON_DRIVER_FEATURE_* this driver provides */
};

/* feature_flags1 bits, as the vendor numbers them */
#define NEURON_DRIVER_FEATURE_DMABUF			(1ULL << 0)
#define NEURON_DRIVER_FEATURE_ASYNC_DMA			(1ULL << 1)
#define NEURON_DRIVER_FEATURE_BATCH_DMAQ_INIT		(1ULL << 2)
#define NEURON_DRIVER_FEATURE_BIG_CORE_MAPS		(1ULL << 3)
#define NEURON_DRIVER_FEATURE_MEM_ALLOC_TYPE		(1ULL << 4)
#define NEURON_DRIVER_FEATURE_HBM_SCRUB			(1ULL << 5)
#define NEURON_DRIVER_FEATURE_MEM_ALLOC64		(1ULL << 6)
#define NEURON_DRIVER_FEATURE_CONTIGUOUS_SCRATCHPAD	(1ULL << 7)
#define NEURON_DRIVER_FEATURE_ZEROCOPY			(1ULL << 8)

struct neuron_ioctl_crwl_nc_map {
	__u32 nc_count;		/* in: NeuronCores wanted */
	__u32 start_nc_index;	/* in: first of the range, device-relative */
	__u32 end_nc_index;	/* in: last of the range */
	__u32 max_nc_available;	/* out: the longest free run seen */
	__aligned_u64 bitmap;		/* MARK: out; UNMARK: in (bit n = NeuronCore n) */
};

struct neuron_ioctl_crwl_nc_map_ext {
	__u32 nc_count;
	__u32 start_nc_index;
	__u32 end_nc_index;
	__u32 max_nc_available;
	__aligned_u64 bitmap[NEURON_VENDOR_MAX_NC / 64];
};

struct neuron_ioctl_neuron_ds_info {
	__s32 pid;		/* in: 0 = the caller's process */
	__u32 pad0;
	__aligned_u64 mmap_offset;	/* out: pass to mmap() on this fd */
	__u32 size;		/* out: bytes to map */
	__u32 pad1;
};

struct neuron_ioctl_read_hw_counters {
	__aligned_u64 address;		/* in: user pointer to @count __u64 device addresses */
	__aligned_u64 data;		/* in: user pointer to @count __u32 values (out) */
	__u32 count;
	__u32 pad0;
};

struct neuron_ioctl_post_metric {
	__aligned_u64 data;	/* in: user pointer to the blob */
	__u32 data_size;	/* in: its bytes, 1..128 */
	__u32 pad0;
};

/* NOTIFICATIONS_INIT_V2: nq_dev_type */
#define NEURON_NQ_DEVICE_TYPE_NEURON_CORE	0
#define NEURON_NQ_DEVICE_TYPE_TOPSP		1

/*
 * The notification ring commands: @nq_type is enum neuron_nq_type
 * (<neuron/neuron_nq.h>), @size the ring's bytes. The ring maps at
 * @mmap_offset on this fd with a length of @size rounded up to a page,
 * entries from offset 0 (no control page: the device writes on around
 * the ring, each entry's phase bit telling its lap).
 */
struct neuron_ioctl_notifications_init_v1 {
	__u32 nc_id;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__aligned_u64 mmap_offset;	/* out */
};

struct neuron_ioctl_notifications_init_v2 {
	__u32 nq_dev_id;	/* in: NeuronCore (or TOP_SP) index */
	__u32 nq_dev_type;	/* in: NEURON_NQ_DEVICE_TYPE_* */
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u32 on_host_memory;	/* in: 1; device-memory rings are not provided */
	__u32 dram_channel;	/* in: device-memory rings only */
	__u32 dram_region;	/* in: device-memory rings only */
	__aligned_u64 mmap_offset;	/* out */
	__aligned_u64 mem_handle;	/* out */
};

struct neuron_ioctl_notifications_init_with_realloc_v2 {
	__u32 nq_dev_id;
	__u32 nq_dev_type;
	__u32 nq_type;
	__u32 engine_index;
	__u32 size;
	__u32 on_host_memory;
	__u32 dram_channel;
	__u32 dram_region;
	__u32 force_alloc_mem;	/* in: non-zero: a new ring replaces the old one */
	__u32 pad0;		/* implicit in the vendor's struct: not read */
	__aligned_u64 mmap_offset;	/* out */
	__aligned_u64 mem_handle;	/* out */
};

/* NC_RESET: nc_map naming the whole device */
#define NEURON_NC_MAP_DEVICE	0xFFFFFFFFu

struct neuron_ioctl_device_reset {
	__u32 nc_map;		/* in: bit n = NeuronCore n, or NEURON_NC_MAP_DEVICE */
	__u32 request_id;	/* out: pass to NC_RESET_READY */
};

struct neuron_ioctl_device_ready {
	__u32 request_id;	/* in: what NC_RESET answered */
	__s32 result;		/* out: 0 completed, 1 failed */
};

/* DEVICE_GET_ALL_APPS_INFO: apps_info_flags */
#define NEURON_APP_INFO_PID_NC_LOCK_INFO	(1 << 0)
#define NEURON_APP_INFO_PID_MEM_USAGE		(1 << 1)
#define NEURON_APP_INFO_ALL			0xF
#define NEURON_APP_INFO_MAX_MODELS_PER_DEVICE	4
#define NEURON_APP_INFO_MAX_APPS		16

/* one process; the vendor's struct neuron_app_info on x86_64 */
struct neuron_ioctl_app_info {
	__s32 pid;
	__u8 nc_lock_map;	/* bit n: holds NeuronCore n (n < 8) */
	__u8 uuid_data[NEURON_APP_INFO_MAX_MODELS_PER_DEVICE][32];
	__u8 pad0[3];
	__aligned_u64 host_mem_size;
	__aligned_u64 device_mem_size;
};

/* the header the command's pointer names; @capacity records follow it */
struct neuron_ioctl_get_apps_info {
	__u16 apps_info_flags;	/* in */
	__u16 pad0;
	__u32 capacity;		/* in: records the buffer after the header holds */
	__u32 size;		/* out: records written */
	__u32 pad1;
	struct neuron_ioctl_app_info app_data[];
};

/*
 * DMABUF_FD: a dma-buf of [@va, @va + @size) of a device allocation the
 * caller mapped through one of its device files, its descriptor
 * (O_CLOEXEC) written through @fd. @va must be page aligned and the range
 * inside one mapping and the allocation (rounded up to whole pages);
 * -EINVAL otherwise. Any device file of the caller's serves.
 */
struct neuron_ioctl_dmabuf_fd {
	__aligned_u64 va;	/* in: the mapping's address */
	__aligned_u64 size;	/* in: bytes */
	__aligned_u64 fd;	/* in: user pointer to a __s32 (out: the descriptor) */
};

#define NEURON_IOCTL_DEVICE_RESET		_NEURON_VIO(1)
#define NEURON_IOCTL_DEVICE_READY		_NEURON_VIOR(2, 1)
#define NEURON_IOCTL_DEVICE_INFO		_NEURON_VIOR(3, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DEVICE_INIT		_NEURON_VIOR(4, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DEVICE_RELEASE		_NEURON_VIO(5)
#define NEURON_IOCTL_DEVICE_APP_PID		_NEURON_VIOR(6, 4)
#define NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO	_NEURON_VIOR(7, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_POST_METRIC		_NEURON_VIOW(13, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NOTIFICATIONS_INIT_V1	_NEURON_VIOR(51, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1	_NEURON_VIOR(52, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NOTIFICATIONS_INIT_V2	_NEURON_VIOR(53, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2	_NEURON_VIOR(54, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO	_NEURON_VIOR(58, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_READ_HW_COUNTERS		_NEURON_VIOR(61, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_ACQUIRE_NEURON_DS		_NEURON_VIOR(71, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_RELEASE_NEURON_DS		_NEURON_VIOR(72, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_CRWL_NC_RANGE_MARK		_NEURON_VIOW(85, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0	\
	_NEURON_VIOWR(85, sizeof(struct neuron_ioctl_crwl_nc_map_ext))
#define NEURON_IOCTL_CRWL_NC_RANGE_UNMARK	_NEURON_VIOW(86, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0	\
	_NEURON_VIOW(86, sizeof(struct neuron_ioctl_crwl_nc_map_ext))
#define NEURON_IOCTL_COMPATIBLE_VERSION		_NEURON_VIOW(93, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DEVICE_BASIC_INFO		_NEURON_VIOW(100, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DEVICE_BDF			_NEURON_VIOR(101, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NC_RESET			_NEURON_VIOR(103, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_NC_RESET_READY		_NEURON_VIOR(104, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DEVICE_BDF_EXT		_NEURON_VIOR(106, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DMABUF_FD			_NEURON_VIOR(107, NEURON_VENDOR_PTR_SIZE)
#define NEURON_IOCTL_DEVICE_RESET_STATUS	_NEURON_VIOR(106, 1)
#define NEURON_IOCTL_DRIVER_INFO_GET		\
	_NEURON_VIOR(110, sizeof(struct neuron_ioctl_device_driver_info))
#define NEURON_IOCTL_DRIVER_INFO_SET		\
	_NEURON_VIOW(110, sizeof(struct neuron_ioctl_device_driver_info))
#define NEURON_IOCTL_HOST_DEVICE_ID		\
	_NEURON_VIOR(114, sizeof(struct neuron_ioctl_host_device_id))

#endif /* _UAPI_NEURON_VENDOR_IOCTL_H */
