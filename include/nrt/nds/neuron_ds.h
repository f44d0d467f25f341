/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NDS ("neuron datastore"): the per-process counter slab the driver shares
 * with the runtime. Signatures follow the public SDK's nds/neuron_ds.h for
 * the counter subset.
 *
 * Return convention: 0 on success, a negative errno on failure:
 *   -EINVAL  NULL instance, NeuronCore or counter index out of range
 *   -EPERM   a write through a read-only instance (another process's slab)
 *   from nds_open: the NDS_ACQUIRE / mmap errno (-ENOSPC: no free slab,
 *   -ENOENT: @pid holds no slab, -EACCES, ...). Map it to an NRT_STATUS
 *   with nrt_status_from_errno(NRT_SITE_NDS_ACQUIRE, err).
 * Nothing is written when a call fails. Every update is one atomic 64-bit
 * operation on the shared mapping: safe from any number of threads.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ndl/ndl.h>
#include <nrt/nds/nds_latency.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nds_instance nds_instance_t;

/*
 * Open the NDS slab of @pid on @device. @pid 0: the caller's own slab,
 * created on first use, read-write. @pid != 0: that process's slab,
 * read-only. The instance keeps a reference to @device; close it first.
 */
int nds_open(ndl_device_t *device, pid_t pid, nds_instance_t **inst);

/* Unmap and free the instance (always, even when it returns an error). */
int nds_close(nds_instance_t *inst);

/* Per-NeuronCore counters: @pnc_index < the device's NeuronCore count,
 * @counter_index an NC/EXT id 0..94 (<neuron/neuron_nds.h>). */
int nds_increment_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index, uint64_t increment);
int nds_decrement_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index, uint64_t decrement);
int nds_get_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index, uint64_t *value);
int nds_set_nc_counter(nds_instance_t *inst, int pnc_index, uint32_t counter_index, uint64_t *value);

/* Device counters: @counter_index an ND id 0..30. */
int nds_increment_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t increment);
int nds_decrement_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t decrement);
/* ORs (1ULL << @bit_index) into the counter; @bit_index < 64. */
int nds_or_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t bit_index);
int nds_get_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t *value);
int nds_set_nd_counter(nds_instance_t *inst, uint32_t counter_index, uint64_t *value);

/* ---- libnrt extensions ------------------------------------------------- */

/* True when @inst may be written (the caller's own slab). */
bool nds_is_writable(const nds_instance_t *inst);
/* The mapped slab (NEURON_NDS_SIZE bytes), read-only view; NULL on NULL. */
const void *nds_raw_slab(const nds_instance_t *inst);
/* Slab index on the device, or -EINVAL. */
int nds_slot(const nds_instance_t *inst);

/*
 * The application's tag (NEURON_PROCESS_TAG), kept in the slab's
 * runtime-private area where a monitor that maps the slab read-only finds
 * it: at NDS_PROCESS_TAG_OFF a u32 NDS_PROCESS_TAG_MAGIC (written last),
 * a u32 length, then the tag's bytes (at most NDS_PROCESS_TAG_MAX, no NUL
 * needed). nrt_init() records NEURON_PROCESS_TAG when it is set.
 */
#define NDS_PROCESS_TAG_OFF	1248
#define NDS_PROCESS_TAG_MAGIC	0x31676174u	/* "tag1" little-endian */
#define NDS_PROCESS_TAG_MAX	255

/* Record @tag (longer ones are cut at NDS_PROCESS_TAG_MAX). -EPERM read-only. */
int nds_set_process_tag(nds_instance_t *inst, const char *tag);
/*
 * Copy the recorded tag, NUL-terminated, into @buf (@len bytes). Returns
 * its length, 0 when none is recorded, -EINVAL on bad arguments.
 */
int nds_get_process_tag(const nds_instance_t *inst, char *buf, size_t len);

/*
 * Execution latency histograms (layout, buckets and percentile math in
 * <nrt/nds/nds_latency.h>). libnrt records every execution it counts in
 * the execution counters (one the driver refused included, as 0 with the
 * driver's job time): its time (as <nrt/nds/nds_latency.h> says) into
 * NDS_LATENCY_TOTAL, and, when the device ran it, its device time into
 * NDS_LATENCY_DEVICE.
 *
 * nds_record_latency: count @ns in histogram @kind (one relaxed atomic
 * add; sets the block up on first use). -EINVAL bad @inst or @kind,
 * -EPERM read-only.
 */
int nds_record_latency(nds_instance_t *inst, unsigned kind, uint64_t ns);
/*
 * Copy histogram @kind into @counts (NDS_LATENCY_BUCKETS entries): 0,
 * -ENOENT when the slab holds no latency block (a runtime that does not
 * record one, or none yet), -EINVAL on bad arguments.
 */
int nds_get_latency(const nds_instance_t *inst, unsigned kind,
		    uint64_t counts[NDS_LATENCY_BUCKETS]);

/*
 * Open an instance over caller-provided memory (NEURON_NDS_SIZE bytes,
 * 8-byte aligned) instead of a device slab: for tests and tools that work
 * on a copy. @nc_count NeuronCores (1..16).
 */
int nds_open_memory(void *mem, uint32_t nc_count, bool writable, nds_instance_t **inst);

#ifdef __cplusplus
}
#endif
