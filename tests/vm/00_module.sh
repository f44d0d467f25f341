# Guest suite: module parameters, device nodes, class entries, GET_INFO,
# ioctl validation, unload with an fd open, load/unload cycles.
SUITE=module
PLAN=35
. /tests/lib.sh

# Out-of-range parameters are refused at load (EINVAL), naming the range.
for arg in sim_devices=17 sim_devices=-1 sim_devices=abc sim_nc_per_device=0 sim_nc_per_device=9; do
	case $arg in
	sim_devices=*) range="0..16" ;;
	*) range="1..8" ;;
	esac
	expect_refused "refuses-$arg" "${arg%%=*}=.*expected an integer in $range" load "$arg" ||
		unload
done
check_eq no-node-after-refusal "" "$(ls /dev | grep '^neuron')"

# Default load: no simulated device, the PCI driver registered (binds nothing).
check default-load load
check_eq default-no-devices "" "$(ls /dev | grep '^neuron')"
check pci-driver-registered test -d /sys/bus/pci/drivers/neuron-driver
check default-unload unload
check pci-driver-unregistered test ! -e /sys/bus/pci/drivers/neuron-driver

check load-2x4 load sim_devices=2 sim_nc_per_device=4
check_eq two-nodes "neuron0 neuron1" "$(ls /dev | grep '^neuron' | tr '\n' ' ' | sed 's/ $//')"
check_eq two-class-links "neuron0 neuron1" "$(ls /sys/class/neuron_device | tr '\n' ' ' | sed 's/ $//')"
check virtual-dir test -d /sys/devices/virtual/neuron_device/neuron1
check_eq core-count 4 "$(cat /sys/devices/virtual/neuron_device/neuron0/core_count)"
check_eq char-dev "c" "$(ls -l /dev/neuron0 | cut -c1)"
check_eq params "2 4" "$(cat /sys/module/neuron/parameters/sim_devices) $(cat /sys/module/neuron/parameters/sim_nc_per_device)"
check debugfs-dir test -d /sys/kernel/debug/neuron/neuron0

run_prog /tests/vm_basic

# Unload with an fd open is refused (the file pins the module), and the
# device keeps working; after close it unloads.
exec 3</dev/neuron0
check_fails unload-refused-while-open 1 "Resource temporarily unavailable" unload
check still-loaded grep -q '^neuron ' /proc/modules
check still-node test -c /dev/neuron0
exec 3<&-
check unload-after-close unload
check_eq nodes-gone "" "$(ls /dev | grep '^neuron')"
check class-gone test ! -e /sys/class/neuron_device

# 20 load/unload cycles with an fd held and released in between.
ok=1
i=0
while [ $i -lt 20 ]; do
	if ! load sim_devices=2 sim_nc_per_device=4; then ok=0; echo "cycle $i: load failed"; break; fi
	exec 3<>/dev/neuron1 || { ok=0; echo "cycle $i: open failed"; }
	if rmmod neuron 2>/dev/null; then ok=0; echo "cycle $i: unloaded with fd open"; break; fi
	exec 3<&-
	if ! unload; then ok=0; echo "cycle $i: unload failed"; break; fi
	i=$((i + 1))
done
if [ $ok = 1 ]; then pass load-unload-20-cycles; else fail load-unload-20-cycles "stopped at cycle $i"; fi

# A load that fails part-way (failslab, through /proc/self/fail-nth: the
# Nth allocation of the insmod task fails) while another process keeps opening
# /dev/neuron0 must leave no file on the module the loader frees: opens are
# refused until init has succeeded. A file left behind shows as a KASAN
# use-after-free at its close, which the host's log scan fails. Kernels
# with failslab only (the debug kernel); on the others these checks are
# not run, and not counted.
FS=/sys/kernel/debug/failslab
if [ -d $FS ]; then
	PLAN=$((PLAN + 4))
	# no stack dump per injected failure; fail sleeping allocations too
	echo 0 > $FS/verbose
	echo N > $FS/ignore-gfp-wait
	rm -f /tmp/stop-opener
	sh -c 'while [ ! -e /tmp/stop-opener ]; do
		{ sleep 0.05; } 2>/dev/null 3</dev/neuron0 || sleep 0.01
	done' &
	opener=$!
	failed=0 loaded=0
	# fail-nth: the Nth fault-injection point of the insmod task fails
	for nth in 100 200 300 400 500 700 900 1200 1600 2000 2500 3000 4000 5000 7000; do
		if sh -c 'echo $1 > /proc/self/fail-nth && exec insmod "$0" sim_devices=16 nmetric_post_delay_ms=86400000' \
			"$NEURON_KO" "$nth" 2>/dev/null; then
			loaded=$((loaded + 1))
			# the opener may hold the node for a moment: poll until it lets go
			n=0
			until rmmod neuron 2>/dev/null || [ $n -ge 500 ]; do n=$((n + 1)); sleep 0.01; done
		else
			failed=$((failed + 1))
		fi
	done
	touch /tmp/stop-opener
	wait $opener
	echo "module: failslab loads: $failed failed, $loaded succeeded"
	if [ $failed -gt 0 ]; then pass failslab-loads-failed; else fail failslab-loads-failed "no load failed"; fi
	check_eq failslab-module-gone "" "$(grep '^neuron ' /proc/modules)"
	check load-after-failslab load sim_devices=16
	check unload-after-failslab unload
fi

finish
