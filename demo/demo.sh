# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The demo: what a user of the driver looks at, then the error path end to end.
echo "== insmod neuron.ko sim_devices=2"
insmod "$NEURON_KO" sim_devices=2 || exit 1
echo
echo "== device nodes"
ls -l /dev/neuron*
echo
echo "== neuron-ls (GET_INFO of each device)"
/tests/neuron-ls
echo
/tests/neuron-ls --json
echo
echo "== sysfs: /sys/class/neuron_device"
ls /sys/class/neuron_device/
echo
D=/sys/devices/virtual/neuron_device/neuron0
echo "== sysfs tree of neuron0 (first levels)"
(cd $D && find . -maxdepth 3 ! -path './power*' ! -name uevent ! -name subsystem | sort | head -n 40)
echo "   ... and per NeuronCore: stats/status/<24 counters>/{total,present}:"
ls $D/neuron_core0/stats/status | tr '\n' ' '
echo
echo
for f in core_count info/architecture/arch_type info/serial_number info/fw_api_version \
	 stats/hardware/mem_ecc_uncorrected stats/fw_io/err_count; do
	printf '%-36s %s\n' "$f" "$(cat $D/$f)"
done
echo
echo "== a workload with a fault mix on both devices"
/tests/vm_demo || exit 1
echo
echo "== after the process exited: counts stay (folded into the totals)"
for n in execute_completed_with_error execute_sw_semaphore_error hw_hbm_ue_error execute_sw_nq_overflow timeout; do
	t=0
	for d in 0 1; do for c in 0 1; do
		t=$((t + $(cat /sys/devices/virtual/neuron_device/neuron$d/neuron_core$c/stats/status/$n/total)))
	done; done
	printf '%-32s %s\n' "$n" "$t"
done
echo
echo "== the metrics post to firmware (fw/post_now, then fw/posted: <cw_id> <value>)"
F=/sys/kernel/debug/neuron/neuron0/fw
echo 1 > $F/post_now && cat $F/posted
echo
echo "== nrt-status 1204"
/tests/nrt-status 1204
echo
# The demo's other parts (demo/NN_*.sh): each runs with this module loaded
# (sim_devices=2) and the tools in /tests/.
for part in /demo/[0-9][0-9]_*.sh; do
	[ -f "$part" ] || continue
	echo
	echo "== $(basename "$part" .sh)"
	sh "$part" || exit 1
done
rmmod neuron
echo "== unloaded"
