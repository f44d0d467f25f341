# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Harness self-test: a kernel warning raised on purpose (debugfs warn, root
# only, simulated devices) must fail the run through the host's kernel-log
# scan and taint check, although every check here passes.
PLAN=4
. /tests/lib.sh
check load load sim_devices=1
check_fails warn-refuses-2 1 "Invalid argument" sh -c "echo 2 > /sys/kernel/debug/neuron/neuron0/warn"
check raise-warning sh -c "echo 1 > /sys/kernel/debug/neuron/neuron0/warn"
check unload unload
finish
