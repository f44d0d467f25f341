// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: collectives across processes (docs/sdk-compat.md, "Collectives"),
 * written against the SDK's calls only: N workers, one process per
 * NeuronCore (NEURON_RT_VISIBLE_CORES), each calling
 * nrt_load_collectives(neff, size, 0, -1, rank, N, &model) and
 * nrt_execute() on a model whose outputs the workers all-reduce
 * (model.sim `collective all_reduce_sum_u32` after `op affine_u32 3 7`).
 *
 *   vm_sdk_coll NEFF_DIR     (28_collectives.sh packs coll and coll_big there)
 *
 * Expects the module loaded with sim_devices=1 sim_nc_per_device=4 and no
 * other process using it. Workers are children of this process, which
 * never initializes the runtime itself; each reports on a pipe (what its
 * load and each execution returned, how long a failed one took, words of
 * the output that were not the sum) and waits on another pipe where a case
 * needs it to (pipes, never sleeps). Every NRT_EXEC_HW_ERR_COLLECTIVES a
 * worker saw must have moved its NeuronCore's hw_collectives_error
 * counter; the total is written to the file given by COLL_ERRORS_FILE for
 * the suite, which compares it with the kernel log's lines.
 */
#define _GNU_SOURCE	/* kill, setenv, pipe, fork under -std=c11 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nrt/nrt.h>

#include "vmtest.h"

#define MAX_WORKERS	4
#define MAX_EXECS	16
#define NCS		4
#define COLL_ERR	NRT_EXEC_HW_ERR_COLLECTIVES

static const char *neff_dir = ".";
static uint64_t coll_errors;	/* 1200s workers reported, all cases */

/* what a worker does */
struct wspec {
	int rank, count, nc;
	const char *neff;	/* "coll" or "coll_big" */
	uint32_t bytes;		/* its output (and input) size */
	const char *comm_id;	/* NEURON_RT_ROOT_COMM_ID, NULL: unset */
	const char *timeout_ms;	/* NEURON_RT_COLL_TIMEOUT_MS, NULL: unset */
	int execs;
	int wait_go;		/* wait for the parent's word after the load */
	int device_out;		/* the output tensor on the device, else host */
	uint32_t seed;		/* the job's inputs */
	int bad_input;		/* execute without the input tensor (its own failure) */
};

/* what a worker says: one report after its load, one after its executions */
struct wreport {
	int32_t phase;		/* 1 loaded, 2 executed, 3 about to execute */
	int32_t load_st;
	int32_t exec_st[MAX_EXECS];
	uint32_t bad_words;	/* output words that were not the sum */
	uint32_t fail_ms;	/* time the first failed execution took */
	int32_t done;		/* executions run */
};

struct worker {
	pid_t pid;
	int rd, wr;
	struct wspec spec;
	struct wreport load, run;
};

/* input word @w of worker @rank at execution @i of a job with @seed */
static uint32_t input_word(uint32_t seed, int rank, int i, uint32_t w)
{
	return seed + 1000u * (uint32_t)rank + 7u * (uint32_t)i + w * 13u;
}

/* what every worker's output word @w holds after execution @i: the sum of 3x + 7 */
static uint32_t expected_word(const struct wspec *s, int i, uint32_t w)
{
	uint32_t sum = 0;
	int r;

	for (r = 0; r < s->count; r++)
		sum += input_word(s->seed, r, i, w) * 3u + 7u;
	return sum;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* @n bytes from @fd within @bound_ms: 0, or -1 (end of file, error, too late) */
static int read_bounded(int fd, void *p, size_t n, long bound_ms)
{
	char *b = p;
	uint64_t t0 = vt_now_ms();

	while (n) {
		long left = bound_ms - (long)(vt_now_ms() - t0);
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -1;
		r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

static nrt_tensor_t *tensor(const struct wspec *s, const char *name)
{
	nrt_tensor_t *t = NULL;

	if (nrt_tensor_allocate(s->device_out && !strcmp(name, "out") ? NRT_TENSOR_PLACEMENT_DEVICE
								      : NRT_TENSOR_PLACEMENT_HOST,
				0, s->bytes, name, &t) != NRT_SUCCESS)
		return NULL;
	return t;
}

/* The worker's life: its runtime, its load, its executions; its exit status 0 when it got that far. */
static int worker_main(const struct wspec *s, int wr, int rd)
{
	char nc[16];
	struct wreport rep;
	nrt_model_t *m = NULL;
	nrt_tensor_set_t *ins = NULL, *outs = NULL;
	nrt_tensor_t *in = NULL, *out = NULL;
	uint32_t *w = malloc(s->bytes), *r = malloc(s->bytes);
	size_t size = 0;
	char path[256];
	void *neff;
	int i;

	memset(&rep, 0, sizeof(rep));
	snprintf(nc, sizeof(nc), "%d", s->nc);
	setenv("NEURON_RT_VISIBLE_CORES", nc, 1);
	if (s->comm_id)
		setenv("NEURON_RT_ROOT_COMM_ID", s->comm_id, 1);
	else
		unsetenv("NEURON_RT_ROOT_COMM_ID");
	if (s->timeout_ms)
		setenv("NEURON_RT_COLL_TIMEOUT_MS", s->timeout_ms, 1);
	else
		unsetenv("NEURON_RT_COLL_TIMEOUT_MS");
	snprintf(path, sizeof(path), "%s/%s.neff", neff_dir, s->neff);
	neff = vt_slurp(path, &size);
	if (!neff || !w || !r)
		return 2;
	rep.load_st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	if (rep.load_st == NRT_SUCCESS)
		rep.load_st = nrt_load_collectives(neff, size, 0, -1, (uint32_t)s->rank,
						   (uint32_t)s->count, &m);
	free(neff);
	rep.phase = 1;
	if (write_all(wr, &rep, sizeof(rep)))
		return 3;
	if (rep.load_st != NRT_SUCCESS) {
		nrt_close();
		return 0;
	}
	if (nrt_allocate_tensor_set(&ins) || nrt_allocate_tensor_set(&outs) ||
	    !(in = tensor(s, "in")) || !(out = tensor(s, "out")) ||
	    nrt_add_tensor_to_tensor_set(ins, "in", in) ||
	    nrt_add_tensor_to_tensor_set(outs, "out", out))
		return 4;
	if (s->wait_go) {
		char go;

		if (read(rd, &go, 1) != 1)
			return 5;	/* the parent went: nothing to report to */
	}
	rep.phase = 3;
	if (write_all(wr, &rep, sizeof(rep)))
		return 3;
	for (i = 0; i < s->execs && i < MAX_EXECS; i++) {
		uint32_t k, n = s->bytes / 4;
		uint64_t t0;

		for (k = 0; k < n; k++)
			w[k] = input_word(s->seed, s->rank, i, k);
		if (nrt_tensor_write(in, w, 0, s->bytes) != NRT_SUCCESS)
			return 6;
		t0 = vt_now_ms();
		rep.exec_st[i] = nrt_execute(m, s->bad_input ? NULL : ins, outs);
		rep.done = i + 1;
		if (rep.exec_st[i] != NRT_SUCCESS) {
			if (!rep.fail_ms)
				rep.fail_ms = (uint32_t)(vt_now_ms() - t0) + 1;
			continue;
		}
		if (nrt_tensor_read(out, r, 0, s->bytes) != NRT_SUCCESS)
			return 7;
		for (k = 0; k < n; k++)
			if (r[k] != expected_word(s, i, k))
				rep.bad_words++;
	}
	rep.phase = 2;
	if (write_all(wr, &rep, sizeof(rep)))
		return 3;
	nrt_tensor_free(&in);
	nrt_tensor_free(&out);
	nrt_destroy_tensor_set(&ins);
	nrt_destroy_tensor_set(&outs);
	nrt_unload(m);
	nrt_close();
	free(w);
	free(r);
	return 0;
}

static int start(struct worker *wk, const struct wspec *s)
{
	int up[2], down[2];

	memset(wk, 0, sizeof(*wk));
	wk->spec = *s;
	wk->pid = -1;
	if (pipe(up) || pipe(down))
		return -1;
	wk->pid = fork();
	if (wk->pid < 0)
		return -1;
	if (wk->pid == 0) {
		close(up[0]);
		close(down[1]);
		_exit(worker_main(s, up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	wk->rd = up[0];
	wk->wr = down[1];
	return 0;
}

/* the worker's next report (@phase) within @bound_ms */
static int report(struct worker *wk, int32_t phase, long bound_ms)
{
	struct wreport r;

	if (read_bounded(wk->rd, &r, sizeof(r), bound_ms))
		return -1;
	if (r.phase != phase)
		return -1;
	if (phase == 1)
		wk->load = r;
	else
		wk->run = r;
	return 0;
}

static void go(struct worker *wk)
{
	char c = 'g';

	if (write_all(wk->wr, &c, 1))
		fprintf(stderr, "worker %d: go not delivered\n", wk->spec.rank);
}

/* End a worker (killed unless it already exited) and reap it: its exit status, or -1. */
static int finish(struct worker *wk, int kill_it)
{
	int st = 0;

	if (wk->pid <= 0)
		return -1;
	if (kill_it)
		kill(wk->pid, SIGKILL);
	if (vt_wait_bounded(wk->pid, &st, 30000) >= 30000) {
		kill(wk->pid, SIGKILL);
		waitpid(wk->pid, &st, 0);
		st = -1;
	}
	close(wk->rd);
	close(wk->wr);
	wk->pid = -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void finish_all(struct worker *wk, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (wk[i].pid > 0)
			finish(&wk[i], 1);
}

/*
 * Whether process @pid sleeps in poll() within @bound_ms: a worker does
 * only inside its collective step (its pipes are read with read()).
 */
static int in_poll(pid_t pid, long bound_ms)
{
	char path[64], buf[128];
	uint64_t t0 = vt_now_ms();

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	while ((long)(vt_now_ms() - t0) < bound_ms) {
		long nr;

		if (vt_read_file(path, buf, sizeof(buf)) == 0 && sscanf(buf, "%ld", &nr) == 1) {
#ifdef SYS_poll
			if (nr == SYS_poll)
				return 1;
#endif
			if (nr == SYS_ppoll)
				return 1;
		}
		usleep(1000);
	}
	return 0;
}

/* NeuronCore @nc's hw_collectives_error total (folds live slabs on read) */
static uint64_t coll_total(int nc)
{
	char path[160];

	snprintf(path, sizeof(path),
		 "/sys/devices/virtual/neuron_device/neuron0/neuron_core%d/stats/status/hw_collectives_error/total",
		 nc);
	return vt_u64(path);
}

static void coll_totals(uint64_t *t)
{
	int k;

	for (k = 0; k < NCS; k++)
		t[k] = coll_total(k);
}

static struct wspec spec(int rank, int count, const char *id, uint32_t seed)
{
	struct wspec s;

	memset(&s, 0, sizeof(s));
	s.rank = rank;
	s.count = count;
	s.nc = rank;
	s.neff = "coll";
	s.bytes = 64;
	s.comm_id = id;
	s.timeout_ms = "10000";
	s.execs = 1;
	s.device_out = rank % 2;
	s.seed = seed;
	return s;
}

/*
 * Run @n workers of @s to the end, every one expected to load and to run
 * all its executions right.
 */
static int run_ok(const struct wspec *s, int n)
{
	struct worker wk[MAX_WORKERS];
	int i, e;

	for (i = 0; i < n; i++)
		if (start(&wk[i], &s[i])) {
			finish_all(wk, i);
			VT_ASSERT(0, "fork worker %d", i);
		}
	for (i = 0; i < n; i++) {
		if (report(&wk[i], 1, 30000) || wk[i].load.load_st != NRT_SUCCESS) {
			finish_all(wk, n);
			VT_ASSERT(0, "worker %d: load %s", i, nrt_get_status_as_str(wk[i].load.load_st));
		}
	}
	for (i = 0; i < n; i++) {
		if (report(&wk[i], 3, 30000) || report(&wk[i], 2, 60000)) {
			finish_all(wk, n);
			VT_ASSERT(0, "worker %d did not report its executions", i);
		}
	}
	for (i = 0; i < n; i++) {
		int st = finish(&wk[i], 0);

		VT_ASSERT(st == 0, "worker %d exited %d", i, st);
		VT_ASSERT(wk[i].load.load_st == NRT_SUCCESS, "worker %d: load %s", i,
			  nrt_get_status_as_str(wk[i].load.load_st));
		VT_ASSERT(wk[i].run.done == s[i].execs, "worker %d ran %d", i, wk[i].run.done);
		for (e = 0; e < s[i].execs; e++)
			VT_ASSERT(wk[i].run.exec_st[e] == NRT_SUCCESS, "worker %d execution %d: %s", i, e,
				  nrt_get_status_as_str(wk[i].run.exec_st[e]));
		VT_ASSERT(wk[i].run.bad_words == 0, "worker %d: %u output words not the sum", i,
			  wk[i].run.bad_words);
	}
	return 0;
}

/* ---- cases ----------------------------------------------------------------- */

/* Two workers, the default name, ten executions: every output the sum. */
static int allreduce_2(void)
{
	struct wspec s[2] = { spec(0, 2, NULL, 11), spec(1, 2, NULL, 11) };

	s[0].execs = s[1].execs = 10;
	return run_ok(s, 2);
}

/* Four workers, 256 KiB outputs, host and device tensors mixed. */
static int allreduce_4(void)
{
	struct wspec s[4];
	int i;

	for (i = 0; i < 4; i++) {
		s[i] = spec(i, 4, "localhost:7004", 400);
		s[i].neff = "coll_big";
		s[i].bytes = 256 * 1024;
		s[i].execs = 3;
	}
	return run_ok(s, 4);
}

/* Two jobs at once under two names, each of two workers: each its own sum. */
static int two_jobs_apart(void)
{
	struct wspec s[4] = { spec(0, 2, "localhost:7001", 100), spec(1, 2, "localhost:7001", 100),
			      spec(0, 2, "localhost:7002", 5000), spec(1, 2, "localhost:7002", 5000) };

	s[2].nc = 2;
	s[3].nc = 3;
	for (int i = 0; i < 4; i++)
		s[i].execs = 5;
	return run_ok(s, 4);
}

/*
 * Nobody to meet: a rank 0 alone and a rank 1 alone give up at the bound
 * with NRT_TIMEOUT; a worker of another count is refused by rank 0 at once
 * (NRT_INVALID).
 */
static int load_refused(void)
{
	struct wspec s[3] = { spec(0, 2, "localhost:7010", 1), spec(1, 2, "localhost:7011", 1),
			      spec(1, 3, "localhost:7010", 1) };
	struct worker wk[3];
	int i;

	s[0].timeout_ms = s[1].timeout_ms = "600";
	s[2].nc = 2;
	for (i = 0; i < 3; i++)
		if (start(&wk[i], &s[i])) {
			finish_all(wk, i);
			VT_ASSERT(0, "fork worker %d", i);
		}
	uint64_t t0 = vt_now_ms();
	for (i = 0; i < 3; i++)
		if (report(&wk[i], 1, 30000)) {
			finish_all(wk, 3);
			VT_ASSERT(0, "worker %d did not report its load", i);
		}
	uint64_t ms = vt_now_ms() - t0;
	for (i = 0; i < 3; i++)
		VT_ASSERT(finish(&wk[i], 0) == 0, "worker %d exit", i);
	VT_ASSERT(wk[0].load.load_st == NRT_TIMEOUT, "rank 0 alone: %s",
		  nrt_get_status_as_str(wk[0].load.load_st));
	VT_ASSERT(wk[1].load.load_st == NRT_TIMEOUT, "rank 1 alone: %s",
		  nrt_get_status_as_str(wk[1].load.load_st));
	VT_ASSERT(wk[2].load.load_st == NRT_INVALID, "worker of 3 with rank 0 of 2: %s",
		  nrt_get_status_as_str(wk[2].load.load_st));
	VT_ASSERT(ms >= 600 && ms < 600 + 10000, "the loads ended after %llu ms, bound 600",
		  (unsigned long long)ms);
	return 0;
}

/*
 * A failure case: @n workers of @s loaded; @victim is killed (SIGKILL,
 * reaped) before the collective when @kill_victim, else it stalls (does
 * not execute until the others are done, then runs one execution). The
 * others execute twice: each execution NRT_EXEC_HW_ERR_COLLECTIVES, the
 * first within @bound_ms plus a margin (for a stall, not before the
 * bound; for a killed worker, within KILLED_MS), the second at once; the
 * stalled worker's late one fails too.
 * Every 1200 moved its NeuronCore's hw_collectives_error by one.
 */
#define KILLED_MS 2000	/* "at once" after a worker's death, even on a slow (KASAN) guest */
static int failing_job(struct wspec *s, int n, int victim, int kill_victim, long bound_ms)
{
	struct worker wk[MAX_WORKERS];
	uint64_t before[NCS], after[NCS], want[NCS] = { 0 };
	int i, k;

	coll_totals(before);
	for (i = 0; i < n; i++) {
		s[i].wait_go = 1;
		s[i].execs = i == victim ? 1 : 2;
		if (start(&wk[i], &s[i])) {
			finish_all(wk, i);
			VT_ASSERT(0, "fork worker %d", i);
		}
	}
	for (i = 0; i < n; i++)
		if (report(&wk[i], 1, 30000) || wk[i].load.load_st != NRT_SUCCESS) {
			finish_all(wk, n);
			VT_ASSERT(0, "worker %d: load %s", i, nrt_get_status_as_str(wk[i].load.load_st));
		}
	if (kill_victim)
		VT_ASSERT(finish(&wk[victim], 1) == -1, "the victim was not killed");
	for (i = 0; i < n; i++)
		if (i != victim)
			go(&wk[i]);
	for (i = 0; i < n; i++) {
		if (i == victim)
			continue;
		if (report(&wk[i], 3, 30000) || report(&wk[i], 2, bound_ms + 30000)) {
			finish_all(wk, n);
			VT_ASSERT(0, "worker %d did not report its executions", i);
		}
	}
	if (!kill_victim) {
		go(&wk[victim]);
		if (report(&wk[victim], 3, 30000) || report(&wk[victim], 2, bound_ms + 30000)) {
			finish_all(wk, n);
			VT_ASSERT(0, "the stalled worker did not report");
		}
	}
	for (i = 0; i < n; i++) {
		if (i == victim && kill_victim)
			continue;
		VT_ASSERT(finish(&wk[i], 0) == 0, "worker %d exit", i);
		for (k = 0; k < wk[i].run.done; k++) {
			VT_ASSERT(wk[i].run.exec_st[k] == COLL_ERR, "worker %d execution %d: %s", i, k,
				  nrt_get_status_as_str(wk[i].run.exec_st[k]));
			want[s[i].nc]++;
			coll_errors++;
		}
		VT_ASSERT(wk[i].run.done == s[i].execs, "worker %d ran %d", i, wk[i].run.done);
		if (i == victim) {
			/* the others gave up on it: its late step fails at once */
			VT_ASSERT(wk[i].run.fail_ms < (uint32_t)bound_ms,
				  "the stalled worker's late execution took %u ms", wk[i].run.fail_ms);
			continue;
		}
		VT_ASSERT(wk[i].run.fail_ms <= (uint32_t)bound_ms + 5000,
			  "worker %d: the failed execution took %u ms, bound %ld", i, wk[i].run.fail_ms,
			  bound_ms);
		/* a killed worker is seen at once (its sockets close), far from the bound */
		if (kill_victim)
			VT_ASSERT(wk[i].run.fail_ms < KILLED_MS && KILLED_MS * 4 < bound_ms,
				  "worker %d: the failed execution took %u ms after a worker was killed, "
				  "bound %ld", i, wk[i].run.fail_ms, bound_ms);
		/* rank 0 waits out the stall (who waits for rank 0 is told then) */
		if (!kill_victim && i == 0)
			VT_ASSERT(wk[i].run.fail_ms >= (uint32_t)bound_ms,
				  "rank 0 gave up after %u ms, before the %ld ms bound", wk[i].run.fail_ms,
				  bound_ms);
	}
	coll_totals(after);
	for (k = 0; k < NCS; k++)
		VT_ASSERT(after[k] - before[k] == want[k],
			  "nc%d hw_collectives_error moved by %llu, expected %llu", k,
			  (unsigned long long)(after[k] - before[k]), (unsigned long long)want[k]);
	return 0;
}

/* A worker killed before the collective: the other returns 1200 at once. */
static int killed_worker(void)
{
	struct wspec s[2] = { spec(0, 2, "localhost:7020", 3), spec(1, 2, "localhost:7020", 3) };

	return failing_job(s, 2, 1, 1, 10000);
}

/* Rank 0 killed before the collective: the workers return 1200 at once. */
static int killed_root(void)
{
	struct wspec s[3] = { spec(0, 3, "localhost:7021", 3), spec(1, 3, "localhost:7021", 3),
			      spec(2, 3, "localhost:7021", 3) };

	return failing_job(s, 3, 0, 1, 10000);
}

/*
 * A stalled worker (alive, not executing) among three: rank 0 gives up at
 * the 1 s bound, the other worker is told then; both 1200.
 */
static int stalled_worker(void)
{
	struct wspec s[3] = { spec(0, 3, "localhost:7022", 3), spec(1, 3, "localhost:7022", 3),
			      spec(2, 3, "localhost:7022", 3) };
	int i;

	for (i = 0; i < 3; i++)
		s[i].timeout_ms = "1000";
	return failing_job(s, 3, 1, 0, 1000);
}

/*
 * A worker killed in the middle of its collective (inside nrt_execute,
 * waiting for rank 0, which has not come yet): rank 0 then fails at once,
 * and nothing of the dead worker is left to block the next job.
 */
static int killed_mid_collective(void)
{
	struct wspec s[2] = { spec(0, 2, NULL, 9), spec(1, 2, NULL, 9) };
	struct worker wk[2];
	uint64_t before[NCS], after[NCS];
	int i;

	coll_totals(before);
	s[0].wait_go = 1;
	s[1].execs = 1;
	for (i = 0; i < 2; i++)
		if (start(&wk[i], &s[i])) {
			finish_all(wk, i);
			VT_ASSERT(0, "fork worker %d", i);
		}
	for (i = 0; i < 2; i++)
		if (report(&wk[i], 1, 30000) || wk[i].load.load_st != NRT_SUCCESS) {
			finish_all(wk, 2);
			VT_ASSERT(0, "worker %d: load %s", i, nrt_get_status_as_str(wk[i].load.load_st));
		}
	/* rank 1 is inside its collective step (10 s bound), waiting in poll() */
	if (report(&wk[1], 3, 30000) || !in_poll(wk[1].pid, 20000)) {
		finish_all(wk, 2);
		VT_ASSERT(0, "rank 1 did not reach its collective step");
	}
	VT_ASSERT(finish(&wk[1], 1) == -1, "rank 1 was not killed");
	go(&wk[0]);
	if (report(&wk[0], 3, 30000) || report(&wk[0], 2, 30000)) {
		finish_all(wk, 2);
		VT_ASSERT(0, "rank 0 did not report");
	}
	VT_ASSERT(finish(&wk[0], 0) == 0, "rank 0 exit");
	VT_ASSERT(wk[0].run.exec_st[0] == COLL_ERR, "rank 0: %s",
		  nrt_get_status_as_str(wk[0].run.exec_st[0]));
	VT_ASSERT(wk[0].run.fail_ms < 10000, "rank 0's failed execution took %u ms", wk[0].run.fail_ms);
	coll_errors++;
	coll_totals(after);
	VT_ASSERT(after[0] - before[0] == 1, "nc0 hw_collectives_error moved by %llu",
		  (unsigned long long)(after[0] - before[0]));
	return 0;
}

/*
 * A worker whose own execution fails before its collective step (no input
 * tensor: NRT_EXEC_BAD_INPUT): it says so to the others, so rank 0 returns
 * 1200 at once rather than at its 10 s bound.
 */
static int own_failure_told(void)
{
	struct wspec s[2] = { spec(0, 2, "localhost:7023", 5), spec(1, 2, "localhost:7023", 5) };
	struct worker wk[2];
	uint64_t before[NCS], after[NCS];
	int i;

	coll_totals(before);
	s[1].bad_input = 1;
	for (i = 0; i < 2; i++)
		if (start(&wk[i], &s[i])) {
			finish_all(wk, i);
			VT_ASSERT(0, "fork worker %d", i);
		}
	for (i = 0; i < 2; i++)
		if (report(&wk[i], 1, 30000) || wk[i].load.load_st != NRT_SUCCESS) {
			finish_all(wk, 2);
			VT_ASSERT(0, "worker %d: load %s", i, nrt_get_status_as_str(wk[i].load.load_st));
		}
	for (i = 0; i < 2; i++)
		if (report(&wk[i], 3, 30000) || report(&wk[i], 2, 30000)) {
			finish_all(wk, 2);
			VT_ASSERT(0, "worker %d did not report its execution", i);
		}
	for (i = 0; i < 2; i++)
		VT_ASSERT(finish(&wk[i], 0) == 0, "worker %d exit", i);
	VT_ASSERT(wk[1].run.exec_st[0] == NRT_EXEC_BAD_INPUT, "rank 1: %s",
		  nrt_get_status_as_str(wk[1].run.exec_st[0]));
	VT_ASSERT(wk[0].run.exec_st[0] == COLL_ERR, "rank 0: %s",
		  nrt_get_status_as_str(wk[0].run.exec_st[0]));
	VT_ASSERT(wk[0].run.fail_ms < KILLED_MS, "rank 0's failed execution took %u ms, bound 10000",
		  wk[0].run.fail_ms);
	coll_errors++;
	coll_totals(after);
	VT_ASSERT(after[0] - before[0] == 1 && after[1] - before[1] == 0,
		  "hw_collectives_error moved by %llu (nc0) and %llu (nc1), expected 1 and 0",
		  (unsigned long long)(after[0] - before[0]), (unsigned long long)(after[1] - before[1]));
	return 0;
}

/* After every failure above: a new job under the same names works. */
static int next_job_works(void)
{
	struct wspec s[4] = { spec(0, 2, NULL, 77), spec(1, 2, NULL, 77),
			      spec(0, 2, "localhost:7020", 78), spec(1, 2, "localhost:7020", 78) };

	s[2].nc = 2;
	s[3].nc = 3;
	for (int i = 0; i < 4; i++)
		s[i].execs = 3;
	return run_ok(s, 4);
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(allreduce_2),
		VT_CASE(allreduce_4),
		VT_CASE(two_jobs_apart),
		VT_CASE(load_refused),
		VT_CASE(killed_worker),
		VT_CASE(killed_root),
		VT_CASE(stalled_worker),
		VT_CASE(killed_mid_collective),
		VT_CASE(own_failure_told),
		VT_CASE(next_job_works),
	};
	const char *errs_file = getenv("COLL_ERRORS_FILE");
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s NEFF_DIR\n", argv[0]);
		return 2;
	}
	neff_dir = argv[1];
	signal(SIGPIPE, SIG_IGN);	/* a worker that died is a failed check, not our end */
	ret = vt_run("sdk_coll", cases, VT_COUNT(cases));
	if (errs_file) {
		FILE *f = fopen(errs_file, "w");

		if (!f || fprintf(f, "%llu\n", (unsigned long long)coll_errors) < 0)
			ret = 1;
		if (f && fclose(f))
			ret = 1;
	}
	return ret;
}
