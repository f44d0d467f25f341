# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: device memory (MEM_* ioctls), memory accounting in sysfs,
# SIM_EXEC_MODEL, an uncorrectable NeuronCore error and the device reset.
SUITE=mem
PLAN=55
. /tests/lib.sh

check load load sim_devices=2 sim_nc_per_device=2 sim_hbm_mb=16
D=/sys/devices/virtual/neuron_device/neuron0
I=/sys/kernel/debug/neuron/neuron0/inject
P=/sys/module/neuron/parameters

names() { ls "$1" | sort | tr '\n' ' ' | sed 's/ $//'; }
check_eq root-host-cats "application_memory constants dma_buffers dma_rings driver_memory notifications tensors uncategorized" \
	"$(names $D/stats/memory_usage/host_mem)"
check_eq core-usage "device_mem host_mem" "$(names $D/neuron_core1/stats/memory_usage)"
check_eq core-host-files "peak present total" "$(names $D/neuron_core1/stats/memory_usage/host_mem)"
check_eq device-cats "collectives constants dma_rings driver_memory model_code model_shared_scratchpad nonshared_scratchpad notifications peak present runtime_memory tensors total uncategorized" \
	"$(names $D/neuron_core0/stats/memory_usage/device_mem)"
check_eq counter-modes "-rw-r--r-- -rw-r--r-- -rw-r--r--" \
	"$(ls -l $D/neuron_core0/stats/memory_usage/device_mem/tensors/* | cut -c1-10 | tr '\n' ' ' | sed 's/ $//')"
check_eq reset-mode "-rw-------" "$(ls -l $D/reset | cut -c1-10)"
check_eq reset-ready 1 "$(cat $D/reset)"
# a fresh device holds nothing: every memory total is 0
check_eq all-zero-at-start "" "$(grep -l -v '^0$' $(find $D -path '*memory_usage*' -name total))"
check_eq hbm-param 16 "$(cat $P/sim_hbm_mb)"
check_fails host-cap-range 1 "Invalid argument" sh -c "echo 0 > $P/mem_host_proc_max_mb"

# the knob: strict parsing, root only
check_eq knob-mode "--w-------" "$(ls -l $I/nc_unrecoverable | cut -c1-10)"
expect_refused knob-refuses-empty "inject/nc_unrecoverable: expected" sh -c "echo '' > $I/nc_unrecoverable"
expect_refused knob-refuses-nc2 "inject/nc_unrecoverable: expected" sh -c "echo 2 > $I/nc_unrecoverable"
expect_refused knob-refuses-extra "inject/nc_unrecoverable: expected" sh -c "echo '0 1' > $I/nc_unrecoverable"
check_eq nothing-broken "0" "$(grep -c unrecoverable $I/armed)"

run_prog /tests/vm_mem

# everything the program allocated went with it (the NDS slabs the
# program acquired stay: driver memory of the device, until it goes)
slabs=$(cat $D/stats/memory_usage/host_mem/driver_memory/total)
check_eq slabs-whole "0" "$((slabs % 262144))"
check_eq core0-host-is-slabs "$slabs" "$(cat $D/neuron_core0/stats/memory_usage/host_mem/total)"
check_eq totals-back "" "$(grep -l -v '^0$' $(find $D /sys/devices/virtual/neuron_device/neuron1 -path '*memory_usage*' -name total | grep -v -e driver_memory -e neuron_core0/stats/memory_usage/host_mem))"
check_eq hbm-blocks-back "0 0" "$(cat /sys/kernel/debug/neuron/neuron0/hbm_blocks /sys/kernel/debug/neuron/neuron1/hbm_blocks | tr '\n' ' ' | sed 's/ $//')"
check_eq nothing-broken-after "0" "$(grep -c unrecoverable /sys/kernel/debug/neuron/neuron1/inject/armed)"

# a reset is refused while a process has the device open
sleep 30 < /dev/neuron0 &
holder=$!
wait_for holder-open 5000 sh -c "ls -l /proc/$holder/fd | grep -q /dev/neuron0"
check_fails reset-busy 1 "busy" sh -c "echo 1 > $D/reset"
kill $holder
wait $holder 2>/dev/null
check unload unload
finish
