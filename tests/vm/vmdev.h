/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device helpers the guest programs share: /dev/neuron<N>, a device's sysfs
 * and debugfs files, and the ioctl wrappers more than one program uses.
 * Each returns 0 or -errno unless it says otherwise.
 */
#ifndef VMDEV_H
#define VMDEV_H

#include <sys/ioctl.h>

#include <neuron/neuron_ioctl.h>

#include "vmtest.h"

#define VT_SYSFS_DEV	"/sys/devices/virtual/neuron_device/neuron%d"
#define VT_DEBUGFS_DEV	"/sys/kernel/debug/neuron/neuron%d"
#define VT_SIM_BUS	"/sys/bus/neuron_sim"

/* /dev/neuron<@index>, read-write: the fd, or -1 with errno set. */
static inline int vt_open_dev(int index)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/neuron%d", index);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Add simulated device @id with @nc NeuronCores on the neuron_sim bus. */
static inline int vt_sim_new(int id, int nc)
{
	return vt_writef(VT_SIM_BUS "/new_device", "%d %d\n", id, nc);
}

/* Remove simulated device @id. */
static inline int vt_sim_del(int id)
{
	return vt_writef(VT_SIM_BUS "/del_device", "%d\n", id);
}

/* N of /dev/neuron<N> of simulated device @id, or -1. */
static inline int vt_sim_index(int id)
{
	char path[96], buf[32];

	snprintf(path, sizeof(path), VT_SIM_BUS "/devices/neuron_sim%d/neuron_index", id);
	return vt_read_file(path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

/* The number in sysfs neuron<@dev>/<@rel>; UINT64_MAX if unreadable. */
static inline uint64_t vt_sys_u64(int dev, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), VT_SYSFS_DEV "/%s", dev, rel);
	return vt_u64(path);
}

/* neuron_core<@nc>/stats/status/<@name>/total of device @dev; UINT64_MAX if unreadable. */
static inline uint64_t vt_status_total(int dev, int nc, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), VT_SYSFS_DEV "/neuron_core%d/stats/status/%s/total", dev, nc,
		 name);
	return vt_u64(path);
}

/* Write @text to debugfs neuron<@dev>/<@file>. */
static inline int vt_dbg_write(int dev, const char *file, const char *text)
{
	char path[128];

	snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/%s", dev, file);
	return vt_write_file(path, text);
}

/* Read debugfs neuron<@dev>/<@file> into @buf (vt_read_file()). */
static inline int vt_dbg_read(int dev, const char *file, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/%s", dev, file);
	return vt_read_file(path, buf, len);
}

/* The "@key value" line of debugfs neuron<@dev>/<@file>; UINT64_MAX if missing. */
static inline uint64_t vt_dbg_kv(int dev, const char *file, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/%s", dev, file);
	return vt_kv(path, key);
}

/* Arm fault knob inject/<@knob> of device @dev with printf-formatted text. */
static inline int vt_inject(int dev, const char *knob, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int vt_inject(int dev, const char *knob, const char *fmt, ...)
{
	char path[128];
	va_list ap;
	int ret;

	snprintf(path, sizeof(path), VT_DEBUGFS_DEV "/inject/%s", dev, knob);
	va_start(ap, fmt);
	ret = vt_vwritef(path, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * FW-IO counters of device @dev: the driver's (sysfs stats/fw_io/) and the
 * simulated firmware's (debugfs fw/sim_stats, read once); UINT64_MAX for
 * what cannot be read or a firmware does not report.
 */
struct vt_fw_counts {
	uint64_t err, tmo;
	uint64_t requests, crc, dropped, zero_seq, gaps, legacy, rewrites, zero, refused,
		slow_done;
};

static inline struct vt_fw_counts vt_fw_counts(int dev)
{
	char buf[1024];
	struct vt_fw_counts c = {
		.err = vt_sys_u64(dev, "stats/fw_io/err_count"),
		.tmo = vt_sys_u64(dev, "stats/fw_io/timeout_count"),
	};

	if (vt_dbg_read(dev, "fw/sim_stats", buf, sizeof(buf)))
		buf[0] = '\0';
	c.requests = vt_kv_in(buf, "requests");
	c.crc = vt_kv_in(buf, "crc_errors");
	c.dropped = vt_kv_in(buf, "dropped");
	c.zero_seq = vt_kv_in(buf, "zero_seq");
	c.gaps = vt_kv_in(buf, "seq_gaps");
	c.legacy = vt_kv_in(buf, "legacy");
	c.rewrites = vt_kv_in(buf, "rewrites");
	c.zero = vt_kv_in(buf, "trigger_zero");
	c.refused = vt_kv_in(buf, "refused");
	c.slow_done = vt_kv_in(buf, "slow_done");
	return c;
}

/* FW_READ of the @n registers at @addr into @val (zeros when it fails). */
static inline int vt_fw_read(int fd, const uint64_t *addr, unsigned int n, uint32_t *val)
{
	struct neuron_fw_read r;
	unsigned int i;

	memset(val, 0, n * sizeof(*val));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.count = n;
	for (i = 0; i < n && i < NEURON_FW_READ_MAX; i++)
		r.addr[i] = addr[i];
	if (ioctl(fd, NEURON_IOCTL_FW_READ, &r))
		return -errno;
	for (i = 0; i < n; i++)
		val[i] = r.value[i];
	return 0;
}

static inline int vt_fw_read1(int fd, uint64_t addr, uint32_t *val)
{
	return vt_fw_read(fd, &addr, 1, val);
}

/* FW_POWER_PROFILE @profile. */
static inline int vt_fw_power(int fd, unsigned int profile)
{
	struct neuron_fw_power_profile p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.profile = profile;
	return ioctl(fd, NEURON_IOCTL_FW_POWER_PROFILE, &p) ? -errno : 0;
}

#endif /* VMDEV_H */
