// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_json.h"

/* Length of the well-formed UTF-8 sequence at @s (@len bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;	/* bounds of the second byte */
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Append @n bytes of @p at *@at, as far as @cap allows; *@at grows by @n. */
static void put(char *out, size_t cap, size_t *at, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, (*at)++)
		if (*at + 1 < cap)
			out[*at] = p[i];
}

size_t neuron_json_quote(char *out, size_t cap, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t at = 0, i = 0, n;
	char esc[6];

	put(out, cap, &at, "\"", 1);
	while (i < len) {
		switch (u[i]) {
		case '"':
			put(out, cap, &at, "\\\"", 2);
			break;
		case '\\':
			put(out, cap, &at, "\\\\", 2);
			break;
		case '\n':
			put(out, cap, &at, "\\n", 2);
			break;
		case '\r':
			put(out, cap, &at, "\\r", 2);
			break;
		case '\t':
			put(out, cap, &at, "\\t", 2);
			break;
		default:
			if (u[i] < 0x20 || u[i] == 0x7f) {
				esc[0] = '\\';
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hex[u[i] >> 4];
				esc[5] = hex[u[i] & 0xf];
				put(out, cap, &at, esc, 6);
				break;
			}
			n = utf8_len(u + i, len - i);
			if (!n) {
				put(out, cap, &at, "\\ufffd", 6);
				break;
			}
			put(out, cap, &at, s + i, n);
			i += n;
			continue;
		}
		i++;
	}
	put(out, cap, &at, "\"", 1);
	if (cap)
		out[at < cap ? at : cap - 1] = 0;
	return at;
}
