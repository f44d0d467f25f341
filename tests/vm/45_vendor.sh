# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the vendor's ioctl ABI (docs/vendor-abi.md), proved by
# vm_vendor (tests/vm/vendor/), a program typed only from the vendor's
# layouts: command numbers and struct layouts, what each answered command
# returns and where this driver differs from the vendor's (bar_address 0,
# zeroed bytes, -ENOTTY for unknown commands, named errnos), range marks
# and this driver's core reservations as one state, the NDS slab behind
# both acquire commands, READ_HW_COUNTERS against FW_READ and its limits
# for an unprivileged caller, and the process listing.
#
# The nodes are made 0666 (the vendor's udev rule's mode), so that
# vm_vendor's unprivileged case reaches them as nobody.
SUITE=vendor
# 4 shell checks + 43 program cases + 2 of run_prog
PLAN=50
. /tests/lib.sh

check load load sim_devices=2 sim_nc_per_device=4
# a kernel without the dma-buf API (Debian's 5.10 cloud) exports nothing
if [ -d /sys/kernel/debug/dma_buf ]; then export DMABUF_KERNEL=1; else export DMABUF_KERNEL=0; fi
check nodes-open-to-all chmod 0666 /dev/neuron0 /dev/neuron1

run_prog /tests/vm_vendor

# every mark and reservation ended with the process that made it
I=/sys/kernel/debug/neuron
check_eq marks-ended-with-their-processes "0 0" \
	"$(grep -c -v 'owner 0 ' $I/neuron0/inject/armed) $(grep -c -v 'owner 0 ' $I/neuron1/inject/armed)"
check unload unload
finish
