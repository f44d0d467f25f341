# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: dma-buf export of device memory and its import by a second
# simulated device (vm_dmabuf, against the UAPI), and libfabric's Neuron
# memory path through libnrt opened with dlopen (vm_sdk_dmabuf, written
# only against the SDK's declarations). On the debug kernel the exporter's
# attach, map, mmap and release and the importer all run under KASAN.
SUITE=dmabuf
PLAN=22
. /tests/lib.sh

check load load sim_devices=2 sim_nc_per_device=2 sim_hbm_mb=16
# Debian's 5.10 cloud kernel has no dma-buf API: the programs then check
# that nothing is exported or imported (the module is built without it)
if [ -d /sys/kernel/debug/dma_buf ]; then export DMABUF_KERNEL=1; else export DMABUF_KERNEL=0; fi
echo "# the kernel's dma-buf API: $DMABUF_KERNEL"
run_prog /tests/vm_dmabuf
# nothing is held once every dma-buf is gone: every device_mem total of
# both devices (the exporter's and the importer's) reads 0, and there are
# such files (no file at all would print nothing)
mem_totals() {
	find /sys/devices/virtual/neuron_device/neuron0 /sys/devices/virtual/neuron_device/neuron1 \
		-path '*device_mem*' -name total | xargs -r cat | sort -u
}
check_eq device-mem-free "0" "$(mem_totals)"
run_prog /tests/vm_sdk_dmabuf
check_eq device-mem-free-sdk "0" "$(mem_totals)"
check unload unload
finish
