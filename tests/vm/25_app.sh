# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the application API. NEFFs packed with neff-pack, an
# application written only to the SDK header, and one check per row of
# the status table in docs/error-model.md (vm_app: exact status, and the
# counters it feeds moved by exactly 1, nothing else). vm_app's
# profile_executions case leaves two profiles, read here with jq.
# vm_sdk_dev: the device half of the SDK calls of docs/sdk-compat.md
# (device slices, attach_buffer, NeuronCore ownership across processes:
# the default, every NeuronCore from nrt_init() to nrt_close() as in the
# SDK, and NEURON_RT_VISIBLE_CORES / NEURON_RT_NUM_CORES; relative
# indexes, vnc_count, nrt_load_collectives).
SUITE=app
PLAN=60
. /tests/lib.sh

check load load sim_devices=2 sim_nc_per_device=4
D=/tmp/neff
P=/tests/neff-pack
mkdir -p $D
check pack-models sh -c "
	$P -o $D/empty.neff --name empty &&
	$P -o $D/affine.neff --name affine --op affine_u32 --arg0 3 --arg1 7 \
		--input in:64 --output out:64 --run-us 50 &&
	$P -o $D/xor.neff --name xor --op xor_u8 --arg0 0x5a --input in:64 --output out:64 &&
	$P -o $D/copy.neff --name copy --op copy --input in:64 --output out:64 &&
	$P -o $D/oob.neff --name oob --op copy --in-offset 8 --input in:16 --output out:16 &&
	$P -o $D/nc5.neff --name five --nc 5 &&
	$P -o $D/nc2.neff --name two --nc 2 --packaging-version 2 &&
	$P -o $D/proxy.neff --name collectives --proxy $D/proxy.sock"
check pack-broken sh -c "
	$P -o $D/v3.neff --name v3 --packaging-version 3 &&
	$P -o $D/corrupt.neff --name corrupt --corrupt-hash &&
	$P -o $D/trunc.neff --name trunc --truncate 600"
check_fails pack-refuses-bad-op 1 "expected none\|copy" $P -o $D/x.neff --op bogus
check pack-info sh -c "$P --info $D/affine.neff | grep -qx 'op affine_u32 3 7'"
check_fails info-refuses-v3 1 "NRT_UNSUPPORTED_NEFF_VERSION" $P --info $D/v3.neff
check sdk-app /tests/vm_sdk_app $D/affine.neff

run_prog /tests/vm_app $D
run_prog /tests/vm_sdk_dev $D

# the profiles vm_app's profile_executions wrote (docs/sdk-compat.md,
# "Profiling"): Chrome trace event JSON, one complete event per execution
JQ=/tests/jq
PF=/tmp/nrt_profile.json
X='[.traceEvents[] | select(.ph == "X")]'
check profile-parses $JQ -e '.traceEvents | type == "array"' $PF
check_eq profile-executions "affine affine affine|1 1 1|0 1 0" \
	"$($JQ -r "$X"' | "\(map(.name) | join(" "))|\(map(.tid | tostring) | join(" "))|\(map(.args.iteration | tostring) | join(" "))"' $PF)"
check_eq profile-statuses "NRT_SUCCESS:0 NRT_SUCCESS:0 NRT_EXEC_COMPLETED_WITH_ERR:1004" \
	"$($JQ -r "$X"' | map("\(.args.status):\(.args.status_code)") | join(" ")' $PF)"
check_eq profile-drained-errors "0 0 1|true|0" \
	"$($JQ -r "$X"' | "\(map(.args.errors.entries | tostring) | join(" "))|\(.[2].args.errors.subtypes | index("MEMORY_ERROR") != null)|\(.[2].args.errors.hw_faults | length)"' $PF)"
check_eq profile-times "true" \
	"$($JQ -r "$X"' | all(.[]; (.ts | type) == "number" and .ts >= 0 and .dur > 0) and (. as $x | all(range(1; $x | length); $x[.].ts >= $x[. - 1].ts + $x[. - 1].dur))' $PF)"
check_eq profile-metadata "3 0 1000000 NeuronCore 1 (device 0, nc 1) 1 true" \
	"$($JQ -r '"\(.otherData.events_recorded) \(.otherData.events_dropped) \(.otherData.max_events) \([.traceEvents[] | select(.ph == "M" and .name == "thread_name" and .tid == 1) | .args.name][0]) \([.traceEvents[].pid] | unique | length) \(.otherData.pid == .traceEvents[0].pid)"' $PF)"
check_eq profile-unloaded-model "1 empty 2 NRT_SUCCESS" \
	"$($JQ -r "$X"' | "\(length) \(.[0].name) \(.[0].tid) \(.[0].args.status)"' /tmp/nrt_profile_unloaded.json)"

# the benchmark program (make bench runs it at length) still runs, briefly
check bench-app-runs sh -c "/tests/vm_bench_app $D/empty.neff 20 2 | grep -c -e '^ratio nrt_execute/raw ioctl' -e '^ratio nrt_execute/raw floor' | grep -qx 2"
check bench-exec-runs sh -c "/tests/vm_bench_exec 20 | grep -c -e '^ratio on/off: ' -e '^ratio on/off floor, atomic' -e '^ratio on/off floor, plain' | grep -qx 3"

check unload unload
finish
