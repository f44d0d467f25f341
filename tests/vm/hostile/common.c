// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: the state its processes share (the operation kinds,
 * the shared counters, the configuration, a worker's own state) and the
 * helpers every operation uses (violations, errnos, the fault guard,
 * device files).
 */
#include "hostile.h"

/* ---- operation kinds and what is counted -------------------------------- */

const char *const kind_name[K_MAX] = {
	"ioctl-valid", "ioctl-mutated", "ioctl-badptr", "ioctl-randomcmd",
	"mmap", "munmap", "mremap", "mprotect", "madvise", "touch", "open-close",
	"sysfs-read", "sysfs-write", "debugfs-read", "debugfs-write", "param",
	"genl", "genl-mcast", "fork", "stale-view",
	"devmem-cross", "fdtable-walk", "forged-name", "vendor-ioctl",
};

/* weights, per mille (they add up to 1000) */
const unsigned int kind_weight[K_MAX] = {
	120, 147, 60, 60,
	90, 30, 25, 20, 20, 60, 25,
	90, 35, 45, 45, 10,
	70, 10, 5, 5,
	5, 1, 2, 20,
};

/* --kinds: only these operation kinds (to narrow a failure down) */
int g_kind_on[K_MAX] = { [0 ... K_MAX - 1] = 1 };

const char *const vclass_name[V_MAX] = { "ioctl", "mmap", "genl", "death", "hang", "cross",
						"sched", "log" };

struct shared *sh;

/* ---- configuration and the environment (set before any fork) ------------ */

uint64_t g_seed, g_ops;
int g_procs = 4, g_threads = 3, g_long;
int g_ndev;
int g_dev_index[MAXDEV];
uint32_t g_nc[MAXDEV];
uint16_t g_family;
uint32_t g_errors_grp;
const char *g_rm_path, *g_add_path;	/* device removal interface */
int g_removal;

struct fentry g_files[MAXFILES];
int g_nfiles;
int g_cls_idx[3][MAXFILES];
int g_cls_n[3];
unsigned int g_debugfs_unknown;

/* ---- per-process state of a worker -------------------------------------- */

int g_widx = -1, g_gen;
int g_in_child;				/* a child a worker thread forked */
int g_base[MAXDEV];			/* never closed while the worker runs */
_Atomic int g_own_slot[MAXDEV];		/* this process's slab, -1 unknown */
_Atomic uint64_t g_own_ring[MAXDEV][RING_WORDS];	/* rings it ever created */
/*
 * Odd while a call that may give this process a slab or a ring is in
 * flight (and until its answer is recorded): a mapping made meanwhile
 * cannot be judged for write access.
 */
_Atomic uint64_t g_own_epoch;

/* ---- violations ----------------------------------------------------------- */

void viol(struct ts *t, int cls, const char *fmt, ...)
{
	char buf[200];
	va_list ap;
	uint32_t i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	atomic_fetch_add(&sh->viol[cls], 1);
	i = atomic_fetch_add(&sh->nmsg, 1);
	if (i < NMSG)
		snprintf(sh->msg[i], sizeof(sh->msg[i]), "%s: %s [worker %d gen %d%s thread %d op %" PRIu64 "]",
			 vclass_name[cls], buf, g_widx, g_gen, g_in_child ? " child" : "",
			 t ? t->tidx : -1, t ? t->opno : 0);
}

void judged(int cls) { atomic_fetch_add(&sh->checked[cls], 1); }

/* errnos the uapi documents for any call; anything else (ERESTARTSYS, ...) is a leak */
int errno_documented(int e)
{
	switch (e) {
	case EINVAL: case ENOENT: case EBUSY: case ENOSPC: case EACCES: case EFAULT:
	case E2BIG: case EPERM: case EIO: case ETIMEDOUT: case EOPNOTSUPP: case EINTR:
	case ENOMEM: case ENODEV: case ENOTTY: case ENOTRECOVERABLE: case ECANCELED:
		return 1;
	}
	return 0;
}

const char *ename(int e)
{
	static __thread char buf[32];

	if (!e)
		return "success";
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case E2BIG: return "E2BIG";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case ENODEV: return "ENODEV";
	case ENOTTY: return "ENOTTY";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- fault guard for touching mappings ----------------------------------- */

__thread sigjmp_buf t_jb;
__thread volatile sig_atomic_t t_guard;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (t_guard) {
		t_guard = 0;
		siglongjmp(t_jb, sig);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void install_fault_guard(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- devices and fds ---------------------------------------------------- */

int open_index(int n, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/neuron%d", n);
	return open(path, flags | O_CLOEXEC);
}

/* A device fd: the process's base fd (80%) or one of the thread's own. */
int pick_fd(struct ts *t, int *dev, int *own)
{
	int k = below(t, NFD), i;

	if (t->fd[k] >= 0 && chance(t, 200)) {
		*dev = t->fd_dev[k];
		*own = t->fd_own[k];
		return t->fd[k];
	}
	*dev = below(t, g_ndev);
	*own = !g_in_child;
	/* a device removed when the worker started has no base fd */
	for (i = 0; i < g_ndev && g_base[*dev] < 0; i++)
		*dev = (*dev + 1) % g_ndev;
	return g_base[*dev];
}

void add_cookie(struct ts *t, uint64_t off, uint64_t len, int dev)
{
	int i;

	for (i = 0; i < t->nck; i++)
		if (t->ck[i].off == off && t->ck[i].dev == dev) {
			t->ck[i].len = len;
			return;
		}
	i = t->nck < MAXCK ? t->nck++ : (int)below(t, MAXCK);
	t->ck[i] = (struct cookie){ off, len, dev };
}
