/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tensor engine's PE array activity counters, as the vendor's driver
 * reads them for neuron_core<K>/stats/tensor_engine/pe_cntrs: per
 * NeuronCore, four row groups of 64-bit cycle counters (matmul active,
 * weight-load active, idle) in BAR0, each read as its high word (LSB
 * offset + 4) and then its low word.
 *
 * A NeuronCore's counters sit in a block of xbus_count register groups
 * of reg_grp_size bytes per row group; in a register group the matmul
 * counter's low word is at +0x0, the weight-load counter's at +0x8, the
 * idle counter's at +0x10. The value per row group:
 *   mm   the matmul counter of register group mm_xbus
 *   wl   the weight-load counters of register groups 0..col_grp_count-1
 *        (the fast weight loads of each column group), plus on v3 the
 *        weight-load counter of register group wl_xbus
 *   idle the idle counter of register group mm_xbus
 * (facts: vendor-uapi.md; the vendor's vc/neuron_dhal_vc.c and its v2/v3
 * tables.)
 */
#ifndef NEURON_PE_COUNTERS_H
#define NEURON_PE_COUNTERS_H

#include "neuron_pure.h"

#define NEURON_PE_ROW_GROUPS	4
#define NEURON_PE_MAX_NC	8

#define NEURON_PE_MM_LSB	0x0
#define NEURON_PE_WL_LSB	0x8
#define NEURON_PE_IDLE_LSB	0x10

/* enum neuron_pe_field: the three values of a row group */
enum neuron_pe_field { NEURON_PE_MM, NEURON_PE_WL, NEURON_PE_IDLE, NEURON_PE_FIELDS };

struct neuron_pe_layout {
	u32 nc_count;		/* NeuronCores with counters */
	u32 xbus_count;		/* register groups per row group */
	u32 col_grp_count;	/* fast weight-load groups summed into wl */
	u32 reg_grp_size;	/* bytes per register group */
	u32 mm_xbus;		/* register group of the matmul and idle counters */
	s32 wl_xbus;		/* register group of the added weight-load counter, -1: none */
	u64 nc_base[NEURON_PE_MAX_NC];	/* BAR0 offset of each NeuronCore's block */
};

/* The layout of @fw_arch (enum neuron_fw_arch), NULL when it has none known (v4, sim). */
const struct neuron_pe_layout *neuron_pe_layout_of(u32 fw_arch);

/* BAR0 offset of the low word of a counter. */
u64 neuron_pe_counter_off(const struct neuron_pe_layout *l, u32 nc, u32 row_grp, u32 xbus,
			  u32 lsb);

/*
 * True when @off (a BAR0 offset, 4-aligned) is a word of one of @l's
 * counters; *@lsb_off gets the offset of that counter's low word.
 */
bool neuron_pe_is_counter(const struct neuron_pe_layout *l, u64 off, u64 *lsb_off);

/*
 * Read NeuronCore @nc's counters in the vendor's order through @read32
 * (0, or a negative errno that ends the read): out[row group][field]. As
 * the vendor's, a counter whose low word carries between its two reads
 * comes out 2^32 off: the counters are a sample, not an atomic snapshot.
 * 0, -EINVAL for a NeuronCore past the layout's, or @read32's error.
 */
int neuron_pe_read(const struct neuron_pe_layout *l, u32 nc,
		   int (*read32)(void *ctx, u64 off, u32 *val), void *ctx,
		   u64 out[NEURON_PE_ROW_GROUPS][NEURON_PE_FIELDS]);

#endif /* NEURON_PE_COUNTERS_H */
