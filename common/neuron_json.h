/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JSON string literals, for libnrt's traces and the tools' --json output
 * (userspace only: not built into the module).
 */
#ifndef NEURON_JSON_H
#define NEURON_JSON_H

#include "neuron_pure.h"

/*
 * @s (@len bytes) as a JSON string literal, quotes included, into @out of
 * @cap bytes, NUL-terminated and cut short when @cap is (as snprintf()):
 * '"' and '\' escaped, newline, CR and tab by name, every other byte
 * below 0x20 and DEL as \u00XX, and a byte that does not start a
 * well-formed UTF-8 sequence (RFC 3629: no overlong form, no surrogate,
 * nothing past U+10FFFF) as \ufffd. Returns the literal's whole length,
 * without the NUL.
 */
size_t neuron_json_quote(char *out, size_t cap, const char *s, size_t len);

#endif /* NEURON_JSON_H */
