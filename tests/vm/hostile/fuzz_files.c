// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: reads and writes of the devices' sysfs files, the
 * module's debugfs files and its parameters.
 */
#include "hostile.h"

/* Printable junk with at least one letter, so it is never a bare number. */
static size_t junk(struct ts *t, char *buf, size_t cap)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCXYZ_-+.:/=,";
	size_t n = 1 + below(t, 24), i;

	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++)
		buf[i] = chance(t, 600) ? alpha[below(t, sizeof(alpha) - 1)] : (char)('0' + below(t, 10));
	buf[below(t, (uint32_t)n)] = 'x';
	return n;
}

/* Anything at all: bytes, NULs, control characters, long lines. */
static size_t anything(struct ts *t, char *buf, size_t cap)
{
	static const size_t lens[] = { 0, 1, 2, 8, 126, 127, 128, 129, 200, 4095, 4096, 5000 };
	size_t n = lens[below(t, sizeof(lens) / sizeof(lens[0]))], i;

	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++) {
		switch (below(t, 4)) {
		case 0: buf[i] = (char)rnd(t); break;
		case 1: buf[i] = ' '; break;
		default: buf[i] = (char)('0' + below(t, 10)); break;
		}
	}
	return n;
}

static const char *const tpb_names[] = { "FP_UNDERFLOW", "FP_NAN", "FP_INF", "FP_OVERFLOW",
	"MEMORY_ERROR", "FAKE_ERROR", "SEMAPHORE_ERROR", "EVENT_ERROR", "PSUM_COLLISION",
	"SEQUENCER_NONFATAL", "SEQUENCER_FATAL", "fp_nan", "NAN" };
static const char *const hw_names[] = { "collectives", "hbm_ue", "nc_ue", "dma_abort",
	"repairable_hbm_ue", "hbm", "HBM_UE", "none" };
static const char *const fault_modes[] = { "none", "fail", "unknown_command", "timeout", "bad_seq",
	"bad_crc", "slow", "oversize", "FAIL", "fial" };

static uint32_t knob_nc(struct ts *t)
{
	static const uint32_t odd[] = { 8, 16, 4294967295u, 1000 };

	return chance(t, 850) ? below(t, MAXNC) : odd[below(t, 4)];
}

static uint32_t knob_count(struct ts *t, uint32_t max)
{
	if (chance(t, 20))
		return chance(t, 500) ? max : max + 1;
	if (chance(t, 50))
		return 0;
	return 1 + below(t, 8);
}

/* What to write to file @f: a plausible line for the knobs we know, else junk. */
static size_t content(struct ts *t, const struct fentry *f, char *buf, size_t cap)
{
	const char *b = f->base;
	int n = -1;

	if (chance(t, 150))
		return chance(t, 500) ? junk(t, buf, cap) : anything(t, buf, cap);
	if (f->cls == F_PARAM) {
		if (!strcmp(b, "fwio_timeout_ms"))
			n = snprintf(buf, cap, "%u\n", chance(t, 900) ? 1 + below(t, 50) :
					       (chance(t, 500) ? 0 : 60001));
		else if (!strcmp(b, "fwio_retries"))
			n = snprintf(buf, cap, "%u\n", chance(t, 900) ? 1 + below(t, 3) :
					       (chance(t, 500) ? 0 : 31));
		else if (!strcmp(b, "nmetric_post_delay_ms"))
			n = snprintf(buf, cap, "%u\n", chance(t, 800) ? 100 + below(t, 2000) :
					       (chance(t, 500) ? 99 : 86400000));
		else
			return junk(t, buf, cap);
	} else if (f->cls == F_SYSFS) {
		if (!strcmp(b, "total") || !strcmp(b, "present"))
			n = snprintf(buf, cap, "%s", chance(t, 800) ? "1\n" : "0");
		else if (!strcmp(b, "notify_delay")) {
			static const char *const v[] = { "0", "-1", "0\n", "-1\n", "5", "-2", " 0", "0x0" };

			n = snprintf(buf, cap, "%s", v[below(t, 8)]);
		} else if (!strcmp(b, "uevent")) {
			static const char *const v[] = { "change", "add", "online", "offline", "bind" };

			n = snprintf(buf, cap, "%s", v[below(t, 5)]);
		} else if (!strcmp(b, "control")) {
			n = snprintf(buf, cap, "%s", chance(t, 500) ? "auto" : "on");
		} else {
			return junk(t, buf, cap);
		}
	} else if (!strcmp(b, "tpb_error")) {
		if (chance(t, 500))
			n = snprintf(buf, cap, "%u %s %u", knob_nc(t), tpb_names[below(t, 13)],
				     knob_count(t, 65536));
		else
			n = snprintf(buf, cap, "%u %u", knob_nc(t), below(t, 13));
	} else if (!strcmp(b, "hw_error")) {
		n = snprintf(buf, cap, "%u %s %u", knob_nc(t), hw_names[below(t, 8)], knob_count(t, 65536));
	} else if (!strcmp(b, "nq_flood")) {
		n = snprintf(buf, cap, "%u %u", knob_nc(t),
			     chance(t, 950) ? 1 + below(t, 64) : knob_count(t, 1u << 20));
	} else if (!strcmp(b, "hang")) {
		n = snprintf(buf, cap, "%u", knob_nc(t));
	} else if (!strcmp(b, "ecc")) {
		switch (below(t, 3)) {
		case 0: n = snprintf(buf, cap, "sram %u %u", below(t, 70000), below(t, 70000)); break;
		case 1: n = snprintf(buf, cap, "hbm%u %u", below(t, 6), below(t, 70000)); break;
		default: n = snprintf(buf, cap, "repair %s", below(t, 2) ? "pending" : "none"); break;
		}
	} else if (!strcmp(b, "fault")) {
		if (chance(t, 400))
			n = snprintf(buf, cap, "%s", fault_modes[below(t, 10)]);
		else
			n = snprintf(buf, cap, "%s %u", fault_modes[below(t, 10)], below(t, 5));
	} else if (!strcmp(b, "slow_ms")) {
		n = snprintf(buf, cap, "%u", chance(t, 900) ? below(t, 60) : 10000 + below(t, 2));
	} else if (!strcmp(b, "api_version")) {
		n = snprintf(buf, cap, "%u", chance(t, 700) ? 7 : (uint32_t)pick_u64(t));
	} else {
		/* posted, post_now: anything */
		n = snprintf(buf, cap, "1\n");
	}
	if (n < 0)
		return 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}

static const struct fentry *pick_file(struct ts *t, int cls)
{
	if (!g_cls_n[cls])
		return NULL;
	return &g_files[g_cls_idx[cls][below(t, g_cls_n[cls])]];
}

/* A readable mapping of ours with at least @len bytes, or NULL. */
static struct mapping *usable_map(struct ts *t, int need_write)
{
	int i, s = t->nmp ? (int)below(t, t->nmp) : 0;

	for (i = 0; i < t->nmp; i++) {
		struct mapping *m = &t->mp[(s + i) % t->nmp];

		if (!m->zapped && (m->prot & PROT_READ) && (!need_write || (m->prot & PROT_WRITE)))
			return m;
	}
	return NULL;
}

int op_file_read(struct ts *t, int cls)
{
	static const off_t offs[] = { 0, 1, 2, 4095, 4096, 1 << 20, LLONG_MAX / 2 };
	const struct fentry *f = pick_file(t, cls);
	struct mapping *m;
	struct pollfd pfd;
	ssize_t r = -1;
	int fd, i;

	if (!f)
		return 0;
	fd = open(f->path, O_RDONLY | O_CLOEXEC | (chance(t, 100) ? O_NONBLOCK : 0));
	if (fd < 0)
		return 0;
	switch (below(t, 6)) {
	case 0:
		r = read(fd, t->io, 1 + below(t, sizeof(t->io)));
		break;
	case 1:
		r = pread(fd, t->io, 1 + below(t, 8192), offs[below(t, 7)]);
		break;
	case 2:
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLPRI };
		poll(&pfd, 1, 0);
		r = read(fd, t->io, sizeof(t->io));
		break;
	case 3:
		for (i = 0; i < 64; i++)
			if ((r = read(fd, t->io + i, 1)) <= 0)
				break;
		break;
	case 4:
		/* into a mapping of ours (never past its end) or to a bad address */
		m = usable_map(t, 0);
		if (m)
			r = read(fd, m->addr + m->len - 64, 64);
		else
			r = read(fd, chance(t, 500) ? NULL : t->none, 64);
		break;
	default:
		lseek(fd, (off_t)below(t, 100), chance(t, 500) ? SEEK_SET : SEEK_END);
		r = read(fd, t->io, 4096);
		break;
	}
	close(fd);
	return r >= 0;
}

int op_file_write(struct ts *t, int cls)
{
	const struct fentry *f = pick_file(t, cls);
	struct mapping *m;
	const void *src;
	size_t len;
	ssize_t r;
	int fd;

	if (!f)
		return 0;
	if (cls == F_DEBUGFS && !f->writable_known)
		return op_file_read(t, cls);
	fd = open(f->path, (chance(t, 800) ? O_WRONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = content(t, f, (char *)t->io, sizeof(t->io));
	src = t->io;
	switch (below(t, 20)) {
	case 0:
		/* from a mapping of ours: what the runtime or a ring holds */
		m = usable_map(t, 0);
		if (m) {
			src = m->addr;
			if (len > m->len)
				len = m->len;
		}
		break;
	case 1:
		src = chance(t, 500) ? NULL : (const void *)t->none;
		if (!len)
			len = 8;
		break;
	}
	if (chance(t, 100))
		r = pwrite(fd, src, len, (off_t)below(t, 8192));
	else
		r = write(fd, src, len);
	if (r > 0 && chance(t, 100))
		r = write(fd, src, len);
	close(fd);
	return r >= 0;
}
