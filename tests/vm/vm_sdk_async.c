// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: <nrt/nrt_async.h>, written only against the SDK's headers
 * (strict C11, -Wall -Werror, implicit declarations are errors; no header
 * of this project's but include/nrt/). Queues of two NeuronCores running
 * executions side by side with their outputs checked byte for byte,
 * tensor writes, reads and copies on the tensor units, sequence ids,
 * nrta_is_completed and nrta_get_sequence, completion handles that poll()
 * works on (also after the caller closed one early), error trackers
 * (failed requests in order with the synchronous path's statuses and
 * strings, the sysfs counters moved exactly as the synchronous path moves
 * them, a burst past the tracker's bound), and nrt_close() with requests
 * still queued: they complete with NRT_CLOSED, the workers are gone, no
 * descriptor is left. Then fork() while a worker runs an execution: the
 * child closes what it inherited, initializes its own runtime and runs
 * jobs, nothing of it blocked by the parent's worker.
 *
 *   vm_sdk_async NEFF_DIR                 the cases (26_async.sh packs affine,
 *                                         xor and slow there)
 *   vm_sdk_async --exit-queued NEFF_DIR   schedule slow executions and
 *                                         return from main without nrt_close()
 *
 * Expects the module loaded with sim_devices=1 sim_nc_per_device=2 and no
 * other process using it.
 */
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_async.h>
#include <nrt/nrt_status.h>

#include "vmstatus.h"

#define WORDS 16		/* the models' 64-byte input and output */
#define BYTES (WORDS * 4)
#define TRACKER_CAPACITY 1024	/* docs/sdk-compat.md */
#define TENSOR_QUEUES 4		/* docs/sdk-compat.md */
#define WAIT_MS 30000		/* bound of every wait (a KASAN guest is slow) */

static const char *neff_dir = ".";
static char why[512];

#define ASSERT(cond, ...)                                                 \
	do {                                                              \
		if (!(cond)) {                                            \
			snprintf(why, sizeof(why), "line %d: ", __LINE__); \
			say(__VA_ARGS__);                                 \
			return -1;                                        \
		}                                                         \
	} while (0)

#define EXPECT(call, want)                                                          \
	do {                                                                        \
		NRT_STATUS s_ = (call);                                             \
		ASSERT(s_ == (want), "%s: %s (%u), expected %s", #call,             \
		       nrt_get_status_as_str(s_), (unsigned)s_,                     \
		       nrt_get_status_as_str(want));                                \
	} while (0)

static void say(const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - n, fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- the models, tensors and trackers the cases share -------------------- */

struct lnc {
	nrt_model_t *model;		/* affine (lnc 0) or xor (lnc 1) */
	nrt_model_t *slow;		/* no data, 200 ms a run */
	nrt_tensor_t *in, *out;		/* device tensors of the lnc */
	nrt_tensor_set_t *in_set, *out_set;
	nrta_error_tracker_t *err;
};

static struct lnc L[2];

static NRT_STATUS load(const char *name, int vnc, nrt_model_t **m)
{
	char path[256];
	struct stat st;
	NRT_STATUS s = NRT_FAILURE;
	void *b;
	int fd;

	*m = NULL;
	snprintf(path, sizeof(path), "%s/%s.neff", neff_dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NRT_FAILURE;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (b = malloc((size_t)st.st_size))) {
		if (read(fd, b, (size_t)st.st_size) == st.st_size)
			s = nrt_load(b, (size_t)st.st_size, vnc, -1, m);
		free(b);
	}
	close(fd);
	return s;
}

static NRT_STATUS io_sets(struct lnc *l)
{
	NRT_STATUS s;

	if ((s = nrt_allocate_tensor_set(&l->in_set)) != NRT_SUCCESS ||
	    (s = nrt_allocate_tensor_set(&l->out_set)) != NRT_SUCCESS ||
	    (s = nrt_add_tensor_to_tensor_set(l->in_set, "in", l->in)) != NRT_SUCCESS)
		return s;
	return nrt_add_tensor_to_tensor_set(l->out_set, "out", l->out);
}

/* Wait until @fd (a completion handle) is readable: 1, or 0 after WAIT_MS. */
static int wait_fd(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, WAIT_MS);
	while (n < 0 && errno == EINTR);
	return n == 1 && (p.revents & POLLIN);
}

/* Wait for request @seq through a completion handle of its own: 1 when it completed. */
static int wait_seq(nrta_seq_t seq)
{
	int fd = -1, ok;
	bool done = false;

	if (nrta_get_completion_handle(seq, &fd) != NRT_SUCCESS)
		return 0;
	ok = wait_fd(fd);
	close(fd);
	return ok && nrta_is_completed(seq, &done) == NRT_SUCCESS && done;
}

/* Entries of a directory of /proc/self ("fd", "task"), "." and ".." aside. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - (strcmp(dir, "/proc/self/fd") == 0);	/* the directory's own fd */
}

/*
 * The threads of this process once every exited one is gone: a joined
 * thread can stay listed in /proc/self/task for a moment after
 * pthread_join() returned (its task is released after the wake-up the
 * join waits for; longer on PREEMPT_RT), so wait up to WAIT_MS for the
 * count to reach @want and return what it is then.
 */
static int nthreads;	/* what settled_threads() saw last, for the messages */

static int settled_threads(int want)
{
	uint64_t t0 = now_ms();
	int n;

	while ((n = count_entries("/proc/self/task")) != want && now_ms() - t0 < WAIT_MS)
		sched_yield();
	return n;
}

/* ---- the NeuronCore's sysfs counters -------------------------------------- */

/* vt_status_attrs, VT_NSTATUS_ATTRS: the 24 status/ attributes (vmstatus.h) */

static uint64_t counter(int nc, const char *name)
{
	char path[256], buf[32] = "";
	uint64_t v = UINT64_MAX;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path),
		 "/sys/devices/virtual/neuron_device/neuron0/neuron_core%d/stats/status/%s/total", nc, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return v;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0)
		v = strtoull(buf, NULL, 10);
	close(fd);
	return v;
}

static void snap(int nc, uint64_t *v)
{
	for (size_t i = 0; i < VT_NSTATUS_ATTRS; i++)
		v[i] = counter(nc, vt_status_attrs[i]);
}

/* Arm debugfs inject/<@knob> of device 0 with @text. */
static int inject(const char *knob, const char *text)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron0/inject/%s", knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* ---- cases ---------------------------------------------------------------- */

static int setup(void)
{
	uint32_t n = 0;

	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "2.1.0", NULL), NRT_SUCCESS);
	EXPECT(nrt_get_visible_nc_count(&n), NRT_SUCCESS);
	ASSERT(n == 2, "%u visible NeuronCores, expected 2", n);
	EXPECT(load("affine", 0, &L[0].model), NRT_SUCCESS);
	EXPECT(load("xor", 1, &L[1].model), NRT_SUCCESS);
	for (int i = 0; i < 2; i++) {
		EXPECT(load("slow", i, &L[i].slow), NRT_SUCCESS);
		EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, i, BYTES, "in", &L[i].in), NRT_SUCCESS);
		EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, i, BYTES, "out", &L[i].out), NRT_SUCCESS);
		EXPECT(io_sets(&L[i]), NRT_SUCCESS);
		EXPECT(nrta_error_tracker_create((uint32_t)i, &L[i].err), NRT_SUCCESS);
		ASSERT(L[i].err != NULL, "no tracker");
	}
	return 0;
}

/* What is refused at once, and that nothing of it was queued. */
static int arguments(void)
{
	nrta_seq_t seq = 0, last = 1;
	nrt_tensor_t *host = NULL;
	nrta_error_tracker_t *t = NULL;
	nrt_cc_context_t *ctx = NULL, *fake = (nrt_cc_context_t *)&seq;
	nrt_cc_comm_t comm = { 0 };
	nrt_tensor_list_t list = { 0 };
	uint8_t buf[BYTES] = { 0 };
	bool done = true;
	size_t n = 9;
	const nrta_error_t *errs = NULL;

	/* executions: queue 0 only, live handles, a tracker of the model's NeuronCore */
	EXPECT(nrta_execute_schedule(L[0].model, L[0].in_set, L[0].out_set, 1, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_execute_schedule(L[0].model, L[0].in_set, L[0].out_set, -1, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_execute_schedule(L[0].model, L[0].in_set, L[0].out_set, 0, L[0].err, NULL), NRT_INVALID);
	EXPECT(nrta_execute_schedule((nrt_model_t *)buf, L[0].in_set, L[0].out_set, 0, L[0].err, &seq),
	       NRT_INVALID_HANDLE);
	EXPECT(nrta_execute_schedule(L[0].model, (nrt_tensor_set_t *)buf, L[0].out_set, 0, L[0].err, &seq),
	       NRT_INVALID_HANDLE);
	EXPECT(nrta_execute_schedule(L[0].model, L[0].in_set, L[0].out_set, 0, L[1].err, &seq), NRT_INVALID);
	EXPECT(nrta_execute_schedule(L[0].model, L[0].in_set, L[0].out_set, 0,
				     (nrta_error_tracker_t *)buf, &seq), NRT_INVALID_HANDLE);
	/* tensor requests: device tensors, in range, a queue the unit has */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, BYTES, "host", &host), NRT_SUCCESS);
	EXPECT(nrta_tensor_write(host, buf, 0, BYTES, 0, NULL, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_read(buf, host, 0, BYTES, 0, NULL, &seq), NRT_INVALID);
	nrt_tensor_free(&host);
	EXPECT(nrta_tensor_write(L[0].in, buf, 60, 8, 0, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_write(L[0].in, NULL, 0, 8, 0, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_read(buf, L[0].in, 0, BYTES + 1, 0, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_read(buf, L[0].in, 0, 8, TENSOR_QUEUES, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_read(buf, L[0].in, 0, 8, -1, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_read(buf, (nrt_tensor_t *)buf, 0, 8, 0, L[0].err, &seq), NRT_INVALID_HANDLE);
	EXPECT(nrta_tensor_read(buf, L[1].in, 0, 8, 0, L[0].err, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_copy(L[0].in, 0, L[1].in, 0, 8, 0, NULL, &seq), NRT_INVALID);
	EXPECT(nrta_tensor_copy(L[0].in, 0, L[0].out, 60, 8, 0, NULL, &seq), NRT_INVALID);
	/* trackers of visible NeuronCores only */
	EXPECT(nrta_error_tracker_create(2, &t), NRT_INVALID);
	ASSERT(t == NULL, "a tracker was handed out");
	/* no host-driven collectives here */
	EXPECT(nrta_cc_prepare(&comm, &list, &list, NRT_DTYPE_UINT32, NRT_OP_ADD, NRT_CC_ALLREDUCE, &ctx),
	       NRT_FAILURE);
	ASSERT(ctx == NULL, "a collective context was handed out");
	EXPECT(nrta_cc_schedule(&fake, 0, L[0].err, &seq), NRT_INVALID_HANDLE);
	/* sequence ids no request has */
	EXPECT(nrta_is_completed(0, &done), NRT_INVALID);
	EXPECT(nrta_is_completed(~0ull, &done), NRT_INVALID);
	EXPECT(nrta_get_sequence(2, NRTA_XU_COMPUTE, 0, &last), NRT_INVALID);
	/* nothing was queued: no sequence handed out, no request completed, no error */
	ASSERT(seq == 0, "a sequence id was written: %#llx", (unsigned long long)seq);
	EXPECT(nrta_get_sequence(0, NRTA_XU_COMPUTE, 0, &last), NRT_SUCCESS);
	ASSERT(NRTA_SEQ_GET_SEQ_NUM(last) == 0, "compute queue of lnc 0 completed %llu",
	       (unsigned long long)NRTA_SEQ_GET_SEQ_NUM(last));
	EXPECT(nrta_error_tracker_get_list(L[0].err, &errs, &n), NRT_SUCCESS);
	ASSERT(n == 0, "%zu errors in the tracker", n);
	return 0;
}

/*
 * Inputs written on the TENSOR_WRITE units, K executions on each of the
 * two COMPUTE queues (lnc 0 and 1, interleaved), outputs read on the
 * TENSOR_READ units and checked byte for byte; sequence ids and
 * completion as the SDK defines them.
 */
#define K 8
static int two_queues(void)
{
	uint32_t in[2][WORDS], out[2][WORDS], want[2][WORDS], copy[WORDS];
	nrta_seq_t w[2], e[2][K], r[2], c, last;
	nrt_tensor_t *dup = NULL;
	int fds[2];
	const nrta_error_t *errs;
	size_t n;

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < WORDS; k++) {
			in[i][k] = 0x01020304u * (uint32_t)(k + 1) + (uint32_t)i;
			want[i][k] = i == 0 ? in[i][k] * 3 + 7 : in[i][k] ^ 0x5a5a5a5au;
		}
	for (int i = 0; i < 2; i++)
		EXPECT(nrta_tensor_write(L[i].in, in[i], 0, BYTES, i, L[i].err, &w[i]), NRT_SUCCESS);
	for (int i = 0; i < 2; i++)
		ASSERT(wait_seq(w[i]), "write %d did not complete", i);
	for (int k = 0; k < K; k++)
		for (int i = 0; i < 2; i++)
			EXPECT(nrta_execute_schedule(L[i].model, L[i].in_set, L[i].out_set, 0, L[i].err,
						     &e[i][k]), NRT_SUCCESS);
	/* one queue per (NeuronCore, unit, queue); numbers 1, 2, ... in a queue */
	ASSERT(NRTA_SEQ_GET_XU_ID(e[0][0]) != NRTA_SEQ_GET_XU_ID(e[1][0]), "one unit id for both queues");
	ASSERT(NRTA_SEQ_GET_XU_ID(w[0]) != NRTA_SEQ_GET_XU_ID(e[0][0]), "write and compute share a unit id");
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < K; k++) {
			ASSERT(NRTA_SEQ_GET_XU_ID(e[i][k]) == NRTA_SEQ_GET_XU_ID(e[i][0]), "unit id changed");
			ASSERT(NRTA_SEQ_GET_SEQ_NUM(e[i][k]) == (uint64_t)k + 1, "lnc %d request %d has number %llu",
			       i, k, (unsigned long long)NRTA_SEQ_GET_SEQ_NUM(e[i][k]));
		}
	/* both last ones through their handles, at once */
	for (int i = 0; i < 2; i++)
		EXPECT(nrta_get_completion_handle(e[i][K - 1], &fds[i]), NRT_SUCCESS);
	{
		struct pollfd p[2] = { { .fd = fds[0], .events = POLLIN }, { .fd = fds[1], .events = POLLIN } };
		uint64_t t0 = now_ms();
		int ready = 0;

		while (ready != 2 && now_ms() - t0 < WAIT_MS) {
			if (poll(p, 2, 1000) < 0 && errno != EINTR)
				break;
			ready = !!(p[0].revents & POLLIN) + !!(p[1].revents & POLLIN);
		}
		close(fds[0]);
		close(fds[1]);
		ASSERT(ready == 2, "the handles did not both become readable");
	}
	/* completed in order: every earlier request too, and the queue says so */
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < K; k++) {
			bool done = false;

			EXPECT(nrta_is_completed(e[i][k], &done), NRT_SUCCESS);
			ASSERT(done, "lnc %d request %d not completed after the last", i, k);
		}
		EXPECT(nrta_get_sequence((uint32_t)i, NRTA_XU_COMPUTE, 0, &last), NRT_SUCCESS);
		ASSERT(last == e[i][K - 1], "lnc %d: last completed %#llx, expected %#llx", i,
		       (unsigned long long)last, (unsigned long long)e[i][K - 1]);
		EXPECT(nrta_get_sequence((uint32_t)i, NRTA_XU_TENSOR_WRITE, i, &last), NRT_SUCCESS);
		ASSERT(last == w[i], "lnc %d: write queue's last %#llx", i, (unsigned long long)last);
	}
	/* the outputs, read on the TENSOR_READ units (queue 1 and 3) */
	memset(out, 0xee, sizeof(out));
	for (int i = 0; i < 2; i++)
		EXPECT(nrta_tensor_read(out[i], L[i].out, 0, BYTES, 1 + 2 * i, L[i].err, &r[i]), NRT_SUCCESS);
	for (int i = 0; i < 2; i++) {
		ASSERT(wait_seq(r[i]), "read %d did not complete", i);
		ASSERT(!memcmp(out[i], want[i], BYTES), "lnc %d: output differs (word 0 %#x, expected %#x)",
		       i, out[i][0], want[i][0]);
	}
	/* a copy on TENSOR_OP: lnc 0's output into a tensor of its own */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES, "dup", &dup), NRT_SUCCESS);
	EXPECT(nrta_tensor_copy(L[0].out, 0, dup, 0, BYTES, TENSOR_QUEUES - 1, L[0].err, &c), NRT_SUCCESS);
	ASSERT(wait_seq(c), "copy did not complete");
	EXPECT(nrt_tensor_read(dup, copy, 0, BYTES), NRT_SUCCESS);
	nrt_tensor_free(&dup);
	ASSERT(!memcmp(copy, want[0], BYTES), "the copy differs");
	for (int i = 0; i < 2; i++) {
		EXPECT(nrta_error_tracker_get_list(L[i].err, &errs, &n), NRT_SUCCESS);
		ASSERT(n == 0, "lnc %d: %zu errors, first %s", i, n,
		       nrt_get_status_as_str((NRT_STATUS)errs[0].error_code));
	}
	return 0;
}

/*
 * A completion handle: not readable while its request runs, readable once
 * it completed (and at once for a request already complete); one the
 * caller closed early is never written through (its number is reused
 * here by a pipe, which must stay empty).
 */
static int completion_handle(void)
{
	nrta_seq_t s;
	bool done = true;
	int fd = -1, fd2 = -1, p[2];
	struct pollfd pf;
	char c;

	EXPECT(nrta_execute_schedule(L[0].slow, NULL, NULL, 0, L[0].err, &s), NRT_SUCCESS);
	EXPECT(nrta_get_completion_handle(s, &fd), NRT_SUCCESS);
	pf = (struct pollfd){ .fd = fd, .events = POLLIN };
	ASSERT(poll(&pf, 1, 0) == 0, "readable while a 200 ms execution runs");
	EXPECT(nrta_is_completed(s, &done), NRT_SUCCESS);
	ASSERT(!done, "completed at once");
	ASSERT(wait_fd(fd), "not readable after %d ms", WAIT_MS);
	EXPECT(nrta_is_completed(s, &done), NRT_SUCCESS);
	ASSERT(done, "readable but not completed");
	EXPECT(nrta_get_completion_handle(s, &fd2), NRT_SUCCESS);
	pf = (struct pollfd){ .fd = fd2, .events = POLLIN };
	ASSERT(poll(&pf, 1, 0) == 1, "a completed request's handle is not readable at once");
	close(fd);
	close(fd2);

	/* closed early, its number taken by a pipe's write end */
	EXPECT(nrta_execute_schedule(L[0].slow, NULL, NULL, 0, L[0].err, &s), NRT_SUCCESS);
	EXPECT(nrta_get_completion_handle(s, &fd), NRT_SUCCESS);
	ASSERT(pipe(p) == 0, "pipe");
	close(fd);
	ASSERT(dup2(p[1], fd) == fd, "dup2");
	close(p[1]);
	ASSERT(wait_seq(s), "the request did not complete");
	ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK");
	ASSERT(read(p[0], &c, 1) < 0 && errno == EAGAIN, "the library wrote into a descriptor it had handed out");
	close(p[0]);
	close(fd);
	return 0;
}

/*
 * Failures: the same requests through the synchronous calls, then
 * scheduled; the tracker lists each failed request once, in order, with
 * the status the synchronous call returned (its string, and the priority
 * fold of two faults in one execution), and the NeuronCore's counters
 * moved by exactly what the synchronous calls moved them.
 */
struct fault {
	const char *hw, *tpb;	/* inject/hw_error, inject/tpb_error of NeuronCore 0, or NULL */
	bool bad_input;		/* the input set holds a tensor of the wrong size */
	NRT_STATUS want;
};

static const struct fault faults[] = {
	{ NULL, NULL, false, NRT_SUCCESS },
	{ NULL, NULL, true, NRT_EXEC_BAD_INPUT },
	{ "0 hbm_ue", NULL, false, NRT_EXEC_HW_ERR_HBM_UE },
	{ NULL, NULL, false, NRT_SUCCESS },
	{ NULL, "0 MEMORY_ERROR", false, NRT_EXEC_COMPLETED_WITH_ERR },
	/* two faults, both of priority 3: the first candidate (the hardware's) wins */
	{ "0 nc_ue", "0 MEMORY_ERROR", false, NRT_EXEC_HW_ERR_NC_UE },
	{ "0 dma_abort", NULL, false, NRT_EXEC_HW_ERR_DMA_ABORT },
};
#define NFAULTS (sizeof(faults) / sizeof(faults[0]))

static int arm(const struct fault *f)
{
	if (f->hw && inject("hw_error", f->hw))
		return -1;
	if (f->tpb && inject("tpb_error", f->tpb))
		return -1;
	return 0;
}

static int errors_in_order(void)
{
	uint64_t before[VT_NSTATUS_ATTRS], mid[VT_NSTATUS_ATTRS], after[VT_NSTATUS_ATTRS];
	NRT_STATUS sync_st[NFAULTS];
	nrta_seq_t seq[NFAULTS], bad_read = 0;
	nrt_tensor_t *small = NULL;
	nrt_tensor_set_t *bad_set = NULL;
	const nrta_error_t *errs;
	size_t n, want_n = 0;
	uint8_t *nobuf;

	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES / 2, "in", &small), NRT_SUCCESS);
	EXPECT(nrt_allocate_tensor_set(&bad_set), NRT_SUCCESS);
	EXPECT(nrt_add_tensor_to_tensor_set(bad_set, "in", small), NRT_SUCCESS);
	nobuf = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(nobuf != MAP_FAILED, "mmap");

	snap(0, before);
	for (size_t i = 0; i < NFAULTS; i++) {
		ASSERT(arm(&faults[i]) == 0, "inject %zu", i);
		sync_st[i] = nrt_execute(L[0].model, faults[i].bad_input ? bad_set : L[0].in_set, L[0].out_set);
		ASSERT(sync_st[i] == faults[i].want, "synchronous %zu: %s, expected %s", i,
		       nrt_get_status_as_str(sync_st[i]), nrt_get_status_as_str(faults[i].want));
	}
	snap(0, mid);
	for (size_t i = 0; i < NFAULTS; i++) {
		ASSERT(arm(&faults[i]) == 0, "inject %zu", i);
		EXPECT(nrta_execute_schedule(L[0].model, faults[i].bad_input ? bad_set : L[0].in_set,
					     L[0].out_set, 0, L[0].err, &seq[i]), NRT_SUCCESS);
		ASSERT(wait_seq(seq[i]), "request %zu did not complete", i);
		if (i == 2) {
			/* a read into memory that cannot be written, on a tensor unit */
			EXPECT(nrta_tensor_read(nobuf, L[0].out, 0, 8, 2, L[0].err, &bad_read), NRT_SUCCESS);
			ASSERT(wait_seq(bad_read), "the read did not complete");
		}
	}
	snap(0, after);
	EXPECT(nrta_error_tracker_get_list(L[0].err, &errs, &n), NRT_SUCCESS);
	for (size_t i = 0, k = 0; i < NFAULTS; i++) {
		if (sync_st[i] != NRT_SUCCESS) {
			ASSERT(k < n, "%zu errors listed, request %zu's missing", n, i);
			ASSERT(errs[k].seq_id == seq[i], "entry %zu: %#llx, expected request %zu (%#llx)", k,
			       (unsigned long long)errs[k].seq_id, i, (unsigned long long)seq[i]);
			ASSERT(errs[k].error_code == sync_st[i], "request %zu: %s, synchronously %s", i,
			       nrt_get_status_as_str((NRT_STATUS)errs[k].error_code),
			       nrt_get_status_as_str(sync_st[i]));
			ASSERT(!strcmp(nrt_get_status_as_str((NRT_STATUS)errs[k].error_code),
				       nrt_get_status_as_str(faults[i].want)), "string");
			k++;
			want_n++;
		}
		if (i == 2) {
			ASSERT(k < n && errs[k].seq_id == bad_read, "the failed read is not next");
			ASSERT(errs[k].error_code == NRT_INVALID, "the read: %s",
			       nrt_get_status_as_str((NRT_STATUS)errs[k].error_code));
			k++;
			want_n++;
		}
	}
	ASSERT(n == want_n, "%zu errors listed, expected %zu", n, want_n);
	/* the counters: the scheduled requests moved them as the synchronous calls did */
	for (size_t a = 0; a < VT_NSTATUS_ATTRS; a++)
		ASSERT(after[a] - mid[a] == mid[a] - before[a], "%s moved by %llu, synchronously by %llu",
		       vt_status_attrs[a], (unsigned long long)(after[a] - mid[a]),
		       (unsigned long long)(mid[a] - before[a]));
	ASSERT(mid[0] - before[0] == 2 && mid[3] - before[3] == 1 && mid[15] - before[15] == 1 &&
	       mid[17] - before[17] == 1,
	       "synchronous run: success +%llu, exec_bad_input +%llu, hw_hbm_ue_error +%llu, hw_dma_abort_error +%llu",
	       (unsigned long long)(mid[0] - before[0]), (unsigned long long)(mid[3] - before[3]),
	       (unsigned long long)(mid[15] - before[15]), (unsigned long long)(mid[17] - before[17]));
	/* listed once */
	EXPECT(nrta_error_tracker_get_list(L[0].err, &errs, &n), NRT_SUCCESS);
	ASSERT(n == 0, "%zu errors listed again", n);
	munmap(nobuf, 4096);
	nrt_destroy_tensor_set(&bad_set);
	nrt_tensor_free(&small);
	return 0;
}

/*
 * A burst of failures past the tracker's bound: the first TRACKER_CAPACITY
 * in order, then one entry saying how many were dropped.
 */
#define BURST (TRACKER_CAPACITY + 40)
static int burst(void)
{
	static nrta_seq_t seq[BURST];
	const nrta_error_t *errs;
	size_t n;
	uint8_t *nobuf = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT(nobuf != MAP_FAILED, "mmap");
	for (int i = 0; i < BURST; i++)
		EXPECT(nrta_tensor_read(nobuf, L[1].out, 0, 4, 0, L[1].err, &seq[i]), NRT_SUCCESS);
	ASSERT(wait_seq(seq[BURST - 1]), "the last read did not complete");
	munmap(nobuf, 4096);
	EXPECT(nrta_error_tracker_get_list(L[1].err, &errs, &n), NRT_SUCCESS);
	ASSERT(n == TRACKER_CAPACITY + 1, "%zu entries, expected %d", n, TRACKER_CAPACITY + 1);
	for (int i = 0; i < TRACKER_CAPACITY; i++)
		ASSERT(errs[i].seq_id == seq[i] && errs[i].error_code == NRT_INVALID,
		       "entry %d: %#llx %s, expected %#llx NRT_INVALID", i, (unsigned long long)errs[i].seq_id,
		       nrt_get_status_as_str((NRT_STATUS)errs[i].error_code), (unsigned long long)seq[i]);
	ASSERT(NRTA_SEQ_GET_XU_ID(errs[TRACKER_CAPACITY].seq_id) == 0xffff &&
	       NRTA_SEQ_GET_SEQ_NUM(errs[TRACKER_CAPACITY].seq_id) == BURST - TRACKER_CAPACITY &&
	       errs[TRACKER_CAPACITY].error_code == NRT_QUEUE_FULL,
	       "the dropped entry: %#llx %s", (unsigned long long)errs[TRACKER_CAPACITY].seq_id,
	       nrt_get_status_as_str((NRT_STATUS)errs[TRACKER_CAPACITY].error_code));
	EXPECT(nrta_error_tracker_get_list(L[1].err, &errs, &n), NRT_SUCCESS);
	ASSERT(n == 0, "%zu entries after the list", n);
	return 0;
}

/*
 * nrt_close() with requests queued on both NeuronCores: it returns once
 * the running ones end; the rest complete with NRT_CLOSED, in order; the
 * handles become readable; scheduling is refused; after a new nrt_init()
 * a queue goes on numbering; after the last nrt_close() no worker thread
 * and no descriptor is left.
 */
#define QUEUED 4
static int close_with_queued(int fds_before)
{
	nrta_seq_t s[2][QUEUED], again, last;
	const nrta_error_t *errs;
	size_t n;
	int h;
	uint64_t t0;

	for (int k = 0; k < QUEUED; k++)
		for (int i = 0; i < 2; i++)
			EXPECT(nrta_execute_schedule(L[i].slow, NULL, NULL, 0, L[i].err, &s[i][k]), NRT_SUCCESS);
	EXPECT(nrta_get_completion_handle(s[1][QUEUED - 1], &h), NRT_SUCCESS);
	t0 = now_ms();
	nrt_close();
	ASSERT(now_ms() - t0 < WAIT_MS, "nrt_close() took %llu ms", (unsigned long long)(now_ms() - t0));
	{
		struct pollfd pf = { .fd = h, .events = POLLIN };

		ASSERT(poll(&pf, 1, 0) == 1, "the handle is not readable after nrt_close()");
		close(h);
	}
	for (int i = 0; i < 2; i++) {
		size_t first;

		for (int k = 0; k < QUEUED; k++) {
			bool done = false;

			EXPECT(nrta_is_completed(s[i][k], &done), NRT_SUCCESS);
			ASSERT(done, "lnc %d request %d not completed after nrt_close()", i, k);
		}
		EXPECT(nrta_error_tracker_get_list(L[i].err, &errs, &n), NRT_SUCCESS);
		/* at most the one running when nrt_close() came ran; the others did not */
		ASSERT(n >= QUEUED - 1 && n <= QUEUED, "lnc %d: %zu errors, expected %d or %d", i, n,
		       QUEUED - 1, QUEUED);
		first = QUEUED - n;
		for (size_t k = 0; k < n; k++)
			ASSERT(errs[k].seq_id == s[i][first + k] && errs[k].error_code == NRT_CLOSED,
			       "lnc %d entry %zu: %#llx %s", i, k, (unsigned long long)errs[k].seq_id,
			       nrt_get_status_as_str((NRT_STATUS)errs[k].error_code));
	}
	EXPECT(nrta_execute_schedule(L[0].slow, NULL, NULL, 0, L[0].err, &again), NRT_CLOSED);
	EXPECT(nrta_get_sequence(0, NRTA_XU_COMPUTE, 0, &last), NRT_SUCCESS);
	ASSERT(last == s[0][QUEUED - 1], "lnc 0's last completed %#llx", (unsigned long long)last);
	ASSERT((nthreads = settled_threads(1)) == 1, "%d threads after nrt_close()", nthreads);

	/* a new runtime: the queue's numbers go on */
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL), NRT_SUCCESS);
	{
		nrt_model_t *m = NULL;
		nrta_error_tracker_t *t = NULL;

		EXPECT(load("affine", 0, &m), NRT_SUCCESS);
		EXPECT(nrta_error_tracker_create(0, &t), NRT_SUCCESS);
		/* the tensors went with the last runtime: the execution fails in the tracker */
		EXPECT(nrta_execute_schedule(m, L[0].in_set, L[0].out_set, 0, t, &again), NRT_SUCCESS);
		ASSERT(NRTA_SEQ_GET_XU_ID(again) == NRTA_SEQ_GET_XU_ID(s[0][0]) &&
		       NRTA_SEQ_GET_SEQ_NUM(again) > NRTA_SEQ_GET_SEQ_NUM(s[0][QUEUED - 1]),
		       "numbered %#llx after %#llx", (unsigned long long)again,
		       (unsigned long long)s[0][QUEUED - 1]);
		ASSERT(wait_seq(again), "the execution did not complete");
		EXPECT(nrta_error_tracker_get_list(t, &errs, &n), NRT_SUCCESS);
		ASSERT(n == 1 && errs[0].seq_id == again && errs[0].error_code == NRT_CLOSED,
		       "%zu errors, first %s", n, n ? nrt_get_status_as_str((NRT_STATUS)errs[0].error_code) : "-");
		nrta_error_tracker_destroy(t);
		nrt_close();
	}
	ASSERT((nthreads = settled_threads(1)) == 1, "%d threads after the second nrt_close()", nthreads);
	for (int i = 0; i < 2; i++) {
		nrt_destroy_tensor_set(&L[i].in_set);
		nrt_destroy_tensor_set(&L[i].out_set);
		nrt_tensor_free(&L[i].in);
		nrt_tensor_free(&L[i].out);
		nrta_error_tracker_destroy(L[i].err);
	}
	ASSERT(count_entries("/proc/self/fd") == fds_before, "%d descriptors open, %d before nrt_init()",
	       count_entries("/proc/self/fd"), fds_before);
	return 0;
}

/*
 * The child of fork_while_running: one letter, 'o' when all went well.
 * The parent's model and tracker are its copies of the parent's handles.
 * Loads on the runtime it inherited are refused (NRT_FAILURE); a malformed
 * NEFF is NRT_INVALID there as anywhere.
 */
static char child_after_fork(nrt_model_t *parents, nrta_error_tracker_t *parents_err)
{
	nrt_model_t *m = NULL;
	nrta_error_tracker_t *t = NULL;
	const nrta_error_t *errs;
	size_t n = 9;
	nrta_seq_t s;

	/* the parent's NeuronCore is not the child's: refused at once, not waited for */
	if (nrt_execute(parents, NULL, NULL) != NRT_FAILURE)
		return 'x';
	/*
	 * a load on it too; a load that fails before placing the model
	 * answers as in the parent (the parent's counter slab is not the
	 * child's: libnrt counts nothing in it)
	 */
	if (load("slow", 0, &m) != NRT_FAILURE || m)
		return 'p';
	if (nrt_load("not a NEFF", 10, 0, -1, &m) != NRT_INVALID || m)
		return 'b';
	/* the tracker it inherited lists (nothing failed there) and goes */
	if (nrta_error_tracker_get_list(parents_err, &errs, &n) != NRT_SUCCESS || n != 0)
		return 'l';
	nrta_error_tracker_destroy(parents_err);
	nrt_close();
	/* a runtime of its own, on the NeuronCore the parent does not hold */
	setenv("NEURON_RT_VISIBLE_CORES", "1", 1);
	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS)
		return 'i';
	if (load("slow", 0, &m) != NRT_SUCCESS)
		return 'L';
	if (nrt_execute(m, NULL, NULL) != NRT_SUCCESS)
		return 'e';
	/* and queues of its own */
	if (nrta_error_tracker_create(0, &t) != NRT_SUCCESS)
		return 't';
	if (nrta_execute_schedule(m, NULL, NULL, 0, t, &s) != NRT_SUCCESS)
		return 's';
	if (!wait_seq(s))
		return 'w';
	if (nrta_error_tracker_get_list(t, &errs, &n) != NRT_SUCCESS || n != 0)
		return 'E';
	nrta_error_tracker_destroy(t);
	nrt_close();
	return 'o';
}

/*
 * fork() while a worker runs an execution (200 ms, the NeuronCore's lock
 * held): the child has none of the parent's threads, and none of the
 * locks it takes is left held by one. Within the bound it refuses the
 * parent's NeuronCore, lists the tracker it inherited, closes the runtime,
 * initializes its own on the other NeuronCore and runs an execution
 * synchronously and through a queue. The parent's requests go on as if
 * nothing happened.
 */
static int fork_while_running(void)
{
	nrt_model_t *m = NULL;
	nrta_error_tracker_t *t = NULL;
	nrta_seq_t s[3];
	const nrta_error_t *errs;
	size_t n = 9;
	bool done = true;
	char c = '?';
	int p[2], status = 0, k;
	uint64_t t0;
	pid_t pid;

	setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL), NRT_SUCCESS);
	unsetenv("NEURON_RT_VISIBLE_CORES");
	EXPECT(load("slow", 0, &m), NRT_SUCCESS);
	EXPECT(nrta_error_tracker_create(0, &t), NRT_SUCCESS);
	for (k = 0; k < 3; k++)
		EXPECT(nrta_execute_schedule(m, NULL, NULL, 0, t, &s[k]), NRT_SUCCESS);
	/* once the first completed, the worker runs the second (200 ms) */
	ASSERT(wait_seq(s[0]), "the first execution did not complete");
	EXPECT(nrta_is_completed(s[1], &done), NRT_SUCCESS);
	ASSERT(!done, "the second execution completed before the fork");
	ASSERT(pipe(p) == 0, "pipe");
	pid = fork();
	ASSERT(pid >= 0, "fork");
	if (pid == 0) {
		close(p[0]);
		c = child_after_fork(m, t);
		_exit(write(p[1], &c, 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	t0 = now_ms();
	{
		struct pollfd pf = { .fd = p[0], .events = POLLIN };

		do
			k = poll(&pf, 1, WAIT_MS);
		while (k < 0 && errno == EINTR);
		if (k != 1 || read(p[0], &c, 1) != 1) {
			c = '?';
			kill(pid, SIGKILL);	/* blocked: the check below fails */
		}
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ASSERT(c == 'o', "the child ended with '%c' after %llu ms (o: all went; ?: blocked past %d ms)", c,
	       (unsigned long long)(now_ms() - t0), WAIT_MS);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's exit status %#x", status);
	/* the parent's own requests ran through */
	ASSERT(wait_seq(s[2]), "the third execution did not complete");
	EXPECT(nrta_error_tracker_get_list(t, &errs, &n), NRT_SUCCESS);
	ASSERT(n == 0, "%zu errors in the parent's tracker, first %s", n,
	       n ? nrt_get_status_as_str((NRT_STATUS)errs[0].error_code) : "-");
	nrta_error_tracker_destroy(t);
	nrt_close();
	ASSERT((nthreads = settled_threads(1)) == 1, "%d threads after nrt_close()", nthreads);
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

static int fds_at_start;

static int close_case(void)
{
	return close_with_queued(fds_at_start);
}

struct tcase {
	const char *name;
	int (*fn)(void);
};

/* Schedule slow executions on both NeuronCores and return without nrt_close(). */
static int exit_queued(void)
{
	nrt_model_t *m[2];
	nrta_seq_t s;

	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS)
		return 1;
	for (int i = 0; i < 2; i++) {
		if (load("slow", i, &m[i]) != NRT_SUCCESS)
			return 1;
		for (int k = 0; k < QUEUED; k++)
			if (nrta_execute_schedule(m[i], NULL, NULL, 0, NULL, &s) != NRT_SUCCESS)
				return 1;
	}
	printf("scheduled %d executions\n", 2 * QUEUED);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct tcase cases[] = {
		{ "setup", setup },
		{ "arguments", arguments },
		{ "two_queues", two_queues },
		{ "completion_handle", completion_handle },
		{ "errors_in_order", errors_in_order },
		{ "burst", burst },
		{ "close_with_queued", close_case },
		{ "fork_while_running", fork_while_running },
	};
	size_t i, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--exit-queued")) {
		neff_dir = argv[2];
		return exit_queued();
	}
	if (argc > 1)
		neff_dir = argv[1];
	fds_at_start = count_entries("/proc/self/fd");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why[0] = '\0';
		if (cases[i].fn() == 0) {
			printf("ok %zu - sdk_async/%s\n", i + 1, cases[i].name);
		} else {
			printf("not ok %zu - sdk_async/%s: %s\n", i + 1, cases[i].name, why);
			failed++;
			if (i == 0)	/* nothing else can run */
				break;
		}
	}
	printf("VMTEST DONE vm_sdk_async %zu\n", i < sizeof(cases) / sizeof(cases[0]) ? i + 1 : i);
	return failed ? 1 : 0;
}
