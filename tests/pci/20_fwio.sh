# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# FW-IO end to end on the real PCI backend (legacy host-memory transport,
# Trn1): NEURON_IOCTL_FW_READ returns what the emulated firmware holds, the
# access record of one exchange is the vendor's sequence, and each fault
# mode gives the errno and the err_count / timeout_count docs/fwio.md
# documents (a Trn1 READ: 30 attempts of 1 s).
PLAN=53
. /tests/lib.sh
. /tests/pcilib.sh
relay_open

check load load
wait_all_probed probed 60000
A=4 B=1	# npe0, npe1 (both Trn1)
base=$(arch_miscram_dev trn1)
addr() { printf '0x%x' $(( base + $1 )); }

# no answer at all, on npe1, in the background while the rest runs: every
# attempt times out, ETIMEDOUT after 30 x 1 s
to0=$(fw_stat $B timeout_count)
check fault-no-answer relay npe1 fault no_answer
(vm_pci fwread $B "$(addr 0x400)" > /tmp/noanswer.out 2>&1; echo "rc=$?" >> /tmp/noanswer.out) &
bg=$!

# the words firmware holds
relay npe0 set word 0x400 0x12345678 >/dev/null &&
relay npe0 set word 0x404 0x9abcdef0 >/dev/null &&
relay npe0 clear log >/dev/null
check set-words test $? -eq 0
v=$(vm_pci fwread $A "$(addr 0x400)" "$(addr 0x404)" 2>/dev/null | tr '\n' ' ')
check_eq fw-read-values "0x12345678 0x9abcdef0 " "$v"

# the access record of that exchange: the four address words in the
# vendor's order, each with the host window bit (bit 44 on v2), then
# TRIGGER = 1
seq=$(relay npe0 grep ' W bar0 .* m=0x(1f0|1f4|1f8|1fc|800) ' @ get log | awk '{ print $8 }' | tr '\n' ' ')
check_eq fw-read-sequence "m=0x1f4 m=0x1f0 m=0x1fc m=0x1f8 m=0x800 " "$seq"
hi=$(relay npe0 grep ' W bar0 .* m=0x1f0 ' @ get log | awk '{ print $7 }' | head -n 1)
check fw-read-window-bit test $(( (${hi:-0} >> 12) & 1 )) -eq 1
trig=$(relay npe0 grep ' W bar0 .* m=0x800 ' @ get log | awk '{ print $7 }' | sort -u | tr '\n' ' ')
check_eq fw-read-trigger-1 "0x00000001 " "$trig"

# one bad CRC, then an answer: success, err_count +1
e0=$(fw_stat $A err_count)
relay npe0 fault bad_crc times=1 >/dev/null
v=$(vm_pci fwread $A "$(addr 0x400)" 2>/dev/null)
check_eq bad-crc-once-succeeds 0x12345678 "$v"
check_eq bad-crc-once-err-count $((e0 + 1)) "$(fw_stat $A err_count)"

# bad CRC on every attempt: EIO, err_count +30
e0=$(fw_stat $A err_count) t0=$(fw_stat $A timeout_count)
relay npe0 fault bad_crc >/dev/null
check_fails bad-crc-eio 1 'fwread: EIO' vm_pci fwread $A "$(addr 0x400)"
check_eq bad-crc-err-count $((e0 + 30)) "$(fw_stat $A err_count)"
check_eq bad-crc-timeout-count "$t0" "$(fw_stat $A timeout_count)"

# an error code: EIO, err_count +30
e0=$(fw_stat $A err_count)
relay npe0 fault error 7 >/dev/null
check_fails error-code-eio 1 'fwread: EIO' vm_pci fwread $A "$(addr 0x400)"
check_eq error-code-err-count $((e0 + 30)) "$(fw_stat $A err_count)"

# unknown command: EOPNOTSUPP, not retried, err_count +1
e0=$(fw_stat $A err_count)
relay npe0 fault unknown_cmd >/dev/null
check_fails unknown-cmd-eopnotsupp 1 'fwread: EOPNOTSUPP' vm_pci fwread $A "$(addr 0x400)"
check_eq unknown-cmd-err-count $((e0 + 1)) "$(fw_stat $A err_count)"

# a late answer (1.5 s) to the first attempt: it times out, the second
# rings while firmware still works on the first (refused), the third is
# answered: success, timeout_count +2, err_count unchanged
e0=$(fw_stat $A err_count) t0=$(fw_stat $A timeout_count)
relay npe0 fault late_answer 1500 times=1 >/dev/null
v=$(vm_pci fwread $A "$(addr 0x404)" 2>/dev/null)
check_eq late-answer-succeeds 0x9abcdef0 "$v"
check_eq late-answer-timeout-count $((t0 + 2)) "$(fw_stat $A timeout_count)"
check_eq late-answer-err-count "$e0" "$(fw_stat $A err_count)"
check fault-clear relay npe0 fault clear

# a wrong sequence number in the answer: ignored as a stale answer, the
# attempt times out, the next one is answered
t0=$(fw_stat $A timeout_count)
relay npe0 fault wrong_seq times=1 >/dev/null
v=$(vm_pci fwread $A "$(addr 0x400)" 2>/dev/null)
check_eq wrong-seq-succeeds 0x12345678 "$v"
check_eq wrong-seq-timeout-count $((t0 + 1)) "$(fw_stat $A timeout_count)"

# the metrics post, the vendor's cadence (debugfs fw/post_now: one post, one
# tick, no timer involved: the suite loads with a one-day period): each post
# is one blob of at most 128 bytes; ticks alternate 0, 1, 0, 1; 12 and 13
# go out on every tick, 56 (the power profile, none set: 0) and CW 11 (the
# FW-IO error count, the reference's intent) on tick 0 only, 11 as a delta;
# 50..55 (the reset metrics) on every tick 1, even at 0. No post was
# delivered before, so the first 11 is the whole err_count; an error made
# before a tick-1 post waits for the next tick 0.
DBG=/sys/kernel/debug/neuron/neuron$A/fw
relay npe0 clear metrics >/dev/null
check_eq metrics-first-tick 0 "$(cat $DBG/post_tick)"
e1=$(fw_stat $A err_count)
check metrics-post-1 sh -c "echo 1 > $DBG/post_now"
relay npe0 fault bad_crc times=1 >/dev/null
v=$(vm_pci fwread $A "$(addr 0x400)" 2>/dev/null)
check_eq metrics-one-more-error "0x12345678 $((e1 + 1))" "$v $(fw_stat $A err_count)"
check metrics-post-2 sh -c "echo 1 > $DBG/post_now"
check metrics-post-3 sh -c "echo 1 > $DBG/post_now"
check metrics-post-4 sh -c "echo 1 > $DBG/post_now"
check_eq metrics-tick-sequence \
	"12,13,56,11 12,13,50,51,52,53,54,55 12,13,56,11 12,13,50,51,52,53,54,55 " \
	"$(relay npe0 get blobs | awk '{ print $4 }' | tr '\n' ' ')"
m=$(relay npe0 get metrics)
ids() { echo "$m" | awk -v id="$1" '$1 == id { print $2 }' | tr '\n' ' '; }
check_eq metrics-cw56-no-profile "0 0 " "$(ids 56)"
# the reset at probe (the emulated firmware takes 300 + 200 ms) is the one
# reset of the first window: max = average, no failure, no NeuronCore-level
# reset (51, 53, 55: 0); the second tick 1 has a new, empty window
nth() { echo "$m" | awk -v id="$1" '$1 == id { print $2 }' | sed -n "$2p"; }
r50=$(nth 50 1) r50b=$(nth 50 2) r52=$(nth 52 1) r52b=$(nth 52 2)
if [ "$r50" = "$r52" ] && [ "$r50" -ge 300 ] 2>/dev/null && [ "$r50" -le 60000 ]; then
	pass metrics-reset-probe-ms
else
	fail metrics-reset-probe-ms "50 = $r50, 52 = $r52: expected the probe's reset, 300..60000 ms, max = avg"
fi
check_eq metrics-reset-zeros "0 0 |0 0 |0 0 |0 0 " "$(ids 51)|$(ids 53)|$(ids 54)|$(ids 55)"
check_eq metrics-reset-window-restarts "0 0" "$r50b $r52b"
check_eq metrics-cw11-err-count "$e1 1 " "$(echo "$m" | awk '$1 == 11 { print $2 }' | tr '\n' ' ')"
check_eq metrics-cw13-version "$(cat /sys/module/neuron/version)" \
	"$(echo "$m" | awk '$1 == 13 { print $2 }' | sort -u)"
big=$(relay npe0 get blobs | awk '$2 > 128 || $2 < 1')
check_eq metrics-blobs-fit "" "$big"

# versions: a process writes ND 0 (runtime 2.25.1000), ND 1 (framework
# 1.13.7, type 13: digit 3) and ND 2 (FAL 1.0.2) into its mapped slab and
# posts twice (tick 0, tick 1) while alive, then exits; its versions go
# out with the next post of each metric after the exit (180 on the next
# tick 0, 190/191/195 on the next tick 1) and never again
ver() { echo $(( ($1 << 48) | ($2 << 40) | ($3 << 32) | $4 )); }
relay npe0 clear metrics >/dev/null
check_eq metrics-versions-tick0 0 "$(cat $DBG/post_tick)"
check_eq metrics-versions-live "ndsver: ok" \
	"$(vm_pci ndsver $A $(ver 0 2 25 1000) $(ver 13 1 13 7) $(ver 0 1 0 2) 2 2>&1)"
check metrics-post-after-exit sh -c "echo 1 > $DBG/post_now && echo 1 > $DBG/post_now &&
	echo 1 > $DBG/post_now"
check_eq metrics-versions-sequence \
	"12,13,56,180 12,13,180,190,191,195,50,51,52,53,54,55 12,13,56,180 12,13,190,191,195,50,51,52,53,54,55 12,13,56 " \
	"$(relay npe0 get blobs | awk '{ print $4 }' | tr '\n' ' ')"
m=$(relay npe0 get metrics)
check_eq metrics-versions-strings "2.25.1000 2.25.1000 2.25.1000 |1.13.7 1.13.7 |3 3 |1.0.2 1.0.2 " \
	"$(ids 180)|$(ids 190)|$(ids 191)|$(ids 195)"

# power utilization from the firmware's POWER words ([15:0] basis points,
# [31:16] a sample counter the emulated firmware bumps every 20 ms): v2
# (Trn1) reads one die's word, as the vendor's sampler does; v3 (Trn2)
# the larger of two. On npe0 and npe3 die 1 draws 90 %, die 0 10 %: every
# 1 s window that rolls up from then on shows 10.00 on npe0 and 90.00 on
# npe3 (a state that holds, not one window's line), and only npe3's
# sampler ever reads POWER_D1.
PAR=/sys/module/neuron/parameters
D=$(dev_index npe3)
U0=$(sysdev $A)/stats/power/utilization U3=$(sysdev $D)/stats/power/utilization
relay npe0 clear log >/dev/null
relay npe3 clear log >/dev/null
for n in npe0 npe3; do
	relay $n set power 1 9000 >/dev/null && relay $n set power 0 1000 >/dev/null ||
		fail power-set-$n "relay could not set the draw"
done
echo 1 > $PAR/power_min_samples
echo 1 > $PAR/power_window_s
wait_for power-v2-die0 15000 grep -q '^POWER_STATUS_VALID,[0-9]*,10\.00,10\.00,10\.00$' "$U0" ||
	echo "# $U0: $(cat "$U0")"
wait_for power-v3-max-of-dice 15000 grep -q '^POWER_STATUS_VALID,[0-9]*,90\.00,90\.00,90\.00$' "$U3" ||
	echo "# $U3: $(cat "$U3")"
check_eq power-v2-never-reads-die1 "" "$(relay npe0 grep ' R bar0 .* POWER_D1$ @' get log)"
check power-v3-reads-die1 test -n "$(relay npe3 grep ' R bar0 .* POWER_D1$ @' get log | head -n 1)"
# a 1 s window holds at most 20 of the driver's 50 ms samples: with 1000
# required, every window from the next roll-up on is INVALID (with the
# values it had)
echo 1000 > $PAR/power_min_samples
wait_for power-invalid 15000 grep -q '^POWER_STATUS_INVALID,[0-9]*,10\.00,10\.00,10\.00$' "$U0" ||
	echo "# $U0: $(cat "$U0")"
echo 60 > $PAR/power_window_s
echo 60 > $PAR/power_min_samples

# the background caller: ETIMEDOUT after 30 attempts of 1 s
wait $bg
r=$(cat /tmp/noanswer.out)
case "$r" in
*"fwread: ETIMEDOUT "*"rc=1"*) pass no-answer-etimedout ;;
*) fail no-answer-etimedout "$(echo $r)" ;;
esac
ms=$(echo "$r" | sed -n 's/fwread: ETIMEDOUT \([0-9]*\) ms/\1/p')
if [ "${ms:-0}" -ge 29000 ] && [ "${ms:-0}" -le 40000 ]; then pass no-answer-bound
else fail no-answer-bound "took ${ms:-?} ms, expected 30 x 1 s"; fi
check_eq no-answer-timeout-count $((to0 + 30)) "$(fw_stat $B timeout_count)"
relay npe1 fault clear >/dev/null
finish
