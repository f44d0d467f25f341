/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The Neuron products the PCI backend binds and neuron-pciemu emulates:
 * their PCI ids and the constants of each, one table for both.
 */
#ifndef NEURON_PRODUCTS_H
#define NEURON_PRODUCTS_H

#include "neuron_pure.h"

#define NEURON_PCI_VENDOR		0x1d0f	/* Amazon */
#define NEURON_PCI_DEVICE_TRN1		0x7164
#define NEURON_PCI_DEVICE_INF2		0x7264
#define NEURON_PCI_DEVICE_TRN2		0x7364
#define NEURON_PCI_DEVICE_TRN3		0x7564
#define NEURON_PCI_DEVICE_TRN3_ALT	0x7565	/* Trn3 answers to both */

enum neuron_product_id {
	NEURON_PRODUCT_TRN1,
	NEURON_PRODUCT_INF2,
	NEURON_PRODUCT_TRN2,
	NEURON_PRODUCT_TRN3,
	NEURON_PRODUCT_COUNT
};

/**
 * struct neuron_product - one product's constants
 * @name:	"trn1", "inf2", "trn2", "trn3" (neuron-pciemu's --arch)
 * @gen:	"v2", "v3", "v4": the generation the driver logs
 * @device_id:	its PCI device id (vendor NEURON_PCI_VENDOR; the first, for Trn3)
 * @fw_arch:	enum neuron_fw_arch: the firmware contract
 * @route:	enum neuron_fw_route: routing id -> device index
 * @miscram_off: MiscRAM offset within BAR0
 * @host_base:	OR'd into host DMA addresses the device is given (pci_host_base)
 * @nc_count:	NeuronCores per device
 * @arch_type, @nc_arch_type, @instance_type, @device_name: what sysfs and
 *		GET_INFO report ("NDv2", "NCv2", "Trn1", "Trainium1")
 * @hbm_channels: HBM channels with ECC counts
 * @has_repair_state: the HBM repair state word exists
 */
struct neuron_product {
	const char *name;
	const char *gen;
	u16 device_id;
	u32 fw_arch;
	u32 route;
	u32 miscram_off;
	u64 host_base;
	u32 nc_count;
	const char *arch_type;
	const char *nc_arch_type;
	const char *instance_type;
	const char *device_name;
	u32 hbm_channels;
	bool has_repair_state;
};

extern const struct neuron_product neuron_products[NEURON_PRODUCT_COUNT];

/* The product @name ("trn1") names, or NULL. */
const struct neuron_product *neuron_product_by_name(const char *name);

#endif /* NEURON_PRODUCTS_H */
