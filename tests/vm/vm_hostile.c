// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: a seeded hostile-userspace fuzzer for neuron.ko (tests/vm/60_hostile.sh).
 *
 *   vm_hostile [--seed N] [--ops N] [--procs N] [--threads N] [--long]
 *
 * N worker processes x M threads share one budget of --ops operations
 * (children forked by workers included). Each operation is picked at random
 * from: ioctls on every command (valid structs, one field mutated, bad
 * pointers, random command numbers), mmap with valid and random cookies,
 * lengths, protections and flags, munmap / mremap / mprotect / madvise /
 * touching the mappings, open/close, reads and writes of every sysfs file
 * of the devices, every debugfs file of the module (not `warn`), the module
 * parameters, generic netlink requests with random commands, flags and
 * attributes, multicast joins, fork (the child runs a few operations,
 * then exits or SIGKILLs itself), and stale views (a read-only view of a
 * child's slab kept across the child's exit and the next claim, by a
 * process of a new pid namespace). The parent SIGKILLs random workers at
 * random points and forks them again, and removes and re-adds devices
 * while all of this runs when the module offers a run-time interface for
 * it (detected; skipped and said so otherwise).
 *
 * Reproducible: everything random derives from --seed (printed first): the
 * parent's choices from the seed, worker i of generation g from (seed, i,
 * g), its thread t from that, a forked child from its thread's state. A
 * failing seed replays with the same --seed/--ops/--procs/--threads, modulo
 * scheduling (which operations of different threads interleave).
 *
 * Caps, so that no operation blocks for long: SIM_EXEC runs at most 20 ms
 * and waits at most 50 ms (an armed `hang` costs 50 ms); module parameters
 * are only written with fwio_timeout_ms <= 50 and fwio_retries <= 3 (the
 * suite loads with 20 ms x 2), so a hung simulated firmware costs a FW-IO
 * exchange at most 150 ms; nq_flood and fault counts are mostly small.
 *
 * Besides "the kernel survives" (the host scans the whole kernel log), the
 * fuzzer checks the documented contract on every call it can judge:
 *  - ioctl: an unknown number (or another magic) -> ENOTTY, a known number
 *    with another size/direction -> EINVAL, a wrong @size, unknown @flags
 *    bits, or a non-zero reserved word -> EINVAL, FW_READ count 0 ->
 *    EINVAL and > 16 -> E2BIG, NDS_ACQUIRE pid < 0 -> EINVAL, a pointer to
 *    nothing (NULL, below mmap_min_addr, kernel half, non-canonical, a
 *    PROT_NONE page, a struct straddling into one) -> EFAULT, every errno
 *    one the uapi documents (no leaked ERESTARTSYS etc.), reserved words
 *    zero on output, GET_INFO always succeeding with the right answer;
 *  - mmap: only cookie offsets map, only with the object's exact length,
 *    never writable for a slab the process does not own or a ring it never
 *    created, never growable (mremap); every page of an accepted mapping is
 *    readable (a fault there is a defect); no device mapping reaches a
 *    forked child (whatever madvise() was tried: MADV_DOFORK included); a
 *    read-only view shows its owner, then zeros, never the slot's next
 *    owner;
 *  - generic netlink: every do-request with NLM_F_ACK is answered at once;
 *    an unknown command -> EOPNOTSUPP, a missing DEVICE/NC -> EINVAL, no such
 *    device -> ENODEV, no such NeuronCore -> ENOENT (docs/genl.md);
 *  - processes: no worker or child dies other than by SIGKILL (ours or its
 *    own); no operation stalls for 60 s;
 *  - afterwards: each device answers GET_INFO, no NeuronCore is still
 *    reserved, all 16 NDS slabs are free (16 processes acquire one, the
 *    17th gets ENOSPC), counting through them moves sysfs exactly, and a
 *    counters dump returns every NeuronCore.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_genl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_vendor_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include "nlraw.h"
#include "vmtest.h"

#define MAXDEV		16
#define MAXW		32
#define MAXT		8
#define MAXFILES	8192
#define POOL		(1 << 20)
#define PAGE		4096UL

/* the driver's cookie ranges (documented as opaque; used to judge mmap) */
#define NDS_BASE	0x10000000ULL
#define NQ_BASE		0x40000000ULL
#define NQ_STRIDE	0x200000ULL
#define NQ_PER_NC	(NEURON_NQ_TYPE_MAX * NEURON_NQ_MAX_ENGINE)

/* ---- operation kinds and what is counted -------------------------------- */

enum kind {
	K_IOCTL_VALID, K_IOCTL_MUTATED, K_IOCTL_BADPTR, K_IOCTL_RANDOM,
	K_MMAP, K_MUNMAP, K_MREMAP, K_MPROTECT, K_MADVISE, K_TOUCH, K_OPENCLOSE,
	K_SYSFS_READ, K_SYSFS_WRITE, K_DEBUGFS_READ, K_DEBUGFS_WRITE, K_PARAM,
	K_GENL, K_GENL_MCAST, K_FORK, K_STALE_VIEW,
	K_DEVMEM, K_FDTABLE, K_FORGED, K_VENDOR,
	K_MAX
};

static const char *const kind_name[K_MAX] = {
	"ioctl-valid", "ioctl-mutated", "ioctl-badptr", "ioctl-randomcmd",
	"mmap", "munmap", "mremap", "mprotect", "madvise", "touch", "open-close",
	"sysfs-read", "sysfs-write", "debugfs-read", "debugfs-write", "param",
	"genl", "genl-mcast", "fork", "stale-view",
	"devmem-cross", "fdtable-walk", "forged-name", "vendor-ioctl",
};

/* weights, per mille (they add up to 1000) */
static const unsigned int kind_weight[K_MAX] = {
	120, 147, 60, 60,
	90, 30, 25, 20, 20, 60, 25,
	90, 35, 45, 45, 10,
	70, 10, 5, 5,
	5, 1, 2, 20,
};

/* --kinds: only these operation kinds (to narrow a failure down) */
static int g_kind_on[K_MAX] = { [0 ... K_MAX - 1] = 1 };

enum vclass { V_IOCTL, V_MMAP, V_GENL, V_DEATH, V_HANG, V_CROSS, V_SCHED, V_LOG, V_MAX };
static const char *const vclass_name[V_MAX] = { "ioctl", "mmap", "genl", "death", "hang", "cross",
						"sched", "log" };

#define NMSG 24
struct shared {
	_Atomic uint64_t issued;
	_Atomic uint64_t started[K_MAX];	/* a SIGKILL may end an operation before it is done */
	_Atomic uint64_t done[K_MAX];
	_Atomic uint64_t usec[K_MAX];		/* wall time spent in each kind */
	_Atomic uint64_t start_us, starts;	/* worker start-up (rescan, opens) */
	_Atomic uint64_t ok[K_MAX];
	_Atomic uint64_t viol[V_MAX];
	_Atomic uint64_t checked[V_MAX];	/* calls whose result was judged */
	_Atomic uint32_t nmsg;
	char msg[NMSG][256];
	_Atomic int worker_pid[MAXW];
	_Atomic uint64_t forks, child_selfkill, child_exit;
	_Atomic uint64_t devmem_next, devmem_same;	/* next owners, on the freed granule */
	_Atomic uint64_t fdtable_runs, fdtable_walks, fdtable_gap_max;
};

static struct shared *sh;

/* ---- configuration and the environment (set before any fork) ------------ */

static uint64_t g_seed, g_ops;
static int g_procs = 4, g_threads = 3, g_long;
static int g_ndev;
static int g_dev_index[MAXDEV];
static uint32_t g_nc[MAXDEV];
static uint16_t g_family;
static uint32_t g_errors_grp;
static const char *g_rm_path, *g_add_path;	/* device removal interface */
static int g_removal;

static char g_pool[POOL];
static size_t g_pool_used;
enum fclass { F_SYSFS, F_DEBUGFS, F_PARAM };
struct fentry {
	const char *path;
	const char *base;
	uint8_t cls;
	uint8_t writable_known;	/* debugfs: a knob whose input format we know */
};
static struct fentry g_files[MAXFILES];
static int g_nfiles;
static int g_cls_idx[3][MAXFILES];
static int g_cls_n[3];
static unsigned int g_debugfs_unknown;

/* ---- per-process state of a worker -------------------------------------- */

#define MAXNC		8
#define RING_WORDS	((MAXNC * NQ_PER_NC + 63) / 64)

static int g_widx = -1, g_gen;
static int g_in_child;				/* a child a worker thread forked */
static int g_base[MAXDEV];			/* never closed while the worker runs */
static _Atomic int g_own_slot[MAXDEV];		/* this process's slab, -1 unknown */
static _Atomic uint64_t g_own_ring[MAXDEV][RING_WORDS];	/* rings it ever created */
/*
 * Odd while a call that may give this process a slab or a ring is in
 * flight (and until its answer is recorded): a mapping made meanwhile
 * cannot be judged for write access.
 */
static _Atomic uint64_t g_own_epoch;

/* ---- random numbers: splitmix64 ----------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t s = a ^ (b * 0xD6E8FEB86659FD93ULL);

	return splitmix(&s);
}

/* ---- thread state ---------------------------------------------------------- */

#define NFD	4
#define MAXMAP	16
#define MAXCK	32

struct mapping {
	uint8_t *addr;
	size_t len;
	int prot;
	int zapped;	/* MADV_DONTNEED and friends: pages gone, do not touch */
	int may_write;	/* the object is this process's (own slab / ring) */
};

struct cookie {
	uint64_t off;
	uint64_t len;
	int dev;
};

union arg {
	struct neuron_info info;
	struct neuron_nds_acquire acq;
	struct neuron_nds_counter_add add;
	struct neuron_nq_init nqi;
	struct neuron_nq_release nqr;
	struct neuron_core_reserve cr;
	struct neuron_sim_exec ex;
	struct neuron_fw_read fwr;
	struct neuron_fw_power_profile pp;
	unsigned char raw[512];
};

struct ts {
	uint64_t rng;
	int tidx;
	uint64_t opno;
	int fd[NFD], fd_dev[NFD], fd_own[NFD];
	struct cookie ck[MAXCK];
	int nck;
	struct mapping mp[MAXMAP];
	int nmp;
	int nl, nl_small, nl_joined;
	uint32_t nlseq;
	uint8_t *straddle;	/* [RW page][PROT_NONE page] */
	uint8_t *ro;		/* a page made read-only after filling */
	uint8_t *none;		/* a PROT_NONE page */
	union arg a;
	unsigned char argbuf[16384] __attribute__((aligned(64)));
	unsigned char io[65536];
	struct nlraw_msg nm;
};

static uint64_t rnd(struct ts *t) { return splitmix(&t->rng); }
static uint32_t below(struct ts *t, uint32_t n) { return n ? (uint32_t)(rnd(t) % n) : 0; }
static int chance(struct ts *t, unsigned int permille) { return below(t, 1000) < permille; }

/* ---- violations ----------------------------------------------------------- */

static void viol(struct ts *t, int cls, const char *fmt, ...)
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

static void judged(int cls) { atomic_fetch_add(&sh->checked[cls], 1); }

/* errnos the uapi documents for any call; anything else (ERESTARTSYS, ...) is a leak */
static int errno_documented(int e)
{
	switch (e) {
	case EINVAL: case ENOENT: case EBUSY: case ENOSPC: case EACCES: case EFAULT:
	case E2BIG: case EPERM: case EIO: case ETIMEDOUT: case EOPNOTSUPP: case EINTR:
	case ENOMEM: case ENODEV: case ENOTTY: case ENOTRECOVERABLE: case ECANCELED:
		return 1;
	}
	return 0;
}

/* ---- fault guard for touching mappings ----------------------------------- */

static __thread sigjmp_buf t_jb;
static __thread volatile sig_atomic_t t_guard;

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

static void install_fault_guard(void)
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

static int open_index(int n, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/neuron%d", n);
	return open(path, flags | O_CLOEXEC);
}

/* A device fd: the process's base fd (80%) or one of the thread's own. */
static int pick_fd(struct ts *t, int *dev, int *own)
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

static void add_cookie(struct ts *t, uint64_t off, uint64_t len, int dev)
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

enum cmd { C_INFO, C_ACQ, C_ADD, C_NQI, C_NQR, C_CRES, C_CREL, C_EXEC, C_FWR, C_PP,
	   C_MODEL, C_MALLOC, C_MFREE, C_MREAD, C_MWRITE, C_MSET, C_APPS, C_HOLDERS, C_TAKEBACK,
	   C_MAX };

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
	[C_EXEC] = CD("SIM_EXEC", NEURON_IOCTL_SIM_EXEC, struct neuron_sim_exec, 0, f_ex, 8),
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

static uint32_t ring_size_valid(struct ts *t)
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

static uint64_t pick_u64(struct ts *t)
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
	return exp;
}

static const char *ename(int e)
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

static long do_ioctl(int fd, unsigned long cmd, void *arg, int *e)
{
	long r;

	errno = 0;
	r = ioctl(fd, cmd, arg);
	*e = r ? errno : 0;
	return r;
}

static int creates(int c) { return c == C_ACQ || c == C_NQI; }

static void epoch_begin(int c)
{
	if (creates(c))
		atomic_fetch_add(&g_own_epoch, 1);
}

static void epoch_end(int c)
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

static int op_ioctl_valid(struct ts *t)
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

static int op_ioctl_mutated(struct ts *t)
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

enum ptrk { P_NULL, P_LOW, P_KERNEL, P_NONCANON, P_NONE, P_STRADDLE, P_RO, P_MISALIGNED, P_DEVMAP,
	    P_MAX };
static const char *const ptr_name[P_MAX] = {
	"NULL", "0x1000", "kernel-half", "non-canonical", "PROT_NONE page", "straddling PROT_NONE",
	"read-only page", "misaligned", "device mapping",
};

static void *bad_pointer(struct ts *t, int k, const union arg *a, size_t size)
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

static int op_ioctl_badptr(struct ts *t)
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
	 * it does not know of. Creating commands take a pointer to our copy.
	 */
	if (k == P_DEVMAP && creates(c))
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
		NEURON_IOCTL_NOTIFICATIONS_INIT_WITH_REALLOC_V2,
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

static int op_ioctl_random(struct ts *t)
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

/* ---- mmap ------------------------------------------------------------------ */

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

static int op_mmap(struct ts *t)
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

static int op_munmap(struct ts *t)
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

static int op_mremap(struct ts *t)
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

static int op_mprotect(struct ts *t)
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

static int op_madvise(struct ts *t)
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

static int op_touch(struct ts *t)
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

static int op_openclose(struct ts *t)
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

/* ---- sysfs, debugfs and module parameter files ---------------------------- */

/* Printable junk with at least one letter, so it is never a bare number. */
static size_t junk(struct ts *t, char *buf, size_t cap)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCXYZ_-+.:/=,";
	size_t n = 1 + below(t, 24), i;

	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++)
		buf[i] = chance(t, 600) ? alpha[below(t, sizeof(alpha) - 1)] : (char)('0' + below(t, 10));
	buf[below(t, (uint32_t)n)] = 'x';
	return n;
}

/* Anything at all: bytes, NULs, control characters, long lines. */
static size_t anything(struct ts *t, char *buf, size_t cap)
{
	static const size_t lens[] = { 0, 1, 2, 8, 126, 127, 128, 129, 200, 4095, 4096, 5000 };
	size_t n = lens[below(t, sizeof(lens) / sizeof(lens[0]))], i;

	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++) {
		switch (below(t, 4)) {
		case 0: buf[i] = (char)rnd(t); break;
		case 1: buf[i] = ' '; break;
		default: buf[i] = (char)('0' + below(t, 10)); break;
		}
	}
	return n;
}

static const char *const tpb_names[] = { "FP_UNDERFLOW", "FP_NAN", "FP_INF", "FP_OVERFLOW",
	"MEMORY_ERROR", "FAKE_ERROR", "SEMAPHORE_ERROR", "EVENT_ERROR", "PSUM_COLLISION",
	"SEQUENCER_NONFATAL", "SEQUENCER_FATAL", "fp_nan", "NAN" };
static const char *const hw_names[] = { "collectives", "hbm_ue", "nc_ue", "dma_abort",
	"repairable_hbm_ue", "hbm", "HBM_UE", "none" };
static const char *const fault_modes[] = { "none", "fail", "unknown_command", "timeout", "bad_seq",
	"bad_crc", "slow", "oversize", "FAIL", "fial" };

static uint32_t knob_nc(struct ts *t)
{
	static const uint32_t odd[] = { 8, 16, 4294967295u, 1000 };

	return chance(t, 850) ? below(t, MAXNC) : odd[below(t, 4)];
}

static uint32_t knob_count(struct ts *t, uint32_t max)
{
	if (chance(t, 20))
		return chance(t, 500) ? max : max + 1;
	if (chance(t, 50))
		return 0;
	return 1 + below(t, 8);
}

/* What to write to file @f: a plausible line for the knobs we know, else junk. */
static size_t content(struct ts *t, const struct fentry *f, char *buf, size_t cap)
{
	const char *b = f->base;
	int n = -1;

	if (chance(t, 150))
		return chance(t, 500) ? junk(t, buf, cap) : anything(t, buf, cap);
	if (f->cls == F_PARAM) {
		if (!strcmp(b, "fwio_timeout_ms"))
			n = snprintf(buf, cap, "%u\n", chance(t, 900) ? 1 + below(t, 50) :
					       (chance(t, 500) ? 0 : 60001));
		else if (!strcmp(b, "fwio_retries"))
			n = snprintf(buf, cap, "%u\n", chance(t, 900) ? 1 + below(t, 3) :
					       (chance(t, 500) ? 0 : 31));
		else if (!strcmp(b, "nmetric_post_delay_ms"))
			n = snprintf(buf, cap, "%u\n", chance(t, 800) ? 100 + below(t, 2000) :
					       (chance(t, 500) ? 99 : 86400000));
		else
			return junk(t, buf, cap);
	} else if (f->cls == F_SYSFS) {
		if (!strcmp(b, "total") || !strcmp(b, "present"))
			n = snprintf(buf, cap, "%s", chance(t, 800) ? "1\n" : "0");
		else if (!strcmp(b, "notify_delay")) {
			static const char *const v[] = { "0", "-1", "0\n", "-1\n", "5", "-2", " 0", "0x0" };

			n = snprintf(buf, cap, "%s", v[below(t, 8)]);
		} else if (!strcmp(b, "uevent")) {
			static const char *const v[] = { "change", "add", "online", "offline", "bind" };

			n = snprintf(buf, cap, "%s", v[below(t, 5)]);
		} else if (!strcmp(b, "control")) {
			n = snprintf(buf, cap, "%s", chance(t, 500) ? "auto" : "on");
		} else {
			return junk(t, buf, cap);
		}
	} else if (!strcmp(b, "tpb_error")) {
		if (chance(t, 500))
			n = snprintf(buf, cap, "%u %s %u", knob_nc(t), tpb_names[below(t, 13)],
				     knob_count(t, 65536));
		else
			n = snprintf(buf, cap, "%u %u", knob_nc(t), below(t, 13));
	} else if (!strcmp(b, "hw_error")) {
		n = snprintf(buf, cap, "%u %s %u", knob_nc(t), hw_names[below(t, 8)], knob_count(t, 65536));
	} else if (!strcmp(b, "nq_flood")) {
		n = snprintf(buf, cap, "%u %u", knob_nc(t),
			     chance(t, 950) ? 1 + below(t, 64) : knob_count(t, 1u << 20));
	} else if (!strcmp(b, "hang")) {
		n = snprintf(buf, cap, "%u", knob_nc(t));
	} else if (!strcmp(b, "ecc")) {
		switch (below(t, 3)) {
		case 0: n = snprintf(buf, cap, "sram %u %u", below(t, 70000), below(t, 70000)); break;
		case 1: n = snprintf(buf, cap, "hbm%u %u", below(t, 6), below(t, 70000)); break;
		default: n = snprintf(buf, cap, "repair %s", below(t, 2) ? "pending" : "none"); break;
		}
	} else if (!strcmp(b, "fault")) {
		if (chance(t, 400))
			n = snprintf(buf, cap, "%s", fault_modes[below(t, 10)]);
		else
			n = snprintf(buf, cap, "%s %u", fault_modes[below(t, 10)], below(t, 5));
	} else if (!strcmp(b, "slow_ms")) {
		n = snprintf(buf, cap, "%u", chance(t, 900) ? below(t, 60) : 10000 + below(t, 2));
	} else if (!strcmp(b, "api_version")) {
		n = snprintf(buf, cap, "%u", chance(t, 700) ? 7 : (uint32_t)pick_u64(t));
	} else {
		/* posted, post_now: anything */
		n = snprintf(buf, cap, "1\n");
	}
	if (n < 0)
		return 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}

static const struct fentry *pick_file(struct ts *t, int cls)
{
	if (!g_cls_n[cls])
		return NULL;
	return &g_files[g_cls_idx[cls][below(t, g_cls_n[cls])]];
}

/* A readable mapping of ours with at least @len bytes, or NULL. */
static struct mapping *usable_map(struct ts *t, int need_write)
{
	int i, s = t->nmp ? (int)below(t, t->nmp) : 0;

	for (i = 0; i < t->nmp; i++) {
		struct mapping *m = &t->mp[(s + i) % t->nmp];

		if (!m->zapped && (m->prot & PROT_READ) && (!need_write || (m->prot & PROT_WRITE)))
			return m;
	}
	return NULL;
}

static int op_file_read(struct ts *t, int cls)
{
	static const off_t offs[] = { 0, 1, 2, 4095, 4096, 1 << 20, LLONG_MAX / 2 };
	const struct fentry *f = pick_file(t, cls);
	struct mapping *m;
	struct pollfd pfd;
	ssize_t r = -1;
	int fd, i;

	if (!f)
		return 0;
	fd = open(f->path, O_RDONLY | O_CLOEXEC | (chance(t, 100) ? O_NONBLOCK : 0));
	if (fd < 0)
		return 0;
	switch (below(t, 6)) {
	case 0:
		r = read(fd, t->io, 1 + below(t, sizeof(t->io)));
		break;
	case 1:
		r = pread(fd, t->io, 1 + below(t, 8192), offs[below(t, 7)]);
		break;
	case 2:
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLPRI };
		poll(&pfd, 1, 0);
		r = read(fd, t->io, sizeof(t->io));
		break;
	case 3:
		for (i = 0; i < 64; i++)
			if ((r = read(fd, t->io + i, 1)) <= 0)
				break;
		break;
	case 4:
		/* into a mapping of ours (never past its end) or to a bad address */
		m = usable_map(t, 0);
		if (m)
			r = read(fd, m->addr + m->len - 64, 64);
		else
			r = read(fd, chance(t, 500) ? NULL : t->none, 64);
		break;
	default:
		lseek(fd, (off_t)below(t, 100), chance(t, 500) ? SEEK_SET : SEEK_END);
		r = read(fd, t->io, 4096);
		break;
	}
	close(fd);
	return r >= 0;
}

static int op_file_write(struct ts *t, int cls)
{
	const struct fentry *f = pick_file(t, cls);
	struct mapping *m;
	const void *src;
	size_t len;
	ssize_t r;
	int fd;

	if (!f)
		return 0;
	if (cls == F_DEBUGFS && !f->writable_known)
		return op_file_read(t, cls);
	fd = open(f->path, (chance(t, 800) ? O_WRONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = content(t, f, (char *)t->io, sizeof(t->io));
	src = t->io;
	switch (below(t, 20)) {
	case 0:
		/* from a mapping of ours: what the runtime or a ring holds */
		m = usable_map(t, 0);
		if (m) {
			src = m->addr;
			if (len > m->len)
				len = m->len;
		}
		break;
	case 1:
		src = chance(t, 500) ? NULL : (const void *)t->none;
		if (!len)
			len = 8;
		break;
	}
	if (chance(t, 100))
		r = pwrite(fd, src, len, (off_t)below(t, 8192));
	else
		r = write(fd, src, len);
	if (r > 0 && chance(t, 100))
		r = write(fd, src, len);
	close(fd);
	return r >= 0;
}

/* ---- generic netlink ------------------------------------------------------ */

static int nl_sock(struct ts *t)
{
	int one = 1;

	if (t->nl >= 0)
		return t->nl;
	t->nl = nlraw_open();
	t->nl_small = 0;
	t->nl_joined = 0;
	if (t->nl < 0)
		return -1;
	if (chance(t, 100)) {
		int sz = 256 + (int)below(t, 2048);

		setsockopt(t->nl, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		t->nl_small = 1;
	}
	if (chance(t, 300))
		setsockopt(t->nl, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (chance(t, 200))
		setsockopt(t->nl, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return t->nl;
}

static void nl_drain(struct ts *t, int max)
{
	int i;

	for (i = 0; i < max; i++)
		if (recv(t->nl, t->io, sizeof(t->io), MSG_DONTWAIT) < 0 && errno != ENOBUFS)
			break;
}

/*
 * The answer to request @seq, already queued (generic netlink answers in
 * the sender's context): 0 and its error in *@err, -1 if nothing came, -2
 * if the socket overran (no judgement possible).
 */
static int nl_answer(struct ts *t, uint32_t seq, int *err, unsigned int *data)
{
	int i;

	*data = 0;
	for (i = 0; i < 64; i++) {
		ssize_t n = recv(t->nl, t->io, sizeof(t->io), MSG_DONTWAIT);
		const unsigned char *p = t->io;
		size_t left;

		if (n < 0)
			return errno == ENOBUFS ? -2 : -1;
		left = (size_t)n;
		while (left >= NLMSG_HDRLEN) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)p;

			if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > left)
				break;
			if (h->nlmsg_seq == seq) {
				if (h->nlmsg_type == NLMSG_ERROR) {
					*err = -((const struct nlmsgerr *)NLMSG_DATA(h))->error;
					return 0;
				}
				(*data)++;
			}
			if (NLMSG_ALIGN(h->nlmsg_len) >= left)
				break;
			left -= NLMSG_ALIGN(h->nlmsg_len);
			p += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
	return -1;
}

static int dev_present(uint32_t idx)
{
	int d;

	for (d = 0; d < g_ndev; d++)
		if ((uint32_t)g_dev_index[d] == idx)
			return d;
	return -1;
}

static int op_genl(struct ts *t)
{
	struct nlraw_msg *m = &t->nm;
	uint32_t seq = ++t->nlseq, dev, nc;
	int fd = nl_sock(t), exp = -1, err = 0, r, i, dump, has_dev, has_nc, d;
	unsigned int data;
	char what[96];

	if (fd < 0)
		return 0;
	if (!g_family)
		return 0;
	switch (below(t, 8)) {
	case 0:	/* dump, maybe filtered, read partly (the rest stays in progress) */
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_DUMP, seq, NEURON_GENL_CMD_COUNTERS_GET, 1);
		if (chance(t, 400))
			nlraw_put_u32(m, NEURON_GENL_A_DEVICE, chance(t, 800) ? (uint32_t)g_dev_index[below(t, g_ndev)] : below(t, 100));
		r = nlraw_send(fd, m, m->len);
		nl_drain(t, below(t, 4));
		return r == 0;
	case 1:	/* do: documented errors */
		has_dev = chance(t, 850);
		has_nc = chance(t, 850);
		dev = chance(t, 700) ? (uint32_t)g_dev_index[below(t, g_ndev)] :
				      (chance(t, 500) ? 63 + below(t, 100) : 0xffffffffu);
		d = dev_present(dev);
		nc = chance(t, 700) && d >= 0 ? below(t, g_nc[d]) : (chance(t, 500) ? 8 : 0xffffffffu);
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_ACK, seq, NEURON_GENL_CMD_COUNTERS_GET,
			   (uint8_t)below(t, 3));
		if (has_nc && chance(t, 500))
			nlraw_put_u32(m, NEURON_GENL_A_NC, nc);
		if (has_dev)
			nlraw_put_u32(m, NEURON_GENL_A_DEVICE, dev);
		if (has_nc && !nlraw_find(m->u.buf + NLMSG_HDRLEN + GENL_HDRLEN, m->len - NLMSG_HDRLEN - GENL_HDRLEN, NEURON_GENL_A_NC))
			nlraw_put_u32(m, NEURON_GENL_A_NC, nc);
		if (!has_dev || !has_nc)
			exp = EINVAL;
		else if (d < 0)
			exp = ENODEV;
		else if (nc >= g_nc[d])
			exp = ENOENT;
		else
			exp = 0;
		snprintf(what, sizeof(what), "COUNTERS_GET do%s%s device %u nc %u", has_dev ? "" : " without DEVICE",
			 has_nc ? "" : " without NC", dev, nc);
		break;
	case 2:	/* no such command: nothing to clear, nothing else to call */
		i = (int)below(t, 4);
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_ACK, seq,
			   (uint8_t)(i == 0 ? NEURON_GENL_CMD_UNSPEC : i == 1 ? NEURON_GENL_CMD_ERROR_EVENT :
				     3 + below(t, 253)), 1);
		if (chance(t, 500))
			nlraw_put_u32(m, NEURON_GENL_A_DEVICE, 0);
		exp = EOPNOTSUPP;
		snprintf(what, sizeof(what), "command %u", ((struct genlmsghdr *)(m->u.buf + NLMSG_HDRLEN))->cmd);
		break;
	case 3: {	/* random attributes, answered one way or another */
		int na = (int)below(t, 7);

		dump = chance(t, 300);
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0), seq,
			   chance(t, 800) ? NEURON_GENL_CMD_COUNTERS_GET : (uint8_t)below(t, 256),
			   (uint8_t)below(t, 256));
		for (i = 0; i < na; i++) {
			uint16_t type = (uint16_t)below(t, NEURON_GENL_A_MAX + 4);
			uint16_t len = (uint16_t)(chance(t, 500) ? 4 * below(t, 3) : below(t, 80));
			unsigned char v[80];
			uint32_t j;

			if (chance(t, 100))
				type |= NLA_F_NESTED;
			for (j = 0; j < len; j++)
				v[j] = (unsigned char)rnd(t);
			if (chance(t, 50))
				nlraw_put_raw(m, type, v, len, (uint16_t)below(t, 200));
			else
				nlraw_put(m, type, v, len);
		}
		if (dump) {
			r = nlraw_send(fd, m, m->len);
			nl_drain(t, 200);
			return r == 0;
		}
		exp = -2;	/* any answer */
		snprintf(what, sizeof(what), "request with %d random attributes", na);
		break;
	}
	case 4: {	/* a malformed header: length lies, flags random */
		size_t len = NLMSG_HDRLEN + below(t, 64);

		nlraw_init(m, chance(t, 800) ? g_family : GENL_ID_CTRL, (uint16_t)rnd(t), seq,
			   (uint8_t)below(t, 8), 1);
		for (i = NLMSG_HDRLEN; i < (int)len; i++)
			m->u.buf[i] = (unsigned char)rnd(t);
		m->u.nlh.nlmsg_len = chance(t, 500) ? (uint32_t)len : (uint32_t)below(t, 300);
		r = nlraw_send(fd, m, len);
		nl_drain(t, 50);
		return r == 0;
	}
	case 5: {	/* the controller describes our policy (dump) */
		uint16_t fam = g_family;

		nlraw_init(m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP, seq,
			   chance(t, 700) ? CTRL_CMD_GETPOLICY : CTRL_CMD_GETFAMILY, 1);
		if (chance(t, 800))
			nlraw_put(m, CTRL_ATTR_FAMILY_ID, &fam, sizeof(fam));
		r = nlraw_send(fd, m, m->len);
		nl_drain(t, 500);
		return r == 0;
	}
	case 6:	/* close the socket, possibly in the middle of a dump */
		close(fd);
		t->nl = -1;
		return 1;
	default:	/* a plain valid dump, read to its end */
		nlraw_init(m, g_family, NLM_F_REQUEST | NLM_F_DUMP, seq, NEURON_GENL_CMD_COUNTERS_GET, 1);
		r = nlraw_send(fd, m, m->len);
		nl_drain(t, 500);
		return r == 0;
	}

	/* a judged request: nothing else queued first */
	nl_drain(t, 10000);
	if (nlraw_send(fd, m, m->len))
		return 0;
	r = nl_answer(t, seq, &err, &data);
	if (r == -2 || t->nl_small)
		return r == 0;
	judged(V_GENL);
	if (r < 0) {
		viol(t, V_GENL, "%s: no answer", what);
		return 0;
	}
	/* with devices coming and going, which ones exist is not known here */
	if (g_removal && exp != EINVAL && exp != EOPNOTSUPP && exp != -2 &&
	    (err == 0 || err == ENODEV || err == ENOENT))
		exp = err;
	if (exp >= 0 && err != exp)
		viol(t, V_GENL, "%s: got %s, documented %s", what, ename(err), ename(exp));
	if (exp == 0 && err == 0 && data != 1)
		viol(t, V_GENL, "%s: %u replies, expected 1", what, data);
	return err == 0;
}

static int op_genl_mcast(struct ts *t)
{
	int fd = nl_sock(t);
	uint32_t grp = g_errors_grp;

	if (fd < 0)
		return 0;
	if (chance(t, 100))
		grp = chance(t, 500) ? 0xffff : below(t, 64);
	if (!t->nl_joined || grp != g_errors_grp) {
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
			return 0;
		t->nl_joined = grp == g_errors_grp;
		return 1;
	}
	if (chance(t, 300)) {
		t->nl_joined = 0;
		return setsockopt(fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &grp, sizeof(grp)) == 0;
	}
	nl_drain(t, 16);
	return 1;
}

/* ---- processes -------------------------------------------------------------- */

static int pick_kind(struct ts *t, int allow_fork)
{
	unsigned int r, k;

	for (;;) {
		r = below(t, 1000);
		for (k = 0; k < K_MAX; k++) {
			if (r < kind_weight[k])
				break;
			r -= kind_weight[k];
		}
		if (k >= K_MAX)
			continue;
		/* a forked child does not own the worker's files: none of these */
		if (((k == K_FORK || k == K_STALE_VIEW || k == K_DEVMEM || k == K_FDTABLE ||
		      k == K_FORGED) && !allow_fork) || !g_kind_on[k])
			continue;
		return (int)k;
	}
}

static int op_fork(struct ts *t);
static int op_stale_view(struct ts *t);
static int op_devmem_cross(struct ts *t);
static int op_fdtable_walk(struct ts *t);
static int op_forged_name(struct ts *t);
static int op_vendor(struct ts *t);

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void run_op(struct ts *t, int k)
{
	uint64_t t0 = now_us();
	int ok = 0;

	atomic_fetch_add(&sh->started[k], 1);
	switch (k) {
	case K_IOCTL_VALID: ok = op_ioctl_valid(t); break;
	case K_IOCTL_MUTATED: ok = op_ioctl_mutated(t); break;
	case K_IOCTL_BADPTR: ok = op_ioctl_badptr(t); break;
	case K_IOCTL_RANDOM: ok = op_ioctl_random(t); break;
	case K_MMAP: ok = op_mmap(t); break;
	case K_MUNMAP: ok = op_munmap(t); break;
	case K_MREMAP: ok = op_mremap(t); break;
	case K_MPROTECT: ok = op_mprotect(t); break;
	case K_MADVISE: ok = op_madvise(t); break;
	case K_TOUCH: ok = op_touch(t); break;
	case K_OPENCLOSE: ok = op_openclose(t); break;
	case K_SYSFS_READ: ok = op_file_read(t, F_SYSFS); break;
	case K_SYSFS_WRITE: ok = op_file_write(t, F_SYSFS); break;
	case K_DEBUGFS_READ: ok = op_file_read(t, F_DEBUGFS); break;
	case K_DEBUGFS_WRITE: ok = op_file_write(t, F_DEBUGFS); break;
	case K_PARAM: ok = chance(t, 500) ? op_file_read(t, F_PARAM) : op_file_write(t, F_PARAM); break;
	case K_GENL: ok = op_genl(t); break;
	case K_GENL_MCAST: ok = op_genl_mcast(t); break;
	case K_FORK: ok = op_fork(t); break;
	case K_STALE_VIEW: ok = op_stale_view(t); break;
	case K_DEVMEM: ok = op_devmem_cross(t); break;
	case K_FDTABLE: ok = op_fdtable_walk(t); break;
	case K_FORGED: ok = op_forged_name(t); break;
	case K_VENDOR: ok = op_vendor(t); break;
	}
	atomic_fetch_add(&sh->usec[k], now_us() - t0);
	atomic_fetch_add(&sh->done[k], 1);
	if (ok)
		atomic_fetch_add(&sh->ok[k], 1);
}

static int claim(void)
{
	return atomic_fetch_add(&sh->issued, 1) < g_ops;
}

/* A forked child: a few operations with what it inherited, then an end. */
static void child_main(struct ts *t)
{
	int d, i, n;

	g_in_child = 1;
	t->rng = mix(t->rng, 0xC41D);
	/*
	 * No device mapping of the parent's is here, whatever madvise() it
	 * tried (MADV_DOFORK is refused: the mappings are VM_IO)
	 */
	for (i = 0; i < t->nmp; i++) {
		unsigned char v;

		judged(V_MMAP);
		if (mincore(t->mp[i].addr, PAGE, &v) == 0 || errno != ENOMEM)
			viol(t, V_MMAP, "a %s device mapping of %zu bytes reached a forked child",
			     t->mp[i].may_write ? "writable" : "read-only", t->mp[i].len);
	}
	t->nmp = 0;
	for (i = 0; i < NFD; i++)
		t->fd_own[i] = 0;
	if (t->nl >= 0)
		close(t->nl);
	t->nl = -1;
	for (d = 0; d < g_ndev; d++) {
		atomic_store(&g_own_slot[d], -1);
		for (i = 0; i < RING_WORDS; i++)
			atomic_store(&g_own_ring[d][i], 0);
	}
	n = 1 + (int)below(t, 20);
	for (d = 0; d < K_MAX && (d == K_FORK || !g_kind_on[d]); d++)
		;
	if (d == K_MAX)
		n = 0;	/* --kinds fork alone: nothing else to run here */
	for (i = 0; i < n && claim(); i++) {
		t->opno++;
		run_op(t, pick_kind(t, 0));
	}
	switch (below(t, 3)) {
	case 0:
		atomic_fetch_add(&sh->child_selfkill, 1);
		raise(SIGKILL);
		break;
	case 1:
		for (i = 0; i < NFD; i++)
			if (t->fd[i] >= 0)
				close(t->fd[i]);
		break;
	}
	atomic_fetch_add(&sh->child_exit, 1);
	_exit(0);
}

/*
 * A read-only view kept across its owner's exit and the slot's next claim,
 * by a process of a new pid namespace where this one may make one: the view
 * shows its owner, then zeros, never the next owner. The owners mark the
 * slab's unused tail (never folded, so no count moves).
 */
/*
 * In a stale-view helper process: close every fd but stdio, @a and @b at
 * once, so that it holds neither the worker's device files (their cores
 * and slabs) nor the pipes of helpers other threads fork meanwhile (which
 * could keep each other waiting for ever once the worker is killed).
 */
static void stale_keep_fds(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		syscall(SYS_close_range, 3U, (unsigned int)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned int)lo + 1, (unsigned int)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned int)hi + 1, ~0U, 0U);
}

/* A stale-view helper: a slab of device @d marked @mark, held until released. */
static void stale_owner(int d, uint64_t mark, int rfd, int hfd)
{
	struct neuron_nds_acquire q = { .size = sizeof(q) };
	uint8_t *p = MAP_FAILED;
	char c = 'n';
	size_t off;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	fd = open_index(g_dev_index[d], O_RDWR);
	if (fd >= 0 && !ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		p = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)q.mmap_offset);
	if (p != MAP_FAILED) {
		for (off = NEURON_NDS_USED_END; off < NEURON_NDS_SIZE; off += 8)
			*(uint64_t *)(p + off) = mark;
		c = 'r';
	}
	/* a helper's own exit status is not judged: it always exits 0 */
	if (write(rfd, &c, 1) == 1)
		/* hold the slab until released ('x') or the worker is gone (EOF) */
		while (read(hfd, &c, 1) < 0 && errno == EINTR)
			;
	_exit(0);
}

struct stale_proc {
	pid_t pid;
	int rd, hold;
};

/*
 * Fork a helper process running @fn(@arg, ready, hold): it says 'r' (and
 * what else it reports) on the ready pipe, and holds what it made until
 * released (stale_release()) or its hold pipe reaches EOF.
 */
static int helper_spawn(struct stale_proc *sp, void (*fn)(void *, int, int), void *arg)
{
	int r[2], h[2];

	if (pipe(r))
		return -1;
	if (pipe(h)) {
		close(r[0]);
		close(r[1]);
		return -1;
	}
	sp->pid = fork();
	if (sp->pid == 0) {
		g_in_child = 1;
		fn(arg, r[1], h[0]);
		_exit(0);
	}
	close(r[1]);
	close(h[0]);
	sp->rd = r[0];
	sp->hold = h[1];
	if (sp->pid < 0) {
		close(sp->rd);
		close(sp->hold);
		return -1;
	}
	return 0;
}

/* the helper's first byte ('r': ready), within 20 s; 0 when none came */
static char helper_word(struct stale_proc *sp)
{
	struct pollfd pfd = { .fd = sp->rd, .events = POLLIN };
	char c = 0;

	if (poll(&pfd, 1, 20000) != 1 || read(sp->rd, &c, 1) != 1)
		return 0;
	return c;
}

struct stale_arg {
	int d, pidns;
	uint64_t mark;
};

/* The stale-view helper: as pid 1 of a new pid namespace where it may make one */
static void stale_main(void *arg, int rfd, int hfd)
{
	const struct stale_arg *a = arg;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	if (a->pidns && unshare(CLONE_NEWPID) == 0) {
		pid_t g = fork();

		if (g == 0)
			stale_owner(a->d, a->mark, rfd, hfd);	/* pid 1 there */
		if (g > 0)
			while (waitpid(g, NULL, 0) < 0 && errno == EINTR)
				;
		else if (write(rfd, "n", 1) != 1)
			_exit(0);
		_exit(0);
	}
	stale_owner(a->d, a->mark, rfd, hfd);
}

/*
 * Fork an owner of a slab of device @d marked @mark: 1 when it holds one,
 * 0 when it does not (release it all the same), -1 when none was forked.
 */
static int stale_spawn(struct stale_proc *sp, int d, uint64_t mark, int pidns)
{
	struct stale_arg a = { d, pidns, mark };

	if (helper_spawn(sp, stale_main, &a))
		return -1;
	return helper_word(sp) == 'r';
}

static void stale_release(struct stale_proc *sp)
{
	if (write(sp->hold, "x", 1) != 1)
		kill(sp->pid, SIGKILL);
	while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(sp->rd);
	close(sp->hold);
}

/* words of the view's tail that hold @mark */
static size_t stale_marked(const uint8_t *view, uint64_t mark)
{
	size_t off, n = 0;

	for (off = NEURON_NDS_USED_END; off < NEURON_NDS_SIZE; off += 8)
		n += *(const volatile uint64_t *)(view + off) == mark;
	return n;
}

static int op_stale_view(struct ts *t)
{
	int d = below(t, g_ndev), fd = g_base[d];
	uint64_t ma = rnd(t) | 1, mb = ~ma;
	struct neuron_nds_acquire q;
	struct stale_proc a, b;
	uint8_t *view;
	size_t n;
	int got;

	if (fd < 0)
		return 0;
	got = stale_spawn(&a, d, ma, 0);
	if (got < 0)
		return 0;
	if (!got)
		goto out_a;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.pid = a.pid;
	if (ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		goto out_a;
	view = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	if (view == MAP_FAILED)
		goto out_a;
	judged(V_MMAP);
	n = stale_marked(view, ma);
	if (n != (NEURON_NDS_SIZE - NEURON_NDS_USED_END) / 8)
		viol(t, V_MMAP, "a read-only view of slab %u showed %zu words of its owner's", q.slot, n);
	stale_release(&a);
	got = stale_spawn(&b, d, mb, 1);
	if (got > 0) {
		judged(V_MMAP);
		n = stale_marked(view, mb);
		if (n)
			viol(t, V_MMAP, "a read-only view of slab %u kept across its owner's exit showed the next owner (%zu words)",
			     q.slot, n);
	}
	if (got >= 0)
		stale_release(&b);
	munmap(view, NEURON_NDS_SIZE);
	return 1;
out_a:
	stale_release(&a);
	return 0;
}

/*
 * ---- data across processes, the holders' walk, names in the log -------------
 *
 * Three operations with a judge each, run by workers' threads (not by
 * their forked children, which do not own the worker's files):
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
 *
 * fdtable-walk (at most FDTABLE_RUNS times a run): a process whose
 * FDTABLE_THREADS threads share a file table of FDTABLE_SLOTS slots (its
 * main thread has a copy of its own); a prober process (not killed with
 * its worker) calls CORE_HOLDERS of a held NeuronCore (one it takes when
 * it can) with a thread spinning on its CPU. A walk that keeps that
 * thread off the CPU for 500 ms without the caller being switched out,
 * twice in a row, did not schedule ("sched"; walk_kept_cpu()).
 *
 * forged-name: a process whose name starts with a newline and "FORGED="
 * holds a NeuronCore, which is taken back from it; the kernel's record of
 * the take-back must show the name escaped as the driver documents (every
 * byte outside '!'..'~', and the backslash, as \xHH), never a raw control
 * byte ("log"). Only as root (TAKE_BACK needs CAP_SYS_ADMIN).
 */

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

static int op_devmem_cross(struct ts *t)
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
		goto out_unmap;		/* revoked by a removal or reset meanwhile */

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
			if (r != (ssize_t)bytes && !(r < 0 && e == EFAULT))
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

struct fdtable_arg {
	uint32_t slots, threads;
};

static void *fdtable_idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* One timed CORE_HOLDERS. */
struct walk_time {
	uint64_t dur, gap;	/* ns: the call, the longest the spinning thread was kept off */
	long switches;		/* the caller's context switches during the call */
	uint32_t state;		/* the NeuronCore's, as the call returned it */
};


/*
 * CORE_HOLDERS on NeuronCore @nc of @fd with a thread spinning on this
 * thread's CPU: 0 with *@w, or -1 with errno (-2: no measurement could be
 * set up).
 */
static int holders_timed(int fd, uint32_t nc, struct walk_time *w)
{
	struct neuron_core_holders h = { .size = sizeof(h), .nc = nc };
	struct vt_ticker tk = { 0 };
	cpu_set_t old, one;
	long sw0, sw1;
	uint64_t t0;
	pthread_t th;
	int cpu = sched_getcpu(), r, e;

	if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return -2;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
		return -2;
	if (pthread_create(&th, NULL, vt_ticker_main, &tk)) {
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
		return -2;
	}
	pthread_setaffinity_np(th, sizeof(one), &one);
	while (!atomic_load(&tk.running))
		sched_yield();
	sw0 = vt_thread_switches();
	t0 = vt_now_ns();
	r = ioctl(fd, NEURON_IOCTL_CORE_HOLDERS, &h);
	e = errno;
	w->dur = vt_now_ns() - t0;
	sw1 = vt_thread_switches();
	atomic_store(&tk.stop, 1);
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	w->gap = tk.max_gap;
	w->switches = sw0 < 0 || sw1 < 0 ? -1 : sw1 - sw0;
	w->state = h.state;
	errno = e;
	return r ? -1 : (sw0 < 0 || sw1 < 0 ? -2 : 0);
}

#define FDTABLE_RUNS	8
#define FDTABLE_SLOTS	(1U << 19)
#define FDTABLE_THREADS	256

/*
 * A walk that did not schedule: it kept the spinning thread off its CPU
 * for 500 ms while the caller was switched out at most twice (once is
 * the return from a call that held the CPU: the scheduler then gives the
 * spinning thread about as long again). One scan of a 2^19-slot table
 * takes a few ms under TCG (a few times that with KASAN); a scan per
 * thread of 256 threads over a second. A walk that schedules, even one
 * made slow by everything else the fuzzer runs (6.1: the spinning thread
 * kept off up to 216 ms), is switched out at every slice the spinning
 * thread waits for.
 */
static int walk_kept_cpu(const struct walk_time *w)
{
	return w->gap >= 500000000ull && w->switches <= 2;
}

/*
 * The walked process: a file table grown to @slots slots, shared by
 * @threads threads, while the main thread has a copy of its own
 * (unshare(CLONE_FILES)): a walk that skips only the threads sharing their
 * leader's table scans this one once per thread. Says 'r', then holds
 * until released.
 */
static void fdtable_main(void *arg, int rfd, int hfd)
{
	const struct fdtable_arg *a = arg;
	struct rlimit rl = { a->slots, a->slots };
	pthread_attr_t at;
	pthread_t th;
	uint32_t i;
	char c = 'r';

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	if (setrlimit(RLIMIT_NOFILE, &rl) || dup2(rfd, (int)a->slots - 1) < 0)
		c = 'n';
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 << 10);
	for (i = 0; c == 'r' && i < a->threads; i++)
		if (pthread_create(&th, &at, fdtable_idle, NULL))
			break;
	if (c == 'r' && unshare(CLONE_FILES))
		c = 'n';
	if (write(rfd, &c, 1) != 1)
		_exit(0);
	while (read(hfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * The prober (a process of its own, not killed with its worker, so that a
 * walk that keeps the CPU for seconds is still judged): its own file of
 * device @d, a free NeuronCore of it taken where there is one (else one
 * another holds), the walked process beside it, CORE_HOLDERS timed.
 */
static void fdtable_probe(struct ts *t, int d)
{
	struct neuron_core_reserve cr = { .size = sizeof(cr) };
	struct fdtable_arg a = { FDTABLE_SLOTS, FDTABLE_THREADS };
	struct walk_time w1, w2;
	struct stale_proc c;
	uint64_t prev;
	uint32_t nc;
	int fd, r;

	syscall(SYS_close_range, 3U, ~0U, 0U);
	fd = open_index(g_dev_index[d], O_RDWR);
	if (fd < 0 || helper_spawn(&c, fdtable_main, &a))
		_exit(0);
	if (helper_word(&c) != 'r') {
		stale_release(&c);
		_exit(0);
	}
	nc = below(t, g_nc[d]);
	for (cr.nc = 0; cr.nc < g_nc[d]; cr.nc++)
		if (!ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr)) {
			nc = cr.nc;
			break;
		}
	r = holders_timed(fd, nc, &w1);
	if (r == -1) {
		judged(V_IOCTL);
		if (errno != ENODEV)
			viol(t, V_IOCTL, "CORE_HOLDERS beside a %u-thread process: %s", a.threads, ename(errno));
	} else if (r == 0 && w1.state == NEURON_CORE_HELD) {
		judged(V_SCHED);
		atomic_fetch_add(&sh->fdtable_walks, 1);
		for (prev = atomic_load(&sh->fdtable_gap_max); w1.gap > prev;)
			if (atomic_compare_exchange_weak(&sh->fdtable_gap_max, &prev, w1.gap))
				break;
		/*
		 * Twice in a row: a host that stalled the guest does not
		 * repeat itself. A device removed meanwhile (such a walk
		 * takes seconds) leaves the first measurement to judge.
		 */
		w2 = w1;
		r = walk_kept_cpu(&w1) ? holders_timed(fd, nc, &w2) : 0;
		if (r == -1 && errno == ENODEV)
			w2 = w1;
		if (walk_kept_cpu(&w1) && r != -2 && walk_kept_cpu(&w2))
			viol(t, V_SCHED, "CORE_HOLDERS beside %u threads sharing a %u-slot file table kept its CPU %" PRIu64 " ms (%ld switches), then %" PRIu64 " ms (%ld) of %" PRIu64 " ms",
			     a.threads, a.slots, w1.gap / 1000000, w1.switches, w2.gap / 1000000,
			     w2.switches, w2.dur / 1000000);
	}
	stale_release(&c);
	_exit(0);
}

static int op_fdtable_walk(struct ts *t)
{
	int d = below(t, g_ndev), st;
	pid_t p;

	/*
	 * FDTABLE_RUNS walks timed a run (each costs a second or two of a
	 * CPU), in at most 4 x FDTABLE_RUNS tries (a removed device ends one)
	 */
	if (g_base[d] < 0 || atomic_load(&sh->fdtable_walks) >= FDTABLE_RUNS ||
	    atomic_fetch_add(&sh->fdtable_runs, 1) >= 4 * FDTABLE_RUNS)
		return 0;
	p = fork();
	if (p < 0)
		return 0;
	if (p == 0) {
		g_in_child = 1;
		fdtable_probe(t, d);
	}
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	judged(V_DEATH);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		viol(t, V_DEATH, "the walk's prober %d ended with %s %d", (int)p,
		     WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	return 1;
}

/* ---- the vendor's ABI ---------------------------------------------------- */

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
static int op_vendor(struct ts *t)
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

#define FORGED_TOKEN	"FORGED="

struct forged_arg {
	int d;
	char name[16];
};

/* A holder named @name: its own file of device @d, the first free NeuronCore */
static void forged_main(void *arg, int rfd, int hfd)
{
	const struct forged_arg *a = arg;
	struct neuron_core_reserve cr = { .size = sizeof(cr) };
	char c = 'n';
	uint8_t nc = 0;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	prctl(PR_SET_NAME, a->name);
	fd = open_index(g_dev_index[a->d], O_RDWR);
	for (cr.nc = 0; fd >= 0 && cr.nc < g_nc[a->d]; cr.nc++)
		if (!ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr)) {
			c = 'r';
			nc = (uint8_t)cr.nc;
			break;
		}
	if (write(rfd, &c, 1) != 1 || (c == 'r' && write(rfd, &nc, 1) != 1))
		_exit(0);
	while (read(hfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * The driver's escape (every byte outside '!'..'~', and the backslash, as
 * \xHH), then /dev/kmsg's own (a backslash as \x5c) on top.
 */
static void kmsg_form(char *out, size_t cap, const char *name)
{
	const unsigned char *s;
	size_t n = 0;

	for (s = (const unsigned char *)name; *s && n + 9 < cap; s++) {
		if (*s < '!' || *s > '~' || *s == '\\')
			n += (size_t)snprintf(out + n, cap - n, "\\x5cx%02x", *s);
		else
			out[n++] = (char)*s;
	}
	out[n] = 0;
}

static int op_forged_name(struct ts *t)
{
	static const char odd[] = { '\n', '\r', '\t', 0x1b, '\\', '%', 0x7f, (char)0x80, (char)0xff, ' ', 'a' };
	struct neuron_core_reserve cr = { .size = sizeof(cr) };
	char want[160], rec[8192], head[64];
	int d = below(t, g_ndev), fd = g_base[d], kmsg, found = 0, ok = 0;
	struct forged_arg a = { .d = d };
	struct stale_proc hp;
	size_t n, i;
	uint8_t nc;
	ssize_t r;

	if (fd < 0 || geteuid() != 0)
		return 0;
	snprintf(a.name, sizeof(a.name), "\n" FORGED_TOKEN);
	for (n = strlen(a.name), i = below(t, 8); i && n < 15; i--)
		a.name[n++] = odd[below(t, sizeof(odd))];
	a.name[n] = 0;
	if (helper_spawn(&hp, forged_main, &a))
		return 0;
	if (helper_word(&hp) != 'r' || read(hp.rd, &nc, 1) != 1)
		goto out;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0 && lseek(kmsg, 0, SEEK_END) < 0) {
		close(kmsg);
		kmsg = -1;
	}
	cr.nc = nc;
	r = ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, &cr);
	judged(V_IOCTL);
	if (r && errno != ENODEV) {
		viol(t, V_IOCTL, "CORE_TAKE_BACK of a held NeuronCore %u: %s", nc, ename(errno));
	} else if (!r) {
		ok = 1;
		/* the record says "taken back from pid <pid> (<name>) by ..." */
		snprintf(head, sizeof(head), "taken back from pid %d (", (int)hp.pid);
		kmsg_form(want, sizeof(want), a.name);
		while (kmsg >= 0 && !found) {
			r = read(kmsg, rec, sizeof(rec) - 1);
			if (r < 0 && errno == EPIPE)
				continue;	/* records were overwritten: read on */
			if (r <= 0)
				break;
			rec[r] = 0;
			found = strstr(rec, head) != NULL;
		}
		if (found) {
			judged(V_LOG);
			if (strncmp(strstr(rec, head) + strlen(head), want, strlen(want)) ||
			    strstr(rec, head)[strlen(head) + strlen(want)] != ')')
				viol(t, V_LOG, "a holder's name logged unescaped: \"%.80s\"", strstr(rec, head));
		}
	}
	if (kmsg >= 0)
		close(kmsg);
out:
	stale_release(&hp);
	return ok;
}

static int op_fork(struct ts *t)
{
	pid_t p = fork();
	int st;

	if (p < 0)
		return 0;
	if (p == 0)
		child_main(t);
	atomic_fetch_add(&sh->forks, 1);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	judged(V_DEATH);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)) {
		viol(t, V_DEATH, "forked child %d ended with %s %d", (int)p,
		     WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	return 1;
}

static void *thread_main(void *arg)
{
	struct ts *t = arg;
	int i;

	while (claim()) {
		t->opno++;
		run_op(t, pick_kind(t, 1));
	}
	for (i = 0; i < t->nmp; i++)
		munmap(t->mp[i].addr, t->mp[i].len);
	for (i = 0; i < NFD; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	if (t->nl >= 0)
		close(t->nl);
	return NULL;
}

static struct ts *new_ts(int tidx)
{
	struct ts *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *pages;
	int i;

	if (t == MAP_FAILED)
		return NULL;
	pages = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return NULL;
	/* [straddle RW][PROT_NONE][read-only][PROT_NONE] */
	mprotect(pages + PAGE, PAGE, PROT_NONE);
	mprotect(pages + 3 * PAGE, PAGE, PROT_NONE);
	t->straddle = pages;
	t->none = pages + PAGE;
	t->ro = pages + 2 * PAGE;
	t->tidx = tidx;
	t->rng = mix(mix(mix(g_seed, (uint64_t)g_widx + 1), (uint64_t)g_gen + 1), (uint64_t)tidx + 1);
	for (i = 0; i < NFD; i++)
		t->fd[i] = -1;
	t->nl = -1;
	return t;
}

static void rescan(void);

static int worker_main(void)
{
	pthread_t th[MAXT];
	pthread_attr_t at;
	int d, i, n = 0;

	uint64_t t0 = now_us();

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	install_fault_guard();
	/*
	 * The devices and files are the parent's list, rescanned by the
	 * parent after each removal or re-add (removal_step). A worker used
	 * to rescan at its start: 1.5 s of sysfs walking under TCG, against
	 * a SIGKILL every few hundred ms, so most workers died scanning.
	 */
	for (d = 0; d < g_ndev; d++) {
		g_base[d] = open_index(g_dev_index[d], O_RDWR);
		if (g_base[d] < 0 && !g_removal)
			return 3;
		atomic_store(&g_own_slot[d], -1);
	}
	atomic_fetch_add(&sh->start_us, now_us() - t0);
	atomic_fetch_add(&sh->starts, 1);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 << 10);
	for (i = 0; i < g_threads; i++) {
		struct ts *t = new_ts(i);

		if (!t || pthread_create(&th[i], &at, thread_main, t))
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return n == g_threads ? 0 : 4;
}

/* ---- the environment --------------------------------------------------------- */

static const char *pool_add(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (g_pool_used + n > sizeof(g_pool))
		return NULL;
	p = g_pool + g_pool_used;
	memcpy(p, s, n);
	g_pool_used += n;
	return p;
}

static unsigned int g_warn_excluded;

static int knob_known(const char *b)
{
	static const char *const k[] = { "tpb_error", "hw_error", "nq_flood", "hang", "ecc", "fault",
					  "slow_ms", "api_version", "posted", "post_now" };
	static const char *const ro[] = { "armed", "stats", "sim_stats", "last_seq", "posted_blobs",
					  "post_times", "post_tick" };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(b, k[i]))
			return 1;
	for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
		if (!strcmp(b, ro[i]))
			return 0;
	return -1;
}

static void walk(const char *dir, int cls, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((de = readdir(dp))) {
		const char *p, *b;
		mode_t mode;
		int known;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		/*
		 * sysfs, debugfs and the parameters fill d_type; an lstat()
		 * of each file makes the kernel build its inode, which under
		 * TCG and KASAN made a scan take seconds
		 */
		mode = de->d_type == DT_DIR ? S_IFDIR : de->d_type == DT_REG ? S_IFREG :
		       de->d_type == DT_UNKNOWN ? 0 : S_IFLNK;
		if (!mode) {
			if (lstat(path, &st))
				continue;
			mode = st.st_mode & S_IFMT;
		}
		if (S_ISLNK(mode))
			continue;
		if (S_ISDIR(mode)) {
			if (depth < 12)
				walk(path, cls, depth + 1);
			continue;
		}
		if (!S_ISREG(mode) || g_nfiles >= MAXFILES)
			continue;
		if ((g_rm_path && !strcmp(path, g_rm_path)) || (g_add_path && !strcmp(path, g_add_path)))
			continue;
		/* raises a kernel warning on purpose (the harness self-test) */
		if (cls == F_DEBUGFS && !strcmp(de->d_name, "warn")) {
			g_warn_excluded++;
			continue;
		}
		p = pool_add(path);
		if (!p)
			break;
		b = strrchr(p, '/') + 1;
		known = cls == F_DEBUGFS ? knob_known(b) : 1;
		if (known < 0)
			g_debugfs_unknown++;
		g_files[g_nfiles] = (struct fentry){ p, b, (uint8_t)cls, (uint8_t)(known > 0) };
		g_cls_idx[cls][g_cls_n[cls]++] = g_nfiles++;
	}
	closedir(dp);
}

static int scan_devices(int *idx, uint32_t *nc, int max)
{
	struct neuron_info info;
	struct dirent *de;
	DIR *dp = opendir("/dev");
	int n = 0, v, i, j;

	if (!dp)
		return 0;
	while ((de = readdir(dp)) && n < max) {
		char extra;

		if (sscanf(de->d_name, "neuron%d%c", &v, &extra) == 1)
			idx[n++] = v;
	}
	closedir(dp);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			v = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = v;
		}
	for (i = 0; i < n; i++) {
		int fd = open_index(idx[i], O_RDWR);

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		nc[i] = 0;
		if (fd >= 0 && ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0)
			nc[i] = info.nc_count;
		if (fd >= 0)
			close(fd);
	}
	return n;
}

/* The devices and files now: with removal, what the worker's parent saw may be gone. */
static void rescan(void)
{
	int idx[MAXDEV], n = scan_devices(idx, g_nc, MAXDEV), i, k = 0;
	uint32_t nc[MAXDEV];

	memcpy(nc, g_nc, sizeof(nc));
	/* a device caught in the middle of its removal did not answer: leave it out */
	for (i = 0; i < n; i++)
		if (nc[i] && nc[i] <= MAXNC) {
			g_dev_index[k] = idx[i];
			g_nc[k++] = nc[i];
		}
	if (k)
		g_ndev = k;
	g_nfiles = 0;
	g_pool_used = 0;
	memset(g_cls_n, 0, sizeof(g_cls_n));
	g_debugfs_unknown = g_warn_excluded = 0;
	walk("/sys/devices/virtual/neuron_device", F_SYSFS, 0);
	walk("/sys/kernel/debug/neuron", F_DEBUGFS, 0);
	walk("/sys/module/neuron/parameters", F_PARAM, 0);
}

static void detect_removal(void)
{
	static const char *const cand[][2] = {
		{ "/sys/bus/neuron_sim/del_device", "/sys/bus/neuron_sim/new_device" },
		{ "/sys/kernel/debug/neuron/del_device", "/sys/kernel/debug/neuron/new_device" },
	};
	const char *rm = getenv("VM_HOSTILE_DEL"), *add = getenv("VM_HOSTILE_ADD");
	size_t i;

	if (rm && add && !access(rm, W_OK) && !access(add, W_OK)) {
		g_rm_path = rm;
		g_add_path = add;
	}
	for (i = 0; !g_rm_path && i < sizeof(cand) / sizeof(cand[0]); i++)
		if (!access(cand[i][0], W_OK) && !access(cand[i][1], W_OK)) {
			g_rm_path = cand[i][0];
			g_add_path = cand[i][1];
		}
	g_removal = g_rm_path != NULL;
}

/* ---- the parent: workers, kills, removal, watchdog ---------------------------- */

struct wslot {
	pid_t pid;
	int gen;
	int done;
};

static struct wslot g_w[MAXW];
static uint64_t g_kills, g_respawns, g_orphans, g_removals, g_readds, g_removal_errors;
static uint64_t g_kill_us, g_removal_us, g_rescan_us;	/* the parent's time in these */

/* the parent's rescan after a removal or re-add, timed */
static void parent_rescan(void)
{
	uint64_t t0 = now_us();

	rescan();
	g_rescan_us += now_us() - t0;
}
static double g_elapsed;
static uint64_t g_ctl_rng;

static uint32_t ctl_below(uint32_t n) { return n ? (uint32_t)(splitmix(&g_ctl_rng) % n) : 0; }

static pid_t spawn_worker(int i)
{
	pid_t p = fork();

	if (p == 0) {
		g_widx = i;
		g_gen = g_w[i].gen;
		setpriority(PRIO_PROCESS, 0, 0);	/* the parent's boost is not theirs */
		_exit(worker_main());
	}
	g_w[i].pid = p > 0 ? p : 0;
	atomic_store(&sh->worker_pid[i], p > 0 ? p : 0);
	return p;
}

static void dump_stacks(pid_t pid)
{
	char path[64], buf[4096];
	struct dirent *de;
	DIR *dp;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dp = opendir(path);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		char p2[300];
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p2, sizeof(p2), "/proc/%d/task/%s/stack", (int)pid, de->d_name);
		fd = open(p2, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			printf("hostile: kernel stack of %d/%s:\n%s", (int)pid, de->d_name, buf);
		}
	}
	closedir(dp);
}

/* A process ended: a worker (finished, or died: respawned) or an orphaned child. */
static void ended(pid_t p, int st)
{
	int i, ok_end = (WIFEXITED(st) && WEXITSTATUS(st) == 0);

	for (i = 0; i < g_procs; i++) {
		if (g_w[i].pid != p)
			continue;
		g_w[i].pid = 0;
		atomic_store(&sh->worker_pid[i], 0);
		judged(V_DEATH);
		if (ok_end) {
			g_w[i].done = 1;
			return;
		}
		viol(NULL, V_DEATH, "worker %d generation %d ended with %s %d (not by the fuzzer)", i,
		     g_w[i].gen, WIFSIGNALED(st) ? "signal" : "status",
		     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		if (atomic_load(&sh->issued) < g_ops) {
			g_w[i].gen++;
			g_respawns++;
			spawn_worker(i);
		} else {
			g_w[i].done = 1;
		}
		return;
	}
	/* a worker's child, reparented to us when its worker was killed */
	g_orphans++;
	judged(V_DEATH);
	if (!ok_end && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
		viol(NULL, V_DEATH, "orphaned child %d ended with %s %d", (int)p,
		     WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/*
 * The simulator's ids (/sys/bus/neuron_sim/devices/neuron_sim<ID>), not the
 * N of /dev/neuron<N>: a device added again gets the lowest free N, a new
 * one while files of the removed device are open. With another interface
 * (VM_HOSTILE_DEL/ADD) the ids are the /dev indexes found at the start.
 */
static int sim_ids(int *ids, uint32_t *nc, int max)
{
	struct dirent *de;
	DIR *dp = opendir("/sys/bus/neuron_sim/devices");
	int n = 0, id, i;

	if (!dp) {
		for (i = 0; i < g_ndev && i < max; i++) {
			ids[i] = g_dev_index[i];
			nc[i] = g_nc[i];
		}
		return i;
	}
	while ((de = readdir(dp)) && n < max) {
		char path[300], buf[16];
		int fd;
		ssize_t r;

		if (sscanf(de->d_name, "neuron_sim%d", &id) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/neuron_sim/devices/%s/nc_count", de->d_name);
		fd = open(path, O_RDONLY);
		r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf[r > 0 ? r : 0] = 0;
		ids[n] = id;
		nc[n++] = (uint32_t)atoi(buf);
	}
	closedir(dp);
	return n;
}

static void removal_step(int *removed, uint32_t *removed_nc)
{
	int ids[MAXDEV], n;
	uint32_t nc[MAXDEV];
	char buf[32];

	if (*removed >= 0) {
		if (ctl_below(1000) < 300) {
			snprintf(buf, sizeof(buf), "%d %u\n", *removed, *removed_nc);
			if (write_str(g_add_path, buf)) {
				g_removal_errors++;
			} else {
				g_readds++;
				parent_rescan();	/* workers forked from now on fuzz it */
			}
			*removed = -1;
		}
		return;
	}
	if (ctl_below(1000) >= 50)
		return;
	n = sim_ids(ids, nc, MAXDEV);
	if (n < 2)	/* keep one device to fuzz */
		return;
	n = (int)ctl_below((uint32_t)n);
	snprintf(buf, sizeof(buf), "%d\n", ids[n]);
	if (write_str(g_rm_path, buf)) {
		g_removal_errors++;
		return;
	}
	g_removals++;
	*removed = ids[n];
	*removed_nc = nc[n];
	parent_rescan();
}

static void run_fuzz(void)
{
	uint64_t t0 = vt_now_ms(), last = t0, seen = ~0ULL;
	int i, st, live, removed = -1;
	uint32_t removed_nc = 0;
	char buf[32];
	pid_t p;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/*
	 * The parent kills, removes and rescans on its own clock; at the
	 * workers' priority it got one share in 13 of two vCPUs, and a
	 * rescan after a removal took 8 s on the debug kernel, without a
	 * kill meanwhile. (Root in the guest; harmless if refused.)
	 */
	setpriority(PRIO_PROCESS, 0, -10);
	for (i = 0; i < g_procs; i++)
		spawn_worker(i);
	for (;;) {
		uint64_t is = atomic_load(&sh->issued), progress = is, k;

		for (k = 0; k < K_MAX; k++)
			progress += atomic_load(&sh->done[k]);
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			ended(p, st);
		for (live = 0, i = 0; i < g_procs; i++)
			live += g_w[i].pid > 0;
		if (!live && is >= g_ops)
			break;
		if (progress != seen) {
			seen = progress;
			last = vt_now_ms();
		} else if (vt_now_ms() - last > 60000) {
			printf("hostile: no progress for 60 s at %" PRIu64 " operations issued: a hang\n", is);
			for (i = 0; i < g_procs; i++)
				if (g_w[i].pid > 0)
					dump_stacks(g_w[i].pid);
			viol(NULL, V_HANG, "no operation completed for 60 s (%" PRIu64 " issued)", is);
			for (i = 0; i < g_procs; i++)
				if (g_w[i].pid > 0)
					kill(g_w[i].pid, SIGKILL);
			break;
		}
		if (is >= g_ops) {
			vt_pace_ms(10);
			continue;
		}
		/* SIGKILL a worker at a random point and start it again */
		if (ctl_below(1000) < 350) {
			i = (int)ctl_below(g_procs);
			if (g_w[i].pid > 0) {
				pid_t wp = g_w[i].pid;
				uint64_t k0 = now_us();

				kill(wp, SIGKILL);
				while (waitpid(wp, &st, 0) < 0 && errno == EINTR)
					;
				g_kill_us += now_us() - k0;
				g_w[i].pid = 0;
				atomic_store(&sh->worker_pid[i], 0);
				if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
					g_w[i].done = 1;
				} else {
					g_kills++;
					if (atomic_load(&sh->issued) < g_ops) {
						g_w[i].gen++;
						g_respawns++;
						spawn_worker(i);
					} else {
						g_w[i].done = 1;
					}
				}
			}
		}
		if (g_removal) {
			uint64_t r0 = now_us();

			removal_step(&removed, &removed_nc);
			g_removal_us += now_us() - r0;
		}
		vt_pace_ms(5 + ctl_below(35));
	}
	snprintf(buf, sizeof(buf), "%d %u\n", removed, removed_nc);
	if (removed >= 0 && !write_str(g_add_path, buf))
		g_readds++;
	/* orphans still finishing their few operations */
	for (last = vt_now_ms(); vt_now_ms() - last < 30000;) {
		p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			ended(p, st);
			continue;
		}
		if (p < 0 && errno == ECHILD)
			break;
		vt_pace_ms(10);
	}
	g_elapsed = (double)(vt_now_ms() - t0) / 1000.0;
}

static void report(void)
{
	uint64_t total = 0, k;
	uint32_t i, n;

	for (k = 0; k < K_MAX; k++)
		total += atomic_load(&sh->done[k]);
	printf("hostile: %" PRIu64 " operations done (%" PRIu64 " issued) in %.1f s, %.0f/s\n", total,
	       atomic_load(&sh->issued) < g_ops ? atomic_load(&sh->issued) : g_ops, g_elapsed,
	       g_elapsed > 0 ? (double)total / g_elapsed : 0.0);
	for (k = 0; k < K_MAX; k++)
		printf("hostile:   %-16s %8" PRIu64 "  (started %" PRIu64 ", succeeded %" PRIu64 ", %" PRIu64
		       " us each, %.1f s in all)\n", kind_name[k], atomic_load(&sh->done[k]),
		       atomic_load(&sh->started[k]), atomic_load(&sh->ok[k]),
		       atomic_load(&sh->usec[k]) / (atomic_load(&sh->done[k]) ? atomic_load(&sh->done[k]) : 1),
		       (double)atomic_load(&sh->usec[k]) / 1e6);
	printf("hostile: workers SIGKILLed %" PRIu64 ", respawned %" PRIu64 ", children forked %" PRIu64
	       " (self-SIGKILL %" PRIu64 "), orphans reaped %" PRIu64 "\n", g_kills, g_respawns,
	       atomic_load(&sh->forks), atomic_load(&sh->child_selfkill), g_orphans);
	printf("hostile: time: %" PRIu64 " worker start-ups %.1f s, kill to reaped %.1f s, removal steps %.1f s (rescans %.1f s)\n",
	       atomic_load(&sh->starts), (double)atomic_load(&sh->start_us) / 1e6, (double)g_kill_us / 1e6,
	       (double)g_removal_us / 1e6, (double)g_rescan_us / 1e6);
	if (g_removal)
		printf("hostile: device removal via %s / %s: %" PRIu64 " removed, %" PRIu64 " re-added, %" PRIu64 " errors\n",
		       g_rm_path, g_add_path, g_removals, g_readds, g_removal_errors);
	else
		printf("hostile: device removal: SKIPPED, no run-time add/remove interface "
		       "(looked for /sys/bus/neuron_sim/{del,new}_device, /sys/kernel/debug/neuron/{del,new}_device, "
		       "$VM_HOSTILE_DEL/$VM_HOSTILE_ADD)\n");
	printf("hostile: devmem-cross: %" PRIu64 " next owners, %" PRIu64 " of them on the freed granule; fdtable-walk: %" PRIu64 " walks timed, the spinning thread kept off its CPU %" PRIu64 " ms at most\n",
	       atomic_load(&sh->devmem_next), atomic_load(&sh->devmem_same), atomic_load(&sh->fdtable_walks),
	       atomic_load(&sh->fdtable_gap_max) / 1000000);
	for (k = 0; k < V_MAX; k++)
		printf("hostile: contract %-6s judged %8" PRIu64 "  violations %" PRIu64 "\n", vclass_name[k],
		       atomic_load(&sh->checked[k]), atomic_load(&sh->viol[k]));
	n = atomic_load(&sh->nmsg);
	for (i = 0; i < n && i < NMSG; i++)
		printf("hostile: VIOLATION %s\n", sh->msg[i]);
	if (n > NMSG)
		printf("hostile: ... and %u more\n", n - NMSG);
	printf("hostile: replay: vm_hostile --seed 0x%016" PRIx64 " --ops %" PRIu64 " --procs %d --threads %d\n",
	       g_seed, g_ops, g_procs, g_threads);
	fflush(stdout);
}

/* ---- the cases --------------------------------------------------------------- */

static int c_fuzz_ran(void)
{
	uint64_t k;

	run_fuzz();
	report();
	VT_ASSERT(atomic_load(&sh->issued) >= g_ops, "only %llu of %llu operations were issued",
		  (unsigned long long)atomic_load(&sh->issued), (unsigned long long)g_ops);
	/*
	 * Started, not done: a worker is SIGKILLed at random, and one kind
	 * (fdtable-walk) waits seconds for a prober that outlives its worker,
	 * so with 10000 operations it may never be done by a worker alive.
	 */
	for (k = 0; k < K_MAX; k++)
		VT_ASSERT(!g_kind_on[k] || atomic_load(&sh->started[k]) > 0, "operation kind %s never started",
			  kind_name[k]);
	VT_ASSERT(g_kills > 0, "no worker was SIGKILLed");
	return 0;
}

static int c_no_deaths(void)
{
	VT_ASSERT(atomic_load(&sh->viol[V_HANG]) == 0, "an operation hung (see above)");
	VT_ASSERT(atomic_load(&sh->viol[V_DEATH]) == 0, "%llu processes died other than by SIGKILL",
		  (unsigned long long)atomic_load(&sh->viol[V_DEATH]));
	return 0;
}

/* No violation of contract class @cls: what was judged is @what */
static int no_violation(int cls, const char *what)
{
	VT_ASSERT(atomic_load(&sh->viol[cls]) == 0, "%llu of %llu %s",
		  (unsigned long long)atomic_load(&sh->viol[cls]),
		  (unsigned long long)atomic_load(&sh->checked[cls]), what);
	return 0;
}

static int c_ioctl(void) { return no_violation(V_IOCTL, "judged ioctls broke the documented contract"); }
static int c_mmap(void) { return no_violation(V_MMAP, "judged mappings broke the contract"); }
static int c_cross(void) { return no_violation(V_CROSS, "judged reads showed another process's data"); }
static int c_sched(void) { return no_violation(V_SCHED, "judged walks kept their CPU"); }
static int c_log(void) { return no_violation(V_LOG, "judged log records held a raw control byte"); }
static int c_genl(void) { return no_violation(V_GENL, "judged requests broke the contract"); }

static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, off = 0;

	if (fd < 0)
		return -1;
	while (off < (ssize_t)len - 1 && (n = read(fd, buf + off, len - 1 - (size_t)off)) > 0)
		off += n;
	close(fd);
	buf[off] = 0;
	return 0;
}

static int c_devices_after(void)
{
	int idx[MAXDEV], n, i;
	uint32_t nc[MAXDEV];
	char path[128], buf[4096], *l;

	n = scan_devices(idx, nc, MAXDEV);
	VT_ASSERT(n == g_ndev || g_removal, "%d devices after the fuzz, %d before", n, g_ndev);
	for (i = 0; i < n; i++) {
		int lines = 0;

		VT_ASSERT(nc[i] > 0, "neuron%d does not answer GET_INFO", idx[i]);
		snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%d/inject/armed", idx[i]);
		VT_ASSERT(read_line(path, buf, sizeof(buf)) == 0, "read %s", path);
		for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
			VT_ASSERT(strstr(l, " owner 0 "), "neuron%d: a NeuronCore is still reserved: %s", idx[i], l);
			lines++;
		}
		VT_ASSERT(lines == (int)nc[i], "neuron%d: %d armed lines for %u NeuronCores", idx[i], lines, nc[i]);
	}
	return 0;
}

static uint64_t success_total(int dev)
{
	char path[160], buf[64];

	snprintf(path, sizeof(path),
		 "/sys/devices/virtual/neuron_device/neuron%d/neuron_core0/stats/status/success/total", dev);
	if (read_line(path, buf, sizeof(buf)))
		return UINT64_MAX;
	return strtoull(buf, NULL, 10);
}

struct holder_arg {
	int dev;
	uint64_t delta;
};

static int holder(struct vt_child *c, void *arg)
{
	struct holder_arg *h = arg;
	struct neuron_nds_acquire q;
	struct neuron_nds_counter_add a;
	int fd, i;

	/* the earlier holders' pipes would keep them from seeing EOF */
	for (i = 3; i < 1024; i++)
		if (i != c->ready_fd && i != c->hold_fd)
			close(i);
	alarm(120);
	fd = open_index(h->dev, O_RDWR);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.id = NDS_NC_COUNTER_INFER_COMPLETED;
	a.delta = h->delta;
	if (ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
		return 2;
	return vt_child_hold(c) ? 3 : 0;
}

static int c_slabs_after(void)
{
	int idx[MAXDEV], n, i, k, started;
	uint32_t nc[MAXDEV];
	struct vt_child ch[NEURON_NDS_PER_DEVICE];
	struct holder_arg ha[NEURON_NDS_PER_DEVICE];
	struct neuron_nds_acquire q;

	n = scan_devices(idx, nc, MAXDEV);
	for (i = 0; i < n; i++) {
		uint64_t before = success_total(idx[i]), after;
		int fd, r, e, okall = 1;

		for (started = 0, k = 0; k < NEURON_NDS_PER_DEVICE; k++) {
			ha[k] = (struct holder_arg){ idx[i], (uint64_t)k + 1 };
			if (vt_child_start(&ch[k], holder, &ha[k]) == 0)
				started++;
			else
				okall = 0;
		}
		fd = open_index(idx[i], O_RDWR);
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		errno = 0;
		r = fd >= 0 ? ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) : -1;
		e = errno;
		if (fd >= 0)
			close(fd);
		for (k = 0; k < NEURON_NDS_PER_DEVICE; k++)
			if (!vt_child_finish(&ch[k]))
				okall = 0;
		VT_ASSERT(started == NEURON_NDS_PER_DEVICE,
			  "neuron%d: only %d of 16 processes got a slab and counted: slabs still held after the fuzz",
			  idx[i], started);
		VT_ASSERT(okall, "neuron%d: a slab holder failed", idx[i]);
		VT_ASSERT(r == -1 && e == ENOSPC, "neuron%d: a 17th slab: %d/%s, expected ENOSPC", idx[i], r,
			  strerror(e));
		after = success_total(idx[i]);
		VT_ASSERT(after - before == 136, "neuron%d: success moved by %llu, counted 136", idx[i],
			  (unsigned long long)(after - before));
	}
	return 0;
}

static int c_dump_after(void)
{
	int fd = nlraw_open(), idx[MAXDEV], n, i, err;
	unsigned int msgs, want = 0;
	uint32_t nc[MAXDEV];
	struct timeval tv = { 10, 0 };
	static struct nlraw_msg m;

	VT_ASSERT(fd >= 0, "netlink socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = scan_devices(idx, nc, MAXDEV);
	for (i = 0; i < n; i++)
		want += nc[i];
	nlraw_init(&m, g_family, NLM_F_REQUEST | NLM_F_DUMP, 77, NEURON_GENL_CMD_COUNTERS_GET, 1);
	VT_ASSERT(nlraw_send(fd, &m, m.len) == 0, "send");
	err = nlraw_collect(fd, 77, 1, &msgs);
	close(fd);
	VT_ASSERT(err == 0 && msgs == want, "dump: error %d, %u messages for %u NeuronCores", err, msgs, want);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		{ "fuzz-ran-all-ops", c_fuzz_ran },
		{ "no-unexpected-deaths-or-hangs", c_no_deaths },
		{ "ioctl-contract", c_ioctl },
		{ "mmap-contract", c_mmap },
		{ "genl-contract", c_genl },
		{ "no-data-crosses-processes", c_cross },
		{ "holders-walk-schedules", c_sched },
		{ "logged-names-escaped", c_log },
		{ "devices-answer-no-core-reserved", c_devices_after },
		{ "all-slabs-free-and-counting-exact", c_slabs_after },
		{ "counters-dump-complete", c_dump_after },
	};
	int i, wsum, have_seed = 0, fd;
	uint64_t ops = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0, wsum = 0; i < K_MAX; i++)
		wsum += kind_weight[i];
	if (wsum != 1000) {
		fprintf(stderr, "vm_hostile: the kind weights add up to %d, not 1000\n", wsum);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			g_seed = strtoull(argv[++i], NULL, 0);
			have_seed = 1;
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			ops = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--procs") && i + 1 < argc) {
			g_procs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			g_threads = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--long")) {
			g_long = 1;
		} else if (!strcmp(argv[i], "--kinds") && i + 1 < argc) {
			char *list = argv[++i], *tok;
			int k, any = 0;

			for (k = 0; k < K_MAX; k++)
				g_kind_on[k] = 0;
			for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
				for (k = 0; k < K_MAX && strcmp(tok, kind_name[k]); k++)
					;
				if (k == K_MAX) {
					fprintf(stderr, "vm_hostile: unknown kind '%s'\n", tok);
					return 2;
				}
				g_kind_on[k] = any = 1;
			}
			if (!any)
				return 2;
		} else {
			fprintf(stderr, "usage: vm_hostile [--seed N] [--ops N] [--procs N] [--threads N] [--long]\n"
					"                  [--kinds kind,kind,...]\n");
			return 2;
		}
	}
	if (g_procs < 1 || g_procs > MAXW || g_threads < 1 || g_threads > MAXT) {
		fprintf(stderr, "vm_hostile: --procs 1..%d, --threads 1..%d\n", MAXW, MAXT);
		return 2;
	}
	if (!have_seed) {
		fd = open("/dev/urandom", O_RDONLY);
		if (fd < 0 || read(fd, &g_seed, sizeof(g_seed)) != sizeof(g_seed))
			g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		if (fd >= 0)
			close(fd);
	}
	/* CI size: 200000 on a kmemleak (debug) kernel, 50000 elsewhere; --long: 5e6 */
	g_ops = ops ? ops : g_long ? 5000000 : !access("/sys/kernel/debug/kmemleak", F_OK) ? 200000 : 50000;
	g_ctl_rng = mix(g_seed, 0xC0A7);
	printf("hostile: seed 0x%016" PRIx64 " ops %" PRIu64 " procs %d threads %d%s\n", g_seed, g_ops, g_procs,
	       g_threads, g_long ? " (long)" : "");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	detect_removal();
	g_ndev = scan_devices(g_dev_index, g_nc, MAXDEV);
	for (i = 0; i < g_ndev; i++)
		if (!g_nc[i] || g_nc[i] > MAXNC) {
			printf("hostile: neuron%d: GET_INFO failed or nc_count %u\n", g_dev_index[i], g_nc[i]);
			return 1;
		}
	if (!g_ndev) {
		printf("hostile: no /dev/neuron* (load the module with sim_devices=N)\n");
		return 1;
	}
	walk("/sys/devices/virtual/neuron_device", F_SYSFS, 0);
	walk("/sys/kernel/debug/neuron", F_DEBUGFS, 0);
	walk("/sys/module/neuron/parameters", F_PARAM, 0);
	fd = nlraw_open();
	if (fd >= 0) {
		if (nlraw_resolve(fd, NEURON_GENL_FAMILY_NAME, NEURON_GENL_MCGRP_ERRORS, &g_family, &g_errors_grp))
			g_family = 0;
		close(fd);
	}
	printf("hostile: %d devices, %d sysfs files, %d debugfs files (%u read-only to the fuzzer as unknown, %u warn excluded), %d parameters, genl family %u group %u\n",
	       g_ndev, g_cls_n[F_SYSFS], g_cls_n[F_DEBUGFS], g_debugfs_unknown, g_warn_excluded,
	       g_cls_n[F_PARAM], g_family, g_errors_grp);
	if (!g_family) {
		printf("hostile: generic netlink family \"neuron\" not found\n");
		return 1;
	}
	return vt_run("hostile", cases, VT_COUNT(cases));
}
