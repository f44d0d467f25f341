// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest helper for 41_tools.sh: the health uevents of neuron devices, as a
 * udev rule would see them. Listens on the kernel's uevent netlink group,
 * prints "listening" on stderr once bound, then one line per KOBJ_CHANGE
 * uevent of SUBSYSTEM=neuron_device that carries NEURON_HEALTH:
 *   <DEVNAME> NEURON_HEALTH=.. NEURON_HEALTH_REASON=.. NEURON_HEALTH_PREVIOUS=..
 *   NEURON_ACTION=.. NEURON_NC=.. [NEURON_SIMULATED=1]
 * (one line, in that order), until <count> such uevents or <timeout_ms>.
 *   vm_uevent <count> <timeout_ms>
 * Exit 0 after <count> uevents, 1 on a timeout or an error, 2 bad usage.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = {
	"NEURON_HEALTH=", "NEURON_HEALTH_REASON=", "NEURON_HEALTH_PREVIOUS=",
	"NEURON_ACTION=", "NEURON_NC=", "NEURON_SIMULATED=",
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One uevent (NUL-separated "ACTION@DEVPATH", then KEY=VALUE): 1 if printed. */
static int show(const char *msg, size_t len)
{
	const char *val[NKEYS] = { 0 }, *devname = NULL, *subsys = NULL, *action = NULL;
	size_t off, k;

	for (off = 0; off < len; off += strlen(msg + off) + 1) {
		const char *f = msg + off;

		if (!strncmp(f, "ACTION=", 7))
			action = f + 7;
		else if (!strncmp(f, "SUBSYSTEM=", 10))
			subsys = f + 10;
		else if (!strncmp(f, "DEVNAME=", 8))
			devname = f + 8;
		for (k = 0; k < NKEYS; k++)
			if (!strncmp(f, keys[k], strlen(keys[k])))
				val[k] = f;
	}
	if (!action || strcmp(action, "change") || !subsys || strcmp(subsys, "neuron_device") ||
	    !val[0])
		return 0;
	printf("%s", devname ? devname : "?");
	for (k = 0; k < NKEYS; k++)
		if (val[k])
			printf(" %s", val[k]);
	printf("\n");
	fflush(stdout);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	static char buf[16384];
	long long deadline;
	int fd, count, seen = 0;

	if (argc != 3 || (count = atoi(argv[1])) < 1 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: vm_uevent <count> <timeout_ms>\n");
		return 2;
	}
	deadline = now_ms() + atoi(argv[2]);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "vm_uevent: uevent socket: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "listening\n");
	while (seen < count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			fprintf(stderr, "vm_uevent: %d of %d uevents before the timeout\n", seen, count);
			return 1;
		}
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		seen += show(buf, (size_t)n);
	}
	close(fd);
	return 0;
}
