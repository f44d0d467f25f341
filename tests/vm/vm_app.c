// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the application API on the simulated device. One case per row of
 * the status table in docs/error-model.md: the exact NRT_STATUS, produced
 * through the public API (fault knobs where hardware would be needed), and
 * on the NeuronCore it concerns, each status/ counter the row feeds moved
 * by exactly 1 and no other status/ counter moved. Then outputs, the
 * profile, memory and bad input.
 *
 *   vm_app NEFF_DIR     (25_app.sh packs the NEFFs there with neff-pack)
 *
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=4.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt.h>
#include <nrt/nrt_profile.h>

#include "vmdev.h"
#include "vmstatus.h"

#define NC_PER_DEV 4

static const char *neff_dir = ".";

struct snap {
	int dev, nc;
	uint64_t v[VT_NSTATUS_ATTRS];
};

static void snap_take(struct snap *s, int vnc)
{
	size_t i;

	s->dev = vnc / NC_PER_DEV;
	s->nc = vnc % NC_PER_DEV;
	for (i = 0; i < VT_NSTATUS_ATTRS; i++)
		s->v[i] = vt_status_total(s->dev, s->nc, vt_status_attrs[i]);
}

/*
 * Every attribute named in @moved (NULL-terminated) is one more than in
 * @before, every other one is unchanged. 0, or -1 with vt_msg set.
 */
static int moved_exactly(const struct snap *before, const char *const *moved)
{
	struct snap now;
	size_t i, j;

	snap_take(&now, before->dev * NC_PER_DEV + before->nc);
	for (i = 0; i < VT_NSTATUS_ATTRS; i++) {
		uint64_t want = before->v[i];

		for (j = 0; moved[j]; j++)
			if (!strcmp(moved[j], vt_status_attrs[i]))
				want++;
		if (now.v[i] != want) {
			snprintf(vt_msg, sizeof(vt_msg), "neuron%d nc%d %s: %llu -> %llu, expected %llu",
				 before->dev, before->nc, vt_status_attrs[i],
				 (unsigned long long)before->v[i], (unsigned long long)now.v[i],
				 (unsigned long long)want);
			return -1;
		}
	}
	return 0;
}

#define MOVED(before, ...)                                                       \
	do {                                                                     \
		const char *const m_[] = { __VA_ARGS__, NULL };           \
		if (moved_exactly(before, m_))                                   \
			return 1;                                                \
	} while (0)
#define NOTHING_MOVED(before)                                                    \
	do {                                                                     \
		static const char *const m_[] = { NULL };                        \
		if (moved_exactly(before, m_))                                   \
			return 1;                                                \
	} while (0)

static void *neff_read(const char *name, size_t *size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s.neff", neff_dir, name);
	return vt_slurp(path, size);
}

static NRT_STATUS load(const char *name, int vnc, nrt_model_t **m)
{
	size_t size = 0;
	void *b = neff_read(name, &size);
	NRT_STATUS st;

	*m = NULL;
	if (!b)
		return (NRT_STATUS)0xdead;
	st = nrt_load(b, size, vnc, -1, m);
	free(b);
	return st;
}

#define EXPECT(call, want)                                                       \
	do {                                                                     \
		NRT_STATUS s_ = (call);                                          \
		VT_ASSERT(s_ == (want), "%s: %s (%u), expected %s", #call,       \
			  nrt_get_status_as_str(s_), (unsigned)s_,               \
			  nrt_get_status_as_str(want));                          \
	} while (0)

/*
 * Two new tensor sets: @in as "in" of *@is, @out as "out" of *@os (the
 * one-input, one-output models of this file); the first failing status.
 */
static NRT_STATUS io_sets(nrt_tensor_set_t **is, nrt_tensor_set_t **os, nrt_tensor_t *in,
			  nrt_tensor_t *out)
{
	NRT_STATUS st = nrt_allocate_tensor_set(is);

	if (st == NRT_SUCCESS)
		st = nrt_allocate_tensor_set(os);
	if (st == NRT_SUCCESS)
		st = nrt_add_tensor_to_tensor_set(*is, "in", in);
	if (st == NRT_SUCCESS)
		st = nrt_add_tensor_to_tensor_set(*os, "out", out);
	return st;
}

/* Load the empty model on @vnc, arm nothing, and run it with @status expected. */
static int run_empty(int vnc, NRT_STATUS want)
{
	nrt_model_t *m;

	EXPECT(load("empty", vnc, &m), NRT_SUCCESS);
	EXPECT(nrt_execute(m, NULL, NULL), want);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	return 0;
}

/* ---- the status table, one case per row -------------------------------- */

static int st13_uninitialized(void)
{
	nrt_model_t *m;
	nrt_tensor_t *t = NULL;
	struct snap s;

	snap_take(&s, 0);
	EXPECT(load("empty", 0, &m), NRT_UNINITIALIZED);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 4, "t", &t), NRT_UNINITIALIZED);
	NOTHING_MOVED(&s);
	/* the runtime for every case after this one; NaN fails executions */
	setenv("NEURON_FAIL_ON_NAN", "1", 1);
	setenv("NEURON_RT_EXEC_TIMEOUT", "1", 1);
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0.0", NULL), NRT_SUCCESS);
	return 0;
}

static int st2_invalid(void)
{
	nrt_model_t *m;
	struct snap s;

	snap_take(&s, 1);
	EXPECT(load("corrupt", 1, &m), NRT_INVALID);
	VT_ASSERT(m == NULL, "model set on failure");
	MOVED(&s, "invalid_error");
	return 0;
}

static int st3_invalid_handle(void)
{
	nrt_model_t *m, *gone;
	struct snap s;

	EXPECT(load("empty", 1, &m), NRT_SUCCESS);
	gone = m;
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	snap_take(&s, 1);
	EXPECT(nrt_execute(gone, NULL, NULL), NRT_INVALID_HANDLE);
	EXPECT(nrt_unload(gone), NRT_INVALID_HANDLE);
	NOTHING_MOVED(&s);
	return 0;
}

static int st4_resource(void)
{
	nrt_tensor_t *t = NULL;
	struct snap s;

	snap_take(&s, 2);
	/* more than the NeuronCore's HBM: the driver says -ENOMEM */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, (size_t)1 << 40, "big", &t),
	       NRT_RESOURCE);
	VT_ASSERT(t == NULL, "tensor set on failure");
	MOVED(&s, "resource_error");
	return 0;
}

static int st5_timeout(void)
{
	struct snap s;

	snap_take(&s, 3);
	VT_ASSERT(vt_inject(0, "hang", "3") == 0, "hang knob");
	if (run_empty(3, NRT_TIMEOUT))
		return 1;
	MOVED(&s, "timeout");
	return 0;
}

static int st9_load_not_enough_nc(void)
{
	nrt_model_t *m;
	struct snap s;

	snap_take(&s, 0);
	/* five NeuronCores, four per device */
	EXPECT(load("nc5", -1, &m), NRT_LOAD_NOT_ENOUGH_NC);
	MOVED(&s, "resource_nc_error");
	snap_take(&s, 3);
	EXPECT(load("nc2", 3, &m), NRT_LOAD_NOT_ENOUGH_NC);	/* 3 + 2 > 4 */
	MOVED(&s, "resource_nc_error");
	return 0;
}

static int st10_unsupported_neff_version(void)
{
	nrt_model_t *m;
	struct snap s;

	snap_take(&s, 2);
	EXPECT(load("v3", 2, &m), NRT_UNSUPPORTED_NEFF_VERSION);
	MOVED(&s, "unsupported_neff_version");
	return 0;
}

static int st11_fail_host_mem_alloc(void)
{
	nrt_tensor_t *t = NULL;
	struct snap s;

	snap_take(&s, 0);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, SIZE_MAX / 2, "huge", &t),
	       NRT_FAIL_HOST_MEM_ALLOC);
	VT_ASSERT(t == NULL, "tensor set on failure");
	NOTHING_MOVED(&s);
	return 0;
}

static int st1002_exec_bad_input(void)
{
	nrt_model_t *m;
	nrt_tensor_t *small = NULL, *out = NULL;
	nrt_tensor_set_t *in_set = NULL, *out_set = NULL;
	struct snap s;

	EXPECT(load("affine", 1, &m), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 32, "in", &small), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "out", &out), NRT_SUCCESS);
	EXPECT(io_sets(&in_set, &out_set, small, out), NRT_SUCCESS);
	snap_take(&s, 1);
	EXPECT(nrt_execute(m, in_set, out_set), NRT_EXEC_BAD_INPUT);	/* 32 bytes for 64 */
	MOVED(&s, "exec_bad_input");
	nrt_destroy_tensor_set(&in_set);
	nrt_destroy_tensor_set(&out_set);
	nrt_tensor_free(&small);
	nrt_tensor_free(&out);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	return 0;
}

static int tpb_row(int vnc, const char *type, NRT_STATUS want, const char *attr)
{
	struct snap s;

	snap_take(&s, vnc);
	VT_ASSERT(vt_inject(vnc / NC_PER_DEV, "tpb_error", "%d %s", vnc % NC_PER_DEV, type) == 0,
		  "tpb_error knob");
	if (run_empty(vnc, want))
		return 1;
	MOVED(&s, attr);
	return 0;
}

static int st1003_num_err(void)
{
	return tpb_row(2, "FP_NAN", NRT_EXEC_COMPLETED_WITH_NUM_ERR,
		       "execute_completed_with_num_error");
}

static int st1004_completed_with_err(void)
{
	return tpb_row(2, "MEMORY_ERROR", NRT_EXEC_COMPLETED_WITH_ERR,
		       "execute_completed_with_error");
}

static int hold_core(struct vt_child *c, void *arg)
{
	struct neuron_core_reserve r = { .size = sizeof(r), .nc = (uint32_t)(uintptr_t)arg };
	int fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &r))
		return 1;
	return vt_child_hold(c);
}

/*
 * 1005: a NeuronCore another process holds. nrt_init() reserves every
 * visible NeuronCore (the SDK's ownership), so an nrt_load() never meets
 * one; nrt_sim_execute() on a NeuronCore outside NEURON_RT_VISIBLE_CORES
 * reserves it on first use and meets the holder there. The runtime of the
 * other cases comes back as st13 made it.
 */
static int st1005_nc_busy(void)
{
	struct vt_child c;
	nrt_model_t *m;
	struct snap s;

	nrt_close();
	setenv("NEURON_RT_VISIBLE_CORES", "0-2", 1);
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0.0", NULL), NRT_SUCCESS);
	unsetenv("NEURON_RT_VISIBLE_CORES");
	VT_ASSERT(vt_child_start(&c, hold_core, (void *)(uintptr_t)3) == 0, "holder");
	snap_take(&s, 3);
	EXPECT(load("empty", 3, &m), NRT_INVALID);	/* not visible */
	EXPECT(nrt_sim_execute(0, 3, 0), NRT_EXEC_NC_BUSY);
	NOTHING_MOVED(&s);
	VT_ASSERT(vt_child_finish(&c), "holder failed");
	nrt_close();
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0.0", NULL), NRT_SUCCESS);
	return 0;
}

static int st1006_oob(void)
{
	nrt_model_t *m;
	nrt_tensor_t *in = NULL, *out = NULL;
	nrt_tensor_set_t *in_set = NULL, *out_set = NULL;
	struct snap s;

	EXPECT(load("oob", 1, &m), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 16, "in", &in), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 16, "out", &out), NRT_SUCCESS);
	EXPECT(io_sets(&in_set, &out_set, in, out), NRT_SUCCESS);
	snap_take(&s, 1);
	EXPECT(nrt_execute(m, in_set, out_set), NRT_EXEC_OOB);
	MOVED(&s, "oob_error");
	nrt_destroy_tensor_set(&in_set);
	nrt_destroy_tensor_set(&out_set);
	nrt_tensor_free(&in);
	nrt_tensor_free(&out);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	return 0;
}

static int hw_row(int nc, const char *fault, NRT_STATUS want, const char *attr)
{
	struct snap s;
	int vnc = NC_PER_DEV + nc;	/* device 1 */

	snap_take(&s, vnc);
	VT_ASSERT(vt_inject(1, "hw_error", "%d %s", nc, fault) == 0, "hw_error knob");
	if (run_empty(vnc, want))
		return 1;
	MOVED(&s, "execute_completed_with_error", attr);
	return 0;
}

static int st1200_collectives(void)
{
	return hw_row(0, "collectives", NRT_EXEC_HW_ERR_COLLECTIVES, "hw_collectives_error");
}

static int st1201_hbm_ue(void)
{
	return hw_row(1, "hbm_ue", NRT_EXEC_HW_ERR_HBM_UE, "hw_hbm_ue_error");
}

static int st1202_nc_ue(void)
{
	return hw_row(2, "nc_ue", NRT_EXEC_HW_ERR_NC_UE, "hw_nc_ue_error");
}

static int st1203_dma_abort(void)
{
	return hw_row(3, "dma_abort", NRT_EXEC_HW_ERR_DMA_ABORT, "hw_dma_abort_error");
}

static int st1204_nq_overflow(void)
{
	struct snap s;
	int vnc = NC_PER_DEV + 1;

	snap_take(&s, vnc);
	/* more benign entries than the 1024-entry error ring holds */
	VT_ASSERT(vt_inject(1, "nq_flood", "1 2000") == 0, "nq_flood knob");
	if (run_empty(vnc, NRT_EXEC_SW_NQ_OVERFLOW))
		return 1;
	MOVED(&s, "execute_completed_with_error", "execute_sw_nq_overflow");
	return 0;
}

static int st1205_repairable_hbm_ue(void)
{
	return hw_row(2, "repairable_hbm_ue", NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE,
		      "hw_repairable_hbm_ue_error");
}

/*
 * 1206: a collectives model reaches the host's network proxy (a unix
 * socket) at every execution; with nothing listening there the execution
 * fails before it starts. No status/ counter is fed (docs/error-model.md).
 */
static int st1206_network_proxy(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	nrt_model_t *m;
	struct snap s;
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/proxy.sock", neff_dir);
	unlink(sa.sun_path);
	EXPECT(load("proxy", 1, &m), NRT_SUCCESS);
	snap_take(&s, 1);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_NETWORK_PROXY_FAILURE);
	NOTHING_MOVED(&s);
	/* the same model with its proxy up */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	VT_ASSERT(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 4) == 0,
		  "proxy socket: %s", strerror(errno));
	EXPECT(nrt_execute(m, NULL, NULL), NRT_SUCCESS);
	close(fd);
	unlink(sa.sun_path);
	MOVED(&s, "success");
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	return 0;
}

/* ---- beyond the table ---------------------------------------------------- */

/* Outputs are what the NEFF's program computes, for each placement pair. */
static int outputs_checked(void)
{
	static const struct {
		const char *neff;
		nrt_tensor_placement_t in_pl, out_pl;
	} runs[] = {
		{ "affine", NRT_TENSOR_PLACEMENT_DEVICE, NRT_TENSOR_PLACEMENT_DEVICE },
		{ "affine", NRT_TENSOR_PLACEMENT_HOST, NRT_TENSOR_PLACEMENT_HOST },
		{ "xor", NRT_TENSOR_PLACEMENT_HOST, NRT_TENSOR_PLACEMENT_DEVICE },
		{ "copy", NRT_TENSOR_PLACEMENT_DEVICE, NRT_TENSOR_PLACEMENT_HOST },
	};
	size_t r;
	int i;

	for (r = 0; r < VT_COUNT(runs); r++) {
		uint32_t in_w[16], out_w[16];
		uint8_t *in_b = (uint8_t *)in_w, *out_b = (uint8_t *)out_w;
		nrt_tensor_t *in = NULL, *out = NULL;
		nrt_tensor_set_t *is = NULL, *os = NULL;
		nrt_model_t *m;
		struct snap s;

		EXPECT(load(runs[r].neff, 0, &m), NRT_SUCCESS);
		EXPECT(nrt_tensor_allocate(runs[r].in_pl, 0, 64, "in", &in), NRT_SUCCESS);
		EXPECT(nrt_tensor_allocate(runs[r].out_pl, 0, 64, "out", &out), NRT_SUCCESS);
		EXPECT(io_sets(&is, &os, in, out), NRT_SUCCESS);
		for (i = 0; i < 16; i++)
			in_w[i] = 0x01020304u * (uint32_t)i + 0xfffffff0u;
		EXPECT(nrt_tensor_write(in, in_w, 0, sizeof(in_w)), NRT_SUCCESS);
		snap_take(&s, 0);
		EXPECT(nrt_execute_repeat(m, is, os, 2), NRT_SUCCESS);
		EXPECT(nrt_tensor_read(out, out_w, 0, sizeof(out_w)), NRT_SUCCESS);
		for (i = 0; i < 64; i++) {
			uint8_t want;

			if (!strcmp(runs[r].neff, "affine"))
				want = (uint8_t)((in_w[i / 4] * 3u + 7u) >> (8 * (i % 4)));
			else if (!strcmp(runs[r].neff, "xor"))
				want = in_b[i] ^ 0x5a;
			else
				want = in_b[i];
			VT_ASSERT(out_b[i] == want, "%s run %zu byte %d: %#x, expected %#x",
				  runs[r].neff, r, i, out_b[i], want);
		}
		{
			struct snap now;

			snap_take(&now, 0);
			VT_ASSERT(now.v[0] - s.v[0] == 2, "success moved by %llu for 2 runs",
				  (unsigned long long)(now.v[0] - s.v[0]));
		}
		nrt_destroy_tensor_set(&is);
		nrt_destroy_tensor_set(&os);
		nrt_tensor_free(&in);
		nrt_tensor_free(&out);
		EXPECT(nrt_unload(m), NRT_SUCCESS);
	}
	return 0;
}

/*
 * nrt_profile_start/stop (docs/sdk-compat.md, "Profiling"): two successful
 * repetitions and one execution that drains a MEMORY_ERROR entry (1004)
 * of "affine" on NeuronCore 1, written to PROFILE_FILE; a stop to a path
 * that cannot be written keeps the profile; a model unloaded before the
 * stop still gets its file (PROFILE_UNLOADED). 25_app.sh reads both files
 * with jq.
 */
#define PROFILE_FILE "/tmp/nrt_profile.json"
#define PROFILE_UNLOADED "/tmp/nrt_profile_unloaded.json"

static int profile_executions(void)
{
	nrt_tensor_t *in = NULL, *out = NULL;
	nrt_tensor_set_t *is = NULL, *os = NULL;
	nrt_model_t *m, *other;
	struct stat st;

	unlink(PROFILE_FILE);
	unlink(PROFILE_UNLOADED);
	EXPECT(load("affine", 1, &m), NRT_SUCCESS);
	EXPECT(load("empty", 2, &other), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "in", &in), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "out", &out), NRT_SUCCESS);
	EXPECT(io_sets(&is, &os, in, out), NRT_SUCCESS);

	EXPECT(nrt_profile_stop(PROFILE_FILE), NRT_INVALID);	/* nothing started */
	EXPECT(nrt_profile_start(m, PROFILE_FILE), NRT_SUCCESS);
	EXPECT(nrt_profile_start(other, PROFILE_UNLOADED), NRT_INVALID);	/* one at a time */
	EXPECT(nrt_execute_repeat(m, is, os, 2), NRT_SUCCESS);
	EXPECT(nrt_execute(other, NULL, NULL), NRT_SUCCESS);	/* not profiled */
	VT_ASSERT(vt_inject(0, "tpb_error", "1 MEMORY_ERROR") == 0, "tpb_error knob");
	EXPECT(nrt_execute(m, is, os), NRT_EXEC_COMPLETED_WITH_ERR);
	/* the directory does not exist: refused, and the profile keeps running */
	EXPECT(nrt_profile_stop("/nonexistent-dir/p.json"), NRT_INVALID);
	VT_ASSERT(stat(PROFILE_FILE, &st) != 0, PROFILE_FILE " written before the stop");
	EXPECT(nrt_profile_stop(PROFILE_FILE), NRT_SUCCESS);
	VT_ASSERT(stat(PROFILE_FILE, &st) == 0 && st.st_size > 0, PROFILE_FILE " missing or empty");
	EXPECT(nrt_profile_stop(PROFILE_FILE), NRT_INVALID);	/* already stopped */

	/* unloaded before the stop: what was recorded is still written */
	EXPECT(nrt_profile_start(other, PROFILE_UNLOADED), NRT_SUCCESS);
	EXPECT(nrt_execute(other, NULL, NULL), NRT_SUCCESS);
	EXPECT(nrt_unload(other), NRT_SUCCESS);
	EXPECT(nrt_profile_stop(PROFILE_UNLOADED), NRT_SUCCESS);
	VT_ASSERT(stat(PROFILE_UNLOADED, &st) == 0 && st.st_size > 0, PROFILE_UNLOADED " missing or empty");

	nrt_destroy_tensor_set(&is);
	nrt_destroy_tensor_set(&os);
	nrt_tensor_free(&in);
	nrt_tensor_free(&out);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	return 0;
}

/* What one NeuronCore's jobs moved in this process's slab: outcome, count, histograms. */
struct job_counts {
	uint64_t completed, inferences, total, device;
};

static int job_counts(int dev, int nc, struct job_counts *c)
{
	ndl_device_t *d = NULL;
	nds_instance_t *inst = NULL;
	uint64_t h[NDS_LATENCY_BUCKETS];
	unsigned i;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (ndl_open_device(dev, NULL, &d) || nds_open(d, 0, &inst))
		goto out;
	if (nds_get_nc_counter(inst, nc, NDS_NC_COUNTER_INFER_COMPLETED, &c->completed) ||
	    nds_get_nc_counter(inst, nc, NDS_NC_COUNTER_INFERENCE_COUNT, &c->inferences) ||
	    nds_get_latency(inst, NDS_LATENCY_TOTAL, h))
		goto out;
	for (i = 0; i < NDS_LATENCY_BUCKETS; i++)
		c->total += h[i];
	if (nds_get_latency(inst, NDS_LATENCY_DEVICE, h))
		goto out;
	for (i = 0; i < NDS_LATENCY_BUCKETS; i++)
		c->device += h[i];
	ret = 0;
out:
	if (inst)
		nds_close(inst);
	if (d)
		ndl_close_device(d);
	return ret;
}

/*
 * The empty model (no tensors, proxy, program or collective step) is one
 * libnrt runs whole inside nrt_execute (its bare path): each clean job
 * counts once as completed, once in INFERENCE_COUNT and once in each
 * latency histogram, as any job does.
 */
static int bare_model_counts(void)
{
	struct job_counts a, b;
	nrt_model_t *m;
	int i;

	EXPECT(load("empty", 0, &m), NRT_SUCCESS);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_SUCCESS);	/* the histograms exist */
	VT_ASSERT(job_counts(0, 0, &a) == 0, "reading the slab");
	for (i = 0; i < 5; i++)
		EXPECT(nrt_execute(m, NULL, NULL), NRT_SUCCESS);
	VT_ASSERT(job_counts(0, 0, &b) == 0, "reading the slab");
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	VT_ASSERT(b.completed - a.completed == 5 && b.inferences - a.inferences == 5 &&
			  b.total - a.total == 5 && b.device - a.device == 5,
		  "5 jobs moved completed %llu, inferences %llu, histograms %llu and %llu",
		  (unsigned long long)(b.completed - a.completed),
		  (unsigned long long)(b.inferences - a.inferences),
		  (unsigned long long)(b.total - a.total), (unsigned long long)(b.device - a.device));
	return 0;
}

/* Bad input loses nothing: NULLs, freed and foreign handles, wrong placement. */
static int bad_input(void)
{
	nrt_model_t *m, *m2, *none = NULL;
	nrt_tensor_t *dev1 = NULL, *dev0 = NULL, *t = NULL, *gone;
	nrt_tensor_set_t *is = NULL, *os = NULL;
	uint32_t n;
	uint8_t buf[64];

	EXPECT(nrt_load(NULL, 100, 0, -1, &m), NRT_INVALID);
	{
		size_t sz = 0;
		void *b = neff_read("empty", &sz);

		VT_ASSERT(b, "empty.neff");
		EXPECT(nrt_load(b, sz, 0, -1, NULL), NRT_INVALID);
		EXPECT(nrt_load(b, sz, 0, 0, &m), NRT_INVALID);	/* vnc_count: -1 or whole copies, never 0 */
		EXPECT(nrt_load(b, sz - 1, 0, -1, &m), NRT_INVALID);
		free(b);
	}
	EXPECT(load("empty", 99, &m), NRT_INVALID);
	EXPECT(load("trunc", 0, &m), NRT_INVALID);
	EXPECT(nrt_execute(none, NULL, NULL), NRT_INVALID_HANDLE);
	EXPECT(nrt_execute_repeat((nrt_model_t *)buf, NULL, NULL, 1), NRT_INVALID_HANDLE);
	EXPECT(load("affine", 0, &m), NRT_SUCCESS);
	EXPECT(nrt_execute_repeat(m, NULL, NULL, 0), NRT_INVALID);
	EXPECT(nrt_get_model_nc_count(m, NULL), NRT_INVALID);
	EXPECT(nrt_get_model_nc_count(m, &n), NRT_SUCCESS);
	VT_ASSERT(n == 1, "nc count %u", n);
	/* a missing input is bad input, a freed one a bad handle */
	EXPECT(nrt_execute(m, NULL, NULL), NRT_EXEC_BAD_INPUT);
	/* a device tensor of another NeuronCore: wrong placement */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 64, "in", &dev1), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "out", &t), NRT_SUCCESS);
	EXPECT(io_sets(&is, &os, dev1, t), NRT_SUCCESS);
	EXPECT(nrt_execute(m, is, os), NRT_EXEC_BAD_INPUT);
	/* with the right input, a freed output is a bad handle */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "in", &dev0), NRT_SUCCESS);
	EXPECT(nrt_add_tensor_to_tensor_set(is, "in", dev0), NRT_SUCCESS);
	EXPECT(nrt_execute(m, is, os), NRT_SUCCESS);
	gone = t;
	nrt_tensor_free(&t);
	EXPECT(nrt_execute(m, is, os), NRT_INVALID_HANDLE);
	nrt_tensor_free(&dev0);
	EXPECT(nrt_tensor_read(gone, buf, 0, 1), NRT_INVALID_HANDLE);
	/* device tensor ranges and placements */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, 0, 64, "v", &t), NRT_INVALID);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 8, 64, "x", &t), NRT_INVALID);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, -1, 64, "x", &t), NRT_INVALID);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 0, "x", &t), NRT_INVALID);
	EXPECT(nrt_tensor_write(dev1, buf, 1, 64), NRT_INVALID);
	EXPECT(nrt_tensor_read(dev1, buf, 64, 1), NRT_INVALID);
	EXPECT(nrt_tensor_read(dev1, buf, SIZE_MAX, 2), NRT_INVALID);
	EXPECT(nrt_tensor_memset(dev1, 60, 0, 5), NRT_INVALID);
	EXPECT(nrt_tensor_read(dev1, NULL, 0, 1), NRT_INVALID);
	/* a bad user pointer reaches the driver: refused, not a crash */
	EXPECT(nrt_tensor_read(dev1, (void *)8, 0, 8), NRT_INVALID);
	EXPECT(nrt_tensor_memset(dev1, 0, 0x41, 64), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(dev1, buf, 0, 64), NRT_SUCCESS);
	VT_ASSERT(buf[0] == 0x41 && buf[63] == 0x41, "memset");
	/* device-to-device copy across NeuronCores is refused */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "x", &t), NRT_SUCCESS);
	EXPECT(nrt_tensor_copy(dev1, 0, t, 0, 64), NRT_INVALID);
	nrt_tensor_free(&t);
	/* two models share a NeuronCore; unloading one keeps the other running */
	EXPECT(load("empty", 0, &m2), NRT_SUCCESS);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	EXPECT(nrt_execute(m2, NULL, NULL), NRT_SUCCESS);
	/* the empty model uses no set, but a set passed must be one */
	EXPECT(nrt_execute(m2, is, os), NRT_SUCCESS);
	EXPECT(nrt_execute(m2, (nrt_tensor_set_t *)buf, NULL), NRT_INVALID_HANDLE);
	EXPECT(nrt_execute(m2, NULL, (nrt_tensor_set_t *)buf), NRT_INVALID_HANDLE);
	EXPECT(nrt_execute_repeat(m2, is, (nrt_tensor_set_t *)buf, 2), NRT_INVALID_HANDLE);
	EXPECT(nrt_unload(m2), NRT_SUCCESS);
	nrt_destroy_tensor_set(&is);
	nrt_destroy_tensor_set(&os);
	nrt_tensor_free(&dev1);
	return 0;
}

/*
 * 101: a NeuronCore that took an uncorrectable error refuses every job
 * until the device's reset (which needs the device closed by everyone).
 */
/* Mappings of device memory allocations in this process (/proc/self/maps). */
static int devmem_maps(void)
{
	unsigned long long off;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/neuron") &&
		    sscanf(line, "%*x-%*x %*4s %llx", &off) == 1 && off >= NEURON_MEM_MMAP_BASE)
			n++;
	fclose(f);
	return n;
}

/*
 * Device tensor I/O goes through a mapping of the allocation:
 * one mapping per device tensor while it lives, and reads, writes,
 * memset, slices and device-to-device copies give the bytes the
 * simulated NeuronCore sees (outputs_checked runs models over them).
 */
static int tensor_io_mapped(void)
{
	enum { N = 10000 };
	static uint8_t w[N], r[N];
	nrt_tensor_t *d = NULL, *d2 = NULL, *sl = NULL;
	int before = devmem_maps(), i;

	VT_ASSERT(before >= 0, "/proc/self/maps");
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, N, "mapped", &d), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, N, "mapped2", &d2), NRT_SUCCESS);
	VT_ASSERT(devmem_maps() == before + 2, "device tensors not mapped: %d -> %d", before,
		  devmem_maps());
	for (i = 0; i < N; i++)
		w[i] = (uint8_t)(i * 31 + 7);
	EXPECT(nrt_tensor_write(d, w, 0, N), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(d, r, 0, N), NRT_SUCCESS);
	VT_ASSERT(!memcmp(w, r, N), "read back differs");
	/* across a page boundary, through a slice */
	EXPECT(nrt_tensor_allocate_slice(d, 4000, 200, "slice", &sl), NRT_SUCCESS);
	EXPECT(nrt_tensor_write(sl, "abcdefgh", 90, 8), NRT_SUCCESS);
	EXPECT(nrt_tensor_memset(d, 8000, 0xc3, 1500), NRT_SUCCESS);
	memcpy(w + 4090, "abcdefgh", 8);
	memset(w + 8000, 0xc3, 1500);
	EXPECT(nrt_tensor_copy(d, 0, d2, 0, N), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(d2, r, 0, N), NRT_SUCCESS);
	VT_ASSERT(!memcmp(w, r, N), "slice write, memset or copy differ");
	nrt_tensor_free(&sl);
	nrt_tensor_free(&d);
	nrt_tensor_free(&d2);
	VT_ASSERT(devmem_maps() == before, "mappings left after free: %d", devmem_maps());
	return 0;
}

static int st101_unit_unrecoverable(void)
{
	nrt_model_t *m;
	struct snap s;
	int fd;

	snap_take(&s, 2);
	VT_ASSERT(vt_inject(0, "nc_unrecoverable", "2") == 0, "nc_unrecoverable knob");
	EXPECT(load("empty", 2, &m), NRT_SUCCESS);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_EXEC_UNIT_UNRECOVERABLE);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_EXEC_UNIT_UNRECOVERABLE);	/* stays */
	NOTHING_MOVED(&s);
	/* other NeuronCores of the device are fine */
	if (run_empty(1, NRT_SUCCESS))
		return 1;
	nrt_close();
	fd = open("/sys/devices/virtual/neuron_device/neuron0/reset", O_WRONLY);
	VT_ASSERT(fd >= 0 && write(fd, "1", 1) == 1, "reset: %s", strerror(errno));
	close(fd);
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0.0", NULL), NRT_SUCCESS);
	snap_take(&s, 2);
	if (run_empty(2, NRT_SUCCESS))
		return 1;
	MOVED(&s, "success");
	return 0;
}

/*
 * nrt_close() with tensors still allocated: the device memory is freed and
 * the device closed (its reset, which needs everyone to have closed it,
 * succeeds), a device tensor answers NRT_CLOSED to everything that touches
 * its data (in a new runtime too, also as a model's input), a host tensor
 * keeps its data, and every handle frees as usual.
 */
static int close_frees_device_tensors(void)
{
	nrt_tensor_t *d = NULL, *d2 = NULL, *h = NULL, *out = NULL;
	nrt_tensor_set_t *is = NULL, *os = NULL;
	nrt_model_t *m;
	struct snap s;
	char buf[16];
	int fd;

	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "in", &d), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "d2", &d2), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 16, "h", &h), NRT_SUCCESS);
	EXPECT(nrt_tensor_write(h, "0123456789abcdef", 0, 16), NRT_SUCCESS);
	EXPECT(nrt_tensor_memset(d, 0, 0x5a, 64), NRT_SUCCESS);
	nrt_close();
	fd = open("/sys/devices/virtual/neuron_device/neuron0/reset", O_WRONLY);
	VT_ASSERT(fd >= 0 && write(fd, "1", 1) == 1,
		  "reset after nrt_close() with device tensors held: %s", strerror(errno));
	close(fd);
	EXPECT(nrt_tensor_read(d, buf, 0, 16), NRT_CLOSED);
	EXPECT(nrt_tensor_write(d, buf, 0, 16), NRT_CLOSED);
	EXPECT(nrt_tensor_memset(d, 0, 0, 16), NRT_CLOSED);
	EXPECT(nrt_tensor_copy(d, 0, d2, 0, 16), NRT_CLOSED);
	EXPECT(nrt_tensor_copy(h, 0, d, 0, 16), NRT_CLOSED);
	EXPECT(nrt_tensor_copy(d, 0, h, 0, 16), NRT_CLOSED);
	VT_ASSERT(nrt_tensor_get_size(d) == 64, "size of a closed device tensor");
	EXPECT(nrt_tensor_read(h, buf, 0, 16), NRT_SUCCESS);
	VT_ASSERT(!memcmp(buf, "0123456789abcdef", 16), "host tensor data after nrt_close()");

	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1.0.0", NULL), NRT_SUCCESS);
	EXPECT(nrt_tensor_read(d, buf, 0, 16), NRT_CLOSED);
	EXPECT(load("copy", 0, &m), NRT_SUCCESS);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "out", &out), NRT_SUCCESS);
	EXPECT(io_sets(&is, &os, d, out), NRT_SUCCESS);
	snap_take(&s, 0);
	EXPECT(nrt_execute(m, is, os), NRT_CLOSED);	/* the caller's tensor: no execution */
	nrt_destroy_tensor_set(&is);
	nrt_destroy_tensor_set(&os);
	/* as an output */
	EXPECT(io_sets(&is, &os, out, d2), NRT_SUCCESS);
	EXPECT(nrt_execute(m, is, os), NRT_CLOSED);
	NOTHING_MOVED(&s);
	EXPECT(nrt_unload(m), NRT_SUCCESS);
	nrt_destroy_tensor_set(&is);
	nrt_destroy_tensor_set(&os);
	nrt_tensor_free(&d);
	nrt_tensor_free(&d2);
	nrt_tensor_free(&h);
	nrt_tensor_free(&out);
	VT_ASSERT(!d && !d2 && !h && !out, "nrt_tensor_free clears the handle");
	return 0;
}

/* The last row: after nrt_close() everything is NRT_CLOSED. */
static int st14_closed(void)
{
	nrt_model_t *m;
	nrt_tensor_t *t = NULL;
	struct snap s;

	EXPECT(load("empty", 0, &m), NRT_SUCCESS);
	nrt_close();
	snap_take(&s, 0);
	EXPECT(nrt_execute(m, NULL, NULL), NRT_CLOSED);
	EXPECT(load("empty", 0, &m), NRT_CLOSED);
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 4, "t", &t), NRT_CLOSED);
	NOTHING_MOVED(&s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(st13_uninitialized),
		VT_CASE(st2_invalid),
		VT_CASE(st3_invalid_handle),
		VT_CASE(st4_resource),
		VT_CASE(st5_timeout),
		VT_CASE(st9_load_not_enough_nc),
		VT_CASE(st10_unsupported_neff_version),
		VT_CASE(st11_fail_host_mem_alloc),
		VT_CASE(st1002_exec_bad_input),
		VT_CASE(st1003_num_err),
		VT_CASE(st1004_completed_with_err),
		VT_CASE(st1005_nc_busy),
		VT_CASE(st1006_oob),
		VT_CASE(st1200_collectives),
		VT_CASE(st1201_hbm_ue),
		VT_CASE(st1202_nc_ue),
		VT_CASE(st1203_dma_abort),
		VT_CASE(st1204_nq_overflow),
		VT_CASE(st1205_repairable_hbm_ue),
		VT_CASE(st1206_network_proxy),
		VT_CASE(outputs_checked),
		VT_CASE(profile_executions),
		VT_CASE(bare_model_counts),
		VT_CASE(bad_input),
		VT_CASE(tensor_io_mapped),
		VT_CASE(st101_unit_unrecoverable),
		VT_CASE(close_frees_device_tensors),
		VT_CASE(st14_closed),
	};

	if (argc > 1)
		neff_dir = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return vt_run("app", cases, VT_COUNT(cases));
}
