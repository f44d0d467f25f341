# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: simulated devices added and removed at run time through the
# neuron_sim bus (docs/ABI/sysfs-bus-neuron_sim), removal while the device
# is in use (vm_hotplug), and unload once the last fd of a removed device
# closes.
SUITE=hotplug
PLAN=63
. /tests/lib.sh

B=/sys/bus/neuron_sim
C=/sys/class/neuron_device
V=/sys/devices/virtual/neuron_device
K=/sys/kernel/debug/neuron
names() { ls "$@" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
# the devices of the class (besides them it holds the vendor's UltraServer files)
devnames() { ls "$@" 2>/dev/null | grep '^neuron' | tr '\n' ' ' | sed 's/ $//'; }

# An exchange against a hung firmware would take 3 x 5 s: removal must not.
check load load fwio_timeout_ms=5000 fwio_retries=3
check_eq bus-files "del_device new_device" "$(ls $B | grep '_device$' | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq bus-root-only "--w------- --w-------" \
	"$(ls -l $B/del_device $B/new_device | cut -c1-10 | tr '\n' ' ' | sed 's/ $//')"
check_eq no-device-yet "" "$(names $B/devices)"

# Add: with the default NeuronCore count (sim_nc_per_device) and a chosen one.
check add-3 sh -c "echo 3 > $B/new_device"
check_eq add-3-index 0 "$(cat $B/devices/neuron_sim3/neuron_index)"
check add-3-node test -c /dev/neuron0
check_eq add-3-cores "2 2" "$(cat $B/devices/neuron_sim3/nc_count) $(cat $V/neuron0/core_count)"
check_eq add-3-serial 4e53494d00010003 "$(cat $V/neuron0/info/serial_number)"
check_eq add-3-knobs "armed ecc hang hw_error nc_unrecoverable nq_flood reset_fail tpb_error" "$(names $K/neuron0/inject | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
check add-7-with-4 sh -c "echo '7 4' > $B/new_device"
check_eq add-7-index 1 "$(cat $B/devices/neuron_sim7/neuron_index)"
check_eq add-7-cores "4 4" "$(cat $B/devices/neuron_sim7/nc_count) $(cat $V/neuron1/core_count)"

# Malformed input: EINVAL and a log line with the format; nothing changes.
# ("1 2 3": the third word names the firmware mode: lenient, v2, v3, v4)
for bad in "" "x" "-1" "1024" "1 0" "1 9" "1 2 3" "1 x" "0x"; do
	expect_refused "new-refuses-'$bad'" \
		'new_device: expected "<id 0\.\.1023> \[nc_count 1\.\.8 \[lenient\|v2\|v3\|v4\]\]"' \
		sh -c "echo '$bad' > $B/new_device"
done
for bad in "" "x" "1 2" "1024"; do
	expect_refused "del-refuses-'$bad'" 'del_device: expected "<id 0\.\.1023>"' \
		sh -c "echo '$bad' > $B/del_device"
done
check_fails new-refuses-existing 1 "File exists" sh -c "echo 7 > $B/new_device"
check_fails del-refuses-unknown 1 "No such file or directory" sh -c "echo 5 > $B/del_device"
check_eq nothing-changed "neuron_sim3 neuron_sim7" "$(names $B/devices)"
check_eq nothing-changed-nodes "neuron0 neuron1" "$(devnames $C)"

# Remove: the node, the class and sysfs tree, debugfs and the bus entry go;
# the other device is untouched.
check del-3 sh -c "echo 3 > $B/del_device"
check_eq del-3-gone "" "$(ls -d /dev/neuron0 $C/neuron0 $V/neuron0 $K/neuron0 $B/devices/neuron_sim3 2>/dev/null)"
check_eq del-3-other-untouched "4 1" "$(cat $V/neuron1/core_count) $(cat $B/devices/neuron_sim7/neuron_index)"
check del-7 sh -c "echo 7 > $B/del_device"
check_eq all-gone "" "$(devnames $C)$(names $B/devices)$(ls /dev | grep '^neuron')"

# Removal in use, index reuse, non-root, add/remove cycles under load
# (VM_HOTPLUG_CYCLES, default 100; scripts/check.sh runs fewer on the debug
# kernel, where KASAN and lockdep make each cycle several times slower).
# A kernel with kmemleak is such a debug kernel: a longer bound.
if [ -e /sys/kernel/debug/kmemleak ]; then hp_timeout=900; else hp_timeout=300; fi
PROG_TIMEOUT=$hp_timeout run_prog /tests/vm_hotplug /tests/neuron-monitor

# The open fd of a removed device keeps the module in: unload after the last close.
check add-0 sh -c "echo 0 > $B/new_device"
exec 3<>/dev/neuron0
check del-0-with-fd-open sh -c "echo 0 > $B/del_device"
check_eq del-0-node-gone "" "$(ls /dev | grep '^neuron')"
check_fails unload-refused-while-fd-open 1 "Resource temporarily unavailable" unload
check still-loaded grep -q '^neuron ' /proc/modules
exec 3<&-
check unload-after-last-close unload
check_eq bus-gone "" "$(ls -d $B 2>/dev/null)"

# sim_devices= at load still works; those devices are removed at run time too,
# and unload removes what is left.
check load-2 load sim_devices=2
check_eq load-2-devices "neuron_sim0 neuron_sim1" "$(names $B/devices)"
check_eq load-2-nodes "neuron0 neuron1" "$(devnames $C)"
check del-load-device sh -c "echo 0 > $B/del_device"
check_eq del-load-device-gone "neuron1" "$(devnames $C)"
check unload-with-device-left unload
check_eq unload-removed-all "" "$(ls /dev | grep '^neuron')"

finish
