// SPDX-License-Identifier: GPL-2.0
/*
 * Device core: the neuron_device class, char device region, index
 * allocation and the device lifetime shared by every backend.
 *
 * Lifetime: neuron_device_create() returns a device with one reference
 * (the backend's). Each open file takes another. neuron_device_destroy()
 * removes the node and the sysfs directory at once and drops the
 * backend's reference; the memory goes when the last file closes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/version.h>

#include "neuron.h"

struct class *neuron_class;
static dev_t neuron_devt;
static DEFINE_IDA(neuron_ida);

static ssize_t core_count_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", to_neuron_device(dev)->nc_count);
}
static DEVICE_ATTR_RO(core_count);

static struct attribute *neuron_dev_attrs[] = {
	&dev_attr_core_count.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_dev);

static void neuron_device_release(struct device *dev)
{
	struct neuron_device *nd = to_neuron_device(dev);

	ida_free(&neuron_ida, nd->index);
	kfree(nd);
}

struct neuron_device *neuron_device_create(const struct neuron_backend_ops *ops,
					   void *backend, u32 nc_count)
{
	struct neuron_device *nd;
	int index, ret;

	if (!nc_count || nc_count > NEURON_MAX_NC)
		return ERR_PTR(-EINVAL);

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);

	index = ida_alloc_max(&neuron_ida, NEURON_MAX_DEVICES - 1, GFP_KERNEL);
	if (index < 0) {
		kfree(nd);
		return ERR_PTR(index);
	}
	nd->index = index;
	nd->nc_count = nc_count;
	nd->ops = ops;
	nd->backend = backend;

	device_initialize(&nd->dev);
	nd->dev.class = neuron_class;
	nd->dev.devt = MKDEV(MAJOR(neuron_devt), index);
	nd->dev.groups = neuron_dev_groups;
	nd->dev.release = neuron_device_release;
	ret = dev_set_name(&nd->dev, "neuron%u", index);
	if (ret)
		goto err_put;

	cdev_init(&nd->cdev, &neuron_cdev_fops);
	nd->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&nd->cdev, &nd->dev);
	if (ret)
		goto err_put;

	nd->debugfs = debugfs_create_dir(dev_name(&nd->dev), neuron_debugfs_root);
	dev_info(&nd->dev, "%s backend, %u NeuronCores\n", ops->name, nc_count);
	return nd;

err_put:
	/* the release callback frees the index and the struct */
	put_device(&nd->dev);
	return ERR_PTR(ret);
}

void neuron_device_destroy(struct neuron_device *nd)
{
	debugfs_remove_recursive(nd->debugfs);
	nd->debugfs = NULL;
	cdev_device_del(&nd->cdev, &nd->dev);
	put_device(&nd->dev);
}

int neuron_device_class_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&neuron_devt, 0, NEURON_MAX_DEVICES, KBUILD_MODNAME);
	if (ret)
		return ret;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	neuron_class = class_create("neuron_device");
#else
	neuron_class = class_create(THIS_MODULE, "neuron_device");
#endif
	if (IS_ERR(neuron_class)) {
		ret = PTR_ERR(neuron_class);
		unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
		return ret;
	}
	return 0;
}

void neuron_device_class_exit(void)
{
	class_destroy(neuron_class);
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
	ida_destroy(&neuron_ida);
}
