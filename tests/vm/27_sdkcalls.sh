# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the rest of the SDK 2.28 calls real programs make
# (docs/sdk-compat.md), from vm_sdk_calls, a program written only against
# the SDK's headers: batched tensor reads and writes, a device tensor's
# allocation info, per-NeuronCore memory stats, instance info, a model's
# instance count, and the NDS object API a monitor reads what a runtime
# published with (process info, its tag, its model nodes).
SUITE=sdkcalls
PLAN=13
. /tests/lib.sh

check load load sim_devices=1 sim_nc_per_device=4 sim_hbm_mb=64
D=/tmp/neff-sdkcalls
P=/tests/neff-pack
mkdir -p $D
# the uuids vm_sdk_calls expects in the published model nodes
check pack-models sh -c "
	$P -o $D/affine.neff --name affine --op affine_u32 --arg0 3 --arg1 7 \
		--input in:64 --output out:64 --uuid fedcba98-7654-3210-0f1e-2d3c4b5a6978 &&
	$P -o $D/two.neff --name two --nc 2 --uuid 00112233445566778899aabbccddeeff"
run_prog /tests/vm_sdk_calls $D
check unload unload
finish
