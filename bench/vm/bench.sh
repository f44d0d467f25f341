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
if want nds || want exec || want fwio || want app || want dmabuf || want async; then
	insmod "$NEURON_KO" sim_devices=2 || exit 1
	if want nds; then
		echo "== NDS: mapped update vs counter-add ioctl; sysfs read with 16 vs 1 live slabs"
		/tests/vm_bench_nds || rc=1
		echo
	fi
	if want exec; then
		echo "== simulated jobs: error accounting on vs off"
		/tests/vm_bench_exec || rc=1
		echo
	fi
	if want fwio; then
		echo "== FW-IO: mailbox round trip vs GET_INFO"
		/tests/vm_bench_fwio || rc=1
		echo
	fi
	if want app; then
		echo "== application API: nrt_execute vs the raw job ioctl; tensor write+read vs memcpy"
		/tests/vm_bench_app || rc=1
		echo
	fi
	if want dmabuf; then
		echo "== device memory by CPU address: a device tensor's, and a dma-buf's in a second process, vs memcpy"
		/tests/vm_bench_dmabuf || rc=1
		echo
	fi
	if want async; then
		echo "== asynchronous API: executions on two queues of two NeuronCores vs one synchronous caller"
		/tests/vm_bench_async || rc=1
		echo
	fi
	rmmod neuron || rc=1
fi
if want vendor; then
	echo "== the vendor's ABI against this driver's: NDS update, core reservation, job"
	insmod "$NEURON_KO" sim_devices=1 sim_nc_per_device=4 || exit 1
	/tests/vm_bench_vendor || rc=1
	rmmod neuron || rc=1
	echo
fi
if want scale; then
	echo "== scaling: 1-8 processes on NeuronCores of their own; neuron-monitor and sysfs with 1 and 64 applications"
	insmod "$NEURON_KO" sim_devices=4 sim_nc_per_device=2 || exit 1
	/tests/vm_bench_scale || rc=1
	rmmod neuron || rc=1
fi
exit $rc
