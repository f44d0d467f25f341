#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot a throwaway guest on QEMU 11 (Debian sid, which has vfio-user-pci)
# with neuron-pciemu as its Neuron PCI function, and check that the guest
# enumerates it (docs/pciemu.md). Not part of make check.
#
# The first run copies the kmatrix sid chroot (scripts/kmatrix.sh; it is only
# read) to $QEMU_SID_CACHE/root and installs qemu-system-x86 there with apt;
# later runs reuse it. The guest is the host's /boot/vmlinuz-6.1.0-*-amd64
# with a busybox initramfs that prints the PCI functions it sees and powers
# off. The server runs on the host; its socket is under the chroot.
#
#   scripts/qemu-sid.sh [--arch trn1|inf2|trn2|trn3] [--build DIR] [--keep] [--help]
#     --build DIR   where neuron-pciemu was built (default build; the binary
#                   is DIR/pciemu/neuron-pciemu)
#     --keep        leave the run directory (logs, access record) in place
#   QEMU_SID_ACCEL=kvm uses KVM (default tcg)
# Exit 0 when the guest lists vendor 0x1d0f with the arch's device id.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/qemu-sid-lib.sh"
arch=trn1 build=$top/build keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "qemu-sid: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
die() { echo "qemu-sid: $*" >&2; exit 1; }
case $arch in
trn1) devid=0x7164 ;; inf2) devid=0x7264 ;; trn2) devid=0x7364 ;; trn3) devid=0x7564 ;;
*) die "unknown arch '$arch'" ;;
esac
server=$build/pciemu/neuron-pciemu
[ -x "$server" ] || die "$server not built (cmake --build $build --target neuron-pciemu)"
qemu_sid_ensure
root=$QEMU_SID_ROOT

# ---- the guest: host kernel, busybox initramfs ---------------------------------
kernel=$(ls /boot/vmlinuz-6.1.0-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || die "no /boot/vmlinuz-6.1.0-*-amd64"
busybox=$(command -v busybox) || die "busybox missing"
run=$root/tmp/pciemu-run
rm -rf "$run"
mkdir -p "$run/initrd/bin"
cp "$busybox" "$run/initrd/bin/busybox"
case $arch in trn1|inf2) miscram=0x30FA0000 ;; *) miscram=0x06C84000 ;; esac
{ echo '#!/bin/busybox sh'; echo "MISCRAM=$miscram"; } >"$run/initrd/init"
cat >>"$run/initrd/init" <<'EOF'
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
for d in /sys/bus/pci/devices/*; do
	echo "PCI $(basename "$d") vendor=$(cat "$d/vendor") device=$(cat "$d/device") class=$(cat "$d/class")"
	[ "$(cat "$d/vendor")" = 0x1d0f ] || continue
	set -- $(head -n 1 "$d/resource")
	echo "BAR0 $1 $2 $3"
	# MiscRAM through the BAR: DEVICE_ID (0xDEADBEEF until the firmware is
	# ready), API_VERSION, then write ACK and read it back
	echo 1 >"$d/enable"
	misc=$(( $1 + MISCRAM ))
	echo "DEVICE_ID $(devmem $((misc + 0x24)) 32)"
	echo "API_VERSION $(devmem $((misc + 0x0)) 32)"
	sleep 2
	echo "DEVICE_ID $(devmem $((misc + 0x24)) 32)"
	devmem $((misc + 0xf0)) 32 0x1
	echo "ACK $(devmem $((misc + 0xf0)) 32)"
done
echo GUEST-DONE
poweroff -f
EOF
chmod +x "$run/initrd/init"
mkdir -p "$run/initrd/proc" "$run/initrd/sys" "$run/initrd/dev"
(cd "$run/initrd" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$run/initrd.gz"
cp "$kernel" "$run/vmlinuz"

# ---- server on the host, QEMU in the chroot --------------------------------------
"$server" --socket "$run/npe.sock" --control "$run/npe.ctl" --arch "$arch" --routing-id 3 -v \
	2>"$run/server.log" &
spid=$!
trap 'kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -S "$run/npe.sock" ] && break; sleep 0.1; done
[ -S "$run/npe.sock" ] || die "the server did not start (see $run/server.log)"
# TCG by default: measured faster than this host's (nested) KVM for a boot
accel=${QEMU_SID_ACCEL:-tcg}
start=$(date +%s.%N)
qemu_sid_in "$root" timeout 120 \
	qemu-system-x86_64 -accel "$accel" -machine q35,memory-backend=mem -m 512M -smp 1 \
	-object memory-backend-memfd,id=mem,size=512M,share=on \
	-device pcie-root-port,id=rp0,chassis=1,slot=1 \
	-device '{"driver":"vfio-user-pci","id":"npe0","bus":"rp0","socket":{"type":"unix","path":"/tmp/pciemu-run/npe.sock"}}' \
	-kernel /tmp/pciemu-run/vmlinuz -initrd /tmp/pciemu-run/initrd.gz \
	-append 'console=ttyS0 panic=-1 loglevel=4' -nographic -no-reboot \
	>"$run/guest.log" 2>"$run/qemu.err" || true
end=$(date +%s.%N)
# what the server saw (python3 speaks to the control socket; skipped without it)
if command -v python3 >/dev/null; then
	timeout 5 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"get stats\nget log\n")
buf = b""
while buf.count(b"ok\n") < 2:
    d = s.recv(65536)
    if not d: break
    buf += d
sys.stdout.write(buf.decode())' "$run/npe.ctl" >"$run/control.txt" 2>/dev/null || true
fi
kill "$spid" 2>/dev/null || true
wait "$spid" 2>/dev/null || true
trap - EXIT

echo "qemu-sid: accel $accel, guest ran $(echo "$end - $start" | bc) s" >&2
grep -a '^PCI \|^BAR0 \|^DEVICE_ID \|^API_VERSION \|^ACK ' "$run/guest.log" >&2 || true
[ -s "$run/control.txt" ] && echo "qemu-sid: server: $(grep -c ' cfg ' "$run/control.txt") config and $(grep -c ' bar0 ' "$run/control.txt") BAR0 accesses recorded" >&2
ok=0
grep -aq "vendor=0x1d0f device=$devid" "$run/guest.log" && ok=1
echo "qemu-sid: qemu stderr lines: $(wc -l <"$run/qemu.err"); server: $(tr '\n' ' ' <"$run/server.log")" >&2
if [ "$keep" -eq 1 ]; then
	echo "qemu-sid: run directory $run" >&2
fi
if [ "$ok" -eq 1 ]; then
	echo "qemu-sid: ok: the guest lists 1d0f:${devid#0x}" >&2
	exit 0
fi
echo "qemu-sid: FAIL: no 1d0f:${devid#0x} in the guest (see $run)" >&2
exit 1
