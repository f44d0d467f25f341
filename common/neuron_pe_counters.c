// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_fw_profile.h"
#include "neuron_pe_counters.h"

/* v2 (Trn1, Inf2): two NeuronCores, five register groups of 0x40 bytes */
static const struct neuron_pe_layout pe_v2 = {
	.nc_count = 2,
	.xbus_count = 5,
	.col_grp_count = 4,
	.reg_grp_size = 0x40,
	.mm_xbus = 4,
	.wl_xbus = -1,
	.nc_base = { 0x305B1100, 0x30CB1100 },
};

/* v3 (Trn2): eight NeuronCores, nine register groups of 0x30 bytes */
static const struct neuron_pe_layout pe_v3 = {
	.nc_count = 8,
	.xbus_count = 9,
	.col_grp_count = 4,
	.reg_grp_size = 0x30,
	.mm_xbus = 4,
	.wl_xbus = 8,
	.nc_base = { 0x06141100, 0x062C1100, 0x06541100, 0x066C1100,
		     0x46141100, 0x462C1100, 0x46541100, 0x466C1100 },
};

const struct neuron_pe_layout *neuron_pe_layout_of(u32 fw_arch)
{
	switch (fw_arch) {
	case NEURON_FW_ARCH_V2:
		return &pe_v2;
	case NEURON_FW_ARCH_V3:
		return &pe_v3;
	}
	return NULL;
}

u64 neuron_pe_counter_off(const struct neuron_pe_layout *l, u32 nc, u32 row_grp, u32 xbus,
			  u32 lsb)
{
	return l->nc_base[nc] + (u64)row_grp * l->xbus_count * l->reg_grp_size +
	       (u64)xbus * l->reg_grp_size + lsb;
}

bool neuron_pe_is_counter(const struct neuron_pe_layout *l, u64 off, u64 *lsb_off)
{
	u32 span = NEURON_PE_ROW_GROUPS * l->xbus_count * l->reg_grp_size;
	u32 rel, in_grp;
	u32 nc;

	if (off & 3)
		return false;
	for (nc = 0; nc < l->nc_count; nc++) {
		if (off < l->nc_base[nc] || off - l->nc_base[nc] >= span)
			continue;
		/* within a block of less than 4 KiB: 32-bit arithmetic on any kernel */
		rel = (u32)(off - l->nc_base[nc]);
		in_grp = rel % l->reg_grp_size;
		/* three 8-byte counters at the start of each register group */
		if (in_grp >= NEURON_PE_IDLE_LSB + 8)
			return false;
		*lsb_off = off - (in_grp & 4);
		return true;
	}
	return false;
}

/* a 64-bit counter: the high word first, as the vendor reads it */
static int pe_read64(int (*read32)(void *ctx, u64 off, u32 *val), void *ctx, u64 lsb_off,
		     u64 *val)
{
	u32 hi, lo;
	int ret;

	ret = read32(ctx, lsb_off + 4, &hi);
	if (!ret)
		ret = read32(ctx, lsb_off, &lo);
	if (!ret)
		*val = (u64)hi << 32 | lo;
	return ret;
}

int neuron_pe_read(const struct neuron_pe_layout *l, u32 nc,
		   int (*read32)(void *ctx, u64 off, u32 *val), void *ctx,
		   u64 out[NEURON_PE_ROW_GROUPS][NEURON_PE_FIELDS])
{
	u32 rg, c;
	u64 v;
	int ret;

	if (nc >= l->nc_count)
		return -EINVAL;
	for (rg = 0; rg < NEURON_PE_ROW_GROUPS; rg++) {
		ret = pe_read64(read32, ctx,
				neuron_pe_counter_off(l, nc, rg, l->mm_xbus, NEURON_PE_MM_LSB),
				&out[rg][NEURON_PE_MM]);
		if (ret)
			return ret;
		out[rg][NEURON_PE_WL] = 0;
		if (l->wl_xbus >= 0) {
			ret = pe_read64(read32, ctx,
					neuron_pe_counter_off(l, nc, rg, (u32)l->wl_xbus,
							      NEURON_PE_WL_LSB), &v);
			if (ret)
				return ret;
			out[rg][NEURON_PE_WL] += v;
		}
		for (c = 0; c < l->col_grp_count; c++) {
			ret = pe_read64(read32, ctx,
					neuron_pe_counter_off(l, nc, rg, c, NEURON_PE_WL_LSB), &v);
			if (ret)
				return ret;
			out[rg][NEURON_PE_WL] += v;
		}
		ret = pe_read64(read32, ctx,
				neuron_pe_counter_off(l, nc, rg, l->mm_xbus, NEURON_PE_IDLE_LSB),
				&out[rg][NEURON_PE_IDLE]);
		if (ret)
			return ret;
	}
	return 0;
}
