# Guest suite: FW-IO mailbox (module parameters, debugfs knobs, every fault
# mode at each call site, bounded waits, sequence numbers) and the metrics
# post (deltas, metric 11, 12/13, blob bound, cadence, unload while hung).
SUITE=fwio
. /tests/lib.sh

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# Out-of-range parameters are refused at load, naming the range.
for arg in fwio_timeout_ms=0 fwio_timeout_ms=60001 fwio_retries=0 fwio_retries=31 \
	   nmetric_post_delay_ms=99 nmetric_post_delay_ms=abc; do
	dmesg -c >/dev/null
	if load sim_devices=1 $arg 2>/dev/null; then
		fail "refuses-$arg" "load with $arg succeeded"
		unload
	elif dmesg | grep -q "${arg%%=*}=.*expected an integer in"; then
		pass "refuses-$arg"
	else
		fail "refuses-$arg" "no dmesg line naming the range: $(dmesg | tail -n 1)"
	fi
done

# Defaults: 1 s x 3 attempts, a post every 150 s.
check load-defaults load sim_devices=1
P=/sys/module/neuron/parameters
check_eq defaults "1000 3 150000" "$(cat $P/fwio_timeout_ms) $(cat $P/fwio_retries) $(cat $P/nmetric_post_delay_ms)"
check_eq param-mode "-rw-r--r--" "$(ls -l $P/fwio_timeout_ms | cut -c1-10)"
check_fails param-runtime-range sh -c "echo 0 > $P/fwio_retries"
check_eq param-unchanged 3 "$(cat $P/fwio_retries)"
check unload-defaults unload

check load load sim_devices=2 fwio_timeout_ms=100 fwio_retries=3
D=/sys/kernel/debug/neuron/neuron0/fw
S=/sys/devices/virtual/neuron_device/neuron0
check_eq debugfs-files "api_version fault last_seq post_now posted posted_blobs sim_stats slow_ms stats" \
	"$(ls $D | sort | tr '\n' ' ' | sed 's/ $//')"
modes=
for f in fault posted slow_ms api_version; do modes="$modes $(ls -l $D/$f | cut -c1-10)"; done
for f in last_seq stats posted_blobs sim_stats; do modes="$modes $(ls -l $D/$f | cut -c1-10)"; done
modes="$modes $(ls -l $D/post_now | cut -c1-10)"
check_eq debugfs-root-only " -rw------- -rw------- -rw------- -rw------- -r-------- -r-------- -r-------- -r-------- --w-------" "$modes"
check_eq sysfs-counters-start "0 0" "$(cat $S/stats/fw_io/err_count) $(cat $S/stats/fw_io/timeout_count)"
check_eq serial-number "4e53494d00010000" "$(cat $S/info/serial_number)"
check_eq serial-number-1 "4e53494d00010001" "$(cat /sys/devices/virtual/neuron_device/neuron1/info/serial_number)"
check_eq fw-api-version 7 "$(cat $S/info/fw_api_version)"
check_eq fault-initial "none 0" "$(cat $D/fault)"
check_eq first-seq-unused 1 "$(cat $D/last_seq)"

# fw/fault parsing: accepted forms read back; anything else is -EINVAL
# with a dmesg line giving the expected format, and changes nothing.
for good in "fail:fail 1" "fail 7:fail 7" "timeout 0:timeout 0" "  bad_seq   3 :bad_seq 3" \
	    "slow:slow 1" "oversize 2:oversize 2" "unknown_command 4:unknown_command 4" \
	    "bad_crc 1:bad_crc 1" "none:none 0"; do
	in=${good%%:*}; want=${good#*:}
	echo "$in" > $D/fault
	check_eq "fault-accepts-'$in'" "$want" "$(cat $D/fault)"
done
for bad in "" "fial" "fail x" "fail -1" "fail 1 2" "none 3" "timeout 99999999999" "FAIL" "fail 1x"; do
	dmesg -c >/dev/null
	if printf '%s\n' "$bad" > $D/fault 2>/dev/null; then
		fail "fault-refuses-'$bad'" "accepted"
	elif dmesg | grep -q 'fw/fault: expected "<none|fail|unknown_command|timeout|bad_seq|bad_crc|slow|oversize> \[count\]"'; then
		pass "fault-refuses-'$bad'"
	else
		fail "fault-refuses-'$bad'" "no dmesg line with the expected format"
	fi
done
check_eq fault-unchanged-after-bad "none 0" "$(cat $D/fault)"
check_fails slow-ms-range sh -c "echo 10001 > $D/slow_ms"
check_eq slow-ms-default 20 "$(cat $D/slow_ms)"

run_prog /tests/vm_fwio

# sysfs and the transport's own debugfs view agree.
check_eq sysfs-matches-debugfs "err_count $(cat $S/stats/fw_io/err_count) timeout_count $(cat $S/stats/fw_io/timeout_count)" \
	"$(head -n 2 $D/stats | tr '\n' ' ' | sed 's/ $//')"
check_eq never-seq-zero "zero_seq 0" "$(grep zero_seq $D/sim_stats)"
check_eq other-device-clean "0 0" "$(cat /sys/devices/virtual/neuron_device/neuron1/stats/fw_io/err_count) $(cat /sys/devices/virtual/neuron_device/neuron1/stats/fw_io/timeout_count)"

# post_now reports the post's errno to the writer.
echo "timeout 0" > $D/fault
if echo 1 2>/dev/null > $D/post_now; then
	fail post-now-errno "post against a hung firmware succeeded"
else
	pass post-now-errno
fi
echo none > $D/fault
check post-now-ok sh -c "echo 1 > $D/post_now"

# The mailbox benchmark runs (make bench runs it at full size).
if out=$(/tests/vm_bench_fwio 300 2>&1) && echo "$out" | grep -q '^ratio FW_READ / GET_INFO'; then
	pass bench-smoke
else
	fail bench-smoke "$(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi
echo "$out"
check unload unload

# The periodic post on a 100 ms cadence, without post_now.
check load-cadence load sim_devices=1 nmetric_post_delay_ms=100
sleep 1
n=$(grep -c '^12 sim$' $D/posted)
if [ "$n" -ge 4 ] && [ "$n" -le 12 ]; then pass periodic-posts; else fail periodic-posts "$n posts in 1 s at 100 ms"; fi
check_eq periodic-only-constants "" "$(grep -v '^1[23] ' $D/posted)"
check_eq periodic-blob-sizes "" "$(awk '$1 > 128 || $1 < 1' $D/posted_blobs)"

# A hung firmware does not hold up unload: the worker's exchange aborts.
echo 1000 > $P/fwio_timeout_ms
echo "timeout 0" > $D/fault
sleep 0.3
t0=$(now_ms)
check unload-while-hung unload
t1=$(now_ms)
if [ $((t1 - t0)) -lt 1000 ]; then pass unload-bounded; else fail unload-bounded "rmmod took $((t1 - t0)) ms"; fi

finish
