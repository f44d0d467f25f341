// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: device discovery and GET_INFO through libnrt, and the ioctl
 * validation rules. Expects the module loaded with sim_devices=2
 * sim_nc_per_device=4.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ndl/ndl.h>
#include <neuron/neuron_ioctl.h>

#include "vmdev.h"

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n'))
		buf[--n] = '\0';
	return 0;
}

static int available_lists_two(void)
{
	int idx[8] = { -1, -1, -1 };

	VT_ASSERT(ndl_available_devices(idx, 8) == 2, "expected 2 devices");
	VT_ASSERT(idx[0] == 0 && idx[1] == 1 && idx[2] == -1, "indexes %d %d %d",
		  idx[0], idx[1], idx[2]);
	VT_ASSERT(ndl_available_devices(idx, 1) == 2, "count beyond buffer");
	return 0;
}

static int info_through_libnrt(void)
{
	char modver[64];
	int i;

	VT_ASSERT(read_file("/sys/module/neuron/version", modver, sizeof(modver)) == 0,
		  "no module version in sysfs");
	for (i = 0; i < 2; i++) {
		ndl_device_t *dev = NULL;
		int ret = ndl_open_device(i, NULL, &dev);

		VT_ASSERT(ret == 0 && dev, "ndl_open_device(%d) = %d", i, ret);
		VT_ASSERT(dev->device_index == i, "index %u", dev->device_index);
		const ndl_device_info_t *di = ndl_device_get_info(dev);

		VT_ASSERT(di->nc_count == 4, "nc_count %u", di->nc_count);
		VT_ASSERT(di->backend == NDL_BACKEND_SIM, "backend %u", di->backend);
		/* the SDK's meaning: the hardware generation a simulated device models */
		VT_ASSERT(dev->device_type == NDL_DEVICE_TYPE_V3, "type %u", dev->device_type);
		VT_ASSERT(di->abi_version == NEURON_ABI_VERSION, "abi %u", di->abi_version);
		VT_ASSERT(strcmp(di->driver_version, modver) == 0, "version '%s' vs '%s'",
			  di->driver_version, modver);
		VT_ASSERT(ndl_device_fd(dev) >= 0, "fd");
		VT_ASSERT(ndl_close_device(dev) == 0, "close");
	}
	return 0;
}

static int open_missing_device(void)
{
	ndl_device_t *dev = (ndl_device_t *)1;

	VT_ASSERT(ndl_open_device(2, NULL, &dev) == -ENOENT, "neuron2 should not exist");
	VT_ASSERT(dev == NULL, "out pointer cleared");
	return 0;
}

static void info_init(struct neuron_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
}

static int unknown_ioctl_enotty(void)
{
	struct neuron_info info;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	info_init(&info);
	VT_ASSERT_ERRNO(ioctl(fd, _IOWR(NEURON_IOCTL_MAGIC, 0xFF, struct neuron_info), &info), ENOTTY);
	VT_ASSERT_ERRNO(ioctl(fd, _IOWR('x', 0xC0, struct neuron_info), &info), ENOTTY);
	/* in the vendor's range (docs/vendor-abi.md): a number it has no command for */
	VT_ASSERT_ERRNO(ioctl(fd, _IOR(NEURON_IOCTL_MAGIC, 0xBF, uint64_t), &info), ENOTTY);
	/* the vendor's ACQUIRE_NEURON_DS as a 32-bit build of its header encodes it */
	VT_ASSERT_ERRNO(ioctl(fd, _IOR(NEURON_IOCTL_MAGIC, 71, uint32_t), &info), ENOTTY);
	close(fd);
	return 0;
}

static int wrong_size_einval(void)
{
	struct neuron_info info;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	/* size encoded in the command */
	info_init(&info);
	VT_ASSERT_ERRNO(ioctl(fd, _IOWR(NEURON_IOCTL_MAGIC, 0xC0, uint64_t), &info), EINVAL);
	/* direction encoded in the command */
	VT_ASSERT_ERRNO(ioctl(fd, _IOR(NEURON_IOCTL_MAGIC, 0xC0, struct neuron_info), &info), EINVAL);
	/* size field in the struct */
	info_init(&info);
	info.size = sizeof(info) - 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	info.size = sizeof(info) + 8;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	info.size = 0;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	close(fd);
	return 0;
}

static int nonzero_reserved_einval(void)
{
	struct neuron_info info;
	size_t i;
	int fd = vt_open_dev(0);

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < 3; i++) {
		info_init(&info);
		info.reserved[i] = 1ULL << (i * 13);
		VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	}
	info_init(&info);
	info.hbm_size = 1;	/* out only: must be zero on input */
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	info_init(&info);
	info.flags = 1;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	info_init(&info);
	info.flags = 0x80000000u;
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, &info), EINVAL);
	/* and with everything valid it works and zeroes reserved on output */
	info_init(&info);
	VT_ASSERT(ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0, "valid call: %s", strerror(errno));
	VT_ASSERT(info.reserved[0] == 0 && info.reserved[2] == 0, "reserved out");
	VT_ASSERT(info.device_index == 0 && info.nc_count == 4, "fields");
	VT_ASSERT(info.backend == NEURON_BACKEND_SIM, "backend");
	close(fd);
	return 0;
}

static int bad_pointer_efault(void)
{
	int fd = vt_open_dev(1);
	void *ro;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, NULL), EFAULT);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, (void *)1), EFAULT);
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, (void *)-4096L), EFAULT);
	/* readable but not writable: the copy back must fail cleanly */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(ro != MAP_FAILED, "mmap");
	((struct neuron_info *)ro)->size = sizeof(struct neuron_info);
	VT_ASSERT(mprotect(ro, 4096, PROT_READ) == 0, "mprotect");
	VT_ASSERT_ERRNO(ioctl(fd, NEURON_IOCTL_GET_INFO, ro), EFAULT);
	munmap(ro, 4096);
	close(fd);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(available_lists_two),
		VT_CASE(info_through_libnrt),
		VT_CASE(open_missing_device),
		VT_CASE(unknown_ioctl_enotty),
		VT_CASE(wrong_size_einval),
		VT_CASE(nonzero_reserved_einval),
		VT_CASE(bad_pointer_efault),
	};

	return vt_run("basic", cases, VT_COUNT(cases));
}
