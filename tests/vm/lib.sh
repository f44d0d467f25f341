# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers sourced by the guest suites (busybox sh). A suite prints one TAP
# document (scripts/tap.sh has the format): its plan "1..PLAN" first, then
# one line per check:
#   ok <n> - <suite>/<case>      or      not ok <n> - <suite>/<case>: <why>
#
# A suite sets PLAN (the exact number of checks it runs, C programs' cases
# included) before sourcing this file, and ends with `finish`, which prints
#   VMTEST END <file> <checks run> <plan>
# and exits non-zero when any check failed or the count differs from PLAN.
# The host (scripts/vm.sh) compares every suite it started with the END
# lines, so a suite that dies, exits early or skips checks is a failure.
SUITE=${SUITE:-$(basename "$0" .sh)}
SUITE_FILE=$(basename "$0" .sh)
FAILED=0
CHECKS=0
: "${PLAN:?the suite must set PLAN before sourcing lib.sh}"

echo "1..$PLAN"
pass() { CHECKS=$((CHECKS + 1)); echo "ok $CHECKS - $SUITE/$1"; check_time; }
fail() { CHECKS=$((CHECKS + 1)); echo "not ok $CHECKS - $SUITE/$1: $2"; FAILED=1; check_time; }
# VM_TIMING_CHECKS=1 (scripts/vm.sh passes it on): after each check, a TAP
# comment with the milliseconds since the previous one, to find where a
# suite spends its time.
check_time() {
	[ -n "$VM_TIMING_CHECKS" ] || return 0
	local t
	t=$(now_ms)
	echo "# +$((t - ${CHECK_T:-$t})) ms"
	CHECK_T=$t
}

# check NAME CMD...: passes when CMD exits 0.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "'$*' failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
}

# check_fails NAME STATUS PATTERN CMD...: passes when CMD exits with exactly
# STATUS and its output (stdout and stderr) matches the extended regular
# expression PATTERN, typically the errno's message. A crash (status 128 and
# up), a program that is missing or not executable (127, 126) or success is
# always a failure, whatever STATUS says.
check_fails() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$name" "'$*' succeeded, expected status $want"
	elif [ "$rc" -ge 126 ]; then
		fail "$name" "'$*' crashed or could not run (status $rc): $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	elif [ "$rc" -ne "$want" ]; then
		fail "$name" "'$*' exited $rc, expected $want: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	elif ! echo "$out" | grep -Eq "$pattern"; then
		fail "$name" "'$*' exited $rc but said '$(echo "$out" | tail -n 2 | tr '\n' ' ')', expected /$pattern/"
	else
		pass "$name"
	fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# ---- the kernel log -------------------------------------------------------
# Nothing clears the kernel log: the host scans all of it after the run.
# A test that needs "what the kernel said since X" writes a unique marker to
# /dev/kmsg with `mark` and reads what follows it with `since_mark`.
MARKN=0
mark() {
	MARKN=$((MARKN + 1))
	KMARK="vmtest-mark $SUITE_FILE $MARKN"
	echo "$KMARK" > /dev/kmsg
}
since_mark() { dmesg | sed -n "/$KMARK\$/,\$p" | sed 1d; }

# expect_refused NAME PATTERN CMD...: CMD fails with EINVAL ("Invalid
# argument") and, since just before it ran, the kernel logged a line
# matching PATTERN (the format or range the input should have had).
expect_refused() {
	local name=$1 pattern=$2 out rc
	shift 2
	mark
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$name" "'$*' was accepted"
		return 1
	elif [ "$rc" -ge 126 ] || ! echo "$out" | grep -q 'Invalid argument'; then
		fail "$name" "'$*' exited $rc with '$(echo "$out" | tail -n 1)', expected EINVAL"
	elif since_mark | grep -Eq "$pattern"; then
		pass "$name"
	else
		fail "$name" "no kernel log line /$pattern/ (log since: $(since_mark | tail -n 2 | tr '\n' ' '))"
	fi
	return 0
}

# ---- jq, once for many values ---------------------------------------------
# jq starts slowly under TCG (about 1 s: it compiles its builtins at every
# start), so a suite asks one jq run for many values. jq_batch FILE PROGRAM
# [JQ OPTIONS...]: PROGRAM prints one "key value" line per value; jv KEY
# then prints that value, or, when jq gave none (a jq error, a missing key),
# a line saying so, which no check expects. Values are never empty.
jq_batch() {
	local f=$1 p=$2
	shift 2
	JQB=$($JQ -r "$@" "$p" "$f" 2>&1) || JQB="jq failed: $JQB"
}
jv() {
	local v
	v=$(printf '%s\n' "$JQB" | sed -n "s/^$1 //p")
	[ -n "$v" ] || v="(jq gave no $1: $(printf '%s' "$JQB" | head -c 200 | tr '\n' ' '))"
	printf '%s\n' "$v"
}

# ---- time and waiting -----------------------------------------------------
# busybox date has no %N: milliseconds since boot from /proc/uptime (10 ms
# resolution, enough for the bounds below).
now_ms() {
	local up
	read -r up _ < /proc/uptime
	echo $(( ${up%.*} * 1000 + 1${up#*.} % 100 * 10 ))
}

# wait_for NAME BOUND_MS CMD...: poll until CMD succeeds; fails the check
# NAME (and returns 1) if it still does not after BOUND_MS. This waits on
# the state that proves an event, never for a fixed time.
wait_for() {
	local name=$1 bound=$2 t0
	shift 2
	t0=$(now_ms)
	until "$@" >/dev/null 2>&1; do
		if [ $(( $(now_ms) - t0 )) -ge "$bound" ]; then
			fail "$name" "'$*' still false after $bound ms"
			return 1
		fi
		sleep 0.01
	done
	pass "$name"
}

# check_within NAME MAX_MS CMD...: CMD succeeds in under MAX_MS.
check_within() {
	local name=$1 bound=$2 t0 ms out
	shift 2
	t0=$(now_ms)
	if ! out=$("$@" 2>&1); then
		fail "$name" "'$*' failed: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return
	fi
	ms=$(( $(now_ms) - t0 ))
	if [ "$ms" -lt "$bound" ]; then pass "$name"; else fail "$name" "'$*' took $ms ms, bound $bound ms"; fi
}

# ---- programs -------------------------------------------------------------
# Run a C test program (tests/vm/vmtest.h); its TAP lines count towards
# this suite's checks (renumbered into the suite's sequence), plus two of
# run_prog's own, which pass or fail but
# are always there (so PLAN does not depend on what failed): <name>/exit,
# status 0, and <name>/complete, its "VMTEST DONE <name> <cases>" line
# covering every case it printed. A program that crashes, is missing or
# returns early never passes silently.
run_prog() {
	local prog=$1 name rc out ran end
	name=$(basename "$prog")
	if [ ! -x "$prog" ]; then
		fail "$name/exit" "program missing from the guest"
		fail "$name/complete" "program missing from the guest"
		return
	fi
	out=/tmp/run_prog.$$.out
	# a hung program must not eat the whole guest budget
	timeout -s KILL "${PROG_TIMEOUT:-300}" "$@" > "$out" 2>&1
	rc=$?
	awk -v n="$CHECKS" '/^ok [0-9]+ / { $2 = ++n } /^not ok [0-9]+ / { $3 = ++n } { print }' "$out"
	ran=$(grep -cE '^(not )?ok [0-9]+ ' "$out")
	end=$(sed -n 's/^VMTEST DONE [^ ]* \([0-9]*\)$/\1/p' "$out")
	grep -qE '^not ok ' "$out" && FAILED=1
	rm -f "$out"
	CHECKS=$((CHECKS + ran))
	if [ "$rc" -eq 0 ]; then pass "$name/exit"; else fail "$name/exit" "exited with status $rc"; fi
	if [ "$end" = "$ran" ]; then
		pass "$name/complete"
	else
		fail "$name/complete" "printed $ran cases but its end line says '${end:-nothing}'"
	fi
}

# ---- the module -----------------------------------------------------------
# load: the periodic metrics post is parked at its longest period (24 h)
# unless the caller sets nmetric_post_delay_ms, so no post runs in the
# middle of a suite's exact counts. load_plain passes the arguments as given.
load() {
	case " $* " in
	*" nmetric_post_delay_ms="*) insmod "$NEURON_KO" "$@" ;;
	*) insmod "$NEURON_KO" nmetric_post_delay_ms=86400000 "$@" ;;
	esac
}
load_plain() { insmod "$NEURON_KO" "$@"; }
unload() { rmmod neuron; }
reload() { unload && load "$@"; }

finish() {
	if grep -q '^neuron ' /proc/modules; then rmmod neuron 2>/dev/null; fi
	echo "VMTEST END $SUITE_FILE $CHECKS $PLAN"
	[ "$CHECKS" -eq "$PLAN" ] || FAILED=1
	exit $FAILED
}
