// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_products.h"
#include "neuron_fw_profile.h"

const struct neuron_product neuron_products[NEURON_PRODUCT_COUNT] = {
	[NEURON_PRODUCT_TRN1] = {
		"trn1", "v2", NEURON_PCI_DEVICE_TRN1, NEURON_FW_ARCH_V2, NEURON_FW_ROUTE_TRN1,
		0x30FA0000, 1ull << 44, 2, "NDv2", "NCv2", "Trn1", "Trainium1", 2, false,
	},
	[NEURON_PRODUCT_INF2] = {
		"inf2", "v2", NEURON_PCI_DEVICE_INF2, NEURON_FW_ARCH_V2, NEURON_FW_ROUTE_IDENTITY,
		0x30FA0000, 1ull << 44, 2, "NDv3", "NCv2", "Inf2", "Inferentia2", 2, false,
	},
	[NEURON_PRODUCT_TRN2] = {
		"trn2", "v3", NEURON_PCI_DEVICE_TRN2, NEURON_FW_ARCH_V3, NEURON_FW_ROUTE_TRN2,
		0x06C84000, 1ull << 46, 8, "NDv3", "NCv3", "Trn2", "Trainium2", 4, true,
	},
	[NEURON_PRODUCT_TRN3] = {
		"trn3", "v4", NEURON_PCI_DEVICE_TRN3, NEURON_FW_ARCH_V4, NEURON_FW_ROUTE_TRN2,
		0x06C84000, 1ull << 46, 8, "NDv4", "NCv4", "Trn3", "Trainium3", 4, true,
	},
};

const struct neuron_product *neuron_product_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < NEURON_PRODUCT_COUNT; i++)
		if (!strcmp(neuron_products[i].name, name))
			return &neuron_products[i];
	return NULL;
}
