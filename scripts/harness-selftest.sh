#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The test harness tested: every check that guards the guest run must be
# able to fail. Two parts:
#
#  0. scripts/tap.sh's tap_count, the one parser of scripts/check.sh, on
#     made-up TAP: a clean stream passes; no result, plans that do not add
#     up, a missing plan and an exit status without a failing check fail.
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
# Prints TAP (scripts/tap.sh).
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

. "$top/scripts/tap.sh"
ok() { tap_pass "$1"; }
ko() { tap_fail "$1" "$2"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
verdict=$top/scripts/vm-verdict.sh

# ---- 0. the TAP parser --------------------------------------------------------
# expect_count CASE STATUS WANT_P WANT_F WHY_PATTERN LINES...: tap_count on
# the lines with exit status STATUS.
expect_count() {
	local name=$1 rc=$2 wp=$3 wf=$4 wy=$5 p f why
	shift 5
	printf '%s\n' "$@" > "$tmp/tap"
	read -r p f why < <(tap_count "$tmp/tap" "$rc")
	if [ "$p $f" != "$wp $wf" ]; then
		ko "$name" "tap_count said $p passed, $f failed ($why), expected $wp, $wf"
	elif [ -n "$wy" ] && ! grep -Eq "$wy" <<<"$why"; then
		ko "$name" "tap_count said '$why', expected /$wy/"
	elif [ -z "$wy" ] && [ -n "$why" ]; then
		ko "$name" "tap_count blamed the suite: '$why'"
	else
		ok "$name"
	fi
}
expect_count tap-clean-passes 0 3 0 "" "1..2" "ok 1 - a" "ok 2 - b" "1..1" "ok 1 - c"
expect_count tap-failure-counted 1 1 1 "" "1..2" "ok 1 - a" "not ok 2 - b: why"
expect_count tap-no-result-fails 0 0 1 "ran no test" "1..0"
expect_count tap-short-plan-fails 1 1 1 "planned 3 checks but reported 1" "1..3" "ok 1 - a"
expect_count tap-missing-plan-fails 0 2 1 "planned 0 checks but reported 2" "ok 1 - a" "ok 2 - b"
expect_count tap-lost-document-fails 0 2 1 "planned 4" "1..2" "ok 1 - a" "ok 2 - b" "1..2"
expect_count tap-crash-without-failure-fails 139 2 1 "exited 139 without a failing check" "1..2" "ok 1 - a" "ok 2 - b"
expect_count tap-not-ok-is-not-ok 1 0 1 "" "1..1" "not ok 1 - a: ok 2 - b"

# ---- 1. vm-verdict.sh on made-up logs -----------------------------------
# A guest log: suite "01_a" (2 checks, plan 2, exit 0), taint O|E, and a
# kernel log starting with the banner plus the lines given.
mklog() { # file [dmesg-line...]
	local f=$1 l
	shift
	{
		echo "VMTEST START 01_a"
		echo "1..2"
		echo "ok 1 - a/one"
		echo "ok 2 - a/two"
		echo "VMTEST END 01_a 2 2"
		echo "VMTEST EXIT 01_a 0"
		echo "VMTEST TAINTED 12288"
		echo "VMTEST DMESG-BEGIN"
		echo "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)"
		echo "[    1.000000] neuron: rejected: sim_devices: expected an integer in 0..16"
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
		ko "$name" "vm-verdict exited $rc, expected $want: $(grep '^not ok' <<<"$out" | head -n 2 | tr '\n' ' ')"
	elif [ -n "$pattern" ] && ! grep -Eq "^not ok [0-9]+ - vm/$pattern" <<<"$out"; then
		ko "$name" "no failing line /vm\/$pattern/ in: $(tr '\n' ' ' <<<"$out")"
	elif echo "$out" > "$tmp/verdict.tap" && [ -n "$(tap_count "$tmp/verdict.tap" "$rc" | cut -d' ' -f3-)" ]; then
		ko "$name" "vm-verdict's own TAP does not add up: $(tap_count "$tmp/verdict.tap" "$rc")"
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
UBSAN: shift-out-of-bounds in common/neuron_nq_ring.c:77:12
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

# 00_module's known 6.1 kernel leak (class registration): a "new
# suspected" line between its markers passes only when the guest found
# every object known ("all-known"); outside them, or with "unknown", or
# with no end marker, it fails.
mklog "$tmp/known" "vmtest-kmemleak-known-begin" \
	"kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" \
	"vmtest-kmemleak-known-end all-known 1"
expect_verdict kmemleak-known-kernel-leak-passes 0 "" "$tmp/known"
mklog "$tmp/known" "vmtest-kmemleak-known-begin" \
	"kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" \
	"vmtest-kmemleak-known-end unknown 1 of 2"
expect_verdict kmemleak-unknown-leak-fails 1 "dmesg-clean: kernel log shows: .*kmemleak: 2 new" "$tmp/known"
mklog "$tmp/known" "vmtest-kmemleak-known-begin" \
	"kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
expect_verdict kmemleak-known-without-end-fails 1 "dmesg-clean: kernel log shows: .*kmemleak: 1 new" "$tmp/known"
mklog "$tmp/known" "vmtest-kmemleak-known-begin" "vmtest-kmemleak-known-end all-known 1" \
	"kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
expect_verdict kmemleak-after-known-fails 1 "dmesg-clean: kernel log shows: .*kmemleak: 1 new" "$tmp/known"

# Rejected-input lines (kmod/neuron_log.h): a knob's reason more than 100
# times within 5 s fails (no rate limit); its rate-limited burst of 50 per
# 5 s, other reasons and other knobs interleaved, passes.
# rejected_log FILE COUNT STEP_MS [KEY]: COUNT lines STEP_MS apart from 10 s.
rejected_log() {
	local f=$1 n=$2 step=$3 key=${4:-fwio_retries: expected} i ms
	mklog "$f"
	for ((i = 0; i < n; i++)); do
		ms=$((10000 + i * step))
		printf '[%5d.%03d000] neuron: rejected: %s an integer in %d..30\n' \
			$((ms / 1000)) $((ms % 1000)) "$key" $((i % 3 + 1))
		printf '[%5d.%03d000] neuron: sim: rejected: new_device: device %d already exists\n' \
			$((ms / 1000)) $((ms % 1000)) "$i"
	done > "$tmp/rejected.lines"
	sed -i "/^VMTEST DMESG-END/e cat $tmp/rejected.lines" "$f"
}
rejected_log "$tmp/flood" 101 40
expect_verdict rejected-flood-fails 1 "dmesg-no-flood: .*101 lines \"rejected: fwio_retries: expected\"" "$tmp/flood"
rejected_log "$tmp/burst" 100 40
expect_verdict rejected-two-bursts-pass 0 "" "$tmp/burst"
rejected_log "$tmp/limited" 300 100
expect_verdict rejected-rate-limited-passes 0 "" "$tmp/limited"

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
sed -i '0,/^ok 2 - a\/two/{/^ok 2 - a\/two/d}' "$tmp/lost"
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
mklog "$tmp/loaded"
sed -i 's/^VMTEST EXIT 01_a 0/VMTEST EXIT 01_a 0\nVMTEST LEFT-LOADED 01_a/' "$tmp/loaded"
expect_verdict module-left-loaded-fails 1 "suite-01_a: left the module loaded" "$tmp/loaded"

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
	guest_expect early-exit-caught '^not ok [0-9]+ - vm/suite-10_early_exit: did not reach its end'
	guest_expect short-suite-caught '^not ok [0-9]+ - vm/suite-20_short: ran 1 of the 3 checks'
	guest_expect crash-in-check-fails-caught '^not ok [0-9]+ - 30_check_fails/crash-is-not-a-failure: .*status 139'
	guest_expect missing-program-caught '^not ok [0-9]+ - 30_check_fails/missing-program-is-not-a-failure: .*status 127'
	guest_expect wrong-message-caught '^not ok [0-9]+ - 30_check_fails/wrong-message: .*expected /Invalid argument/'
	guest_expect wrong-status-caught '^not ok [0-9]+ - 30_check_fails/wrong-status: .*exited 1, expected 2'
	guest_expect expected-failure-passes '^ok [0-9]+ - 30_check_fails/expected-failure$'
	guest_expect slow-command-caught '^not ok [0-9]+ - 40_timing/slow-command-over-bound: .*took [0-9]+ ms, bound 300 ms'
	guest_expect never-state-caught '^not ok [0-9]+ - 40_timing/state-never-reached: .*still false after 300 ms'
	guest_expect fast-command-passes '^ok [0-9]+ - 40_timing/fast-command-in-bound$'
	guest_expect program-stopping-early-caught '^not ok [0-9]+ - 50_prog/stops_early/complete: printed 1 cases'
	guest_expect program-exit-status-caught '^not ok [0-9]+ - 50_prog/exits_3/exit: exited with status 3'
	guest_expect program-controls-pass '^ok [0-9]+ - 50_prog/exits_3/complete$'
	guest_expect warn-knob-validates '^ok [0-9]+ - 60_warn/warn-refuses-2$'
	guest_expect kernel-warning-caught '^not ok [0-9]+ - vm/dmesg-clean: kernel log shows: .*WARNING: .*'
	guest_expect deliberate-warning-named '^not ok [0-9]+ - vm/dmesg-clean: .*deliberate warning from debugfs'
	guest_expect warning-taint-caught '^not ok [0-9]+ - vm/kernel-untainted: tainted [0-9]+: flags [A-Z]*W'
	guest_expect warn-suite-itself-passes '^ok [0-9]+ - vm/suite-60_warn$'
	guest_expect failing-suites-accounted '^ok [0-9]+ - vm/suite-30_check_fails$'
fi

tap_done harness
