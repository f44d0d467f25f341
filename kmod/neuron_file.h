/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open /dev/neuron<N> and the helpers every subsystem's file operations
 * share (neuron_file.c): the ioctl argument copy-in and the owned mapping.
 */
#ifndef NEURON_FILE_H
#define NEURON_FILE_H

#include <linux/atomic.h>
#include <linux/compiler_types.h>
#include <linux/mm.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <neuron/neuron_nds.h>

struct neuron_device;
struct neuron_proc;
struct pid;
struct vm_area_struct;

/**
 * struct neuron_file - per-open state of /dev/neuron<N>
 * @nd:		the device; the file holds a reference on nd->dev
 * @tgid:	process that opened the file (a reference: processes are told
 *		apart by struct pid, never by number, so a reused pid or another
 *		pid namespace is never mistaken for the owner)
 * @proc:	the opener's entry on the device (struct neuron_proc), which
 *		this file keeps alive; set at open
 * @nds_grant:	per NDS slab, the owner whose slab an NDS_ACQUIRE through
 *		this file handed out (a reference), or NULL: mmap maps a slab
 *		only while it still belongs to that owner (under nds->lock)
 * @mem_handles: MEM_ALLOC allocations of this file by handle index
 *		(neuron_mem.c); freed with the file
 * @mem_tag:	upper half of every handle of this file: a handle from
 *		another file never names one of this file's allocations
 * @vendor_reset: the last vendor reset request made through this file
 *		and not yet waited for (neuron_vendor.c): 0 none, else its
 *		id << 2 | failed << 1 | 1
 */
struct neuron_file {
	struct neuron_device *nd;
	struct pid *tgid;
	struct neuron_proc *proc;
	struct pid *nds_grant[NEURON_NDS_PER_DEVICE];
	struct xarray mem_handles;
	u32 mem_tag;
	atomic64_t vendor_reset;
};

/*
 * ioctl arguments never reach a handler as user pointers: the dispatcher
 * (neuron_cdev.c) copies the argument into kernel memory before it takes
 * the device's gone_sem and copies the result out after releasing it, so a
 * user fault that never completes (userfaultfd, FUSE) cannot hold up
 * device removal. A handler gets that kernel copy, @karg.
 *
 * neuron_ioctl_arg: copy @size bytes of @karg into the handler's @arg and
 * check the header every argument struct starts with: __u32 size (must be
 * @size), __u32 flags (only @allowed_flags). 0 or -EINVAL; the caller
 * checks the rest. neuron_ioctl_out: the handler's result, copied out by
 * the dispatcher when the handler returns 0 (for _IOWR commands), and
 * for the job ioctls also when it returns -ETIMEDOUT or -EINTR (the job's
 * time).
 */
int neuron_ioctl_arg(void *arg, const void *karg, size_t size, u32 allowed_flags);
void neuron_ioctl_out(void *karg, const void *arg, size_t size);

/*
 * Both dispatchers' call of a handler @fn on the kernel copy @karg: under
 * gone_sem for read, or (@unlocked: the handler moves user memory and
 * takes it itself) after a check of gone; -ENODEV for a removed device.
 */
long neuron_ioctl_call(struct neuron_file *nf, long (*fn)(struct neuron_file *nf, void *karg),
		       void *karg, bool unlocked);

/*
 * A job that ran and was cut short (-ETIMEDOUT, -EINTR) still answers
 * with its time: the job ioctls write it into their argument and the
 * dispatcher copies it out (UAPI: SIM_EXEC).
 */
static inline bool neuron_ioctl_job_answers(long ret)
{
	return ret == -ETIMEDOUT || ret == -EINTR;
}

/* returned by a subsystem's mmap handler for an offset outside its range */
#define NEURON_MMAP_NOT_MINE	1

/*
 * Memory the driver allocates for a process and maps into it (NDS slabs,
 * rings): zeroed, page-aligned vmalloc memory charged to the calling
 * task's memory cgroup (GFP_KERNEL_ACCOUNT), so a process cannot pin
 * memory its cgroup does not allow. Freed with vfree().
 */
void *neuron_alloc_user_mem(size_t size);

/*
 * Map @mem (neuron_alloc_user_mem, exactly the vma's length) owned by
 * @owner: writable for the owner through its own file, read-only (and never
 * upgradable) for everyone else, never executable, and never inherited
 * by a child (VM_DONTCOPY, and VM_IO so that MADV_DOFORK is refused). The mapping holds its
 * own page references: it stays valid memory after @mem is freed, until
 * unmapped. With @ops, the vma gets them and @priv (ops->open is called for
 * this first mapping too), so the owner can count its mappings.
 */
int neuron_map_owned(struct neuron_file *nf, struct vm_area_struct *vma, void *mem,
		     struct pid *owner, const struct vm_operations_struct *ops, void *priv);

#endif /* NEURON_FILE_H */
