#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot a kernel under QEMU with neuron.ko and the guest tests.
#
#   scripts/vm.sh [--mode check|selftest|demo|bench] [--module PATH] [--kver V]
#                 [--kernel IMAGE] [--label NAME] [--timeout SECONDS]
#                 [--log FILE] [--only SUITE[,SUITE...]] [--no-slub-debug] [--help]
#
# Builds a busybox initramfs (the module, build/vm/* programs, tests/vm/*.sh
# suites and every shared library they need), boots
# qemu-system-x86_64 -nographic -no-reboot (TCG; there is no KVM), streams the
# guest console, keeps it in the log file, and exits with the verdict:
#   0  the guest ran its suites and every test passed
#   1  a test failed, a suite did not run to its end, or the kernel log
#      shows a report (scripts/vm-verdict.sh)
#   2  the guest never reported (did not boot, hung, crashed) or bad usage
# --kver is the kernel release (default: the host's newest with headers),
# booted from /boot/vmlinuz-V unless --kernel names the image. --label names
# the run in its lines (default: the release). selftest runs
# tests/vm/selftest/, suites that must each fail (scripts/harness-selftest.sh).
# --only names suites in check mode and benchmark groups in bench mode
# (bench/vm/bench.sh: nds exec fwio app dmabuf async vendor scale).
# In check and selftest mode the output is TAP (scripts/tap.sh): the guest
# suites' documents, vm-verdict.sh's and vm.sh's own (the guest reported a
# verdict that agrees with its checks), and the last line is the comment
# "# vm <label>: N passed, N failed".
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/guest-verdict-lib.sh"
build=${BUILD_DIR:-$top/build}
mode=check
module=
kver=
kernel=
label=
timeout_s=${VM_TIMEOUT:-900}
log=
only=
slub_debug=FZPU

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
	case "$1" in
	--mode) mode=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--label) label=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--no-slub-debug) slub_debug=; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "vm.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case "$mode" in check|selftest|demo|bench) ;; *) echo "vm.sh: --mode must be check, selftest, demo or bench" >&2; exit 2 ;; esac

[ -n "$kver" ] || kver=$(make -s -C "$top/kmod" print-kver)
[ -n "$module" ] || module=$top/kmod/neuron.ko
[ -n "$kernel" ] || kernel=/boot/vmlinuz-$kver
[ -n "$label" ] || label=$kver
[ -n "$log" ] || log=$build/vm-$mode.log
for f in "$kernel" "$module" /bin/busybox; do
	[ -r "$f" ] || { echo "vm.sh: missing $f (run make, scripts/deps.sh)" >&2; exit 2; }
done
modver=$(modinfo -F vermagic "$module" | cut -d' ' -f1)
if [ "$modver" != "$kver" ]; then
	echo "vm.sh: $module is built for $modver but the guest boots $kver" >&2
	exit 2
fi

# A root of its own, so runs for several kernels can go side by side.
mkdir -p "$build"
tmpdir=$(mktemp -d "$build/vm-run.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
work=$tmpdir/root
mkdir -p "$work"/{bin,sbin,dev,proc,sys,tmp,etc,tests,lib,lib64,usr/lib}

cp /bin/busybox "$work/bin/busybox"
cp "$module" "$work/neuron.ko"
cp "$top/tests/vm/init.sh" "$work/init"
chmod 755 "$work/init"
cp "$top"/tests/vm/*.sh "$work/tests/"
mkdir -p "$work/tests/selftest" "$work/demo" "$work/bench"
cp "$top"/tests/vm/selftest/*.sh "$work/tests/selftest/"
# make demo and make bench: their guest scripts live apart from the tests
cp "$top"/demo/*.sh "$work/demo/"
cp "$top"/bench/vm/*.sh "$work/bench/"
printf '%s\n' "$mode" > "$work/etc/vm-mode"
printf '%s\n' "$only" > "$work/etc/vm-only"
printf '%s\n' "$kver" > "$work/etc/vm-kver"
# Knobs of the reliability suites (docs/RELIABILITY.md) reach the guest's
# suites as environment variables: VM_HOSTILE_*, VM_PRESSURE_*, VM_PERMS_*, VM_FAILINIT_*,
# VM_HOTPLUG_* (50_hotplug), VM_MODULE_* (00_module), VM_MONITOR_* (42_monitor), VM_GENL_* (40_genl),
# VM_TIMING_CHECKS (tests/vm/lib.sh),
# with plain values (letters, digits, . _ , -) only.
env | grep -E '^VM_(HOSTILE|PRESSURE|PERMS|HOTPLUG|FAILINIT|MODULE|MONITOR|GENL|TIMING|TOOLS)_[A-Z_]+=[A-Za-z0-9._,-]*$' | sed 's/^/export /' \
	> "$work/etc/vm-env" || true
echo "root:x:0:0:root:/:/bin/sh" > "$work/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/false" >> "$work/etc/passwd"
echo "root:x:0:" > "$work/etc/group"
echo "nogroup:x:65534:" >> "$work/etc/group"

# Guest programs and the shared libraries they load (libnrt.so.1 from the
# build tree goes to the standard library path).
bins=()
if [ -d "$build/vm" ]; then
	for b in "$build"/vm/*; do
		[ -x "$b" ] && [ -f "$b" ] && bins+=("$b")
	done
fi
for src in "$top"/tools/*/main.cpp; do
	t=$(basename "$(dirname "$src")")
	[ -x "$build/$t" ] && bins+=("$build/$t")
done
for b in "${bins[@]}"; do
	cp "$b" "$work/tests/"
done
copy_lib() {
	local src=$1 dst
	dst="$work$src"
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	cp -L "$src" "$dst"
}
if [ ${#bins[@]} -gt 0 ]; then
	while read -r lib; do
		case "$lib" in
		*libnrt.so*) cp -L "$lib" "$work/lib/$(basename "$lib")" ;;
		/*) copy_lib "$lib" ;;
		esac
	done < <(LD_LIBRARY_PATH="$build" ldd "${bins[@]}" 2>/dev/null |
		 awk '/:$/ { next } /=>/ { print $3; next } $1 ~ /^\// { print $1 }' | sort -u)
fi

# jq: Debian sid's, started by its own loader, when scripts/guest-jq.sh
# can make it (bookworm's jq 1.6 takes about a second to start under TCG,
# sid's about an eighth of that); the host's otherwise, same answers.
if [ -x "$work/tests/jq" ]; then
	if jqdir=$("$top/scripts/guest-jq.sh" 2>"$tmpdir/guest-jq.err"); then
		mkdir -p "$work/jq"
		cp "$jqdir"/* "$work/jq/"
		printf '#!/bin/sh\nexec /jq/ld-linux-x86-64.so.2 --library-path /jq /jq/jq "$@"\n' \
			> "$work/tests/jq"
		chmod 755 "$work/tests/jq"
	else
		echo "vm: the guest runs the host's jq (slower): $(tail -n 1 "$tmpdir/guest-jq.err")" >&2
	fi
fi

initrd=$tmpdir/initrd.cpio.gz
(cd "$work" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$initrd"

# log_buf_len: the whole run's kernel log fits, so the scan sees all of it.
# VM_LOG_BUF_LEN: a bigger buffer for long runs (the hostile fuzzer's long
# mode logs about 2 MB per million operations).
# slub_debug: red zones, poisoning and owner tracking on every slab object;
# not for benchmarks, and not with --no-slub-debug (a KASAN kernel, which
# checks the same and more, and records the owners itself).
# tsc=reliable: under TCG every vCPU's TSC is the host's (QEMU hands out
# one globally monotonic count), but the kernel assumes the TSCs of an
# AMD CPU without the invariant-TSC flag and with more than one core
# unsynchronized and falls back to the HPET, whose every read is an exit
# into the emulator under its global lock: a clock_gettime costs some
# thirty times as much (docs/performance.md, "The guest's clock").
[ "$mode" = bench ] && slub_debug=
append="console=ttyS0 panic=-1 oops=panic${slub_debug:+ slub_debug=$slub_debug} tsc=reliable loglevel=3 log_buf_len=${VM_LOG_BUF_LEN:-8M} rdinit=/init"

mkdir -p "$(dirname "$log")"
# A kernel that panics while it boots, before /init prints "vm-guest: up"
# (so before the module or any test ran), is booted once more: under TCG
# a kernel can trip over its own boot-time code patching (an int3 Oops in
# sched_clock_cpu, seen on several kernels). The first log is kept as
# LOG.boot1 and a TAP comment says so. A second such panic is the verdict.
attempt=1
while :; do
echo "vm: booting $label ($mode), log in $log"
set +e
timeout --foreground -k 10 "$timeout_s" \
	qemu-system-x86_64 -nographic -no-reboot -m 1024 -smp 2 \
	-cpu max -accel tcg \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-serial mon:stdio -display none < /dev/null 2>&1 |
	tr -d '\r' | tee "$log" |
	if [ "$mode" = check ] || [ "$mode" = selftest ]; then grep -E --line-buffered '^((not )?ok [0-9]+ |1\.\.[0-9]+$|vm-guest:)' ; else awk '/vm-guest: up/ { p = 1; sub(/.*vm-guest: up/, "vm-guest: up") } /^VMTEST DMESG-BEGIN/ { p = 0 } /^VMTEST DMESG-END/ { p = 1; next } p && !/^\[ *[0-9]+\.[0-9]+\] / { print; fflush() }' ; fi
rc=${PIPESTATUS[0]}
set -e
if [ "$attempt" -eq 1 ] && ! grep -q 'vm-guest: up' "$log" &&
   grep -qE 'Kernel panic - not syncing|end Kernel panic' "$log"; then
	cause=$(grep -m1 -oE '(BUG|Oops|general protection fault|Kernel panic)[^]]*' "$log" | head -c 160)
	mv "$log" "$log.boot1"
	echo "vm: $label panicked while booting, before /init ran ($cause); booting it once more (first log: $log.boot1)" >&2
	case "$mode" in check|selftest) echo "# vm $label: the kernel panicked while booting, before /init ran; booted once more (log: $log.boot1)" ;; esac
	attempt=2
	continue
fi
break
done

case "$rc" in 124|137) echo "vm: guest timed out after ${timeout_s}s" >&2 ;; esac
verdict=$(guest_verdict "$rc" "$log")

pass=$(grep -cE '^ok [0-9]+ ' "$log" || true)
fail=$(grep -cE '^not ok [0-9]+ ' "$log" || true)

# Every suite given ran to its end, and the kernel log of the whole run is clean.
case "$mode" in
check) dir=$top/tests/vm ;;
selftest) dir=$top/tests/vm/selftest ;;
*) dir= ;;
esac
suites=
if [ -n "$dir" ]; then
	for s in "$dir"/[0-9][0-9]_*.sh; do
		name=$(basename "$s" .sh)
		case ",$only," in
		,,|*",${name#*_},"*|*",$name,"*) suites+="$name " ;;
		esac
	done
fi
verdict_out=$("$top/scripts/vm-verdict.sh" --suites "$suites" "$log" || true)
if [ "$mode" = check ] || [ "$mode" = selftest ]; then
	echo "$verdict_out"
else
	grep -E '^not ok ' <<<"$verdict_out" || true
fi
pass=$((pass + $(grep -cE '^ok [0-9]+ ' <<<"$verdict_out" || true)))
fail=$((fail + $(grep -cE '^not ok [0-9]+ ' <<<"$verdict_out" || true)))

# vm.sh's own check, always printed (one TAP document of one line): the
# guest reported a verdict, it agrees with the checks, and in check mode
# some guest test ran.
why=
if [ "$verdict" = none ]; then
	echo "vm: the guest never reported a verdict (exit $rc); last lines of $log:" >&2
	tail -n 30 "$log" >&2
	why="the guest never reported a verdict (exit $rc, see $log)"
elif [ "$verdict" = fail ] && [ "$fail" -eq 0 ]; then
	why="the guest reported failure without a failing test line (see $log)"
elif [ "$mode" = check ] && [ "$pass" -eq 0 ]; then
	why="no guest test ran (see $log)"
fi
[ "$verdict" = pass ] && [ "$fail" -gt 0 ] && verdict=fail
if [ "$mode" = check ] || [ "$mode" = selftest ]; then
	if [ -z "$why" ]; then echo "ok 1 - vm/guest-verdict"; else echo "not ok 1 - vm/guest-verdict: $why"; fi
	echo "1..1"
fi
if [ -z "$why" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

if [ "$mode" = check ] || [ "$mode" = selftest ]; then
	echo "# vm $label: $pass passed, $fail failed"
elif [ "$fail" -eq 0 ]; then
	echo "vm: $mode finished, kernel log clean"
else
	echo "vm: $mode failed ($fail problem(s), see $log)"
fi
[ "$verdict" = pass ] && [ "$fail" -eq 0 ] && exit 0
[ "$verdict" = none ] && exit 2
exit 1
