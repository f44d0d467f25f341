// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The debugfs knob tokenizer and number/name parsers (common/neuron_parse)
 * on arbitrary bytes, each checked against a reference written out here:
 *   - neuron_tokenize: accept/reject and the token list;
 *   - neuron_parse_u64: value and error (checked with 128-bit arithmetic);
 *   - neuron_parse_u32_range: with fuzzed bounds;
 *   - neuron_parse_name: against a table with holes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "neuron_parse.h"

#define CHECK(c)                        \
	do {                            \
		if (!(c))               \
			__builtin_trap(); \
	} while (0)

static int ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Reference: decimal or 0x/0X hex, left to right, first problem wins. */
static int ref_u64(const char *s, uint64_t *out)
{
	unsigned __int128 v = 0;
	unsigned base = 10;

	if (!*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	for (; *s; s++) {
		unsigned c = (unsigned char)*s, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		v = v * base + d;
		if (v > UINT64_MAX)
			return -ERANGE;
	}
	*out = (uint64_t)v;
	return 0;
}

static const char *const names[] = { "sram", NULL, "hbm", "dma", "", "nc", NULL, "0x10" };

static void check_token(const char *s, uint32_t lo, uint32_t hi)
{
	uint64_t v = 0xfeed, rv = 0xbeef;
	uint32_t u = 0x5a5a;
	int r, rr, i, want;

	r = neuron_parse_u64(s, &v);
	rr = ref_u64(s, &rv);
	CHECK(r == rr);
	if (r == 0)
		CHECK(v == rv);
	else
		CHECK(v == 0xfeed);	/* nothing written on error */

	r = neuron_parse_u32_range(s, lo, hi, &u);
	if (rr)
		CHECK(r == rr);
	else if (rv < lo || rv > hi)
		CHECK(r == -ERANGE);
	else
		CHECK(r == 0 && u == rv);
	if (r)
		CHECK(u == 0x5a5a);

	want = -EINVAL;
	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (names[i] && !strcmp(names[i], s)) {
			want = i;
			break;
		}
	CHECK(neuron_parse_name(s, names, sizeof(names) / sizeof(names[0])) == want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct neuron_tokens t;
	uint32_t lo = 0, hi = UINT32_MAX;
	unsigned want_count = 0;
	int want_ok = size <= NEURON_PARSE_MAX_LEN, r;
	size_t i;
	char *raw;

	/* reference tokenizer */
	for (i = 0; i < size && want_ok; i++)
		if (!ws(data[i]) && (data[i] < 0x21 || data[i] > 0x7e))
			want_ok = 0;
	if (want_ok)
		for (i = 0; i < size; i++)
			if (!ws(data[i]) && (i == 0 || ws(data[i - 1])))
				want_count++;
	if (want_count > NEURON_PARSE_MAX_TOKENS)
		want_ok = 0;

	r = neuron_tokenize(&t, (const char *)data, size);
	CHECK(r == (want_ok ? 0 : -EINVAL));
	if (r == 0) {
		const char *prev_end = t.buf;
		size_t start = 0;

		CHECK(t.count == want_count);
		if (size >= 8) {
			memcpy(&lo, data, 4);
			memcpy(&hi, data + 4, 4);
		}
		for (i = 0; i < t.count; i++) {
			const char *s = t.tok[i];
			size_t len = strlen(s), k;

			/* inside buf, in order, non-empty, no whitespace */
			CHECK(s >= prev_end && s + len <= t.buf + NEURON_PARSE_MAX_LEN);
			CHECK(len > 0);
			for (k = 0; k < len; k++)
				CHECK(!ws((unsigned char)s[k]));
			/* the same bytes as the input's i-th word */
			while (ws(data[start]))
				start++;
			CHECK(memcmp(s, data + start, len) == 0);
			CHECK(start + len == size || ws(data[start + len]));
			start += len;
			prev_end = s + len;
			check_token(s, lo, hi);
		}
		for (; i < NEURON_PARSE_MAX_TOKENS; i++)
			CHECK(t.tok[i] == NULL);
	}

	/* the raw input (up to its first NUL) straight into the parsers */
	raw = malloc(size + 1);
	if (!raw)
		return 0;
	memcpy(raw, data, size);
	raw[size] = '\0';
	check_token(raw, 0, 1000);
	free(raw);
	return 0;
}
