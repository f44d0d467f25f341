// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated device's MiscRAM (neuron_sim_miscram.h): an array of words
 * that one spinlock guards for writers. The backend ops misc_read/misc_write,
 * the firmware emulator and the fault knobs all go through these functions.
 */
#include <linux/spinlock.h>

#include "neuron_miscram_reg.h"
#include "neuron_sim_miscram.h"

void neuron_sim_miscram_init(struct neuron_sim_miscram *m)
{
	spin_lock_init(&m->lock);
	memset(m->words, 0, sizeof(m->words));
}

static bool miscram_valid(u32 off)
{
	return off < NEURON_SIM_MISCRAM_SIZE && !(off & 3);
}

u32 neuron_sim_miscram_read(struct neuron_sim_miscram *m, u32 off)
{
	if (!miscram_valid(off))
		return NEURON_MISCRAM_BAD_READ;
	/*
	 * One aligned word, read whole without the lock; acquire: what the
	 * action that stored it stored before it is seen by the reads after
	 * this one (neuron_sim_miscram.h).
	 */
	return smp_load_acquire(&m->words[off / 4]);
}

void neuron_sim_miscram_write(struct neuron_sim_miscram *m, u32 off, u32 val)
{
	unsigned long flags;

	if (!miscram_valid(off))
		return;
	spin_lock_irqsave(&m->lock, flags);
	WRITE_ONCE(m->words[off / 4], val);
	spin_unlock_irqrestore(&m->lock, flags);
}

bool neuron_sim_miscram_update(struct neuron_sim_miscram *m,
			       bool (*fn)(u32 *words, void *ctx), void *ctx)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&m->lock, flags);
	ret = fn(m->words, ctx);
	spin_unlock_irqrestore(&m->lock, flags);
	return ret;
}
