#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run neuron.ko's real PCI backend (kmod/neuron_pci.c) in a QEMU guest
# against emulated Neuron PCI functions (neuron-pciemu, docs/pciemu.md),
# and the PCI guest suite (tests/pci/, docs/pci-testing.md).
#
#   scripts/pci-vm.sh [--kernel VMLINUZ] [--kver KREL] [--module NEURON_KO]
#                     [--log FILE] [--label L] [--timeout S] [--no-slub-debug]
#                     [--only SUITE[,SUITE...]] [--keep] [--help]
#
# Builds (cmake, -j2) neuron-pciemu, the guest programs it packs and the
# tools, ensures sid's QEMU 11 in its cached chroot (scripts/qemu-sid-lib.sh;
# needs root), starts one neuron-pciemu per emulated function and the relay
# (scripts/pci-relay.py) through which the guest reaches the emulators'
# control sockets and QEMU's QMP, boots the kernel (TCG, guest RAM
# memory-backend-memfd share=on, each function on its own pcie-root-port)
# with a busybox initramfs whose /init is tests/vm/init.sh and whose suites
# are tests/pci/[0-9][0-9]_*.sh, and judges the console log with
# scripts/vm-verdict.sh as scripts/vm.sh does. QEMU's stderr goes to a file
# of its own (a surprise removal makes it print a line per access).
# Prints TAP; the last line is "# pci <label>: N passed, N failed".
# Exit 0 when everything passed, 1 on a failure, 2 when the guest never
# reported or on bad usage. --keep leaves the run directory (emulator logs,
# relay transcript, QEMU's stderr) and says where.
# --only runs the named suites of tests/pci only (number or not, as
# scripts/vm.sh). PCI_VM_ACCEL=kvm tries KVM (default tcg).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
kernel='' kver='' module='' log='' label='' timeout_s=${PCI_VM_TIMEOUT:-900} keep=0 only=''
slub_debug=FZPU

die() { echo "pci-vm: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--label) label=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--no-slub-debug) slub_debug=; shift ;;
	--keep) keep=1; shift ;;
	--only) only=$2; shift 2 ;;
	-h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
. "$top/scripts/qemu-sid-lib.sh"
. "$top/scripts/guest-verdict-lib.sh"

t_start=$(date +%s)
phase() { echo "# time $1 $(( $(date +%s) - ${2:-$t_start} )) s"; }

[ -n "$kver" ] || kver=$(make -s -C "$top/kmod" print-kver)
[ -n "$module" ] || module=$top/kmod/neuron.ko
[ -n "$kernel" ] || kernel=/boot/vmlinuz-$kver
[ -n "$label" ] || label=$kver
[ -n "$log" ] || log=$build/pci-vm.log
for f in "$kernel" "$module" /bin/busybox; do
	[ -r "$f" ] || die "missing $f"
done
modver=$(modinfo -F vermagic "$module" | cut -d' ' -f1)
[ "$modver" = "$kver" ] || die "$module is built for $modver but the guest boots $kver"

# ---- build ---------------------------------------------------------------------
t0=$(date +%s)
[ -f "$build/CMakeCache.txt" ] || cmake -S "$top" -B "$build" >/dev/null ||
	die "cmake configure failed"
cmake --build "$build" -j2 --target neuron-pciemu vm_pci vm_drain neuron-ls neuron-doctor >"$build/pci-vm-build.log" 2>&1 ||
	die "build failed (see $build/pci-vm-build.log)"
server=$build/pciemu/neuron-pciemu
phase build "$t0"

t0=$(date +%s)
qemu_sid_ensure
root=$QEMU_SID_ROOT
phase qemu-chroot "$t0"

# ---- the emulated functions ----------------------------------------------------
# name arch routing-id extra-options; the guest suites read the same table
# (/etc/pci-devs) with the index each routing id must give (the vendor's map:
# common/neuron_fw_profile.c). npe0 and npe1 are two Trn1 devices whose
# routing ids cross (rid 1 -> neuron4, rid 2 -> neuron1); npe0 stays
# "not ready" (0xDEADBEEF) for 3 s after power-on and after each reset.
# npe3's routing id is above 16: 2.25 maps routing id mod 16 on Trn2
# (20 -> 4 -> neuron12).
devs=(
	"npe0 trn1 1 4 --ready-ms 3000"
	"npe1 trn1 2 1"
	"npe2 inf2 7 7"
	"npe3 trn2 20 12"
)

mkdir -p "$root/tmp"
run=$(mktemp -d "$root/tmp/pcivm.XXXXXX") || die "mktemp failed"
grun=/tmp/$(basename "$run")	# the same directory as QEMU (in the chroot) sees it
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	if [ "$keep" -eq 1 ]; then echo "pci-vm: run directory kept: $run" >&2; else rm -rf "$run"; fi
}
trap cleanup EXIT

# ---- initramfs -------------------------------------------------------------------
work=$run/initrd
mkdir -p "$work"/{bin,sbin,dev,proc,sys,tmp,etc,tests,lib,lib64,usr/lib}
cp /bin/busybox "$work/bin/busybox"
cp "$module" "$work/neuron.ko"
cp "$top/tests/vm/init.sh" "$work/init"
chmod 755 "$work/init"
cp "$top/tests/vm/lib.sh" "$work/tests/lib.sh"
cp "$top"/tests/pci/*.sh "$work/tests/"
suites=
for s in "$top"/tests/pci/[0-9][0-9]_*.sh; do
	name=$(basename "$s" .sh)
	case ",$only," in ,,|*",${name#*_},"*|*",$name,"*) suites+="$name " ;; esac
done
echo check >"$work/etc/vm-mode"
echo "$only" >"$work/etc/vm-only"
echo "$kver" >"$work/etc/vm-kver"
echo "root:x:0:0:root:/:/bin/sh" >"$work/etc/passwd"
echo "root:x:0:" >"$work/etc/group"
for d in "${devs[@]}"; do
	set -- $d
	echo "$1 $2 $3 $4"
done >"$work/etc/pci-devs"
bins=("$build/vm/vm_pci" "$build/vm/vm_drain" "$build/neuron-ls" "$build/neuron-doctor")
[ -x "$build/vm/jq" ] && bins+=("$build/vm/jq")
cp "${bins[@]}" "$work/tests/"
while read -r lib; do
	case "$lib" in
	*libnrt.so*) cp -L "$lib" "$work/lib/$(basename "$lib")" ;;
	/*) mkdir -p "$work$(dirname "$lib")"; [ -e "$work$lib" ] || cp -L "$lib" "$work$lib" ;;
	esac
done < <(LD_LIBRARY_PATH="$build" ldd "${bins[@]}" 2>/dev/null |
	 awk '/:$/ { next } /=>/ { print $3; next } $1 ~ /^\// { print $1 }' | sort -u)
(cd "$work" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$run/initrd.gz"
cp "$kernel" "$run/vmlinuz"

# ---- emulators, relay ------------------------------------------------------------
qdevs=() relay_args=() i=0
for d in "${devs[@]}"; do
	set -- $d
	name=$1 arch=$2 rid=$3
	shift 4
	"$server" --socket "$run/$name.sock" --control "$run/$name.ctl" --arch "$arch" \
		--routing-id "$rid" -v "$@" >"$run/$name.log" 2>&1 &
	pids+=($!)
	json="{\"driver\":\"vfio-user-pci\",\"id\":\"$name\",\"bus\":\"rp$i\",\"socket\":{\"type\":\"unix\",\"path\":\"$grun/$name.sock\"}}"
	qdevs+=(-device "pcie-root-port,id=rp$i,chassis=1,slot=$((i + 1))" -device "$json")
	relay_args+=(--ctl "$name=$run/$name.ctl" --dev "$name=$json")
	i=$((i + 1))
done
python3 "$top/scripts/pci-relay.py" --serial "$run/relay.sock" --qmp "$run/qmp.sock" \
	--log "$run/relay.log" "${relay_args[@]}" 2>"$run/relay.err" &
pids+=($!)
# bounded: every socket is there before QEMU starts
for _ in $(seq 100); do
	missing=0
	for d in "${devs[@]}"; do set -- $d; [ -S "$run/$1.sock" ] && [ -S "$run/$1.ctl" ] || missing=1; done
	[ -S "$run/relay.sock" ] || missing=1
	[ $missing -eq 0 ] && break
	sleep 0.1
done
[ $missing -eq 0 ] || die "an emulator or the relay did not start (see $run, --keep)"

# ---- boot ------------------------------------------------------------------------
# Hot-plug through the root ports' native PCIe hotplug (pciehp), not q35's
# ACPI hotplug: measured with the 6.1 guest, a function re-added through
# ACPI gets "BAR 0 ...: can't assign; no space" although its port's window
# is free, so its probe fails (-ENOMEM from pci_iomap); through pciehp the
# BAR is assigned again. PCI_VM_QEMU_EXTRA adds QEMU options (unquoted).
# tsc=reliable under TCG: the TSC, not the HPET, as the clock, as in
# scripts/vm.sh (under KVM the kernel's own checks stay).
clock=
[ "${PCI_VM_ACCEL:-tcg}" = tcg ] && clock=" tsc=reliable"
append="console=ttyS0 panic=-1 oops=panic${slub_debug:+ slub_debug=$slub_debug}$clock loglevel=3 log_buf_len=8M rdinit=/init"
mkdir -p "$(dirname "$log")"
echo "pci-vm: booting $label with ${#devs[@]} emulated functions, log in $log"
t0=$(date +%s)
qemu_sid_run timeout -k 10 "$timeout_s" qemu-system-x86_64 -nographic -no-reboot \
	-accel "${PCI_VM_ACCEL:-tcg}" -cpu max -smp 2 -m 1024M \
	-machine q35,memory-backend=mem -object memory-backend-memfd,id=mem,size=1024M,share=on \
	"${qdevs[@]}" \
	-chardev "socket,id=relay,path=$grun/relay.sock" \
	-serial mon:stdio -serial chardev:relay \
	-qmp "unix:$grun/qmp.sock,server=on,wait=off" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off ${PCI_VM_QEMU_EXTRA:-} \
	-kernel "$grun/vmlinuz" -initrd "$grun/initrd.gz" -append "$append" \
	</dev/null 2>"$run/qemu.err" |
	tr -d '\r' | tee "$log" | grep -E --line-buffered '^((not )?ok [0-9]+ |1\.\.[0-9]+$|vm-guest:|# time )'
rc=${PIPESTATUS[0]}
phase guest "$t0"
echo "pci-vm: QEMU stderr: $(wc -l <"$run/qemu.err") lines" >&2

case "$rc" in 124|137) echo "pci-vm: guest timed out after ${timeout_s}s" >&2 ;; esac
verdict=$(guest_verdict "$rc" "$log")
pass=$(grep -cE '^ok [0-9]+ ' "$log")
fail=$(grep -cE '^not ok [0-9]+ ' "$log")
verdict_out=$("$top/scripts/vm-verdict.sh" --suites "$suites" "$log")
echo "$verdict_out"
pass=$((pass + $(grep -cE '^ok [0-9]+ ' <<<"$verdict_out")))
fail=$((fail + $(grep -cE '^not ok [0-9]+ ' <<<"$verdict_out")))
why=
if [ "$verdict" = none ]; then
	echo "pci-vm: the guest never reported a verdict (exit $rc); last lines of $log:" >&2
	tail -n 30 "$log" >&2
	tail -n 5 "$run/qemu.err" >&2
	why="the guest never reported a verdict (exit $rc, see $log)"
elif [ "$verdict" = fail ] && [ "$fail" -eq 0 ]; then
	why="the guest reported failure without a failing test line (see $log)"
elif [ "$pass" -eq 0 ]; then
	why="no guest test ran (see $log)"
fi
[ "$verdict" = pass ] && [ "$fail" -gt 0 ] && verdict=fail
if [ -z "$why" ]; then echo "ok 1 - pci/guest-verdict"; pass=$((pass + 1))
else echo "not ok 1 - pci/guest-verdict: $why"; fail=$((fail + 1)); fi
echo "1..1"
# the emulators' own view, for the reader of a failure
[ "$fail" -eq 0 ] || { [ "$keep" -eq 1 ] || echo "pci-vm: rerun with --keep for the emulator and relay logs" >&2; }
phase total
echo "# pci $label: $pass passed, $fail failed"
[ "$verdict" = pass ] && [ "$fail" -eq 0 ] && exit 0
[ "$verdict" = none ] && exit 2
exit 1
