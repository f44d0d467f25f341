// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_escape.h"

void neuron_escape_word(char *dst, size_t size, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!size)
		return;
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;

		if (c > ' ' && c < 0x7f && c != '\\') {
			if (o + 1 >= size)
				break;
			dst[o++] = (char)c;
			continue;
		}
		if (o + 4 >= size)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[c >> 4];
		dst[o++] = hex[c & 15];
	}
	dst[o] = '\0';
}
