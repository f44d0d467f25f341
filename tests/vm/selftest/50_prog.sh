# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Harness self-test: run_prog catches a program that stops before its end
# with status 0 (no "VMTEST DONE" line) and one that exits non-zero.
PLAN=5
. /tests/lib.sh
mkdir -p /tmp/selftest
printf '#!/bin/sh\necho "ok 1 - selftest/prog-case"\nexit 0\n' > /tmp/selftest/stops_early
printf '#!/bin/sh\necho "VMTEST DONE selftest 0"\nexit 3\n' > /tmp/selftest/exits_3
chmod 755 /tmp/selftest/stops_early /tmp/selftest/exits_3
run_prog /tmp/selftest/stops_early
run_prog /tmp/selftest/exits_3
finish
