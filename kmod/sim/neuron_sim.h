/* SPDX-License-Identifier: GPL-2.0 */
/* The simulated Neuron device: backend state shared by the sim files. */
#ifndef NEURON_SIM_H
#define NEURON_SIM_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct neuron_device;
struct neuron_sim_fw;

#define NEURON_SIM_MISCRAM_SIZE	0x1000	/* bytes of simulated MiscRAM */

/**
 * struct neuron_sim_dev - one simulated device
 * @nd:		the device core's view
 * @lock:	protects @miscram
 * @miscram:	MiscRAM words; the firmware emulator writes the FW-owned ones
 * @fw:		the firmware emulator (neuron_sim_fw.c)
 */
struct neuron_sim_dev {
	struct neuron_device *nd;
	spinlock_t lock;
	u32 miscram[NEURON_SIM_MISCRAM_SIZE / 4];
	struct neuron_sim_fw *fw;
};

#endif /* NEURON_SIM_H */
