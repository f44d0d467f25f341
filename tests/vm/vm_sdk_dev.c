// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the device half of the SDK calls of docs/sdk-compat.md:
 * device tensor slices (reads, writes, memset, nrt_execute through them,
 * freeing the source first), a device tensor's address (nrt_tensor_get_va),
 * nrt_tensor_attach_buffer on a device tensor,
 * NeuronCore ownership across processes (the SDK's default: nrt_init()
 * reserves every NeuronCore; NEURON_RT_VISIBLE_CORES and
 * NEURON_RT_NUM_CORES), relative NeuronCore indexes, nrt_load's vnc_count
 * and nrt_load_collectives.
 *
 *   vm_sdk_dev NEFF_DIR     (25_app.sh packs affine, empty and nc2 there)
 *
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=4 (global
 * NeuronCores 0-7, four per device) and no other process using it.
 *
 * Other processes are this program run again as a "holder" (exec'd, so
 * each has a runtime of its own): it calls nrt_init() with the environment
 * it was given, reports the status and its visible count on a pipe, and
 * keeps what it took until the parent says so (pipes, never sleeps). What a
 * process holds is what the driver lists for it (NEURON_IOCTL_APPS_INFO's
 * nc_map, what neuron-ls prints); where a model runs is the NeuronCore
 * whose sysfs success counter its execution moves.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#include "vmdev.h"

#define NC_PER_DEV 4
#define WORDS 16	/* the affine model's 64-byte input and output */

static const char *neff_dir = ".";

#define EXPECT(call, want)                                                       \
	do {                                                                     \
		NRT_STATUS s_ = (call);                                          \
		VT_ASSERT(s_ == (want), "%s: %s (%u), expected %s", #call,       \
			  nrt_get_status_as_str(s_), (unsigned)s_,               \
			  nrt_get_status_as_str(want));                          \
	} while (0)

/* ---- helpers ------------------------------------------------------------ */

static void *neff_read(const char *name, size_t *size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s.neff", neff_dir, name);
	return vt_slurp(path, size);
}

/* nrt_load_collectives of NEFF @name (worker @id of @count); 0xdead: no file. */
static NRT_STATUS load_c(const char *name, int vnc, int vnc_count, uint32_t id, uint32_t count,
			 nrt_model_t **m)
{
	size_t size = 0;
	void *b = neff_read(name, &size);
	NRT_STATUS st;

	*m = NULL;
	if (!b)
		return (NRT_STATUS)0xdead;
	st = nrt_load_collectives(b, size, vnc, vnc_count, id, count, m);
	free(b);
	return st;
}

static NRT_STATUS load(const char *name, int vnc, int vnc_count, nrt_model_t **m)
{
	size_t size = 0;
	void *b = neff_read(name, &size);
	NRT_STATUS st;

	*m = NULL;
	if (!b)
		return (NRT_STATUS)0xdead;
	st = nrt_load(b, size, vnc, vnc_count, m);
	free(b);
	return st;
}

static void reap_holders(void);

/*
 * A fresh runtime in this process, and no holder left over (a failed case
 * may have left either).
 */
static NRT_STATUS fresh_init(void)
{
	reap_holders();
	nrt_close();
	return nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
}

/* The NeuronCores (bit per core) device @dev lists for @pid: 0 when not listed. */
static uint32_t nc_map(int dev, pid_t pid)
{
	struct neuron_apps_info a;
	uint32_t start = 0, i, map = 0;
	int fd = vt_open_dev(dev);

	if (fd < 0)
		return 0xdeadbeef;
	do {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = start;
		if (ioctl(fd, NEURON_IOCTL_APPS_INFO, &a)) {
			map = 0xdeadbeef;
			break;
		}
		for (i = 0; i < a.count; i++)
			if (a.app[i].pid == pid)
				map |= a.app[i].nc_map;
		start += a.count;
	} while (a.count && start < a.total);
	close(fd);
	return map;
}

/* What @pid holds on each device, as one number: device 1's cores from bit 4. */
static uint32_t held(pid_t pid)
{
	return nc_map(0, pid) | nc_map(1, pid) << NC_PER_DEV;
}

/* Bytes of device memory for tensors in use now on global NeuronCore @g. */
static uint64_t tensor_bytes(int g)
{
	char p[160];

	snprintf(p, sizeof(p), VT_SYSFS_DEV "/neuron_core%d/stats/memory_usage/device_mem/tensors/total",
		 g / NC_PER_DEV, g % NC_PER_DEV);
	return vt_u64(p);
}

/* Executions that succeeded on global NeuronCore @g (sysfs). */
static uint64_t successes(int g)
{
	return vt_status_total(g / NC_PER_DEV, g % NC_PER_DEV, "success");
}

/* Affine inputs for run @seed: distinct words, the last one wrapping. */
static void affine_input(uint32_t *w, uint32_t seed)
{
	int i;

	for (i = 0; i < WORDS; i++)
		w[i] = (uint32_t)i * 1000u + seed;
	w[WORDS - 1] = 0xffffffffu - seed;
}

/* 0 when @out is the affine model's output (3x + 7) of @in; -1 with vt_msg. */
static int affine_check(const uint32_t *in, const uint32_t *out)
{
	int i;

	for (i = 0; i < WORDS; i++)
		if (out[i] != in[i] * 3u + 7u) {
			vt_fail_msg(__FILE__, __LINE__, "word %d: %u, expected %u", i, out[i],
				    in[i] * 3u + 7u);
			return -1;
		}
	return 0;
}

/* Execute @m with @in as "in" and @out as "out". */
static NRT_STATUS run_io(nrt_model_t *m, nrt_tensor_t *in, nrt_tensor_t *out)
{
	nrt_tensor_set_t *is = NULL, *os = NULL;
	NRT_STATUS st = nrt_allocate_tensor_set(&is);

	if (st == NRT_SUCCESS)
		st = nrt_allocate_tensor_set(&os);
	if (st == NRT_SUCCESS)
		st = nrt_add_tensor_to_tensor_set(is, "in", in);
	if (st == NRT_SUCCESS)
		st = nrt_add_tensor_to_tensor_set(os, "out", out);
	if (st == NRT_SUCCESS)
		st = nrt_execute(m, is, os);
	nrt_destroy_tensor_set(&is);
	nrt_destroy_tensor_set(&os);
	return st;
}

/* Run the affine model @m on host tensors and check every output word. */
static int run_affine_host(nrt_model_t *m, uint32_t seed)
{
	nrt_tensor_t *in = NULL, *out = NULL;
	uint32_t w[WORDS], r[WORDS];

	affine_input(w, seed);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, sizeof(w), "in", &in), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, sizeof(r), "out", &out), NRT_SUCCESS);
	EXPECT(nrt_tensor_write(in, w, 0, sizeof(w)), NRT_SUCCESS);
	EXPECT(run_io(m, in, out), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(out, r, 0, sizeof(r)), NRT_SUCCESS);
	nrt_tensor_free(&in);
	nrt_tensor_free(&out);
	return affine_check(w, r) ? 1 : 0;
}

/* ---- holders: other processes, this program exec'd --------------------- */

struct holder {
	pid_t pid;
	int rd;		/* the holder's reports */
	int wr;		/* commands; closing it lets the holder go */
	int32_t st;	/* what its nrt_init() returned */
	uint32_t visible;	/* its visible NeuronCore count after that */
};

struct holder_report {
	int32_t st;
	uint32_t visible;
};

/*
 * Holders still running: a case that failed half-way leaves some, and the
 * next case lets them go first (reap_holders), so one failure does not
 * make the cases after it fail too.
 */
#define MAX_LIVE 16
static struct holder live[MAX_LIVE];

static void live_add(const struct holder *h)
{
	int i;

	for (i = 0; i < MAX_LIVE; i++)
		if (!live[i].pid) {
			live[i] = *h;
			return;
		}
}

static void live_drop(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live[i].pid == pid)
			live[i].pid = 0;
}

static void reap_holders(void)
{
	int i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live[i].pid) {
			close(live[i].wr);
			close(live[i].rd);
			waitpid(live[i].pid, NULL, 0);
			live[i].pid = 0;
		}
}

/*
 * The holder process: nrt_init() as its environment says, report, then
 * obey the parent: 'c' closes the runtime (answered with 'd'), EOF ends
 * the process, without nrt_close() when @how is "exit".
 */
static int holder_main(const char *how, int wfd, int rfd)
{
	struct holder_report r = { 0, 0 };
	char ch;

	r.st = (int32_t)nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	if (nrt_get_visible_nc_count(&r.visible) != NRT_SUCCESS)
		r.visible = UINT32_MAX;
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		return 1;
	while (read(rfd, &ch, 1) == 1) {
		if (ch == 'c') {
			nrt_close();
			if (write(wfd, "d", 1) != 1)
				return 1;
		}
	}
	if (strcmp(how, "exit"))
		nrt_close();
	return 0;
}

/*
 * Start a holder with NEURON_RT_VISIBLE_CORES @visible and
 * NEURON_RT_NUM_CORES @num (NULL: unset) and wait for its report. 0, or -1
 * with vt_msg set (it died first).
 */
static int holder_start(struct holder *h, const char *visible, const char *num, const char *how)
{
	int up[2], down[2];
	struct holder_report r;

	/* close-on-exec: a later holder must not keep this one's pipe open */
	if (pipe2(up, O_CLOEXEC) || pipe2(down, O_CLOEXEC)) {
		vt_fail_msg(__FILE__, __LINE__, "pipe: %s", strerror(errno));
		return -1;
	}
	h->pid = fork();
	if (h->pid == 0) {
		char wfd[16], rfd[16];

		close(up[0]);
		close(down[1]);
		/* the two ends the holder keeps survive its exec */
		fcntl(up[1], F_SETFD, 0);
		fcntl(down[0], F_SETFD, 0);
		snprintf(wfd, sizeof(wfd), "%d", up[1]);
		snprintf(rfd, sizeof(rfd), "%d", down[0]);
		if (visible)
			setenv("NEURON_RT_VISIBLE_CORES", visible, 1);
		else
			unsetenv("NEURON_RT_VISIBLE_CORES");
		if (num)
			setenv("NEURON_RT_NUM_CORES", num, 1);
		else
			unsetenv("NEURON_RT_NUM_CORES");
		execl("/proc/self/exe", "vm_sdk_dev", "--holder", how, wfd, rfd, (char *)NULL);
		_exit(127);
	}
	close(up[1]);
	close(down[0]);
	h->rd = up[0];
	h->wr = down[1];
	if (h->pid > 0)
		live_add(h);
	if (h->pid < 0 || read(h->rd, &r, sizeof(r)) != sizeof(r)) {
		vt_fail_msg(__FILE__, __LINE__, "holder (visible %s, num %s) died before its report",
			    visible ? visible : "-", num ? num : "-");
		return -1;
	}
	h->st = r.st;
	h->visible = r.visible;
	return 0;
}

/* Have the holder call nrt_close() and wait until it has: 0 or -1. */
static int holder_close(struct holder *h)
{
	char ch;

	return write(h->wr, "c", 1) == 1 && read(h->rd, &ch, 1) == 1 && ch == 'd' ? 0 : -1;
}

/* Let the holder go and reap it: true when it exited 0. */
static int holder_finish(struct holder *h)
{
	live_drop(h->pid);
	close(h->wr);
	close(h->rd);
	return vt_wait_ok(h->pid);
}

/* A holder that must have got @want from nrt_init() and holds @map. */
#define HOLDER(h, visible, num, how, want, map)                                          \
	do {                                                                             \
		if (holder_start(h, visible, num, how))                                  \
			return 1;                                                        \
		VT_ASSERT((h)->st == (int32_t)(want),                                    \
			  "holder (visible %s, num %s): nrt_init %s, expected %s",       \
			  visible ? visible : "-", num ? (const char *)num : "-",        \
			  nrt_get_status_as_str((NRT_STATUS)(h)->st),                    \
			  nrt_get_status_as_str(want));                                  \
		VT_ASSERT(held((h)->pid) == (map),                                       \
			  "holder (visible %s, num %s) holds %#x, expected %#x",         \
			  visible ? visible : "-", num ? (const char *)num : "-",        \
			  held((h)->pid), (unsigned)(map));                              \
	} while (0)

#define FINISH(h) VT_ASSERT(holder_finish(h), "holder %d did not exit 0", (int)(h)->pid)

/* ---- device tensor slices ----------------------------------------------- */

/* Reads, writes and memset through a slice land at its offset in the source. */
static int device_slice_rw(void)
{
	nrt_tensor_t *p = NULL, *s = NULL, *bad = NULL;
	uint8_t pat[64], got[256], b[16];
	int i;

	EXPECT(fresh_init(), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 256, "p", &p), NRT_SUCCESS);
	EXPECT(nrt_tensor_memset(p, 0, 0, 256), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate_slice(p, 64, 64, "s", &s), NRT_SUCCESS);
	VT_ASSERT(nrt_tensor_get_size(s) == 64, "slice size %zu", nrt_tensor_get_size(s));
	for (i = 0; i < 64; i++)
		pat[i] = (uint8_t)(i + 1);
	/* slice -> source */
	EXPECT(nrt_tensor_write(s, pat, 0, sizeof(pat)), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(p, got, 0, sizeof(got)), NRT_SUCCESS);
	for (i = 0; i < 256; i++)
		VT_ASSERT(got[i] == (i >= 64 && i < 128 ? pat[i - 64] : 0),
			  "source byte %d: %#x after the slice's write", i, got[i]);
	/* source -> slice */
	memset(b, 0xa5, sizeof(b));
	EXPECT(nrt_tensor_write(p, b, 64 + 48, sizeof(b)), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(s, got, 0, 64), NRT_SUCCESS);
	for (i = 0; i < 64; i++)
		VT_ASSERT(got[i] == (i >= 48 ? 0xa5 : pat[i]), "slice byte %d: %#x", i, got[i]);
	/* memset through the slice touches its bytes only */
	EXPECT(nrt_tensor_memset(s, 8, 0x3c, 8), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(p, got, 0, sizeof(got)), NRT_SUCCESS);
	for (i = 0; i < 256; i++) {
		uint8_t want = i < 64 || i >= 128 ? 0 : i >= 72 && i < 80 ? 0x3c :
			       i >= 112 ? 0xa5 : pat[i - 64];

		VT_ASSERT(got[i] == want, "source byte %d: %#x after memset, expected %#x", i,
			  got[i], want);
	}
	/* the slice's own bounds, and the source's */
	EXPECT(nrt_tensor_read(s, got, 60, 8), NRT_INVALID);
	EXPECT(nrt_tensor_allocate_slice(p, 200, 64, "bad", &bad), NRT_INVALID);
	VT_ASSERT(bad == NULL, "slice set on failure");
	nrt_tensor_free(&s);
	nrt_tensor_free(&p);
	nrt_close();
	return 0;
}

/* Slices as nrt_execute's input and output: the bytes come from and land at their offsets. */
static int device_slice_execute(void)
{
	nrt_tensor_t *in = NULL, *out = NULL, *si = NULL, *so = NULL;
	uint32_t w[WORDS], r[64];
	uint8_t *rb = (uint8_t *)r;
	nrt_model_t *m;
	int i;

	EXPECT(fresh_init(), NRT_SUCCESS);
	EXPECT(load("affine", 0, -1, &m), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 256, "in", &in), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 256, "out", &out), NRT_SUCCESS);
	EXPECT(nrt_tensor_memset(in, 0, 0, 256), NRT_SUCCESS);
	EXPECT(nrt_tensor_memset(out, 0, 0xee, 256), NRT_SUCCESS);
	affine_input(w, 11);
	EXPECT(nrt_tensor_write(in, w, 128, sizeof(w)), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate_slice(in, 128, 64, "in", &si), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate_slice(out, 64, 64, "out", &so), NRT_SUCCESS);
	EXPECT(run_io(m, si, so), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(out, r, 0, 256), NRT_SUCCESS);
	for (i = 0; i < 256; i++)
		if (i < 64 || i >= 128)
			VT_ASSERT(rb[i] == 0xee, "output byte %d outside the slice: %#x", i, rb[i]);
	if (affine_check(w, r + 16))
		return 1;
	/* and read back through the slice itself */
	memset(r, 0, sizeof(r));
	EXPECT(nrt_tensor_read(so, r, 0, 64), NRT_SUCCESS);
	if (affine_check(w, r))
		return 1;
	nrt_tensor_free(&si);
	nrt_tensor_free(&so);
	nrt_tensor_free(&in);
	nrt_tensor_free(&out);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	nrt_close();
	return 0;
}

/* Freeing the source first: the slice keeps the HBM, which goes with the last of them. */
static int device_slice_outlives_source(void)
{
	nrt_tensor_t *p = NULL, *s = NULL, *in = NULL;
	uint32_t w[WORDS], r[WORDS], pat[WORDS];
	uint64_t before, with;
	nrt_model_t *m;
	int i;

	EXPECT(fresh_init(), NRT_SUCCESS);
	before = tensor_bytes(0);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 128, "p", &p), NRT_SUCCESS);
	with = tensor_bytes(0);
	VT_ASSERT(with != UINT64_MAX && with >= before + 128, "tensor bytes %llu -> %llu",
		  (unsigned long long)before, (unsigned long long)with);
	EXPECT(nrt_tensor_allocate_slice(p, 64, 64, "out", &s), NRT_SUCCESS);
	for (i = 0; i < WORDS; i++)
		pat[i] = 0x1000u + (uint32_t)i;
	EXPECT(nrt_tensor_write(p, pat, 64, sizeof(pat)), NRT_SUCCESS);
	nrt_tensor_free(&p);
	VT_ASSERT(p == NULL, "handle not cleared");
	VT_ASSERT(tensor_bytes(0) == with, "HBM freed with the source while a slice uses it");
	EXPECT(nrt_tensor_read(s, r, 0, sizeof(r)), NRT_SUCCESS);
	VT_ASSERT(!memcmp(r, pat, sizeof(r)), "slice lost the source's bytes");
	/* still an execution's output */
	EXPECT(load("affine", 0, -1, &m), NRT_SUCCESS);
	affine_input(w, 23);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, sizeof(w), "in", &in), NRT_SUCCESS);
	EXPECT(nrt_tensor_write(in, w, 0, sizeof(w)), NRT_SUCCESS);
	EXPECT(run_io(m, in, s), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(s, r, 0, sizeof(r)), NRT_SUCCESS);
	if (affine_check(w, r))
		return 1;
	nrt_tensor_free(&s);
	VT_ASSERT(tensor_bytes(0) == before, "HBM not freed with the last slice: %llu, expected %llu",
		  (unsigned long long)tensor_bytes(0), (unsigned long long)before);
	nrt_tensor_free(&in);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	nrt_close();
	return 0;
}

/* ---- a device tensor's address -------------------------------------------- */

/* A forked child of the tensor's process: the mapping is not its (NULL). */
static int va_in_child(nrt_tensor_t *t)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(nrt_tensor_get_va(t) == NULL ? 0 : 1);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Whether the page of @p is mapped in this process (msync: ENOMEM when not). */
static int page_mapped(const volatile uint8_t *p)
{
	uintptr_t page = (uintptr_t)p & ~(uintptr_t)4095;

	return msync((void *)page, 4096, MS_ASYNC) == 0 || errno != ENOMEM;
}

/*
 * nrt_tensor_get_va of a device tensor: its bytes in the mapping of its
 * device memory, the same nrt_tensor_read/write see, both ways, and
 * nrt_memcpy_to_device's destination (one allocation only); a slice's
 * at its offset; NULL in a forked child; once the memory is freed (the
 * tensor and its last slice) the address maps nothing.
 */
static int device_tensor_va(void)
{
	nrt_tensor_t *t = NULL, *s = NULL;
	uint32_t w[WORDS], r[WORDS];
	volatile uint8_t *va;
	uint8_t *sva;
	unsigned int i;

	EXPECT(fresh_init(), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 4096, "t", &t), NRT_SUCCESS);
	va = nrt_tensor_get_va(t);
	VT_ASSERT(va != NULL, "no address for a device tensor");
	for (i = 0; i < WORDS; i++)
		w[i] = 0x5a000000u + i;
	EXPECT(nrt_tensor_write(t, w, 64, sizeof(w)), NRT_SUCCESS);
	VT_ASSERT(!memcmp((const void *)(va + 64), w, sizeof(w)), "written bytes not at the address");
	for (i = 0; i < WORDS; i++)
		((volatile uint32_t *)(va + 1024))[i] = 0xc3000000u + i;
	EXPECT(nrt_tensor_read(t, r, 1024, sizeof(r)), NRT_SUCCESS);
	for (i = 0; i < WORDS; i++)
		VT_ASSERT(r[i] == 0xc3000000u + i, "word %u read %#x, stored through the address", i,
			  r[i]);
	/* nrt_memcpy_to_device: into the mapping, within one allocation only */
	for (i = 0; i < WORDS; i++)
		w[i] = 0x77000000u + i;
	EXPECT(nrt_memcpy_to_device((uint8_t *)va + 2048, w, sizeof(w)), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(t, r, 2048, sizeof(r)), NRT_SUCCESS);
	VT_ASSERT(!memcmp(r, w, sizeof(w)), "nrt_memcpy_to_device's bytes not in the tensor");
	EXPECT(nrt_memcpy_to_device((uint8_t *)va + 4092, w, 8), NRT_INVALID);
	EXPECT(nrt_memcpy_to_device((uint8_t *)va + 4096, w, 1), NRT_INVALID);
	EXPECT(nrt_memcpy_to_device(r, w, sizeof(w)), NRT_INVALID);	/* host memory */
	EXPECT(nrt_memcpy_to_device(NULL, w, 4), NRT_INVALID);
	EXPECT(nrt_memcpy_to_device((uint8_t *)va, NULL, 4), NRT_INVALID);
	EXPECT(nrt_memcpy_to_device((uint8_t *)va, (const void *)16, 4), NRT_INVALID);
	EXPECT(nrt_memcpy_to_device((uint8_t *)va, w, 0), NRT_SUCCESS);
	VT_ASSERT(va[0] == 0, "a refused copy wrote");
	EXPECT(nrt_tensor_allocate_slice(t, 1024, 512, "s", &s), NRT_SUCCESS);
	sva = nrt_tensor_get_va(s);
	VT_ASSERT(sva == (const uint8_t *)va + 1024, "slice at %p, expected %p", (void *)sva,
		  (void *)(va + 1024));
	VT_ASSERT(va_in_child(t), "a forked child got an address");
	VT_ASSERT(page_mapped(va), "the tensor's address is not mapped");
	/* the slice keeps the memory: the address stays valid */
	nrt_tensor_free(&t);
	VT_ASSERT(sva[0] == 0x00 && ((volatile uint32_t *)sva)[1] == 0xc3000001u,
		  "the slice's bytes after the source's free");
	nrt_tensor_free(&s);
	VT_ASSERT(!page_mapped(va), "the freed tensor's memory is still mapped at its address");
	EXPECT(nrt_memcpy_to_device((uint8_t *)va, w, 4), NRT_INVALID);	/* freed: refused */
	nrt_close();
	return 0;
}

/* ---- attach_buffer on a device tensor ------------------------------------ */

static int attach_buffer_device(void)
{
	nrt_tensor_t *t = NULL, *t2 = NULL, *s = NULL, *in = NULL;
	uint32_t buf[WORDS], w[WORDS], v;
	uint8_t small[8];
	uint64_t before;
	nrt_model_t *m;

	EXPECT(fresh_init(), NRT_SUCCESS);
	before = tensor_bytes(1);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 4096, "out", &t), NRT_SUCCESS);
	VT_ASSERT(tensor_bytes(1) >= before + 4096, "no HBM for the device tensor");
	VT_ASSERT(nrt_tensor_get_va(t) != NULL, "a device tensor has no address");
	memset(buf, 0, sizeof(buf));
	EXPECT(nrt_tensor_attach_buffer(t, buf, sizeof(buf)), NRT_SUCCESS);
	/* its HBM is gone, and it is the caller's host buffer now */
	VT_ASSERT(tensor_bytes(1) == before, "HBM not released: %llu bytes, expected %llu",
		  (unsigned long long)tensor_bytes(1), (unsigned long long)before);
	VT_ASSERT(nrt_tensor_get_size(t) == sizeof(buf), "size %zu", nrt_tensor_get_size(t));
	VT_ASSERT(nrt_tensor_get_va(t) == buf, "va %p, expected the buffer %p", nrt_tensor_get_va(t),
		  (void *)buf);
	v = 0xabcd;
	EXPECT(nrt_tensor_write(t, &v, 4, 4), NRT_SUCCESS);
	VT_ASSERT(buf[1] == 0xabcd, "write did not reach the buffer");
	buf[2] = 77;
	EXPECT(nrt_tensor_read(t, &v, 8, 4), NRT_SUCCESS);
	VT_ASSERT(v == 77, "read %u, not the buffer's", v);
	/* an execution's output lands in the caller's buffer */
	EXPECT(load("affine", 1, -1, &m), NRT_SUCCESS);
	affine_input(w, 31);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, sizeof(w), "in", &in), NRT_SUCCESS);
	EXPECT(nrt_tensor_write(in, w, 0, sizeof(w)), NRT_SUCCESS);
	EXPECT(run_io(m, in, t), NRT_SUCCESS);
	if (affine_check(w, buf))
		return 1;
	nrt_tensor_free(&t);
	VT_ASSERT(buf[0] == w[0] * 3u + 7u, "freeing touched the caller's buffer");
	/* a slice of the device tensor keeps its HBM alive past the attach */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 4096, "t2", &t2), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate_slice(t2, 0, 64, "s", &s), NRT_SUCCESS);
	EXPECT(nrt_tensor_attach_buffer(t2, small, sizeof(small)), NRT_SUCCESS);
	VT_ASSERT(tensor_bytes(1) >= before + 4096, "HBM released while a slice uses it");
	v = 0x600d;
	EXPECT(nrt_tensor_write(s, &v, 0, 4), NRT_SUCCESS);
	v = 0;
	EXPECT(nrt_tensor_read(s, &v, 0, 4), NRT_SUCCESS);
	VT_ASSERT(v == 0x600d, "slice read %#x", v);
	nrt_tensor_free(&s);
	VT_ASSERT(tensor_bytes(1) == before, "HBM not released with the slice");
	nrt_tensor_free(&t2);
	nrt_tensor_free(&in);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	nrt_close();
	return 0;
}

/* ---- NEURON_RT_VISIBLE_CORES: ownership and relative indexes ------------ */

static int visible_cores_ownership(void)
{
	struct holder a, b, b2, c, d, e, f;

	reap_holders();
	nrt_close();	/* this process holds nothing */
	HOLDER(&a, "1", NULL, "close", NRT_SUCCESS, 0x2);
	VT_ASSERT(a.visible == 1, "visible count %u", a.visible);
	/* the same core: NRT_RESOURCE, and nothing held */
	HOLDER(&b, "1", NULL, "close", NRT_RESOURCE, 0);
	FINISH(&b);
	/* a run with a taken core: NRT_RESOURCE, and the free one given back */
	HOLDER(&b2, "0-1", NULL, "close", NRT_RESOURCE, 0);
	HOLDER(&c, "0", NULL, "close", NRT_SUCCESS, 0x1);
	FINISH(&c);
	FINISH(&b2);
	/* another core: fine */
	HOLDER(&d, "2", NULL, "close", NRT_SUCCESS, 0x4);
	FINISH(&d);
	/* A's nrt_close() gives it back while A still runs */
	VT_ASSERT(holder_close(&a) == 0, "holder did not close");
	VT_ASSERT(held(a.pid) == 0, "A holds %#x after nrt_close", held(a.pid));
	HOLDER(&e, "1", NULL, "exit", NRT_SUCCESS, 0x2);
	FINISH(&a);
	/* E exits without nrt_close(): the exit gives it back */
	FINISH(&e);
	HOLDER(&f, "1", NULL, "close", NRT_SUCCESS, 0x2);
	FINISH(&f);
	return 0;
}

static int relative_indexes(void)
{
	nrt_tensor_t *t = NULL;
	nrt_model_info_t info;
	nrt_model_t *m, *bad;
	uint64_t ok0, ok2, b1, b3;
	size_t n = 0;
	uint32_t vis = 0;

	setenv("NEURON_RT_VISIBLE_CORES", "2,3", 1);
	EXPECT(fresh_init(), NRT_SUCCESS);
	unsetenv("NEURON_RT_VISIBLE_CORES");
	EXPECT(nrt_get_visible_nc_count(&vis), NRT_SUCCESS);
	VT_ASSERT(vis == 2, "visible %u", vis);
	VT_ASSERT(held(getpid()) == 0xc, "this process holds %#x, expected 0xc", held(getpid()));
	/* vnc 0 is NeuronCore 2: the model's info says 0, the device runs it on 2 */
	EXPECT(load("affine", 0, -1, &m), NRT_SUCCESS);
	memset(&info, 0xff, sizeof(info));
	EXPECT(nrt_get_model_info(m, &info, sizeof(info), &n), NRT_SUCCESS);
	VT_ASSERT(n == sizeof(info) && info.vnc == 0, "model info vnc %u (%zu bytes)", info.vnc, n);
	ok0 = successes(0);
	ok2 = successes(2);
	if (run_affine_host(m, 41))
		return 1;
	VT_ASSERT(successes(2) == ok2 + 1 && successes(0) == ok0,
		  "successes nc0 %llu -> %llu, nc2 %llu -> %llu",
		  (unsigned long long)ok0, (unsigned long long)successes(0),
		  (unsigned long long)ok2, (unsigned long long)successes(2));
	/* a device tensor on vnc 1 is NeuronCore 3's memory */
	b1 = tensor_bytes(1);
	b3 = tensor_bytes(3);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 4096, "t", &t), NRT_SUCCESS);
	VT_ASSERT(tensor_bytes(3) >= b3 + 4096 && tensor_bytes(1) == b1,
		  "tensor memory not on NeuronCore 3");
	nrt_tensor_free(&t);
	/* past the visible set */
	EXPECT(load("empty", 2, -1, &bad), NRT_INVALID);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, 64, "t", &t), NRT_INVALID);
	EXPECT(load("nc2", 1, -1, &bad), NRT_LOAD_NOT_ENOUGH_NC);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	nrt_close();
	VT_ASSERT(held(getpid()) == 0, "still holds %#x after nrt_close", held(getpid()));

	/* a visible set across the device boundary: vnc 1 is device 1's NeuronCore 0 */
	setenv("NEURON_RT_VISIBLE_CORES", "3-4", 1);
	EXPECT(fresh_init(), NRT_SUCCESS);
	unsetenv("NEURON_RT_VISIBLE_CORES");
	EXPECT(load("empty", 1, -1, &m), NRT_SUCCESS);
	EXPECT(nrt_get_model_info(m, &info, sizeof(info), &n), NRT_SUCCESS);
	VT_ASSERT(info.vnc == 1, "model info vnc %u", info.vnc);
	ok0 = successes(4);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_SUCCESS);
	VT_ASSERT(successes(4) == ok0 + 1, "the execution did not run on device 1's NeuronCore 0");
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	nrt_close();
	return 0;
}

/* ---- the default: every NeuronCore, the SDK's ---------------------------- */

/*
 * Without NEURON_RT_VISIBLE_CORES and NEURON_RT_NUM_CORES (or with
 * NEURON_RT_NUM_CORES=0) nrt_init() reserves every NeuronCore present for
 * the process until nrt_close() or exit. A second process without a
 * variable, or naming one of them, gets NRT_RESOURCE and holds nothing,
 * also when only some of them are taken (the ones it got go back).
 */
static int default_reserves_all(void)
{
	struct holder a, b, c, d, e, x, y, z;

	reap_holders();
	nrt_close();	/* this process holds nothing */
	HOLDER(&a, NULL, NULL, "close", NRT_SUCCESS, 0xff);
	VT_ASSERT(a.visible == 8, "visible count %u", a.visible);
	HOLDER(&b, NULL, NULL, "close", NRT_RESOURCE, 0);
	FINISH(&b);
	HOLDER(&c, NULL, "0", "close", NRT_RESOURCE, 0);
	FINISH(&c);
	HOLDER(&d, "5", NULL, "close", NRT_RESOURCE, 0);
	FINISH(&d);
	VT_ASSERT(held(a.pid) == 0xff, "A holds %#x after the refused ones", held(a.pid));
	/* A's nrt_close() gives them all back while A still runs */
	VT_ASSERT(holder_close(&a) == 0, "holder did not close");
	VT_ASSERT(held(a.pid) == 0, "A holds %#x after nrt_close", held(a.pid));
	HOLDER(&e, NULL, NULL, "exit", NRT_SUCCESS, 0xff);
	VT_ASSERT(e.visible == 8, "visible count %u", e.visible);
	FINISH(&a);
	/* E exits without nrt_close(): the exit gives them back */
	FINISH(&e);

	/* one NeuronCore taken: the default gets none of the other seven */
	HOLDER(&x, "7", NULL, "close", NRT_SUCCESS, 0x80);
	HOLDER(&y, NULL, NULL, "close", NRT_RESOURCE, 0);
	FINISH(&y);
	HOLDER(&z, "0-6", NULL, "close", NRT_SUCCESS, 0x7f);
	FINISH(&z);
	FINISH(&x);

	/* this process too (vnc_count_copies: loads and unloads change nothing) */
	EXPECT(fresh_init(), NRT_SUCCESS);
	VT_ASSERT(held(getpid()) == 0xff, "this process holds %#x, expected 0xff", held(getpid()));
	nrt_close();
	VT_ASSERT(held(getpid()) == 0, "still holds %#x after nrt_close", held(getpid()));
	return 0;
}

/* ---- NEURON_RT_NUM_CORES ---------------------------------------------------- */

static int num_cores_reserve(void)
{
	struct holder x, a, b, c, d, e, f, g;
	nrt_model_info_t info;
	uint64_t ok2;
	nrt_model_t *m;
	uint32_t vis = 0;
	size_t n = 0;

	reap_holders();
	nrt_close();
	HOLDER(&x, "1", NULL, "close", NRT_SUCCESS, 0x2);
	/* two free in one run: 0 alone is not a run, so 2-3 */
	HOLDER(&a, NULL, "2", "close", NRT_SUCCESS, 0xc);
	VT_ASSERT(a.visible == 2, "visible %u", a.visible);
	/* three: 4-6 (device 1) */
	HOLDER(&b, NULL, "3", "close", NRT_SUCCESS, 0x70);
	VT_ASSERT(b.visible == 3, "visible %u", b.visible);
	/* two more: 0 and 7 are free but not together */
	HOLDER(&c, NULL, "2", "close", NRT_RESOURCE, 0);
	FINISH(&c);
	HOLDER(&d, NULL, "1", "close", NRT_SUCCESS, 0x1);
	/* more than there are, and malformed */
	HOLDER(&e, NULL, "9", "close", NRT_RESOURCE, 0);
	FINISH(&e);
	HOLDER(&f, NULL, "two", "close", NRT_INVALID, 0);
	FINISH(&f);
	/* NEURON_RT_VISIBLE_CORES takes precedence */
	HOLDER(&g, "7", "3", "close", NRT_SUCCESS, 0x80);
	VT_ASSERT(g.visible == 1, "visible %u", g.visible);
	FINISH(&g);
	FINISH(&d);
	FINISH(&b);
	FINISH(&a);

	/* this process, with 1 still taken: NeuronCores 2-3, vnc 0 is 2 */
	setenv("NEURON_RT_NUM_CORES", "2", 1);
	/* not fresh_init(): X must go on holding 1 */
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
	unsetenv("NEURON_RT_NUM_CORES");
	EXPECT(nrt_get_visible_nc_count(&vis), NRT_SUCCESS);
	VT_ASSERT(vis == 2, "visible %u", vis);
	VT_ASSERT(held(getpid()) == 0xc, "this process holds %#x, expected 0xc", held(getpid()));
	EXPECT(load("empty", 0, -1, &m), NRT_SUCCESS);
	EXPECT(nrt_get_model_info(m, &info, sizeof(info), &n), NRT_SUCCESS);
	VT_ASSERT(info.vnc == 0, "model info vnc %u", info.vnc);
	ok2 = successes(2);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_SUCCESS);
	VT_ASSERT(successes(2) == ok2 + 1, "vnc 0 did not run on NeuronCore 2");
	EXPECT(load("empty", 2, -1, &m), NRT_INVALID);
	nrt_close();
	VT_ASSERT(held(getpid()) == 0, "still holds %#x after nrt_close", held(getpid()));
	FINISH(&x);
	return 0;
}

/* ---- nrt_load's vnc_count, nrt_load_collectives ------------------------- */

/*
 * Without a variable this process holds every NeuronCore from nrt_init()
 * to nrt_close() (the SDK's default), whatever it loads and unloads: where
 * a model runs is the NeuronCore whose success counter its execution moves.
 */
static int vnc_count_copies(void)
{
	struct holder h;
	nrt_model_t *m, *m4, *bad;
	uint32_t count = 0;
	uint64_t ok;

	EXPECT(fresh_init(), NRT_SUCCESS);
	VT_ASSERT(held(getpid()) == 0xff, "this process holds %#x, expected 0xff", held(getpid()));
	/* two copies of the one-NeuronCore model from vnc 4 (device 1) */
	EXPECT(load("affine", 4, 2, &m), NRT_SUCCESS);
	EXPECT(nrt_get_model_vnc_count(m, &count), NRT_SUCCESS);
	VT_ASSERT(count == 2, "model vnc count %u", count);
	ok = successes(4);
	if (run_affine_host(m, 53))
		return 1;
	VT_ASSERT(successes(4) == ok + 1, "the first copy did not run on NeuronCore 4");
	/* another process cannot have the second copy's NeuronCore */
	HOLDER(&h, "5", NULL, "close", NRT_RESOURCE, 0);
	FINISH(&h);
	/* four NeuronCores as two copies of the two-NeuronCore model */
	EXPECT(load("nc2", 0, 4, &m4), NRT_SUCCESS);
	EXPECT(nrt_get_model_vnc_count(m4, &count), NRT_SUCCESS);
	VT_ASSERT(count == 4, "model vnc count %u", count);
	ok = successes(0);
	EXPECT(nrt_execute(m4, NULL, NULL), NRT_SUCCESS);
	VT_ASSERT(successes(0) == ok + 1, "the first copy did not run on NeuronCore 0");
	EXPECT(nrt_unload(m4), NRT_SUCCESS);
	/* not whole copies, zero, below -1; more than the device has from vnc on */
	EXPECT(load("nc2", 0, 3, &bad), NRT_INVALID);
	EXPECT(load("affine", 0, 0, &bad), NRT_INVALID);
	EXPECT(load("affine", 0, -2, &bad), NRT_INVALID);
	EXPECT(load("affine", 6, 4, &bad), NRT_LOAD_NOT_ENOUGH_NC);
	EXPECT(load("affine", 0, 9, &bad), NRT_LOAD_NOT_ENOUGH_NC);
	VT_ASSERT(held(getpid()) == 0xff, "after failed loads this process holds %#x", held(getpid()));
	/* unloading gives nothing back (the SDK's): another process still cannot have them */
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	VT_ASSERT(held(getpid()) == 0xff, "holds %#x after unload, expected 0xff", held(getpid()));
	HOLDER(&h, "4-5", NULL, "close", NRT_RESOURCE, 0);
	FINISH(&h);
	/* nrt_close() does: another process takes them */
	nrt_close();
	VT_ASSERT(held(getpid()) == 0, "still holds %#x after nrt_close", held(getpid()));
	HOLDER(&h, "4-5", NULL, "close", NRT_SUCCESS, 0x30);
	FINISH(&h);
	return 0;
}

static int load_collectives_single(void)
{
	nrt_model_t *m, *bad;
	uint64_t ok;

	EXPECT(fresh_init(), NRT_SUCCESS);
	EXPECT(load_c("affine", 2, -1, 0, 1, &m), NRT_SUCCESS);
	ok = successes(2);
	if (run_affine_host(m, 67))
		return 1;
	VT_ASSERT(successes(2) == ok + 1, "the model did not run on NeuronCore 2");
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	EXPECT(load_c("affine", 2, -1, 0, 0, &bad), NRT_INVALID);	/* no workers */
	EXPECT(load_c("affine", 2, -1, 1, 1, &bad), NRT_INVALID);	/* id past count */
	/* a worker of two with nobody to meet (28_collectives.sh meets them) */
	setenv("NEURON_RT_COLL_TIMEOUT_MS", "100", 1);
	setenv("NEURON_RT_ROOT_COMM_ID", "localhost:7099", 1);
	EXPECT(load_c("affine", 2, -1, 0, 2, &bad), NRT_TIMEOUT);
	EXPECT(load_c("affine", 2, -1, 1, 2, &bad), NRT_TIMEOUT);
	unsetenv("NEURON_RT_COLL_TIMEOUT_MS");
	unsetenv("NEURON_RT_ROOT_COMM_ID");
	VT_ASSERT(bad == NULL, "model set on failure");
	/* every NeuronCore since nrt_init() (the default), the same after all that */
	VT_ASSERT(held(getpid()) == 0xff, "this process holds %#x, expected 0xff", held(getpid()));
	nrt_close();
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(device_slice_rw),
		VT_CASE(device_slice_execute),
		VT_CASE(device_slice_outlives_source),
		VT_CASE(device_tensor_va),
		VT_CASE(attach_buffer_device),
		VT_CASE(default_reserves_all),
		VT_CASE(visible_cores_ownership),
		VT_CASE(relative_indexes),
		VT_CASE(num_cores_reserve),
		VT_CASE(vnc_count_copies),
		VT_CASE(load_collectives_single),
	};

	if (argc == 5 && !strcmp(argv[1], "--holder"))
		return holder_main(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc != 2) {
		fprintf(stderr, "usage: %s NEFF_DIR\n", argv[0]);
		return 2;
	}
	neff_dir = argv[1];
	signal(SIGPIPE, SIG_IGN);	/* a holder that died is a failed check, not our end */
	unsetenv("NEURON_RT_VISIBLE_CORES");
	unsetenv("NEURON_RT_NUM_CORES");
	return vt_run("sdk_dev", cases, VT_COUNT(cases));
}
