# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers of the PCI guest suites (tests/pci/, scripts/pci-vm.sh), sourced
# after tests/vm/lib.sh. The emulated functions are listed in /etc/pci-devs,
# one per line: "<name> <arch> <routing id> <expected index>".

# ---- the relay (scripts/pci-relay.py) -------------------------------------
# One request line on /dev/ttyS1, the answer's data lines on stdout, status
# 0 on "ok"; "err ..." or no answer within RELAY_WAIT s: status 1, the
# reason on stderr.
RELAY_WAIT=${RELAY_WAIT:-60}
relay_open() {
	stty -F /dev/ttyS1 raw -echo -echoe -echok -icrnl -onlcr 2>/dev/null
	exec 3<>/dev/ttyS1
}
relay() {
	local line
	echo "$*" >&3
	while IFS= read -r -t "$RELAY_WAIT" line <&3; do
		case "$line" in
		ok) return 0 ;;
		err*) echo "relay '$*': $line" >&2; return 1 ;;
		*) echo "$line" ;;
		esac
	done
	echo "relay '$*': no answer within $RELAY_WAIT s" >&2
	return 1
}

# ---- the emulated functions -------------------------------------------------
dev_index() { awk -v n="$1" '$1 == n { print $4 }' /etc/pci-devs; }
dev_arch() { awk -v n="$1" '$1 == n { print $2 }' /etc/pci-devs; }
dev_rid() { awk -v n="$1" '$1 == n { print $3 }' /etc/pci-devs; }
dev_names() { awk '{ print $1 }' /etc/pci-devs; }
arch_nc() { case "$1" in trn1|inf2) echo 2 ;; *) echo 8 ;; esac; }
# MiscRAM in the device's address space (what FW_READ takes): the vendor's
# readless base of BAR0 plus MiscRAM's offset in BAR0
arch_miscram_dev() {
	case "$1" in
	trn1|inf2) printf '0x%x' $(( 0x000fffc0000000 + 0x30FA0000 )) ;;
	*) printf '0x%x' $(( 0x00008000000000 + 0x06C84000 )) ;;
	esac
}
# The PCI address the driver bound neuron<N> to, from its probe line
# ("neuron-driver 0000:01:00.0: arch v2, routing id 1: neuron4"), the last one.
index_bdf() { dmesg | sed -n "s/.* \([0-9a-f]\{4\}:[0-9a-f]\{2\}:[0-9a-f]\{2\}\.[0-9]\): arch .*: neuron$1\$/\1/p" | tail -n 1; }
sysdev() { echo "/sys/class/neuron_device/neuron$1"; }
fw_stat() { cat "$(sysdev "$1")/stats/fw_io/$2"; }

# wait until every function listed has its /dev/neuron<N>
wait_all_probed() { # wait_all_probed CHECK-PREFIX BOUND_MS
	local n
	for n in $(dev_names); do
		wait_for "$1-$n-neuron$(dev_index "$n")" "$2" test -c "/dev/neuron$(dev_index "$n")"
	done
}
