// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: the environment: the devices, and the sysfs, debugfs
 * and module parameter files the operations pick from.
 */
#include "hostile.h"

static char g_pool[POOL];
static size_t g_pool_used;

static const char *pool_add(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (g_pool_used + n > sizeof(g_pool))
		return NULL;
	p = g_pool + g_pool_used;
	memcpy(p, s, n);
	g_pool_used += n;
	return p;
}

unsigned int g_warn_excluded;

static int knob_known(const char *b)
{
	static const char *const k[] = { "tpb_error", "hw_error", "nq_flood", "hang", "ecc", "fault",
					  "slow_ms", "api_version", "posted", "post_now" };
	static const char *const ro[] = { "armed", "stats", "sim_stats", "last_seq", "posted_blobs",
					  "post_times", "post_tick" };
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(b, k[i]))
			return 1;
	for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
		if (!strcmp(b, ro[i]))
			return 0;
	return -1;
}

void walk(const char *dir, int cls, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((de = readdir(dp))) {
		const char *p, *b;
		mode_t mode;
		int known;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		/*
		 * sysfs, debugfs and the parameters fill d_type; an lstat()
		 * of each file makes the kernel build its inode, which under
		 * TCG and KASAN made a scan take seconds
		 */
		mode = de->d_type == DT_DIR ? S_IFDIR : de->d_type == DT_REG ? S_IFREG :
		       de->d_type == DT_UNKNOWN ? 0 : S_IFLNK;
		if (!mode) {
			if (lstat(path, &st))
				continue;
			mode = st.st_mode & S_IFMT;
		}
		if (S_ISLNK(mode))
			continue;
		if (S_ISDIR(mode)) {
			if (depth < 12)
				walk(path, cls, depth + 1);
			continue;
		}
		if (!S_ISREG(mode) || g_nfiles >= MAXFILES)
			continue;
		if ((g_rm_path && !strcmp(path, g_rm_path)) || (g_add_path && !strcmp(path, g_add_path)))
			continue;
		/* raises a kernel warning on purpose (the harness self-test) */
		if (cls == F_DEBUGFS && !strcmp(de->d_name, "warn")) {
			g_warn_excluded++;
			continue;
		}
		p = pool_add(path);
		if (!p)
			break;
		b = strrchr(p, '/') + 1;
		known = cls == F_DEBUGFS ? knob_known(b) : 1;
		if (known < 0)
			g_debugfs_unknown++;
		g_files[g_nfiles] = (struct fentry){ p, b, (uint8_t)cls, (uint8_t)(known > 0) };
		g_cls_idx[cls][g_cls_n[cls]++] = g_nfiles++;
	}
	closedir(dp);
}

int scan_devices(int *idx, uint32_t *nc, int max)
{
	struct neuron_info info;
	struct dirent *de;
	DIR *dp = opendir("/dev");
	int n = 0, v, i, j;

	if (!dp)
		return 0;
	while ((de = readdir(dp)) && n < max) {
		char extra;

		if (sscanf(de->d_name, "neuron%d%c", &v, &extra) == 1)
			idx[n++] = v;
	}
	closedir(dp);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			v = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = v;
		}
	for (i = 0; i < n; i++) {
		int fd = open_index(idx[i], O_RDWR);

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		nc[i] = 0;
		if (fd >= 0 && ioctl(fd, NEURON_IOCTL_GET_INFO, &info) == 0)
			nc[i] = info.nc_count;
		if (fd >= 0)
			close(fd);
	}
	return n;
}

/* The devices and files now: with removal, what the worker's parent saw may be gone. */
void rescan(void)
{
	int idx[MAXDEV], n = scan_devices(idx, g_nc, MAXDEV), i, k = 0;
	uint32_t nc[MAXDEV];

	memcpy(nc, g_nc, sizeof(nc));
	/* a device caught in the middle of its removal did not answer: leave it out */
	for (i = 0; i < n; i++)
		if (nc[i] && nc[i] <= MAXNC) {
			g_dev_index[k] = idx[i];
			g_nc[k++] = nc[i];
		}
	if (k)
		g_ndev = k;
	g_nfiles = 0;
	g_pool_used = 0;
	memset(g_cls_n, 0, sizeof(g_cls_n));
	g_debugfs_unknown = g_warn_excluded = 0;
	walk("/sys/devices/virtual/neuron_device", F_SYSFS, 0);
	walk("/sys/kernel/debug/neuron", F_DEBUGFS, 0);
	walk("/sys/module/neuron/parameters", F_PARAM, 0);
}
