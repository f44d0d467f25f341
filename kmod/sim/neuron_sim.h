/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated Neuron device: one struct per device, owned by the
 * simulator, holding every part of it. The driver core sees only the
 * backend ops (neuron_backend.h) and this struct as an opaque pointer.
 *
 *   neuron_sim.c          the neuron_sim bus: devices added and removed at run
 *                         time (new_device, del_device) and at load
 *                         (sim_devices=N)
 *   neuron_sim_dev.c      one device: its parts, the ops table, create/destroy
 *   neuron_sim_miscram.c  MiscRAM
 *   neuron_sim_nc.c       the NeuronCore job engine (op exec)
 *   neuron_sim_hbm.c      the device memory (ops mem_*), sparse
 *   neuron_sim_fw.c       the firmware emulator (op fw_doorbell)
 *   neuron_sim_inject.c   every fault knob and the armed faults
 *   neuron_sim_power.c    the firmware's power telemetry (POWER_UTIL words)
 *   neuron_sim_topo.c     the links between simulated devices
 */
#ifndef NEURON_SIM_H
#define NEURON_SIM_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/types.h>

#include "../neuron_backend.h"
#include "neuron_sim_hbm.h"
#include "neuron_sim_inject.h"
#include "neuron_sim_miscram.h"
#include "neuron_sim_nc.h"

struct neuron_device;
struct neuron_sim_fw;
struct neuron_sim_power;

/**
 * struct neuron_sim_dev - one simulated device
 * @dev:	the device on the neuron_sim bus (neuron_sim<id>); its release
 *		frees this struct
 * @id:		the simulator's id of the device (serial number, DEVICE_ID)
 * @index:	N of the core's /dev/neuron<N>
 * @nc_count:	NeuronCores
 * @arch:	what the core reports, with this device's firmware contract
 * @nd:		the core's device (opaque), valid between create and destroy
 * @miscram:	MiscRAM; the firmware emulator owns the firmware words
 * @nc:		the NeuronCore job engine
 * @hbm:	the device memory
 * @fw:		the firmware emulator
 * @inject:	fault knobs and armed faults
 * @power:	the firmware's power telemetry
 * @node:	in the simulator's device list (neuron_sim.c)
 */
struct neuron_sim_dev {
	struct device dev;
	u32 id;
	u32 index;
	u32 nc_count;
	struct neuron_arch_desc arch;
	struct neuron_device *nd;
	struct neuron_sim_miscram miscram;
	struct neuron_sim_nc nc;
	struct neuron_sim_hbm hbm;
	struct neuron_sim_fw *fw;
	struct neuron_sim_inject inject;
	struct neuron_sim_power *power;
	struct list_head node;
};

/* The neuron_sim bus (neuron_sim.c). */
extern struct bus_type neuron_sim_bus;

/* neuron_sim.c: ops->create_fault (the armed sim_create_fault, one-shot) */
int neuron_sim_create_fault(struct neuron_sim_dev *sd, u32 step);

/*
 * neuron_sim_dev.c: a device with @nc_count NeuronCores: registered with
 * the core, then added to the bus. An error pointer on failure.
 * @fw_arch: enum neuron_fw_arch: NEURON_FW_ARCH_SIM for the lenient
 * firmware, V2..V4 for the strict firmware of that architecture (the core
 * follows that architecture's contract; the device is numbered from its
 * routing id, which is @id, after the readiness wait, as a PCI device is).
 * @time_div: strict only: every time of the contract and of the firmware
 * divided by this (1 = real time).
 */
struct neuron_sim_dev *neuron_sim_dev_create(u32 id, u32 nc_count, u32 fw_arch, u32 time_div);
/* Remove it: from the bus, then every part in reverse order; frees @sd. */
void neuron_sim_dev_destroy(struct neuron_sim_dev *sd);

/* neuron_sim_topo.c: the ring of simulated devices (connected_devices). */
void neuron_sim_topo_add(struct neuron_sim_dev *sd);
void neuron_sim_topo_del(struct neuron_sim_dev *sd);
u32 neuron_sim_topo_links(void *backend, u32 *ids, u32 max);

/*
 * neuron_sim_power.c: the firmware's power samples in MiscRAM POWER_UTIL
 * words, and the debugfs knob inject/power that sets the utilization.
 */
struct neuron_sim_power *neuron_sim_power_create(struct neuron_sim_dev *sd);
void neuron_sim_power_debugfs(struct neuron_sim_power *p, struct dentry *dir);
/* Before the core's neuron_device_destroy(), which removes @dir. */
void neuron_sim_power_debugfs_exit(struct neuron_sim_power *p);
void neuron_sim_power_destroy(struct neuron_sim_power *p);

#endif /* NEURON_SIM_H */
