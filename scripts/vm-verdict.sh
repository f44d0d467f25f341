#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Judge a guest console log (scripts/vm.sh keeps it) beyond the tests' own
# lines: did every suite run to its end, and is the kernel log clean?
#
#   scripts/vm-verdict.sh [--suites "S1 S2 ..."] LOG
#
# --suites  the suites the guest was given (file names without .sh); each
#           must have printed, in order,
#             VMTEST START <S>
#             ... its TAP document (1..<plan>, ok/not ok lines) ...
#             VMTEST END <S> <checks run> <plan>
#             VMTEST EXIT <S> <status>
#           with <checks run> equal to the checks seen between START and END
#           and to <plan>, and status 0 (or 1 with a failing check shown),
#           and must leave the module unloaded (no "VMTEST LEFT-LOADED <S>").
#           A suite that was not given must not run.
# Kernel log: the guest dumps `dmesg` of the whole boot between
# "VMTEST DMESG-BEGIN" and "VMTEST DMESG-END". It must start with the
# kernel's banner (nothing was lost to the ring buffer), contain none of the
# report patterns below, and "VMTEST TAINTED <n>" must show no taint but
# O (out-of-tree module) and E (unsigned module). Lines of rejected input
# ("rejected: <knob>: <why>", rate-limited) must not flood: no knob and
# reason shows more than 100 of them within 5 s. On a kernel with kmemleak,
# "VMTEST KMEMLEAK <n>" (the end-of-run scan) must be 0.
#
# Prints TAP (scripts/tap.sh): one "ok N - vm/<check>" or
# "not ok N - vm/<check>: why" line per suite and per log check, then the
# plan; exits 1 if any failed, 2 on bad usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/tap.sh"

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }

suites=
while [ $# -gt 0 ]; do
	case "$1" in
	--suites) suites=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "vm-verdict.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "vm-verdict.sh: expected one log file (see --help)" >&2; exit 2; }
log=$1
[ -r "$log" ] || { echo "vm-verdict.sh: cannot read $log" >&2; exit 2; }

ok() { tap_pass "vm/$1"; }
bad() { tap_fail "vm/$1" "$2"; }

# ---- suites ----------------------------------------------------------------
for s in $suites; do
	# One awk pass: the state of suite $s as "started ended exit seen run plan fails".
	read -r started ended status seen run plan fails < <(awk -v s="$s" '
		inside && /^(not )?ok [0-9]+ / { seen++ }
		inside && /^not ok [0-9]+ / { fails++ }
		$1 != "VMTEST" { next }
		$2 == "START" && $3 == s { started++; inside = 1; next }
		$2 == "END" && $3 == s { ended++; inside = 0; run = $4; plan = $5; next }
		$2 == "EXIT" && $3 == s { status = $4; next }
		END { printf "%d %d %s %d %s %s %d\n", started, ended, (status == "" ? "-" : status),
		      seen, (run == "" ? "-" : run), (plan == "" ? "-" : plan), fails }' "$log")
	if [ "$started" -eq 0 ]; then
		bad "suite-$s" "never started"
	elif [ "$started" -gt 1 ]; then
		bad "suite-$s" "started $started times"
	elif [ "$ended" -eq 0 ]; then
		bad "suite-$s" "did not reach its end (exited early or crashed; exit status $status after $seen checks)"
	elif [ "$status" = - ]; then
		bad "suite-$s" "no exit status (the guest stopped inside it)"
	elif [ "$run" != "$seen" ]; then
		bad "suite-$s" "says it ran $run checks but $seen were printed"
	elif [ "$run" != "$plan" ]; then
		bad "suite-$s" "ran $run of the $plan checks it plans (a short suite, or PLAN out of date)"
	elif [ "$status" != 0 ] && { [ "$status" != 1 ] || [ "$fails" -eq 0 ]; }; then
		bad "suite-$s" "exited with status $status and $fails failing checks"
	elif grep -qx "VMTEST LEFT-LOADED $s" "$log"; then
		bad "suite-$s" "left the module loaded"
	else
		ok "suite-$s"
	fi
done
extra=$(awk '$1 == "VMTEST" && $2 == "START" { print $3 }' "$log" | while read -r s; do
	case " $suites " in *" $s "*) ;; *) printf '%s ' "$s" ;; esac
done)
[ -z "$extra" ] || bad suites-expected "suites ran that were not given: $extra"

# ---- kernel log --------------------------------------------------------------
# Reports of the kernel and its checkers. Each is a whole class of defect:
# BUG: (KASAN, sleeping in atomic, soft lockup, NULL dereference, workqueue
# lockups), slub_debug's "BUG <cache> (...)" and its corruption lines,
# WARNING: (WARN_ON, lockdep), kernel BUG at, Oops, general protection,
# refcount_t, list corruption, UBSAN, kmemleak, hung tasks, RCU stalls,
# panics and any stack dump.
patterns='BUG:|BUG [a-zA-Z0-9_.:-]+ \(|kernel BUG at|WARNING:|Oops|general protection fault|'
patterns+='refcount_t:|list_add corruption|list_del corruption|list corruption|KASAN|UBSAN|'
patterns+='kmemleak: [0-9]+ new suspected|unreferenced object|blocked for more than [0-9]+ seconds|'
patterns+='rcu: INFO:|self-detected stall|detected stalls|soft lockup|hard LOCKUP|Kernel panic|'
patterns+='Call Trace:|circular locking|inconsistent lock state|lock held when returning|'
patterns+='sleeping function called from invalid context|scheduling while atomic|'
patterns+='Redzone overwritten|Poison overwritten|Object padding overwritten|Freepointer corrupt|'
patterns+='double free|use-after-free|out-of-bounds'

if ! grep -q '^VMTEST DMESG-BEGIN' "$log" || ! grep -q '^VMTEST DMESG-END' "$log"; then
	bad dmesg-complete "the guest never dumped its kernel log"
	bad dmesg-clean "no kernel log to scan"
else
	klog=$(sed -n '/^VMTEST DMESG-BEGIN/,/^VMTEST DMESG-END/p' "$log" | sed '1d;$d')
	first=$(head -n 1 <<<"$klog")
	if grep -q 'Linux version' <<<"$first"; then
		ok dmesg-complete
	else
		bad dmesg-complete "the dump does not start with the kernel banner (ring buffer wrapped?): '$first'"
	fi
	# with the three lines before each report: a WARN()'s own message
	# comes first, and a bare stack dump (an allocation failure, a sysfs
	# duplicate, lockdep's "INFO: trying to register non-static key")
	# says what it is two lines above "Call Trace:", before "CPU:" and
	# "Hardware name:"
	# A "kmemleak: N new suspected" line between the guest's markers
	# "vmtest-kmemleak-known-begin" and "vmtest-kmemleak-known-end
	# all-known" came from a scan whose every object 00_module recognised
	# as 6.1's own class-registration leak and cleared (tests/vm/00_module.sh);
	# anything else stays a report.
	klog=$(awk '
		/vmtest-kmemleak-known-begin/ { inside = 1; n = 0; next }
		inside && /vmtest-kmemleak-known-end/ {
			for (i = 1; i <= n; i++)
				if (!(/all-known/ && held[i] ~ /kmemleak: [0-9]+ new suspected/))
					print held[i]
			inside = 0
			next
		}
		inside { held[++n] = $0; next }
		{ print }
		END { for (i = 1; inside && i <= n; i++) print held[i] }' <<<"$klog")
	hits=$(grep -E -B3 "$patterns" <<<"$klog" | grep -v '^--$')
	if [ -n "$hits" ]; then
		bad dmesg-clean "kernel log shows: $(head -n 10 <<<"$hits" | sed 's/^\[ *[0-9.]*\] //' | tr '\n' '|' | sed 's/|$//; s/|/ | /g')"
	else
		ok dmesg-clean
	fi
	# Rejected input (kmod/neuron_log.h): "... rejected: <knob>: <why>",
	# rate-limited per call site to a burst of 50 per 5 s. Lines are
	# grouped by knob and first word of the reason (one call site; digits
	# folded), and a group with more than two bursts (100 lines) in any 5 s
	# of the kernel's clock is a call site that is not rate-limited.
	flood=$(awk '
		match($0, /rejected: [^ ]+ [^ ]+/) {
			key = substr($0, RSTART + 10, RLENGTH - 10)
			gsub(/[0-9]+/, "#", key)
			t = $0
			sub(/^\[ */, "", t)
			t = t + 0
			n = ++cnt[key]
			ts[key, n] = t
			while (ts[key, n] - ts[key, first[key] + 1] > 5)
				first[key]++
			if (n - first[key] > worst[key]) {
				worst[key] = n - first[key]
				at[key] = t
			}
		}
		END {
			for (k in worst)
				if (worst[k] > 100)
					printf "%d lines \"rejected: %s\" within 5 s (at %.1f s) | ", worst[k], k, at[k]
		}' <<<"$klog")
	if [ -n "$flood" ]; then
		bad dmesg-no-flood "rejected-input lines not rate-limited: ${flood% | }"
	else
		ok dmesg-no-flood
	fi
fi

# kmemleak (debug kernels only): /init scans at the end and reports the
# number of unreferenced objects.
leaks=$(sed -n 's/^VMTEST KMEMLEAK \([0-9][0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ -n "$leaks" ]; then
	if [ "$leaks" -eq 0 ]; then
		ok kmemleak-clean
	else
		bad kmemleak-clean "$leaks unreferenced object(s): $(grep -A3 -m1 '^unreferenced object' "$log" | tr '\n' ' ')"
	fi
fi

# Taint bits (Documentation/admin-guide/tainted-kernels.rst): O (4096) and
# E (8192) are what loading an out-of-tree, unsigned module sets.
tainted=$(sed -n 's/^VMTEST TAINTED \([0-9][0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ -z "$tainted" ]; then
	bad kernel-untainted "the guest never reported /proc/sys/kernel/tainted"
else
	letters=PFSRMBUDAWCIOELKXTN
	rest=$((tainted & ~(4096 | 8192)))
	if [ "$rest" -eq 0 ]; then
		ok kernel-untainted
	else
		flags=
		for i in $(seq 0 18); do
			[ $(( (rest >> i) & 1 )) -eq 1 ] && flags+=${letters:$i:1}
		done
		bad kernel-untainted "tainted $tainted: flags $flags beyond O/E (W = a warning, D = an oops, L = soft lockup, B = bad page)"
	fi
fi

echo "1..$TAP_N"
exit $(( TAP_FAIL > 0 ))
