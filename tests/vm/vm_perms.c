// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the permissions matrix (tests/vm/80_perms.sh).
 *
 *   vm_perms [--gid N]
 *
 * Expects the module loaded with sim_devices=1 sim_nc_per_device=2, and
 * /dev/neuron0 made what the udev rule (packaging/60-neuron.rules) makes
 * it: root:<gid> mode 0660 (N, default 1000, is the "neuron" group).
 *
 * Each case runs in a child process in one of these contexts:
 *   group    uid/gid 65534 (nobody), supplementary group N
 *   nogroup  uid/gid 65534, no supplementary group
 *   userns   as group, then in a new user and pid namespace where it is
 *            uid 0 with every capability (of that namespace) and pid 1
 *   root     the unchanged root process (controls)
 * A peer process (nobody in group N) holds a slab (NC 0 oob_error set to
 * 4242), NeuronCore 0 with an ERROR ring mapped, and hands out its fd over
 * a unix socket (SCM_RIGHTS).
 *
 * The documented answers: sysfs, module parameters and the counters dump
 * are readable by all (0644/0444 files; docs/genl.md: nothing in the
 * family is privileged); writing sysfs counters, notify_delay and module
 * parameters is root's (EACCES); the debugfs knobs are root's (0200/0400/
 * 0600: EACCES); generic netlink has no clear command (unknown commands
 * are EOPNOTSUPP); FW_READ and FW_POWER_PROFILE need CAP_SYS_ADMIN (EPERM;
 * a capability in a user namespace is not it); a peer's slab and ring map
 * read-only and never writable (EACCES, also for root: ownership, not
 * privilege); a peer's NeuronCore is EBUSY and its ring ENOENT to
 * NQ_RELEASE; COUNTER_ADD without an own slab is ENOENT; a pid from
 * another pid namespace is not found (ENOENT); the node itself is open to
 * root and group N only (EACCES).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <neuron/neuron_genl.h>
#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#include "nlraw.h"
#include "vmdev.h"

#define SYS	"/sys/devices/virtual/neuron_device/neuron0"
#define DBG	"/sys/kernel/debug/neuron/neuron0"
#define PARAM	"/sys/module/neuron/parameters"
#define NOBODY	65534
#define PEER_VALUE 4242
#define RING_BYTES 4096

enum ctx { CTX_ROOT, CTX_GROUP, CTX_NOGROUP, CTX_USERNS };

struct shared {
	char msg[512];
	pid_t peer;
	uint32_t peer_slot;
	uint64_t slab_off, ring_off, ring_len;
};

static struct shared *sh;
static gid_t g_gid = 1000;
static int g_sock[2];	/* the peer sends its fd on [0]; children receive on [1] */

/* ---- small helpers --------------------------------------------------------- */

/* errno of opening @path with @flags: 0 when it opened */
static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static uint64_t peer_total(void)
{
	return vt_status_total(0, 0, "oob_error");
}

/* ---- contexts ----------------------------------------------------------------- */

static int drop_to_nobody(int with_group)
{
	if (with_group ? setgroups(1, &g_gid) : setgroups(0, NULL))
		return -1;
	if (setgid(NOBODY) || setuid(NOBODY))
		return -1;
	return getuid() == NOBODY && geteuid() == NOBODY ? 0 : -1;
}

/*
 * Enter @ctx in this (forked) process. For userns the caller continues in
 * a grandchild that is pid 1 of the new pid namespace; the intermediate
 * process waits for it and exits with its status.
 */
static int enter(int ctx)
{
	pid_t p;
	int st;

	switch (ctx) {
	case CTX_ROOT:
		return 0;
	case CTX_GROUP:
		return drop_to_nobody(1);
	case CTX_NOGROUP:
		return drop_to_nobody(0);
	case CTX_USERNS:
		if (drop_to_nobody(1))
			return -1;
		/*
		 * Changing uid made the process non-dumpable, which makes its
		 * /proc/self files root's: it could not write its own id maps.
		 */
		if (prctl(PR_SET_DUMPABLE, 1))
			return -1;
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID)) {
			snprintf(sh->msg, sizeof(sh->msg), "unshare(CLONE_NEWUSER | CLONE_NEWPID): %s",
				 strerror(errno));
			return -2;
		}
		/* an unprivileged process maps its own ids only */
		if (vt_write_file("/proc/self/uid_map", "0 65534 1\n") ||
		    vt_write_file("/proc/self/setgroups", "deny\n") ||
		    vt_write_file("/proc/self/gid_map", "0 65534 1\n")) {
			snprintf(sh->msg, sizeof(sh->msg), "writing the id maps: %s", strerror(errno));
			return -2;
		}
		p = fork();
		if (p < 0)
			return -1;
		if (p == 0)
			return 0;
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	return -1;
}

/* Run @fn in a child in @ctx; its failure message comes back through sh->msg. */
static int run_in(int ctx, int (*fn)(void))
{
	pid_t p;
	int st;

	sh->msg[0] = 0;
	fflush(stdout);
	p = fork();
	if (p == 0) {
		int r;

		alarm(60);
		r = enter(ctx);
		if (r) {
			if (r == -1)
				snprintf(sh->msg, sizeof(sh->msg), "cannot enter the context: %s",
					 strerror(errno));
			_exit(3);
		}
		vt_msg[0] = 0;
		r = fn();
		if (r)
			snprintf(sh->msg, sizeof(sh->msg), "%s", vt_msg);
		_exit(r ? 1 : 0);
	}
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	snprintf(vt_msg, sizeof(vt_msg), "%s", sh->msg[0] ? sh->msg : "the child crashed");
	if (WIFSIGNALED(st))
		snprintf(vt_msg, sizeof(vt_msg), "the child died of signal %d", WTERMSIG(st));
	return -1;
}

/* ---- the peer -------------------------------------------------------------------- */

static int peer_fn(struct vt_child *c, void *arg)
{
	struct neuron_nds_acquire q;
	struct neuron_nds_counter_add a;
	struct neuron_nq_init n;
	char cbuf[CMSG_SPACE(sizeof(int))];
	int fd, i;
	void *ring;

	(void)arg;
	if (drop_to_nobody(1))
		return 1;
	fd = vt_open_dev(0);
	if (fd < 0)
		return 2;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	if (ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q))
		return 3;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.id = NDS_NC_COUNTER_OOB;
	a.delta = PEER_VALUE;
	if (ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a))
		return 4;
	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	n.nq_type = NEURON_NQ_TYPE_ERROR;
	n.ring_size = RING_BYTES;
	if (ioctl(fd, NEURON_IOCTL_NQ_INIT, &n))
		return 5;
	ring = mmap(NULL, n.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)n.mmap_offset);
	if (ring == MAP_FAILED)
		return 6;
	sh->peer = getpid();
	sh->peer_slot = q.slot;
	sh->slab_off = q.mmap_offset;
	sh->ring_off = n.mmap_offset;
	sh->ring_len = n.mmap_size;
	/* its fd, for whoever asks (one message each) */
	for (i = 0; i < 8; i++) {
		struct msghdr mh = { 0 };
		struct iovec iov = { "f", 1 };
		struct cmsghdr *cm;

		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		if (sendmsg(g_sock[0], &mh, 0) != 1)
			return 7;
	}
	return vt_child_hold(c) ? 8 : 0;
}

static int recv_peer_fd(void)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	int fd = -1;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	if (recvmsg(g_sock[1], &mh, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* ---- checks (run inside a context) ------------------------------------------------ */

static int chk_reads(void)
{
	static const char *const files[] = {
		SYS "/core_count", SYS "/info/serial_number", SYS "/info/fw_api_version",
		SYS "/info/notify_delay", SYS "/info/architecture/arch_type",
		SYS "/info/architecture/instance_type", SYS "/info/architecture/device_name",
		SYS "/stats/hardware/sram_ecc_uncorrected", SYS "/stats/hardware/mem_ecc_corrected",
		SYS "/stats/fw_io/err_count", SYS "/stats/fw_io/timeout_count",
		SYS "/neuron_core0/info/architecture/arch_type",
		SYS "/neuron_core0/stats/status/oob_error/present",
		SYS "/neuron_core1/stats/status/success/total",
		SYS "/neuron_core0/stats/other_info/inference_count/total",
		PARAM "/fwio_timeout_ms", PARAM "/sim_devices", PARAM "/nmetric_post_delay_ms",
	};
	char buf[128];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		VT_ASSERT(vt_read_file(files[i], buf, sizeof(buf)) == 0, "%s not readable: %s", files[i],
			  strerror(errno));
	VT_ASSERT(peer_total() == PEER_VALUE, "oob_error total reads %llu, the peer counted %d",
		  (unsigned long long)peer_total(), PEER_VALUE);
	return 0;
}

static int chk_sysfs_write_refused(void)
{
	static const char *const files[] = {
		SYS "/neuron_core0/stats/status/oob_error/total",
		SYS "/neuron_core0/stats/status/oob_error/present",
		SYS "/neuron_core1/stats/other_info/inference_count/total",
		SYS "/info/notify_delay",
	};
	size_t i;
	int e;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		e = open_errno(files[i], O_WRONLY);
		VT_ASSERT(e == EACCES, "open(%s, O_WRONLY): %s, documented EACCES (root only)", files[i],
			  e ? strerror(e) : "opened");
	}
	VT_ASSERT(peer_total() == PEER_VALUE, "the total changed");
	return 0;
}

static int chk_param_write_refused(void)
{
	static const char *const files[] = {
		PARAM "/fwio_timeout_ms", PARAM "/fwio_retries", PARAM "/nmetric_post_delay_ms",
	};
	size_t i;
	int e;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		e = open_errno(files[i], O_WRONLY);
		VT_ASSERT(e == EACCES, "open(%s, O_WRONLY): %s, documented EACCES (0644)", files[i],
			  e ? strerror(e) : "opened");
	}
	return 0;
}

static int chk_injection_refused(void)
{
	static const char *const w[] = {
		DBG "/inject/tpb_error", DBG "/inject/hw_error", DBG "/inject/nq_flood",
		DBG "/inject/hang", DBG "/inject/ecc", DBG "/fw/fault", DBG "/fw/post_now",
		DBG "/fw/slow_ms", DBG "/fw/api_version", DBG "/fw/posted", DBG "/warn",
	};
	static const char *const r[] = {
		DBG "/inject/armed", DBG "/fw/sim_stats", DBG "/fw/stats", DBG "/fw/last_seq",
		DBG "/fw/posted_blobs", DBG "/fw/fault", DBG "/nds_read_buffered",
	};
	size_t i;
	int e;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		e = open_errno(w[i], O_WRONLY);
		VT_ASSERT(e == EACCES, "open(%s, O_WRONLY): %s, documented EACCES (root only)", w[i],
			  e ? strerror(e) : "opened");
	}
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		e = open_errno(r[i], O_RDONLY);
		VT_ASSERT(e == EACCES, "open(%s, O_RDONLY): %s, documented EACCES (root only)", r[i],
			  e ? strerror(e) : "opened");
	}
	return 0;
}

static int genl_fd(uint16_t *fam, uint32_t *grp)
{
	struct timeval tv = { 5, 0 };
	int fd = nlraw_open();

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (nlraw_resolve(fd, NEURON_GENL_FAMILY_NAME, NEURON_GENL_MCGRP_ERRORS, fam, grp)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int chk_genl_reads(void)
{
	static struct nlraw_msg m;
	unsigned int msgs;
	uint16_t fam;
	uint32_t grp;
	int fd = genl_fd(&fam, &grp), err;

	VT_ASSERT(fd >= 0, "family \"neuron\" not resolved");
	nlraw_init(&m, fam, NLM_F_REQUEST | NLM_F_DUMP, 5, NEURON_GENL_CMD_COUNTERS_GET, 1);
	VT_ASSERT(nlraw_send(fd, &m, m.len) == 0, "send");
	err = nlraw_collect(fd, 5, 1, &msgs);
	VT_ASSERT(err == 0 && msgs == 2, "counters dump: error %d (%s), %u messages for 2 NeuronCores", err,
		  strerror(-err), msgs);
	VT_ASSERT(grp != 0, "no errors group");
	VT_ASSERT(setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) == 0,
		  "joining the errors group: %s (anyone may join)", strerror(errno));
	close(fd);
	return 0;
}

static int chk_genl_no_clear(void)
{
	static const uint8_t cmds[] = { NEURON_GENL_CMD_UNSPEC, NEURON_GENL_CMD_ERROR_EVENT,
					NEURON_GENL_CMD_MAX + 1, 4, 100, 255 };
	static struct nlraw_msg m;
	unsigned int msgs;
	uint16_t fam;
	uint32_t grp;
	size_t i;
	int fd = genl_fd(&fam, &grp), err;

	VT_ASSERT(fd >= 0, "family \"neuron\" not resolved");
	for (i = 0; i < sizeof(cmds); i++) {
		nlraw_init(&m, fam, NLM_F_REQUEST | NLM_F_ACK, 10 + (uint32_t)i, cmds[i], 1);
		nlraw_put_u32(&m, NEURON_GENL_A_DEVICE, 0);
		nlraw_put_u32(&m, NEURON_GENL_A_NC, 0);
		VT_ASSERT(nlraw_send(fd, &m, m.len) == 0, "send");
		err = nlraw_collect(fd, 10 + (uint32_t)i, 1, &msgs);
		VT_ASSERT(err == -EOPNOTSUPP, "command %u: %s, expected EOPNOTSUPP (no such command)", cmds[i],
			  err ? strerror(-err) : "accepted");
	}
	close(fd);
	VT_ASSERT(peer_total() == PEER_VALUE, "the total changed");
	return 0;
}

static int chk_open_info(void)
{
	struct neuron_info info;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open(/dev/neuron0): %s (group %u may)", strerror(errno), (unsigned)g_gid);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0 && info.nc_count == 2, "GET_INFO: %s",
		  strerror(errno));
	close(fd);
	return 0;
}

static int chk_own_slab(void)
{
	struct neuron_nds_acquire q;
	struct neuron_nds_counter_add a;
	uint64_t *m;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "NDS_ACQUIRE: %s", strerror(errno));
	VT_ASSERT(q.access == NEURON_NDS_ACCESS_RW, "own slab access %u", q.access);
	m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(m != MAP_FAILED, "writable map of the own slab: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.nc = 1;
	a.id = NDS_NC_COUNTER_INFERENCE_COUNT;
	a.delta = 3;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a) == 0, "COUNTER_ADD: %s", strerror(errno));
	m[neuron_nds_nc_offset(1, NDS_NC_COUNTER_INFERENCE_COUNT) / 8] += 2;
	VT_ASSERT(m[neuron_nds_nc_offset(1, NDS_NC_COUNTER_INFERENCE_COUNT) / 8] == 5, "counter");
	munmap(m, NEURON_NDS_SIZE);
	close(fd);
	return 0;
}

static int chk_add_needs_slab(void)
{
	struct neuron_nds_counter_add a;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.id = NDS_NC_COUNTER_OOB;
	a.delta = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), ENOENT);
	close(fd);
	return 0;
}

static int chk_fw_eperm(void)
{
	struct neuron_fw_read r;
	struct neuron_fw_power_profile p;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.count = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_READ, &r), EPERM);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.profile = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p), EPERM);
	close(fd);
	return 0;
}

static int chk_peer_slab_ro(void)
{
	struct neuron_nds_acquire q;
	const uint64_t *m;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.pid = sh->peer;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0, "lookup of the peer: %s", strerror(errno));
	VT_ASSERT(q.access == NEURON_NDS_ACCESS_RO && q.slot == sh->peer_slot, "access %u slot %u", q.access,
		  q.slot);
	m = mmap(NULL, NEURON_NDS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)q.mmap_offset);
	VT_ASSERT(m != MAP_FAILED, "read-only map of the peer's slab: %s", strerror(errno));
	VT_ASSERT(m[neuron_nds_nc_offset(0, NDS_NC_COUNTER_OOB) / 8] == PEER_VALUE, "peer's counter");
	munmap((void *)m, NEURON_NDS_SIZE);
	close(fd);
	return 0;
}

/*
 * A writable map of the peer's object at @off is refused (EACCES), shared
 * or private. A read-only one works only where the rules grant it
 * (@ro_ok: a slab this fd looked up with NDS_ACQUIRE, or that the peer
 * acquired through this very fd), and then cannot be made writable by
 * mprotect; elsewhere it is EACCES too (a ring maps only for its owner, a
 * slab only where an acquire on the fd handed out the cookie).
 */
static int refuse_write_map(int fd, uint64_t off, size_t len, const char *what, int ro_ok)
{
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	VT_ASSERT(m == MAP_FAILED && errno == EACCES, "shared writable map of the peer's %s: %s, documented EACCES",
		  what, m == MAP_FAILED ? strerror(errno) : "mapped");
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)off);
	VT_ASSERT(m == MAP_FAILED && errno == EACCES, "private writable map of the peer's %s: %s", what,
		  m == MAP_FAILED ? strerror(errno) : "mapped");
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (!ro_ok) {
		VT_ASSERT(m == MAP_FAILED && errno == EACCES, "read-only map of the peer's %s: %s, documented EACCES",
			  what, m == MAP_FAILED ? strerror(errno) : "mapped");
		return 0;
	}
	VT_ASSERT(m != MAP_FAILED, "read-only map of the peer's %s: %s", what, strerror(errno));
	VT_ASSERT(mprotect(m, len, PROT_READ | PROT_WRITE) == -1 && errno == EACCES,
		  "mprotect of the peer's %s to writable: %s", what, errno ? strerror(errno) : "allowed");
	munmap(m, len);
	return 0;
}

/* Look the peer's slab up on @fd (the grant a read-only map needs); 0 on success. */
static int lookup_peer_slab(int fd)
{
	struct neuron_nds_acquire q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.pid = sh->peer;
	return ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q) == 0 && q.mmap_offset == sh->slab_off ? 0 : -1;
}

static int chk_peer_slab_write_refused(void)
{
	int fd = vt_open_dev(0), r;

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	r = refuse_write_map(fd, sh->slab_off, NEURON_NDS_SIZE, "slab (not looked up on this fd)", 0);
	if (!r && lookup_peer_slab(fd) == 0) {
		r = refuse_write_map(fd, sh->slab_off, NEURON_NDS_SIZE, "slab", 1);
	} else if (!r) {
		/* in the new pid namespace (pid 1) the peer's pid does not exist */
		VT_ASSERT(errno == ENOENT && getpid() == 1, "lookup of the peer: %s", strerror(errno));
	}
	close(fd);
	return r;
}

/* A ring maps only for its owner, through a file it opened (NQ_INIT's doc). */
static int chk_peer_ring_ro(void)
{
	void *c;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	c = mmap(NULL, sh->ring_len, PROT_READ, MAP_SHARED, fd, (off_t)sh->ring_off);
	VT_ASSERT(c == MAP_FAILED && errno == EACCES,
		  "read-only map of the peer's ring: %s, documented EACCES (only the owner maps a ring)",
		  c == MAP_FAILED ? strerror(errno) : "mapped");
	close(fd);
	return 0;
}

static int chk_peer_ring_write_refused(void)
{
	void *m;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	m = mmap(NULL, sh->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)sh->ring_off);
	VT_ASSERT(m == MAP_FAILED && errno == EACCES, "shared writable map of the peer's ring: %s",
		  m == MAP_FAILED ? strerror(errno) : "mapped");
	m = mmap(NULL, sh->ring_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)sh->ring_off);
	VT_ASSERT(m == MAP_FAILED && errno == EACCES, "private writable map of the peer's ring: %s",
		  m == MAP_FAILED ? strerror(errno) : "mapped");
	close(fd);
	return 0;
}

static int chk_peer_core_busy(void)
{
	struct neuron_core_reserve cr;
	struct neuron_nq_init n;
	struct neuron_nq_release nr;
	struct neuron_sim_exec x;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr), EBUSY);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_CORE_RELEASE, &cr), ENOENT);
	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	n.nq_type = NEURON_NQ_TYPE_ERROR;
	n.ring_size = RING_BYTES;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_INIT, &n), EBUSY);
	memset(&nr, 0, sizeof(nr));
	nr.size = sizeof(nr);
	nr.nq_type = NEURON_NQ_TYPE_ERROR;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NQ_RELEASE, &nr), ENOENT);
	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.duration_us = 10;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_SIM_EXEC, &x), EBUSY);
	close(fd);
	return 0;
}

/* The peer's own fd, received over a unix socket: still the peer's. */
static int chk_peer_fd(void)
{
	struct neuron_nds_counter_add a;
	struct neuron_nds_acquire q;
	int fd = recv_peer_fd(), r;

	VT_ASSERT(fd >= 0, "no fd from the peer");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.id = NDS_NC_COUNTER_OOB;
	a.delta = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_COUNTER_ADD, &a), EACCES);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q), EACCES);
	r = refuse_write_map(fd, sh->slab_off, NEURON_NDS_SIZE, "slab (through its own fd)", 1);
	if (r)
		return r;
	r = refuse_write_map(fd, sh->ring_off, sh->ring_len, "ring (through its own fd)", 0);
	if (r)
		return r;
	close(fd);
	VT_ASSERT(peer_total() == PEER_VALUE, "the peer's total changed");
	return 0;
}

static int chk_nogroup_open(void)
{
	int e;

	e = open_errno("/dev/neuron0", O_RDWR);
	VT_ASSERT(e == EACCES, "open(/dev/neuron0, O_RDWR) outside the group: %s, expected EACCES (0660 root:neuron)",
		  e ? strerror(e) : "opened");
	e = open_errno("/dev/neuron0", O_RDONLY);
	VT_ASSERT(e == EACCES, "open(/dev/neuron0, O_RDONLY) outside the group: %s", e ? strerror(e) : "opened");
	return 0;
}

static int chk_userns_root(void)
{
	char buf[4096], *p;
	unsigned long long eff;

	VT_ASSERT(getuid() == 0 && geteuid() == 0, "uid %u in the namespace", (unsigned)getuid());
	VT_ASSERT(getpid() == 1, "pid %d in the new pid namespace", (int)getpid());
	VT_ASSERT(vt_read_file("/proc/self/status", buf, sizeof(buf)) == 0, "status");
	p = strstr(buf, "CapEff:");
	VT_ASSERT(p && sscanf(p, "CapEff: %llx", &eff) == 1, "CapEff");
	VT_ASSERT(eff & (1ULL << 21), "no CAP_SYS_ADMIN in the namespace (CapEff %llx)", eff);
	return 0;
}

static int chk_peer_pid_invisible(void)
{
	struct neuron_nds_acquire q;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.pid = sh->peer;	/* a number in the initial pid namespace */
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_NDS_ACQUIRE, &q), ENOENT);
	close(fd);
	return 0;
}

/* root: what is refused above is refused for lack of privilege, not broken */
static int chk_root_controls(void)
{
	struct neuron_fw_read r;
	int fd, e;

	e = open_errno(SYS "/neuron_core1/stats/status/success/present", O_WRONLY);
	VT_ASSERT(e == 0, "root cannot open a counter for writing: %s", strerror(e));
	e = open_errno(DBG "/fw/fault", O_WRONLY);
	VT_ASSERT(e == 0, "root cannot open fw/fault: %s", strerror(e));
	e = open_errno(PARAM "/fwio_retries", O_WRONLY);
	VT_ASSERT(e == 0, "root cannot open a parameter: %s", strerror(e));
	fd = vt_open_dev(0);
	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.count = 1;
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_FW_READ, &r) == 0 && r.value[0] == 7,
		  "FW_READ as root: %s, value %u", strerror(errno), r.value[0]);
	close(fd);
	return 0;
}

/* ownership, not privilege: root cannot write the peer's objects either */
static int chk_root_peer_write_refused(void)
{
	int fd = vt_open_dev(0), r;

	VT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	VT_ASSERT(lookup_peer_slab(fd) == 0, "lookup of the peer: %s", strerror(errno));
	r = refuse_write_map(fd, sh->slab_off, NEURON_NDS_SIZE, "slab", 1);
	if (!r)
		r = refuse_write_map(fd, sh->ring_off, sh->ring_len, "ring", 0);
	close(fd);
	return r;
}

/* ---- the matrix ------------------------------------------------------------------ */

#define CASE(ctx, fn)                                   \
	static int ctx##_##fn(void) { return run_in(CTX_##ctx, chk_##fn); }

CASE(GROUP, reads)
CASE(GROUP, sysfs_write_refused)
CASE(GROUP, param_write_refused)
CASE(GROUP, injection_refused)
CASE(GROUP, genl_reads)
CASE(GROUP, genl_no_clear)
CASE(GROUP, open_info)
CASE(GROUP, own_slab)
CASE(GROUP, add_needs_slab)
CASE(GROUP, fw_eperm)
CASE(GROUP, peer_slab_ro)
CASE(GROUP, peer_slab_write_refused)
CASE(GROUP, peer_ring_ro)
CASE(GROUP, peer_ring_write_refused)
CASE(GROUP, peer_core_busy)
CASE(GROUP, peer_fd)
CASE(NOGROUP, nogroup_open)
CASE(NOGROUP, reads)
CASE(NOGROUP, sysfs_write_refused)
CASE(NOGROUP, param_write_refused)
CASE(NOGROUP, injection_refused)
CASE(NOGROUP, genl_reads)
CASE(NOGROUP, genl_no_clear)
CASE(USERNS, userns_root)
CASE(USERNS, reads)
CASE(USERNS, sysfs_write_refused)
CASE(USERNS, param_write_refused)
CASE(USERNS, injection_refused)
CASE(USERNS, genl_reads)
CASE(USERNS, genl_no_clear)
CASE(USERNS, open_info)
CASE(USERNS, own_slab)
CASE(USERNS, fw_eperm)
CASE(USERNS, peer_pid_invisible)
CASE(USERNS, peer_slab_write_refused)
CASE(USERNS, peer_ring_ro)
CASE(USERNS, peer_ring_write_refused)
CASE(USERNS, peer_core_busy)
CASE(USERNS, peer_fd)
CASE(ROOT, root_controls)
CASE(ROOT, root_peer_write_refused)

int main(int argc, char **argv)
{
	static const struct vt_case cases[] = {
		{ "group/reads-sysfs-and-parameters", GROUP_reads },
		{ "group/sysfs-counter-write-refused", GROUP_sysfs_write_refused },
		{ "group/parameter-write-refused", GROUP_param_write_refused },
		{ "group/fault-injection-refused", GROUP_injection_refused },
		{ "group/genl-dump-and-join", GROUP_genl_reads },
		{ "group/genl-no-clear-command", GROUP_genl_no_clear },
		{ "group/device-opens", GROUP_open_info },
		{ "group/own-slab-read-write", GROUP_own_slab },
		{ "group/counter-add-needs-own-slab", GROUP_add_needs_slab },
		{ "group/fw-ioctls-eperm", GROUP_fw_eperm },
		{ "group/peer-slab-read-only", GROUP_peer_slab_ro },
		{ "group/peer-slab-write-map-refused", GROUP_peer_slab_write_refused },
		{ "group/peer-ring-map-refused", GROUP_peer_ring_ro },
		{ "group/peer-ring-write-map-refused", GROUP_peer_ring_write_refused },
		{ "group/peer-core-busy-ring-not-mine", GROUP_peer_core_busy },
		{ "group/peer-fd-writes-refused", GROUP_peer_fd },
		{ "nogroup/device-open-refused", NOGROUP_nogroup_open },
		{ "nogroup/reads-sysfs-and-parameters", NOGROUP_reads },
		{ "nogroup/sysfs-counter-write-refused", NOGROUP_sysfs_write_refused },
		{ "nogroup/parameter-write-refused", NOGROUP_param_write_refused },
		{ "nogroup/fault-injection-refused", NOGROUP_injection_refused },
		{ "nogroup/genl-dump-and-join", NOGROUP_genl_reads },
		{ "nogroup/genl-no-clear-command", NOGROUP_genl_no_clear },
		{ "userns/root-in-namespace-pid-1", USERNS_userns_root },
		{ "userns/reads-sysfs-and-parameters", USERNS_reads },
		{ "userns/sysfs-counter-write-refused", USERNS_sysfs_write_refused },
		{ "userns/parameter-write-refused", USERNS_param_write_refused },
		{ "userns/fault-injection-refused", USERNS_injection_refused },
		{ "userns/genl-dump-and-join", USERNS_genl_reads },
		{ "userns/genl-no-clear-command", USERNS_genl_no_clear },
		{ "userns/device-opens", USERNS_open_info },
		{ "userns/own-slab-read-write", USERNS_own_slab },
		{ "userns/fw-ioctls-eperm", USERNS_fw_eperm },
		{ "userns/peer-pid-not-found", USERNS_peer_pid_invisible },
		{ "userns/peer-slab-write-map-refused", USERNS_peer_slab_write_refused },
		{ "userns/peer-ring-map-refused", USERNS_peer_ring_ro },
		{ "userns/peer-ring-write-map-refused", USERNS_peer_ring_write_refused },
		{ "userns/peer-core-busy-ring-not-mine", USERNS_peer_core_busy },
		{ "userns/peer-fd-writes-refused", USERNS_peer_fd },
		{ "root/controls-allowed", ROOT_root_controls },
		{ "root/peer-write-map-refused", ROOT_root_peer_write_refused },
	};
	struct vt_child peer;
	int i, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gid") && i + 1 < argc) {
			g_gid = (gid_t)atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: vm_perms [--gid N]\n");
			return 2;
		}
	}
	if (getuid() != 0) {
		fprintf(stderr, "vm_perms: run as root (it drops privileges per case)\n");
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || socketpair(AF_UNIX, SOCK_DGRAM, 0, g_sock))
		return 1;
	if (vt_child_start(&peer, peer_fn, NULL)) {
		printf("perms: the peer process failed to set up\n");
		return 1;
	}
	printf("perms: group %u, peer pid %d holds slab %u (cookie 0x%llx), NeuronCore 0 and its ERROR ring (cookie 0x%llx)\n",
	       (unsigned)g_gid, (int)sh->peer, sh->peer_slot, (unsigned long long)sh->slab_off,
	       (unsigned long long)sh->ring_off);
	ret = vt_run("perms", cases, VT_COUNT(cases));
	if (!vt_child_finish(&peer)) {
		printf("perms: the peer process failed\n");
		ret = 1;
	}
	return ret;
}
