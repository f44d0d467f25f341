# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Orderly hot-unplug (QMP device_del) of an emulated Inf2 function while a
# process holds its device open with the NDS slab (and an ERROR ring, where
# the device has one) mapped: the old file answers ENODEV, the mapping stays
# readable, nothing in the kernel log; then hot-plug (device_add) brings it
# back at the same /dev/neuron<N> while the old file is still open.
# QEMU's device_del needs the guest's native PCIe hotplug (pciehp;
# scripts/pci-vm.sh turns q35's ACPI hotplug off). A kernel without it
# (CONFIG_HOTPLUG_PCI_PCIE) fails this suite; every kernel make check
# boots here has it, the debug kernel included.
if [ -d /sys/module/pciehp ]; then PLAN=21; else PLAN=1; fi
. /tests/lib.sh
. /tests/pcilib.sh
if [ "$PLAN" = 1 ]; then
	fail pciehp "this kernel has no PCIe native hotplug (CONFIG_HOTPLUG_PCI_PCIE): run the other suites (--only)"
	finish
fi
relay_open

check load load
wait_all_probed probed 60000
HP=${HP:-npe2}
N=$(dev_index $HP)
bdf=$(index_bdf "$N")
check bdf test -n "$bdf"
H=/tmp/hold
rm -rf $H && mkdir -p $H
vm_pci hold "$N" $H > $H/out 2>&1 &
holder=$!
wait_for holder-ready 20000 test -e $H/ready
# and a FW-IO exchange in flight: firmware takes it and never answers
requests() { relay $HP get stats | awk '$1 == "requests" { print $2 }'; }
r0=$(requests)
relay $HP fault no_answer >/dev/null
(vm_pci fwread "$N" "$(printf '0x%x' $(( $(arch_miscram_dev "$(dev_arch $HP)") + 0x400 )))" \
	> $H/fw.out 2>&1; echo "rc=$?" >> $H/fw.out) &
fwpid=$!
in_flight() { [ "$(requests)" -gt "${r0:-0}" ]; }
wait_for fw-in-flight 20000 in_flight
mark
check device-del relay qmp del $HP
wait $fwpid
r=$(cat $H/fw.out)
case "$r" in *"fwread: ENODEV "*"rc=1"*) pass fw-in-flight-enodev ;; *) fail fw-in-flight-enodev "$(echo $r)" ;; esac
relay $HP fault clear >/dev/null
wait_for node-gone 20000 test ! -e "/dev/neuron$N"
wait_for pci-gone 20000 test ! -e "/sys/bus/pci/devices/$bdf"
touch $H/gone
wait_for holder-checked 20000 test -e $H/checked
check device-add relay qmp add $HP
# back at the same N while the old file is still open
wait_for node-back 60000 test -c "/dev/neuron$N" ||
	since_mark | grep -E 'neuron|pci|BAR|bridge' | tail -n 20 | sed 's/^/# /'
check_eq info-back "index=$N" "$(vm_pci info "$N" | sed 's/ nc=.*//')"
refused=$(since_mark | grep -E 'exists already|has no device index|probe .* failed')
check_eq no-refused-probe "" "$refused"
touch $H/release
wait $holder
rc=$?
check_eq holder-status 0 "$rc"
out=$(cat $H/out)
case "$out" in *"hold: ok"*) pass holder-ok ;; *) fail holder-ok "$(echo $out)" ;; esac
# after the last close of the old file, the new device is untouched
check_eq info-after-close "index=$N" "$(vm_pci info "$N" | sed 's/ nc=.*//')"
check_within unload 20000 rmmod neuron
finish
