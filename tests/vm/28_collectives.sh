# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: collectives across processes on one host
# (docs/sdk-compat.md, "Collectives"). vm_sdk_coll, written against the
# SDK's calls only, forks one worker process per NeuronCore, each calling
# nrt_load_collectives() with its rank: the all-reduce of 2 and 4 workers
# over repeated executions, two jobs under two names at once, loads that
# find nobody (NRT_TIMEOUT) or the wrong job (NRT_INVALID), a worker killed
# before and during the collective, rank 0 killed, a stalled worker, a
# worker whose own execution fails before its step (each
# NRT_EXEC_HW_ERR_COLLECTIVES within the bound, at once when a worker died
# or failed, every one counted in hw_collectives_error), and a new job
# after all that. Here: each 1200 is
# one kernel log line of the simulated device's HANG-ON-COLLECTIVES, the
# counters' totals agree, and no socket of a job is left behind.
SUITE=collectives
PLAN=22
. /tests/lib.sh

# no rate limit: every collectives error is one line
check load load sim_devices=1 sim_nc_per_device=4 hw_err_ratelimit_ms=0
D=/tmp/neff
P=/tests/neff-pack
mkdir -p $D
check pack-models sh -c "
	$P -o $D/coll.neff --name coll --op affine_u32 --arg0 3 --arg1 7 \
		--input in:64 --output out:64 --run-us 20 --collective all_reduce_sum_u32 &&
	$P -o $D/coll_big.neff --name coll_big --op affine_u32 --arg0 3 --arg1 7 \
		--input in:262144 --output out:262144 --collective all_reduce_sum_u32"
check pack-info sh -c "$P --info $D/coll.neff | grep -qx 'collective all_reduce_sum_u32'"
check_fails pack-refuses-no-op 1 "not valid" $P -o $D/x.neff --collective all_reduce_sum_u32
check_fails pack-refuses-odd-size 1 "not valid" $P -o $D/x.neff --op copy \
	--input in:6 --output out:6 --collective all_reduce_sum_u32

mark
COLL_ERRORS_FILE=/tmp/coll_errors run_prog /tests/vm_sdk_coll $D

# killed worker 2, killed rank 0 4, stalled worker 5, killed mid-collective 1
check_eq coll-errors 13 "$(cat /tmp/coll_errors 2>/dev/null)"
LINE='NEURON_SIM_HW_ERR=HANG-ON-COLLECTIVES instance-id=[^ ]+ hostname=[^ ]+ nd-id=0 nc-id=[0-3] serial-num=[0-9a-f]{16} action=RESTART_JOB seq=[1-9][0-9]* pid=[1-9][0-9]* comm=vm_sdk_coll simulated=1$'
check_eq coll-log-lines 13 "$(since_mark | grep -cE "$LINE")"
D0=/sys/devices/virtual/neuron_device/neuron0
check_eq coll-counter-total 13 \
	"$(cat $D0/neuron_core[0-3]/stats/status/hw_collectives_error/total | awk '{ s += $1 } END { print s }')"
# the jobs' sockets went with their processes (abstract: nothing in a file system)
check_eq no-socket-left 0 "$(grep -c '@neuron-rt-coll/' /proc/net/unix)"

check unload unload
finish
