// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: the vendor's ABI (docs/vendor-abi.md), fuzzed and
 * judged.
 */
#include "hostile.h"

#define VENDOR_CANARY	0xA5
#define VENDOR_IN_OFF	1024	/* READ_HW_COUNTERS' addresses, POST_METRIC's blob */
#define VENDOR_DATA_OFF	2048	/* READ_HW_COUNTERS' values */
#define VENDOR_SPAN	4096

static const uint32_t vendor_ident[] = { 0x0, 0x24, 0x38, 0x3C };

/*
 * vendor-ioctl: one of the vendor's commands this driver answers
 * (docs/vendor-abi.md), its arguments in range or just past it, through the
 * argument buffer, now and then through a bad pointer. Judged: success or
 * a documented errno; the refusals the contract fixes (a bad range, too
 * many addresses, a refused blob size, unknown flags, no privilege,
 * another process's file) answer the errno it names; and nothing is
 * written past the command's answer (the buffer's canary bytes).
 */
int op_vendor(struct ts *t)
{
	int d, own, e, exp = 0, slab = 0;
	int fd = pick_fd(t, &d, &own);
	int root = geteuid() == 0;
	unsigned char *b = t->argbuf;
	size_t in = 0, out = 0, data = 0;
	unsigned long cmd;
	uint32_t nc, i, n;
	char how[80];
	void *p = b;
	long r;

	if (fd < 0)
		return 0;
	nc = g_nc[d];
	memset(b, VENDOR_CANARY, VENDOR_SPAN);
	switch (below(t, 12)) {
	case 0:
		cmd = chance(t, 500) ? NEURON_IOCTL_DEVICE_BASIC_INFO : NEURON_IOCTL_DEVICE_BDF;
		out = 8;
		break;
	case 1:
		cmd = NEURON_IOCTL_DEVICE_INFO;
		out = sizeof(struct neuron_ioctl_device_info);
		break;
	case 2: {
		struct neuron_ioctl_device_bdf_ext *x = (void *)b;

		memset(x, 0, sizeof(*x));
		x->nd_index = chance(t, 700) ? below(t, 4) : (uint32_t)rnd(t);
		cmd = NEURON_IOCTL_DEVICE_BDF_EXT;
		in = out = sizeof(*x);
		break;
	}
	case 3:
		switch (below(t, 5)) {
		case 0: cmd = NEURON_IOCTL_HOST_DEVICE_ID; out = 4; break;
		case 1: cmd = NEURON_IOCTL_COMPATIBLE_VERSION; out = 8; break;
		case 2: cmd = NEURON_IOCTL_DRIVER_INFO_GET; out = 24; break;
		case 3: cmd = NEURON_IOCTL_DEVICE_APP_PID; out = 4; break;
		default:
			cmd = chance(t, 500) ? NEURON_IOCTL_DEVICE_READY : NEURON_IOCTL_DEVICE_RESET_STATUS;
			out = 1;
		}
		break;
	case 4: {
		struct neuron_ioctl_get_apps_info *h = (void *)b;
		uint32_t cap = below(t, 20);

		memset(h, 0, sizeof(*h));
		h->apps_info_flags = chance(t, 900) ? (uint16_t)below(t, 16) : (uint16_t)rnd(t);
		h->capacity = chance(t, 950) ? cap : (uint32_t)rnd(t);
		if (h->apps_info_flags & ~NEURON_APP_INFO_ALL)
			exp = EINVAL;
		cap = h->capacity < NEURON_APP_INFO_MAX_APPS ? h->capacity : NEURON_APP_INFO_MAX_APPS;
		cmd = NEURON_IOCTL_DEVICE_GET_ALL_APPS_INFO;
		in = sizeof(*h);
		out = sizeof(*h) + cap * sizeof(struct neuron_ioctl_app_info);
		break;
	}
	case 5:
	case 6: {
		struct neuron_ioctl_crwl_nc_map_ext *m = (void *)b;
		int ext = chance(t, 300);

		/* the short struct is the first 24 bytes: the rest stays canary */
		in = ext ? sizeof(*m) : sizeof(struct neuron_ioctl_crwl_nc_map);
		memset(m, 0, in);
		m->nc_count = below(t, nc + 2);
		m->start_nc_index = below(t, nc + 2);
		m->end_nc_index = chance(t, 800) ? below(t, nc + 2) : (uint32_t)rnd(t);
		m->bitmap[0] = rnd(t);
		if (chance(t, 600)) {
			cmd = ext ? NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0 : NEURON_IOCTL_CRWL_NC_RANGE_MARK;
			out = in;
			if (m->start_nc_index >= nc || m->start_nc_index > m->end_nc_index)
				exp = EINVAL;
			else if (!own)
				exp = EACCES;
		} else {
			cmd = ext ? NEURON_IOCTL_CRWL_NC_RANGE_UNMARK_EXT0 : NEURON_IOCTL_CRWL_NC_RANGE_UNMARK;
			if (!own)
				exp = EACCES;
		}
		break;
	}
	case 7:
	case 8: {
		struct neuron_ioctl_neuron_ds_info *x = (void *)b;

		memset(x, 0, sizeof(*x));
		switch (below(t, 4)) {
		case 0: x->pid = 0; break;
		case 1: x->pid = getpid(); break;
		case 2: x->pid = (int32_t)below(t, 4096); break;
		default: x->pid = -(int32_t)below(t, 3) - 1;
		}
		in = sizeof(*x);
		slab = 1;
		if (chance(t, 700)) {
			cmd = NEURON_IOCTL_ACQUIRE_NEURON_DS;
			out = sizeof(*x);
			if (x->pid < 0)
				exp = EINVAL;
			else if (!x->pid && !own)
				exp = EACCES;
		} else {
			cmd = NEURON_IOCTL_RELEASE_NEURON_DS;
		}
		break;
	}
	case 9:
	case 10: {
		struct neuron_ioctl_read_hw_counters *x = (void *)b;
		uint64_t *addr = (uint64_t *)(b + VENDOR_IN_OFF);
		uint64_t base = 0x000FFFF0FA0000ULL;	/* the simulated contract's MiscRAM */
		int ident = 1;

		memset(x, 0, sizeof(*x));
		n = chance(t, 30) ? 1025 + below(t, 100) : below(t, 20);
		for (i = 0; i < n && i < 20; i++) {
			addr[i] = chance(t, 800) ? base + vendor_ident[below(t, 4)] :
				  chance(t, 500) ? base + below(t, 0x1000) : rnd(t);
			if (addr[i] != base && addr[i] != base + 0x24 && addr[i] != base + 0x38 &&
			    addr[i] != base + 0x3C)
				ident = 0;
		}
		x->address = (uintptr_t)addr;
		x->data = (uintptr_t)(b + VENDOR_DATA_OFF);
		x->count = n;
		in = sizeof(*x);
		if (n > 20) {
			exp = E2BIG;
		} else {
			data = 4 * n;
			if (n && !ident && !root)
				exp = EPERM;
		}
		cmd = NEURON_IOCTL_READ_HW_COUNTERS;
		break;
	}
	default: {
		struct neuron_ioctl_post_metric *x = (void *)b;
		unsigned char *blob = b + VENDOR_IN_OFF;

		memset(x, 0, sizeof(*x));
		x->data_size = below(t, 140);
		/* one record of metric 12 (the instance id) when it fits, else bytes */
		blob[0] = 12;
		blob[1] = x->data_size > 2 ? (unsigned char)(x->data_size - 2) : 0;
		memset(blob + 2, 'x', 138);
		x->data = (uintptr_t)blob;
		in = sizeof(*x);
		cmd = NEURON_IOCTL_POST_METRIC;
		if (!root)
			exp = EPERM;
		else if (!x->data_size)
			exp = EINVAL;
		else if (x->data_size > 128)
			exp = E2BIG;
	}
	}
	if (chance(t, 100)) {
		p = bad_pointer(t, below(t, P_NONE + 1), &t->a, 8);
		exp = 0;	/* a fault may come first */
	}
	if (slab)
		epoch_begin(C_ACQ);
	r = do_ioctl(fd, cmd, p, &e);
	if (slab) {
		struct neuron_ioctl_neuron_ds_info *x = (void *)b;

		if (!r && p == b && cmd == NEURON_IOCTL_ACQUIRE_NEURON_DS) {
			judged(V_IOCTL);
			if (x->size != NEURON_NDS_SIZE || x->mmap_offset < NDS_BASE ||
			    (x->mmap_offset - NDS_BASE) % NEURON_NDS_SIZE ||
			    x->mmap_offset - NDS_BASE >= (uint64_t)NEURON_NDS_PER_DEVICE * NEURON_NDS_SIZE)
				viol(t, V_IOCTL, "ACQUIRE_NEURON_DS answered offset 0x%llx size %u",
				     (unsigned long long)x->mmap_offset, x->size);
			else
				add_cookie(t, x->mmap_offset, x->size, d);
			if (own && (!x->pid || x->pid == getpid()))
				atomic_store(&g_own_slot[d],
					     (int)((x->mmap_offset - NDS_BASE) / NEURON_NDS_SIZE));
		} else if (cmd == NEURON_IOCTL_RELEASE_NEURON_DS && own && p == b &&
			   (!x->pid || x->pid == getpid())) {
			/* its own slab is gone (any other pid changes nothing) */
			atomic_store(&g_own_slot[d], -1);
		}
		epoch_end(C_ACQ);
	}
	snprintf(how, sizeof(how), "vendor command 0x%lx", cmd);
	if (r == 0)
		e = 0;
	judged(V_IOCTL);
	if (r && !errno_documented(e)) {
		viol(t, V_IOCTL, "%s on neuron%d: undocumented %s", how, g_dev_index[d], ename(e));
	} else if (exp && p == b && e != exp && !(e == ENODEV && g_removal)) {
		viol(t, V_IOCTL, "%s on neuron%d: %s, documented %s", how, g_dev_index[d], ename(e),
		     ename(exp));
	} else if (p == b) {
		size_t from = in > out ? in : out;

		for (i = (uint32_t)from; i < VENDOR_IN_OFF; i++)
			if (b[i] != VENDOR_CANARY)
				break;
		if (i < VENDOR_IN_OFF)
			viol(t, V_IOCTL, "%s on neuron%d wrote byte %u, past its %zu-byte answer", how,
			     g_dev_index[d], i, from);
		for (i = VENDOR_DATA_OFF + (uint32_t)data; i < VENDOR_SPAN; i++)
			if (b[i] != VENDOR_CANARY)
				break;
		if (i < VENDOR_SPAN)
			viol(t, V_IOCTL, "%s on neuron%d wrote byte %u, past its %zu values", how,
			     g_dev_index[d], i, data / 4);
	}
	return r == 0;
}
