# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: notification rings, the simulated NeuronCore, fault injection
# and the error path end to end.
SUITE=exec
PLAN=49
. /tests/lib.sh

check load load sim_devices=2 sim_nc_per_device=4
I=/sys/kernel/debug/neuron/neuron0/inject

check_eq knobs "armed ecc hang hw_error nc_unrecoverable nq_flood reset_fail tpb_error" "$(ls $I | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq knob-modes "--w------- --w------- --w------- --w-------" \
	"$(ls -l $I/tpb_error $I/hw_error $I/nq_flood $I/hang | cut -c1-10 | tr '\n' ' ' | sed 's/ $//')"

# Strict parsing: each bad line -> EINVAL and one dmesg line with the format.
bad_knob() {
	knob=$1; shift
	expect_refused "$knob-refuses-'$*'" "inject/$knob: expected" sh -c "echo '$*' > $I/$knob"
}
bad_knob tpb_error "0"
bad_knob tpb_error "4 1"
bad_knob tpb_error "0 11"
bad_knob tpb_error "0 NAN"
bad_knob tpb_error "0 FP_NAN 0"
bad_knob tpb_error "0 FP_NAN 65537"
bad_knob tpb_error "0 FP_NAN 1 2"
bad_knob tpb_error "x FP_NAN"
bad_knob hw_error "0 hbm"
bad_knob hw_error "0"
bad_knob hw_error "0 hbm_ue 0"
bad_knob nq_flood "0"
bad_knob nq_flood "0 0"
bad_knob nq_flood "0 1048577"
bad_knob hang ""
bad_knob hang "0 1"
bad_knob hang "5"
check_eq nothing-armed-by-bad-input "nc0 owner 0 flood 0 hang 0" "$(head -n 1 $I/armed)"

# Arming is visible and waits for the next job.
check arm-two sh -c "echo '2 SEMAPHORE_ERROR 2' > $I/tpb_error && echo '2 hbm_ue' > $I/hw_error"
check_eq armed-shows "nc2 owner 0 flood 0 hang 0 SEMAPHORE_ERROR:2 hbm_ue:1" "$(sed -n 3p $I/armed)"
check disarm-by-reload reload sim_devices=2 sim_nc_per_device=4
check_eq reload-clean "nc2 owner 0 flood 0 hang 0" "$(sed -n 3p $I/armed)"

run_prog /tests/vm_exec

check_eq nothing-left-armed "0" "$(grep -c -E 'flood [1-9]|hang 1|:' $I/armed)"
check_eq reservations-released "0" "$(grep -c -v 'owner 0 ' $I/armed)"
check unload unload
finish
