// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated NeuronCore: synthetic jobs and the faults they hit.
 *
 * A job (backend op exec, NEURON_IOCTL_SIM_EXEC) runs for the requested
 * time, takes every fault armed on its NeuronCore (neuron_sim_inject.c),
 * writes them as error entries into the core's ERROR ring through
 * neuron_job_emit(), as the device's DMA would, and completes; a job armed
 * to hang instead waits out the caller's timeout and fails with
 * -ETIMEDOUT. Entries are written in this order: flood fillers, TPB errors
 * (by type), hardware faults (by kind).
 *
 * A job with NEURON_SIM_EXEC_COLL_ERROR writes one hardware collectives
 * entry more than was armed, in the same order: how a runtime whose
 * collective failed between processes reports it, as a device reports a
 * hang on collectives.
 *
 * A model job (NEURON_IOCTL_SIM_EXEC_MODEL) computes its operation from
 * the input to the output after its run time and before it takes the
 * armed faults: device memory through the simulated HBM, host memory
 * directly, as the device's DMA would, 4 KiB at a time.
 *
 * A NeuronCore that took an uncorrectable error (inject/nc_unrecoverable)
 * refuses every job with -ENOTRECOVERABLE, at once and writing nothing,
 * until the device is reset (sysfs reset, ops->reset).
 *
 * Waits end early on a signal (-EINTR) and when the device is being
 * removed (-ENODEV, neuron_sim_nc_stop()), so removal never waits out a
 * job.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sim: " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "neuron_sim.h"
#include "neuron_sim_inject.h"
#include "neuron_sim_nc.h"

/* entries handed to neuron_job_emit() at once (512 bytes of stack) */
#define SIM_EMIT_BATCH	32

/*
 * Let @us microseconds pass: 0 when they did, -EINTR on a signal, -ENODEV
 * when the device is being removed.
 */
static int sim_wait_us(struct neuron_sim_nc *e, u64 us)
{
	int ret;

	if (READ_ONCE(e->stopping))
		return -ENODEV;
	if (!us)
		return signal_pending(current) ? -EINTR : 0;
	ret = wait_event_interruptible_hrtimeout(e->stop_wq, READ_ONCE(e->stopping),
						 ns_to_ktime(us * NSEC_PER_USEC));
	if (ret == -ETIME)
		return 0;
	return ret ? -EINTR : -ENODEV;
}

struct sim_batch {
	struct neuron_job *job;
	u32 n;
	struct neuron_nq_entry e[SIM_EMIT_BATCH];
};

static void sim_batch_flush(struct sim_batch *b)
{
	if (!b->n)
		return;
	neuron_job_emit(b->job, b->e, b->n);
	b->n = 0;
	cond_resched();
}

static void sim_batch_add(struct sim_batch *b, u8 type, u8 id)
{
	struct neuron_nq_entry *e = &b->e[b->n++];

	memset(e, 0, sizeof(*e));
	e->error_id = id;
	e->header = type;
	e->timestamp_ps = ktime_get_ns() * 1000;
	if (b->n == SIM_EMIT_BATCH)
		sim_batch_flush(b);
}

/* Write the entries of @f into the job's ring. */
static void sim_emit(struct neuron_job *job, const struct neuron_job_faults *f)
{
	struct sim_batch b = { .job = job };
	u32 i, k;

	for (k = 0; k < f->flood; k++)
		sim_batch_add(&b, NEURON_NQ_NOTIFIC_TPB_ERROR, NEURON_TPB_ERROR_FP_UNDERFLOW);
	for (i = 0; i < NEURON_TPB_ERROR_COUNT; i++)
		for (k = 0; k < f->tpb[i]; k++)
			sim_batch_add(&b, NEURON_NQ_NOTIFIC_TPB_ERROR, i);
	for (i = 1; i < NEURON_NQ_HW_COUNT; i++)
		for (k = 0; k < f->hw[i]; k++)
			sim_batch_add(&b, NEURON_NQ_NOTIFIC_ERROR, i);
	sim_batch_flush(&b);
}

/* bytes a model job moves per step */
#define SIM_MODEL_CHUNK	4096U

static int sim_buf_read(struct neuron_sim_dev *sd, const struct neuron_job_buf *b, u64 off,
			void *dst, size_t n)
{
	if (b->location == NEURON_MEM_LOC_HOST) {
		memcpy(dst, b->host + off, n);
		return 0;
	}
	return neuron_sim_hbm_read(&sd->hbm, b->addr + off, dst, n);
}

static int sim_buf_write(struct neuron_sim_dev *sd, const struct neuron_job_buf *b, u64 off,
			 const void *src, size_t n)
{
	if (b->location == NEURON_MEM_LOC_HOST) {
		memcpy(b->host + off, src, n);
		return 0;
	}
	return neuron_sim_hbm_write(&sd->hbm, b->addr + off, src, n);
}

/* out = op(in), chunk by chunk (in place works: each chunk is read first). */
static int sim_model_run(struct neuron_sim_dev *sd, const struct neuron_job_model *m)
{
	u64 off;
	u8 *buf;
	int ret = 0;

	buf = kmalloc(SIM_MODEL_CHUNK, GFP_KERNEL | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	for (off = 0; off < m->bytes && !ret; off += SIM_MODEL_CHUNK) {
		size_t n = min_t(u64, m->bytes - off, SIM_MODEL_CHUNK), i;

		if (READ_ONCE(sd->nc.stopping)) {
			ret = -ENODEV;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		ret = sim_buf_read(sd, &m->in, off, buf, n);
		if (ret)
			break;
		switch (m->op) {
		case NEURON_SIM_OP_AFFINE_U32:
			/* whole words (the core checked), buf is kmalloc-aligned */
			for (i = 0; i + 4 <= n; i += 4) {
				__le32 *w = (__le32 *)(buf + i);

				*w = cpu_to_le32(le32_to_cpu(*w) * m->arg0 + m->arg1);
			}
			break;
		case NEURON_SIM_OP_XOR_U8:
			for (i = 0; i < n; i++)
				buf[i] ^= (u8)m->arg0;
			break;
		default:	/* NEURON_SIM_OP_COPY */
			break;
		}
		ret = sim_buf_write(sd, &m->out, off, buf, n);
		cond_resched();
	}
	kfree(buf);
	return ret;
}

void neuron_sim_nc_break(struct neuron_sim_nc *e, u32 nc)
{
	set_bit(nc, &e->broken);
}

bool neuron_sim_nc_broken(struct neuron_sim_nc *e, u32 nc)
{
	return test_bit(nc, &e->broken);
}

void neuron_sim_nc_reset_map(struct neuron_sim_nc *e, u32 nc_map)
{
	u32 nc;

	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		if (nc_map & BIT(nc))
			clear_bit(nc, &e->broken);
}

void neuron_sim_nc_reset(struct neuron_sim_nc *e)
{
	neuron_sim_nc_reset_map(e, GENMASK(NEURON_MAX_NC - 1, 0));
}

int neuron_sim_nc_exec(void *backend, struct neuron_job *job)
{
	struct neuron_sim_dev *sd = backend;
	struct neuron_sim_nc *e = &sd->nc;
	struct neuron_sim_nc_faults armed;
	int ret;

	if (job->nc >= sd->nc_count)
		return -EINVAL;
	/* the core is dead until the device is reset: nothing runs, nothing is written */
	if (neuron_sim_nc_broken(e, job->nc))
		return -ENOTRECOVERABLE;
	/* one job per core: a second concurrent job of the holder is busy too */
	if (!mutex_trylock(&e->core[job->nc].job_lock))
		return -EBUSY;

	if (!READ_ONCE(e->job_started)) {
		WRITE_ONCE(e->job_started, true);
		wake_up_all(&e->stop_wq);
	}
	ret = sim_wait_us(e, job->duration_us);
	if (ret)
		goto out;

	if (job->model) {
		ret = sim_model_run(sd, job->model);
		if (ret)
			goto out;
	}

	neuron_sim_inject_take_nc(sd, job->nc, &armed);
	/* a collective that failed outside the device, reported as its hardware would */
	if (job->coll_error && armed.emit.hw[NEURON_NQ_HW_COLLECTIVES] < U32_MAX)
		armed.emit.hw[NEURON_NQ_HW_COLLECTIVES]++;
	sim_emit(job, &armed.emit);
	job->faults = armed.emit;

	if (armed.hang) {
		/* the job never completes: the caller gives up after its timeout */
		ret = sim_wait_us(e, job->timeout_us);
		if (!ret)
			ret = -ETIMEDOUT;
	}
out:
	mutex_unlock(&e->core[job->nc].job_lock);
	return ret;
}

void neuron_sim_nc_init(struct neuron_sim_nc *e)
{
	u32 nc;

	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		mutex_init(&e->core[nc].job_lock);
	init_waitqueue_head(&e->stop_wq);
	e->stopping = false;
	e->job_started = false;
	e->broken = 0;
}

void neuron_sim_nc_wait_job(struct neuron_sim_nc *e, unsigned int ms)
{
	wait_event_timeout(e->stop_wq, READ_ONCE(e->job_started) || READ_ONCE(e->stopping),
			   msecs_to_jiffies(ms));
}

void neuron_sim_nc_stop(struct neuron_sim_nc *e)
{
	WRITE_ONCE(e->stopping, true);
	wake_up_all(&e->stop_wq);
}

void neuron_sim_nc_destroy(struct neuron_sim_nc *e)
{
	u32 nc;

	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		mutex_destroy(&e->core[nc].job_lock);
}
