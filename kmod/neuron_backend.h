/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boundary between the driver core (the kmod/ files) and a device backend
 * (the PCI backend, neuron_pci.c; the simulator, sim/). Nothing else
 * crosses it, in either direction:
 *
 *  - down: a backend hands the core a struct neuron_backend_ops and a
 *    struct neuron_arch_desc; the core calls the ops and never asks which
 *    backend it has;
 *  - up: a backend calls only the core services declared below (create and
 *    destroy a device, find its debugfs directories, write a job's error
 *    entries into the host ring the way a device's DMA would).
 *
 * The core's own structures stay private to the core: a backend holds an
 * opaque struct neuron_device pointer and gets its own private pointer back
 * as the first argument of every op.
 */
#ifndef NEURON_BACKEND_H
#define NEURON_BACKEND_H

#include <linux/moduleparam.h>
#include <linux/types.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nq.h>

#define NEURON_MAX_NC		8	/* NeuronCores per device */

struct dentry;
struct device;
struct neuron_device;
struct neuron_job;
struct page;

/**
 * struct neuron_backend_ops - what a device backend provides
 * @name:	backend name for logs ("sim", "pci")
 * @kind:	NEURON_BACKEND_* reported by GET_INFO (reported, never tested)
 * @simulated:	its errors are simulated: the kernel log names them with
 *		tokens remediation does not act on (neuron_hwerr.c), unless
 *		sim_hw_err_real is set
 * @instance_id: metric 12 of the metrics post; NULL: the platform's own
 *		(the DMI board asset tag, the EC2 instance id)
 * @misc_read:	read the 32-bit MiscRAM word at byte offset @off
 *		(neuron_miscram_reg.h); NEURON_MISCRAM_BAD_READ for an offset
 *		the backend cannot read, as the hardware does
 * @misc_write:	write the 32-bit MiscRAM word at byte offset @off (the
 *		FW-IO doorbell is the write of 1 to TRIGGER: a backend's
 *		firmware sees it here, there is no other doorbell)
 * @dma_alloc:	optional; a zeroed buffer of @size bytes the device reads and
 *		writes (DMA-coherent), its device-side address in @dev_addr.
 *		The first call is where a PCI function gets its DMA mask and
 *		bus mastering. NULL on failure. Without it, the legacy
 *		host-memory FW-IO path is unavailable (-EOPNOTSUPP).
 *		Process context.
 * @dma_free:	optional; release what @dma_alloc returned
 * @exec:	optional; run a job on a NeuronCore (NEURON_IOCTL_SIM_EXEC).
 *		The core has validated the arguments and reserved the core for
 *		the caller. The backend writes the job's error entries with
 *		neuron_job_emit(), fills @job->faults and returns 0 or a
 *		negative errno (-EBUSY: a job already runs on the core,
 *		-ETIMEDOUT: the job hung, -EINTR: signal, -ENODEV: the device
 *		is being removed). Sleeps; process context. Without it the
 *		ioctl is -EOPNOTSUPP and GET_INFO does not report
 *		NEURON_CAP_SIM_EXEC.
 * @connected_devices: optional; fill @ids with the indexes (N of
 *		/dev/neuron<N>) of the devices this one has a direct link to,
 *		never itself, at most @max; return how many. Without it the
 *		device reports no links. Any context that may sleep; must not
 *		wait for a device's removal.
 * @mem_size:	optional; bytes of device memory (HBM), read once when the
 *		device is created. Without it (or 0) the device has no device
 *		memory: MEM_ALLOC of it is -EOPNOTSUPP and GET_INFO does not
 *		report NEURON_CAP_MEM.
 * @mem_read, @mem_write, @mem_set: device memory access at byte address
 *		@addr, within @mem_size (the core checks). 0, or -ENOMEM when
 *		the backend cannot hold the data. Sleep; process context; the
 *		core calls them with gone_sem held, never after
 *		neuron_device_destroy().
 * @mem_page:	optional (with the @mem_* ops); the page that holds the
 *		NEURON_MEM_GRANULE bytes of device memory at @addr (granule
 *		aligned, within @mem_size), created zeroed when absent, with a
 *		reference the caller drops (put_page), or NULL without memory.
 *		The core maps it into a process (mmap of an allocation) with a
 *		special PTE (VM_PFNMAP: the PTE holds no page reference and GUP
 *		refuses it), and calls this only when PAGE_SIZE is
 *		NEURON_MEM_GRANULE. From this call until @mem_unmap covers
 *		@addr, the page stays the one @mem_read/@mem_write/@mem_set
 *		reach at @addr and is never freed (the backend zeroes it in
 *		place rather than dropping it). A page the backend gives back
 *		is never handed out again while anyone else still references
 *		it. Sleeps; process context; the core calls it under its
 *		mapping lock, never once the device is gone. Without it GET_INFO
 *		does not report NEURON_CAP_MEM_MMAP and mmap of an allocation
 *		is -EINVAL.
 * @mem_unmap:	required with @mem_page; [@addr, @addr + @len) (an
 *		allocation, granule aligned) is mapped in no process any more:
 *		its pages may be given back when zeroed. Called under the
 *		mapping lock, never once the device is gone (a gone device's
 *		memory goes with it). Must not fail.
 * @reset:	optional; a full device reset (sysfs reset, no file open):
 *		every NeuronCore usable again, device memory contents
 *		discarded. 0 or a negative errno (the device reads INVALID).
 *		Without it, a write to reset is -EOPNOTSUPP.
 * @nc_reset:	optional; reset NeuronCores @nc_map (bit n = NeuronCore n,
 *		never 0, only cores the device has): each is usable again,
 *		device memory untouched. 0 or a negative errno (the cores stay
 *		as they were; the device stays READY). Sleeps. Without it the
 *		vendor's NC_RESET is -EOPNOTSUPP.
 * @pe_read32:	optional; the BAR0 word at @off of the tensor engine's PE
 *		activity counters (common/neuron_pe_counters.h: only offsets of
 *		the device's layout): 0, -EIO when it cannot be read (its
 *		page was not mapped), -ENODEV when the function is gone. Without it (a simulated device) the
 *		counters read 0.
 * @stop:	optional (with @exec); end the jobs in progress (-ENODEV) and
 *		refuse new ones, without waiting for them. The core calls it
 *		when neuron_device_create() fails after the node appeared,
 *		before it waits for the file operations in progress; before
 *		neuron_device_destroy() the backend stops its jobs itself.
 * @nc_unrecoverable: optional; true while NeuronCore @nc (< the device's
 *		count) took an uncorrectable error and refuses jobs until a
 *		full reset. Any context that may sleep, at any time until
 *		neuron_device_destroy() returns; must not block. Without it no
 *		NeuronCore is ever reported unrecoverable (sysfs health).
 * @pci_info:	optional; the PCI function behind the device: its location,
 *		revision and BAR0 length (the vendor ABI's DEVICE_BDF and
 *		DEVICE_INFO, docs/vendor-abi.md). Without it (a simulated
 *		device) those read as no PCI function. Any context that may
 *		sleep; must not fail.
 * @create_fault: optional, for tests (the simulator): the error the
 *		creation of this device returns at @step (enum
 *		neuron_create_step) as if that step had failed, or 0 to go
 *		on. Called once per step; may sleep.
 *
 * Every op gets the @backend pointer given to neuron_device_create(). The
 * core calls no op once neuron_device_destroy() has returned.
 */
/**
 * struct neuron_pci_info - what ops->pci_info reports
 * @domain, @bus, @slot, @func: the function's PCI location
 * @revision:	its PCI revision id
 * @bar0_len:	the length of its BAR0
 */
struct neuron_pci_info {
	u32 domain;
	u8 bus;
	u8 slot;
	u8 func;
	u8 revision;
	u64 bar0_len;
};

struct neuron_backend_ops {
	const char *name;
	u32 kind;
	bool simulated;
	const char *instance_id;
	u32 (*misc_read)(void *backend, u32 off);
	void (*misc_write)(void *backend, u32 off, u32 val);
	void *(*dma_alloc)(void *backend, size_t size, u64 *dev_addr);
	void (*dma_free)(void *backend, size_t size, void *va, u64 dev_addr);
	int (*exec)(void *backend, struct neuron_job *job);
	u32 (*connected_devices)(void *backend, u32 *ids, u32 max);
	u64 (*mem_size)(void *backend);
	int (*mem_read)(void *backend, u64 addr, void *buf, size_t len);
	int (*mem_write)(void *backend, u64 addr, const void *buf, size_t len);
	int (*mem_set)(void *backend, u64 addr, u8 value, u64 len);
	struct page *(*mem_page)(void *backend, u64 addr);
	void (*mem_unmap)(void *backend, u64 addr, u64 len);
	int (*reset)(void *backend);
	int (*nc_reset)(void *backend, u32 nc_map);
	int (*pe_read32)(void *backend, u64 off, u32 *val);
	void (*pci_info)(void *backend, struct neuron_pci_info *info);
	void (*stop)(void *backend);
	bool (*nc_unrecoverable)(void *backend, u32 nc);
	int (*create_fault)(void *backend, u32 step);
};

/*
 * Steps of neuron_device_create() a backend's @create_fault can fail.
 * NEURON_CREATE_STEP_SYSFS: the end of the sysfs tree's setup, with the
 * whole tree built and the device node already open to processes.
 */
enum neuron_create_step {
	NEURON_CREATE_STEP_SYSFS,
};

/**
 * struct neuron_arch_desc - what info/architecture/ reports
 * @arch_type:		device architecture ("NDv2", "NDsim")
 * @nc_arch_type:	NeuronCore architecture ("NCv2")
 * @instance_type:	instance family ("Trn1", "sim")
 * @device_name:	product name ("Trainium1")
 * @hbm_channels:	HBM ECC words in MiscRAM (NEURON_MISCRAM_HBM_ECC(ch))
 * @has_repair_state:	MiscRAM carries the HBM repair state (v3+)
 * @fw_arch:		enum neuron_fw_arch (common/neuron_fw_profile.h): whose
 *			firmware contract the FW-IO transport follows
 * @fw_time_div:	simulated devices only: the contract's timeouts divided
 *			by this (0 and 1: real time, what every PCI device has)
 */
struct neuron_arch_desc {
	const char *arch_type;
	const char *nc_arch_type;
	const char *instance_type;
	const char *device_name;
	u32 hbm_channels;
	bool has_repair_state;
	u32 fw_arch;
	u32 fw_time_div;
};

/**
 * struct neuron_job_faults - error entries a job wrote, by kind
 * @flood:	filler entries (TPB FP_UNDERFLOW) of an NQ flood
 * @tpb:	TPB error entries per NEURON_ISA_TPB_ERROR_TYPE
 * @hw:		hardware fault entries per enum neuron_nq_hw_error
 *
 * Plain data: the core multicasts one netlink ERROR_EVENT per non-zero
 * count once the job returned.
 */
struct neuron_job_faults {
	u32 flood;
	u32 tpb[NEURON_TPB_ERROR_COUNT];
	u32 hw[NEURON_NQ_HW_COUNT];
};

/**
 * struct neuron_job_buf - one side of a model job's data
 * @location:	NEURON_MEM_LOC_DEVICE: @addr is a device memory address;
 *		NEURON_MEM_LOC_HOST: @host is host memory the device reads or
 *		writes as its DMA would (the core keeps it alive for the job)
 * @addr:	device memory byte address of the first byte
 * @host:	kernel address of the first byte
 */
struct neuron_job_buf {
	u32 location;
	u64 addr;
	u8 *host;
};

/**
 * struct neuron_job_model - the data a model job computes on
 * @op:		NEURON_SIM_OP_* other than NONE
 * @arg0, @arg1: its parameters (validated by the core)
 * @bytes:	bytes processed; in range of both sides (checked by the core)
 * @in, @out:	input and output; the same memory only when they coincide
 *		exactly (in place), never a partial overlap
 */
struct neuron_job_model {
	u32 op;
	u32 arg0;
	u32 arg1;
	u64 bytes;
	struct neuron_job_buf in;
	struct neuron_job_buf out;
};

/**
 * struct neuron_job - one job handed to ops->exec
 * @nd:		the device (for neuron_job_emit())
 * @nc:		NeuronCore, < the device's NeuronCore count
 * @duration_us: how long the job runs
 * @timeout_us:	how long the caller waits for completion (never 0)
 * @written:	out (neuron_job_emit): entries written to the core's ERROR ring
 * @dropped:	out (neuron_job_emit): entries dropped (full ring, or no ring
 *		of the core's holder)
 * @faults:	out (backend): what the job wrote, by kind
 * @model:	NULL for NEURON_IOCTL_SIM_EXEC; for NEURON_IOCTL_SIM_EXEC_MODEL
 *		the data the job computes on after its run time, before it
 *		completes (a backend that cannot returns -EOPNOTSUPP)
 * @coll_error:	NEURON_SIM_EXEC_COLL_ERROR: after its run time the job writes
 *		one NEURON_NQ_HW_COLLECTIVES entry besides what was armed
 *		(and counts it in @faults)
 */
struct neuron_job {
	struct neuron_device *nd;
	u32 nc;
	u64 duration_us;
	u64 timeout_us;
	u32 written;
	u32 dropped;
	u64 ns;		/* core: the job's time, local_clock(), for @job_ns */
	struct neuron_job_faults faults;
	const struct neuron_job_model *model;
	bool coll_error;
};

/*
 * ---- core services a backend calls ---------------------------------------
 * This header is the one place they are declared for backends; each says
 * which core file implements it (that file's own header declares the rest
 * of it for the core).
 */

/* neuron_device.c */

/*
 * Register a device: /dev/neuron<N>, its sysfs tree, FW-IO, the metrics
 * post. @nc_count is 1..NEURON_MAX_NC. The backend's ops may be called
 * before this returns. An error pointer on failure.
 */
struct neuron_device *neuron_device_create(const struct neuron_backend_ops *ops,
					   const struct neuron_arch_desc *arch,
					   void *backend, u32 nc_count);
/*
 * Remove a device (docs/ARCHITECTURE.md, "Removal"): open files get
 * -ENODEV from here on, what they mapped stays valid until unmapped, the
 * counters are folded and logged. Waits for the file operations in
 * progress, so the backend first makes its own long waits (a job) end.
 * No op is called after it returns.
 */
void neuron_device_destroy(struct neuron_device *nd);
/*
 * The same with a chosen index (N of /dev/neuron<N>, < 64), as a PCI
 * device numbered from its firmware routing id: -EEXIST when N is taken.
 * @invalid: the device's reset at probe did not complete: it is created
 * in state INVALID (neuron_reset.h), unusable until a reset succeeds.
 */
struct neuron_device *neuron_device_create_index(const struct neuron_backend_ops *ops,
						 const struct neuron_arch_desc *arch,
						 void *backend, u32 nc_count, u32 index,
						 bool invalid);

/* N of /dev/neuron<N>. */
u32 neuron_device_index(const struct neuron_device *nd);
/* The class device, for dev_*() logging about this device. */
struct device *neuron_device_dev(struct neuron_device *nd);
/*
 * debugfs neuron<N>/ and neuron<N>/fw/ (NULL without debugfs). A backend
 * adds its own files there and removes them before neuron_device_destroy().
 */
struct dentry *neuron_device_debugfs(const struct neuron_device *nd);
struct dentry *neuron_device_fw_debugfs(const struct neuron_device *nd);
/*
 * neuron_fwio.c: before a device is created, wait until its firmware is
 * ready as the vendor's probe does: DEVICE_ID (MiscRAM 0x24) stops reading
 * 0xDEADBEEF (bounds: common/neuron_fw_profile.h, NEURON_FW_READY_*, each
 * divided by @time_div when it is > 1). 0 and the routing id in
 * *@routing_id, -ENODEV when the bound passes, -EINTR when killed. Sleeps.
 */
int neuron_fw_wait_ready(const struct neuron_backend_ops *ops, void *backend, u32 time_div,
			 u32 *routing_id);

/*
 * neuron_fwio.c: reset the device as the vendor's probe does
 * (common/neuron_fw_profile.h, NEURON_FW_RESET_*), before the device is
 * created and before any bus mastering: RESET = 1, TRIGGER = 1, wait for
 * firmware to take it and for FW_STATUS to stop reading busy. Times
 * divided by @time_div when it is > 1. 0, -ETIMEDOUT, -EINTR. Sleeps.
 */
int neuron_fw_reset_device(const struct neuron_backend_ops *ops, void *backend, u32 fw_arch,
			   u32 time_div, u32 max_ms);

/*
 * neuron_fwio.c: a TPB reset of NeuronCores @nc_map (bit n = NeuronCore
 * n) as the vendor's NC_RESET does: the firmware's map (the cores and
 * their TOP_SPs) to RESET_TPB_MAP, RESET = 2, TRIGGER = 1, then as
 * neuron_fw_reset_device(). 0, -EINVAL (empty map), -ETIMEDOUT, -EINTR,
 * -ENODEV. Sleeps.
 */
int neuron_fw_reset_tpb(const struct neuron_backend_ops *ops, void *backend, u32 fw_arch,
			u32 nc_map, u32 max_ms);

/*
 * neuron_reset.c: the reset a backend ran before creating @nd (at probe)
 * ended: 0 in @ms, or failed (@ret). A sample of the driver metrics
 * (CW 50..55) as a reset through the sysfs reset file is.
 */
void neuron_device_probe_reset(struct neuron_device *nd, int ret, u64 ms);

/* neuron_core.c: pid (initial namespace) of the process holding NeuronCore @nc, 0 if none. */
pid_t neuron_core_holder(struct neuron_device *nd, u32 nc);

/*
 * neuron_job.c: write @n entries of @job into its NeuronCore's ERROR ring (engine 0), as
 * the device writes host memory: only the ring of the process holding the
 * core gets them; a full ring drops and counts. Updates @job->written and
 * @job->dropped. Process context; may sleep.
 */
void neuron_job_emit(struct neuron_job *job, const struct neuron_nq_entry *e, u32 n);

/*
 * neuron_main.c: a uint module parameter with an inclusive range: a value
 * outside it fails the load (or the write) with a log line naming the
 * range. @value stays first because param_get_uint reads kp->arg as an
 * unsigned int.
 */
struct neuron_uint_param {
	unsigned int value;
	unsigned int min;
	unsigned int max;
};

extern const struct kernel_param_ops neuron_uint_range_ops;

/*
 * ---- the backends built into neuron.ko ------------------------------------
 * Their entry points, which neuron_main.c calls: neuron_pci.c and
 * sim/neuron_sim.c. Declared here so the core includes no backend header.
 */

int neuron_pci_init(void);
void neuron_pci_exit(void);
int neuron_sim_init(void);
void neuron_sim_exit(void);

#endif /* NEURON_BACKEND_H */
