# Helpers sourced by the guest suites. Each check prints one line:
#   VMTEST PASS <suite>/<case>      or      VMTEST FAIL <suite>/<case>: <why>
# and the suite's exit status is non-zero when any check failed.
SUITE=${SUITE:-$(basename "$0" .sh)}
FAILED=0

pass() { echo "VMTEST PASS $SUITE/$1"; }
fail() { echo "VMTEST FAIL $SUITE/$1: $2"; FAILED=1; }

# check NAME CMD...: passes when CMD exits 0.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "'$*' failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
}

# check_fails NAME CMD...: passes when CMD exits non-zero.
check_fails() {
	local name=$1; shift
	if "$@" >/dev/null 2>&1; then fail "$name" "'$*' succeeded, expected failure"; else pass "$name"; fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# Run a C test program; its own VMTEST lines count. A missing program or a
# non-zero exit (a crash, a case that failed) adds a failing line of its own,
# so a program that dies early can never pass silently.
run_prog() {
	local prog=$1 rc
	if [ ! -x "$prog" ]; then
		fail "$(basename "$prog")" "program missing from the guest"
		return
	fi
	# a hung program must not eat the whole guest budget
	timeout -s KILL "${PROG_TIMEOUT:-300}" "$@"
	rc=$?
	[ $rc -eq 0 ] || fail "$(basename "$prog")/exit" "exited with status $rc"
}

load() { insmod "$NEURON_KO" "$@"; }
unload() { rmmod neuron; }

finish() {
	if grep -q '^neuron ' /proc/modules; then rmmod neuron 2>/dev/null; fi
	exit $FAILED
}
