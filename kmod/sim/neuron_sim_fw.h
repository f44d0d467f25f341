/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated device's firmware: the MiscRAM words it owns and the FW-IO
 * mailbox it serves (sim/neuron_sim_fw.c).
 */
#ifndef NEURON_SIM_FW_H
#define NEURON_SIM_FW_H

#include <linux/types.h>

struct dentry;
struct neuron_sim_dev;
struct neuron_sim_fw;

/* Seed MiscRAM and get ready to serve requests; before the device is created. */
struct neuron_sim_fw *neuron_sim_fw_create(struct neuron_sim_dev *sd);
/* fw/posted, fw/posted_blobs, fw/sim_stats under @dir; once the device exists. */
void neuron_sim_fw_debugfs(struct neuron_sim_fw *fw, struct dentry *dir);
/* Remove them: before the device is destroyed. */
void neuron_sim_fw_debugfs_exit(struct neuron_sim_fw *fw);
/* After the device is destroyed: no request can arrive any more. */
void neuron_sim_fw_destroy(struct neuron_sim_fw *fw);
/*
 * The driver wrote @val to TRIGGER (backend op misc_write): the doorbell.
 * Latches the request (lenient and strict rules: sim/neuron_sim_fw.c) and
 * serves it before returning; an answer that takes time on a device (slow
 * fault, strict power profile) is left to a delayed work item.
 */
void neuron_sim_fw_trigger(struct neuron_sim_fw *fw, u32 val);
/* backend ops dma_alloc/dma_free: host buffers the firmware can reach. */
void *neuron_sim_fw_dma_alloc(struct neuron_sim_fw *fw, size_t size, u64 *dev_addr);
void neuron_sim_fw_dma_free(struct neuron_sim_fw *fw, void *va);

#endif /* NEURON_SIM_FW_H */
