// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: exactness under pressure (tests/vm/70_pressure.sh).
 *
 *   vm_pressure [--seed N] [--seconds N] [--monitor PATH]
 *
 * Expects the module loaded with sim_devices=1 sim_nc_per_device=8.
 *
 * 16 processes x 4 threads count through libnrt's NDS API
 * (nds_increment_nc_counter) on /dev/neuron0, which has exactly 16 slabs.
 * Process i counts on NeuronCore i % 8; its thread t on one status counter
 * of its own (success, generic_error, execute_sw_semaphore_error,
 * oob_error), so a (NeuronCore, counter) cell is written by exactly one
 * thread of each of its two processes. Every thread keeps its tally in
 * shared memory: `pre` before the increment, `post` after it. Meanwhile:
 *  - two processes read the sysfs totals of every counted cell in a loop,
 *    and a total must never go backwards;
 *  - one process runs `neuron-monitor --counters` (a netlink dump) in a
 *    loop: it must succeed and its totals never go backwards;
 *  - one process posts the metrics (debugfs fw/post_now) in a loop: every
 *    post must succeed;
 *  - two job processes hold NeuronCores 0-1 and 2-3 with an ERROR ring each,
 *    arm random faults through debugfs (inject/tpb_error, hw_error,
 *    nq_flood, hang) and run simulated jobs: each job must report exactly
 *    the entries armed on its core (inject/armed before the job counts what
 *    a killed predecessor left), none dropped, and an armed hang ETIMEDOUT;
 *  - the parent SIGKILLs a random counting or job process every 20-150 ms
 *    (seeded) and starts it again; the new process must get its slab (or
 *    its cores and rings) at the first attempt: the killed one's are free.
 * At the end (everything stopped and exited) each sysfs total equals the
 * threads' tallies: post <= total <= pre, and pre - post is at most the
 * number of kills of processes on that NeuronCore (a kill between the
 * increment and the tally); the kills and the differences are counted and
 * printed. Then every slab is free (16 new processes get one, a 17th gets
 * ENOSPC) and every NeuronCore and ring too (no owner in inject/armed, and
 * a new process creates each ring again with another size).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>
#include <nrt/nds/neuron_ds.h>

#include "vmdev.h"

#define PROCS		16
#define THREADS		4
#define NC		8
#define JOBPROCS	2
#define CORES_PER_JOB	2
#define RING_BYTES	4096	/* 256 entries */
#define START_BOUND_MS	90000	/* every counting process has counted */
#define SYS		"/sys/devices/virtual/neuron_device/neuron0"
#define DBG		"/sys/kernel/debug/neuron/neuron0"

static const uint32_t counter_id[THREADS] = {
	NDS_NC_COUNTER_INFER_COMPLETED, NDS_NC_COUNTER_ERR_GENERIC,
	NDS_EXT_NC_COUNTER_ERR_SW_SEMAPHORE_ERROR, NDS_NC_COUNTER_OOB,
};
static const char *const counter_name[THREADS] = {
	"success", "generic_error", "execute_sw_semaphore_error", "oob_error",
};

struct tally {
	_Atomic uint64_t pre, post;
};

#define NMSG 40
/* How far the current incarnation of a counting slot got (for messages). */
enum { ST_FORKED, ST_DEVICE, ST_SLAB, ST_THREADS, ST_FAILED };
static const char *const stage_name[] = { "forked", "device opened", "slab acquired",
					  "threads started", "failed (exited)" };

struct shared {
	struct tally t[PROCS][THREADS];
	_Atomic int stage[PROCS];
	_Atomic int stop;
	_Atomic int stop_jobs;
	_Atomic uint64_t incarnations, acquire_retry, acquire_fail;
	_Atomic uint64_t kills_nc[NC], kills_jobs;
	_Atomic uint64_t jobs, job_bad, job_hangs, job_entries, ring_retry, ring_fail;
	_Atomic uint64_t sysfs_reads, sysfs_back, sysfs_err;
	_Atomic uint64_t dumps, dump_fail, dump_back;
	_Atomic uint64_t posts, post_fail;
	_Atomic uint32_t nmsg;
	char msg[NMSG][200];
};

static struct shared *sh;
static uint64_t g_seed, g_rng;
static unsigned int g_seconds = 20;
static const char *g_monitor = "/tests/neuron-monitor";

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint64_t *s, uint32_t n) { return n ? (uint32_t)(splitmix(s) % n) : 0; }

static void note(const char *fmt, ...)
{
	va_list ap;
	uint32_t i = atomic_fetch_add(&sh->nmsg, 1);

	if (i >= NMSG)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->msg[i], sizeof(sh->msg[i]), fmt, ap);
	va_end(ap);
}

/* ---- counting processes ----------------------------------------------------- */

struct counter_arg {
	nds_instance_t *inst;
	int slot, t;
};

static void *count_thread(void *p)
{
	struct counter_arg *a = p;
	struct tally *ty = &sh->t[a->slot][a->t];
	int nc = a->slot % NC;
	uint64_t n = 0;

	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		atomic_fetch_add(&ty->pre, 1);
		nds_increment_nc_counter(a->inst, nc, counter_id[a->t], 1);
		atomic_fetch_add(&ty->post, 1);
		if (!(++n & 1023))
			sched_yield();
	}
	return NULL;
}

static int counter_body(int slot)
{
	struct counter_arg ca[THREADS];
	pthread_t th[THREADS];
	ndl_device_t *dev = NULL;
	nds_instance_t *inst = NULL;
	uint64_t t0 = vt_now_ms();
	int r, t, tries = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * 64 threads that never sleep would leave the observers (2 vCPUs
	 * under TCG) a few reads a second: they run at nice 10.
	 */
	if (nice(10) < 0)
		return 1;
	if (ndl_open_device(0, NULL, &dev))
		return 1;
	atomic_store(&sh->stage[slot], ST_DEVICE);
	/* the slab of a killed predecessor must already be free */
	while ((r = nds_open(dev, 0, &inst))) {
		if (!tries++) {
			atomic_fetch_add(&sh->acquire_fail, 1);
			note("counting process %d: no slab at the first attempt: %s", slot, strerror(-r));
		}
		atomic_fetch_add(&sh->acquire_retry, 1);
		if (vt_now_ms() - t0 > 5000 || atomic_load(&sh->stop))
			return 2;
		vt_pace_ms(5);
	}
	atomic_fetch_add(&sh->incarnations, 1);
	atomic_store(&sh->stage[slot], ST_SLAB);
	for (t = 0; t < THREADS; t++) {
		ca[t] = (struct counter_arg){ inst, slot, t };
		if (pthread_create(&th[t], NULL, count_thread, &ca[t]))
			return 3;
	}
	atomic_store(&sh->stage[slot], ST_THREADS);
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	nds_close(inst);
	ndl_close_device(dev);
	return 0;
}

static int counter_main(int slot)
{
	int ret = counter_body(slot);

	if (ret)	/* the parent's start wait ends at once */
		atomic_store(&sh->stage[slot], ST_FAILED);
	return ret;
}

/* ---- job processes: faults through debugfs, simulated jobs, error rings ------ */

/* What inject/armed says is armed on @nc: entries a job would write, and hang. */
static int armed(int nc, uint32_t *entries, int *hang)
{
	char buf[4096], key[16], *l, *p;
	unsigned int flood, h;

	if (vt_read_file(DBG "/inject/armed", buf, sizeof(buf)))
		return -1;
	snprintf(key, sizeof(key), "nc%d ", nc);
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		if (strncmp(l, key, strlen(key)))
			continue;
		p = strstr(l, " flood ");
		if (!p || sscanf(p, " flood %u hang %u", &flood, &h) != 2)
			return -1;
		*entries = flood;
		*hang = (int)h;
		while ((p = strchr(p + 1, ':')))
			*entries += (uint32_t)strtoul(p + 1, NULL, 10);
		return 0;
	}
	return -1;
}

static const char *const tpb[] = { "FP_NAN", "SEMAPHORE_ERROR", "EVENT_ERROR", "PSUM_COLLISION",
				   "SEQUENCER_FATAL", "MEMORY_ERROR" };
static const char *const hw[] = { "collectives", "hbm_ue", "nc_ue", "dma_abort", "repairable_hbm_ue" };

static int job_main(int j, uint64_t seed)
{
	struct neuron_nq_ctrl *ring[CORES_PER_JOB];
	uint64_t rng = seed, t0 = vt_now_ms();
	int fd, k, tries;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 1;
	for (k = 0; k < CORES_PER_JOB; k++) {
		struct neuron_nq_init q;
		void *m;

		for (tries = 0;; tries++) {
			memset(&q, 0, sizeof(q));
			q.size = sizeof(q);
			q.nc = (uint32_t)(j * CORES_PER_JOB + k);
			q.nq_type = NEURON_NQ_TYPE_ERROR;
			q.ring_size = RING_BYTES;
			if (ioctl(fd, NEURON_IOCTL_NQ_INIT, &q) == 0)
				break;
			/* the core and ring of a killed predecessor must be free */
			if (!tries) {
				atomic_fetch_add(&sh->ring_fail, 1);
				note("job process %d: NQ_INIT nc %u at the first attempt: %s", j, q.nc,
				     strerror(errno));
			}
			atomic_fetch_add(&sh->ring_retry, 1);
			if (vt_now_ms() - t0 > 5000)
				return 2;
			vt_pace_ms(5);
		}
		m = mmap(NULL, q.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)q.mmap_offset);
		if (m == MAP_FAILED)
			return 3;
		ring[k] = m;
	}
	while (!atomic_load(&sh->stop_jobs)) {
		struct neuron_sim_exec x;
		uint32_t want, tail0;
		int hang, r, nc;

		k = (int)below(&rng, CORES_PER_JOB);
		nc = j * CORES_PER_JOB + k;
		switch (below(&rng, 20)) {
		case 0: case 1: case 2: case 3: case 4: case 5:
			vt_inject(0, "tpb_error", "%d %s %u", nc, tpb[below(&rng, 6)],
				  1 + below(&rng, 4));
			break;
		case 6: case 7: case 8:
			vt_inject(0, "hw_error", "%d %s %u", nc, hw[below(&rng, 5)],
				  1 + below(&rng, 4));
			break;
		case 9: case 10:
			vt_inject(0, "nq_flood", "%d %u", nc, 1 + below(&rng, 32));
			break;
		case 11:
			vt_inject(0, "hang", "%d", nc);
			break;
		default:
			break;
		}
		/* only this process arms its cores: armed now is what the job writes */
		if (armed(nc, &want, &hang)) {
			atomic_fetch_add(&sh->job_bad, 1);
			note("job process %d: cannot read inject/armed", j);
			continue;
		}
		tail0 = __atomic_load_n(&ring[k]->tail, __ATOMIC_ACQUIRE);
		memset(&x, 0, sizeof(x));
		x.size = sizeof(x);
		x.nc = (uint32_t)nc;
		x.duration_us = 100 + below(&rng, 900);
		x.timeout_us = 100000;
		errno = 0;
		r = ioctl(fd, NEURON_IOCTL_SIM_EXEC, &x);
		atomic_fetch_add(&sh->jobs, 1);
		if (hang) {
			atomic_fetch_add(&sh->job_hangs, 1);
			if (r != -1 || errno != ETIMEDOUT) {
				atomic_fetch_add(&sh->job_bad, 1);
				note("job on nc %d armed to hang: %d/%s, expected ETIMEDOUT", nc, r, strerror(errno));
			}
		} else if (r || x.entries != want || x.dropped ||
			   __atomic_load_n(&ring[k]->tail, __ATOMIC_ACQUIRE) - tail0 != want) {
			atomic_fetch_add(&sh->job_bad, 1);
			note("job on nc %d: %d/%s, %u entries %u dropped, ring tail +%u, armed %u", nc, r,
			     r ? strerror(errno) : "ok", x.entries, x.dropped,
			     __atomic_load_n(&ring[k]->tail, __ATOMIC_ACQUIRE) - tail0, want);
		}
		atomic_fetch_add(&sh->job_entries, x.entries);
		/* consume everything: the next job starts on an empty ring */
		__atomic_store_n(&ring[k]->head, __atomic_load_n(&ring[k]->tail, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	return 0;
}

/* ---- observers ------------------------------------------------------------------ */

static int sysfs_reader_main(void)
{
	uint64_t last[NC][THREADS] = { { 0 } };
	int nc, t;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!atomic_load(&sh->stop)) {
		for (nc = 0; nc < NC; nc++)
			for (t = 0; t < THREADS; t++) {
				uint64_t v = vt_status_total(0, nc, counter_name[t]);

				atomic_fetch_add(&sh->sysfs_reads, 1);
				if (v == UINT64_MAX) {
					atomic_fetch_add(&sh->sysfs_err, 1);
					continue;
				}
				if (v < last[nc][t]) {
					atomic_fetch_add(&sh->sysfs_back, 1);
					note("sysfs nc%d %s went from %llu to %llu", nc, counter_name[t],
					     (unsigned long long)last[nc][t], (unsigned long long)v);
				}
				last[nc][t] = v;
			}
	}
	return 0;
}

static int monitor_main(void)
{
	uint64_t last[NC][THREADS] = { { 0 } };
	char line[256];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!atomic_load(&sh->stop)) {
		int p[2], st, rows = 0;
		pid_t pid;
		FILE *f;

		if (pipe(p))
			return 1;
		pid = fork();
		if (pid == 0) {
			dup2(p[1], 1);
			close(p[0]);
			close(p[1]);
			execl(g_monitor, "neuron-monitor", "--counters", "--device", "0", (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		f = fdopen(p[0], "r");
		while (f && fgets(line, sizeof(line), f)) {
			unsigned int dev, core, id;
			unsigned long long total;
			char name[64];
			int t;

			if (sscanf(line, "%u %u %63s %u %llu", &dev, &core, name, &id, &total) != 5)
				continue;
			rows++;
			for (t = 0; t < THREADS && core < NC; t++) {
				if (strcmp(name, counter_name[t]))
					continue;
				if (total < last[core][t]) {
					atomic_fetch_add(&sh->dump_back, 1);
					note("dump nc%u %s went from %llu to %llu", core, name,
					     (unsigned long long)last[core][t], total);
				}
				last[core][t] = total;
			}
		}
		if (f)
			fclose(f);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		atomic_fetch_add(&sh->dumps, 1);
		if (!WIFEXITED(st) || WEXITSTATUS(st) || rows != NC * 24) {
			atomic_fetch_add(&sh->dump_fail, 1);
			note("neuron-monitor --counters: status 0x%x, %d rows (want %d)", st, rows, NC * 24);
		}
	}
	return 0;
}

static int poster_main(void)
{
	int r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!atomic_load(&sh->stop)) {
		r = vt_write_file(DBG "/fw/post_now", "1\n");
		atomic_fetch_add(&sh->posts, 1);
		if (r) {
			atomic_fetch_add(&sh->post_fail, 1);
			note("metrics post: %s", strerror(-r));
		}
		vt_pace_ms(20);
	}
	return 0;
}

/* ---- the parent ---------------------------------------------------------------------- */

static pid_t counters[PROCS], jobs[JOBPROCS], observers[4];
static uint64_t g_kills, g_base[NC][THREADS], g_fw_err0, g_fw_tmo0;
static double g_elapsed;

/*
 * SIGKILL a counting process. Its threads run at nice 10: back to 0 first
 * (nice is per thread), or they would take seconds to get the CPU time to
 * die, and the parent would kill a handful of processes per run.
 */
static void kill_counter(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			setpriority(PRIO_PROCESS, (id_t)atoi(de->d_name), 0);
	if (d)
		closedir(d);
	kill(pid, SIGKILL);
}

/* Threads of counting slot @i that have counted at least once. */
static int slot_threads_counted(int i)
{
	int t, n = 0;

	for (t = 0; t < THREADS; t++)
		n += atomic_load(&sh->t[i][t].post) != 0;
	return n;
}

static pid_t start(int (*fn)(int), int arg)
{
	pid_t p;

	if (fn == counter_main)
		atomic_store(&sh->stage[arg], ST_FORKED);
	p = fork();

	if (p == 0)
		_exit(fn(arg));
	return p;
}

static int job_entry(int j) { return job_main(j, splitmix(&g_rng) ^ (uint64_t)j); }
static int reader_entry(int unused) { (void)unused; return sysfs_reader_main(); }
static int monitor_entry(int unused) { (void)unused; return monitor_main(); }
static int poster_entry(int unused) { (void)unused; return poster_main(); }

static int reap(pid_t p, const char *what, int i)
{
	int st;

	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (!what)	/* killed on purpose */
		return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : -1;
	note("%s %d ended with %s %d", what, i, WIFSIGNALED(st) ? "signal" : "status",
	     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return -1;
}

static void print_notes(void)
{
	uint32_t i, n = atomic_load(&sh->nmsg);

	for (i = 0; i < n && i < NMSG; i++)
		printf("pressure: %s\n", sh->msg[i]);
}

static int c_run(void)
{
	uint64_t t0, end;
	int i, bad = 0, nc, t;

	for (nc = 0; nc < NC; nc++)
		for (t = 0; t < THREADS; t++)
			g_base[nc][t] = vt_status_total(0, nc, counter_name[t]);
	g_fw_err0 = vt_sys_u64(0, "stats/fw_io/err_count");
	g_fw_tmo0 = vt_sys_u64(0, "stats/fw_io/timeout_count");
	t0 = vt_now_ms();
	for (i = 0; i < PROCS; i++)
		counters[i] = start(counter_main, i);
	for (i = 0; i < JOBPROCS; i++)
		jobs[i] = start(job_entry, i);
	observers[0] = start(reader_entry, 0);
	observers[1] = start(reader_entry, 1);
	observers[2] = start(monitor_entry, 0);
	observers[3] = start(poster_entry, 0);

	/*
	 * The phase starts once every counting slot has counted: 64 threads
	 * at nice 10 on two emulated CPUs may take seconds to get going, and
	 * a phase that ended first would leave a slot unexercised (seen on
	 * 5.10 with a 12 s phase). One thread of each process is enough:
	 * the time until the last of all 64 threads has run once has a long
	 * tail under TCG (0.8 to 36.9 s measured, and twice a process was
	 * still a thread short after 90 s), and a thread that never ran adds nothing to
	 * its cells and to its tallies alike. A process none of whose
	 * threads counts within the bound is a failure, and its stage says
	 * where it stopped.
	 */
	for (i = 0; i < PROCS; i++) {
		while (!slot_threads_counted(i) && atomic_load(&sh->stage[i]) != ST_FAILED &&
		       vt_now_ms() - t0 < START_BOUND_MS)
			vt_pace_ms(10);
		if (!slot_threads_counted(i)) {
			note("counting process %d was not counting %.1f s after its start (stage: %s)", i,
			     (double)(vt_now_ms() - t0) / 1000.0,
			     stage_name[atomic_load(&sh->stage[i])]);
			bad = 1;
		}
	}
	if (!bad) {
		for (i = 0, t = 0; i < PROCS; i++)
			t += slot_threads_counted(i);
		printf("pressure: all %d counting processes counted %.1f s after the start (%d of their %d threads)\n",
		       PROCS, (double)(vt_now_ms() - t0) / 1000.0, t, PROCS * THREADS);
	}
	end = vt_now_ms() + (uint64_t)g_seconds * 1000;
	while (!bad && vt_now_ms() < end) {
		vt_pace_ms(20 + below(&g_rng, 130));
		if (below(&g_rng, 5)) {
			/* every slot has counted (the start wait; tallies are cumulative) */
			i = (int)below(&g_rng, PROCS);
			kill_counter(counters[i]);
			if (reap(counters[i], NULL, i))
				note("counting process %d was not killed by SIGKILL", i);
			atomic_fetch_add(&sh->kills_nc[i % NC], 1);
			counters[i] = start(counter_main, i);
		} else {
			i = (int)below(&g_rng, JOBPROCS);
			kill(jobs[i], SIGKILL);
			if (reap(jobs[i], NULL, i))
				note("job process %d was not killed by SIGKILL", i);
			atomic_fetch_add(&sh->kills_jobs, 1);
			jobs[i] = start(job_entry, i);
		}
		g_kills++;
	}
	atomic_store(&sh->stop_jobs, 1);
	for (i = 0; i < JOBPROCS; i++)
		bad |= reap(jobs[i], "job process", i);
	atomic_store(&sh->stop, 1);
	for (i = 0; i < PROCS; i++)
		bad |= reap(counters[i], "counting process", i);
	for (i = 0; i < 4; i++)
		bad |= reap(observers[i], "observer", i);
	g_elapsed = (double)(vt_now_ms() - t0) / 1000.0;

	{
		uint64_t inc = 0;

		for (i = 0; i < PROCS; i++)
			for (t = 0; t < THREADS; t++)
				inc += atomic_load(&sh->t[i][t].post);
		printf("pressure: seed 0x%016" PRIx64 ", %.1f s: %" PRIu64 " increments by %" PRIu64
		       " counting processes (16 x 4 threads at a time), %" PRIu64 " SIGKILLs (%" PRIu64
		       " of job processes)\n", g_seed, g_elapsed, inc, atomic_load(&sh->incarnations), g_kills,
		       atomic_load(&sh->kills_jobs));
		printf("pressure: %" PRIu64 " sysfs reads, %" PRIu64 " netlink dumps, %" PRIu64
		       " metrics posts, %" PRIu64 " jobs (%" PRIu64 " hung on purpose, %" PRIu64
		       " error entries)\n", atomic_load(&sh->sysfs_reads), atomic_load(&sh->dumps),
		       atomic_load(&sh->posts), atomic_load(&sh->jobs), atomic_load(&sh->job_hangs),
		       atomic_load(&sh->job_entries));
	}
	if (bad)
		print_notes();
	VT_ASSERT(!bad, "a process failed or a counting thread never counted (see above)");
	print_notes();
	VT_ASSERT(g_kills > 0 && atomic_load(&sh->incarnations) > PROCS, "nothing was killed and restarted");
	return 0;
}

static int c_refork_slab(void)
{
	VT_ASSERT(atomic_load(&sh->acquire_fail) == 0,
		  "%llu restarted counting processes found no free slab at first (%llu retries): a killed process's slab was not released",
		  (unsigned long long)atomic_load(&sh->acquire_fail),
		  (unsigned long long)atomic_load(&sh->acquire_retry));
	return 0;
}

static int c_refork_ring(void)
{
	VT_ASSERT(atomic_load(&sh->ring_fail) == 0,
		  "%llu restarted job processes could not take their core and ring at first: a killed process's were not released",
		  (unsigned long long)atomic_load(&sh->ring_fail));
	return 0;
}

static int c_jobs_exact(void)
{
	VT_ASSERT(atomic_load(&sh->jobs) > 0, "no job ran");
	VT_ASSERT(atomic_load(&sh->job_bad) == 0, "%llu of %llu jobs did not report exactly what was armed",
		  (unsigned long long)atomic_load(&sh->job_bad), (unsigned long long)atomic_load(&sh->jobs));
	return 0;
}

static int c_sysfs_monotonic(void)
{
	VT_ASSERT(atomic_load(&sh->sysfs_reads) > 0, "no sysfs read");
	VT_ASSERT(atomic_load(&sh->sysfs_err) == 0, "%llu sysfs reads failed",
		  (unsigned long long)atomic_load(&sh->sysfs_err));
	VT_ASSERT(atomic_load(&sh->sysfs_back) == 0, "%llu sysfs totals went backwards",
		  (unsigned long long)atomic_load(&sh->sysfs_back));
	return 0;
}

static int c_dumps(void)
{
	VT_ASSERT(atomic_load(&sh->dumps) > 0, "no netlink dump ran");
	VT_ASSERT(atomic_load(&sh->dump_fail) == 0, "%llu of %llu dumps failed or were incomplete",
		  (unsigned long long)atomic_load(&sh->dump_fail), (unsigned long long)atomic_load(&sh->dumps));
	VT_ASSERT(atomic_load(&sh->dump_back) == 0, "%llu dumped totals went backwards",
		  (unsigned long long)atomic_load(&sh->dump_back));
	return 0;
}

static int c_posts(void)
{
	VT_ASSERT(atomic_load(&sh->posts) > 0, "no metrics post ran");
	VT_ASSERT(atomic_load(&sh->post_fail) == 0, "%llu of %llu posts failed",
		  (unsigned long long)atomic_load(&sh->post_fail), (unsigned long long)atomic_load(&sh->posts));
	/*
	 * No fault is armed: the firmware never answers with an error. An
	 * attempt may time out (fwio_timeout_ms, 1 s) when the firmware's
	 * work item is starved, as under KASAN on TCG with 64 busy threads;
	 * the exchange then retries, and timeout_count says so.
	 */
	printf("pressure: FW-IO during the posts: %llu error answers, %llu attempts timed out (retried)\n",
	       (unsigned long long)(vt_sys_u64(0, "stats/fw_io/err_count") - g_fw_err0),
	       (unsigned long long)(vt_sys_u64(0, "stats/fw_io/timeout_count") - g_fw_tmo0));
	VT_ASSERT(vt_sys_u64(0, "stats/fw_io/err_count") == g_fw_err0,
		  "the firmware answered with errors during the posts");
	return 0;
}

static int c_totals(void)
{
	int nc, t, i, bad = 0;
	uint64_t diff_total = 0;

	for (nc = 0; nc < NC; nc++)
		for (t = 0; t < THREADS; t++) {
			uint64_t pre = 0, post = 0, kills = atomic_load(&sh->kills_nc[nc]);
			uint64_t s = vt_status_total(0, nc, counter_name[t]) - g_base[nc][t];

			for (i = nc; i < PROCS; i += NC) {
				pre += atomic_load(&sh->t[i][t].pre);
				post += atomic_load(&sh->t[i][t].post);
			}
			diff_total += pre - post;
			if (s < post || s > pre || pre - post > kills) {
				printf("pressure: nc%d %s: sysfs %llu, tallies post %llu pre %llu, %llu kills on the core\n",
				       nc, counter_name[t], (unsigned long long)s, (unsigned long long)post,
				       (unsigned long long)pre, (unsigned long long)kills);
				bad++;
			}
		}
	printf("pressure: 32 cells, tallies pre - post summed over them %llu (a kill between increment and tally), kills of counting processes %llu\n",
	       (unsigned long long)diff_total, (unsigned long long)(g_kills - atomic_load(&sh->kills_jobs)));
	VT_ASSERT(!bad, "%d of 32 (NeuronCore, counter) totals differ from the tallies", bad);
	return 0;
}

static int holder(struct vt_child *c, void *arg)
{
	ndl_device_t *dev = NULL;
	nds_instance_t *inst = NULL;
	int i;

	(void)arg;
	for (i = 3; i < 1024; i++)
		if (i != c->ready_fd && i != c->hold_fd)
			close(i);
	alarm(60);
	if (ndl_open_device(0, NULL, &dev) || nds_open(dev, 0, &inst))
		return 1;
	return vt_child_hold(c) ? 2 : 0;
}

static int c_slabs_released(void)
{
	struct vt_child ch[NEURON_NDS_PER_DEVICE];
	ndl_device_t *dev = NULL;
	nds_instance_t *inst = NULL;
	int k, started = 0, ok = 1, r;

	for (k = 0; k < NEURON_NDS_PER_DEVICE; k++)
		if (vt_child_start(&ch[k], holder, NULL) == 0)
			started++;
	r = ndl_open_device(0, NULL, &dev) ? -1 : nds_open(dev, 0, &inst);
	if (inst)
		nds_close(inst);
	if (dev)
		ndl_close_device(dev);
	for (k = 0; k < NEURON_NDS_PER_DEVICE; k++)
		ok &= vt_child_finish(&ch[k]);
	VT_ASSERT(started == NEURON_NDS_PER_DEVICE, "only %d of 16 new processes got a slab", started);
	VT_ASSERT(ok, "a slab holder failed");
	VT_ASSERT(r == -ENOSPC, "a 17th slab: %d, expected -ENOSPC", r);
	return 0;
}

static int c_rings_released(void)
{
	char buf[4096], *l;
	int fd, nc, lines = 0;

	VT_ASSERT(vt_read_file(DBG "/inject/armed", buf, sizeof(buf)) == 0, "inject/armed");
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		VT_ASSERT(strstr(l, " owner 0 "), "a NeuronCore is still held: %s", l);
		lines++;
	}
	VT_ASSERT(lines == NC, "%d armed lines", lines);
	fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);
	VT_ASSERT(fd >= 0, "open");
	for (nc = 0; nc < JOBPROCS * CORES_PER_JOB; nc++) {
		struct neuron_nq_init q;

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.nc = (uint32_t)nc;
		q.nq_type = NEURON_NQ_TYPE_ERROR;
		q.ring_size = 2 * RING_BYTES;	/* another size: -EBUSY if the old ring lived on */
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &q) == 0, "ring of nc %d: %s", nc, strerror(errno));
	}
	close(fd);
	return 0;
}

/*
 * A reader that polls instead of re-reading: with info/notify_delay 0 the
 * ABI (docs/ABI/sysfs-devices-neuron) has "counter changes folded outside
 * a read (a process exiting, the counter-add ioctl) call sysfs_notify() on
 * every status counter file of the device, so poll(POLLPRI) wakes up".
 * Both documented sources: NDS_COUNTER_ADD, then the process's last close.
 */
static int c_notify(void)
{
	struct neuron_nds_acquire q;
	struct neuron_nds_counter_add a;
	struct pollfd p;
	char buf[64];
	int fd, tfd, r_add, r_close, rev_add;

	VT_ASSERT(vt_write_file(SYS "/info/notify_delay", "0") == 0, "enable notify_delay");
	fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);
	tfd = open(SYS "/neuron_core5/stats/status/oob_error/total", O_RDONLY | O_CLOEXEC);
	VT_ASSERT(fd >= 0 && tfd >= 0, "open");
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "NDS_ACQUIRE: %s", strerror(errno));
	VT_ASSERT(read(tfd, buf, sizeof(buf)) > 0, "prime read");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.nc = 5;
	a.id = NDS_NC_COUNTER_OOB;
	a.delta = 1;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a) == 0, "COUNTER_ADD: %s", strerror(errno));
	p = (struct pollfd){ .fd = tfd, .events = POLLPRI | POLLERR };
	r_add = poll(&p, 1, 5000);
	rev_add = p.revents;
	lseek(tfd, 0, SEEK_SET);
	VT_ASSERT(read(tfd, buf, sizeof(buf)) > 0, "re-arm read");
	close(fd);	/* the last close folds the slab: the other documented source */
	p.revents = 0;
	r_close = poll(&p, 1, 5000);
	close(tfd);
	vt_write_file(SYS "/info/notify_delay", "-1");
	VT_ASSERT(r_close == 1 && (p.revents & POLLPRI), "no POLLPRI after the last close either (%d)", r_close);
	VT_ASSERT(r_add == 1 && (rev_add & POLLPRI),
		  "poll(POLLPRI) on a total did not wake within 5 s of NDS_COUNTER_ADD (poll %d, revents 0x%x); it did after the last close",
		  r_add, rev_add);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		{ "ran-with-sigkills", c_run },
		{ "restarted-counter-gets-slab-at-once", c_refork_slab },
		{ "restarted-job-gets-core-and-ring-at-once", c_refork_ring },
		{ "jobs-report-exactly-what-was-armed", c_jobs_exact },
		{ "sysfs-readers-never-go-backwards", c_sysfs_monotonic },
		{ "netlink-dumps-complete-never-backwards", c_dumps },
		{ "metrics-posts-succeed", c_posts },
		{ "sysfs-totals-equal-tallies", c_totals },
		{ "every-slab-released", c_slabs_released },
		{ "every-core-and-ring-released", c_rings_released },
		{ "sysfs-poll-wakes-on-counter-add", c_notify },
	};
	int i, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			g_seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			g_seconds = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--monitor") && i + 1 < argc) {
			g_monitor = argv[++i];
		} else {
			fprintf(stderr, "usage: vm_pressure [--seed N] [--seconds N] [--monitor PATH]\n");
			return 2;
		}
	}
	if (!g_seed) {
		fd = open("/dev/urandom", O_RDONLY);
		if (fd < 0 || read(fd, &g_seed, sizeof(g_seed)) != sizeof(g_seed))
			g_seed = (uint64_t)time(NULL);
		if (fd >= 0)
			close(fd);
	}
	g_rng = g_seed;
	printf("pressure: seed 0x%016" PRIx64 " seconds %u (replay: vm_pressure --seed 0x%016" PRIx64 ")\n",
	       g_seed, g_seconds, g_seed);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	return vt_run("pressure", cases, VT_COUNT(cases));
}
