// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated device's MiscRAM (neuron_sim_miscram.h): an array of words
 * behind one spinlock. The backend ops misc_read/misc_write, the firmware
 * emulator and the fault knobs all go through these functions.
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
	unsigned long flags;
	u32 val;

	if (!miscram_valid(off))
		return NEURON_MISCRAM_BAD_READ;
	spin_lock_irqsave(&m->lock, flags);
	val = m->words[off / 4];
	spin_unlock_irqrestore(&m->lock, flags);
	return val;
}

void neuron_sim_miscram_write(struct neuron_sim_miscram *m, u32 off, u32 val)
{
	unsigned long flags;

	if (!miscram_valid(off))
		return;
	spin_lock_irqsave(&m->lock, flags);
	m->words[off / 4] = val;
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
