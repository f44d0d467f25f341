/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A string the driver does not choose (a process's name, an instance id
 * from the platform), escaped for a line of key=value words: every byte
 * outside '!'..'~', and the backslash, becomes "\xHH". The result has no
 * newline, no control character and no space, so it can neither end the
 * line, nor start one of its own, nor pass for another field of it. The
 * module's log lines and the tools' text output print such strings so.
 */
#ifndef NEURON_ESCAPE_H
#define NEURON_ESCAPE_H

#include "neuron_pure.h"

/* The buffer that holds any @n-byte string escaped, with its NUL. */
#define NEURON_ESCAPED_MAX(n)	(4 * (n) + 1)

/* @src escaped into @dst (@size bytes, NUL-terminated; cut at a whole byte's form). */
void neuron_escape_word(char *dst, size_t size, const char *src);

#endif /* NEURON_ESCAPE_H */
