// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: a seeded hostile-userspace fuzzer for neuron.ko (tests/vm/60_hostile.sh).
 *
 *   vm_hostile [--seed N] [--ops N] [--procs N] [--threads N] [--long]
 *
 * N worker processes x M threads share one budget of --ops operations
 * (children forked by workers included). Each operation is picked at random
 * from: ioctls on every command (valid structs, one field mutated, bad
 * pointers, random command numbers), mmap with valid and random cookies,
 * lengths, protections and flags, munmap / mremap / mprotect / madvise /
 * touching the mappings, open/close, reads and writes of every sysfs file
 * of the devices, every debugfs file of the module (not `warn`), the module
 * parameters, generic netlink requests with random commands, flags and
 * attributes, multicast joins, fork (the child runs a few operations,
 * then exits or SIGKILLs itself), and stale views (a read-only view of a
 * child's slab kept across the child's exit and the next claim, by a
 * process of a new pid namespace). The parent SIGKILLs random workers at
 * random points and forks them again, and removes and re-adds devices
 * while all of this runs when the module offers a run-time interface for
 * it (detected; skipped and said so otherwise).
 *
 * Reproducible: everything random derives from --seed (printed first): the
 * parent's choices from the seed, worker i of generation g from (seed, i,
 * g), its thread t from that, a forked child from its thread's state. A
 * failing seed replays with the same --seed/--ops/--procs/--threads, modulo
 * scheduling (which operations of different threads interleave).
 *
 * Caps, so that no operation blocks for long: SIM_EXEC runs at most 20 ms
 * and waits at most 50 ms (an armed `hang` costs 50 ms); module parameters
 * are only written with fwio_timeout_ms <= 50 and fwio_retries <= 3 (the
 * suite loads with 20 ms x 2), so a hung simulated firmware costs a FW-IO
 * exchange at most 150 ms; nq_flood and fault counts are mostly small.
 *
 * Besides "the kernel survives" (the host scans the whole kernel log), the
 * fuzzer checks the documented contract on every call it can judge:
 *  - ioctl: an unknown number (or another magic) -> ENOTTY, a known number
 *    with another size/direction -> EINVAL, a wrong @size, unknown @flags
 *    bits, or a non-zero reserved word -> EINVAL, FW_READ count 0 ->
 *    EINVAL and > 16 -> E2BIG, NDS_ACQUIRE pid < 0 -> EINVAL, a pointer to
 *    nothing (NULL, below mmap_min_addr, kernel half, non-canonical, a
 *    PROT_NONE page, a struct straddling into one) -> EFAULT, every errno
 *    one the uapi documents (no leaked ERESTARTSYS etc.), reserved words
 *    zero on output, GET_INFO always succeeding with the right answer;
 *  - mmap: only cookie offsets map, only with the object's exact length,
 *    never writable for a slab the process does not own or a ring it never
 *    created, never growable (mremap); every page of an accepted mapping is
 *    readable (a fault there is a defect); no device mapping reaches a
 *    forked child (whatever madvise() was tried: MADV_DOFORK included); a
 *    read-only view shows its owner, then zeros, never the slot's next
 *    owner;
 *  - generic netlink: every do-request with NLM_F_ACK is answered at once;
 *    an unknown command -> EOPNOTSUPP, a missing DEVICE/NC -> EINVAL, no such
 *    device -> ENODEV, no such NeuronCore -> ENOENT (docs/genl.md);
 *  - processes: no worker or child dies other than by SIGKILL (ours or its
 *    own); no operation stalls for 60 s;
 *  - afterwards: each device answers GET_INFO, no NeuronCore is still
 *    reserved, all 16 NDS slabs are free (16 processes acquire one, the
 *    17th gets ENOSPC), counting through them moves sysfs exactly, and a
 *    counters dump returns every NeuronCore.
 */
#include "hostile.h"

/* ---- the cases --------------------------------------------------------------- */

static int c_fuzz_ran(void)
{
	uint64_t k;

	run_fuzz();
	report();
	VT_ASSERT(atomic_load(&sh->issued) >= g_ops, "only %llu of %llu operations were issued",
		  (unsigned long long)atomic_load(&sh->issued), (unsigned long long)g_ops);
	/*
	 * Started, not done: a worker is SIGKILLed at random, and one kind
	 * (fdtable-walk) waits seconds for a prober that outlives its worker,
	 * so with 10000 operations it may never be done by a worker alive.
	 */
	for (k = 0; k < K_MAX; k++)
		VT_ASSERT(!g_kind_on[k] || atomic_load(&sh->started[k]) > 0, "operation kind %s never started",
			  kind_name[k]);
	VT_ASSERT(g_kills > 0, "no worker was SIGKILLed");
	return 0;
}

static int c_no_deaths(void)
{
	VT_ASSERT(atomic_load(&sh->viol[V_HANG]) == 0, "an operation hung (see above)");
	VT_ASSERT(atomic_load(&sh->viol[V_DEATH]) == 0, "%llu processes died other than by SIGKILL",
		  (unsigned long long)atomic_load(&sh->viol[V_DEATH]));
	return 0;
}

/* No violation of contract class @cls: what was judged is @what */
static int no_violation(int cls, const char *what)
{
	VT_ASSERT(atomic_load(&sh->viol[cls]) == 0, "%llu of %llu %s",
		  (unsigned long long)atomic_load(&sh->viol[cls]),
		  (unsigned long long)atomic_load(&sh->checked[cls]), what);
	return 0;
}

static int c_ioctl(void) { return no_violation(V_IOCTL, "judged ioctls broke the documented contract"); }
static int c_mmap(void) { return no_violation(V_MMAP, "judged mappings broke the contract"); }
static int c_cross(void) { return no_violation(V_CROSS, "judged reads showed another process's data"); }
static int c_sched(void) { return no_violation(V_SCHED, "judged walks kept their CPU"); }
static int c_log(void) { return no_violation(V_LOG, "judged log records held a raw control byte"); }
static int c_genl(void) { return no_violation(V_GENL, "judged requests broke the contract"); }

static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, off = 0;

	if (fd < 0)
		return -1;
	while (off < (ssize_t)len - 1 && (n = read(fd, buf + off, len - 1 - (size_t)off)) > 0)
		off += n;
	close(fd);
	buf[off] = 0;
	return 0;
}

static int c_devices_after(void)
{
	int idx[MAXDEV], n, i;
	uint32_t nc[MAXDEV];
	char path[128], buf[4096], *l;

	n = scan_devices(idx, nc, MAXDEV);
	VT_ASSERT(n == g_ndev || g_removal, "%d devices after the fuzz, %d before", n, g_ndev);
	for (i = 0; i < n; i++) {
		int lines = 0;

		VT_ASSERT(nc[i] > 0, "neuron%d does not answer GET_INFO", idx[i]);
		snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%d/inject/armed", idx[i]);
		VT_ASSERT(read_line(path, buf, sizeof(buf)) == 0, "read %s", path);
		for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
			VT_ASSERT(strstr(l, " owner 0 "), "neuron%d: a NeuronCore is still reserved: %s", idx[i], l);
			lines++;
		}
		VT_ASSERT(lines == (int)nc[i], "neuron%d: %d armed lines for %u NeuronCores", idx[i], lines, nc[i]);
	}
	return 0;
}

static uint64_t success_total(int dev)
{
	char path[160], buf[64];

	snprintf(path, sizeof(path),
		 "/sys/devices/virtual/neuron_device/neuron%d/neuron_core0/stats/status/success/total", dev);
	if (read_line(path, buf, sizeof(buf)))
		return UINT64_MAX;
	return strtoull(buf, NULL, 10);
}

struct holder_arg {
	int dev;
	uint64_t delta;
};

static int holder(struct vt_child *c, void *arg)
{
	struct holder_arg *h = arg;
	struct neuron_nds_acquire q;
	struct neuron_nds_counter_add a;
	int fd, i;

	/* the earlier holders' pipes would keep them from seeing EOF */
	for (i = 3; i < 1024; i++)
		if (i != c->ready_fd && i != c->hold_fd)
			close(i);
	alarm(120);
	fd = open_index(h->dev, O_RDWR);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	if (fd < 0 || ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.id = NDS_NC_COUNTER_INFER_COMPLETED;
	a.delta = h->delta;
	if (ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
		return 2;
	return vt_child_hold(c) ? 3 : 0;
}

static int c_slabs_after(void)
{
	int idx[MAXDEV], n, i, k, started;
	uint32_t nc[MAXDEV];
	struct vt_child ch[NEURON_NDS_PER_DEVICE];
	struct holder_arg ha[NEURON_NDS_PER_DEVICE];
	struct neuron_nds_acquire q;

	n = scan_devices(idx, nc, MAXDEV);
	for (i = 0; i < n; i++) {
		uint64_t before = success_total(idx[i]), after;
		int fd, r, e, okall = 1;

		for (started = 0, k = 0; k < NEURON_NDS_PER_DEVICE; k++) {
			ha[k] = (struct holder_arg){ idx[i], (uint64_t)k + 1 };
			if (vt_child_start(&ch[k], holder, &ha[k]) == 0)
				started++;
			else
				okall = 0;
		}
		fd = open_index(idx[i], O_RDWR);
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		errno = 0;
		r = fd >= 0 ? ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) : -1;
		e = errno;
		if (fd >= 0)
			close(fd);
		for (k = 0; k < NEURON_NDS_PER_DEVICE; k++)
			if (!vt_child_finish(&ch[k]))
				okall = 0;
		VT_ASSERT(started == NEURON_NDS_PER_DEVICE,
			  "neuron%d: only %d of 16 processes got a slab and counted: slabs still held after the fuzz",
			  idx[i], started);
		VT_ASSERT(okall, "neuron%d: a slab holder failed", idx[i]);
		VT_ASSERT(r == -1 && e == ENOSPC, "neuron%d: a 17th slab: %d/%s, expected ENOSPC", idx[i], r,
			  strerror(e));
		after = success_total(idx[i]);
		VT_ASSERT(after - before == 136, "neuron%d: success moved by %llu, counted 136", idx[i],
			  (unsigned long long)(after - before));
	}
	return 0;
}

static int c_dump_after(void)
{
	int fd = nlraw_open(), idx[MAXDEV], n, i, err;
	unsigned int msgs, want = 0;
	uint32_t nc[MAXDEV];
	struct timeval tv = { 10, 0 };
	static struct nlraw_msg m;

	VT_ASSERT(fd >= 0, "netlink socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = scan_devices(idx, nc, MAXDEV);
	for (i = 0; i < n; i++)
		want += nc[i];
	nlraw_init(&m, g_family, NLM_F_REQUEST | NLM_F_DUMP, 77, NEURON_GENL_CMD_COUNTERS_GET, 1);
	VT_ASSERT(nlraw_send(fd, &m, m.len) == 0, "send");
	err = nlraw_collect(fd, 77, 1, &msgs);
	close(fd);
	VT_ASSERT(err == 0 && msgs == want, "dump: error %d, %u messages for %u NeuronCores", err, msgs, want);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		{ "fuzz-ran-all-ops", c_fuzz_ran },
		{ "no-unexpected-deaths-or-hangs", c_no_deaths },
		{ "ioctl-contract", c_ioctl },
		{ "mmap-contract", c_mmap },
		{ "genl-contract", c_genl },
		{ "no-data-crosses-processes", c_cross },
		{ "holders-walk-schedules", c_sched },
		{ "logged-names-escaped", c_log },
		{ "devices-answer-no-core-reserved", c_devices_after },
		{ "all-slabs-free-and-counting-exact", c_slabs_after },
		{ "counters-dump-complete", c_dump_after },
	};
	int i, wsum, have_seed = 0, fd;
	uint64_t ops = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0, wsum = 0; i < K_MAX; i++)
		wsum += kind_weight[i];
	if (wsum != 1000) {
		fprintf(stderr, "vm_hostile: the kind weights add up to %d, not 1000\n", wsum);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			g_seed = strtoull(argv[++i], NULL, 0);
			have_seed = 1;
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			ops = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--procs") && i + 1 < argc) {
			g_procs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			g_threads = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--long")) {
			g_long = 1;
		} else if (!strcmp(argv[i], "--kinds") && i + 1 < argc) {
			char *list = argv[++i], *tok;
			int k, any = 0;

			for (k = 0; k < K_MAX; k++)
				g_kind_on[k] = 0;
			for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
				for (k = 0; k < K_MAX && strcmp(tok, kind_name[k]); k++)
					;
				if (k == K_MAX) {
					fprintf(stderr, "vm_hostile: unknown kind '%s'\n", tok);
					return 2;
				}
				g_kind_on[k] = any = 1;
			}
			if (!any)
				return 2;
		} else {
			fprintf(stderr, "usage: vm_hostile [--seed N] [--ops N] [--procs N] [--threads N] [--long]\n"
					"                  [--kinds kind,kind,...]\n");
			return 2;
		}
	}
	if (g_procs < 1 || g_procs > MAXW || g_threads < 1 || g_threads > MAXT) {
		fprintf(stderr, "vm_hostile: --procs 1..%d, --threads 1..%d\n", MAXW, MAXT);
		return 2;
	}
	if (!have_seed) {
		fd = open("/dev/urandom", O_RDONLY);
		if (fd < 0 || read(fd, &g_seed, sizeof(g_seed)) != sizeof(g_seed))
			g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		if (fd >= 0)
			close(fd);
	}
	/* CI size: 200000 on a kmemleak (debug) kernel, 50000 elsewhere; --long: 5e6 */
	g_ops = ops ? ops : g_long ? 5000000 : !access("/sys/kernel/debug/kmemleak", F_OK) ? 200000 : 50000;
	g_ctl_rng = mix(g_seed, 0xC0A7);
	printf("hostile: seed 0x%016" PRIx64 " ops %" PRIu64 " procs %d threads %d%s\n", g_seed, g_ops, g_procs,
	       g_threads, g_long ? " (long)" : "");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	detect_removal();
	g_ndev = scan_devices(g_dev_index, g_nc, MAXDEV);
	for (i = 0; i < g_ndev; i++)
		if (!g_nc[i] || g_nc[i] > MAXNC) {
			printf("hostile: neuron%d: GET_INFO failed or nc_count %u\n", g_dev_index[i], g_nc[i]);
			return 1;
		}
	if (!g_ndev) {
		printf("hostile: no /dev/neuron* (load the module with sim_devices=N)\n");
		return 1;
	}
	walk("/sys/devices/virtual/neuron_device", F_SYSFS, 0);
	walk("/sys/kernel/debug/neuron", F_DEBUGFS, 0);
	walk("/sys/module/neuron/parameters", F_PARAM, 0);
	fd = nlraw_open();
	if (fd >= 0) {
		if (nlraw_resolve(fd, NEURON_GENL_FAMILY_NAME, NEURON_GENL_MCGRP_ERRORS, &g_family, &g_errors_grp))
			g_family = 0;
		close(fd);
	}
	printf("hostile: %d devices, %d sysfs files, %d debugfs files (%u read-only to the fuzzer as unknown, %u warn excluded), %d parameters, genl family %u group %u\n",
	       g_ndev, g_cls_n[F_SYSFS], g_cls_n[F_DEBUGFS], g_debugfs_unknown, g_warn_excluded,
	       g_cls_n[F_PARAM], g_family, g_errors_grp);
	if (!g_family) {
		printf("hostile: generic netlink family \"neuron\" not found\n");
		return 1;
	}
	return vt_run("hostile", cases, VT_COUNT(cases));
}
