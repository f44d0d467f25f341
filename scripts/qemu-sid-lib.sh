# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Sourced by scripts/qemu-sid.sh and scripts/pci-vm.sh: the cached Debian sid
# chroot that holds QEMU 11 (it has vfio-user-pci; bookworm's 7.2 does not).
#
# The first use copies the kmatrix sid chroot (scripts/kmatrix.sh; only read)
# to $QEMU_SID_CACHE/root and installs qemu-system-x86 there with apt; later
# uses reuse it. Needs root (chroot). The caller defines die().
#   qemu_sid_ensure      make $QEMU_SID_ROOT ready (prints QEMU's version on stderr)
#   qemu_sid_run CMD...  run CMD in the chroot with /proc and /dev mounted
#                        in a private mount namespace
QEMU_SID_CACHE=${QEMU_SID_CACHE:-/var/cache/neuron-oss/qemu-sid}
QEMU_SID_SRC=${KMATRIX_CACHE:-/var/cache/neuron-oss/kmatrix}/sid-root
QEMU_SID_ROOT=$QEMU_SID_CACHE/root

qemu_sid_in() { # qemu_sid_in ROOT CMD...
	unshare --mount --propagation private -- sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		exec chroot "$root" "$@"' sh "$@"
}

qemu_sid_run() { qemu_sid_in "$QEMU_SID_ROOT" "$@"; }

qemu_sid_ensure() {
	local new=$QEMU_SID_ROOT.new
	[ "$(id -u)" -eq 0 ] || die "needs root (chroot)"
	if [ ! -e "$QEMU_SID_ROOT/.qemu-ready" ]; then
		[ -d "$QEMU_SID_SRC" ] || die "no sid chroot at $QEMU_SID_SRC (scripts/kmatrix.sh fetch sid-amd64)"
		mkdir -p "$QEMU_SID_CACHE"
		rm -rf "$new"
		echo "qemu-sid: copying $QEMU_SID_SRC" >&2
		cp -a "$QEMU_SID_SRC" "$new"
		cp /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
		echo "qemu-sid: installing qemu-system-x86 (log: $QEMU_SID_CACHE/apt.log)" >&2
		qemu_sid_in "$new" sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends qemu-system-x86' \
			>"$QEMU_SID_CACHE/apt.log" 2>&1 ||
			die "apt-get failed (see $QEMU_SID_CACHE/apt.log)"
		qemu_sid_in "$new" qemu-system-x86_64 -device vfio-user-pci,help \
			>"$QEMU_SID_CACHE/vfio-user-pci.help" 2>&1 ||
			die "this QEMU has no vfio-user-pci (see $QEMU_SID_CACHE/vfio-user-pci.help)"
		qemu_sid_in "$new" qemu-system-x86_64 --version | head -n 1 >"$new/.qemu-ready"
		rm -rf "$QEMU_SID_ROOT"
		mv "$new" "$QEMU_SID_ROOT"
	fi
	echo "qemu-sid: $(cat "$QEMU_SID_ROOT/.qemu-ready")" >&2
}
