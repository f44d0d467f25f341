/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Notification-queue rings from userspace: open an ERROR ring of a
 * NeuronCore, drain it (phase-bit aware: no entry lost or read twice across
 * wraps) and decode what was drained through the reference's chain. Usable
 * by tools without executing anything.
 *
 * 0 or a negative errno; a drain returns the number of entries consumed.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <ndl/ndl.h>
#include <nrt/nrt_error_model.h>

#ifdef __cplusplus
extern "C" {
#endif

struct neuron_nq_entry;
typedef struct nrt_nq nrt_nq_t;

/*
 * Create (or re-open: same size returns the same ring) ring (@nc, @nq_type,
 * @engine) of @ring_size bytes on @device and map it. The calling process
 * owns it until nrt_nq_close(). Errors: the NQ_INIT/mmap errno
 * (nrt_status_from_errno(NRT_SITE_NQ_INIT / NRT_SITE_NQ_MMAP, err)).
 */
int nrt_nq_open(ndl_device_t *device, uint32_t nc, uint32_t nq_type, uint32_t engine,
		uint32_t ring_size, nrt_nq_t **out);

/* Unmap, release the ring in the driver, free @q. */
int nrt_nq_close(nrt_nq_t *q);

/*
 * A ring that already lives in memory: @map is a mapping laid out as the
 * driver's (struct neuron_nq_ctrl at 0, entries at NEURON_NQ_RING_OFFSET),
 * @map_size bytes. Nothing is released on close. For tests and tools.
 */
int nrt_nq_attach_memory(void *map, size_t map_size, nrt_nq_t **out);

/*
 * Consume up to @max entries (0: all available), copying them to @out (may
 * be NULL to discard; must hold @max entries when @max > 0). Publishes the
 * new head. Returns the count consumed.
 */
int nrt_nq_drain_entries(nrt_nq_t *q, struct neuron_nq_entry *out, uint32_t max);

/*
 * Consume every available entry and decode it into @errs (not cleared
 * first). Entries the producer dropped since the last drain (the control
 * area's dropped counter) mark @errs as overflowed, once; the SW-overflow
 * bit of the first entry written after drops reports the same drops and is
 * not counted again (nrt_nq_drain_entries() returns it untouched). Returns
 * the count consumed; *@dropped (may be NULL) gets the new drops.
 */
int nrt_nq_drain(nrt_nq_t *q, nrt_infer_errors_t *errs, uint64_t *dropped);

/* Ring capacity in entries, or -EINVAL. */
int nrt_nq_capacity(const nrt_nq_t *q);

/*
 * The drain path @q uses: "scalar", "avx2" or "avx512" (x86-64: 8 or 16
 * entries decoded at once), chosen when the queue was opened or attached:
 * the widest the CPU has, or the one LIBNRT_NQ_ISA names if the CPU has
 * it; "scalar" for entries not on 16-byte boundaries. NULL for a NULL @q.
 */
const char *nrt_nq_path(const nrt_nq_t *q);

#ifdef __cplusplus
}
#endif
