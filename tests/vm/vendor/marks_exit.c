// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Guest vm_vendor, cases main.c runs: marks end with the process. */
#include "vendor.h"

/* ==== 5. marks end with the process, whichever fd made them ================ */

static int marks_end_at_exit(int flags)
{
	struct agent a, a2, b;
	long r;

	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "agent B");
	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, flags) == 0, "agent A");
	MARK_OK(&a, 0, 1, 3, 3, 0x8);
	MARK_BUSY(&b, 0, 1, 3, 3, 0);
	VT_ASSERT(ag_exit(&a), "A did not exit");
	MARK_OK(&b, 0, 1, 3, 3, 0x8);

	VT_ASSERT(ag_start(&a2, "A2") == 0 && ag_open(&a2, 0, 0, flags) == 0, "agent A2");
	MARK_OK(&a2, 0, 1, 2, 2, 0x4);
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == -EBUSY, "B CORE_RESERVE of A2's core: %s", err(r));
	VT_ASSERT(ag_exit(&a2), "A2 did not exit");
	r = ag_core(&b, 0, NEURON_IOCTL_CORE_RESERVE, 2);
	VT_ASSERT(r == 0, "B CORE_RESERVE after A2's exit: %s (its mark outlived it)", err(r));
	return 0;
}

/* Marked through an O_RDWR fd, not unmarked, the process exits: the core is free. */
static int marks_end_at_exit_rdwr_body(void)
{
	return marks_end_at_exit(O_RDWR);
}
ISOLATED(marks_end_at_exit_rdwr)

/* The same through an O_WRONLY fd. */
static int marks_end_at_exit_wronly_body(void)
{
	return marks_end_at_exit(O_WRONLY);
}
ISOLATED(marks_end_at_exit_wronly)

/*
 * A mark lasts until its process's last close, not the close of the fd
 * that made it (the vendor releases them at every O_WRONLY close), and a
 * SIGKILLed process's marks end too.
 */
static int marks_end_at_last_close_body(void)
{
	struct agent a, b, c;

	VT_ASSERT(ag_start(&b, "B") == 0 && ag_open(&b, 0, 0, O_RDWR) == 0, "agent B");
	VT_ASSERT(ag_start(&a, "A") == 0 && ag_open(&a, 0, 0, O_WRONLY) == 0 &&
		  ag_open(&a, 1, 0, O_RDWR) == 0, "agent A");
	MARK_OK(&a, 0, 1, 1, 1, 0x2);
	VT_ASSERT(ag_close(&a, 0) == 0, "A closes its O_WRONLY fd");
	MARK_BUSY(&b, 0, 1, 1, 1, 0);
	VT_ASSERT(own_nc_map(0, a.pid) == 0x2, "A's core after closing one of two fds: %#x",
		  own_nc_map(0, a.pid));
	VT_ASSERT(ag_close(&a, 1) == 0, "A closes its last fd");
	MARK_OK(&b, 0, 1, 1, 1, 0x2);

	VT_ASSERT(ag_start(&c, "C") == 0 && ag_open(&c, 0, 0, O_RDWR) == 0, "agent C");
	MARK_OK(&c, 0, 1, 0, 0, 0x1);
	VT_ASSERT(ag_kill(&c), "C was not killed");
	MARK_OK(&b, 0, 1, 0, 0, 0x1);
	return 0;
}
ISOLATED(marks_end_at_last_close)

/*
 * Through a file another process opened (inherited across fork), the
 * commands that create state for the caller's process are -EACCES;
 * identity commands still answer.
 */
static int inherited_child(void *arg)
{
	int fd = *(int *)arg;
	struct neuron_core_reserve cr;
	struct vnd_device_basic_info bi;
	struct vnd_ds_info ds;
	struct vnd_nc_map m;
	long r;

	memset(&ds, 0, sizeof(ds));
	r = xioctl(fd, VND_ACQUIRE_NEURON_DS, &ds);
	VT_ASSERT(r == -EACCES, "ACQUIRE_NEURON_DS pid 0 through the parent's fd: %s", err(r));
	map_init(&m, 1, 0, 0);
	r = xioctl(fd, VND_CRWL_NC_RANGE_MARK, &m);
	VT_ASSERT(r == -EACCES, "CRWL_NC_RANGE_MARK through the parent's fd: %s", err(r));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	r = xioctl(fd, NEURON_IOCTL_CORE_RESERVE, &cr);
	VT_ASSERT(r == -EACCES, "CORE_RESERVE through the parent's fd: %s", err(r));
	r = xioctl(fd, VND_DEVICE_BASIC_INFO, &bi);
	VT_ASSERT(r == 0, "DEVICE_BASIC_INFO through the parent's fd: %s", err(r));
	return 0;
}

static int inherited_fd_refused_body(void)
{
	struct vnd_nc_map m;
	int fd = open_dev(0, O_RDWR);
	long r;

	VT_ASSERT(fd >= 0, "open");
	VT_ASSERT(run_sub(inherited_child, &fd) == 0, "%s", sub_why);
	VT_ASSERT(own_nc_map(0, getpid()) == 0, "the child's attempts marked %#x",
		  own_nc_map(0, getpid()));
	map_init(&m, 1, 0, 0);
	r = xioctl(fd, VND_CRWL_NC_RANGE_MARK, &m);
	VT_ASSERT(r == 0 && m.bitmap == 0x1, "the opener's own mark: %s, %#llx", err(r),
		  (unsigned long long)m.bitmap);
	memset(&m, 0, sizeof(m));
	m.bitmap = 0x1;
	VT_ASSERT(xioctl(fd, VND_CRWL_NC_RANGE_UNMARK, &m) == 0, "unmark");
	close(fd);
	return 0;
}
ISOLATED(inherited_fd_refused)
