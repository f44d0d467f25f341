/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron_compat.h: every kernel API difference neuron.ko meets between the
 * oldest supported kernel (5.10, enforced by Kbuild) and the newest tested
 * one (docs/kernels.md). Each shim names the kernel version that changed
 * the API; the rest of the module calls the shims and has no version checks
 * of its own. A shim goes once the oldest supported kernel has the new API.
 */
#ifndef NEURON_COMPAT_H
#define NEURON_COMPAT_H

#include <linux/version.h>

/*
 * The shims are macros, so this header pulls in no kernel header but
 * version.h: each shim expands where it is used, against the headers that
 * file includes for the API itself.
 */

/*
 * 5.17 made kobject_init_and_add() take a const struct kobj_type; before,
 * it took a mutable one (and never wrote through it).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 17, 0)
#define neuron_kobject_init_and_add(kobj, ktype, parent, name)			\
	kobject_init_and_add(kobj, ktype, parent, "%s", name)
#else
#define neuron_kobject_init_and_add(kobj, ktype, parent, name)			\
	kobject_init_and_add(kobj, (struct kobj_type *)(ktype), parent, "%s", name)
#endif

/*
 * 6.1 added GENL_REQ_ATTR_CHECK(), which also reports the missing attribute
 * in the extack; before 6.1 the extack carries a message only.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#define GENL_REQ_ATTR_CHECK(info, attr) ({					\
	const struct genl_info *__info = (info);				\
	bool __missing = !__info->attrs[(attr)];				\
										\
	if (__missing)								\
		NL_SET_ERR_MSG(__info->extack, "missing required attribute");	\
	__missing;								\
})
#endif

/*
 * 6.1 added genl_family::resv_start_op, the first command whose reserved
 * header bytes must be zero; before 6.1 they are not checked (attributes
 * are validated strictly on every kernel).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define NEURON_GENL_RESV_START_OP(op)	.resv_start_op = (op),
#else
#define NEURON_GENL_RESV_START_OP(op)
#endif

/*
 * 6.3 made vma->vm_flags read-only: changes go through vm_flags_set() and
 * vm_flags_clear().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define neuron_vm_flags_set(vma, flags)		vm_flags_set(vma, flags)
#define neuron_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#else
#define neuron_vm_flags_set(vma, flags)		((vma)->vm_flags |= (flags))
#define neuron_vm_flags_clear(vma, flags)	((vma)->vm_flags &= ~(flags))
#endif

/* 6.4 dropped class_create()'s struct module argument. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define neuron_class_create(name)	class_create(name)
#else
#define neuron_class_create(name)	class_create(THIS_MODULE, name)
#endif

/*
 * 6.4 made the bus_type argument of bus attribute callbacks const
 * (struct bus_attribute .show/.store).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define neuron_bus_attr_bus	const struct bus_type
#else
#define neuron_bus_attr_bus	struct bus_type
#endif

/*
 * 6.4 made the class and attribute arguments of class attribute callbacks
 * const (struct class_attribute .show/.store).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define neuron_class_attr_class	const struct class
#define neuron_class_attr_attr	const struct class_attribute
#else
#define neuron_class_attr_class	struct class
#define neuron_class_attr_attr	struct class_attribute
#endif

/*
 * 6.6 moved a dump's parsed request attributes from genl_dumpit_info::attrs
 * to the struct genl_info that genl_info_dump() returns.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define neuron_genl_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define neuron_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * 6.12 removed no_llseek: a NULL ->llseek now makes lseek() fail with
 * -ESPIPE, which is what no_llseek did.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define neuron_no_llseek	NULL
#else
#define neuron_no_llseek	no_llseek
#endif

/*
 * 6.14 renamed __crc32c_le() to crc32c(): the raw CRC-32C (no inversion
 * before or after) of lib/crc32.c, <linux/crc32.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define neuron_crc32c_raw(crc, p, len)	crc32c(crc, p, len)
#else
#define neuron_crc32c_raw(crc, p, len)	__crc32c_le(crc, p, len)
#endif

/*
 * 5.16 put the dma-buf API in the DMA_BUF symbol namespace, which a module
 * must import; 6.13 made MODULE_IMPORT_NS() take a string literal.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define NEURON_IMPORT_NS_DMA_BUF	MODULE_IMPORT_NS("DMA_BUF")
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
#define NEURON_IMPORT_NS_DMA_BUF	MODULE_IMPORT_NS(DMA_BUF)
#else
#define NEURON_IMPORT_NS_DMA_BUF	static_assert(1)
#endif

/* 5.11 added kmap_local_page(), which replaces kmap() for a short use. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define neuron_kmap_local(page)		kmap_local_page(page)
#define neuron_kunmap_local(page, addr)	kunmap_local(addr)
#else
#define neuron_kmap_local(page)		kmap(page)
#define neuron_kunmap_local(page, addr)	kunmap(page)
#endif

/*
 * 6.2 (and the 6.1 stable kernels of the matrix) made
 * dma_buf_map_attachment() require the reservation lock and added the
 * _unlocked() pair for importers that do not hold it; before, the plain
 * calls took what they needed themselves.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define neuron_dma_buf_map_attachment(a, dir)	dma_buf_map_attachment_unlocked(a, dir)
#define neuron_dma_buf_unmap_attachment(a, sgt, dir)				\
	dma_buf_unmap_attachment_unlocked(a, sgt, dir)
#else
#define neuron_dma_buf_map_attachment(a, dir)	dma_buf_map_attachment(a, dir)
#define neuron_dma_buf_unmap_attachment(a, sgt, dir)	dma_buf_unmap_attachment(a, sgt, dir)
#endif

/*
 * The first pid of @ns numbered @nr or more, under rcu_read_lock().
 * find_ge_pid() is exported to modules on 6.1 (not on 5.10, where it is
 * idr_get_next() over the namespace's idr, which is exported).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define neuron_find_ge_pid(nr, ns)	find_ge_pid(nr, ns)
#else
#define neuron_find_ge_pid(nr, ns) ({						\
	int __nr = (nr);							\
	(struct pid *)idr_get_next(&(ns)->idr, &__nr);				\
})
#endif

#endif /* NEURON_COMPAT_H */
