// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The developer guide's "run a NEFF" flow, written only against the SDK's
 * signatures (<nrt/nrt.h>, <nrt/nrt_experimental.h>) and built as strict
 * C11 with implicit declarations as errors, so a call whose name, types or
 * header differ from the SDK's breaks the build (CMake target
 * sdk_run_neff, ctest sdk_compile).
 *
 * sdk_run_neff            the calls that need no device (version, counts
 *                         before nrt_init); nrt_init must then fail cleanly
 * sdk_run_neff NEFF       the whole flow on a (simulated) device: init,
 *                         load, tensor info, tensors and sets for every
 *                         input and output, execute, read, free, unload,
 *                         close. Exit 0 when every call succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
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

static int run(const char *path)
{
	size_t size = 0;
	void *neff = slurp(path, &size);
	nrt_model_t *model = NULL;
	nrt_tensor_info_array_t *info = NULL;
	nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
	nrt_tensor_t **tensors;
	uint32_t nc = 0;
	uint64_t i;

	if (!neff) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	CHECK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	CHECK(nrt_load(neff, size, -1, -1, &model));
	free(neff);
	CHECK(nrt_get_model_nc_count(model, &nc));
	CHECK(nrt_get_model_tensor_info(model, &info));
	CHECK(nrt_allocate_tensor_set(&inputs));
	CHECK(nrt_allocate_tensor_set(&outputs));
	tensors = calloc(info->tensor_count ? info->tensor_count : 1, sizeof(*tensors));
	if (!tensors)
		return 1;
	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];
		CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, ti->size, ti->name, &tensors[i]));
		if (ti->usage == NRT_TENSOR_USAGE_INPUT) {
			CHECK(nrt_tensor_memset(tensors[i], 0, 1, ti->size));
			CHECK(nrt_add_tensor_to_tensor_set(inputs, ti->name, tensors[i]));
		} else {
			CHECK(nrt_add_tensor_to_tensor_set(outputs, ti->name, tensors[i]));
		}
	}
	CHECK(nrt_execute(model, inputs, outputs));
	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];
		void *out;

		if (ti->usage != NRT_TENSOR_USAGE_OUTPUT)
			continue;
		out = malloc(ti->size);
		if (!out)
			return 1;
		CHECK(nrt_tensor_read(tensors[i], out, 0, ti->size));
		free(out);
	}
	for (i = 0; i < info->tensor_count; i++)
		nrt_tensor_free(&tensors[i]);
	free(tensors);
	nrt_destroy_tensor_set(&inputs);
	nrt_destroy_tensor_set(&outputs);
	CHECK(nrt_free_model_tensor_info(info));
	CHECK(nrt_unload(model));
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
		return run(argv[1]);
	if (total)
		return 0;	/* a device is present: the flow needs a NEFF */
	/* no device: nrt_init fails with a status, not a crash */
	st = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	return st == NRT_RESOURCE ? 0 : 1;
}
