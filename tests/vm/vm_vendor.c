// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the vendor's ioctl ABI as this driver answers it
 * (docs/vendor-abi.md; tests/vm/45_vendor.sh).
 *
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=4 and
 * /dev/neuron0, /dev/neuron1 open to every user (mode 0666).
 *
 * Written only against the vendor's layouts: the structs and command
 * values below are typed here from them (magic 'N', x86_64, pointer-sized
 * commands encoded with size 8), never taken from this project's header
 * of the vendor's commands. The compile-time checks pin every number,
 * size and offset; the cases prove what the driver does with them:
 *
 *  - identity and info: architecture 2 and revision 0 on a simulated
 *    device, bar_address 0 and every unnamed byte 0, the device's own
 *    index, runtime versions 7..5, driver info with no feature, the
 *    retired commands, -EOPNOTSUPP / -EINVAL / -ENOTTY / -EFAULT where
 *    the vendor answers -ENOTSUPP, -1, -EINVAL or a positive count;
 *  - range marks: the vendor's measured two-process sequence, the bounds
 *    (start past the device's cores refused, end clamped), first fit
 *    without the vendor's skip after a busy core, and marks that end
 *    with the process's last close whichever fd made them;
 *  - one state behind both ABIs: a core marked through the vendor's
 *    command is busy for this driver's CORE_RESERVE and released by its
 *    CORE_RELEASE, and the other way round; both process listings agree;
 *  - NDS: the vendor's ACQUIRE_NEURON_DS hands out the slab and mmap
 *    cookie this driver's NDS_ACQUIRE does, counters added through one
 *    ABI show through the other's mapping and in sysfs, RELEASE folds
 *    them once, and another process only looks (read-only);
 *  - READ_HW_COUNTERS: the words FW_READ reads, bounded count, and only
 *    the identity words without CAP_SYS_ADMIN;
 *  - DEVICE_APP_PID and DEVICE_GET_ALL_APPS_INFO: the oldest opener,
 *    the list in open order, capacity honoured, records zeroed.
 *
 * Every case runs in a process of its own, and the processes it compares
 * ("agents") are its children, each with its own open of the device, so
 * whatever a failed case leaves ends with it.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>

#include "vmdev.h"

#define NDEV		2	/* sim_devices */
#define NC_COUNT	4	/* sim_nc_per_device */
#define ARCH_V2		2	/* what a simulated device reports */
#define NOBODY		65534

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

/* MiscRAM at its v2 device address: what a simulated device answers at */
#define MISC_V2		0x000FFFF0FA0000ULL
#define MISC_V3		0x00008006C84000ULL
#define MISC_API	0x00
#define MISC_DEVICE_ID	0x24
#define MISC_SERIAL_LO	0x38
#define MISC_SERIAL_HI	0x3C
#define HW_COUNT_MAX	1024

/* ---- small helpers ------------------------------------------------------- */

/* ioctl() as 0 (or its positive return) or -errno */
static long xioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static int open_dev(int dev, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/neuron%d", dev);
	return open(path, flags | O_CLOEXEC);
}

static const char *err(long r)
{
	return r < 0 ? strerror((int)-r) : r ? "a positive return" : "success";
}

static int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

static uint64_t nc_off(uint32_t nc, uint32_t id)
{
	return (uint64_t)neuron_nds_nc_offset(nc, id);
}

/* A page nothing may touch: arguments the driver cannot copy. */
static void *no_access_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- every case in a process of its own ----------------------------------- */

struct shared {
	char msg[512];	/* a failed case's message */
	char sub[512];	/* a failed sub-check's message (run_sub) */
};

static struct shared *sh;

static int run_isolated(int (*body)(void))
{
	pid_t pid;
	int st = 0, r;

	sh->msg[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		vt_fail_msg(__FILE__, __LINE__, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		alarm(120);
		vt_msg[0] = '\0';
		r = body();
		if (r)
			snprintf(sh->msg, sizeof(sh->msg), "%s",
				 vt_msg[0] ? vt_msg : "failed without a message");
		_exit(r ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/*
	 * The case's agents were reparented here (a child subreaper) when it
	 * ended; they end once their request pipe closes. Wait for them, so
	 * the next case starts with nothing of this one held.
	 */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(vt_msg, sizeof(vt_msg), "the case's process died of signal %d (%s)",
			 WTERMSIG(st), WTERMSIG(st) == SIGALRM ? "120 s" : "crash");
	else
		snprintf(vt_msg, sizeof(vt_msg), "%s", sh->msg);
	return -1;
}

#define ISOLATED(name)                              \
	static int name(void)                       \
	{                                           \
		return run_isolated(name##_body);   \
	}

/* why the last run_sub() failed */
static char sub_why[512];

/* Run @fn(@arg) in a forked child of the case: 0, or -1 with sub_why set. */
static int run_sub(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st = 0, r;

	sh->sub[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(sub_why, sizeof(sub_why), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		vt_msg[0] = '\0';
		r = fn(arg);
		if (r)
			snprintf(sh->sub, sizeof(sh->sub), "%s",
				 vt_msg[0] ? vt_msg : "failed without a message");
		_exit(r ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(sub_why, sizeof(sub_why), "the child died of signal %d", WTERMSIG(st));
	else
		snprintf(sub_why, sizeof(sub_why), "in the child: %.480s", sh->sub);
	return -1;
}

/* ---- agents: other processes, each with its own opens of the devices ------ */

#define AG_SLOTS	4
#define AG_ARG_MAX	1024

enum ag_op { AG_OPEN, AG_CLOSE, AG_IOCTL, AG_MMAP, AG_PEEK, AG_POKE, AG_EXIT };

struct ag_req {
	int op;
	int slot;		/* fd slot */
	int mslot;		/* mapping slot */
	int dev, flags, prot;
	unsigned long cmd;
	uint64_t off, val, len;
	unsigned char arg[AG_ARG_MAX];
};

struct ag_resp {
	long ret;		/* >= 0, or -errno */
	uint64_t val;
	unsigned char arg[AG_ARG_MAX];
};

struct agent {
	const char *name;	/* for the messages */
	pid_t pid;
	int req, resp;		/* the parent's ends */
};

static int write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	ssize_t r;

	while (n) {
		r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void agent_serve(int rfd, int wfd)
{
	static struct ag_req q;
	static struct ag_resp r;
	int fds[AG_SLOTS];
	void *maps[AG_SLOTS];
	size_t lens[AG_SLOTS];
	int i;

	for (i = 0; i < AG_SLOTS; i++) {
		fds[i] = -1;
		maps[i] = MAP_FAILED;
		lens[i] = 0;
	}
	while (read_full(rfd, &q, sizeof(q)) == 0) {
		memset(&r, 0, sizeof(r));
		if (q.slot < 0 || q.slot >= AG_SLOTS || q.mslot < 0 || q.mslot >= AG_SLOTS) {
			r.ret = -EBADF;
			goto answer;
		}
		switch (q.op) {
		case AG_OPEN:
			fds[q.slot] = open_dev(q.dev, q.flags);
			r.ret = fds[q.slot] < 0 ? -errno : 0;
			break;
		case AG_CLOSE:
			r.ret = close(fds[q.slot]) ? -errno : 0;
			fds[q.slot] = -1;
			break;
		case AG_IOCTL:
			memcpy(r.arg, q.arg, sizeof(r.arg));
			r.ret = xioctl(fds[q.slot], q.cmd, q.len ? r.arg : NULL);
			break;
		case AG_MMAP:
			maps[q.mslot] = mmap(NULL, q.len, q.prot, MAP_SHARED, fds[q.slot],
					     (off_t)q.off);
			lens[q.mslot] = q.len;
			r.ret = maps[q.mslot] == MAP_FAILED ? -errno : 0;
			break;
		case AG_PEEK:
		case AG_POKE:
			if (maps[q.mslot] == MAP_FAILED || q.off + 8 > lens[q.mslot]) {
				r.ret = -EINVAL;
				break;
			}
			if (q.op == AG_PEEK)
				r.val = *(volatile uint64_t *)((char *)maps[q.mslot] + q.off);
			else
				*(volatile uint64_t *)((char *)maps[q.mslot] + q.off) = q.val;
			break;
		case AG_EXIT:
			/* no unmark, no close: what the exit does is under test */
			_exit(0);
		default:
			r.ret = -EINVAL;
		}
answer:
		if (write_full(wfd, &r, sizeof(r)))
			break;
	}
	_exit(0);
}

/* Fork an agent; it keeps no file of the case but its own pipe ends. */
static int ag_start(struct agent *a, const char *name)
{
	int req[2], resp[2], fd;

	a->name = name;
	if (pipe(req) || pipe(resp))
		return -1;
	fflush(stdout);
	a->pid = fork();
	if (a->pid < 0)
		return -1;
	if (a->pid == 0) {
		for (fd = 3; fd < 1024; fd++)
			if (fd != req[0] && fd != resp[1])
				close(fd);
		agent_serve(req[0], resp[1]);
	}
	close(req[0]);
	close(resp[1]);
	a->req = req[1];
	a->resp = resp[0];
	return 0;
}

static struct ag_req ag_q;
static struct ag_resp ag_r;

/* Send ag_q, answer in ag_r: its ret, or -EPIPE when the agent is gone. */
static long ag_call(struct agent *a)
{
	if (write_full(a->req, &ag_q, sizeof(ag_q)) || read_full(a->resp, &ag_r, sizeof(ag_r)))
		return -EPIPE;
	return ag_r.ret;
}

static void ag_prep(int op, int slot)
{
	memset(&ag_q, 0, sizeof(ag_q));
	ag_q.op = op;
	ag_q.slot = slot;
}

static long ag_open(struct agent *a, int slot, int dev, int flags)
{
	ag_prep(AG_OPEN, slot);
	ag_q.dev = dev;
	ag_q.flags = flags;
	return ag_call(a);
}

static long ag_close(struct agent *a, int slot)
{
	ag_prep(AG_CLOSE, slot);
	return ag_call(a);
}

/* ioctl @cmd on the agent's fd @slot with a copy of @arg (@len bytes), copied back */
static long ag_ioctl(struct agent *a, int slot, unsigned long cmd, void *arg, size_t len)
{
	long r;

	if (len > AG_ARG_MAX)
		return -E2BIG;
	ag_prep(AG_IOCTL, slot);
	ag_q.cmd = cmd;
	ag_q.len = len;
	if (len)
		memcpy(ag_q.arg, arg, len);
	r = ag_call(a);
	if (r != -EPIPE && len)
		memcpy(arg, ag_r.arg, len);
	return r;
}

static long ag_mmap(struct agent *a, int slot, int mslot, uint64_t len, int prot, uint64_t off)
{
	ag_prep(AG_MMAP, slot);
	ag_q.mslot = mslot;
	ag_q.len = len;
	ag_q.prot = prot;
	ag_q.off = off;
	return ag_call(a);
}

static long ag_peek(struct agent *a, int mslot, uint64_t off, uint64_t *v)
{
	long r;

	ag_prep(AG_PEEK, 0);
	ag_q.mslot = mslot;
	ag_q.off = off;
	r = ag_call(a);
	*v = r ? UINT64_MAX : ag_r.val;
	return r;
}

static long ag_poke(struct agent *a, int mslot, uint64_t off, uint64_t v)
{
	ag_prep(AG_POKE, 0);
	ag_q.mslot = mslot;
	ag_q.off = off;
	ag_q.val = v;
	return ag_call(a);
}

/* The agent exits as it stands (nothing released first): true once reaped. */
static int ag_exit(struct agent *a)
{
	int st;

	ag_prep(AG_EXIT, 0);
	write_full(a->req, &ag_q, sizeof(ag_q));
	close(a->req);
	close(a->resp);
	return waitpid(a->pid, &st, 0) == a->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int ag_kill(struct agent *a)
{
	int st;

	kill(a->pid, SIGKILL);
	close(a->req);
	close(a->resp);
	return waitpid(a->pid, &st, 0) == a->pid && WIFSIGNALED(st);
}

/* ---- range marks through an agent ---------------------------------------- */

static void map_init(struct vnd_nc_map *m, uint32_t count, uint32_t start, uint32_t end)
{
	memset(m, 0, sizeof(*m));
	m->nc_count = count;
	m->start_nc_index = start;
	m->end_nc_index = end;
	/* outputs preset, so a copy back shows */
	m->max_nc_available = 0xFFFFFFFFu;
	m->bitmap = 0xFFFFFFFF00000000ULL;
}

static long ag_mark(struct agent *a, int slot, uint32_t count, uint32_t start, uint32_t end,
		    struct vnd_nc_map *m)
{
	map_init(m, count, start, end);
	return ag_ioctl(a, slot, VND_CRWL_NC_RANGE_MARK, m, sizeof(*m));
}

static long ag_unmark(struct agent *a, int slot, uint64_t bitmap)
{
	struct vnd_nc_map m;

	memset(&m, 0, sizeof(m));
	m.bitmap = bitmap;
	return ag_ioctl(a, slot, VND_CRWL_NC_RANGE_UNMARK, &m, sizeof(m));
}

static long ag_core(struct agent *a, int slot, unsigned long cmd, uint32_t nc)
{
	struct neuron_core_reserve r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = nc;
	return ag_ioctl(a, slot, cmd, &r, sizeof(r));
}

/* Mark @count of @start..@end and expect exactly @bitmap. */
#define MARK_OK(a, slot, count, start, end, want)                                      \
	do {                                                                           \
		struct vnd_nc_map m_;                                                  \
		long r_ = ag_mark(a, slot, count, start, end, &m_);                    \
		VT_ASSERT(r_ == 0 && m_.bitmap == (want),                              \
			  "%s: mark %u of %u..%u: %s, bitmap %#llx, expected %#llx",   \
			  (a)->name, (unsigned)(count), (unsigned)(start),             \
			  (unsigned)(end), err(r_), (unsigned long long)m_.bitmap,     \
			  (unsigned long long)(want));                                 \
	} while (0)

/* Mark @count of @start..@end and expect -EBUSY with max_nc_available @max. */
#define MARK_BUSY(a, slot, count, start, end, max)                                     \
	do {                                                                           \
		struct vnd_nc_map m_;                                                  \
		long r_ = ag_mark(a, slot, count, start, end, &m_);                    \
		VT_ASSERT(r_ == -EBUSY && m_.max_nc_available == (max),                \
			  "%s: mark %u of %u..%u: %s (bitmap %#llx), "                 \
			  "max_nc_available %u, expected EBUSY with %u", (a)->name,    \
			  (unsigned)(count), (unsigned)(start), (unsigned)(end),       \
			  err(r_), (unsigned long long)m_.bitmap, m_.max_nc_available, \
			  (unsigned)(max));                                            \
	} while (0)

/* ---- this driver's process listing ---------------------------------------- */

/*
 * The NeuronCores this driver's APPS_INFO lists for @pid on @dev (through
 * a short open of the caller's), UINT32_MAX when it is not listed.
 */
static uint32_t own_nc_map(int dev, pid_t pid)
{
	struct neuron_apps_info a;
	uint32_t i, map = UINT32_MAX;
	int fd = open_dev(dev, O_RDWR);

	if (fd < 0)
		return UINT32_MAX;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (ioctl(fd, NEURON_IOCTL_APPS_INFO, &a) == 0)
		for (i = 0; i < a.count; i++)
			if (a.app[i].pid == pid)
				map = a.app[i].nc_map;
	close(fd);
	return map;
}

static long vnd_apps(int fd, unsigned int flags, unsigned int capacity, struct vnd_apps_buf *b)
{
	memset(&b->hdr, 0, sizeof(b->hdr));
	b->hdr.apps_info_flags = (__u16)flags;
	b->hdr.capacity = capacity;
	b->hdr.size = 0xFFFFFFFFu;
	return xioctl(fd, VND_DEVICE_GET_ALL_APPS_INFO, b);
}

/* ==== 1. the commands are answered, on every kind of fd ==================== */

/*
 * The identity commands answer 0 on both devices through O_RDONLY,
 * O_WRONLY and O_RDWR fds (the vendor answers only some of them on an
 * O_WRONLY fd); this driver's own GET_INFO still answers beside them.
 */
static int commands_answered_on_any_fd_body(void)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	static const char *const names[] = { "O_RDONLY", "O_WRONLY", "O_RDWR" };
	struct vnd_device_basic_info bi;
	struct vnd_device_info di;
	struct vnd_host_device_id hid;
	struct vnd_compatible_version cv;
	struct vnd_driver_info drv;
	struct neuron_info info;
	__u8 u8v;
	__s32 pid;
	unsigned int m;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		for (m = 0; m < VT_COUNT(modes); m++) {
			fd = open_dev(dev, modes[m]);
			VT_ASSERT(fd >= 0, "open neuron%d %s: %s", dev, names[m], strerror(errno));
#define ANSWERS(cmd, arg)                                                              \
	do {                                                                           \
		r = xioctl(fd, cmd, arg);                                              \
		VT_ASSERT(r == 0, "neuron%d %s: " #cmd ": %s", dev, names[m], err(r)); \
	} while (0)
			ANSWERS(VND_DEVICE_BASIC_INFO, &bi);
			ANSWERS(VND_DEVICE_INFO, &di);
			ANSWERS(VND_HOST_DEVICE_ID, &hid);
			ANSWERS(VND_COMPATIBLE_VERSION, &cv);
			ANSWERS(VND_DRIVER_INFO_GET, &drv);
			ANSWERS(VND_DEVICE_READY, &u8v);
			ANSWERS(VND_DEVICE_RESET_STATUS, &u8v);
			ANSWERS(VND_DEVICE_APP_PID, &pid);
#undef ANSWERS
			close(fd);
		}
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		r = xioctl(fd, NEURON_IOCTL_GET_INFO, &info);
		VT_ASSERT(r == 0, "own GET_INFO beside the vendor's ABI: %s", err(r));
		VT_ASSERT(info.device_index == (__u32)dev && info.nc_count == NC_COUNT &&
			  info.backend == NEURON_BACKEND_SIM,
			  "GET_INFO: index %u, %u cores, backend %u", info.device_index,
			  info.nc_count, info.backend);
		close(fd);
	}
	return 0;
}
ISOLATED(commands_answered_on_any_fd)

/* ==== 2. identity and info =============================================== */

/* DEVICE_BASIC_INFO: this fd's device, architecture 2 and revision 0 (simulated). */
static int basic_info_arch_revision_body(void)
{
	struct vnd_device_basic_info bi;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&bi, 0xAA, sizeof(bi));
		r = xioctl(fd, VND_DEVICE_BASIC_INFO, &bi);
		VT_ASSERT(r == 0, "neuron%d: %s", dev, err(r));
		VT_ASSERT(bi.architecture == ARCH_V2 && bi.revision == 0,
			  "neuron%d: architecture %u revision %u, expected 2 and 0", dev,
			  bi.architecture, bi.revision);
		close(fd);
	}
	return 0;
}
ISOLATED(basic_info_arch_revision)

/* sysfs connected_devices of @dev as the ", "-separated text it shows */
static int sysfs_links(int dev, char *buf, size_t len)
{
	char path[128];
	size_t n;
	int e;

	snprintf(path, sizeof(path), VT_SYSFS_DEV "/connected_devices", dev);
	e = vt_read_file(path, buf, len);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return e;
}

/*
 * DEVICE_INFO: the same architecture and revision, the links of sysfs
 * connected_devices (two simulated devices: each other), bar_address 0
 * (never a kernel address), bar_size 0 on a simulated device, and every
 * byte not named 0: the padding at 44..47 and the entries past the count.
 */
static int device_info_zeroed_body(void)
{
	struct vnd_device_info di;
	const unsigned char *raw = (const unsigned char *)&di;
	char links[64], shown[64];
	unsigned int i;
	size_t n;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&di, 0xAA, sizeof(di));
		r = xioctl(fd, VND_DEVICE_INFO, &di);
		VT_ASSERT(r == 0, "neuron%d: %s", dev, err(r));
		VT_ASSERT(di.architecture == ARCH_V2 && di.revision == 0,
			  "neuron%d: architecture %u revision %u", dev, di.architecture,
			  di.revision);
		VT_ASSERT(di.bar_address[0] == 0 && di.bar_address[1] == 0,
			  "neuron%d: bar_address %#llx %#llx, expected 0 (no kernel address)", dev,
			  (unsigned long long)di.bar_address[0],
			  (unsigned long long)di.bar_address[1]);
		VT_ASSERT(di.bar_size[0] == 0 && di.bar_size[1] == 0,
			  "neuron%d: bar_size %#llx %#llx on a simulated device", dev,
			  (unsigned long long)di.bar_size[0], (unsigned long long)di.bar_size[1]);
		VT_ASSERT(all_bytes(raw + 44, 4, 0), "neuron%d: padding 44..47 %02x %02x %02x %02x",
			  dev, raw[44], raw[45], raw[46], raw[47]);
		VT_ASSERT(di.connected_device_count <= VND_MAX_CONNECTED, "count %u",
			  di.connected_device_count);
		for (i = di.connected_device_count; i < VND_MAX_CONNECTED; i++)
			VT_ASSERT(di.connected_devices[i] == 0,
				  "neuron%d: connected_devices[%u] = %#x past the count %u", dev, i,
				  di.connected_devices[i], di.connected_device_count);
		/* two simulated devices are linked to each other */
		VT_ASSERT(di.connected_device_count == 1 &&
			  di.connected_devices[0] == (__u32)(NDEV - 1 - dev),
			  "neuron%d: %u links, first %u; expected one, to neuron%d", dev,
			  di.connected_device_count, di.connected_devices[0], NDEV - 1 - dev);
		VT_ASSERT(sysfs_links(dev, links, sizeof(links)) == 0, "sysfs connected_devices");
		shown[0] = '\0';
		for (i = 0, n = 0; i < di.connected_device_count && n < sizeof(shown); i++)
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "%s%u", i ? ", " : "",
					      di.connected_devices[i]);
		VT_ASSERT(!strcmp(shown, links), "neuron%d: DEVICE_INFO links '%s', sysfs '%s'",
			  dev, shown, links);
		close(fd);
	}
	return 0;
}
ISOLATED(device_info_zeroed)

/* HOST_DEVICE_ID: N of /dev/neuronN, as GET_INFO's device_index. */
static int host_device_id_is_index_body(void)
{
	struct vnd_host_device_id hid;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&hid, 0xAA, sizeof(hid));
		r = xioctl(fd, VND_HOST_DEVICE_ID, &hid);
		VT_ASSERT(r == 0 && hid.host_device_id == (__u32)dev,
			  "neuron%d: %s, host_device_id %u", dev, err(r), hid.host_device_id);
		close(fd);
	}
	return 0;
}
ISOLATED(host_device_id_is_index)

/* COMPATIBLE_VERSION: max 7 then min 5, in that order. */
static int compatible_version_body(void)
{
	struct vnd_compatible_version cv;
	__u32 raw[2];
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&cv, 0xAA, sizeof(cv));
	r = xioctl(fd, VND_COMPATIBLE_VERSION, &cv);
	VT_ASSERT(r == 0, "%s", err(r));
	memcpy(raw, &cv, sizeof(raw));
	VT_ASSERT(cv.max == 7 && cv.min == 5 && raw[0] == 7 && raw[1] == 5,
		  "max %u min %u (words %u %u), expected 7 then 5", cv.max, cv.min, raw[0], raw[1]);
	close(fd);
	return 0;
}
ISOLATED(compatible_version)

/* DRIVER_INFO_GET: architecture 2, revision 0, version 0, size 24, no feature. */
static int driver_info_get_body(void)
{
	struct vnd_driver_info d;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&d, 0xAA, sizeof(d));
		r = xioctl(fd, VND_DRIVER_INFO_GET, &d);
		VT_ASSERT(r == 0, "neuron%d: %s", dev, err(r));
		VT_ASSERT(d.architecture == ARCH_V2 && d.revision == 0 && d.version == 0 &&
			  d.size == 24 && d.feature_flags1 == 0,
			  "neuron%d: architecture %u revision %u version %u size %u flags %#llx",
			  dev, d.architecture, d.revision, d.version, d.size,
			  (unsigned long long)d.feature_flags1);
		close(fd);
	}
	return 0;
}
ISOLATED(driver_info_get)

/*
 * Number 110 is matched on the number: DRIVER_INFO_SET -EOPNOTSUPP (not
 * 524); READ|WRITE, READ with a size under 24 and no direction -EINVAL;
 * READ with 32 copies 24 bytes and leaves the rest alone.
 */
static int driver_info_encodings_body(void)
{
	struct vnd_driver_info d;
	unsigned char big[32];
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&d, 0, sizeof(d));
	r = xioctl(fd, VND_DRIVER_INFO_SET, &d);
	VT_ASSERT(r == -EOPNOTSUPP, "DRIVER_INFO_SET: %s (%ld), expected EOPNOTSUPP", err(r), r);
	memset(&d, 0, sizeof(d));
	r = xioctl(fd, VND_CMD(VND_DIR_RW, 110, 24), &d);
	VT_ASSERT(r == -EINVAL, "nr 110 READ|WRITE: %s, expected EINVAL", err(r));
	memset(&d, 0, sizeof(d));
	r = xioctl(fd, VND_CMD(VND_DIR_R, 110, 16), &d);
	VT_ASSERT(r == -EINVAL, "nr 110 READ size 16: %s, expected EINVAL", err(r));
	r = xioctl(fd, VND_CMD(VND_DIR_NONE, 110, 0), NULL);
	VT_ASSERT(r == -EINVAL, "nr 110 without direction: %s, expected EINVAL", err(r));
	memset(big, 0xAA, sizeof(big));
	r = xioctl(fd, VND_CMD(VND_DIR_R, 110, 32), big);
	VT_ASSERT(r == 0, "nr 110 READ size 32: %s", err(r));
	memcpy(&d, big, sizeof(d));
	VT_ASSERT(d.architecture == ARCH_V2 && d.size == 24,
		  "READ size 32: architecture %u size %u", d.architecture, d.size);
	VT_ASSERT(all_bytes(big + 24, 8, 0xAA), "READ size 32 wrote past the 24 bytes");
	close(fd);
	return 0;
}
ISOLATED(driver_info_encodings)

/*
 * DEVICE_BDF and DEVICE_BDF_EXT: a simulated device has no PCI function
 * (-EOPNOTSUPP); BDF_EXT's nd_index counts from the fd's device, and an
 * index naming no device is -ENODEV.
 */
static int bdf_unsupported_on_simulated_body(void)
{
	struct vnd_device_bdf b;
	struct vnd_device_bdf_ext x;
	int fd0 = open_dev(0, O_RDWR), fd1 = open_dev(1, O_RDWR);
	long r;

	VT_ASSERT(fd0 >= 0 && fd1 >= 0, "open");
	memset(&b, 0, sizeof(b));
	r = xioctl(fd0, VND_DEVICE_BDF, &b);
	VT_ASSERT(r == -EOPNOTSUPP, "DEVICE_BDF: %s, expected EOPNOTSUPP", err(r));
	memset(&x, 0, sizeof(x));
	r = xioctl(fd0, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -EOPNOTSUPP, "DEVICE_BDF_EXT 0 on neuron0: %s, expected EOPNOTSUPP", err(r));
	memset(&x, 0, sizeof(x));
	x.nd_index = 1;
	r = xioctl(fd0, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -EOPNOTSUPP,
		  "DEVICE_BDF_EXT 1 on neuron0 (neuron1): %s, expected EOPNOTSUPP", err(r));
	memset(&x, 0, sizeof(x));
	x.nd_index = 1;
	r = xioctl(fd1, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -ENODEV, "DEVICE_BDF_EXT 1 on neuron1 (no neuron2): %s, expected ENODEV",
		  err(r));
	memset(&x, 0, sizeof(x));
	x.nd_index = 40;
	r = xioctl(fd0, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -ENODEV, "DEVICE_BDF_EXT 40: %s, expected ENODEV", err(r));
	close(fd0);
	close(fd1);
	return 0;
}
ISOLATED(bdf_unsupported_on_simulated)

/* DEVICE_READY and DEVICE_RESET_STATUS: u8 1 on a ready device. */
static int ready_and_reset_status_body(void)
{
	__u8 v[2];
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(v, 0xAA, sizeof(v));
		r = xioctl(fd, VND_DEVICE_READY, v);
		VT_ASSERT(r == 0 && v[0] == 1 && v[1] == 0xAA, "neuron%d DEVICE_READY: %s, %u", dev,
			  err(r), v[0]);
		memset(v, 0xAA, sizeof(v));
		r = xioctl(fd, VND_DEVICE_RESET_STATUS, v);
		VT_ASSERT(r == 0 && v[0] == 1 && v[1] == 0xAA,
			  "neuron%d DEVICE_RESET_STATUS: %s, %u", dev, err(r), v[0]);
		close(fd);
	}
	return 0;
}
ISOLATED(ready_and_reset_status)

/* The retired commands: INIT, RELEASE, DESTROY_V1 0; QUEUE_INFO -EOPNOTSUPP (not -1). */
static int retired_commands_body(void)
{
	struct vnd_notifications_destroy nd;
	struct vnd_notifications_queue_info qi;
	__u64 init_arg = 0;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	r = xioctl(fd, VND_DEVICE_INIT, &init_arg);
	VT_ASSERT(r == 0, "DEVICE_INIT: %s", err(r));
	r = xioctl(fd, VND_DEVICE_RELEASE, NULL);
	VT_ASSERT(r == 0, "DEVICE_RELEASE: %s", err(r));
	memset(&nd, 0, sizeof(nd));
	r = xioctl(fd, VND_NOTIFICATIONS_DESTROY_V1, &nd);
	VT_ASSERT(r == 0, "NOTIFICATIONS_DESTROY_V1: %s", err(r));
	memset(&qi, 0, sizeof(qi));
	r = xioctl(fd, VND_NOTIFICATIONS_QUEUE_INFO, &qi);
	VT_ASSERT(r == -EOPNOTSUPP, "NOTIFICATIONS_QUEUE_INFO: %s (%ld), expected EOPNOTSUPP",
		  err(r), r);
	close(fd);
	return 0;
}
ISOLATED(retired_commands)

/*
 * Commands of magic 'N' below 0xC0 this driver does not answer: -ENOTTY
 * (the vendor: -EINVAL). Also a known number with another direction:
 * the commands are matched on their whole value.
 */
static int unknown_commands_enotty_body(void)
{
	static const unsigned long cmds[] = {
		VND_CMD(VND_DIR_R, 60, 8),		/* no vendor command */
		VND_BAR_READ,				/* 11, not answered */
		VND_CMD(VND_DIR_RW, 0xBF, 8),		/* the last number below 0xC0 */
		VND_CMD(VND_DIR_R, 100, 8),		/* DEVICE_BASIC_INFO read, not write */
	};
	unsigned char buf[64];
	unsigned int i;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < VT_COUNT(cmds); i++) {
		memset(buf, 0, sizeof(buf));
		r = xioctl(fd, cmds[i], buf);
		VT_ASSERT(r == -ENOTTY, "command %#lx: %s (%ld), expected ENOTTY", cmds[i], err(r),
			  r);
	}
	close(fd);
	return 0;
}
ISOLATED(unknown_commands_enotty)

/*
 * An argument the driver cannot copy is -EFAULT (ioctl -1 with errno
 * EFAULT), never the vendor's positive count of bytes not copied: the
 * struct itself, READ_HW_COUNTERS' address array, and the records of
 * DEVICE_GET_ALL_APPS_INFO past the caller's buffer.
 */
static int bad_pointer_efault_body(void)
{
	static const unsigned long cmds[] = {
		VND_DEVICE_BASIC_INFO, VND_DEVICE_INFO, VND_HOST_DEVICE_ID,
		VND_COMPATIBLE_VERSION, VND_DRIVER_INFO_GET, VND_DEVICE_READY,
		VND_DEVICE_RESET_STATUS, VND_DEVICE_APP_PID, VND_DEVICE_GET_ALL_APPS_INFO,
		VND_CRWL_NC_RANGE_MARK, VND_CRWL_NC_RANGE_MARK_EXT0, VND_CRWL_NC_RANGE_UNMARK,
		VND_ACQUIRE_NEURON_DS, VND_RELEASE_NEURON_DS, VND_READ_HW_COUNTERS,
	};
	struct vnd_read_hw_counters hc;
	struct vnd_apps_hdr *h;
	unsigned char *two;
	__u32 data[1];
	void *bad = no_access_page();
	unsigned int i;
	int fd = open_dev(0, O_RDWR);

	VT_ASSERT(fd >= 0 && bad, "open, or the PROT_NONE page");
	for (i = 0; i < VT_COUNT(cmds); i++) {
		errno = 0;
		long r = ioctl(fd, cmds[i], bad);

		VT_ASSERT(r == -1 && errno == EFAULT,
			  "command %#lx on an unreadable argument: %ld/%s", cmds[i], r,
			  strerror(errno));
	}
	memset(&hc, 0, sizeof(hc));
	hc.address = (uintptr_t)bad;
	hc.data = (uintptr_t)data;
	hc.count = 1;
	VT_ASSERT_ERRNO(ioctl(fd, VND_READ_HW_COUNTERS, &hc), EFAULT);

	/* a header at the end of a page, its records in a PROT_NONE page */
	two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(two != MAP_FAILED && mprotect(two + 4096, 4096, PROT_NONE) == 0, "pages");
	h = (struct vnd_apps_hdr *)(two + 4096 - sizeof(*h));
	memset(h, 0, sizeof(*h));
	h->apps_info_flags = VND_APPS_FLAG_NC_LOCK;
	h->capacity = 4;
	VT_ASSERT_ERRNO(ioctl(fd, VND_DEVICE_GET_ALL_APPS_INFO, h), EFAULT);
	munmap(two, 8192);
	close(fd);
	return 0;
}
ISOLATED(bad_pointer_efault)

/* ==== 3. range marks ===================================================== */

/*
 * The vendor's measured sequence: A marks 1 of 0..1 (0x1); B asks core 0
 * alone (EBUSY, max 0 copied back), 2 of 0..1 (EBUSY, max 1), 1 of 0..1
 * (0x2). B's unmark of A's core answers 0 and the core stays A's.
 */
static int range_mark_sequence_body(void)
{
	struct agent a, b;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 1, 0x1);
	MARK_BUSY(&b, 0, 1, 0, 0, 0);
	MARK_BUSY(&b, 0, 2, 0, 1, 1);
	MARK_OK(&b, 0, 1, 0, 1, 0x2);
	VT_ASSERT(ag_unmark(&b, 0, 0x1) == 0, "B unmarking A's core: not 0");
	MARK_BUSY(&b, 0, 1, 0, 0, 0);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x1 && own_nc_map(0, b.pid) == 0x2,
		  "APPS_INFO: A %#x B %#x, expected 0x1 and 0x2", own_nc_map(0, a.pid),
		  own_nc_map(0, b.pid));
	return 0;
}
ISOLATED(range_mark_sequence)

/*
 * nc_count 0 marks nothing (0); start above end, or start past the
 * device's last core (3), -EINVAL; an end past the last core reads as the
 * last core; unmark ignores bits past the device's cores.
 */
static int range_mark_bounds_body(void)
{
	struct vnd_nc_map m;
	struct agent a;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_RDWR) == 0, "agent");
	r = ag_mark(&a, 0, 0, 0, 3, &m);
	VT_ASSERT(r == 0 && m.bitmap == 0, "nc_count 0: %s, bitmap %#llx", err(r),
		  (unsigned long long)m.bitmap);
	VT_ASSERT(own_nc_map(0, a.pid) == 0, "nc_count 0 marked %#x", own_nc_map(0, a.pid));
	r = ag_mark(&a, 0, 1, 2, 1, &m);
	VT_ASSERT(r == -EINVAL, "start 2 > end 1: %s", err(r));
	r = ag_mark(&a, 0, 1, NC_COUNT, NC_COUNT, &m);
	VT_ASSERT(r == -EINVAL, "start 4 (the device has 4 cores): %s", err(r));
	r = ag_mark(&a, 0, 1, NC_COUNT, 100, &m);
	VT_ASSERT(r == -EINVAL, "start 4, end 100: %s", err(r));
	r = ag_mark(&a, 0, 1, 8, 8, &m);
	VT_ASSERT(r == -EINVAL, "start 8 (another device's core for the vendor): %s", err(r));
	VT_ASSERT(own_nc_map(0, a.pid) == 0, "a refused mark marked %#x", own_nc_map(0, a.pid));
	MARK_OK(&a, 0, 1, 2, 100, 0x4);
	MARK_OK(&a, 0, 1, 3, 100, 0x8);
	/* cores 2 and 3 are the caller's own: taken */
	MARK_BUSY(&a, 0, 1, 2, 100, 0);
	MARK_BUSY(&a, 0, 3, 0, 100, 2);
	r = ag_unmark(&a, 0, 0xF0ULL | 0x4);
	VT_ASSERT(r == 0, "unmark with bits past the device's cores: %s", err(r));
	VT_ASSERT(own_nc_map(0, a.pid) == 0x8, "after unmarking core 2: %#x, expected 0x8",
		  own_nc_map(0, a.pid));
	return 0;
}
ISOLATED(range_mark_bounds)

/* The EXT0 commands: the same with bitmap[8]; only bitmap[0] names cores here. */
static int range_mark_ext0_body(void)
{
	struct vnd_nc_map_ext x;
	struct agent a, b;
	unsigned int i;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	memset(&x, 0xFF, sizeof(x));
	x.nc_count = 2;
	x.start_nc_index = 0;
	x.end_nc_index = 3;
	r = ag_ioctl(&a, 0, VND_CRWL_NC_RANGE_MARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == 0 && x.bitmap[0] == 0x3, "EXT0 2 of 0..3: %s, bitmap[0] %#llx", err(r),
		  (unsigned long long)x.bitmap[0]);
	for (i = 1; i < VND_NC_MAP_EXT_WORDS; i++)
		VT_ASSERT(x.bitmap[i] == 0, "EXT0 bitmap[%u] = %#llx", i,
			  (unsigned long long)x.bitmap[i]);
	MARK_OK(&b, 0, 1, 0, 3, 0x4);
	memset(&x, 0, sizeof(x));
	x.nc_count = 2;
	x.end_nc_index = 3;
	x.max_nc_available = 0xFFFFFFFFu;
	r = ag_ioctl(&b, 0, VND_CRWL_NC_RANGE_MARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == -EBUSY && x.max_nc_available == 1, "EXT0 2 of 0..3 for B: %s, max %u",
		  err(r), x.max_nc_available);
	memset(&x, 0, sizeof(x));
	x.bitmap[0] = 0x1;
	r = ag_ioctl(&a, 0, VND_CRWL_NC_RANGE_UNMARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == 0, "UNMARK_EXT0: %s", err(r));
	VT_ASSERT(own_nc_map(0, a.pid) == 0x2, "A after UNMARK_EXT0 of core 0: %#x",
		  own_nc_map(0, a.pid));
	memset(&x, 0, sizeof(x));
	x.nc_count = 1;
	r = ag_ioctl(&b, 0, VND_CRWL_NC_RANGE_MARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == 0 && x.bitmap[0] == 0x1, "B EXT0 core 0 after A's unmark: %s, %#llx",
		  err(r), (unsigned long long)x.bitmap[0]);
	return 0;
}
ISOLATED(range_mark_ext0)

/*
 * First fit without the vendor's skip: the core right after a busy one
 * is considered. Core 1 busy, 2 and 3 free: 2 of 0..3 is 0xC (the vendor
 * refuses). Cores 0 and 3 busy: 0x6. Core 2 busy: the lowest run, 0x3.
 */
static int range_mark_first_fit_no_skip_body(void)
{
	struct agent a, b;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 1, 1, 0x2);
	MARK_OK(&b, 0, 2, 0, 3, 0xC);
	VT_ASSERT(ag_unmark(&a, 0, 0xF) == 0 && ag_unmark(&b, 0, 0xF) == 0, "unmark all");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	MARK_OK(&a, 0, 1, 3, 3, 0x8);
	MARK_OK(&b, 0, 2, 0, 3, 0x6);
	VT_ASSERT(ag_unmark(&a, 0, 0xF) == 0 && ag_unmark(&b, 0, 0xF) == 0, "unmark all");
	MARK_OK(&a, 0, 1, 2, 2, 0x4);
	MARK_OK(&b, 0, 2, 0, 3, 0x3);
	return 0;
}
ISOLATED(range_mark_first_fit_no_skip)

/*
 * A core the caller holds counts as taken; indexes are device-relative:
 * core 0 of neuron1 is free while core 0 of neuron0 is marked.
 */
static int range_mark_own_and_per_device_body(void)
{
	struct agent a, b;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 1, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	MARK_BUSY(&a, 0, 1, 0, 0, 0);
	MARK_OK(&a, 0, 1, 0, 1, 0x2);
	MARK_OK(&b, 0, 1, 0, 0, 0x1);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x3 && own_nc_map(1, b.pid) == 0x1,
		  "APPS_INFO: A on neuron0 %#x, B on neuron1 %#x", own_nc_map(0, a.pid),
		  own_nc_map(1, b.pid));
	VT_ASSERT(ag_unmark(&a, 0, 0x1) == 0, "A unmark");
	VT_ASSERT(own_nc_map(1, b.pid) == 0x1 && own_nc_map(0, a.pid) == 0x2,
		  "unmark on neuron0 changed neuron1: %#x / %#x", own_nc_map(1, b.pid),
		  own_nc_map(0, a.pid));
	return 0;
}
ISOLATED(range_mark_own_and_per_device)

/* ==== 4. one state behind both ABIs ======================================= */

/* A core marked through the vendor's command is busy for CORE_RESERVE, and the reverse. */
static int cross_mark_and_reserve_exclude_body(void)
{
	struct agent a, b;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 0);
	VT_ASSERT(r == -EBUSY, "B CORE_RESERVE of A's marked core: %s, expected EBUSY", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 1);
	VT_ASSERT(r == 0, "B CORE_RESERVE 1: %s", err(r));
	MARK_BUSY(&a, 0, 1, 1, 1, 0);
	/* 0 is A's own, 1 is B's: the first fit is core 2 */
	MARK_OK(&a, 0, 1, 0, 3, 0x4);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x5 && own_nc_map(0, b.pid) == 0x2,
		  "APPS_INFO: A %#x B %#x", own_nc_map(0, a.pid), own_nc_map(0, b.pid));
	return 0;
}
ISOLATED(cross_mark_and_reserve_exclude)

/*
 * CORE_RELEASE frees a core marked through the vendor's command; the
 * vendor's UNMARK frees a core reserved with CORE_RESERVE.
 */
static int cross_release_either_way_body(void)
{
	struct agent a, b;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	r = ag_core(&a, 0, NEURON_IOCTL_CORE_RELEASE, 0);
	VT_ASSERT(r == 0, "A CORE_RELEASE of its marked core: %s", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 0);
	VT_ASSERT(r == 0, "B CORE_RESERVE of the released core: %s", err(r));
	r = ag_core(&a, 0, NEURON_IOCTL_CORE_RELEASE, 0);
	VT_ASSERT(r == -ENOENT, "A CORE_RELEASE of B's core: %s, expected ENOENT", err(r));
	r = ag_core(&a, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == 0, "A CORE_RESERVE 2: %s", err(r));
	MARK_BUSY(&b, 0, 1, 2, 2, 0);
	VT_ASSERT(ag_unmark(&a, 0, 0x4) == 0, "A UNMARK of its reserved core");
	VT_ASSERT(own_nc_map(0, a.pid) == 0, "A still holds %#x", own_nc_map(0, a.pid));
	MARK_OK(&b, 0, 1, 2, 2, 0x4);
	return 0;
}
ISOLATED(cross_release_either_way)

/*
 * APPS_INFO and DEVICE_GET_ALL_APPS_INFO (flag 1) list the same processes
 * in the same order with the same cores: nc_map = nc_lock_map, marks and
 * reservations alike.
 */
static int cross_apps_info_agree_body(void)
{
	static struct vnd_apps_buf vb;
	struct neuron_apps_info oa;
	struct agent a, b;
	uint32_t i;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 2, 1, 3, 0x6);
	VT_ASSERT(ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 0) == 0, "B CORE_RESERVE 0");
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	memset(&oa, 0, sizeof(oa));
	oa.size = sizeof(oa);
	r = xioctl(fd, NEURON_IOCTL_APPS_INFO, &oa);
	VT_ASSERT(r == 0, "APPS_INFO: %s", err(r));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0, "DEVICE_GET_ALL_APPS_INFO: %s", err(r));
	VT_ASSERT(oa.count == 3 && vb.hdr.size == oa.count,
		  "APPS_INFO lists %u, the vendor's %u; expected 3 (A, B, this process)", oa.count,
		  vb.hdr.size);
	for (i = 0; i < oa.count; i++)
		VT_ASSERT(vb.app[i].pid == oa.app[i].pid &&
			  vb.app[i].nc_lock_map == oa.app[i].nc_map,
			  "entry %u: vendor pid %d map %#x, own pid %d map %#x", i, vb.app[i].pid,
			  vb.app[i].nc_lock_map, oa.app[i].pid, oa.app[i].nc_map);
	VT_ASSERT(oa.app[0].pid == a.pid && oa.app[0].nc_map == 0x6 && oa.app[1].pid == b.pid &&
		  oa.app[1].nc_map == 0x1 && oa.app[2].pid == getpid() && oa.app[2].nc_map == 0,
		  "expected A 0x6, B 0x1, this process 0: got %d %#x, %d %#x, %d %#x",
		  oa.app[0].pid, oa.app[0].nc_map, oa.app[1].pid, oa.app[1].nc_map, oa.app[2].pid,
		  oa.app[2].nc_map);
	close(fd);
	return 0;
}
ISOLATED(cross_apps_info_agree)

/* ==== 5. marks end with the process, whichever fd made them ================ */

static int marks_end_at_exit(int flags)
{
	struct agent a, a2, b;
	long r;

	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "agent B");
	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, flags) == 0, "agent A");
	MARK_OK(&a, 0, 1, 3, 3, 0x8);
	MARK_BUSY(&b, 0, 1, 3, 3, 0);
	VT_ASSERT(ag_exit(&a), "A did not exit");
	MARK_OK(&b, 0, 1, 3, 3, 0x8);

	VT_ASSERT(ag_start(&a2, "A2") == 0 && ag_open(&a2, 0, 0, flags) == 0, "agent A2");
	MARK_OK(&a2, 0, 1, 2, 2, 0x4);
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == -EBUSY, "B CORE_RESERVE of A2's core: %s", err(r));
	VT_ASSERT(ag_exit(&a2), "A2 did not exit");
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == 0, "B CORE_RESERVE after A2's exit: %s (its mark outlived it)", err(r));
	return 0;
}

/* Marked through an O_RDWR fd, not unmarked, the process exits: the core is free. */
static int marks_end_at_exit_rdwr_body(void)
{
	return marks_end_at_exit(O_RDWR);
}
ISOLATED(marks_end_at_exit_rdwr)

/* The same through an O_WRONLY fd. */
static int marks_end_at_exit_wronly_body(void)
{
	return marks_end_at_exit(O_WRONLY);
}
ISOLATED(marks_end_at_exit_wronly)

/*
 * A mark lasts until its process's last close, not the close of the fd
 * that made it (the vendor releases them at every O_WRONLY close), and a
 * SIGKILLed process's marks end too.
 */
static int marks_end_at_last_close_body(void)
{
	struct agent a, b, c;

	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "agent B");
	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_WRONLY) == 0 &&
		  ag_open(&a, 1, 0, O_RDWR) == 0, "agent A");
	MARK_OK(&a, 0, 1, 1, 1, 0x2);
	VT_ASSERT(ag_close(&a, 0) == 0, "A closes its O_WRONLY fd");
	MARK_BUSY(&b, 0, 1, 1, 1, 0);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x2, "A's core after closing one of two fds: %#x",
		  own_nc_map(0, a.pid));
	VT_ASSERT(ag_close(&a, 1) == 0, "A closes its last fd");
	MARK_OK(&b, 0, 1, 1, 1, 0x2);

	VT_ASSERT(ag_start(&c, "C") == 0 && ag_open(&c, 0, 0, O_RDWR) == 0, "agent C");
	MARK_OK(&c, 0, 1, 0, 0, 0x1);
	VT_ASSERT(ag_kill(&c), "C was not killed");
	MARK_OK(&b, 0, 1, 0, 0, 0x1);
	return 0;
}
ISOLATED(marks_end_at_last_close)

/*
 * Through a file another process opened (inherited across fork), the
 * commands that create state for the caller's process are -EACCES;
 * identity commands still answer.
 */
static int inherited_child(void *arg)
{
	int fd = *(int *)arg;
	struct neuron_core_reserve cr;
	struct vnd_device_basic_info bi;
	struct vnd_ds_info ds;
	struct vnd_nc_map m;
	long r;

	memset(&ds, 0, sizeof(ds));
	r = xioctl(fd, VND_ACQUIRE_NEURON_DS, &ds);
	VT_ASSERT(r == -EACCES, "ACQUIRE_NEURON_DS pid 0 through the parent's fd: %s", err(r));
	map_init(&m, 1, 0, 0);
	r = xioctl(fd, VND_CRWL_NC_RANGE_MARK, &m);
	VT_ASSERT(r == -EACCES, "CRWL_NC_RANGE_MARK through the parent's fd: %s", err(r));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	r = xioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr);
	VT_ASSERT(r == -EACCES, "CORE_RESERVE through the parent's fd: %s", err(r));
	r = xioctl(fd, VND_DEVICE_BASIC_INFO, &bi);
	VT_ASSERT(r == 0, "DEVICE_BASIC_INFO through the parent's fd: %s", err(r));
	return 0;
}

static int inherited_fd_refused_body(void)
{
	struct vnd_nc_map m;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(run_sub(inherited_child, &fd) == 0, "%s", sub_why);
	VT_ASSERT(own_nc_map(0, getpid()) == 0, "the child's attempts marked %#x",
		  own_nc_map(0, getpid()));
	map_init(&m, 1, 0, 0);
	r = xioctl(fd, VND_CRWL_NC_RANGE_MARK, &m);
	VT_ASSERT(r == 0 && m.bitmap == 0x1, "the opener's own mark: %s, %#llx", err(r),
		  (unsigned long long)m.bitmap);
	memset(&m, 0, sizeof(m));
	m.bitmap = 0x1;
	VT_ASSERT(xioctl(fd, VND_CRWL_NC_RANGE_UNMARK, &m) == 0, "unmark");
	close(fd);
	return 0;
}
ISOLATED(inherited_fd_refused)

/* ==== 6. NDS slabs ========================================================= */

static long ag_ds(struct agent *a, int slot, unsigned long cmd, pid_t pid, struct vnd_ds_info *d)
{
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	d->size = 0xFFFFFFFFu;
	d->mmap_offset = UINT64_MAX;
	return ag_ioctl(a, slot, cmd, d, sizeof(*d));
}

static long ag_own_acquire(struct agent *a, int slot, pid_t pid, struct neuron_nds_acquire *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->pid = pid;
	return ag_ioctl(a, slot, NEURON_IOCTL_NDS_ACQUIRE, q, sizeof(*q));
}

static long ag_counter_add(struct agent *a, int slot, uint32_t nc, uint32_t id, uint64_t delta)
{
	struct neuron_nds_counter_add c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.nc = nc;
	c.id = id;
	c.delta = delta;
	return ag_ioctl(a, slot, NEURON_IOCTL_NDS_COUNTER_ADD, &c, sizeof(c));
}

static long vnd_ds(int fd, unsigned long cmd, pid_t pid, struct vnd_ds_info *d)
{
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	d->size = 0xFFFFFFFFu;
	d->mmap_offset = UINT64_MAX;
	return xioctl(fd, cmd, d);
}

/*
 * ACQUIRE_NEURON_DS pid 0 gives the slab and mmap cookie NDS_ACQUIRE
 * gives the same process, size 262144, whichever ABI asks first; two
 * processes get two slabs.
 */
static int nds_same_slab_both_abis_body(void)
{
	struct neuron_nds_acquire q;
	struct vnd_ds_info d;
	struct agent a, b;
	uint64_t off_a;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	/* the vendor's first */
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.size == VND_NDS_SIZE, "A ACQUIRE_NEURON_DS: %s, size %u", err(r),
		  d.size);
	off_a = d.mmap_offset;
	r = ag_own_acquire(&a, 0, 0, &q);
	VT_ASSERT(r == 0 && q.mmap_offset == off_a && q.mmap_size == NEURON_NDS_SIZE &&
		  q.access == NEURON_NDS_ACCESS_RW,
		  "A NDS_ACQUIRE: %s, offset %#llx (vendor's %#llx), size %llu, access %u", err(r),
		  (unsigned long long)q.mmap_offset, (unsigned long long)off_a,
		  (unsigned long long)q.mmap_size, q.access);
	/* ours first */
	r = ag_own_acquire(&b, 0, 0, &q);
	VT_ASSERT(r == 0, "B NDS_ACQUIRE: %s", err(r));
	r = ag_ds(&b, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.mmap_offset == q.mmap_offset && d.size == VND_NDS_SIZE,
		  "B ACQUIRE_NEURON_DS: %s, offset %#llx (NDS_ACQUIRE's %#llx), size %u", err(r),
		  (unsigned long long)d.mmap_offset, (unsigned long long)q.mmap_offset, d.size);
	VT_ASSERT(d.mmap_offset != off_a, "A and B were given the same slab");
	/* again: the same slab */
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.mmap_offset == off_a, "A again: %s, %#llx", err(r),
		  (unsigned long long)d.mmap_offset);
	return 0;
}
ISOLATED(nds_same_slab_both_abis)

/* NC counters under test: sysfs names of ids 4 (timeout) and 1 (success) */
#define T_NC	1
#define T_ID	NDS_NC_COUNTER_INFER_TIMED_OUT
#define T_NAME	"timeout"
#define S_NC	2
#define S_ID	NDS_NC_COUNTER_INFER_COMPLETED
#define S_NAME	"success"

/*
 * NDS_COUNTER_ADD shows in the mapping of the vendor-acquired slab at the
 * place neuron_nds.h gives; a count written into that mapping shows in
 * sysfs and in a mapping of NDS_ACQUIRE's cookie.
 */
static int nds_counters_cross_body(void)
{
	uint64_t t0 = vt_status_total(0, T_NC, T_NAME), s0 = vt_status_total(0, S_NC, S_NAME);
	struct neuron_nds_acquire q;
	struct vnd_ds_info d;
	struct agent a;
	uint64_t v;
	long r;

	VT_ASSERT(t0 != UINT64_MAX && s0 != UINT64_MAX, "sysfs totals unreadable");
	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_RDWR) == 0, "agent");
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0, "ACQUIRE_NEURON_DS: %s", err(r));
	r = ag_mmap(&a, 0, 0, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset);
	VT_ASSERT(r == 0, "read-write mmap of the vendor's offset: %s", err(r));
	r = ag_counter_add(&a, 0, T_NC, T_ID, 3);
	VT_ASSERT(r == 0, "NDS_COUNTER_ADD: %s", err(r));
	VT_ASSERT(ag_peek(&a, 0, nc_off(T_NC, T_ID), &v) == 0 && v == 3,
		  "the vendor-acquired mapping at %llu reads %llu, expected 3",
		  (unsigned long long)nc_off(T_NC, T_ID), (unsigned long long)v);
	VT_ASSERT(ag_poke(&a, 0, nc_off(S_NC, S_ID), 5) == 0, "write into the mapping");
	VT_ASSERT(vt_status_total(0, T_NC, T_NAME) - t0 == 3 &&
		  vt_status_total(0, S_NC, S_NAME) - s0 == 5,
		  "sysfs moved by %llu and %llu, expected 3 and 5",
		  (unsigned long long)(vt_status_total(0, T_NC, T_NAME) - t0),
		  (unsigned long long)(vt_status_total(0, S_NC, S_NAME) - s0));
	r = ag_own_acquire(&a, 0, 0, &q);
	VT_ASSERT(r == 0 && q.mmap_offset == d.mmap_offset, "NDS_ACQUIRE: %s", err(r));
	r = ag_mmap(&a, 0, 1, q.mmap_size, PROT_READ, q.mmap_offset);
	VT_ASSERT(r == 0, "mmap of NDS_ACQUIRE's cookie: %s", err(r));
	VT_ASSERT(ag_peek(&a, 1, nc_off(S_NC, S_ID), &v) == 0 && v == 5,
		  "NDS_ACQUIRE's mapping reads %llu where the vendor's wrote 5",
		  (unsigned long long)v);
	VT_ASSERT(ag_peek(&a, 1, nc_off(T_NC, T_ID), &v) == 0 && v == 3, "and %llu for the add",
		  (unsigned long long)v);
	return 0;
}
ISOLATED(nds_counters_cross)

/*
 * Another process's ACQUIRE_NEURON_DS with the owner's pid: the same
 * offset, mappable read-only only; a pid with no slab -ENOENT; RELEASE
 * with another process's pid does nothing (0, the slab stays).
 */
static int nds_monitor_lookup_body(void)
{
	uint64_t t0 = vt_status_total(0, T_NC, T_NAME), v;
	struct neuron_nds_acquire oq;
	struct vnd_ds_info d, m;
	struct agent a, b;
	const uint64_t *view;
	void *p;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0, "A ACQUIRE_NEURON_DS: %s", err(r));
	VT_ASSERT(ag_mmap(&a, 0, 0, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset) == 0,
		  "A mmap");
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 9) == 0, "A NDS_COUNTER_ADD");

	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0 && m.mmap_offset == d.mmap_offset && m.size == VND_NDS_SIZE,
		  "ACQUIRE_NEURON_DS of A's pid: %s, offset %#llx (A's %#llx), size %u", err(r),
		  (unsigned long long)m.mmap_offset, (unsigned long long)d.mmap_offset, m.size);
	p = mmap(NULL, VND_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == EACCES, "writable map of A's slab: %s",
		  p == MAP_FAILED ? strerror(errno) : "mapped");
	view = mmap(NULL, VND_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)m.mmap_offset);
	VT_ASSERT(view != MAP_FAILED, "read-only map of A's slab: %s", strerror(errno));
	VT_ASSERT(view[nc_off(T_NC, T_ID) / 8] == 9, "the monitor reads %llu, expected 9",
		  (unsigned long long)view[nc_off(T_NC, T_ID) / 8]);
	/* this driver's lookup agrees */
	memset(&oq, 0, sizeof(oq));
	oq.size = sizeof(oq);
	oq.pid = a.pid;
	r = xioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &oq);
	VT_ASSERT(r == 0 && oq.mmap_offset == m.mmap_offset && oq.access == NEURON_NDS_ACCESS_RO,
		  "NDS_ACQUIRE of A's pid: %s, %#llx, access %u", err(r),
		  (unsigned long long)oq.mmap_offset, oq.access);

	/* pids without a slab: B (has the device open) and the suite's runner */
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, b.pid, &m);
	VT_ASSERT(r == -ENOENT, "ACQUIRE_NEURON_DS of B (no slab): %s", err(r));
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, getppid(), &m);
	VT_ASSERT(r == -ENOENT, "ACQUIRE_NEURON_DS of a process without the device: %s", err(r));

	/* RELEASE of another's slab: 0, nothing done */
	r = vnd_ds(fd, VND_RELEASE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS of A's pid by this process: %s", err(r));
	r = ag_ds(&b, 0, VND_RELEASE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS of A's pid by B: %s", err(r));
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0 && m.mmap_offset == d.mmap_offset, "A's slab after others' RELEASE: %s",
		  err(r));
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 1) == 0, "A adds after others' RELEASE");
	VT_ASSERT(ag_peek(&a, 0, nc_off(T_NC, T_ID), &v) == 0 && v == 10 &&
		  view[nc_off(T_NC, T_ID) / 8] == 10,
		  "A's counter %llu, the monitor's view %llu, expected 10", (unsigned long long)v,
		  (unsigned long long)view[nc_off(T_NC, T_ID) / 8]);
	VT_ASSERT(vt_status_total(0, T_NC, T_NAME) - t0 == 10, "sysfs moved by %llu, expected 10",
		  (unsigned long long)(vt_status_total(0, T_NC, T_NAME) - t0));
	munmap((void *)view, VND_NDS_SIZE);
	close(fd);
	return 0;
}
ISOLATED(nds_monitor_lookup)

/*
 * RELEASE_NEURON_DS (pid 0, or the caller's own pid) folds the slab into
 * the totals and frees it: the old mapping counts nothing from then on,
 * the lookup is -ENOENT, NDS_COUNTER_ADD -ENOENT, a new acquire gives a
 * new, zeroed slab, and the exit folds nothing twice.
 */
static int nds_release_folds_body(void)
{
	uint64_t t0 = vt_status_total(0, T_NC, T_NAME), s0 = vt_status_total(0, S_NC, S_NAME), v;
	struct vnd_ds_info d, m;
	struct agent a;
	int fd;
	long r;

#define TOTALS_MOVED(t, s, when)                                                              \
	VT_ASSERT(vt_status_total(0, T_NC, T_NAME) - t0 == (t) &&                             \
		  vt_status_total(0, S_NC, S_NAME) - s0 == (s),                               \
		  "%s: sysfs moved by %llu and %llu, expected %u and %u", when,               \
		  (unsigned long long)(vt_status_total(0, T_NC, T_NAME) - t0),                \
		  (unsigned long long)(vt_status_total(0, S_NC, S_NAME) - s0), (unsigned)(t), \
		  (unsigned)(s))

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_RDWR) == 0, "agent");
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0, "ACQUIRE_NEURON_DS: %s", err(r));
	VT_ASSERT(ag_mmap(&a, 0, 0, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset) == 0,
		  "mmap");
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 3) == 0, "NDS_COUNTER_ADD");
	VT_ASSERT(ag_poke(&a, 0, nc_off(S_NC, S_ID), 5) == 0, "write into the mapping");
	TOTALS_MOVED(3, 5, "live");

	r = ag_ds(&a, 0, VND_RELEASE_NEURON_DS, 0, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS pid 0: %s", err(r));
	TOTALS_MOVED(3, 5, "after RELEASE");
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == -ENOENT, "lookup of the released slab: %s, expected ENOENT", err(r));
	r = ag_counter_add(&a, 0, T_NC, T_ID, 1);
	VT_ASSERT(r == -ENOENT, "NDS_COUNTER_ADD without a slab: %s, expected ENOENT", err(r));
	/* the old mapping keeps its pages and counts nothing */
	VT_ASSERT(ag_poke(&a, 0, nc_off(S_NC, S_ID), 105) == 0, "write into the old mapping");
	TOTALS_MOVED(3, 5, "after a write into the released mapping");
	r = ag_ds(&a, 0, VND_RELEASE_NEURON_DS, 0, &m);
	VT_ASSERT(r == 0, "a second RELEASE_NEURON_DS: %s", err(r));

	/* a new slab, zeroed */
	r = ag_ds(&a, 0, VND_ACQUIRE_NEURON_DS, 0, &d);
	VT_ASSERT(r == 0 && d.size == VND_NDS_SIZE, "ACQUIRE_NEURON_DS after RELEASE: %s", err(r));
	VT_ASSERT(ag_mmap(&a, 0, 1, VND_NDS_SIZE, PROT_READ | PROT_WRITE, d.mmap_offset) == 0,
		  "mmap of the new slab");
	VT_ASSERT(ag_peek(&a, 1, nc_off(S_NC, S_ID), &v) == 0 && v == 0 &&
		  ag_peek(&a, 1, nc_off(T_NC, T_ID), &v) == 0 && v == 0,
		  "the new slab holds %llu", (unsigned long long)v);
	VT_ASSERT(ag_counter_add(&a, 0, T_NC, T_ID, 4) == 0, "add to the new slab");
	TOTALS_MOVED(7, 5, "with the new slab");
	/* RELEASE naming the caller's own pid is RELEASE of its slab */
	r = ag_ds(&a, 0, VND_RELEASE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == 0, "RELEASE_NEURON_DS of its own pid: %s", err(r));
	r = vnd_ds(fd, VND_ACQUIRE_NEURON_DS, a.pid, &m);
	VT_ASSERT(r == -ENOENT, "lookup after RELEASE by own pid: %s, expected ENOENT", err(r));
	TOTALS_MOVED(7, 5, "after RELEASE by own pid");
	VT_ASSERT(ag_exit(&a), "A did not exit");
	TOTALS_MOVED(7, 5, "after the exit");
	close(fd);
#undef TOTALS_MOVED
	return 0;
}
ISOLATED(nds_release_folds)

/* ==== 7. READ_HW_COUNTERS ================================================== */

static const uint32_t ident_off[4] = { MISC_DEVICE_ID, MISC_API, MISC_SERIAL_LO, MISC_SERIAL_HI };

static long hw_read(int fd, const uint64_t *addr, uint32_t *data, uint32_t count)
{
	struct vnd_read_hw_counters hc;

	memset(&hc, 0, sizeof(hc));
	hc.address = (uintptr_t)addr;
	hc.data = (uintptr_t)data;
	hc.count = count;
	return xioctl(fd, VND_READ_HW_COUNTERS, &hc);
}

/* The identity words of @dev through READ_HW_COUNTERS and through FW_READ. */
static int ident_words(int dev, uint32_t *vnd, uint32_t *own)
{
	uint64_t addr[4], moff[4];
	unsigned int i;
	int fd = open_dev(dev, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < 4; i++) {
		addr[i] = MISC_V2 + ident_off[i];
		moff[i] = ident_off[i];
	}
	memset(vnd, 0xAA, 4 * sizeof(*vnd));
	r = hw_read(fd, addr, vnd, 4);
	VT_ASSERT(r == 0, "neuron%d READ_HW_COUNTERS: %s", dev, err(r));
	r = vt_fw_read(fd, moff, 4, own);
	VT_ASSERT(r == 0, "neuron%d FW_READ: %s", dev, err(r));
	close(fd);
	return 0;
}

/*
 * As root: DEVICE_ID, API_VERSION, SERIAL LO/HI at v2's MiscRAM device
 * address read what FW_READ reads at those MiscRAM offsets, per device.
 */
static int hw_counters_match_fw_read_body(void)
{
	uint32_t vnd[NDEV][4], own[NDEV][4];
	unsigned int i;
	int dev;

	for (dev = 0; dev < NDEV; dev++) {
		if (ident_words(dev, vnd[dev], own[dev]))
			return -1;
		for (i = 0; i < 4; i++)
			VT_ASSERT(vnd[dev][i] == own[dev][i],
				  "neuron%d MiscRAM %#x: READ_HW_COUNTERS %#x, FW_READ %#x", dev,
				  ident_off[i], vnd[dev][i], own[dev][i]);
		VT_ASSERT(vnd[dev][1] == 7, "neuron%d API_VERSION %u, expected 7", dev,
			  vnd[dev][1]);
	}
	VT_ASSERT(vnd[0][2] != vnd[1][2], "both devices read serial lo %#x", vnd[0][2]);
	return 0;
}
ISOLATED(hw_counters_match_fw_read)

/*
 * count 0: 0, nothing read; above 1024: -E2BIG; 20 addresses (more than
 * one FW-IO message) all read.
 */
static int hw_counters_count_bounds_body(void)
{
	static uint64_t addr[HW_COUNT_MAX + 1];
	static uint32_t data[HW_COUNT_MAX + 1];
	uint32_t want[4], own[4];
	unsigned int i;
	int fd;
	long r;

	if (ident_words(0, want, own))
		return -1;
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i <= HW_COUNT_MAX; i++)
		addr[i] = MISC_V2 + ident_off[i % 4];
	memset(data, 0xAA, sizeof(data));
	r = hw_read(fd, addr, data, 0);
	VT_ASSERT(r == 0, "count 0: %s", err(r));
	VT_ASSERT(all_bytes(data, sizeof(data), 0xAA), "count 0 wrote data");
	r = hw_read(fd, addr, data, HW_COUNT_MAX + 1);
	VT_ASSERT(r == -E2BIG, "count 1025: %s, expected E2BIG", err(r));
	VT_ASSERT(all_bytes(data, sizeof(data), 0xAA), "count 1025 wrote data");
	r = hw_read(fd, addr, data, 20);
	VT_ASSERT(r == 0, "count 20: %s", err(r));
	for (i = 0; i < 20; i++)
		VT_ASSERT(data[i] == want[i % 4], "word %u: %#x, expected %#x", i, data[i],
			  want[i % 4]);
	VT_ASSERT(data[20] == 0xAAAAAAAAu, "count 20 wrote a 21st word");
	close(fd);
	return 0;
}
ISOLATED(hw_counters_count_bounds)

static uint32_t g_ident[4];

/* As nobody: the identity words only. */
static int hw_unprivileged_child(void *unused)
{
	uint64_t addr[4], moff = MISC_DEVICE_ID;
	uint32_t data[4], v;
	unsigned int i;
	int fd;
	long r;

	(void)unused;
	VT_ASSERT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
		  "cannot become nobody: %s", strerror(errno));
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "nobody cannot open /dev/neuron0 (is it 0666?): %s", strerror(errno));
	for (i = 0; i < 4; i++)
		addr[i] = MISC_V2 + ident_off[i];
	memset(data, 0xAA, sizeof(data));
	r = hw_read(fd, addr, data, 4);
	VT_ASSERT(r == 0, "identity words as nobody: %s", err(r));
	for (i = 0; i < 4; i++)
		VT_ASSERT(data[i] == g_ident[i], "as nobody, MiscRAM %#x reads %#x; root read %#x",
			  ident_off[i], data[i], g_ident[i]);
#define REFUSED(a0, a1, n, what)                                                           \
	do {                                                                               \
		addr[0] = (a0);                                                            \
		addr[1] = (a1);                                                            \
		memset(data, 0xAA, sizeof(data));                                          \
		r = hw_read(fd, addr, data, n);                                            \
		VT_ASSERT(r == -EPERM, "%s as nobody: %s, expected EPERM", what, err(r));  \
		VT_ASSERT(all_bytes(data, sizeof(data), 0xAA), "%s: data written", what); \
	} while (0)
	REFUSED(MISC_V2 + 0x100, 0, 1, "base + 0x100");
	REFUSED(MISC_V2 + MISC_DEVICE_ID, MISC_V2 + 0x100, 2, "DEVICE_ID then base + 0x100");
	REFUSED(MISC_V2 + MISC_DEVICE_ID + 1, 0, 1, "base + 0x25");
	REFUSED(MISC_V3 + MISC_DEVICE_ID, 0, 1, "v3's DEVICE_ID address on a simulated device");
	REFUSED(MISC_DEVICE_ID, 0, 1, "MiscRAM offset 0x24 as an address");
#undef REFUSED
	r = vt_fw_read(fd, &moff, 1, &v);
	VT_ASSERT(r == -EPERM, "FW_READ as nobody: %s, expected EPERM", vt_err_name(r));
	close(fd);
	return 0;
}

/* Without CAP_SYS_ADMIN: the four identity words, nothing else (-EPERM). */
static int hw_counters_unprivileged_body(void)
{
	uint32_t own[4];

	if (ident_words(0, g_ident, own))
		return -1;
	VT_ASSERT(run_sub(hw_unprivileged_child, NULL) == 0, "%s", sub_why);
	return 0;
}
ISOLATED(hw_counters_unprivileged)

/*
 * POST_METRIC: root's blob reaches the firmware as it is (the simulated
 * firmware records each blob's length, and refuses one that is not
 * metric records: EIO); no blob, or one over 128 bytes, is refused
 * before anything is posted; anyone else gets EPERM (the vendor lets
 * every opener post to the device's telemetry).
 */
static int post_len_seen(unsigned int len)
{
	static char buf[16384];
	char want[16], *p;

	if (vt_dbg_read(0, "fw/posted_blobs", buf, sizeof(buf)))
		return -1;
	snprintf(want, sizeof(want), "%u ", len);
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, want, strlen(want)))
			return 1;
	return 0;
}

static int post_unprivileged_child(void *unused)
{
	unsigned char blob[37] = { 1 };
	struct vnd_post_metric pm = { .data = (uintptr_t)blob, .data_size = sizeof(blob) };
	int fd;
	long r;

	(void)unused;
	VT_ASSERT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
		  "cannot become nobody: %s", strerror(errno));
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "nobody cannot open /dev/neuron0: %s", strerror(errno));
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EPERM, "POST_METRIC as nobody: %s, expected EPERM", err(r));
	close(fd);
	return 0;
}

static int post_metric_body(void)
{
	unsigned char blob[129];
	struct vnd_post_metric pm = { .data = (uintptr_t)blob };
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(blob, 0x5A, sizeof(blob));
	VT_ASSERT(vt_dbg_write(0, "fw/posted", "clear") == 0, "clear fw/posted");
	pm.data_size = 0;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EINVAL, "an empty blob: %s, expected EINVAL", err(r));
	pm.data_size = 129;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -E2BIG, "129 bytes: %s, expected E2BIG", err(r));
	pm.data = 8;
	pm.data_size = 41;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EFAULT, "a bad pointer: %s, expected EFAULT", err(r));
	VT_ASSERT(post_len_seen(41) == 0 && post_len_seen(129) == 0, "a refused blob was posted");
	/* not records of [cw_id][len][ASCII]: the firmware refuses it */
	pm.data = (uintptr_t)blob;
	pm.data_size = 47;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EIO, "47 bytes of 0x5A as root: %s, expected EIO", err(r));
	/* one record: metric 12 (the instance id), 41 ASCII bytes */
	blob[0] = 12;
	blob[1] = 41;
	memcpy(blob + 2, "i-0123456789abcdef0-vendor-post-metric-41", 41);
	pm.data_size = 43;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == 0, "a 43-byte record as root: %s", err(r));
	VT_ASSERT(post_len_seen(43) == 1, "the firmware recorded no blob of 43 bytes");
	close(fd);
	VT_ASSERT(run_sub(post_unprivileged_child, NULL) == 0, "%s", sub_why);
	return 0;
}
ISOLATED(post_metric)

/* ==== 8. processes ========================================================= */

static pid_t app_pid(int fd)
{
	__s32 pid = -1;

	return xioctl(fd, VND_DEVICE_APP_PID, &pid) ? -1 : pid;
}

/*
 * DEVICE_APP_PID: the process that has had the device open longest among
 * those that have it open now, whoever asks.
 */
static int app_pid_oldest_opener_body(void)
{
	struct agent a, b;
	__s32 pid;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(app_pid(fd) == a.pid, "DEVICE_APP_PID %d, expected A %d", app_pid(fd), a.pid);
	pid = -1;
	r = ag_ioctl(&b, 0, VND_DEVICE_APP_PID, &pid, sizeof(pid));
	VT_ASSERT(r == 0 && pid == a.pid, "B's DEVICE_APP_PID: %s, %d", err(r), pid);
	VT_ASSERT(ag_close(&a, 0) == 0, "A closes");
	VT_ASSERT(app_pid(fd) == b.pid, "after A's close: %d, expected B %d", app_pid(fd), b.pid);
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0, "A opens again");
	VT_ASSERT(app_pid(fd) == b.pid, "after A's new open: %d, expected B %d", app_pid(fd),
		  b.pid);
	VT_ASSERT(ag_exit(&b), "B did not exit");
	VT_ASSERT(app_pid(fd) == getpid(), "after B's exit: %d, expected this process %d",
		  app_pid(fd), getpid());
	close(fd);
	return 0;
}
ISOLATED(app_pid_oldest_opener)

static int record_zeroes(const struct vnd_app_info *e)
{
	const unsigned char *raw = (const unsigned char *)e;

	return all_bytes(e->uuid_data, sizeof(e->uuid_data), 0) && all_bytes(raw + 133, 3, 0);
}

/*
 * DEVICE_GET_ALL_APPS_INFO: every opener (an O_WRONLY one too) in open
 * order with its pid, size = records written, capacity honoured to the
 * byte, unknown flags -EINVAL, nc_lock_map only with flag 1, uuid_data
 * and padding 0.
 */
static int all_apps_info_list_body(void)
{
	static struct vnd_apps_buf vb;
	const unsigned char *rec1 = (const unsigned char *)&vb.app[1];
	struct agent a, b;
	unsigned int i;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_WRONLY) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");

	memset(vb.app, 0xAA, sizeof(vb.app));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 3, "flag 1, capacity 16: %s, size %u, expected 3",
		  err(r), vb.hdr.size);
	VT_ASSERT(vb.app[0].pid == a.pid && vb.app[1].pid == b.pid && vb.app[2].pid == getpid(),
		  "pids %d %d %d, expected A %d, B (O_WRONLY) %d, this process %d", vb.app[0].pid,
		  vb.app[1].pid, vb.app[2].pid, a.pid, b.pid, getpid());
	VT_ASSERT(vb.app[0].nc_lock_map == 0x1 && vb.app[1].nc_lock_map == 0 &&
		  vb.app[2].nc_lock_map == 0, "nc_lock_map %#x %#x %#x, expected 0x1 0 0",
		  vb.app[0].nc_lock_map, vb.app[1].nc_lock_map, vb.app[2].nc_lock_map);
	for (i = 0; i < 3; i++) {
		VT_ASSERT(record_zeroes(&vb.app[i]), "record %u: uuid_data or padding not 0", i);
		VT_ASSERT(vb.app[i].host_mem_size == 0 && vb.app[i].device_mem_size == 0,
			  "record %u: memory %llu/%llu without flag 2", i,
			  (unsigned long long)vb.app[i].host_mem_size,
			  (unsigned long long)vb.app[i].device_mem_size);
	}
	VT_ASSERT(all_bytes(&vb.app[3], sizeof(vb.app[3]), 0xAA), "a fourth record was written");

	/* capacity 1: the oldest only, the next record's bytes untouched */
	memset(vb.app, 0xAA, sizeof(vb.app));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, 1, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 1, "capacity 1: %s, size %u", err(r), vb.hdr.size);
	VT_ASSERT(vb.app[0].pid == a.pid && vb.app[0].nc_lock_map == 0x1 &&
		  record_zeroes(&vb.app[0]) && vb.app[0].host_mem_size == 0 &&
		  vb.app[0].device_mem_size == 0,
		  "capacity 1: record pid %d map %#x, not a whole zeroed record of A",
		  vb.app[0].pid, vb.app[0].nc_lock_map);
	for (i = 0; i < sizeof(vb.app[1]); i++)
		VT_ASSERT(rec1[i] == 0xAA, "capacity 1 wrote byte %u of the second record", i);

	/* capacity 0: nothing */
	memset(vb.app, 0xAA, sizeof(vb.app));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, 0, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 0, "capacity 0: %s, size %u", err(r), vb.hdr.size);
	VT_ASSERT(all_bytes(vb.app, sizeof(vb.app), 0xAA), "capacity 0 wrote a record");

	/* flags */
	r = vnd_apps(fd, 0x10, VND_APPS_MAX, &vb);
	VT_ASSERT(r == -EINVAL, "flags 0x10: %s, expected EINVAL", err(r));
	r = vnd_apps(fd, 0x8000, VND_APPS_MAX, &vb);
	VT_ASSERT(r == -EINVAL, "flags 0x8000: %s, expected EINVAL", err(r));
	r = vnd_apps(fd, VND_APPS_FLAG_ALL, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 3 && vb.app[0].nc_lock_map == 0x1,
		  "flags 0xF: %s, size %u, map %#x", err(r), vb.hdr.size, vb.app[0].nc_lock_map);
	r = vnd_apps(fd, VND_APPS_FLAG_MEM, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 3 && vb.app[0].pid == a.pid &&
		  vb.app[0].nc_lock_map == 0,
		  "flag 2 alone: %s, size %u, A's map %#x (expected 0 without flag 1)", err(r),
		  vb.hdr.size, vb.app[0].nc_lock_map);

	/* B asks through its O_WRONLY fd: the same list */
	memset(&vb, 0, sizeof(vb));
	vb.hdr.apps_info_flags = VND_APPS_FLAG_NC_LOCK;
	vb.hdr.capacity = 4;
	r = ag_ioctl(&b, 0, VND_DEVICE_GET_ALL_APPS_INFO, &vb,
		     sizeof(vb.hdr) + 4 * sizeof(vb.app[0]));
	VT_ASSERT(r == 0 && vb.hdr.size == 3 && vb.app[0].pid == a.pid &&
		  vb.app[0].nc_lock_map == 0x1,
		  "B through O_WRONLY: %s, size %u, first pid %d", err(r), vb.hdr.size,
		  vb.app[0].pid);
	close(fd);
	return 0;
}
ISOLATED(all_apps_info_list)

/* flag 2: a process's host memory from MEM_ALLOC; 0 without the flag. */
static int all_apps_info_host_memory_body(void)
{
	static struct vnd_apps_buf vb;
	struct neuron_mem_alloc ma;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&ma, 0, sizeof(ma));
	ma.size = sizeof(ma);
	ma.location = NEURON_MEM_LOC_HOST;
	ma.category = NEURON_MEM_CAT_TENSORS;
	ma.bytes = 8192;
	r = xioctl(fd, NEURON_IOCTL_MEM_ALLOC, &ma);
	VT_ASSERT(r == 0, "MEM_ALLOC host 8192: %s", err(r));
	r = vnd_apps(fd, VND_APPS_FLAG_MEM, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.hdr.size == 1 && vb.app[0].pid == getpid(),
		  "flag 2: %s, size %u, pid %d", err(r), vb.hdr.size, vb.app[0].pid);
	VT_ASSERT(vb.app[0].host_mem_size == 8192 && vb.app[0].device_mem_size == 0,
		  "flag 2: host %llu device %llu, expected 8192 and 0",
		  (unsigned long long)vb.app[0].host_mem_size,
		  (unsigned long long)vb.app[0].device_mem_size);
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0 && vb.app[0].host_mem_size == 0, "flag 1 alone: %s, host %llu", err(r),
		  (unsigned long long)vb.app[0].host_mem_size);
	close(fd);
	return 0;
}
ISOLATED(all_apps_info_host_memory)

/* ==== 9. notification rings =============================================== */

#define NQ_ERROR	3	/* nq_type ERROR: where a job's errors go (engine 0) */
#define NQ_HDR_PHASE	0x80
#define NQ_HDR_TYPE	0x1f
#define NQ_TPB_ERROR	0x1f	/* notific_type of a TPB error entry */

static void nq_v2(struct vnd_nq_init_v2 *a, uint32_t nc, uint32_t type, uint32_t engine,
		  uint32_t size)
{
	memset(a, 0, sizeof(*a));
	a->nq_dev_id = nc;
	a->nq_dev_type = 0;	/* NeuronCore */
	a->nq_type = type;
	a->engine_index = engine;
	a->size = size;
	a->on_host_memory = 1;
}

/* One job on @nc through this driver's SIM_EXEC: its entries written and dropped. */
static long sim_job(int fd, uint32_t nc, uint32_t *written, uint32_t *dropped)
{
	struct neuron_sim_exec e;
	long r;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.nc = nc;
	e.timeout_us = 10000000;
	r = xioctl(fd, NEURON_IOCTL_SIM_EXEC, &e);
	*written = e.entries;
	*dropped = e.dropped;
	return r;
}

/*
 * NOTIFICATIONS_INIT_V2: a host ring whose mapping (at mmap_offset, the
 * size rounded to a page) holds the entries from offset 0; the device
 * writes on around it, each entry's phase bit telling its lap: 300
 * entries into 256 slots leave slots 0..43 on the second lap (phase 0)
 * and 44..255 on the first (phase 1), none dropped. The same init again
 * is the same ring; V1 names it too; another size is EBUSY.
 */
static int nq_v2_ring_entries_body(void)
{
	struct vnd_nq_init_v2 a, b;
	struct vnd_nq_init_v1 v1;
	const uint8_t *ring;
	uint32_t written, dropped, i;
	int fd = open_dev(0, O_RDWR);
	void *big;
	long r;

	VT_ASSERT(fd >= 0, "open");
	nq_v2(&a, 1, NQ_ERROR, 0, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
	VT_ASSERT(r == 0, "INIT_V2: %s", err(r));
	VT_ASSERT(a.mem_handle != 0 && a.mmap_offset % 4096 == 0, "handle %llu, offset %#llx",
		  (unsigned long long)a.mem_handle, (unsigned long long)a.mmap_offset);
	VT_ASSERT(own_nc_map(0, getpid()) == 0x2, "the ring's core is the caller's: %#x",
		  own_nc_map(0, getpid()));
	big = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(big == MAP_FAILED && errno == EINVAL, "a map of 8192 bytes of a 4096-byte ring: %s",
		  big == MAP_FAILED ? strerror(errno) : "mapped");
	ring = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(ring != MAP_FAILED, "mmap: %s", strerror(errno));
	VT_ASSERT(all_bytes(ring, 4096, 0), "a new ring is not zeroed");

	VT_ASSERT(vt_inject(0, "nq_flood", "1 300") == 0, "nq_flood");
	r = sim_job(fd, 1, &written, &dropped);
	VT_ASSERT(r == 0 && written == 300 && dropped == 0, "job: %s, %u written, %u dropped",
		  err(r), written, dropped);
	for (i = 0; i < 256; i++) {
		uint8_t h = ring[i * 16 + 3];
		uint8_t want = i < 300 - 256 ? 0 : NQ_HDR_PHASE;

		VT_ASSERT((h & NQ_HDR_TYPE) == NQ_TPB_ERROR && (h & NQ_HDR_PHASE) == want,
			  "slot %u: header %#x, expected type %#x phase %#x", i, h, NQ_TPB_ERROR,
			  want);
	}

	b = a;
	b.mmap_offset = 0;
	b.mem_handle = 0;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &b);
	VT_ASSERT(r == 0 && b.mmap_offset == a.mmap_offset && b.mem_handle == a.mem_handle,
		  "the same INIT_V2 again: %s, %#llx", err(r), (unsigned long long)b.mmap_offset);
	VT_ASSERT(ring[3] == (NQ_TPB_ERROR | 0), "the same ring again lost its entries");
	memset(&v1, 0, sizeof(v1));
	v1.nc_id = 1;
	v1.nq_type = NQ_ERROR;
	v1.size = 4096;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V1, &v1);
	VT_ASSERT(r == 0 && v1.mmap_offset == a.mmap_offset, "INIT_V1 of the ring: %s, %#llx",
		  err(r), (unsigned long long)v1.mmap_offset);
	nq_v2(&b, 1, NQ_ERROR, 0, 8192);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &b);
	VT_ASSERT(r == -EBUSY, "INIT_V2 of the ring with another size: %s, expected EBUSY",
		  err(r));
	munmap((void *)ring, 4096);
	close(fd);
	return 0;
}
ISOLATED(nq_v2_ring_entries)

/*
 * The arguments: a TOP_SP and a device-memory ring are not provided
 * (EOPNOTSUPP); another device type, a core past the device's (no
 * truncation to 8 bits: 256 is not core 0), a type past THROTTLE, an
 * engine past 15, a size not a power of two in 256..1 MiB: EINVAL.
 * An argument refused leaves nothing: the core stays free.
 */
static int nq_init_refusals_body(void)
{
	static const struct {
		uint32_t dev_type, nc, type, engine, size, host;
		long want;
		const char *what;
	} bad[] = {
		{ 1, 0, NQ_ERROR, 0, 4096, 1, -EOPNOTSUPP, "TOP_SP" },
		{ 2, 0, NQ_ERROR, 0, 4096, 1, -EINVAL, "device type 2" },
		{ 0, 0, NQ_ERROR, 0, 4096, 0, -EOPNOTSUPP, "device memory" },
		{ 0, NC_COUNT, NQ_ERROR, 0, 4096, 1, -EINVAL, "core past the device's" },
		{ 0, 256, NQ_ERROR, 0, 4096, 1, -EINVAL, "core 256" },
		{ 0, 0, 6, 0, 4096, 1, -EINVAL, "type 6" },
		{ 0, 0, 16 + NQ_ERROR, 0, 4096, 1, -EINVAL, "type 19" },
		{ 0, 0, NQ_ERROR, 16, 4096, 1, -EINVAL, "engine 16" },
		{ 0, 0, NQ_ERROR, 0, 0, 1, -EINVAL, "size 0" },
		{ 0, 0, NQ_ERROR, 0, 3000, 1, -EINVAL, "size 3000" },
		{ 0, 0, NQ_ERROR, 0, 128, 1, -EINVAL, "size 128" },
		{ 0, 0, NQ_ERROR, 0, 2u << 20, 1, -EINVAL, "size 2 MiB" },
	};
	struct vnd_nq_init_realloc ra;
	struct vnd_nq_init_v2 a;
	unsigned int i;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < VT_COUNT(bad); i++) {
		nq_v2(&a, bad[i].nc, bad[i].type, bad[i].engine, bad[i].size);
		a.nq_dev_type = bad[i].dev_type;
		a.on_host_memory = bad[i].host;
		r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
		VT_ASSERT(r == bad[i].want, "%s: %s, expected %s", bad[i].what, err(r),
			  err(bad[i].want));
	}
	memset(&ra, 0, sizeof(ra));
	ra.nq_type = NQ_ERROR;
	ra.size = 4096;
	ra.on_host_memory = 1;
	((uint32_t *)&ra)[9] = 1;	/* the padding after force_alloc_mem */
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == -EINVAL, "REALLOC with its padding set: %s, expected EINVAL", err(r));
	VT_ASSERT(own_nc_map(0, getpid()) == 0, "a refused init left cores %#x",
		  own_nc_map(0, getpid()));
	close(fd);
	return 0;
}
ISOLATED(nq_init_refusals)

/*
 * One table behind both ABIs: a vendor ring reserves its core (busy for
 * another process's ring and CORE_RESERVE); this driver's NQ_INIT of the
 * same ring is EBUSY (a ring is of one kind); CORE_RELEASE frees the core
 * and its ring, after which the other process gets both.
 */
static int nq_one_table_body(void)
{
	struct vnd_nq_init_v2 a;
	struct neuron_core_reserve cr;
	struct neuron_nq_init own;
	struct agent b;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "agent");
	nq_v2(&a, 2, NQ_ERROR, 0, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
	VT_ASSERT(r == 0, "INIT_V2: %s", err(r));
	memset(&own, 0, sizeof(own));
	own.size = sizeof(own);
	own.nc = 2;
	own.nq_type = NQ_ERROR;
	own.ring_size = 4096;
	r = xioctl(fd, NEURON_IOCTL_NQ_INIT, &own);
	VT_ASSERT(r == -EBUSY, "NQ_INIT of the vendor's ring: %s, expected EBUSY", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == -EBUSY, "B CORE_RESERVE of the ring's core: %s, expected EBUSY", err(r));
	nq_v2(&a, 2, NQ_ERROR, 1, 4096);
	r = ag_ioctl(&b, 0, VND_NOTIFICATIONS_INIT_V2, &a, sizeof(a));
	VT_ASSERT(r == -EBUSY, "B INIT_V2 on the core: %s, expected EBUSY", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RELEASE, 2);
	VT_ASSERT(r == -ENOENT, "B CORE_RELEASE of the caller's core: %s", err(r));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.nc = 2;
	r = xioctl(fd, NEURON_IOCTL_CORE_RELEASE, &cr);
	VT_ASSERT(r == 0, "CORE_RELEASE of the ring's core: %s", err(r));
	nq_v2(&a, 2, NQ_ERROR, 0, 8192);
	r = ag_ioctl(&b, 0, VND_NOTIFICATIONS_INIT_V2, &a, sizeof(a));
	VT_ASSERT(r == 0, "B INIT_V2 after the release: %s", err(r));
	VT_ASSERT(own_nc_map(0, b.pid) == 0x4 && own_nc_map(0, getpid()) == 0,
		  "cores: B %#x, caller %#x", own_nc_map(0, b.pid), own_nc_map(0, getpid()));
	close(fd);
	return 0;
}
ISOLATED(nq_one_table)

/*
 * WITH_REALLOC_V2, force_alloc_mem 1: refused while the old ring is
 * mapped (EBUSY, the old ring untouched); once unmapped, a new ring (any
 * size) replaces it at the same offset, zeroed, and gets the next job's
 * entries.
 */
static int nq_realloc_replaces_body(void)
{
	struct vnd_nq_init_realloc ra;
	const uint8_t *old, *neu;
	uint32_t written, dropped;
	int fd = open_dev(0, O_RDWR);
	uint64_t off;
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&ra, 0, sizeof(ra));
	ra.nq_dev_id = 3;
	ra.nq_type = NQ_ERROR;
	ra.size = 4096;
	ra.on_host_memory = 1;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == 0, "REALLOC (force 0): %s", err(r));
	off = ra.mmap_offset;
	old = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)off);
	VT_ASSERT(old != MAP_FAILED, "mmap: %s", strerror(errno));
	VT_ASSERT(vt_inject(0, "nq_flood", "3 5") == 0, "nq_flood");
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == 0 && written == 5, "job: %s, %u written", err(r), written);

	ra.force_alloc_mem = 1;
	ra.size = 8192;
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == -EBUSY, "REALLOC (force 1) of a mapped ring: %s, expected EBUSY", err(r));
	VT_ASSERT(old[4 * 16 + 3] == (NQ_TPB_ERROR | NQ_HDR_PHASE) && old[5 * 16 + 3] == 0,
		  "the refused REALLOC changed the ring: slot 4 %#x, slot 5 %#x", old[4 * 16 + 3],
		  old[5 * 16 + 3]);
	munmap((void *)old, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_REALLOC, &ra);
	VT_ASSERT(r == 0 && ra.mmap_offset == off, "REALLOC (force 1): %s, %#llx", err(r),
		  (unsigned long long)ra.mmap_offset);
	neu = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)off);
	VT_ASSERT(neu != MAP_FAILED, "mmap of the new ring: %s", strerror(errno));
	VT_ASSERT(all_bytes(neu, 8192, 0), "the new ring is not zeroed");
	VT_ASSERT(vt_inject(0, "nq_flood", "3 7") == 0, "nq_flood");
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == 0 && written == 7, "job: %s, %u written", err(r), written);
	VT_ASSERT(neu[6 * 16 + 3] == (NQ_TPB_ERROR | NQ_HDR_PHASE) && neu[7 * 16 + 3] == 0,
		  "the new ring: slot 6 %#x, slot 7 %#x", neu[6 * 16 + 3], neu[7 * 16 + 3]);
	munmap((void *)neu, 8192);
	close(fd);
	return 0;
}
ISOLATED(nq_realloc_replaces)

/* ==== 10. resets =========================================================== */

static uint64_t req_count(int dev, int nc)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "neuron_core%d/stats/other_info/reset_req_count/total", nc);
	return vt_sys_u64(dev, rel);
}

static uint64_t fail_count(int dev, int nc)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "neuron_core%d/stats/other_info/reset_fail_count/total", nc);
	return vt_sys_u64(dev, rel);
}

/*
 * NC_RESET of a core the caller holds: request_id is the caller's pid,
 * NC_RESET_READY answers 0 (completed) once and ENOENT after; the core's
 * reset_req_count moves by one and no other core's; its rings are gone
 * (the offset maps nothing), and the core stays the caller's. While one
 * of its rings is mapped: EBUSY, nothing reset.
 */
static int nc_reset_held_core_body(void)
{
	struct vnd_device_reset rq;
	struct vnd_device_ready rd;
	struct vnd_nq_init_v2 a;
	uint64_t req1, req0;
	void *p;
	int fd = open_dev(1, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	nq_v2(&a, 1, NQ_ERROR, 0, 4096);
	r = xioctl(fd, VND_NOTIFICATIONS_INIT_V2, &a);
	VT_ASSERT(r == 0, "INIT_V2: %s", err(r));
	req0 = req_count(1, 0);
	req1 = req_count(1, 1);
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = 0x2;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p != MAP_FAILED, "mmap: %s", strerror(errno));
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == -EBUSY && req_count(1, 1) == req1,
		  "NC_RESET of a core with a mapped ring: %s, expected EBUSY", err(r));
	munmap(p, 4096);
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == 0 && rq.request_id == (uint32_t)getpid(), "NC_RESET 0x2: %s, id %u (pid %d)",
		  err(r), rq.request_id, getpid());
	memset(&rd, 0, sizeof(rd));
	rd.request_id = rq.request_id;
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 0, "NC_RESET_READY: %s, result %d", err(r), rd.result);
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == -ENOENT, "NC_RESET_READY again: %s, expected ENOENT", err(r));
	VT_ASSERT(req_count(1, 1) == req1 + 1 && req_count(1, 0) == req0,
		  "reset_req_count: nc1 %llu -> %llu, nc0 %llu -> %llu",
		  (unsigned long long)req1, (unsigned long long)req_count(1, 1),
		  (unsigned long long)req0, (unsigned long long)req_count(1, 0));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p == MAP_FAILED && errno == ENOENT, "the reset core's ring still maps: %s",
		  p == MAP_FAILED ? strerror(errno) : "mapped");
	VT_ASSERT(own_nc_map(1, getpid()) == 0x2, "the core after its reset: %#x",
		  own_nc_map(1, getpid()));
	close(fd);
	return 0;
}
ISOLATED(nc_reset_held_core)

static int nc_reset_unprivileged_child(void *unused)
{
	struct vnd_device_reset rq;
	int fd;
	long r;

	(void)unused;
	VT_ASSERT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
		  "cannot become nobody: %s", strerror(errno));
	fd = open_dev(1, O_RDWR);
	VT_ASSERT(fd >= 0, "nobody cannot open /dev/neuron1: %s", strerror(errno));
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EPERM, "DEVICE_RESET as nobody: %s, expected EPERM", err(r));
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = 0xFFFFFFFFu;
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == -EPERM, "NC_RESET of the device as nobody: %s, expected EPERM", err(r));
	close(fd);
	return 0;
}

/*
 * What NC_RESET refuses: an empty map or a core the device lacks
 * (EINVAL), a core nobody holds or another process's (EACCES: the vendor
 * resets anyone's cores); the whole device without CAP_SYS_ADMIN (EPERM)
 * or while another process has it open (EBUSY). Nothing is counted.
 */
static int nc_reset_refusals_body(void)
{
	static const struct {
		uint32_t map;
		long want;
		const char *what;
	} bad[] = {
		{ 0, -EINVAL, "empty map" },
		{ 1u << NC_COUNT, -EINVAL, "a core past the device's" },
		{ 0x1, -EACCES, "a core nobody holds" },
		{ 0x4, -EACCES, "another process's core" },
		{ 0x6, -EACCES, "the caller's and another's" },
		{ 0xFFFFFFFFu, -EBUSY, "the device, another process having it open" },
	};
	struct vnd_device_reset rq;
	struct neuron_core_reserve cr;
	uint64_t req[NC_COUNT];
	struct agent b;
	unsigned int i;
	int fd = open_dev(1, O_RDWR), nc;
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 1, O_RDWR) == 0, "agent");
	VT_ASSERT(ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2) == 0, "B reserves core 2");
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.nc = 1;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr) == 0, "reserve core 1");
	for (nc = 0; nc < NC_COUNT; nc++)
		req[nc] = req_count(1, nc);
	for (i = 0; i < VT_COUNT(bad); i++) {
		memset(&rq, 0, sizeof(rq));
		rq.nc_map = bad[i].map;
		r = xioctl(fd, VND_NC_RESET, &rq);
		VT_ASSERT(r == bad[i].want, "NC_RESET %#x (%s): %s, expected %s", bad[i].map,
			  bad[i].what, err(r), err(bad[i].want));
	}
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EBUSY, "DEVICE_RESET with B open: %s, expected EBUSY", err(r));
	for (nc = 0; nc < NC_COUNT; nc++)
		VT_ASSERT(req_count(1, nc) == req[nc], "a refused reset counted on nc%d", nc);
	VT_ASSERT(run_sub(nc_reset_unprivileged_child, NULL) == 0, "%s", sub_why);
	close(fd);
	return 0;
}
ISOLATED(nc_reset_refusals)

/*
 * NC_RESET makes a core that took an uncorrectable error usable again,
 * and only that core; a reset that fails (inject/reset_fail) still
 * answers a request id, NC_RESET_READY says 1 and reset_fail_count moves.
 */
static int nc_reset_revives_core_body(void)
{
	struct vnd_device_reset rq;
	struct vnd_device_ready rd;
	struct neuron_core_reserve cr;
	uint32_t written, dropped;
	uint64_t fail0;
	int fd = open_dev(1, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(vt_inject(1, "nc_unrecoverable", "3") == 0, "nc_unrecoverable");
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == -ENOTRECOVERABLE, "job on the broken core: %s", err(r));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.nc = 3;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr) == 0, "reserve core 3");

	VT_ASSERT(vt_dbg_write(1, "inject/reset_fail", "1") == 0, "reset_fail");
	fail0 = fail_count(1, 3);
	memset(&rq, 0, sizeof(rq));
	rq.nc_map = 0x8;
	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == 0, "NC_RESET (to fail): %s", err(r));
	rd.request_id = rq.request_id;
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 1, "NC_RESET_READY of the failed reset: %s, result %d",
		  err(r), rd.result);
	VT_ASSERT(fail_count(1, 3) == fail0 + 1, "reset_fail_count %llu -> %llu",
		  (unsigned long long)fail0, (unsigned long long)fail_count(1, 3));
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == -ENOTRECOVERABLE, "job after the failed reset: %s", err(r));

	r = xioctl(fd, VND_NC_RESET, &rq);
	VT_ASSERT(r == 0, "NC_RESET: %s", err(r));
	rd.request_id = rq.request_id;
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 0, "NC_RESET_READY: %s, result %d", err(r), rd.result);
	r = sim_job(fd, 3, &written, &dropped);
	VT_ASSERT(r == 0, "job after the reset: %s", err(r));
	close(fd);
	return 0;
}
ISOLATED(nc_reset_revives_core)

/*
 * DEVICE_RESET by root with nobody else on the device: refused (EBUSY,
 * nothing counted) while an allocation of device memory is mapped, or
 * was and is not freed (the reset discards device memory); then the
 * whole device is reset (every core's reset_req_count moves),
 * DEVICE_READY reads 1 after, and NC_RESET_READY of the caller's pid
 * answers 0.
 */
static int device_reset_alone_body(void)
{
	struct vnd_device_ready rd;
	struct neuron_mem_alloc ma;
	struct neuron_mem_free mf;
	uint64_t req[NC_COUNT];
	__u8 ready = 0;
	int fd = open_dev(1, O_RDWR), nc;
	void *p;
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&ma, 0, sizeof(ma));
	ma.size = sizeof(ma);
	ma.location = NEURON_MEM_LOC_DEVICE;
	ma.bytes = 8192;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_MEM_ALLOC, &ma) == 0, "MEM_ALLOC");
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)NEURON_MEM_MMAP_OFFSET(ma.device_addr));
	VT_ASSERT(p != MAP_FAILED, "mmap of device memory: %s", strerror(errno));
	((volatile char *)p)[0] = 1;
	req[1] = req_count(1, 1);
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EBUSY && req_count(1, 1) == req[1],
		  "DEVICE_RESET with device memory mapped: %s, expected EBUSY", err(r));
	munmap(p, 8192);
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == -EBUSY, "DEVICE_RESET with a mapped allocation not freed: %s, expected EBUSY",
		  err(r));
	memset(&mf, 0, sizeof(mf));
	mf.size = sizeof(mf);
	mf.handle = ma.handle;
	VT_ASSERT(xioctl(fd, NEURON_IOCTL_MEM_FREE, &mf) == 0, "MEM_FREE");
	for (nc = 0; nc < NC_COUNT; nc++)
		req[nc] = req_count(1, nc);
	r = xioctl(fd, VND_DEVICE_RESET, NULL);
	VT_ASSERT(r == 0, "DEVICE_RESET: %s", err(r));
	for (nc = 0; nc < NC_COUNT; nc++)
		VT_ASSERT(req_count(1, nc) == req[nc] + 1, "nc%d reset_req_count %llu -> %llu", nc,
			  (unsigned long long)req[nc], (unsigned long long)req_count(1, nc));
	r = xioctl(fd, VND_DEVICE_READY, &ready);
	VT_ASSERT(r == 0 && ready == 1, "DEVICE_READY: %s, %u", err(r), ready);
	rd.request_id = (uint32_t)getpid();
	rd.result = -7;
	r = xioctl(fd, VND_NC_RESET_READY, &rd);
	VT_ASSERT(r == 0 && rd.result == 0, "NC_RESET_READY(pid): %s, result %d", err(r),
		  rd.result);
	close(fd);
	return 0;
}
ISOLATED(device_reset_alone)

int main(void)
{
	static const struct vt_case cases[] = {
		/* 1, 2: numbers, identity and info */
		VT_CASE(commands_answered_on_any_fd),
		VT_CASE(basic_info_arch_revision),
		VT_CASE(device_info_zeroed),
		VT_CASE(host_device_id_is_index),
		VT_CASE(compatible_version),
		VT_CASE(driver_info_get),
		VT_CASE(driver_info_encodings),
		VT_CASE(bdf_unsupported_on_simulated),
		VT_CASE(ready_and_reset_status),
		VT_CASE(retired_commands),
		VT_CASE(unknown_commands_enotty),
		VT_CASE(bad_pointer_efault),
		/* 3: range marks */
		VT_CASE(range_mark_sequence),
		VT_CASE(range_mark_bounds),
		VT_CASE(range_mark_ext0),
		VT_CASE(range_mark_first_fit_no_skip),
		VT_CASE(range_mark_own_and_per_device),
		/* 4: one state behind both ABIs */
		VT_CASE(cross_mark_and_reserve_exclude),
		VT_CASE(cross_release_either_way),
		VT_CASE(cross_apps_info_agree),
		/* 5: marks end with the process */
		VT_CASE(marks_end_at_exit_rdwr),
		VT_CASE(marks_end_at_exit_wronly),
		VT_CASE(marks_end_at_last_close),
		VT_CASE(inherited_fd_refused),
		/* 6: NDS */
		VT_CASE(nds_same_slab_both_abis),
		VT_CASE(nds_counters_cross),
		VT_CASE(nds_monitor_lookup),
		VT_CASE(nds_release_folds),
		/* 7: READ_HW_COUNTERS */
		VT_CASE(hw_counters_match_fw_read),
		VT_CASE(hw_counters_count_bounds),
		VT_CASE(hw_counters_unprivileged),
		VT_CASE(post_metric),
		/* 8: processes */
		VT_CASE(app_pid_oldest_opener),
		VT_CASE(all_apps_info_list),
		VT_CASE(all_apps_info_host_memory),
		/* 9: notification rings */
		VT_CASE(nq_v2_ring_entries),
		VT_CASE(nq_init_refusals),
		VT_CASE(nq_one_table),
		VT_CASE(nq_realloc_replaces),
		/* 10: resets */
		VT_CASE(nc_reset_held_core),
		VT_CASE(nc_reset_refusals),
		VT_CASE(nc_reset_revives_core),
		VT_CASE(device_reset_alone),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* the agents of a case that ended are reparented here and reaped */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	return vt_run("vendor", cases, VT_COUNT(cases));
}
