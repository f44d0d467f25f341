// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the FW-IO mailbox and the metrics post, end to end on the
 * simulated device. Expects the module loaded with sim_devices=2 and a
 * short FW-IO timeout (30_fwio.sh: fwio_timeout_ms=100 fwio_retries=3);
 * the time budgets are derived from the parameters actually loaded.
 *
 * Faults are armed through debugfs fw/fault; everything is asserted
 * through the public interfaces: ioctl return values and errnos, sysfs
 * stats/fw_io/ files, the simulated firmware's fw/posted record, wall time.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>

#include "vmdev.h"

#define SYS VT_SYSFS_DEV "/%s"
#define PARAM "/sys/module/neuron/parameters/%s"

static unsigned int T_MS;	/* fwio_timeout_ms */
static unsigned int ATTEMPTS;	/* fwio_retries */
/* scheduling slack on top of the protocol's own worst case (TCG guest) */
#define SLACK_MS 300
/*
 * A delayed answer (the slow fault) rides a jiffy timer, which may fire up
 * to one jiffy before the full delay in wall time: 10 ms covers HZ >= 100.
 */
#define JIFFY_MS 10

/* ---- small helpers ------------------------------------------------------- */

static unsigned int param(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PARAM, name);
	if (vt_read_file(path, buf, sizeof(buf)))
		return 0;
	return (unsigned int)strtoul(buf, NULL, 10);
}

static int set_param(const char *name, unsigned int v)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), PARAM, name);
	snprintf(buf, sizeof(buf), "%u", v);
	return vt_write_file(path, buf);
}

/*
 * Poll (1 ms steps) until @cond(@dev, @arg) holds; -1 once @bound_ms has
 * passed without it. Waits on the state that proves an event, never for a
 * fixed time.
 */
static int wait_until(int (*cond)(int, uint64_t), int dev, uint64_t arg, unsigned int bound_ms)
{
	uint64_t end = vt_now_ns() + (uint64_t)bound_ms * 1000000;

	while (!cond(dev, arg)) {
		if (vt_now_ns() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* The slow fault's delayed answer was delivered or dropped, none is left. */
static int late_answer_landed(int dev, uint64_t slow_done_before)
{
	return vt_dbg_kv(dev, "fw/sim_stats", "slow_done") > slow_done_before &&
	       vt_dbg_kv(dev, "fw/sim_stats", "slow_pending") == 0;
}

/* Wait for the answer of a slow fault armed when @before was read. */
static int wait_late_answer(int dev, const struct vt_fw_counts *before, unsigned int slow_ms)
{
	/* it is due @slow_ms after its request; 5 s slack for emulation */
	return wait_until(late_answer_landed, dev, before->slow_done, slow_ms + 5000);
}

/* The simulated firmware has seen more than @requests requests. */
static int request_arrived(int dev, uint64_t requests)
{
	return vt_dbg_kv(dev, "fw/sim_stats", "requests") > requests;
}

static int post_now(int dev)
{
	return vt_dbg_write(dev, "fw/post_now", "1");
}

static int read_misc_words(void)
{
	uint64_t addr[3] = { 0x000, 0x038, 0x03C };
	struct neuron_info info;
	char buf[64], want[64];
	uint32_t v[3];
	int fd = vt_open_dev(0), ret;

	VT_ASSERT(fd >= 0, "open");
	ret = vt_fw_read(fd, addr, 3, v);
	VT_ASSERT(ret == 0, "FW_READ: %s", vt_err_name(ret));
	VT_ASSERT(v[0] == 7, "API version %u, expected 7", v[0]);
	VT_ASSERT(v[2] == 0x4e53494d, "serial hi %#x", v[2]);
	/* the same words as sysfs reads directly */
	snprintf(want, sizeof(want), "%08x%08x\n", v[2], v[1]);
	snprintf(buf, sizeof(buf), SYS, 0, "info/serial_number");
	VT_ASSERT(vt_read_file(buf, buf, sizeof(buf)) == 0 && !strcmp(buf, want),
		  "serial_number '%s' vs mailbox '%s'", buf, want);
	VT_ASSERT(vt_sys_u64(0, "info/fw_api_version") == 7, "fw_api_version");
	/* the second device has its own serial */
	close(fd);
	fd = vt_open_dev(1);
	VT_ASSERT(fd >= 0, "open 1");
	VT_ASSERT(vt_fw_read1(fd, 0x038, &v[0]) == 0 && v[0] != v[1], "device 1 serial lo %#x",
		  v[0]);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "GET_INFO");
	VT_ASSERT(info.capabilities & NEURON_CAP_FWIO, "NEURON_CAP_FWIO not reported");
	close(fd);
	return 0;
}

static int read_sixteen_and_bad_addresses(void)
{
	uint64_t addr[NEURON_FW_READ_MAX];
	uint32_t v[NEURON_FW_READ_MAX];
	unsigned int i;
	int fd = vt_open_dev(0), ret;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < NEURON_FW_READ_MAX; i++)
		addr[i] = 4 * i;
	ret = vt_fw_read(fd, addr, NEURON_FW_READ_MAX, v);
	VT_ASSERT(ret == 0, "16 words: %s", vt_err_name(ret));
	VT_ASSERT(v[0] == 7 && v[9] == 0 /* 0x24: device id 0 */, "words %u %u", v[0], v[9]);
	/* what the firmware cannot read reads 0xDEADBEEF, the call succeeds */
	addr[0] = 0x100000;
	addr[1] = 0x3;
	addr[2] = UINT64_MAX;
	ret = vt_fw_read(fd, addr, 3, v);
	VT_ASSERT(ret == 0, "bad addresses: %s", vt_err_name(ret));
	VT_ASSERT(v[0] == 0xDEADBEEF && v[1] == 0xDEADBEEF && v[2] == 0xDEADBEEF,
		  "%#x %#x %#x", v[0], v[1], v[2]);
	close(fd);
	return 0;
}

static int ioctl_validation(void)
{
	struct neuron_fw_read r;
	struct neuron_fw_power_profile p;
	struct vt_fw_counts a, b;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	a = vt_fw_counts(0);
#define R_INIT() do { memset(&r, 0, sizeof(r)); r.size = sizeof(r); r.count = 1; } while (0)
	R_INIT();
	r.size -= 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EINVAL);
	R_INIT();
	r.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EINVAL);
	R_INIT();
	r.count = 0;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EINVAL);
	R_INIT();
	r.count = NEURON_FW_READ_MAX + 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), E2BIG);
	R_INIT();
	r.reserved0 = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EINVAL);
	R_INIT();
	r.reserved[1] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EINVAL);
	R_INIT();
	r.addr[1] = 4;	/* past count */
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EINVAL);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, NULL), EFAULT);
	VT_ASSERT_ERRNO(ioctl(fd, _IOWR(NEURON_IOCTL_MAGIC, 0xD0, uint64_t), &r), EINVAL);
	/* unused numbers of the FW-IO range */
	VT_ASSERT_ERRNO(ioctl(fd, _IOWR(NEURON_IOCTL_MAGIC, 0xD7, struct neuron_fw_read), &r), ENOTTY);
#undef R_INIT
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.profile = 256;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p), EINVAL);
	p.profile = 1;
	p.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p), EINVAL);
	p.flags = 0;
	p.reserved[0] = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p), EINVAL);
	p.reserved[0] = 0;
	p.size = 24;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p), EINVAL);
	/* none of that reached the firmware */
	b = vt_fw_counts(0);
	VT_ASSERT(b.requests == a.requests, "requests %" PRIu64 " -> %" PRIu64, a.requests,
		  b.requests);
	close(fd);
	return 0;
}

static int power_profile(void)
{
	struct vt_fw_counts a, b;
	int fd = vt_open_dev(0), ret;

	VT_ASSERT(fd >= 0, "open");
	a = vt_fw_counts(0);
	ret = vt_fw_power(fd, 2);
	VT_ASSERT(ret == 0, "profile 2: %s", vt_err_name(ret));
	VT_ASSERT(vt_dbg_kv(0, "fw/sim_stats", "power_profile") == 2, "firmware did not apply it");
	ret = vt_fw_power(fd, 0);
	VT_ASSERT(ret == 0 && vt_dbg_kv(0, "fw/sim_stats", "power_profile") == 0, "profile 0");
	/* a profile the firmware refuses: FW_IO_FAIL on every attempt */
	ret = vt_fw_power(fd, 9);
	VT_ASSERT(ret == -EIO, "profile 9: %s, expected EIO", vt_err_name(ret));
	b = vt_fw_counts(0);
	VT_ASSERT(b.err == a.err + ATTEMPTS, "err_count %" PRIu64 " -> %" PRIu64, a.err, b.err);
	VT_ASSERT(b.tmo == a.tmo, "timeout_count moved");
	VT_ASSERT(b.requests == a.requests + 2 + ATTEMPTS, "requests");
	close(fd);
	return 0;
}

/* ---- every fault mode at both call sites ------------------------------------ */

struct fault_case {
	const char *fault;	/* written to fw/fault; count 0 = until cleared */
	unsigned int slow_ms;	/* fw/slow_ms for "slow" (0: not used) */
	int expect;		/* call-site result at the edge */
	int d_err;		/* exact err_count increment */
	int d_tmo;		/* exact timeout_count increment */
	int d_req;		/* exact requests that reached the firmware */
	unsigned int min_ms;	/* lower bound of the wall time */
	unsigned int max_ms;	/* upper bound before slack */
};

static int fault_cases(int (*call)(int fd), const char *site)
{
	const unsigned int T = T_MS, N = ATTEMPTS;
	const struct fault_case cases[] = {
		{ "fail 0", 0, -EIO, N, 0, N, 0, 0 },
		{ "fail 1", 0, 0, 1, 0, 2, 0, 0 },
		{ "fail 2", 0, 0, 2, 0, 3, 0, 0 },
		{ "unknown_command 0", 0, -EOPNOTSUPP, 1, 0, 1, 0, 0 },
		{ "unknown_command", 0, -EOPNOTSUPP, 1, 0, 1, 0, 0 },
		{ "timeout 0", 0, -ETIMEDOUT, 0, N, N, N * T, N * T },
		{ "timeout 1", 0, 0, 0, 1, 2, T, T },
		{ "bad_seq 0", 0, -ETIMEDOUT, 0, N, N, 0, 0 },
		{ "bad_seq 2", 0, 0, 0, 2, 3, 0, 0 },
		{ "bad_crc 0", 0, -EIO, N, 0, N, 0, 0 },
		{ "bad_crc 1", 0, 0, 1, 0, 2, 0, 0 },
		{ "slow 1", T / 4, 0, 0, 0, 1, T / 4, T },
		{ "slow 1", 2 * T, 0, 0, 1, 2, T, 2 * T },
		{ "slow 0", 2 * T, -ETIMEDOUT, 0, N, N, N * T, N * T },
		{ "oversize 0", 0, -EIO, 0, 1, 1, 0, 0 },
	};
	size_t i;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < VT_COUNT(cases); i++) {
		const struct fault_case *c = &cases[i];
		struct vt_fw_counts a, b, o0, o1;
		char fbuf[64];
		uint64_t t0, ms;
		uint32_t v;
		int ret;

		if (c->slow_ms) {
			snprintf(fbuf, sizeof(fbuf), "%u", c->slow_ms);
			VT_ASSERT(vt_dbg_write(0, "fw/slow_ms", fbuf) == 0, "slow_ms");
		}
		o0 = vt_fw_counts(1);
		a = vt_fw_counts(0);
		VT_ASSERT(vt_dbg_write(0, "fw/fault", c->fault) == 0, "arm '%s'", c->fault);
		t0 = vt_now_ns();
		ret = call(fd);
		ms = (vt_now_ns() - t0) / 1000000;
		/*
		 * The firmware counts a request in a work item. On a slow
		 * kernel the last attempt's may still be queued when the
		 * call returns: let it run with the fault still armed (5 s
		 * bound; a count that never comes is reported below).
		 */
		(void)wait_until(request_arrived, 0, a.requests + c->d_req - 1, 5000);
		VT_ASSERT(vt_dbg_write(0, "fw/fault", "none") == 0, "clear");
		if (!strncmp(c->fault, "slow", 4))
			VT_ASSERT(wait_late_answer(0, &a, c->slow_ms) == 0,
				  "%s '%s': the delayed answer never landed", site, c->fault);
		b = vt_fw_counts(0);
		o1 = vt_fw_counts(1);

		VT_ASSERT(ret == c->expect, "%s '%s': %s, expected %s", site, c->fault,
			  vt_err_name(ret), vt_err_name(c->expect));
		VT_ASSERT(b.err - a.err == (uint64_t)c->d_err,
			  "%s '%s': err_count +%" PRIu64 ", expected +%d", site, c->fault,
			  b.err - a.err, c->d_err);
		VT_ASSERT(b.tmo - a.tmo == (uint64_t)c->d_tmo,
			  "%s '%s': timeout_count +%" PRIu64 ", expected +%d", site, c->fault,
			  b.tmo - a.tmo, c->d_tmo);
		VT_ASSERT(b.requests - a.requests == (uint64_t)c->d_req,
			  "%s '%s': %" PRIu64 " requests, expected %d", site, c->fault,
			  b.requests - a.requests, c->d_req);
		VT_ASSERT(ms + JIFFY_MS >= c->min_ms && ms <= c->max_ms + SLACK_MS,
			  "%s '%s': took %" PRIu64 " ms, budget %u..%u (+%u)", site, c->fault, ms,
			  c->min_ms, c->max_ms, SLACK_MS);
		VT_ASSERT(b.zero_seq == 0 && b.gaps == a.gaps, "%s '%s': seq zero %" PRIu64
			  " gaps +%" PRIu64, site, c->fault, b.zero_seq, b.gaps - a.gaps);
		if (!strncmp(c->fault, "bad_crc", 7))
			VT_ASSERT(b.crc - a.crc == (uint64_t)c->d_err, "crc_errors");
		/*
		 * A late answer is never taken for a later request's: the
		 * driver does not withdraw a timed-out request (TRIGGER is
		 * only ever written 1), its next attempt rings again with a
		 * fresh number and this lenient firmware drops the late
		 * answer of the replaced request. When every attempt timed
		 * out, the last late answer completes its own request, which
		 * nobody waits for any more: nothing is dropped.
		 */
		if (c->slow_ms > T && c->expect == 0)
			VT_ASSERT(b.dropped - a.dropped >= 1,
				  "%s '%s': no late answer was dropped", site, c->fault);
		else
			VT_ASSERT(b.dropped == a.dropped, "%s '%s': answer dropped", site, c->fault);
		/* the other device is untouched */
		VT_ASSERT(o1.err == o0.err && o1.tmo == o0.tmo && o1.requests == o0.requests,
			  "device 1 counters moved");
		/* the fault is gone and the mailbox works again, counting nothing */
		VT_ASSERT(vt_dbg_read(0, "fw/fault", fbuf, sizeof(fbuf)) == 0 &&
				  !strcmp(fbuf, "none 0\n"),
			  "fault reads '%s'", fbuf);
		a = vt_fw_counts(0);
		ret = vt_fw_read1(fd, 0x000, &v);
		b = vt_fw_counts(0);
		VT_ASSERT(ret == 0 && v == 7, "%s '%s': no recovery: %s", site, c->fault,
			  vt_err_name(ret));
		VT_ASSERT(b.err == a.err && b.tmo == a.tmo,
			  "%s '%s': recovery counted err +%" PRIu64 " timeout +%" PRIu64, site,
			  c->fault, b.err - a.err, b.tmo - a.tmo);
	}
	close(fd);
	return 0;
}

static int call_read(int fd)
{
	uint32_t v = 0;
	int ret = vt_fw_read1(fd, 0x03C, &v);

	if (!ret && v != 0x4e53494d)
		return -ERANGE;	/* a "success" with the wrong data */
	return ret;
}

static int call_power(int fd)
{
	return vt_fw_power(fd, 1);
}

static int faults_at_fw_read(void)
{
	return fault_cases(call_read, "FW_READ");
}

static int faults_at_power_profile(void)
{
	return fault_cases(call_power, "POWER_PROFILE");
}

static int fault_count_consumed(void)
{
	char buf[64];
	int fd = vt_open_dev(0), ret;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(ATTEMPTS == 3, "written for fwio_retries=3");
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "fail 5") == 0, "arm");
	VT_ASSERT(vt_dbg_read(0, "fw/fault", buf, sizeof(buf)) == 0 && !strcmp(buf, "fail 5\n"),
		  "reads '%s'", buf);
	ret = call_read(fd);
	close(fd);
	VT_ASSERT(ret == -EIO, "3 of 5 used: %s", vt_err_name(ret));
	VT_ASSERT(vt_dbg_read(0, "fw/fault", buf, sizeof(buf)) == 0 && !strcmp(buf, "fail 2\n"),
		  "reads '%s'", buf);
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "timeout 0") == 0, "sticky");
	VT_ASSERT(vt_dbg_read(0, "fw/fault", buf, sizeof(buf)) == 0 && !strcmp(buf, "timeout 0\n"),
		  "reads '%s'", buf);
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "none") == 0, "clear");
	return 0;
}

/*
 * An API version below 7 closes the register-only mailbox; each change of
 * the verdict is logged, two lines a minute at most: a version word that
 * toggles does not flood the log.
 */
static int api_too_old(void)
{
	struct vt_fw_counts a, b;
	/* from before the first toggle: its two lines are the only ones */
	int fd = vt_open_dev(0), kmsg = vt_kmsg_open(), kmsg2 = vt_kmsg_open(), ret, i, below, again;
	uint32_t v;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(kmsg >= 0 && kmsg2 >= 0, "/dev/kmsg: %s", strerror(errno));
	a = vt_fw_counts(0);
	VT_ASSERT(vt_dbg_write(0, "fw/api_version", "6") == 0, "api_version");
	VT_ASSERT(vt_sys_u64(0, "info/fw_api_version") == 6, "sysfs fw_api_version");
	ret = vt_fw_read1(fd, 0, &v);
	VT_ASSERT(ret == -EOPNOTSUPP, "FW_READ: %s, expected EOPNOTSUPP", vt_err_name(ret));
	ret = vt_fw_power(fd, 1);
	VT_ASSERT(ret == -EOPNOTSUPP, "POWER_PROFILE: %s", vt_err_name(ret));
	ret = post_now(0);
	VT_ASSERT(ret == -EOPNOTSUPP, "post_now: %s", vt_err_name(ret));
	b = vt_fw_counts(0);
	VT_ASSERT(b.requests == a.requests && b.err == a.err && b.tmo == a.tmo,
		  "nothing may reach the firmware nor be counted");
	VT_ASSERT(vt_dbg_write(0, "fw/api_version", "7") == 0, "restore");
	ret = vt_fw_read1(fd, 0, &v);
	VT_ASSERT(ret == 0 && v == 7, "after restore: %s", vt_err_name(ret));
	/* five more toggles, well within the minute: each exchange still obeys */
	for (i = 0; i < 5; i++) {
		VT_ASSERT(vt_dbg_write(0, "fw/api_version", "6") == 0, "toggle %d", i);
		ret = vt_fw_read1(fd, 0, &v);
		VT_ASSERT(ret == -EOPNOTSUPP, "toggle %d at 6: %s", i, vt_err_name(ret));
		VT_ASSERT(vt_dbg_write(0, "fw/api_version", "7") == 0, "toggle %d back", i);
		ret = vt_fw_read1(fd, 0, &v);
		VT_ASSERT(ret == 0 && v == 7, "toggle %d at 7: %s", i, vt_err_name(ret));
	}
	close(fd);
	below = vt_kmsg_count(kmsg, "neuron0: fw-io: firmware API version 0x6 is below 7", 0);
	again = vt_kmsg_count(kmsg2, "neuron0: fw-io: firmware API version is supported again", 0);
	close(kmsg);
	close(kmsg2);
	VT_ASSERT(below == 1 && again == 1,
		  "six toggles logged %d 'below' and %d 'supported again' lines, expected 1 and 1",
		  below, again);
	return 0;
}

/* 600 exchanges: the 8-bit number wraps twice, never 0, never skips. */
static int sequence_wraps(void)
{
	struct vt_fw_counts a, b;
	uint64_t wraps0, wraps1, drv, fw;
	unsigned int i;
	uint32_t v;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	a = vt_fw_counts(0);
	wraps0 = vt_dbg_kv(0, "fw/sim_stats", "seq_wraps");
	for (i = 0; i < 600; i++)
		VT_ASSERT(vt_fw_read1(fd, 0, &v) == 0, "read %u", i);
	b = vt_fw_counts(0);
	wraps1 = vt_dbg_kv(0, "fw/sim_stats", "seq_wraps");
	VT_ASSERT(wraps1 - wraps0 >= 2, "wrapped %" PRIu64 " times", wraps1 - wraps0);
	VT_ASSERT(b.zero_seq == 0, "sequence number 0 arrived %" PRIu64 " times", b.zero_seq);
	/*
	 * Every attempt takes the next number: the firmware sees them all in
	 * order, except one the driver withdrew after a timeout before the
	 * firmware ran (a stalled guest), which is also counted as a timeout.
	 */
	VT_ASSERT(b.gaps - a.gaps <= b.tmo - a.tmo, "%" PRIu64 " gaps, %" PRIu64 " timeouts",
		  b.gaps - a.gaps, b.tmo - a.tmo);
	VT_ASSERT(b.requests - a.requests + (b.gaps - a.gaps) == 600 + (b.tmo - a.tmo),
		  "attempts and requests disagree");
	drv = vt_dbg_kv(0, "fw/stats", "last_seq");
	fw = vt_dbg_kv(0, "fw/sim_stats", "last_seq");
	VT_ASSERT(drv == fw && drv >= 1 && drv <= 255, "driver last_seq %" PRIu64 " firmware %"
		  PRIu64, drv, fw);
	close(fd);
	return 0;
}

/* Two callers against a hung firmware: serialized, each bounded. */
struct racer {
	int ret;
	uint64_t ms;
};

static void *race_read(void *arg)
{
	struct racer *r = arg;
	int fd = vt_open_dev(0);
	uint64_t t0 = vt_now_ns();
	uint32_t v;

	r->ret = vt_fw_read1(fd, 0, &v);
	r->ms = (vt_now_ns() - t0) / 1000000;
	close(fd);
	return NULL;
}

static int hung_firmware_two_callers(void)
{
	struct racer r[2];
	pthread_t t[2];
	uint64_t t0, ms;
	struct vt_fw_counts a, b;
	int i;

	a = vt_fw_counts(0);
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "timeout 0") == 0, "arm");
	t0 = vt_now_ns();
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, race_read, &r[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ms = (vt_now_ns() - t0) / 1000000;
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "none") == 0, "clear");
	b = vt_fw_counts(0);
	for (i = 0; i < 2; i++)
		VT_ASSERT(r[i].ret == -ETIMEDOUT, "caller %d: %s", i, vt_err_name(r[i].ret));
	/* one exchange at a time: together they take two full budgets */
	VT_ASSERT(ms >= 2ull * ATTEMPTS * T_MS && ms <= 2ull * ATTEMPTS * T_MS + 2 * SLACK_MS,
		  "took %" PRIu64 " ms", ms);
	VT_ASSERT(b.tmo - a.tmo == 2ull * ATTEMPTS, "timeout_count +%" PRIu64, b.tmo - a.tmo);
	return 0;
}

/* A caller stuck on a hung firmware dies at once when killed. */
static int killed_caller_exits(void)
{
	unsigned int saved = param("fwio_timeout_ms");
	uint64_t t0, ms, req;
	pid_t pid;
	int st;

	VT_ASSERT(set_param("fwio_timeout_ms", 5000) == 0, "raise the timeout");
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "timeout 0") == 0, "arm");
	req = vt_dbg_kv(0, "fw/sim_stats", "requests");
	pid = fork();
	if (pid == 0) {
		uint32_t v;

		vt_fw_read1(vt_open_dev(0), 0, &v);
		_exit(0);
	}
	/* the child's request is at the firmware, which never answers it */
	if (wait_until(request_arrived, 0, req, 5000)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		vt_dbg_write(0, "fw/fault", "none");
		set_param("fwio_timeout_ms", saved);
		VT_ASSERT(0, "the child's request never reached the firmware");
	}
	t0 = vt_now_ns();
	kill(pid, SIGKILL);
	VT_ASSERT(waitpid(pid, &st, 0) == pid, "waitpid");
	ms = (vt_now_ns() - t0) / 1000000;
	vt_dbg_write(0, "fw/fault", "none");
	set_param("fwio_timeout_ms", saved);
	VT_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child status %#x", st);
	VT_ASSERT(ms < 500, "exit took %" PRIu64 " ms with a 5 s firmware timeout", ms);
	/* the abandoned request (still posted: it is never withdrawn) does not poison the next one */
	{
		uint32_t v;
		int fd = vt_open_dev(0), ret = vt_fw_read1(fd, 0, &v);

		close(fd);
		VT_ASSERT(ret == 0 && v == 7, "after the kill: %s", vt_err_name(ret));
	}
	return 0;
}

/* ---- metrics --------------------------------------------------------------- */

#define MAX_POSTED 512

struct posted {
	unsigned int n;
	unsigned int id[MAX_POSTED];
	char val[MAX_POSTED][72];
};

static int read_posted(int dev, struct posted *p)
{
	static char buf[64 * 1024];
	char *line, *save = NULL;

	p->n = 0;
	if (vt_dbg_read(dev, "fw/posted", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp || p->n >= MAX_POSTED)
			return -1;
		*sp = '\0';
		p->id[p->n] = (unsigned int)strtoul(line, NULL, 10);
		snprintf(p->val[p->n], sizeof(p->val[0]), "%s", sp + 1);
		p->n++;
	}
	return 0;
}

/* index of the only record with @id, -1 if none, -2 if several */
static int find_id(const struct posted *p, unsigned int id)
{
	int found = -1;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		if (p->id[i] != id)
			continue;
		if (found >= 0)
			return -2;
		found = (int)i;
	}
	return found;
}

/* The tick the next post uses (fw/post_tick), -1 if unreadable. */
static int next_tick(int dev)
{
	char buf[16];

	if (vt_dbg_read(dev, "fw/post_tick", buf, sizeof(buf)))
		return -1;
	if (buf[0] != '0' && buf[0] != '1')
		return -1;
	return buf[0] - '0';
}

/* Post, return the decoded records of exactly that post. */
static int post_and_read_all(int dev, struct posted *p)
{
	int ret;

	if (vt_dbg_write(dev, "fw/posted", "clear"))
		return -1;
	ret = post_now(dev);
	if (ret)
		return ret;
	return read_posted(dev, p);
}

/* Posted on every tick 0 (56) or tick 1 (50..55), even at 0. */
static int always_posted(unsigned int id)
{
	return id == 56 || (id >= 50 && id <= 55);
}

/*
 * post_and_read_all() less the records a post of its tick always carries:
 * 56 (the profile, tick 0) and 50..55 (the driver metrics, tick 1), each
 * checked to be there, in place, as a decimal number. A post without
 * events then reads as 12 and 13 only.
 */
static int post_and_read(int dev, struct posted *p)
{
	int tick = next_tick(dev), ret;
	unsigned int i, k = 0, fixed = 0;

	ret = post_and_read_all(dev, p);
	if (ret)
		return ret;
	for (i = 0; i < p->n; i++) {
		if (always_posted(p->id[i])) {
			char *end;

			strtoull(p->val[i], &end, 10);
			if (!p->val[i][0] || *end)
				return -EBADMSG;
			if ((tick == 0) != (p->id[i] == 56))
				return -EPROTO;
			/* in definition order: 56 after 13, 50..55 last */
			if (p->id[i] == 56 ? i != 2 : i + 6 - fixed != p->n ||
			    p->id[i] != 50 + fixed)
				return -EPROTO;
			fixed++;
			continue;
		}
		p->id[k] = p->id[i];
		memcpy(p->val[k], p->val[i], sizeof(p->val[0]));
		k++;
	}
	if (fixed != (tick ? 6u : 1u))
		return -ENOMSG;
	p->n = k;
	return 0;
}

static int driver_version(char *buf, size_t len)
{
	if (vt_read_file("/sys/module/neuron/version", buf, len))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * Flush what earlier cases left on both ticks, then make @tick the next
 * one: one post a tick, ticks alternating.
 */
static int flush_to_tick(int dev, int tick)
{
	int t0, ret;

	t0 = next_tick(dev);
	if (t0 < 0)
		return -EIO;
	ret = post_now(dev);
	if (!ret)
		ret = post_now(dev);
	if (!ret && next_tick(dev) != t0)
		return -EPROTO;	/* two posts must be back on the same tick */
	if (!ret && t0 != tick)
		ret = post_now(dev);
	if (!ret && next_tick(dev) != tick)
		return -EPROTO;
	return ret;
}

static int metrics_constants_only(void)
{
	struct posted p;
	char ver[64];
	int ret, k;

	VT_ASSERT(driver_version(ver, sizeof(ver)) == 0, "module version");
	/* flush whatever earlier cases left, then a quiet post on each tick */
	ret = flush_to_tick(0, 0);
	VT_ASSERT(ret == 0, "flush: %s", vt_err_name(ret));
	for (k = 0; k < 2; k++) {
		ret = post_and_read(0, &p);
		VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
		VT_ASSERT(p.n == 2, "tick %d: %u records, expected only 12 and 13", k, p.n);
		VT_ASSERT(p.id[0] == 12 && !strcmp(p.val[0], "sim"), "12 '%s'", p.val[0]);
		VT_ASSERT(p.id[1] == 13 && !strcmp(p.val[1], ver), "13 '%s' vs '%s'", p.val[1], ver);
		VT_ASSERT(next_tick(0) == !k, "post_tick after tick %d: %d", k, next_tick(0));
	}
	return 0;
}

/* Metric 11 is on tick 0 only: errors made before a tick-1 post wait for tick 0. */
static int metrics_fw_io_errors(void)
{
	struct posted p;
	uint64_t e0, e1;
	int fd = vt_open_dev(0), ret, i;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(flush_to_tick(0, 1) == 0, "flush");
	e0 = vt_sys_u64(0, "stats/fw_io/err_count");
	/* 3 error responses (FW_IO_FAIL on each attempt) + 1 (UNKNOWN_COMMAND) */
	VT_ASSERT(vt_fw_power(fd, 9) == -EIO, "refused profile");
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "unknown_command 1") == 0, "arm");
	VT_ASSERT(call_read(fd) == -EOPNOTSUPP, "unknown");
	/* timeouts are not firmware error responses */
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "timeout 1") == 0, "arm");
	VT_ASSERT(call_read(fd) == 0, "timeout then ok");
	e1 = vt_sys_u64(0, "stats/fw_io/err_count");
	VT_ASSERT(e1 - e0 == ATTEMPTS + 1, "err_count +%" PRIu64, e1 - e0);

	/* tick 1: the constants only */
	ret = post_and_read(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	VT_ASSERT(find_id(&p, 11) == -1 && p.n == 2, "tick 1 post: %u records", p.n);
	/* tick 0: 11 with the delta */
	ret = post_and_read(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	i = find_id(&p, 11);
	VT_ASSERT(i >= 0, "no metric 11 (%u records)", p.n);
	VT_ASSERT(strtoull(p.val[i], NULL, 10) == e1 - e0, "11 = %s, expected %" PRIu64,
		  p.val[i], e1 - e0);
	/* nothing new: no 11 on either tick */
	for (i = 0; i < 2; i++) {
		ret = post_and_read(0, &p);
		VT_ASSERT(ret == 0 && find_id(&p, 11) == -1 && p.n == 2, "later post: %u records",
			  p.n);
	}
	close(fd);
	return 0;
}

static int nds_add(int fd, unsigned int flags, unsigned int nc, unsigned int id, uint64_t d)
{
	struct neuron_nds_counter_add a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	a.nc = nc;
	a.id = id;
	a.delta = d;
	return ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a) ? -errno : 0;
}

static int nds_acquire(int fd)
{
	struct neuron_nds_acquire q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	return ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) ? -errno : 0;
}

/* the reference table: NC counter id -> CloudWatch id */
static const unsigned int nc_ids[28] = {
	1, 16, 4, 5, 8, 9, 10, 11, 12, 2, 3, 7, 17, 18, 6, 19, 20,
	30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
};
static const unsigned int cw_ids[28] = {
	200, 201, 205, 212, 215, 216, 217, 206, 218, 214, 213, 219, 204, 208, 207, 202, 209,
	220, 221, 222, 223, 224, 253, 225, 226, 227, 228, 229,
};

/* tick 0: the first 18 defs (up to 220); tick 1: the EXT counters */
#define TICK0_COUNTERS 18

static int metrics_counter_deltas(void)
{
	struct posted p;
	unsigned int i;
	int fd = vt_open_dev(0), ret, k;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(nds_acquire(fd) == 0, "NDS_ACQUIRE");
	VT_ASSERT(flush_to_tick(0, 0) == 0, "flush");
	/* counter i gets i + 1 events, split over the two NeuronCores */
	for (i = 0; i < 28; i++) {
		VT_ASSERT(nds_add(fd, 0, 0, nc_ids[i], 1) == 0, "add nc0 id %u", nc_ids[i]);
		if (i)
			VT_ASSERT(nds_add(fd, 0, 1, nc_ids[i], i) == 0, "add nc1 id %u", nc_ids[i]);
	}
	/* counters that are never posted */
	VT_ASSERT(nds_add(fd, 0, 0, 0, 12345) == 0 && nds_add(fd, 0, 0, 13, 5) == 0, "others");
	/* tick 0, then tick 1: each set in the reference order after 12, 13 */
	for (k = 0; k < 2; k++) {
		unsigned int lo = k ? TICK0_COUNTERS : 0, hi = k ? 28 : TICK0_COUNTERS;

		ret = post_and_read(0, &p);
		VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
		VT_ASSERT(p.n == 2 + hi - lo, "tick %d: %u records, expected %u", k, p.n,
			  2 + hi - lo);
		for (i = lo; i < hi; i++) {
			VT_ASSERT(p.id[2 + i - lo] == cw_ids[i], "tick %d record %u is %u, expected %u",
				  k, 2 + i - lo, p.id[2 + i - lo], cw_ids[i]);
			VT_ASSERT(strtoull(p.val[2 + i - lo], NULL, 10) == i + 1,
				  "metric %u = %s, expected %u", cw_ids[i], p.val[2 + i - lo], i + 1);
		}
	}

	/* no new events: nothing but the constants, on either tick */
	for (k = 0; k < 2; k++) {
		ret = post_and_read(0, &p);
		VT_ASSERT(ret == 0 && p.n == 2, "post without events: %u records", p.n);
	}

	/* clearing sysfs totals does not change what was done */
	VT_ASSERT(vt_write_file("/sys/devices/virtual/neuron_device/neuron0/neuron_core0/stats/status/success/total",
				"0") == 0, "clear sysfs total");
	for (k = 0; k < 2; k++) {
		ret = post_and_read(0, &p);
		VT_ASSERT(ret == 0 && p.n == 2, "post after sysfs clear: %u records", p.n);
	}

	/* two counters move, then the process exits: each delta posted once, on its tick */
	VT_ASSERT(nds_add(fd, 0, 1, 3, 4) == 0 && nds_add(fd, 0, 0, 36, 6) == 0, "adds");
	close(fd);
	ret = post_and_read(0, &p);
	VT_ASSERT(ret == 0 && p.n == 3, "tick 0 post after exit: %u records", p.n);
	VT_ASSERT(p.id[2] == 213 && !strcmp(p.val[2], "4"), "213");
	ret = post_and_read(0, &p);
	VT_ASSERT(ret == 0 && p.n == 3, "tick 1 post after exit: %u records", p.n);
	VT_ASSERT(p.id[2] == 225 && !strcmp(p.val[2], "6"), "225");
	for (k = 0; k < 2; k++) {
		ret = post_and_read(0, &p);
		VT_ASSERT(ret == 0 && p.n == 2, "nothing twice: %u records", p.n);
	}
	return 0;
}

/* The tick (0, 1) a posted id belongs to, 2 for the constants, -1 unknown. */
static int id_tick(unsigned int id)
{
	unsigned int i;

	if (id == 12 || id == 13)
		return 2;
	if (id == 11)
		return 0;
	if (id == 250 || id == 252 || (id >= 50 && id <= 55))
		return 1;
	if (id == 56)
		return 0;
	for (i = 0; i < 28; i++)
		if (cw_ids[i] == id)
			return i < TICK0_COUNTERS ? 0 : 1;
	return -1;
}

/*
 * Everything non-zero and long (19 digits): each post is one blob of at
 * most 128 bytes holding only its tick's set; a record that does not fit
 * is left out (a later, smaller one still goes in) and goes out with a
 * later post of its tick; in the end each delta was posted exactly once.
 */
static int metrics_one_blob_per_tick(void)
{
	char blobs[1024];
	const uint64_t big = 1000000000000000000ull;	/* 19 digits: 21-byte records */
	unsigned int seen[256] = { 0 }, post, i, len, recs, bits = 0;
	uint64_t e0, errs;
	struct posted p;
	int fd = vt_open_dev(0), ret, k;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(nds_acquire(fd) == 0, "NDS_ACQUIRE");
	VT_ASSERT(flush_to_tick(0, 0) == 0, "flush");
	for (i = 0; i < 28; i++)
		VT_ASSERT(nds_add(fd, 0, i % 2, nc_ids[i], big + i) == 0, "add %u", nc_ids[i]);
	VT_ASSERT(nds_add(fd, NEURON_NDS_ADD_ND, 0, NDS_ND_COUNTER_FEATURE_BITMAP, 0x5) == 0,
		  "bitmap");
	e0 = vt_sys_u64(0, "stats/fw_io/err_count");
	VT_ASSERT(vt_fw_power(fd, 9) == -EIO, "fw errors");
	errs = vt_sys_u64(0, "stats/fw_io/err_count") - e0;

	for (post = 0; post < 12; post++) {
		int tick = (int)(post % 2);
		unsigned int left_t0 = 0;

		VT_ASSERT(next_tick(0) == tick, "post %u: post_tick %d", post, next_tick(0));
		/* the full blob may leave 50..55 out: every record as posted */
		ret = post_and_read_all(0, &p);
		VT_ASSERT(ret == 0, "post %u: %s", post, vt_err_name(ret));
		VT_ASSERT(vt_dbg_read(0, "fw/posted_blobs", blobs, sizeof(blobs)) == 0, "blobs");
		VT_ASSERT(sscanf(blobs, "%u %u", &len, &recs) == 2, "blobs '%s'", blobs);
		VT_ASSERT(!strchr(blobs, '\n') || !strchr(blobs, '\n')[1],
			  "post %u sent more than one blob: '%s'", post, blobs);
		VT_ASSERT(len > 0 && len <= 128 && recs == p.n, "post %u: blob %u bytes, %u records",
			  post, len, recs);
		VT_ASSERT(p.n >= 2 && p.id[0] == 12 && p.id[1] == 13, "post %u: constants", post);
		for (i = 2; i < p.n; i++) {
			k = id_tick(p.id[i]);
			VT_ASSERT(k == tick, "post %u (tick %d) carries %u (tick %d)", post, tick,
				  p.id[i], k);
			seen[p.id[i]]++;
			if (always_posted(p.id[i]))
				continue;
			if (p.id[i] == 250) {
				bits++;
				VT_ASSERT(!strcmp(p.val[i], "5"), "250 = %s", p.val[i]);
				continue;
			}
			if (p.id[i] == 11) {
				VT_ASSERT(strtoull(p.val[i], NULL, 10) == errs, "11 = %s", p.val[i]);
				continue;
			}
			for (k = 0; k < 28 && cw_ids[k] != p.id[i]; k++)
				;
			VT_ASSERT(k < 28 && strtoull(p.val[i], NULL, 10) == big + (unsigned int)k,
				  "%u = %s", p.id[i], p.val[i]);
		}
		/* the first blob: full counters left out only when they did not fit, 11 still in */
		if (post == 0) {
			for (i = 0; i < TICK0_COUNTERS; i++)
				left_t0 += !seen[cw_ids[i]];
			VT_ASSERT(left_t0 > 0, "every tick-0 counter fitted one blob");
			VT_ASSERT(128 - len < 21, "a 21-byte record was left out with %u bytes free",
				  128 - len);
			VT_ASSERT(seen[11] == 1, "11 (3 bytes) left out of the first blob");
		}
	}
	for (i = 0; i < 28; i++)
		VT_ASSERT(seen[cw_ids[i]] == 1, "metric %u posted %u times", cw_ids[i],
			  seen[cw_ids[i]]);
	VT_ASSERT(seen[11] == 1, "11 posted %u times", seen[11]);
	VT_ASSERT(bits > 0, "250 never posted");
	close(fd);
	return 0;
}

/* A failed post loses nothing: the next one carries the sum. */
static int metrics_failed_post_carries_over(void)
{
	struct posted p;
	uint64_t e0, e1;
	int fd = vt_open_dev(0), ret, k;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(nds_acquire(fd) == 0, "NDS_ACQUIRE");
	/* tick 0 fails, tick 1 times out, the next tick 0 carries the sum */
	VT_ASSERT(flush_to_tick(0, 0) == 0, "flush");
	VT_ASSERT(vt_dbg_write(0, "fw/posted", "clear") == 0, "clear");
	VT_ASSERT(nds_add(fd, 0, 0, 1, 5) == 0, "add");
	e0 = vt_sys_u64(0, "stats/fw_io/err_count");

	VT_ASSERT(vt_dbg_write(0, "fw/fault", "fail 0") == 0, "arm fail");
	ret = post_now(0);
	VT_ASSERT(ret == -EIO, "post with FW_IO_FAIL: %s, expected EIO", vt_err_name(ret));
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "timeout 0") == 0, "arm timeout");
	ret = post_now(0);
	VT_ASSERT(ret == -ETIMEDOUT, "post with a hung firmware: %s", vt_err_name(ret));
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "none") == 0, "clear");
	VT_ASSERT(read_posted(0, &p) == 0 && p.n == 0, "failed posts recorded %u records", p.n);
	e1 = vt_sys_u64(0, "stats/fw_io/err_count");
	VT_ASSERT(e1 - e0 == ATTEMPTS, "err_count +%" PRIu64, e1 - e0);

	VT_ASSERT(nds_add(fd, 0, 1, 1, 2) == 0, "add");
	ret = post_and_read(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	k = find_id(&p, 200);
	VT_ASSERT(k >= 0 && !strcmp(p.val[k], "7"), "200 = %s, expected 7", k >= 0 ? p.val[k] : "-");
	k = find_id(&p, 11);
	VT_ASSERT(k >= 0 && strtoull(p.val[k], NULL, 10) == ATTEMPTS, "11 = %s",
		  k >= 0 ? p.val[k] : "-");
	close(fd);
	return 0;
}

/* ---- 56, the version metrics, the driver metrics ---------------------------- */

/* The value of the only record @id of @p, "" when there is none (or several). */
static const char *val_of(const struct posted *p, unsigned int id)
{
	int i = find_id(p, id);

	return i >= 0 ? p->val[i] : (i == -2 ? "(twice)" : "");
}

/* 56 is the profile the last successful SET_POWER_PROFILE set, on tick 0 only. */
static int metrics_profile(void)
{
	struct posted p;
	int fd = vt_open_dev(0), ret;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(flush_to_tick(0, 0) == 0, "flush");
	VT_ASSERT(vt_fw_power(fd, 2) == 0, "profile 2");
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && p.id[2] == 56 && !strcmp(p.val[2], "2"), "tick 0: 56 = '%s'",
		  val_of(&p, 56));
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && find_id(&p, 56) == -1, "56 on tick 1");
	/* refused by firmware: the device still runs profile 2 */
	VT_ASSERT(vt_fw_power(fd, 9) == -EIO, "profile 9");
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 56), "2"), "after a refused set: 56 = '%s'",
		  val_of(&p, 56));
	VT_ASSERT(flush_to_tick(0, 0) == 0, "flush");
	VT_ASSERT(vt_fw_power(fd, 0) == 0, "profile 0");
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 56), "0"), "56 = '%s'", val_of(&p, 56));
	close(fd);
	return 0;
}

#define VER(type, maj, min, build) \
	((uint64_t)(type) << 48 | (uint64_t)(maj) << 40 | (uint64_t)(min) << 32 | (uint64_t)(build))

/* Claim a slab through @fd and write ND 0, 1, 2 (the versions) through its mapping. */
static int write_versions(int fd, uint64_t rt, uint64_t fw, uint64_t fal)
{
	struct neuron_nds_acquire q;
	volatile uint64_t *slab;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	if (ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return -errno;
	slab = mmap(NULL, q.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)q.mmap_offset);
	if (slab == MAP_FAILED)
		return -errno;
	slab[neuron_nds_nd_offset(NDS_ND_COUNTER_RUNTIME_VERSION) / 8] = rt;
	slab[neuron_nds_nd_offset(NDS_ND_COUNTER_FRAMEWORK_VERSION) / 8] = fw;
	slab[neuron_nds_nd_offset(NDS_ND_COUNTER_FAL_VERSION) / 8] = fal;
	/* the mapping goes; the slab stays the process's until its last close */
	munmap((void *)slab, q.mmap_size);
	return 0;
}

/*
 * Versions written by two live processes into their mapped slabs go out as
 * "major.minor.build" (the framework's type digit in the next id), the most
 * used first (equal counts: the higher version); those of a process that
 * exited go out with the next delivered post of their metric, also after
 * a failed post, and then no more.
 */
static int metrics_versions(void)
{
	const uint64_t rt_child = VER(0, 2, 25, 1000), fw_child = VER(13, 1, 13, 7);
	const uint64_t fal_child = VER(0, 1, 0, 2);
	const uint64_t rt_self = VER(0, 2, 24, 9), fw_self = VER(4, 0, 0, 0);
	int go[2], ready[2], fd, ret, st;
	struct posted p;
	char c = 0;
	pid_t pid;

	VT_ASSERT(pipe(go) == 0 && pipe(ready) == 0, "pipes");
	pid = fork();
	VT_ASSERT(pid >= 0, "fork");
	if (!pid) {
		int cfd = vt_open_dev(0);

		close(go[1]);
		close(ready[0]);
		c = cfd >= 0 && !write_versions(cfd, rt_child, fw_child, fal_child);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);	/* the last close: the slab is released */
	}
	close(go[0]);
	close(ready[1]);
	VT_ASSERT(read(ready[0], &c, 1) == 1 && c == 1, "the child did not write its versions");
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT((ret = write_versions(fd, rt_self, fw_self, 0)) == 0, "own versions: %s",
		  vt_err_name(ret));
	VT_ASSERT(flush_to_tick(0, 0) == 0, "flush");

	/* tick 0: the runtime's two, after 56 */
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	VT_ASSERT(p.n >= 5 && p.id[3] == 180 && !strcmp(p.val[3], "2.25.1000") &&
		  p.id[4] == 181 && !strcmp(p.val[4], "2.24.9"),
		  "tick 0: 180 '%s' 181 '%s'", val_of(&p, 180), val_of(&p, 181));
	VT_ASSERT(find_id(&p, 190) == -1 && find_id(&p, 195) == -1, "framework/FAL on tick 0");
	/* tick 1: 180, 181, the child's framework 1.13.7 type 3, ours type 4 alone, FAL */
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	VT_ASSERT(p.n >= 8 && p.id[2] == 180 && p.id[3] == 181 && p.id[4] == 190 &&
		  p.id[5] == 191 && p.id[6] == 193 && p.id[7] == 195,
		  "tick 1 ids %u %u %u %u %u %u", p.id[2], p.id[3], p.id[4], p.id[5], p.id[6],
		  p.id[7]);
	VT_ASSERT(!strcmp(p.val[4], "1.13.7") && !strcmp(p.val[5], "3") && !strcmp(p.val[6], "4") &&
		  !strcmp(p.val[7], "1.0.2") && find_id(&p, 192) == -1 && find_id(&p, 196) == -1,
		  "190 '%s' 191 '%s' 193 '%s' 195 '%s'", p.val[4], p.val[5], p.val[6], p.val[7]);

	/* the child exits; the next post (tick 0) fails: nothing of it is lost */
	VT_ASSERT(write(go[1], &c, 1) == 1, "go");
	VT_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st), "child %#x",
		  st);
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "fail 0") == 0, "arm");
	VT_ASSERT(post_now(0) == -EIO, "failed post");
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "none") == 0, "disarm");
	/* tick 1: the exited child's versions still go out, with ours */
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	VT_ASSERT(!strcmp(val_of(&p, 180), "2.25.1000") && !strcmp(val_of(&p, 181), "2.24.9") &&
		  !strcmp(val_of(&p, 190), "1.13.7") && !strcmp(val_of(&p, 191), "3") &&
		  !strcmp(val_of(&p, 193), "4") && !strcmp(val_of(&p, 195), "1.0.2"),
		  "after the exit: 180 '%s' 181 '%s' 190 '%s' 195 '%s'", val_of(&p, 180),
		  val_of(&p, 181), val_of(&p, 190), val_of(&p, 195));
	/* delivered: from now on only ours */
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 180), "2.24.9") && find_id(&p, 181) == -1,
		  "tick 0 after delivery: 180 '%s' 181 '%s'", val_of(&p, 180), val_of(&p, 181));
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 191), "4") && find_id(&p, 190) == -1 &&
		  find_id(&p, 192) == -1 && find_id(&p, 195) == -1,
		  "tick 1 after delivery: 190 '%s' 191 '%s' 195 '%s'", val_of(&p, 190),
		  val_of(&p, 191), val_of(&p, 195));
	/* we exit too (our last close): ours go out once more, then none */
	close(fd);
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 180), "2.24.9"), "after our close: 180 '%s'",
		  val_of(&p, 180));
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && find_id(&p, 180) == -1, "180 '%s' twice", val_of(&p, 180));
	close(go[1]);
	close(ready[0]);
	return 0;
}

/*
 * 50..55 on every tick 1: the device resets since the last delivered tick 1
 * (max and average ms, failures); no NeuronCore-level reset: 51, 53, 55 are
 * 0. A failed post loses none of it; once delivered the window restarts.
 */
static int metrics_reset_window(void)
{
	const char *reset = "/sys/devices/virtual/neuron_device/neuron0/reset";
	uint64_t t0, wall_ms = 0;
	struct posted p;
	int k, ret;

	VT_ASSERT(flush_to_tick(0, 1) == 0, "flush");
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 50), "0") && !strcmp(val_of(&p, 54), "0"),
		  "tick 1 without resets: 50 '%s' 54 '%s'", val_of(&p, 50), val_of(&p, 54));
	/* two resets, one that fails (the device is INVALID until the next one) */
	for (k = 0; k < 3; k++) {
		if (k == 1)
			VT_ASSERT(vt_dbg_write(0, "inject/reset_fail", "1") == 0, "arm reset_fail");
		t0 = vt_now_ns();
		ret = vt_write_file(reset, "1");
		VT_ASSERT(ret == (k == 1 ? -EIO : 0), "reset %d: %s", k, vt_err_name(ret));
		if ((vt_now_ns() - t0) / 1000000 + 1 > wall_ms)
			wall_ms = (vt_now_ns() - t0) / 1000000 + 1;
	}
	VT_ASSERT(post_now(0) == 0, "tick 0");
	/* the tick-1 post fails: the window waits */
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "fail 0") == 0, "arm");
	VT_ASSERT(post_now(0) == -EIO, "failed post");
	VT_ASSERT(vt_dbg_write(0, "fw/fault", "none") == 0, "disarm");
	VT_ASSERT(post_now(0) == 0, "tick 0");
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0, "post: %s", vt_err_name(ret));
	VT_ASSERT(find_id(&p, 50) >= 0 && strtoull(val_of(&p, 50), NULL, 10) <= wall_ms &&
		  strtoull(val_of(&p, 52), NULL, 10) <= strtoull(val_of(&p, 50), NULL, 10),
		  "50 '%s' 52 '%s' (resets took at most %" PRIu64 " ms)", val_of(&p, 50),
		  val_of(&p, 52), wall_ms);
	VT_ASSERT(!strcmp(val_of(&p, 54), "1"), "54 '%s', expected 1 failure", val_of(&p, 54));
	VT_ASSERT(!strcmp(val_of(&p, 51), "0") && !strcmp(val_of(&p, 53), "0") &&
		  !strcmp(val_of(&p, 55), "0"), "NeuronCore resets: 51 '%s' 53 '%s' 55 '%s'",
		  val_of(&p, 51), val_of(&p, 53), val_of(&p, 55));
	/* delivered: the next window is empty */
	VT_ASSERT(post_now(0) == 0, "tick 0");
	ret = post_and_read_all(0, &p);
	VT_ASSERT(ret == 0 && !strcmp(val_of(&p, 50), "0") && !strcmp(val_of(&p, 52), "0") &&
		  !strcmp(val_of(&p, 54), "0"), "next window: 50 '%s' 52 '%s' 54 '%s'",
		  val_of(&p, 50), val_of(&p, 52), val_of(&p, 54));
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(read_misc_words),
		VT_CASE(read_sixteen_and_bad_addresses),
		VT_CASE(ioctl_validation),
		VT_CASE(power_profile),
		VT_CASE(faults_at_fw_read),
		VT_CASE(faults_at_power_profile),
		VT_CASE(fault_count_consumed),
		VT_CASE(api_too_old),
		VT_CASE(sequence_wraps),
		VT_CASE(hung_firmware_two_callers),
		VT_CASE(killed_caller_exits),
		VT_CASE(metrics_constants_only),
		VT_CASE(metrics_fw_io_errors),
		VT_CASE(metrics_counter_deltas),
		VT_CASE(metrics_one_blob_per_tick),
		VT_CASE(metrics_failed_post_carries_over),
		VT_CASE(metrics_profile),
		VT_CASE(metrics_versions),
		VT_CASE(metrics_reset_window),
	};

	T_MS = param("fwio_timeout_ms");
	ATTEMPTS = param("fwio_retries");
	if (!T_MS || !ATTEMPTS) {
		printf("not ok 1 - fwio/params: cannot read the FW-IO module parameters\n");
		return 1;
	}
	return vt_run("fwio", cases, VT_COUNT(cases));
}
