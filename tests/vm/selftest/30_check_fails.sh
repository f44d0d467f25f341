# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Harness self-test: check_fails must not take a crash, a missing program,
# the wrong status or the wrong message for the expected failure. Each of
# the first four checks must FAIL; the last one must PASS.
PLAN=5
. /tests/lib.sh
check_fails crash-is-not-a-failure 1 "" sh -c 'kill -SEGV $$'
check_fails missing-program-is-not-a-failure 1 "" /tests/no-such-program
check_fails wrong-message 1 "Invalid argument" sh -c 'echo "No such device" >&2; exit 1'
check_fails wrong-status 2 "" sh -c 'exit 1'
check_fails expected-failure 1 "No such file or directory" cat /no-such-file
finish
