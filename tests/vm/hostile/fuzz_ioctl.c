// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: the ioctl operations (valid arguments, one field
 * mutated, bad pointers, random command numbers) and their judge.
 */
#include "hostile.h"

/* ---- ioctl command table ------------------------------------------------- */

enum fk { FK_SIZE, FK_FLAGS, FK_RES, FK_OUT, FK_NC, FK_IDX, FK_U64, FK_PID, FK_COUNT, FK_ADDR,
	  FK_DUR, FK_TMO, FK_RSIZE };

struct fdesc {
	uint16_t off, width;
	uint8_t kind;
	uint32_t lim;
	const char *name;
};

#define FD(st, m, k, l) { offsetof(st, m), sizeof(((st *)0)->m), k, l, #m }

static const struct fdesc f_info[] = {
	FD(struct neuron_info, size, FK_SIZE, 0), FD(struct neuron_info, flags, FK_FLAGS, 0),
	FD(struct neuron_info, abi_version, FK_OUT, 0), FD(struct neuron_info, device_index, FK_OUT, 0),
	FD(struct neuron_info, nc_count, FK_OUT, 0), FD(struct neuron_info, backend, FK_OUT, 0),
	FD(struct neuron_info, capabilities, FK_OUT, 0), FD(struct neuron_info, driver_version, FK_OUT, 0),
	FD(struct neuron_info, hbm_size, FK_RES, 0),	/* out only: zero on input */
	FD(struct neuron_info, reserved, FK_RES, 0),
};
static const struct fdesc f_acq[] = {
	FD(struct neuron_nds_acquire, size, FK_SIZE, 0), FD(struct neuron_nds_acquire, flags, FK_FLAGS, 0),
	FD(struct neuron_nds_acquire, pid, FK_PID, 0), FD(struct neuron_nds_acquire, slot, FK_OUT, 0),
	FD(struct neuron_nds_acquire, mmap_offset, FK_OUT, 0),
	FD(struct neuron_nds_acquire, mmap_size, FK_OUT, 0), FD(struct neuron_nds_acquire, access, FK_OUT, 0),
	FD(struct neuron_nds_acquire, reserved0, FK_RES, 0), FD(struct neuron_nds_acquire, reserved, FK_RES, 0),
};
static const struct fdesc f_add[] = {
	FD(struct neuron_nds_counter_add, size, FK_SIZE, 0),
	FD(struct neuron_nds_counter_add, flags, FK_FLAGS, 0),
	FD(struct neuron_nds_counter_add, nc, FK_NC, 0),
	FD(struct neuron_nds_counter_add, id, FK_IDX, NEURON_NDS_ID_COUNT),
	FD(struct neuron_nds_counter_add, delta, FK_U64, 0),
	FD(struct neuron_nds_counter_add, reserved, FK_RES, 0),
};
static const struct fdesc f_nqi[] = {
	FD(struct neuron_nq_init, size, FK_SIZE, 0), FD(struct neuron_nq_init, flags, FK_FLAGS, 0),
	FD(struct neuron_nq_init, nc, FK_NC, 0),
	FD(struct neuron_nq_init, nq_type, FK_IDX, NEURON_NQ_TYPE_MAX),
	FD(struct neuron_nq_init, engine, FK_IDX, NEURON_NQ_MAX_ENGINE),
	FD(struct neuron_nq_init, ring_size, FK_RSIZE, 0),
	FD(struct neuron_nq_init, mmap_offset, FK_OUT, 0), FD(struct neuron_nq_init, mmap_size, FK_OUT, 0),
	FD(struct neuron_nq_init, reserved, FK_RES, 0),
};
static const struct fdesc f_nqr[] = {
	FD(struct neuron_nq_release, size, FK_SIZE, 0), FD(struct neuron_nq_release, flags, FK_FLAGS, 0),
	FD(struct neuron_nq_release, nc, FK_NC, 0),
	FD(struct neuron_nq_release, nq_type, FK_IDX, NEURON_NQ_TYPE_MAX),
	FD(struct neuron_nq_release, engine, FK_IDX, NEURON_NQ_MAX_ENGINE),
	FD(struct neuron_nq_release, reserved0, FK_RES, 0), FD(struct neuron_nq_release, reserved, FK_RES, 0),
};
static const struct fdesc f_cr[] = {
	FD(struct neuron_core_reserve, size, FK_SIZE, 0), FD(struct neuron_core_reserve, flags, FK_FLAGS, 0),
	FD(struct neuron_core_reserve, nc, FK_NC, 0),
	FD(struct neuron_core_reserve, reserved0, FK_RES, 0), FD(struct neuron_core_reserve, reserved, FK_RES, 0),
};
static const struct fdesc f_ex[] = {
	FD(struct neuron_sim_exec, size, FK_SIZE, 0), FD(struct neuron_sim_exec, flags, FK_FLAGS, 0),
	FD(struct neuron_sim_exec, nc, FK_NC, 0), FD(struct neuron_sim_exec, reserved0, FK_RES, 0),
	FD(struct neuron_sim_exec, duration_us, FK_DUR, 0), FD(struct neuron_sim_exec, timeout_us, FK_TMO, 0),
	FD(struct neuron_sim_exec, entries, FK_OUT, 0), FD(struct neuron_sim_exec, dropped, FK_OUT, 0),
	FD(struct neuron_sim_exec, job_ns, FK_OUT, 0),
	FD(struct neuron_sim_exec, reserved, FK_RES, 0),
};
/* NDS_READ: the destination is the thread's io buffer, never mutated */
_Static_assert(NEURON_NDS_READ_MAX <= sizeof(((struct ts *)0)->io), "NDS_READ into ts.io");
static const struct fdesc f_ndsread[] = {
	FD(struct neuron_nds_read, size, FK_SIZE, 0), FD(struct neuron_nds_read, flags, FK_FLAGS, 0),
	FD(struct neuron_nds_read, pid, FK_PID, 0),
	FD(struct neuron_nds_read, offset, FK_IDX, NEURON_NDS_SIZE),
	FD(struct neuron_nds_read, bytes, FK_IDX, NEURON_NDS_READ_MAX + 1),
	FD(struct neuron_nds_read, reserved0, FK_RES, 0), FD(struct neuron_nds_read, reserved, FK_RES, 0),
};
static const struct fdesc f_fwr[] = {
	FD(struct neuron_fw_read, size, FK_SIZE, 0), FD(struct neuron_fw_read, flags, FK_FLAGS, 0),
	FD(struct neuron_fw_read, count, FK_COUNT, 0), FD(struct neuron_fw_read, reserved0, FK_RES, 0),
	FD(struct neuron_fw_read, addr, FK_ADDR, 0), FD(struct neuron_fw_read, value, FK_OUT, 0),
	FD(struct neuron_fw_read, reserved, FK_RES, 0),
};
static const struct fdesc f_pp[] = {
	FD(struct neuron_fw_power_profile, size, FK_SIZE, 0),
	FD(struct neuron_fw_power_profile, flags, FK_FLAGS, 0),
	FD(struct neuron_fw_power_profile, profile, FK_IDX, 256),
	FD(struct neuron_fw_power_profile, reserved0, FK_RES, 0),
	FD(struct neuron_fw_power_profile, reserved, FK_RES, 0),
};

/*
 * Device memory and jobs with data: commands known to the random command
 * judge (a known number is not ENOTTY) but not fuzzed field by field yet
 * (weight 0).
 */
static const struct fdesc f_malloc[] = {
	FD(struct neuron_mem_alloc, size, FK_SIZE, 0), FD(struct neuron_mem_alloc, flags, FK_FLAGS, 0),
	FD(struct neuron_mem_alloc, reserved0, FK_RES, 0), FD(struct neuron_mem_alloc, reserved, FK_RES, 0),
};
static const struct fdesc f_mfree[] = {
	FD(struct neuron_mem_free, size, FK_SIZE, 0), FD(struct neuron_mem_free, flags, FK_FLAGS, 0),
	FD(struct neuron_mem_free, reserved, FK_RES, 0),
};
static const struct fdesc f_mrw[] = {
	FD(struct neuron_mem_rw, size, FK_SIZE, 0), FD(struct neuron_mem_rw, flags, FK_FLAGS, 0),
	FD(struct neuron_mem_rw, reserved0, FK_RES, 0), FD(struct neuron_mem_rw, reserved, FK_RES, 0),
};
static const struct fdesc f_mdmabuf[] = {
	FD(struct neuron_mem_dmabuf_read, size, FK_SIZE, 0),
	FD(struct neuron_mem_dmabuf_read, flags, FK_FLAGS, 0),
	FD(struct neuron_mem_dmabuf_read, reserved0, FK_RES, 0),
	FD(struct neuron_mem_dmabuf_read, reserved, FK_RES, 0),
};
static const struct fdesc f_model[] = {
	FD(struct neuron_sim_exec_model, size, FK_SIZE, 0),
	FD(struct neuron_sim_exec_model, flags, FK_FLAGS, 0),
	FD(struct neuron_sim_exec_model, reserved, FK_RES, 0),
};
/* APPS_INFO: known to the judge, not fuzzed field by field yet */
static const struct fdesc f_apps[] = {
	FD(struct neuron_apps_info, size, FK_SIZE, 0), FD(struct neuron_apps_info, flags, FK_FLAGS, 0),
	FD(struct neuron_apps_info, reserved0, FK_RES, 0), FD(struct neuron_apps_info, reserved, FK_RES, 0),
};

/*
 * CORE_HOLDERS and CORE_TAKE_BACK: known to the judge, not fuzzed field
 * by field (a take-back by a root worker would cancel its siblings' cores,
 * which the judge does not model); vm_holders covers them.
 */
static const struct fdesc f_holders[] = {
	FD(struct neuron_core_holders, size, FK_SIZE, 0),
	FD(struct neuron_core_holders, flags, FK_FLAGS, 0),
	FD(struct neuron_core_holders, nc, FK_NC, 0),
	FD(struct neuron_core_holders, reserved0, FK_RES, 0),
	FD(struct neuron_core_holders, reserved, FK_RES, 0),
};


struct cdesc {
	const char *name;
	unsigned long cmd;
	uint32_t size;
	uint32_t allowed_flags;
	const struct fdesc *f;
	int nf;
	unsigned int weight;
};

#define CD(n, c, st, fl, f, w) { n, c, sizeof(st), fl, f, (int)(sizeof(f) / sizeof(f[0])), w }
static const struct cdesc cmds[C_MAX] = {
	[C_INFO] = CD("GET_INFO", NEURON_IOCTL_GET_INFO, struct neuron_info, 0, f_info, 10),
	[C_ACQ] = CD("NDS_ACQUIRE", NEURON_IOCTL_NDS_ACQUIRE, struct neuron_nds_acquire, 0, f_acq, 15),
	[C_ADD] = CD("NDS_COUNTER_ADD", NEURON_IOCTL_NDS_COUNTER_ADD, struct neuron_nds_counter_add,
		     NEURON_NDS_ADD_ND, f_add, 20),
	[C_NQI] = CD("NQ_INIT", NEURON_IOCTL_NQ_INIT, struct neuron_nq_init, 0, f_nqi, 15),
	[C_NQR] = CD("NQ_RELEASE", NEURON_IOCTL_NQ_RELEASE, struct neuron_nq_release, 0, f_nqr, 10),
	[C_CRES] = CD("CORE_RESERVE", NEURON_IOCTL_CORE_RESERVE, struct neuron_core_reserve, 0, f_cr, 8),
	[C_CREL] = CD("CORE_RELEASE", NEURON_IOCTL_CORE_RELEASE, struct neuron_core_reserve, 0, f_cr, 8),
	[C_EXEC] = CD("SIM_EXEC", NEURON_IOCTL_SIM_EXEC, struct neuron_sim_exec, NEURON_SIM_EXEC_COLL_ERROR,
		      f_ex, 8),
	[C_FWR] = CD("FW_READ", NEURON_IOCTL_FW_READ, struct neuron_fw_read, 0, f_fwr, 3),
	[C_PP] = CD("FW_POWER_PROFILE", NEURON_IOCTL_FW_POWER_PROFILE, struct neuron_fw_power_profile, 0,
		    f_pp, 3),
	[C_MODEL] = CD("SIM_EXEC_MODEL", NEURON_IOCTL_SIM_EXEC_MODEL, struct neuron_sim_exec_model, 0,
		       f_model, 0),
	[C_MALLOC] = CD("MEM_ALLOC", NEURON_IOCTL_MEM_ALLOC, struct neuron_mem_alloc, 0, f_malloc, 0),
	[C_MFREE] = CD("MEM_FREE", NEURON_IOCTL_MEM_FREE, struct neuron_mem_free, 0, f_mfree, 0),
	[C_MREAD] = CD("MEM_READ", NEURON_IOCTL_MEM_READ, struct neuron_mem_rw, 0, f_mrw, 0),
	[C_MWRITE] = CD("MEM_WRITE", NEURON_IOCTL_MEM_WRITE, struct neuron_mem_rw, 0, f_mrw, 0),
	[C_MSET] = CD("MEM_SET", NEURON_IOCTL_MEM_SET, struct neuron_mem_rw, 0, f_mrw, 0),
	[C_APPS] = CD("APPS_INFO", NEURON_IOCTL_APPS_INFO, struct neuron_apps_info, 0, f_apps, 0),
	[C_HOLDERS] = CD("CORE_HOLDERS", NEURON_IOCTL_CORE_HOLDERS, struct neuron_core_holders, 0,
			 f_holders, 0),
	[C_TAKEBACK] = CD("CORE_TAKE_BACK", NEURON_IOCTL_CORE_TAKE_BACK, struct neuron_core_reserve, 0,
			  f_cr, 0),
	[C_MDMABUF] = CD("MEM_DMABUF_READ", NEURON_IOCTL_MEM_DMABUF_READ, struct neuron_mem_dmabuf_read,
			 0, f_mdmabuf, 0),
	[C_NDSREAD] = CD("NDS_READ", NEURON_IOCTL_NDS_READ, struct neuron_nds_read, 0, f_ndsread, 10),
};

static int pick_cmd(struct ts *t)
{
	unsigned int total = 0, r, c;

	for (c = 0; c < C_MAX; c++)
		total += cmds[c].weight;
	r = below(t, total);
	for (c = 0; c < C_MAX; c++) {
		if (r < cmds[c].weight)
			return (int)c;
		r -= cmds[c].weight;
	}
	return 0;
}

static pid_t sibling_pid(struct ts *t)
{
	int i = below(t, g_procs);
	pid_t p = atomic_load(&sh->worker_pid[i]);

	return p > 0 ? p : getpid();
}

uint32_t ring_size_valid(struct ts *t)
{
	/* mostly small rings; now and then the largest */
	if (chance(t, 20))
		return NEURON_NQ_MAX_SIZE;
	return NEURON_NQ_MIN_SIZE << below(t, 7);	/* 256 .. 16 KiB */
}

/* A valid argument for command @c on device @d. */
static void fill_valid(struct ts *t, int c, int d, union arg *a)
{
	uint32_t nc = below(t, g_nc[d]), i;

	memset(a, 0, sizeof(*a));
	a->info.size = cmds[c].size;
	switch (c) {
	case C_ACQ:
		a->acq.pid = chance(t, 800) ? 0 : sibling_pid(t);
		break;
	case C_ADD:
		if (chance(t, 150)) {
			a->add.flags = NEURON_NDS_ADD_ND;
			a->add.id = below(t, NEURON_NDS_ND_COUNT);
		} else {
			a->add.nc = nc;
			a->add.id = below(t, NEURON_NDS_ID_COUNT);
		}
		a->add.delta = chance(t, 900) ? below(t, 100) : rnd(t);
		break;
	case C_NQI:
		a->nqi.nc = nc;
		a->nqi.nq_type = chance(t, 500) ? NEURON_NQ_TYPE_ERROR : below(t, NEURON_NQ_TYPE_MAX);
		a->nqi.engine = chance(t, 500) ? 0 : below(t, NEURON_NQ_MAX_ENGINE);
		a->nqi.ring_size = ring_size_valid(t);
		break;
	case C_NQR:
		a->nqr.nc = nc;
		a->nqr.nq_type = chance(t, 500) ? NEURON_NQ_TYPE_ERROR : below(t, NEURON_NQ_TYPE_MAX);
		a->nqr.engine = chance(t, 500) ? 0 : below(t, NEURON_NQ_MAX_ENGINE);
		break;
	case C_CRES:
	case C_CREL:
		a->cr.nc = nc;
		break;
	case C_EXEC:
		a->ex.nc = nc;
		a->ex.duration_us = below(t, 2000);
		a->ex.timeout_us = 1000 + below(t, 49000);
		break;
	case C_FWR:
		a->fwr.count = 1 + below(t, NEURON_FW_READ_MAX);
		for (i = 0; i < a->fwr.count; i++)
			a->fwr.addr[i] = chance(t, 900) ? (below(t, 0x1000) & ~3u) : rnd(t);
		break;
	case C_PP:
		a->pp.profile = below(t, 6);
		break;
	case C_NDSREAD:
		/* the own slab or a sibling's (ENOENT when it holds none) */
		a->ndsr.pid = chance(t, 500) ? 0 : sibling_pid(t);
		a->ndsr.bytes = 8 * (1 + below(t, NEURON_NDS_READ_MAX / 8));
		a->ndsr.offset = 8 * below(t, (NEURON_NDS_SIZE - a->ndsr.bytes) / 8 + 1);
		a->ndsr.user_ptr = (uintptr_t)t->io;
		break;
	}
}

static void put_field(unsigned char *p, unsigned int width, uint64_t v)
{
	if (width >= 8)
		memcpy(p, &v, 8);
	else if (width == 4) {
		uint32_t w = (uint32_t)v;

		memcpy(p, &w, 4);
	} else {
		memcpy(p, &v, width);
	}
}

uint64_t pick_u64(struct ts *t)
{
	static const uint64_t v[] = { 0, 1, 2, 7, 8, 0xff, 0xffff, 0x7fffffff, 0x80000000ULL,
				      0xffffffffULL, 0x100000000ULL, 1ULL << 63, ~0ULL };

	return chance(t, 700) ? v[below(t, sizeof(v) / sizeof(v[0]))] : rnd(t);
}

/*
 * Mutate one field of @a (a valid argument of command @c on device @d).
 * Returns the errno the uapi documents for it, or 0 when it documents none.
 */
static int mutate(struct ts *t, int c, int d, union arg *a, char *what, size_t wl)
{
	const struct cdesc *cd = &cmds[c];
	const struct fdesc *f = &cd->f[below(t, cd->nf)];
	unsigned char *p = a->raw + f->off;
	uint64_t v = 0;
	int exp = 0;
	uint32_t i;

	switch (f->kind) {
	case FK_SIZE: {
		static const uint32_t cand[] = { 0, 4, 8, 0x7fffffff, 0x80000000u, 0xffffffffu };

		do {
			switch (below(t, 5)) {
			case 0: v = cd->size - 8; break;
			case 1: v = cd->size + 8; break;
			case 2: v = cd->size * 2; break;
			case 3: v = cand[below(t, sizeof(cand) / sizeof(cand[0]))]; break;
			default: v = (uint32_t)rnd(t); break;
			}
		} while ((uint32_t)v == cd->size);
		exp = EINVAL;
		break;
	}
	case FK_FLAGS:
		do {
			switch (below(t, 3)) {
			case 0: v = 1u << below(t, 32); break;
			case 1: v = 0xffffffffu; break;
			default: v = (uint32_t)rnd(t); break;
			}
		} while (!(v & ~(uint64_t)cd->allowed_flags));
		exp = EINVAL;
		break;
	case FK_RES:
		/* one non-zero byte anywhere in the reserved member */
		i = below(t, f->width);
		p[i] = (unsigned char)(1 + below(t, 255));
		snprintf(what, wl, "%s byte %u = 0x%02x", f->name, i, p[i]);
		return EINVAL;
	case FK_OUT:
		i = below(t, f->width);
		p[i] = (unsigned char)rnd(t);
		snprintf(what, wl, "%s (out) byte %u = 0x%02x", f->name, i, p[i]);
		return 0;
	case FK_NC: {
		static const uint32_t cand[] = { 8, 16, 0x7fffffff, 0x80000000u, 0xffffffffu };

		switch (below(t, 4)) {
		case 0: v = g_nc[d]; break;
		case 1: v = g_nc[d] - 1; break;
		case 2: v = cand[below(t, sizeof(cand) / sizeof(cand[0]))]; break;
		default: v = (uint32_t)rnd(t); break;
		}
		break;
	}
	case FK_IDX:
		switch (below(t, 4)) {
		case 0: v = f->lim; break;
		case 1: v = f->lim + 1; break;
		case 2: v = 0xffffffffu; break;
		default: v = (uint32_t)rnd(t); break;
		}
		break;
	case FK_U64:
		v = pick_u64(t);
		break;
	case FK_PID: {
		int32_t pv;

		switch (below(t, 8)) {
		case 0: pv = -1; break;
		case 1: pv = INT32_MIN; break;
		case 2: pv = 0; break;
		case 3: pv = 1; break;
		case 4: pv = getpid(); break;
		case 5: pv = sibling_pid(t); break;
		case 6: pv = INT32_MAX; break;
		default: pv = (int32_t)rnd(t); break;
		}
		v = (uint32_t)pv;
		if (pv < 0)
			exp = EINVAL;
		break;
	}
	case FK_COUNT:
		switch (below(t, 5)) {
		case 0: v = 0; break;
		case 1: v = NEURON_FW_READ_MAX + 1; break;
		case 2: v = 0xffffffffu; break;
		case 3: v = 1000; break;
		default: v = 1 + below(t, NEURON_FW_READ_MAX); break;
		}
		if (v == 0) {
			exp = EINVAL;
		} else if (v > NEURON_FW_READ_MAX) {
			exp = E2BIG;
		} else {
			for (i = (uint32_t)v; i < NEURON_FW_READ_MAX; i++)
				if (a->fwr.addr[i])
					exp = EINVAL;
		}
		break;
	case FK_ADDR:
		i = below(t, NEURON_FW_READ_MAX);
		a->fwr.addr[i] = rnd(t) | 1;
		snprintf(what, wl, "addr[%u] = 0x%llx (count %u)", i,
			 (unsigned long long)a->fwr.addr[i], a->fwr.count);
		return i >= a->fwr.count ? EINVAL : 0;
	case FK_DUR:
		/* never a long valid duration: over the maximum, or at most 20 ms */
		switch (below(t, 4)) {
		case 0: v = NEURON_EXEC_MAX_DURATION_US + 1; break;
		case 1: v = ~0ULL; break;
		case 2: v = 0; break;
		default: v = 20000; break;
		}
		break;
	case FK_TMO:
		switch (below(t, 3)) {
		case 0: v = NEURON_EXEC_MAX_TIMEOUT_US + 1; break;
		case 1: v = ~0ULL; break;
		default: v = 1; break;
		}
		break;
	case FK_RSIZE: {
		static const uint32_t cand[] = { 0, 1, 16, 255, 257, 4097, 3u << 10,
						 NEURON_NQ_MAX_SIZE << 1, 0x80000000u, 0xffffffffu };

		v = chance(t, 800) ? cand[below(t, sizeof(cand) / sizeof(cand[0]))] : (uint32_t)rnd(t);
		break;
	}
	}
	put_field(p, f->width, v);
	snprintf(what, wl, "%s = 0x%llx", f->name, (unsigned long long)v);
	/* NDS_READ: a range not whole u64s inside one slab, at most READ_MAX */
	if (c == C_NDSREAD && !exp &&
	    (a->ndsr.offset % 8 || a->ndsr.bytes % 8 || !a->ndsr.bytes ||
	     a->ndsr.bytes > NEURON_NDS_READ_MAX || a->ndsr.offset > NEURON_NDS_SIZE - a->ndsr.bytes))
		exp = EINVAL;
	return exp;
}


/* What a successful call must have written back. */
static void check_output(struct ts *t, int c, int d, int own, const union arg *a)
{
	static const uint64_t zero[8];

	switch (c) {
	case C_INFO:
		judged(V_IOCTL);
		/* with removal, neuron<N> may since be another device, with its own count */
		if (a->info.size != sizeof(a->info) || a->info.abi_version != NEURON_ABI_VERSION ||
		    (a->info.nc_count != g_nc[d] && !g_removal) ||
		    (int)a->info.device_index != g_dev_index[d] ||
		    a->info.backend != NEURON_BACKEND_SIM || memcmp(a->info.reserved, zero, sizeof(a->info.reserved)))
			viol(t, V_IOCTL, "GET_INFO on neuron%d answered size %u abi %u index %u nc %u backend %u",
			     g_dev_index[d], a->info.size, a->info.abi_version, a->info.device_index,
			     a->info.nc_count, a->info.backend);
		break;
	case C_ACQ:
		judged(V_IOCTL);
		if (a->acq.reserved0 || memcmp(a->acq.reserved, zero, sizeof(a->acq.reserved)) ||
		    a->acq.mmap_size != NEURON_NDS_SIZE || a->acq.slot >= NEURON_NDS_PER_DEVICE ||
		    (a->acq.access != NEURON_NDS_ACCESS_RW && a->acq.access != NEURON_NDS_ACCESS_RO))
			viol(t, V_IOCTL, "NDS_ACQUIRE answered slot %u size %llu access %u reserved0 %u",
			     a->acq.slot, (unsigned long long)a->acq.mmap_size, a->acq.access,
			     a->acq.reserved0);
		add_cookie(t, a->acq.mmap_offset, a->acq.mmap_size, d);
		if (a->acq.access == NEURON_NDS_ACCESS_RW && own)
			atomic_store(&g_own_slot[d], (int)a->acq.slot);
		break;
	case C_NQI: {
		uint64_t key;

		judged(V_IOCTL);
		if (memcmp(a->nqi.reserved, zero, sizeof(a->nqi.reserved)) ||
		    a->nqi.mmap_size != NEURON_NQ_RING_OFFSET + (uint64_t)a->nqi.ring_size)
			viol(t, V_IOCTL, "NQ_INIT answered mmap_size %llu for ring %u",
			     (unsigned long long)a->nqi.mmap_size, a->nqi.ring_size);
		add_cookie(t, a->nqi.mmap_offset, a->nqi.mmap_size, d);
		key = (uint64_t)a->nqi.nc * NQ_PER_NC + a->nqi.nq_type * NEURON_NQ_MAX_ENGINE + a->nqi.engine;
		if (key < MAXNC * NQ_PER_NC)
			atomic_fetch_or(&g_own_ring[d][key / 64], 1ULL << (key % 64));
		break;
	}
	case C_FWR:
		judged(V_IOCTL);
		if (memcmp(a->fwr.reserved, zero, sizeof(a->fwr.reserved)) || a->fwr.reserved0)
			viol(t, V_IOCTL, "FW_READ: reserved words not zero on output");
		break;
	}
}

/* Judge one call's outcome against the expected errno (0: none documented). */
static void judge(struct ts *t, int c, int d, long r, int e, int exp, const char *how)
{
	if (r == 0)
		e = 0;
	if (r != 0 && !errno_documented(e)) {
		judged(V_IOCTL);
		viol(t, V_IOCTL, "%s %s on neuron%d: undocumented %s", cmds[c].name, how,
		     g_dev_index[d], ename(e));
		return;
	}
	if (!exp)
		return;
	judged(V_IOCTL);
	if (e == exp || (g_removal && e == ENODEV))
		return;
	viol(t, V_IOCTL, "%s %s on neuron%d: got %s, documented %s", cmds[c].name, how,
	     g_dev_index[d], ename(e), ename(exp));
}

long do_ioctl(int fd, unsigned long cmd, void *arg, int *e)
{
	long r;

	errno = 0;
	r = ioctl(fd, cmd, arg);
	*e = r ? errno : 0;
	return r;
}

static int creates(int c) { return c == C_ACQ || c == C_NQI; }

void epoch_begin(int c)
{
	if (creates(c))
		atomic_fetch_add(&g_own_epoch, 1);
}

void epoch_end(int c)
{
	if (creates(c))
		atomic_fetch_add(&g_own_epoch, 1);
}

/*
 * A slab or ring request that failed after the kernel may have created the
 * object (its answer could not be written back): ask again with a good
 * pointer, so this process knows what it owns. NDS_ACQUIRE for the own slab
 * and a same-size NQ_INIT return the existing object.
 */
static void relearn(struct ts *t, int c, int fd, int d, int own, const union arg *orig)
{
	union arg a = *orig;
	int e;

	if (c == C_ACQ && a.acq.pid != 0 && a.acq.pid != getpid())
		return;
	if (do_ioctl(fd, cmds[c].cmd, &a, &e) == 0)
		check_output(t, c, d, own, &a);
}

int op_ioctl_valid(struct ts *t)
{
	int d, own, e, c = pick_cmd(t);
	int fd = pick_fd(t, &d, &own);
	long r;

	if (fd < 0)
		return 0;
	fill_valid(t, c, d, &t->a);
	epoch_begin(c);
	r = do_ioctl(fd, cmds[c].cmd, &t->a, &e);
	judge(t, c, d, r, e, 0, "valid");
	if (c == C_INFO) {
		judged(V_IOCTL);
		if (r && !(g_removal && e == ENODEV))
			viol(t, V_IOCTL, "valid GET_INFO on neuron%d failed: %s", g_dev_index[d], ename(e));
	}
	if (r == 0)
		check_output(t, c, d, own, &t->a);
	epoch_end(c);
	return r == 0;
}

int op_ioctl_mutated(struct ts *t)
{
	int d, own, e, exp, c = pick_cmd(t);
	int fd = pick_fd(t, &d, &own);
	char what[96], how[128];
	long r;

	if (fd < 0)
		return 0;
	fill_valid(t, c, d, &t->a);
	what[0] = 0;
	exp = mutate(t, c, d, &t->a, what, sizeof(what));
	epoch_begin(c);
	r = do_ioctl(fd, cmds[c].cmd, &t->a, &e);
	snprintf(how, sizeof(how), "with %s", what);
	judge(t, c, d, r, e, exp, how);
	if (r == 0)
		check_output(t, c, d, own, &t->a);
	epoch_end(c);
	return r == 0;
}

static const char *const ptr_name[P_MAX] = {
	"NULL", "0x1000", "kernel-half", "non-canonical", "PROT_NONE page", "straddling PROT_NONE",
	"read-only page", "misaligned", "device mapping",
};

void *bad_pointer(struct ts *t, int k, const union arg *a, size_t size)
{
	static const uint64_t kern[] = { 0xffff800000000000ULL, 0xffff888000000000ULL,
					 0xffffffff81000000ULL, 0xfffffffffffff000ULL };
	static const uint64_t noncanon[] = { 0x0000800000000000ULL, 0x00ff000000000000ULL,
					     0x8000000000000000ULL };
	int i;

	switch (k) {
	case P_NULL: return NULL;
	case P_LOW: return (void *)0x1000;
	case P_KERNEL: return (void *)(uintptr_t)kern[below(t, 4)];
	case P_NONCANON: return (void *)(uintptr_t)noncanon[below(t, 3)];
	case P_NONE: return t->none;
	case P_STRADDLE: {
		/* the struct starts in a RW page and runs into a PROT_NONE page */
		size_t in = 1 + below(t, (uint32_t)size - 1);
		uint8_t *p = t->straddle + PAGE - in;

		memcpy(p, a, in);
		return p;
	}
	case P_RO:
		mprotect(t->ro, PAGE, PROT_READ | PROT_WRITE);
		memcpy(t->ro, a, size);
		mprotect(t->ro, PAGE, PROT_READ);
		return t->ro;
	case P_MISALIGNED:
		memcpy(t->argbuf + 1, a, size);
		return t->argbuf + 1;
	case P_DEVMAP:
		for (i = 0; i < t->nmp; i++) {
			struct mapping *m = &t->mp[i];

			if (!m->zapped && (m->prot & PROT_READ) && m->len >= size) {
				volatile size_t off = below(t, (uint32_t)(m->len - size + 1)) & ~7u;

				if (m->prot & PROT_WRITE) {
					t_guard = 1;
					if (!sigsetjmp(t_jb, 1))
						memcpy(m->addr + off, a, size);
					t_guard = 0;
				}
				return m->addr + off;
			}
		}
		return NULL;
	}
	return NULL;
}

int op_ioctl_badptr(struct ts *t)
{
	int d, own, e, c = pick_cmd(t), k = below(t, P_MAX);
	int fd = pick_fd(t, &d, &own);
	char how[64];
	void *p;
	long r;

	if (fd < 0)
		return 0;
	fill_valid(t, c, d, &t->a);
	/*
	 * A mapping's bytes are not ours alone (other threads write into it,
	 * or it is another process's slab): read as a struct they could make
	 * a valid NDS_ACQUIRE or NQ_INIT, and the process would own an object
	 * it does not know of, or an NDS_READ whose destination is another
	 * thread's memory. Those commands take a pointer to our copy.
	 */
	if (k == P_DEVMAP && (creates(c) || c == C_NDSREAD))
		k = P_MISALIGNED;
	p = bad_pointer(t, k, &t->a, cmds[c].size);
	epoch_begin(c);
	r = do_ioctl(fd, cmds[c].cmd, p, &e);
	snprintf(how, sizeof(how), "with a %s pointer %p", ptr_name[k], p);
	judge(t, c, d, r, e, (k <= P_STRADDLE || p == NULL) ? EFAULT : 0, how);
	if (creates(c))
		relearn(t, c, fd, d, own, &t->a);
	epoch_end(c);
	return r == 0;
}

/* magics the VFS handles itself on any file (FIFREEZE, FICLONE, FIONBIO, ...) are left out */
static const unsigned char safe_magic[] = { 'A', 'B', 'M', 'O', 'Q', 'Z', 'n', 'q', 0xab, 0xcd, 0xee };

/*
 * What a random command of magic 'N' below 0xC0 (the vendor's ABI,
 * docs/vendor-abi.md) must answer: -ENOTTY unless it is one of the
 * commands the driver answers (-1: success or any documented errno);
 * DRIVER_INFO's number is matched on the number.
 */
static int vendor_expect(unsigned long cmd)
{
	static const unsigned long answered[] = {
		NEURON_IOCTL_DEVICE_READY, NEURON_IOCTL_DEVICE_RESET_STATUS, NEURON_IOCTL_DEVICE_INFO,
		NEURON_IOCTL_DEVICE_INIT, NEURON_IOCTL_DEVICE_RELEASE, NEURON_IOCTL_DEVICE_APP_PID,
		NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO, NEURON_IOCTL_NOTIFICATIONS_DESTROY_V1,
		NEURON_IOCTL_NOTIFICATIONS_QUEUE_INFO, NEURON_IOCTL_READ_HW_COUNTERS, NEURON_IOCTL_POST_METRIC,
		NEURON_IOCTL_ACQUIRE_NEURON_DS, NEURON_IOCTL_RELEASE_NEURON_DS,
		NEURON_IOCTL_CRWL_NC_RANGE_MARK, NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0,
		NEURON_IOCTL_CRWL_NC_RANGE_UNMARK, NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0,
		NEURON_IOCTL_COMPATIBLE_VERSION, NEURON_IOCTL_DEVICE_BASIC_INFO, NEURON_IOCTL_DEVICE_BDF,
		NEURON_IOCTL_DEVICE_BDF_EXT, NEURON_IOCTL_HOST_DEVICE_ID,
		NEURON_IOCTL_DEVICE_RESET, NEURON_IOCTL_NC_RESET, NEURON_IOCTL_NC_RESET_READY,
		NEURON_IOCTL_NOTIFICATIONS_INIT_V1, NEURON_IOCTL_NOTIFICATIONS_INIT_V2,
		NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2, NEURON_IOCTL_DMABUF_FD,
	};
	size_t i;

	if (_IOC_NR(cmd) == _IOC_NR(NEURON_IOCTL_DRIVER_INFO_GET)) {
		if (cmd == NEURON_IOCTL_DRIVER_INFO_SET)
			return EOPNOTSUPP;
		return _IOC_DIR(cmd) == _IOC_READ && _IOC_SIZE(cmd) >= 24 ? -1 : EINVAL;
	}
	for (i = 0; i < sizeof(answered) / sizeof(answered[0]); i++)
		if (answered[i] == cmd)
			return -1;
	return ENOTTY;
}

int op_ioctl_random(struct ts *t)
{
	int d, own, e, exp, i;
	int fd = pick_fd(t, &d, &own);
	unsigned int nr, dir, size, type;
	unsigned long cmd;
	char how[96];
	long r;
	void *p;

	if (fd < 0)
		return 0;
	if (chance(t, 700)) {
		type = NEURON_IOCTL_MAGIC;
		nr = chance(t, 500) ? 0xC0 + below(t, 0x18) : below(t, 256);
	} else {
		type = safe_magic[below(t, sizeof(safe_magic))];
		nr = below(t, 256);
	}
	dir = below(t, 4);
	size = chance(t, 500) ? cmds[below(t, C_MAX)].size + (below(t, 3) - 1) * 8 : below(t, 1 << 14);
	cmd = _IOC(dir, type, nr, size & ((1 << 14) - 1));
	for (i = 0; i < 512; i += 8) {
		uint64_t v = rnd(t);

		memcpy(t->argbuf + i, &v, 8);
	}
	p = chance(t, 800) ? (void *)t->argbuf : bad_pointer(t, below(t, P_NONE + 1), &t->a, 8);

	exp = ENOTTY;
	if (type == NEURON_IOCTL_MAGIC && nr < 0xC0)
		exp = vendor_expect(cmd);
	else if (type == NEURON_IOCTL_MAGIC)
		for (i = 0; i < C_MAX; i++)
			if (_IOC_NR(cmds[i].cmd) == nr)
				exp = cmds[i].cmd == cmd ? 0 : EINVAL;
	r = do_ioctl(fd, cmd, p, &e);
	snprintf(how, sizeof(how), "random command 0x%lx (type 0x%x nr 0x%x)", cmd, type, nr);
	if (r == 0)
		e = 0;
	if (exp > 0) {
		judged(V_IOCTL);
		if (e != exp && !(g_removal && e == ENODEV))
			viol(t, V_IOCTL, "%s on neuron%d: got %s, documented %s", how, g_dev_index[d],
			     ename(e), ename(exp));
	} else if (r && !errno_documented(e)) {
		judged(V_IOCTL);
		viol(t, V_IOCTL, "%s: undocumented %s", how, ename(e));
	}
	return r == 0;
}
