// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: one state behind both ABIs. */
#include "vendor.h"

/* ==== 4. one state behind both ABIs ======================================= */

/* A core marked through the vendor's command is busy for CORE_RESERVE, and the reverse. */
static int cross_mark_and_reserve_exclude_body(void)
{
	struct agent a, b;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 0);
	VT_ASSERT(r == -EBUSY, "B CORE_RESERVE of A's marked core: %s, expected EBUSY", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 1);
	VT_ASSERT(r == 0, "B CORE_RESERVE 1: %s", err(r));
	MARK_BUSY(&a, 0, 1, 1, 1, 0);
	/* 0 is A's own, 1 is B's: the first fit is core 2 */
	MARK_OK(&a, 0, 1, 0, 3, 0x4);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x5 && own_nc_map(0, b.pid) == 0x2,
		  "APPS_INFO: A %#x B %#x", own_nc_map(0, a.pid), own_nc_map(0, b.pid));
	return 0;
}
ISOLATED(cross_mark_and_reserve_exclude)

/*
 * CORE_RELEASE frees a core marked through the vendor's command; the
 * vendor's UNMARK frees a core reserved with CORE_RESERVE.
 */
static int cross_release_either_way_body(void)
{
	struct agent a, b;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	r = ag_core(&a, 0, NEURON_IOCTL_CORE_RELEASE, 0);
	VT_ASSERT(r == 0, "A CORE_RELEASE of its marked core: %s", err(r));
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 0);
	VT_ASSERT(r == 0, "B CORE_RESERVE of the released core: %s", err(r));
	r = ag_core(&a, 0, NEURON_IOCTL_CORE_RELEASE, 0);
	VT_ASSERT(r == -ENOENT, "A CORE_RELEASE of B's core: %s, expected ENOENT", err(r));
	r = ag_core(&a, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == 0, "A CORE_RESERVE 2: %s", err(r));
	MARK_BUSY(&b, 0, 1, 2, 2, 0);
	VT_ASSERT(ag_unmark(&a, 0, 0x4) == 0, "A UNMARK of its reserved core");
	VT_ASSERT(own_nc_map(0, a.pid) == 0, "A still holds %#x", own_nc_map(0, a.pid));
	MARK_OK(&b, 0, 1, 2, 2, 0x4);
	return 0;
}
ISOLATED(cross_release_either_way)

/*
 * APPS_INFO and DEVICE_GET_ALL_APPS_INFO (flag 1) list the same processes
 * in the same order with the same cores: nc_map = nc_lock_map, marks and
 * reservations alike.
 */
static int cross_apps_info_agree_body(void)
{
	static struct vnd_apps_buf vb;
	struct neuron_apps_info oa;
	struct agent a, b;
	uint32_t i;
	int fd;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 2, 1, 3, 0x6);
	VT_ASSERT(ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 0) == 0, "B CORE_RESERVE 0");
	fd = open_dev(0, O_RDWR);
	VT_ASSERT(fd >= 0, "open");
	memset(&oa, 0, sizeof(oa));
	oa.size = sizeof(oa);
	r = xioctl(fd, NEURON_IOCTL_APPS_INFO, &oa);
	VT_ASSERT(r == 0, "APPS_INFO: %s", err(r));
	r = vnd_apps(fd, VND_APPS_FLAG_NC_LOCK, VND_APPS_MAX, &vb);
	VT_ASSERT(r == 0, "DEVICE_GET_ALL_APPS_INFO: %s", err(r));
	VT_ASSERT(oa.count == 3 && vb.hdr.size == oa.count,
		  "APPS_INFO lists %u, the vendor's %u; expected 3 (A, B, this process)", oa.count,
		  vb.hdr.size);
	for (i = 0; i < oa.count; i++)
		VT_ASSERT(vb.app[i].pid == oa.app[i].pid &&
			  vb.app[i].nc_lock_map == oa.app[i].nc_map,
			  "entry %u: vendor pid %d map %#x, own pid %d map %#x", i, vb.app[i].pid,
			  vb.app[i].nc_lock_map, oa.app[i].pid, oa.app[i].nc_map);
	VT_ASSERT(oa.app[0].pid == a.pid && oa.app[0].nc_map == 0x6 && oa.app[1].pid == b.pid &&
		  oa.app[1].nc_map == 0x1 && oa.app[2].pid == getpid() && oa.app[2].nc_map == 0,
		  "expected A 0x6, B 0x1, this process 0: got %d %#x, %d %#x, %d %#x",
		  oa.app[0].pid, oa.app[0].nc_map, oa.app[1].pid, oa.app[1].nc_map, oa.app[2].pid,
		  oa.app[2].nc_map);
	close(fd);
	return 0;
}
ISOLATED(cross_apps_info_agree)
