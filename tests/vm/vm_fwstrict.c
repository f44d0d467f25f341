// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the PCI backend's FW-IO paths against the strict simulated
 * firmware (31_fwstrict.sh). Usage: vm_fwstrict <v2 N> <v3 N> <v4 N>, the
 * /dev/neuron<N> of a strict device of each architecture, created with
 * new_device "<id> <nc> v2|v3|v4" under sim_fw_time_div=D (read here: every
 * time of the vendor's contract is divided by D).
 *
 * Each case drives the same core functions a PCI device uses (the
 * architecture's row of common/neuron_fw_profile.c, the register-only and the
 * legacy host-memory transports) through the public interfaces: ioctl
 * results, sysfs stats/fw_io/, the firmware's own counters (fw/sim_stats),
 * fw/posted, wall time.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <neuron/neuron_ioctl.h>

#include "vmdev.h"

/* a delayed answer rides a jiffy timer: it may land up to a jiffy early */
#define JIFFY_MS 10

static int V2, V3, V4;		/* device indexes */
static unsigned int DIV;	/* sim_fw_time_div */

/* Wait (1 ms steps, at most @bound_ms) until the delayed answer was delivered. */
static int wait_slow_done(int dev, uint64_t before, unsigned int bound_ms)
{
	uint64_t end = vt_now_ms() + bound_ms;

	while (vt_dbg_kv(dev, "fw/sim_stats", "slow_done") <= before ||
	       vt_dbg_kv(dev, "fw/sim_stats", "slow_pending") != 0) {
		if (vt_now_ms() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* The contract's times on these devices, ms. */
#define READ_T_MS	(1000 / DIV)
#define POWER_T_MS	(60000 / DIV)
#define STRICT_POWER_MS	(1500 / DIV)	/* the strict firmware's power-profile time */

/* v2: READ over the legacy host-memory path; nothing else moves. */
static int v2_read_is_legacy(void)
{
	struct vt_fw_counts a, b;
	uint32_t v = 0;
	int fd = vt_open_dev(V2), ret;

	VT_ASSERT(fd >= 0, "open");
	a = vt_fw_counts(V2);
	ret = vt_fw_read1(fd, 0x000, &v);
	b = vt_fw_counts(V2);
	close(fd);
	VT_ASSERT(ret == 0 && v == 7, "FW_READ: %s, value %u", vt_err_name(ret), v);
	VT_ASSERT(b.requests == a.requests + 1 && b.legacy == a.legacy + 1,
		  "requests +%" PRIu64 ", legacy +%" PRIu64, b.requests - a.requests,
		  b.legacy - a.legacy);
	VT_ASSERT(b.err == a.err && b.tmo == a.tmo && b.rewrites == a.rewrites, "counters moved");
	return 0;
}

/* v2: the metrics post is legacy too, and reaches the firmware. */
static int v2_post_is_legacy(void)
{
	struct vt_fw_counts a, b;
	char buf[4096];
	int ret;

	VT_ASSERT(vt_dbg_write(V2, "fw/posted", "x") == 0, "clear posted");
	a = vt_fw_counts(V2);
	ret = vt_dbg_write(V2, "fw/post_now", "1");
	b = vt_fw_counts(V2);
	VT_ASSERT(ret == 0, "post_now: %s", vt_err_name(ret));
	VT_ASSERT(b.requests > a.requests && b.legacy - a.legacy == b.requests - a.requests,
		  "requests +%" PRIu64 ", legacy +%" PRIu64, b.requests - a.requests,
		  b.legacy - a.legacy);
	VT_ASSERT(vt_dbg_read(V2, "fw/posted", buf, sizeof(buf)) == 0 && strstr(buf, "12 sim\n"),
		  "posted: '%s'", buf);
	return 0;
}

/* v2: the vendor has no power-profile exchange on v2: nothing is sent. */
static int v2_no_power_profile(void)
{
	struct vt_fw_counts a, b;
	int fd = vt_open_dev(V2), ret;

	VT_ASSERT(fd >= 0, "open");
	a = vt_fw_counts(V2);
	ret = vt_fw_power(fd, 1);
	b = vt_fw_counts(V2);
	close(fd);
	VT_ASSERT(ret == -EOPNOTSUPP, "power profile: %s, expected EOPNOTSUPP", vt_err_name(ret));
	VT_ASSERT(b.requests == a.requests, "a request reached the firmware");
	return 0;
}

/* v2: READ makes the vendor's 30 attempts (not fwio_retries). */
static int v2_read_attempts(void)
{
	struct vt_fw_counts a, b;
	uint32_t v;
	int fd = vt_open_dev(V2), ret;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(vt_dbg_write(V2, "fw/fault", "fail 0") == 0, "arm");
	a = vt_fw_counts(V2);
	ret = vt_fw_read1(fd, 0x000, &v);
	b = vt_fw_counts(V2);
	VT_ASSERT(vt_dbg_write(V2, "fw/fault", "none") == 0, "clear");
	close(fd);
	VT_ASSERT(ret == -EIO, "FW_READ: %s, expected EIO", vt_err_name(ret));
	VT_ASSERT(b.err - a.err == 30 && b.requests - a.requests == 30,
		  "err +%" PRIu64 ", requests +%" PRIu64 ", expected 30", b.err - a.err,
		  b.requests - a.requests);
	return 0;
}

/*
 * v3: the power profile over the register-only path, 60 s (scaled) per
 * attempt: the firmware's 1.5 s (scaled) is no timeout, no second doorbell.
 */
static int v3_power_takes_its_time(void)
{
	struct vt_fw_counts a, b;
	uint64_t t0, ms;
	int fd = vt_open_dev(V3), ret;

	VT_ASSERT(fd >= 0, "open");
	a = vt_fw_counts(V3);
	t0 = vt_now_ms();
	ret = vt_fw_power(fd, 2);
	ms = vt_now_ms() - t0;
	b = vt_fw_counts(V3);
	close(fd);
	VT_ASSERT(ret == 0, "power profile: %s", vt_err_name(ret));
	VT_ASSERT(vt_dbg_kv(V3, "fw/sim_stats", "power_profile") == 2, "not applied");
	VT_ASSERT(ms + JIFFY_MS >= STRICT_POWER_MS, "took %" PRIu64 " ms, firmware takes %u",
		  ms, STRICT_POWER_MS);
	VT_ASSERT(b.requests == a.requests + 1 && b.legacy == a.legacy, "requests +%" PRIu64
		  " legacy +%" PRIu64, b.requests - a.requests, b.legacy - a.legacy);
	VT_ASSERT(b.tmo == a.tmo && b.rewrites == a.rewrites, "timeouts +%" PRIu64
		  " rewrites +%" PRIu64, b.tmo - a.tmo, b.rewrites - a.rewrites);
	return 0;
}

/* v3 and v4: READ and POST go legacy; the power profile makes 3 attempts. */
static int v3_v4_read_legacy_power_attempts(void)
{
	int devs[2] = { V3, V4 }, i;

	for (i = 0; i < 2; i++) {
		struct vt_fw_counts a, b;
		uint32_t v = 0;
		int fd = vt_open_dev(devs[i]), ret;

		VT_ASSERT(fd >= 0, "open");
		a = vt_fw_counts(devs[i]);
		ret = vt_fw_read1(fd, 0x03C, &v);
		b = vt_fw_counts(devs[i]);
		VT_ASSERT(ret == 0 && v == 0x4e53494d, "neuron%d FW_READ: %s, %#x", devs[i],
			  vt_err_name(ret), v);
		VT_ASSERT(b.legacy == a.legacy + 1, "neuron%d: not legacy", devs[i]);
		a = vt_fw_counts(devs[i]);
		ret = vt_dbg_write(devs[i], "fw/post_now", "1");
		b = vt_fw_counts(devs[i]);
		VT_ASSERT(ret == 0 && b.requests > a.requests &&
			  b.legacy - a.legacy == b.requests - a.requests,
			  "neuron%d post: %s, requests +%" PRIu64 ", legacy +%" PRIu64, devs[i],
			  vt_err_name(ret), b.requests - a.requests, b.legacy - a.legacy);
		VT_ASSERT(vt_dbg_write(devs[i], "fw/fault", "fail 0") == 0, "arm");
		a = vt_fw_counts(devs[i]);
		ret = vt_fw_power(fd, 1);
		b = vt_fw_counts(devs[i]);
		VT_ASSERT(vt_dbg_write(devs[i], "fw/fault", "none") == 0, "clear");
		close(fd);
		VT_ASSERT(ret == -EIO && b.err - a.err == 3 && b.requests - a.requests == 3,
			  "neuron%d power: %s, err +%" PRIu64 ", expected EIO after 3", devs[i],
			  vt_err_name(ret), b.err - a.err);
	}
	return 0;
}

/*
 * Response-size rules: the power profile ignores the size (the vendor
 * does), a legacy READ answer larger than the caller's buffer is an error
 * without retry, a POST answer up to the blob's length is fine.
 */
static int response_rules(void)
{
	struct vt_fw_counts a, b;
	uint32_t v;
	int fd = vt_open_dev(V3), ret;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(vt_dbg_write(V3, "fw/fault", "oversize 1") == 0, "arm");
	a = vt_fw_counts(V3);
	ret = vt_fw_power(fd, 1);
	b = vt_fw_counts(V3);
	VT_ASSERT(ret == 0 && b.tmo == a.tmo && b.requests == a.requests + 1,
		  "power with an oversized answer: %s, timeouts +%" PRIu64, vt_err_name(ret),
		  b.tmo - a.tmo);
	VT_ASSERT(vt_dbg_write(V3, "fw/fault", "oversize 1") == 0, "arm");
	a = vt_fw_counts(V3);
	ret = vt_fw_read1(fd, 0, &v);
	b = vt_fw_counts(V3);
	VT_ASSERT(vt_dbg_write(V3, "fw/fault", "none") == 0, "clear");
	close(fd);
	VT_ASSERT(ret == -EIO && b.requests == a.requests + 1 && b.tmo == a.tmo + 1,
		  "READ with an oversized answer: %s, requests +%" PRIu64, vt_err_name(ret),
		  b.requests - a.requests);
	/* a POST answer may carry up to the blob's length: accepted, not retried */
	VT_ASSERT(vt_dbg_write(V3, "fw/fault", "oversize 1") == 0, "arm");
	a = vt_fw_counts(V3);
	ret = vt_dbg_write(V3, "fw/post_now", "1");
	b = vt_fw_counts(V3);
	VT_ASSERT(vt_dbg_write(V3, "fw/fault", "none") == 0, "clear");
	VT_ASSERT(ret == 0 && b.tmo == a.tmo && b.requests == a.requests + 1,
		  "POST with a 4-byte answer: %s, timeouts +%" PRIu64 ", requests +%" PRIu64,
		  vt_err_name(ret), b.tmo - a.tmo, b.requests - a.requests);
	return 0;
}

/*
 * A late answer on the legacy path: the driver never withdraws the timed
 * out request; its next doorbells are refused while the firmware still
 * works on it; the late answer lands with the old sequence number, which
 * the driver ignores; the next request after it is served.
 */
static int legacy_stale_answer(void)
{
	unsigned int slow = 4 * READ_T_MS;
	struct vt_fw_counts a, b;
	char buf[32];
	uint32_t v = 0;
	int fd = vt_open_dev(V4), ret;

	VT_ASSERT(fd >= 0, "open");
	snprintf(buf, sizeof(buf), "%u", slow);
	VT_ASSERT(vt_dbg_write(V4, "fw/slow_ms", buf) == 0, "slow_ms");
	VT_ASSERT(vt_dbg_write(V4, "fw/fault", "slow 1") == 0, "arm");
	a = vt_fw_counts(V4);
	ret = vt_fw_read1(fd, 0x000, &v);
	VT_ASSERT(wait_slow_done(V4, a.slow_done, slow + 5000) == 0, "late answer never landed");
	b = vt_fw_counts(V4);
	close(fd);
	VT_ASSERT(ret == 0 && v == 7, "FW_READ: %s, value %u", vt_err_name(ret), v);
	VT_ASSERT(b.requests - a.requests == 2, "requests +%" PRIu64 ", expected 2",
		  b.requests - a.requests);
	VT_ASSERT(b.rewrites > a.rewrites && b.tmo > a.tmo, "rewrites +%" PRIu64
		  ", timeouts +%" PRIu64, b.rewrites - a.rewrites, b.tmo - a.tmo);
	VT_ASSERT(b.zero == 0 && b.err == a.err, "trigger_zero %" PRIu64, b.zero);
	return 0;
}

/*
 * The same on the register-only path (power profile): the late answer
 * clears TRIGGER with the old sequence number in 0x1F0, the driver sees
 * the mismatch and sends again.
 */
static int regs_stale_answer(void)
{
	unsigned int slow = POWER_T_MS + POWER_T_MS / 3;
	struct vt_fw_counts a, b;
	char buf[32];
	int fd = vt_open_dev(V4), ret;

	VT_ASSERT(fd >= 0, "open");
	snprintf(buf, sizeof(buf), "%u", slow);
	VT_ASSERT(vt_dbg_write(V4, "fw/slow_ms", buf) == 0, "slow_ms");
	VT_ASSERT(vt_dbg_write(V4, "fw/fault", "slow 1") == 0, "arm");
	a = vt_fw_counts(V4);
	ret = vt_fw_power(fd, 3);
	VT_ASSERT(wait_slow_done(V4, a.slow_done, slow + 5000) == 0, "late answer never landed");
	b = vt_fw_counts(V4);
	close(fd);
	VT_ASSERT(ret == 0, "power profile: %s", vt_err_name(ret));
	VT_ASSERT(b.requests - a.requests == 2, "requests +%" PRIu64 ", expected 2",
		  b.requests - a.requests);
	/* the timeout, then the sequence mismatch of the late answer */
	VT_ASSERT(b.tmo - a.tmo >= 2 && b.rewrites > a.rewrites, "timeouts +%" PRIu64
		  ", rewrites +%" PRIu64, b.tmo - a.tmo, b.rewrites - a.rewrites);
	VT_ASSERT(vt_dbg_kv(V4, "fw/sim_stats", "power_profile") == 3, "not applied");
	return 0;
}

/*
 * Each row's timeout and attempts, measured: a firmware that answers only
 * long after the whole exchange gave up. The first doorbell is taken, every
 * later one refused (strict), each attempt waits the row's full timeout:
 * READ 30 x 1 s, the power profile 3 x 60 s (divided by DIV).
 */
static int row_timeouts(void)
{
	struct {
		int dev;
		int power;		/* SET_POWER_PROFILE, else READ */
		unsigned int attempts, t_ms;
	} rows[2] = {
		{ V2, 0, 30, 0 },
		{ V3, 1, 3, 0 },
	};
	int i;

	rows[0].t_ms = READ_T_MS;
	rows[1].t_ms = POWER_T_MS;
	for (i = 0; i < 2; i++) {
		unsigned int budget = rows[i].attempts * rows[i].t_ms;
		/* the full budget, and not far beyond it (emulation slack) */
		unsigned int longest = budget + budget / 3 + 300;
		/*
		 * The late answer lands after the longest exchange accepted
		 * (the knob takes at most 10000 ms: DIV >= 25).
		 */
		unsigned int slow = longest + 100;
		struct vt_fw_counts a, b;
		uint64_t t0, ms;
		char buf[32];
		uint32_t v;
		int fd = vt_open_dev(rows[i].dev), ret;

		VT_ASSERT(fd >= 0, "open");
		snprintf(buf, sizeof(buf), "%u", slow);
		VT_ASSERT(vt_dbg_write(rows[i].dev, "fw/slow_ms", buf) == 0, "slow_ms %s", buf);
		VT_ASSERT(vt_dbg_write(rows[i].dev, "fw/fault", "slow 1") == 0, "arm");
		a = vt_fw_counts(rows[i].dev);
		t0 = vt_now_ms();
		ret = rows[i].power ? vt_fw_power(fd, 1) : vt_fw_read1(fd, 0, &v);
		ms = vt_now_ms() - t0;
		VT_ASSERT(wait_slow_done(rows[i].dev, a.slow_done, slow + 5000) == 0,
			  "late answer never landed");
		b = vt_fw_counts(rows[i].dev);
		close(fd);
		VT_ASSERT(ret == -ETIMEDOUT, "neuron%d: %s, expected ETIMEDOUT", rows[i].dev,
			  vt_err_name(ret));
		VT_ASSERT(b.tmo - a.tmo == rows[i].attempts && b.requests - a.requests == 1 &&
			  b.rewrites - a.rewrites == rows[i].attempts - 1,
			  "neuron%d: timeouts +%" PRIu64 ", requests +%" PRIu64 ", rewrites +%"
			  PRIu64 ", expected %u / 1 / %u", rows[i].dev, b.tmo - a.tmo,
			  b.requests - a.requests, b.rewrites - a.rewrites, rows[i].attempts,
			  rows[i].attempts - 1);
		printf("# neuron%d: gave up after %" PRIu64 " ms, budget %u ms\n", rows[i].dev, ms,
		       budget);
		VT_ASSERT(ms >= budget && ms <= longest,
			  "neuron%d: took %" PRIu64 " ms, budget %u ms", rows[i].dev, ms, budget);
	}
	return 0;
}

/* What the strict firmware saw overall: never a 0 in TRIGGER, nothing refused. */
static int contract_kept(void)
{
	int devs[3] = { V2, V3, V4 }, i;

	for (i = 0; i < 3; i++) {
		struct vt_fw_counts c = vt_fw_counts(devs[i]);

		VT_ASSERT(c.zero == 0, "neuron%d: %" PRIu64 " zero writes", devs[i], c.zero);
		VT_ASSERT(c.refused == 0, "neuron%d: %" PRIu64 " refused", devs[i], c.refused);
		VT_ASSERT(vt_dbg_kv(devs[i], "fw/sim_stats", "zero_seq") == 0, "seq 0 used");
	}
	/* v2 never saw the register-only mailbox */
	{
		struct vt_fw_counts c = vt_fw_counts(V2);

		VT_ASSERT(c.legacy == c.requests, "v2: %" PRIu64 " of %" PRIu64 " legacy",
			  c.legacy, c.requests);
	}
	return 0;
}

#define VT_CASE(fn) { #fn, fn }

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(v2_read_is_legacy),
		VT_CASE(v2_post_is_legacy),
		VT_CASE(v2_no_power_profile),
		VT_CASE(v2_read_attempts),
		VT_CASE(v3_power_takes_its_time),
		VT_CASE(v3_v4_read_legacy_power_attempts),
		VT_CASE(response_rules),
		VT_CASE(legacy_stale_answer),
		VT_CASE(regs_stale_answer),
		VT_CASE(row_timeouts),
		VT_CASE(contract_kept),
	};
	char buf[32];

	if (argc != 4) {
		fprintf(stderr, "usage: vm_fwstrict <v2 N> <v3 N> <v4 N>\n");
		return 2;
	}
	V2 = atoi(argv[1]);
	V3 = atoi(argv[2]);
	V4 = atoi(argv[3]);
	if (vt_read_file("/sys/module/neuron/parameters/sim_fw_time_div", buf, sizeof(buf)) ||
	    !(DIV = (unsigned int)strtoul(buf, NULL, 10))) {
		fprintf(stderr, "vm_fwstrict: cannot read sim_fw_time_div\n");
		return 2;
	}
	return vt_run("fwstrict", cases, sizeof(cases) / sizeof(cases[0]));
}
