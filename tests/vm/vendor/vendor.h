/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Guest vm_vendor (tests/vm/45_vendor.sh, main.c): what its files share:
 * the vendor's ABI (vnd_abi.h), the simulated devices' shape, the small
 * helpers, running a case or a sub-check in a process of its own, the
 * agents, and the cases main() runs.
 */
#ifndef VENDOR_H
#define VENDOR_H

#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>

#include "vmdev.h"
#include "vnd_abi.h"

#define NDEV		2	/* sim_devices */
#define NC_COUNT	4	/* sim_nc_per_device */
#define ARCH_V2		2	/* what a simulated device reports */
#define NOBODY		65534

/* ---- small helpers (common.c) ------------------------------------------- */

long xioctl(int fd, unsigned long cmd, void *arg);
int open_dev(int dev, int flags);

/* static: the C library has an err() of its own */
static inline const char *err(long r)
{
	return r < 0 ? strerror((int)-r) : r ? "a positive return" : "success";
}

int all_bytes(const void *p, size_t n, unsigned char v);
uint64_t nc_off(uint32_t nc, uint32_t id);
void *no_access_page(void);
uint32_t own_nc_map(int dev, pid_t pid);
long vnd_apps(int fd, unsigned int flags, unsigned int capacity, struct vnd_apps_buf *b);

/*
 * The kernel has the dma-buf API (DMABUF_KERNEL=1 from tests/vm/45_vendor.sh,
 * which sees /sys/kernel/debug/dma_buf): DMABUF_FD works, DRIVER_INFO
 * reports the feature. Debian's 5.10 cloud kernel has none.
 */
static inline int vnd_kernel_dmabuf(void)
{
	const char *v = getenv("DMABUF_KERNEL");

	return !v || strcmp(v, "0");
}

/* ---- every case in a process of its own (main.c) ------------------------ */

/*
 * vmtest.h gives each file a vt_msg of its own: a case's process, and a
 * sub-check's, report the one of the file the case's code is in.
 */
int run_isolated(int (*body)(void), char *body_msg);

#define ISOLATED(name)                                      \
	int name(void)                                      \
	{                                                   \
		return run_isolated(name##_body, vt_msg);   \
	}

/* why the last run_sub() failed */
extern char sub_why[512];
int run_sub_msg(int (*fn)(void *), void *arg, char *fn_msg);

/* Run @fn(@arg) in a forked child of the case: 0, or -1 with sub_why set. */
static inline int run_sub(int (*fn)(void *), void *arg)
{
	return run_sub_msg(fn, arg, vt_msg);
}


/* ---- agents: other processes, each with its own opens of the devices ------ */

#define AG_SLOTS	4
#define AG_ARG_MAX	1024

enum ag_op { AG_OPEN, AG_CLOSE, AG_IOCTL, AG_MMAP, AG_PEEK, AG_POKE, AG_EXIT };

struct ag_req {
	int op;
	int slot;		/* fd slot */
	int mslot;		/* mapping slot */
	int dev, flags, prot;
	unsigned long cmd;
	uint64_t off, val, len;
	unsigned char arg[AG_ARG_MAX];
};

struct ag_resp {
	long ret;		/* >= 0, or -errno */
	uint64_t val;
	unsigned char arg[AG_ARG_MAX];
};

struct agent {
	const char *name;	/* for the messages */
	pid_t pid;
	int req, resp;		/* the parent's ends */
};

int ag_start(struct agent *a, const char *name);
long ag_open(struct agent *a, int slot, int dev, int flags);
long ag_close(struct agent *a, int slot);
long ag_ioctl(struct agent *a, int slot, unsigned long cmd, void *arg, size_t len);
long ag_mmap(struct agent *a, int slot, int mslot, uint64_t len, int prot, uint64_t off);
long ag_peek(struct agent *a, int mslot, uint64_t off, uint64_t *v);
long ag_poke(struct agent *a, int mslot, uint64_t off, uint64_t v);
int ag_exit(struct agent *a);
int ag_kill(struct agent *a);

/* ---- range marks through an agent (agent.c) ------------------------------ */

void map_init(struct vnd_nc_map *m, uint32_t count, uint32_t start, uint32_t end);
long ag_mark(struct agent *a, int slot, uint32_t count, uint32_t start, uint32_t end,
	     struct vnd_nc_map *m);
long ag_unmark(struct agent *a, int slot, uint64_t bitmap);
long ag_core(struct agent *a, int slot, unsigned long cmd, uint32_t nc);

/* Mark @count of @start..@end and expect exactly @bitmap. */
#define MARK_OK(a, slot, count, start, end, want)                                      \
	do {                                                                           \
		struct vnd_nc_map m_;                                                  \
		long r_ = ag_mark(a, slot, count, start, end, &m_);                    \
		VT_ASSERT(r_ == 0 && m_.bitmap == (want),                              \
			  "%s: mark %u of %u..%u: %s, bitmap %#llx, expected %#llx",   \
			  (a)->name, (unsigned)(count), (unsigned)(start),             \
			  (unsigned)(end), err(r_), (unsigned long long)m_.bitmap,     \
			  (unsigned long long)(want));                                 \
	} while (0)

/* Mark @count of @start..@end and expect -EBUSY with max_nc_available @max. */
#define MARK_BUSY(a, slot, count, start, end, max)                                     \
	do {                                                                           \
		struct vnd_nc_map m_;                                                  \
		long r_ = ag_mark(a, slot, count, start, end, &m_);                    \
		VT_ASSERT(r_ == -EBUSY && m_.max_nc_available == (max),                \
			  "%s: mark %u of %u..%u: %s (bitmap %#llx), "                 \
			  "max_nc_available %u, expected EBUSY with %u", (a)->name,    \
			  (unsigned)(count), (unsigned)(start), (unsigned)(end),       \
			  err(r_), (unsigned long long)m_.bitmap, m_.max_nc_available, \
			  (unsigned)(max));                                            \
	} while (0)

/* ---- notification rings (nq.c), the resets' too ------------------------- */

#define NQ_ERROR	3	/* nq_type ERROR: where a job's errors go (engine 0) */
#define NQ_HDR_PHASE	0x80
#define NQ_HDR_TYPE	0x1f
#define NQ_TPB_ERROR	0x1f	/* notific_type of a TPB error entry */

void nq_v2(struct vnd_nq_init_v2 *a, uint32_t nc, uint32_t type, uint32_t engine,
	   uint32_t size);
long sim_job(int fd, uint32_t nc, uint32_t *written, uint32_t *dropped);

/* ---- the cases, in the order main() runs them ----------------------------- */

int commands_answered_on_any_fd(void);
int basic_info_arch_revision(void);
int device_info_zeroed(void);
int host_device_id_is_index(void);
int compatible_version(void);
int driver_info_get(void);
int driver_info_encodings(void);
int dmabuf_fd_needs_a_mapping(void);
int bdf_unsupported_on_simulated(void);
int ready_and_reset_status(void);
int retired_commands(void);
int unknown_commands_enotty(void);
int bad_pointer_efault(void);
int range_mark_sequence(void);
int range_mark_bounds(void);
int range_mark_ext0(void);
int range_mark_first_fit_no_skip(void);
int range_mark_own_and_per_device(void);
int cross_mark_and_reserve_exclude(void);
int cross_release_either_way(void);
int cross_apps_info_agree(void);
int marks_end_at_exit_rdwr(void);
int marks_end_at_exit_wronly(void);
int marks_end_at_last_close(void);
int inherited_fd_refused(void);
int nds_same_slab_both_abis(void);
int nds_counters_cross(void);
int nds_monitor_lookup(void);
int nds_release_folds(void);
int hw_counters_match_fw_read(void);
int hw_counters_count_bounds(void);
int hw_counters_unprivileged(void);
int post_metric(void);
int app_pid_oldest_opener(void);
int all_apps_info_list(void);
int all_apps_info_host_memory(void);
int nq_v2_ring_entries(void);
int nq_init_refusals(void);
int nq_one_table(void);
int nq_realloc_replaces(void);
int nc_reset_held_core(void);
int nc_reset_refusals(void);
int nc_reset_revives_core(void);
int device_reset_alone(void);

#endif /* VENDOR_H */
