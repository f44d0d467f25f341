# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Demo part: the application API. An application written only to
# the SDK's <nrt/nrt.h> loads a NEFF packed here, runs it on the simulated
# device and checks its outputs; then the same application meets an
# NRT_STATUS and the sysfs counter it feeds moves.
# Runs with the module loaded (sim_devices=2) and the tools in /tests/.
D=/tmp/demo-neff
S=/sys/devices/virtual/neuron_device/neuron0/neuron_core0/stats
mkdir -p $D
echo "-- pack a NEFF: out[i] = in[i] * 3 + 7 (u32), 64 bytes in and out"
/tests/neff-pack -o $D/affine.neff --name affine --op affine_u32 --arg0 3 --arg1 7 \
	--input in:64 --output out:64 --run-us 200 || exit 1
/tests/neff-pack --info $D/affine.neff || exit 1
echo
echo "-- run it: nrt_init, nrt_load, tensors, nrt_execute x2, nrt_tensor_read"
s0=$(cat $S/status/success/total)
/tests/vm_sdk_app $D/affine.neff || exit 1
echo "status/success on neuron_core0: $s0 -> $(cat $S/status/success/total)"
echo
echo "-- the same application, given a NEFF with packaging_version 3"
/tests/neff-pack -o $D/v3.neff --name v3 --packaging-version 3 || exit 1
u0=$(cat $S/status/unsupported_neff_version/total)
if /tests/vm_sdk_app $D/v3.neff; then
	echo "unexpected: a version 3 NEFF loaded"
	exit 1
fi
echo "status/unsupported_neff_version on neuron_core0: $u0 -> $(cat $S/status/unsupported_neff_version/total)"
/tests/nrt-status 10 | head -n 3
rm -rf $D
