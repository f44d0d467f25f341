# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the external programs built from an installed libnrt through
# pkg-config (tests/pkgconfig/, built into <build>/vm/ by
# scripts/test-packaging.sh) run against two simulated devices: the client,
# and the SDK developer guide's flow (tests/sdk/sdk_run_neff.c, written
# only against the SDK's signatures) on a NEFF packed here.
SUITE=pkgconfig
PLAN=18
. /tests/lib.sh

client=/tests/vm_pkgconfig_client
if [ ! -x "$client" ]; then
	# Not a skip: make check builds it before booting (test-packaging.sh).
	fail client-present "$client missing (run scripts/test-packaging.sh before the VM)"
	finish
fi
pass client-present

check load-2x2 load sim_devices=2 sim_nc_per_device=2
out=$("$client" 2>&1)
rc=$?
check_eq client-exit 0 "$rc"
modver=$(cat /sys/module/neuron/version 2>/dev/null)
check module-version-known test -n "$modver"
libver=$(echo "$out" | sed -n 's/^libnrt //p')
check_eq lib-version-is-module-version "$modver" "$libver"
check_eq status-name "1204 NRT_EXEC_SW_NQ_OVERFLOW" "$(echo "$out" | sed -n 's/^status //p')"
check_eq device-count 2 "$(echo "$out" | sed -n 's/^devices //p')"
check_eq device-lines "device 0 nc 2 driver $modver
device 1 nc 2 driver $modver" "$(echo "$out" | grep '^device ')"
if [ "$FAILED" != 0 ]; then
	echo "client output:"; echo "$out"
fi

# The guide's flow on an affine model (out = 3 x in + 7 per 32-bit word):
# inputs 1, 2, 3, 4, ... give 10, 13, 16, 19, ...; the profile holds the
# execution and the three repetitions.
sdk=/tests/vm_sdk_run_neff
if [ -x "$sdk" ]; then pass sdk-flow-present
else fail sdk-flow-present "$sdk missing (run scripts/test-packaging.sh before the VM)"; fi
D=/tmp/pkgconfig
mkdir -p $D
check sdk-flow-pack /tests/neff-pack -o $D/affine.neff --name affine --op affine_u32 \
	--arg0 3 --arg1 7 --input in:64 --output out:64
rm -f $D/profile.json
out=$("$sdk" $D/affine.neff $D/profile.json 2>&1)
check_eq sdk-flow-exit 0 "$?"
check_eq sdk-flow-tensors "tensor in input 64 bytes
tensor out output 64 bytes" "$(echo "$out" | grep '^tensor ')"
check_eq sdk-flow-output "output out 10 13 16 19" "$(echo "$out" | grep '^output ')"
check_eq sdk-flow-done "ran $D/affine.neff on 1 NeuronCore(s)" "$(echo "$out" | tail -n 1)"
check_eq sdk-flow-profile-events 4 \
	"$(/tests/jq '[.traceEvents[] | select(.ph == "X")] | length' $D/profile.json 2>&1)"
check_eq sdk-flow-profile-statuses '["NRT_SUCCESS"]' \
	"$(/tests/jq -c '[.traceEvents[] | select(.ph == "X") | .args.status] | unique' $D/profile.json 2>&1)"
if [ "$FAILED" != 0 ]; then
	echo "sdk flow output:"; echo "$out"
fi
check unload unload
check_eq nodes-gone "" "$(ls /dev | grep '^neuron')"
finish
