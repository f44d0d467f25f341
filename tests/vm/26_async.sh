# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the asynchronous API (<nrt/nrt_async.h>) on one simulated
# device with two NeuronCores. vm_sdk_async, written only against the
# SDK's headers: executions on the COMPUTE queues of both NeuronCores with
# their outputs checked byte for byte, tensor writes, reads and copies,
# sequence ids, completion handles through poll(), failed requests in
# their tracker in order (a bad input, injected hardware and TPB faults, a
# buffer that cannot be written) with the synchronous path's statuses and
# the same counter moves, a burst past the tracker's bound, nrt_close()
# with requests queued, fork() while a worker runs an execution (the child
# closes, initializes again and runs jobs within the bound). Then a process that exits with requests queued
# (no nrt_close()) ends promptly, and the benchmark program still runs.
SUITE=async
PLAN=15
. /tests/lib.sh

check load load sim_devices=1 sim_nc_per_device=2
D=/tmp/neff
P=/tests/neff-pack
mkdir -p $D
check pack-models sh -c "
	$P -o $D/affine.neff --name affine --op affine_u32 --arg0 3 --arg1 7 \
		--input in:64 --output out:64 --run-us 50 &&
	$P -o $D/xor.neff --name xor --op xor_u8 --arg0 0x5a --input in:64 --output out:64 --run-us 50 &&
	$P -o $D/slow.neff --name slow --run-us 200000"

run_prog /tests/vm_sdk_async $D

# exit() joins the workers: the running executions end (200 ms each), the
# queued ones are dropped, the process is gone well within the bound
check_within exit-with-queued 10000 sh -c "/tests/vm_sdk_async --exit-queued $D | grep -qx 'scheduled 8 executions'"

# the benchmark program (make bench runs it at length) still runs, briefly
check bench-async-runs sh -c "/tests/vm_bench_async 10 1 1000 | grep -q '^ratio async jobs/s'"

check unload unload
finish
