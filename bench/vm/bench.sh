# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest benchmarks (make bench). No slub_debug in this mode.
# scripts/vm.sh --mode bench --only GROUP[,GROUP...] runs only the named
# groups: nds exec fwio app dmabuf async vendor scale (default: all).
only=$(cat /etc/vm-only 2>/dev/null)
for g in $(echo "$only" | tr ',' ' '); do
	case " nds exec fwio app dmabuf async vendor scale " in
	*" $g "*) ;;
	*) echo "bench.sh: no benchmark group '$g' (nds exec fwio app dmabuf async vendor scale)"; exit 1 ;;
	esac
done
want() {
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}
rc=0
# the guest's clock: tsc (scripts/vm.sh boots with tsc=reliable; the HPET
# would put every clock read through the emulator's global lock)
echo "guest clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
# group NAME TITLE PROGRAM...: run PROGRAM under its title when NAME is wanted
group() {
	want "$1" || return 0
	echo "== $2"
	shift 2
	"$@" || rc=1
	echo
}
if want nds || want exec || want fwio || want app || want dmabuf || want async; then
	insmod "$NEURON_KO" sim_devices=2 || exit 1
	group nds "NDS: mapped update vs counter-add ioctl; sysfs read with 16 vs 1 live slabs" /tests/vm_bench_nds
	group exec "simulated jobs: error accounting on vs off" /tests/vm_bench_exec
	group fwio "FW-IO: mailbox round trip vs GET_INFO" /tests/vm_bench_fwio
	group app "application API: nrt_execute vs the raw job ioctl; tensor write+read vs memcpy" /tests/vm_bench_app
	group dmabuf "device memory by CPU address: a device tensor's, and a dma-buf's in a second process, vs memcpy" /tests/vm_bench_dmabuf
	group async "asynchronous API: executions on two queues of two NeuronCores vs one synchronous caller" /tests/vm_bench_async
	rmmod neuron || rc=1
fi
if want vendor; then
	insmod "$NEURON_KO" sim_devices=1 sim_nc_per_device=4 || exit 1
	group vendor "the vendor's ABI against this driver's: NDS update, core reservation, job" /tests/vm_bench_vendor
	rmmod neuron || rc=1
fi
if want scale; then
	insmod "$NEURON_KO" sim_devices=4 sim_nc_per_device=2 || exit 1
	group scale "scaling: 1-8 processes on NeuronCores of their own; neuron-monitor and sysfs with 1 and 64 applications" /tests/vm_bench_scale
	rmmod neuron || rc=1
fi
exit $rc
