// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile, names in the log: an operation with a judge, run by
 * workers' threads (not by their forked children, which do not own the
 * worker's files).
 *
 * forged-name: a process whose name starts with a newline and "FORGED="
 * holds a NeuronCore, which is taken back from it; the kernel's record of
 * the take-back must show the name escaped as the driver documents (every
 * byte outside '!'..'~', and the backslash, as \xHH), never a raw control
 * byte ("log"). Only as root (TAKE_BACK needs CAP_SYS_ADMIN).
 */
#include "hostile.h"

#define FORGED_TOKEN	"FORGED="

struct forged_arg {
	int d;
	char name[16];
};

/* A holder named @name: its own file of device @d, the first free NeuronCore */
static void forged_main(void *arg, int rfd, int hfd)
{
	const struct forged_arg *a = arg;
	struct neuron_core_reserve cr = { .size = sizeof(cr) };
	char c = 'n';
	uint8_t nc = 0;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	stale_keep_fds(rfd, hfd);
	prctl(PR_SET_NAME, a->name);
	fd = open_index(g_dev_index[a->d], O_RDWR);
	for (cr.nc = 0; fd >= 0 && cr.nc < g_nc[a->d]; cr.nc++)
		if (!ioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr)) {
			c = 'r';
			nc = (uint8_t)cr.nc;
			break;
		}
	if (write(rfd, &c, 1) != 1 || (c == 'r' && write(rfd, &nc, 1) != 1))
		_exit(0);
	while (read(hfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * The driver's escape (every byte outside '!'..'~', and the backslash, as
 * \xHH), then /dev/kmsg's own (a backslash as \x5c) on top.
 */
static void kmsg_form(char *out, size_t cap, const char *name)
{
	const unsigned char *s;
	size_t n = 0;

	for (s = (const unsigned char *)name; *s && n + 9 < cap; s++) {
		if (*s < '!' || *s > '~' || *s == '\\')
			n += (size_t)snprintf(out + n, cap - n, "\\x5cx%02x", *s);
		else
			out[n++] = (char)*s;
	}
	out[n] = 0;
}

int op_forged_name(struct ts *t)
{
	static const char odd[] = { '\n', '\r', '\t', 0x1b, '\\', '%', 0x7f, (char)0x80, (char)0xff, ' ', 'a' };
	struct neuron_core_reserve cr = { .size = sizeof(cr) };
	char want[160], rec[8192], head[64];
	int d = below(t, g_ndev), fd = g_base[d], kmsg, found = 0, ok = 0;
	struct forged_arg a = { .d = d };
	struct stale_proc hp;
	size_t n, i;
	uint8_t nc;
	ssize_t r;

	if (fd < 0 || geteuid() != 0)
		return 0;
	snprintf(a.name, sizeof(a.name), "\n" FORGED_TOKEN);
	for (n = strlen(a.name), i = below(t, 8); i && n < 15; i--)
		a.name[n++] = odd[below(t, sizeof(odd))];
	a.name[n] = 0;
	if (helper_spawn(&hp, forged_main, &a))
		return 0;
	if (helper_word(&hp) != 'r' || read(hp.rd, &nc, 1) != 1)
		goto out;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0 && lseek(kmsg, 0, SEEK_END) < 0) {
		close(kmsg);
		kmsg = -1;
	}
	cr.nc = nc;
	r = ioctl(fd, NEURON_IOCTL_CORE_TAKE_BACK, &cr);
	judged(V_IOCTL);
	if (r && errno != ENODEV) {
		viol(t, V_IOCTL, "CORE_TAKE_BACK of a held NeuronCore %u: %s", nc, ename(errno));
	} else if (!r) {
		ok = 1;
		/* the record says "taken back from pid <pid> (<name>) by ..." */
		snprintf(head, sizeof(head), "taken back from pid %d (", (int)hp.pid);
		kmsg_form(want, sizeof(want), a.name);
		while (kmsg >= 0 && !found) {
			r = read(kmsg, rec, sizeof(rec) - 1);
			if (r < 0 && errno == EPIPE)
				continue;	/* records were overwritten: read on */
			if (r <= 0)
				break;
			rec[r] = 0;
			found = strstr(rec, head) != NULL;
		}
		if (found) {
			judged(V_LOG);
			if (strncmp(strstr(rec, head) + strlen(head), want, strlen(want)) ||
			    strstr(rec, head)[strlen(head) + strlen(want)] != ')')
				viol(t, V_LOG, "a holder's name logged unescaped: \"%.80s\"", strstr(rec, head));
		}
	}
	if (kmsg >= 0)
		close(kmsg);
out:
	stale_release(&hp);
	return ok;
}
