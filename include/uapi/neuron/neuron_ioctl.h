/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * neuron.ko user ABI: ioctl commands on /dev/neuron<N>.
 *
 * Rules every struct here follows (Documentation/process/botching-up-ioctls.rst):
 *  - fixed-width types only, natural alignment, size a multiple of 8; 64-bit
 *    members are __aligned_u64 so 32-bit processes see the same layout
 *    (scripts/uapi-layout.sh compares -m32 and -m64 builds);
 *  - a leading @size the caller sets to sizeof(struct) it was built with;
 *    the kernel refuses any other value with -EINVAL;
 *  - @flags: unknown bits -> -EINVAL; every reserved/pad member must be zero
 *    on input (-EINVAL otherwise) and is zeroed on output;
 *  - unknown commands -> -ENOTTY.
 *
 * The command numbers start at 0xC0 so they never collide with the numbers
 * the vendor driver uses on the same 'N' magic (1..133): a vendor runtime
 * talking to this driver gets -ENOTTY instead of a misread struct.
 */
#ifndef _UAPI_NEURON_IOCTL_H
#define _UAPI_NEURON_IOCTL_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define NEURON_IOCTL_MAGIC	'N'

/* Bumped on any incompatible change; additions are signalled by caps. */
#define NEURON_ABI_VERSION	1

#define NEURON_DRIVER_VERSION_LEN	32

/* Backend kinds reported by GET_INFO. */
#define NEURON_BACKEND_SIM	1	/* simulated device (sim_devices=N) */
#define NEURON_BACKEND_PCI	2	/* real Neuron PCI function */

/* Capability bits reported by GET_INFO. */
#define NEURON_CAP_NDS		(1ULL << 0)	/* NDS slabs: NDS_ACQUIRE, mmap */
#define NEURON_CAP_NQ		(1ULL << 1)	/* notification queues */
#define NEURON_CAP_SIM_EXEC	(1ULL << 2)	/* simulated NeuronCore jobs */
#define NEURON_CAP_FWIO		(1ULL << 3)	/* FW-IO mailbox + metrics post */
#define NEURON_CAP_GENL		(1ULL << 4)	/* generic netlink family */
#define NEURON_CAP_JOB_TIME	(1ULL << 9)	/* SIM_EXEC(_MODEL) answer with @job_ns */

/**
 * struct neuron_info - NEURON_IOCTL_GET_INFO argument
 * @size:		in: sizeof(struct neuron_info)
 * @flags:		in: must be 0
 * @abi_version:	out: NEURON_ABI_VERSION
 * @device_index:	out: N of /dev/neuron<N>
 * @nc_count:		out: NeuronCores on this device
 * @backend:		out: NEURON_BACKEND_*
 * @capabilities:	out: NEURON_CAP_* mask
 * @driver_version:	out: NUL-terminated driver version string
 * @hbm_size:		in: must be zero; out: bytes of device memory
 *			(MEM_ALLOC with NEURON_MEM_LOC_DEVICE), 0 when the
 *			device has none (then NEURON_CAP_MEM is not set)
 * @reserved:		in: must be zero; out: zero
 *
 * @hbm_size takes the place of an earlier reserved[0] (same layout: callers
 * that predate it pass zero there and read it as reserved).
 */
struct neuron_info {
	__u32 size;
	__u32 flags;
	__u32 abi_version;
	__u32 device_index;
	__u32 nc_count;
	__u32 backend;
	__aligned_u64 capabilities;
	__u8 driver_version[NEURON_DRIVER_VERSION_LEN];
	__aligned_u64 hbm_size;
	__aligned_u64 reserved[3];
};

/* NDS slab access modes (neuron_nds_acquire.access). */
#define NEURON_NDS_ACCESS_RW	1	/* the caller owns the slab */
#define NEURON_NDS_ACCESS_RO	2	/* another process's slab: read-only */

/**
 * struct neuron_nds_acquire - NEURON_IOCTL_NDS_ACQUIRE argument
 * @size:	in: sizeof(struct neuron_nds_acquire)
 * @flags:	in: must be 0
 * @pid:	in: 0 = the caller's process: its slab, created on first use,
 *		mappable read-write; > 0 = look up that process's slab,
 *		read-only (-ENOENT if it has none), except that the caller's
 *		own pid through a file its process opened answers read-write
 *		(the same slab as 0, not created if missing); < 0 -> -EINVAL
 * @slot:	out: slab index on the device, 0..NEURON_NDS_PER_DEVICE-1
 * @mmap_offset: out: pass to mmap() on this fd; a cookie, not an address
 * @mmap_size:	out: NEURON_NDS_SIZE; mmap must cover exactly this
 * @access:	out: NEURON_NDS_ACCESS_RW or NEURON_NDS_ACCESS_RO
 * @reserved0:	in: must be zero
 * @reserved:	in: must be zero
 *
 * No free slab (NEURON_NDS_PER_DEVICE processes already hold one) -> -ENOSPC.
 * @pid 0 through a file another process opened (an inherited or passed
 * fd) -> -EACCES: a slab belongs to the process whose last close frees it.
 * The cookie is good on this fd only, for as long as the slab has the owner
 * it had at the acquire: mmap() of a slab no acquire on the fd handed out
 * is -EACCES, an executable mapping -EPERM. A new slab is charged to the
 * caller's memory cgroup.
 */
struct neuron_nds_acquire {
	__u32 size;
	__u32 flags;
	__s32 pid;
	__u32 slot;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 access;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

/* neuron_nds_counter_add.flags */
#define NEURON_NDS_ADD_ND	(1U << 0)	/* @id is an ND counter; @nc must be 0 */

/**
 * struct neuron_nds_counter_add - NEURON_IOCTL_NDS_COUNTER_ADD argument
 * @size:	in: sizeof(struct neuron_nds_counter_add)
 * @flags:	in: 0 or NEURON_NDS_ADD_ND
 * @nc:		in: NeuronCore index, < the device's NeuronCore count
 * @id:		in: NC counter id 0..94 (ND: 0..30)
 * @delta:	in: added (modulo 2^64) to the caller's own slab
 * @reserved:	in: must be zero
 *
 * For clients that cannot map their slab; the caller must hold one
 * (NDS_ACQUIRE with pid 0), else -ENOENT; through a file another process
 * opened -> -EACCES. A non-zero @delta wakes poll() on the status files
 * when info/notify_delay is 0 (docs/ABI/sysfs-devices-neuron).
 */
struct neuron_nds_counter_add {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 id;
	__aligned_u64 delta;
	__aligned_u64 reserved[2];
};

/* NEURON_IOCTL_NDS_READ: the most bytes one call copies. */
#define NEURON_NDS_READ_MAX	16384
#define NEURON_CAP_NDS_READ	(1ULL << 11)	/* NEURON_IOCTL_NDS_READ */

/**
 * struct neuron_nds_read - NEURON_IOCTL_NDS_READ argument
 * @size:	in: sizeof(struct neuron_nds_read)
 * @flags:	in: must be 0
 * @pid:	in: the process whose slab is read, a number in the caller's
 *		pid namespace; 0: the caller's own
 * @offset:	in: first byte in the slab, a multiple of 8
 * @bytes:	in: bytes to copy, a multiple of 8, 8..NEURON_NDS_READ_MAX;
 *		@offset + @bytes at most NEURON_NDS_SIZE
 * @user_ptr:	in: where the bytes go
 * @reserved:	in: must be zero
 *
 * Copies a range of a process's slab without mapping it or looking it up
 * first: what a monitor reads every period. Each u64 of the range is read
 * with one load (on a 64-bit kernel), so no counter is seen half updated;
 * the range as a whole is not a snapshot (the owner keeps counting). Any
 * opener of the device may read any slab on it, as NDS_ACQUIRE with a pid
 * lets it map one read-only. Under the driver's locks the range goes
 * straight to @user_ptr, one store a u64, with page faults disabled; when
 * a store would fault (a page of the buffer not yet mapped, or mapped
 * read-only: the zero page, a copy-on-write page), the range is read
 * again into a kernel buffer and copied to @user_ptr after the locks are
 * let go, so a fault on the user buffer never holds them. After an error
 * other than -EINVAL, part of the buffer may have been written.
 *
 * Errors: -EINVAL: header, flags, reserved, @pid < 0, @offset or @bytes
 * not a multiple of 8, @bytes 0 or above NEURON_NDS_READ_MAX, the range
 * past the slab; -ENOENT: @pid holds no slab on this device (also when
 * its owner exits during the call); -EFAULT: the argument, or the
 * @user_ptr range (not mapped, not writable, not user memory); -ENOMEM;
 * -ENODEV: the device was removed.
 */
struct neuron_nds_read {
	__u32 size;
	__u32 flags;
	__s32 pid;
	__u32 offset;
	__u32 bytes;
	__u32 reserved0;
	__aligned_u64 user_ptr;
	__aligned_u64 reserved[2];
};

/* Addresses per NEURON_IOCTL_FW_READ (the 128-byte FW-IO window / 8). */
#define NEURON_FW_READ_MAX	16

/**
 * struct neuron_fw_read - NEURON_IOCTL_FW_READ argument: register reads
 * performed by the device firmware through the FW-IO mailbox (READ command)
 * @size:	in: sizeof(struct neuron_fw_read)
 * @flags:	in: must be 0
 * @count:	in: entries of @addr to read, 1..NEURON_FW_READ_MAX
 *		(0 -> -EINVAL, more -> -E2BIG)
 * @reserved0:	in: must be zero
 * @addr:	in: device addresses (simulated device: MiscRAM byte
 *		offsets); entries at and past @count must be zero
 * @value:	out: the 32-bit value at each address; an address the
 *		firmware cannot read gives 0xDEADBEEF
 * @reserved:	in: must be zero; out: zero
 *
 * Needs CAP_SYS_ADMIN (-EPERM). Firmware errors: -EIO (FW_IO_FAIL on every
 * attempt, or a malformed response), -ETIMEDOUT (no answer within
 * fwio_timeout_ms on the last attempt), -EOPNOTSUPP (firmware does not
 * know the command, or its API version is below 7), -EINTR (killed).
 */
struct neuron_fw_read {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 reserved0;
	__aligned_u64 addr[NEURON_FW_READ_MAX];
	__u32 value[NEURON_FW_READ_MAX];
	__aligned_u64 reserved[2];
};

/**
 * struct neuron_fw_power_profile - NEURON_IOCTL_FW_POWER_PROFILE argument:
 * ask firmware to switch the device's power profile (SET_POWER_PROFILE)
 * @size:	in: sizeof(struct neuron_fw_power_profile)
 * @flags:	in: must be 0 (reading the profile back is not supported)
 * @profile:	in: profile number, 0..255 (-EINVAL otherwise); which
 *		numbers a firmware accepts is its business (-EIO if not)
 * @reserved0:	in: must be zero
 * @reserved:	in: must be zero
 *
 * Needs CAP_SYS_ADMIN (-EPERM). Errors as for NEURON_IOCTL_FW_READ.
 */
struct neuron_fw_power_profile {
	__u32 size;
	__u32 flags;
	__u32 profile;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

/**
 * struct neuron_nq_init - NEURON_IOCTL_NQ_INIT argument
 * @size:	in: sizeof(struct neuron_nq_init)
 * @flags:	in: must be 0
 * @nc:		in: NeuronCore, < the device's NeuronCore count
 * @nq_type:	in: enum neuron_nq_type, < NEURON_NQ_TYPE_MAX
 * @engine:	in: engine index, < NEURON_NQ_MAX_ENGINE
 * @ring_size:	in: ring bytes, a power of two in
 *		NEURON_NQ_MIN_SIZE..NEURON_NQ_MAX_SIZE
 * @mmap_offset: out: cookie for mmap() on this fd
 * @mmap_size:	out: NEURON_NQ_RING_OFFSET + @ring_size; map exactly this
 * @reserved:	in: must be zero
 *
 * A NeuronCore's rings belong to the process holding the core: NQ_INIT
 * reserves the core for the caller (-EBUSY when another process holds it),
 * and a job writes its entries only into rings of the core's holder.
 * The caller's process owns the ring until NQ_RELEASE or its last close.
 * Re-init of a ring the caller owns with the same size returns the same
 * ring (its contents untouched); another size -> -EBUSY (release first);
 * a ring another process owns -> -EBUSY. A process holds at most 16 MiB of
 * ring mappings per device; past that -ENOSPC. The ring's memory is
 * charged to the caller's memory cgroup. Only the owner maps it, through a
 * file it opened itself (the cookie is no capability): anyone else's
 * mmap() is -EACCES, and an executable mapping is -EPERM. NQ_INIT
 * through a file another process opened -> -EACCES.
 */
struct neuron_nq_init {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 nq_type;
	__u32 engine;
	__u32 ring_size;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__aligned_u64 reserved[2];
};

/**
 * struct neuron_nq_release - NEURON_IOCTL_NQ_RELEASE argument
 * @size, @flags, @nc, @nq_type, @engine: as for NQ_INIT
 * @reserved0, @reserved: in: must be zero
 *
 * -ENOENT when the caller owns no such ring; -EBUSY while it is mapped
 * (unmap first: a mapping would keep the memory after the release).
 */
struct neuron_nq_release {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 nq_type;
	__u32 engine;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

/**
 * struct neuron_core_reserve - NEURON_IOCTL_CORE_RESERVE / _RELEASE argument
 * @size:	in: sizeof(struct neuron_core_reserve)
 * @flags:	in: must be 0
 * @nc:		in: NeuronCore
 * @reserved0, @reserved: in: must be zero
 *
 * RESERVE: the NeuronCore becomes the caller's process's until RELEASE or
 * its last close; -EBUSY when another process holds it; reserving again is
 * a no-op. RELEASE: -ENOENT when the caller does not hold it; the caller's
 * rings on that NeuronCore are released with it, so the next holder can
 * create its own; -EBUSY (nothing released) while one of them is mapped or
 * a job runs on the NeuronCore. Either through a file another process
 * opened -> -EACCES (a reservation ends with its opener's last close).
 *
 * TAKE_BACK (CAP_SYS_ADMIN, else -EPERM; through any file of the device):
 * the NeuronCore stops being its holder's. Its rings on it are freed (a
 * mapping of one keeps its pages and sees no new entry), the counters its
 * NDS slab holds for that NeuronCore are folded into the totals as at its
 * exit and the slab's later counts for it are not, the kernel log names
 * both processes, and the NeuronCore is free. From then on every use of
 * it by that process (RESERVE, NQ_INIT, SIM_EXEC, SIM_EXEC_MODEL) fails
 * with -ECANCELED, until its last close. -ENOENT when nobody holds it
 * (also when its holder released it while TAKE_BACK waited). While a job
 * of the holder runs on it, TAKE_BACK refuses the holder's new jobs on it
 * (-ECANCELED, as once it is taken) and waits for the running ones, at most the longest a job may
 * run and wait plus a second: -EBUSY (nothing changed) past that bound,
 * -EINTR when a fatal signal ends the wait.
 */
struct neuron_core_reserve {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

#define NEURON_EXEC_MAX_DURATION_US	10000000ULL	/* 10 s */
#define NEURON_EXEC_MAX_TIMEOUT_US	60000000ULL	/* 60 s */
#define NEURON_EXEC_DEFAULT_TIMEOUT_US	2000000ULL	/* when @timeout_us is 0 */

/*
 * neuron_sim_exec.flags: the job ends in a collectives error. The simulated
 * NeuronCore runs it as any other job and then writes one hardware-fault
 * entry NEURON_NQ_HW_COLLECTIVES into its ERROR ring (counted in @entries,
 * multicast and logged as HANG_ON_COLLECTIVES like an injected one), as a
 * device whose collective lost a peer would: how a runtime whose
 * collective failed between processes reports it (docs/sdk-compat.md).
 * A driver without it answers -EINVAL. -EPERM for a caller without
 * CAP_SYS_ADMIN while the module logs simulated faults with the real
 * tokens (sim_hw_err_real), which node remediation acts on.
 */
#define NEURON_SIM_EXEC_COLL_ERROR	(1U << 0)

/**
 * struct neuron_sim_exec - NEURON_IOCTL_SIM_EXEC argument (simulated device)
 * @size:	in: sizeof(struct neuron_sim_exec)
 * @flags:	in: 0 or NEURON_SIM_EXEC_COLL_ERROR
 * @nc:		in: NeuronCore; reserved for the caller on first use,
 *		-EBUSY when another process holds it or a job of the caller
 *		already runs on it
 * @reserved0:	in: must be zero
 * @duration_us: in: how long the job runs, <= NEURON_EXEC_MAX_DURATION_US
 * @timeout_us:	in: how long to wait for completion, 0 = default,
 *		<= NEURON_EXEC_MAX_TIMEOUT_US; a hung job fails with -ETIMEDOUT
 * @entries:	out: error entries the job wrote to the NeuronCore's ERROR
 *		ring (engine 0); must be zero on input (-EINVAL)
 * @dropped:	out: error entries dropped (full ring, or no ring); must be
 *		zero on input (-EINVAL)
 * @job_ns:	out: the job's time in the driver, in ns, from the ioctl
 *		taking it (before the NeuronCore's reservation) to its answer,
 *		by the kernel's local_clock() (NEURON_CAP_JOB_TIME). Its
 *		input is ignored: it was reserved (zero) before, and a program
 *		built then that passes one argument to job after job must
 *		keep working
 * @reserved:	in: must be zero
 *
 * The job runs synchronously: it sleeps @duration_us (interruptible:
 * -EINTR), emits every fault armed on the NeuronCore into its ERROR ring
 * (and, with NEURON_SIM_EXEC_COLL_ERROR, one collectives fault more),
 * and completes. A job that ran and failed with -ETIMEDOUT or -EINTR
 * still writes @job_ns back, and only it (@entries and @dropped stay as
 * they were: 0): a caller timing its jobs gets the time a hung or
 * interrupted one took; on every other error nothing is written back.
 * (@reserved had two elements before @job_ns took the first.) -EOPNOTSUPP on a device that is not simulated; -ENODEV
 * when the device is removed, also for a job in progress; -EACCES through
 * a file another process opened (the reservation is the opener's).
 * -ENOTRECOVERABLE: the NeuronCore took an uncorrectable error (simulated:
 * debugfs inject/nc_unrecoverable) and refuses every job, at once and
 * writing nothing, until the device is reset (sysfs neuron<N>/reset, with
 * no process holding the device open); libnrt reports it as
 * NRT_EXEC_UNIT_UNRECOVERABLE (101).
 */
struct neuron_sim_exec {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 reserved0;
	__aligned_u64 duration_us;
	__aligned_u64 timeout_us;
	__u32 entries;
	__u32 dropped;
	__aligned_u64 job_ns;
	__aligned_u64 reserved[1];
};

/* ---- device memory ---------------------------------------------------- */

#define NEURON_CAP_MEM		(1ULL << 5)	/* device memory: MEM_* with NEURON_MEM_LOC_DEVICE */
#define NEURON_CAP_MEM_MMAP	(1ULL << 8)	/* device memory allocations can be mmap()ed */

/*
 * mmap of a device-memory allocation (NEURON_CAP_MEM_MMAP): the
 * device's HBM as the process sees a memory BAR, without a system call per
 * access. The mmap offset of an allocation is
 * NEURON_MEM_MMAP_OFFSET(device_addr), device_addr as MEM_ALLOC returned
 * it; the mapping starts at the allocation's first byte and is at most its
 * size rounded up to whole pages (the tail of the last page is the
 * allocation's own padding, zeroed when it was made: never another
 * allocation's memory). Only MAP_SHARED, never PROT_EXEC, only by the
 * process that opened the file, through the file that made the allocation;
 * not inherited across fork (as NDS slabs and rings). Pages appear on first
 * touch. Errors: -EINVAL: an offset that is no live device allocation of
 * this file (a host allocation, another file's or process's, a freed one,
 * an offset inside one), a length past its rounded size, MAP_PRIVATE;
 * -EACCES: not the opener; -EPERM: PROT_EXEC; -ENODEV: the device is gone;
 * -EBUSY: a device reset is running (the vendor's DEVICE_RESET, or NC_RESET
 * of the whole device, by another thread of the process).
 *
 * Revocation: MEM_FREE of the allocation, the release of its file and the
 * device's removal revoke its mappings. Their page table entries are
 * removed at once and a later access faults: the process gets SIGBUS,
 * never the memory's next owner's data. A device reset is refused (-EBUSY)
 * while any allocation of the device has been mapped and not freed, even
 * after munmap(), until MEM_FREE or the release of its file (a live
 * mapping keeps the file open after close()). The mapping itself stays a
 * valid address range until munmap().
 */
#define NEURON_MEM_MMAP_BASE	0x10000000000ULL	/* 1 TiB: above the NDS and NQ cookies */
#define NEURON_MEM_MMAP_OFFSET(device_addr)	(NEURON_MEM_MMAP_BASE + (device_addr))

/* Where an allocation lives. */
#define NEURON_MEM_LOC_DEVICE	0	/* the device's HBM */
#define NEURON_MEM_LOC_HOST	1	/* host memory the driver holds for the process */

/*
 * Allocation categories: the driver's categories whose names the sysfs
 * memory_usage trees use (docs/ABI/sysfs-devices-neuron).
 * CONTIGUOUS_SCRATCHPAD is accounted as SCRATCHPAD.
 */
#define NEURON_MEM_CAT_UNKNOWN			0
#define NEURON_MEM_CAT_CODE			1
#define NEURON_MEM_CAT_TENSORS			2
#define NEURON_MEM_CAT_CONSTANTS		3
#define NEURON_MEM_CAT_SCRATCHPAD		4
#define NEURON_MEM_CAT_MISC			5
#define NEURON_MEM_CAT_NCDEV			6
#define NEURON_MEM_CAT_COLLECTIVES		7
#define NEURON_MEM_CAT_SCRATCHPAD_NONSHARED	8
#define NEURON_MEM_CAT_NOTIFICATION		9
#define NEURON_MEM_CAT_DMA_RINGS		10
#define NEURON_MEM_CAT_COUNT			11

/**
 * struct neuron_mem_alloc - NEURON_IOCTL_MEM_ALLOC argument
 * @size:	in: sizeof(struct neuron_mem_alloc)
 * @flags:	in: must be 0
 * @nc:		in: NeuronCore the allocation belongs to (accounting)
 * @location:	in: NEURON_MEM_LOC_*
 * @category:	in: NEURON_MEM_CAT_*
 * @reserved0:	in: must be zero
 * @bytes:	in: allocation size, > 0
 * @handle:	out: non-zero handle, valid on the file that allocated it
 * @device_addr: out: offset in HBM for NEURON_MEM_LOC_DEVICE, else 0
 * @reserved:	in: must be zero
 *
 * -ENOMEM when the device's HBM (or the per-process host cap) is
 * exhausted: never a kernel warning. Everything a file allocated is freed
 * on its last close.
 *
 * Device memory comes in 4 KiB granules (@device_addr is 4 KiB aligned;
 * @bytes is rounded up to whole granules of HBM, and sysfs counts @bytes)
 * and reads as zeros when allocated. Host memory is charged to the
 * caller's memory cgroup and capped per process and device at the
 * mem_host_proc_max_mb module parameter (page-rounded sizes, across the
 * process's files). Errors: -EINVAL: header, flags, @reserved0/@reserved,
 * @nc, @location or @category out of range, @bytes 0; -EOPNOTSUPP: device
 * memory on a device without any (GET_INFO @hbm_size 0); -EACCES: the
 * caller is not the process that opened the file; -ENOMEM as above;
 * -ENOSPC: the file holds 2^32 - 1 allocations.
 */
struct neuron_mem_alloc {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 location;
	__u32 category;
	__u32 reserved0;
	__aligned_u64 bytes;
	__aligned_u64 handle;
	__aligned_u64 device_addr;
	__aligned_u64 reserved[2];
};

/**
 * struct neuron_mem_free - NEURON_IOCTL_MEM_FREE argument
 * @size:	in: sizeof(struct neuron_mem_free)
 * @flags:	in: must be 0
 * @handle:	in: from MEM_ALLOC on this file; -ENOENT otherwise (also for
 *		a handle already freed, or another file's)
 * @reserved:	in: must be zero
 *
 * The handle is gone at once; the memory goes when a READ/WRITE/SET or
 * SIM_EXEC_MODEL still using it ends. -EACCES from a process other than
 * the file's opener.
 */
struct neuron_mem_free {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__aligned_u64 reserved[2];
};

/**
 * struct neuron_mem_rw - NEURON_IOCTL_MEM_READ / _WRITE / _SET argument
 * @size:	in: sizeof(struct neuron_mem_rw)
 * @flags:	in: must be 0
 * @handle:	in: from MEM_ALLOC on this file; -ENOENT otherwise
 * @offset:	in: byte offset into the allocation
 * @bytes:	in: bytes to move; @offset + @bytes past the end -> -EINVAL
 * @user_ptr:	in: READ: destination, WRITE: source buffer; SET: unused, 0
 * @value:	in: SET: the byte value (0..255); READ/WRITE: must be 0
 * @reserved0, @reserved: in: must be zero
 *
 * A transfer moves in 64 KiB steps; a fatal signal between two ends it
 * with -EINTR (what was moved stays moved).
 *
 * Errors: -EINVAL: header, flags, reserved, @value, SET with @user_ptr,
 * @bytes 0, or the range past the allocation's end; -ENOENT: @handle;
 * -EACCES: not the file's opener; -EFAULT: @user_ptr; -EINTR: killed
 * (device memory moves in 64 KiB steps, each one complete); -ENOMEM: the
 * simulated HBM cannot hold the data; -ENODEV: the device was removed.
 * The user buffer is copied outside the device lock, so a fault on it
 * never delays device removal.
 */
struct neuron_mem_rw {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__aligned_u64 offset;
	__aligned_u64 bytes;
	__aligned_u64 user_ptr;
	__u32 value;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

/* ---- dma-buf -------------------------------------------------------------- */

/*
 * NEURON_CAP_MEM_DMABUF: device allocations can be exported as dma-bufs
 * (the vendor's DMABUF_FD, <neuron/neuron_vendor_ioctl.h>, on a range of
 * the caller's mapping of one) and this device imports them
 * (MEM_DMABUF_READ). The simulated device only: PCI-backed HBM is not
 * exported.
 */
#define NEURON_CAP_MEM_DMABUF	(1ULL << 10)

/**
 * struct neuron_mem_dmabuf_read - NEURON_IOCTL_MEM_DMABUF_READ argument
 * @size:	in: sizeof(struct neuron_mem_dmabuf_read)
 * @flags:	in: must be 0
 * @fd:		in: a dma-buf file descriptor (any exporter's)
 * @reserved0:	in: must be zero
 * @handle:	in: a device allocation of this file (MEM_ALLOC)
 * @offset:	in: where in it the bytes go
 * @src_offset:	in: where in the dma-buf they come from
 * @bytes:	in: how many, > 0
 * @reserved:	in: must be zero
 *
 * The device attaches the dma-buf, maps the attachment for DMA and copies
 * from it, as a NIC that registered it would, then unmaps and detaches.
 * Errors: -EINVAL: header, flags, reserved fields, @bytes 0, a range past
 * the allocation or the dma-buf, not a device allocation; -ENOENT: not a
 * handle of this file; -EBADF or -EINVAL: @fd is no dma-buf; -EACCES: not
 * the opener; -EOPNOTSUPP: the device does not import
 * (NEURON_CAP_MEM_DMABUF clear); -ENODEV: either device is gone; -EINTR.
 */
struct neuron_mem_dmabuf_read {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 reserved0;
	__aligned_u64 handle;
	__aligned_u64 offset;
	__aligned_u64 src_offset;
	__aligned_u64 bytes;
	__aligned_u64 reserved[2];
};

/* Operations a simulated NeuronCore runs over device memory (MODEL_EXEC). */
#define NEURON_SIM_OP_NONE	0	/* no data touched: run time and faults only */
#define NEURON_SIM_OP_COPY	1	/* out = in */
#define NEURON_SIM_OP_AFFINE_U32 2	/* out[i] = in[i] * arg0 + arg1 (u32 LE words, mod 2^32) */
#define NEURON_SIM_OP_XOR_U8	3	/* out[i] = in[i] ^ arg0 (bytes) */

/**
 * struct neuron_sim_exec_model - NEURON_IOCTL_SIM_EXEC_MODEL argument
 * @size:	in: sizeof(struct neuron_sim_exec_model)
 * @flags:	in: must be 0
 * @nc:		in: NeuronCore, as for NEURON_IOCTL_SIM_EXEC
 * @op:		in: NEURON_SIM_OP_*
 * @duration_us, @timeout_us: in: as for NEURON_IOCTL_SIM_EXEC
 * @in_handle, @out_handle: in: MEM_ALLOC handles of this file (0 for OP_NONE)
 * @in_offset, @out_offset: in: byte offsets into them
 * @bytes:	in: bytes processed (multiple of 4 for AFFINE_U32), in range
 *		of both allocations
 * @arg0, @arg1: in: operation parameters
 * @entries, @dropped, @job_ns: out: as for NEURON_IOCTL_SIM_EXEC (@job_ns
 *		alone also after -ETIMEDOUT and -EINTR)
 * @reserved:	in: must be zero
 *
 * NEURON_IOCTL_SIM_EXEC with data: the job runs @op from the input to the
 * output allocation, then completes as SIM_EXEC does (armed faults go to
 * the ERROR ring). -EOPNOTSUPP on a device that is not simulated.
 *
 * The operation runs after @duration_us and before the armed faults are
 * taken, device or host memory alike. In and out may be the same
 * allocation at the same offset (in place) or apart; a partial overlap is
 * -EINVAL. OP_NONE needs every data field (handles, offsets, @bytes,
 * @arg0, @arg1) zero; COPY needs @arg0 and @arg1 zero; XOR_U8 @arg0 <=
 * 255 and @arg1 zero; any other @op is -EINVAL. Errors as SIM_EXEC, plus
 * -ENOENT for a handle that is not this file's and -EINVAL for a range
 * past either allocation. Both allocations stay alive for the job even
 * if freed meanwhile.
 */
struct neuron_sim_exec_model {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 op;
	__aligned_u64 duration_us;
	__aligned_u64 timeout_us;
	__aligned_u64 in_handle;
	__aligned_u64 out_handle;
	__aligned_u64 in_offset;
	__aligned_u64 out_offset;
	__aligned_u64 bytes;
	__u32 arg0;
	__u32 arg1;
	__u32 entries;
	__u32 dropped;
	__aligned_u64 job_ns;
	__aligned_u64 reserved[1];
};

/* ---- device and process listing (tools) ------------------------------- */

#define NEURON_CAP_APPS_INFO	(1ULL << 6)	/* NEURON_IOCTL_APPS_INFO */

/* Entries one NEURON_IOCTL_APPS_INFO call returns at most. */
#define NEURON_APPS_INFO_MAX	12

/**
 * struct neuron_app_entry - one process using the device
 * @pid:	its process id in the caller's pid namespace
 * @nc_map:	bit K set: the process holds NeuronCore K (a reservation,
 *		its rings, or a job running on it)
 * @reserved:	zero
 */
struct neuron_app_entry {
	__s32 pid;
	__u32 nc_map;
	__aligned_u64 reserved;
};

/**
 * struct neuron_apps_info - NEURON_IOCTL_APPS_INFO argument: the processes
 * that have the device open (what neuron-ls and neuron-monitor list)
 * @size:	in: sizeof(struct neuron_apps_info)
 * @flags:	in: must be 0
 * @start:	in: skip this many processes of the device's list (pages
 *		through more than NEURON_APPS_INFO_MAX processes)
 * @count:	out: entries filled in @app, 0..NEURON_APPS_INFO_MAX
 * @total:	out: processes the list held (visible to the caller)
 * @reserved0:	in: must be zero
 * @reserved:	in: must be zero
 * @app:	out: the processes, oldest open first; entries past @count
 *		are zero. In: must be zero.
 *
 * Any process that can open the device may list it (the vendor's tools
 * do not need root). Processes in a pid namespace the caller cannot see
 * are not listed. Each call is a snapshot: a process that opens or
 * closes between two pages may be missed or listed twice.
 */
struct neuron_apps_info {
	__u32 size;
	__u32 flags;
	__u32 start;
	__u32 count;
	__u32 total;
	__u32 reserved0;
	__aligned_u64 reserved[2];
	struct neuron_app_entry app[NEURON_APPS_INFO_MAX];
};

/* ---- who holds each NeuronCore; taking one back ----------------------- */

#define NEURON_CAP_CORE_HOLDERS	(1ULL << 7)	/* CORE_HOLDERS and CORE_TAKE_BACK */

/* Process ids one NEURON_IOCTL_CORE_HOLDERS call returns at most. */
#define NEURON_CORE_HOLDERS_MAX	16

/* struct neuron_core_holders @state */
#define NEURON_CORE_FREE	0	/* nobody holds the NeuronCore */
#define NEURON_CORE_HELD	1	/* reserved: @owner_pid, @since_ns, @pid */

/* struct neuron_core_holders @owner_flags */
#define NEURON_CORE_OWNER_EXITED	(1U << 0)	/* the reserving process has
							 * exited; its file lives on
							 * in the processes of @pid */
#define NEURON_CORE_OWNER_HIDDEN	(1U << 1)	/* the reserving process is
							 * in a pid namespace the
							 * caller cannot see */

/**
 * struct neuron_core_holders - NEURON_IOCTL_CORE_HOLDERS argument: who
 * holds one NeuronCore of the device, and since when
 * @size:	in: sizeof(struct neuron_core_holders)
 * @flags:	in: must be 0
 * @nc:		in: the NeuronCore (device-relative)
 * @state:	out: NEURON_CORE_FREE or NEURON_CORE_HELD
 * @owner_pid:	out: the process that reserved it, in the caller's pid
 *		namespace (0 when free or NEURON_CORE_OWNER_HIDDEN). With
 *		NEURON_CORE_OWNER_EXITED the number is the one it had: it may
 *		name another process by now.
 * @owner_flags: out: NEURON_CORE_OWNER_*
 * @since_ns:	out: CLOCK_BOOTTIME nanoseconds at which it was reserved
 * @count:	out: entries filled in @pid, 0..NEURON_CORE_HOLDERS_MAX
 * @total:	out: processes that hold it (see below), visible ones and
 *		@hidden ones together
 * @hidden:	out: of @total, processes in pid namespaces the caller
 *		cannot see (counted, never named)
 * @reserved0:	in: must be zero
 * @reserved:	in: must be zero
 * @pid:	out: the processes that hold it, in the caller's pid
 *		namespace, in no particular order; entries past @count are
 *		zero. In: must be zero.
 *
 * A reservation belongs to the process that made it and lasts until the
 * last close of its files on the device. Every process with one of those
 * files in its file table can still use the NeuronCore and keeps it
 * reserved, a forked child too: those are its holders. Any process that
 * can open the device may ask. Each call is a snapshot.
 */
struct neuron_core_holders {
	__u32 size;
	__u32 flags;
	__u32 nc;
	__u32 state;
	__s32 owner_pid;
	__u32 owner_flags;
	__aligned_u64 since_ns;
	__u32 count;
	__u32 total;
	__u32 hidden;
	__u32 reserved0;
	__aligned_u64 reserved[2];
	__s32 pid[NEURON_CORE_HOLDERS_MAX];
};

/* ---- command table ------------------------------------------------------
 * 0xC0..0xC7 device and NDS, 0xC8..0xCF notification queues and simulated
 * cores, 0xD0..0xD7 FW-IO, 0xD8..0xDF device memory, 0xE0..0xE7 device
 * and process listing (tools). Numbers are never reused.
 */
#define NEURON_IOCTL_GET_INFO		_IOWR(NEURON_IOCTL_MAGIC, 0xC0, struct neuron_info)
#define NEURON_IOCTL_NDS_ACQUIRE	_IOWR(NEURON_IOCTL_MAGIC, 0xC1, struct neuron_nds_acquire)
#define NEURON_IOCTL_NDS_COUNTER_ADD	_IOW(NEURON_IOCTL_MAGIC, 0xC2, struct neuron_nds_counter_add)
#define NEURON_IOCTL_NDS_READ		_IOW(NEURON_IOCTL_MAGIC, 0xC3, struct neuron_nds_read)
#define NEURON_IOCTL_NQ_INIT		_IOWR(NEURON_IOCTL_MAGIC, 0xC8, struct neuron_nq_init)
#define NEURON_IOCTL_NQ_RELEASE		_IOW(NEURON_IOCTL_MAGIC, 0xC9, struct neuron_nq_release)
#define NEURON_IOCTL_CORE_RESERVE	_IOW(NEURON_IOCTL_MAGIC, 0xCA, struct neuron_core_reserve)
#define NEURON_IOCTL_CORE_RELEASE	_IOW(NEURON_IOCTL_MAGIC, 0xCB, struct neuron_core_reserve)
#define NEURON_IOCTL_SIM_EXEC		_IOWR(NEURON_IOCTL_MAGIC, 0xCC, struct neuron_sim_exec)
#define NEURON_IOCTL_FW_READ		_IOWR(NEURON_IOCTL_MAGIC, 0xD0, struct neuron_fw_read)
#define NEURON_IOCTL_FW_POWER_PROFILE	_IOW(NEURON_IOCTL_MAGIC, 0xD1, struct neuron_fw_power_profile)
#define NEURON_IOCTL_SIM_EXEC_MODEL	_IOWR(NEURON_IOCTL_MAGIC, 0xCD, struct neuron_sim_exec_model)
/* CAP_SYS_ADMIN: take a NeuronCore back from its holder (neuron_core_reserve) */
#define NEURON_IOCTL_CORE_TAKE_BACK	_IOW(NEURON_IOCTL_MAGIC, 0xCE, struct neuron_core_reserve)
#define NEURON_IOCTL_MEM_ALLOC		_IOWR(NEURON_IOCTL_MAGIC, 0xD8, struct neuron_mem_alloc)
#define NEURON_IOCTL_MEM_FREE		_IOW(NEURON_IOCTL_MAGIC, 0xD9, struct neuron_mem_free)
#define NEURON_IOCTL_MEM_READ		_IOW(NEURON_IOCTL_MAGIC, 0xDA, struct neuron_mem_rw)
#define NEURON_IOCTL_MEM_WRITE		_IOW(NEURON_IOCTL_MAGIC, 0xDB, struct neuron_mem_rw)
#define NEURON_IOCTL_MEM_SET		_IOW(NEURON_IOCTL_MAGIC, 0xDC, struct neuron_mem_rw)
#define NEURON_IOCTL_MEM_DMABUF_READ	_IOW(NEURON_IOCTL_MAGIC, 0xDD, struct neuron_mem_dmabuf_read)
#define NEURON_IOCTL_APPS_INFO		_IOWR(NEURON_IOCTL_MAGIC, 0xE0, struct neuron_apps_info)
#define NEURON_IOCTL_CORE_HOLDERS	_IOWR(NEURON_IOCTL_MAGIC, 0xE1, struct neuron_core_holders)

#endif /* _UAPI_NEURON_IOCTL_H */
