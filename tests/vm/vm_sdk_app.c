// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An application written only to the SDK's <nrt/nrt.h>: it uses nothing of
 * this project but that header and the library, the way an SDK program
 * does. Loads the NEFF given (an affine_u32 model, arg0 3, arg1 7, input
 * "in" and output "out" of 64 bytes, as 25_app.sh packs it), runs it
 * twice, and checks every output word. Exit 0 when all is right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt.h>

#define WORDS 16

static void *read_file(const char *path, size_t *size)
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

#define CHECK(call)                                                              \
	do {                                                                     \
		NRT_STATUS s_ = (call);                                          \
		if (s_ != NRT_SUCCESS) {                                         \
			fprintf(stderr, "%s: %s (%d)\n", #call,                  \
				nrt_get_status_as_str(s_), (int)s_);              \
			return 1;                                                \
		}                                                                \
	} while (0)

int main(int argc, char **argv)
{
	nrt_model_t *model = NULL;
	nrt_tensor_t *in = NULL, *out = NULL;
	nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
	uint32_t words[WORDS], result[WORDS], nc = 0;
	size_t size = 0;
	void *neff;
	int i, run;

	if (argc != 2) {
		fprintf(stderr, "usage: %s NEFF\n", argv[0]);
		return 2;
	}
	neff = read_file(argv[1], &size);
	if (!neff) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 1;
	}
	CHECK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	CHECK(nrt_load(neff, size, -1, -1, &model));
	free(neff);
	CHECK(nrt_get_model_nc_count(model, &nc));
	CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, sizeof(words), "in", &in));
	CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, sizeof(result), "out", &out));
	CHECK(nrt_allocate_tensor_set(&inputs));
	CHECK(nrt_allocate_tensor_set(&outputs));
	CHECK(nrt_add_tensor_to_tensor_set(inputs, "in", in));
	CHECK(nrt_add_tensor_to_tensor_set(outputs, "out", out));
	for (run = 0; run < 2; run++) {
		for (i = 0; i < WORDS; i++)
			words[i] = (uint32_t)(i * 1000 + run);
		words[WORDS - 1] = 0xffffffffu;	/* wraps: * 3 + 7 mod 2^32 */
		CHECK(nrt_tensor_write(in, words, 0, sizeof(words)));
		CHECK(nrt_tensor_memset(out, 0, 0xee, nrt_tensor_get_size(out)));
		CHECK(nrt_execute(model, inputs, outputs));
		CHECK(nrt_tensor_read(out, result, 0, sizeof(result)));
		for (i = 0; i < WORDS; i++) {
			uint32_t want = words[i] * 3u + 7u;

			if (result[i] != want) {
				fprintf(stderr, "run %d word %d: %u, expected %u\n", run, i, result[i], want);
				return 1;
			}
		}
	}
	printf("sdk app: %u NeuronCore(s), out[0..3] = %u %u %u %u, out[15] = %u\n", nc, result[0],
	       result[1], result[2], result[3], result[WORDS - 1]);
	nrt_destroy_tensor_set(&inputs);
	nrt_destroy_tensor_set(&outputs);
	nrt_tensor_free(&in);
	nrt_tensor_free(&out);
	CHECK(nrt_unload(model));
	nrt_close();
	return 0;
}
