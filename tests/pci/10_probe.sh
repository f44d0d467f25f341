# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Probe of the real PCI backend on emulated Trn1, Inf2 and Trn2 functions
# (docs/pci-testing.md): numbering by routing id, sysfs, GET_INFO,
# neuron-ls, the readiness wait, the reset at probe in the vendor's order,
# unload with devices bound and load again.
NDEV=$(wc -l < /etc/pci-devs)
# per device: probed, bdf, bound, sysfs, GET_INFO, reset order, TRIGGER
# values, reprobed; plus load, readiness x2, neuron-ls x2, crossed, unload,
# reload, unload-2; the reset that never completes (14, neuron-doctor's
# included); a reset in progress and its readers and openers (11); the
# load with async_probe=1 (4)
PLAN=$((NDEV * 8 + 56))
. /tests/lib.sh
. /tests/pcilib.sh
relay_open

check load load
wait_all_probed probed 60000
for n in $(dev_names); do
	i=$(dev_index "$n")
	bdf=$(index_bdf "$i")
	if [ -n "$bdf" ]; then pass "bdf-$n"; else fail "bdf-$n" "no probe line for neuron$i: $(dmesg | grep -E 'neuron-driver|neuron: pci' | tail -n 3 | tr '\n' ' ')"; fi
	check "bound-$n" test -e "/sys/bus/pci/drivers/neuron-driver/$bdf"
	check_eq "sysfs-$n" "$(arch_nc "$(dev_arch "$n")")" "$(cat "$(sysdev "$i")/core_count" 2>&1)"
	check_eq "get-info-$n" "index=$i nc=$(arch_nc "$(dev_arch "$n")") backend=2" \
		"$(vm_pci info "$i" | sed 's/ abi=.*//')"
	# the reset at probe: RESET = 1 written before the doorbell; TRIGGER
	# only ever written with 1
	w=$(relay "$n" grep ' W bar0 .* (RESET|TRIGGER)$ @' get log | awk '{ print $NF "=" $7 }')
	case "$(echo $w)" in
	"RESET=0x00000001 TRIGGER=0x00000001"*) pass "reset-order-$n" ;;
	*) fail "reset-order-$n" "writes to RESET/TRIGGER were: $(echo $w | cut -c1-200)" ;;
	esac
	bad=$(echo "$w" | grep '^TRIGGER=' | grep -v '=0x00000001$')
	check_eq "trigger-only-1-$n" "" "$bad"
done


# two Trn1 functions with crossed routing ids: the one on the first port
# (rid 1) is neuron4, the one on the second (rid 2) neuron1
b4=$(index_bdf 4) b1=$(index_bdf 1)
if [ -n "$b4" ] && [ -n "$b1" ] && [ "$b4" \< "$b1" ]; then pass crossed-rids
else fail crossed-rids "neuron4 at '$b4', neuron1 at '$b1'"; fi

out=$(neuron-ls --json 2>&1)
check neuron-ls-runs test -n "$out"
want=$(for n in $(dev_names); do dev_index "$n"; done | sort -n | tr '\n' ' ')
got=$(echo "$out" | jq -r '.[].neuron_device' 2>/dev/null | sort -n | tr '\n' ' ')
check_eq neuron-ls-devices "$want" "$got"

# unload with devices bound, and load again: the same numbering
check_within unload-bound 20000 rmmod neuron
check reload load
ok=1
for n in $(dev_names); do
	i=$(dev_index "$n")
	t0=$(now_ms)
	until [ -c "/dev/neuron$i" ]; do
		[ $(( $(now_ms) - t0 )) -lt 60000 ] || { ok=0; break; }
		sleep 0.05
	done
	[ $ok = 1 ] || break
done
if [ $ok = 1 ]; then pass reprobed-all; else fail reprobed-all "/dev/neuron$i missing 60 s after the reload"; fi
for n in $(dev_names); do
	i=$(dev_index "$n")
	check_eq "reprobe-info-$n" "index=$i" "$(vm_pci info "$i" | sed 's/ nc=.*//')"
done

# readiness: unbind npe0, make its firmware read 0xDEADBEEF for 10 s (a
# "deadbeef_storm"), bind it again (sysfs bind probes synchronously): the
# probe waits it out (the first DEVICE_ID read is 0xDEADBEEF, the last the
# routing id). 10 s, not 3: on the debug kernel of a busy machine the
# probe's first read once came more than 3 s after the storm began.
b0=$(index_bdf 4)
check unbind-npe0 sh -c "echo $b0 > /sys/bus/pci/drivers/neuron-driver/unbind"
relay npe0 clear log >/dev/null
relay npe0 fault deadbeef_storm 10000 >/dev/null
check_within bind-npe0 60000 sh -c "echo $b0 > /sys/bus/pci/drivers/neuron-driver/bind"
check rebound-npe0-neuron4 test -c /dev/neuron4
r=$(relay npe0 grep ' R bar0 .* DEVICE_ID$ @' get log | awk '{ print $7 }')
check_eq readiness-first-read-deadbeef 0xdeadbeef "$(echo "$r" | head -n 1)"
check_eq readiness-last-read-rid "$(printf '0x%08x' "$(dev_rid npe0)")" "$(echo "$r" | tail -n 1)"
# the vendor's NC_RESET of NeuronCore 1 (held by the caller): the
# firmware's TPB reset with the vendor's map (v2: the core and its three
# TOP_SPs, 0x3802; v3: the core, its SDMA and TOP_SP groups, 0x20202),
# written before RESET = 2 and the doorbell; NC_RESET_READY says completed
for n in npe1 npe3; do
	i=$(dev_index "$n")
	case "$(dev_arch "$n")" in trn1|inf2) want=0x00003802 ;; *) want=0x00020202 ;; esac
	relay "$n" clear log >/dev/null
	check_eq "nc-reset-$n" "ncreset: result 0" "$(vm_pci ncreset "$i" 0x2 2>&1)"
	w=$(relay "$n" grep ' W bar0 .* (RESET_TPB_MAP|RESET|TRIGGER)$ @' get log | awk '{ print $NF "=" $7 }')
	check_eq "nc-reset-writes-$n" "RESET_TPB_MAP=$want RESET=0x00000002 TRIGGER=0x00000001" "$(echo $w)"
done

# the tensor engine's PE activity counters, read as the vendor reads them:
# row group 1 of NeuronCore 1 given a matmul count (above 2^32), the four
# fast weight-load counts (and on Trn2 the weight-load counter of register
# group 8) and an idle count; pe_cntrs sums the weight loads; one read is
# 48 BAR0 words on Trn1 (56 on Trn2), high word first, all in the
# NeuronCore's block
for n in npe1 npe3; do
	i=$(dev_index "$n")
	case "$(dev_arch "$n")" in
	trn1|inf2) b=0x30CB1100 rg=0x140 sz=0x40 want=10 words=48 pfx=0x30cb1 ;;
	*) b=0x062C1100 rg=0x1B0 sz=0x30 want=110 words=56 pfx=0x62c1 ;;
	esac
	r1=$((b + rg))
	set -- "$((r1 + 4 * sz)) 0x500000007" "$((r1 + 4 * sz + 0x10)) 42"
	for c in 0 1 2 3; do set -- "$@" "$((r1 + c * sz + 8)) $((c + 1))"; done
	[ "$want" = 110 ] && set -- "$@" "$((r1 + 8 * sz + 8)) 100"
	bad=0
	for kv in "$@"; do
		relay "$n" set pe $(printf '0x%x' "${kv% *}") "${kv#* }" >/dev/null || bad=1
	done
	check_eq "pe-set-$n" 0 "$bad"
	relay "$n" clear log >/dev/null
	check_eq "pe-cntrs-$n" "xrow_grp,mm_active,wl_active,idle|0,0,0,0|1,21474836487,$want,42|2,0,0,0|3,0,0,0|" \
		"$(tr '\n' '|' < "$(sysdev "$i")/neuron_core1/stats/tensor_engine/pe_cntrs")"
	# the block's words: the NeuronCore's page (0x30cb1xxx, 0x62c1xxx)
	check_eq "pe-cntrs-reads-$n" "$words" \
		"$(relay "$n" grep ' R bar0 ' @ get log | awk -v p=$pfx '$5 ~ "^" p && length($5) == length(p) + 3 { n++ } END { print n + 0 }')"
done

# a reset that never completes: the vendor keeps the device, INVALID.
# npe0 unbound, its firmware never takes a reset, a 2 s budget
# (reset_timeout_ms; the vendor's is 120 s or 480 s): the device is there,
# reads invalid, says why in one line, refuses opens with EINVAL as the
# vendor's does; once the firmware takes resets again, a write to its
# reset file brings it back
check unbind-npe0-for-reset sh -c "echo $b0 > /sys/bus/pci/drivers/neuron-driver/unbind"
relay npe0 fault reset_never_completes >/dev/null
check reset-budget-2s sh -c 'echo 2000 > /sys/module/neuron/parameters/reset_timeout_ms'
mark
check_within bind-reset-never 60000 sh -c "echo $b0 > /sys/bus/pci/drivers/neuron-driver/bind"
check reset-never-kept test -c /dev/neuron4
check_eq reset-never-state invalid "$(cat "$(sysdev 4)/state" 2>&1)"
check_eq reset-never-reset-file 2 "$(cat "$(sysdev 4)/reset" 2>&1)"
check_eq reset-never-log-line 1 \
	"$(since_mark | grep -c 'neuron4: its reset did not complete; state INVALID')"
check_fails reset-never-open-einval 1 'Invalid argument' vm_pci info 4
check_eq reset-never-fw-read-counters "0 0" "$(fw_stat 4 err_count) $(fw_stat 4 timeout_count)"
# neuron-doctor names the device and what to do (exit 2)
neuron-doctor --no-kmsg > /tmp/doc 2>&1
rc=$?
check_eq reset-never-doctor "2 neuron-doctor: state: reload the driver or reboot (sudo modprobe -r neuron && sudo modprobe neuron); a write to /sys/class/neuron_device/neuron4/reset retries the reset 1" \
	"$rc $(head -n 1 /tmp/doc) $(grep -c '^\[error\] state: neuron4 did not come back from reset (state: invalid; opens fail with EINVAL) -> ' /tmp/doc)"
# a reset in progress holds neither the readers of the reset counters nor
# an opener that is killed: a reset that cannot complete (a 10 min
# budget) runs in the background until the fault is cleared
echo 600000 > /sys/module/neuron/parameters/reset_timeout_ms
sh -c "echo 1 > $(sysdev 4)/reset" 2>/dev/null &
rbg=$!
state_is() { [ "$(cat "$(sysdev 4)/state" 2>&1)" = "$1" ]; }
wait_for reset-running 20000 state_is reset
ended() { [ ! -e /proc/$1 ] || grep -q ') Z ' /proc/$1/stat; }
cat $(sysdev 4)/neuron_core0/stats/other_info/reset_req_count/total > /tmp/rrc 2>&1 &
rd=$!
wait_for reset-counter-read-while-resetting 20000 ended $rd
check_eq reset-counter-value-while-resetting 1 "$(grep -cE '^[0-9]+$' /tmp/rrc)"
# in open(2) (openat: 257, open: 2 on x86_64) and asleep
in_open() { grep -q ') D ' /proc/$1/stat && grep -qE '^(257|2) ' /proc/$1/syscall; }
vm_pci info 4 > /dev/null 2>&1 &
opener=$!
wait_for open-waits-for-reset 20000 in_open $opener
kill -9 $opener
wait_for killed-opener-returns 20000 ended $opener
wait $opener 2>/dev/null
relay npe0 fault clear >/dev/null
wait_for background-reset-ends 60000 ended $rbg
wait $rbg
check_eq reset-in-background-completes "0 ready" "$? $(cat "$(sysdev 4)/state" 2>&1)"
# an opener that waited through a reset that fails (an 8 s budget) gets
# EINVAL, as an open of the INVALID device does
relay npe0 fault reset_never_completes >/dev/null
echo 8000 > /sys/module/neuron/parameters/reset_timeout_ms
sh -c "echo 1 > $(sysdev 4)/reset" 2>/dev/null &
rbg=$!
wait_for reset-running-again 20000 state_is reset
vm_pci info 4 > /tmp/op2 2>&1 &
opener=$!
wait_for open-waits-for-failing-reset 20000 in_open $opener
wait_for failing-reset-ends 60000 ended $rbg
wait $rbg
rrc=$?
wait $opener
check_eq waiting-opener-gets-einval "failed invalid 1" \
	"$([ $rrc -ne 0 ] && echo failed) $(cat "$(sysdev 4)/state" 2>&1) $(grep -c 'Invalid argument' /tmp/op2)"
relay npe0 fault clear >/dev/null
echo 2000 > /sys/module/neuron/parameters/reset_timeout_ms
check_within reset-file-recovers 20000 sh -c "echo 1 > $(sysdev 4)/reset"
check_eq reset-recovered-state ready "$(cat "$(sysdev 4)/state" 2>&1)"
check_eq reset-recovered-info "index=4" "$(vm_pci info 4 | sed 's/ nc=.*//')"
check reset-budget-default sh -c 'echo 0 > /sys/module/neuron/parameters/reset_timeout_ms'
# no_reset=1 (the vendor's parameter): the probe writes neither RESET nor
# TRIGGER
check_within unload-for-no-reset 20000 rmmod neuron
relay npe1 clear log >/dev/null
check load-no-reset load no_reset=1
wait_for no-reset-probed 60000 test -c "/dev/neuron$(dev_index npe1)"
check_eq no-reset-no-writes "" "$(relay npe1 grep ' W bar0 .* (RESET|TRIGGER)$ @' get log)"
check_within unload-again 20000 rmmod neuron
# async_probe=1 (a parameter the kernel takes for any module): the load
# returns while a device still waits for its firmware, which reads
# 0xDEADBEEF until the fault is cleared; the device appears once it is
# ready. Without it the load waits for every probe (docs/fwio.md, "Probe").
relay npe1 fault deadbeef_storm 600000 >/dev/null
check_within load-async-returns 20000 load async_probe=1
check async-waiting-device-absent test ! -e "/dev/neuron$(dev_index npe1)"
relay npe1 fault clear >/dev/null
wait_for async-device-appears 60000 test -c "/dev/neuron$(dev_index npe1)"
check_within unload-async 20000 rmmod neuron
finish
