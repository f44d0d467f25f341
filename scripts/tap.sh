# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# TAP output for the test scripts (sourced by bash scripts; the guest's
# tests/vm/lib.sh and tests/vm/vmtest.h print the same lines). Every suite
# `make check` runs prints TAP (https://testanything.org, version 13
# subset), so scripts/check.sh has one parser:
#   ok <n> - <name>
#   not ok <n> - <name>: <why>
#   1..<n>                      the plan, once per TAP document
#   # <label>: P passed, F failed      (a comment: the script's own totals)
# A stream may hold several documents (CMocka prints one per group, the
# guest one per suite): check.sh adds their plans, and requires the sum to
# equal the results it saw, so a suite that dies before its plan or after
# part of its checks fails.
TAP_N=0
TAP_PASS=0
TAP_FAIL=0
tap_pass() { TAP_N=$((TAP_N + 1)); TAP_PASS=$((TAP_PASS + 1)); echo "ok $TAP_N - $1"; }
tap_fail() { TAP_N=$((TAP_N + 1)); TAP_FAIL=$((TAP_FAIL + 1)); echo "not ok $TAP_N - $1: $2"; }
# tap_done LABEL: the plan and the totals comment; status 1 on any failure.
tap_done() {
	echo "1..$TAP_N"
	echo "# $1: $TAP_PASS passed, $TAP_FAIL failed"
	[ "$TAP_FAIL" -eq 0 ]
}

# tap_count FILE STATUS: judge a suite's TAP output FILE and its exit
# STATUS; prints "<passed> <failed> <why>" where failed includes one more
# when the suite itself is at fault: no result at all, plans (summed over
# its documents) that do not equal the results, or an exit status that
# says failure with no failing check. <why> is empty when nothing is wrong
# beyond its own failing checks. scripts/check.sh's one parser.
tap_count() {
	local file=$1 rc=$2 p f plan why=
	p=$(grep -cE '^ok [0-9]+( |$)' "$file")
	f=$(grep -cE '^not ok [0-9]+( |$)' "$file")
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$file" | awk '{ n += $1 } END { print n + 0 }')
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		why="ran no test (exit status $rc)"
	elif [ "$plan" -ne $((p + f)) ]; then
		why="planned $plan checks but reported $((p + f)) (exit status $rc)"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		why="exited $rc without a failing check"
	fi
	[ -n "$why" ] && f=$((f + 1))
	echo "$p $f $why"
}
