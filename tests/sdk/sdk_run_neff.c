// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The developer guide's "run a NEFF" flow, written only against the SDK's
 * signatures (<nrt/nrt.h>, <nrt/nrt_experimental.h>, <nrt/nrt_profile.h>)
 * and built as strict C11 with implicit declarations as errors, so a call
 * whose name, types or header differ from the SDK's breaks the build: by
 * CMake against include/ (target sdk_run_neff, ctest sdk_compile), and by
 * tests/pkgconfig/Makefile against an installed libnrt through pkg-config
 * only (vm_sdk_run_neff, which the guest suite 90_pkgconfig runs).
 *
 * sdk_run_neff                 the calls that need no device (version,
 *                              counts before nrt_init); nrt_init must then
 *                              fail cleanly
 * sdk_run_neff NEFF [PROFILE]  the whole flow on a (simulated) device:
 *                              init, load from bytes, model and tensor
 *                              info, a tensor per input and output in two
 *                              sets, inputs written (32-bit words 1, 2,
 *                              3, ...), profile started (to PROFILE, when
 *                              given), execute, execute repeat (3), the
 *                              profile stopped, outputs read (the first
 *                              four words of each printed), tensors and
 *                              sets freed, unload, a collectives load
 *                              (one worker) and its unload, close. Exit 0
 *                              when every call succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_version.h>

#define CHECK(call)                                                               \
	do {                                                                      \
		NRT_STATUS st_ = (call);                                          \
		if (st_ != NRT_SUCCESS) {                                         \
			fprintf(stderr, "%s: %d (%s)\n", #call, (int)st_,         \
				nrt_get_status_as_str(st_));                      \
			return 1;                                                 \
		}                                                                 \
	} while (0)

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* 32-bit words 1, 2, 3, ... (a trailing partial word: its low bytes) */
static int fill(nrt_tensor_t *t, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	size_t i;
	NRT_STATUS st;

	if (!buf)
		return 1;
	for (i = 0; i < size; i++) {
		uint32_t w = (uint32_t)(i / 4 + 1);

		buf[i] = (unsigned char)(w >> (8 * (i % 4)));
	}
	st = nrt_tensor_write(t, buf, 0, size);
	free(buf);
	if (st != NRT_SUCCESS) {
		fprintf(stderr, "nrt_tensor_write: %d (%s)\n", (int)st, nrt_get_status_as_str(st));
		return 1;
	}
	return 0;
}

static int show(const char *name, nrt_tensor_t *t, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	size_t i, n = size / 4 < 4 ? size / 4 : 4;
	NRT_STATUS st;

	if (!buf)
		return 1;
	st = nrt_tensor_read(t, buf, 0, size);
	if (st != NRT_SUCCESS) {
		fprintf(stderr, "nrt_tensor_read: %d (%s)\n", (int)st, nrt_get_status_as_str(st));
		free(buf);
		return 1;
	}
	printf("output %s", name);
	for (i = 0; i < n; i++)
		printf(" %u", (unsigned)(buf[4 * i] | buf[4 * i + 1] << 8 | buf[4 * i + 2] << 16 |
					 (uint32_t)buf[4 * i + 3] << 24));
	printf("\n");
	free(buf);
	return 0;
}

static int run(const char *path, const char *profile)
{
	size_t size = 0, got = 0;
	void *neff = slurp(path, &size);
	nrt_model_t *model = NULL, *coll = NULL;
	nrt_model_info_t mi;
	nrt_tensor_info_array_t *info = NULL;
	nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
	nrt_tensor_t **tensors;
	uint32_t nc = 0, vnc = 0;
	uint64_t i;

	if (!neff) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	CHECK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	CHECK(nrt_load(neff, size, -1, -1, &model));
	CHECK(nrt_get_model_nc_count(model, &nc));
	CHECK(nrt_get_model_vnc_count(model, &vnc));
	memset(&mi, 0, sizeof(mi));
	CHECK(nrt_get_model_info(model, &mi, sizeof(mi), &got));
	printf("model on NeuronCore %u, %u NeuronCore(s), %u virtual, info %zu bytes\n",
	       (unsigned)mi.vnc, (unsigned)nc, (unsigned)vnc, got);
	CHECK(nrt_get_model_tensor_info(model, &info));
	CHECK(nrt_allocate_tensor_set(&inputs));
	CHECK(nrt_allocate_tensor_set(&outputs));
	tensors = calloc(info->tensor_count ? info->tensor_count : 1, sizeof(*tensors));
	if (!tensors)
		return 1;
	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];

		printf("tensor %s %s %zu bytes\n", ti->name,
		       ti->usage == NRT_TENSOR_USAGE_INPUT ? "input" : "output", ti->size);
		CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, ti->size, ti->name, &tensors[i]));
		if (ti->usage == NRT_TENSOR_USAGE_INPUT) {
			if (fill(tensors[i], ti->size))
				return 1;
			CHECK(nrt_add_tensor_to_tensor_set(inputs, ti->name, tensors[i]));
		} else {
			CHECK(nrt_add_tensor_to_tensor_set(outputs, ti->name, tensors[i]));
		}
	}
	if (profile)
		CHECK(nrt_profile_start(model, profile));
	CHECK(nrt_execute(model, inputs, outputs));
	CHECK(nrt_execute_repeat(model, inputs, outputs, 3));
	if (profile)
		CHECK(nrt_profile_stop(profile));
	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];

		if (ti->usage == NRT_TENSOR_USAGE_OUTPUT && show(ti->name, tensors[i], ti->size))
			return 1;
	}
	for (i = 0; i < info->tensor_count; i++)
		nrt_tensor_free(&tensors[i]);
	free(tensors);
	nrt_destroy_tensor_set(&inputs);
	nrt_destroy_tensor_set(&outputs);
	CHECK(nrt_free_model_tensor_info(info));
	CHECK(nrt_unload(model));
	/* the same NEFF as the only worker of a collectives group */
	CHECK(nrt_load_collectives(neff, size, -1, -1, 0, 1, &coll));
	CHECK(nrt_unload(coll));
	free(neff);
	nrt_close();
	printf("ran %s on %u NeuronCore(s)\n", path, nc);
	return 0;
}

int main(int argc, char **argv)
{
	nrt_version_t ver;
	uint32_t total = 0, visible = 0;
	NRT_STATUS st;

	CHECK(nrt_get_version(&ver, sizeof(ver)));
	CHECK(nrt_get_total_nc_count(&total));
	CHECK(nrt_get_visible_nc_count(&visible));
	CHECK(nrt_get_total_vnc_count(&total));
	CHECK(nrt_get_visible_vnc_count(&visible));
	printf("runtime %u.%u (API %d.%d), %u NeuronCores, %u visible\n",
	       (unsigned)ver.rt_major, (unsigned)ver.rt_minor, NRT_MAJOR_VERSION,
	       NRT_MINOR_VERSION, total, visible);
	if (argc > 1)
		return run(argv[1], argc > 2 ? argv[2] : NULL);
	if (total)
		return 0;	/* a device is present: the flow needs a NEFF */
	/* no device: nrt_init fails with a status, not a crash */
	st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	return st == NRT_RESOURCE ? 0 : 1;
}
