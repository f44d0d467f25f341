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
# 9 shell checks + 41 program cases + 2 of run_prog
PLAN=52
# the two neuron-doctor checks: VM_TOOLS_DOCTOR=0 leaves them out (as in 41_tools)
[ "${VM_TOOLS_DOCTOR:-1}" != 0 ] || PLAN=$((PLAN - 2))
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
# neuron-doctor as nobody (su: its groups from /etc/group): outside the
# group, the node's mode and group and what to do (exit 2); in it, fine
if [ "${VM_TOOLS_DOCTOR:-1}" != 0 ]; then
su -s /bin/sh nobody -c "/tests/neuron-doctor --no-kmsg" > /tmp/perms-doc 2>&1
rc=$?
check_eq doctor-outside-group "2 neuron-doctor: nodes: add the user to group neuron (sudo usermod -aG neuron nobody), then log in again 1" \
	"$rc $(head -n 1 /tmp/perms-doc) $(grep -c '^\[error\] nodes: /dev/neuron0 is 0660 root:neuron and nobody (uid 65534) is not in group neuron -> ' /tmp/perms-doc)"
sed -i "s/^neuron:x:$GID:\$/neuron:x:$GID:nobody/" /etc/group
su -s /bin/sh nobody -c "/tests/neuron-doctor --no-kmsg" > /tmp/perms-doc 2>&1
rc=$?
sed -i "s/^neuron:x:$GID:nobody\$/neuron:x:$GID:/" /etc/group
check_eq doctor-in-group "0 1" \
	"$rc $(grep -c '^\[ok\] nodes: /dev/neuron0 (0660 root:neuron): read-write for nobody (uid 65534)$' /tmp/perms-doc)"
fi
check unload unload
finish
