#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# /init of the test guest: mount the pseudo filesystems, run the suites for
# the mode the host asked for, dump the kernel log, report the verdict
# through isa-debug-exit (port 0xf4) and power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/tests
export LD_LIBRARY_PATH=/lib
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
ln -sf /proc/self/fd /dev/fd 2>/dev/null

mode=$(cat /etc/vm-mode)
only=$(cat /etc/vm-only)
export NEURON_KO=/neuron.ko
# VM_HOSTILE_*, VM_PRESSURE_*, VM_PERMS_* from the host (scripts/vm.sh)
[ -f /etc/vm-env ] && . /etc/vm-env
# Debug kernels: kmemleak scans only when the guest asks (00_module,
# 60_hostile, the end of the run): its thread's periodic scan could report
# an object in the middle of a suite, unattributed.
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak
# Report a task blocked for 30 s (the host scans the log for it).
[ -w /proc/sys/kernel/hung_task_timeout_secs ] && echo 30 > /proc/sys/kernel/hung_task_timeout_secs
echo "vm-guest: up, mode $mode, kernel $(uname -r)"

# Run each suite of a directory: "VMTEST START <suite>", the suite's own
# lines (ending "VMTEST END <suite> <checks> <plan>", tests/vm/lib.sh), then
# "VMTEST EXIT <suite> <status>". The host accounts for every suite.
run_suites() {
	for s in "$1"/[0-9][0-9]_*.sh; do
		[ -f "$s" ] || continue
		name=$(basename "$s" .sh)
		# --only: a comma-separated list of suites (number or not)
		case ",$only," in
		,,|*",${name#*_},"*|*",$name,"*) ;;
		*) continue ;;
		esac
		t0=$(cut -d' ' -f1 /proc/uptime)
		echo "VMTEST START $name"
		sh "$s"
		rc=$?
		echo "VMTEST EXIT $name $rc"
		# How long the suite took (a TAP comment, for sizing the matrix).
		echo "# time $name $(awk -v a="$t0" '{ printf "%.0f", $1 - a }' /proc/uptime) s"
		[ $rc = 0 ] || verdict=1
		# Every suite leaves the module unloaded; enforce it so one
		# failing suite does not cascade into the next.
		if grep -q '^neuron ' /proc/modules; then
			echo "VMTEST LEFT-LOADED $name"
			rmmod neuron 2>/dev/null
			verdict=1
		fi
	done
}

verdict=0
case "$mode" in
check)
	run_suites /tests
	;;
selftest)
	run_suites /tests/selftest
	;;
demo)
	sh /demo/demo.sh || verdict=1
	;;
bench)
	sh /bench/bench.sh || verdict=1
	;;
esac

# Debug kernels: a kmemleak scan once everything is unloaded. An object is
# reported only once it has looked unreferenced in a scan after its minimum
# age, so scan, let the age pass, and scan again. A leak writes "kmemleak: N
# new suspected memory leaks" to the kernel log, which the host fails on;
# the reports themselves go to the console log for the reader.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 6	# kmemleak's minimum object age (5 s), not a synchronisation
	echo scan > /sys/kernel/debug/kmemleak
	echo "VMTEST KMEMLEAK $(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)"
	cat /sys/kernel/debug/kmemleak
fi
# What the host's kernel-log scan also needs: the taint flags at the end.
echo "VMTEST TAINTED $(cat /proc/sys/kernel/tainted)"
echo "VMTEST DMESG-BEGIN"
dmesg
echo "VMTEST DMESG-END"
echo "vm-guest: done, verdict $verdict"
# Everything above must reach the host before QEMU exits (vm_drain.c).
timeout 10 /tests/vm_drain
if [ "$verdict" = 0 ]; then
	printf '\000' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
else
	printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
fi
poweroff -f
