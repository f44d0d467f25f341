// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: notification rings, the simulated NeuronCore and the error path end
 * to end (inject -> ring -> decode -> NRT_STATUS -> NDS -> sysfs).
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=4.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt.h>
#include <nrt/nrt_nq.h>

#include "vmdev.h"


/* this process's own NDS counter (the runtime's slab, same slot) */
static uint64_t own_counter(int dev, int nc, uint32_t id)
{
	ndl_device_t *d = NULL;
	nds_instance_t *inst = NULL;
	uint64_t v = UINT64_MAX;

	if (ndl_open_device(dev, NULL, &d) == 0 && nds_open(d, 0, &inst) == 0) {
		nds_get_nc_counter(inst, nc, id, &v);
		nds_close(inst);
	}
	if (d)
		ndl_close_device(d);
	return v;
}

static void exec_init(struct neuron_sim_exec *e, uint32_t nc)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->nc = nc;
}

/* ---- lifecycle ----------------------------------------------------------- */

static int lifecycle_guards(void)
{
	uint32_t n = 0;

	VT_ASSERT(nrt_sim_execute(0, 0, 0) == NRT_UNINITIALIZED, "before init");
	/* the SDK: the visible count works before nrt_init() */
	VT_ASSERT(nrt_get_visible_nc_count(&n) == NRT_SUCCESS && n == 8, "visible before init %u", n);
	VT_ASSERT(nrt_get_total_nc_count(&n) == NRT_SUCCESS && n == 8, "total %u", n);
	VT_ASSERT(nrt_get_total_nc_count(NULL) == NRT_INVALID, "NULL");
	VT_ASSERT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.2.3", "1.0\n") == NRT_INVALID,
		  "a version string with a control character");
	/* what frameworks pass: what parses is recorded (2.1.0, and 0 for "nightly") */
	VT_ASSERT(nrt_init(NRT_FRAMEWORK_TYPE_PYTORCH, "2.1.0+cu121", "nightly") == NRT_SUCCESS,
		  "init");
	{
		ndl_device_t *d = NULL;
		nds_instance_t *inst = NULL;
		uint64_t fw = 0, fal = 1;

		VT_ASSERT(ndl_open_device(0, NULL, &d) == 0 && nds_open(d, 0, &inst) == 0, "open");
		nds_get_nd_counter(inst, NDS_ND_COUNTER_FRAMEWORK_VERSION, &fw);
		nds_get_nd_counter(inst, NDS_ND_COUNTER_FAL_VERSION, &fal);
		nds_close(inst);
		ndl_close_device(d);
		VT_ASSERT(fw == ((uint64_t)NRT_FRAMEWORK_TYPE_PYTORCH << 48 | 2ULL << 40 | 1ULL << 32) &&
				  fal == 0,
			  "versions recorded: framework 0x%llx, FAL 0x%llx", (unsigned long long)fw,
			  (unsigned long long)fal);
	}
	VT_ASSERT(nrt_init(NRT_FRAMEWORK_TYPE_PYTORCH, "2.1.0", NULL) == NRT_INVALID, "twice");
	VT_ASSERT(nrt_get_visible_nc_count(&n) == NRT_SUCCESS && n == 8, "visible %u", n);
	VT_ASSERT(nrt_sim_execute(0, 4, 0) == NRT_INVALID, "nc 4 of 4");
	VT_ASSERT(nrt_sim_execute(2, 0, 0) == NRT_INVALID, "device 2");
	VT_ASSERT(nrt_sim_execute(0, 0, 1000) == NRT_SUCCESS, "clean job");
	nrt_close();
	VT_ASSERT(nrt_sim_execute(0, 0, 0) == NRT_CLOSED, "after close");
	VT_ASSERT(nrt_get_visible_nc_count(&n) == NRT_SUCCESS && n == 8, "visible after close %u", n);
	VT_ASSERT(nrt_get_total_nc_count(&n) == NRT_SUCCESS, "total after close");
	VT_ASSERT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) == NRT_SUCCESS, "re-init");
	return 0;	/* stays initialized for the next cases */
}

static int versions_in_slab(void)
{
	ndl_device_t *d = NULL;
	nds_instance_t *inst = NULL;
	uint64_t fw = 0, fal = 0, bits = 0;

	VT_ASSERT(ndl_open_device(0, NULL, &d) == 0 && nds_open(d, 0, &inst) == 0, "open");
	nds_get_nd_counter(inst, NDS_ND_COUNTER_FRAMEWORK_VERSION, &fw);
	nds_get_nd_counter(inst, NDS_ND_COUNTER_FAL_VERSION, &fal);
	nds_get_nd_counter(inst, NDS_ND_COUNTER_FEATURE_BITMAP, &bits);
	/* the re-init above gave no versions: framework type NO_FW only */
	VT_ASSERT(fw == (1ULL << 48), "framework 0x%llx", (unsigned long long)fw);
	VT_ASSERT(fal == 0, "fal");
	VT_ASSERT(bits & 1, "feature bit 0");
	nds_close(inst);
	ndl_close_device(d);
	return 0;
}

/* ---- every fault kind ------------------------------------------------------ */

struct tpb_case {
	const char *name;
	NRT_STATUS status;		/* disarmed numerical path */
	const char *attr;		/* extra status attribute that moves, or NULL */
	int nds_only;			/* NC counter without a sysfs file, or -1 */
};

/* The reference's chain, written out: type -> sunda remap -> subtype -> status. */
static const struct tpb_case tpb_cases[NEURON_TPB_ERROR_COUNT] = {
	{ "FP_UNDERFLOW", NRT_SUCCESS, NULL, -1 },
	{ "FP_NAN", NRT_SUCCESS, NULL, NDS_NC_COUNTER_ERR_NUMERICAL },
	{ "FP_INF", NRT_SUCCESS, NULL, -1 },
	{ "FP_OVERFLOW", NRT_SUCCESS, NULL, -1 },
	{ "MEMORY_ERROR", NRT_EXEC_COMPLETED_WITH_ERR, NULL, -1 },
	{ "FAKE_ERROR", NRT_EXEC_COMPLETED_WITH_ERR, NULL, -1 },
	{ "SEMAPHORE_ERROR", NRT_EXEC_COMPLETED_WITH_ERR, "execute_sw_semaphore_error", -1 },
	{ "EVENT_ERROR", NRT_EXEC_COMPLETED_WITH_ERR, "execute_sw_event_error", -1 },
	{ "PSUM_COLLISION", NRT_EXEC_COMPLETED_WITH_ERR, "execute_sw_psum_collision", -1 },
	{ "SEQUENCER_NONFATAL", NRT_SUCCESS, NULL, NDS_NC_COUNTER_ERR_TRANSIENT },
	{ "SEQUENCER_FATAL", NRT_EXEC_COMPLETED_WITH_ERR, "execute_sw_sequencer_fatal", -1 },
};

static int every_tpb_type(void)
{
	int t;

	for (t = 0; t < NEURON_TPB_ERROR_COUNT; t++) {
		const struct tpb_case *c = &tpb_cases[t];
		int nc = t % 4, dev = t % 2;
		uint64_t ok0 = vt_status_total(dev, nc, "success");
		uint64_t err0 = vt_status_total(dev, nc, "execute_completed_with_error");
		uint64_t extra0 = c->attr ? vt_status_total(dev, nc, c->attr) : 0;
		uint64_t nds0 = c->nds_only >= 0 ? own_counter(dev, nc, c->nds_only) : 0;
		nrt_sim_exec_result_t res;
		nrt_sim_exec_opts_t o = { .duration_us = 500, .account = 1 };
		NRT_STATUS st;

		/* by name for even types, by number for odd ones */
		if (t % 2)
			VT_ASSERT(vt_inject(dev, "tpb_error", "%d %d", nc, t) == 0, "inject %d", t);
		else
			VT_ASSERT(vt_inject(dev, "tpb_error", "%d %s", nc, c->name) == 0,
				  "inject %s", c->name);
		st = nrt_sim_execute_ex(dev, nc, &o, &res);
		VT_ASSERT(st == c->status, "%s: status %u, want %u", c->name, st, c->status);
		VT_ASSERT(res.entries == 1 && res.dropped == 0, "%s: %u entries %llu dropped",
			  c->name, res.entries, (unsigned long long)res.dropped);
		if (c->status == NRT_SUCCESS) {
			VT_ASSERT(vt_status_total(dev, nc, "success") - ok0 == 1, "%s: success",
				  c->name);
			VT_ASSERT(vt_status_total(dev, nc, "execute_completed_with_error") == err0,
				  "%s: error moved", c->name);
		} else {
			VT_ASSERT(vt_status_total(dev, nc, "execute_completed_with_error") - err0 ==
					  1,
				  "%s: completed_with_error", c->name);
			VT_ASSERT(vt_status_total(dev, nc, "success") == ok0, "%s: success moved",
				  c->name);
		}
		if (c->attr)
			VT_ASSERT(vt_status_total(dev, nc, c->attr) - extra0 == 1, "%s: %s",
				  c->name, c->attr);
		if (c->nds_only >= 0)
			VT_ASSERT(own_counter(dev, nc, c->nds_only) - nds0 == 1, "%s: NDS %d",
				  c->name, c->nds_only);
	}
	return 0;
}

struct hw_case {
	const char *knob;
	NRT_STATUS status;
	const char *attr;
};

static const struct hw_case hw_cases[] = {
	{ "collectives", NRT_EXEC_HW_ERR_COLLECTIVES, "hw_collectives_error" },
	{ "hbm_ue", NRT_EXEC_HW_ERR_HBM_UE, "hw_hbm_ue_error" },
	{ "nc_ue", NRT_EXEC_HW_ERR_NC_UE, "hw_nc_ue_error" },
	{ "dma_abort", NRT_EXEC_HW_ERR_DMA_ABORT, "hw_dma_abort_error" },
	{ "repairable_hbm_ue", NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, "hw_repairable_hbm_ue_error" },
};

static int every_hw_fault(void)
{
	size_t i;

	for (i = 0; i < VT_COUNT(hw_cases); i++) {
		const struct hw_case *c = &hw_cases[i];
		int nc = (int)(i % 4);
		uint64_t a0 = vt_status_total(1, nc, c->attr);
		uint64_t err0 = vt_status_total(1, nc, "execute_completed_with_error");
		NRT_STATUS st;

		VT_ASSERT(vt_inject(1, "hw_error", "%d %s", nc, c->knob) == 0, "inject %s",
			  c->knob);
		st = nrt_sim_execute(1, nc, 200);
		VT_ASSERT(st == c->status, "%s: status %u want %u", c->knob, st, c->status);
		VT_ASSERT(vt_status_total(1, nc, c->attr) - a0 == 1, "%s: %s", c->knob, c->attr);
		VT_ASSERT(vt_status_total(1, nc, "execute_completed_with_error") - err0 == 1,
			  "%s: completed_with_error", c->knob);
	}
	return 0;
}

static int racing_faults_priority(void)
{
	NRT_STATUS st;

	/* 1004 (rank 3) beats 1204? no flood here: 1201 and 1004 tie at rank 3,
	 * the specific hardware fault is folded first and wins the tie */
	VT_ASSERT(vt_inject(0, "tpb_error", "2 SEMAPHORE_ERROR 3") == 0, "inject");
	VT_ASSERT(vt_inject(0, "hw_error", "2 hbm_ue") == 0, "inject");
	st = nrt_sim_execute(0, 2, 0);
	VT_ASSERT(st == NRT_EXEC_HW_ERR_HBM_UE, "1201 vs 1004: %u", st);
	/* 1004 (rank 3) beats 1206-class ranks; with SEQUENCER_NONFATAL (transient) too */
	VT_ASSERT(vt_inject(0, "tpb_error", "2 SEQUENCER_NONFATAL 2") == 0, "inject");
	VT_ASSERT(vt_inject(0, "tpb_error", "2 EVENT_ERROR") == 0, "inject");
	st = nrt_sim_execute(0, 2, 0);
	VT_ASSERT(st == NRT_EXEC_COMPLETED_WITH_ERR, "transient + event: %u", st);
	return 0;
}

/* NaN with the numerical path armed: a separate process reads the knob at init. */
static int nan_armed_child(void)
{
	nrt_sim_exec_result_t res;
	nrt_sim_exec_opts_t o = { .account = 1 };
	uint64_t num0 = vt_status_total(1, 3, "execute_completed_with_num_error");
	uint64_t err0 = vt_status_total(1, 3, "execute_completed_with_error");

	setenv("NEURON_FAIL_ON_NAN", "1", 1);
	nrt_close();	/* the runtime state forked from the parent */
	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS)
		return 10;
	if (vt_inject(1, "tpb_error", "3 FP_NAN") || nrt_sim_execute_ex(1, 3, &o, &res) !=
						     NRT_EXEC_COMPLETED_WITH_NUM_ERR)
		return 11;
	if (vt_status_total(1, 3, "execute_completed_with_num_error") - num0 != 1)
		return 12;
	/* NaN (1003, rank 1) racing MEMORY_ERROR (1004, rank 3) */
	if (vt_inject(1, "tpb_error", "3 FP_NAN") || vt_inject(1, "tpb_error", "3 MEMORY_ERROR") ||
	    nrt_sim_execute(1, 3, 0) != NRT_EXEC_COMPLETED_WITH_ERR)
		return 13;
	if (vt_status_total(1, 3, "execute_completed_with_error") - err0 != 1)
		return 14;
	/* verbosity "none" disarms it again (checked through the pure parser) */
	if (nrt_decode_config_parse("1", "none").numerical_armed)
		return 15;
	nrt_close();
	return 0;
}

static int nan_armed_and_disarmed(void)
{
	pid_t pid;
	int st;

	/* disarmed in this process (no NEURON_FAIL_ON_NAN): covered by every_tpb_type */
	VT_ASSERT(getenv("NEURON_FAIL_ON_NAN") == NULL, "environment");
	/* nrt_close() gives back every NeuronCore nrt_init() took */
	nrt_close();
	/* the child reserves nc 3 of device 1; this process must not hold it */
	pid = fork();
	if (pid == 0)
		_exit(nan_armed_child());
	VT_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	VT_ASSERT(WEXITSTATUS(st) == 0, "armed child step %d failed", WEXITSTATUS(st));
	return 0;
}

static int flood_overflow(void)
{
	uint64_t ovf0 = vt_status_total(0, 1, "execute_sw_nq_overflow");
	uint64_t sem0 = vt_status_total(0, 1, "execute_sw_semaphore_error");
	nrt_sim_exec_result_t res;
	nrt_sim_exec_opts_t o = { .account = 1 };
	NRT_STATUS st;

	/* 1500 fillers into a 1024-entry ring, then a semaphore error that is lost too */
	VT_ASSERT(vt_inject(0, "nq_flood", "1 1500") == 0, "flood");
	VT_ASSERT(vt_inject(0, "tpb_error", "1 SEMAPHORE_ERROR") == 0, "inject");
	st = nrt_sim_execute_ex(0, 1, &o, &res);
	VT_ASSERT(st == NRT_EXEC_SW_NQ_OVERFLOW, "status %u", st);
	VT_ASSERT(res.entries == 1024 && res.dropped == 477, "entries %u dropped %llu",
		  res.entries, (unsigned long long)res.dropped);
	VT_ASSERT(vt_status_total(0, 1, "execute_sw_nq_overflow") - ovf0 == 1, "overflow counter");
	VT_ASSERT(vt_status_total(0, 1, "execute_sw_semaphore_error") == sem0,
		  "lost entry counted");
	/* the ring is usable afterwards; the first entry after the drops carries
	 * the overflow bit, which must not count the same overflow again */
	VT_ASSERT(vt_inject(0, "tpb_error", "1 SEMAPHORE_ERROR") == 0, "inject");
	st = nrt_sim_execute_ex(0, 1, &o, &res);
	VT_ASSERT(res.entries == 1 && res.dropped == 0, "after: %u %llu", res.entries,
		  (unsigned long long)res.dropped);
	VT_ASSERT(res.errors.nq_overflow == 0, "one overflow counted twice");
	VT_ASSERT(vt_status_total(0, 1, "execute_sw_nq_overflow") - ovf0 == 1, "overflow counter");
	VT_ASSERT(st == NRT_EXEC_COMPLETED_WITH_ERR, "after: %u", st);
	VT_ASSERT(vt_status_total(0, 1, "execute_sw_semaphore_error") - sem0 == 1, "decoded");
	st = nrt_sim_execute(0, 1, 0);
	VT_ASSERT(st == NRT_SUCCESS, "clean afterwards: %u", st);
	return 0;
}

/* slack below a job's run time in its job_ns: one tick at HZ=100 (job_time_answered) */
#define JOB_TICK_NS	10000000ull

static int hang_times_out(void)
{
	uint64_t to0 = vt_status_total(1, 0, "timeout");
	uint64_t lat0 = own_counter(1, 0, NDS_NC_COUNTER_LATENCY_TOTAL);
	nrt_sim_exec_opts_t o = { .duration_us = 0, .timeout_us = 200000, .account = 1 };
	nrt_sim_exec_result_t res;
	struct timespec a, b;
	NRT_STATUS st;
	long ms;

	VT_ASSERT(vt_inject(1, "hang", "0") == 0, "inject");
	clock_gettime(CLOCK_MONOTONIC, &a);
	st = nrt_sim_execute_ex(1, 0, &o, &res);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	VT_ASSERT(st == NRT_TIMEOUT && res.exec_errno == ETIMEDOUT, "status %u errno %d", st,
		  res.exec_errno);
	VT_ASSERT(ms >= 200, "returned before the timeout: %ld ms", ms);
	VT_ASSERT(vt_status_total(1, 0, "timeout") - to0 == 1, "timeout counter");
	/* the hung job's time counts: the driver answers a timed-out job too */
	VT_ASSERT(own_counter(1, 0, NDS_NC_COUNTER_LATENCY_TOTAL) - lat0 + JOB_TICK_NS / 1000 >= 200000,
		  "latency total grew by %llu us",
		  (unsigned long long)(own_counter(1, 0, NDS_NC_COUNTER_LATENCY_TOTAL) - lat0));
	VT_ASSERT(nrt_sim_execute(1, 0, 0) == NRT_SUCCESS, "next job runs");
	return 0;
}

/*
 * NEURON_CAP_JOB_TIME: the driver answers a job with its time (@job_ns),
 * which libnrt accounts instead of reading the clock. At least the job's
 * run time (less a scheduler tick: local_clock() is tick-clamped where the
 * TSC is unstable), at most the caller's wall time around the ioctl; for
 * SIM_EXEC_MODEL too; after -ETIMEDOUT, @job_ns alone (the entry counts
 * stay 0, so the argument can go to the next job as it came back);
 * nothing written back on another error (EINVAL, EBUSY); the field's
 * input is ignored (a program built when it was reserved reuses its
 * argument).
 */
static int job_time_answered(void)
{
	struct neuron_sim_exec_model em;
	struct neuron_info info;
	struct neuron_sim_exec e;
	uint64_t t0, wall;
	pid_t pid;
	int st;
	int fd = vt_open_dev(1);

	VT_ASSERT(fd >= 0, "open");
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO");
	VT_ASSERT(info.capabilities & NEURON_CAP_JOB_TIME, "caps 0x%llx",
		  (unsigned long long)info.capabilities);

	/*
	 * Refused while another process holds the NeuronCore (this one's
	 * runtime took them all): EBUSY, nothing written back. The child
	 * tries through a file of its own.
	 */
	pid = fork();
	if (pid == 0) {
		int cfd = vt_open_dev(1);

		exec_init(&e, 3);
		e.job_ns = 777;
		if (cfd < 0)
			_exit(1);
		if (ioctl(cfd, NEURON_IOCTL_SIM_EXEC, &e) == 0 || errno != EBUSY)
			_exit(2);
		_exit(e.job_ns == 777 ? 0 : 3);
	}
	VT_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child");
	VT_ASSERT(WEXITSTATUS(st) == 0, "EBUSY from another process: step %d failed (2: not EBUSY, "
		  "3: job_ns written back)", WEXITSTATUS(st));

	exec_init(&e, 3);
	e.duration_us = 20000;
	t0 = vt_now_ns();
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) == 0, "job: %s", strerror(errno));
	wall = vt_now_ns() - t0;
	VT_ASSERT(e.job_ns + JOB_TICK_NS >= 20000000ull && e.job_ns <= wall + JOB_TICK_NS,
		  "job_ns %llu for a 20 ms job, wall %llu ns", (unsigned long long)e.job_ns,
		  (unsigned long long)wall);

	/* the same argument again: job_ns in, ignored */
	e.duration_us = 0;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) == 0, "reused argument: %s",
		  strerror(errno));
	VT_ASSERT(e.job_ns < 20000000ull, "job_ns %llu for a job of no run time",
		  (unsigned long long)e.job_ns);

	/* SIM_EXEC_MODEL answers the same way */
	memset(&em, 0, sizeof(em));
	em.size = sizeof(em);
	em.nc = 3;
	em.op = NEURON_SIM_OP_NONE;
	em.duration_us = 20000;
	em.job_ns = 777;
	t0 = vt_now_ns();
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC_MODEL, &em) == 0, "model job: %s",
		  strerror(errno));
	wall = vt_now_ns() - t0;
	VT_ASSERT(em.job_ns + JOB_TICK_NS >= 20000000ull && em.job_ns <= wall + JOB_TICK_NS,
		  "model job_ns %llu for a 20 ms job, wall %llu ns", (unsigned long long)em.job_ns,
		  (unsigned long long)wall);

	/* a refused job: nothing written back */
	exec_init(&e, 3);
	e.reserved[0] = 1;
	e.job_ns = 777;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	VT_ASSERT(e.job_ns == 777 && e.entries == 0, "written back on EINVAL: %llu",
		  (unsigned long long)e.job_ns);

	/*
	 * A hung job with a fault armed beside it: -ETIMEDOUT, its time
	 * answered, and its entry counts not (the fault was dropped: this
	 * file has no ring), so the argument runs the next job as it came back.
	 */
	VT_ASSERT(vt_inject(1, "hang", "3") == 0 &&
		  vt_inject(1, "tpb_error", "3 SEMAPHORE_ERROR") == 0, "inject");
	exec_init(&e, 3);
	e.timeout_us = 100000;
	e.job_ns = 777;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), ETIMEDOUT);
	VT_ASSERT(e.job_ns + JOB_TICK_NS >= 100000000ull && e.job_ns != 777,
		  "job_ns %llu after a 100 ms timeout", (unsigned long long)e.job_ns);
	VT_ASSERT(e.entries == 0 && e.dropped == 0, "entry counts written back: %u %u",
		  e.entries, e.dropped);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) == 0, "the argument after ETIMEDOUT: %s",
		  strerror(errno));
	VT_ASSERT(close(fd) == 0, "close");
	return 0;
}

/*
 * Two runtimes side by side, each with its own NeuronCores as SDK users
 * give them (NEURON_RT_VISIBLE_CORES; without it nrt_init() takes every
 * NeuronCore): this process device 1's NeuronCores 0-1, the child its
 * NeuronCore 2. nrt_sim_execute() on a NeuronCore outside the set reserves
 * it on first use: 1005 while the child holds it, fine once it exited.
 */
static int ebusy_between_processes(void)
{
	int go[2], hold[2];
	pid_t pid;
	char c;

	VT_ASSERT(pipe(go) == 0 && pipe(hold) == 0, "pipe");
	setenv("NEURON_RT_VISIBLE_CORES", "4-5", 1);
	VT_ASSERT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) == NRT_SUCCESS, "init");
	unsetenv("NEURON_RT_VISIBLE_CORES");
	pid = fork();
	if (pid == 0) {
		close(hold[1]);
		close(go[0]);
		nrt_close();	/* the runtime state forked from the parent */
		setenv("NEURON_RT_VISIBLE_CORES", "6", 1);
		if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS ||
		    nrt_sim_execute(1, 2, 0) != NRT_SUCCESS)
			_exit(1);
		if (write(go[1], "g", 1) != 1)
			_exit(2);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(hold[0]);
	close(go[1]);
	VT_ASSERT(read(go[0], &c, 1) == 1, "child could not run");
	VT_ASSERT(nrt_sim_execute(1, 2, 0) == NRT_EXEC_NC_BUSY, "1005 while the other holds it");
	VT_ASSERT(nrt_sim_execute(1, 1, 0) == NRT_SUCCESS, "this process's own cores run");
	close(hold[1]);
	VT_ASSERT(vt_wait_ok(pid), "child");
	/* its exit released the reservation */
	VT_ASSERT(nrt_sim_execute(1, 2, 0) == NRT_SUCCESS, "free after the owner exited");
	nrt_close();
	close(go[0]);
	return 0;
}

/* ---- raw rings ------------------------------------------------------------ */

static void nqi(struct neuron_nq_init *a, uint32_t nc, uint32_t type, uint32_t eng, uint32_t sz)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->nc = nc;
	a->nq_type = type;
	a->engine = eng;
	a->ring_size = sz;
}

static int nq_init_validation(void)
{
	struct neuron_nq_init a;
	struct neuron_nq_release r;
	struct neuron_nq_init b;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 0);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 300);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 128);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 2u << 20);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_MAX, 3, 4096);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 16, 4096);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 4, NEURON_NQ_TYPE_TRACE, 3, 4096);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 4096);
	a.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 4096);
	a.reserved[1] = 9;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EINVAL);

	/* idempotent re-init, different size refused, release, release again */
	nqi(&a, 0, NEURON_NQ_TYPE_TRACE, 3, 4096);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a) == 0, "init: %s", strerror(errno));
	nqi(&b, 0, NEURON_NQ_TYPE_TRACE, 3, 4096);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &b) == 0 && b.mmap_offset == a.mmap_offset,
		  "re-init same ring");
	nqi(&b, 0, NEURON_NQ_TYPE_TRACE, 3, 8192);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &b), EBUSY);
	VT_ASSERT(a.mmap_size == NEURON_NQ_RING_OFFSET + 4096, "map size");
	VT_ASSERT(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset) == MAP_FAILED &&
			  errno == EINVAL,
		  "partial map");
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = 0;
	r.nq_type = NEURON_NQ_TYPE_TRACE;
	r.engine = 3;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &r) == 0, "release");
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &r), ENOENT);
	VT_ASSERT(mmap(NULL, a.mmap_size, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset) ==
				  MAP_FAILED && errno == ENOENT,
		  "map after release");
	r.reserved0 = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &r), EINVAL);
	close(fd);
	return 0;
}

static int ring_owner_child(struct vt_child *self, void *arg)
{
	(void)arg;
	struct neuron_nq_init a;
	int fd = vt_open_dev(0);

	nqi(&a, 3, NEURON_NQ_TYPE_EVENT, 5, 4096);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NQ_INIT, &a))
		return 1;
	if (vt_child_hold(self))
		return 1;
	return 0;
}

static int ring_owner_only(void)
{
	struct vt_child ch;
	int fd;
	struct neuron_nq_init a;
	void *p;

	VT_ASSERT(vt_child_start(&ch, ring_owner_child, NULL) == 0, "owner failed");
	fd = vt_open_dev(0);
	nqi(&a, 3, NEURON_NQ_TYPE_EVENT, 5, 4096);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EBUSY);
	{
		struct neuron_nq_release r = { .size = sizeof(r), .nc = 3,
					       .nq_type = NEURON_NQ_TYPE_EVENT, .engine = 5 };

		VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &r), ENOENT);
	}
	/* the cookie is deterministic: compute it from our own ring of the same key later */
	VT_ASSERT(vt_child_finish(&ch), "owner");
	/* the owner exited: its ring is gone, so this process can create it */
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a) == 0, "after owner exit: %s", strerror(errno));
	p = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p != MAP_FAILED, "owner maps writable");
	munmap(p, a.mmap_size);
	close(fd);
	return 0;
}

static int ro_mapper(void *arg)
{
	struct neuron_nq_init *a = arg;
	int fd = vt_open_dev(0);
	void *p;

	if (fd < 0)
		return 1;
	p = mmap(NULL, a->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a->mmap_offset);
	if (p != MAP_FAILED || errno != EACCES)
		return 2;
	/* no NQ_INIT through this file handed it the ring: not even read-only */
	p = mmap(NULL, a->mmap_size, PROT_READ, MAP_SHARED, fd, (off_t)a->mmap_offset);
	if (p != MAP_FAILED || errno != EACCES)
		return 3;
	return 0;
}

/* A process that creates a NeuronCore's ring holds that core. */
static int ring_holder(struct vt_child *self, void *arg)
{
	(void)arg;
	struct neuron_nq_init a;
	int fd = vt_open_dev(1);

	nqi(&a, 0, NEURON_NQ_TYPE_ERROR, 0, 4096);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NQ_INIT, &a))
		return 1;
	if (vt_child_hold(self))
		return 1;
	return 0;
}

static int ring_init_reserves_core(void)
{
	struct vt_child ch;
	int fd;
	struct neuron_sim_exec e;
	struct neuron_nq_init a;

	VT_ASSERT(vt_child_start(&ch, ring_holder, NULL) == 0, "holder failed");
	fd = vt_open_dev(1);
	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.nc = 0;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EBUSY);
	nqi(&a, 0, NEURON_NQ_TYPE_NOTIFY, 1, 4096);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a), EBUSY);
	VT_ASSERT(vt_child_finish(&ch), "holder");
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) == 0, "free after the holder exited: %s",
		  strerror(errno));
	close(fd);
	return 0;
}

static int others_cannot_map(void)
{
	struct neuron_nq_init a;
	int fd = vt_open_dev(0);
	pid_t pid;

	nqi(&a, 3, NEURON_NQ_TYPE_EVENT, 5, 4096);	/* owned by us since ring_owner_only */
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a) == 0, "init");
	pid = fork();
	if (pid == 0)
		_exit(ro_mapper(&a));
	VT_ASSERT(vt_wait_ok(pid), "another process could map the ring");
	close(fd);
	return 0;
}

#define RING_MAP(bytes)	((NEURON_NQ_RING_OFFSET + (bytes) + 4095) & ~4095UL)
#define PROC_RING_CAP	(16UL << 20)	/* NEURON_NQ_PROC_BYTES_MAX, docs/ARCHITECTURE.md */

static int nq_release(int fd, uint32_t nc, uint32_t type, uint32_t eng)
{
	struct neuron_nq_release r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = nc;
	r.nq_type = type;
	r.engine = eng;
	return ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &r);
}

static int core_release(int fd, uint32_t nc)
{
	struct neuron_core_reserve r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = nc;
	return ioctl(fd, NEURON_IOCTL_CORE_RELEASE, &r);
}

/*
 * A mapped ring is not released (its memory would stay pinned by the
 * mapping, uncounted): -EBUSY until it is unmapped. And one process holds
 * at most 16 MiB of rings per device: an init/map/release loop over every
 * ring of a core (the pattern that pinned 393 MiB in 400 rounds) now holds
 * 15 rings of 1 MiB and gets -ENOSPC for the rest.
 */
static int ring_memory_bounded(void)
{
	struct neuron_nq_init a;
	unsigned int i, made = 0, busy = 0, nospc = 0;
	int fd = vt_open_dev(0);
	void *p;

	VT_ASSERT(fd >= 0, "open");
	nqi(&a, 3, NEURON_NQ_TYPE_ERROR, 9, 4096);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a) == 0, "init");
	p = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p != MAP_FAILED, "map");
	VT_ASSERT_ERRNO(nq_release(fd, 3, NEURON_NQ_TYPE_ERROR, 9), EBUSY);
	VT_ASSERT(munmap(p, a.mmap_size) == 0, "munmap");
	VT_ASSERT(nq_release(fd, 3, NEURON_NQ_TYPE_ERROR, 9) == 0, "release after unmap: %s",
		  strerror(errno));

	/* every (type, engine) of the core once: 96 rings of 1 MiB asked for */
	for (i = 0; i < NEURON_NQ_TYPE_MAX * 16; i++) {
		uint32_t type = i % NEURON_NQ_TYPE_MAX, eng = i / NEURON_NQ_TYPE_MAX;

		nqi(&a, 3, type, eng, NEURON_NQ_MAX_SIZE);
		if (ioctl(fd, NEURON_IOCTL_NQ_INIT, &a)) {
			VT_ASSERT(errno == ENOSPC, "init %u: %s, expected ENOSPC", i, strerror(errno));
			nospc++;
			continue;
		}
		made++;
		p = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)a.mmap_offset);
		VT_ASSERT(p != MAP_FAILED, "map %u", i);
		if (nq_release(fd, 3, type, eng) == 0)
			VT_ASSERT(0, "a mapped ring was released (round %u)", i);
		busy += errno == EBUSY;
		/* the mappings stay, as the attack keeps them */
	}
	VT_ASSERT(made == PROC_RING_CAP / RING_MAP(NEURON_NQ_MAX_SIZE),
		  "%u rings of 1 MiB held, expected %lu", made,
		  PROC_RING_CAP / RING_MAP(NEURON_NQ_MAX_SIZE));
	VT_ASSERT(busy == made && nospc == NEURON_NQ_TYPE_MAX * 16 - made, "busy %u nospc %u", busy,
		  nospc);
	close(fd);	/* the mappings keep the file; the process exits with them */
	return 0;
}

#define CG VT_CGROUP

/* memory.current of the test's cgroup; -1 when unreadable */
static long long cg_current(void)
{
	uint64_t v;

	return vt_read_u64(CG "/nqtest/memory.current", &v) ? -1 : (long long)v;
}

static int charged_child(void)
{
	struct neuron_nq_init a;
	long long before, after;
	int fd, i;

	fd = vt_open_dev(0);
	before = cg_current();
	for (i = 0; i < 8; i++) {
		nqi(&a, 2, NEURON_NQ_TYPE_EVENT, i, NEURON_NQ_MAX_SIZE);
		if (fd < 0 || ioctl(fd, NEURON_IOCTL_NQ_INIT, &a))
			return 11;
	}
	after = cg_current();
	printf("# memory.current %lld -> %lld with 8 MiB of rings\n", before, after);
	fflush(stdout);
	return after - before >= (8LL << 20) - VT_MEMCG_STOCK_BYTES ? 0 : 12;
}

/* Rings are charged to the memory cgroup of the process that made them. */
static int rings_charged_to_cgroup(void)
{
	int status;

	if (vt_memcg_run(CG "/nqtest", "64M", charged_child, &status))
		return -1;
	VT_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "8 MiB of rings were not charged to the cgroup (child status %d)",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

struct job_thread {
	int fd;
	uint32_t nc;
	int ret, err;
	int done;	/* set (release) once the job has returned */
};

static void on_usr1(int sig)
{
	(void)sig;	/* only to end a job early: no SA_RESTART */
}

/* The longest job there is: it runs until the thread is signalled. */
static void *run_job(void *p)
{
	struct job_thread *j = p;
	struct neuron_sim_exec e;

	exec_init(&e, j->nc);
	e.duration_us = NEURON_EXEC_MAX_DURATION_US;
	j->ret = ioctl(j->fd, NEURON_IOCTL_SIM_EXEC, &e);
	j->err = errno;
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int core_release_child(void *arg)
{
	struct neuron_nq_init a;
	int fd = vt_open_dev(1);

	(void)arg;
	nqi(&a, 1, NEURON_NQ_TYPE_ERROR, 0, 4096);
	/* the released core's rings went with it: this succeeds */
	return fd >= 0 && ioctl(fd, NEURON_IOCTL_NQ_INIT, &a) == 0 ? 0 : 1;
}

/*
 * CORE_RELEASE takes the releasing process's rings on that core with it,
 * so the next holder can make its own (before: EBUSY from NQ_INIT); a
 * mapped ring keeps the core (EBUSY); and a core with a job running is not
 * released from another thread (EBUSY), so no entry of that job reaches a
 * next holder.
 */
static int core_release_takes_rings(void)
{
	struct neuron_nq_init a;
	struct job_thread j = { .nc = 2 };
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t th;
	int r, e;
	pid_t pid;
	void *p;
	int fd = vt_open_dev(1);

	VT_ASSERT(fd >= 0, "open");
	nqi(&a, 1, NEURON_NQ_TYPE_ERROR, 0, 4096);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NQ_INIT, &a) == 0, "init");
	p = mmap(NULL, a.mmap_size, PROT_READ, MAP_SHARED, fd, (off_t)a.mmap_offset);
	VT_ASSERT(p != MAP_FAILED, "map");
	VT_ASSERT_ERRNO(core_release(fd, 1), EBUSY);
	munmap(p, a.mmap_size);
	VT_ASSERT(core_release(fd, 1) == 0, "release: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(core_release_child(NULL));
	VT_ASSERT(vt_wait_ok(pid), "the next holder could not create its ring");

	j.fd = fd;
	/* start from a free core 2: nothing of an earlier case holds it */
	VT_ASSERT(core_release(fd, 2) == 0 || errno == ENOENT, "release 2: %s", strerror(errno));
	VT_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	VT_ASSERT(pthread_create(&th, NULL, run_job, &j) == 0, "thread");
	/* ENOENT until the job holds the core, EBUSY while it runs */
	do {
		r = core_release(fd, 2);
		e = errno;
		VT_ASSERT(r != 0, "released before the job was seen running");
		VT_ASSERT(e == ENOENT || e == EBUSY, "release during the job: %s", strerror(e));
		VT_ASSERT(!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) || e == EBUSY,
			  "the job returned before it was seen running: %d %s", j.ret,
			  strerror(j.err));
	} while (e != EBUSY);
	/* end the job; once it has returned the core is released */
	VT_ASSERT(pthread_kill(th, SIGUSR1) == 0, "pthread_kill");
	pthread_join(th, NULL);
	VT_ASSERT(j.ret == -1 && j.err == EINTR, "job: %d %s, expected EINTR", j.ret,
		  strerror(j.err));
	VT_ASSERT(core_release(fd, 2) == 0, "release after the job: %s", strerror(errno));
	close(fd);
	return 0;
}

static int exec_and_reserve_validation(void)
{
	struct neuron_sim_exec e;
	struct neuron_core_reserve r;
	int fd = vt_open_dev(1);

	VT_ASSERT(fd >= 0, "open");
	exec_init(&e, 4);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	exec_init(&e, 0);
	e.duration_us = NEURON_EXEC_MAX_DURATION_US + 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	exec_init(&e, 0);
	e.timeout_us = NEURON_EXEC_MAX_TIMEOUT_US + 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	exec_init(&e, 0);
	e.entries = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	exec_init(&e, 0);
	e.reserved[0] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	exec_init(&e, 0);
	e.size = 40;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e), EINVAL);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, (void *)16), EFAULT);

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.nc = 3;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_RELEASE, &r), ENOENT);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &r) == 0, "reserve");
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &r) == 0, "reserve again");
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_CORE_RELEASE, &r) == 0, "release");
	r.nc = 9;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &r), EINVAL);
	r.nc = 0;
	r.reserved0 = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &r), EINVAL);
	close(fd);
	return 0;
}

/* Thousands of wraps of a 16-entry ring with exact counts and order. */
static int ring_wraps_exact(void)
{
	ndl_device_t *d = NULL;
	nrt_nq_t *q = NULL;
	struct neuron_nq_entry got[16];
	struct neuron_sim_exec e;
	const int jobs = 2400, per_job = 14;	/* 33600 entries = 2100 wraps */
	uint64_t total = 0;
	int j, k, n, fd;

	VT_ASSERT(ndl_open_device(1, NULL, &d) == 0, "open");
	fd = ndl_device_fd(d);
	VT_ASSERT(nrt_nq_open(d, 1, NEURON_NQ_TYPE_ERROR, 0, 256, &q) == 0, "ring");
	VT_ASSERT(nrt_nq_capacity(q) == 16, "capacity");
	for (j = 0; j < jobs; j++) {
		int type = j % NEURON_TPB_ERROR_COUNT;

		VT_ASSERT(vt_inject(1, "tpb_error", "1 %d %d", type, per_job) == 0, "inject %d", j);
		exec_init(&e, 1);
		VT_ASSERT(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &e) == 0, "exec %d: %s", j, strerror(errno));
		VT_ASSERT(e.entries == (uint32_t)per_job && e.dropped == 0, "job %d wrote %u dropped %u",
			  j, e.entries, e.dropped);
		n = nrt_nq_drain_entries(q, got, 16);
		VT_ASSERT(n == per_job, "job %d drained %d", j, n);
		for (k = 0; k < n; k++)
			VT_ASSERT(got[k].error_id == type &&
					  (got[k].header & NEURON_NQ_HDR_TYPE_MASK) ==
						  NEURON_NQ_NOTIFIC_TPB_ERROR &&
					  !(got[k].header & NEURON_NQ_HDR_SW_OVERFLOW),
				  "job %d entry %d: id %u header 0x%x", j, k, got[k].error_id,
				  got[k].header);
		VT_ASSERT(nrt_nq_drain_entries(q, got, 16) == 0, "read twice at job %d", j);
		total += (uint64_t)n;
	}
	VT_ASSERT(total == (uint64_t)jobs * per_job, "total %llu", (unsigned long long)total);
	nrt_nq_close(q);
	ndl_close_device(d);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(lifecycle_guards),
		VT_CASE(versions_in_slab),
		VT_CASE(every_tpb_type),
		VT_CASE(every_hw_fault),
		VT_CASE(racing_faults_priority),
		VT_CASE(flood_overflow),
		VT_CASE(hang_times_out),
		VT_CASE(job_time_answered),
		VT_CASE(nan_armed_and_disarmed),
		VT_CASE(ebusy_between_processes),
		VT_CASE(nq_init_validation),
		VT_CASE(ring_owner_only),
		VT_CASE(others_cannot_map),
		VT_CASE(ring_init_reserves_core),
		VT_CASE(exec_and_reserve_validation),
		VT_CASE(ring_memory_bounded),
		VT_CASE(rings_charged_to_cgroup),
		VT_CASE(core_release_takes_rings),
		VT_CASE(ring_wraps_exact),
	};
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	unsetenv("NEURON_FAIL_ON_NAN");
	ret = vt_run("exec", cases, VT_COUNT(cases));
	nrt_close();
	return ret;
}
