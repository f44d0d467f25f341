# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Surprise removal: the emulator behind the Trn2 function exits ("fault
# vanish"); every later read is all-ones. The driver must treat the device
# as gone: no NEURON_HW_ERR line (an ECC word reading 0xFFFFFFFF is no
# error count), no sysfs ECC file reads an all-ones word as a count, no
# power sample is taken from an all-ones word, FW-IO callers get an error
# within their bound, unload
# works, and a later load does not hang on the dead function. Runs last:
# the function stays dead for the rest of the boot.
PLAN=20
. /tests/lib.sh
. /tests/pcilib.sh
relay_open

# the ECC poller every 50 ms, so the window below covers many polls
check load load hw_err_poll_ms=50
N=$(dev_index npe3)
wait_for probed-npe3 60000 test -c "/dev/neuron$N"
bdf=$(index_bdf "$N")
base=$(arch_miscram_dev trn2)
relay npe3 set word 0x400 0x0badcafe >/dev/null
check_eq fw-read-before 0x0badcafe "$(vm_pci fwread "$N" "$(printf '0x%x' $((base + 0x400)))" 2>/dev/null)"
# the power profile on v3 goes through the register-only path
stat() { relay npe3 get stats | awk -v k="$1" '$1 == k { print $2 }'; }
regs0=$(stat regs) legacy0=$(stat legacy)
check power-profile vm_pci power "$N" 2
check_eq power-profile-register-only "$((regs0 + 1)) $legacy0" "$(stat regs) $(stat legacy)"
# power windows of 1 s that any one sample makes VALID
PAR=/sys/module/neuron/parameters
echo 1 > $PAR/power_min_samples
echo 1 > $PAR/power_window_s
U=$(sysdev "$N")/stats/power/utilization
H=$(sysdev "$N")/stats/hardware
mark
check vanish relay npe3 fault vanish
cfg=$(dd if="/sys/bus/pci/devices/$bdf/config" bs=4 count=1 2>/dev/null | od -An -tx4 | tr -d ' ')
check_eq config-all-ones ffffffff "$cfg"
# a window of 40 ECC polls and two power windows (a bound for a negative
# check, not a wait for an event): no NEURON_HW_ERR line may appear, and no
# power window may show the all-ones word's 100 %
t0=$(now_ms) seen=""
while [ $(( $(now_ms) - t0 )) -lt 2000 ]; do
	grep -q ',100\.00' "$U" 2>/dev/null && seen=$(cat "$U")
	sleep 0.1
done
check_eq no-hw-err "" "$(since_mark | grep NEURON_HW_ERR | head -n 2)"
check_eq no-power-sample-from-all-ones "" "$seen"
check_eq ecc-files-count-nothing "0 0 0 0 0" \
	"$(cat $H/sram_ecc_uncorrected $H/sram_ecc_corrected $H/mem_ecc_uncorrected \
		$H/mem_ecc_repairable_uncorrected $H/mem_ecc_corrected | tr '\n' ' ' | sed 's/ $//')"
# FW-IO on the dead device: ENODEV once one attempt went unanswered and
# the function reads all-ones (1 s), not after 30 attempts of 1 s
r=$(vm_pci fwread "$N" "$(printf '0x%x' $((base + 0x400)))" 2>&1)
case "$r" in "fwread: ENODEV "*) pass fw-read-enodev ;; *) fail fw-read-enodev "'$r'" ;; esac
ms=$(echo "$r" | sed -n 's/fwread: [A-Z]* \([0-9]*\) ms/\1/p')
if [ "${ms:-99999}" -le 5000 ]; then pass fw-read-bound; else fail fw-read-bound "took ${ms:-?} ms, bound 5000 ms"; fi
echo "# 40_surprise: FW_READ on the vanished device: $r"
check_within unload 20000 rmmod neuron
check_eq no-hw-err-at-unload "" "$(since_mark | grep NEURON_HW_ERR | head -n 2)"
# load again: the other functions probe; the dead one is refused at once
mark
check reload load
# one line for the dead function, at once (no readiness or reset wait)
dead() { since_mark | grep -q "$bdf: firmware not ready (DEVICE_ID reads 0xffffffff)"; }
wait_for dead-function-refused 20000 dead
check_eq dead-function-one-line 1 "$(since_mark | grep -c "$bdf")"
for n in npe0 npe1; do
	i=$(dev_index $n)
	wait_for "reprobed-$n" 60000 test -c "/dev/neuron$i"
done
check_within unload-again 20000 rmmod neuron
finish
