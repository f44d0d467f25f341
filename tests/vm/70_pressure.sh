# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: exactness under pressure (vm_pressure, docs/RELIABILITY.md):
# 16 processes x 4 threads count through the NDS API while sysfs readers,
# netlink dumps, metrics posts and fault-injected simulated jobs run and
# random processes are SIGKILLed; the totals must equal the processes'
# tallies, and every slab, NeuronCore and ring must be free afterwards.
#
# VM_PRESSURE_SECONDS (default 20, 60 on the debug kernel),
# VM_PRESSURE_SEED (default: random, printed).
SUITE=pressure
# 3 shell checks + 11 program cases + 2 of run_prog
PLAN=16
. /tests/lib.sh

mark
check load load sim_devices=1 sim_nc_per_device=8
# 20 s; 60 s on a kmemleak (debug) kernel, where KASAN slows every step
if [ -e /sys/kernel/debug/kmemleak ]; then secs=60; else secs=20; fi
secs=${VM_PRESSURE_SECONDS:-$secs}
set -- --seconds "$secs"
[ -n "${VM_PRESSURE_SEED:-}" ] && set -- "$@" --seed "$VM_PRESSURE_SEED"
PROG_TIMEOUT=$((secs * 4 + 120)) run_prog /tests/vm_pressure "$@"
check unload unload
check_eq kernel-log-clean "" \
	"$(since_mark | grep -E 'BUG|WARNING|Oops|general protection|Call Trace|refcount_t|list_(add|del) corruption|UBSAN|kmemleak|hung_task|blocked for more than|rcu_.*stall' | head -n 5)"
finish
