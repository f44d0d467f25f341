/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NDS ("neuron datastore"): the per-process counter slab the driver shares
 * with the runtime. Signatures follow the public SDK's nds/neuron_ds.h for
 * the counters and the objects (what a process publishes about itself and
 * its models, which monitoring tools read).
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

/* ---- objects: the SDK's types and calls ---------------------------------
 *
 * An object is a local copy (nds_obj_new, or a snapshot a nds_read_* call
 * took) that nds_obj_commit writes into the slab, where any process that
 * opens the slab (nds_open with the writer's pid, read-only) reads it.
 * Layouts are the SDK's; the slab's record format is below (NDS_OBJ_*).
 */
typedef void *nds_obj_handle_t;

#define OBJECT_TYPE_MODEL_NODE_INFO	(0)	/* a model's presence on one NeuronCore */
#define OBJECT_TYPE_PROCESS_INFO	(1)	/* framework, tag, versions */
#define OBJECT_TYPE_PROCESS_INFO_EXT	(2)	/* the long tag (NEURON_PROCESS_TAG) */

/* model_mem_usage's first index: 0 host memory, 1 device memory (ours: the SDK does not say) */
#define MODEL_MEM_USAGE_LOCATION_COUNT 2

/* model_mem_usage's second index: the kind of memory */
enum {
	NDS_DMA_MEM_USAGE_SLOT_CODE,
	NDS_DMA_MEM_USAGE_SLOT_TENSORS,
	NDS_DMA_MEM_USAGE_SLOT_CONSTANTS,
	NDS_DMA_MEM_USAGE_SLOT_SCRATCHPAD,
	NDS_DMA_MEM_USAGE_SLOT_MISC,
	NDS_DMA_MEM_USAGE_SLOT_COUNT = 12	/* slots 5..11 unused */
};

typedef struct nds_mem_usage_info {
	size_t total_size;	/* bytes */
	uint32_t chunk_count;	/* allocations that make them up */
} nds_mem_usage_info_t;

typedef struct nds_model_node_info {
	uint32_t model_id;	/* the model (libnrt: a number per load, from 1) */
	uint32_t model_node_id;	/* which of the model's NeuronCores, from 0 */
	char name[256];		/* the NEFF's model name, NUL-terminated */
	char uuid[16];		/* the NEFF header's uuid */
	uint8_t nc_index;	/* the NeuronCore, as the device numbers it */
	uint8_t sg_index;	/* the model's subgraph running there */
} nds_model_node_info_t;

typedef struct nds_model_node_mem_usage_info {
	nds_mem_usage_info_t model_mem_usage[MODEL_MEM_USAGE_LOCATION_COUNT][NDS_DMA_MEM_USAGE_SLOT_COUNT];
} nds_model_node_mem_usage_info_t;

typedef struct nds_version_info {
	uint8_t major;
	uint8_t minor;
	uint32_t build;
} nds_version_info_t;

typedef struct nds_process_info {
	int8_t framework_type;			/* nrt_framework_type_t */
	char tag[32];				/* NEURON_PROCESS_TAG's first 31 bytes, NUL-terminated */
	nds_version_info_t framework_version;	/* what nrt_init()'s strings parse to */
	nds_version_info_t fal_version;
	nds_version_info_t runtime_version;
} nds_process_info_t;

typedef struct nds_process_info_ext {
	char tag[256];		/* NUL-terminated */
} nds_process_info_ext_t;

/* Bits of ND counter NDS_ND_COUNTER_FEATURE_BITMAP (nds_or_nd_counter). */
typedef enum feature_bitmap_bit_index {
	BIT_INDEX_TEST_FEATURE = 0,
	BIT_INDEX_MULTICORE_FEATURE = 1,
	BIT_INDEX_COUNT = BIT_INDEX_MULTICORE_FEATURE + 1
} feature_bitmap_bit_index_t;

/*
 * A new local object of @type (OBJECT_TYPE_*), zeroed, for @inst; NULL for
 * a NULL @inst, an unknown type, or no memory. Fill it through its
 * nds_obj_handle_to_* accessor, then nds_obj_commit it.
 */
nds_obj_handle_t nds_obj_new(nds_instance_t *inst, int type);

/*
 * Write @obj into its instance's slab: the process info (one per slab: the
 * last commit wins), the extended process info (the process tag below,
 * cut at NDS_PROCESS_TAG_MAX), or a model node (a record of its own,
 * taken at its first commit and rewritten by later ones). Readers never
 * see a half-written object. 0; -EINVAL not an object; -EPERM a
 * read-only instance; -ENODEV its instance was closed; -ENOSPC no free
 * model node record (NDS_OBJ_MODEL_SLOTS are in use).
 */
int nds_obj_commit(nds_obj_handle_t obj);

/*
 * Free @obj. An object made by nds_obj_new and committed is also removed
 * from the slab (its instance still open and writable); a snapshot a
 * nds_read_* call returned is only freed, never removing what a process
 * published. 0, or -EINVAL when @obj is not a live object (NULL, freed).
 */
int nds_obj_delete(nds_obj_handle_t obj);

/*
 * The object's data, for reading and writing, while the object lives;
 * NULL when @obj is not a live object of that type.
 */
nds_model_node_info_t *nds_obj_handle_to_model_node_info(nds_obj_handle_t obj);
nds_model_node_mem_usage_info_t *nds_obj_handle_to_model_node_mem_usage(nds_obj_handle_t obj);
nds_process_info_t *nds_obj_handle_to_process_info(nds_obj_handle_t obj);
nds_process_info_ext_t *nds_obj_handle_to_process_info_ext(nds_obj_handle_t obj);

/*
 * A snapshot of every model node the slab holds: *@models a malloc()ed
 * array of *@count handles (NULL when 0), which the caller frees with
 * free() after nds_obj_delete() of each handle. 0; -EINVAL bad arguments;
 * -ENOMEM; -EAGAIN when a record stayed mid-write (its writer died or
 * stalled in the middle of a commit) through every retry.
 */
int nds_read_all_model_nodes(nds_instance_t *inst, nds_obj_handle_t **models, size_t *count);

/*
 * A snapshot of the process info (nds_read_process_info) or of the
 * extended process info (the process tag; nds_read_process_info_ext), to
 * nds_obj_delete() after use. NULL when the slab holds none, for a NULL
 * @inst, or without memory.
 */
nds_obj_handle_t nds_read_process_info(nds_instance_t *inst);
nds_obj_handle_t nds_read_process_info_ext(nds_instance_t *inst);

/*
 * The objects' records in the slab's runtime-private area, after the
 * latency block (<nrt/nds/nds_latency.h>, which ends at 5672), little-endian:
 *   NDS_OBJ_OFF          u32 NDS_OBJ_MAGIC ("obj1", written last), u32 NDS_OBJ_MODEL_SLOTS
 *   NDS_OBJ_PROCESS_OFF  the process info record
 *   NDS_OBJ_MODEL_OFF    NDS_OBJ_MODEL_SLOTS model node records, NDS_OBJ_MODEL_SIZE apart
 * A record: u32 sequence (odd while its writer writes it: a reader retries
 * until it reads the same even value before and after its copy), u32
 * state (1 used, 0 free), then the fields at fixed offsets:
 *   process info: +8 i8 framework_type, +9 tag[32], then framework, FAL
 *     and runtime versions at +44, +52, +60, each u8 major, u8 minor, u16
 *     0, u32 build (68 bytes in all)
 *   model node: +8 u32 model_id, +12 u32 model_node_id, +16 name[256],
 *     +272 uuid[16], +288 u8 nc_index, +289 u8 sg_index, then from +296
 *     the memory usage, [location][slot] in order, each u64 total_size,
 *     u32 chunk_count, u32 0 (680 bytes in all)
 * The extended process info is the process tag (NDS_PROCESS_TAG_OFF).
 */
#define NDS_OBJ_OFF		5696
#define NDS_OBJ_MAGIC		0x316a626fu	/* "obj1" little-endian */
#define NDS_OBJ_PROCESS_OFF	5704
#define NDS_OBJ_MODEL_OFF	5824
#define NDS_OBJ_MODEL_SIZE	704
#define NDS_OBJ_MODEL_SLOTS	48
#define NDS_OBJ_END		(NDS_OBJ_MODEL_OFF + NDS_OBJ_MODEL_SIZE * NDS_OBJ_MODEL_SLOTS)	/* 39616 */

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

/*
 * Copy what a reader of process @pid's slab on @device uses into @mem
 * (NEURON_NDS_SIZE bytes, 8-byte aligned; the offsets are the slab's): the
 * header, the ND counters, the NC counters of the device's NeuronCores,
 * the process tag and the latency histograms. Each counter is read whole.
 * The driver copies them (NDS_READ): nothing is mapped, and no slab is
 * looked up or held on the caller's file. The other bytes of @mem are left
 * as they are; on an error, what @mem holds is unspecified. Read the copy through nds_open_memory(@mem, the device's
 * NeuronCore count, false, ...). @pid 0: the caller's own slab.
 * 0; -ENOENT: @pid holds no slab on @device; -EOPNOTSUPP: the driver has
 * no NDS_READ (the vendor's, or one without NEURON_CAP_NDS_READ), map the
 * slab with nds_open() instead; -EINVAL: bad arguments; else a -errno of
 * the driver's.
 */
int nds_read_copy(ndl_device_t *device, pid_t pid, void *mem);

#ifdef __cplusplus
}
#endif
