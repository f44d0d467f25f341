// SPDX-License-Identifier: GPL-2.0
/*
 * Memory accounting and the memory_usage sysfs trees, with the vendor
 * driver's names (facts: nds-sysfs-metrics 2.2-2.5):
 *
 *   stats/memory_usage/host_mem/<8 categories>/{total,present,peak}
 *   neuron_core<K>/stats/memory_usage/host_mem/{total,present,peak}
 *   neuron_core<K>/stats/memory_usage/device_mem/{total,present,peak}
 *   neuron_core<K>/stats/memory_usage/device_mem/<11 categories>/{total,present,peak}
 *
 * Every allocation the driver makes for processes and cores goes through
 * neuron_memstat_account(): MEM_ALLOC memory (its NeuronCore and
 * category), notification rings (host, NOTIFICATION, the ring's core) and
 * NDS slabs (host, NCDEV, core 0). Host memory moves the core's host_mem
 * and the root host_mem/<category>; device memory the core's device_mem
 * and device_mem/<category>.
 *
 * Values, as the vendor's: total = bytes in use now, present = the size
 * of the last allocation or free (not a gauge), peak = the highest total.
 * Writing anything to one of the files (root only, by mode 0644) sets that
 * field to 0; a later free then never takes total below 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": mem: " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_mem.h"

/*
 * Root host_mem categories. The vendor has no host node for SCRATCHPAD,
 * COLLECTIVES and SCRATCHPAD_NONSHARED; host memory of those counts as
 * uncategorized, so the categories always add up to the cores' host_mem.
 */
static const struct {
	const char *name;
	u32 category;
} memstat_host_cats[NEURON_MEMSTAT_HOST_CATS] = {
	{ "dma_buffers", NEURON_MEM_CAT_CODE },
	{ "tensors", NEURON_MEM_CAT_TENSORS },
	{ "constants", NEURON_MEM_CAT_CONSTANTS },
	{ "application_memory", NEURON_MEM_CAT_MISC },
	{ "driver_memory", NEURON_MEM_CAT_NCDEV },
	{ "notifications", NEURON_MEM_CAT_NOTIFICATION },
	{ "dma_rings", NEURON_MEM_CAT_DMA_RINGS },
	{ "uncategorized", NEURON_MEM_CAT_UNKNOWN },
};

#define MEMSTAT_HOST_UNCATEGORIZED	7

/* device_mem/<name>, by NEURON_MEM_CAT_* */
static const char *const memstat_dev_cats[NEURON_MEM_CAT_COUNT] = {
	[NEURON_MEM_CAT_UNKNOWN] = "uncategorized",
	[NEURON_MEM_CAT_CODE] = "model_code",
	[NEURON_MEM_CAT_TENSORS] = "tensors",
	[NEURON_MEM_CAT_CONSTANTS] = "constants",
	[NEURON_MEM_CAT_SCRATCHPAD] = "model_shared_scratchpad",
	[NEURON_MEM_CAT_MISC] = "runtime_memory",
	[NEURON_MEM_CAT_NCDEV] = "driver_memory",
	[NEURON_MEM_CAT_COLLECTIVES] = "collectives",
	[NEURON_MEM_CAT_SCRATCHPAD_NONSHARED] = "nonshared_scratchpad",
	[NEURON_MEM_CAT_NOTIFICATION] = "notifications",
	[NEURON_MEM_CAT_DMA_RINGS] = "dma_rings",
};

static u32 memstat_host_index(u32 category)
{
	u32 i;

	for (i = 0; i < NEURON_MEMSTAT_HOST_CATS; i++)
		if (memstat_host_cats[i].category == category)
			return i;
	return MEMSTAT_HOST_UNCATEGORIZED;
}

static void cell_move(struct neuron_memstat_cell *c, u64 bytes, bool add)
{
	if (add) {
		c->total += bytes;
		if (c->total > c->peak)
			c->peak = c->total;
	} else {
		c->total = c->total > bytes ? c->total - bytes : 0;
	}
	c->present = bytes;
}

void neuron_memstat_account(struct neuron_device *nd, u32 nc, u32 location, u32 category,
			    u64 bytes, bool add)
{
	struct neuron_mem_dev *mem = nd->mem;
	unsigned long flags;

	if (!mem || !bytes || nc >= NEURON_MAX_NC || category >= NEURON_MEM_CAT_COUNT)
		return;
	spin_lock_irqsave(&mem->stat_lock, flags);
	if (location == NEURON_MEM_LOC_DEVICE) {
		cell_move(&mem->nc_dev[nc], bytes, add);
		cell_move(&mem->nc_dev_cat[nc][category], bytes, add);
	} else {
		cell_move(&mem->nc_host[nc], bytes, add);
		cell_move(&mem->root_host[memstat_host_index(category)], bytes, add);
	}
	spin_unlock_irqrestore(&mem->stat_lock, flags);
}

/* ---- sysfs --------------------------------------------------------------------- */

/**
 * struct memstat_node - one directory of a memory_usage tree
 * @kobj:	the directory
 * @mem:	the device's memory state
 * @cell:	its counter (files total, present, peak), NULL for a plain directory
 * @link:	in mem->nodes, creation order
 */
struct memstat_node {
	struct kobject kobj;
	struct neuron_mem_dev *mem;
	struct neuron_memstat_cell *cell;
	struct list_head link;
};

static struct memstat_node *to_memstat_node(struct kobject *kobj)
{
	return container_of(kobj, struct memstat_node, kobj);
}

static void memstat_node_release(struct kobject *kobj)
{
	kfree(to_memstat_node(kobj));
}

enum memstat_field { FIELD_TOTAL, FIELD_PRESENT, FIELD_PEAK };

static u64 *cell_field(struct neuron_memstat_cell *c, enum memstat_field f)
{
	return f == FIELD_TOTAL ? &c->total : f == FIELD_PRESENT ? &c->present : &c->peak;
}

static ssize_t memstat_show(struct kobject *kobj, char *buf, enum memstat_field f)
{
	struct memstat_node *n = to_memstat_node(kobj);
	unsigned long flags;
	u64 v;

	spin_lock_irqsave(&n->mem->stat_lock, flags);
	v = *cell_field(n->cell, f);
	spin_unlock_irqrestore(&n->mem->stat_lock, flags);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t memstat_store(struct kobject *kobj, size_t count, enum memstat_field f)
{
	struct memstat_node *n = to_memstat_node(kobj);
	unsigned long flags;

	spin_lock_irqsave(&n->mem->stat_lock, flags);
	*cell_field(n->cell, f) = 0;
	spin_unlock_irqrestore(&n->mem->stat_lock, flags);
	return count;
}

#define MEMSTAT_ATTR(field, FIELD)								\
static ssize_t field##_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)	\
{												\
	return memstat_show(kobj, buf, FIELD);							\
}												\
static ssize_t field##_store(struct kobject *kobj, struct kobj_attribute *attr,		\
			     const char *buf, size_t count)					\
{												\
	return memstat_store(kobj, count, FIELD);						\
}												\
static struct kobj_attribute memstat_attr_##field = __ATTR(field, 0644, field##_show, field##_store)

MEMSTAT_ATTR(total, FIELD_TOTAL);
MEMSTAT_ATTR(present, FIELD_PRESENT);
MEMSTAT_ATTR(peak, FIELD_PEAK);

static struct attribute *memstat_attrs[] = {
	&memstat_attr_total.attr,
	&memstat_attr_present.attr,
	&memstat_attr_peak.attr,
	NULL,
};
ATTRIBUTE_GROUPS(memstat);

static const struct kobj_type memstat_cell_ktype = {
	.release = memstat_node_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = memstat_groups,
};

static const struct kobj_type memstat_dir_ktype = {
	.release = memstat_node_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

static struct memstat_node *memstat_add(struct neuron_device *nd, struct kobject *parent,
					const char *name, struct neuron_memstat_cell *cell)
{
	struct memstat_node *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	n->mem = nd->mem;
	n->cell = cell;
	ret = neuron_kobject_init_and_add(&n->kobj, cell ? &memstat_cell_ktype : &memstat_dir_ktype,
					  parent, name);
	if (ret) {
		kobject_put(&n->kobj);
		return ERR_PTR(ret);
	}
	list_add_tail(&n->link, &nd->mem->nodes);
	return n;
}

int neuron_memstat_sysfs_root(struct neuron_device *nd, struct kobject *stats)
{
	struct neuron_mem_dev *mem = nd->mem;
	struct memstat_node *usage, *host, *n;
	u32 i;

	usage = memstat_add(nd, stats, "memory_usage", NULL);
	if (IS_ERR(usage))
		return PTR_ERR(usage);
	host = memstat_add(nd, &usage->kobj, "host_mem", NULL);
	if (IS_ERR(host))
		return PTR_ERR(host);
	for (i = 0; i < NEURON_MEMSTAT_HOST_CATS; i++) {
		n = memstat_add(nd, &host->kobj, memstat_host_cats[i].name, &mem->root_host[i]);
		if (IS_ERR(n))
			return PTR_ERR(n);
	}
	return 0;
}

int neuron_memstat_sysfs_core(struct neuron_device *nd, u32 nc, struct kobject *stats)
{
	struct neuron_mem_dev *mem = nd->mem;
	struct memstat_node *usage, *dev, *n;
	u32 c;

	usage = memstat_add(nd, stats, "memory_usage", NULL);
	if (IS_ERR(usage))
		return PTR_ERR(usage);
	n = memstat_add(nd, &usage->kobj, "host_mem", &mem->nc_host[nc]);
	if (IS_ERR(n))
		return PTR_ERR(n);
	dev = memstat_add(nd, &usage->kobj, "device_mem", &mem->nc_dev[nc]);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	for (c = 0; c < NEURON_MEM_CAT_COUNT; c++) {
		n = memstat_add(nd, &dev->kobj, memstat_dev_cats[c], &mem->nc_dev_cat[nc][c]);
		if (IS_ERR(n))
			return PTR_ERR(n);
	}
	return 0;
}

void neuron_memstat_sysfs_exit(struct neuron_device *nd)
{
	struct memstat_node *n, *tmp;

	if (!nd->mem)
		return;
	/* children after parents: remove in reverse */
	list_for_each_entry_safe_reverse(n, tmp, &nd->mem->nodes, link) {
		list_del(&n->link);
		kobject_del(&n->kobj);
		kobject_put(&n->kobj);
	}
}
