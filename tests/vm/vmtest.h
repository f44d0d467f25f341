/*
 * Minimal harness for guest test programs. Each case prints one line the
 * host counts:  VMTEST PASS <suite>/<case>  or  VMTEST FAIL <suite>/<case>: why
 */
#ifndef VMTEST_H
#define VMTEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vt_case {
	const char *name;
	int (*fn)(void);
};

static char vt_msg[512];

static inline void vt_fail_msg(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(vt_msg, sizeof(vt_msg), "%s:%d: ", file, line);
	if (n < 0 || (size_t)n >= sizeof(vt_msg))
		return;
	va_start(ap, fmt);
	vsnprintf(vt_msg + n, sizeof(vt_msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Fail the current case unless @cond holds. */
#define VT_ASSERT(cond, ...)                                          \
	do {                                                          \
		if (!(cond)) {                                        \
			vt_fail_msg(__FILE__, __LINE__, __VA_ARGS__); \
			return -1;                                    \
		}                                                     \
	} while (0)

/* Assert a syscall-style call returned -1 with errno == @err. */
#define VT_ASSERT_ERRNO(call, err)                                              \
	do {                                                                    \
		errno = 0;                                                      \
		long vt_r_ = (long)(call);                                      \
		int vt_e_ = errno;                                              \
		VT_ASSERT(vt_r_ == -1 && vt_e_ == (err),                        \
			  "%s: expected -1/%s, got %ld/%s", #call, strerror(err), \
			  vt_r_, strerror(vt_e_));                              \
	} while (0)

static inline int vt_run(const char *suite, const struct vt_case *cases, size_t n)
{
	int failed = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		vt_msg[0] = '\0';
		fflush(stdout);
		if (cases[i].fn() == 0) {
			printf("VMTEST PASS %s/%s\n", suite, cases[i].name);
		} else {
			printf("VMTEST FAIL %s/%s: %s\n", suite, cases[i].name, vt_msg);
			failed++;
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#define VT_CASE(fn) { #fn, fn }
#define VT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif /* VMTEST_H */
