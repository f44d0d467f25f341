# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Sourced by scripts/vm.sh and scripts/pci-vm.sh: the guest's verdict from
# QEMU's exit status.
#
# guest_verdict STATUS LOG: prints pass, fail or none. isa-debug-exit turns
# the guest's verdict v into exit status (v << 1) | 1. A kernel without
# /dev/port (CONFIG_DEVPORT off, as in Debian's cloud flavor) cannot reach
# isa-debug-exit; QEMU then exits 0 on the guest's power-off, and the
# verdict is the one /init printed last in LOG. Anything else (a timeout,
# a crash) is none: the guest never reported.
guest_verdict() {
	case "$1" in
	1) echo pass ;;
	3) echo fail ;;
	0)
		case "$(grep -E '^vm-guest: done, verdict [01]$' "$2" | tail -n 1)" in
		*"verdict 0") echo pass ;;
		*"verdict 1") echo fail ;;
		*) echo none ;;
		esac
		;;
	*) echo none ;;
	esac
}
