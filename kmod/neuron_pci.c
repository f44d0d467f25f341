// SPDX-License-Identifier: GPL-2.0
/*
 * PCI backend: binds the Neuron PCI functions (vendor 0x1D0F), maps BAR0
 * (APB: registers, MiscRAM) and BAR4 (device DRAM) and registers a
 * neuron_device whose MiscRAM accessors are MMIO. There is no hardware in
 * this project's test environment: this backend is compile-tested and its
 * driver registers and unregisters, but it binds nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": pci: " fmt

#include <linux/err.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "neuron_backend.h"
#include "neuron_miscram_reg.h"

#define NEURON_PCI_VENDOR	0x1D0F

/* MiscRAM offset within BAR0 and NeuronCores per device, per architecture. */
struct neuron_pci_arch {
	const char *name;
	u32 miscram_off;
	u32 nc_count;
	struct neuron_arch_desc desc;
};

static const struct neuron_pci_arch neuron_arch_trn1 = {
	"v2", 0x30FA0000, 2, { "NDv2", "NCv2", "Trn1", "Trainium1", 2, false },
};
static const struct neuron_pci_arch neuron_arch_inf2 = {
	"v2", 0x30FA0000, 2, { "NDv3", "NCv2", "Inf2", "Inferentia2", 2, false },
};
static const struct neuron_pci_arch neuron_arch_trn2 = {
	"v3", 0x06C84000, 8, { "NDv3", "NCv3", "Trn2", "Trainium2", 4, true },
};
static const struct neuron_pci_arch neuron_arch_trn3 = {
	"v4", 0x06C84000, 8, { "NDv4", "NCv4", "Trn3", "Trainium3", 4, true },
};

static const struct pci_device_id neuron_pci_ids[] = {
	{ PCI_DEVICE(NEURON_PCI_VENDOR, 0x7164), .driver_data = (kernel_ulong_t)&neuron_arch_trn1 },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, 0x7264), .driver_data = (kernel_ulong_t)&neuron_arch_inf2 },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, 0x7364), .driver_data = (kernel_ulong_t)&neuron_arch_trn2 },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, 0x7564), .driver_data = (kernel_ulong_t)&neuron_arch_trn3 },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, 0x7565), .driver_data = (kernel_ulong_t)&neuron_arch_trn3 },
	{ }
};
MODULE_DEVICE_TABLE(pci, neuron_pci_ids);

/**
 * struct neuron_pci_dev - one bound PCI function
 * @pdev:	the PCI device
 * @arch:	architecture constants from the id table
 * @bar0:	APB mapping (registers, MiscRAM)
 * @bar0_len:	length of @bar0
 * @bar4:	device DRAM mapping (may be NULL when the BAR is absent)
 * @nd:		the device core's view
 */
struct neuron_pci_dev {
	struct pci_dev *pdev;
	const struct neuron_pci_arch *arch;
	void __iomem *bar0;
	resource_size_t bar0_len;
	void __iomem *bar4;
	struct neuron_device *nd;
};

static u32 neuron_pci_misc_read(void *backend, u32 off)
{
	struct neuron_pci_dev *pd = backend;
	u64 pos = (u64)pd->arch->miscram_off + off;

	if ((off & 3) || pos + 4 > pd->bar0_len)
		return NEURON_MISCRAM_BAD_READ;
	return readl(pd->bar0 + pos);
}

static void neuron_pci_misc_write(void *backend, u32 off, u32 val)
{
	struct neuron_pci_dev *pd = backend;
	u64 pos = (u64)pd->arch->miscram_off + off;

	if ((off & 3) || pos + 4 > pd->bar0_len)
		return;
	writel(val, pd->bar0 + pos);
}

static const struct neuron_backend_ops neuron_pci_ops = {
	.name = "pci",
	.kind = NEURON_BACKEND_PCI,
	.misc_read = neuron_pci_misc_read,
	.misc_write = neuron_pci_misc_write,
};

static int neuron_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct neuron_pci_dev *pd;
	struct neuron_device *nd;
	int ret;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return -ENOMEM;
	pd->pdev = pdev;
	pd->arch = (const struct neuron_pci_arch *)id->driver_data;

	ret = pci_enable_device(pdev);
	if (ret)
		goto err_free;
	pci_set_master(pdev);

	ret = pci_request_regions(pdev, KBUILD_MODNAME);
	if (ret)
		goto err_disable;

	pd->bar0_len = pci_resource_len(pdev, 0);
	pd->bar0 = pci_iomap(pdev, 0, 0);
	if (!pd->bar0) {
		ret = -ENOMEM;
		goto err_regions;
	}
	if (pci_resource_len(pdev, 4))
		pd->bar4 = pci_iomap_wc(pdev, 4, 0);

	nd = neuron_device_create(&neuron_pci_ops, &pd->arch->desc, pd, pd->arch->nc_count);
	if (IS_ERR(nd)) {
		ret = PTR_ERR(nd);
		goto err_unmap;
	}
	pd->nd = nd;
	pci_set_drvdata(pdev, pd);
	dev_info(&pdev->dev, "arch %s bound as neuron%u\n", pd->arch->name,
		 neuron_device_index(nd));
	return 0;

err_unmap:
	if (pd->bar4)
		pci_iounmap(pdev, pd->bar4);
	pci_iounmap(pdev, pd->bar0);
err_regions:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_free:
	kfree(pd);
	return ret;
}

static void neuron_pci_remove(struct pci_dev *pdev)
{
	struct neuron_pci_dev *pd = pci_get_drvdata(pdev);

	neuron_device_destroy(pd->nd);
	if (pd->bar4)
		pci_iounmap(pdev, pd->bar4);
	pci_iounmap(pdev, pd->bar0);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	kfree(pd);
}

static struct pci_driver neuron_pci_driver = {
	.name = "neuron-driver",
	.id_table = neuron_pci_ids,
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
};

int neuron_pci_init(void)
{
	return pci_register_driver(&neuron_pci_driver);
}

void neuron_pci_exit(void)
{
	pci_unregister_driver(&neuron_pci_driver);
}
