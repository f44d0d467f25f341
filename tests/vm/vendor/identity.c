// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: the commands answered, identity and info. */
#include "vendor.h"

/* ==== 1. the commands are answered, on every kind of fd ==================== */

/*
 * The identity commands answer 0 on both devices through O_RDONLY,
 * O_WRONLY and O_RDWR fds (the vendor answers only some of them on an
 * O_WRONLY fd); this driver's own GET_INFO still answers beside them.
 */
static int commands_answered_on_any_fd_body(void)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	static const char *const names[] = { "O_RDONLY", "O_WRONLY", "O_RDWR" };
	struct vnd_device_basic_info bi;
	struct vnd_device_info di;
	struct vnd_host_device_id hid;
	struct vnd_compatible_version cv;
	struct vnd_driver_info drv;
	struct neuron_info info;
	__u8 u8v;
	__s32 pid;
	unsigned int m;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		for (m = 0; m < VT_COUNT(modes); m++) {
			fd = open_dev(dev, modes[m]);
			VT_ASSERT(fd >= 0, "open neuron%d %s: %s", dev, names[m], strerror(errno));
#define ANSWERS(cmd, arg)                                                              \
	do {                                                                           \
		r = xioctl(fd, cmd, arg);                                              \
		VT_ASSERT(r == 0, "neuron%d %s: " #cmd ": %s", dev, names[m], err(r)); \
	} while (0)
			ANSWERS(VND_DEVICE_BASIC_INFO, &bi);
			ANSWERS(VND_DEVICE_INFO, &di);
			ANSWERS(VND_HOST_DEVICE_ID, &hid);
			ANSWERS(VND_COMPATIBLE_VERSION, &cv);
			ANSWERS(VND_DRIVER_INFO_GET, &drv);
			ANSWERS(VND_DEVICE_READY, &u8v);
			ANSWERS(VND_DEVICE_RESET_STATUS, &u8v);
			ANSWERS(VND_DEVICE_APP_PID, &pid);
#undef ANSWERS
			close(fd);
		}
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		r = xioctl(fd, NEURON_IOCTL_GET_INFO, &info);
		VT_ASSERT(r == 0, "own GET_INFO beside the vendor's ABI: %s", err(r));
		VT_ASSERT(info.device_index == (__u32)dev && info.nc_count == NC_COUNT &&
			  info.backend == NEURON_BACKEND_SIM,
			  "GET_INFO: index %u, %u cores, backend %u", info.device_index,
			  info.nc_count, info.backend);
		close(fd);
	}
	return 0;
}
ISOLATED(commands_answered_on_any_fd)

/* ==== 2. identity and info =============================================== */

/* DEVICE_BASIC_INFO: this fd's device, architecture 2 and revision 0 (simulated). */
static int basic_info_arch_revision_body(void)
{
	struct vnd_device_basic_info bi;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&bi, 0xAA, sizeof(bi));
		r = xioctl(fd, VND_DEVICE_BASIC_INFO, &bi);
		VT_ASSERT(r == 0, "neuron%d: %s", dev, err(r));
		VT_ASSERT(bi.architecture == ARCH_V2 && bi.revision == 0,
			  "neuron%d: architecture %u revision %u, expected 2 and 0", dev,
			  bi.architecture, bi.revision);
		close(fd);
	}
	return 0;
}
ISOLATED(basic_info_arch_revision)

/* sysfs connected_devices of @dev as the ", "-separated text it shows */
static int sysfs_links(int dev, char *buf, size_t len)
{
	char path[128];
	size_t n;
	int e;

	snprintf(path, sizeof(path), VT_SYSFS_DEV "/connected_devices", dev);
	e = vt_read_file(path, buf, len);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return e;
}

/*
 * DEVICE_INFO: the same architecture and revision, the links of sysfs
 * connected_devices (two simulated devices: each other), bar_address 0
 * (never a kernel address), bar_size 0 on a simulated device, and every
 * byte not named 0: the padding at 44..47 and the entries past the count.
 */
static int device_info_zeroed_body(void)
{
	struct vnd_device_info di;
	const unsigned char *raw = (const unsigned char *)&di;
	char links[64], shown[64];
	unsigned int i;
	size_t n;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&di, 0xAA, sizeof(di));
		r = xioctl(fd, VND_DEVICE_INFO, &di);
		VT_ASSERT(r == 0, "neuron%d: %s", dev, err(r));
		VT_ASSERT(di.architecture == ARCH_V2 && di.revision == 0,
			  "neuron%d: architecture %u revision %u", dev, di.architecture,
			  di.revision);
		VT_ASSERT(di.bar_address[0] == 0 && di.bar_address[1] == 0,
			  "neuron%d: bar_address %#llx %#llx, expected 0 (no kernel address)", dev,
			  (unsigned long long)di.bar_address[0],
			  (unsigned long long)di.bar_address[1]);
		VT_ASSERT(di.bar_size[0] == 0 && di.bar_size[1] == 0,
			  "neuron%d: bar_size %#llx %#llx on a simulated device", dev,
			  (unsigned long long)di.bar_size[0], (unsigned long long)di.bar_size[1]);
		VT_ASSERT(all_bytes(raw + 44, 4, 0), "neuron%d: padding 44..47 %02x %02x %02x %02x",
			  dev, raw[44], raw[45], raw[46], raw[47]);
		VT_ASSERT(di.connected_device_count <= VND_MAX_CONNECTED, "count %u",
			  di.connected_device_count);
		for (i = di.connected_device_count; i < VND_MAX_CONNECTED; i++)
			VT_ASSERT(di.connected_devices[i] == 0,
				  "neuron%d: connected_devices[%u] = %#x past the count %u", dev, i,
				  di.connected_devices[i], di.connected_device_count);
		/* two simulated devices are linked to each other */
		VT_ASSERT(di.connected_device_count == 1 &&
			  di.connected_devices[0] == (__u32)(NDEV - 1 - dev),
			  "neuron%d: %u links, first %u; expected one, to neuron%d", dev,
			  di.connected_device_count, di.connected_devices[0], NDEV - 1 - dev);
		VT_ASSERT(sysfs_links(dev, links, sizeof(links)) == 0, "sysfs connected_devices");
		shown[0] = '\0';
		for (i = 0, n = 0; i < di.connected_device_count && n < sizeof(shown); i++)
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "%s%u", i ? ", " : "",
					      di.connected_devices[i]);
		VT_ASSERT(!strcmp(shown, links), "neuron%d: DEVICE_INFO links '%s', sysfs '%s'",
			  dev, shown, links);
		close(fd);
	}
	return 0;
}
ISOLATED(device_info_zeroed)

/* HOST_DEVICE_ID: N of /dev/neuronN, as GET_INFO's device_index. */
static int host_device_id_is_index_body(void)
{
	struct vnd_host_device_id hid;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&hid, 0xAA, sizeof(hid));
		r = xioctl(fd, VND_HOST_DEVICE_ID, &hid);
		VT_ASSERT(r == 0 && hid.host_device_id == (__u32)dev,
			  "neuron%d: %s, host_device_id %u", dev, err(r), hid.host_device_id);
		close(fd);
	}
	return 0;
}
ISOLATED(host_device_id_is_index)

/* COMPATIBLE_VERSION: max 7 then min 5, in that order. */
static int compatible_version_body(void)
{
	struct vnd_compatible_version cv;
	__u32 raw[2];
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&cv, 0xAA, sizeof(cv));
	r = xioctl(fd, VND_COMPATIBLE_VERSION, &cv);
	VT_ASSERT(r == 0, "%s", err(r));
	memcpy(raw, &cv, sizeof(raw));
	VT_ASSERT(cv.max == 7 && cv.min == 5 && raw[0] == 7 && raw[1] == 5,
		  "max %u min %u (words %u %u), expected 7 then 5", cv.max, cv.min, raw[0], raw[1]);
	close(fd);
	return 0;
}
ISOLATED(compatible_version)

/*
 * DRIVER_INFO_GET: architecture 2, revision 0, version 0, size 24; of the
 * features, DMABUF only (the simulated device exports its memory).
 */
static int driver_info_get_body(void)
{
	struct vnd_driver_info d;
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&d, 0xAA, sizeof(d));
		r = xioctl(fd, VND_DRIVER_INFO_GET, &d);
		VT_ASSERT(r == 0, "neuron%d: %s", dev, err(r));
		VT_ASSERT(d.architecture == ARCH_V2 && d.revision == 0 && d.version == 0 &&
			  d.size == 24 &&
			  d.feature_flags1 == (vnd_kernel_dmabuf() ? VND_FEATURE_DMABUF : 0),
			  "neuron%d: architecture %u revision %u version %u size %u flags %#llx",
			  dev, d.architecture, d.revision, d.version, d.size,
			  (unsigned long long)d.feature_flags1);
		close(fd);
	}
	return 0;
}
ISOLATED(driver_info_get)

/*
 * Number 110 is matched on the number: DRIVER_INFO_SET -EOPNOTSUPP (not
 * 524); READ|WRITE, READ with a size under 24 and no direction -EINVAL;
 * READ with 32 copies 24 bytes and leaves the rest alone.
 */
static int driver_info_encodings_body(void)
{
	struct vnd_driver_info d;
	unsigned char big[32];
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(&d, 0, sizeof(d));
	r = xioctl(fd, VND_DRIVER_INFO_SET, &d);
	VT_ASSERT(r == -EOPNOTSUPP, "DRIVER_INFO_SET: %s (%ld), expected EOPNOTSUPP", err(r), r);
	memset(&d, 0, sizeof(d));
	r = xioctl(fd, VND_CMD(VND_DIR_RW, 110, 24), &d);
	VT_ASSERT(r == -EINVAL, "nr 110 READ|WRITE: %s, expected EINVAL", err(r));
	memset(&d, 0, sizeof(d));
	r = xioctl(fd, VND_CMD(VND_DIR_R, 110, 16), &d);
	VT_ASSERT(r == -EINVAL, "nr 110 READ size 16: %s, expected EINVAL", err(r));
	r = xioctl(fd, VND_CMD(VND_DIR_NONE, 110, 0), NULL);
	VT_ASSERT(r == -EINVAL, "nr 110 without direction: %s, expected EINVAL", err(r));
	memset(big, 0xAA, sizeof(big));
	r = xioctl(fd, VND_CMD(VND_DIR_R, 110, 32), big);
	VT_ASSERT(r == 0, "nr 110 READ size 32: %s", err(r));
	memcpy(&d, big, sizeof(d));
	VT_ASSERT(d.architecture == ARCH_V2 && d.size == 24,
		  "READ size 32: architecture %u size %u", d.architecture, d.size);
	VT_ASSERT(all_bytes(big + 24, 8, 0xAA), "READ size 32 wrote past the 24 bytes");
	close(fd);
	return 0;
}
ISOLATED(driver_info_encodings)

/*
 * DMABUF_FD: an address that is no mapping of device memory is -EINVAL
 * (anonymous memory, no mapping at all), on every device file; nothing
 * is written through the descriptor pointer. A kernel without the
 * dma-buf API answers -EOPNOTSUPP.
 */
static int dmabuf_fd_needs_a_mapping_body(void)
{
	long want = vnd_kernel_dmabuf() ? -EINVAL : -EOPNOTSUPP;
	struct vnd_dmabuf_fd a;
	__s32 out = -7;
	void *anon;
	int dev, fd;
	long r;

	anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(anon != MAP_FAILED, "mmap");
	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(&a, 0, sizeof(a));
		a.va = (uintptr_t)anon;
		a.size = 4096;
		a.fd = (uintptr_t)&out;
		r = xioctl(fd, VND_DMABUF_FD, &a);
		VT_ASSERT(r == want, "neuron%d anonymous memory: %s", dev, err(r));
		a.va = 4096;
		r = xioctl(fd, VND_DMABUF_FD, &a);
		VT_ASSERT(r == want, "neuron%d unmapped address: %s", dev, err(r));
		VT_ASSERT(out == -7, "a refused call wrote the descriptor (%d)", out);
		close(fd);
	}
	munmap(anon, 4096);
	return 0;
}
ISOLATED(dmabuf_fd_needs_a_mapping)

/*
 * DEVICE_BDF and DEVICE_BDF_EXT: a simulated device has no PCI function
 * (-EOPNOTSUPP); BDF_EXT's nd_index counts from the fd's device, and an
 * index naming no device is -ENODEV.
 */
static int bdf_unsupported_on_simulated_body(void)
{
	struct vnd_device_bdf b;
	struct vnd_device_bdf_ext x;
	int fd0 = open_dev(0, O_RDWR), fd1 = open_dev(1, O_RDWR);
	long r;

	VT_ASSERT(fd0 >= 0 && fd1 >= 0, "open");
	memset(&b, 0, sizeof(b));
	r = xioctl(fd0, VND_DEVICE_BDF, &b);
	VT_ASSERT(r == -EOPNOTSUPP, "DEVICE_BDF: %s, expected EOPNOTSUPP", err(r));
	memset(&x, 0, sizeof(x));
	r = xioctl(fd0, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -EOPNOTSUPP, "DEVICE_BDF_EXT 0 on neuron0: %s, expected EOPNOTSUPP", err(r));
	memset(&x, 0, sizeof(x));
	x.nd_index = 1;
	r = xioctl(fd0, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -EOPNOTSUPP,
		  "DEVICE_BDF_EXT 1 on neuron0 (neuron1): %s, expected EOPNOTSUPP", err(r));
	memset(&x, 0, sizeof(x));
	x.nd_index = 1;
	r = xioctl(fd1, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -ENODEV, "DEVICE_BDF_EXT 1 on neuron1 (no neuron2): %s, expected ENODEV",
		  err(r));
	memset(&x, 0, sizeof(x));
	x.nd_index = 40;
	r = xioctl(fd0, VND_DEVICE_BDF_EXT, &x);
	VT_ASSERT(r == -ENODEV, "DEVICE_BDF_EXT 40: %s, expected ENODEV", err(r));
	close(fd0);
	close(fd1);
	return 0;
}
ISOLATED(bdf_unsupported_on_simulated)

/* DEVICE_READY and DEVICE_RESET_STATUS: u8 1 on a ready device. */
static int ready_and_reset_status_body(void)
{
	__u8 v[2];
	int dev, fd;
	long r;

	for (dev = 0; dev < NDEV; dev++) {
		fd = open_dev(dev, O_RDWR);
		VT_ASSERT(fd >= 0, "open");
		memset(v, 0xAA, sizeof(v));
		r = xioctl(fd, VND_DEVICE_READY, v);
		VT_ASSERT(r == 0 && v[0] == 1 && v[1] == 0xAA, "neuron%d DEVICE_READY: %s, %u", dev,
			  err(r), v[0]);
		memset(v, 0xAA, sizeof(v));
		r = xioctl(fd, VND_DEVICE_RESET_STATUS, v);
		VT_ASSERT(r == 0 && v[0] == 1 && v[1] == 0xAA,
			  "neuron%d DEVICE_RESET_STATUS: %s, %u", dev, err(r), v[0]);
		close(fd);
	}
	return 0;
}
ISOLATED(ready_and_reset_status)

/* The retired commands: INIT, RELEASE, DESTROY_V1 0; QUEUE_INFO -EOPNOTSUPP (not -1). */
static int retired_commands_body(void)
{
	struct vnd_notifications_destroy nd;
	struct vnd_notifications_queue_info qi;
	__u64 init_arg = 0;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	r = xioctl(fd, VND_DEVICE_INIT, &init_arg);
	VT_ASSERT(r == 0, "DEVICE_INIT: %s", err(r));
	r = xioctl(fd, VND_DEVICE_RELEASE, NULL);
	VT_ASSERT(r == 0, "DEVICE_RELEASE: %s", err(r));
	memset(&nd, 0, sizeof(nd));
	r = xioctl(fd, VND_NOTIFICATIONS_DESTROY_V1, &nd);
	VT_ASSERT(r == 0, "NOTIFICATIONS_DESTROY_V1: %s", err(r));
	memset(&qi, 0, sizeof(qi));
	r = xioctl(fd, VND_NOTIFICATIONS_QUEUE_INFO, &qi);
	VT_ASSERT(r == -EOPNOTSUPP, "NOTIFICATIONS_QUEUE_INFO: %s (%ld), expected EOPNOTSUPP",
		  err(r), r);
	close(fd);
	return 0;
}
ISOLATED(retired_commands)

/*
 * Commands of magic 'N' below 0xC0 this driver does not answer: -ENOTTY
 * (the vendor: -EINVAL). Also a known number with another direction:
 * the commands are matched on their whole value.
 */
static int unknown_commands_enotty_body(void)
{
	static const unsigned long cmds[] = {
		VND_CMD(VND_DIR_R, 60, 8),		/* no vendor command */
		VND_BAR_READ,				/* 11, not answered */
		VND_CMD(VND_DIR_RW, 0xBF, 8),		/* the last number below 0xC0 */
		VND_CMD(VND_DIR_R, 100, 8),		/* DEVICE_BASIC_INFO read, not write */
	};
	unsigned char buf[64];
	unsigned int i;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < VT_COUNT(cmds); i++) {
		memset(buf, 0, sizeof(buf));
		r = xioctl(fd, cmds[i], buf);
		VT_ASSERT(r == -ENOTTY, "command %#lx: %s (%ld), expected ENOTTY", cmds[i], err(r),
			  r);
	}
	close(fd);
	return 0;
}
ISOLATED(unknown_commands_enotty)

/*
 * An argument the driver cannot copy is -EFAULT (ioctl -1 with errno
 * EFAULT), never the vendor's positive count of bytes not copied: the
 * struct itself, READ_HW_COUNTERS' address array, and the records of
 * DEVICE_GET_ALL_APPS_INFO past the caller's buffer.
 */
static int bad_pointer_efault_body(void)
{
	static const unsigned long cmds[] = {
		VND_DEVICE_BASIC_INFO, VND_DEVICE_INFO, VND_HOST_DEVICE_ID,
		VND_COMPATIBLE_VERSION, VND_DRIVER_INFO_GET, VND_DEVICE_READY,
		VND_DEVICE_RESET_STATUS, VND_DEVICE_APP_PID, VND_DEVICE_GET_ALL_APPS_INFO,
		VND_CRWL_NC_RANGE_MARK, VND_CRWL_NC_RANGE_MARK_EXT0, VND_CRWL_NC_RANGE_UNMARK,
		VND_ACQUIRE_NEURON_DS, VND_RELEASE_NEURON_DS, VND_READ_HW_COUNTERS,
	};
	struct vnd_read_hw_counters hc;
	struct vnd_apps_hdr *h;
	unsigned char *two;
	__u32 data[1];
	void *bad = no_access_page();
	unsigned int i;
	int fd = open_dev(0, O_RDWR);

	VT_ASSERT(fd >= 0 && bad, "open, or the PROT_NONE page");
	for (i = 0; i < VT_COUNT(cmds); i++) {
		errno = 0;
		long r = ioctl(fd, cmds[i], bad);

		VT_ASSERT(r == -1 && errno == EFAULT,
			  "command %#lx on an unreadable argument: %ld/%s", cmds[i], r,
			  strerror(errno));
	}
	memset(&hc, 0, sizeof(hc));
	hc.address = (uintptr_t)bad;
	hc.data = (uintptr_t)data;
	hc.count = 1;
	VT_ASSERT_ERRNO(ioctl(fd, VND_READ_HW_COUNTERS, &hc), EFAULT);

	/* a header at the end of a page, its records in a PROT_NONE page */
	two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_ASSERT(two != MAP_FAILED && mprotect(two + 4096, 4096, PROT_NONE) == 0, "pages");
	h = (struct vnd_apps_hdr *)(two + 4096 - sizeof(*h));
	memset(h, 0, sizeof(*h));
	h->apps_info_flags = VND_APPS_FLAG_NC_LOCK;
	h->capacity = 4;
	VT_ASSERT_ERRNO(ioctl(fd, VND_DEVICE_GET_ALL_APPS_INFO, h), EFAULT);
	munmap(two, 8192);
	close(fd);
	return 0;
}
ISOLATED(bad_pointer_efault)
