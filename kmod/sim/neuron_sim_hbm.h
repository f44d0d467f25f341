/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device memory (HBM) of one simulated device (sim/neuron_sim_hbm.c):
 * sparse, allocated a 4 KiB block at a time on first write.
 */
#ifndef NEURON_SIM_HBM_H
#define NEURON_SIM_HBM_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct page;

/**
 * struct neuron_sim_hbm - simulated HBM
 * @lock:	protects @blocks and their contents
 * @blocks:	block index -> SIM_HBM_BLOCK bytes; an absent block reads as zeros;
 *		mark SIM_HBM_MAPPED: handed out by mem_page, not yet unmapped
 * @size:	bytes of HBM (the sim_hbm_mb parameter at creation)
 * @present:	blocks allocated (debugfs neuron<N>/hbm_blocks, read-only)
 * @debugfs:	that file
 */
struct neuron_sim_hbm {
	struct mutex lock;
	struct xarray blocks;
	u64 size;
	unsigned long present;
	struct dentry *debugfs;
};

void neuron_sim_hbm_init(struct neuron_sim_hbm *h);
/* debugfs neuron<N>/hbm_blocks: once the device exists; removed before it goes. */
void neuron_sim_hbm_debugfs(struct neuron_sim_hbm *h, struct dentry *dir);
void neuron_sim_hbm_debugfs_exit(struct neuron_sim_hbm *h);
/* Free every block: device removal and reset. */
void neuron_sim_hbm_clear(struct neuron_sim_hbm *h);
void neuron_sim_hbm_destroy(struct neuron_sim_hbm *h);

/*
 * Access [@addr, @addr + @len) of HBM: 0, -EINVAL outside HBM, -ENOMEM
 * when a block cannot be allocated (write, set to non-zero). Setting a
 * whole block to zero frees it. Sleeps.
 */
int neuron_sim_hbm_read(struct neuron_sim_hbm *h, u64 addr, void *buf, size_t len);
int neuron_sim_hbm_write(struct neuron_sim_hbm *h, u64 addr, const void *buf, size_t len);
int neuron_sim_hbm_set(struct neuron_sim_hbm *h, u64 addr, u8 value, u64 len);

/* backend ops mem_size, mem_read, mem_write, mem_set (neuron_backend.h) */
u64 neuron_sim_mem_size(void *backend);
int neuron_sim_mem_read(void *backend, u64 addr, void *buf, size_t len);
int neuron_sim_mem_write(void *backend, u64 addr, const void *buf, size_t len);
int neuron_sim_mem_set(void *backend, u64 addr, u8 value, u64 len);
/* backend op mem_page: the block's page, referenced, created when absent, marked mapped */
struct page *neuron_sim_mem_page(void *backend, u64 addr);
/* backend op mem_unmap: the blocks of [@addr, @addr + @len) are mapped nowhere */
void neuron_sim_mem_unmap(void *backend, u64 addr, u64 len);

#endif /* NEURON_SIM_HBM_H */
