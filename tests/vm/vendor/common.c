// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_vendor: the small helpers its cases share, and this driver's
 * process listing.
 */
#include "vendor.h"

/* ioctl() as 0 (or its positive return) or -errno */
long xioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

int open_dev(int dev, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/neuron%d", dev);
	return open(path, flags | O_CLOEXEC);
}

int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

uint64_t nc_off(uint32_t nc, uint32_t id)
{
	return (uint64_t)neuron_nds_nc_offset(nc, id);
}

/* A page nothing may touch: arguments the driver cannot copy. */
void *no_access_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- this driver's process listing ---------------------------------------- */

/*
 * The NeuronCores this driver's APPS_INFO lists for @pid on @dev (through
 * a short open of the caller's), UINT32_MAX when it is not listed.
 */
uint32_t own_nc_map(int dev, pid_t pid)
{
	struct neuron_apps_info a;
	uint32_t i, map = UINT32_MAX;
	int fd = open_dev(dev, O_RDWR);

	if (fd < 0)
		return UINT32_MAX;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (ioctl(fd, NEURON_IOCTL_APPS_INFO, &a) == 0)
		for (i = 0; i < a.count; i++)
			if (a.app[i].pid == pid)
				map = a.app[i].nc_map;
	close(fd);
	return map;
}

long vnd_apps(int fd, unsigned int flags, unsigned int capacity, struct vnd_apps_buf *b)
{
	memset(&b->hdr, 0, sizeof(b->hdr));
	b->hdr.apps_info_flags = (__u16)flags;
	b->hdr.capacity = capacity;
	b->hdr.size = 0xFFFFFFFFu;
	return xioctl(fd, VND_DEVICE_GET_ALL_APPS_INFO, b);
}
