// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: READ_HW_COUNTERS and POST_METRIC. */
#include "vendor.h"

/* ==== 7. READ_HW_COUNTERS ================================================== */

/* MiscRAM at its v2 device address: what a simulated device answers at */
#define MISC_V2		0x000FFFF0FA0000ULL
#define MISC_V3		0x00008006C84000ULL
#define MISC_API	0x00
#define MISC_DEVICE_ID	0x24
#define MISC_SERIAL_LO	0x38
#define MISC_SERIAL_HI	0x3C
#define HW_COUNT_MAX	1024

static const uint32_t ident_off[4] = { MISC_DEVICE_ID, MISC_API, MISC_SERIAL_LO, MISC_SERIAL_HI };

static long hw_read(int fd, const uint64_t *addr, uint32_t *data, uint32_t count)
{
	struct vnd_read_hw_counters hc;

	memset(&hc, 0, sizeof(hc));
	hc.address = (uintptr_t)addr;
	hc.data = (uintptr_t)data;
	hc.count = count;
	return xioctl(fd, VND_READ_HW_COUNTERS, &hc);
}

/* The identity words of @dev through READ_HW_COUNTERS and through FW_READ. */
static int ident_words(int dev, uint32_t *vnd, uint32_t *own)
{
	uint64_t addr[4], moff[4];
	unsigned int i;
	int fd = open_dev(dev, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i < 4; i++) {
		addr[i] = MISC_V2 + ident_off[i];
		moff[i] = ident_off[i];
	}
	memset(vnd, 0xAA, 4 * sizeof(*vnd));
	r = hw_read(fd, addr, vnd, 4);
	VT_ASSERT(r == 0, "neuron%d READ_HW_COUNTERS: %s", dev, err(r));
	r = vt_fw_read(fd, moff, 4, own);
	VT_ASSERT(r == 0, "neuron%d FW_READ: %s", dev, err(r));
	close(fd);
	return 0;
}

/*
 * As root: DEVICE_ID, API_VERSION, SERIAL LO/HI at v2's MiscRAM device
 * address read what FW_READ reads at those MiscRAM offsets, per device.
 */
static int hw_counters_match_fw_read_body(void)
{
	uint32_t vnd[NDEV][4], own[NDEV][4];
	unsigned int i;
	int dev;

	for (dev = 0; dev < NDEV; dev++) {
		if (ident_words(dev, vnd[dev], own[dev]))
			return -1;
		for (i = 0; i < 4; i++)
			VT_ASSERT(vnd[dev][i] == own[dev][i],
				  "neuron%d MiscRAM %#x: READ_HW_COUNTERS %#x, FW_READ %#x", dev,
				  ident_off[i], vnd[dev][i], own[dev][i]);
		VT_ASSERT(vnd[dev][1] == 7, "neuron%d API_VERSION %u, expected 7", dev,
			  vnd[dev][1]);
	}
	VT_ASSERT(vnd[0][2] != vnd[1][2], "both devices read serial lo %#x", vnd[0][2]);
	return 0;
}
ISOLATED(hw_counters_match_fw_read)

/*
 * count 0: 0, nothing read; above 1024: -E2BIG; 20 addresses (more than
 * one FW-IO message) all read.
 */
static int hw_counters_count_bounds_body(void)
{
	static uint64_t addr[HW_COUNT_MAX + 1];
	static uint32_t data[HW_COUNT_MAX + 1];
	uint32_t want[4], own[4];
	unsigned int i;
	int fd;
	long r;

	if (ident_words(0, want, own))
		return -1;
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	for (i = 0; i <= HW_COUNT_MAX; i++)
		addr[i] = MISC_V2 + ident_off[i % 4];
	memset(data, 0xAA, sizeof(data));
	r = hw_read(fd, addr, data, 0);
	VT_ASSERT(r == 0, "count 0: %s", err(r));
	VT_ASSERT(all_bytes(data, sizeof(data), 0xAA), "count 0 wrote data");
	r = hw_read(fd, addr, data, HW_COUNT_MAX + 1);
	VT_ASSERT(r == -E2BIG, "count 1025: %s, expected E2BIG", err(r));
	VT_ASSERT(all_bytes(data, sizeof(data), 0xAA), "count 1025 wrote data");
	r = hw_read(fd, addr, data, 20);
	VT_ASSERT(r == 0, "count 20: %s", err(r));
	for (i = 0; i < 20; i++)
		VT_ASSERT(data[i] == want[i % 4], "word %u: %#x, expected %#x", i, data[i],
			  want[i % 4]);
	VT_ASSERT(data[20] == 0xAAAAAAAAu, "count 20 wrote a 21st word");
	close(fd);
	return 0;
}
ISOLATED(hw_counters_count_bounds)

static uint32_t g_ident[4];

/* As nobody: the identity words only. */
static int hw_unprivileged_child(void *unused)
{
	uint64_t addr[4], moff = MISC_DEVICE_ID;
	uint32_t data[4], v;
	unsigned int i;
	int fd;
	long r;

	(void)unused;
	VT_ASSERT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
		  "cannot become nobody: %s", strerror(errno));
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "nobody cannot open /dev/neuron0 (is it 0666?): %s", strerror(errno));
	for (i = 0; i < 4; i++)
		addr[i] = MISC_V2 + ident_off[i];
	memset(data, 0xAA, sizeof(data));
	r = hw_read(fd, addr, data, 4);
	VT_ASSERT(r == 0, "identity words as nobody: %s", err(r));
	for (i = 0; i < 4; i++)
		VT_ASSERT(data[i] == g_ident[i], "as nobody, MiscRAM %#x reads %#x; root read %#x",
			  ident_off[i], data[i], g_ident[i]);
#define REFUSED(a0, a1, n, what)                                                           \
	do {                                                                               \
		addr[0] = (a0);                                                            \
		addr[1] = (a1);                                                            \
		memset(data, 0xAA, sizeof(data));                                          \
		r = hw_read(fd, addr, data, n);                                            \
		VT_ASSERT(r == -EPERM, "%s as nobody: %s, expected EPERM", what, err(r));  \
		VT_ASSERT(all_bytes(data, sizeof(data), 0xAA), "%s: data written", what); \
	} while (0)
	REFUSED(MISC_V2 + 0x100, 0, 1, "base + 0x100");
	REFUSED(MISC_V2 + MISC_DEVICE_ID, MISC_V2 + 0x100, 2, "DEVICE_ID then base + 0x100");
	REFUSED(MISC_V2 + MISC_DEVICE_ID + 1, 0, 1, "base + 0x25");
	REFUSED(MISC_V3 + MISC_DEVICE_ID, 0, 1, "v3's DEVICE_ID address on a simulated device");
	REFUSED(MISC_DEVICE_ID, 0, 1, "MiscRAM offset 0x24 as an address");
#undef REFUSED
	r = vt_fw_read(fd, &moff, 1, &v);
	VT_ASSERT(r == -EPERM, "FW_READ as nobody: %s, expected EPERM", vt_err_name(r));
	close(fd);
	return 0;
}

/* Without CAP_SYS_ADMIN: the four identity words, nothing else (-EPERM). */
static int hw_counters_unprivileged_body(void)
{
	uint32_t own[4];

	if (ident_words(0, g_ident, own))
		return -1;
	VT_ASSERT(run_sub(hw_unprivileged_child, NULL) == 0, "%s", sub_why);
	return 0;
}
ISOLATED(hw_counters_unprivileged)

/*
 * POST_METRIC: root's blob reaches the firmware as it is (the simulated
 * firmware records each blob's length, and refuses one that is not
 * metric records: EIO); no blob, or one over 128 bytes, is refused
 * before anything is posted; anyone else gets EPERM (the vendor lets
 * every opener post to the device's telemetry).
 */
static int post_len_seen(unsigned int len)
{
	static char buf[16384];
	char want[16], *p;

	if (vt_dbg_read(0, "fw/posted_blobs", buf, sizeof(buf)))
		return -1;
	snprintf(want, sizeof(want), "%u ", len);
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, want, strlen(want)))
			return 1;
	return 0;
}

static int post_unprivileged_child(void *unused)
{
	unsigned char blob[37] = { 1 };
	struct vnd_post_metric pm = { .data = (uintptr_t)blob, .data_size = sizeof(blob) };
	int fd;
	long r;

	(void)unused;
	VT_ASSERT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0,
		  "cannot become nobody: %s", strerror(errno));
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "nobody cannot open /dev/neuron0: %s", strerror(errno));
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EPERM, "POST_METRIC as nobody: %s, expected EPERM", err(r));
	close(fd);
	return 0;
}

static int post_metric_body(void)
{
	unsigned char blob[129];
	struct vnd_post_metric pm = { .data = (uintptr_t)blob };
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	memset(blob, 0x5A, sizeof(blob));
	VT_ASSERT(vt_dbg_write(0, "fw/posted", "clear") == 0, "clear fw/posted");
	pm.data_size = 0;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EINVAL, "an empty blob: %s, expected EINVAL", err(r));
	pm.data_size = 129;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -E2BIG, "129 bytes: %s, expected E2BIG", err(r));
	pm.data = 8;
	pm.data_size = 41;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EFAULT, "a bad pointer: %s, expected EFAULT", err(r));
	VT_ASSERT(post_len_seen(41) == 0 && post_len_seen(129) == 0, "a refused blob was posted");
	/* not records of [cw_id][len][ASCII]: the firmware refuses it */
	pm.data = (uintptr_t)blob;
	pm.data_size = 47;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == -EIO, "47 bytes of 0x5A as root: %s, expected EIO", err(r));
	/* one record: metric 12 (the instance id), 41 ASCII bytes */
	blob[0] = 12;
	blob[1] = 41;
	memcpy(blob + 2, "i-0123456789abcdef0-vendor-post-metric-41", 41);
	pm.data_size = 43;
	r = xioctl(fd, VND_POST_METRIC, &pm);
	VT_ASSERT(r == 0, "a 43-byte record as root: %s", err(r));
	VT_ASSERT(post_len_seen(43) == 1, "the firmware recorded no blob of 43 bytes");
	close(fd);
	VT_ASSERT(run_sub(post_unprivileged_child, NULL) == 0, "%s", sub_why);
	return 0;
}
ISOLATED(post_metric)
