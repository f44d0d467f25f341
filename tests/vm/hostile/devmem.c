// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile, data across processes: an operation with a judge, run by
 * workers' threads (not by their forked children, which do not own the
 * worker's files).
 *
 * devmem-cross: map a fresh device allocation, fill it with a canary, try
 * a get_user_pages() route on it (vmsplice into a pipe, kept; the process
 * reading it with process_vm_readv; O_DIRECT from it into a file), then
 * free it (unmapped first, or revoked while mapped); another process
 * (another user where this one is root) allocates the same size on the
 * same NeuronCore and fills it with its own canary. Nothing the first
 * process still holds (its pipe, its file, its revoked mapping) may show
 * the second canary ("cross"), a pin route must be refused and a revoked
 * mapping must fault ("mmap").
 */
#include "hostile.h"

/* 8 bytes of @mark anywhere in @p[0..n) */
static int has_mark(const uint8_t *p, size_t n, uint64_t mark)
{
	return n >= 8 && memmem(p, n, &mark, sizeof(mark)) != NULL;
}

/*
 * @n bytes at @p word by word under the fault guard: copied into @buf, or
 * filled with @mark when @buf is NULL. 0, or the signal the access raised.
 */
static int guarded_words(uint8_t *p, uint8_t *buf, size_t n, uint64_t mark)
{
	size_t off;
	int sig;

	t_guard = 1;
	sig = sigsetjmp(t_jb, 1);
	if (!sig)
		for (off = 0; off + 8 <= n; off += 8) {
			if (buf)
				*(uint64_t *)(buf + off) = *(volatile uint64_t *)(p + off);
			else
				*(volatile uint64_t *)(p + off) = mark;
		}
	t_guard = 0;
	return sig;
}

static int fill_mark(uint8_t *p, size_t n, uint64_t mark) { return guarded_words(p, NULL, n, mark); }
static int copy_guarded(uint8_t *buf, uint8_t *p, size_t n) { return guarded_words(p, buf, n, 0); }

static int devmem_alloc(int fd, uint32_t nc, uint64_t bytes, uint64_t *handle, uint64_t *addr)
{
	struct neuron_mem_alloc a = {
		.size = sizeof(a), .nc = nc, .location = NEURON_MEM_LOC_DEVICE,
		.category = NEURON_MEM_CAT_TENSORS, .bytes = bytes,
	};

	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a))
		return -1;
	*handle = a.handle;
	*addr = a.device_addr;
	return 0;
}

static int devmem_free(int fd, uint64_t handle)
{
	struct neuron_mem_free f = { .size = sizeof(f), .handle = handle };

	return ioctl(fd, NEURON_IOCTL_MEM_FREE, &f);
}

/*
 * The next owner (a helper process): its own file of device @d, an
 * allocation of @bytes on NeuronCore @nc filled with @mark through its
 * mapping and MEM_WRITE; where it runs as root it drops to uid 65532 once
 * the file is open. Says 'r' and the granule's address, then holds it.
 */
static void devmem_next_owner(int d, uint32_t nc, uint64_t bytes, uint64_t mark, int rfd, int hfd)
{
	uint64_t h, addr, *buf = NULL, i;
	struct neuron_mem_rw w;
	uint8_t *m = MAP_FAILED;
	char c = 'n';
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	fd = open_index(g_dev_index[d], O_RDWR);
	if (fd >= 0 && geteuid() == 0 && (setresgid(65532, 65532, 65532) || setresuid(65532, 65532, 65532)))
		_exit(0);
	if (fd >= 0 && !devmem_alloc(fd, nc, bytes, &h, &addr))
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)NEURON_MEM_MMAP_OFFSET(addr));
	if (m != MAP_FAILED && !fill_mark(m, bytes, mark)) {
		buf = malloc(bytes);
		if (buf) {
			for (i = 0; i < bytes / 8; i++)
				buf[i] = mark;
			memset(&w, 0, sizeof(w));
			w.size = sizeof(w);
			w.handle = h;
			w.bytes = bytes;
			w.user_ptr = (uint64_t)(uintptr_t)buf;
			if (!ioctl(fd, NEURON_IOCTL_MEM_WRITE, &w))
				c = 'r';
		}
	}
	if (write(rfd, &c, 1) != 1 || (c == 'r' && write(rfd, &addr, sizeof(addr)) != sizeof(addr)))
		_exit(0);
	while (read(hfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

struct devmem_next {
	int d;
	uint32_t nc;
	uint64_t bytes, mark;
};

static void devmem_next_main(void *arg, int rfd, int hfd)
{
	struct devmem_next *n = arg;

	devmem_next_owner(n->d, n->nc, n->bytes, n->mark, rfd, hfd);
}

enum { ROUTE_VMSPLICE, ROUTE_VMSPLICE_GIFT, ROUTE_PVM, ROUTE_ODIRECT, ROUTE_MAX };

int op_devmem_cross(struct ts *t)
{
	int d = below(t, g_ndev), fd = g_base[d], route = below(t, ROUTE_MAX), revoke = chance(t, 500);
	uint64_t bytes = PAGE * (1 + below(t, 4)), ma = rnd(t) | 1, mb = ~ma, h, addr, baddr = 0;
	uint32_t nc = below(t, g_nc[d]);
	struct devmem_next nx = { d, nc, bytes, mb };
	int p[2] = { -1, -1 }, dfd = -1, sig, got = 0, e;
	char path[64];
	struct stale_proc b;
	struct iovec iov;
	uint8_t *m, *buf;
	ssize_t r;

	if (fd < 0 || devmem_alloc(fd, nc, bytes, &h, &addr))
		return 0;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)NEURON_MEM_MMAP_OFFSET(addr));
	if (m == MAP_FAILED) {
		devmem_free(fd, h);
		return 0;
	}
	buf = (uint8_t *)t->io;		/* 64 KiB: more than 4 pages */
	if (fill_mark(m, bytes, ma))
		goto out_unmap;		/* revoked by a removal meanwhile */

	iov.iov_base = m;
	iov.iov_len = bytes;
	errno = 0;
	switch (route) {
	case ROUTE_VMSPLICE:
	case ROUTE_VMSPLICE_GIFT:
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
			p[0] = p[1] = -1;
			break;
		}
		r = vmsplice(p[1], &iov, 1, route == ROUTE_VMSPLICE_GIFT ? SPLICE_F_GIFT : 0);
		judged(V_MMAP);
		if (r >= 0 || errno != EFAULT)
			viol(t, V_MMAP, "vmsplice of %" PRIu64 " bytes of device memory: %zd (%s), not EFAULT",
			     bytes, r, ename(r < 0 ? errno : 0));
		break;
	case ROUTE_PVM: {
		struct iovec l = { buf, bytes }, rm = { m, bytes };

		r = process_vm_readv(getpid(), &l, 1, &rm, 1, 0);
		e = errno;
		judged(V_MMAP);
		if (r >= 0 || (e != EFAULT && e != ENOSYS))
			viol(t, V_MMAP, "process_vm_readv of own device memory: %zd (%s), not EFAULT",
			     r, ename(r < 0 ? e : 0));
		break;
	}
	case ROUTE_ODIRECT:
		snprintf(path, sizeof(path), "/tmp/hostile-odirect-%d-%d", (int)getpid(), t->tidx);
		dfd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
		if (dfd >= 0) {
			unlink(path);
			r = pwrite(dfd, m, bytes, 0);
			e = errno;
			judged(V_MMAP);
			/*
			 * All of it (tmpfs's O_DIRECT copies), EFAULT, or, in a
			 * run that removes devices, part of it when a removal
			 * revoked the mapping meanwhile: then a guarded read of it
			 * faults too (only a removal revokes a live allocation's
			 * mapping: a reset waits for none to be mapped)
			 */
			if (r != (ssize_t)bytes && !(r < 0 && e == EFAULT) &&
			    !(g_removal && r > 0 && copy_guarded(buf, m, bytes)))
				viol(t, V_MMAP, "O_DIRECT write of device memory: %zd (%s)", r, ename(r < 0 ? e : 0));
		}
		break;
	}

	/* free: unmapped first, or revoked under the live mapping */
	if (!revoke) {
		munmap(m, bytes);
		m = MAP_FAILED;
	}
	if (devmem_free(fd, h))
		goto out_unmap;
	if (helper_spawn(&b, devmem_next_main, &nx))
		goto out_unmap;
	if (helper_word(&b) == 'r' && read(b.rd, &baddr, sizeof(baddr)) == sizeof(baddr))
		got = 1;
	if (got) {
		atomic_fetch_add(&sh->devmem_next, 1);
		if (baddr == addr)
			atomic_fetch_add(&sh->devmem_same, 1);
		if (p[0] >= 0) {
			r = read(p[0], buf, sizeof(t->io));
			judged(V_CROSS);
			if (r > 0 && has_mark(buf, (size_t)r, mb))
				viol(t, V_CROSS, "a pipe spliced from freed device memory shows the next owner's data (%zd bytes, %s granule)",
				     r, baddr == addr ? "the same" : "another");
		}
		if (dfd >= 0) {
			r = pread(dfd, buf, bytes, 0);
			judged(V_CROSS);
			if (r > 0 && has_mark(buf, (size_t)r, mb))
				viol(t, V_CROSS, "an O_DIRECT copy of freed device memory shows the next owner's data");
		}
		if (m != MAP_FAILED) {
			sig = copy_guarded(buf, m, bytes);
			judged(V_MMAP);
			if (!sig)
				viol(t, V_MMAP, "a mapping of freed device memory still reads (%s)",
				     has_mark(buf, bytes, mb) ? "the next owner's data" : "no fault");
			judged(V_CROSS);
			if (!sig && has_mark(buf, bytes, mb))
				viol(t, V_CROSS, "a revoked mapping shows the next owner's data (%s granule)",
				     baddr == addr ? "the same" : "another");
		}
	}
	stale_release(&b);
out_unmap:
	if (m != MAP_FAILED)
		munmap(m, bytes);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	if (dfd >= 0)
		close(dfd);
	return got;
}
