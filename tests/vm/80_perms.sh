# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: the permissions matrix (vm_perms, docs/RELIABILITY.md):
# nobody inside and outside the device's group and inside a new user and
# pid namespace, against what the ABI documents as readable and refused.
#
# udev does not run in the guest: the node is made what
# packaging/60-neuron.rules makes it (root:neuron 0660), with the group
# "neuron" as gid VM_PERMS_GID (default 1000). debugfs is remounted 0755
# for the matrix, so that the knobs' own modes (0200/0400/0600) are what
# refuses, not only the 0700 of the debugfs root (checked first).
SUITE=perms
# 7 shell checks + 41 program cases + 2 of run_prog
PLAN=50
. /tests/lib.sh

GID=${VM_PERMS_GID:-1000}
check load load sim_devices=1 sim_nc_per_device=2
grep -q '^neuron:' /etc/group || echo "neuron:x:$GID:" >> /etc/group
check node-as-the-udev-rule-makes-it sh -c "chgrp neuron /dev/neuron0 && chmod 0660 /dev/neuron0"
check_eq node-mode "crw-rw---- 0 $GID" "$(stat -c '%A %u %g' /dev/neuron0)"
check_eq debugfs-root-only-by-default "drwx------" "$(stat -c %A /sys/kernel/debug)"
mode0=$(stat -c %a /sys/kernel/debug)
check debugfs-opened-to-test-knob-modes mount -o remount,mode=0755 /sys/kernel/debug
run_prog /tests/vm_perms --gid "$GID"
check debugfs-mode-restored mount -o remount,mode=0$mode0 /sys/kernel/debug
check unload unload
finish
