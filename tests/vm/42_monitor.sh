# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: neuron-monitor's vendor report stream, read as the
# monitoring pipelines read it: every line one JSON report (jq), the
# documented objects and every group's "error", the application's tag,
# execution_summary summed over the run equal to what the workload did
# (its own statuses and the driver's sysfs totals), its latency
# percentiles (null in a period without executions), ECC counts from the
# hardware, configuration errors, the Prometheus companion's contract (every
# key path it indexes, on every report) and its metrics, and instance_info
# from a fake instance metadata service (IMDSv1, IMDSv2, an unanswered
# token, none).
SUITE=monitor
PLAN=58
# The fake metadata services listen on 127.0.0.1: a kernel without IPv4
# (the debug kernel's minimal config) runs only the unreachable case, 10
# checks fewer.
if [ -e /proc/net/tcp ]; then INET=1; else INET=0; PLAN=$((PLAN - 10)); fi
# The fake services exercise the monitor's HTTP client only (loopback TCP,
# the same on every kernel): VM_MONITOR_IMDS=0 leaves them out (make check
# sets it on the Debian kernels other than the default one, for time).
if [ $INET = 1 ] && [ "${VM_MONITOR_IMDS:-1}" = 0 ]; then
	INET=0
	PLAN=$((PLAN - 10))
	IMDS_SKIPPED=1
fi
. /tests/lib.sh
[ -z "$IMDS_SKIPPED" ] || echo "# VM_MONITOR_IMDS=0: the fake instance metadata services are not run here"

MON=/tests/neuron-monitor
JQ=/tests/jq
APP=/tests/vm_tools_app
SYS=/sys/devices/virtual/neuron_device
DBG=/sys/kernel/debug/neuron
TMP=/tmp/monitor
mkdir -p $TMP

check_fails no-driver 1 'no Neuron driver' $MON --count 1
check load load sim_devices=2 sim_nc_per_device=2
# no -c: every group, the first report after the default 5 s period. It
# runs beside the checks below (its wait is the period, not work); its
# report is judged near the end.
t_default=$(now_ms)
( $MON --count 1 > $TMP/default 2> $TMP/default.err
  echo "$? $(( $(now_ms) - t_default ))" > $TMP/default.rc ) &
default_mon=$!

cat > $TMP/cfg.json <<'CFG'
{"period": "500ms",
 "neuron_runtimes": [{"tag_filter": ".*", "metrics": [{"type": "neuroncore_counters"},
   {"type": "memory_used"}, {"type": "neuron_runtime_vcpu_usage"},
   {"type": "execution_stats"}, {"type": "bogus_metric"}]}],
 "system_metrics": [{"type": "vcpu_usage"}, {"type": "memory_info"},
   {"period": "2s", "type": "neuron_hw_counters"}]}
CFG
echo '{"period": 5}' > $TMP/bad.json
check_fails config-bad-period 1 'period' $MON -c $TMP/bad.json --count 1
check_fails config-missing 1 'cannot read' $MON -c $TMP/none.json --count 1
echo '{"neuron_runtimes": [' > $TMP/bad2.json
check_fails config-not-json 1 'not JSON' $MON -c $TMP/bad2.json --count 1

$MON -c $TMP/cfg.json > $TMP/reports 2> $TMP/mon.err &
mon=$!
# complete lines only: the monitor may be writing the next one
lines() { head -n "$(wc -l < $TMP/reports)" $TMP/reports; }
wait_for first-report 10000 sh -c "[ \$(wc -l < $TMP/reports) -ge 1 ]"

# The workload: 3 jobs on device 0, NeuronCore 1; the second one hits an
# armed uncorrectable NeuronCore error.
rm -f $TMP/app.in; mkfifo $TMP/app.in
echo "1 nc_ue" > $DBG/neuron0/inject/hw_error
t0=$(now_ms)
NEURON_PROCESS_TAG=mytag NEURON_RT_VISIBLE_CORES=1 $APP 0 1 3 < $TMP/app.in > $TMP/app.out 2>&1 &
app=$!
exec 4> $TMP/app.in
wait_for app-ready 20000 grep -q '^ready' $TMP/app.out
# the workload's wall time (s, 10 ms resolution, rounded up): every job's
# latency is below it
wall=$(( $(now_ms) - t0 + 10 ))
wall=$((wall / 1000)).$(printf %03d $((wall % 1000)))
ok=$(grep -c '^status 0$' $TMP/app.out)
check_eq workload-statuses "2 1" "$ok $(grep '^status' $TMP/app.out | grep -vc '^status 0$')"

wait_for completed-summed 15000 sh -c "[ \"\$(head -n \$(wc -l < $TMP/reports) $TMP/reports | $JQ -s '[.[].neuron_runtime_data[] | select(.pid == $app) | .report.execution_stats.execution_summary.completed] | add // 0')\" = $ok ]"
wait_for with-err-summed 15000 sh -c "[ \"\$(head -n \$(wc -l < $TMP/reports) $TMP/reports | $JQ -s '[.[].neuron_runtime_data[] | select(.pid == $app) | .report.execution_stats.execution_summary.completed_with_err] | add // 0')\" -ge 1 ]"
# two more periods: the sums must stay (deltas, nothing counted twice)
n=$(wc -l < $TMP/reports)
wait_for two-more-reports 10000 sh -c "[ \$(wc -l < $TMP/reports) -ge $((n + 2)) ]"

# the sums, latencies and schema below from one snapshot of the reports
# and one jq run over it (lib.sh: jq_batch)
lines > $TMP/snap
lines | tail -n 1 > $TMP/last
C=$SYS/neuron0/neuron_core1/stats/status
jq_batch $TMP/snap '
	def s(f): [.[].neuron_runtime_data[] | select(.pid == $app) | .report | f] | add // 0;
	def lat: [.[].neuron_runtime_data[] | select(.pid == $app) |
		.report.execution_stats.latency_stats];
	"completed \(s(.execution_stats.execution_summary.completed))",
	"with-err \(s(.execution_stats.execution_summary.completed_with_err))",
	"hardware \(s(.execution_stats.error_summary.hardware))",
	"timed-out \(s(.execution_stats.execution_summary.timed_out))",
	"latency-seen \(any(lat[]; .total_latency != null and .device_latency != null))",
	"latency-shape \(all(lat[] | (.total_latency, .device_latency) | select(. != null);
		(keys == ["p0","p1","p100","p25","p50","p75","p99"]) and
		([.p0, .p1, .p25, .p50, .p75, .p99, .p100] |
		 all(.[]; type == "number" and . > 0 and . < $wall) and . == sort)))",
	"device-1ms \(all(lat[] | .device_latency | select(. != null);
		all(.[]; . > 0.001 * 15 / 16 and . < 0.001 * 17 / 16)))",
	"idle \(lat[-1] | "\(.total_latency) \(.device_latency)")",
	"objects \(map(select(type == "object")) | length) of \(length)",
	"top-level \(all(.[]; has("neuron_runtime_data") and has("system_data") and
		has("instance_info") and has("neuron_hardware_info")))"' \
	-s --argjson app "$app" --argjson wall "$wall"
check_eq sum-completed-is-workload "$ok" "$(jv completed)"
check_eq sum-completed-is-sysfs "$(cat $C/success/total)" "$(jv completed)"
check_eq sum-with-err-is-sysfs "$(cat $C/execute_completed_with_error/total)" "$(jv with-err)"
check_eq sum-hw-errors-is-sysfs "$(cat $C/hw_error/total)" "$(jv hardware)"
check_eq sum-timed-out 0 "$(jv timed-out)"

# latency_stats: each period's percentiles of what finished in it (the
# first report that sees the app counts everything until then), seconds;
# non-null ones have the 7 keys, numbers, ordered, > 0 and below the wall
# time; the device time of a 1 ms job is 1 ms within the buckets' 1/16
check_eq latency-seen true "$(jv latency-seen)"
check_eq latency-shape true "$(jv latency-shape)"
check_eq device-latency-1ms true "$(jv device-1ms)"
check_eq latency-null-when-idle "null null" "$(jv idle)"

# the documented schema, line by line, as the companions index it
check_eq one-object-per-line "$(wc -l < $TMP/snap | tr -d ' ') of $(wc -l < $TMP/snap | tr -d ' ')" "$(jv objects)"
check_eq top-level-objects true "$(jv top-level)"
jq_batch $TMP/last '
	"entry-keys \(.neuron_runtime_data | length == 1 and all(.[]; has("pid") and
		has("neuron_runtime_tag") and has("error") and has("report")))",
	"tag \(.neuron_runtime_data[] | select(.pid == $app) | .neuron_runtime_tag)",
	"stats-keys \(.neuron_runtime_data[0].report.execution_stats |
		(.error_summary | has("generic") and has("numerical") and has("transient") and
		 has("model") and has("runtime") and has("hardware")) and
		(.execution_summary | has("completed") and has("completed_with_err") and
		 has("completed_with_num_err") and has("timed_out") and has("incorrect_input") and
		 has("failed_to_queue")) and has("latency_stats") and .error == "")",
	"error-strings \([.neuron_runtime_data[].report[], .system_data[]] |
		all(.[]; (.error | type) == "string"))",
	"known-no-error \([(.neuron_runtime_data[0].report | .execution_stats, .memory_used,
		.neuroncore_counters, .neuron_runtime_vcpu_usage), .system_data[]] |
		all(.[]; .error == ""))",
	"bogus \(.neuron_runtime_data[0].report.bogus_metric.error)",
	"core-in-use \(.neuron_runtime_data[0].report.neuroncore_counters.neuroncores_in_use |
		keys | tojson)",
	"memory-used \(.neuron_runtime_data[0].report.memory_used.neuron_runtime_used_bytes |
		has("host") and has("neuron_device") and
		(.usage_breakdown.neuroncore_memory_usage | type == "object"))",
	"system \(.system_data | (.memory_info.memory_total_bytes > 0) and
		(.vcpu_usage.usage_data | length > 0) and (.neuron_hw_counters.neuron_devices | length == 2))",
	"hardware-info \(.neuron_hardware_info |
		"\(.neuron_device_count) \(.neuroncore_per_device_count)")"' --argjson app "$app"
check_eq runtime-entry-keys true "$(jv entry-keys)"
check_eq tag-from-env mytag "$(jv tag)"
check_eq execution-stats-keys true "$(jv stats-keys)"
check_eq every-group-error-string true "$(jv error-strings)"
check_eq known-groups-no-error true "$(jv known-no-error)"
case "$(jv bogus)" in
*"unknown metric type: bogus_metric"*) pass unknown-type-in-error ;;
*) fail unknown-type-in-error "bogus_metric's error is '$(jv bogus)'" ;;
esac
check_eq core-in-use '["1"]' "$(jv core-in-use)"
check_eq memory-used-shape true "$(jv memory-used)"
check_eq system-groups true "$(jv system)"
check_eq hardware-info "2 2" "$(jv hardware-info)"

# ECC: what the device counts, per period, summed over the run
echo "sram 2" > $DBG/neuron1/inject/ecc
wait_for sram-ecc-summed 15000 sh -c "[ \"\$(head -n \$(wc -l < $TMP/reports) $TMP/reports | $JQ -s '[.[].system_data.neuron_hw_counters.neuron_devices[] | select(.neuron_device_index == 1) | .sram_ecc_uncorrected] | add')\" = 2 ]"

# the companion's metric names from a second monitor (counts from its start)
$MON -c $TMP/cfg.json --prometheus --count 1 > $TMP/prom
check_eq prometheus-exit 0 $?
check_eq prometheus-lines-parse 0 "$(grep -v '^#' $TMP/prom | grep -v '^$' | grep -vcE '^[a-z_]+\{([a-z_]+="[^"]*",?)*\} [0-9.e+-]+$')"
check prometheus-status grep -qE "^execution_status_total\{.*runtime_tag=\"mytag\",status_type=\"completed\"\} $ok\$" $TMP/prom
# every metric the companion exports
check prometheus-names sh -c "for n in execution_errors_total execution_status_total execution_latency_seconds neuron_runtime_memory_used_bytes neuroncore_memory_usage_constants neuroncore_memory_usage_model_code neuroncore_memory_usage_model_shared_scratchpad neuroncore_memory_usage_runtime_memory neuroncore_memory_usage_tensors neuroncore_utilization_ratio neuron_runtime_vcpu_usage_ratio hardware_ecc_events_total system_vcpu_count system_vcpu_usage_ratio system_memory_total_bytes system_memory_used_bytes system_swap_total_bytes system_swap_used_bytes instance_info neuron_hardware_info; do grep -q \"^\$n{\" $TMP/prom || exit 1; done"
# the total latency per percentile, with the runtime labels
check_eq prometheus-latency "p0 p1 p100 p25 p50 p75 p99" "$(grep -E '^execution_latency_seconds\{instance_name="[^"]*",instance_id="[^"]*",instance_type="[^"]*",availability_zone="[^"]*",region="[^"]*",subnet_id="[^"]*",runtime_tag="mytag",percentile="p[0-9]+"\} [0-9.e+-]+$' $TMP/prom | sed 's/.*percentile="\(p[0-9]*\)".*/\1/' | sort | tr '\n' ' ' | sed 's/ $//')"

exec 4>&-
wait $app
check_eq app-exit 0 $?
kill $mon
wait $mon
check_eq monitor-stderr-empty 0 "$(wc -c < $TMP/mon.err | tr -d ' ')"

# The Prometheus companion's contract: every key path it indexes exists
# with the type it uses, whenever the group's "error" is "" (one verdict
# per report; a jq error leaves a line out).
cat > $TMP/contract.jq <<'JQ'
def isstr: type == "string";
def isnum: type == "number";
def isobj: type == "object";
def intkeys: keys | all(.[]; test("^[0-9]+$"));
def grp(f): if isobj and .error == "" then f else true end;
def latency: . == null or (isobj and all(.[]; isnum));
(.instance_info | isobj and ([.instance_name, .instance_id, .instance_type,
	.instance_availability_zone, .instance_region, .subnet_id] | all(.[]; isstr)))
and (.system_data | isobj)
and (.neuron_hardware_info | . == null or
	((.neuron_device_count | isnum) and (.neuroncore_per_device_count | isnum)))
and (.neuron_runtime_data | type == "array" and all(.[];
	(.neuron_runtime_tag | isstr) and (.error | isstr) and (.report | isobj)
	and (.report | all(.[]; isobj and has("error")))
	and (.report |
		(.memory_used | grp(.neuron_runtime_used_bytes |
			(.host | isnum) and (.neuron_device | isnum) and
			(.usage_breakdown.neuroncore_memory_usage | isobj and intkeys and all(.[];
				(.constants | isnum) and (.model_code | isnum) and
				(.model_shared_scratchpad | isnum) and (.runtime_memory | isnum) and
				(.tensors | isnum)))))
		and (.neuron_runtime_vcpu_usage | grp((.vcpu_usage.user | isnum) and
			(.vcpu_usage.system | isnum)))
		and (.neuroncore_counters | grp(.neuroncores_in_use | isobj and intkeys and
			all(.[]; .neuroncore_utilization | isnum)))
		and (.execution_stats | grp((.error_summary | isobj and all(.[]; isnum)) and
			(.execution_summary | isobj and all(.[]; isnum)) and
			(.latency_stats.total_latency | latency) and
			(.latency_stats.device_latency | latency))))))
and (.system_data |
	(.neuron_hw_counters | grp(.neuron_devices | type == "array" and all(.[];
		(.neuron_device_index | isnum) and (.mem_ecc_corrected | isnum) and
		(.mem_ecc_uncorrected | isnum) and (.sram_ecc_corrected | isnum) and
		(.sram_ecc_uncorrected | isnum))))
	and (.vcpu_usage | grp((.usage_data | isobj) and (.average_usage |
		(.user | isnum) and (.nice | isnum) and (.system | isnum) and
		(.io_wait | isnum) and (.irq | isnum) and (.soft_irq | isnum))))
	and (.memory_info | grp((.memory_total_bytes | isnum) and (.memory_used_bytes | isnum) and
		(.swap_total_bytes | isnum) and (.swap_used_bytes | isnum))))
JQ
contract() { $JQ -f $TMP/contract.jq "$1" 2>&1 | sort | uniq -c | sed 's/^ *//'; }
check_eq companion-contract "$(wc -l < $TMP/reports | tr -d ' ') true" "$(contract $TMP/reports)"
# ... and it is no tautology: a wrong type in a clean group fails it
$JQ -c '(.neuron_runtime_data[0].report.memory_used.neuron_runtime_used_bytes.host = "1"),
	(.neuron_runtime_data[0].report.execution_stats.latency_stats.total_latency = {"p50": "x"}),
	del(.instance_info.subnet_id)' $TMP/last > $TMP/broken
check_eq companion-contract-catches "3 false" "$(contract $TMP/broken)"
# the default-config monitor started after the load: exit 0 with one
# report, in under 15 s
wait $default_mon
read -r default_rc default_ms < $TMP/default.rc
if [ "$default_rc" = 0 ] && [ "$default_ms" -lt 15000 ]; then
	pass default-config-5s
else
	fail default-config-5s "exit $default_rc after $default_ms ms (bound 15000): $(head -c 200 $TMP/default.err)"
fi
check_eq default-groups true "$($JQ '(.system_data | has("vcpu_usage") and has("memory_info") and has("neuron_hw_counters"))' $TMP/default)"
check_eq companion-contract-default "1 true" "$(contract $TMP/default)"

# instance_info from the instance metadata service, served on the loopback:
# IMDSv1 by busybox httpd (it answers the token PUT with an HTTP error, so
# the monitor falls back to plain GETs; no instance tags: 404, an empty
# instance_name), IMDSv2 by vm_imds_fake (a token for the PUT, 401 for a
# GET without it), vm_imds_fake silent-put (the token PUT never answered,
# as behind a PUT response hop limit of 1: IMDSv1 after 1 s); with nothing
# listening, the report comes on time with
# every field a string and the reason in error.
if [ $INET = 1 ]; then
check lo-up ip link set lo up
MD=$TMP/md1/latest/meta-data
MAC=0e:12:34:56:78:9a
mkdir -p $MD/placement $MD/network/interfaces/macs/$MAC
echo i-0123456789abcdef0 > $MD/instance-id
echo trn1.32xlarge > $MD/instance-type
echo us-west-2d > $MD/placement/availability-zone
echo usw2-az4 > $MD/placement/availability-zone-id
echo us-west-2 > $MD/placement/region
echo ami-0fedcba9876543210 > $MD/ami-id
echo $MAC > $MD/mac
echo subnet-0aa11bb22cc33dd44 > $MD/network/interfaces/macs/$MAC/subnet-id
cp -r $TMP/md1 $TMP/md2
mkdir -p $TMP/md2/latest/meta-data/tags/instance
echo 'trn node 1' > $TMP/md2/latest/meta-data/tags/instance/Name
listening() { netstat -ltn | grep -q "127.0.0.1:$1 "; }
inst() { $JQ -r '.instance_info | [.instance_name, .instance_id, .instance_type, .instance_availability_zone, .instance_availability_zone_id, .instance_region, .ami_id, .subnet_id, .error] | join("|")' "$1"; }
FIELDS='i-0123456789abcdef0|trn1.32xlarge|us-west-2d|usw2-az4|us-west-2|ami-0fedcba9876543210|subnet-0aa11bb22cc33dd44|'

httpd -f -p 127.0.0.1:18080 -h $TMP/md1 &
v1=$!
wait_for imds-v1-listening 10000 listening 18080
NEURON_MONITOR_IMDS_ADDR=127.0.0.1:18080 $MON -c $TMP/cfg.json --count 1 > $TMP/imds1
check_eq imds-v1-fields "|$FIELDS" "$(inst $TMP/imds1)"
kill $v1; wait $v1

/tests/vm_imds_fake 18081 $TMP/md2 > $TMP/fake.log 2>&1 &
v2=$!
wait_for imds-v2-listening 10000 listening 18081
NEURON_MONITOR_IMDS_ADDR=127.0.0.1:18081 $MON -c $TMP/cfg.json --count 1 > $TMP/imds2
check_eq imds-v2-fields "trn node 1|$FIELDS" "$(inst $TMP/imds2)"
NEURON_MONITOR_IMDS_ADDR=127.0.0.1:18081 $MON -c $TMP/cfg.json --prometheus --count 1 > $TMP/prom2
check prometheus-instance-labels grep -qx 'instance_info{instance_name="trn node 1",instance_id="i-0123456789abcdef0",instance_type="trn1.32xlarge",availability_zone="us-west-2d",region="us-west-2",subnet_id="subnet-0aa11bb22cc33dd44"} 1' $TMP/prom2
# per monitor one token PUT and 9 GETs carrying it, nothing refused
check_eq imds-v2-token-used "2 18 0" "$(grep -c '^PUT /latest/api/token 200$' $TMP/fake.log) $(grep -c '^GET /latest/meta-data/[^ ]* 200$' $TMP/fake.log) $(grep -vc ' 200$' $TMP/fake.log)"
kill $v2; wait $v2

/tests/vm_imds_fake 18083 $TMP/md2 silent-put > $TMP/fake3.log 2>&1 &
v3=$!
wait_for imds-silent-put-listening 10000 listening 18083
NEURON_MONITOR_IMDS_ADDR=127.0.0.1:18083 $MON -c $TMP/cfg.json --count 1 > $TMP/imds4
check_eq imds-silent-put-fields "trn node 1|$FIELDS" "$(inst $TMP/imds4)"
# one unanswered PUT, then 9 plain GETs
check_eq imds-silent-put-v1 "1 9 0" "$(grep -c '^PUT /latest/api/token -$' $TMP/fake3.log) $(grep -c '^GET /latest/meta-data/[^ ]* 200$' $TMP/fake3.log) $(grep -vc -e ' 200$' -e ' -$' $TMP/fake3.log)"
kill $v3; wait $v3
fi

# 18082: nobody listens (without IPv4 the socket cannot even be made)
check_within imds-unreachable-on-time 8000 sh -c "NEURON_MONITOR_IMDS_ADDR=127.0.0.1:18082 $MON -c $TMP/cfg.json --count 1 > $TMP/imds3"
check_eq imds-unreachable-report true "$($JQ '.instance_info | (["instance_name", "instance_id", "instance_type", "instance_availability_zone", "instance_availability_zone_id", "instance_region", "ami_id", "subnet_id", "error"] - keys == []) and all(.[]; type == "string") and (.error | startswith("instance metadata service unreachable: ")) and .instance_type == ""' $TMP/imds3)"

check unload unload
finish
