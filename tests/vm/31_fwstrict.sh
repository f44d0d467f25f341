# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the PCI backend's firmware paths against the strict
# simulated firmware (docs/fwio.md, "Strict simulated firmware"): probe
# readiness and routing-id numbering, the per-architecture contract of
# common/neuron_fw_profile.c (transport, attempts, timeouts, response rules)
# on both transports, TRIGGER never written 0, stale answers told apart by
# sequence number. Times of the contract are divided by sim_fw_time_div.
SUITE=fwstrict
PLAN=36
. /tests/lib.sh

# Times divided by 50 (a READ attempt waits 20 ms); by 25 on a debug
# (kmemleak) kernel (40 ms), the smallest divisor at which row_timeouts'
# late answer fits the simulator's 10 s slow_ms. The exact counts of
# vm_fwstrict assume no answer is later than one attempt; 30_fwio, whose
# attempts are 100 ms (300 ms on the debug kernel), once saw the debug
# kernel's work item late by more than 100 ms.
if [ -e /sys/kernel/debug/kmemleak ]; then DIV=25; else DIV=50; fi
B=/sys/bus/neuron_sim
check load load sim_fw_time_div=$DIV
check_eq div-param $DIV "$(cat /sys/module/neuron/parameters/sim_fw_time_div)"

# A strict device appears only after the PCI probe's steps: DEVICE_ID is
# 0xDEADBEEF for 2500 ms / DIV after it is powered (readiness wait), then
# the device reset through firmware takes 1000 ms / DIV; new_device returns
# after both (less the 10 ms resolution of now_ms).
t0=$(now_ms)
check new-v2 sh -c "echo '3 2 v2' > $B/new_device"
ms=$(( $(now_ms) - t0 ))
if [ "$ms" -ge $((3500 / DIV - 10)) ]; then
	pass readiness-and-reset-waited
else
	fail readiness-and-reset-waited "new_device returned after $ms ms, firmware ready and reset after $((3500 / DIV)) ms"
fi
# Numbered from the routing id (= the simulator's id) like the vendor:
# Trn1 map for v2 (3 -> 5), the Trn2 torus map for v3 and v4 (1 -> 3, 9 -> 2).
check_eq v2-index 5 "$(cat $B/devices/neuron_sim3/neuron_index)"
check new-v3 sh -c "echo '1 2 v3' > $B/new_device"
check_eq v3-index 3 "$(cat $B/devices/neuron_sim1/neuron_index)"
check new-v4 sh -c "echo '9 2 v4' > $B/new_device"
check_eq v4-index 2 "$(cat $B/devices/neuron_sim9/neuron_index)"
check_eq nodes "/dev/neuron2 /dev/neuron3 /dev/neuron5" "$(ls /dev/neuron* | sort | tr '\n' ' ' | sed 's/ $//')"
# Two devices whose routing ids map to one index: the second is refused
# (Trn1: routing id 4 -> 3, taken by the v3 device), as the vendor's probe
# refuses a duplicate.
check_fails duplicate-index 1 "File exists" sh -c "echo '4 2 v2' > $B/new_device"
check_eq duplicate-gone "" "$(ls -d $B/devices/neuron_sim4 2>/dev/null)"
check_fails bad-firmware-word 1 "Invalid argument" sh -c "echo '5 2 v9' > $B/new_device"
# A lenient device still takes the lowest free index.
check new-lenient sh -c "echo '20' > $B/new_device"
check_eq lenient-index 0 "$(cat $B/devices/neuron_sim20/neuron_index)"
check_eq modes "mode v2 mode v3 mode v4 mode lenient" \
	"$(for n in 5 3 2 0; do grep '^mode ' /sys/kernel/debug/neuron/neuron$n/fw/sim_stats; done | tr '\n' ' ' | sed 's/ $//')"

# one device reset each at probe, none for the lenient device; no doorbell
# was rung twice for it
check_eq resets "resets 1 resets 1 resets 1 resets 0" \
	"$(for n in 5 3 2 0; do grep '^resets ' /sys/kernel/debug/neuron/neuron$n/fw/sim_stats; done | tr '\n' ' ' | sed 's/ $//')"
check_eq reset-no-rewrites "rewrites 0 rewrites 0 rewrites 0" \
	"$(for n in 5 3 2; do grep '^rewrites ' /sys/kernel/debug/neuron/neuron$n/fw/sim_stats; done | tr '\n' ' ' | sed 's/ $//')"

run_prog /tests/vm_fwstrict 5 3 2

# sysfs info/ reads the firmware words directly on every architecture
check_eq v2-serial 4e53494d00010003 "$(cat /sys/devices/virtual/neuron_device/neuron5/info/serial_number)"
# Removal with strict firmware and its legacy buffers in place.
check del-v2 sh -c "echo 3 > $B/del_device"
check del-v3 sh -c "echo 1 > $B/del_device"
check_eq left "/dev/neuron0 /dev/neuron2" "$(ls /dev/neuron* | sort | tr '\n' ' ' | sed 's/ $//')"
check unload unload

finish
