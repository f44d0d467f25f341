/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A strict tokenizer for debugfs knobs (pure logic, host-tested): splits a
 * short command line into at most NEURON_PARSE_MAX_TOKENS whitespace
 * separated words and parses unsigned integers without accepting trailing
 * garbage.
 */
#ifndef NEURON_PARSE_H
#define NEURON_PARSE_H

#include "neuron_pure.h"

#define NEURON_PARSE_MAX_TOKENS	8
#define NEURON_PARSE_MAX_LEN	127

struct neuron_tokens {
	char buf[NEURON_PARSE_MAX_LEN + 1];
	char *tok[NEURON_PARSE_MAX_TOKENS];
	unsigned int count;
};

/*
 * Tokenize @len bytes of @in (need not be NUL-terminated). -EINVAL when the
 * input is longer than NEURON_PARSE_MAX_LEN, contains a NUL or a
 * non-printable byte other than whitespace, or has more tokens than fit.
 */
int neuron_tokenize(struct neuron_tokens *t, const char *in, size_t len);

/* Parse a decimal or 0x-hex u64 with nothing after it; -EINVAL / -ERANGE. */
int neuron_parse_u64(const char *s, u64 *out);

/* Parse a u32 within [min, max]; -EINVAL / -ERANGE. */
int neuron_parse_u32_range(const char *s, u32 min, u32 max, u32 *out);

/* Index of @s in @names (n entries, NULL entries skipped), or -EINVAL. */
int neuron_parse_name(const char *s, const char *const *names, unsigned int n);

#endif /* NEURON_PARSE_H */
