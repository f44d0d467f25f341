// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_parse.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int neuron_tokenize(struct neuron_tokens *t, const char *in, size_t len)
{
	size_t i;
	char *p;

	memset(t, 0, sizeof(*t));
	if (len > NEURON_PARSE_MAX_LEN)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (!is_space((char)c) && (c < 0x21 || c > 0x7e))
			return -EINVAL;
		t->buf[i] = (char)c;
	}
	t->buf[len] = '\0';

	p = t->buf;
	for (;;) {
		while (*p && is_space(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (t->count == NEURON_PARSE_MAX_TOKENS)
			return -EINVAL;
		t->tok[t->count++] = p;
		while (*p && !is_space(*p))
			p++;
	}
	return 0;
}

int neuron_parse_u64(const char *s, u64 *out)
{
	unsigned int base = 10;
	u64 v = 0;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v > (~(u64)0 - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int neuron_parse_u32_range(const char *s, u32 min, u32 max, u32 *out)
{
	u64 v;
	int ret = neuron_parse_u64(s, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = (u32)v;
	return 0;
}

int neuron_parse_name(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return (int)i;
	return -EINVAL;
}
