/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The "neuron" generic netlink family: a counters dump and an error-event
 * multicast group. Resolve the family id and the group id by name through
 * the generic netlink controller. The family lives in the initial network
 * namespace only.
 *
 * NEURON_GENL_CMD_COUNTERS_GET
 *	request:  [NEURON_GENL_A_DEVICE] [NEURON_GENL_A_NC]
 *	dump (NLM_F_DUMP): one reply per (device, NeuronCore), every device
 *		or only NEURON_GENL_A_DEVICE's; restartable.
 *	do: NEURON_GENL_A_DEVICE and NEURON_GENL_A_NC required; one reply.
 *	reply: DEVICE, NC, then NEURON_GENL_A_COUNTER (nested) once per
 *		status counter, in sysfs creation order: COUNTER_NAME (the
 *		stats/status/<name> directory), COUNTER_ID (NDS NC/EXT id),
 *		TOTAL (the live total, what <name>/total shows).
 *	errors: ENODEV no such device, ENOENT no such NeuronCore, EINVAL a
 *		required attribute is missing; each with an extack message.
 *
 * NEURON_GENL_CMD_ERROR_EVENT (multicast on NEURON_GENL_MCGRP_ERRORS)
 *	DEVICE, NC, EVENT_KIND, ERROR_CODE, COUNT, ACTION, PID, COMM, SEQ,
 *	DROPPED, TIMESTAMP_NS: a job on the NeuronCore wrote COUNT error
 *	entries of one fault kind into its error ring (entries dropped on a
 *	full ring included). One notification per (job, kind, code). PID and
 *	COMM are the job's process.
 *
 * NEURON_GENL_CMD_HEALTH_EVENT (multicast on NEURON_GENL_MCGRP_ERRORS)
 *	DEVICE, [NC], HEALTH, HEALTH_REASON, HEALTH_PREV, ACTION, [PID, COMM],
 *	SEQ, DROPPED, TIMESTAMP_NS: the health of the device (no NC) or of
 *	one of its NeuronCores (NC) changed from HEALTH_PREV to HEALTH, for
 *	HEALTH_REASON. One notification per change; what sysfs .../health
 *	and .../health_reason read after it. PID and COMM: the process
 *	holding the NeuronCore, when one does.
 *
 * Every event of a device takes the next SEQ of the device (from 1),
 * whether or not it could be sent, and carries DROPPED, the device's
 * events not delivered so far: never sent (no memory), or not taken by a
 * listener that asked for delivery errors (NETLINK_BROADCAST_ERROR) with
 * a full receive buffer. Events of two NeuronCores may arrive in the
 * other order of their SEQ; a number still missing once later ones have
 * come is an event the listener missed (it is also told of an overrun by
 * ENOBUFS on its socket, as any netlink listener is); ACTION is what a responder does about the event
 * (enum neuron_recovery_action, one table per error class: docs).
 */
#ifndef _UAPI_NEURON_GENL_H
#define _UAPI_NEURON_GENL_H

#define NEURON_GENL_FAMILY_NAME		"neuron"
#define NEURON_GENL_VERSION		1
#define NEURON_GENL_MCGRP_ERRORS	"errors"

enum neuron_genl_cmd {
	NEURON_GENL_CMD_UNSPEC,
	NEURON_GENL_CMD_COUNTERS_GET,	/* do or dump, unprivileged */
	NEURON_GENL_CMD_ERROR_EVENT,	/* notification only */
	NEURON_GENL_CMD_HEALTH_EVENT,	/* notification only */

	__NEURON_GENL_CMD_MAX,
	NEURON_GENL_CMD_MAX = __NEURON_GENL_CMD_MAX - 1
};

enum neuron_genl_attr {
	NEURON_GENL_A_UNSPEC,
	NEURON_GENL_A_PAD,		/* alignment of the u64 attributes */
	NEURON_GENL_A_DEVICE,		/* u32: N of /dev/neuron<N> */
	NEURON_GENL_A_NC,		/* u32: NeuronCore index on the device */
	NEURON_GENL_A_COUNTER,		/* nested: COUNTER_NAME, COUNTER_ID, TOTAL */
	NEURON_GENL_A_COUNTER_NAME,	/* string: "hw_hbm_ue_error", ... */
	NEURON_GENL_A_COUNTER_ID,	/* u32: NDS NC (0..30) or EXT (31..40) id */
	NEURON_GENL_A_TOTAL,		/* u64: live total */
	NEURON_GENL_A_EVENT_KIND,	/* u32: enum neuron_genl_event_kind */
	NEURON_GENL_A_ERROR_CODE,	/* u32: meaning set by EVENT_KIND */
	NEURON_GENL_A_TIMESTAMP_NS,	/* u64: CLOCK_MONOTONIC, nanoseconds */
	NEURON_GENL_A_COUNT,		/* u32: entries of this kind */
	NEURON_GENL_A_HEALTH,		/* u32: enum neuron_health_state, now */
	NEURON_GENL_A_HEALTH_REASON,	/* u32: enum neuron_health_reason */
	NEURON_GENL_A_HEALTH_PREV,	/* u32: enum neuron_health_state, before */
	NEURON_GENL_A_SIMULATED,	/* flag: the device is simulated (events, counters) */
	NEURON_GENL_A_ACTION,		/* u32: enum neuron_recovery_action */
	NEURON_GENL_A_PID,		/* u32: process, in the initial pid namespace */
	NEURON_GENL_A_COMM,		/* string: that process's name, as the kernel keeps it */
	NEURON_GENL_A_SEQ,		/* u64: the device's event sequence number, from 1 */
	NEURON_GENL_A_DROPPED,		/* u64: the device's events not delivered so far */

	__NEURON_GENL_A_MAX,
	NEURON_GENL_A_MAX = __NEURON_GENL_A_MAX - 1
};

/* NEURON_GENL_A_EVENT_KIND and what NEURON_GENL_A_ERROR_CODE then holds. */
enum neuron_genl_event_kind {
	NEURON_GENL_EVENT_UNSPEC,
	/* code: enum neuron_tpb_error_type (<neuron/neuron_nq.h>), 0..10 */
	NEURON_GENL_EVENT_TPB_ERROR,
	/* code: enum neuron_nq_hw_error, 1..5 */
	NEURON_GENL_EVENT_HW_ERROR,
	/* an armed nq_flood: code is the TPB type its entries carry */
	NEURON_GENL_EVENT_NQ_FLOOD,

	__NEURON_GENL_EVENT_MAX,
	NEURON_GENL_EVENT_MAX = __NEURON_GENL_EVENT_MAX - 1
};

/*
 * Health of a device or a NeuronCore (sysfs health: the names in the
 * comments), worst last.
 */
enum neuron_health_state {
	NEURON_HEALTH_OK,		/* "ok" */
	NEURON_HEALTH_DEGRADED,		/* "degraded": usable, not fully */
	NEURON_HEALTH_NEEDS_RESET,	/* "needs_reset": a reset brings it back */
	NEURON_HEALTH_FAILED,		/* "failed": a reset did not complete */

	__NEURON_HEALTH_MAX,
	NEURON_HEALTH_MAX = __NEURON_HEALTH_MAX - 1
};

/* Why (sysfs health_reason: the names in the comments). */
enum neuron_health_reason {
	NEURON_HEALTH_REASON_NONE,		/* "none" */
	NEURON_HEALTH_REASON_RESET_IN_PROGRESS,	/* "reset_in_progress" */
	NEURON_HEALTH_REASON_FW_NOT_ANSWERING,	/* "fw_not_answering" */
	NEURON_HEALTH_REASON_NC_UNRECOVERABLE,	/* "nc_unrecoverable" */
	NEURON_HEALTH_REASON_HBM_UNCORRECTABLE,	/* "hbm_uncorrectable" */
	NEURON_HEALTH_REASON_SRAM_UNCORRECTABLE, /* "sram_uncorrectable" */
	NEURON_HEALTH_REASON_RESET_FAILED,	/* "reset_failed" */

	__NEURON_HEALTH_REASON_MAX,
	NEURON_HEALTH_REASON_MAX = __NEURON_HEALTH_REASON_MAX - 1
};

/*
 * What a responder does about an event (NEURON_GENL_A_ACTION; the action=
 * word of the kernel log lines: the names in the comments), least
 * disruptive first.
 */
enum neuron_recovery_action {
	NEURON_ACTION_NONE,			/* "NONE": nothing to do */
	NEURON_ACTION_RESTART_JOB,		/* "RESTART_JOB": run the job again */
	NEURON_ACTION_RESET_DEVICE,		/* "RESET_DEVICE": reset the device */
	NEURON_ACTION_REBOOT_INSTANCE,		/* "REBOOT_INSTANCE": reboot the host */
	NEURON_ACTION_TERMINATE_INSTANCE,	/* "TERMINATE_INSTANCE": replace the host */

	__NEURON_ACTION_MAX,
	NEURON_ACTION_MAX = __NEURON_ACTION_MAX - 1
};

#endif /* _UAPI_NEURON_GENL_H */
