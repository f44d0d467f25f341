// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers every subsystem's file operations share: taking an ioctl
 * argument (already in kernel memory) with its common header checked, and
 * mapping memory a process owns into its address space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "neuron_abi.h"
#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_file.h"

int neuron_ioctl_arg(void *arg, const void *karg, size_t size, u32 allowed_flags)
{
	const u32 *hdr = arg;	/* every argument struct starts with size, flags */

	memcpy(arg, karg, size);
	return neuron_abi_check_header(hdr[0], size, hdr[1], allowed_flags);
}

void neuron_ioctl_out(void *karg, const void *arg, size_t size)
{
	memcpy(karg, arg, size);
}

long neuron_ioctl_call(struct neuron_file *nf, long (*fn)(struct neuron_file *nf, void *karg),
		       void *karg, bool unlocked)
{
	struct neuron_device *nd = nf->nd;
	long ret;

	if (unlocked)
		return READ_ONCE(nd->gone) ? -ENODEV : fn(nf, karg);
	down_read(&nd->gone_sem);
	ret = nd->gone ? -ENODEV : fn(nf, karg);
	up_read(&nd->gone_sem);
	return ret;
}

void *neuron_alloc_user_mem(size_t size)
{
	/* a failure is the caller's ENOMEM, not a kernel warning with a stack */
	return __vmalloc(PAGE_ALIGN(size), GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
}

int neuron_map_owned(struct neuron_file *nf, struct vm_area_struct *vma, void *mem,
		     struct pid *owner, const struct vm_operations_struct *ops, void *priv)
{
	unsigned long off, len = vma->vm_end - vma->vm_start;
	int ret;

	/*
	 * Writable only for the owner, through a file the owner opened: the
	 * mapping then pins a file counted for the owner, so the object cannot
	 * be released (and handed to another process) while the mapping lives.
	 */
	if (owner != task_tgid(current) || owner != nf->tgid) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		/* and it cannot become writable through mprotect */
		neuron_vm_flags_clear(vma, VM_MAYWRITE);
	}
	/* counters and rings are data: never executable, not even later */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	neuron_vm_flags_clear(vma, VM_MAYEXEC);
	/*
	 * Never in another process: not copied at fork (VM_DONTCOPY), and
	 * VM_IO makes madvise(MADV_DOFORK) refuse to clear that (-EINVAL).
	 * (Pages a process splices into a pipe are references to memory it
	 * may read anyway, and each owner's memory is its own: neuron_nds.c.)
	 */
	neuron_vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	/* page by page, as remap_vmalloc_range() would; each insert takes a page reference */
	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off, vmalloc_to_page((u8 *)mem + off));
		if (ret)
			return ret;
	}
	if (ops) {
		vma->vm_ops = ops;
		vma->vm_private_data = priv;
		if (ops->open)
			ops->open(vma);
	}
	return 0;
}
