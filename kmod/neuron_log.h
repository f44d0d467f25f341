/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logging of strings the driver does not choose (escaped, below), and of
 * rejected writes: root-only knobs (debugfs fault knobs, the
 * neuron_sim bus files, info/notify_delay) and the module parameters
 * written at run time. Each call site has its own rate limit: a burst of
 * NEURON_KNOB_LOG_BURST lines per NEURON_KNOB_LOG_INTERVAL, so a script's
 * mistakes are all explained while a process hammering a knob cannot flood
 * the kernel log. The burst is larger than printk's default (10) because
 * the guest tests check the explanation of each refused write, several in
 * quick succession.
 *
 * Every such line reads "<prefix>rejected: <knob>: <why>", and never echoes
 * what was written (a newline in it would forge a log line). The guest
 * harness (scripts/vm-verdict.sh, dmesg-no-flood) counts these lines per
 * knob and first word of the reason, and fails a run in which one of them
 * exceeds two bursts in one interval: a call site without the rate limit.
 */
#ifndef NEURON_LOG_H
#define NEURON_LOG_H

#include <linux/device.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>

#include "neuron_escape.h"

#define NEURON_KNOB_LOG_INTERVAL	(5 * HZ)
#define NEURON_KNOB_LOG_BURST		50

#define neuron_knob_ratelimited(print, ...)					\
	do {									\
		static DEFINE_RATELIMIT_STATE(_rs, NEURON_KNOB_LOG_INTERVAL,	\
					      NEURON_KNOB_LOG_BURST);		\
		if (__ratelimit(&_rs))						\
			print(__VA_ARGS__);					\
	} while (0)

#define neuron_knob_dev_err(dev, fmt, ...)					\
	neuron_knob_ratelimited(dev_err, dev, "rejected: " fmt, ##__VA_ARGS__)
#define neuron_knob_pr_err(fmt, ...)						\
	neuron_knob_ratelimited(pr_err, "rejected: " fmt, ##__VA_ARGS__)

/*
 * Strings the driver does not choose (a process's name, an instance id
 * from the platform) are logged escaped (common/neuron_escape.h): no
 * newline, no control character and no space, so they can neither end
 * the line, nor start one of its own, nor pass for another key=value
 * field of it. NEURON_LOG_ESCAPED_MAX(n): the buffer that holds any
 * @n-byte string escaped, with its NUL.
 */
#define NEURON_LOG_ESCAPED_MAX(n)	NEURON_ESCAPED_MAX(n)

static inline void neuron_log_escape(char *dst, size_t size, const char *src)
{
	neuron_escape_word(dst, size, src);
}

#endif /* NEURON_LOG_H */
