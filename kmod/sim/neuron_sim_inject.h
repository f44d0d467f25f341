/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection into a simulated device: every debugfs knob and all the
 * armed-fault state (sim/neuron_sim_inject.c). The NeuronCore engine and
 * the firmware emulator take what is armed through the two take functions
 * below; nothing else reads or writes the state.
 */
#ifndef NEURON_SIM_INJECT_H
#define NEURON_SIM_INJECT_H

#include <linux/spinlock.h>
#include <linux/types.h>

#include "../neuron_backend.h"

struct dentry;
struct neuron_sim_dev;

/* Firmware fault modes (fw/fault). */
enum neuron_sim_fw_fault {
	NEURON_SIM_FW_NONE,
	NEURON_SIM_FW_FAIL,		/* answer FAIL, do not execute */
	NEURON_SIM_FW_UNKNOWN_COMMAND,	/* answer UNKNOWN_COMMAND, do not execute */
	NEURON_SIM_FW_TIMEOUT,		/* never answer */
	NEURON_SIM_FW_BAD_SEQ,		/* execute, answer another sequence number */
	NEURON_SIM_FW_BAD_CRC,		/* the request arrives corrupted */
	NEURON_SIM_FW_SLOW,		/* execute, answer after slow_ms */
	NEURON_SIM_FW_OVERSIZE,		/* execute, answer 4 bytes too many */
	NEURON_SIM_FW_FAULT_COUNT,
};

/**
 * struct neuron_sim_nc_faults - what is armed on one NeuronCore (plain data)
 * @emit:	entries the next job writes, by kind
 * @hang:	the next job hangs (never completes)
 */
struct neuron_sim_nc_faults {
	struct neuron_job_faults emit;
	bool hang;
};

/**
 * struct neuron_sim_faults - the armed faults of one device (plain data)
 * @nc:		per NeuronCore
 * @fw:		the firmware fault mode
 * @fw_left:	requests it still applies to (unless @fw_sticky)
 * @fw_sticky:	it applies until cleared with "none"
 * @fw_slow_ms:	delay of the slow mode, ms
 * @reset_fail:	device resets still to fail (inject/reset_fail)
 */
struct neuron_sim_faults {
	struct neuron_sim_nc_faults nc[NEURON_MAX_NC];
	enum neuron_sim_fw_fault fw;
	u32 fw_left;
	bool fw_sticky;
	u32 fw_slow_ms;
	u32 reset_fail;
};

#define NEURON_SIM_KNOBS	12	/* debugfs files of enum sim_knob_id */

/**
 * struct neuron_sim_inject - fault injection of one device
 * @lock:	protects @armed
 * @armed:	what is armed; copied out whole, never referenced
 * @armed_nc:	bit per NeuronCore: something may be armed on it (set with
 *		it under @lock, cleared by the job that takes it); a job on a
 *		NeuronCore whose bit is clear takes nothing without the lock
 * @files:	the knobs' debugfs files (removed by neuron_sim_inject_exit())
 * @dir:	inject/
 * @sd:		the device (the knob files point at their slot of @knob)
 * @knob:	per knob file: the device and the knob it serves
 */
struct neuron_sim_inject {
	spinlock_t lock;
	struct neuron_sim_faults armed;
	unsigned long armed_nc;
	struct dentry *files[NEURON_SIM_KNOBS];
	struct dentry *dir;
	struct neuron_sim_knob_file {
		struct neuron_sim_dev *sd;
		unsigned int id;
	} knob[NEURON_SIM_KNOBS];
};

/* Nothing armed; before the device is created. */
void neuron_sim_inject_init(struct neuron_sim_dev *sd);
/* The knobs (inject/, fw/fault, fw/slow_ms, fw/api_version, warn); once the device exists. */
void neuron_sim_inject_debugfs(struct neuron_sim_dev *sd);
/* Remove the knobs: before the device is destroyed. Waits for knob users. */
void neuron_sim_inject_exit(struct neuron_sim_dev *sd);

/* A job starts on @nc: copy what is armed there into @out and disarm it. */
void neuron_sim_inject_take_nc(struct neuron_sim_dev *sd, u32 nc,
			       struct neuron_sim_nc_faults *out);
/*
 * A firmware request arrived: the fault mode it gets (one use of the armed
 * fault is consumed) and, through @slow_ms, the slow mode's delay.
 */
enum neuron_sim_fw_fault neuron_sim_inject_take_fw(struct neuron_sim_dev *sd, u32 *slow_ms);
/* A device reset starts: whether it is to fail (one armed failure is consumed). */
bool neuron_sim_inject_take_reset(struct neuron_sim_dev *sd);

#endif /* NEURON_SIM_INJECT_H */
