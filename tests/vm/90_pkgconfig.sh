# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the external program built from an installed libnrt through
# pkg-config (tests/pkgconfig/, built into <build>/vm/ by
# scripts/test-packaging.sh) runs against two simulated devices.
SUITE=pkgconfig
PLAN=10
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
check unload unload
check_eq nodes-gone "" "$(ls /dev | grep '^neuron')"
finish
