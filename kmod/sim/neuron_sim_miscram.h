/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated device's MiscRAM: the one accessor every part of the
 * simulator (the backend ops, the firmware emulator, the fault knobs) uses.
 * Offsets are those of the register map, common/neuron_miscram_reg.h.
 */
#ifndef NEURON_SIM_MISCRAM_H
#define NEURON_SIM_MISCRAM_H

#include <linux/spinlock.h>
#include <linux/types.h>

#define NEURON_SIM_MISCRAM_SIZE	0x1000	/* bytes of simulated MiscRAM */

/**
 * struct neuron_sim_miscram - MiscRAM of one simulated device
 * @lock:	serializes the writes of @words; taken with interrupts off (a
 *		firmware action spanning several words is atomic against every
 *		other write). Reads take no lock: a reader sees each word whole,
 *		and an action stores the word its readers wait for (TRIGGER,
 *		RESET) last, with release, so a reader that sees it sees the
 *		whole action (neuron_sim_miscram_update())
 * @words:	the words, indexed by byte offset / 4
 */
struct neuron_sim_miscram {
	spinlock_t lock;
	u32 words[NEURON_SIM_MISCRAM_SIZE / 4];
};

void neuron_sim_miscram_init(struct neuron_sim_miscram *m);

/*
 * NEURON_MISCRAM_BAD_READ for an offset outside MiscRAM or not word aligned.
 * Lockless, with acquire: in order with the reads after it, as a device
 * register's reads are.
 */
u32 neuron_sim_miscram_read(struct neuron_sim_miscram *m, u32 off);
/* Ignored for an offset outside MiscRAM or not word aligned. */
void neuron_sim_miscram_write(struct neuron_sim_miscram *m, u32 off, u32 val);

/*
 * Run @fn on the words with the lock held (it must not sleep): a firmware
 * action that reads or writes several words at once. Returns what @fn does.
 * Lockless readers may look at the words while @fn runs: @fn stores with
 * WRITE_ONCE(), and the word that tells a reader the action is done
 * (TRIGGER cleared, RESET taken) last, with smp_store_release().
 */
bool neuron_sim_miscram_update(struct neuron_sim_miscram *m,
			       bool (*fn)(u32 *words, void *ctx), void *ctx);

#endif /* NEURON_SIM_MISCRAM_H */
