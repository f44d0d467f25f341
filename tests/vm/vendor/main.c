// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest: the vendor's ioctl ABI as this driver answers it
 * (docs/vendor-abi.md; tests/vm/45_vendor.sh).
 *
 * Expects the module loaded with sim_devices=2 sim_nc_per_device=4 and
 * /dev/neuron0, /dev/neuron1 open to every user (mode 0666).
 *
 * Written only against the vendor's layouts: the structs and command
 * values of vnd_abi.h are typed from them (magic 'N', x86_64, pointer-sized
 * commands encoded with size 8), never taken from this project's header
 * of the vendor's commands. The compile-time checks pin every number,
 * size and offset; the cases prove what the driver does with them:
 *
 *  - identity and info: architecture 2 and revision 0 on a simulated
 *    device, bar_address 0 and every unnamed byte 0, the device's own
 *    index, runtime versions 7..5, driver info with no feature, the
 *    retired commands, -EOPNOTSUPP / -EINVAL / -ENOTTY / -EFAULT where
 *    the vendor answers -ENOTSUPP, -1, -EINVAL or a positive count;
 *  - range marks: the vendor's measured two-process sequence, the bounds
 *    (start past the device's cores refused, end clamped), first fit
 *    without the vendor's skip after a busy core, and marks that end
 *    with the process's last close whichever fd made them;
 *  - one state behind both ABIs: a core marked through the vendor's
 *    command is busy for this driver's CORE_RESERVE and released by its
 *    CORE_RELEASE, and the other way round; both process listings agree;
 *  - NDS: the vendor's ACQUIRE_NEURON_DS hands out the slab and mmap
 *    cookie this driver's NDS_ACQUIRE does, counters added through one
 *    ABI show through the other's mapping and in sysfs, RELEASE folds
 *    them once, and another process only looks (read-only);
 *  - READ_HW_COUNTERS: the words FW_READ reads, bounded count, and only
 *    the identity words without CAP_SYS_ADMIN;
 *  - DEVICE_APP_PID and DEVICE_GET_ALL_APPS_INFO: the oldest opener,
 *    the list in open order, capacity honoured, records zeroed.
 *
 * Every case runs in a process of its own, and the processes it compares
 * ("agents") are its children, each with its own open of the device, so
 * whatever a failed case leaves ends with it.
 */
#include "vendor.h"

/* ---- every case in a process of its own ----------------------------------- */

struct shared {
	char msg[512];	/* a failed case's message */
	char sub[512];	/* a failed sub-check's message (run_sub) */
};

static struct shared *sh;

int run_isolated(int (*body)(void), char *body_msg)
{
	pid_t pid;
	int st = 0, r;

	sh->msg[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		vt_fail_msg(__FILE__, __LINE__, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		alarm(120);
		body_msg[0] = '\0';
		r = body();
		if (r)
			snprintf(sh->msg, sizeof(sh->msg), "%s",
				 body_msg[0] ? body_msg : "failed without a message");
		_exit(r ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/*
	 * The case's agents were reparented here (a child subreaper) when it
	 * ended; they end once their request pipe closes. Wait for them, so
	 * the next case starts with nothing of this one held.
	 */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(vt_msg, sizeof(vt_msg), "the case's process died of signal %d (%s)",
			 WTERMSIG(st), WTERMSIG(st) == SIGALRM ? "120 s" : "crash");
	else
		snprintf(vt_msg, sizeof(vt_msg), "%s", sh->msg);
	return -1;
}

char sub_why[512];

/* run_sub(): @fn_msg is the vt_msg of @fn's file */
int run_sub_msg(int (*fn)(void *), void *arg, char *fn_msg)
{
	pid_t pid;
	int st = 0, r;

	sh->sub[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(sub_why, sizeof(sub_why), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		fn_msg[0] = '\0';
		r = fn(arg);
		if (r)
			snprintf(sh->sub, sizeof(sh->sub), "%s",
				 fn_msg[0] ? fn_msg : "failed without a message");
		_exit(r ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(sub_why, sizeof(sub_why), "the child died of signal %d", WTERMSIG(st));
	else
		snprintf(sub_why, sizeof(sub_why), "in the child: %.480s", sh->sub);
	return -1;
}

int main(void)
{
	static const struct vt_case cases[] = {
		/* 1, 2: numbers, identity and info */
		VT_CASE(commands_answered_on_any_fd),
		VT_CASE(basic_info_arch_revision),
		VT_CASE(device_info_zeroed),
		VT_CASE(host_device_id_is_index),
		VT_CASE(compatible_version),
		VT_CASE(driver_info_get),
		VT_CASE(driver_info_encodings),
		VT_CASE(dmabuf_fd_needs_a_mapping),
		VT_CASE(bdf_unsupported_on_simulated),
		VT_CASE(ready_and_reset_status),
		VT_CASE(retired_commands),
		VT_CASE(unknown_commands_enotty),
		VT_CASE(bad_pointer_efault),
		/* 3: range marks */
		VT_CASE(range_mark_sequence),
		VT_CASE(range_mark_bounds),
		VT_CASE(range_mark_ext0),
		VT_CASE(range_mark_first_fit_no_skip),
		VT_CASE(range_mark_own_and_per_device),
		/* 4: one state behind both ABIs */
		VT_CASE(cross_mark_and_reserve_exclude),
		VT_CASE(cross_release_either_way),
		VT_CASE(cross_apps_info_agree),
		/* 5: marks end with the process */
		VT_CASE(marks_end_at_exit_rdwr),
		VT_CASE(marks_end_at_exit_wronly),
		VT_CASE(marks_end_at_last_close),
		VT_CASE(inherited_fd_refused),
		/* 6: NDS */
		VT_CASE(nds_same_slab_both_abis),
		VT_CASE(nds_counters_cross),
		VT_CASE(nds_monitor_lookup),
		VT_CASE(nds_release_folds),
		/* 7: READ_HW_COUNTERS */
		VT_CASE(hw_counters_match_fw_read),
		VT_CASE(hw_counters_count_bounds),
		VT_CASE(hw_counters_unprivileged),
		VT_CASE(post_metric),
		/* 8: processes */
		VT_CASE(app_pid_oldest_opener),
		VT_CASE(all_apps_info_list),
		VT_CASE(all_apps_info_host_memory),
		/* 9: notification rings */
		VT_CASE(nq_v2_ring_entries),
		VT_CASE(nq_init_refusals),
		VT_CASE(nq_one_table),
		VT_CASE(nq_realloc_replaces),
		/* 10: resets */
		VT_CASE(nc_reset_held_core),
		VT_CASE(nc_reset_refusals),
		VT_CASE(nc_reset_revives_core),
		VT_CASE(device_reset_alone),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* the agents of a case that ended are reparented here and reaped */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	return vt_run("vendor", cases, VT_COUNT(cases));
}
