// SPDX-License-Identifier: GPL-2.0
/*
 * PCI backend: binds the Neuron PCI functions (vendor 0x1D0F), maps BAR0
 * (APB: registers, MiscRAM) and registers a neuron_device whose MiscRAM
 * accessors are MMIO. It runs in the guest against emulated Neuron PCI
 * functions (pciemu/, a vfio-user server under QEMU: docs/pci-testing.md,
 * tests/pci/), and the core paths it drives also against the simulated
 * firmware in strict mode (docs/fwio.md, tests/vm/31_fwstrict.sh).
 *
 * What probe does, and what the vendor's probe does that we do not
 * (docs/fwio.md, "Probe"):
 *  1. enable the function; request and map BAR0 only (the only BAR used:
 *     nothing here touches AXI or device DRAM);
 *  2. wait for the firmware as the vendor does: DEVICE_ID (MiscRAM 0x24)
 *     stops reading 0xDEADBEEF (neuron_fw_wait_ready(), vendor bounds);
 *  3. number the device from that routing id with the vendor's map for the
 *     product, so /dev/neuronN is the vendor's N (a taken N fails the
 *     probe, as the vendor's duplicate check does);
 *  4. no bus mastering at probe: it is turned on, with the vendor's DMA mask (64
 *     bits, else 32), the first time a DMA path needs it: the legacy FW-IO
 *     buffers (ops->dma_alloc);
 *  5. reset the device through firmware as the vendor's probe does
 *     (neuron_fw_reset_device()), before bus mastering can be on: what
 *     the last owner left programmed (notification queues, DMA rings
 *     pointing at host memory that is no longer its) must not come alive
 *     when the legacy FW-IO path turns bus mastering on. The module
 *     parameter no_reset (the vendor's) skips it. A reset that does not
 *     complete within its budget (the vendor's: 120 s on v2, 480 s on v3;
 *     reset_timeout_ms sets another) leaves the device registered in
 *     state INVALID, as the vendor's does: unusable (opens fail with
 *     -EINVAL) until a write to its sysfs reset file resets it.
 * A PCI device never gets fault knobs: only the simulator creates them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": pci: " fmt

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "neuron_backend.h"
#include "neuron_fw_profile.h"
#include "neuron_miscram_reg.h"
#include "neuron_pe_counters.h"
#include "neuron_products.h"

static bool no_reset;
module_param(no_reset, bool, 0644);
MODULE_PARM_DESC(no_reset, "Do not reset the devices at probe (the vendor's no_reset)");

static unsigned int reset_timeout_ms;
module_param(reset_timeout_ms, uint, 0644);
MODULE_PARM_DESC(reset_timeout_ms,
		 "Give up a device reset after this many ms (0, the default: the vendor's budget, 120 s on v2, 480 s on v3; at most 3600000)");

#define NEURON_PCI_RESET_MAX_MS	3600000u	/* what reset_timeout_ms may ask for */

/* reset_timeout_ms as a reset takes it (0: the vendor's budget) */
static u32 neuron_pci_reset_ms(void)
{
	return min(READ_ONCE(reset_timeout_ms), NEURON_PCI_RESET_MAX_MS);
}

#define NEURON_PCI_MAX_DEVICES	64	/* the vendor's MAX_NEURON_DEVICE_COUNT, our minors */

static const struct pci_device_id neuron_pci_ids[] = {
	{ PCI_DEVICE(NEURON_PCI_VENDOR, NEURON_PCI_DEVICE_TRN1),
	  .driver_data = (kernel_ulong_t)&neuron_products[NEURON_PRODUCT_TRN1] },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, NEURON_PCI_DEVICE_INF2),
	  .driver_data = (kernel_ulong_t)&neuron_products[NEURON_PRODUCT_INF2] },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, NEURON_PCI_DEVICE_TRN2),
	  .driver_data = (kernel_ulong_t)&neuron_products[NEURON_PRODUCT_TRN2] },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, NEURON_PCI_DEVICE_TRN3),
	  .driver_data = (kernel_ulong_t)&neuron_products[NEURON_PRODUCT_TRN3] },
	{ PCI_DEVICE(NEURON_PCI_VENDOR, NEURON_PCI_DEVICE_TRN3_ALT),
	  .driver_data = (kernel_ulong_t)&neuron_products[NEURON_PRODUCT_TRN3] },
	{ }
};
MODULE_DEVICE_TABLE(pci, neuron_pci_ids);

/**
 * struct neuron_pci_dev - one bound PCI function
 * @pdev:	the PCI device
 * @prod:	the product's constants, from the id table
 * @desc:	what the core reports of it (from @prod)
 * @misc:	the mapping of BAR0's MiscRAM window (NEURON_MISCRAM_SIZE
 *		bytes at the product's offset)
 * @pe:		per NeuronCore, the mapping of the page of BAR0 that holds its
 *		PE activity counters (NULL: none)
 * @pe_page:	the BAR0 offset of each of those pages
 * @bar0_len:	length of BAR0
 * @dma_lock:	protects @dma_on and @dma_dead
 * @dma_on:	DMA mask set and bus mastering enabled (first ops->dma_alloc)
 * @dma_dead:	removal has begun: DMA is never enabled again, and MiscRAM
 *		reads as gone (NEURON_MISCRAM_GONE)
 * @nd:		the device core's view
 */
struct neuron_pci_dev {
	struct pci_dev *pdev;
	const struct neuron_product *prod;
	struct neuron_arch_desc desc;
	void __iomem *misc;
	void __iomem *pe[NEURON_PE_MAX_NC];
	u64 pe_page[NEURON_PE_MAX_NC];
	resource_size_t bar0_len;
	struct mutex dma_lock;
	bool dma_on;
	bool dma_dead;
	struct neuron_device *nd;
};

static u32 neuron_pci_misc_read(void *backend, u32 off)
{
	struct neuron_pci_dev *pd = backend;

	if ((off & 3) || off > NEURON_MISCRAM_SIZE - 4)
		return NEURON_MISCRAM_BAD_READ;
	/*
	 * Removal has begun: the function reads as gone, so a reset waiting
	 * for the firmware (up to minutes) ends at its next poll, not at its budget
	 */
	if (READ_ONCE(pd->dma_dead))
		return NEURON_MISCRAM_GONE;
	return readl(pd->misc + off);
}

static void neuron_pci_misc_write(void *backend, u32 off, u32 val)
{
	struct neuron_pci_dev *pd = backend;

	if ((off & 3) || off > NEURON_MISCRAM_SIZE - 4)
		return;
	writel(val, pd->misc + off);
}

/*
 * Besides MiscRAM, BAR0 is mapped where the PE activity counters are: one
 * page per NeuronCore (each NeuronCore's counters span less than a page
 * from its base, 0x500 bytes on v2, 0x6C0 on v3), read only by
 * neuron_core<K>/stats/tensor_engine/pe_cntrs.
 */
static void neuron_pci_map_pe(struct neuron_pci_dev *pd)
{
	const struct neuron_pe_layout *l = neuron_pe_layout_of(pd->prod->fw_arch);
	u32 nc;

	if (!l)
		return;
	for (nc = 0; nc < l->nc_count && nc < pd->prod->nc_count; nc++) {
		u64 page = l->nc_base[nc] & ~(u64)(SZ_4K - 1);

		if (page + SZ_4K > pd->bar0_len)
			continue;
		pd->pe_page[nc] = page;
		pd->pe[nc] = pci_iomap_range(pd->pdev, 0, page, SZ_4K);
	}
}

static void neuron_pci_unmap_pe(struct neuron_pci_dev *pd)
{
	u32 nc;

	for (nc = 0; nc < NEURON_PE_MAX_NC; nc++)
		if (pd->pe[nc])
			pci_iounmap(pd->pdev, pd->pe[nc]);
}

/* ops->pe_read32 */
static int neuron_pci_pe_read32(void *backend, u64 off, u32 *val)
{
	struct neuron_pci_dev *pd = backend;
	u32 nc;

	for (nc = 0; nc < NEURON_PE_MAX_NC; nc++) {
		if (!pd->pe[nc] || off < pd->pe_page[nc] || off - pd->pe_page[nc] > SZ_4K - 4 ||
		    (off & 3))
			continue;
		*val = readl(pd->pe[nc] + (off - pd->pe_page[nc]));
		/* a counter half can read all-ones; a function that is gone reads it everywhere */
		if (*val == NEURON_MISCRAM_GONE &&
		    neuron_pci_misc_read(pd, NEURON_MISCRAM_DEVICE_ID) == NEURON_MISCRAM_GONE)
			return -ENODEV;
		return 0;
	}
	/* the NeuronCore's page could not be mapped at probe */
	return -EIO;
}

/* The first DMA user: the vendor's mask (64 bits, else 32), then bus mastering. */
static int neuron_pci_dma_enable(struct neuron_pci_dev *pd)
{
	int ret = 0;

	mutex_lock(&pd->dma_lock);
	if (pd->dma_dead) {
		/* removal has begun: bus mastering never comes back on */
		ret = -ENODEV;
		goto out;
	}
	if (pd->dma_on)
		goto out;
	ret = dma_set_mask_and_coherent(&pd->pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		ret = dma_set_mask_and_coherent(&pd->pdev->dev, DMA_BIT_MASK(32));
	if (ret) {
		dev_err(&pd->pdev->dev, "no usable DMA mask: %d\n", ret);
		goto out;
	}
	pci_set_master(pd->pdev);
	pd->dma_on = true;
out:
	mutex_unlock(&pd->dma_lock);
	return ret;
}

static void *neuron_pci_dma_alloc(void *backend, size_t size, u64 *dev_addr)
{
	struct neuron_pci_dev *pd = backend;
	dma_addr_t dma;
	void *va;

	if (neuron_pci_dma_enable(pd))
		return NULL;
	va = dma_alloc_coherent(&pd->pdev->dev, size, &dma, GFP_KERNEL);
	if (!va)
		return NULL;
	/* an address that already has the window bit cannot be told apart from it */
	if ((u64)dma & pd->prod->host_base) {
		dma_free_coherent(&pd->pdev->dev, size, va, dma);
		dev_err(&pd->pdev->dev, "DMA address %pad overlaps the host window\n", &dma);
		return NULL;
	}
	/* the device sees host memory through its pci_host_base window */
	*dev_addr = (u64)dma | pd->prod->host_base;
	return va;
}

static void neuron_pci_dma_free(void *backend, size_t size, void *va, u64 dev_addr)
{
	struct neuron_pci_dev *pd = backend;

	dma_free_coherent(&pd->pdev->dev, size, va, dev_addr & ~pd->prod->host_base);
}

static const struct neuron_backend_ops neuron_pci_ops;

/* ops->reset: the sysfs reset file (no process has the device open) */
static int neuron_pci_reset(void *backend)
{
	struct neuron_pci_dev *pd = backend;

	return neuron_fw_reset_device(&neuron_pci_ops, pd, pd->prod->fw_arch, 0,
				      neuron_pci_reset_ms());
}

/* ops->nc_reset: the vendor's NC_RESET, a TPB reset through firmware */
static int neuron_pci_nc_reset(void *backend, u32 nc_map)
{
	struct neuron_pci_dev *pd = backend;

	return neuron_fw_reset_tpb(&neuron_pci_ops, pd, pd->prod->fw_arch, nc_map,
				   neuron_pci_reset_ms());
}

static void neuron_pci_info(void *backend, struct neuron_pci_info *info)
{
	struct neuron_pci_dev *pd = backend;

	info->domain = pci_domain_nr(pd->pdev->bus);
	info->bus = pd->pdev->bus->number;
	info->slot = PCI_SLOT(pd->pdev->devfn);
	info->func = PCI_FUNC(pd->pdev->devfn);
	info->revision = pd->pdev->revision;
	info->bar0_len = pd->bar0_len;
}

static const struct neuron_backend_ops neuron_pci_ops = {
	.name = "pci",
	.kind = NEURON_BACKEND_PCI,
	.misc_read = neuron_pci_misc_read,
	.misc_write = neuron_pci_misc_write,
	.dma_alloc = neuron_pci_dma_alloc,
	.dma_free = neuron_pci_dma_free,
	.reset = neuron_pci_reset,
	.nc_reset = neuron_pci_nc_reset,
	.pe_read32 = neuron_pci_pe_read32,
	.pci_info = neuron_pci_info,
};

static int neuron_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct neuron_pci_dev *pd;
	struct neuron_device *nd;
	bool invalid = false, reset = false;
	u64 reset_ms = 0;
	u32 rid, index;
	int ret;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return -ENOMEM;
	pd->pdev = pdev;
	pd->prod = (const struct neuron_product *)id->driver_data;
	pd->desc = (struct neuron_arch_desc){
		.arch_type = pd->prod->arch_type,
		.nc_arch_type = pd->prod->nc_arch_type,
		.instance_type = pd->prod->instance_type,
		.device_name = pd->prod->device_name,
		.hbm_channels = pd->prod->hbm_channels,
		.has_repair_state = pd->prod->has_repair_state,
		.fw_arch = pd->prod->fw_arch,
	};
	mutex_init(&pd->dma_lock);

	ret = pci_enable_device(pdev);
	if (ret)
		goto err_free;
	/* BAR0 only: nothing else is used; no bus mastering yet */
	ret = pci_request_region(pdev, 0, "neuron APB");
	if (ret)
		goto err_disable;
	pd->bar0_len = pci_resource_len(pdev, 0);
	if (pd->bar0_len < (u64)pd->prod->miscram_off + NEURON_MISCRAM_SIZE) {
		dev_err(&pdev->dev, "BAR0 of %pa bytes has no MiscRAM at 0x%x\n", &pd->bar0_len,
			pd->prod->miscram_off);
		ret = -ENODEV;
		goto err_region;
	}
	/*
	 * The MiscRAM window only: a BAR0 of gigabytes mapped whole would
	 * take as many page-table (and, with KASAN, shadow) pages for a page
	 * the driver uses
	 */
	pd->misc = pci_iomap_range(pdev, 0, pd->prod->miscram_off, NEURON_MISCRAM_SIZE);
	if (!pd->misc) {
		ret = -ENOMEM;
		goto err_region;
	}
	neuron_pci_map_pe(pd);

	ret = neuron_fw_wait_ready(&neuron_pci_ops, pd, 0, &rid);
	if (ret) {
		dev_err(&pdev->dev, "firmware not ready (DEVICE_ID reads 0x%08x): %d\n",
			neuron_pci_misc_read(pd, NEURON_MISCRAM_DEVICE_ID), ret);
		goto err_unmap;
	}
	/* before anything can turn bus mastering on (docs/fwio.md, "Reset at probe") */
	if (READ_ONCE(no_reset)) {
		dev_info(&pdev->dev, "no_reset: not resetting the device\n");
	} else {
		ktime_t start = ktime_get();

		ret = neuron_fw_reset_device(&neuron_pci_ops, pd, pd->prod->fw_arch, 0,
					     neuron_pci_reset_ms());
		reset_ms = ktime_ms_delta(ktime_get(), start);
		reset = true;
		if (ret == -ETIMEDOUT) {
			/* the vendor keeps the device, INVALID: say so, and why */
			invalid = true;
		} else if (ret) {
			dev_err(&pdev->dev, "device reset failed: %d\n", ret);
			goto err_unmap;
		}
	}
	ret = neuron_fw_route_index(pd->prod->route, rid, NEURON_PCI_MAX_DEVICES, &index);
	if (ret) {
		dev_err(&pdev->dev, "routing id %u has no device index\n", rid);
		ret = -ENODEV;
		goto err_unmap;
	}

	nd = neuron_device_create_index(&neuron_pci_ops, &pd->desc, pd,
					pd->prod->nc_count, index, invalid);
	if (IS_ERR(nd)) {
		ret = PTR_ERR(nd);
		if (ret == -EEXIST) {
			dev_err(&pdev->dev, "routing id %u: neuron%u exists already\n", rid, index);
			ret = -ENODEV;
		}
		goto err_unmap;
	}
	pd->nd = nd;
	pci_set_drvdata(pdev, pd);
	/* the probe's reset is the device's first sample of metrics 50..55 */
	if (reset)
		neuron_device_probe_reset(nd, invalid ? -ETIMEDOUT : 0, reset_ms);
	if (invalid)
		dev_err(&pdev->dev,
			"arch %s, routing id %u: neuron%u: its reset did not complete; state INVALID, unusable until a write to its sysfs reset file resets it\n",
			pd->prod->gen, rid, neuron_device_index(nd));
	else
		dev_info(&pdev->dev, "arch %s, routing id %u: neuron%u\n", pd->prod->gen, rid,
			 neuron_device_index(nd));
	return 0;

err_unmap:
	neuron_pci_unmap_pe(pd);
	pci_iounmap(pdev, pd->misc);
err_region:
	pci_release_region(pdev, 0);
err_disable:
	pci_disable_device(pdev);
err_free:
	mutex_destroy(&pd->dma_lock);
	kfree(pd);
	return ret;
}

static void neuron_pci_remove(struct pci_dev *pdev)
{
	struct neuron_pci_dev *pd = pci_get_drvdata(pdev);

	/*
	 * No late firmware answer may land in buffers the core is about to
	 * free, and an exchange racing this removal may not turn bus
	 * mastering on after it was turned off.
	 */
	mutex_lock(&pd->dma_lock);
	WRITE_ONCE(pd->dma_dead, true);
	if (pd->dma_on)
		pci_clear_master(pdev);
	mutex_unlock(&pd->dma_lock);
	neuron_device_destroy(pd->nd);
	neuron_pci_unmap_pe(pd);
	pci_iounmap(pdev, pd->misc);
	pci_release_region(pdev, 0);
	pci_disable_device(pdev);
	mutex_destroy(&pd->dma_lock);
	kfree(pd);
}

static struct pci_driver neuron_pci_driver = {
	.name = "neuron-driver",
	.id_table = neuron_pci_ids,
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
	/*
	 * the readiness wait and the reset may take minutes: the devices
	 * take them in parallel (module load still waits for them unless
	 * loaded with async_probe=1)
	 */
	.driver.probe_type = PROBE_PREFER_ASYNCHRONOUS,
};

int neuron_pci_init(void)
{
	return pci_register_driver(&neuron_pci_driver);
}

void neuron_pci_exit(void)
{
	pci_unregister_driver(&neuron_pci_driver);
}
