// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A failed module load never leaves a file open on the module being freed.
 *
 * The module's devices appear one by one while its init runs; init may
 * still fail after /dev/neuron0 exists, and the module's memory is freed
 * when it does. The driver refuses opens (EAGAIN) until init has
 * succeeded. This program proves it with the kernel's own fault injection:
 *
 *   1. calibrate: load with a fail-nth countdown that never reaches zero;
 *      the module's debugfs init_fail_nth says where its init began, the
 *      countdown left after the load where everything ended;
 *   2. sweep: load again and again (sim_devices=DEVICES, 16 unless the
 *      third argument says less) with fail-nth aimed
 *      at evenly spaced allocations inside init (slab allocations that
 *      may sleep count: failslab's ignore-gfp-wait is off), while a second
 *      thread keeps opening /dev/neuron0 and holding what it gets.
 *
 * A load that failed must fail with ENOMEM, log init's failure, leave no
 * module, node, class entry or debugfs directory behind, and no open begun
 * during it may have succeeded; some failed loads must have had the node
 * refuse an open (the window existed).
 *
 *   3. new_device: with the module loaded and no device, the same sweep
 *      over the fault points of one write to the neuron_sim bus's
 *      new_device, while a second thread keeps opening the device being
 *      created, takes a slab and counts through the ioctl. A write that
 *      failed must fail with ENOMEM and leave no bus device, node, class
 *      entry or debugfs directory; every call of the user answers or
 *      fails with ENODEV; some failures must have had the node open to it.
 *
 * Needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB (the debug kernel); the
 * shell suite runs it there.
 *
 * usage: vm_failinit MODULE.ko [STEPS]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/syscall.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>

#include "vmtest.h"

/* the loads' parameters: ndev devices (sim_devices), no periodic post */
static char devices_params[64];
#define FAILSLAB	"/sys/kernel/debug/failslab"
#define FAIL_USERCOPY	"/sys/kernel/debug/fail_usercopy"
#define INIT_NTH	"/sys/kernel/debug/neuron/init_fail_nth"
#define NEVER		1000000000u	/* a countdown that does not end in one load */

static const char *ko_path;
static unsigned int steps = 16;
/* devices per load (argv[3], 1..16): fault points of init grow with them */
static unsigned int ndev = 16;

/* the calibration: countdown consumed by the loader, and by init and after */
static unsigned int loader_calls, init_calls;

/*
 * The sweep and its opener thread. @gen is odd while a load runs (the
 * main thread adds 1 before and after each); the opener reads it before
 * each open and, when the attempt is over, stores what it read in
 * @done_gen, so once @done_gen has passed a load's generation every open
 * begun during that load has finished and been counted.
 */
static atomic_int stop_opener;
static atomic_uint gen, done_gen;
static atomic_uint began_in_load;	/* the load during which a successful open began */
static atomic_ulong step_refused;	/* EAGAIN answers during the current load */
static atomic_ulong refused, absent, opened;

#define FAIL_NTH	"/proc/thread-self/fail-nth"

static int set_fail_nth(unsigned int n)
{
	return vt_writef(FAIL_NTH, "%u", n);
}

/* finit_module(2) of the module with @params: 0 or -errno */
static int load(const char *params)
{
	int fd = open(ko_path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		ret = -errno;
	close(fd);
	return ret;
}

/* delete_module(2); a file the opener holds makes it EAGAIN for a moment */
static int unload(void)
{
	uint64_t end = vt_now_ms() + 30000;

	while (syscall(SYS_delete_module, "neuron", O_NONBLOCK)) {
		if ((errno != EAGAIN && errno != EBUSY) || vt_now_ms() > end)
			return -errno;
		vt_pace_ms(2);
	}
	return 0;
}

static int module_listed(void)
{
	char line[256];
	FILE *f = fopen("/proc/modules", "re");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "neuron ", 7);
	fclose(f);
	return found;
}

/* How many of /dev/neuron0..15 exist. */
static int devices_present(void)
{
	char path[32];
	int i, n = 0;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/dev/neuron%d", i);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* Keep opening /dev/neuron0; hold what opens while asking GET_INFO. */
static void *opener(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_opener)) {
		unsigned int g = atomic_load(&gen);
		int fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN) {
				atomic_fetch_add(&absent, 1);
			} else {
				atomic_fetch_add(&refused, 1);
				if (g & 1)
					atomic_fetch_add(&step_refused, 1);
			}
		} else {
			struct neuron_info info;

			if (g & 1)
				atomic_store(&began_in_load, g);
			atomic_fetch_add(&opened, 1);
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			(void)ioctl(fd, NEURON_IOCTL_GET_INFO, &info);
			close(fd);
		}
		atomic_store(&done_gen, g);
	}
	return NULL;
}

/* Wait (bounded) until every open begun before generation @g is over. */
static int opener_caught_up(unsigned int g)
{
	uint64_t end = vt_now_ms() + 10000;

	while (atomic_load(&done_gen) < g) {
		if (vt_now_ms() > end)
			return -1;
		vt_pace_ms(1);
	}
	return 0;
}

/* "neuron: init failed" lines in the kernel log, -1 if it cannot be read. */
static int init_failures_logged(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n, count = 0;
	char *buf, *p;

	if (size <= 0)
		return -1;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, "neuron: init failed: ")); p++)
		count++;
	free(buf);
	return count;
}

static int knobs(void)
{
	/* slab allocations that may sleep count; nothing printed per failure */
	VT_ASSERT(vt_write_file(FAILSLAB "/ignore-gfp-wait", "N") == 0, "failslab ignore-gfp-wait");
	VT_ASSERT(vt_write_file(FAILSLAB "/verbose", "0") == 0, "failslab verbose");
	/*
	 * fail-nth counts user copies too: a countdown a load did not use up
	 * fails the thread's next copy (its own write of fail-nth), which
	 * fail_usercopy reports with a stack trace unless quiet (seen on the
	 * debug kernel). Quiet, where the kernel has it.
	 */
	if (access(FAIL_USERCOPY "/verbose", W_OK) == 0)
		VT_ASSERT(vt_write_file(FAIL_USERCOPY "/verbose", "0") == 0, "fail_usercopy verbose");
	VT_ASSERT(module_listed() == 0, "the module is loaded already");
	return 0;
}

static int calibrate(void)
{
	uint64_t left, at_init;

	VT_ASSERT(set_fail_nth(NEVER) == 0, "fail-nth: %s", strerror(errno));
	int ret = load(devices_params);

	vt_read_u64(FAIL_NTH, &left);
	set_fail_nth(0);
	VT_ASSERT(ret == 0, "load without a failure: %s", strerror(-ret));
	VT_ASSERT(vt_read_u64(INIT_NTH, &at_init) == 0, "no %s", INIT_NTH);
	VT_ASSERT(unload() == 0, "unload: %s", strerror(errno));
	VT_ASSERT(left > 0 && at_init <= NEVER && left < at_init,
		  "countdown %u, %" PRIu64 " at init, %" PRIu64 " left", NEVER, at_init, left);
	loader_calls = NEVER - (unsigned int)at_init;
	init_calls = (unsigned int)(at_init - left);
	printf("# calibrate: loader %u fault points, init and after %u\n", loader_calls,
	       init_calls);
	/* the devices with their sysfs trees: thousands of allocations */
	VT_ASSERT(init_calls > ndev * 20, "only %u fault points in init", init_calls);
	return 0;
}

/*
 * One load with fault point @nth failing: 0 if it loaded (and was checked
 * whole and unloaded), 1 if it failed as it must, -1 (vt_msg set) on a
 * violation. @in_window is raised when the node refused an open during a
 * failed load.
 */
static int load_failing_at(unsigned int k, unsigned int nth, unsigned int *in_window)
{
	unsigned int g;
	int ret;

	atomic_store(&step_refused, 0);
	g = atomic_fetch_add(&gen, 1) + 1;	/* odd: loading */
	if (set_fail_nth(nth)) {
		snprintf(vt_msg, sizeof(vt_msg), "fail-nth %u: %s", nth, strerror(errno));
		return -1;
	}
	ret = load(devices_params);
	set_fail_nth(0);
	atomic_fetch_add(&gen, 1);
	if (opener_caught_up(g + 1)) {
		snprintf(vt_msg, sizeof(vt_msg), "step %u: an open did not return in 10 s", k);
		return -1;
	}
	if (ret == 0) {
		/*
		 * The failure was one init tolerates (a debugfs file, a
		 * kvmalloc that falls back to vmalloc, a uevent, the debug
		 * kernel's own kmemleak or debugobjects bookkeeping) or came
		 * after init: the module must then be whole.
		 */
		if (devices_present() != (int)ndev) {
			snprintf(vt_msg, sizeof(vt_msg),
				 "step %u (fail-nth %u): loaded with %d of %u devices", k, nth,
				 devices_present(), ndev);
			(void)unload();	/* for the suites after this one */
			return -1;
		}
		if (unload()) {
			snprintf(vt_msg, sizeof(vt_msg), "step %u: unload: %s", k, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (atomic_load(&step_refused))
		(*in_window)++;	/* the node existed during this failed load */
	if (atomic_load(&began_in_load) == g) {
		snprintf(vt_msg, sizeof(vt_msg),
			 "step %u (fail-nth %u): /dev/neuron0 opened during a load that failed (%s)",
			 k, nth, strerror(-ret));
		return -1;
	}
	if (ret != -ENOMEM) {
		snprintf(vt_msg, sizeof(vt_msg),
			 "step %u (fail-nth %u): an allocation failure made the load fail with %s",
			 k, nth, strerror(-ret));
		return -1;
	}
	if (module_listed() != 0) {
		snprintf(vt_msg, sizeof(vt_msg), "step %u: module listed after a failed load", k);
		return -1;
	}
	if (access("/dev/neuron0", F_OK) == 0 ||
	    access("/sys/class/neuron_device/neuron0", F_OK) == 0 ||
	    access("/sys/kernel/debug/neuron", F_OK) == 0) {
		snprintf(vt_msg, sizeof(vt_msg),
			 "step %u: node, class entry or debugfs left after a failed load", k);
		return -1;
	}
	return 1;
}

/*
 * Loads tried per step: the step's fault point and the ones after it, until
 * a load fails. On the debug kernel about half of init's fault points are
 * the checkers' own bookkeeping (kmemleak's object for each allocation,
 * debugobjects' pool), whose failure init never sees; which half a fixed
 * point lands on shifts from run to run, so one try per step could miss on
 * most steps (CI once saw 2 failures in 16). 00_module.sh's time bound
 * counts on 6.
 */
#define TRIES	6

static int sweep(void)
{
	unsigned int k, failed = 0, loaded = 0, in_window = 0;
	int bad = 0, logged0 = init_failures_logged(), logged1;
	pthread_t th;

	VT_ASSERT(logged0 >= 0, "cannot read the kernel log: %s", strerror(errno));
	atomic_store(&stop_opener, 0);
	VT_ASSERT(pthread_create(&th, NULL, opener, NULL) == 0, "thread");
	for (k = 0; k < steps && !bad; k++) {
		/*
		 * From init's first fault points to its last; a margin of 8
		 * at the start (the loader's count varies by one or two) and
		 * of 8 plus the tries at the end.
		 */
		unsigned int nth = loader_calls + 8 +
				   (unsigned int)((uint64_t)k * (init_calls - 16 - TRIES) /
						  (steps - 1));
		unsigned int t;
		int r = 0;

		for (t = 0; t < TRIES; t++) {
			r = load_failing_at(k, nth + t, &in_window);
			if (r < 0)
				bad = 1;
			if (r)
				break;
			loaded++;
		}
		if (r > 0)
			failed++;
		printf("# step %u: fail-nth %u..%u, %s\n", k, nth, nth + (t < TRIES ? t : TRIES - 1),
		       r > 0 ? "failed with ENOMEM" : r < 0 ? "violation" : "every load whole");
		fflush(stdout);
	}
	atomic_store(&stop_opener, 1);
	pthread_join(th, NULL);
	logged1 = init_failures_logged();
	printf("# sweep: %u steps, %u failed with ENOMEM (%u of them refused an open), %u loaded; init logged %d failures; opener: %lu refused (EAGAIN), %lu opened, %lu absent\n",
	       k, failed, in_window, loaded, logged1 - logged0, atomic_load(&refused),
	       atomic_load(&opened), atomic_load(&absent));
	if (bad)
		return -1;
	/*
	 * The aim held: loads failed inside the module's init, each logging
	 * it (some stretches of init only make allocations it may lose, so
	 * not every step fails), and in some of them /dev/neuron0 existed and
	 * refused an open: the window the fix closes was there.
	 */
	VT_ASSERT(failed >= steps / 2, "only %u of %u steps had a load fail", failed, steps);
	VT_ASSERT(logged1 - logged0 == (int)failed, "%u loads failed, init logged %d failures",
		  failed, logged1 - logged0);
	VT_ASSERT(in_window >= 1, "no failed load had /dev/neuron0 refuse an open");
	return 0;
}

/* After the sweep the module loads and works. */
static int loads_after(void)
{
	int ret = load(devices_params), fd;

	VT_ASSERT(ret == 0, "load: %s", strerror(-ret));
	fd = open("/dev/neuron0", O_RDWR | O_CLOEXEC);
	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	close(fd);
	VT_ASSERT(unload() == 0, "unload: %s", strerror(errno));
	return 0;
}

/* ---- new_device: a creation that fails while a process uses the node ---- */

#define ND_PARAMS	"sim_devices=0 nmetric_post_delay_ms=86400000"
#define ND_BUS		"/sys/bus/neuron_sim"
#define ND_ID		5

static unsigned int nd_calls;	/* fault points of one new_device write */
static atomic_ulong nd_opened, nd_bad;
static atomic_uint nd_opened_in;	/* the write generation an open succeeded in */
static char nd_bad_msg[160];

/* One of /dev/neuron0..3, whichever exists (a failed device's index is held by open files). */
static int nd_open_any(void)
{
	char path[32];
	int i, fd;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/dev/neuron%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

static void nd_note_bad(const char *what, int err)
{
	if (atomic_fetch_add(&nd_bad, 1) == 0)
		snprintf(nd_bad_msg, sizeof(nd_bad_msg), "%s: %s", what, strerror(err));
}

/*
 * Keep opening the device being created; through what opens, take a slab,
 * count through the ioctl until the device is gone, then close. Every call
 * either works or answers ENODEV (the device failed or went away).
 */
static void *nd_user(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_opener)) {
		unsigned int g = atomic_load(&gen);
		struct neuron_nds_acquire q;
		struct neuron_nds_counter_add a;
		int fd = nd_open_any(), i;

		if (fd < 0) {
			atomic_store(&done_gen, g);
			continue;
		}
		if (g & 1)
			atomic_store(&nd_opened_in, g);
		atomic_fetch_add(&nd_opened, 1);
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		if (ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) && errno != ENODEV)
			nd_note_bad("NDS_ACQUIRE", errno);
		for (i = 0; i < 200; i++) {
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.id = NDS_NC_COUNTER_ERR_HW;
			a.delta = 1;
			if (!ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
				continue;
			if (errno != ENODEV && errno != ENOENT)
				nd_note_bad("NDS_COUNTER_ADD", errno);
			break;
		}
		if (close(fd))
			nd_note_bad("close", errno);
		atomic_store(&done_gen, g);
	}
	return NULL;
}

static int nd_write(const char *file, const char *text)
{
	return vt_write_file(file, text);
}

static int new_device_calibrate(void)
{
	uint64_t left;
	int ret;

	ret = load(ND_PARAMS);
	VT_ASSERT(ret == 0, "load: %s", strerror(-ret));
	VT_ASSERT(set_fail_nth(NEVER) == 0, "fail-nth: %s", strerror(errno));
	ret = nd_write(ND_BUS "/new_device", "5 2");
	vt_read_u64(FAIL_NTH, &left);
	set_fail_nth(0);
	VT_ASSERT(ret == 0, "new_device without a failure: %s", strerror(-ret));
	VT_ASSERT(nd_write(ND_BUS "/del_device", "5") == 0, "del_device");
	VT_ASSERT(left < NEVER, "countdown %" PRIu64 " left", left);
	nd_calls = NEVER - (unsigned int)left;
	printf("# new_device: %u fault points in one write\n", nd_calls);
	VT_ASSERT(nd_calls > 100, "only %u fault points in new_device", nd_calls);
	return 0;
}

/*
 * One new_device write with fault point @nth failing, another thread using
 * the node meanwhile: 0 if the device came up (whole; removed again), 1 if
 * the write failed as it must (ENOMEM, nothing left behind), -1 on a
 * violation (vt_msg set).
 */
static int new_device_failing_at(unsigned int k, unsigned int nth, unsigned int *in_window)
{
	char path[64];
	unsigned int g;
	int ret;

	g = atomic_fetch_add(&gen, 1) + 1;	/* odd: creating */
	if (set_fail_nth(nth)) {
		snprintf(vt_msg, sizeof(vt_msg), "fail-nth %u: %s", nth, strerror(errno));
		return -1;
	}
	ret = nd_write(ND_BUS "/new_device", "5 2");
	set_fail_nth(0);
	atomic_fetch_add(&gen, 1);
	if (opener_caught_up(g + 1)) {
		snprintf(vt_msg, sizeof(vt_msg), "step %u: the user did not return in 10 s", k);
		return -1;
	}
	snprintf(path, sizeof(path), ND_BUS "/devices/neuron_sim%d", ND_ID);
	if (ret == 0) {
		/* a failure the creation tolerates: the device must be whole */
		if (access(path, F_OK) || devices_present() != 1) {
			snprintf(vt_msg, sizeof(vt_msg), "step %u (fail-nth %u): created, but not whole",
				 k, nth);
			return -1;
		}
		if (nd_write(ND_BUS "/del_device", "5")) {
			snprintf(vt_msg, sizeof(vt_msg), "step %u: del_device failed", k);
			return -1;
		}
		return 0;
	}
	if (ret != -ENOMEM) {
		snprintf(vt_msg, sizeof(vt_msg), "step %u (fail-nth %u): new_device failed with %s",
			 k, nth, strerror(-ret));
		return -1;
	}
	if (atomic_load(&nd_opened_in) == g)
		(*in_window)++;	/* the node was open to the user during this failure */
	if (access(path, F_OK) == 0 || devices_present() != 0 ||
	    access("/sys/class/neuron_device/neuron0", F_OK) == 0 ||
	    access("/sys/kernel/debug/neuron/neuron0", F_OK) == 0) {
		snprintf(vt_msg, sizeof(vt_msg),
			 "step %u (fail-nth %u): bus device, node, class entry or debugfs left after a failed new_device",
			 k, nth);
		return -1;
	}
	return 1;
}

static int new_device_sweep(void)
{
	unsigned int k, failed = 0, created = 0, in_window = 0;
	int bad = 0, ret;
	pthread_t th;

	atomic_store(&stop_opener, 0);
	VT_ASSERT(pthread_create(&th, NULL, nd_user, NULL) == 0, "thread");
	for (k = 0; k < steps && !bad; k++) {
		unsigned int nth = 1 + (unsigned int)((uint64_t)k * (nd_calls - 1 - TRIES) /
						      (steps - 1));
		unsigned int t;
		int r = 0;

		for (t = 0; t < TRIES; t++) {
			r = new_device_failing_at(k, nth + t, &in_window);
			if (r < 0)
				bad = 1;
			if (r)
				break;
			created++;
		}
		if (r > 0)
			failed++;
		printf("# new_device step %u: fail-nth %u..%u, %s\n", k, nth,
		       nth + (t < TRIES ? t : TRIES - 1),
		       r > 0 ? "failed with ENOMEM" : r < 0 ? "violation" : "every device whole");
		fflush(stdout);
	}
	atomic_store(&stop_opener, 1);
	pthread_join(th, NULL);
	printf("# new_device sweep: %u steps, %u failed with ENOMEM (%u with the node open to the user), %u created; user: %lu opens, %lu bad answers\n",
	       k, failed, in_window, created, atomic_load(&nd_opened), atomic_load(&nd_bad));
	ret = unload();
	if (bad)
		return -1;
	VT_ASSERT(atomic_load(&nd_bad) == 0, "%lu calls on a failing device answered other than ENODEV (first: %s)",
		  atomic_load(&nd_bad), nd_bad_msg);
	VT_ASSERT(ret == 0, "unload: %s", strerror(-ret));
	VT_ASSERT(failed >= steps / 2, "only %u of %u steps had new_device fail", failed, steps);
	VT_ASSERT(in_window >= 1, "no failed new_device had the node open to the user");
	return 0;
}


int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		VT_CASE(knobs),
		VT_CASE(calibrate),
		VT_CASE(sweep),
		VT_CASE(loads_after),
		VT_CASE(new_device_calibrate),
		VT_CASE(new_device_sweep),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s MODULE.ko [STEPS [DEVICES]]\n", argv[0]);
		return 2;
	}
	ko_path = argv[1];
	if (argc > 2)
		steps = (unsigned int)strtoul(argv[2], NULL, 10);
	if (steps < 2)
		steps = 2;
	if (argc > 3)
		ndev = (unsigned int)strtoul(argv[3], NULL, 10);
	if (ndev < 1 || ndev > 16) {
		fprintf(stderr, "%s: DEVICES must be 1..16\n", argv[0]);
		return 2;
	}
	snprintf(devices_params, sizeof(devices_params),
		 "sim_devices=%u nmetric_post_delay_ms=86400000", ndev);
	return vt_run("failinit", cases, VT_COUNT(cases));
}
