/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Minimal harness for guest test programs. Each case prints one TAP line
 * (scripts/tap.sh):  ok <n> - <suite>/<case>  or  not ok <n> - <suite>/<case>: why
 * (the shell suite's run_prog renumbers them into its own sequence),
 * and vt_run() ends with "VMTEST DONE <suite> <cases run>", which the shell
 * suite's run_prog (tests/vm/lib.sh) requires, so a program that stops
 * early is caught even when its exit status is 0.
 */
#ifndef VMTEST_H
#define VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
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

/* ---- small helpers the guest programs share ------------------------------ */

/* CLOCK_MONOTONIC in milliseconds. */
static inline uint64_t vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Pacing of a loop (how often it acts); never a wait for an event. */
static inline void vt_pace_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Read @path (up to @len - 1 bytes) into @buf, NUL-terminated: 0 or -errno. */
static inline int vt_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < len - 1 && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += (size_t)n;
	n = n < 0 ? -errno : 0;
	close(fd);
	buf[off] = '\0';
	return (int)n;
}

/* Write @text to @path in one write(): 0 or -errno. */
static inline int vt_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static inline int vt_run(const char *suite, const struct vt_case *cases, size_t n)
{
	int failed = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		vt_msg[0] = '\0';
		fflush(stdout);
		if (cases[i].fn() == 0) {
			printf("ok %zu - %s/%s\n", i + 1, suite, cases[i].name);
		} else {
			printf("not ok %zu - %s/%s: %s\n", i + 1, suite, cases[i].name, vt_msg);
			failed++;
		}
		fflush(stdout);
	}
	/* the suite's run_prog checks that this covers every case printed */
	printf("VMTEST DONE %s %zu\n", suite, i);
	fflush(stdout);
	return failed ? 1 : 0;
}

/*
 * A helper process that sets something up (opens a device, takes a slab or
 * a ring), tells the parent it is ready, and holds it until the parent
 * releases it; its exit status is its verdict. A child that fails before
 * it is ready reads as EOF in the parent, never as a hang.
 */
struct vt_child {
	pid_t pid;
	int ready_fd;	/* parent: read end; child: write end */
	int hold_fd;	/* parent: write end; child: read end */
};

/* In the child: report ready, then wait until released. 0 on success. */
static inline int vt_child_hold(struct vt_child *c)
{
	char ch = 'r';

	if (write(c->ready_fd, &ch, 1) != 1)
		return 1;
	while (read(c->hold_fd, &ch, 1) > 0)
		;
	return 0;
}

/* Fork @fn(@c, @arg) and wait until it is ready. 0, or -1 if it failed first. */
static inline int vt_child_start(struct vt_child *c, int (*fn)(struct vt_child *, void *),
				 void *arg)
{
	int ready[2], hold[2];
	char ch;

	if (pipe(ready) || pipe(hold))
		return -1;
	c->pid = fork();
	if (c->pid == 0) {
		close(ready[0]);
		close(hold[1]);
		c->ready_fd = ready[1];
		c->hold_fd = hold[0];
		_exit(fn(c, arg));
	}
	close(ready[1]);
	close(hold[0]);
	c->ready_fd = ready[0];
	c->hold_fd = hold[1];
	return read(c->ready_fd, &ch, 1) == 1 ? 0 : -1;
}

/* Release the child and reap it: true when it exited with status 0. */
static inline int vt_child_finish(struct vt_child *c)
{
	int st;

	close(c->hold_fd);
	close(c->ready_fd);
	return waitpid(c->pid, &st, 0) == c->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

#define VT_CASE(fn) { #fn, fn }
#define VT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif /* VMTEST_H */
