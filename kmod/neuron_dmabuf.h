/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dma-buf export of device memory and the simulated device's import
 * (neuron_dmabuf.c).
 */
#ifndef NEURON_DMABUF_H
#define NEURON_DMABUF_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kconfig.h>
#include <linux/types.h>

struct neuron_file;

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)

/*
 * The vendor's DMABUF_FD: a dma-buf of [@va, @va + @size) of a device
 * allocation the caller mapped, its descriptor (O_CLOEXEC) written to
 * @ufd. -EINVAL: no such mapping, @va not page aligned, the range past
 * the mapping or the allocation, @size 0; -EFAULT: @ufd; -EMFILE.
 */
int neuron_dmabuf_export(u64 va, u64 size, int __user *ufd);

/* MEM_DMABUF_READ (neuron_cdev.c table; runs without gone_sem) */
long neuron_dmabuf_ioctl_read(struct neuron_file *nf, void *karg);
#define NEURON_DMABUF	1
#else
/* a kernel without the dma-buf API: nothing is exported or imported */
static inline int neuron_dmabuf_export(u64 va, u64 size, int __user *ufd)
{
	return -EOPNOTSUPP;
}

static inline long neuron_dmabuf_ioctl_read(struct neuron_file *nf, void *karg)
{
	return -EOPNOTSUPP;
}
#define NEURON_DMABUF	0
#endif

#endif /* NEURON_DMABUF_H */
