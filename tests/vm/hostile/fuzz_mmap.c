// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: mmap of cookies and random offsets, munmap, mremap,
 * mprotect, madvise, touching the mappings, open/close of device files.
 */
#include "hostile.h"

static int own_ring(int d, uint64_t key)
{
	return key < MAXNC * NQ_PER_NC && (atomic_load(&g_own_ring[d][key / 64]) >> (key % 64)) & 1;
}

static void forget_map(struct ts *t, int i)
{
	t->mp[i] = t->mp[--t->nmp];
}

static void drop_map(struct ts *t, int i)
{
	munmap(t->mp[i].addr, t->mp[i].len);
	forget_map(t, i);
}

static int pow2(uint64_t v) { return v && !(v & (v - 1)); }

int op_mmap(struct ts *t)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC,
				     PROT_READ | PROT_WRITE | PROT_EXEC, PROT_WRITE, PROT_NONE, PROT_EXEC };
	int d, own, prot, flags, may_write = 0, i, certain;
	int fd = pick_fd(t, &d, &own);
	uint64_t off, len = 0, rlen, base_len = 0, e0;
	uint8_t *p;

	if (fd < 0)
		return 0;
	switch (below(t, 10)) {
	case 0: case 1: case 2: case 3:
		if (t->nck) {
			struct cookie *ck = &t->ck[below(t, t->nck)];

			off = ck->off;
			base_len = ck->len;
			break;
		}
		/* fall through */
	case 4:
		off = NDS_BASE + (uint64_t)below(t, NEURON_NDS_PER_DEVICE) * NEURON_NDS_SIZE;
		base_len = NEURON_NDS_SIZE;
		break;
	case 5: case 6:
		off = NQ_BASE + (uint64_t)below(t, MAXNC * NQ_PER_NC) * NQ_STRIDE;
		base_len = NEURON_NQ_RING_OFFSET + ring_size_valid(t);
		break;
	case 7:
		off = (t->nck ? t->ck[below(t, t->nck)].off : NDS_BASE) + PAGE * (1 + below(t, 64));
		base_len = NEURON_NDS_SIZE;
		break;
	default:
		off = chance(t, 500) ? (rnd(t) & ~(PAGE - 1)) : (uint64_t)below(t, 1 << 20) * PAGE;
		base_len = PAGE * (1 + below(t, 64));
		break;
	}
	switch (below(t, 12)) {
	case 0: len = 0; break;
	case 1: len = 1; break;
	case 2: len = PAGE; break;
	case 3: len = base_len + PAGE; break;
	case 4: len = base_len > PAGE ? base_len - PAGE : 0; break;
	case 5: len = 1ULL << 40; break;
	case 6: len = PAGE * (1 + below(t, 512)); break;
	default: len = base_len; break;
	}
	prot = prots[below(t, sizeof(prots) / sizeof(prots[0]))];
	flags = chance(t, 700) ? MAP_SHARED : MAP_PRIVATE;
	if (chance(t, 100))
		flags |= MAP_POPULATE;
	if (chance(t, 50))
		flags |= MAP_NORESERVE;
	if (t->nmp == MAXMAP)
		drop_map(t, below(t, MAXMAP));

	e0 = atomic_load(&g_own_epoch);
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	if (p == MAP_FAILED)
		return 0;
	/* did this process maybe gain an object while mapping? then no judgement */
	certain = !(e0 & 1) && e0 == atomic_load(&g_own_epoch);

	/* accepted: it must be a whole object at its cookie */
	judged(V_MMAP);
	rlen = (len + PAGE - 1) & ~(PAGE - 1);
	if (off >= NDS_BASE && off < NDS_BASE + (uint64_t)NEURON_NDS_PER_DEVICE * NEURON_NDS_SIZE) {
		int slot = (int)((off - NDS_BASE) / NEURON_NDS_SIZE);

		if ((off - NDS_BASE) % NEURON_NDS_SIZE || rlen != NEURON_NDS_SIZE)
			viol(t, V_MMAP, "slab cookie 0x%llx mapped with length %llu",
			     (unsigned long long)off, (unsigned long long)len);
		may_write = !certain || (own && slot == atomic_load(&g_own_slot[d]));
		if ((prot & PROT_WRITE) && !may_write) {
			/* what does the kernel think this process owns? */
			struct neuron_nds_acquire q = { .size = sizeof(q), .pid = getpid() };
			int e, r = (int)do_ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q, &e);

			viol(t, V_MMAP, "slab %d of neuron%d mapped writable by a process that does not own it (own slot %d, own fd %d, epoch %llu; kernel's slab for pid %d: %s slot %u access %u)",
			     slot, g_dev_index[d], atomic_load(&g_own_slot[d]), own, (unsigned long long)e0,
			     (int)getpid(), r ? ename(e) : "found", q.slot, q.access);
		}
	} else if (off >= NQ_BASE && off < NQ_BASE + (uint64_t)MAXNC * NQ_PER_NC * NQ_STRIDE) {
		uint64_t key = (off - NQ_BASE) / NQ_STRIDE;

		if ((off - NQ_BASE) % NQ_STRIDE || rlen < 2 * PAGE || !pow2(rlen - PAGE) ||
		    rlen - PAGE > NEURON_NQ_MAX_SIZE)
			viol(t, V_MMAP, "ring cookie 0x%llx mapped with length %llu",
			     (unsigned long long)off, (unsigned long long)len);
		may_write = !certain || (own && own_ring(d, key));
		if ((prot & PROT_WRITE) && !may_write)
			viol(t, V_MMAP, "ring %llu of neuron%d mapped writable by a process that never created it",
			     (unsigned long long)key, g_dev_index[d]);
	} else {
		viol(t, V_MMAP, "offset 0x%llx (length %llu) mapped: not a cookie",
		     (unsigned long long)off, (unsigned long long)len);
	}
	i = t->nmp++;
	t->mp[i] = (struct mapping){ p, rlen, prot, 0, may_write };
	return 1;
}

int op_munmap(struct ts *t)
{
	struct mapping *m;
	int i, r;

	if (!t->nmp)
		return 0;
	i = below(t, t->nmp);
	m = &t->mp[i];
	if (m->len <= PAGE || chance(t, 600)) {
		r = munmap(m->addr, m->len);
		forget_map(t, i);
		return r == 0;
	}
	switch (below(t, 3)) {
	case 0:
		r = munmap(m->addr, PAGE);
		m->addr += PAGE;
		m->len -= PAGE;
		break;
	case 1:
		r = munmap(m->addr + m->len - PAGE, PAGE);
		m->len -= PAGE;
		break;
	default: {
		size_t cut = PAGE * (1 + below(t, (uint32_t)(m->len / PAGE) - 1));

		if (cut >= m->len) {
			r = munmap(m->addr + m->len - PAGE, PAGE);
			m->len -= PAGE;
			break;
		}
		r = munmap(m->addr + cut, PAGE);
		if (t->nmp < MAXMAP && m->len > cut + PAGE) {
			t->mp[t->nmp] = *m;
			t->mp[t->nmp].addr = m->addr + cut + PAGE;
			t->mp[t->nmp].len = m->len - cut - PAGE;
			t->nmp++;
		} else if (m->len > cut + PAGE) {
			munmap(m->addr + cut + PAGE, m->len - cut - PAGE);
		}
		m->len = cut;
		break;
	}
	}
	return r == 0;
}

int op_mremap(struct ts *t)
{
	struct mapping *m;
	void *p, *hole;
	int i;

	if (!t->nmp)
		return 0;
	i = below(t, t->nmp);
	m = &t->mp[i];
	switch (below(t, 4)) {
	case 0:	/* shrink in place */
		if (m->len <= PAGE)
			return 0;
		p = mremap(m->addr, m->len, m->len - PAGE, 0);
		if (p == MAP_FAILED)
			return 0;
		m->len -= PAGE;
		return 1;
	case 1:	/* grow: never allowed (the object has a fixed size) */
		p = mremap(m->addr, m->len, m->len + PAGE * (1 + below(t, 4)), MREMAP_MAYMOVE);
		judged(V_MMAP);
		if (p != MAP_FAILED) {
			viol(t, V_MMAP, "a %zu-byte device mapping grew with mremap", m->len);
			munmap(p, m->len + PAGE);
			forget_map(t, i);
			return 1;
		}
		return 0;
	case 2:	/* move onto a reserved hole */
		hole = mmap(NULL, m->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hole == MAP_FAILED)
			return 0;
		p = mremap(m->addr, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
		if (p == MAP_FAILED) {
			munmap(hole, m->len);
			return 0;
		}
		m->addr = p;
		return 1;
	default:	/* DONTUNMAP: private anonymous only */
		p = mremap(m->addr, m->len, m->len, MREMAP_MAYMOVE | 4 /* MREMAP_DONTUNMAP */);
		if (p == MAP_FAILED)
			return 0;
		/* if a kernel allowed it, the old range is now empty: forget it */
		munmap(m->addr, m->len);
		m->addr = p;
		m->zapped = 1;
		return 1;
	}
}

int op_mprotect(struct ts *t)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_READ | PROT_EXEC,
				     PROT_WRITE };
	struct mapping *m;
	int prot;

	if (!t->nmp)
		return 0;
	m = &t->mp[below(t, t->nmp)];
	prot = prots[below(t, sizeof(prots) / sizeof(prots[0]))];
	if (mprotect(m->addr, m->len, prot))
		return 0;
	if ((prot & PROT_WRITE) && !m->may_write && !(m->prot & PROT_WRITE)) {
		judged(V_MMAP);
		viol(t, V_MMAP, "a read-only mapping of another process's object became writable (mprotect)");
	}
	m->prot = prot;
	return 1;
}

int op_madvise(struct ts *t)
{
	static const int adv[] = { MADV_DONTNEED, 21 /* PAGEOUT */, 20 /* COLD */, MADV_WILLNEED,
				    22 /* POPULATE_READ */, 23 /* POPULATE_WRITE */, MADV_DONTFORK,
				    MADV_DOFORK, MADV_REMOVE, MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL,
				    MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_MERGEABLE };
	struct mapping *m;
	int a;

	if (!t->nmp)
		return 0;
	m = &t->mp[below(t, t->nmp)];
	a = adv[below(t, sizeof(adv) / sizeof(adv[0]))];
	if (madvise(m->addr, m->len, a))
		return 0;
	if (a == MADV_DONTNEED || a == 21 || a == MADV_REMOVE)
		m->zapped = 1;
	return 1;
}

int op_touch(struct ts *t)
{
	volatile uint64_t sink = 0;
	struct mapping *m;
	size_t off;
	int sig, i;

	if (!t->nmp)
		return 0;
	m = &t->mp[below(t, t->nmp)];
	if (m->zapped || !(m->prot & PROT_READ))
		return 0;
	t_guard = 1;
	sig = sigsetjmp(t_jb, 1);
	if (!sig) {
		for (off = 0; off < m->len; off += PAGE * (1 + m->len / (64 * PAGE)))
			sink += *(volatile uint64_t *)(m->addr + off);
		if (m->prot & PROT_WRITE)
			for (i = 0; i < 16; i++) {
				off = below(t, (uint32_t)(m->len / 8)) * 8;
				*(volatile uint64_t *)(m->addr + off) = chance(t, 500) ? rnd(t) : below(t, 64);
			}
	}
	t_guard = 0;
	(void)sink;
	judged(V_MMAP);
	if (sig) {
		viol(t, V_MMAP, "signal %d touching an accepted %zu-byte mapping (prot %d)", sig, m->len,
		     m->prot);
		m->zapped = 1;
		return 0;
	}
	return 1;
}

int op_openclose(struct ts *t)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY, O_RDWR | O_NONBLOCK };
	int k = below(t, NFD), n, d;

	if (t->fd[k] >= 0) {
		close(t->fd[k]);
		t->fd[k] = -1;
		return 1;
	}
	d = below(t, g_ndev);
	n = chance(t, 50) ? 40 + (int)below(t, 20) : g_dev_index[d];
	t->fd[k] = open_index(n, modes[below(t, 4)]);
	t->fd_dev[k] = d;
	t->fd_own[k] = 1;
	return t->fd[k] >= 0;
}
