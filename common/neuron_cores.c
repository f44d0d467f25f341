// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "neuron_cores.h"

/* The decimal number at @s[*@p]: true and *@p past it, false when none or too large. */
static bool cores_number(const char *s, size_t len, size_t *p, u64 *v)
{
	u64 d;

	if (*p >= len || s[*p] < '0' || s[*p] > '9')
		return false;
	*v = 0;
	while (*p < len && s[*p] >= '0' && s[*p] <= '9') {
		d = (u64)(s[*p] - '0');
		if (*v > (~0ULL - d) / 10)
			return false;
		*v = *v * 10 + d;
		(*p)++;
	}
	return true;
}

static int cores_fail(struct neuron_cores_result *r, enum neuron_cores_error e, size_t at)
{
	r->error = e;
	r->at = at;
	return -EINVAL;
}

int neuron_parse_cores(const char *s, size_t len, u32 total, struct neuron_cores_result *r)
{
	u64 a, b, lo = 0, next = 0;
	bool any = false;
	size_t p = 0, start;

	memset(r, 0, sizeof(*r));
	if (!len) {
		r->count = total;
		return 0;
	}
	for (;;) {
		r->piece = p;
		start = p;
		if (!cores_number(s, len, &p, &a))
			return cores_fail(r, NEURON_CORES_NUMBER, start);
		b = a;
		if (p < len && s[p] == '-') {
			p++;
			start = p;
			if (!cores_number(s, len, &p, &b))
				return cores_fail(r, NEURON_CORES_NUMBER_AFTER_DASH, start);
			if (b < a)
				return cores_fail(r, NEURON_CORES_BACKWARDS, p);
		}
		if (b >= total) {
			r->core = b;
			return cores_fail(r, NEURON_CORES_TOO_HIGH, p);
		}
		if (any && a != next) {
			r->core = a;
			r->last = next - 1;
			return cores_fail(r, NEURON_CORES_GAP, p);
		}
		if (!any)
			lo = a;
		any = true;
		next = b + 1;
		if (p == len)
			break;
		if (s[p] != ',')
			return cores_fail(r, NEURON_CORES_SEPARATOR, p);
		p++;
	}
	r->first = (u32)lo;
	r->count = (u32)(next - lo);
	return 0;
}
