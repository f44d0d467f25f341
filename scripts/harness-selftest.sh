#!/usr/bin/env bash
# The test harness tested: every check that guards the guest run must be
# able to fail. Two parts:
#
#  1. scripts/vm-verdict.sh on made-up guest logs (host only): a clean log
#     passes; each kernel report class, a wrapped or missing kernel log, a
#     taint, a suite that never started, stopped early, ran short, lost
#     lines, exited badly or was not expected each fail, naming the cause.
#  2. A guest boot of tests/vm/selftest/ (scripts/vm.sh --mode selftest),
#     suites written to fail: a suite that exits early, a short suite,
#     crashes and missing programs in check_fails slots, a slow command
#     against its time bound, a program that stops before its end, and a
#     kernel warning raised on purpose. vm.sh must exit 1 and name each.
#
#   scripts/harness-selftest.sh [--host-only] [--kver V] [--help]
#
# Prints "HARNESS PASS|FAIL <case>" lines, then "harness: N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
host_only=0
vm_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--host-only) host_only=1; shift ;;
	--kver) vm_args+=(--kver "$2"); shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "harness-selftest.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

pass=0
fail=0
ok() { echo "HARNESS PASS $1"; pass=$((pass + 1)); }
ko() { echo "HARNESS FAIL $1: $2"; fail=$((fail + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
verdict=$top/scripts/vm-verdict.sh

# ---- 1. vm-verdict.sh on made-up logs -----------------------------------
# A guest log: suite "01_a" (2 checks, plan 2, exit 0), taint O|E, and a
# kernel log starting with the banner plus the lines given.
mklog() { # file [dmesg-line...]
	local f=$1 l
	shift
	{
		echo "VMTEST START 01_a"
		echo "VMTEST PASS a/one"
		echo "VMTEST PASS a/two"
		echo "VMTEST END 01_a 2 2"
		echo "VMTEST EXIT 01_a 0"
		echo "VMTEST TAINTED 12288"
		echo "VMTEST DMESG-BEGIN"
		echo "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)"
		echo "[    1.000000] neuron: sim_devices=17 is invalid: expected an integer in 0..16"
		echo "[    1.100000] neuron neuron0: fw-io: cmd 1 failed after 3 attempt(s): -110"
		echo "[    1.200000] Kernel command line: console=ttyS0 slub_debug=FZPU"
		echo "[    1.300000] vmtest-mark 01_a 1"
		for l in "$@"; do echo "[    2.000000] $l"; done
		echo "VMTEST DMESG-END"
	} > "$f"
}

# expect_verdict CASE WANT_STATUS PATTERN FILE [--suites S]: vm-verdict's
# status and (for a failure) a FAIL line matching PATTERN.
expect_verdict() {
	local name=$1 want=$2 pattern=$3 file=$4 out rc
	shift 4
	out=$("$verdict" --suites "${SUITES-01_a}" "$file" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		ko "$name" "vm-verdict exited $rc, expected $want: $(grep FAIL <<<"$out" | head -n 2 | tr '\n' ' ')"
	elif [ -n "$pattern" ] && ! grep -Eq "^VMTEST FAIL vm/$pattern" <<<"$out"; then
		ko "$name" "no FAIL line /vm\/$pattern/ in: $(tr '\n' ' ' <<<"$out")"
	else
		ok "$name"
	fi
}

mklog "$tmp/clean"
expect_verdict clean-log-passes 0 "" "$tmp/clean"

# Each class of kernel report fails the scan.
while IFS= read -r line; do
	[ -n "$line" ] || continue
	mklog "$tmp/report" "$line"
	expect_verdict "report '${line:0:48}'" 1 "dmesg-clean: kernel log shows: .*" "$tmp/report"
done <<'EOF'
BUG: KASAN: slab-use-after-free in neuron_nds_release+0x10/0x20 [neuron]
BUG: unable to handle page fault for address: ffffffffc0000000
BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580
BUG: scheduling while atomic: sh/77/0x00000002
BUG: soft lockup - CPU#1 stuck for 22s! [vm_exec:90]
BUG kmalloc-64 (Tainted: G           O      ): Redzone overwritten
BUG kmalloc-128 (Not tainted): Poison overwritten
kernel BUG at drivers/misc/neuron/neuron_nq.c:120!
WARNING: CPU: 1 PID: 88 at kmod/neuron_device.c:42 neuron_device_destroy+0x1/0x2 [neuron]
WARNING: possible circular locking dependency detected
Oops: 0000 [#1] PREEMPT SMP NOPTI
general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1]
refcount_t: underflow; use-after-free.
list_add corruption. next->prev should be prev (ffff888003c1e0a8), but was 0000000000000000.
list_del corruption, ffff888003c1e0a8->next is LIST_POISON1 (dead000000000100)
UBSAN: shift-out-of-bounds in kmod/lib/neuron_nq_ring.c:77:12
kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
unreferenced object 0xffff888004a1c000 (size 256):
INFO: task vm_nds:120 blocked for more than 30 seconds.
rcu: INFO: rcu_preempt self-detected stall on CPU
Kernel panic - not syncing: Fatal exception
Call Trace:
EOF

# The dump must hold the whole boot: a wrapped ring buffer loses the banner.
mklog "$tmp/wrapped"
sed -i '/Linux version/d' "$tmp/wrapped"
expect_verdict wrapped-kernel-log-fails 1 "dmesg-complete" "$tmp/wrapped"
mklog "$tmp/nodump"
sed -i '/DMESG-/d' "$tmp/nodump"
expect_verdict missing-kernel-log-fails 1 "dmesg-complete" "$tmp/nodump"

# Taint: W (512) alone, D (128) alone fail; no taint line fails.
for t in 512 128 $((12288 | 512)); do
	mklog "$tmp/taint"
	sed -i "s/^VMTEST TAINTED .*/VMTEST TAINTED $t/" "$tmp/taint"
	expect_verdict "taint-$t-fails" 1 "kernel-untainted" "$tmp/taint"
done
mklog "$tmp/notaint"
sed -i '/^VMTEST TAINTED/d' "$tmp/notaint"
expect_verdict missing-taint-fails 1 "kernel-untainted" "$tmp/notaint"

# kmemleak's end-of-run scan (debug kernels): leaks fail, none pass.
mklog "$tmp/leak"
sed -i 's/^VMTEST TAINTED/VMTEST KMEMLEAK 2\nunreferenced object 0xffff888004a1c000 (size 64):\nVMTEST TAINTED/' "$tmp/leak"
expect_verdict kmemleak-leak-fails 1 "kmemleak-clean: 2 unreferenced" "$tmp/leak"
mklog "$tmp/noleak"
sed -i 's/^VMTEST TAINTED/VMTEST KMEMLEAK 0\nVMTEST TAINTED/' "$tmp/noleak"
expect_verdict kmemleak-none-passes 0 "" "$tmp/noleak"

# Suite accounting.
SUITES="01_a 02_b" expect_verdict suite-never-started-fails 1 "suite-02_b: never started" "$tmp/clean"
SUITES="" expect_verdict unexpected-suite-fails 1 "suites-expected" "$tmp/clean"
mklog "$tmp/early"
sed -i '/^VMTEST END 01_a/d' "$tmp/early"
expect_verdict early-exit-fails 1 "suite-01_a: did not reach its end" "$tmp/early"
mklog "$tmp/noexit"
sed -i '/^VMTEST EXIT 01_a/d' "$tmp/noexit"
expect_verdict no-exit-status-fails 1 "suite-01_a: no exit status" "$tmp/noexit"
mklog "$tmp/lost"
sed -i '0,/^VMTEST PASS a\/two/{/^VMTEST PASS a\/two/d}' "$tmp/lost"
expect_verdict lost-line-fails 1 "suite-01_a: says it ran 2 checks but 1" "$tmp/lost"
mklog "$tmp/short"
sed -i 's/^VMTEST END 01_a 2 2/VMTEST END 01_a 2 3/' "$tmp/short"
expect_verdict short-suite-fails 1 "suite-01_a: ran 2 of the 3" "$tmp/short"
mklog "$tmp/status"
sed -i 's/^VMTEST EXIT 01_a 0/VMTEST EXIT 01_a 1/' "$tmp/status"
expect_verdict bad-status-without-failure-fails 1 "suite-01_a: exited with status 1" "$tmp/status"
mklog "$tmp/segv"
sed -i 's/^VMTEST EXIT 01_a 0/VMTEST EXIT 01_a 139/' "$tmp/segv"
expect_verdict crashed-suite-fails 1 "suite-01_a: exited with status 139" "$tmp/segv"

# ---- 2. the guest: suites written to fail -----------------------------------
if [ "$host_only" = 0 ]; then
	out=$(BUILD_DIR="$build" "$top/scripts/vm.sh" --mode selftest --log "$build/vm-selftest.log" \
	      "${vm_args[@]}" 2>&1)
	rc=$?
	# guest_expect CASE PATTERN: vm.sh printed a line matching PATTERN.
	guest_expect() {
		if grep -Eq "$2" <<<"$out"; then ok "$1"; else ko "$1" "no line /$2/ (log: $build/vm-selftest.log)"; fi
	}
	if [ "$rc" -eq 1 ]; then ok guest-run-fails; else ko guest-run-fails "vm.sh exited $rc, expected 1"; fi
	guest_expect early-exit-caught 'VMTEST FAIL vm/suite-10_early_exit: did not reach its end'
	guest_expect short-suite-caught 'VMTEST FAIL vm/suite-20_short: ran 1 of the 3 checks'
	guest_expect crash-in-check-fails-caught 'VMTEST FAIL 30_check_fails/crash-is-not-a-failure: .*status 139'
	guest_expect missing-program-caught 'VMTEST FAIL 30_check_fails/missing-program-is-not-a-failure: .*status 127'
	guest_expect wrong-message-caught 'VMTEST FAIL 30_check_fails/wrong-message: .*expected /Invalid argument/'
	guest_expect wrong-status-caught 'VMTEST FAIL 30_check_fails/wrong-status: .*exited 1, expected 2'
	guest_expect expected-failure-passes 'VMTEST PASS 30_check_fails/expected-failure$'
	guest_expect slow-command-caught 'VMTEST FAIL 40_timing/slow-command-over-bound: .*took [0-9]+ ms, bound 300 ms'
	guest_expect never-state-caught 'VMTEST FAIL 40_timing/state-never-reached: .*still false after 300 ms'
	guest_expect fast-command-passes 'VMTEST PASS 40_timing/fast-command-in-bound$'
	guest_expect program-stopping-early-caught 'VMTEST FAIL 50_prog/stops_early/complete: printed 1 cases'
	guest_expect program-exit-status-caught 'VMTEST FAIL 50_prog/exits_3/exit: exited with status 3'
	guest_expect program-controls-pass 'VMTEST PASS 50_prog/exits_3/complete$'
	guest_expect warn-knob-validates 'VMTEST PASS 60_warn/warn-refuses-2$'
	guest_expect kernel-warning-caught 'VMTEST FAIL vm/dmesg-clean: kernel log shows: .*WARNING: .*'
	guest_expect deliberate-warning-named 'VMTEST FAIL vm/dmesg-clean: .*deliberate warning from debugfs'
	guest_expect warning-taint-caught 'VMTEST FAIL vm/kernel-untainted: tainted [0-9]+: flags [A-Z]*W'
	guest_expect warn-suite-itself-passes 'VMTEST PASS vm/suite-60_warn$'
	guest_expect failing-suites-accounted 'VMTEST PASS vm/suite-30_check_fails$'
fi

echo "harness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
