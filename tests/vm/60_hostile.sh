# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the hostile-userspace fuzzer (vm_hostile, built from
# tests/vm/hostile/; docs/RELIABILITY.md).
# Records the memory baseline before the module loads, fuzzes every user
# interface of two simulated devices from several processes and threads
# (SIGKILLed and forked at random), then requires: the fuzzer's own
# contract checks, a module that unloads once every fd is closed, memory
# back at its baseline within the tolerances below, a clean kernel log
# since the load, no log line forged by a process's name, and (on a kernel
# with kmemleak) a clean kmemleak scan.
#
# Size: VM_HOSTILE_OPS (default 200000 on a kernel with kmemleak, the debug
# kernel; 50000 elsewhere), VM_HOSTILE_SEED (default: random, printed),
# VM_HOSTILE_PROCS / VM_HOSTILE_THREADS (4 x 3), VM_HOSTILE_LONG=1 for the
# long mode (5e6 operations unless VM_HOSTILE_OPS says otherwise).
SUITE=hostile
KMEMLEAK=/sys/kernel/debug/kmemleak
# 9 shell checks + 11 program cases + 2 of run_prog, + 1 with kmemleak
PLAN=22
[ -e $KMEMLEAK ] && PLAN=23
. /tests/lib.sh

kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
objs() { awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo; }
# pages on the per-CPU free lists (MemFree does not count them)
pcp() { awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo; }
# Caches out of the way before each reading: drop the page, dentry and
# inode caches, shrink every slab cache (which also empties KASAN's
# quarantine of freed objects on the debug kernel), compact, and lower the
# per-CPU free lists' high mark for a moment (5.14+).
shrink_slabs() {
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done 2>/dev/null
}
settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	shrink_slabs
	echo 1 > /proc/sys/vm/compact_memory
	h=/proc/sys/vm/percpu_pagelist_high_fraction
	if [ -w $h ]; then
		f=$(cat $h)
		echo 8 > $h
		echo "$f" > $h
	fi
}

# Tolerances (KiB), from the noise measured on runs of this suite (see
# docs/RELIABILITY.md). Free memory is MemFree plus the pages on the per-CPU
# free lists (20-30 MB after the fuzz, which MemFree and MemAvailable leave
# out); it came back within 1.7 MB on 6.1 and 3.5 MB on the debug kernel
# before slab shrinking, 0.5 MB after. vmalloc is counted without the
# kernel stacks of live tasks (kworkers started during the run stay): a
# leaked NDS slab is 256 KiB, more than the up to 128 KiB of stacks the
# kernel caches for reuse (2 per CPU, 32 KiB each with KASAN); a leaked
# ring (8 KiB and up) is kmemleak's to find. Unreclaimable slab grew by
# 0.2-1.3 MB (kernel caches after hundreds of killed processes).
TOL_FREE=4096
TOL_VMALLOC=192
TOL_SUNRECLAIM=2048

settle
avail0=$(kb MemAvailable); sunr0=$(kb SUnreclaim); kn0=$(objs kernfs_node_cache)
vmal0=$(( $(kb VmallocUsed) - $(kb KernelStack) ))
free0=$(( $(kb MemFree) + $(pcp) ))
cp /proc/meminfo /tmp/meminfo.0
[ -r /proc/slabinfo ] && cp /proc/slabinfo /tmp/slabinfo.0
echo "hostile: baseline free (MemFree + per-CPU lists) $free0 kB, MemAvailable $avail0 kB, SUnreclaim $sunr0 kB, VmallocUsed - KernelStack $vmal0 kB"
[ -e $KMEMLEAK ] && echo clear > $KMEMLEAK

mark
check load load sim_devices=2 sim_nc_per_device=4 fwio_timeout_ms=20 fwio_retries=2 \
	nmetric_post_delay_ms=500

if [ -e $KMEMLEAK ]; then ops=200000; else ops=50000; fi
[ "${VM_HOSTILE_LONG:-0}" = 1 ] && ops=5000000
ops=${VM_HOSTILE_OPS:-$ops}
set -- --ops "$ops" --procs "${VM_HOSTILE_PROCS:-4}" --threads "${VM_HOSTILE_THREADS:-3}"
[ -n "${VM_HOSTILE_SEED:-}" ] && set -- "$@" --seed "$VM_HOSTILE_SEED"
[ -n "${VM_HOSTILE_KINDS:-}" ] && set -- "$@" --kinds "$VM_HOSTILE_KINDS"
# about 2000 operations a second on TCG (slower with KASAN): a generous bound
PROG_TIMEOUT=$((300 + ops / 100)) run_prog /tests/vm_hostile "$@"

# Every fd and mapping died with the fuzzer's processes: the module unloads.
check module-unloads unload
t_unload=$(now_ms)
check_eq module-gone "" "$(grep '^neuron ' /proc/modules)"

# The sysfs tree (about 850 kernfs nodes for two devices of four cores)
# is gone once the dentries and inodes the fuzzer's walks created are
# evicted; their frees are RCU-deferred, so poll, dropping caches (and
# flushing the cache's KASAN quarantine).
wait_for kernfs-nodes-freed 20000 sh -c "echo 2 > /proc/sys/vm/drop_caches;
	echo 1 > /sys/kernel/slab/kernfs_node_cache/shrink 2>/dev/null;
	[ \$(awk '\$1 == \"kernfs_node_cache\" { print \$2 }' /proc/slabinfo) -le $((kn0 + 64)) ]"
settle
avail1=$(kb MemAvailable); free1=$(( $(kb MemFree) + $(pcp) )); sunr1=$(kb SUnreclaim)
vmal1=$(( $(kb VmallocUsed) - $(kb KernelStack) ))
echo "hostile: after unload free (MemFree + per-CPU lists) $free1 kB ($((free1 - free0))), MemAvailable $avail1 kB ($((avail1 - avail0))), SUnreclaim $sunr1 kB (+$((sunr1 - sunr0))), VmallocUsed - KernelStack $vmal1 kB (+$((vmal1 - vmal0)))"
# What moved (for the record): meminfo fields and the slab caches whose
# live objects grew most.
awk 'NR == FNR { a[$1] = $2; next } ($2 - a[$1]) * ($2 - a[$1]) > 1024 * 1024 { printf "hostile: meminfo %s %+d kB\n", $1, $2 - a[$1] }' /tmp/meminfo.0 /proc/meminfo
if [ -r /proc/slabinfo ]; then
	awk 'NR == FNR { a[$1] = $2; next } FNR > 2 && $2 - a[$1] > 0 { printf "%d %s %d objects of %d B\n", ($2 - a[$1]) * $4, $1, $2 - a[$1], $4 }' \
		/tmp/slabinfo.0 /proc/slabinfo | sort -rn | head -n 6 | sed 's/^[0-9]* /hostile: slab grew: /'
fi
within() { [ "$1" -le "$2" ] || { echo "$1 kB over a tolerance of $2 kB"; return 1; }; }
check memory-vmalloc-returns within $((vmal1 - vmal0)) $TOL_VMALLOC
check memory-slab-returns within $((sunr1 - sunr0)) $TOL_SUNRECLAIM
check memory-free-returns within $((free0 - free1)) $TOL_FREE

# The kernel said nothing alarming since the load (the host scans the whole
# log as well; this names the suite that caused it).
check_eq kernel-log-clean "" \
	"$(since_mark | grep -E 'BUG|WARNING|Oops|general protection|Call Trace|refcount_t|list_(add|del) corruption|UBSAN|kmemleak|hung_task|blocked for more than|rcu_.*stall' | head -n 5)"

# No record of the log starts with the token the fuzzer's forged process
# names carry after a newline ("\nFORGED="): every name the driver logs is
# escaped (dmesg starts each line of a record with its time stamp).
check_eq kernel-log-no-forged-line "" \
	"$(dmesg | grep -E '^(\[[^]]*\] ?)?FORGED=' | head -n 3)"

if [ -e $KMEMLEAK ]; then
	# kmemleak reports an object only once it is 5 s old (its minimum
	# age) and unreferenced in two scans: scan once that age has passed
	# since the unload. An age, not an event: nothing to poll for.
	while [ $(( $(now_ms) - t_unload )) -lt 6000 ]; do sleep 0.2; done
	echo scan > $KMEMLEAK
	echo scan > $KMEMLEAK
	check_eq kmemleak-clean "" "$(head -n 40 $KMEMLEAK)"
fi
finish
