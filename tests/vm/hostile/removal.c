// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: devices removed and re-added while the fuzz runs,
 * through the module's run-time interface when it offers one.
 */
#include "hostile.h"

void detect_removal(void)
{
	static const char *const cand[][2] = {
		{ "/sys/bus/neuron_sim/del_device", "/sys/bus/neuron_sim/new_device" },
		{ "/sys/kernel/debug/neuron/del_device", "/sys/kernel/debug/neuron/new_device" },
	};
	const char *rm = getenv("VM_HOSTILE_DEL"), *add = getenv("VM_HOSTILE_ADD");
	size_t i;

	if (rm && add && !access(rm, W_OK) && !access(add, W_OK)) {
		g_rm_path = rm;
		g_add_path = add;
	}
	for (i = 0; !g_rm_path && i < sizeof(cand) / sizeof(cand[0]); i++)
		if (!access(cand[i][0], W_OK) && !access(cand[i][1], W_OK)) {
			g_rm_path = cand[i][0];
			g_add_path = cand[i][1];
		}
	g_removal = g_rm_path != NULL;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/*
 * The simulator's ids (/sys/bus/neuron_sim/devices/neuron_sim<ID>), not the
 * N of /dev/neuron<N>: a device added again gets the lowest free N, a new
 * one while files of the removed device are open. With another interface
 * (VM_HOSTILE_DEL/ADD) the ids are the /dev indexes found at the start.
 */
static int sim_ids(int *ids, uint32_t *nc, int max)
{
	struct dirent *de;
	DIR *dp = opendir("/sys/bus/neuron_sim/devices");
	int n = 0, id, i;

	if (!dp) {
		for (i = 0; i < g_ndev && i < max; i++) {
			ids[i] = g_dev_index[i];
			nc[i] = g_nc[i];
		}
		return i;
	}
	while ((de = readdir(dp)) && n < max) {
		char path[300], buf[16];
		int fd;
		ssize_t r;

		if (sscanf(de->d_name, "neuron_sim%d", &id) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/neuron_sim/devices/%s/nc_count", de->d_name);
		fd = open(path, O_RDONLY);
		r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf[r > 0 ? r : 0] = 0;
		ids[n] = id;
		nc[n++] = (uint32_t)atoi(buf);
	}
	closedir(dp);
	return n;
}

void removal_step(int *removed, uint32_t *removed_nc)
{
	int ids[MAXDEV], n;
	uint32_t nc[MAXDEV];
	char buf[32];

	if (*removed >= 0) {
		if (ctl_below(1000) < 300) {
			snprintf(buf, sizeof(buf), "%d %u\n", *removed, *removed_nc);
			if (write_str(g_add_path, buf)) {
				g_removal_errors++;
			} else {
				g_readds++;
				parent_rescan();	/* workers forked from now on fuzz it */
			}
			*removed = -1;
		}
		return;
	}
	if (ctl_below(1000) >= 50)
		return;
	n = sim_ids(ids, nc, MAXDEV);
	if (n < 2)	/* keep one device to fuzz */
		return;
	n = (int)ctl_below((uint32_t)n);
	snprintf(buf, sizeof(buf), "%d\n", ids[n]);
	if (write_str(g_rm_path, buf)) {
		g_removal_errors++;
		return;
	}
	g_removals++;
	*removed = ids[n];
	*removed_nc = nc[n];
	parent_rescan();
}
