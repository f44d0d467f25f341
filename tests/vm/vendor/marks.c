// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: range marks. */
#include "vendor.h"

/* ==== 3. range marks ===================================================== */

/*
 * The vendor's measured sequence: A marks 1 of 0..1 (0x1); B asks core 0
 * alone (EBUSY, max 0 copied back), 2 of 0..1 (EBUSY, max 1), 1 of 0..1
 * (0x2). B's unmark of A's core answers 0 and the core stays A's.
 */
static int range_mark_sequence_body(void)
{
	struct agent a, b;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 1, 0x1);
	MARK_BUSY(&b, 0, 1, 0, 0, 0);
	MARK_BUSY(&b, 0, 2, 0, 1, 1);
	MARK_OK(&b, 0, 1, 0, 1, 0x2);
	VT_ASSERT(ag_unmark(&b, 0, 0x1) == 0, "B unmarking A's core: not 0");
	MARK_BUSY(&b, 0, 1, 0, 0, 0);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x1 && own_nc_map(0, b.pid) == 0x2,
		  "APPS_INFO: A %#x B %#x, expected 0x1 and 0x2", own_nc_map(0, a.pid),
		  own_nc_map(0, b.pid));
	return 0;
}
ISOLATED(range_mark_sequence)

/*
 * nc_count 0 marks nothing (0); start above end, or start past the
 * device's last core (3), -EINVAL; an end past the last core reads as the
 * last core; unmark ignores bits past the device's cores.
 */
static int range_mark_bounds_body(void)
{
	struct vnd_nc_map m;
	struct agent a;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_RDWR) == 0, "agent");
	r = ag_mark(&a, 0, 0, 0, 3, &m);
	VT_ASSERT(r == 0 && m.bitmap == 0, "nc_count 0: %s, bitmap %#llx", err(r),
		  (unsigned long long)m.bitmap);
	VT_ASSERT(own_nc_map(0, a.pid) == 0, "nc_count 0 marked %#x", own_nc_map(0, a.pid));
	r = ag_mark(&a, 0, 1, 2, 1, &m);
	VT_ASSERT(r == -EINVAL, "start 2 > end 1: %s", err(r));
	r = ag_mark(&a, 0, 1, NC_COUNT, NC_COUNT, &m);
	VT_ASSERT(r == -EINVAL, "start 4 (the device has 4 cores): %s", err(r));
	r = ag_mark(&a, 0, 1, NC_COUNT, 100, &m);
	VT_ASSERT(r == -EINVAL, "start 4, end 100: %s", err(r));
	r = ag_mark(&a, 0, 1, 8, 8, &m);
	VT_ASSERT(r == -EINVAL, "start 8 (another device's core for the vendor): %s", err(r));
	VT_ASSERT(own_nc_map(0, a.pid) == 0, "a refused mark marked %#x", own_nc_map(0, a.pid));
	MARK_OK(&a, 0, 1, 2, 100, 0x4);
	MARK_OK(&a, 0, 1, 3, 100, 0x8);
	/* cores 2 and 3 are the caller's own: taken */
	MARK_BUSY(&a, 0, 1, 2, 100, 0);
	MARK_BUSY(&a, 0, 3, 0, 100, 2);
	r = ag_unmark(&a, 0, 0xF0ULL | 0x4);
	VT_ASSERT(r == 0, "unmark with bits past the device's cores: %s", err(r));
	VT_ASSERT(own_nc_map(0, a.pid) == 0x8, "after unmarking core 2: %#x, expected 0x8",
		  own_nc_map(0, a.pid));
	return 0;
}
ISOLATED(range_mark_bounds)

/* The EXT0 commands: the same with bitmap[8]; only bitmap[0] names cores here. */
static int range_mark_ext0_body(void)
{
	struct vnd_nc_map_ext x;
	struct agent a, b;
	unsigned int i;
	long r;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	memset(&x, 0xFF, sizeof(x));
	x.nc_count = 2;
	x.start_nc_index = 0;
	x.end_nc_index = 3;
	r = ag_ioctl(&a, 0, VND_CRWL_NC_RANGE_MARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == 0 && x.bitmap[0] == 0x3, "EXT0 2 of 0..3: %s, bitmap[0] %#llx", err(r),
		  (unsigned long long)x.bitmap[0]);
	for (i = 1; i < VND_NC_MAP_EXT_WORDS; i++)
		VT_ASSERT(x.bitmap[i] == 0, "EXT0 bitmap[%u] = %#llx", i,
			  (unsigned long long)x.bitmap[i]);
	MARK_OK(&b, 0, 1, 0, 3, 0x4);
	memset(&x, 0, sizeof(x));
	x.nc_count = 2;
	x.end_nc_index = 3;
	x.max_nc_available = 0xFFFFFFFFu;
	r = ag_ioctl(&b, 0, VND_CRWL_NC_RANGE_MARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == -EBUSY && x.max_nc_available == 1, "EXT0 2 of 0..3 for B: %s, max %u",
		  err(r), x.max_nc_available);
	memset(&x, 0, sizeof(x));
	x.bitmap[0] = 0x1;
	r = ag_ioctl(&a, 0, VND_CRWL_NC_RANGE_UNMARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == 0, "UNMARK_EXT0: %s", err(r));
	VT_ASSERT(own_nc_map(0, a.pid) == 0x2, "A after UNMARK_EXT0 of core 0: %#x",
		  own_nc_map(0, a.pid));
	memset(&x, 0, sizeof(x));
	x.nc_count = 1;
	r = ag_ioctl(&b, 0, VND_CRWL_NC_RANGE_MARK_EXT0, &x, sizeof(x));
	VT_ASSERT(r == 0 && x.bitmap[0] == 0x1, "B EXT0 core 0 after A's unmark: %s, %#llx",
		  err(r), (unsigned long long)x.bitmap[0]);
	return 0;
}
ISOLATED(range_mark_ext0)

/*
 * First fit without the vendor's skip: the core right after a busy one
 * is considered. Core 1 busy, 2 and 3 free: 2 of 0..3 is 0xC (the vendor
 * refuses). Cores 0 and 3 busy: 0x6. Core 2 busy: the lowest run, 0x3.
 */
static int range_mark_first_fit_no_skip_body(void)
{
	struct agent a, b;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 1, 1, 0x2);
	MARK_OK(&b, 0, 2, 0, 3, 0xC);
	VT_ASSERT(ag_unmark(&a, 0, 0xF) == 0 && ag_unmark(&b, 0, 0xF) == 0, "unmark all");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	MARK_OK(&a, 0, 1, 3, 3, 0x8);
	MARK_OK(&b, 0, 2, 0, 3, 0x6);
	VT_ASSERT(ag_unmark(&a, 0, 0xF) == 0 && ag_unmark(&b, 0, 0xF) == 0, "unmark all");
	MARK_OK(&a, 0, 1, 2, 2, 0x4);
	MARK_OK(&b, 0, 2, 0, 3, 0x3);
	return 0;
}
ISOLATED(range_mark_first_fit_no_skip)

/*
 * A core the caller holds counts as taken; indexes are device-relative:
 * core 0 of neuron1 is free while core 0 of neuron0 is marked.
 */
static int range_mark_own_and_per_device_body(void)
{
	struct agent a, b;

	VT_ASSERT(ag_start(&a, "A") == 0 && ag_start(&b, "B") == 0, "agents");
	VT_ASSERT(ag_open(&a, 0, 0, O_RDWR) == 0 && ag_open(&b, 0, 1, O_RDWR) == 0, "open");
	MARK_OK(&a, 0, 1, 0, 0, 0x1);
	MARK_BUSY(&a, 0, 1, 0, 0, 0);
	MARK_OK(&a, 0, 1, 0, 1, 0x2);
	MARK_OK(&b, 0, 1, 0, 0, 0x1);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x3 && own_nc_map(1, b.pid) == 0x1,
		  "APPS_INFO: A on neuron0 %#x, B on neuron1 %#x", own_nc_map(0, a.pid),
		  own_nc_map(1, b.pid));
	VT_ASSERT(ag_unmark(&a, 0, 0x1) == 0, "A unmark");
	VT_ASSERT(own_nc_map(1, b.pid) == 0x1 && own_nc_map(0, a.pid) == 0x2,
		  "unmark on neuron0 changed neuron1: %#x / %#x", own_nc_map(1, b.pid),
		  own_nc_map(0, a.pid));
	return 0;
}
ISOLATED(range_mark_own_and_per_device)
