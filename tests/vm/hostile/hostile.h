/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Guest vm_hostile (tests/vm/60_hostile.sh, main.c): what its files share:
 * the operation kinds and contract classes, the shared-memory counters, the
 * configuration and environment, a worker's and a thread's state, and the
 * functions one file calls in another.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

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

extern const char *const kind_name[K_MAX];
/* weights, per mille (they add up to 1000) */
extern const unsigned int kind_weight[K_MAX];
/* --kinds: only these operation kinds (to narrow a failure down) */
extern int g_kind_on[K_MAX];

enum vclass { V_IOCTL, V_MMAP, V_GENL, V_DEATH, V_HANG, V_CROSS, V_SCHED, V_LOG, V_MAX };
extern const char *const vclass_name[V_MAX];

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

extern struct shared *sh;

/* ---- configuration and the environment (set before any fork) ------------ */

extern uint64_t g_seed, g_ops;
extern int g_procs, g_threads, g_long;
extern int g_ndev;
extern int g_dev_index[MAXDEV];
extern uint32_t g_nc[MAXDEV];
extern uint16_t g_family;
extern uint32_t g_errors_grp;
extern const char *g_rm_path, *g_add_path;	/* device removal interface */
extern int g_removal;

enum fclass { F_SYSFS, F_DEBUGFS, F_PARAM };
struct fentry {
	const char *path;
	const char *base;
	uint8_t cls;
	uint8_t writable_known;	/* debugfs: a knob whose input format we know */
};
extern struct fentry g_files[MAXFILES];
extern int g_nfiles;
extern int g_cls_idx[3][MAXFILES];
extern int g_cls_n[3];
extern unsigned int g_debugfs_unknown, g_warn_excluded;

/* ---- per-process state of a worker -------------------------------------- */

#define MAXNC		8
#define RING_WORDS	((MAXNC * NQ_PER_NC + 63) / 64)

extern int g_widx, g_gen;
extern int g_in_child;				/* a child a worker thread forked */
extern int g_base[MAXDEV];			/* never closed while the worker runs */
extern _Atomic int g_own_slot[MAXDEV];		/* this process's slab, -1 unknown */
extern _Atomic uint64_t g_own_ring[MAXDEV][RING_WORDS];	/* rings it ever created */
/*
 * Odd while a call that may give this process a slab or a ring is in
 * flight (and until its answer is recorded): a mapping made meanwhile
 * cannot be judged for write access.
 */
extern _Atomic uint64_t g_own_epoch;

/* ---- random numbers: splitmix64 ----------------------------------------- */

static inline uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static inline uint64_t mix(uint64_t a, uint64_t b)
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
	struct neuron_nds_read ndsr;
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

static inline uint64_t rnd(struct ts *t) { return splitmix(&t->rng); }
static inline uint32_t below(struct ts *t, uint32_t n) { return n ? (uint32_t)(rnd(t) % n) : 0; }
static inline int chance(struct ts *t, unsigned int permille) { return below(t, 1000) < permille; }

/* ---- the ioctl commands (fuzz_ioctl.c) and the bad pointers ---------------- */

enum cmd { C_INFO, C_ACQ, C_ADD, C_NQI, C_NQR, C_CRES, C_CREL, C_EXEC, C_FWR, C_PP,
	   C_MODEL, C_MALLOC, C_MFREE, C_MREAD, C_MWRITE, C_MSET, C_APPS, C_HOLDERS, C_TAKEBACK,
	   C_MDMABUF, C_NDSREAD, C_MAX };

enum ptrk { P_NULL, P_LOW, P_KERNEL, P_NONCANON, P_NONE, P_STRADDLE, P_RO, P_MISALIGNED, P_DEVMAP,
	    P_MAX };

/* ---- a helper process (stale.c) ---------------------------------------------- */

struct stale_proc {
	pid_t pid;
	int rd, hold;
};

/* ---- the parent's counters (parent.c) --------------------------------------- */

extern uint64_t g_kills, g_respawns, g_orphans, g_removals, g_readds, g_removal_errors;
extern uint64_t g_kill_us, g_removal_us, g_rescan_us;	/* the parent's time in these */
extern double g_elapsed;
extern uint64_t g_ctl_rng;

/* ---- common.c ---------------------------------------------------------------- */

void viol(struct ts *t, int cls, const char *fmt, ...);
void judged(int cls);
int errno_documented(int e);
const char *ename(int e);
uint64_t now_us(void);
extern __thread sigjmp_buf t_jb;
extern __thread volatile sig_atomic_t t_guard;
void install_fault_guard(void);
int open_index(int n, int flags);
int pick_fd(struct ts *t, int *dev, int *own);
void add_cookie(struct ts *t, uint64_t off, uint64_t len, int dev);

/* ---- the operations (fuzz_*.c, stale.c, devmem.c, fdtable.c, forged.c) ------- */

uint32_t ring_size_valid(struct ts *t);
uint64_t pick_u64(struct ts *t);
long do_ioctl(int fd, unsigned long cmd, void *arg, int *e);
void epoch_begin(int c);
void epoch_end(int c);
void *bad_pointer(struct ts *t, int k, const union arg *a, size_t size);
int op_ioctl_valid(struct ts *t);
int op_ioctl_mutated(struct ts *t);
int op_ioctl_badptr(struct ts *t);
int op_ioctl_random(struct ts *t);
int op_mmap(struct ts *t);
int op_munmap(struct ts *t);
int op_mremap(struct ts *t);
int op_mprotect(struct ts *t);
int op_madvise(struct ts *t);
int op_touch(struct ts *t);
int op_openclose(struct ts *t);
int op_file_read(struct ts *t, int cls);
int op_file_write(struct ts *t, int cls);
int op_genl(struct ts *t);
int op_genl_mcast(struct ts *t);
int op_vendor(struct ts *t);
void stale_keep_fds(int a, int b);
int helper_spawn(struct stale_proc *sp, void (*fn)(void *, int, int), void *arg);
char helper_word(struct stale_proc *sp);
void stale_release(struct stale_proc *sp);
int op_stale_view(struct ts *t);
int op_devmem_cross(struct ts *t);
int op_fdtable_walk(struct ts *t);
int op_forged_name(struct ts *t);
int worker_main(void);

/* ---- the environment, removal, the parent, the report ---------------------- */

void walk(const char *dir, int cls, int depth);
int scan_devices(int *idx, uint32_t *nc, int max);
void rescan(void);
void detect_removal(void);
int write_str(const char *path, const char *s);
void removal_step(int *removed, uint32_t *removed_nc);
void parent_rescan(void);
uint32_t ctl_below(uint32_t n);
void run_fuzz(void);
void report(void);

#endif /* HOSTILE_H */
