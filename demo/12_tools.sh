# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Demo fragment: the tools Neuron users already run, on the
# simulated devices. Sourced by the demo with neuron.ko loaded
# (sim_devices=2) and the tools in /tests/.

echo "== neuron-ls -j (the JSON Ray and others parse)"
/tests/neuron-ls -j

echo "== neuron-monitor: one report of the vendor's stream (period 1 s)"
cat > /tmp/demo-monitor.json <<'CFG'
{"period": "1s",
 "neuron_runtimes": [{"tag_filter": ".*", "metrics": [{"type": "execution_stats"},
   {"type": "neuroncore_counters"}, {"type": "memory_used"}]}],
 "system_metrics": [{"type": "neuron_hw_counters"}, {"type": "memory_info"}]}
CFG
mkfifo /tmp/demo-app.in
NEURON_PROCESS_TAG=demo-job NEURON_RT_VISIBLE_CORES=1 /tests/vm_tools_app 0 1 3 < /tmp/demo-app.in > /tmp/demo-app.out 2>&1 &
demo_app=$!
exec 5> /tmp/demo-app.in
until grep -q '^ready' /tmp/demo-app.out; do sleep 0.1; done
/tests/neuron-monitor -c /tmp/demo-monitor.json --count 1 | /tests/jq -M .
exec 5>&-
wait $demo_app
rm -f /tmp/demo-app.in /tmp/demo-app.out /tmp/demo-monitor.json

echo "== NEURON_SIM_HW_ERR: an uncorrectable SRAM ECC error injected on neuron1"
echo "   (a simulated device's token, which node remediation does not act on;"
echo "   sim_hw_err_real=1 makes it NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR)"
echo "sram 1" > /sys/kernel/debug/neuron/neuron1/inject/ecc
# the ECC poller notices within hw_err_poll_ms (1 s); give up after 10 s
n=0
until dmesg | grep -q 'NEURON_SIM_HW_ERR=SRAM-UNCORRECTABLE-ERROR .*nd-id=1 ' || [ $n -ge 100 ]; do
	sleep 0.1	# polling the log for the line, bounded
	n=$((n + 1))
done
# without the timestamp: the demo's console filter drops kernel-log lines
dmesg | grep -E '.* NEURON_SIM_HW_ERR=SRAM-UNCORRECTABLE-ERROR .*simulated=1$' | tail -n 1 |
	sed 's/^\[ *[0-9.]*\] /kernel log: /' | grep . || { echo "no NEURON_SIM_HW_ERR line"; exit 1; }
