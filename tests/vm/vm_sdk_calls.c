// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the SDK 2.28 calls of docs/sdk-compat.md that real programs make
 * beyond loading and executing, written only against the SDK's headers
 * and signatures (built with -std=c11 -Wall -Werror, implicit
 * declarations are errors):
 *   nrt_tensor_read_batch / nrt_tensor_write_batch over device and host
 *   tensors at offsets, checked byte for byte against single reads;
 *   nrt_tensor_get_device_allocation_info against nrt_tensor_get_va and
 *   the tensors' sizes; nrt_get_vnc_memory_stats moving by exactly what is
 *   allocated and freed; nrt_get_instance_info; nrt_get_model_instance_count
 *   across loads and unloads; and a second process reading with the NDS
 *   object API (nds_read_process_info, nds_read_process_info_ext,
 *   nds_read_all_model_nodes) what a runtime published, with the values it
 *   set, before and after it unloads a model.
 *
 *   vm_sdk_calls NEFF_DIR     (27_sdkcalls.sh packs affine.neff and two.neff)
 *   vm_sdk_calls publish NEFF_DIR READY_FD HOLD_FD   (the publisher, exec'd)
 *
 * Expects the module loaded with sim_devices=1 sim_nc_per_device=4
 * sim_hbm_mb=64 and no other process using it.
 */
#define _GNU_SOURCE
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_version.h>

#include "vmtest.h"

#define NC_COUNT 4
#define HBM_BYTES (64ull << 20)	/* sim_hbm_mb=64 */
/* the publisher's identity (27_sdkcalls.sh packs the NEFFs with these uuids) */
#define PUB_TAG "sdkcalls-publisher-with-a-tag-longer-than-31-bytes"
#define PUB_FW "2.1.0+cu121"
#define PUB_FAL "1.13.4"
static const unsigned char uuid_two[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const unsigned char uuid_affine[16] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
					       0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78 };

static const char *neff_dir = ".";
static const char *self_path = "/proc/self/exe";

#define EXPECT(call, want)                                                       \
	do {                                                                     \
		NRT_STATUS s_ = (call);                                          \
		VT_ASSERT(s_ == (want), "%s: %s (%u), expected %s", #call,       \
			  nrt_get_status_as_str(s_), (unsigned)s_,               \
			  nrt_get_status_as_str(want));                          \
	} while (0)

/* ---- helpers ------------------------------------------------------------ */

static NRT_STATUS load(const char *name, int vnc, int vnc_count, nrt_model_t **m)
{
	char path[256];
	size_t size = 0;
	void *b;
	NRT_STATUS st;

	*m = NULL;
	snprintf(path, sizeof(path), "%s/%s.neff", neff_dir, name);
	b = vt_slurp(path, &size);
	if (!b)
		return (NRT_STATUS)0xdead;
	st = nrt_load(b, size, vnc, vnc_count, m);
	free(b);
	return st;
}

static nrt_tensor_t *dev_tensor(int vnc, size_t size)
{
	nrt_tensor_t *t = NULL;

	if (nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, size, NULL, &t) != NRT_SUCCESS)
		return NULL;
	return t;
}

/* Fill @mirror (@size bytes) with a pattern of @seed and write it to @t. */
static NRT_STATUS fill(nrt_tensor_t *t, uint8_t *mirror, size_t size, unsigned seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		mirror[i] = (uint8_t)(i * 7u + seed * 31u + (i >> 8));
	return nrt_tensor_write(t, mirror, 0, size);
}

/* 0 when @t holds exactly @mirror (@size bytes), read back in one nrt_tensor_read. */
static int same(nrt_tensor_t *t, const uint8_t *mirror, size_t size, const char *what)
{
	uint8_t *got = malloc(size);
	size_t i;

	VT_ASSERT(got, "no memory");
	if (nrt_tensor_read(t, got, 0, size) != NRT_SUCCESS) {
		free(got);
		VT_ASSERT(0, "%s: read back failed", what);
	}
	for (i = 0; i < size; i++)
		if (got[i] != mirror[i]) {
			vt_fail_msg(__FILE__, __LINE__, "%s: byte %zu is 0x%02x, expected 0x%02x", what, i,
				    got[i], mirror[i]);
			free(got);
			return -1;
		}
	free(got);
	return 0;
}

/* Visible NeuronCore @vnc's device memory in use (nrt_get_vnc_memory_stats), or UINT64_MAX. */
static uint64_t used(uint32_t vnc)
{
	nrt_vnc_memory_stats_t s;
	size_t out = 0;

	if (nrt_get_vnc_memory_stats(vnc, &s, sizeof(s), &out) != NRT_SUCCESS || out != sizeof(s))
		return UINT64_MAX;
	return s.bytes_used;
}

/* ---- cases in this process's runtime ------------------------------------ */

static int init(void)
{
	EXPECT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
	return 0;
}

static int instance_info(void)
{
	nrt_instance_info_t info;
	struct {
		nrt_instance_info_t info;
		uint32_t after;
	} big;
	char dmi[128] = "";

	memset(&info, 0x5c, sizeof(info));
	EXPECT(nrt_get_instance_info(&info, sizeof(info)), NRT_SUCCESS);
	/* the simulated device models a Trainium2; QEMU's DMI product name is
	 * no EC2 instance type, so the size is unknown */
	vt_read_file("/sys/class/dmi/id/product_name", dmi, sizeof(dmi));
	VT_ASSERT(info.family == NRT_INSTANCE_TRN2, "family %u", info.family);
	VT_ASSERT(info.size == NRT_INSTANCE_SIZE_UNKNOWN, "size %u (DMI product name '%s')", info.size,
		  dmi);
	VT_ASSERT(!strcmp(info.arch_name, "trn2"), "arch_name '%.16s'", info.arch_name);
	VT_ASSERT(!strcmp(info.device_revision, "NDsim"), "device_revision '%.8s'",
		  info.device_revision);

	/* the SDK's older 8-byte struct: nothing written past it */
	memset(&big, 0x5c, sizeof(big));
	EXPECT(nrt_get_instance_info(&big.info, 8), NRT_SUCCESS);
	VT_ASSERT(big.info.family == NRT_INSTANCE_TRN2 && big.info.size == NRT_INSTANCE_SIZE_UNKNOWN,
		  "short: %u %u", big.info.family, big.info.size);
	VT_ASSERT((unsigned char)big.info.arch_name[0] == 0x5c, "wrote past 8 bytes");
	EXPECT(nrt_get_instance_info(&big.info, sizeof(big)), NRT_SUCCESS);
	VT_ASSERT(big.after == 0x5c5c5c5cu, "wrote past the struct");
	EXPECT(nrt_get_instance_info(NULL, sizeof(info)), NRT_INVALID);
	EXPECT(nrt_get_instance_info(&info, 4), NRT_INVALID);
	return 0;
}

static int batch_io(void)
{
	enum { SA = 6000, SB = 300, SC = 9000, SH = 128 };
	static uint8_t ma[SA], mb[SB], mc[SC], mh[SH];
	nrt_tensor_t *a = dev_tensor(0, SA), *b = dev_tensor(1, SB), *c = dev_tensor(0, SC);
	nrt_tensor_t *h = NULL, *d, *stale;
	uint8_t wa0[16], wa1[20], wa2[10], wb0[200], wc0[808], wc1[1], wh0[64];
	uint8_t ra0[100], ra1[7], rb0[300], rc0[4097], rh0[3], single[4097], zero[8] = { 0 };
	size_t i;
	int k;

	VT_ASSERT(a && b && c, "device tensors");
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, SH, "h", &h), NRT_SUCCESS);
	EXPECT(fill(a, ma, SA, 1), NRT_SUCCESS);
	EXPECT(fill(b, mb, SB, 2), NRT_SUCCESS);
	EXPECT(fill(c, mc, SC, 3), NRT_SUCCESS);
	EXPECT(fill(h, mh, SH, 4), NRT_SUCCESS);

	/* writes: several tensors, several offsets (one across a page, one
	 * to the last byte), device and host in one batch */
	{
		uint8_t *bufs[] = { wa0, wa1, wa2, wb0, wc0, wc1, wh0 };
		size_t lens[] = { sizeof(wa0), sizeof(wa1), sizeof(wa2), sizeof(wb0),
				  sizeof(wc0), sizeof(wc1), sizeof(wh0) };
		const nrt_tensor_batch_op_t opa[] = { { 0, sizeof(wa0), wa0 },
						      { 4090, sizeof(wa1), wa1 },
						      { SA - sizeof(wa2), sizeof(wa2), wa2 } };
		const nrt_tensor_batch_op_t opb[] = { { 100, sizeof(wb0), wb0 } };
		const nrt_tensor_batch_op_t opc[] = { { 8192, sizeof(wc0), wc0 }, { 1, 1, wc1 } };
		const nrt_tensor_batch_op_t oph[] = { { 64, sizeof(wh0), wh0 } };
		const nrt_tensor_batch_t batches[] = { { a, opa, 3 }, { b, opb, 1 }, { c, opc, 2 },
						       { h, oph, 1 } };

		for (k = 0; k < 7; k++)
			for (i = 0; i < lens[k]; i++)
				bufs[k][i] = (uint8_t)(0xa0 + 13 * k + i);
		EXPECT(nrt_tensor_write_batch(batches, 4, false), NRT_SUCCESS);
		memcpy(ma, wa0, sizeof(wa0));
		memcpy(ma + 4090, wa1, sizeof(wa1));
		memcpy(ma + SA - sizeof(wa2), wa2, sizeof(wa2));
		memcpy(mb + 100, wb0, sizeof(wb0));
		memcpy(mc + 8192, wc0, sizeof(wc0));
		mc[1] = wc1[0];
		memcpy(mh + 64, wh0, sizeof(wh0));
	}
	if (same(a, ma, SA, "a") || same(b, mb, SB, "b") || same(c, mc, SC, "c") || same(h, mh, SH, "h"))
		return -1;

	/* reads: each op's bytes are what a single read of the same range gives */
	{
		uint8_t *bufs[] = { ra0, ra1, rb0, rc0, rh0 };
		nrt_tensor_t *ts[] = { a, a, b, c, h };
		const nrt_tensor_batch_op_t opa[] = { { 4050, sizeof(ra0), ra0 },
						      { SA - sizeof(ra1), sizeof(ra1), ra1 } };
		const nrt_tensor_batch_op_t opb[] = { { 0, sizeof(rb0), rb0 } };
		const nrt_tensor_batch_op_t opc[] = { { 4000, sizeof(rc0), rc0 } };
		const nrt_tensor_batch_op_t oph[] = { { 62, sizeof(rh0), rh0 } };
		const nrt_tensor_batch_op_t *ops[] = { &opa[0], &opa[1], &opb[0], &opc[0], &oph[0] };
		const nrt_tensor_batch_t batches[] = { { h, oph, 1 }, { a, opa, 2 }, { c, opc, 1 },
						       { b, opb, 1 } };

		EXPECT(nrt_tensor_read_batch(batches, 4, true), NRT_SUCCESS);
		for (k = 0; k < 5; k++) {
			EXPECT(nrt_tensor_read(ts[k], single, ops[k]->offset, ops[k]->size), NRT_SUCCESS);
			VT_ASSERT(!memcmp(bufs[k], single, ops[k]->size), "read op %d differs from a single read", k);
		}
		VT_ASSERT(!memcmp(ra0, ma + 4050, sizeof(ra0)) && !memcmp(rc0, mc + 4000, sizeof(rc0)) &&
			  !memcmp(rh0, mh + 62, sizeof(rh0)), "read ops differ from what was written");
	}

	/* refused before any byte moves: a range past the end, a freed handle */
	{
		const nrt_tensor_batch_op_t good[] = { { 0, sizeof(zero), zero } };
		const nrt_tensor_batch_op_t past[] = { { SB - 4, 10, zero } };
		const nrt_tensor_batch_t bad_range[] = { { a, good, 1 }, { b, past, 1 } };
		nrt_tensor_batch_t bad_handle[] = { { a, good, 1 }, { NULL, good, 1 } };

		EXPECT(nrt_tensor_write_batch(bad_range, 2, false), NRT_INVALID);
		d = dev_tensor(1, 64);
		VT_ASSERT(d, "tensor d");
		stale = d;
		nrt_tensor_free(&d);
		bad_handle[1].tensor = stale;
		EXPECT(nrt_tensor_write_batch(bad_handle, 2, false), NRT_INVALID_HANDLE);
		EXPECT(nrt_tensor_read_batch(bad_handle, 2, false), NRT_INVALID_HANDLE);
		EXPECT(nrt_tensor_write_batch(NULL, 1, false), NRT_INVALID);
		EXPECT(nrt_tensor_write_batch(NULL, 0, false), NRT_SUCCESS);
	}
	if (same(a, ma, SA, "a after refusals"))
		return -1;
	nrt_tensor_free(&a);
	nrt_tensor_free(&b);
	nrt_tensor_free(&c);
	nrt_tensor_free(&h);
	return 0;
}

/* kept across nrt_close() by the close case */
static nrt_tensor_t *kept;

static int allocation_info(void)
{
	nrt_tensor_device_allocation_info_t it, is, iu, ih;
	nrt_vnc_memory_stats_t st;
	nrt_tensor_t *t = dev_tensor(0, 10000), *u = dev_tensor(1, 5000), *s = NULL, *h = NULL;
	size_t out;
	uint8_t *vt, *vs;

	VT_ASSERT(t && u, "device tensors");
	EXPECT(nrt_tensor_allocate_slice(t, 4104, 100, "s", &s), NRT_SUCCESS);
	EXPECT(nrt_tensor_get_device_allocation_info(t, &it), NRT_SUCCESS);
	EXPECT(nrt_tensor_get_device_allocation_info(s, &is), NRT_SUCCESS);
	EXPECT(nrt_tensor_get_device_allocation_info(u, &iu), NRT_SUCCESS);
	/* the allocation is the tensor's size; a slice lies at its offset in it */
	VT_ASSERT(it.size == nrt_tensor_get_size(t) && it.size == 10000, "size %zu", it.size);
	VT_ASSERT(iu.size == 5000, "u size %zu", iu.size);
	vt = nrt_tensor_get_va(t);
	vs = nrt_tensor_get_va(s);
	VT_ASSERT(vt && vs, "no CPU address");
	VT_ASSERT(is.physical_address - it.physical_address == (uint64_t)(vs - vt) &&
			  vs - vt == 4104,
		  "slice at +%llu on the device, +%td in the mapping",
		  (unsigned long long)(is.physical_address - it.physical_address), vs - vt);
	VT_ASSERT(is.size == 10000 - 4104 && is.size >= nrt_tensor_get_size(s), "slice size %zu", is.size);
	VT_ASSERT(it.hbm_index == 0 && is.hbm_index == 0 && iu.hbm_index == 0, "hbm_index");
	/* two allocations never overlap, and lie within the device's memory */
	VT_ASSERT(it.physical_address + it.size <= iu.physical_address ||
			  iu.physical_address + iu.size <= it.physical_address,
		  "overlap: [%llx,+%zu) [%llx,+%zu)", (unsigned long long)it.physical_address, it.size,
		  (unsigned long long)iu.physical_address, iu.size);
	EXPECT(nrt_get_vnc_memory_stats(0, &st, sizeof(st), &out), NRT_SUCCESS);
	VT_ASSERT(it.physical_address + it.size <= st.bytes_limit &&
			  iu.physical_address + iu.size <= st.bytes_limit,
		  "past the device's %zu bytes", st.bytes_limit);

	/* what has no device memory, and bad arguments */
	EXPECT(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "h", &h), NRT_SUCCESS);
	EXPECT(nrt_tensor_get_device_allocation_info(h, &ih), NRT_INVALID);
	EXPECT(nrt_tensor_get_device_allocation_info(t, NULL), NRT_INVALID);
	EXPECT(nrt_tensor_get_device_allocation_info(NULL, &ih), NRT_INVALID_HANDLE);
	nrt_tensor_free(&h);
	nrt_tensor_free(&s);
	nrt_tensor_free(&u);
	kept = t;
	return 0;
}

static int memory_stats(void)
{
	nrt_vnc_memory_stats_t s0, s1;
	struct {
		nrt_vnc_memory_stats_t st;
		uint64_t after;
	} big;
	uint64_t u0, u1;
	size_t out = 0;
	nrt_tensor_t *x, *y, *z;
	uint32_t vnc;

	EXPECT(nrt_get_vnc_memory_stats(0, &s0, sizeof(s0), &out), NRT_SUCCESS);
	VT_ASSERT(out == sizeof(s0), "size out %zu", out);
	VT_ASSERT(s0.bytes_limit == HBM_BYTES, "limit %zu, expected %llu", s0.bytes_limit, HBM_BYTES);
	/* the tensor kept by allocation_info is counted on NeuronCore 0 */
	VT_ASSERT(s0.bytes_used >= 10000, "used %zu", s0.bytes_used);
	for (vnc = 1; vnc < NC_COUNT; vnc++) {
		EXPECT(nrt_get_vnc_memory_stats(vnc, &s1, sizeof(s1), &out), NRT_SUCCESS);
		VT_ASSERT(s1.bytes_limit == HBM_BYTES, "vnc %u limit %zu", vnc, s1.bytes_limit);
	}

	/* allocations and frees move exactly their NeuronCore's count */
	u0 = used(0);
	u1 = used(1);
	x = dev_tensor(1, 12345);
	VT_ASSERT(x, "x");
	VT_ASSERT(used(1) == u1 + 12345 && used(0) == u0, "after x: %llu %llu (from %llu %llu)",
		  (unsigned long long)used(0), (unsigned long long)used(1), (unsigned long long)u0,
		  (unsigned long long)u1);
	y = dev_tensor(1, 1000);
	z = dev_tensor(0, 777);
	VT_ASSERT(y && z, "y z");
	VT_ASSERT(used(1) == u1 + 13345 && used(0) == u0 + 777, "after y z: %llu %llu",
		  (unsigned long long)used(0), (unsigned long long)used(1));
	nrt_tensor_free(&x);
	VT_ASSERT(used(1) == u1 + 1000, "after freeing x: %llu", (unsigned long long)used(1));
	nrt_tensor_free(&y);
	nrt_tensor_free(&z);
	VT_ASSERT(used(1) == u1 && used(0) == u0, "after freeing all: %llu %llu",
		  (unsigned long long)used(0), (unsigned long long)used(1));

	/* sizes: an older caller's part only; a newer caller's tail untouched */
	memset(&big, 0x77, sizeof(big));
	EXPECT(nrt_get_vnc_memory_stats(0, &big.st, sizeof(size_t), &out), NRT_SUCCESS);
	VT_ASSERT(out == sizeof(size_t) && big.st.bytes_used == u0 &&
			  big.st.bytes_limit == (size_t)0x7777777777777777ull,
		  "short: out %zu", out);
	EXPECT(nrt_get_vnc_memory_stats(0, &big.st, sizeof(big), &out), NRT_SUCCESS);
	VT_ASSERT(out == sizeof(nrt_vnc_memory_stats_t) && big.after == 0x7777777777777777ull,
		  "long: out %zu", out);
	EXPECT(nrt_get_vnc_memory_stats(0, &big.st, 4, &out), NRT_INVALID);
	EXPECT(nrt_get_vnc_memory_stats(0, NULL, sizeof(s0), &out), NRT_INVALID);
	EXPECT(nrt_get_vnc_memory_stats(0, &s0, sizeof(s0), NULL), NRT_INVALID);
	EXPECT(nrt_get_vnc_memory_stats(NC_COUNT, &s0, sizeof(s0), &out), NRT_INVALID);
	EXPECT(nrt_get_vnc_memory_stats(UINT32_MAX, &s0, sizeof(s0), &out), NRT_INVALID);
	return 0;
}

static int model_instance_count(void)
{
	nrt_model_t *one = NULL, *copies = NULL;
	uint32_t n = 0;

	EXPECT(load("affine", 0, -1, &one), NRT_SUCCESS);
	EXPECT(nrt_get_model_instance_count(one, &n), NRT_SUCCESS);
	VT_ASSERT(n == 1, "count %u", n);
	/* two copies staged: executions still run on the first, one at a time */
	EXPECT(load("two", 0, 4, &copies), NRT_SUCCESS);
	n = 0;
	EXPECT(nrt_get_model_instance_count(copies, &n), NRT_SUCCESS);
	VT_ASSERT(n == 1, "copies count %u", n);
	EXPECT(nrt_get_model_instance_count(one, NULL), NRT_INVALID);
	EXPECT(nrt_get_model_instance_count(NULL, &n), NRT_INVALID_HANDLE);
	EXPECT(nrt_unload(one), NRT_SUCCESS);
	n = 9;
	EXPECT(nrt_get_model_instance_count(one, &n), NRT_INVALID_HANDLE);
	VT_ASSERT(n == 9, "written for an unloaded model");
	EXPECT(nrt_get_model_instance_count(copies, &n), NRT_SUCCESS);
	EXPECT(nrt_unload(copies), NRT_SUCCESS);
	EXPECT(nrt_get_model_instance_count(copies, &n), NRT_INVALID_HANDLE);
	return 0;
}

static int close_runtime(void)
{
	nrt_tensor_device_allocation_info_t info;
	nrt_vnc_memory_stats_t st;
	size_t out;
	uint8_t b[4];
	const nrt_tensor_batch_op_t op[] = { { 0, sizeof(b), b } };
	const nrt_tensor_batch_t batch[] = { { kept, op, 1 } };

	VT_ASSERT(kept, "allocation_info kept no tensor");
	nrt_close();
	/* the device tensor's memory went with the runtime */
	EXPECT(nrt_tensor_get_device_allocation_info(kept, &info), NRT_CLOSED);
	EXPECT(nrt_tensor_read_batch(batch, 1, false), NRT_CLOSED);
	EXPECT(nrt_tensor_write_batch(batch, 1, false), NRT_CLOSED);
	EXPECT(nrt_get_vnc_memory_stats(0, &st, sizeof(st), &out), NRT_CLOSED);
	nrt_tensor_free(&kept);
	return 0;
}

/* ---- the publisher (exec'd) and its reader ------------------------------ */

/*
 * The publisher: a runtime with a framework, versions and a tag, and two
 * models ("two" on NeuronCores 0-1, "affine" on 2). Says 'r' on @ready
 * once loaded; each 'u' read from @hold unloads "two" and says 'r' again;
 * EOF closes the runtime. Exit status: 0 when every step worked.
 */
static int publish(int ready, int hold)
{
	nrt_model_t *two = NULL, *affine = NULL;
	char c = 'r';

	if (nrt_init(NRT_FRAMEWORK_TYPE_PYTORCH, PUB_FW, PUB_FAL) != NRT_SUCCESS ||
	    load("two", 0, -1, &two) != NRT_SUCCESS || load("affine", 2, -1, &affine) != NRT_SUCCESS)
		return 2;
	if (write(ready, &c, 1) != 1)
		return 3;
	while (read(hold, &c, 1) == 1) {
		if (c != 'u' || nrt_unload(two) != NRT_SUCCESS)
			return 4;
		c = 'r';
		if (write(ready, &c, 1) != 1)
			return 3;
	}
	nrt_close();
	return 0;
}

static int exec_publisher(struct vt_child *c, void *arg)
{
	char r[16], h[16];

	(void)arg;
	snprintf(r, sizeof(r), "%d", c->ready_fd);
	snprintf(h, sizeof(h), "%d", c->hold_fd);
	setenv("NEURON_PROCESS_TAG", PUB_TAG, 1);
	execl(self_path, "vm_sdk_calls", "publish", neff_dir, r, h, (char *)NULL);
	return 127;
}

/* What the reader found of one published model node. */
struct node {
	uint32_t model_id, node_id;
	char name[256];
	unsigned char uuid[16];
	unsigned nc, sg;
	int mem_zero;
};

/* Every model node @inst holds, sorted by NeuronCore, into @out (at most 8). */
static int read_nodes(nds_instance_t *inst, struct node *out, size_t *n)
{
	nds_obj_handle_t *all = NULL;
	size_t count = 0, i, j, k;
	int ret = nds_read_all_model_nodes(inst, &all, &count);

	VT_ASSERT(ret == 0, "nds_read_all_model_nodes: %d", ret);
	VT_ASSERT(count <= 8, "%zu nodes", count);
	for (i = 0; i < count; i++) {
		const nds_model_node_info_t *m = nds_obj_handle_to_model_node_info(all[i]);
		const nds_model_node_mem_usage_info_t *u = nds_obj_handle_to_model_node_mem_usage(all[i]);
		struct node x;

		VT_ASSERT(m && u, "node %zu: no accessor", i);
		VT_ASSERT(!nds_obj_handle_to_process_info(all[i]), "node %zu read as process info", i);
		x.model_id = m->model_id;
		x.node_id = m->model_node_id;
		memcpy(x.name, m->name, sizeof(x.name));
		memcpy(x.uuid, m->uuid, sizeof(x.uuid));
		x.nc = m->nc_index;
		x.sg = m->sg_index;
		x.mem_zero = 1;
		for (j = 0; j < MODEL_MEM_USAGE_LOCATION_COUNT; j++)
			for (k = 0; k < NDS_DMA_MEM_USAGE_SLOT_COUNT; k++)
				if (u->model_mem_usage[j][k].total_size || u->model_mem_usage[j][k].chunk_count)
					x.mem_zero = 0;
		for (j = i; j > 0 && out[j - 1].nc > x.nc; j--)
			out[j] = out[j - 1];
		out[j] = x;
		VT_ASSERT(nds_obj_delete(all[i]) == 0, "delete node %zu", i);
	}
	free(all);
	*n = count;
	return 0;
}

/* 0 when @x is model node @node_id of @name on NeuronCore @nc running subgraph @sg. */
static int node_is(const struct node *x, const char *name, const unsigned char *uuid,
		   uint32_t node_id, unsigned nc, unsigned sg)
{
	VT_ASSERT(!strcmp(x->name, name), "nc %u: name '%.32s', expected %s", x->nc, x->name, name);
	VT_ASSERT(!memcmp(x->uuid, uuid, 16), "nc %u: uuid differs", x->nc);
	VT_ASSERT(x->node_id == node_id && x->nc == nc && x->sg == sg,
		  "%s: node %u nc %u sg %u, expected %u %u %u", name, x->node_id, x->nc, x->sg, node_id,
		  nc, sg);
	VT_ASSERT(x->mem_zero, "%s: memory usage published", name);
	return 0;
}

static int nds_published(void)
{
	struct vt_child pub;
	ndl_device_t *dev = NULL;
	nds_instance_t *inst = NULL;
	nds_obj_handle_t p, x;
	const nds_process_info_t *pi;
	const nds_process_info_ext_t *xi;
	nrt_version_t ver;
	struct node nodes[8];
	size_t n = 0;
	char c = 'u';
	int ok;

	VT_ASSERT(vt_child_start(&pub, exec_publisher, NULL) == 0, "the publisher did not start");
	VT_ASSERT(ndl_open_device(0, NULL, &dev) == 0, "ndl_open_device");
	VT_ASSERT(nds_open(dev, pub.pid, &inst) == 0, "nds_open of the publisher");

	/* its process info, with the values nrt_init() was given */
	p = nds_read_process_info(inst);
	VT_ASSERT(p, "no process info");
	pi = nds_obj_handle_to_process_info(p);
	VT_ASSERT(pi, "accessor");
	VT_ASSERT(!nds_obj_handle_to_model_node_info(p), "process info read as a model node");
	VT_ASSERT(pi->framework_type == NRT_FRAMEWORK_TYPE_PYTORCH, "framework %d", pi->framework_type);
	VT_ASSERT(!strncmp(pi->tag, PUB_TAG, 31) && pi->tag[31] == 0 && strlen(pi->tag) == 31,
		  "tag '%.32s'", pi->tag);
	VT_ASSERT(pi->framework_version.major == 2 && pi->framework_version.minor == 1 &&
			  pi->framework_version.build == 0,
		  "framework %u.%u.%u", pi->framework_version.major, pi->framework_version.minor,
		  pi->framework_version.build);
	VT_ASSERT(pi->fal_version.major == 1 && pi->fal_version.minor == 13 && pi->fal_version.build == 4,
		  "fal %u.%u.%u", pi->fal_version.major, pi->fal_version.minor, pi->fal_version.build);
	EXPECT(nrt_get_version(&ver, sizeof(ver)), NRT_SUCCESS);
	VT_ASSERT(pi->runtime_version.major == ver.rt_major && pi->runtime_version.minor == ver.rt_minor &&
			  pi->runtime_version.build == ver.rt_patch,
		  "runtime %u.%u.%u, the library says %llu.%llu.%llu", pi->runtime_version.major,
		  pi->runtime_version.minor, pi->runtime_version.build,
		  (unsigned long long)ver.rt_major, (unsigned long long)ver.rt_minor,
		  (unsigned long long)ver.rt_patch);
	/* a reader's copy cannot be written back into another process's slab */
	VT_ASSERT(nds_obj_commit(p) != 0, "committed through a read-only instance");
	VT_ASSERT(nds_obj_delete(p) == 0, "delete");

	/* the whole tag in the extended info */
	x = nds_read_process_info_ext(inst);
	VT_ASSERT(x, "no extended process info");
	xi = nds_obj_handle_to_process_info_ext(x);
	VT_ASSERT(xi && !strcmp(xi->tag, PUB_TAG), "ext tag '%.64s'", xi ? xi->tag : "(none)");
	VT_ASSERT(nds_obj_delete(x) == 0, "delete ext");

	/* its models: "two" on NeuronCores 0 and 1 (one model, two nodes),
	 * "affine" on 2 */
	if (read_nodes(inst, nodes, &n))
		return -1;
	VT_ASSERT(n == 3, "%zu model nodes, expected 3", n);
	if (node_is(&nodes[0], "two", uuid_two, 0, 0, 0) || node_is(&nodes[1], "two", uuid_two, 1, 1, 1) ||
	    node_is(&nodes[2], "affine", uuid_affine, 0, 2, 0))
		return -1;
	VT_ASSERT(nodes[0].model_id == nodes[1].model_id && nodes[0].model_id != nodes[2].model_id &&
			  nodes[0].model_id && nodes[2].model_id,
		  "model ids %u %u %u", nodes[0].model_id, nodes[1].model_id, nodes[2].model_id);

	/* unloading "two" takes its nodes away */
	VT_ASSERT(write(pub.hold_fd, &c, 1) == 1 && read(pub.ready_fd, &c, 1) == 1 && c == 'r',
		  "the publisher did not unload");
	if (read_nodes(inst, nodes, &n))
		return -1;
	VT_ASSERT(n == 1, "%zu model nodes after the unload, expected 1", n);
	if (node_is(&nodes[0], "affine", uuid_affine, 0, 2, 0))
		return -1;

	ok = vt_child_finish(&pub);
	VT_ASSERT(ok, "the publisher failed");
	VT_ASSERT(nds_close(inst) == 0, "nds_close");
	/* an exited process publishes nothing more: its slab is gone */
	inst = NULL;
	VT_ASSERT(nds_open(dev, pub.pid, &inst) != 0 && !inst, "the exited publisher's slab opened");
	VT_ASSERT(ndl_close_device(dev) == 0, "ndl_close_device");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(init),
		VT_CASE(instance_info),
		VT_CASE(batch_io),
		VT_CASE(allocation_info),
		VT_CASE(memory_stats),
		VT_CASE(model_instance_count),
		VT_CASE(close_runtime),
		VT_CASE(nds_published),
	};

	if (argc == 5 && !strcmp(argv[1], "publish")) {
		neff_dir = argv[2];
		return publish(atoi(argv[3]), atoi(argv[4]));
	}
	if (argc > 1)
		neff_dir = argv[1];
	return vt_run("sdk_calls", cases, VT_COUNT(cases));
}
