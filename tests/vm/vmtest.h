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
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t vt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A thread that spins and keeps the longest time it was not run: started
 * with vt_ticker_main() beside a caller pinned to the same CPU, it shows
 * how long the kernel kept that CPU. @running is set once it spins; it
 * ends once @stop is set.
 */
struct vt_ticker {
	_Atomic int stop, running;
	uint64_t last, max_gap;
};

static inline void *vt_ticker_main(void *arg)
{
	struct vt_ticker *tk = arg;

	tk->last = vt_now_ns();
	atomic_store(&tk->running, 1);
	while (!atomic_load(&tk->stop)) {
		uint64_t now = vt_now_ns();

		if (now - tk->last > tk->max_gap)
			tk->max_gap = now - tk->last;
		tk->last = now;
	}
	return NULL;
}

#ifdef RUSAGE_THREAD
/* The calling thread's context switches so far (voluntary or not), or -1. */
static inline long vt_thread_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw + ru.ru_nivcsw;
}
#endif

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
	ssize_t n = 0;
	size_t off = 0;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len - 1 && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += (size_t)n;
	n = n < 0 ? -errno : 0;
	close(fd);
	buf[off] = '\0';
	return (int)n;
}

/*
 * The whole of regular file @path in a malloc()ed buffer (free() it), its
 * size in *@size; NULL when it cannot be opened, is empty or reads short.
 */
static inline void *vt_slurp(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size);
	if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

/* Write @text to @path in one write(): 0, or -errno (-EIO when short). */
static inline int vt_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/*
 * The decimal number in @path into @v: 0, or -errno (-ENODATA when the
 * file is empty) with @v set to UINT64_MAX.
 */
static inline int vt_read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int err = vt_read_file(path, buf, sizeof(buf));

	*v = UINT64_MAX;
	if (err)
		return err;
	if (!buf[0])
		return -ENODATA;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* The decimal number in @path, or UINT64_MAX when it cannot be read. */
static inline uint64_t vt_u64(const char *path)
{
	uint64_t v;

	vt_read_u64(path, &v);
	return v;
}

/* The number of the "key value" line of @key in the text @buf; UINT64_MAX if missing. */
static inline uint64_t vt_kv_in(const char *buf, const char *key)
{
	const char *p;
	size_t kl = strlen(key);

	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
	return UINT64_MAX;
}

/* The number of the "key value" line of @key in @path; UINT64_MAX if missing. */
static inline uint64_t vt_kv(const char *path, const char *key)
{
	char buf[1024];

	if (vt_read_file(path, buf, sizeof(buf)))
		return UINT64_MAX;
	return vt_kv_in(buf, key);
}

/* /dev/kmsg opened at its end: what is logged from now on is read from it */
static inline int vt_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Records of the kernel log read from @fd (vt_kmsg_open()) that contain
 * @want, up to the newest; at most @stop of them (0: no limit).
 */
static inline int vt_kmsg_count(int fd, const char *want, int stop)
{
	char rec[2048];
	int count = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			return count;
		rec[n] = '\0';
		if (strstr(rec, want) && ++count == stop)
			return count;
	}
}

/* vt_write_file() of printf-formatted text: 0 or -errno. */
static inline int vt_vwritef(const char *path, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return vt_write_file(path, buf);
}

static inline int vt_writef(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int vt_writef(const char *path, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vt_vwritef(path, fmt, ap);
	va_end(ap);
	return ret;
}

/* A negative errno as a name, 0 as "success". */
static inline const char *vt_err_name(int e)
{
	return e ? strerror(-e) : "success";
}

/* Reap @pid: true when it exited with status 0. */
static inline int vt_wait_ok(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * Wait for @pid up to @bound_ms (1 ms steps), its wait status in @st: the
 * ms waited; >= @bound_ms when it has not ended (it is not reaped then).
 */
static inline long vt_wait_bounded(pid_t pid, int *st, long bound_ms)
{
	uint64_t t0 = vt_now_ms();
	long ms;

	while ((ms = (long)(vt_now_ms() - t0)) < bound_ms && waitpid(pid, st, WNOHANG) == 0)
		usleep(1000);
	return ms;
}

#define VT_CGROUP "/sys/fs/cgroup"

/*
 * What a charge measured through memory.current may fall short by: the
 * cgroup's per-CPU stock, a 64-page batch on each of the guest's 2 CPUs,
 * may hold part of it already.
 */
#define VT_MEMCG_STOCK_BYTES	(2 * 64 * 4096)

/*
 * Run @child in a forked process that joins the memory cgroup @dir (made
 * under a cgroup2 mount at VT_CGROUP with memory.max @max, removed after):
 * its wait status in @status. 0, or -1 with vt_msg set when the cgroup
 * could not be made. The child exits 10 when it cannot join.
 */
static inline int vt_memcg_run(const char *dir, const char *max, int (*child)(void), int *status)
{
	char path[256], pid_s[16];
	struct stat st;
	pid_t pid;

	if (stat(VT_CGROUP "/cgroup.controllers", &st)) {
		mkdir(VT_CGROUP, 0755);
		if (mount("none", VT_CGROUP, "cgroup2", 0, NULL)) {
			vt_fail_msg(__FILE__, __LINE__, "mount cgroup2: %s", strerror(errno));
			return -1;
		}
	}
	if (vt_write_file(VT_CGROUP "/cgroup.subtree_control", "+memory")) {
		vt_fail_msg(__FILE__, __LINE__, "enable the memory controller: %s",
			    strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		vt_fail_msg(__FILE__, __LINE__, "mkdir");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/memory.max", dir);
	if (vt_write_file(path, max)) {
		vt_fail_msg(__FILE__, __LINE__, "memory.max");
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		snprintf(pid_s, sizeof(pid_s), "%d", getpid());
		_exit(vt_write_file(path, pid_s) ? 10 : child());
	}
	if (waitpid(pid, status, 0) != pid) {
		vt_fail_msg(__FILE__, __LINE__, "waitpid");
		return -1;
	}
	rmdir(dir);
	return 0;
}

/*
 * One anonymous page registered with userfaultfd: an access faults and
 * waits until vt_uffd_answer().
 */
struct vt_uffd {
	int fd;
	char *mem;
	long page;
};

/* 0, or -1 with vt_msg set. */
static inline int vt_uffd_open(struct vt_uffd *u)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	u->page = sysconf(_SC_PAGESIZE);
	u->fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (u->fd < 0) {
		vt_fail_msg(__FILE__, __LINE__, "userfaultfd: %s", strerror(errno));
		return -1;
	}
	if (ioctl(u->fd, UFFDIO_API, &api)) {
		vt_fail_msg(__FILE__, __LINE__, "UFFDIO_API: %s", strerror(errno));
		return -1;
	}
	u->mem = mmap(NULL, (size_t)u->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (u->mem == MAP_FAILED) {
		vt_fail_msg(__FILE__, __LINE__, "mmap");
		return -1;
	}
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (unsigned long)u->mem;
	reg.range.len = (unsigned long)u->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(u->fd, UFFDIO_REGISTER, &reg)) {
		vt_fail_msg(__FILE__, __LINE__, "UFFDIO_REGISTER: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* True once an access faulted on the page (waits up to @bound_ms). */
static inline int vt_uffd_faulted(struct vt_uffd *u, int bound_ms)
{
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };

	return poll(&pfd, 1, bound_ms) == 1;
}

/* Answer the fault with a zero page, so nothing stays blocked. */
static inline void vt_uffd_answer(struct vt_uffd *u)
{
	struct uffdio_zeropage zp;

	memset(&zp, 0, sizeof(zp));
	zp.range.start = (unsigned long)u->mem;
	zp.range.len = (unsigned long)u->page;
	ioctl(u->fd, UFFDIO_ZEROPAGE, &zp);
}

static inline void vt_uffd_close(struct vt_uffd *u)
{
	close(u->fd);
	munmap(u->mem, (size_t)u->page);
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

/* ---- a byte that may fault; descriptors between processes ----------------- */

static sigjmp_buf vt_probe_jmp;

static inline void vt_probe_handler(int sig)
{
	siglongjmp(vt_probe_jmp, sig);
}

/* Read the byte at @p: 0, or the signal the access raised (SIGBUS, SIGSEGV). */
static inline int vt_probe_read(volatile const uint8_t *p)
{
	struct sigaction sa, obus, osegv;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = vt_probe_handler;
	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	sig = sigsetjmp(vt_probe_jmp, 1);
	if (!sig)
		(void)*p;
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return sig;
}

/* Send descriptor @fd over the unix socket @sock (SCM_RIGHTS): 0 or -1. */
static inline int vt_send_fd(int sock, int fd)
{
	char c = 'f', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m;
	struct cmsghdr *cm;

	memset(&m, 0, sizeof(m));
	memset(cbuf, 0, sizeof(cbuf));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

/* The descriptor vt_send_fd() sent over @sock, or -1. */
static inline int vt_recv_fd(int sock)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m;
	struct cmsghdr *cm;
	int fd;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

#define VT_CASE(fn) { #fn, fn }
#define VT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif /* VMTEST_H */
