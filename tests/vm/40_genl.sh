# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the "neuron" generic netlink family through neuron-monitor:
# resolution, the counters dump (names, shape, live totals), error events
# on the "errors" group, extack errors, Prometheus output.
SUITE=genl
PLAN=55
. /tests/lib.sh

M=/tests/neuron-monitor
JOB=/tests/vm_genl_job
SYS=/sys/devices/virtual/neuron_device
TMP=/tmp/genl
mkdir -p $TMP

check_fails family-absent-without-module 1 'family "neuron": .*\(is neuron.ko loaded\?\)' $M --counters
check load load sim_devices=2 sim_nc_per_device=2
check family-resolves $M --counters --device 0 --core 0

# Shape: 2 devices x 2 NeuronCores x 24 counters, sysfs names per core.
$M --counters > $TMP/dump 2>&1
check_eq dump-exit 0 $?
tail -n +2 $TMP/dump > $TMP/rows
check_eq dump-entries 96 "$(wc -l < $TMP/rows | tr -d ' ')"
check_eq dump-cores "0:0 0:1 1:0 1:1" "$(awk '{ print $1 ":" $2 }' $TMP/rows | sort -u | tr '\n' ' ' | sed 's/ $//')"
for c in 0:0 0:1 1:0 1:1; do
	d=${c%:*}; n=${c#*:}
	check_eq "dump-names-$d-$n" "$(ls $SYS/neuron$d/neuron_core$n/stats/status | sort | tr '\n' ' ')" \
		"$(awk -v d=$d -v n=$n '$1 == d && $2 == n { print $3 }' $TMP/rows | sort | tr '\n' ' ')"
done
# The kernel filters: every row of a --device 1 dump is device 1 (2 cores x 24).
$M --counters --device 1 | tail -n +2 > $TMP/dev1
check_eq dump-device-filter-rows 48 "$(wc -l < $TMP/dev1 | tr -d ' ')"
check_eq dump-device-filter-only-device-1 "1" "$(awk '{ print $1 }' $TMP/dev1 | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq dump-json-entries 96 "$($M --counters --json | grep -o '"total": [0-9]*' | wc -l | tr -d ' ')"

# A fault + job moves exactly its counter, live (the job's process is gone,
# its slab folded), and the dump agrees with sysfs.
check arm-semaphore sh -c "echo '1 SEMAPHORE_ERROR' > /sys/kernel/debug/neuron/neuron0/inject/tpb_error"
check job-0-1 $JOB 0 1
total() { $M --counters --device $1 --core $2 | awk -v c=$3 '$3 == c { print $5 }'; }
check_eq dump-total-moved 1 "$(total 0 1 execute_sw_semaphore_error)"
check_eq dump-total-is-sysfs "$(cat $SYS/neuron0/neuron_core1/stats/status/execute_sw_semaphore_error/total)" \
	"$(total 0 1 execute_sw_semaphore_error)"
check_eq other-core-unmoved 0 "$(total 0 0 execute_sw_semaphore_error)"
check_eq other-device-unmoved 0 "$(total 1 1 execute_sw_semaphore_error)"

# Prometheus: every non-comment line is name{labels} value; the simulated
# devices' series say simulated="1".
$M --counters --prometheus > $TMP/prom
check_eq prometheus-lines 96 "$(grep -vc '^#' $TMP/prom)"
check_eq prometheus-parses 0 \
	"$(grep -v '^#' $TMP/prom | grep -vcE '^neuron_status_total\{device="[0-9]+",core="[0-9]+",counter="[a-z0-9_]+",simulated="1"\} [0-9]+$')"
check prometheus-moved grep -qx 'neuron_status_total{device="0",core="1",counter="execute_sw_semaphore_error",simulated="1"} 1' $TMP/prom

# Events: the subscriber says on stderr (a fifo here) when it listens; the
# jobs start only then. Job 1 writes two kinds, job 2 one sentinel kind:
# exactly one event per kind, in order, and nothing else between.
rm -f $TMP/fifo
mkfifo $TMP/fifo
timeout -s KILL 20 $M --events --count 3 > $TMP/events 2> $TMP/fifo &
mon=$!
exec 3< $TMP/fifo
read -t 20 -r ready <&3
check_eq subscriber-ready "neuron-monitor: subscribed to neuron/errors" "$ready"
check arm-two sh -c "echo '0 SEMAPHORE_ERROR 3' > /sys/kernel/debug/neuron/neuron1/inject/tpb_error &&
	echo '0 hbm_ue 2' > /sys/kernel/debug/neuron/neuron1/inject/hw_error"
check job-1-0 $JOB 1 0
check arm-sentinel sh -c "echo '1 FP_NAN' > /sys/kernel/debug/neuron/neuron0/inject/tpb_error"
check job-0-1-sentinel $JOB 0 1
wait $mon
check_eq subscriber-exit 0 $?
exec 3<&-
# each with its class's recovery action and the job's process
check_eq events "device 1 core 0 tpb_error SEMAPHORE_ERROR(6) count 3 action RESTART_JOB pid P comm vm_genl_job simulated|device 1 core 0 hw_error hbm_ue(2) count 2 action TERMINATE_INSTANCE pid P comm vm_genl_job simulated|device 0 core 1 tpb_error FP_NAN(1) count 1 action NONE pid P comm vm_genl_job simulated|" \
	"$(sed -E 's/ ts_ns .*//; s/ seq [0-9]+ dropped 0//; s/ pid [1-9][0-9]* / pid P /' $TMP/events | tr '\n' '|')"
# one job's two events on device 1: consecutive numbers of its sequence
check_eq events-seq-consecutive 1 "$(sed -n 's/.* seq \([0-9]*\) .*/\1/p' $TMP/events | head -n 2 | awk 'NR == 1 { a = $1 } NR == 2 { print $1 - a }')"
check_eq events-have-timestamps 0 "$(grep -vcE ' ts_ns [1-9][0-9]*$' $TMP/events)"

# JSON event line.
timeout -s KILL 20 $M --events --json --count 1 > $TMP/events 2> $TMP/fifo &
mon=$!
exec 3< $TMP/fifo
read -t 20 -r ready <&3
check arm-json sh -c "echo '1 nc_ue' > /sys/kernel/debug/neuron/neuron1/inject/hw_error"
check job-1-1 $JOB 1 1
wait $mon
exec 3<&-
check event-json grep -qE '^\{"device": 1, "core": 1, "kind": "hw_error", "code": 3, "name": "nc_ue", "count": 1, "action": "TERMINATE_INSTANCE", "seq": [1-9][0-9]*, "dropped": 0, "pid": [1-9][0-9]*, "comm": "vm_genl_job", "simulated": true, "timestamp_ns": [1-9][0-9]*\}$' $TMP/events

# Errors: the kernel's errno and extack text, exit 1; bad usage exit 2.
expect_err() {
	name=$1 want=$2; shift 2
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 1 ]; then
		fail "$name" "exit $rc, expected 1 ($out)"
	elif echo "$out" | grep -q "$want"; then
		pass "$name"
	else
		fail "$name" "message '$out' lacks '$want'"
	fi
}
expect_err bad-device-do "No such device: no such Neuron device" $M --counters --device 7 --core 0
expect_err bad-device-dump "No such device: no such Neuron device" $M --counters --device 7
expect_err bad-core-do "No such file or directory: no such NeuronCore on this device" \
	$M --counters --device 0 --core 2
usage_rc() { "$@" >/dev/null 2>&1; echo $?; }
# no mode is the vendor's report stream (42_monitor); -c belongs to it only
check_eq usage-config-with-counters 2 "$(usage_rc $M --counters -c /dev/null)"
check_eq usage-unknown 2 "$(usage_rc $M --bogus)"
check_eq usage-core-without-device 2 "$(usage_rc $M --counters --core 0)"

# A dump larger than one skb (16 x 8 cores; VM_GENL_LARGE_DEVICES
# devices of 8, at least 6: each message carries 24 counters, about
# 1.5 KB, so 48 messages are over twice the largest dump skb of 32 KiB)
# resumes where it stopped: every (device, core) exactly once.
large=${VM_GENL_LARGE_DEVICES:-16}
[ "$large" -ge 6 ] && [ "$large" -le 16 ] || large=16
check reload-large reload sim_devices=$large sim_nc_per_device=8
$M --counters | tail -n +2 > $TMP/rows
check_eq large-dump-entries $((large * 8 * 24)) "$(wc -l < $TMP/rows | tr -d ' ')"
check_eq large-dump-cores-once $((large * 8)) "$(awk '{ print $1 ":" $2 ":" $3 }' $TMP/rows | sort -u | awk -F: '{ print $1 ":" $2 }' | uniq -c | awk '$1 == 24' | wc -l | tr -d ' ')"

# every event's recovery action, process, sequence number and drop count
# (docs/recovery.md), raw, with a listener that overruns
run_prog /tests/vm_genl_events
# the family the module registers is its YNL spec's (docs/netlink/neuron.yaml)
run_prog /tests/vm_genl_family
check unload unload
check_fails family-gone-after-unload 1 'family "neuron": .*\(is neuron.ko loaded\?\)' $M --counters
finish
