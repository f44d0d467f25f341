/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The NeuronCore list of NEURON_RT_VISIBLE_CORES, as nrt_init() takes it
 * and neuron-doctor checks it (userspace only: not built into the
 * module): pieces "A" or "A-B" separated by commas that together make one
 * ascending run with no gap ("3", "3-6", "3,4,5", "3-4,5"), every core
 * below the number present.
 */
#ifndef NEURON_CORES_H
#define NEURON_CORES_H

#include "neuron_pure.h"

enum neuron_cores_error {
	NEURON_CORES_OK = 0,
	NEURON_CORES_NUMBER,		/* no core number at @at */
	NEURON_CORES_NUMBER_AFTER_DASH,	/* no core number after the '-' before @at */
	NEURON_CORES_BACKWARDS,		/* the piece at @piece .. @at runs backwards */
	NEURON_CORES_TOO_HIGH,		/* names core @core, @total or more */
	NEURON_CORES_GAP,		/* core @core does not follow @last */
	NEURON_CORES_SEPARATOR,		/* neither ',' nor '-' at @at */
};

struct neuron_cores_result {
	enum neuron_cores_error error;
	u32 first, count;	/* the run, when NEURON_CORES_OK */
	size_t at, piece;	/* offsets into the text, for the error */
	u64 core, last;		/* the cores the error names */
};

/*
 * Parse @len bytes of @s against @total NeuronCores into @r: 0 and the run,
 * or -EINVAL and the first error. An empty list is every core. A number
 * too large for 64 bits is NEURON_CORES_NUMBER (or _AFTER_DASH) at its
 * first digit.
 */
int neuron_parse_cores(const char *s, size_t len, u32 total, struct neuron_cores_result *r);

#endif /* NEURON_CORES_H */
